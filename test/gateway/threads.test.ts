// Issue 39 (docs/threads.md#events): a thread's content events reach only those who may see
// the thread — its parent's viewers for a public thread, its members for a private one — and
// nothing of a private thread reaches someone after they leave it. Threads are made in the
// store here, so these hold whatever route makes them.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
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
