// Issue 39 (docs/threads.md#native-routes, docs/api.md#threads): the native thread routes, each
// answer's shape and each refusal's status and code. Runs on SQLite, and on PostgreSQL with
// TEST_DATABASE=postgres.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createChannel, createServer, joinServer, postMessage, registerUser, type TestUser } from '../factories.js';
import { TestGatewayClient } from '../gateway/client.js';
import { startServer, type TestServer } from '../harness.js';
import { ISO_UTC, UNKNOWN_ID, expectError } from './assert.js';

let srv: TestServer;
let owner: TestUser;
let member: TestUser;
let other: TestUser;
let stranger: TestUser;
let serverId: string;
let general: string;

const as = (who: TestUser | undefined, method: string, path: string, body?: unknown) =>
  call(srv.url, method, path, { ...(who ? { auth: who.auth } : {}), ...(body !== undefined ? { body } : {}) });

/** A thread started by `who` in `parent` through the native route; its id. */
async function start(who: TestUser, parent: string, body: Record<string, unknown> = {}): Promise<string> {
  const r = await as(who, 'POST', `/channels/${parent}/threads`, { name: 'a thread', ...body });
  expect(r.status, r.text).toBe(201);
  return r.body.id as string;
}

const CREATE_PRIVATE_THREADS = String(1n << 36n);
const CREATE_PUBLIC_THREADS = String(1n << 35n);

beforeAll(async () => {
  srv = await startServer({ env: { RATE_LIMITS: 'off' } });
  [owner, member, other, stranger] = await Promise.all([
    registerUser(srv.url),
    registerUser(srv.url),
    registerUser(srv.url),
    registerUser(srv.url),
  ]);
  const made = await createServer(srv.url, owner);
  serverId = made.server.id;
  general = made.general.id;
  await joinServer(srv.url, owner, member, serverId);
  await joinServer(srv.url, owner, other, serverId);
});
afterAll(() => srv?.close());

describe('POST /channels/{id}/threads', () => {
  it('starts a public thread by default, in camelCase, with the starter as its member', async () => {
    const r = await as(member, 'POST', `/channels/${general}/threads`, { name: '  plans  ', autoArchiveDuration: 60 });
    expect(r.status, r.text).toBe(201);
    expect(r.body).toMatchObject({
      serverId,
      parentId: general,
      type: 'public_thread',
      name: 'plans',
      ownerId: member.id,
      messageCount: 0,
      memberCount: 1,
      lastMessageId: null,
      appliedTags: [],
      metadata: { archived: false, locked: false, autoArchiveDuration: 60 },
      member: { threadId: r.body.id, userId: member.id, flags: 0 },
    });
    expect(r.body.metadata.archiveTimestamp).toMatch(ISO_UTC);
    expect(r.body.metadata.createTimestamp).toMatch(ISO_UTC);
    expect(r.body.metadata).not.toHaveProperty('invitable');
    // Its messages are the channel routes on its id.
    const posted = await postMessage(srv.url, other.auth, r.body.id, 'hello thread');
    const got = await as(member, 'GET', `/threads/${r.body.id}`);
    expect(got.body).toMatchObject({ messageCount: 1, memberCount: 2, lastMessageId: posted.id });
  });

  it('starts a private thread, invitable unless told otherwise', async () => {
    const r = await as(member, 'POST', `/channels/${general}/threads`, { name: 'secret', type: 'private_thread', invitable: false });
    expect(r.status, r.text).toBe(201);
    expect(r.body).toMatchObject({ type: 'private_thread', metadata: { invitable: false, autoArchiveDuration: 1440 } });
  });

  it('400 for bad bodies', async () => {
    for (const body of [
      {},
      { name: '' },
      { name: 'x'.repeat(101) },
      { name: 7 },
      { name: 'x', type: 'text' },
      { name: 'x', type: 11 },
      { name: 'x', autoArchiveDuration: 61 },
      { name: 'x', invitable: 'yes' },
    ]) {
      expectError(await as(member, 'POST', `/channels/${general}/threads`, body), 400);
    }
    // A name of nothing but invisible characters is empty once cleaned.
    expectError(await as(member, 'POST', `/channels/${general}/threads`, { name: '\u200b' }), 400);
    // No thread starts in a thread.
    const t = await start(member, general);
    expectError(await as(member, 'POST', `/channels/${t}/threads`, { name: 'nested' }), 400);
  });

  it('401 without credentials, 403 outside the server or without the CREATE_ bit, 404 for an unknown channel', async () => {
    expectError(await as(undefined, 'POST', `/channels/${general}/threads`, { name: 'x' }), 401);
    expectError(await as(stranger, 'POST', `/channels/${general}/threads`, { name: 'x' }), 403, 'not_a_member');
    expectError(await as(member, 'POST', `/channels/${UNKNOWN_ID}/threads`, { name: 'x' }), 404, 'unknown_channel');
    const parent = await createChannel(srv.url, owner, serverId);
    const deny = await as(owner, 'PUT', `/channels/${parent.id}/permissions/${serverId}`, {
      type: 'role',
      deny: String(BigInt(CREATE_PRIVATE_THREADS) | BigInt(CREATE_PUBLIC_THREADS)),
    });
    expect(deny.status, deny.text).toBe(204);
    expectError(await as(member, 'POST', `/channels/${parent.id}/threads`, { name: 'x' }), 403, 'missing_permission');
    expectError(
      await as(member, 'POST', `/channels/${parent.id}/threads`, { name: 'x', type: 'private_thread' }),
      403,
      'missing_permission',
    );
    expect((await as(owner, 'POST', `/channels/${parent.id}/threads`, { name: 'x' })).status).toBe(201);
  });
});

describe('POST /channels/{id}/messages/{messageId}/threads', () => {
  it('starts a public thread that takes the message id, once per message', async () => {
    const msg = await postMessage(srv.url, owner.auth, general, 'talk about this');
    const r = await as(member, 'POST', `/channels/${general}/messages/${msg.id}/threads`, { name: 'about it' });
    expect(r.status, r.text).toBe(201);
    expect(r.body).toMatchObject({ id: msg.id, type: 'public_thread', parentId: general, ownerId: member.id });
    expectError(
      await as(owner, 'POST', `/channels/${general}/messages/${msg.id}/threads`, { name: 'again' }),
      400,
      'thread_already_created',
    );
  });

  it('400 for bad bodies, 401, 403 for a stranger, 404 for an unknown message or channel', async () => {
    const msg = await postMessage(srv.url, owner.auth, general, 'another');
    const path = `/channels/${general}/messages/${msg.id}/threads`;
    for (const body of [{}, { name: '' }, { name: 'x', autoArchiveDuration: 2 }, { name: 'x', type: 'private_thread' }]) {
      // `type` is not for a thread from a message: only name and duration are.
      if ('type' in body) {
        const r = await as(member, 'POST', path, body);
        // The body's unknown key is ignored, as by the neighbouring create routes; the thread is public.
        expect(r.status, r.text).toBe(201);
        expect(r.body.type).toBe('public_thread');
        continue;
      }
      expectError(await as(member, 'POST', path, body), 400);
    }
    expectError(await as(undefined, 'POST', path, { name: 'x' }), 401);
    expectError(await as(stranger, 'POST', path, { name: 'x' }), 403, 'not_a_member');
    expectError(await as(member, 'POST', `/channels/${general}/messages/${UNKNOWN_ID}/threads`, { name: 'x' }), 404, 'unknown_message');
    expectError(await as(member, 'POST', `/channels/${UNKNOWN_ID}/messages/${msg.id}/threads`, { name: 'x' }), 404, 'unknown_channel');
  });
});

describe('lists', () => {
  it("GET /channels/{id}/threads: the channel's active threads the caller may see", async () => {
    const parent = await createChannel(srv.url, owner, serverId);
    const pub = await start(member, parent.id);
    const priv = await start(member, parent.id, { type: 'private_thread' });
    const archived = await start(member, parent.id);
    expect((await as(member, 'PATCH', `/threads/${archived}`, { archived: true })).status).toBe(200);
    await start(member, general);

    const mine = await as(member, 'GET', `/channels/${parent.id}/threads`);
    expect(mine.status, mine.text).toBe(200);
    expect(mine.body.threads.map((t: { id: string }) => t.id)).toEqual([pub, priv]);
    expect(mine.body.threads[0].member).toMatchObject({ userId: member.id });
    // Someone else sees the public one, without a membership of theirs; the owner (MANAGE_THREADS) both.
    const theirs = await as(other, 'GET', `/channels/${parent.id}/threads`);
    expect(theirs.body.threads.map((t: { id: string }) => t.id)).toEqual([pub]);
    expect(theirs.body.threads[0]).not.toHaveProperty('member');
    expect((await as(owner, 'GET', `/channels/${parent.id}/threads`)).body.threads).toHaveLength(2);

    expectError(await as(undefined, 'GET', `/channels/${parent.id}/threads`), 401);
    expectError(await as(stranger, 'GET', `/channels/${parent.id}/threads`), 403, 'not_a_member');
    expectError(await as(member, 'GET', `/channels/${UNKNOWN_ID}/threads`), 404, 'unknown_channel');
  });

  it('GET /servers/{id}/threads: every active thread of the server the caller may see', async () => {
    const { server, general: g } = await createServer(srv.url, owner, 'Lists');
    await joinServer(srv.url, owner, member, server.id);
    const a = await start(owner, g.id);
    const hidden = await start(owner, g.id, { type: 'private_thread' });
    const r = await as(member, 'GET', `/servers/${server.id}/threads`);
    expect(r.status, r.text).toBe(200);
    expect(r.body.threads.map((t: { id: string }) => t.id)).toEqual([a]);
    expect((await as(owner, 'GET', `/servers/${server.id}/threads`)).body.threads.map((t: { id: string }) => t.id)).toEqual([a, hidden]);
    expectError(await as(undefined, 'GET', `/servers/${server.id}/threads`), 401);
    expectError(await as(stranger, 'GET', `/servers/${server.id}/threads`), 403, 'not_a_member');
    expectError(await as(member, 'GET', `/servers/${UNKNOWN_ID}/threads`), 404, 'unknown_server');
  });

  it('GET /channels/{id}/threads/archived: pages newest archive first; private ones need MANAGE_THREADS or joined=true', async () => {
    const parent = await createChannel(srv.url, owner, serverId);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const id = await start(member, parent.id);
      expect((await as(member, 'PATCH', `/threads/${id}`, { archived: true })).status).toBe(200);
      ids.push(id);
    }
    const priv = await start(member, parent.id, { type: 'private_thread' });
    expect((await as(member, 'PATCH', `/threads/${priv}`, { archived: true })).status).toBe(200);
    await start(member, parent.id);

    const path = `/channels/${parent.id}/threads/archived`;
    const first = await as(other, 'GET', `${path}?limit=2`);
    expect(first.status, first.text).toBe(200);
    expect(first.body.hasMore).toBe(true);
    expect(first.body.threads.map((t: { id: string }) => t.id)).toEqual([ids[2], ids[1]]);
    const before = first.body.threads[1].metadata.archiveTimestamp;
    const rest = await as(other, 'GET', `${path}?limit=2&before=${encodeURIComponent(before)}`);
    expect(rest.body).toMatchObject({ hasMore: false });
    expect(rest.body.threads.map((t: { id: string }) => t.id)).toEqual([ids[0]]);

    expectError(await as(other, 'GET', `${path}?type=private_thread`), 403, 'missing_permission');
    const joined = await as(member, 'GET', `${path}?type=private_thread&joined=true`);
    expect(joined.body.threads.map((t: { id: string }) => t.id)).toEqual([priv]);
    expect((await as(other, 'GET', `${path}?type=private_thread&joined=true`)).body.threads).toEqual([]);
    expect((await as(owner, 'GET', `${path}?type=private_thread`)).body.threads.map((t: { id: string }) => t.id)).toEqual([priv]);

    for (const q of ['limit=0', 'limit=101', 'limit=x', 'type=text', 'before=yesterday', 'joined=maybe'])
      expectError(await as(member, 'GET', `${path}?${q}`), 400);
    expectError(await as(undefined, 'GET', path), 401);
    expectError(await as(stranger, 'GET', path), 403, 'not_a_member');
    expectError(await as(member, 'GET', `/channels/${UNKNOWN_ID}/threads/archived`), 404, 'unknown_channel');
  });
});

describe('GET, PATCH and DELETE /threads/{id}', () => {
  it('GET: the thread with the caller’s membership; 404 for no thread, a channel, or a private thread the caller may not see', async () => {
    const t = await start(member, general);
    const r = await as(member, 'GET', `/threads/${t}`);
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ id: t, member: { userId: member.id } });
    expect((await as(other, 'GET', `/threads/${t}`)).body).not.toHaveProperty('member');
    expectError(await as(undefined, 'GET', `/threads/${t}`), 401);
    expectError(await as(stranger, 'GET', `/threads/${t}`), 403, 'not_a_member');
    expectError(await as(member, 'GET', `/threads/${UNKNOWN_ID}`), 404, 'unknown_channel');
    expectError(await as(member, 'GET', '/threads/not-an-id'), 404, 'unknown_channel');
    expectError(await as(member, 'GET', `/threads/${general}`), 404, 'unknown_channel');

    const priv = await start(member, general, { type: 'private_thread' });
    expectError(await as(other, 'GET', `/threads/${priv}`), 404, 'unknown_channel');
    expectError(await as(other, 'PATCH', `/threads/${priv}`, { name: 'mine now' }), 404, 'unknown_channel');
    expectError(await as(other, 'DELETE', `/threads/${priv}`), 404, 'unknown_channel');
    expectError(await as(other, 'GET', `/threads/${priv}/members`), 404, 'unknown_channel');
    expectError(await as(other, 'PUT', `/threads/${priv}/members/@me`), 404, 'unknown_channel');
    // MANAGE_THREADS opens it.
    expect((await as(owner, 'GET', `/threads/${priv}`)).status).toBe(200);
  });

  it('PATCH: the owner renames and archives; only MANAGE_THREADS locks; an archived thread takes only unarchiving', async () => {
    const t = await start(member, general);
    const renamed = await as(member, 'PATCH', `/threads/${t}`, { name: 'renamed', autoArchiveDuration: 4320 });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'renamed', metadata: { autoArchiveDuration: 4320 } });
    expectError(await as(other, 'PATCH', `/threads/${t}`, { name: 'theirs' }), 403, 'missing_permission');
    expectError(await as(member, 'PATCH', `/threads/${t}`, { locked: true }), 403, 'missing_permission');

    const archived = await as(member, 'PATCH', `/threads/${t}`, { archived: true });
    expect(archived.body.metadata.archived).toBe(true);
    expectError(await as(member, 'PATCH', `/threads/${t}`, { name: 'while archived' }), 400, 'thread_archived');
    expect((await as(member, 'PATCH', `/threads/${t}`, { archived: false })).body.metadata.archived).toBe(false);

    const locked = await as(owner, 'PATCH', `/threads/${t}`, { locked: true });
    expect(locked.body.metadata.locked).toBe(true);
    // Locked: its owner may change it no more, nor post in it.
    expectError(await as(member, 'PATCH', `/threads/${t}`, { name: 'still mine?' }), 403, 'thread_locked');
    expectError(await as(member, 'POST', `/channels/${t}/messages`, { content: 'hello?' }), 403, 'thread_locked');
    expect((await as(owner, 'POST', `/channels/${t}/messages`, { content: 'moderator here' })).status).toBe(201);

    for (const body of [{}, { name: '' }, { locked: 'yes' }, { autoArchiveDuration: 5 }, { colour: 'red' }, { archived: null }])
      expectError(await as(owner, 'PATCH', `/threads/${t}`, body), 400);
    expectError(await as(undefined, 'PATCH', `/threads/${t}`, { name: 'x' }), 401);
    expectError(await as(stranger, 'PATCH', `/threads/${t}`, { name: 'x' }), 403, 'not_a_member');
    expectError(await as(owner, 'PATCH', `/threads/${UNKNOWN_ID}`, { name: 'x' }), 404, 'unknown_channel');
  });

  it('DELETE: MANAGE_THREADS; the thread and its messages go', async () => {
    const t = await start(member, general);
    await postMessage(srv.url, member.auth, t, 'in the thread');
    expectError(await as(member, 'DELETE', `/threads/${t}`), 403, 'missing_permission');
    expectError(await as(undefined, 'DELETE', `/threads/${t}`), 401);
    expectError(await as(stranger, 'DELETE', `/threads/${t}`), 403, 'not_a_member');
    const r = await as(owner, 'DELETE', `/threads/${t}`);
    expect(r.status, r.text).toBe(204);
    expectError(await as(owner, 'GET', `/threads/${t}`), 404, 'unknown_channel');
    expectError(await as(owner, 'GET', `/channels/${t}/messages`), 404, 'unknown_channel');
    expectError(await as(owner, 'DELETE', `/threads/${t}`), 404, 'unknown_channel');
  });
});

describe('/threads/{id}/members', () => {
  it('join, add, list, get, remove and leave', async () => {
    const t = await start(member, general);
    expect((await as(other, 'PUT', `/threads/${t}/members/@me`)).status).toBe(204);
    // Joining twice changes nothing.
    expect((await as(other, 'PUT', `/threads/${t}/members/@me`)).status).toBe(204);
    expect((await as(member, 'PUT', `/threads/${t}/members/${owner.id}`)).status).toBe(204);

    const list = await as(member, 'GET', `/threads/${t}/members`);
    expect(list.status, list.text).toBe(200);
    expect(list.body.map((m: { userId: string }) => m.userId)).toEqual([member.id, other.id, owner.id].sort());
    expect(list.body[0]).toMatchObject({ threadId: t, flags: 0 });
    expect(list.body[0].joinTimestamp).toMatch(ISO_UTC);
    const page = await as(member, 'GET', `/threads/${t}/members?limit=1&after=${list.body[0].userId}`);
    expect(page.body.map((m: { userId: string }) => m.userId)).toEqual([list.body[1].userId]);
    expect((await as(member, 'GET', `/threads/${t}`)).body.memberCount).toBe(3);

    const me = await as(other, 'GET', `/threads/${t}/members/@me`);
    expect(me.body).toMatchObject({ threadId: t, userId: other.id });
    expect((await as(other, 'GET', `/threads/${t}/members/${member.id}`)).body.userId).toBe(member.id);
    expectError(await as(other, 'GET', `/threads/${t}/members/${stranger.id}`), 404, 'unknown_member');

    // Someone else: MANAGE_THREADS (or a private thread's owner).
    expectError(await as(other, 'DELETE', `/threads/${t}/members/${member.id}`), 403, 'missing_permission');
    expect((await as(owner, 'DELETE', `/threads/${t}/members/${member.id}`)).status).toBe(204);
    expect((await as(other, 'DELETE', `/threads/${t}/members/@me`)).status).toBe(204);
    expectError(await as(other, 'GET', `/threads/${t}/members/@me`), 404, 'unknown_member');
    expect((await as(owner, 'GET', `/threads/${t}/members`)).body.map((m: { userId: string }) => m.userId)).toEqual([owner.id]);
  });

  it('refusals: 400, 401, 403, 404, and thread_archived', async () => {
    const t = await start(member, general);
    for (const q of ['limit=0', 'limit=101', 'limit=x', 'after=nope'])
      expectError(await as(member, 'GET', `/threads/${t}/members?${q}`), 400);
    expectError(await as(undefined, 'GET', `/threads/${t}/members`), 401);
    expectError(await as(undefined, 'PUT', `/threads/${t}/members/@me`), 401);
    expectError(await as(stranger, 'PUT', `/threads/${t}/members/@me`), 403, 'not_a_member');
    expectError(await as(stranger, 'GET', `/threads/${t}/members/@me`), 403, 'not_a_member');
    expectError(await as(member, 'PUT', `/threads/${t}/members/${stranger.id}`), 404, 'unknown_member');
    expectError(await as(member, 'PUT', `/threads/${UNKNOWN_ID}/members/@me`), 404, 'unknown_channel');
    expectError(await as(member, 'DELETE', `/threads/${t}/members/${UNKNOWN_ID}`), 403, 'missing_permission');
    expectError(await as(owner, 'DELETE', `/threads/${t}/members/${UNKNOWN_ID}`), 404, 'unknown_member');

    // A private thread that is not invitable: only MANAGE_THREADS adds people.
    const priv = await start(member, general, { type: 'private_thread', invitable: false });
    expectError(await as(member, 'PUT', `/threads/${priv}/members/${other.id}`), 403, 'missing_permission');
    expect((await as(owner, 'PUT', `/threads/${priv}/members/${other.id}`)).status).toBe(204);
    expect((await as(other, 'GET', `/threads/${priv}`)).status).toBe(200);

    expect((await as(member, 'PATCH', `/threads/${t}`, { archived: true })).status).toBe(200);
    expectError(await as(other, 'PUT', `/threads/${t}/members/@me`), 400, 'thread_archived');
    expectError(await as(member, 'DELETE', `/threads/${t}/members/@me`), 400, 'thread_archived');
  });
});

describe("a thread's content through the channel routes", () => {
  const countOf = async (t: string) => (await as(owner, 'GET', `/threads/${t}`)).body.messageCount as number;

  it('a message deleted from a thread, alone or in bulk, lowers its messageCount', async () => {
    const t = await start(member, general);
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push((await postMessage(srv.url, member.auth, t, `m${i}`)).id);
    expect(await countOf(t)).toBe(4);
    expect((await as(member, 'DELETE', `/channels/${t}/messages/${ids[0]}`)).status).toBe(204);
    expect(await countOf(t)).toBe(3);
    // An id already gone, or of another channel, is not counted twice.
    const bulk = await as(owner, 'POST', `/channels/${t}/messages/bulk-delete`, { messages: [ids[0], ids[1], ids[2]] });
    expect(bulk.status, bulk.text).toBe(204);
    expect(await countOf(t)).toBe(1);
    // Discord's routes share the rule.
    const d = await call(srv.url, 'DELETE', `/api/v10/channels/${t}/messages/${ids[3]}`, { auth: member.auth });
    expect(d.status, d.text).toBe(204);
    expect(await countOf(t)).toBe(0);
  });

  it('a ban that deletes the member’s messages lowers the counts of the threads they were in', async () => {
    const { server, general: g } = await createServer(srv.url, owner, 'Bans');
    const spammer = await registerUser(srv.url);
    await joinServer(srv.url, owner, spammer, server.id);
    const t = await start(owner, g.id);
    await postMessage(srv.url, owner.auth, t, 'stays');
    for (let i = 0; i < 3; i++) await postMessage(srv.url, spammer.auth, t, `spam ${i}`);
    expect(await countOf(t)).toBe(4);
    const ban = await as(owner, 'PUT', `/servers/${server.id}/bans/${spammer.id}`, { deleteMessageSeconds: 3600 });
    expect(ban.status, ban.text).toBe(204);
    expect(await countOf(t)).toBe(1);
  });

  it('the deletions of a private thread (bulk, and a ban’s) reach its members alone', async () => {
    const { server, general: g } = await createServer(srv.url, owner, 'Private deletions');
    const [inside, outsider, spammer] = [await registerUser(srv.url), await registerUser(srv.url), await registerUser(srv.url)];
    for (const u of [inside, outsider, spammer]) await joinServer(srv.url, owner, u, server.id);
    const t = await start(owner, g.id, { type: 'private_thread' });
    for (const u of [inside, spammer]) expect((await as(owner, 'PUT', `/threads/${t}/members/${u.id}`)).status).toBe(204);
    const ids = [
      (await postMessage(srv.url, owner.auth, t, 'a')).id,
      (await postMessage(srv.url, owner.auth, t, 'b')).id,
      (await postMessage(srv.url, spammer.auth, t, 'spam')).id,
    ];
    const [gIn, gOut] = [
      await TestGatewayClient.identify(srv.gatewayUrl, inside.auth),
      await TestGatewayClient.identify(srv.gatewayUrl, outsider.auth),
    ];
    try {
      expect((await as(owner, 'POST', `/channels/${t}/messages/bulk-delete`, { messages: ids.slice(0, 2) })).status).toBe(204);
      await gIn.waitForEvent('MESSAGE_DELETE_BULK', (d) => d.channelId === t);
      expect((await as(owner, 'PUT', `/servers/${server.id}/bans/${spammer.id}`, { deleteMessageSeconds: 3600 })).status).toBe(204);
      await gIn.waitForEvent('MESSAGE_DELETE', (d) => d.id === ids[2]);
      // Events of one server arrive in order: once the outsider has this, they would have had those.
      const last = await postMessage(srv.url, owner.auth, g.id, 'in the open');
      await gOut.waitForEvent('MESSAGE_CREATE', (d) => d.id === last.id);
      expect(gOut.frames.filter((f) => JSON.stringify(f.d ?? null).includes(t))).toEqual([]);
    } finally {
      await gIn.close();
      await gOut.close();
    }
  });

  it('an archived thread takes no reaction: 400 thread_archived natively, 50083 on Discord’s routes', async () => {
    const t = await start(member, general);
    const m = await postMessage(srv.url, member.auth, t, 'react to me');
    const emoji = encodeURIComponent('👍');
    expect((await as(other, 'PUT', `/channels/${t}/messages/${m.id}/reactions/${emoji}`)).status).toBe(200);
    expect((await as(member, 'PATCH', `/threads/${t}`, { archived: true })).status).toBe(200);
    expectError(await as(other, 'PUT', `/channels/${t}/messages/${m.id}/reactions/${emoji}`), 400, 'thread_archived');
    const discord = await call(srv.url, 'PUT', `/api/v10/channels/${t}/messages/${m.id}/reactions/${emoji}/@me`, { auth: member.auth });
    expect(discord.status, discord.text).toBe(400);
    expect(discord.body.code).toBe(50083);
    const removal = await call(srv.url, 'DELETE', `/api/v10/channels/${t}/messages/${m.id}/reactions/${emoji}/@me`, { auth: other.auth });
    expect(removal.body.code).toBe(50083);
    // Still archived: the refusals changed nothing.
    expect((await as(owner, 'GET', `/threads/${t}`)).body.metadata.archived).toBe(true);
    const reactions = (await as(owner, 'GET', `/channels/${t}/messages/${m.id}`)).body.reactions;
    expect(reactions).toEqual([{ emoji: '👍', count: 1, me: false }]);
  });

  it('pins are per thread: listed apart from the parent’s, and CHANNEL_PINS_UPDATE names the thread', async () => {
    const parent = await createChannel(srv.url, owner, serverId);
    const t = await start(member, parent.id);
    const inParent = await postMessage(srv.url, owner.auth, parent.id, 'parent pin');
    const inThread = await postMessage(srv.url, member.auth, t, 'thread pin');
    const gw = await TestGatewayClient.identify(srv.gatewayUrl, member.auth);
    try {
      expect((await as(owner, 'PUT', `/channels/${t}/pins/${inThread.id}`)).status).toBe(204);
      const ev = await gw.waitForEvent('CHANNEL_PINS_UPDATE', (d) => d.channelId === t);
      expect(ev.d).toMatchObject({ channelId: t, serverId });
      expect(ev.d.lastPinTimestamp).toMatch(ISO_UTC);
      expect((await as(owner, 'PUT', `/channels/${parent.id}/pins/${inParent.id}`)).status).toBe(204);
      await gw.waitForEvent('CHANNEL_PINS_UPDATE', (d) => d.channelId === parent.id);
    } finally {
      await gw.close();
    }
    const threadPins = await as(member, 'GET', `/channels/${t}/pins`);
    expect(threadPins.body.map((m: { id: string }) => m.id)).toEqual([inThread.id]);
    expect((await as(member, 'GET', `/channels/${parent.id}/pins`)).body.map((m: { id: string }) => m.id)).toEqual([inParent.id]);
    // A message of the parent is no message of the thread.
    expectError(await as(owner, 'PUT', `/channels/${t}/pins/${inParent.id}`), 404, 'unknown_message');
    // Discord's list agrees.
    const d = await call(srv.url, 'GET', `/api/v10/channels/${t}/pins`, { auth: member.auth });
    expect(d.body.map((m: { id: string }) => m.id)).toEqual([inThread.id]);
  });
});
