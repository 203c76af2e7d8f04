// The gateway's handshake and connection rules against a real server over real
// WebSockets: hello, identify (bot and user), ready, heartbeats, and the close codes.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { call, createChannel, createServer, registerUser, world } from '../factories.js';
import { startServer, type TestServer } from '../harness.js';
import { ClientPool } from './client.js';

// Short, so the timeouts show quickly; the client beats every half interval, which leaves
// a whole interval of slack for a busy machine.
const HEARTBEAT_MS = 600;

let srv: TestServer;
const pool = new ClientPool();

beforeAll(async () => {
  srv = await startServer({ env: { GATEWAY_HEARTBEAT_MS: String(HEARTBEAT_MS), RATE_LIMITS: 'off' } });
});
afterEach(() => pool.closeAll());
afterAll(() => srv?.close());

describe('hello and identify', () => {
  it('says hello with the heartbeat interval as soon as the socket opens', async () => {
    const c = await pool.connect(srv.gatewayUrl, { heartbeat: false });
    expect(c.frames[0]).toEqual({ op: 'hello', d: { heartbeatInterval: HEARTBEAT_MS } });
  });

  it('identifies a bot: ready carries a session id, the bot, and only its servers with their channels', async () => {
    const w = await world(srv.url);
    const extra = await createChannel(srv.url, w.owner, w.server.id, 'extra');
    await createServer(srv.url, w.owner, 'Not the bot'); // the bot is no member: must not appear

    const c = await pool.identify(srv.gatewayUrl, w.bot.auth);
    const ready = c.ready!;
    expect(ready.sessionId).toEqual(expect.any(String));
    expect(ready.sessionId.length).toBeGreaterThan(0);
    expect(ready.user).toMatchObject({ id: w.bot.id, name: w.bot.name, bot: true });
    expect(ready.servers).toHaveLength(1);
    const [server] = ready.servers;
    expect(server).toMatchObject({ id: w.server.id, name: w.server.name });
    expect(server.channels.map((ch: any) => ch.id).sort()).toEqual([w.channel.id, extra.id].sort());
    expect(server.channels).toContainEqual(expect.objectContaining({ id: extra.id, serverId: w.server.id, name: 'extra' }));
  });

  it('identifies a user with a session token: ready lists every server the user belongs to', async () => {
    const user = await registerUser(srv.url);
    const a = await createServer(srv.url, user, 'A');
    const b = await createServer(srv.url, user, 'B');
    const c = await pool.identify(srv.gatewayUrl, user.auth);
    expect(c.ready!.user).toMatchObject({ id: user.id, name: user.name, bot: false });
    expect(c.ready!.servers.map((s: any) => s.id).sort()).toEqual([a.server.id, b.server.id].sort());
    expect(JSON.stringify(c.ready)).not.toContain(user.token);
  });

  it('gives every identify its own session id', async () => {
    const w = await world(srv.url);
    const one = await pool.identify(srv.gatewayUrl, w.bot.auth);
    const two = await pool.identify(srv.gatewayUrl, w.bot.auth);
    expect(one.sessionId).not.toBe(two.sessionId);
  });
});

describe('heartbeats', () => {
  it('acknowledges each heartbeat, before and after identify', async () => {
    const w = await world(srv.url);
    const c = await pool.connect(srv.gatewayUrl, { heartbeat: false });
    c.send({ op: 'heartbeat', d: null });
    await c.waitFor((f) => f.op === 'heartbeat_ack');
    c.send({ op: 'identify', d: { token: w.bot.auth } });
    await c.waitFor((f) => f.op === 'ready');
    const before = c.frames.length;
    c.send({ op: 'heartbeat', d: { s: 0 } });
    c.send({ op: 'heartbeat' });
    await c.waitFor(() => c.frames.slice(before).filter((f) => f.op === 'heartbeat_ack').length === 2);
    expect(c.frames[before]).toEqual({ op: 'heartbeat_ack' });
  });

  it('keeps a heartbeating connection open well past the deadline', async () => {
    const w = await world(srv.url);
    const c = await pool.identify(srv.gatewayUrl, w.bot.auth);
    // The deadline's own event instead of a pause: a silent connection identified after
    // `c` has a deadline no earlier than c's would be without heartbeats, so once the
    // server has closed it, it would have closed `c` already (the same sweep or before).
    const silent = await pool.identify(srv.gatewayUrl, w.owner.auth, { heartbeat: false });
    expect((await silent.waitForClose(HEARTBEAT_MS * 10)).code).toBe(4009);
    // A round trip on c's own socket: a close sent before it would arrive before the ack.
    const from = c.frames.length;
    c.heartbeat();
    await c.waitFor((f) => f.op === 'heartbeat_ack', 5000, from);
    expect(c.closeInfo).toBeNull();
    expect(c.ws.readyState).toBe(WebSocket.OPEN);
  });

  it('does not count a busy server against a heartbeat that arrived while it was busy', async () => {
    const w = await world(srv.url);
    const c = await pool.identify(srv.gatewayUrl, w.bot.auth, { heartbeat: false });
    // The heartbeat is on the server's socket at once (ws writes synchronously); then this
    // process, server and all, is held busy past the deadline counted from the identify.
    // When it is free again, the overdue sweep and the heartbeat are both waiting: the
    // heartbeat must be read before anyone is judged.
    c.heartbeat();
    const until = Date.now() + HEARTBEAT_MS * 2.5;
    while (Date.now() < until) {
      // busy, as a long GC pause or a starved core would keep the server
    }
    // A round trip on c's socket: a close sent before it would arrive before the ack.
    const from = c.frames.length;
    c.heartbeat();
    await c.waitFor((f) => f.op === 'heartbeat_ack', 5000, from);
    expect(c.closeInfo).toBeNull();
    expect(c.ws.readyState).toBe(WebSocket.OPEN);
  });

  it('closes an identified connection that stops heartbeating with 4009', async () => {
    const w = await world(srv.url);
    const c = await pool.identify(srv.gatewayUrl, w.bot.auth, { heartbeat: false });
    const opened = Date.now();
    const closed = await c.waitForClose(HEARTBEAT_MS * 10);
    expect(closed.code).toBe(4009);
    // After 1.5 intervals of silence (counted from the identify, a little before `ready`
    // arrived here), not straight away.
    expect(Date.now() - opened).toBeGreaterThanOrEqual(HEARTBEAT_MS);
  });

  it('closes a connection that never identifies with 4009', async () => {
    const c = await pool.connect(srv.gatewayUrl, { heartbeat: false });
    expect((await c.waitForClose(HEARTBEAT_MS * 10)).code).toBe(4009);
  });

  it('closes a connection that heartbeats but never identifies with 4009', async () => {
    const c = await pool.connect(srv.gatewayUrl, { heartbeat: true });
    const closed = await c.waitForClose(HEARTBEAT_MS * 10);
    expect(closed.code).toBe(4009);
    expect(c.frames.filter((f) => f.op === 'heartbeat_ack').length).toBeGreaterThan(0);
  });
});

describe('close codes', () => {
  it.each([
    ['an unknown bot token', (bot: string) => `Bot ${bot.slice(0, -4)}AAAA`],
    ['a session token sent as a bot token', () => 'Bot not-a-token'],
    ['an unknown session token', () => 'Bearer 01J00000000000000000000000.secret'],
    ['a token without a scheme', (bot: string) => bot],
    ['an empty token', () => ''],
  ])('closes with 4001 on identify with %s', async (_name, token) => {
    const w = await world(srv.url);
    const c = await pool.connect(srv.gatewayUrl);
    c.send({ op: 'identify', d: { token: token(w.bot.token) } });
    const closed = await c.waitForClose();
    expect(closed.code).toBe(4001);
    expect(c.ready).toBeUndefined();
  });

  it('closes with 4001 on resume with a bad token', async () => {
    const w = await world(srv.url);
    const first = await pool.identify(srv.gatewayUrl, w.bot.auth);
    await first.terminate();
    const c = await pool.connect(srv.gatewayUrl);
    c.send({ op: 'resume', d: { token: 'Bot nope.nope', sessionId: first.sessionId, s: 0 } });
    expect((await c.waitForClose()).code).toBe(4001);
  });

  it.each([
    ['text that is not JSON', '{"op":'],
    ['a JSON array', '[1,2]'],
    ['an unknown op', JSON.stringify({ op: 'dance', d: {} })],
    ['identify without a token', JSON.stringify({ op: 'identify', d: {} })],
    ['identify with a numeric token', JSON.stringify({ op: 'identify', d: { token: 42 } })],
    ['resume without a sequence number', JSON.stringify({ op: 'resume', d: { token: 'Bot x', sessionId: 'y' } })],
    ['a heartbeat with a text sequence number', JSON.stringify({ op: 'heartbeat', d: { s: 'ten' } })],
  ])('closes with 4002 on %s', async (_name, raw) => {
    const c = await pool.connect(srv.gatewayUrl, { heartbeat: false });
    c.send(raw);
    expect((await c.waitForClose()).code).toBe(4002);
  });

  it('closes with 4002 on a binary frame', async () => {
    const c = await pool.connect(srv.gatewayUrl, { heartbeat: false });
    c.ws.send(Buffer.from(JSON.stringify({ op: 'heartbeat' })), { binary: true });
    expect((await c.waitForClose()).code).toBe(4002);
  });

  it('closes with 4002 on a second identify', async () => {
    const w = await world(srv.url);
    const c = await pool.identify(srv.gatewayUrl, w.bot.auth);
    c.send({ op: 'identify', d: { token: w.bot.auth } });
    expect((await c.waitForClose()).code).toBe(4002);
  });

  it('answers other paths on the port with 404, not an upgrade', async () => {
    const ws = new WebSocket(srv.gatewayUrl.replace('/gateway', '/gateway-nope'));
    const status = await new Promise<number>((resolve) => {
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.on('error', () => resolve(-1));
    });
    expect(status).toBe(404);
  });

  it('still serves REST next to the gateway', async () => {
    expect((await call(srv.url, 'GET', '/healthz')).status).toBe(200);
  });
});
