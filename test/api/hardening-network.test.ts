/**
 * Connection-level limits: requests that stall are answered 408 and closed within the
 * timeout settings, idle keep-alive and gateway connections are not cut by them, and
 * one client address cannot hold more than MAX_CONNECTIONS_PER_IP connections.
 */
import type net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { clientKey } from '../../src/http/connection-limit.js';
import { loadConfig } from '../../src/config.js';
import { world } from '../factories.js';
import { TestGatewayClient } from '../gateway/client.js';
import { type TestServer, startServer } from '../harness.js';
import type { ErrorCode } from '../../src/errors.js';
import { expectCatalogCode } from './assert.js';
import { collect, connect, exchange, parseResponse, readResponse } from './raw-http.js';

let timed: TestServer;
let capped: TestServer;

beforeAll(async () => {
  [timed, capped] = await Promise.all([
    startServer({
      env: { RATE_LIMITS: 'off', REQUEST_TIMEOUT_SECONDS: '1', HEADERS_TIMEOUT_SECONDS: '1', KEEP_ALIVE_TIMEOUT_SECONDS: '3' },
    }),
    startServer({ env: { RATE_LIMITS: 'off', MAX_CONNECTIONS_PER_IP: '4' } }),
  ]);
});
afterAll(async () => {
  await Promise.all([timed?.close(), capped?.close()]);
});

/** The answer is exactly a JSON `{error, code}` with `status` (and `code`, when given). */
function expectJsonError(text: string, status: number, code?: ErrorCode): void {
  const r = parseResponse(text);
  expect(r.status, text).toBe(status);
  expect(r.headers['content-type']).toMatch(/^application\/json/);
  const body = JSON.parse(r.body) as { code?: unknown };
  expect(Object.keys(body).sort()).toEqual(['code', 'error']);
  expectCatalogCode(body.code, status);
  if (code) expect(body.code).toBe(code);
}

const GET_HEALTH = 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n';

/**
 * Resolves once `timed` has cut a request that starts stalling now (a 408, then closed):
 * an event that says the request and headers timeouts have run their course since the
 * call, instead of a sleep guessed to outlast them.
 */
async function timeoutsHaveRun(): Promise<void> {
  const r = await exchange(timed.url, 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ', 8000);
  expect(r.closed).toBe(true);
  expectJsonError(r.text, 408, 'request_timeout');
}

describe('timeouts (REQUEST_TIMEOUT_SECONDS=1, HEADERS_TIMEOUT_SECONDS=1)', () => {
  it('a body that stalls after 4 of 100 bytes gets a JSON 408 and the connection is closed', async () => {
    const r = await exchange(
      timed.url,
      'POST /auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"us',
      8000,
    );
    expect(r.closed).toBe(true);
    expect(r.elapsedMs).toBeGreaterThanOrEqual(900);
    expect(r.elapsedMs).toBeLessThan(4000);
    expectJsonError(r.text, 408, 'request_timeout');
  });

  it('headers that never finish: 408 JSON and closed', async () => {
    const r = await exchange(timed.url, 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ', 8000);
    expect(r.closed).toBe(true);
    expect(r.elapsedMs).toBeLessThan(4000);
    expectJsonError(r.text, 408, 'request_timeout');
  });

  it('a connection that sends nothing is closed', async () => {
    const r = await exchange(timed.url, '', 8000);
    expect(r.closed).toBe(true);
    expect(r.elapsedMs).toBeLessThan(4000);
  });

  it('many stalled requests are all closed, not only the first', async () => {
    const stalled = Array.from({ length: 20 }, () =>
      exchange(
        timed.url,
        'POST /auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"us',
        8000,
      ),
    );
    for (const r of await Promise.all(stalled)) {
      expect(r.closed).toBe(true);
      expect(r.elapsedMs).toBeLessThan(4000);
    }
  });

  it('an idle keep-alive connection outlives the request timeout and closes after the keep-alive timeout', async () => {
    const socket = await connect(timed.url);
    socket.write(GET_HEALTH);
    expect((await readResponse(socket)).status).toBe(200);
    await timeoutsHaveRun(); // idle for longer than the request and headers timeouts
    socket.write(GET_HEALTH);
    expect((await readResponse(socket)).status).toBe(200);
    const rest = await collect(socket, '', 8000);
    expect(rest.closed).toBe(true);
    // 3 s keep-alive (Node allows one more second); closed well before the 8 s give-up.
    expect(rest.elapsedMs).toBeGreaterThanOrEqual(2500);
    expect(rest.elapsedMs).toBeLessThan(6000);
  });

  it('a gateway connection is not cut by the HTTP timeouts', async () => {
    const w = await world(timed.url);
    const c = await TestGatewayClient.identify(timed.gatewayUrl, w.bot.auth, { heartbeat: false });
    try {
      await timeoutsHaveRun();
      expect(c.closeInfo).toBeNull();
      const acks = c.frames.length;
      c.heartbeat();
      await c.waitFor((f) => f.op === 'heartbeat_ack', 5000, acks);
    } finally {
      await c.close();
    }
  });
});

describe('connections per client (MAX_CONNECTIONS_PER_IP=4)', () => {
  /** Opens a connection and completes one request on it, so the server has counted it. */
  async function held(): Promise<net.Socket> {
    const s = await connect(capped.url);
    s.write(GET_HEALTH);
    expect((await readResponse(s)).status).toBe(200);
    return s;
  }

  it('refuses the fifth connection from one address, HTTP or WebSocket, and accepts again once one closes', async () => {
    const open = [await held(), await held(), await held(), await held()];
    try {
      const fifth = await exchange(capped.url, GET_HEALTH, 5000);
      expect(fifth.closed).toBe(true);
      expect(fifth.text).toBe('');

      const ws = new WebSocket(capped.gatewayUrl);
      const outcome = await new Promise<string>((resolve) => {
        ws.once('open', () => resolve('open'));
        ws.once('error', () => resolve('refused'));
      });
      ws.terminate();
      expect(outcome).toBe('refused');

      open.pop()!.destroy();
      // The server counts the close when it sees it: retry until a connection is served.
      const deadline = Date.now() + 5000;
      let served = false;
      while (!served && Date.now() < deadline) {
        const r = await exchange(capped.url, 'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', 2000);
        served = r.text.startsWith('HTTP/1.1 200');
      }
      expect(served).toBe(true);
    } finally {
      for (const s of open) s.destroy();
    }
  });
});

describe('client keys', () => {
  it('IPv4 and IPv4-mapped addresses count alone; IPv6 counts per /64', () => {
    expect(clientKey('203.0.113.7')).toBe('203.0.113.7');
    expect(clientKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(clientKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:db8:1:2:ffff:ffff:ffff:fffe')).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:db8:1:3::1')).not.toBe(clientKey('2001:db8:1:2::1'));
    expect(clientKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(clientKey('::1')).toBe('0:0:0:0::/64');
    expect(clientKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(clientKey('64:ff9b::192.0.2.1')).toBe('64:ff9b:0:0::/64');
  });
});

describe('settings', () => {
  it('defaults: timeouts on, 256 connections per address, no cap behind a trusted proxy', () => {
    const c = loadConfig({});
    expect(c.requestTimeoutMs).toBe(120_000);
    expect(c.headersTimeoutMs).toBe(20_000);
    expect(c.keepAliveTimeoutMs).toBe(72_000);
    expect(c.maxConnectionsPerIp).toBe(256);
    expect(loadConfig({ TRUST_PROXY: 'true' }).maxConnectionsPerIp).toBe(0);
    expect(loadConfig({ TRUST_PROXY: 'true', MAX_CONNECTIONS_PER_IP: '50' }).maxConnectionsPerIp).toBe(50);
    expect(loadConfig({ REQUEST_TIMEOUT_SECONDS: '5' }).headersTimeoutMs).toBe(5000);
  });

  it('refuses a headers timeout longer than the request timeout, and zero timeouts', () => {
    expect(() => loadConfig({ REQUEST_TIMEOUT_SECONDS: '5', HEADERS_TIMEOUT_SECONDS: '10' })).toThrow(/HEADERS_TIMEOUT_SECONDS/);
    expect(() => loadConfig({ REQUEST_TIMEOUT_SECONDS: '0' })).toThrow(/REQUEST_TIMEOUT_SECONDS/);
    expect(() => loadConfig({ KEEP_ALIVE_TIMEOUT_SECONDS: '0' })).toThrow(/KEEP_ALIVE_TIMEOUT_SECONDS/);
  });
});

describe('requests Node would answer on its own', () => {
  it('a request without Host is routed like any other', async () => {
    const r = await exchange(capped.url, 'GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n', 5000);
    const res = parseResponse(r.text);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({ status: 'ok' });
  });

  it('an Expect other than 100-continue gets a JSON 417', async () => {
    const r = await exchange(capped.url, 'GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: garbage\r\n\r\n', 5000);
    expectJsonError(r.text, 417, 'expectation_failed');
  });

  it('CONNECT gets a JSON 400 and the connection is closed', async () => {
    const r = await exchange(capped.url, 'CONNECT /servers HTTP/1.1\r\nHost: x\r\n\r\n', 5000);
    expectJsonError(r.text, 400, 'unsupported_protocol');
    expect(r.closed).toBe(true);
  });

  it('an Upgrade the path does not offer (h2c) is ignored: the plain request is answered', async () => {
    const r = await exchange(
      capped.url,
      'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAoAAAAAIAAAAA\r\n\r\n',
      5000,
    );
    const res = parseResponse(r.text);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({ status: 'ok' });
    expect(r.closed).toBe(true);
  });

  it('such an upgrade with a body it can no longer read is refused with JSON 400 and closed, even while the body is still coming', async () => {
    const body = 'x'.repeat(100_000);
    const r = await exchange(
      capped.url,
      `POST /servers HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: h2c\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      8000,
    );
    expectJsonError(r.text, 400, 'unsupported_protocol');
    expect(r.closed).toBe(true);
  });
});
