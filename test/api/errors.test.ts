/**
 * The error contract (docs/api.md#errors: every error is JSON `{ error, code }`;
 * no stack traces) and the
 * rate-limit headers (docs/api.md#rate-limits) over HTTP. `srv` runs with RATE_LIMITS=off, `limited`
 * with the defaults.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createWebhook, postMessage, upload, world } from '../factories.js';
import { type TestServer, startServer } from '../harness.js';
import { expectError, expectNoRateHeaders, expectRateHeaders, expectRateLimited } from './assert.js';

let srv: TestServer;
let limited: TestServer;
let w: Awaited<ReturnType<typeof world>>;
let lw: Awaited<ReturnType<typeof world>>;

beforeAll(async () => {
  [srv, limited] = await Promise.all([startServer({ env: { RATE_LIMITS: 'off' } }), startServer()]);
  [w, lw] = await Promise.all([world(srv.url), world(limited.url)]);
});
afterAll(async () => {
  await Promise.all([srv?.close(), limited?.close()]);
});

describe('error bodies', () => {
  it('unknown API routes: 404 JSON {error, code}', async () => {
    const cases: Array<[string, string]> = [
      ['POST', '/nope'],
      ['DELETE', '/nope'],
      ['GET', '/servers/a/b/c'],
      ['GET', '/channels'],
      ['POST', '/auth'],
    ];
    for (const [method, p] of cases) expectError(await call(srv.url, method, p, { auth: w.owner.auth }), 404, 'unknown_route');
  });

  it('a method an existing path lacks: 405 JSON {error, code} with Allow', async () => {
    const cases: Array<[string, string]> = [
      ['PUT', '/channels/x/messages'],
      ['PUT', '/users/@me'],
      ['GET', '/upload'],
      ['GET', '/auth/register'],
      ['PATCH', '/bots'],
    ];
    for (const [method, p] of cases) {
      const r = await call(srv.url, method, p, { auth: w.owner.auth });
      expectError(r, 405, 'method_not_allowed');
      expect(r.headers.get('allow')).toBeTruthy();
    }
  });

  it('a 404 for a path under a webhook URL does not echo the webhook token', async () => {
    const hook = await createWebhook(srv.url, w.owner, w.server.id, w.channel.id);
    const r = await call(srv.url, 'POST', `/webhooks/${hook.id}/${hook.token}/unknown-dialect`, { body: { content: 'x' } });
    expectError(r, 404);
    expect(r.text).not.toContain(hook.token);
  });

  it('a malformed URL: 400 JSON {error, code}', async () => {
    for (const p of ['/channels/%E0%A4%A/messages', '/%E0%A4%A', '/servers/%ZZ']) {
      expectError(await call(srv.url, 'GET', p, { auth: w.owner.auth }), 400, 'invalid_url');
    }
  });

  it('malformed JSON: 400 JSON {error, code} on every JSON route', async () => {
    const hook = await createWebhook(srv.url, w.owner, w.server.id, w.channel.id);
    const routes: Array<[string, string, string | undefined]> = [
      ['POST', '/auth/register', undefined],
      ['POST', '/auth/login', undefined],
      ['POST', '/servers', w.owner.auth],
      ['POST', '/bots', w.owner.auth],
      ['PATCH', `/channels/${w.channel.id}`, w.owner.auth],
      ['POST', `/channels/${w.channel.id}/messages`, w.bot.auth],
      ['POST', `/servers/${w.server.id}/webhooks`, w.owner.auth],
      ['POST', new URL(hook.url).pathname, undefined],
    ];
    for (const [method, p, auth] of routes) {
      for (const raw of ['{', '{"name": }', 'undefined']) {
        const r = await call(srv.url, method, p, { ...(auth ? { auth } : {}), raw, headers: { 'content-type': 'application/json' } });
        expectError(r, 400, /JSON/, 'invalid_json');
      }
    }
  });

  it('a JSON content type with an empty body on a route that needs a body: 400 JSON', async () => {
    const r = await call(srv.url, 'POST', '/servers', { auth: w.owner.auth, raw: '', headers: { 'content-type': 'application/json' } });
    // An empty body counts as no body (bots send the header on every call), so it is the schema that refuses.
    expectError(r, 400, 'invalid_body');
  });

  it('a body over the 1 MiB request limit: 413 JSON', async () => {
    const raw = JSON.stringify({ content: 'x'.repeat(1024 * 1024 + 10) });
    const r = await call(srv.url, 'POST', `/channels/${w.channel.id}/messages`, {
      auth: w.bot.auth,
      raw,
      headers: { 'content-type': 'application/json' },
    });
    expectError(r, 413, 'payload_too_large');
  });

  it('an unsupported content type: 415 JSON', async () => {
    const r = await call(srv.url, 'POST', `/channels/${w.channel.id}/messages`, {
      auth: w.bot.auth,
      raw: '<content>x</content>',
      headers: { 'content-type': 'application/xml' },
    });
    expectError(r, 415, 'unsupported_media_type');
  });

  it('a multipart body where only JSON is taken: 415 JSON; the routes that take files still read it', async () => {
    // Multipart is read only where a route takes files (acceptMultipart): elsewhere it is a
    // content type like any other the route does not take.
    const form = new FormData();
    form.append('content', 'hello');
    const refused = await call(srv.url, 'POST', `/channels/${w.channel.id}/messages`, { auth: w.bot.auth, raw: form });
    expectError(refused, 415, 'unsupported_media_type');
    const uploaded = await upload(srv.url, w.bot.auth, 'some bytes', 'notes.txt', 'text/plain');
    expect(uploaded.status).toBe(200);
    // Discord's message create takes files as multipart, beside payload_json.
    const discord = new FormData();
    discord.append('payload_json', JSON.stringify({ content: 'with a file' }));
    discord.append('files[0]', new Blob(['more bytes'], { type: 'text/plain' }), 'more.txt');
    const sent = await call(srv.url, 'POST', `/api/v10/channels/${w.channel.id}/messages`, { auth: w.bot.auth, raw: discord });
    expect(sent.status).toBe(200);
    expect((sent.body as { attachments: Array<{ filename: string }> }).attachments.map((a) => a.filename)).toEqual(['more.txt']);
  });

  it('401, 403, 404, 409 bodies are exactly {error, code}', async () => {
    expectError(await call(srv.url, 'GET', '/users/@me'), 401, 'unauthorized');
    expectError(await call(srv.url, 'POST', '/bots', { auth: w.bot.auth, body: { name: 'x' } }), 403, 'users_only');
    expectError(await call(srv.url, 'GET', '/servers/01ARZ3NDEKTSV4RRFFQ69G5FAV', { auth: w.owner.auth }), 404, 'unknown_server');
    expectError(
      await call(srv.url, 'POST', `/servers/${w.server.id}/bots`, { auth: w.owner.auth, body: { botId: w.bot.id } }),
      409,
      'bot_already_member',
    );
  });

  it('an unexpected failure: 500 {error, code} with nothing of the internals', async () => {
    // Take the upload directory away under the running server: storing the file fails.
    const dir = path.join(srv.dataDir, 'uploads');
    const aside = `${dir}-aside`;
    fs.renameSync(dir, aside);
    try {
      const r = await upload(srv.url, w.bot.auth, 'bytes', 'f.txt', 'text/plain');
      expectError(r, 500, 'internal_error');
      expect(r.body.error).toBe('internal server error');
      expect(r.text).not.toContain(srv.dataDir);
      expect(r.text).not.toMatch(/ENOENT|errno|syscall/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
      fs.renameSync(aside, dir);
    }
    expect((await upload(srv.url, w.bot.auth, 'bytes', 'f.txt', 'text/plain')).status).toBe(200);
  });
});

describe('contract 6: rate-limit headers', () => {
  it('send-message carries X-RateLimit-* and answers 429 past its limit', async () => {
    for (let i = 1; i <= 10; i++) {
      const r = await call(limited.url, 'POST', `/channels/${lw.channel.id}/messages`, { auth: lw.bot.auth, body: { content: `m${i}` } });
      expect(r.status, r.text).toBe(201);
      expectRateHeaders(r, 10, 10 - i, 5);
    }
    const r = await call(limited.url, 'POST', `/channels/${lw.channel.id}/messages`, {
      auth: lw.bot.auth,
      body: { content: 'one too many' },
    });
    expectRateLimited(r, 10, 5);
    const contents = (await call(limited.url, 'GET', `/channels/${lw.channel.id}/messages?limit=100`, { auth: lw.owner.auth })).body.map(
      (m: { content: string }) => m.content,
    );
    expect(contents).not.toContain('one too many');
  });

  it('typing, reactions, upload, webhook, register and management calls carry their limits', async () => {
    const m = await postMessage(limited.url, lw.owner.auth, lw.channel.id, 'target');
    expectRateHeaders(await call(limited.url, 'POST', `/channels/${lw.channel.id}/typing`, { auth: lw.owner.auth }), 15, 14, 5);
    expectRateHeaders(
      await call(limited.url, 'PUT', `/channels/${lw.channel.id}/messages/${m.id}/reactions/${encodeURIComponent('✅')}`, {
        auth: lw.owner.auth,
      }),
      20,
      19,
      5,
    );
    const up = await upload(limited.url, lw.owner.auth, 'x', 'x.txt', 'text/plain');
    expect(up.status).toBe(200);
    expectRateHeaders(up, 10, 9, 60);
    const hook = await createWebhook(limited.url, lw.owner, lw.server.id, lw.channel.id);
    const exec = await call(hook.url, 'POST', '', { body: { content: 'hi' } });
    expect(exec.status).toBe(200);
    expectRateHeaders(exec, 5, 4, 5);
    const reg = await call(limited.url, 'POST', '/auth/register', {
      body: { username: `rl_${Date.now().toString(36)}`, password: 'long enough pw' },
    });
    expect(reg.status).toBe(201);
    expect(reg.headers.get('x-ratelimit-limit')).toBe('10');
    const srvCreate = await call(limited.url, 'POST', '/servers', { auth: lw.owner.auth, body: { name: 'more' } });
    expect(srvCreate.status).toBe(201);
    expect(srvCreate.headers.get('x-ratelimit-limit')).toBe('30');
    expect(Number(srvCreate.headers.get('x-ratelimit-reset-after'))).toBeLessThanOrEqual(10);
  });

  it('RATE_LIMITS=off: no X-RateLimit-* headers and no 429, past every seed limit', async () => {
    const m = await postMessage(srv.url, w.owner.auth, w.channel.id, 'target');
    for (let i = 0; i < 20; i++) {
      const r = await call(srv.url, 'POST', `/channels/${w.channel.id}/typing`, { auth: w.bot.auth });
      expect(r.status).toBe(204);
      expectNoRateHeaders(r);
    }
    const hook = await createWebhook(srv.url, w.owner, w.server.id, w.channel.id);
    for (let i = 0; i < 8; i++) {
      const r = await call(hook.url, 'POST', '', { body: { content: `n${i}` } });
      expect(r.status).toBe(200);
      expectNoRateHeaders(r);
    }
    for (let i = 0; i < 12; i++) {
      const r = await call(srv.url, 'POST', `/channels/${w.channel.id}/messages`, { auth: w.bot.auth, body: { content: `m${i}` } });
      expect(r.status).toBe(201);
      expectNoRateHeaders(r);
    }
    for (let i = 0; i < 22; i++) {
      const r = await call(srv.url, 'PUT', `/channels/${w.channel.id}/messages/${m.id}/reactions/${encodeURIComponent('👀')}`, {
        auth: w.bot.auth,
      });
      expect(r.status).toBe(200);
      expectNoRateHeaders(r);
    }
    const up = await upload(srv.url, w.bot.auth, 'x', 'x.txt', 'text/plain');
    expectNoRateHeaders(up);
    const reg = await call(srv.url, 'POST', '/auth/register', {
      body: { username: `nr_${Date.now().toString(36)}`, password: 'long enough pw' },
    });
    expect(reg.status).toBe(201);
    expectNoRateHeaders(reg);
  });
});
