/**
 * Answers are JSON whatever goes wrong, and only browsers get HTML: deep JSON is a 400
 * (not a 500), unknown paths a JSON 404, wrong methods a 405 with Allow, over-long path
 * segments a 400, and what Node's parser refuses a JSON 4xx. The web client is served
 * to browser navigations with a CSP that connects to the service's own origin only.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, jsonTooDeep } from '../../src/json-depth.js';
import { contentSecurityPolicy } from '../../src/http/routes/web-client.js';
import { call, createWebhook, postMessage, world } from '../factories.js';
import { type TestServer, startServer } from '../harness.js';
import type { ErrorCode } from '../../src/errors.js';
import { UNKNOWN_ID, expectCatalogCode, expectError } from './assert.js';
import { exchange, parseResponse } from './raw-http.js';

let srv: TestServer;
let webDir: string;
let w: Awaited<ReturnType<typeof world>>;
let hook: Awaited<ReturnType<typeof createWebhook>>;
let hookPath: string;

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const INDEX = '<!doctype html><title>Parley test client</title>';

beforeAll(async () => {
  // A web client of our own, so the suite does not depend on web/dist being built.
  webDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-web-'));
  fs.writeFileSync(path.join(webDir, 'index.html'), INDEX);
  fs.mkdirSync(path.join(webDir, 'assets'));
  fs.writeFileSync(path.join(webDir, 'assets', 'app-1234.js'), 'console.log(1)');
  srv = await startServer({ env: { RATE_LIMITS: 'off', WEB_DIR: webDir } });
  w = await world(srv.url);
  hook = await createWebhook(srv.url, w.owner, w.server.id, w.channel.id);
  hookPath = new URL(hook.url).pathname;
});
afterAll(async () => {
  await srv?.close();
  fs.rmSync(webDir, { recursive: true, force: true });
});

const nested = (depth: number, leaf = '1') => '['.repeat(depth) + leaf + ']'.repeat(depth);
const json = { 'content-type': 'application/json' };

describe('deep JSON', () => {
  it('a 5,000-deep body with an Idempotency-Key is a 400 on every message-creating route, not a 500', async () => {
    const raw = `{"content":"x","embeds":${nested(5000)}}`;
    const headers = { ...json, 'idempotency-key': 'deep-1' };
    const targets: Array<[string, string | undefined]> = [
      [hookPath, undefined],
      [`${hookPath}/slack`, undefined],
      [`${hookPath}/github`, undefined],
      [`/channels/${w.channel.id}/messages`, w.bot.auth],
      [`/channels/${w.channel.id}/messages`, w.owner.auth],
    ];
    for (const [p, auth] of targets) {
      const r = await call(srv.url, 'POST', p, { raw, headers: { ...headers, 'x-github-event': 'push' }, ...(auth ? { auth } : {}) });
      expectError(r, 400, /nested more than 64 levels/);
    }
  });

  it('the limit is exactly 64: one level more is refused, 64 levels reach the route', async () => {
    const at = await call(srv.url, 'POST', `/channels/${w.channel.id}/messages`, {
      auth: w.bot.auth,
      raw: `{"content":"x","embeds":${nested(MAX_JSON_DEPTH - 1)}}`,
      headers: json,
    });
    // Whatever the route makes of the shape, the body was parsed and reached it.
    expect(at.status, at.text).toBeLessThan(500);
    expect(at.text).not.toMatch(/nested/);
    const over = await call(srv.url, 'POST', `/channels/${w.channel.id}/messages`, {
      auth: w.bot.auth,
      raw: `{"content":"x","embeds":${nested(MAX_JSON_DEPTH)}}`,
      headers: json,
    });
    expectError(over, 400, /nested/);
  });

  it('brackets inside strings do not count', async () => {
    const content = `${'['.repeat(500)}{{{"\\"[`;
    const m = await postMessage(srv.url, w.bot.auth, w.channel.id, content);
    expect(m.content).toBe(content);
  });

  it('payload_json and payload= fields have the same limit', async () => {
    const deep = `{"text":"x","attachments":${nested(5000)}}`;
    const form = new FormData();
    form.append('payload_json', `{"content":"x","embeds":${nested(5000)}}`);
    const multipart = await call(srv.url, 'POST', hookPath, { raw: form, headers: { 'idempotency-key': 'deep-2' } });
    expectError(multipart, 400, /payload_json is nested/);

    const urlencoded = { 'content-type': 'application/x-www-form-urlencoded', 'idempotency-key': 'deep-3' };
    const discordForm = await call(srv.url, 'POST', hookPath, {
      raw: new URLSearchParams({ payload_json: deep }).toString(),
      headers: urlencoded,
    });
    expectError(discordForm, 400, /payload_json is nested/);
    const slack = await call(srv.url, 'POST', `${hookPath}/slack`, {
      raw: new URLSearchParams({ payload: deep }).toString(),
      headers: urlencoded,
    });
    expectError(slack, 400, /payload is nested/);
    const github = await call(srv.url, 'POST', `${hookPath}/github`, {
      raw: new URLSearchParams({ payload: deep }).toString(),
      headers: { ...urlencoded, 'x-github-event': 'push' },
    });
    expectError(github, 400, /payload is nested/);
  });

  it("Fastify's own JSON answers are kept: malformed is 'not valid JSON', an empty body on a bodiless route is fine", async () => {
    expectError(
      await call(srv.url, 'POST', '/servers', { auth: w.owner.auth, raw: '{"name": ', headers: json }),
      400,
      /^request body is not valid JSON$/,
    );
    expectError(
      await call(srv.url, 'POST', '/servers', { auth: w.owner.auth, raw: '{"__proto__":{"x":1},"name":"a"}', headers: json }),
      400,
    );
    const typing = await call(srv.url, 'POST', `/channels/${w.channel.id}/typing`, { auth: w.bot.auth, raw: '', headers: json });
    expect(typing.status, typing.text).toBe(204);
  });

  it('the depth scan itself', () => {
    expect(jsonTooDeep(nested(64))).toBe(false);
    expect(jsonTooDeep(nested(65))).toBe(true);
    expect(jsonTooDeep(`{"a":"${'['.repeat(100)}"}`)).toBe(false);
    expect(jsonTooDeep(`{"a":"\\"${'{'.repeat(100)}"}`)).toBe(false);
    expect(jsonTooDeep(`["\\\\",${nested(70)}]`)).toBe(true);
    expect(jsonTooDeep(nested(1_000_000))).toBe(true);
    // Objects and arrays count together (the quick count of brackets before the walk too).
    const mixed = (depth: number) => '{"a":['.repeat(depth / 2) + ']}'.repeat(depth / 2);
    expect(jsonTooDeep(mixed(64))).toBe(false);
    expect(jsonTooDeep(mixed(66))).toBe(true);
    // Many brackets, none deep: the walk decides.
    expect(jsonTooDeep(JSON.stringify(Array.from({ length: 200 }, () => ({ a: [1] }))))).toBe(false);
  });
});

describe('unknown paths and methods', () => {
  it('a bot asking for an unknown path gets a JSON 404, never the web client', async () => {
    for (const accept of [undefined, 'application/json', '*/*']) {
      const headers = accept ? { accept } : undefined;
      for (const p of ['/no/such/route', '/', '/s/123/c/456', '/login']) {
        expectError(await call(srv.url, 'GET', p, { auth: w.bot.auth, ...(headers ? { headers } : {}) }), 404);
      }
    }
  });

  it('a browser navigation to a client-side route gets index.html with the CSP', async () => {
    for (const p of ['/', '/login', '/s/123/c/456']) {
      const r = await call(srv.url, 'GET', p, { headers: { accept: BROWSER_ACCEPT } });
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toMatch(/^text\/html/);
      expect(r.text).toBe(INDEX);
      expect(r.headers.get('vary')).toMatch(/accept/i);
      expect(r.headers.get('content-security-policy')).toBe(contentSecurityPolicy(srv.url));
    }
  });

  it('a browser still gets JSON for API paths, file-like paths and non-GET methods', async () => {
    const headers = { accept: BROWSER_ACCEPT };
    expectError(await call(srv.url, 'GET', '/servers/a/b/c', { headers }), 404);
    expectError(await call(srv.url, 'GET', '/missing.js', { headers }), 404);
    expectError(await call(srv.url, 'POST', '/no/such/route', { headers }), 404);
  });

  it('static files are served to anyone', async () => {
    const r = await call(srv.url, 'GET', '/assets/app-1234.js');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(r.text).toBe('console.log(1)');
  });

  it('a wrong method on an existing path is a 405 with Allow, HEAD counted for GET routes', async () => {
    const r = await call(srv.url, 'PUT', '/servers', { auth: w.owner.auth, body: { name: 'x' } });
    expectError(r, 405);
    const allow = (r.headers.get('allow') ?? '').split(', ');
    expect(allow).toContain('POST');
    expect(allow).not.toContain('PUT');

    const health = await call(srv.url, 'DELETE', '/healthz');
    expectError(health, 405);
    expect(health.headers.get('allow')).toBe('GET, HEAD');
    expect((await call(srv.url, 'HEAD', '/healthz')).status).toBe(200);
  });

  it('every route pattern answers 405 (not 404) to a method it lacks, Allow naming its methods', async () => {
    const byUrl = new Map<string, Set<string>>();
    // Discord's routes under /api answer Discord's 405 body (test/discord/permissions.test.ts).
    for (const { method, url } of srv.app.routes) if (!url.startsWith('/api/')) byUrl.set(url, (byUrl.get(url) ?? new Set()).add(method));
    expect(byUrl.get('/healthz')).toEqual(new Set(['GET', 'HEAD']));
    expect(byUrl.get('/webhooks/:webhookId/:token')?.has('POST')).toBe(true);
    expect(byUrl.size).toBeGreaterThan(15);
    for (const [url, methods] of byUrl) {
      const concrete = url
        .replace(/:emoji/, '%F0%9F%98%80')
        .replace(/:filename/, 'f.txt')
        .replace(/:[A-Za-z]+/g, UNKNOWN_ID);
      const wrong = ['PATCH', 'PUT', 'DELETE', 'POST', 'GET'].find((m) => !methods.has(m))!;
      const r = await call(srv.url, wrong, concrete, { auth: w.owner.auth });
      expectError(r, 405);
      const allow = new Set((r.headers.get('allow') ?? '').split(', '));
      for (const m of methods) expect(allow.has(m), `${wrong} ${url}: Allow ${r.headers.get('allow')}`).toBe(true);
    }
  });

  it('404 and 405 bodies do not repeat the URL', async () => {
    const marker = 'Zq9xMarkerSegment';
    for (const [method, p] of [
      ['GET', `/no/${marker}`],
      ['POST', `${hookPath}/${marker}`],
      ['DELETE', `/webhooks/${hook.id}/${hook.token}`],
      ['GET', `/api/v10/webhooks/${hook.id}/${hook.token}/${marker}`],
      // The Discord layer refuses renaming with the token alone (403): no echo either.
      ['PATCH', `/api/v10/webhooks/${hook.id}/${hook.token}`],
    ] as const) {
      const r = await call(srv.url, method, p);
      expect(method === 'PATCH' ? [403] : [404, 405]).toContain(r.status);
      expect(r.text).not.toContain(marker);
      expect(r.text).not.toContain(hook.token);
      expect(r.text).not.toContain(hook.id);
    }
  });
});

describe('path segments over the router limit', () => {
  const base = () => `/channels/${w.channel.id}/messages/${UNKNOWN_ID}/reactions`;

  it('a 300-character reaction emoji is a 400 JSON, not a 414', async () => {
    const r = await call(srv.url, 'PUT', `${base()}/${'%F0%9F%98%80'.repeat(25)}`, { auth: w.bot.auth });
    expectError(r, 400);
  });

  it('any over-long segment is a 400 that does not echo it', async () => {
    const long = `A${'b'.repeat(400)}`;
    const r = await call(srv.url, 'GET', `/channels/${long}`, { auth: w.bot.auth });
    expectError(r, 400);
    expect(r.text).not.toContain(long);
  });

  it('a long but real emoji (a ZWJ sequence of 105 encoded characters) still reaches the route', async () => {
    const m = await postMessage(srv.url, w.bot.auth, w.channel.id, 'react to me');
    const emoji = encodeURIComponent('👩🏽‍❤️‍💋‍👨🏿');
    expect(emoji.length).toBeGreaterThan(100);
    const r = await call(srv.url, 'PUT', `/channels/${w.channel.id}/messages/${m.id}/reactions/${emoji}`, { auth: w.bot.auth });
    expect(r.status, r.text).toBe(200);
  });
});

describe("what Node's HTTP parser refuses is JSON too", () => {
  const expectJson = (text: string, status: number, code: ErrorCode) => {
    const r = parseResponse(text);
    expect(r.status, text).toBe(status);
    expect(r.headers['content-type']).toMatch(/^application\/json/);
    const body = JSON.parse(r.body) as { code?: unknown };
    expect(Object.keys(body).sort()).toEqual(['code', 'error']);
    expectCatalogCode(body.code, status);
    expect(body.code).toBe(code);
  };

  it('headers over the size limit: 431', async () => {
    const r = await exchange(srv.url, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 5000);
    expectJson(r.text, 431, 'headers_too_large');
  });

  it('a garbled request line, a bad header, conflicting framing: 400', async () => {
    for (const raw of [
      'NOT HTTP AT ALL\r\n\r\n',
      'GET /healthz HTTP/1.1\r\nHo st: x\r\n\r\n',
      'POST /servers HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello',
    ]) {
      const r = await exchange(srv.url, raw, 5000);
      expect(r.closed).toBe(true);
      expectJson(r.text, 400, 'bad_request');
    }
  });

  it('a malformed percent-encoding with a token in the path: 400 without the path', async () => {
    const r = await call(srv.url, 'GET', `/webhooks/${hook.id}/${hook.token}/%E0%A4%A`);
    expectError(r, 400);
    expect(r.text).not.toContain(hook.token);
  });
});

describe('content security policy', () => {
  it("connects to 'self' and the ws(s) form of PUBLIC_URL only", () => {
    const https = contentSecurityPolicy('https://chat.example.com');
    expect(https).toContain("connect-src 'self' wss://chat.example.com;");
    expect(contentSecurityPolicy('http://127.0.0.1:8080')).toContain("connect-src 'self' ws://127.0.0.1:8080;");
    expect(contentSecurityPolicy('https://chat.example.com:8443/parley')).toContain("connect-src 'self' wss://chat.example.com:8443;");
    for (const p of [https, contentSecurityPolicy('http://localhost:8080')]) {
      expect(p).not.toMatch(/\sws:(\s|;|$)|\swss:(\s|;|$)/);
    }
  });
});
