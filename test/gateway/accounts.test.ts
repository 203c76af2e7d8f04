// docs/api.md#accounts-and-the-instance on the gateway: USER_UPDATE reaches the user's own sessions and the
// members of their servers; ending sessions (password change, revoke, account deletion,
// expiry) closes exactly the connections of the sessions that ended.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sweepExpiredSessions } from '../../src/domain/accounts.js';
import { type TestUser, addBot, call, createBot, createServer, joinServer, registerUser } from '../factories.js';
import { startServer, type TestServer } from '../harness.js';
import { ClientPool, type TestGatewayClient } from './client.js';

const PASSWORD = 'correct horse battery';

let srv: TestServer;
const pool = new ClientPool();

beforeAll(async () => {
  srv = await startServer({ env: { GATEWAY_HEARTBEAT_MS: '2000', RATE_LIMITS: 'off' } });
});
afterEach(() => pool.closeAll());
afterAll(() => srv?.close());

/** Another session of `u`, as `Bearer <token>`. */
async function anotherSession(u: TestUser): Promise<string> {
  const r = await call(srv.url, 'POST', '/auth/login', { body: { username: u.name, password: PASSWORD } });
  expect(r.status, r.text).toBe(200);
  return `Bearer ${r.body.token}`;
}

/**
 * Proves `c` is still connected and receiving: an event caused now reaches it. (A closed
 * connection would not get it; an absence is shown by what arrives after it.)
 */
async function stillLive(c: TestGatewayClient, owner: TestUser, serverId: string, name: string): Promise<void> {
  const r = await call(srv.url, 'PATCH', `/servers/${serverId}`, { auth: owner.auth, body: { name } });
  expect(r.status, r.text).toBe(200);
  await c.waitForEvent('SERVER_UPDATE', (d) => d.name === name);
  expect(c.closeInfo).toBeNull();
}

describe('USER_UPDATE', () => {
  it('reaches the user’s own sessions and each member of their servers once, however many servers they share; no one else', async () => {
    const u = await registerUser(srv.url);
    const member = await registerUser(srv.url);
    const stranger = await registerUser(srv.url);
    const { server: a } = await createServer(srv.url, u, 'A');
    const { server: b } = await createServer(srv.url, u, 'B');
    const { server: elsewhere } = await createServer(srv.url, stranger, 'Elsewhere');
    await joinServer(srv.url, u, member, a.id);
    await joinServer(srv.url, u, member, b.id);
    const own = await pool.identify(srv.gatewayUrl, u.auth);
    const theirs = await pool.identify(srv.gatewayUrl, member.auth);
    const outside = await pool.identify(srv.gatewayUrl, stranger.auth);

    const r = await call(srv.url, 'PATCH', '/users/@me', { auth: u.auth, body: { displayName: 'Ada' } });
    expect(r.status, r.text).toBe(200);
    const expected = { user: { id: u.id, name: 'Ada', displayName: 'Ada', avatar: null, bot: false } };
    expect((await own.waitForEvent('USER_UPDATE')).d).toEqual(expected);
    expect((await theirs.waitForEvent('USER_UPDATE')).d).toEqual(expected);

    // Once each: the next event is the sentinel, not a second copy.
    await stillLive(theirs, u, a.id, 'A renamed');
    await stillLive(own, u, a.id, 'A again');
    expect(theirs.events('USER_UPDATE')).toHaveLength(1);
    expect(own.events('USER_UPDATE')).toHaveLength(1);
    await stillLive(outside, stranger, elsewhere.id, 'Still elsewhere');
    expect(outside.events('USER_UPDATE')).toEqual([]);
  });

  it('a person in no server hears of their own change; a change that changes nothing is not announced', async () => {
    const u = await registerUser(srv.url);
    const own = await pool.identify(srv.gatewayUrl, u.auth);
    await call(srv.url, 'PATCH', '/users/@me', { auth: u.auth, body: { displayName: 'Solo' } });
    await call(srv.url, 'PATCH', '/users/@me', { auth: u.auth, body: { displayName: 'Solo' } });
    await call(srv.url, 'PATCH', '/users/@me', { auth: u.auth, body: { displayName: null } });
    const second = await own.waitFor((f) => f.t === 'USER_UPDATE' && f.d.user.displayName === null);
    expect(own.events('USER_UPDATE').map((f) => f.d.user.name)).toEqual(['Solo', u.name]);
    expect(second.s).toBe(2);
  });

  it('a session that resumes gets the USER_UPDATE it missed, numbered in line with the rest', async () => {
    const u = await registerUser(srv.url);
    const member = await registerUser(srv.url);
    const { server } = await createServer(srv.url, u);
    await joinServer(srv.url, u, member, server.id);
    const c = await pool.identify(srv.gatewayUrl, member.auth);
    c.heartbeat();
    await c.waitFor((f) => f.op === 'heartbeat_ack');
    const last = c.lastSeq;
    await c.terminate();
    await call(srv.url, 'PATCH', '/users/@me', { auth: u.auth, body: { displayName: 'While away' } });
    await call(srv.url, 'PATCH', `/servers/${server.id}`, { auth: u.auth, body: { name: 'Renamed while away' } });
    const r = await pool.resume(srv.gatewayUrl, member.auth, c.sessionId, last);
    await r.waitFor((f) => f.op === 'resumed');
    expect(r.events().map((f) => [f.t, f.s])).toEqual([
      ['USER_UPDATE', last + 1],
      ['SERVER_UPDATE', last + 2],
    ]);
    expect(r.events('USER_UPDATE')[0]!.d.user).toMatchObject({ id: u.id, name: 'While away' });
  });

  it('a bot renamed by its owner is announced to the members of its servers', async () => {
    const owner = await registerUser(srv.url);
    const member = await registerUser(srv.url);
    const { server } = await createServer(srv.url, owner);
    await joinServer(srv.url, owner, member, server.id);
    const bot = await createBot(srv.url, owner, 'Before');
    await addBot(srv.url, owner, server.id, bot.id);
    const c = await pool.identify(srv.gatewayUrl, member.auth);
    const botGw = await pool.identify(srv.gatewayUrl, bot.auth);
    await call(srv.url, 'PATCH', `/bots/${bot.id}`, { auth: owner.auth, body: { name: 'After' } });
    expect((await c.waitForEvent('USER_UPDATE')).d.user).toEqual({
      id: bot.id,
      name: 'After',
      displayName: 'After',
      avatar: null,
      bot: true,
    });
    expect((await botGw.waitForEvent('USER_UPDATE')).d.user.name).toBe('After');
  });
});

describe('ending sessions closes their gateway connections, and only theirs', () => {
  it('POST /auth/password: every other session’s connection closes with 4001; the current one stays', async () => {
    const owner = await registerUser(srv.url);
    const { server } = await createServer(srv.url, owner);
    const other = await anotherSession(owner);
    const current = await pool.identify(srv.gatewayUrl, owner.auth);
    const elsewhere = await pool.identify(srv.gatewayUrl, other);
    const r = await call(srv.url, 'POST', '/auth/password', {
      auth: owner.auth,
      body: { currentPassword: PASSWORD, newPassword: 'a brand new secret 7' },
    });
    expect(r.status, r.text).toBe(204);
    expect((await elsewhere.waitForClose()).code).toBe(4001);
    await stillLive(current, owner, server.id, 'after the change');
  });

  it('DELETE /auth/sessions/{id}: that session’s connection closes; DELETE /auth/sessions: every other one does', async () => {
    const owner = await registerUser(srv.url);
    const { server } = await createServer(srv.url, owner);
    const [a, b, c] = [await anotherSession(owner), await anotherSession(owner), await anotherSession(owner)];
    const current = await pool.identify(srv.gatewayUrl, owner.auth);
    const [ga, gb, gc] = [
      await pool.identify(srv.gatewayUrl, a),
      await pool.identify(srv.gatewayUrl, b),
      await pool.identify(srv.gatewayUrl, c),
    ];

    const aId = a.slice('Bearer '.length).split('.')[0];
    expect((await call(srv.url, 'DELETE', `/auth/sessions/${aId}`, { auth: owner.auth })).status).toBe(204);
    expect((await ga.waitForClose()).code).toBe(4001);
    await stillLive(gb, owner, server.id, 'one gone');
    expect(gc.closeInfo).toBeNull();

    expect((await call(srv.url, 'DELETE', '/auth/sessions', { auth: owner.auth })).status).toBe(204);
    expect((await gb.waitForClose()).code).toBe(4001);
    expect((await gc.waitForClose()).code).toBe(4001);
    await stillLive(current, owner, server.id, 'all others gone');
  });

  it('DELETE /users/@me: every connection of the person and of their bots closes; the members see them leave as "Deleted user"', async () => {
    const owner = await registerUser(srv.url);
    const u = await registerUser(srv.url);
    const { server } = await createServer(srv.url, owner);
    await joinServer(srv.url, owner, u, server.id);
    const bot = await createBot(srv.url, u);
    const watcher = await pool.identify(srv.gatewayUrl, owner.auth);
    const mine = await pool.identify(srv.gatewayUrl, u.auth);
    const mineElsewhere = await pool.identify(srv.gatewayUrl, await anotherSession(u));
    const botGw = await pool.identify(srv.gatewayUrl, bot.auth);

    const r = await call(srv.url, 'DELETE', '/users/@me', { auth: u.auth, body: { password: PASSWORD } });
    expect(r.status, r.text).toBe(204);
    for (const c of [mine, mineElsewhere, botGw]) expect((await c.waitForClose()).code).toBe(4001);
    const left = await watcher.waitForEvent('MEMBER_REMOVE', (d) => d.user.id === u.id);
    expect(left.d).toEqual({ serverId: server.id, user: { id: u.id, name: 'Deleted user', avatar: null, bot: false } });
    // The deleted person's token cannot open a new connection either.
    const again = await pool.connect(srv.gatewayUrl);
    again.send({ op: 'identify', d: { token: u.auth } });
    expect((await again.waitForClose()).code).toBe(4001);
  });

  it('the expiry sweep closes the connection of a session past SESSION_TTL_DAYS', async () => {
    const u = await registerUser(srv.url);
    const owner = await registerUser(srv.url);
    const { server } = await createServer(srv.url, owner);
    const fresh = await pool.identify(srv.gatewayUrl, owner.auth);
    const stale = await pool.identify(srv.gatewayUrl, u.auth);
    const ctx = srv.app.ctx;
    const realClock = ctx.clock;
    try {
      // 31 days on, only `owner` was used in between (at 29 days).
      ctx.clock = () => Date.now() + 29 * 86_400_000;
      expect((await call(srv.url, 'GET', '/users/@me', { auth: owner.auth })).status).toBe(200);
      ctx.clock = () => Date.now() + 31 * 86_400_000;
      expect(await sweepExpiredSessions(ctx)).toBeGreaterThanOrEqual(1);
      expect((await stale.waitForClose()).code).toBe(4001);
      await stillLive(fresh, owner, server.id, 'swept');
    } finally {
      ctx.clock = realClock;
    }
  });
});
