// Issue 39, step 2 (docs/threads.md#permissions): a thread's permissions come from its parent's
// through the one permission function, and the message routes on a thread's id obey them.
// Threads are made in the store here, so these hold whatever route makes them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ThreadRow } from '../../src/store/repos/threads.js';
import { call, createChannel, createServer, joinServer, registerUser, type TestUser } from '../factories.js';
import { storeThread } from '../fixtures/threads.js';
import { startServer, type TestServer } from '../harness.js';

let srv: TestServer;
let owner: TestUser;
let member: TestUser;
let serverId: string;
let parentId: string;

const SEND_MESSAGES = (1n << 11n).toString();
const VIEW_CHANNEL = (1n << 10n).toString();
const SEND_MESSAGES_IN_THREADS = (1n << 38n).toString();

beforeAll(async () => {
  srv = await startServer({ env: { RATE_LIMITS: 'off' } });
  owner = await registerUser(srv.url);
  member = await registerUser(srv.url);
  const made = await createServer(srv.url, owner);
  serverId = made.server.id;
  parentId = made.general.id;
  await joinServer(srv.url, owner, member, serverId);
});
afterAll(() => srv?.close());

/** A thread under `parent`, written to the store as the thread routes write one. */
async function thread(parent: string, fields: Partial<ThreadRow> = {}): Promise<string> {
  return storeThread(srv.app.ctx.store, { serverId, parentId: parent, ownerId: owner.id }, fields);
}

const post = (who: TestUser, channelId: string, content = 'hello') =>
  call(srv.url, 'POST', `/channels/${channelId}/messages`, { auth: who.auth, body: { content } });
const read = (who: TestUser, channelId: string) => call(srv.url, 'GET', `/channels/${channelId}/messages`, { auth: who.auth });
const overwrite = (channelId: string, targetId: string, allow: string, deny: string) =>
  call(srv.url, 'PUT', `/channels/${channelId}/permissions/${targetId}`, {
    auth: owner.auth,
    body: { type: targetId === serverId ? 'role' : 'member', allow, deny },
  });

describe('thread permissions through the message routes', () => {
  it('a post in a thread is counted, and takes its poster in', async () => {
    const id = await thread(parentId);
    expect((await post(member, id)).status).toBe(201);
    expect((await read(member, id)).body.map((m: { content: string }) => m.content)).toEqual(['hello']);
    const row = await srv.app.ctx.store.threads.byId(srv.app.ctx.store.db, id);
    expect(row?.messageCount).toBe(1);
    expect(row?.memberCount).toBe(1);
    expect(await srv.app.ctx.store.threadMembers.get(srv.app.ctx.store.db, id, member.id)).toBeDefined();
  });

  it('posting in a thread is SEND_MESSAGES_IN_THREADS, not SEND_MESSAGES', async () => {
    const parent = await createChannel(srv.url, owner, serverId);
    const id = await thread(parent.id);
    // The parent takes no posts from @everyone; its threads still do.
    expect((await overwrite(parent.id, serverId, '0', SEND_MESSAGES)).status).toBe(204);
    expect((await post(member, parent.id)).status).toBe(403);
    expect((await post(member, id)).status).toBe(201);
    // Without SEND_MESSAGES_IN_THREADS the thread refuses, whatever SEND_MESSAGES says.
    expect((await overwrite(parent.id, serverId, SEND_MESSAGES, SEND_MESSAGES_IN_THREADS)).status).toBe(204);
    expect((await post(member, parent.id)).status).toBe(201);
    const refused = await post(member, id);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('missing_permission');
  });

  it('a thread of a channel someone cannot see is hidden from them too', async () => {
    const parent = await createChannel(srv.url, owner, serverId);
    const id = await thread(parent.id);
    expect((await read(member, id)).status).toBe(200);
    expect((await overwrite(parent.id, member.id, '0', VIEW_CHANNEL)).status).toBe(204);
    expect((await read(member, id)).status).toBe(403);
    expect((await post(member, id)).status).toBe(403);
  });

  it('a private thread is for its members and MANAGE_THREADS, and not after a member leaves', async () => {
    const id = await thread(parentId, { type: 'private_thread' });
    expect((await read(member, id)).status).toBe(403);
    expect((await post(member, id)).status).toBe(403);
    // The owner holds MANAGE_THREADS: seen without joining.
    expect((await read(owner, id)).status).toBe(200);
    const store = srv.app.ctx.store;
    await store.write((tx) =>
      store.threadMembers.add(tx, { threadId: id, userId: member.id, joinTimestamp: new Date().toISOString(), flags: 0 }),
    );
    // The refusal above was not kept: the member is let in at once.
    expect((await read(member, id)).status).toBe(200);
    expect((await post(member, id)).status).toBe(201);
    await store.write((tx) => store.threadMembers.remove(tx, id, member.id));
    // Nor is the access kept past their leaving.
    expect((await read(member, id)).status).toBe(403);
    expect((await post(member, id)).status).toBe(403);
  });

  it('leaving the server leaves its threads: a private thread does not take them back when they rejoin', async () => {
    const id = await thread(parentId, { type: 'private_thread' });
    const store = srv.app.ctx.store;
    const leaver = await registerUser(srv.url);
    await joinServer(srv.url, owner, leaver, serverId);
    await store.write((tx) =>
      store.threadMembers.add(tx, { threadId: id, userId: leaver.id, joinTimestamp: new Date().toISOString(), flags: 0 }),
    );
    expect((await read(leaver, id)).status).toBe(200);
    expect((await call(srv.url, 'DELETE', `/servers/${serverId}/members/@me`, { auth: leaver.auth })).status).toBe(204);
    expect((await store.threads.byId(store.db, id))?.memberCount).toBe(0);
    await joinServer(srv.url, owner, leaver, serverId);
    expect((await read(leaver, id)).status).toBe(403);
  });

  it('a locked thread takes posts only from MANAGE_THREADS (thread_locked)', async () => {
    const id = await thread(parentId, { locked: 1 });
    const refused = await post(member, id);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('thread_locked');
    expect((await read(member, id)).status).toBe(200);
    expect((await post(owner, id)).status).toBe(201);
    // Locking an open thread takes effect on the next request (the access cache is told).
    const open = await thread(parentId);
    expect((await post(member, open)).status).toBe(201);
    await srv.app.ctx.store.write((tx) => srv.app.ctx.store.threads.update(tx, open, { locked: 1 }));
    expect((await post(member, open)).body.code).toBe('thread_locked');
  });

  it('a post unarchives an archived thread', async () => {
    const then = '2026-01-01T00:00:00.000Z';
    const id = await thread(parentId, { archived: 1, archiveTimestamp: then, archiveDueAt: then });
    expect((await post(member, id)).status).toBe(201);
    const row = await srv.app.ctx.store.threads.byId(srv.app.ctx.store.db, id);
    expect(row?.archived).toBe(0);
    expect(row!.archiveTimestamp > then).toBe(true);
    expect(row!.archiveDueAt > new Date().toISOString()).toBe(true);
  });
});
