/**
 * The error-code catalog (src/errors.ts): documented in docs/api.md code by code, and
 * what representative requests over HTTP actually answer. `srv` runs with
 * RATE_LIMITS=off, `limited` with the defaults.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CATALOG, ERROR_CODES, codeForStatus, errorStatus } from '../../src/errors.js';
import { call, createServer, joinServer, registerUser, world } from '../factories.js';
import { type TestServer, startServer } from '../harness.js';
import { UNKNOWN_ID, expectError, expectRateLimited } from './assert.js';

/** The `| \`code\` | status | meaning |` rows of the catalog table in docs/api.md. */
function documentedCodes(): Map<string, number> {
  const doc = fs.readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');
  const rows = new Map<string, number>();
  for (const m of doc.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \| (.+) \|$/gm)) rows.set(m[1]!, Number(m[2]));
  return rows;
}

describe('the catalog', () => {
  it('documents every code with its status in docs/api.md, and no code the service lacks', () => {
    const documented = documentedCodes();
    for (const code of ERROR_CODES) expect(documented.get(code), `docs/api.md row for ${code}`).toBe(ERROR_CATALOG[code].status);
    expect([...documented.keys()].sort()).toEqual([...ERROR_CODES].sort());
  });

  it('names codes in snake_case and gives each an error status', () => {
    for (const code of ERROR_CODES) {
      expect(code).toMatch(/^[a-z]+(_[a-z]+)*$/);
      expect(errorStatus(code)).toBeGreaterThanOrEqual(400);
      expect(errorStatus(code)).toBeLessThan(600);
    }
  });

  it('maps a bare status to a code of that status, or to bad_request / internal_error', () => {
    for (const status of [400, 401, 404, 405, 408, 413, 415, 417, 429, 431, 500, 503])
      expect(errorStatus(codeForStatus(status))).toBe(status);
    expect(codeForStatus(418)).toBe('bad_request');
    expect(codeForStatus(502)).toBe('internal_error');
  });
});

describe('codes over HTTP', () => {
  let srv: TestServer;
  let limited: TestServer;
  let w: Awaited<ReturnType<typeof world>>;

  beforeAll(async () => {
    [srv, limited] = await Promise.all([startServer({ env: { RATE_LIMITS: 'off' } }), startServer()]);
    w = await world(srv.url, ['SEND_MESSAGES']);
  });
  afterAll(async () => {
    await Promise.all([srv?.close(), limited?.close()]);
  });

  it('an unknown channel: 404 unknown_channel', async () => {
    expectError(await call(srv.url, 'GET', `/channels/${UNKNOWN_ID}/messages`, { auth: w.owner.auth }), 404, 'unknown_channel');
    expectError(
      await call(srv.url, 'POST', `/channels/${UNKNOWN_ID}/messages`, { auth: w.bot.auth, body: { content: 'x' } }),
      404,
      'unknown_channel',
    );
  });

  it('other unknown things get their own unknown_* code', async () => {
    expectError(await call(srv.url, 'GET', `/servers/${UNKNOWN_ID}`, { auth: w.owner.auth }), 404, 'unknown_server');
    expectError(
      await call(srv.url, 'GET', `/channels/${w.channel.id}/messages/${UNKNOWN_ID}`, { auth: w.owner.auth }),
      404,
      'unknown_message',
    );
    expectError(await call(srv.url, 'POST', '/invites/nope', { auth: w.owner.auth }), 404, 'unknown_invite');
    expectError(await call(srv.url, 'GET', '/no/such/route', { auth: w.owner.auth }), 404, 'unknown_route');
  });

  it('a bot without READ_MESSAGES: 403 missing_permission, naming the missing bit', async () => {
    expectError(
      await call(srv.url, 'GET', `/channels/${w.channel.id}/messages`, { auth: w.bot.auth }),
      403,
      'missing_permission',
      /READ_MESSAGE_HISTORY/,
    );
  });

  it('a non-member: 403 not_a_member; a member where only the owner may act: 403 owner_only; without a permission: 403 missing_permission', async () => {
    const stranger = await registerUser(srv.url);
    expectError(await call(srv.url, 'GET', `/servers/${w.server.id}/channels`, { auth: stranger.auth }), 403, 'not_a_member');
    const { server } = await createServer(srv.url, stranger, 'elsewhere');
    expectError(await call(srv.url, 'GET', `/servers/${server.id}/members`, { auth: w.bot.auth }), 403, 'not_a_member');
    const member = await registerUser(srv.url);
    await joinServer(srv.url, w.owner, member, w.server.id);
    expectError(await call(srv.url, 'DELETE', `/servers/${w.server.id}`, { auth: member.auth }), 403, 'owner_only');
    expectError(
      await call(srv.url, 'POST', `/servers/${w.server.id}/channels`, { auth: member.auth, body: { name: 'mine' } }),
      403,
      'missing_permission',
      /MANAGE_CHANNELS/,
    );
  });

  it('credentials: 401 unauthorized; a bot on a people-only route: 403 users_only', async () => {
    expectError(await call(srv.url, 'GET', '/users/@me'), 401, 'unauthorized');
    expectError(await call(srv.url, 'GET', '/users/@me', { auth: 'Bot 1.nope' }), 401, 'unauthorized');
    expectError(await call(srv.url, 'POST', '/bots', { auth: w.bot.auth, body: { name: 'x' } }), 403, 'users_only');
  });

  it('malformed JSON: 400 invalid_json; a schema violation: 400 invalid_body; a bad query: 400 invalid_query', async () => {
    const json = { 'content-type': 'application/json' };
    expectError(await call(srv.url, 'POST', '/servers', { auth: w.owner.auth, raw: '{"name": ', headers: json }), 400, 'invalid_json');
    expectError(await call(srv.url, 'POST', '/servers', { auth: w.owner.auth, body: { name: 42 } }), 400, 'invalid_body', /name/);
    expectError(await call(srv.url, 'POST', '/servers', { auth: w.owner.auth, body: {} }), 400, 'invalid_body', /name/);
    expectError(
      await call(srv.url, 'POST', `/channels/${w.channel.id}/messages`, { auth: w.bot.auth, body: { content: '   ' } }),
      400,
      'invalid_body',
    );
    expectError(await call(srv.url, 'GET', `/channels/${w.channel.id}/messages?limit=0`, { auth: w.owner.auth }), 400, 'invalid_query');
    const deep = '['.repeat(200) + ']'.repeat(200);
    expectError(await call(srv.url, 'POST', '/servers', { auth: w.owner.auth, raw: deep, headers: json }), 400, 'json_too_deep');
  });

  it('a wrong method: 405 method_not_allowed', async () => {
    const r = await call(srv.url, 'PUT', `/channels/${w.channel.id}/messages`, { auth: w.owner.auth });
    expectError(r, 405, 'method_not_allowed');
    expect(r.headers.get('allow')).toBeTruthy();
  });

  it('clashes: 409 username_taken and bot_already_member', async () => {
    expectError(
      await call(srv.url, 'POST', '/auth/register', { body: { username: w.owner.name, password: 'another long passphrase' } }),
      409,
      'username_taken',
    );
    expectError(
      await call(srv.url, 'POST', `/servers/${w.server.id}/bots`, { auth: w.owner.auth, body: { botId: w.bot.id } }),
      409,
      'bot_already_member',
    );
  });

  it('past a rate limit: 429 rate_limited with retryAfter', async () => {
    const lw = await world(limited.url);
    for (let i = 1; i <= 10; i++) {
      const r = await call(limited.url, 'POST', `/channels/${lw.channel.id}/messages`, { auth: lw.bot.auth, body: { content: `m${i}` } });
      expect(r.status, r.text).toBe(201);
    }
    const r = await call(limited.url, 'POST', `/channels/${lw.channel.id}/messages`, {
      auth: lw.bot.auth,
      body: { content: 'one too many' },
    });
    expectRateLimited(r, 10, 5);
  });
});
