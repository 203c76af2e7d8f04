// What the gateway refuses before a session exists: malformed handshakes (as JSON, like
// every other answer), too many unidentified sockets from one address, and too many
// sessions of one token.
import net from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { world } from '../factories.js';
import { startServer, type TestServer } from '../harness.js';
import { ClientPool } from './client.js';

let srv: TestServer;
const pool = new ClientPool();

beforeAll(async () => {
  srv = await startServer({
    env: { RATE_LIMITS: 'off', GATEWAY_MAX_PENDING_PER_IP: '3', GATEWAY_MAX_SESSIONS_PER_TOKEN: '2' },
  });
});
afterEach(async () => {
  await pool.closeAll();
  // The server learns of the closes a moment later; the per-address count must be back to zero.
  await until(() => srv.app.gateway.stats().pending === 0);
});

/** Resolves once `pred` holds, checking on every turn of the event loop (for at most 5 s). */
async function until(pred: () => boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!pred()) {
    if (Date.now() > deadline) throw new Error('condition not met within 5 s');
    await new Promise((r) => setImmediate(r));
  }
}
afterAll(() => srv?.close());

/** Sends a raw HTTP request and returns the whole answer once the server closes the socket. */
function rawRequest(port: number, request: string): Promise<{ status: number; headers: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(request));
    let data = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => (data += chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', body = ''] = data.split('\r\n\r\n');
      resolve({ status: Number(head.split(' ')[1]), headers: head, body });
    });
  });
}

const port = () => Number(new URL(srv.url).port);
const upgrade = (headers: Record<string, string>, path = '/gateway', method = 'GET') =>
  `${method} ${path} HTTP/1.1\r\nHost: localhost\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`;
const GOOD = {
  Connection: 'Upgrade',
  Upgrade: 'websocket',
  'Sec-WebSocket-Version': '13',
  'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==',
};

describe('handshake errors are JSON', () => {
  it.each([
    ['a missing key', { ...GOOD, 'Sec-WebSocket-Key': '' }, 400],
    ['a malformed key', { ...GOOD, 'Sec-WebSocket-Key': 'short' }, 400],
    ['an unsupported version', { ...GOOD, 'Sec-WebSocket-Version': '7' }, 400],
    ['a malformed subprotocol list', { ...GOOD, 'Sec-WebSocket-Protocol': 'a,,b' }, 400],
  ])('%s answers %i with a JSON error', async (_what, headers, status) => {
    const r = await rawRequest(port(), upgrade(headers));
    expect(r.status).toBe(status);
    expect(r.headers.toLowerCase()).toContain('content-type: application/json');
    expect(JSON.parse(r.body)).toEqual({ error: expect.any(String), code: 'invalid_handshake' });
  });

  it('an upgrade to another path answers a JSON 404', async () => {
    const r = await rawRequest(port(), upgrade(GOOD, '/elsewhere'));
    expect(r.status).toBe(404);
    expect(JSON.parse(r.body)).toEqual({ error: expect.any(String), code: 'unknown_route' });
  });

  it('a well-formed handshake still upgrades', async () => {
    const c = await pool.connect(srv.gatewayUrl);
    expect(c.frames[0]?.op).toBe('hello');
  });
});

describe('limits', () => {
  it('refuses a further unidentified socket from one address with a JSON 429, and admits one once another identifies', async () => {
    const w = await world(srv.url);
    const waiting = await Promise.all([1, 2, 3].map(() => pool.connect(srv.gatewayUrl)));
    const r = await rawRequest(port(), upgrade(GOOD));
    expect(r.status).toBe(429);
    expect(r.headers).toMatch(/retry-after: \d+/i);
    expect(JSON.parse(r.body)).toEqual({ error: expect.stringContaining('identify'), code: 'rate_limited', retryAfter: 5 });

    waiting[0]!.send({ op: 'identify', d: { token: w.bot.auth } });
    await waiting[0]!.waitFor((f) => f.op === 'ready');
    const admitted = await pool.connect(srv.gatewayUrl);
    expect(admitted.frames[0]?.op).toBe('hello');

    // A socket that closes before identifying frees its place too.
    await waiting[1]!.close();
    const again = await pool.connect(srv.gatewayUrl);
    expect(again.frames[0]?.op).toBe('hello');
  });

  it('closes an identify past the sessions allowed per token with 4010; other tokens are unaffected', async () => {
    const w = await world(srv.url);
    await pool.identify(srv.gatewayUrl, w.bot.auth);
    await pool.identify(srv.gatewayUrl, w.bot.auth);
    const third = await pool.connect(srv.gatewayUrl);
    third.send({ op: 'identify', d: { token: w.bot.auth } });
    expect((await third.waitForClose()).code).toBe(4010);
    // The owner's login session is another token.
    await pool.identify(srv.gatewayUrl, w.owner.auth);
  });
});
