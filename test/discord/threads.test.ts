// Issue 39, step 3 (docs/threads.md, docs/discord.md#routes): Discord's thread routes under
// /api, each answer's shape and each refusal's status and Discord code.
import { Client, GatewayDispatchEvents, GatewayIntentBits } from '@discordjs/core';
import { REST } from '@discordjs/rest';
import { WebSocketManager } from '@discordjs/ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addBot,
  call,
  createBot,
  createChannel,
  createServer,
  joinServer,
  postMessage,
  registerUser,
  type TestUser,
} from '../factories.js';
import { startServer, type TestServer } from '../harness.js';

let srv: TestServer;
let owner: TestUser;
let member: TestUser;
let stranger: TestUser;
let serverId: string;
let general: string;

const api = (method: string, path: string, who: { auth: string }, body?: unknown) =>
  call(srv.url, method, `/api/v10${path}`, { auth: who.auth, ...(body !== undefined ? { body } : {}) });

beforeAll(async () => {
  srv = await startServer({ env: { RATE_LIMITS: 'off' } });
  owner = await registerUser(srv.url);
  member = await registerUser(srv.url);
  stranger = await registerUser(srv.url);
  const made = await createServer(srv.url, owner);
  serverId = made.server.id;
  general = made.general.id;
  await joinServer(srv.url, owner, member, serverId);
});
afterAll(() => srv?.close());

const CREATE_PUBLIC_THREADS = String(1n << 35n);

describe('starting threads', () => {
  it('from a message: the thread takes its id, is public, and its starter joins it', async () => {
    const msg = await postMessage(srv.url, member.auth, general, 'let us talk about this');
    const r = await api('POST', `/channels/${general}/messages/${msg.id}/threads`, member, { name: 'talk', auto_archive_duration: 60 });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      id: msg.id,
      type: 11,
      guild_id: serverId,
      parent_id: general,
      owner_id: member.id,
      name: 'talk',
      message_count: 0,
      member_count: 1,
      thread_metadata: { archived: false, locked: false, auto_archive_duration: 60 },
      member: { id: msg.id, user_id: member.id, flags: 0 },
    });
    expect(typeof r.body.thread_metadata.archive_timestamp).toBe('string');
    // Once per message (160004).
    const again = await api('POST', `/channels/${general}/messages/${msg.id}/threads`, owner, { name: 'again' });
    expect(again.status).toBe(400);
    expect(again.body.code).toBe(160004);
    // The thread is a channel: messages go there by its id, and GET /channels shows the thread.
    expect((await api('POST', `/channels/${msg.id}/messages`, owner, { content: 'in the thread' })).status).toBe(200);
    const got = await api('GET', `/channels/${msg.id}`, owner);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ id: msg.id, type: 11, message_count: 1, member_count: 2, member: { user_id: owner.id } });
    // A thread is not among the guild's channels.
    const listed = await api('GET', `/guilds/${serverId}/channels`, owner);
    expect(listed.body.map((c: { id: string }) => c.id)).not.toContain(msg.id);
  });

  it('refuses an unknown message (10008), a bad name or duration (50035), a stranger (50001), and a thread in a thread', async () => {
    const unknown = await api('POST', `/channels/${general}/messages/1234567/threads`, member, { name: 'x' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe(10008);
    const msg = await postMessage(srv.url, member.auth, general, 'm');
    expect((await api('POST', `/channels/${general}/messages/${msg.id}/threads`, member, { name: '' })).body.code).toBe(50035);
    const badDuration = await api('POST', `/channels/${general}/messages/${msg.id}/threads`, member, {
      name: 'x',
      auto_archive_duration: 61,
    });
    expect(badDuration.status).toBe(400);
    expect(badDuration.body.code).toBe(50035);
    expect((await api('POST', `/channels/${general}/messages/${msg.id}/threads`, stranger, { name: 'x' })).status).toBe(403);
    const t = await api('POST', `/channels/${general}/threads`, member, { name: 'outer', type: 11 });
    expect(t.status).toBe(201);
    const nested = await api('POST', `/channels/${t.body.id}/threads`, member, { name: 'inner', type: 11 });
    expect(nested.status).toBe(400);
  });

  it('without a message: public (11) or private (12, the default); each needs its CREATE_ bit', async () => {
    const pub = await api('POST', `/channels/${general}/threads`, member, { name: 'open', type: 11 });
    expect(pub.status).toBe(201);
    expect(pub.body.type).toBe(11);
    const priv = await api('POST', `/channels/${general}/threads`, member, { name: 'closed', invitable: false });
    expect(priv.status).toBe(201);
    expect(priv.body).toMatchObject({ type: 12, thread_metadata: { invitable: false } });
    // The other member does not see the private thread; the owner (MANAGE_THREADS) does.
    expect((await api('GET', `/channels/${priv.body.id}`, owner)).status).toBe(200);
    const other = await registerUser(srv.url);
    await joinServer(srv.url, owner, other, serverId);
    expect((await api('GET', `/channels/${priv.body.id}`, other)).status).toBe(403);
    expect((await api('GET', `/channels/${priv.body.id}`, other)).body.code).toBe(50001);
    // Without CREATE_PUBLIC_THREADS (an overwrite denies it): 50013.
    const parent = await createChannel(srv.url, owner, serverId);
    await call(srv.url, 'PUT', `/channels/${parent.id}/permissions/${serverId}`, {
      auth: owner.auth,
      body: { type: 'role', allow: '0', deny: CREATE_PUBLIC_THREADS },
    });
    const refused = await api('POST', `/channels/${parent.id}/threads`, member, { name: 'x', type: 11 });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe(50013);
    expect((await api('POST', `/channels/${parent.id}/threads`, member, { name: 'x', type: 12 })).status).toBe(201);
  });
});

describe('changing and deleting threads', () => {
  it('archive, unarchive, lock: the owner archives and renames; only MANAGE_THREADS locks; an archived thread takes nothing else', async () => {
    const t = (await api('POST', `/channels/${general}/threads`, member, { name: 'mine', type: 11 })).body;
    const renamed = await api('PATCH', `/channels/${t.id}`, member, { name: 'renamed', auto_archive_duration: 4320 });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'renamed', thread_metadata: { auto_archive_duration: 4320 } });
    const lockRefused = await api('PATCH', `/channels/${t.id}`, member, { locked: true });
    expect(lockRefused.status).toBe(403);
    expect(lockRefused.body.code).toBe(50013);
    const archived = await api('PATCH', `/channels/${t.id}`, member, { archived: true });
    expect(archived.body.thread_metadata.archived).toBe(true);
    const renameArchived = await api('PATCH', `/channels/${t.id}`, member, { name: 'nope' });
    expect(renameArchived.status).toBe(400);
    expect(renameArchived.body.code).toBe(50083);
    expect((await api('PUT', `/channels/${t.id}/thread-members/@me`, owner)).body.code).toBe(50083);
    // A post unarchives it.
    expect((await api('POST', `/channels/${t.id}/messages`, member, { content: 'back' })).status).toBe(200);
    expect((await api('GET', `/channels/${t.id}`, member)).body.thread_metadata.archived).toBe(false);
    // The owner of the server (MANAGE_THREADS) locks it: the member can no longer post (160005) nor change it.
    expect((await api('PATCH', `/channels/${t.id}`, owner, { locked: true })).body.thread_metadata.locked).toBe(true);
    const post = await api('POST', `/channels/${t.id}/messages`, member, { content: 'locked?' });
    expect(post.status).toBe(403);
    expect(post.body.code).toBe(160005);
    expect((await api('PATCH', `/channels/${t.id}`, member, { name: 'x' })).body.code).toBe(160005);
    // Someone else's thread: 50013.
    const other = (await api('POST', `/channels/${general}/threads`, owner, { name: 'theirs', type: 11 })).body;
    expect((await api('PATCH', `/channels/${other.id}`, member, { name: 'x' })).body.code).toBe(50013);
  });

  it('DELETE needs MANAGE_THREADS and answers the thread; its messages go with it', async () => {
    const t = (await api('POST', `/channels/${general}/threads`, member, { name: 'doomed', type: 11 })).body;
    await api('POST', `/channels/${t.id}/messages`, member, { content: 'bye' });
    const refused = await api('DELETE', `/channels/${t.id}`, member);
    expect(refused.status).toBe(403);
    const r = await api('DELETE', `/channels/${t.id}`, owner);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: t.id, type: 11 });
    expect((await api('GET', `/channels/${t.id}`, owner)).status).toBe(404);
    expect((await api('GET', `/channels/${t.id}/messages`, owner)).status).toBe(404);
  });
});

describe('a thread and its parent', () => {
  it('deleting a channel deletes its threads: none is left without the permissions it inherited', async () => {
    const parent = await createChannel(srv.url, owner, serverId);
    const t = (await api('POST', `/channels/${parent.id}/threads`, member, { name: 'orphan?', type: 11 })).body;
    await api('POST', `/channels/${t.id}/messages`, member, { content: 'still here?' });
    expect((await call(srv.url, 'DELETE', `/channels/${parent.id}`, { auth: owner.auth })).status).toBe(204);
    expect((await api('GET', `/channels/${t.id}`, owner)).status).toBe(404);
    expect((await call(srv.url, 'GET', `/channels/${t.id}/messages`, { auth: member.auth })).status).toBe(404);
  });

  it('the native channel routes do not change a thread as a channel; deleting one follows the thread rule', async () => {
    const t = (await api('POST', `/channels/${general}/threads`, member, { name: 'native', type: 11 })).body;
    const patched = await call(srv.url, 'PATCH', `/channels/${t.id}`, { auth: owner.auth, body: { topic: 'x' } });
    expect(patched.status).toBe(400);
    expect((await call(srv.url, 'DELETE', `/channels/${t.id}`, { auth: member.auth })).status).toBe(403);
    expect((await call(srv.url, 'DELETE', `/channels/${t.id}`, { auth: owner.auth })).status).toBe(204);
    expect((await api('GET', `/channels/${t.id}`, owner)).status).toBe(404);
  });
});

describe('thread members', () => {
  it('join, add, list, get, remove and leave', async () => {
    const bot = await createBot(srv.url, owner);
    await addBot(srv.url, owner, serverId, bot.id);
    const t = (await api('POST', `/channels/${general}/threads`, member, { name: 'club', type: 12 })).body;
    // A private thread: the bot cannot join it by itself (it cannot see it), but a member adds it.
    expect((await api('PUT', `/channels/${t.id}/thread-members/@me`, bot)).status).toBe(403);
    expect((await api('PUT', `/channels/${t.id}/thread-members/${bot.id}`, member)).status).toBe(204);
    expect((await api('GET', `/channels/${t.id}`, bot)).status).toBe(200);
    const list = await api('GET', `/channels/${t.id}/thread-members`, bot);
    expect(list.status).toBe(200);
    expect(list.body.map((m: { user_id: string }) => m.user_id).sort()).toEqual([member.id, bot.id].sort());
    expect((await api('GET', `/channels/${t.id}/thread-members/${bot.id}`, member)).body).toMatchObject({ id: t.id, user_id: bot.id });
    expect((await api('GET', `/channels/${t.id}/thread-members/${owner.id}`, member)).status).toBe(404);
    expect((await api('GET', `/channels/${t.id}`, member)).body.member_count).toBe(2);
    // Someone not in the server: 10007 (Unknown Member); a stranger cannot add anyone (50001).
    expect((await api('PUT', `/channels/${t.id}/thread-members/${stranger.id}`, member)).body.code).toBe(10007);
    expect((await api('PUT', `/channels/${t.id}/thread-members/${bot.id}`, stranger)).status).toBe(403);
    // The bot leaves; it no longer sees the private thread.
    expect((await api('DELETE', `/channels/${t.id}/thread-members/@me`, bot)).status).toBe(204);
    expect((await api('GET', `/channels/${t.id}`, bot)).status).toBe(403);
    // The private thread's owner removes someone; another member may not (50013).
    await api('PUT', `/channels/${t.id}/thread-members/${bot.id}`, member);
    expect((await api('DELETE', `/channels/${t.id}/thread-members/${member.id}`, bot)).body.code).toBe(50013);
    expect((await api('DELETE', `/channels/${t.id}/thread-members/${bot.id}`, member)).status).toBe(204);
    expect((await api('DELETE', `/channels/${t.id}/thread-members/${bot.id}`, member)).status).toBe(404);
  });
});

describe('listing threads', () => {
  it('active threads of a guild are those the caller may see, with their memberships', async () => {
    const pub = (await api('POST', `/channels/${general}/threads`, owner, { name: 'public one', type: 11 })).body;
    const priv = (await api('POST', `/channels/${general}/threads`, owner, { name: 'private one', type: 12 })).body;
    const seen = await api('GET', `/guilds/${serverId}/threads/active`, member);
    expect(seen.status).toBe(200);
    const ids = seen.body.threads.map((t: { id: string }) => t.id);
    expect(ids).toContain(pub.id);
    expect(ids).not.toContain(priv.id);
    const mine = await api('GET', `/guilds/${serverId}/threads/active`, owner);
    expect(mine.body.threads.map((t: { id: string }) => t.id)).toContain(priv.id);
    expect(mine.body.members.map((m: { id: string }) => m.id)).toEqual(expect.arrayContaining([pub.id, priv.id]));
    expect((await api('GET', `/guilds/${serverId}/threads/active`, stranger)).status).toBe(403);
  });

  it('archived threads page newest first; private ones need MANAGE_THREADS, or only the joined ones', async () => {
    const parent = await createChannel(srv.url, owner, serverId);
    const made: string[] = [];
    for (const name of ['a', 'b', 'c']) {
      const t = (await api('POST', `/channels/${parent.id}/threads`, member, { name, type: 11 })).body;
      await api('PATCH', `/channels/${t.id}`, member, { archived: true });
      made.push(t.id);
    }
    const priv = (await api('POST', `/channels/${parent.id}/threads`, member, { name: 'p', type: 12 })).body;
    await api('PATCH', `/channels/${priv.id}`, member, { archived: true });
    const first = await api('GET', `/channels/${parent.id}/threads/archived/public?limit=2`, member);
    expect(first.status).toBe(200);
    expect(first.body.threads.map((t: { id: string }) => t.id)).toEqual([made[2], made[1]]);
    expect(first.body.has_more).toBe(true);
    const before = first.body.threads[1].thread_metadata.archive_timestamp;
    const next = await api('GET', `/channels/${parent.id}/threads/archived/public?before=${encodeURIComponent(before)}`, member);
    expect(next.body.threads.map((t: { id: string }) => t.id)).toEqual([made[0]]);
    expect(next.body.has_more).toBe(false);
    const refused = await api('GET', `/channels/${parent.id}/threads/archived/private`, member);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe(50013);
    expect(
      (await api('GET', `/channels/${parent.id}/threads/archived/private`, owner)).body.threads.map((t: { id: string }) => t.id),
    ).toEqual([priv.id]);
    const joined = await api('GET', `/channels/${parent.id}/users/@me/threads/archived/private`, member);
    expect(joined.body.threads.map((t: { id: string }) => t.id)).toEqual([priv.id]);
    expect((await api('GET', `/channels/${parent.id}/users/@me/threads/archived/private`, owner)).body.threads).toEqual([]);
    expect((await api('GET', `/channels/${parent.id}/threads/archived/public?before=yesterday`, member)).status).toBe(400);
    expect((await api('GET', `/channels/${parent.id}/threads/archived/public?limit=0`, member)).status).toBe(400);
  });
});

describe('thread events on Discord’s gateway, through @discordjs/core', () => {
  it('sends Discord’s payloads, with GUILDS alone only the bot’s own membership changes, and threads in GUILD_CREATE', async () => {
    const bot = await createBot(srv.url, owner);
    // VIEW_CHANNEL, SEND_MESSAGES, READ_MESSAGE_HISTORY, MANAGE_THREADS.
    await addBot(srv.url, owner, serverId, bot.id);
    const perms = String((1n << 10n) | (1n << 11n) | (1n << 16n) | (1n << 34n));
    expect(
      (await call(srv.url, 'PATCH', `/servers/${serverId}/bots/${bot.id}`, { auth: owner.auth, body: { permissions: perms } })).status,
    ).toBe(200);
    const early = (await api('POST', `/channels/${general}/threads`, member, { name: 'already there', type: 11 })).body;
    const rest = new REST({ api: `${srv.url}/api` }).setToken(bot.token);
    const gateway = new WebSocketManager({ token: bot.token, intents: GatewayIntentBits.Guilds, rest });
    const client = new Client({ rest, gateway });
    const seen: Array<{ t: string; d: any }> = [];
    for (const t of [
      GatewayDispatchEvents.GuildCreate,
      GatewayDispatchEvents.ThreadCreate,
      GatewayDispatchEvents.ThreadUpdate,
      GatewayDispatchEvents.ThreadDelete,
      GatewayDispatchEvents.ThreadMembersUpdate,
      GatewayDispatchEvents.ThreadMemberUpdate,
    ])
      client.on(t as GatewayDispatchEvents.ThreadCreate, ({ data }) => seen.push({ t, d: data }));
    const find = (t: string, pred: (d: any) => boolean) =>
      expect.poll(() => seen.find((e) => e.t === t && pred(e.d))?.d, { timeout: 5000 }).toBeTruthy();
    await gateway.connect();
    try {
      await find('GUILD_CREATE', (d) => d.id === serverId);
      const guild = seen.find((e) => e.t === 'GUILD_CREATE')!.d;
      expect(guild.threads).toEqual(
        expect.arrayContaining([expect.objectContaining({ id: early.id, type: 11, parent_id: general, guild_id: serverId })]),
      );

      // A private thread: MANAGE_THREADS hears it start.
      const priv = (await api('POST', `/channels/${general}/threads`, member, { name: 'quiet', type: 12 })).body;
      await find('THREAD_CREATE', (d) => d.id === priv.id);
      const created = seen.find((e) => e.t === 'THREAD_CREATE' && e.d.id === priv.id)!.d;
      expect(created).toMatchObject({
        id: priv.id,
        type: 12,
        guild_id: serverId,
        parent_id: general,
        owner_id: member.id,
        name: 'quiet',
        member_count: 1,
        message_count: 0,
        total_message_sent: 0,
        newly_created: true,
        thread_metadata: { archived: false, locked: false, auto_archive_duration: 1440, invitable: true },
      });
      expect(created.member).toBeUndefined();

      // Added: the thread with its membership, then its own membership changes (GUILDS suffices).
      expect((await api('PUT', `/channels/${priv.id}/thread-members/${bot.id}`, member)).status).toBe(204);
      await find('THREAD_CREATE', (d) => d.id === priv.id && d.member?.user_id === bot.id);
      expect(seen.find((e) => e.t === 'THREAD_CREATE' && e.d.member)!.d.newly_created).toBeUndefined();
      await find('THREAD_MEMBERS_UPDATE', (d) => d.id === priv.id && d.added_members?.[0]?.user_id === bot.id);
      expect(seen.find((e) => e.t === 'THREAD_MEMBERS_UPDATE')!.d).toMatchObject({ id: priv.id, guild_id: serverId, member_count: 2 });
      await find('THREAD_MEMBER_UPDATE', (d) => d.id === priv.id && d.user_id === bot.id && d.guild_id === serverId);

      // Someone else joining needs GUILD_MEMBERS: nothing of it without.
      expect((await api('PUT', `/channels/${priv.id}/thread-members/${owner.id}`, member)).status).toBe(204);
      expect((await api('PATCH', `/channels/${priv.id}`, member, { name: 'renamed' })).status).toBe(200);
      await find('THREAD_UPDATE', (d) => d.id === priv.id && d.name === 'renamed');
      expect(seen.filter((e) => e.t === 'THREAD_MEMBERS_UPDATE' && JSON.stringify(e.d).includes(owner.id))).toEqual([]);

      expect((await api('DELETE', `/channels/${priv.id}`, owner)).status).toBe(200);
      await find('THREAD_DELETE', (d) => d.id === priv.id);
      expect(seen.find((e) => e.t === 'THREAD_DELETE')!.d).toEqual({ id: priv.id, guild_id: serverId, parent_id: general, type: 12 });
    } finally {
      await gateway.destroy();
    }
  });
});
