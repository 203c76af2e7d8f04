// Issue 39, "everything else follows" (docs/threads.md#unread-state, #notifications, #following,
// #search): a thread's read state, mention counts, notification level and search, through the
// channel routes on the thread's id, ready, settings and search, over real HTTP and the gateway.
// Threads are made in the store (test/fixtures/threads.ts), so this holds whatever route makes them.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ThreadRow } from '../../src/store/repos/threads.js';
import { ClientPool } from '../gateway/client.js';
import { call, createChannel, createServer, joinServer, registerUser, type TestUser } from '../factories.js';
import { storeThread } from '../fixtures/threads.js';
import { startServer, type TestServer } from '../harness.js';

let srv: TestServer;
const pool = new ClientPool();

beforeAll(async () => {
  srv = await startServer({ env: { RATE_LIMITS: 'off', GATEWAY_HEARTBEAT_MS: '2000' } });
});
afterEach(() => pool.closeAll());
afterAll(() => srv?.close());

const VIEW_CHANNEL = (1n << 10n).toString();

interface ReadState {
  channelId: string;
  lastReadId: string;
  mentionCount: number;
}

/** An owner, a server with #general, and two members who joined. */
async function setup() {
  const owner = await registerUser(srv.url);
  const { server, general } = await createServer(srv.url, owner);
  const alice = await registerUser(srv.url);
  const bob = await registerUser(srv.url);
  await joinServer(srv.url, owner, alice, server.id);
  await joinServer(srv.url, owner, bob, server.id);
  const thread = (parentId: string, fields: Partial<ThreadRow> = {}, members: string[] = []) =>
    storeThread(srv.app.ctx.store, { serverId: server.id, parentId, ownerId: owner.id }, fields, members);
  return { owner, server, general, alice, bob, thread };
}

async function send(who: TestUser, channelId: string, content: string) {
  const r = await call(srv.url, 'POST', `/channels/${channelId}/messages`, { auth: who.auth, body: { content } });
  expect(r.status, r.text).toBe(201);
  return r.body as { id: string; channelId: string };
}

const ack = (who: TestUser, channelId: string, messageId: string) =>
  call(srv.url, 'POST', `/channels/${channelId}/messages/${messageId}/ack`, { auth: who.auth });

/** The read states `ready` gives a new session of `user`. */
async function readStates(user: TestUser): Promise<ReadState[]> {
  const c = await pool.identify(srv.gatewayUrl, user.auth);
  const ready = c.ready as unknown as { readStates: ReadState[] };
  c.close();
  return ready.readStates;
}

const member = (who: TestUser, threadId: string) => srv.app.ctx.store.threadMembers.get(srv.app.ctx.store.db, threadId, who.id);

describe('unread state of a thread', () => {
  it('acking a thread keeps its read state: READ_STATE_UPDATE on the thread id, and ready lists it with the mentions since', async () => {
    const w = await setup();
    const id = await w.thread(w.general.id);
    const first = await send(w.owner, id, 'first');
    const c = await pool.identify(srv.gatewayUrl, w.alice.auth);
    const update = c.waitForEvent('READ_STATE_UPDATE', (d: ReadState) => d.channelId === id);
    expect((await ack(w.alice, id, first.id)).status).toBe(204);
    expect((await update).d).toEqual({ channelId: id, lastReadId: first.id, mentionCount: 0 });
    await send(w.bob, id, `look <@${w.alice.id}>`);
    await send(w.bob, id, `again <@${w.alice.id}>`);
    await send(w.bob, id, 'no ping');
    expect((await readStates(w.alice)).find((r) => r.channelId === id)).toEqual({ channelId: id, lastReadId: first.id, mentionCount: 2 });
    // The parent's own state is untouched by the thread's.
    expect((await readStates(w.alice)).find((r) => r.channelId === w.general.id)).toBeUndefined();
  });

  it('a thread joined (by a mention) and never opened lists its mentions with lastReadId "0"', async () => {
    const w = await setup();
    const id = await w.thread(w.general.id);
    await send(w.bob, id, `hey <@${w.alice.id}>`);
    expect((await readStates(w.alice)).find((r) => r.channelId === id)).toEqual({ channelId: id, lastReadId: '0', mentionCount: 1 });
  });

  it('nothing of a private thread reaches someone outside it: no read state once they leave, no ack while outside', async () => {
    const w = await setup();
    const id = await w.thread(w.general.id, { type: 'private_thread', invitable: 0 }, [w.alice.id, w.bob.id]);
    const m = await send(w.bob, id, `secret <@${w.alice.id}>`);
    expect((await ack(w.alice, id, m.id)).status).toBe(204);
    await send(w.bob, id, `more <@${w.alice.id}>`);
    expect((await readStates(w.alice)).find((r) => r.channelId === id)?.mentionCount).toBe(1);
    const store = srv.app.ctx.store;
    await store.write((tx) => store.threadMembers.remove(tx, id, w.alice.id));
    // Her row stays in the store; ready judges it by the thread's rule and leaves it out.
    expect((await readStates(w.alice)).find((r) => r.channelId === id)).toBeUndefined();
    expect((await ack(w.alice, id, m.id)).status).toBe(403);
    // An outsider can neither ack it nor be pulled in by a mention from someone who may not add people.
    const outsider = await registerUser(srv.url);
    await joinServer(srv.url, w.owner, outsider, w.server.id);
    await send(w.bob, id, `psst <@${outsider.id}>`);
    expect(await member(outsider, id)).toBeUndefined();
    expect((await ack(outsider, id, m.id)).status).toBe(403);
    expect((await readStates(outsider)).find((r) => r.channelId === id)).toBeUndefined();
  });

  it('a public thread of a parent someone can no longer see leaves their ready', async () => {
    const w = await setup();
    const parent = await createChannel(srv.url, w.owner, w.server.id);
    const id = await w.thread(parent.id);
    const m = await send(w.bob, id, `hi <@${w.alice.id}>`);
    expect((await ack(w.alice, id, m.id)).status).toBe(204);
    expect((await readStates(w.alice)).find((r) => r.channelId === id)?.lastReadId).toBe(m.id);
    const r = await call(srv.url, 'PUT', `/channels/${parent.id}/permissions/${w.alice.id}`, {
      auth: w.owner.auth,
      body: { type: 'member', allow: '0', deny: VIEW_CHANNEL },
    });
    expect(r.status, r.text).toBe(204);
    expect((await readStates(w.alice)).find((r) => r.channelId === id)).toBeUndefined();
  });
});

describe('following a thread', () => {
  it('being named in a public thread joins it; the rest of the server does not', async () => {
    const w = await setup();
    const id = await w.thread(w.general.id);
    await send(w.bob, id, `<@${w.alice.id}> have a look`);
    expect(await member(w.alice, id)).toBeDefined();
    expect(await member(w.owner, id)).toBeUndefined();
    const row = await srv.app.ctx.store.threads.byId(srv.app.ctx.store.db, id);
    expect(row?.memberCount).toBe(2);
  });

  it('being named does not join a thread of a parent one cannot see', async () => {
    const w = await setup();
    const parent = await createChannel(srv.url, w.owner, w.server.id);
    const id = await w.thread(parent.id);
    const r = await call(srv.url, 'PUT', `/channels/${parent.id}/permissions/${w.alice.id}`, {
      auth: w.owner.auth,
      body: { type: 'member', allow: '0', deny: VIEW_CHANNEL },
    });
    expect(r.status, r.text).toBe(204);
    await send(w.bob, id, `<@${w.alice.id}> you cannot see this`);
    expect(await member(w.alice, id)).toBeUndefined();
  });

  it('in a private thread, being named joins only where the poster may add people (invitable)', async () => {
    const w = await setup();
    const id = await w.thread(w.general.id, { type: 'private_thread', invitable: 1 }, [w.bob.id]);
    await send(w.bob, id, `<@${w.alice.id}> come in`);
    expect(await member(w.alice, id)).toBeDefined();
    expect((await call(srv.url, 'GET', `/channels/${id}/messages`, { auth: w.alice.auth })).status).toBe(200);
  });
});

describe('notification levels of a thread', () => {
  it('set through the settings on the thread id; the caller’s own membership says it, natively and as Discord’s flags', async () => {
    const w = await setup();
    const id = await w.thread(w.general.id, {}, [w.alice.id, w.bob.id]);
    // A followed thread's default: `all` natively, and no bit in Discord's flags (none chosen).
    const before = await call(srv.url, 'GET', `/api/v10/channels/${id}/thread-members/@me`, { auth: w.alice.auth });
    expect(before.status, before.text).toBe(200);
    expect(before.body.flags).toBe(0);
    await send(w.bob, id, 'kiwifruit');
    const own = async () =>
      (await call(srv.url, 'GET', `/search/messages?q=kiwifruit`, { auth: w.alice.auth })).body.threads[0].member as {
        notify: string;
        flags: number;
      };
    expect(await own()).toMatchObject({ notify: 'all', flags: 0 });
    const r = await call(srv.url, 'PATCH', '/users/@me/settings', {
      auth: w.alice.auth,
      body: { servers: { [w.server.id]: { channels: { [id]: { level: 'mentions' } } } } },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body.servers[w.server.id].channels[id]).toEqual({ level: 'mentions' });
    const mine = await call(srv.url, 'GET', `/api/v10/channels/${id}/thread-members/@me`, { auth: w.alice.auth });
    expect(mine.body.flags).toBe(4);
    expect(await own()).toMatchObject({ notify: 'mentions', flags: 4 });
    // Someone else's membership shows nothing of her settings.
    const hers = await call(srv.url, 'GET', `/api/v10/channels/${id}/thread-members/${w.alice.id}`, { auth: w.bob.auth });
    expect(hers.body.flags).toBe(0);
    const list = await call(srv.url, 'GET', `/api/v10/guilds/${w.server.id}/threads/active`, { auth: w.alice.auth });
    expect(list.body.members.find((m: { id: string }) => m.id === id).flags).toBe(4);
    const muted = await call(srv.url, 'PATCH', '/users/@me/settings', {
      auth: w.alice.auth,
      body: { servers: { [w.server.id]: { channels: { [id]: { muted: true } } } } },
    });
    expect(muted.status).toBe(200);
    const after = await call(srv.url, 'GET', `/api/v10/channels/${id}`, { auth: w.alice.auth });
    expect(after.body.member.flags).toBe(8);
    expect(await own()).toMatchObject({ notify: 'none', flags: 8 });
    // null removes the entry: back to the default.
    const reset = await call(srv.url, 'PATCH', '/users/@me/settings', {
      auth: w.alice.auth,
      body: { servers: { [w.server.id]: { channels: { [id]: null } } } },
    });
    expect(reset.status).toBe(200);
    expect(await own()).toMatchObject({ notify: 'all', flags: 0 });
  });

  it('a private thread the person may not see is refused as an unknown channel', async () => {
    const w = await setup();
    const hidden = await w.thread(w.general.id, { type: 'private_thread' }, [w.bob.id]);
    const r = await call(srv.url, 'PATCH', '/users/@me/settings', {
      auth: w.alice.auth,
      body: { servers: { [w.server.id]: { channels: { [hidden]: { level: 'all' } } } } },
    });
    expect(r.status).toBe(400);
    // A thread of another server is refused the same way.
    const other = await createServer(srv.url, w.alice);
    const theirs = await w.thread(w.general.id);
    const wrong = await call(srv.url, 'PATCH', '/users/@me/settings', {
      auth: w.alice.auth,
      body: { servers: { [other.server.id]: { channels: { [theirs]: { level: 'all' } } } } },
    });
    expect(wrong.status).toBe(400);
  });
});

describe('search in threads', () => {
  const search = (who: TestUser, query: Record<string, string>) =>
    call(srv.url, 'GET', `/search/messages?${new URLSearchParams(query).toString()}`, { auth: who.auth });

  it('finds a public thread’s messages, says which thread, and takes the thread as channelId', async () => {
    const w = await setup();
    const id = await w.thread(w.general.id, { name: 'the plan' });
    const m = await send(w.bob, id, 'zanzibar quokka');
    const all = await search(w.alice, { q: 'quokka', serverId: w.server.id });
    expect(all.status, all.text).toBe(200);
    expect(all.body.messages.map((x: { id: string }) => x.id)).toEqual([m.id]);
    expect(all.body.threads.map((t: { id: string; name: string; parentId: string }) => [t.id, t.name, t.parentId])).toEqual([
      [id, 'the plan', w.general.id],
    ]);
    const inThread = await search(w.alice, { q: 'quokka', channelId: id });
    expect(inThread.body.messages.map((x: { id: string }) => x.id)).toEqual([m.id]);
  });

  it('a private thread’s messages are found by its members alone', async () => {
    const w = await setup();
    const id = await w.thread(w.general.id, { type: 'private_thread' }, [w.bob.id]);
    const m = await send(w.bob, id, 'wombat secrets');
    expect((await search(w.bob, { q: 'wombat' })).body.messages.map((x: { id: string }) => x.id)).toEqual([m.id]);
    const outside = await search(w.alice, { q: 'wombat' });
    expect(outside.body.total).toBe(0);
    expect(outside.body.threads).toBeUndefined();
    expect((await search(w.alice, { q: 'wombat', serverId: w.server.id })).body.total).toBe(0);
    expect((await search(w.alice, { q: 'wombat', channelId: id })).status).toBe(403);
  });

  it('a public thread’s messages are not found by someone who cannot read its parent', async () => {
    const w = await setup();
    const parent = await createChannel(srv.url, w.owner, w.server.id);
    const id = await w.thread(parent.id);
    await send(w.bob, id, 'platypus report');
    const r = await call(srv.url, 'PUT', `/channels/${parent.id}/permissions/${w.alice.id}`, {
      auth: w.owner.auth,
      body: { type: 'member', allow: '0', deny: VIEW_CHANNEL },
    });
    expect(r.status, r.text).toBe(204);
    expect((await search(w.alice, { q: 'platypus' })).body.total).toBe(0);
    expect((await search(w.bob, { q: 'platypus' })).body.total).toBe(1);
    expect((await search(w.alice, { q: 'platypus', channelId: id })).status).toBe(403);
  });
});
