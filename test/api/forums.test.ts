// Issue 39 (docs/threads.md#forum-channels, #forum-posts, #the-starter-message): forums and their
// posts on both wires: the native routes' answers, and each refusal's status and code natively
// and under /api (Discord's codes). Runs on SQLite, and on PostgreSQL with TEST_DATABASE=postgres.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createServer, joinServer, postMessage, registerUser, type TestUser } from '../factories.js';
import { TestGatewayClient } from '../gateway/client.js';
import { startServer, type TestServer } from '../harness.js';
import { expectError } from './assert.js';

let srv: TestServer;
let owner: TestUser;
let member: TestUser;
let other: TestUser;
let serverId: string;
let general: string;

const as = (who: TestUser, method: string, path: string, body?: unknown) =>
  call(srv.url, method, path, { auth: who.auth, ...(body !== undefined ? { body } : {}) });
const api = (who: TestUser, method: string, path: string, body?: unknown) =>
  call(srv.url, method, `/api/v10${path}`, { auth: who.auth, ...(body !== undefined ? { body } : {}) });

type Tag = { id: string; name: string; moderated: boolean; emoji: string | null };

/** A forum made by the owner with tags `open`, `bug` (🐛) and the moderated `solved`; its id and tags. */
async function forum(name = 'help'): Promise<{ id: string; tags: Record<string, Tag> }> {
  const r = await as(owner, 'POST', `/servers/${serverId}/channels`, {
    name,
    type: 'forum',
    topic: 'ask here',
    availableTags: [{ name: 'open' }, { name: 'bug', emoji: '🐛' }, { name: 'solved', moderated: true }],
  });
  expect(r.status, r.text).toBe(201);
  return { id: r.body.id, tags: Object.fromEntries((r.body.availableTags as Tag[]).map((t) => [t.name, t])) };
}

beforeAll(async () => {
  srv = await startServer({ env: { RATE_LIMITS: 'off' } });
  [owner, member, other] = await Promise.all([registerUser(srv.url), registerUser(srv.url), registerUser(srv.url)]);
  const made = await createServer(srv.url, owner);
  serverId = made.server.id;
  general = made.general.id;
  await joinServer(srv.url, owner, member, serverId);
  await joinServer(srv.url, owner, other, serverId);
});
afterAll(() => srv?.close());

describe('forum channels (native)', () => {
  it('are made with tags and defaults, listed with them, and their tags change as a whole list', async () => {
    const r = await as(owner, 'POST', `/servers/${serverId}/channels`, {
      name: 'questions',
      type: 'forum',
      availableTags: [{ name: 'open' }, { name: 'bug', emoji: '🐛' }, { name: 'solved', moderated: true }],
      defaultAutoArchiveDuration: 60,
      defaultSortOrder: 'creation_date',
      defaultForumLayout: 'gallery',
      defaultReactionEmoji: '👍',
    });
    expect(r.status, r.text).toBe(201);
    expect(r.body).toMatchObject({
      type: 'forum',
      defaultAutoArchiveDuration: 60,
      defaultSortOrder: 'creation_date',
      defaultForumLayout: 'gallery',
      defaultReactionEmoji: '👍',
    });
    const tags = r.body.availableTags as Tag[];
    expect(tags.map((t) => [t.name, t.moderated, t.emoji])).toEqual([
      ['open', false, null],
      ['bug', false, '🐛'],
      ['solved', true, null],
    ]);
    // A text channel shows none of it.
    const text = await as(owner, 'POST', `/servers/${serverId}/channels`, { name: 'plain' });
    expect(text.body.availableTags).toBeUndefined();

    const list = await as(member, 'GET', `/servers/${serverId}/channels`);
    const listed = (list.body as Array<{ id: string; type: string; availableTags?: Tag[] }>).find((c) => c.id === r.body.id);
    expect(listed?.type).toBe('forum');
    expect(listed?.availableTags?.map((t) => t.name)).toEqual(['open', 'bug', 'solved']);

    // Keep "bug" (renamed), drop the others, add "idea": the gateway's CHANNEL_UPDATE carries the list.
    const gw = await TestGatewayClient.identify(srv.gatewayUrl, member.auth);
    try {
      // ready lists the forum with its tags.
      const inReady = gw.ready!.servers.find((s) => s.id === serverId)?.channels.find((c: { id: string }) => c.id === r.body.id);
      expect(inReady?.availableTags?.map((t: Tag) => t.name)).toEqual(['open', 'bug', 'solved']);
      const p = await as(owner, 'PATCH', `/channels/${r.body.id}`, {
        availableTags: [{ id: tags[1]!.id, name: 'bugs', emoji: '🪲' }, { name: 'idea' }],
      });
      expect(p.status, p.text).toBe(200);
      const after = p.body.availableTags as Tag[];
      expect(after.map((t) => [t.id === tags[1]!.id, t.name, t.emoji])).toEqual([
        [true, 'bugs', '🪲'],
        [false, 'idea', null],
      ]);
      const event = await gw.waitForEvent('CHANNEL_UPDATE', (d) => d.id === r.body.id);
      expect((event.d.availableTags as Tag[]).map((t) => t.name)).toEqual(['bugs', 'idea']);
    } finally {
      await gw.close();
    }
  });

  it('posts: a public thread with its first message (the post id) and tags; the message carries the thread nowhere else', async () => {
    const f = await forum();
    const r = await as(member, 'POST', `/channels/${f.id}/threads`, {
      name: 'it crashes',
      message: { content: 'steps to reproduce…' },
      appliedTags: [f.tags.bug!.id],
    });
    expect(r.status, r.text).toBe(201);
    expect(r.body).toMatchObject({
      parentId: f.id,
      type: 'public_thread',
      ownerId: member.id,
      appliedTags: [f.tags.bug!.id],
      messageCount: 0,
      memberCount: 1,
      lastMessageId: r.body.id,
      metadata: { autoArchiveDuration: 1440, archived: false },
      message: { id: r.body.id, channelId: r.body.id, content: 'steps to reproduce…' },
    });
    const page = await as(other, 'GET', `/channels/${r.body.id}/messages`);
    expect(page.body.map((m: { id: string }) => m.id)).toEqual([r.body.id]);
    // The forum's active list has it; another member posts in it as in any thread.
    const active = await as(other, 'GET', `/channels/${f.id}/threads`);
    expect(active.body.threads.map((t: { id: string }) => t.id)).toContain(r.body.id);
    expect((await postMessage(srv.url, other.auth, r.body.id, 'same here')).id).toBeTruthy();

    // Its owner sets its tags; someone else may not; a moderated tag takes MANAGE_THREADS.
    const set = await as(member, 'PATCH', `/threads/${r.body.id}`, { appliedTags: [f.tags.open!.id, f.tags.bug!.id] });
    expect(set.status, set.text).toBe(200);
    expect(set.body.appliedTags).toEqual([f.tags.open!.id, f.tags.bug!.id]);
    expectError(await as(other, 'PATCH', `/threads/${r.body.id}`, { appliedTags: [] }), 403, 'missing_permission');
    expectError(await as(member, 'PATCH', `/threads/${r.body.id}`, { appliedTags: [f.tags.solved!.id] }), 403, 'missing_permission');
    const solved = await as(owner, 'PATCH', `/threads/${r.body.id}`, { appliedTags: [f.tags.solved!.id] });
    expect(solved.body.appliedTags).toEqual([f.tags.solved!.id]);
    // Nor may the owner take a moderated tag off.
    expectError(await as(member, 'PATCH', `/threads/${r.body.id}`, { appliedTags: [] }), 403, 'missing_permission');

    // A tag removed from the forum stays on the posts that carried it (as on Discord).
    const kept = await as(owner, 'PATCH', `/channels/${f.id}`, { availableTags: [{ id: f.tags.open!.id, name: 'open' }] });
    expect(kept.status, kept.text).toBe(200);
    expect((await as(member, 'GET', `/threads/${r.body.id}`)).body.appliedTags).toEqual([f.tags.solved!.id]);
  });

  it('a post is announced before its first message: THREAD_CREATE, then MESSAGE_CREATE; new tags are a THREAD_UPDATE', async () => {
    const f = await forum('announced');
    const gw = await TestGatewayClient.identify(srv.gatewayUrl, other.auth);
    try {
      const r = await as(member, 'POST', `/channels/${f.id}/threads`, { name: 'news', message: { content: 'first!' } });
      expect(r.status, r.text).toBe(201);
      const created = await gw.waitForEvent('MESSAGE_CREATE', (d) => d.id === r.body.id);
      const thread = gw.events('THREAD_CREATE').find((e) => e.d.id === r.body.id);
      expect(thread?.d).toMatchObject({ id: r.body.id, parentId: f.id, name: 'news' });
      expect(gw.frames.indexOf(thread!)).toBeLessThan(gw.frames.indexOf(created));
      await as(member, 'PATCH', `/threads/${r.body.id}`, { appliedTags: [f.tags.bug!.id] });
      const updated = await gw.waitForEvent('THREAD_UPDATE', (d) => d.id === r.body.id);
      expect(updated.d.appliedTags).toEqual([f.tags.bug!.id]);
    } finally {
      await gw.close();
    }
  });

  it('a post takes the forum default duration, and a message a thread started from carries it', async () => {
    const made = await as(owner, 'POST', `/servers/${serverId}/channels`, {
      name: 'slow',
      type: 'forum',
      defaultAutoArchiveDuration: 10080,
    });
    const post = await as(member, 'POST', `/channels/${made.body.id}/threads`, { name: 'p', message: { content: 'x' } });
    expect(post.body.metadata.autoArchiveDuration).toBe(10080);

    const msg = await postMessage(srv.url, member.auth, general, 'thread me');
    const plain = await postMessage(srv.url, member.auth, general, 'not me');
    const started = await as(member, 'POST', `/channels/${general}/messages/${msg.id}/threads`, { name: 'on it' });
    expect(started.status, started.text).toBe(201);
    const page = await as(other, 'GET', `/channels/${general}/messages?limit=5`);
    const byId = new Map((page.body as Array<{ id: string; thread?: { id: string; name: string } }>).map((m) => [m.id, m]));
    expect(byId.get(msg.id)?.thread).toMatchObject({ id: msg.id, name: 'on it', parentId: general });
    expect(byId.get(plain.id)?.thread).toBeUndefined();
    expect((await as(other, 'GET', `/channels/${general}/messages/${msg.id}`)).body.thread?.id).toBe(msg.id);
    // The thread's own first message (inside it) is not its starter.
    const first = await as(other, 'GET', `/channels/${post.body.id}/messages/${post.body.id}`);
    expect(first.body.thread).toBeUndefined();
  });

  it('SEND_MESSAGES in the forum starts a post, whatever CREATE_PUBLIC_THREADS says (as on Discord)', async () => {
    const f = await forum('gated');
    // Without SEND_MESSAGES there (an overwrite for the member), no post; CREATE_PUBLIC_THREADS does not help.
    const deny = await as(owner, 'PUT', `/channels/${f.id}/permissions/${member.id}`, {
      type: 'member',
      deny: String(1n << 11n),
      allow: String(1n << 35n),
    });
    expect(deny.status, deny.text).toBe(204);
    expectError(await as(member, 'POST', `/channels/${f.id}/threads`, { name: 'p', message: { content: 'x' } }), 403, 'missing_permission');
    // With SEND_MESSAGES and without CREATE_PUBLIC_THREADS, a post.
    await as(owner, 'PUT', `/channels/${f.id}/permissions/${member.id}`, {
      type: 'member',
      allow: String(1n << 11n),
      deny: String(1n << 35n),
    });
    const ok = await as(member, 'POST', `/channels/${f.id}/threads`, { name: 'p', message: { content: 'x' } });
    expect(ok.status, ok.text).toBe(201);
  });
});

describe('forum refusals (native)', () => {
  it('too many tags, bad tags, forum fields elsewhere', async () => {
    const many = Array.from({ length: 21 }, (_, i) => ({ name: `t${i}` }));
    expectError(
      await as(owner, 'POST', `/servers/${serverId}/channels`, { name: 'f', type: 'forum', availableTags: many }),
      400,
      'invalid_body',
    );
    const f = await forum('limits');
    expectError(await as(owner, 'PATCH', `/channels/${f.id}`, { availableTags: many }), 400, 'invalid_body');
    expectError(
      await as(owner, 'PATCH', `/channels/${f.id}`, { availableTags: [{ id: general, name: 'stolen' }] }),
      400,
      /names no tag of this forum/,
    );
    expectError(await as(owner, 'PATCH', `/channels/${f.id}`, { availableTags: [{ name: 'a' }, { name: 'A' }] }), 400, /twice/);
    expectError(await as(owner, 'PATCH', `/channels/${f.id}`, { availableTags: [{ name: 'x', emoji: 'not one' }] }), 400, /emoji/);
    expectError(await as(owner, 'PATCH', `/channels/${general}`, { availableTags: [{ name: 'x' }] }), 400, /forum/);
    expectError(await as(member, 'PATCH', `/channels/${f.id}`, { availableTags: [] }), 403, 'missing_permission');
  });

  it('posts: no message, too many or unknown tags, a moderated tag, a private post, a message to the forum', async () => {
    const f = await forum('posts');
    const post = (body: Record<string, unknown>) => as(member, 'POST', `/channels/${f.id}/threads`, { name: 'p', ...body });
    expectError(await post({}), 400, 'invalid_body', /first message/);
    expectError(await post({ message: {} }), 400);
    const six = Array.from({ length: 6 }, () => f.tags.open!.id);
    expectError(await post({ message: { content: 'x' }, appliedTags: six }), 400, 'invalid_body');
    expectError(await post({ message: { content: 'x' }, appliedTags: [general] }), 400, 'invalid_body', /names no tag/);
    expectError(await post({ message: { content: 'x' }, appliedTags: [f.tags.open!.id, f.tags.open!.id] }), 400, /twice/);
    expectError(await post({ message: { content: 'x' }, appliedTags: [f.tags.solved!.id] }), 403, 'missing_permission');
    expectError(await post({ message: { content: 'x' }, type: 'private_thread' }), 400, /public/);
    expectError(await postMessageRaw(member, f.id), 400, 'channel_is_forum');
    // A thread in a text channel takes neither a message nor tags.
    expectError(await as(member, 'POST', `/channels/${general}/threads`, { name: 't', message: { content: 'x' } }), 400, 'invalid_body');
    expectError(
      await as(member, 'POST', `/channels/${general}/threads`, { name: 't', appliedTags: [f.tags.open!.id] }),
      400,
      'invalid_body',
    );
    // Nor does a thread of a text channel take tags.
    const plain = await as(member, 'POST', `/channels/${general}/threads`, { name: 'plain' });
    expectError(await as(member, 'PATCH', `/threads/${plain.body.id}`, { appliedTags: [f.tags.open!.id] }), 400, 'invalid_body');
    // Nothing was made by the refusals.
    expect((await as(member, 'GET', `/channels/${f.id}/threads`)).body.threads).toEqual([]);
  });
});

const postMessageRaw = (who: TestUser, channelId: string) => as(who, 'POST', `/channels/${channelId}/messages`, { content: 'hi' });

describe('forum refusals under /api (Discord codes)', () => {
  it('answers 50035, 50013 and 50008 where Discord does', async () => {
    const f = await forum('discord');
    const many = Array.from({ length: 21 }, (_, i) => ({ name: `t${i}` }));
    const tooMany = await api(owner, 'PATCH', `/channels/${f.id}`, { available_tags: many });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.code).toBe(50035);
    const custom = await api(owner, 'PATCH', `/channels/${f.id}`, { available_tags: [{ name: 'x', emoji_id: general }] });
    expect(custom.status).toBe(400);
    expect(custom.body.code).toBe(50035);

    const post = (body: Record<string, unknown>) => api(member, 'POST', `/channels/${f.id}/threads`, { name: 'p', ...body });
    const unknown = await post({ message: { content: 'x' }, applied_tags: [general] });
    expect([unknown.status, unknown.body.code]).toEqual([400, 50035]);
    const six = await post({ message: { content: 'x' }, applied_tags: Array.from({ length: 6 }, () => f.tags.open!.id) });
    expect([six.status, six.body.code]).toEqual([400, 50035]);
    const moderated = await post({ message: { content: 'x' }, applied_tags: [f.tags.solved!.id] });
    expect([moderated.status, moderated.body.code]).toEqual([403, 50013]);
    const noMessage = await post({});
    expect([noMessage.status, noMessage.body.code]).toEqual([400, 50035]);
    const toForum = await api(member, 'POST', `/channels/${f.id}/messages`, { content: 'hi' });
    expect([toForum.status, toForum.body.code]).toEqual([400, 50008]);

    // And the post itself, Discord's way: type 11, applied_tags, and the first message beside it.
    const ok = await post({ message: { content: 'hello' }, applied_tags: [f.tags.open!.id], auto_archive_duration: 60 });
    expect(ok.status, ok.text).toBe(201);
    expect(ok.body).toMatchObject({
      id: ok.body.message.id,
      type: 11,
      parent_id: f.id,
      applied_tags: [f.tags.open!.id],
      thread_metadata: { auto_archive_duration: 60 },
      message: { channel_id: ok.body.id, content: 'hello' },
    });
    const ch = await api(member, 'GET', `/channels/${f.id}`);
    expect(ch.body).toMatchObject({
      type: 15,
      topic: 'ask here',
      available_tags: [
        { name: 'open', moderated: false, emoji_id: null, emoji_name: null },
        { name: 'bug', moderated: false, emoji_id: null, emoji_name: '🐛' },
        { name: 'solved', moderated: true, emoji_id: null, emoji_name: null },
      ],
      default_auto_archive_duration: 1440,
      default_reaction_emoji: null,
      default_sort_order: null,
      default_forum_layout: 0,
      default_thread_rate_limit_per_user: 0,
    });
    const tagged = await api(member, 'PATCH', `/channels/${ok.body.id}`, { applied_tags: [f.tags.solved!.id] });
    expect([tagged.status, tagged.body.code]).toEqual([403, 50013]);
  });
});
