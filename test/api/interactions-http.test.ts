import { createPublicKey, verify } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { call, joinServer, registerUser, world } from '../factories.js';
import { ClientPool } from '../gateway/client.js';
import { type TestServer, startServer } from '../harness.js';

/**
 * Interactions delivered over HTTP (docs/commands.md) to a real local endpoint, which
 * checks every signature with node:crypto against the bot's public key: the ping when the
 * URL is set, commands answered by the response body, failures, and the outgoing rules
 * (no private or loopback address unless OUTGOING_ALLOW_PRIVATE, no redirect followed,
 * answers size-limited).
 */

interface Received {
  path: string;
  body: string;
  json: any;
  signatureValid: boolean;
}

/** A local HTTP endpoint; `answer` decides each response. */
class Endpoint {
  readonly received: Received[] = [];
  publicKey = '';
  answer: (req: Received, res: http.ServerResponse) => void = (r, res) => json(res, r.json.type === 'ping' ? { type: 'pong' } : {});
  private waiters: Array<() => void> = [];
  private server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const r: Received = {
        path: req.url ?? '',
        body,
        json: body ? JSON.parse(body) : undefined,
        signatureValid: this.valid(
          String(req.headers['x-signature-ed25519'] ?? ''),
          String(req.headers['x-signature-timestamp'] ?? ''),
          body,
        ),
      };
      this.received.push(r);
      for (const w of this.waiters.splice(0)) w();
      this.answer(r, res);
    });
  });

  /** Verifies as a bot would: Ed25519 over timestamp + body, with the key the bot shows. */
  valid(signature: string, timestamp: string, body: string): boolean {
    if (!this.publicKey || !/^[0-9a-f]{128}$/.test(signature)) return false;
    const key = createPublicKey({
      key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(this.publicKey, 'hex').toString('base64url') },
      format: 'jwk',
    });
    return verify(null, Buffer.from(timestamp + body), key, Buffer.from(signature, 'hex'));
  }

  async start(): Promise<string> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Resolves once `n` requests have arrived in all. */
  async count(n: number): Promise<void> {
    while (this.received.length < n) await new Promise<void>((r) => this.waiters.push(r));
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }
}

function json(res: http.ServerResponse, body: unknown, status = 200) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

let srv: TestServer;
let strict: TestServer;
let endpoint: Endpoint;
let base: string;
const pool = new ClientPool();

beforeAll(async () => {
  [srv, strict] = await Promise.all([
    startServer({ env: { RATE_LIMITS: 'off', OUTGOING_ALLOW_PRIVATE: 'true', INTERACTION_CALLBACK_MS: '2000' } }),
    startServer({ env: { RATE_LIMITS: 'off' } }),
  ]);
});
beforeEach(async () => {
  endpoint = new Endpoint();
  base = await endpoint.start();
});
afterEach(async () => {
  await pool.closeAll();
  await endpoint.close();
});
afterAll(async () => {
  await Promise.all([srv?.close(), strict?.close()]);
});

/** A server, a bot with /ping whose interactions go to the endpoint, and a member with a gateway session. */
async function setup() {
  const w = await world(srv.url);
  const member = await registerUser(srv.url);
  await joinServer(srv.url, w.owner, member, w.server.id);
  await call(srv.url, 'PUT', `/bots/${w.bot.id}/commands`, { auth: w.bot.auth, body: [{ name: 'ping', description: 'Ping' }] });
  endpoint.publicKey = (await call(srv.url, 'GET', '/bots', { auth: w.owner.auth })).body[0].publicKey;
  const set = await call(srv.url, 'PATCH', `/bots/${w.bot.id}`, { auth: w.owner.auth, body: { interactionsUrl: `${base}/interactions` } });
  expect(set.status, set.text).toBe(200);
  const memberGw = await pool.identify(srv.gatewayUrl, member.auth);
  const botGw = await pool.identify(srv.gatewayUrl, w.bot.auth);
  return { ...w, member, memberGw, botGw };
}

const ping = (w: { member: { auth: string }; channel: { id: string }; bot: { id: string } }) =>
  call(srv.url, 'POST', `/channels/${w.channel.id}/interactions`, {
    auth: w.member.auth,
    body: { type: 'command', botId: w.bot.id, name: 'ping' },
  });

describe('setting interactionsUrl', () => {
  it('sends a signed ping first, and stores the URL once it answers pong', async () => {
    const w = await setup();
    expect(endpoint.received).toHaveLength(1);
    expect(endpoint.received[0]).toMatchObject({ path: '/interactions', json: { type: 'ping', botId: w.bot.id }, signatureValid: true });
    // The check is real: the same signature over another body does not verify.
    const r = endpoint.received[0]!;
    expect(endpoint.valid('00'.repeat(64), '0', r.body)).toBe(false);
    expect((await call(srv.url, 'GET', '/bots', { auth: w.owner.auth })).body[0].interactionsUrl).toBe(`${base}/interactions`);
  });

  it.each([
    ['another answer', (res: http.ServerResponse) => json(res, { type: 'message' })],
    ['an error status', (res: http.ServerResponse) => json(res, { type: 'pong' }, 500)],
    ['no JSON', (res: http.ServerResponse) => res.end('pong')],
    ['an answer over 64 KiB', (res: http.ServerResponse) => json(res, { type: 'pong', pad: 'x'.repeat(70_000) })],
  ])('refuses a URL that answers the ping with %s (400), and keeps none', async (_, answer) => {
    const w = await world(srv.url);
    endpoint.answer = (_r, res) => answer(res);
    const r = await call(srv.url, 'PATCH', `/bots/${w.bot.id}`, { auth: w.owner.auth, body: { interactionsUrl: `${base}/x` } });
    expect(r.status, r.text).toBe(400);
    expect(r.body.code).toBe('interactions_url_failed');
    expect((await call(srv.url, 'GET', '/bots', { auth: w.owner.auth })).body[0].interactionsUrl).toBeNull();
  });

  it('does not follow a redirect', async () => {
    const w = await world(srv.url);
    endpoint.answer = (r, res) => {
      if (r.path === '/moved') {
        res.writeHead(307, { location: `${base}/target` });
        res.end();
      } else json(res, { type: 'pong' });
    };
    const r = await call(srv.url, 'PATCH', `/bots/${w.bot.id}`, { auth: w.owner.auth, body: { interactionsUrl: `${base}/moved` } });
    expect(r.status, r.text).toBe(400);
    expect(r.body.code).toBe('interactions_url_failed');
    expect(endpoint.received.map((x) => x.path)).toEqual(['/moved']);
  });

  it.each([
    ['loopback', (port: string) => `http://127.0.0.1:${port}/i`],
    ['loopback by name', (port: string) => `http://localhost:${port}/i`],
    ['IPv6 loopback', (port: string) => `http://[::1]:${port}/i`],
    ['IPv4-mapped loopback', (port: string) => `http://[::ffff:127.0.0.1]:${port}/i`],
    ['IPv4-compatible loopback', (port: string) => `http://[::7f00:1]:${port}/i`],
    ['NAT64 of loopback', (port: string) => `http://[64:ff9b::7f00:1]:${port}/i`],
    ['6to4 of loopback', (port: string) => `http://[2002:7f00:1::]:${port}/i`],
    ['a private address', () => 'http://10.0.0.1/i'],
    ['link-local (cloud metadata)', () => 'http://169.254.169.254/latest/meta-data'],
    ['unspecified', (port: string) => `http://0.0.0.0:${port}/i`],
  ])('without OUTGOING_ALLOW_PRIVATE, refuses %s (400) and sends nothing', async (_, url) => {
    const w = await world(strict.url);
    const port = new URL(base).port;
    const r = await call(strict.url, 'PATCH', `/bots/${w.bot.id}`, { auth: w.owner.auth, body: { interactionsUrl: url(port) } });
    expect(r.status, r.text).toBe(400);
    expect(r.body.code).toBe('outgoing_address_refused');
    expect(endpoint.received).toEqual([]);
  });
});

describe('refusals say nothing about the network', () => {
  it('a name that does not resolve and a name that resolves to loopback get the same answer', async () => {
    const w = await world(strict.url);
    const port = new URL(base).port;
    const patch = (interactionsUrl: string) =>
      call(strict.url, 'PATCH', `/bots/${w.bot.id}`, { auth: w.owner.auth, body: { interactionsUrl } });
    const unknown = await patch(`http://no-such-host.invalid:${port}/i`);
    const internal = await patch(`http://localhost:${port}/i`);
    expect(internal.status, internal.text).toBe(400);
    expect(unknown.status, unknown.text).toBe(400);
    expect(unknown.body).toEqual(internal.body);
    expect(internal.body.code).toBe('outgoing_address_refused');
    expect(endpoint.received).toEqual([]);
  });
});

// The address rule literal by literal: test/security/outgoing-addresses.unit.test.ts.

describe('delivery', () => {
  it('POSTs the signed interaction, and the answer is the callback', async () => {
    const w = await setup();
    endpoint.answer = (r, res) => json(res, { type: 'message', data: { content: `pong for ${r.json.user.name}` } });
    const r = await ping(w);
    expect(r.status, r.text).toBe(202);
    const posted = await w.memberGw.waitForEvent('MESSAGE_CREATE', (d) => d.content.startsWith('pong for'));
    expect(posted.d).toMatchObject({ author: { id: w.bot.id }, interaction: { id: r.body.id, name: 'ping' } });
    await w.memberGw.waitForEvent('INTERACTION_SUCCESS', (d) => d.id === r.body.id);
    const delivered = endpoint.received[1]!;
    expect(delivered.signatureValid).toBe(true);
    expect(delivered.json).toMatchObject({ id: r.body.id, type: 'command', name: 'ping', botId: w.bot.id, user: { id: w.member.id } });
    expect(delivered.json.token).toMatch(/^\d+\./);
    // Over HTTP, not the gateway: the bot's session got no INTERACTION_CREATE.
    await call(srv.url, 'POST', `/channels/${w.channel.id}/messages`, { auth: w.owner.auth, body: { content: 'marker' } });
    await w.botGw.waitForEvent('MESSAGE_CREATE', (d) => d.content === 'marker');
    expect(w.botGw.events('INTERACTION_CREATE')).toEqual([]);
    // The token in the delivery serves follow-ups, as for the gateway.
    const f = await call(srv.url, 'POST', `/interactions/${delivered.json.token}/followups`, { body: { content: 'later' } });
    expect(f.status, f.text).toBe(200);
  });

  it('a deferred answer, then the edit by token', async () => {
    const w = await setup();
    endpoint.answer = (_r, res) => json(res, { type: 'deferred' });
    const r = await ping(w);
    const placeholder = await w.memberGw.waitForEvent('MESSAGE_CREATE', (d) => d.interaction?.id === r.body.id);
    expect(placeholder.d.loading).toBe(true);
    const token = endpoint.received[1]!.json.token;
    const e = await call(srv.url, 'PATCH', `/interactions/${token}/messages/original`, { body: { content: 'thought about it' } });
    expect(e.status, e.text).toBe(200);
    await w.memberGw.waitForEvent('MESSAGE_UPDATE', (d) => d.id === placeholder.d.id && d.content === 'thought about it' && !d.loading);
  });

  it.each([
    ['an error status', (res: http.ServerResponse) => json(res, {}, 500)],
    ['a body that is no callback', (res: http.ServerResponse) => json(res, { type: 'pong' })],
    [
      'a redirect',
      (res: http.ServerResponse) => {
        res.writeHead(302, { location: '/elsewhere' });
        res.end();
      },
    ],
  ])('an endpoint answering %s fails the interaction for the invoker, and nothing is posted', async (_, answer) => {
    const w = await setup();
    endpoint.answer = (_r, res) => answer(res);
    const r = await ping(w);
    const failed = await w.memberGw.waitForEvent('INTERACTION_FAILED', (d) => d.id === r.body.id);
    expect(failed.d.reason).toBe('unreachable');
    expect((await call(srv.url, 'GET', `/channels/${w.channel.id}/messages`, { auth: w.member.auth })).body).toEqual([]);
    expect(endpoint.received.map((x) => x.path)).toEqual(['/interactions', '/interactions']);
  });

  it("autocomplete: the endpoint's choices are the answer", async () => {
    const w = await setup();
    await call(srv.url, 'PUT', `/bots/${w.bot.id}/commands`, {
      auth: w.bot.auth,
      body: [{ name: 'pick', description: 'Pick', options: [{ type: 'string', name: 'fruit', description: 'Which', autocomplete: true }] }],
    });
    endpoint.answer = (r, res) =>
      json(res, { type: 'autocomplete', data: { choices: [{ name: `${r.json.options.fruit}ple`, value: 'apple' }] } });
    const r = await call(srv.url, 'POST', `/channels/${w.channel.id}/interactions`, {
      auth: w.member.auth,
      body: { type: 'autocomplete', botId: w.bot.id, name: 'pick', options: { fruit: 'ap' }, focused: 'fruit' },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body.choices).toEqual([{ name: 'apple', value: 'apple' }]);
    expect(endpoint.received[1]!.signatureValid).toBe(true);
  });
});
