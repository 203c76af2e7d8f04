// Issue 39 (docs/threads.md#events): a thread's content events reach only those who may see
// the thread — its parent's viewers for a public thread, its members for a private one — and
// nothing of a private thread reaches someone after they leave it. Threads are made in the
// store here, so these hold whatever route makes them.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { archiveDueThreads } from '../../src/domain/threads.js';
import type { ThreadRow } from '../../src/store/repos/threads.js';
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
import { storeThread } from '../fixtures/threads.js';
import { startServer, type TestServer } from '../harness.js';
import { ClientPool, type TestGatewayClient } from './client.js';

let srv: TestServer;
const pool = new ClientPool();
let owner: TestUser;
let inside: TestUser;
let outside: TestUser;
let serverId: string;
let general: string;

beforeAll(async () => {
  srv = await startServer({ env: { RATE_LIMITS: 'off' } });
  owner = await registerUser(srv.url);
  inside = await registerUser(srv.url);
  outside = await registerUser(srv.url);
  const made = await createServer(srv.url, owner);
  serverId = made.server.id;
  general = made.general.id;
  await joinServer(srv.url, owner, inside, serverId);
  await joinServer(srv.url, owner, outside, serverId);
});
afterEach(() => pool.closeAll());
afterAll(() => srv?.close());

async function thread(parentId: string, fields: Partial<ThreadRow> = {}, members: string[] = []): Promise<string> {
  return storeThread(srv.app.ctx.store, { serverId, parentId, ownerId: owner.id }, fields, members);
}

/** Posts in #general and waits until every client has it: the log is ordered, so all before it was delivered or filtered. */
async function syncPoint(...clients: TestGatewayClient[]): Promise<void> {
  const content = `sync-${Math.random().toString(36).slice(2, 8)}`;
  await postMessage(srv.url, owner.auth, general, content);
  await Promise.all(clients.map((c) => c.waitForEvent('MESSAGE_CREATE', (d) => d.content === content)));
}

const said = (c: TestGatewayClient, content: string) => c.events('MESSAGE_CREATE').filter((f) => f.d.content === content);

describe('who receives a thread’s events', () => {
  it('a private thread’s messages reach its members only, and stop at once when one leaves', async () => {
    const id = await thread(general, { type: 'private_thread' }, [inside.id]);
    const a = await pool.identify(srv.gatewayUrl, inside.auth);
    const b = await pool.identify(srv.gatewayUrl, outside.auth);
    await postMessage(srv.url, inside.auth, id, 'private plans');
    await a.waitForEvent('MESSAGE_CREATE', (d) => d.content === 'private plans');
    await syncPoint(a, b);
    expect(said(b, 'private plans')).toEqual([]);
    expect(JSON.stringify(b.frames)).not.toContain('private plans');

    const store = srv.app.ctx.store;
    await store.write((tx) => store.threadMembers.remove(tx, id, inside.id));
    // The owner (who joined by posting) goes on talking; the one who left hears none of it.
    await postMessage(srv.url, owner.auth, id, 'after they left');
    await syncPoint(a, b);
    expect(said(a, 'after they left')).toEqual([]);
    expect(said(b, 'after they left')).toEqual([]);
  });

  it('a public thread reaches those who see its parent, not those its parent is hidden from', async () => {
    const parent = await createChannel(srv.url, owner, serverId);
    const deny = await call(srv.url, 'PUT', `/channels/${parent.id}/permissions/${outside.id}`, {
      auth: owner.auth,
      body: { type: 'member', allow: '0', deny: String(1n << 10n) },
    });
    expect(deny.status).toBe(204);
    const id = await thread(parent.id);
    const a = await pool.identify(srv.gatewayUrl, inside.auth);
    const b = await pool.identify(srv.gatewayUrl, outside.auth);
    const msg = await postMessage(srv.url, inside.auth, id, 'thread news');
    await a.waitForEvent('MESSAGE_CREATE', (d) => d.content === 'thread news');
    expect(
      (await call(srv.url, 'PATCH', `/channels/${id}/messages/${msg.id}`, { auth: inside.auth, body: { content: 'thread edit' } })).status,
    ).toBe(200);
    await a.waitForEvent('MESSAGE_UPDATE', (d) => d.content === 'thread edit');
    await syncPoint(a, b);
    expect(JSON.stringify(b.frames)).not.toContain('thread news');
    expect(JSON.stringify(b.frames)).not.toContain('thread edit');
    expect(JSON.stringify(b.frames)).not.toContain(id);
  });

  it('typing in a private thread reaches no bot outside it', async () => {
    const bot = await createBot(srv.url, owner);
    await addBot(srv.url, owner, serverId, bot.id);
    const id = await thread(general, { type: 'private_thread' }, [inside.id]);
    const c = await pool.identify(srv.gatewayUrl, bot.auth);
    expect((await call(srv.url, 'POST', `/channels/${id}/typing`, { auth: inside.auth })).status).toBe(204);
    expect((await call(srv.url, 'POST', `/channels/${general}/typing`, { auth: inside.auth })).status).toBe(204);
    await c.waitForEvent('TYPING_START', (d) => d.channelId === general);
    expect(c.events('TYPING_START').filter((f) => f.d.channelId === id)).toEqual([]);
  });
});

const api = (method: string, path: string, who: { auth: string }, body?: unknown) =>
  call(srv.url, method, `/api/v10${path}`, { auth: who.auth, ...(body !== undefined ? { body } : {}) });

/** Every frame of `c` that names `id` (a thread's), of any kind. */
const naming = (c: TestGatewayClient, id: string) => c.frames.filter((f) => f.op === 'event' && JSON.stringify(f.d).includes(id));

describe('a thread’s own events (THREAD_*)', () => {
  it('a private thread: its members and MANAGE_THREADS hear it, nobody else; someone removed hears the removal, then nothing', async () => {
    const a = await pool.identify(srv.gatewayUrl, inside.auth);
    const mod = await pool.identify(srv.gatewayUrl, owner.auth);
    const b = await pool.identify(srv.gatewayUrl, outside.auth);
    const made = await api('POST', `/channels/${general}/threads`, inside, { name: 'secret', type: 12 });
    expect(made.status).toBe(201);
    const id = made.body.id as string;

    const created = await a.waitForEvent('THREAD_CREATE', (d) => d.id === id);
    expect(created.d).toMatchObject({ id, serverId, parentId: general, type: 'private_thread', name: 'secret', ownerId: inside.id });
    expect(created.d.member).toBeUndefined();
    await mod.waitForEvent('THREAD_CREATE', (d) => d.id === id);
    const joined = await a.waitForEvent('THREAD_MEMBERS_UPDATE', (d) => d.id === id);
    expect(joined.d).toMatchObject({ id, serverId, memberCount: 1, addedMembers: [{ threadId: id, userId: inside.id }] });
    await mod.waitForEvent('THREAD_MEMBERS_UPDATE', (d) => d.id === id);
    // Their own membership: to their sessions alone.
    await a.waitForEvent('THREAD_MEMBER_UPDATE', (d) => d.threadId === id && d.userId === inside.id && d.serverId === serverId);

    expect((await api('PATCH', `/channels/${id}`, inside, { name: 'renamed' })).status).toBe(200);
    await a.waitForEvent('THREAD_UPDATE', (d) => d.id === id && d.name === 'renamed');
    await mod.waitForEvent('THREAD_UPDATE', (d) => d.id === id && d.name === 'renamed');
    await syncPoint(a, mod, b);
    expect(naming(b, id)).toEqual([]);
    expect(mod.events('THREAD_MEMBER_UPDATE').filter((f) => f.d.threadId === id)).toEqual([]);

    // Added: the thread itself (with their membership), the change, their own membership.
    expect((await api('PUT', `/channels/${id}/thread-members/${outside.id}`, inside)).status).toBe(204);
    const given = await b.waitForEvent('THREAD_CREATE', (d) => d.id === id);
    expect(given.d).toMatchObject({ name: 'renamed', member: { threadId: id, userId: outside.id } });
    await b.waitForEvent('THREAD_MEMBERS_UPDATE', (d) => d.id === id && d.memberCount === 2);
    await b.waitForEvent('THREAD_MEMBER_UPDATE', (d) => d.threadId === id && d.userId === outside.id);
    await a.waitForEvent('THREAD_MEMBERS_UPDATE', (d) => d.id === id && d.addedMembers?.[0]?.userId === outside.id);
    // The thread before anything naming it: a client has it when the change arrives.
    expect(naming(b, id)[0]).toBe(given);

    // Removed: they hear it, then nothing more of the thread.
    expect((await api('DELETE', `/channels/${id}/thread-members/${outside.id}`, owner)).status).toBe(204);
    const gone = await b.waitForEvent('THREAD_MEMBERS_UPDATE', (d) => d.id === id && d.removedMemberIds?.includes(outside.id));
    expect(gone.d.memberCount).toBe(1);
    const heard = naming(b, id).length;
    expect((await api('PATCH', `/channels/${id}`, owner, { name: 'after removal' })).status).toBe(200);
    await a.waitForEvent('THREAD_UPDATE', (d) => d.id === id && d.name === 'after removal');
    expect((await api('DELETE', `/channels/${id}`, owner)).status).toBe(200);
    const deleted = await a.waitForEvent('THREAD_DELETE', (d) => d.id === id);
    expect(deleted.d).toEqual({ id, serverId, parentId: general, type: 'private_thread' });
    await mod.waitForEvent('THREAD_DELETE', (d) => d.id === id);
    await syncPoint(a, mod, b);
    expect(naming(b, id).length).toBe(heard);
    expect(JSON.stringify(b.frames)).not.toContain('after removal');
  });

  it('a public thread: everyone who sees its parent hears it, not those it is hidden from; posts unarchive and join', async () => {
    const parent = await createChannel(srv.url, owner, serverId);
    const deny = await call(srv.url, 'PUT', `/channels/${parent.id}/permissions/${outside.id}`, {
      auth: owner.auth,
      body: { type: 'member', allow: '0', deny: String(1n << 10n) },
    });
    expect(deny.status).toBe(204);
    const a = await pool.identify(srv.gatewayUrl, inside.auth);
    const mod = await pool.identify(srv.gatewayUrl, owner.auth);
    const b = await pool.identify(srv.gatewayUrl, outside.auth);
    const msg = await postMessage(srv.url, inside.auth, parent.id, 'a topic');
    const made = await api('POST', `/channels/${parent.id}/messages/${msg.id}/threads`, inside, { name: 'open talk' });
    expect(made.status).toBe(201);
    const id = msg.id;
    await mod.waitForEvent('THREAD_CREATE', (d) => d.id === id && d.type === 'public_thread' && d.name === 'open talk');
    await a.waitForEvent('THREAD_CREATE', (d) => d.id === id);
    // Someone else joining a public thread: its viewers hear of it.
    await mod.waitForEvent('THREAD_MEMBERS_UPDATE', (d) => d.id === id && d.addedMembers?.[0]?.userId === inside.id);

    expect((await api('PATCH', `/channels/${id}`, owner, { locked: true })).status).toBe(200);
    await a.waitForEvent('THREAD_UPDATE', (d) => d.id === id && d.metadata.locked === true);
    expect((await api('PATCH', `/channels/${id}`, owner, { archived: true })).status).toBe(200);
    await a.waitForEvent('THREAD_UPDATE', (d) => d.id === id && d.metadata.archived === true);
    // A post (the moderator may post in a locked thread) unarchives it and takes the poster in.
    await postMessage(srv.url, owner.auth, id, 'back again');
    await a.waitForEvent('THREAD_UPDATE', (d) => d.id === id && d.metadata.archived === false);
    await a.waitForEvent('THREAD_MEMBERS_UPDATE', (d) => d.id === id && d.addedMembers?.[0]?.userId === owner.id && d.memberCount === 2);
    await mod.waitForEvent('THREAD_MEMBER_UPDATE', (d) => d.threadId === id && d.userId === owner.id);
    await syncPoint(a, mod, b);
    expect(a.events('THREAD_MEMBER_UPDATE').filter((f) => f.d.threadId === id && f.d.userId === owner.id)).toEqual([]);
    expect(naming(b, id)).toEqual([]);
  });

  it('someone leaving the server leaves its threads, and the thread’s viewers hear it', async () => {
    const passing = await registerUser(srv.url);
    await joinServer(srv.url, owner, passing, serverId);
    const id = await thread(general, {}, [passing.id, inside.id]);
    const a = await pool.identify(srv.gatewayUrl, inside.auth);
    expect((await call(srv.url, 'DELETE', `/servers/${serverId}/members/${passing.id}`, { auth: owner.auth })).status).toBe(204);
    const left = await a.waitForEvent('THREAD_MEMBERS_UPDATE', (d) => d.id === id);
    expect(left.d).toMatchObject({ id, serverId, memberCount: 1, removedMemberIds: [passing.id] });
  });

  it('the auto-archive job announces each thread it archives', async () => {
    const id = await thread(general, { archiveDueAt: new Date(Date.now() - 1000).toISOString() });
    const a = await pool.identify(srv.gatewayUrl, inside.auth);
    // (The app's own minute job may be the one that archives it: either announces it.)
    await archiveDueThreads(srv.app.ctx);
    const f = await a.waitForEvent('THREAD_UPDATE', (d) => d.id === id);
    expect(f.d.metadata.archived).toBe(true);
  });
});

describe('threads in ready and on gaining a channel', () => {
  it('ready lists the active threads each may see, with their own membership', async () => {
    const pub = await thread(general, {}, [inside.id]);
    const priv = await thread(general, { type: 'private_thread' }, [inside.id]);
    const old = await thread(general, { archived: 1 });
    const a = await pool.identify(srv.gatewayUrl, inside.auth);
    const b = await pool.identify(srv.gatewayUrl, outside.auth);
    const mod = await pool.identify(srv.gatewayUrl, owner.auth);
    const listed = (c: TestGatewayClient) => c.ready!.servers.find((s) => s.id === serverId).threads as any[];
    const mine = listed(a);
    expect(mine.map((t) => t.id)).toEqual(expect.arrayContaining([pub, priv]));
    expect(mine.find((t) => t.id === pub)).toMatchObject({ parentId: general, member: { userId: inside.id } });
    expect(listed(b).map((t) => t.id)).toContain(pub);
    expect(listed(b).map((t) => t.id)).not.toContain(priv);
    expect(listed(b).find((t) => t.id === pub).member).toBeUndefined();
    // MANAGE_THREADS sees a private thread it did not join.
    expect(listed(mod).map((t) => t.id)).toContain(priv);
    for (const c of [a, b, mod]) expect(listed(c).map((t) => t.id)).not.toContain(old);
  });

  it('someone who gains a channel gets its active threads (THREAD_LIST_SYNC)', async () => {
    const parent = await createChannel(srv.url, owner, serverId);
    const put = await call(srv.url, 'PUT', `/channels/${parent.id}/permissions/${outside.id}`, {
      auth: owner.auth,
      body: { type: 'member', allow: '0', deny: String(1n << 10n) },
    });
    expect(put.status).toBe(204);
    const pub = await thread(parent.id, {}, [outside.id]);
    const priv = await thread(parent.id, { type: 'private_thread' }, [inside.id]);
    const b = await pool.identify(srv.gatewayUrl, outside.auth);
    expect(b.ready!.servers.find((s) => s.id === serverId).threads.map((t: { id: string }) => t.id)).not.toContain(pub);
    expect((await call(srv.url, 'DELETE', `/channels/${parent.id}/permissions/${outside.id}`, { auth: owner.auth })).status).toBe(204);
    await b.waitForEvent('CHANNEL_CREATE', (d) => d.id === parent.id);
    const sync = await b.waitForEvent('THREAD_LIST_SYNC', (d) => d.channelIds?.includes(parent.id));
    expect(sync.d.serverId).toBe(serverId);
    expect(sync.d.threads.map((t: { id: string }) => t.id)).toEqual([pub]);
    expect(sync.d.members).toEqual([expect.objectContaining({ threadId: pub, userId: outside.id })]);
    expect(JSON.stringify(sync.d)).not.toContain(priv);
  });

  it('someone who gains MANAGE_THREADS in a channel they see gets its private threads', async () => {
    const later = await registerUser(srv.url);
    await joinServer(srv.url, owner, later, serverId);
    const priv = await thread(general, { type: 'private_thread', name: 'staff only' }, [inside.id]);
    const c = await pool.identify(srv.gatewayUrl, later.auth);
    expect(c.ready!.servers.find((s) => s.id === serverId).threads.map((t: { id: string }) => t.id)).not.toContain(priv);
    const role = await call(srv.url, 'POST', `/servers/${serverId}/roles`, {
      auth: owner.auth,
      body: { name: 'thread mods', permissions: String(1n << 34n) },
    });
    expect(role.status).toBe(201);
    expect(
      (await call(srv.url, 'PUT', `/servers/${serverId}/members/${later.id}/roles/${role.body.id}`, { auth: owner.auth })).status,
    ).toBe(204);
    const sync = await c.waitForEvent('THREAD_LIST_SYNC', (d) => d.channelIds?.includes(general));
    expect(sync.d.threads.map((t: { id: string }) => t.id)).toContain(priv);
    expect(sync.d.members).toEqual([]);
  });
});
