// A client that stops reading must not hurt the others: its buffer is bounded, it is
// disconnected (close 4008, resumable), and everyone else keeps getting events promptly.
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { call, postMessage, registerUser, joinServer, world } from '../factories.js';
import { startServer, type TestServer } from '../harness.js';
import { ClientPool, sleep } from './client.js';

let srv: TestServer;
const pool = new ClientPool();

beforeAll(async () => {
  srv = await startServer({ env: { GATEWAY_HEARTBEAT_MS: '5000', RATE_LIMITS: 'off' } });
});
afterEach(() => pool.closeAll());
afterAll(() => srv?.close());

/** 4000 four-byte code points: the largest content a message may have, about 16 KB of JSON. */
const BIG = '🦜'.repeat(4000);
const MESSAGES = 900; // ~14 MB in all: far past the 1 MiB bound plus what the kernel's socket buffers hold

it('disconnects a client that stops reading, bounds its buffer, and keeps delivering to the others promptly', async () => {
  const w = await world(srv.url);
  const member = await registerUser(srv.url);
  await joinServer(srv.url, w.owner, member, w.server.id);
  const slow = await pool.identify(srv.gatewayUrl, w.bot.auth);
  const healthy = await pool.identify(srv.gatewayUrl, member.auth);
  const sessionsBefore = srv.app.gateway.sessionCount;
  // The slow client stops reading from its TCP socket; its heartbeats still go out.
  (slow.ws as unknown as { _socket: { pause(): void; resume(): void } })._socket.pause();

  // The most the server ever held queued for one connection (in user space; the
  // kernel's socket buffers come on top and are bounded by the kernel).
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, srv.app.gateway.stats().maxQueuedBytes)), 5);

  let disconnectedAt = -1;
  let next = 0;
  const worker = async () => {
    while (next < MESSAGES) {
      const i = next++;
      const tag = String(i).padStart(12, '0');
      await postMessage(srv.url, w.owner.auth, w.channel.id, BIG.slice(0, -12 * 2) + tag);
      if (disconnectedAt < 0 && srv.app.gateway.sessionCount < sessionsBefore) disconnectedAt = i;
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
  const delivered = await healthy.collect(MESSAGES, (f) => f.t === 'MESSAGE_CREATE', 20_000);
  clearInterval(sampler);

  // The slow client was dropped by the server part-way through, not at the end.
  expect(disconnectedAt, 'the server never dropped the slow consumer').toBeGreaterThan(0);
  expect(disconnectedAt).toBeLessThan(MESSAGES * 0.9);
  // The server held on to about the bound (1 MiB, plus the frame that crossed it) for
  // it, never the ~14 MB posted.
  expect(peak, `peak queued for one connection: ${(peak / 1e6).toFixed(2)} MB`).toBeGreaterThan(0);
  expect(peak, `peak queued for one connection: ${(peak / 1e6).toFixed(2)} MB`).toBeLessThan(1024 * 1024 + 64 * 1024);
  // The healthy client got everything, each exactly once, while the slow one was being
  // dealt with. How promptly, and what the process's memory did, are targets, not
  // correctness: bench/slow-consumer.ts measures them (bench/README.md).
  const tags = delivered.map((f) => String(f.d.content).slice(-12));
  expect(new Set(tags).size).toBe(MESSAGES);
  expect(tags.map(Number).sort((a, b) => a - b)).toEqual(Array.from({ length: MESSAGES }, (_, i) => i));
  expect(healthy.events('MESSAGE_CREATE')).toHaveLength(MESSAGES);
  expect(healthy.closeInfo).toBeNull();

  // When the slow client reads again it finds the 4008 close, and its session resumes.
  (slow.ws as unknown as { _socket: { resume(): void } })._socket.resume();
  const closed = await slow.waitForClose(5000);
  expect([4008, 1006]).toContain(closed.code);
  const got = slow.lastSeq;
  expect(got).toBeLessThan(MESSAGES);
  const r = await pool.resume(srv.gatewayUrl, w.bot.auth, slow.sessionId, got);
  expect(r.frames.at(-1)).toMatchObject({ op: 'resumed', d: { s: MESSAGES } });
  expect(r.events().map((f) => f.s)).toEqual(Array.from({ length: MESSAGES - got }, (_, i) => got + 1 + i));
});

it('tells a slow consumer that reads again in time why it was dropped: close 4008', async () => {
  const w = await world(srv.url);
  const slow = await pool.identify(srv.gatewayUrl, w.bot.auth);
  const socket = (slow.ws as unknown as { _socket: { pause(): void; resume(): void } })._socket;
  socket.pause();
  const before = srv.app.gateway.sessionCount;
  for (let i = 0; i < MESSAGES && srv.app.gateway.sessionCount >= before; i += 4) {
    await Promise.all([0, 1, 2, 3].map(() => postMessage(srv.url, w.owner.auth, w.channel.id, BIG)));
  }
  expect(srv.app.gateway.sessionCount).toBeLessThan(before);
  socket.resume();
  expect((await slow.waitForClose(5000)).code).toBe(4008);
  // It reached the close through everything that was already on its way.
  expect(slow.events().length).toBeGreaterThan(0);
  await sleep(10);
  const after = await call(srv.url, 'GET', '/healthz');
  expect(after.status).toBe(200);
});
