/**
 * Secrets never reach the logs, at any level: a server at LOG_LEVEL=trace writes to a
 * captured stream while tokens travel in every URL form that reaches it (encoded,
 * doubled slashes, foreign prefixes, query strings, unroutable and malformed paths) and
 * in Authorization and Cookie headers, multipart uploads included.
 */
import fs from 'node:fs';
import { sql } from 'kysely';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { REDACTED, redactLogLine, redactSecrets } from '../../src/http/log-redaction.js';
import { type Res, call, createWebhook, upload, world } from '../factories.js';
import { exchange } from './raw-http.js';
import { TestGatewayClient } from '../gateway/client.js';
import { hashToken } from '../../src/crypto.js';

let app: App;
let url: string;
let dataDir: string;
const lines: string[] = [];

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-logs-'));
  // Port 0: the system assigns one as we bind (no free-port race); PUBLIC_URL follows it.
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    PUBLIC_URL: 'http://127.0.0.1:0',
    LOG_LEVEL: 'trace',
    RATE_LIMITS: 'off',
  });
  app = await buildApp(config, { logDestination: { write: (line: string) => lines.push(line) } });
  await app.app.listen({ port: 0, host: '127.0.0.1' });
  url = app.ctx.publicUrl;
});
afterAll(async () => {
  await app?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** Every character percent-encoded, as a client may send a path parameter. */
const encodeAll = (s: string) => [...Buffer.from(s)].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');

describe('log redaction', () => {
  it('no token appears in the trace log or in any answer, whatever the URL form', async () => {
    const w = await world(url);
    const hook = await createWebhook(url, w.owner, w.server.id, w.channel.id);
    const botSecret = w.bot.token.split('.')[1]!;
    const userSecret = w.owner.token.split('.')[1]!;
    const cookieValue = 'sessioncookievalue';
    const start = lines.length;

    const answers: Res[] = [];
    const send = async (method: string, p: string, opts: Parameters<typeof call>[3] = {}) => {
      answers.push(await call(url, method, p, opts));
    };
    const body = { content: 'hello' };
    await send('POST', `/%77ebhooks/${hook.id}/${hook.token}`, { body });
    await send('POST', `//webhooks/${hook.id}/${hook.token}`, { body });
    await send('POST', `/api/v10/webhooks/${hook.id}/${hook.token}`, { body });
    await send('POST', `/webhooks/${hook.id}/${hook.token}/unknown-dialect`, { body });
    await send('POST', `/webhooks/${hook.id}/${hook.token}?wait=true`, { body });
    await send('POST', `/webhooks/${hook.id}/${encodeAll(hook.token)}`, { body });
    await send('POST', `/webhooks/${hook.id}/${hook.token.slice(0, 10)}${encodeAll(hook.token.slice(10, 20))}${hook.token.slice(20)}`, {
      body,
    });
    await send('GET', `/webhooks/${hook.id}/${hook.token}/%E0%A4%A`);
    await send('PUT', `/webhooks/${hook.id}/${hook.token}`);
    await send('GET', `/users/@me?token=${w.owner.token}`, { auth: w.owner.auth, headers: { cookie: `sid=${cookieValue}` } });
    await send('GET', `/channels/${w.bot.token}${'x'.repeat(300)}`, { auth: w.bot.auth });

    // A request Node's parser refuses: the error carries the raw bytes, headers included.
    const refused = await exchange(
      url,
      `GET /users/@me HTTP/1.1\r\nHost: x\r\nAuthorization: ${w.bot.auth}\r\nBad Header: x\r\n\r\n`,
      5000,
    );
    expect(refused.text).toMatch(/^HTTP\/1\.1 400/);

    const form = new FormData();
    form.append('file', new Blob(['bytes']), 'a.txt');
    await send('POST', '/upload', { auth: w.bot.auth, raw: form, headers: { cookie: `sid=${cookieValue}` } });

    // The requests did what they should: Fastify decodes `%77ebhooks` and encoded tokens, so those posted;
    // `/api/v10/webhooks/…` is the Discord layer's execute (204, as Discord answers).
    expect(answers.map((a) => a.status)).toEqual([200, 404, 204, 404, 200, 200, 200, 400, 405, 200, 400, 200]);

    const log = lines.slice(start).join('');
    // The log really is at trace: multipart's busboy options (with the request headers) are in it.
    expect(log).toContain('Providing options to busboy');
    expect(log).toContain('client error');
    expect(log).toContain(REDACTED);
    for (const secret of [hook.token, botSecret, userSecret, encodeAll(hook.token), cookieValue]) {
      expect(log).not.toContain(secret);
      expect(log).not.toContain(secret.slice(0, 24));
      for (const a of answers.slice(0, -3)) expect(a.text).not.toContain(secret);
    }
    // Ids are not secrets: they stay for debugging.
    expect(log).toContain(hook.id);
    expect(log).toContain(w.bot.id);
  });

  it("keeps interaction tokens out of the trace log and the database (only the secret's hash is stored)", async () => {
    const w = await world(url);
    await call(url, 'PUT', `/bots/${w.bot.id}/commands`, { auth: w.bot.auth, body: [{ name: 'hush', description: 'Quiet' }] });
    const gw = await TestGatewayClient.identify(`${url.replace(/^http/, 'ws')}/gateway`, w.bot.auth);
    try {
      const start = lines.length;
      const r = await call(url, 'POST', `/channels/${w.channel.id}/interactions`, {
        auth: w.owner.auth,
        body: { type: 'command', botId: w.bot.id, name: 'hush' },
      });
      const i = (await gw.waitForEvent('INTERACTION_CREATE', (d) => d.id === r.body.id)).d as { id: string; token: string };
      const secret = i.token.split('.')[1]!;
      expect((await call(url, 'POST', `/interactions/${i.id}/${i.token}/callback`, { body: { type: 'deferred' } })).status).toBe(204);
      expect((await call(url, 'PATCH', `/interactions/${i.token}/messages/original`, { body: { content: 'done' } })).status).toBe(200);
      expect((await call(url, 'POST', `/interactions/${encodeAll(i.token)}/followups`, { body: { content: 'more' } })).status).toBe(200);
      const log = lines.slice(start).join('');
      expect(log).toContain(REDACTED);
      expect(log).not.toContain(secret.slice(0, 24));
      const { rows } = await sql`select * from interactions where id = ${i.id}`.execute(app.ctx.store.db);
      const stored = JSON.stringify(rows);
      expect(stored).not.toContain(secret);
      expect(stored).toContain(hashToken(secret));
    } finally {
      await gw.close();
    }
  });

  it("keeps upload URLs' secrets out of the trace log (contract section 15)", async () => {
    const w = await world(url);
    const start = lines.length;
    const up = await upload(url, w.owner.auth, 'private bytes', 'p.txt', 'text/plain');
    const secret = new URL(up.body.url).pathname.split('/')[3]!;
    expect(secret).toHaveLength(43);
    expect((await fetch(up.body.url)).status).toBe(200);
    expect((await fetch(`${url}/uploads/${new URL(up.body.url).pathname.split('/')[2]}/${secret}/wrong.txt`)).status).toBe(404);
    const logged = lines.slice(start).join('');
    expect(logged).toContain('/uploads/');
    expect(logged).not.toContain(secret);
  });

  it('redacts a token in an error logged by the service itself', () => {
    const token = 'AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_AbCdE';
    app.app.log.error(
      { err: new Error(`failed for /webhooks/1/${token}`), nested: { deeper: { Authorization: 'Basic dXNlcjpwYXNz' } } },
      `retry ${token}`,
    );
    const line = lines.at(-1)!;
    expect(line).not.toContain(token);
    expect(line).not.toContain('dXNlcjpwYXNz');
    expect(JSON.parse(line).nested.deeper.Authorization).toBe(REDACTED);

    // A Buffer is written as its bytes in numbers, which the text scrubbing cannot read.
    app.app.log.error({ packet: Buffer.from(`Authorization: Bot x.${token}`) }, 'raw bytes');
    expect(JSON.parse(lines.at(-1)!).packet).toBe(REDACTED);
  });
});

describe('the scrubber', () => {
  const secret = 'Q2xhdWRlIHdhcyBoZXJlIGFuZCBsZWZ0IGEgdG9rZW4';

  it('replaces base64url runs of 32 or more characters, literal or percent-encoded', () => {
    expect(redactSecrets(`/webhooks/01ARZ3NDEKTSV4RRFFQ69G5FAV/${secret}`)).toBe(`/webhooks/01ARZ3NDEKTSV4RRFFQ69G5FAV/${REDACTED}`);
    expect(redactSecrets(`Bot 01ARZ3NDEKTSV4RRFFQ69G5FAV.${secret}`)).toBe(`Bot 01ARZ3NDEKTSV4RRFFQ69G5FAV.${REDACTED}`);
    expect(redactSecrets(`/x/${encodeAll(secret)}`)).toBe(`/x/${REDACTED}`);
    expect(redactSecrets(`/x/${secret.slice(0, 5)}%2d${secret.slice(5)}`)).toBe(`/x/${REDACTED}`);
    // Snowflake-style numeric ids are left alone; the secret beside them is not.
    expect(redactSecrets(`/webhooks/1234567890123456789/${secret}?a=b`)).toBe(`/webhooks/1234567890123456789/${REDACTED}?a=b`);
  });

  it('keeps what is not a secret: ULIDs, short values, single-case identifiers, host names', () => {
    for (const keep of [
      '01ARZ3NDEKTSV4RRFFQ69G5FAV',
      'FST_ERR_ROUTE_BODY_VALIDATION_SCHEMA_NOT_SUPPORTED',
      'parley-deployment-production-7d9f8b6c5d-x2k9p',
      'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
      'AbCdEfGhIjKlMnOpQrStUvWxYz01234', // 31 characters
    ]) {
      expect(redactSecrets(keep)).toBe(keep);
    }
  });

  it('blanks credential headers by name, whatever their value, in any object of a line', () => {
    const line = JSON.stringify({
      req: { headers: { authorization: 'Basic dXNlcjpwYXNz', Cookie: 'a=b; c="d"', host: 'x' } },
      res: { headers: { 'set-cookie': ['a=1', 'b="2\\"x"'] } },
      'proxy-authorization': 'Digest x',
    });
    const scrubbed = JSON.parse(redactLogLine(line));
    expect(scrubbed.req.headers).toEqual({ authorization: REDACTED, Cookie: REDACTED, host: 'x' });
    expect(scrubbed.res.headers['set-cookie']).toBe(REDACTED);
    expect(scrubbed['proxy-authorization']).toBe(REDACTED);
  });
});
