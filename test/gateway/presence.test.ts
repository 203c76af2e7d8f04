// Presence (docs/gateway.md#presence): from gateway connections, with the status a session
// chooses (op presence_update; invisible shows offline); members carry it; PRESENCE_UPDATE
// reaches members of shared servers and no one else; someone with two connections is
// offline only when both are gone; changes are merged per person (PRESENCE_INTERVAL_MS)
// and servers above PRESENCE_FANOUT_MAX members get none. Every wait is on an event; "no
// event" is checked after a later marker event that the session receives, since the log
// keeps order.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call, createServer, joinServer, postMessage, registerUser, type TestUser } from '../factories.js';
import { startServer, type TestServer } from '../harness.js';
import { ClientPool, TestGatewayClient } from './client.js';

let srv: TestServer;
const pool = new ClientPool();

beforeAll(async () => {
  srv = await startServer({
    env: { RATE_LIMITS: 'off', GATEWAY_HEARTBEAT_MS: '2000', PRESENCE_GRACE_MS: '0', PRESENCE_INTERVAL_MS: '0', PRESENCE_FANOUT_MAX: '5' },
  });
});
afterEach(() => pool.closeAll());
afterAll(() => srv?.close());

/** An owner and alice in one server; carol is in none of theirs. */
async function setup() {
  const owner = await registerUser(srv.url);
  const { server, general } = await createServer(srv.url, owner);
  const alice = await registerUser(srv.url);
  const carol = await registerUser(srv.url);
  await joinServer(srv.url, owner, alice, server.id);
  return { owner, server, general, alice, carol };
}

async function presenceOf(viewer: TestUser, serverId: string, userId: string) {
  const r = await call(srv.url, 'GET', `/servers/${serverId}/members`, { auth: viewer.auth });
  expect(r.status, r.text).toBe(200);
  return r.body.find((m: { id: string }) => m.id === userId)?.presence;
}

const statusOf = (userId: string, status: string) => (d: { userId: string; status: string }) => d.userId === userId && d.status === status;

/** A marker message in `channelId`, awaited by `clients`: what had not arrived before it never will. */
async function settle(auth: string, channelId: string, clients: TestGatewayClient[]) {
  const m = await postMessage(srv.url, auth, channelId, `marker ${Math.random()}`);
  for (const c of clients) await c.waitForEvent('MESSAGE_CREATE', (d) => d.id === m.id);
}

describe('presence', () => {
  it('members carry presence: offline, online once connected, the status chosen, offline when invisible', async () => {
    const { owner, server, alice } = await setup();
    expect(await presenceOf(owner, server.id, alice.id)).toBe('offline');
    const o = await pool.identify(srv.gatewayUrl, owner.auth);
    const a = await pool.identify(srv.gatewayUrl, alice.auth);
    await o.waitForEvent('PRESENCE_UPDATE', statusOf(alice.id, 'online'));
    expect(await presenceOf(owner, server.id, alice.id)).toBe('online');
    for (const status of ['idle', 'dnd'] as const) {
      a.send({ op: 'presence_update', d: { status } });
      expect((await o.waitForEvent('PRESENCE_UPDATE', statusOf(alice.id, status))).d).toEqual({ userId: alice.id, status });
      expect(await presenceOf(owner, server.id, alice.id)).toBe(status);
    }
    a.send({ op: 'presence_update', d: { status: 'invisible' } });
    await o.waitForEvent('PRESENCE_UPDATE', statusOf(alice.id, 'offline'));
    expect(await presenceOf(owner, server.id, alice.id)).toBe('offline');
    // Alice's own sessions do not hear of their own status.
    expect(a.events('PRESENCE_UPDATE').filter((f) => f.d.userId === alice.id)).toEqual([]);
  });

  it('an identify may choose its status: invisible never shows online', async () => {
    const { owner, server, general, alice } = await setup();
    const o = await pool.identify(srv.gatewayUrl, owner.auth);
    const a = pool.track(await TestGatewayClient.connect(srv.gatewayUrl));
    a.send({ op: 'identify', d: { token: alice.auth, status: 'invisible' } });
    await a.waitFor((f) => f.op === 'ready');
    await settle(owner.auth, general.id, [o]);
    expect(o.events('PRESENCE_UPDATE').filter((f) => f.d.userId === alice.id)).toEqual([]);
    expect(await presenceOf(owner, server.id, alice.id)).toBe('offline');
  });

  it('two connections: closing one keeps online; closing both is offline, announced once', async () => {
    const { owner, server, alice } = await setup();
    const o = await pool.identify(srv.gatewayUrl, owner.auth);
    const tab1 = await pool.identify(srv.gatewayUrl, alice.auth);
    await o.waitForEvent('PRESENCE_UPDATE', statusOf(alice.id, 'online'));
    const tab2 = await pool.identify(srv.gatewayUrl, alice.auth);
    await tab1.close();
    expect(await presenceOf(owner, server.id, alice.id)).toBe('online');
    await tab2.close();
    await o.waitForEvent('PRESENCE_UPDATE', statusOf(alice.id, 'offline'));
    expect(await presenceOf(owner, server.id, alice.id)).toBe('offline');
    expect(
      o
        .events('PRESENCE_UPDATE')
        .filter((f) => f.d.userId === alice.id)
        .map((f) => f.d.status),
    ).toEqual(['online', 'offline']);
  });

  it('reaches members of shared servers only: not a stranger, not a member of a server past PRESENCE_FANOUT_MAX', async () => {
    const { owner, general, alice, carol } = await setup();
    // A server of 6 members (over the limit of 5): alice and a watcher are both in it.
    const bigOwner = await registerUser(srv.url);
    const big = await createServer(srv.url, bigOwner, 'Big');
    const watcher = await registerUser(srv.url);
    for (const u of [alice, watcher, ...(await Promise.all([1, 2, 3].map(() => registerUser(srv.url))))]) {
      await joinServer(srv.url, bigOwner, u, big.server.id);
    }
    const o = await pool.identify(srv.gatewayUrl, owner.auth);
    const c = await pool.identify(srv.gatewayUrl, carol.auth);
    const w = await pool.identify(srv.gatewayUrl, watcher.auth);
    await pool.identify(srv.gatewayUrl, alice.auth);
    await o.waitForEvent('PRESENCE_UPDATE', statusOf(alice.id, 'online'));
    await settle(owner.auth, general.id, [o]);
    await settle(bigOwner.auth, big.general.id, [w]);
    // The stranger shares no server with them: their marker is in a server of their own.
    const own = await createServer(srv.url, carol, 'Carol');
    await settle(carol.auth, own.general.id, [c]);
    expect(c.events('PRESENCE_UPDATE')).toEqual([]);
    expect(w.events('PRESENCE_UPDATE').filter((f) => f.d.userId === alice.id)).toEqual([]);
    // The large server's member list still shows it.
    expect(await presenceOf(watcher, big.server.id, alice.id)).toBe('online');
  });

  it('refuses a bad presence_update (4002) and one before identify', async () => {
    const { alice } = await setup();
    const a = await pool.identify(srv.gatewayUrl, alice.auth);
    a.send({ op: 'presence_update', d: { status: 'busy' } });
    expect((await a.waitForClose()).code).toBe(4002);
    const early = await pool.connect(srv.gatewayUrl);
    early.send({ op: 'presence_update', d: { status: 'idle' } });
    expect((await early.waitForClose()).code).toBe(4002);
  });
});

describe('presence, merged per person', () => {
  let slow: TestServer;
  beforeAll(async () => {
    slow = await startServer({
      env: {
        RATE_LIMITS: 'off',
        GATEWAY_HEARTBEAT_MS: '2000',
        PRESENCE_GRACE_MS: '0',
        PRESENCE_INTERVAL_MS: '1500',
        PRESENCE_FANOUT_MAX: '5',
      },
    });
  });
  afterAll(() => slow?.close());

  it('a burst of status changes is at most one event now and one at the end of the interval, with the last status', async () => {
    const owner = await registerUser(slow.url);
    const { server, general } = await createServer(slow.url, owner);
    const alice = await registerUser(slow.url);
    await joinServer(slow.url, owner, alice, server.id);
    const o = await pool.identify(slow.gatewayUrl, owner.auth);
    const a = await pool.identify(slow.gatewayUrl, alice.auth);
    await o.waitForEvent('PRESENCE_UPDATE', statusOf(alice.id, 'online'));
    for (const status of ['idle', 'dnd', 'idle', 'dnd', 'online', 'idle'] as const) a.send({ op: 'presence_update', d: { status } });
    // The burst ends on idle: that is what arrives once the interval is over.
    await o.waitForEvent('PRESENCE_UPDATE', statusOf(alice.id, 'idle'), 5000);
    const m = await postMessage(slow.url, owner.auth, general.id, 'marker');
    await o.waitForEvent('MESSAGE_CREATE', (d) => d.id === m.id);
    const seen = o.events('PRESENCE_UPDATE').filter((f) => f.d.userId === alice.id);
    expect(seen.length).toBeLessThanOrEqual(2);
    expect(seen.at(-1)!.d.status).toBe('idle');
  });
});
