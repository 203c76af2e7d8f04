// Per-session sequence numbers and resume over real WebSockets: after a dropped
// connection, `resume` replays every missed event in order, then `resumed`; a session
// that cannot be resumed gets `invalid_session`.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { addBot, call, createServer, joinServer, postMessage, registerUser, world } from '../factories.js';
import { startServer, type TestServer } from '../harness.js';
import { TestClock } from '../clock.js';
import { ClientPool, type TestGatewayClient, until } from './client.js';

let srv: TestServer;
/** A server with a short resume window and a tiny log, to see both limits; its clock moves on when a test says. */
let tight: TestServer;
const tightClock = new TestClock();
const pool = new ClientPool();

beforeAll(async () => {
  [srv, tight] = await Promise.all([
    startServer({ env: { GATEWAY_HEARTBEAT_MS: '5000', RATE_LIMITS: 'off' } }),
    startServer({
      env: { GATEWAY_HEARTBEAT_MS: '600', GATEWAY_RESUME_SECONDS: '1', GATEWAY_REPLAY_BUFFER: '5', RATE_LIMITS: 'off' },
      clock: tightClock.now,
    }),
  ]);
});
afterEach(async () => {
  await pool.closeAll();
  // The servers let every session go before the next test counts them (\`drop\`).
  await until(() => srv.app.gateway.sessionCount === 0 && tight.app.gateway.sessionCount === 0, 'every session closed');
});
afterAll(() => Promise.all([srv?.close(), tight?.close()]));

/**
 * Drops the connection like a network failure, then waits until its server has noticed:
 * one session fewer is live there (each test leaves none behind, see `afterEach`).
 */
async function drop(c: TestGatewayClient): Promise<void> {
  const server = [srv, tight].find((s) => c.ws.url.startsWith(s.gatewayUrl));
  if (!server) throw new Error(`no test server at ${c.ws.url}`);
  const before = server.app.gateway.sessionCount;
  await c.terminate();
  await until(() => server.app.gateway.sessionCount < before, 'the server to let the dropped session go');
}

async function post(base: string, auth: string, channelId: string, contents: string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const content of contents) ids.push((await postMessage(base, auth, channelId, content)).id);
  return ids;
}

/** Everything after the resume request: the replayed events, `resumed`, then live frames. */
function afterResume(c: TestGatewayClient) {
  const i = c.frames.findIndex((f) => f.op === 'resumed');
  return { replayed: c.frames.slice(1, i === -1 ? undefined : i), resumed: c.frames[i], live: i === -1 ? [] : c.frames.slice(i + 1) };
}

describe('resume', () => {
  it('replays exactly the events missed while disconnected, in order, then resumed, then goes on live', async () => {
    const w = await world(srv.url);
    const c = await pool.identify(srv.gatewayUrl, w.bot.auth);
    await post(srv.url, w.owner.auth, w.channel.id, ['before 1', 'before 2']);
    await c.collect(2);
    c.heartbeat();
    await c.waitFor((f) => f.op === 'heartbeat_ack');
    const last = c.lastSeq;
    expect(last).toBe(2);
    await drop(c);

    const ids = await post(srv.url, w.owner.auth, w.channel.id, ['missed 1', 'missed 2', 'missed 3']);
    const r = await pool.resume(srv.gatewayUrl, w.bot.auth, c.sessionId, last);
    const { replayed, resumed } = afterResume(r);
    expect(replayed.map((f) => [f.op, f.t, f.s, f.d.id])).toEqual([
      ['event', 'MESSAGE_CREATE', 3, ids[0]],
      ['event', 'MESSAGE_CREATE', 4, ids[1]],
      ['event', 'MESSAGE_CREATE', 5, ids[2]],
    ]);
    expect(replayed.map((f) => f.d.content)).toEqual(['missed 1', 'missed 2', 'missed 3']);
    expect(resumed).toEqual({ op: 'resumed', d: { sessionId: c.sessionId, s: 5 } });

    await postMessage(srv.url, w.owner.auth, w.channel.id, 'live again');
    const live = await r.waitForEvent('MESSAGE_CREATE', (d) => d.content === 'live again');
    expect(live.s).toBe(6);
    expect(r.events()).toHaveLength(4);
  });

  it('replays events the client was sent but had not acknowledged in a heartbeat', async () => {
    const w = await world(srv.url);
    const c = await pool.identify(srv.gatewayUrl, w.bot.auth, { heartbeat: false });
    await post(srv.url, w.owner.auth, w.channel.id, ['one', 'two', 'three', 'four']);
    await c.collect(4);
    await drop(c);
    // The client only handled the first two before it crashed.
    const r = await pool.resume(srv.gatewayUrl, w.bot.auth, c.sessionId, 2);
    expect(afterResume(r).replayed.map((f) => [f.s, f.d.content])).toEqual([
      [3, 'three'],
      [4, 'four'],
    ]);
    expect(afterResume(r).resumed?.d.s).toBe(4);
  });

  it('resumes from a sequence number between two heartbeats after many events', async () => {
    // Enough events that the server's resume points (taken every few dozen events) lie
    // both before and after what the client last acknowledged.
    const w = await world(srv.url);
    const c = await pool.identify(srv.gatewayUrl, w.bot.auth, { heartbeat: false });
    const total = 150;
    await post(
      srv.url,
      w.owner.auth,
      w.channel.id,
      Array.from({ length: total }, (_, i) => `n${i + 1}`),
    );
    await c.collect(total);
    c.send({ op: 'heartbeat', d: { s: 100 } });
    await c.waitFor((f) => f.op === 'heartbeat_ack');
    await drop(c);

    // The connection dropped while events 121..150 were still in flight.
    const r = await pool.resume(srv.gatewayUrl, w.bot.auth, c.sessionId, 120);
    const { replayed, resumed } = afterResume(r);
    expect(resumed?.op).toBe('resumed');
    expect(replayed.map((f) => f.s)).toEqual(Array.from({ length: 30 }, (_, i) => 121 + i));
    expect(replayed.map((f) => f.d.content)).toEqual(Array.from({ length: 30 }, (_, i) => `n${121 + i}`));
  });

  it('can resume the same session again and again', async () => {
    const w = await world(srv.url);
    let c = await pool.identify(srv.gatewayUrl, w.bot.auth);
    const sessionId = c.sessionId;
    for (let round = 1; round <= 3; round++) {
      const last = c.lastSeq;
      await drop(c);
      await post(srv.url, w.owner.auth, w.channel.id, [`r${round}a`, `r${round}b`]);
      c = await pool.resume(srv.gatewayUrl, w.bot.auth, sessionId, last);
      expect(afterResume(c).replayed.map((f) => [f.s, f.d.content])).toEqual([
        [last + 1, `r${round}a`],
        [last + 2, `r${round}b`],
      ]);
    }
  });

  it('follows membership changes that happened while disconnected, numbering as live', async () => {
    // A person: being kicked and joining another server change no permission version of the
    // servers the session is in, so the missed entries replay.
    const w = await world(srv.url);
    const other = await createServer(srv.url, w.owner, 'Other');
    const user = await registerUser(srv.url);
    await joinServer(srv.url, w.owner, user, w.server.id);
    const c = await pool.identify(srv.gatewayUrl, user.auth);
    await drop(c);
    expect((await call(srv.url, 'DELETE', `/servers/${w.server.id}/members/${user.id}`, { auth: w.owner.auth })).status).toBe(204);
    await postMessage(srv.url, w.owner.auth, w.channel.id, 'after leaving');
    await joinServer(srv.url, w.owner, user, other.server.id);
    await postMessage(srv.url, w.owner.auth, other.general.id, 'in the new server');

    const r = await pool.resume(srv.gatewayUrl, user.auth, c.sessionId, 0);
    expect(afterResume(r).replayed.map((f) => [f.s, f.t, f.d.serverId])).toEqual([
      [1, 'MEMBER_REMOVE', w.server.id],
      [2, 'MEMBER_ADD', other.server.id],
      [3, 'MESSAGE_CREATE', other.server.id],
    ]);
    expect(afterResume(r).resumed).toEqual({ op: 'resumed', d: { sessionId: c.sessionId, s: 3 } });
    // Live delivery after the resume follows the same membership.
    await postMessage(srv.url, w.owner.auth, w.channel.id, 'old server, live');
    await postMessage(srv.url, w.owner.auth, other.general.id, 'new server, live');
    const f = await r.waitForEvent('MESSAGE_CREATE', (d) => d.content === 'new server, live');
    expect(f.s).toBe(4);
    expect(JSON.stringify(r.frames)).not.toContain('old server, live');
    expect(JSON.stringify(r.frames)).not.toContain('after leaving');
  });

  it("resumes across a bot's removal (its managed role went: a permission change) and its addition elsewhere, as live", async () => {
    const w = await world(srv.url);
    const other = await createServer(srv.url, w.owner, 'Other');
    const c = await pool.identify(srv.gatewayUrl, w.bot.auth);
    await drop(c);
    expect((await call(srv.url, 'DELETE', `/servers/${w.server.id}/bots/${w.bot.id}`, { auth: w.owner.auth })).status).toBe(204);
    await postMessage(srv.url, w.owner.auth, w.channel.id, 'after leaving');
    await addBot(srv.url, w.owner, other.server.id, w.bot.id);
    await postMessage(srv.url, w.owner.auth, other.general.id, 'in the new server');

    const r = await pool.resume(srv.gatewayUrl, w.bot.auth, c.sessionId, 0);
    const { replayed, resumed } = afterResume(r);
    expect(resumed?.op).toBe('resumed');
    const kinds = replayed.map((f) => [f.t, f.d.serverId ?? f.d.role?.serverId]);
    expect(kinds).toContainEqual(['MEMBER_REMOVE', w.server.id]);
    expect(kinds).toContainEqual(['MEMBER_ADD', other.server.id]);
    expect(replayed.filter((f) => f.t === 'MESSAGE_CREATE').map((f) => f.d.content)).toEqual(['in the new server']);
    // Nothing of the old server after its MEMBER_REMOVE.
    const gone = replayed.findIndex((f) => f.t === 'MEMBER_REMOVE');
    expect(replayed.slice(gone + 1).some((f) => (f.d.serverId ?? f.d.id) === w.server.id)).toBe(false);
    await postMessage(srv.url, w.owner.auth, w.channel.id, 'old server, live');
    await postMessage(srv.url, w.owner.auth, other.general.id, 'new server, live');
    await r.waitForEvent('MESSAGE_CREATE', (d) => d.content === 'new server, live');
    expect(JSON.stringify(r.frames)).not.toContain('old server, live');
    expect(JSON.stringify(r.frames)).not.toContain('after leaving');
  });

  it('replays a large backlog completely instead of cutting the resuming client off', async () => {
    const w = await world(srv.url);
    const c = await pool.identify(srv.gatewayUrl, w.bot.auth);
    await drop(c);
    // 900 messages of 4000 four-byte emoji: about 14 MB to replay at once, far more than
    // the slow-consumer bound (1 MiB) plus what the kernel's socket buffers take.
    const big = '🦜'.repeat(4000);
    const n = 900;
    for (let i = 0; i < n; i += 4) await Promise.all([0, 1, 2, 3].map(() => postMessage(srv.url, w.owner.auth, w.channel.id, big)));
    const r = await pool.resume(srv.gatewayUrl, w.bot.auth, c.sessionId, 0, { timeoutMs: 10_000 });
    expect(afterResume(r).resumed?.d.s).toBe(n);
    expect(afterResume(r).replayed).toHaveLength(n);
    // Still connected, and live events follow.
    await postMessage(srv.url, w.owner.auth, w.channel.id, 'after the replay');
    expect((await r.waitForEvent('MESSAGE_CREATE', (d) => d.content === 'after the replay')).s).toBe(n + 1);
    expect(r.closeInfo).toBeNull();
  });

  it('takes over a session whose old connection is still open, without delivering twice', async () => {
    const w = await world(srv.url);
    const old = await pool.identify(srv.gatewayUrl, w.bot.auth);
    await postMessage(srv.url, w.owner.auth, w.channel.id, 'seen by old');
    await old.collect(1);
    const r = await pool.resume(srv.gatewayUrl, w.bot.auth, old.sessionId, 1);
    expect(afterResume(r).resumed?.d).toEqual({ sessionId: old.sessionId, s: 1 });
    await old.waitForClose();
    await postMessage(srv.url, w.owner.auth, w.channel.id, 'only new');
    expect((await r.waitForEvent('MESSAGE_CREATE')).s).toBe(2);
    expect(old.events()).toHaveLength(1);
  });

  it('settles two resumes of one session racing each other on a single live connection', async () => {
    const w = await world(srv.url);
    const c = await pool.identify(srv.gatewayUrl, w.bot.auth);
    await drop(c);
    const [a, b] = await Promise.all([
      pool.resume(srv.gatewayUrl, w.bot.auth, c.sessionId, 0),
      pool.resume(srv.gatewayUrl, w.bot.auth, c.sessionId, 0),
    ]);
    // One of the two must lose: wait for that close rather than for a while.
    await Promise.race([a.waitForClose(), b.waitForClose()]);
    const open = [a, b].filter((x) => x.closeInfo === null);
    expect(open).toHaveLength(1);
    // Sync point for the winner: a later event reaches it, so no close came before.
    await postMessage(srv.url, w.owner.auth, w.channel.id, 'once');
    await open[0]!.waitForEvent('MESSAGE_CREATE');
    expect(open[0]!.closeInfo).toBeNull();
    expect(srv.app.gateway.sessionCount).toBeGreaterThan(0);
  });

  it('resumes a session of a quiet server even after the busy log has moved far past its last event', async () => {
    const quiet = await world(tight.url);
    const busy = await world(tight.url);
    const c = await pool.identify(tight.gatewayUrl, quiet.bot.auth);
    await postMessage(tight.url, quiet.owner.auth, quiet.channel.id, 'the only one');
    await c.collect(1);
    // Far more entries than the log keeps (5), none of them for this session.
    await post(tight.url, busy.owner.auth, busy.channel.id, ['b1', 'b2', 'b3', 'b4', 'b5', 'b6', 'b7', 'b8']);
    c.heartbeat();
    await c.waitFor((f) => f.op === 'heartbeat_ack');
    await drop(c);
    const r = await pool.resume(tight.gatewayUrl, quiet.bot.auth, c.sessionId, 1);
    expect(r.frames.at(-1)).toEqual({ op: 'resumed', d: { sessionId: c.sessionId, s: 1 } });
    await postMessage(tight.url, quiet.owner.auth, quiet.channel.id, 'next');
    expect((await r.waitForEvent('MESSAGE_CREATE')).s).toBe(2);
  });

  it('lets a session closed for missed heartbeats (4009) resume', async () => {
    const w = await world(tight.url);
    const c = await pool.identify(tight.gatewayUrl, w.bot.auth, { heartbeat: false });
    expect((await c.waitForClose(3000)).code).toBe(4009);
    await postMessage(tight.url, w.owner.auth, w.channel.id, 'while timed out');
    const r = await pool.resume(tight.gatewayUrl, w.bot.auth, c.sessionId, 0);
    expect(afterResume(r).replayed.map((f) => f.d.content)).toEqual(['while timed out']);
    expect(afterResume(r).resumed?.op).toBe('resumed');
  });
});

describe('invalid_session', () => {
  it('answers an unknown session id with invalid_session, and the connection may identify after it', async () => {
    const w = await world(srv.url);
    const r = await pool.resume(srv.gatewayUrl, w.bot.auth, '01JUNKNOWNSESSION000000000', 0);
    expect(r.frames.at(-1)).toMatchObject({ op: 'invalid_session' });
    expect(r.closeInfo).toBeNull();
    r.send({ op: 'identify', d: { token: w.bot.auth } });
    await r.waitFor((f) => f.op === 'ready');
  });

  it("refuses to resume another identity's session", async () => {
    const w = await world(srv.url);
    const c = await pool.identify(srv.gatewayUrl, w.bot.auth);
    await drop(c);
    const r = await pool.resume(srv.gatewayUrl, w.owner.auth, c.sessionId, 0);
    expect(r.frames.at(-1)?.op).toBe('invalid_session');
    expect(r.events()).toEqual([]);
  });

  it('refuses a sequence number the session never reached', async () => {
    const w = await world(srv.url);
    const c = await pool.identify(srv.gatewayUrl, w.bot.auth);
    await postMessage(srv.url, w.owner.auth, w.channel.id, 'one');
    await c.collect(1);
    await drop(c);
    const r = await pool.resume(srv.gatewayUrl, w.bot.auth, c.sessionId, 5);
    expect(r.frames.at(-1)?.op).toBe('invalid_session');
    // And the refusal did not destroy the session: the honest resume still works.
    const ok = await pool.resume(srv.gatewayUrl, w.bot.auth, c.sessionId, 1);
    expect(ok.frames.at(-1)?.op).toBe('resumed');
  });

  it('expires a dropped session after GATEWAY_RESUME_SECONDS', async () => {
    const w = await world(tight.url);
    const c = await pool.identify(tight.gatewayUrl, w.bot.auth);
    await drop(c);
    const early = await pool.resume(tight.gatewayUrl, w.bot.auth, c.sessionId, 0);
    expect(early.frames.at(-1)?.op).toBe('resumed');
    await drop(early);
    // The window runs on the server's clock: half of it left, the checkpoint is still there.
    tightClock.advance(500);
    expect(await tight.app.ctx.bus.loadCheckpoint(c.sessionId)).not.toBeNull();
    tightClock.advance(501);
    expect(await tight.app.ctx.bus.loadCheckpoint(c.sessionId)).toBeNull();
    const late = await pool.resume(tight.gatewayUrl, w.bot.auth, c.sessionId, 0);
    expect(late.frames.at(-1)?.op).toBe('invalid_session');
  });

  it('cannot resume once more entries than GATEWAY_REPLAY_BUFFER were logged since the session left off', async () => {
    const w = await world(tight.url);
    const c = await pool.identify(tight.gatewayUrl, w.bot.auth);
    await drop(c);
    await post(tight.url, w.owner.auth, w.channel.id, ['1', '2', '3', '4', '5', '6', '7']);
    const r = await pool.resume(tight.gatewayUrl, w.bot.auth, c.sessionId, 0);
    expect(r.frames.at(-1)?.op).toBe('invalid_session');
    expect(r.events()).toEqual([]);
  });
});
