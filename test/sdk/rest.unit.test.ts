// The SDK's REST client against a scripted HTTP server: headers, encoding, error
// mapping and rate-limit handling in cases the real server rarely produces on cue.
// rest.test.ts covers the real server.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  API_ERROR_CODES,
  BadRequestError,
  ForbiddenError,
  NetworkError,
  NotFoundError,
  ParleyApiError,
  PayloadTooLargeError,
  RateLimitError,
  RestClient,
  UnauthorizedError,
  type RateLimitInfo,
} from '@parley/sdk';
import { ERROR_CODES } from '../../src/errors.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  at: number;
}

type Handler = (req: Seen, res: ServerResponse) => void;

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

async function serve(handler: Handler): Promise<{ baseUrl: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const entry = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      seen.push(entry);
      handler(entry, res);
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { baseUrl: `http://127.0.0.1:${port}/`, seen };
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(JSON.stringify(body));
}

describe('RestClient (scripted server)', () => {
  it('sends the bot token, JSON bodies, idempotency keys and encoded emoji', async () => {
    const { baseUrl, seen } = await serve((req, res) => {
      if (req.method === 'PUT') return json(res, 200, { emoji: '👍', count: 1, me: true });
      if (req.url.endsWith('/typing')) {
        res.writeHead(204);
        return res.end();
      }
      json(res, req.method === 'POST' ? 201 : 200, { id: 'm1', content: 'hi' });
    });
    const rest = new RestClient({ baseUrl, token: 'secret' });

    await rest.sendMessage('c1', 'hi', { idempotencyKey: 'k-1' });
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/channels/c1/messages', body: '{"content":"hi"}' });
    expect(seen[0]?.headers.authorization).toBe('Bot secret');
    expect(seen[0]?.headers['content-type']).toBe('application/json');
    expect(seen[0]?.headers['idempotency-key']).toBe('k-1');
    expect(seen[0]?.headers['user-agent']).toMatch(/^ParleyBot/);

    expect(await rest.toggleReaction('c1', 'm1', '👍')).toEqual({ emoji: '👍', count: 1, me: true });
    expect(seen[1]?.url).toBe(`/channels/c1/messages/m1/reactions/${encodeURIComponent('👍')}`);
    expect(seen[1]?.headers['content-type']).toBeUndefined(); // no body, no JSON content type

    await expect(rest.typing('c1')).resolves.toBeUndefined();
    await rest.getMessages('c1', { limit: 10, before: 'm9' });
    expect(seen[3]?.url).toBe('/channels/c1/messages?limit=10&before=m9');
  });

  it('uploads multipart/form-data with the field "file"', async () => {
    const { baseUrl, seen } = await serve((_req, res) =>
      json(res, 200, { url: 'http://x/uploads/a/notes.txt', filename: 'notes.txt', size: 5, contentType: 'text/plain' }),
    );
    const rest = new RestClient({ baseUrl, token: 't' });
    const result = await rest.upload(Buffer.from('hello'), 'notes.txt', 'text/plain');
    expect(result.filename).toBe('notes.txt');
    expect(seen[0]?.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(seen[0]?.body).toContain('name="file"; filename="notes.txt"');
    expect(seen[0]?.body).toContain('Content-Type: text/plain');
    expect(seen[0]?.body).toContain('hello');
  });

  it('maps error statuses to typed errors carrying the server message', async () => {
    const statuses = [400, 401, 403, 404, 413, 500];
    const { baseUrl } = await serve((req, res) => json(res, Number(req.url.split('/')[2]), { error: `status ${req.url.split('/')[2]}` }));
    const rest = new RestClient({ baseUrl, token: 't' });
    const classes = [BadRequestError, UnauthorizedError, ForbiddenError, NotFoundError, PayloadTooLargeError, ParleyApiError];
    const codes = ['bad_request', 'unauthorized', 'forbidden', 'not_found', 'payload_too_large', 'server_error'];
    for (const [i, status] of statuses.entries()) {
      const error = await rest.getMessage(String(status), 'm').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(classes[i]);
      expect(error).toBeInstanceOf(ParleyApiError);
      expect(error).toMatchObject({ status, code: codes[i], message: `status ${status}`, request: { method: 'GET' } });
    }
  });

  it("surfaces the server's error code, falling back to the status for codes it does not know", async () => {
    const bodies: Record<string, unknown> = {
      '/channels/known/messages/m': { error: 'channel not found', code: 'unknown_channel' },
      '/channels/newer/messages/m': { error: 'from the future', code: 'some_code_from_a_newer_server' },
      '/channels/typed/messages/m': { error: 'odd', code: 42 },
    };
    const { baseUrl } = await serve((req, res) => json(res, 404, bodies[req.url]));
    const rest = new RestClient({ baseUrl, token: 't' });
    const known = await rest.getMessage('known', 'm').catch((e: unknown) => e);
    expect(known).toBeInstanceOf(NotFoundError);
    expect(known).toMatchObject({ status: 404, code: 'unknown_channel', message: 'channel not found' });
    await expect(rest.getMessage('newer', 'm')).rejects.toMatchObject({ code: 'not_found', body: bodies['/channels/newer/messages/m'] });
    await expect(rest.getMessage('typed', 'm')).rejects.toMatchObject({ code: 'not_found' });
  });

  it("knows exactly the server's catalog of codes", () => {
    expect([...API_ERROR_CODES].sort()).toEqual([...ERROR_CODES].sort());
  });

  it('retries a 429 after Retry-After, then succeeds', async () => {
    let calls = 0;
    const { baseUrl, seen } = await serve((_req, res) => {
      calls++;
      if (calls === 1) return json(res, 429, { error: 'slow down', retryAfter: 0.3 }, { 'retry-after': '0.3' });
      json(res, 201, { id: 'm1' });
    });
    const waits: RateLimitInfo[] = [];
    const rest = new RestClient({ baseUrl, token: 't', onRateLimit: (info) => waits.push(info) });
    await expect(rest.sendMessage('c1', 'x')).resolves.toEqual({ id: 'm1' });
    expect(seen).toHaveLength(2);
    expect(seen[1]!.at - seen[0]!.at).toBeGreaterThanOrEqual(290);
    expect(waits[0]).toMatchObject({ reason: '429', waitMs: 300, retry: 1 });
  });

  it('falls back to the body retryAfter, then X-RateLimit-Reset-After', async () => {
    let calls = 0;
    const { baseUrl, seen } = await serve((_req, res) => {
      calls++;
      if (calls === 1) return json(res, 429, { error: 'slow', retryAfter: 0.2 });
      if (calls === 2) return json(res, 429, { error: 'slow' }, { 'x-ratelimit-reset-after': '0.1' });
      json(res, 200, []);
    });
    const waits: number[] = [];
    const rest = new RestClient({ baseUrl, token: 't', onRateLimit: (info) => waits.push(info.waitMs) });
    await rest.servers();
    expect(seen).toHaveLength(3);
    expect(waits).toEqual([200, 100]);
  });

  it('gives up with RateLimitError after maxRetries, or at once when the wait is too long', async () => {
    const { baseUrl, seen } = await serve((_req, res) => json(res, 429, { error: 'nope', retryAfter: 0.05 }, { 'retry-after': '0.05' }));
    const rest = new RestClient({ baseUrl, token: 't', maxRetries: 2 });
    const error = await rest.typing('c1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfter).toBe(0.05);
    expect(seen).toHaveLength(3);

    const impatient = new RestClient({ baseUrl, token: 't', maxRateLimitWaitMs: 10 });
    await expect(impatient.typing('c2')).rejects.toBeInstanceOf(RateLimitError);
    expect(seen).toHaveLength(4);
  });

  it('holds requests back while a bucket has no remaining requests', async () => {
    let calls = 0;
    const { baseUrl, seen } = await serve((_req, res) => {
      calls++;
      const remaining = calls === 1 ? '0' : '5';
      res.writeHead(204, { 'x-ratelimit-limit': '1', 'x-ratelimit-remaining': remaining, 'x-ratelimit-reset-after': '0.25' });
      res.end();
    });
    const waits: RateLimitInfo[] = [];
    const rest = new RestClient({ baseUrl, token: 't', onRateLimit: (info) => waits.push(info) });
    await Promise.all([rest.typing('c1'), rest.typing('c1'), rest.typing('c2')]);
    const [first, second, third] = [
      seen.find((s) => s.url === '/channels/c1/typing')!,
      seen.filter((s) => s.url === '/channels/c1/typing')[1]!,
      seen.find((s) => s.url === '/channels/c2/typing')!,
    ];
    expect(second.at - first.at).toBeGreaterThanOrEqual(200); // same bucket: waited for the reset
    expect(third.at - first.at).toBeLessThan(200); // another channel is another bucket
    expect(waits.filter((w) => w.reason === 'bucket')).toHaveLength(1);
    expect(waits[0]?.bucket).toBe('typing c1');
  });

  it('sends requests of one bucket in order', async () => {
    const { baseUrl, seen } = await serve((req, res) => {
      // Answer the first request slowly: the second must still not overtake it.
      setTimeout(() => json(res, 201, { id: req.body }), seen.length === 1 ? 100 : 0);
    });
    const rest = new RestClient({ baseUrl, token: 't' });
    await Promise.all(['a', 'b', 'c'].map((content) => rest.sendMessage('c1', content)));
    expect(seen.map((s) => JSON.parse(s.body).content)).toEqual(['a', 'b', 'c']);
  });
});

describe('RestClient options the web client uses', () => {
  it('reads a token function before each request, sending none while it answers null; no User-Agent when told', async () => {
    const { baseUrl, seen } = await serve((_req, res) => json(res, 200, {}));
    let token: string | null = null;
    const rest = new RestClient({ baseUrl, token: () => token, tokenType: 'Bearer', userAgent: false });
    await rest.request('GET', '/users/@me');
    token = 'session-1';
    await rest.request('GET', '/users/@me');
    expect(seen[0]?.headers.authorization).toBeUndefined();
    expect(seen[1]?.headers.authorization).toBe('Bearer session-1');
    expect(seen[1]?.headers['user-agent']).not.toMatch(/ParleyBot/);
    expect(rest.authorization).toBe('Bearer session-1');
  });

  it('a request with maxRetries 0 gives up on its first 429; onWait is told of each wait', async () => {
    let calls = 0;
    const { baseUrl } = await serve((_req, res) => {
      calls++;
      if (calls === 1) return json(res, 429, { error: 'rate limited', retryAfter: 0.05 }, { 'retry-after': '0.05' });
      json(res, 200, { ok: true });
    });
    const rest = new RestClient({ baseUrl, token: 't' });
    const refused = await rest.request('POST', '/channels/c1/typing', { maxRetries: 0 }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RateLimitError);
    const waits: [number, string][] = [];
    calls = 0;
    const answer = await rest.request('POST', '/channels/c2/typing', { onWait: (ms, reason) => waits.push([ms, reason]) });
    expect(answer).toEqual({ ok: true });
    expect(waits).toEqual([[50, '429']]);
  });

  it('no answer at all: offlineRetries tries again after growing pauses, then a NetworkError (a TypeError)', async () => {
    // A port nothing listens on: the connection is refused.
    const { baseUrl } = await serve((_req, res) => json(res, 200, {}));
    await new Promise<void>((resolve) => server!.close(() => resolve()));
    server = undefined;
    const rest = new RestClient({ baseUrl, token: 't', timeoutMs: 0 });
    const waits: [number, string][] = [];
    const err = await rest
      .request('GET', '/users/@me', { offlineRetries: 1, onWait: (ms, reason) => waits.push([ms, reason]) })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect(err).toBeInstanceOf(TypeError);
    expect((err as NetworkError).request).toEqual({ method: 'GET', path: '/users/@me' });
    expect(waits).toEqual([[1000, 'offline']]);
  });
});
