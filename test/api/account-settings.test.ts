/**
 * docs/api.md#accounts-and-the-instance over HTTP: the instance's registration mode, profile changes,
 * password changes, the session list, session expiry and account deletion.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { sweepExpiredSessions } from '../../src/domain/accounts.js';
import { sweepUnattachedUploads } from '../../src/domain/uploads.js';
import {
  type TestUser,
  call,
  createBot,
  createServer,
  createWebhook,
  joinServer,
  postMessage,
  registerUser,
  upload,
} from '../factories.js';
import { type TestServer, startServer } from '../harness.js';
import { ISO_UTC, UNKNOWN_ID, dumpDatabase, expectError, expectRateLimited } from './assert.js';
import { exchange } from './raw-http.js';

const PASSWORD = 'correct horse battery';
const NEW_PASSWORD = 'staple gun lantern 42';
/** A 1×1 PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
const DAY = 86_400_000;

let srv: TestServer;
let n = 0;
const uname = (prefix = 'acct') => `${prefix}_${Date.now().toString(36)}_${n++}`;

beforeAll(async () => {
  srv = await startServer({ env: { RATE_LIMITS: 'off' } });
});
afterAll(() => srv?.close());

const login = (base: string, username: string, password = PASSWORD, headers?: Record<string, string>) =>
  call(base, 'POST', '/auth/login', { body: { username, password }, headers });
const me = (auth: string, base = srv.url) => call(base, 'GET', '/users/@me', { auth });
const patchMe = (auth: string, body: unknown) => call(srv.url, 'PATCH', '/users/@me', { auth, body });

/** A second working session of `u`, as `Bearer <token>`. */
async function secondSession(u: TestUser, base = srv.url, password = PASSWORD): Promise<string> {
  const r = await login(base, u.name, password);
  expect(r.status, r.text).toBe(200);
  return `Bearer ${r.body.token}`;
}

/** Uploads a PNG as `auth` and returns its URL. */
async function uploadPng(auth: string, filename = 'face.png'): Promise<string> {
  const r = await upload(srv.url, auth, PNG, filename, 'image/png');
  expect(r.status, r.text).toBe(200);
  return r.body.url;
}

describe('GET /instance', () => {
  it('200 {registration: "open"} by default, without credentials', async () => {
    const r = await call(srv.url, 'GET', '/instance');
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({ registration: 'open', sessionTtlDays: 30, maxUploadBytes: 25 * 1024 * 1024, pdfPreviews: true });
  });
});

describe('PATCH /users/@me', () => {
  it('a person sets a display name: 200 the user; `name` follows it; null or "" clears it back to the username', async () => {
    const u = await registerUser(srv.url);
    const r = await patchMe(u.auth, { displayName: '  Ada Lovelace  ' });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({
      id: u.id,
      username: u.name,
      displayName: 'Ada Lovelace',
      name: 'Ada Lovelace',
      avatar: null,
      bot: false,
      createdAt: expect.stringMatching(ISO_UTC),
    });
    expect((await me(u.auth)).body).toEqual(r.body);

    const cleared = await patchMe(u.auth, { displayName: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body).toMatchObject({ displayName: null, name: u.name, username: u.name });
    await patchMe(u.auth, { displayName: 'Again' });
    const blank = await patchMe(u.auth, { displayName: '' });
    expect(blank.body).toMatchObject({ displayName: null, name: u.name });
    // An empty body changes nothing.
    const same = await patchMe(u.auth, {});
    expect(same.status).toBe(200);
    expect(same.body).toEqual(blank.body);
  });

  it('new messages and member lists show the display name; messages sent before keep the name they were sent with', async () => {
    const owner = await registerUser(srv.url);
    const u = await registerUser(srv.url);
    const { server, general } = await createServer(srv.url, owner);
    await joinServer(srv.url, owner, u, server.id);
    const before = await postMessage(srv.url, u.auth, general.id, 'as my username');
    expect((await patchMe(u.auth, { displayName: 'Grace' })).status).toBe(200);
    const after = await postMessage(srv.url, u.auth, general.id, 'as Grace');
    expect(after.author).toMatchObject({ id: u.id, name: 'Grace', bot: false });
    const old = await call(srv.url, 'GET', `/channels/${general.id}/messages/${before.id}`, { auth: owner.auth });
    expect(old.body.author.name).toBe(u.name);
    const members = await call(srv.url, 'GET', `/servers/${server.id}/members`, { auth: owner.auth });
    expect(members.body.find((m: { id: string }) => m.id === u.id).name).toBe('Grace');
  });

  it('display names lose disguising characters; 400 when nothing is left, over 32 characters, NUL, a wrong type or an unknown field', async () => {
    const u = await registerUser(srv.url);
    const r = await patchMe(u.auth, { displayName: 'admin\u202Egnp.exe\u200B' });
    expect(r.status, r.text).toBe(200);
    expect(r.body.displayName).toBe('admingnp.exe');
    expect((await patchMe(u.auth, { displayName: '🙂'.repeat(32) })).status).toBe(200);
    for (const body of [
      { displayName: '\u202E\u2066' },
      { displayName: 'x'.repeat(33) },
      { displayName: 'a\u0000b' },
      { displayName: 42 },
      { username: 'renamed' },
      { name: 'renamed' },
    ]) {
      expectError(await patchMe(u.auth, body), 400);
    }
    expect((await me(u.auth)).body).toMatchObject({ username: u.name, displayName: '🙂'.repeat(32) });
  });

  it('avatar: the URL of an image the caller uploaded; shown on the user, in member lists and on new messages; null clears it', async () => {
    const owner = await registerUser(srv.url);
    const { server, general } = await createServer(srv.url, owner);
    const url = await uploadPng(owner.auth);
    const r = await patchMe(owner.auth, { avatar: url });
    expect(r.status, r.text).toBe(200);
    expect(r.body.avatar).toBe(url);
    expect((await me(owner.auth)).body.avatar).toBe(url);
    const members = await call(srv.url, 'GET', `/servers/${server.id}/members`, { auth: owner.auth });
    expect(members.body[0]).toMatchObject({ id: owner.id, avatar: url });
    expect((await postMessage(srv.url, owner.auth, general.id, 'with a face')).author.avatar).toBe(url);
    const cleared = await patchMe(owner.auth, { avatar: null });
    expect(cleared.body.avatar).toBeNull();
  });

  it('avatar: 400 for a URL elsewhere, a non-image upload, someone else’s upload, or a script URL; nothing changes', async () => {
    const u = await registerUser(srv.url);
    const other = await registerUser(srv.url);
    const mine = await uploadPng(u.auth);
    expect((await patchMe(u.auth, { avatar: mine })).status).toBe(200);
    const text = await upload(srv.url, u.auth, 'not an image', 'notes.txt', 'text/plain');
    const theirs = await uploadPng(other.auth);
    for (const avatar of [
      'https://example.com/a.png',
      text.body.url,
      theirs,
      'javascript:alert(1)',
      `${srv.url}/uploads/${UNKNOWN_ID}/face.png`,
      `${mine}?x=1`,
      'x'.repeat(2049),
    ]) {
      expectError(await patchMe(u.auth, { avatar }), 400);
    }
    expect((await me(u.auth)).body.avatar).toBe(mine);
  });

  it('an avatar upload outlives the unattached-upload sweep; the one it replaced is removed', async () => {
    const u = await registerUser(srv.url);
    const first = await uploadPng(u.auth, 'first.png');
    const second = await uploadPng(u.auth, 'second.png');
    await patchMe(u.auth, { avatar: first });
    expect((await patchMe(u.auth, { avatar: second })).status).toBe(200);
    // The replaced avatar is released at once; the current one is kept whatever its age.
    expect((await call(srv.url, 'GET', new URL(first).pathname)).status).toBe(404);
    await sweepUnattachedUploads(srv.app.ctx, new Date(Date.now() + 60_000));
    expect((await call(srv.url, 'GET', new URL(second).pathname)).status).toBe(200);
    expect((await me(u.auth)).body.avatar).toBe(second);
  });

  it('a bot renames itself with displayName and sets an avatar it uploaded; it cannot remove its name', async () => {
    const owner = await registerUser(srv.url);
    const bot = await createBot(srv.url, owner, 'Robo');
    const url = await uploadPng(bot.auth);
    const r = await patchMe(bot.auth, { displayName: 'Robo 2', avatar: url });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({
      id: bot.id,
      name: 'Robo 2',
      displayName: 'Robo 2',
      avatar: url,
      bot: true,
      ownerId: owner.id,
      createdAt: expect.stringMatching(ISO_UTC),
    });
    expect((await call(srv.url, 'GET', '/bots', { auth: owner.auth })).body[0]).toMatchObject({ name: 'Robo 2', avatar: url });
    expectError(await patchMe(bot.auth, { displayName: null }), 400);
    expectError(await patchMe(bot.auth, { displayName: '  ' }), 400);
  });

  it('401 without credentials or with a wrong token', async () => {
    expectError(await call(srv.url, 'PATCH', '/users/@me', { body: { displayName: 'x' } }), 401);
    expectError(await patchMe('Bearer 1.nope', { displayName: 'x' }), 401);
  });
});

describe('PATCH /bots/{botId}: interactionsUrl', () => {
  // Setting one that answers the signed ping is in interactions-http.test.ts (a real endpoint).
  it('refuses a URL the service may not reach (400) and keeps none; null clears it', async () => {
    const u = await registerUser(srv.url);
    const bot = await createBot(srv.url, u);
    const r = await call(srv.url, 'PATCH', `/bots/${bot.id}`, {
      auth: u.auth,
      body: { interactionsUrl: 'http://127.0.0.1:9/interactions' },
    });
    expectError(r, 400, 'outgoing_address_refused');
    expect((await call(srv.url, 'GET', '/bots', { auth: u.auth })).body[0].interactionsUrl).toBeNull();
    expect((await me(bot.auth)).body).not.toHaveProperty('interactionsUrl');
    const cleared = await call(srv.url, 'PATCH', `/bots/${bot.id}`, { auth: u.auth, body: { interactionsUrl: null } });
    expect(cleared.status).toBe(200);
    expect(cleared.body.interactionsUrl).toBeNull();
  });
});

describe('POST /auth/password', () => {
  it('204; the new password logs in, the old one no longer does; this session stays, every other one ends', async () => {
    const u = await registerUser(srv.url);
    const other = await secondSession(u);
    const r = await call(srv.url, 'POST', '/auth/password', {
      auth: u.auth,
      body: { currentPassword: PASSWORD, newPassword: NEW_PASSWORD },
    });
    expect(r.status, r.text).toBe(204);
    expect(r.text).toBe('');
    expect((await me(u.auth)).status).toBe(200);
    expectError(await me(other), 401);
    expectError(await login(srv.url, u.name, PASSWORD), 401);
    expect((await login(srv.url, u.name, NEW_PASSWORD)).status).toBe(200);
  });

  it('403 wrong_password for a wrong current password; nothing changes', async () => {
    const u = await registerUser(srv.url);
    const other = await secondSession(u);
    const r = await call(srv.url, 'POST', '/auth/password', {
      auth: u.auth,
      body: { currentPassword: 'not my password', newPassword: NEW_PASSWORD },
    });
    expectError(r, 403, 'wrong_password');
    expect(r.text).not.toContain(NEW_PASSWORD);
    expect((await me(other)).status).toBe(200);
    expect((await login(srv.url, u.name, PASSWORD)).status).toBe(200);
  });

  it('400 for a new password that breaks the rules (short, long, common, guessable) or a malformed body; nothing changes', async () => {
    const u = await registerUser(srv.url);
    const other = await secondSession(u);
    for (const body of [
      { currentPassword: PASSWORD, newPassword: 'short' },
      { currentPassword: PASSWORD, newPassword: 'q'.repeat(257) },
      { currentPassword: PASSWORD, newPassword: 'password1' },
      { currentPassword: PASSWORD, newPassword: 'aaaaaaaa' },
      { currentPassword: PASSWORD, newPassword: 'abcdefgh' },
      { currentPassword: PASSWORD, newPassword: 'qwertyui' },
      { currentPassword: PASSWORD },
      { newPassword: NEW_PASSWORD },
      { currentPassword: PASSWORD, newPassword: 12345678 },
    ]) {
      expectError(await call(srv.url, 'POST', '/auth/password', { auth: u.auth, body }), 400);
    }
    expect((await me(other)).status).toBe(200);
    expect((await login(srv.url, u.name, PASSWORD)).status).toBe(200);
  });

  it('401 without a session, 403 for a bot', async () => {
    const body = { currentPassword: PASSWORD, newPassword: NEW_PASSWORD };
    expectError(await call(srv.url, 'POST', '/auth/password', { body }), 401);
    const u = await registerUser(srv.url);
    const bot = await createBot(srv.url, u);
    expectError(await call(srv.url, 'POST', '/auth/password', { auth: bot.auth, body }), 403, 'users_only');
  });
});

describe('login sessions: GET /auth/sessions, DELETE /auth/sessions/{id}, DELETE /auth/sessions', () => {
  it('lists the caller’s sessions with the current one marked, and the User-Agent each was opened with', async () => {
    const username = uname('Sess');
    const reg = await call(srv.url, 'POST', '/auth/register', {
      body: { username, password: PASSWORD },
      headers: { 'user-agent': 'Firefox/130 on Linux' },
    });
    // fetch refuses such bytes in a header; a raw request sends them as a client could. Node
    // takes bytes 0x80-0xFF as Latin-1, so 0x85 and 0x9B arrive as C1 control characters.
    const body = JSON.stringify({ username, password: PASSWORD });
    const head =
      `POST /auth/login HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n` +
      `User-Agent: Phone\u0085App\u009b/2\t\t${'x'.repeat(400)}\r\n\r\n`;
    const raw = await exchange(srv.url, Buffer.concat([Buffer.from(head, 'latin1'), Buffer.from(body)]), 5000);
    const phone = { body: JSON.parse(raw.text.slice(raw.text.indexOf('\r\n\r\n') + 4)) };
    const stranger = await registerUser(srv.url);
    const r = await call(srv.url, 'GET', '/auth/sessions', { auth: `Bearer ${reg.body.token}` });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toHaveLength(2);
    const [newest, oldest] = r.body;
    expect(Object.keys(newest).sort()).toEqual(['createdAt', 'current', 'id', 'lastUsedAt', 'userAgent']);
    expect(oldest).toMatchObject({ id: reg.body.token.split('.')[0], current: true, userAgent: 'Firefox/130 on Linux' });
    expect(newest).toMatchObject({ id: phone.body.token.split('.')[0], current: false });
    // Control characters go, runs of white space become one space, and the rest is cut to 256 characters.
    expect(newest.userAgent.slice(0, 14), newest.userAgent).toBe('PhoneApp/2 xxx');
    expect([...newest.userAgent].length).toBe(256);
    for (const s of r.body) {
      expect(s.createdAt).toMatch(ISO_UTC);
      expect(s.lastUsedAt).toMatch(ISO_UTC);
    }
    expect(r.text).not.toContain(reg.body.token.split('.')[1]);
    expect(r.text).not.toContain(stranger.id);
  });

  it('DELETE /auth/sessions/{id}: 204, and that token stops working; another person’s session or an unknown id is 404', async () => {
    const u = await registerUser(srv.url);
    const other = await secondSession(u);
    const otherId = other.slice('Bearer '.length).split('.')[0]!;
    const stranger = await registerUser(srv.url);
    const strangerSession = stranger.token.split('.')[0]!;
    expectError(await call(srv.url, 'DELETE', `/auth/sessions/${strangerSession}`, { auth: u.auth }), 404, 'unknown_session');
    expect((await me(stranger.auth)).status).toBe(200);
    expectError(await call(srv.url, 'DELETE', `/auth/sessions/${UNKNOWN_ID}`, { auth: u.auth }), 404, 'unknown_session');
    expectError(await call(srv.url, 'DELETE', '/auth/sessions/not-an-id', { auth: u.auth }), 404, 'unknown_session');

    const r = await call(srv.url, 'DELETE', `/auth/sessions/${otherId}`, { auth: u.auth });
    expect(r.status, r.text).toBe(204);
    expectError(await me(other), 401);
    expect((await me(u.auth)).status).toBe(200);
    expectError(await call(srv.url, 'DELETE', `/auth/sessions/${otherId}`, { auth: u.auth }), 404);
    // Ending the current session is a logout.
    const own = u.token.split('.')[0]!;
    expect((await call(srv.url, 'DELETE', `/auth/sessions/${own}`, { auth: u.auth })).status).toBe(204);
    expectError(await me(u.auth), 401);
  });

  it('DELETE /auth/sessions: 204; every other session ends, this one stays', async () => {
    const u = await registerUser(srv.url);
    const a = await secondSession(u);
    const b = await secondSession(u);
    const r = await call(srv.url, 'DELETE', '/auth/sessions', { auth: u.auth });
    expect(r.status, r.text).toBe(204);
    expectError(await me(a), 401);
    expectError(await me(b), 401);
    const list = await call(srv.url, 'GET', '/auth/sessions', { auth: u.auth });
    expect(list.body).toEqual([expect.objectContaining({ id: u.token.split('.')[0], current: true })]);
  });

  it('401 without a session; 403 for a bot', async () => {
    expectError(await call(srv.url, 'GET', '/auth/sessions'), 401);
    expectError(await call(srv.url, 'DELETE', '/auth/sessions'), 401);
    expectError(await call(srv.url, 'DELETE', `/auth/sessions/${UNKNOWN_ID}`), 401);
    const u = await registerUser(srv.url);
    const bot = await createBot(srv.url, u);
    expectError(await call(srv.url, 'GET', '/auth/sessions', { auth: bot.auth }), 403);
    expectError(await call(srv.url, 'DELETE', '/auth/sessions', { auth: bot.auth }), 403);
    expectError(await call(srv.url, 'DELETE', `/auth/sessions/${UNKNOWN_ID}`, { auth: bot.auth }), 403);
  });
});

describe('session expiry (SESSION_TTL_DAYS=2, the service clock moved forward)', () => {
  let short: TestServer;
  let offset = 0;
  beforeAll(async () => {
    short = await startServer({ env: { RATE_LIMITS: 'off', SESSION_TTL_DAYS: '2' } });
    short.app.ctx.clock = () => Date.now() + offset;
  });
  afterAll(() => short?.close());
  const sessionsOf = async (auth: string) => (await call(short.url, 'GET', '/auth/sessions', { auth })).body as Array<any>;

  it('a session unused for longer than the TTL is 401 and gone; one used meanwhile lives on', async () => {
    offset = 0;
    expect((await call(short.url, 'GET', '/instance')).body.sessionTtlDays).toBe(2);
    const idle = await registerUser(short.url);
    const busy = await secondSession(idle, short.url);
    offset = 1.5 * DAY;
    expect((await me(busy, short.url)).status).toBe(200); // a use: more than an hour since the last one
    offset = 2 * DAY + 60_000;
    expectError(await me(idle.auth, short.url), 401, /expired/);
    expect((await me(busy, short.url)).status).toBe(200);
    expect((await sessionsOf(busy)).map((s) => s.id)).toEqual([busy.slice(7).split('.')[0]]);
    // Its last use was just now (at 2 days): it lasts until 2 days after that.
    offset = 4 * DAY - 60_000;
    expect((await me(busy, short.url)).status).toBe(200);
    offset = 6 * DAY;
    expectError(await me(busy, short.url), 401);
    // A new login works at any time.
    expect((await login(short.url, idle.name)).status).toBe(200);
  });

  it('lastUsedAt is written at most once an hour', async () => {
    offset = 0;
    const u = await registerUser(short.url);
    const first = (await sessionsOf(u.auth))[0].lastUsedAt;
    offset = 30 * 60_000;
    await me(u.auth, short.url);
    expect((await sessionsOf(u.auth))[0].lastUsedAt).toBe(first);
    offset = 61 * 60_000;
    await me(u.auth, short.url);
    const touched = (await sessionsOf(u.auth))[0].lastUsedAt;
    expect(Date.parse(touched) - Date.parse(first)).toBeGreaterThanOrEqual(60 * 60_000);
  });

  it('the gateway refuses an expired session as REST does', async () => {
    offset = 0;
    const u = await registerUser(short.url);
    offset = 3 * DAY;
    const { TestGatewayClient } = await import('../gateway/client.js');
    const c = await TestGatewayClient.connect(short.gatewayUrl);
    c.send({ op: 'identify', d: { token: u.auth } });
    expect((await c.waitForClose()).code).toBe(4001);
  });

  it('the hourly sweep deletes sessions past the TTL and leaves the others', async () => {
    offset = 0;
    const u = await registerUser(short.url);
    const keep = await registerUser(short.url);
    offset = 1.9 * DAY;
    await me(keep.auth, short.url);
    offset = 2.1 * DAY;
    expect(await sweepExpiredSessions(short.app.ctx)).toBeGreaterThanOrEqual(1);
    const rows = await dumpDatabase(short);
    expect(rows.some((r) => r.startsWith('sessions:') && r.includes(`"userId":"${u.id}"`))).toBe(false);
    expect(rows.some((r) => r.startsWith('sessions:') && r.includes(`"userId":"${keep.id}"`))).toBe(true);
    expect((await me(keep.auth, short.url)).status).toBe(200);
  });

  it('SESSION_TTL_DAYS and REGISTRATION are checked at start', () => {
    expect(loadConfig({}).sessionTtlMs).toBe(30 * DAY);
    expect(loadConfig({}).registration).toBe('open');
    expect(loadConfig({ SESSION_TTL_DAYS: '7', REGISTRATION: 'invite' })).toMatchObject({ sessionTtlMs: 7 * DAY, registration: 'invite' });
    for (const env of [
      { SESSION_TTL_DAYS: '0' },
      { SESSION_TTL_DAYS: '1.5' },
      { SESSION_TTL_DAYS: 'forever' },
      { REGISTRATION: 'maybe' },
    ]) {
      expect(() => loadConfig(env), JSON.stringify(env)).toThrow(ConfigError);
    }
  });
});

describe('DELETE /users/@me', () => {
  it('409 owns_servers while the person owns a server; nothing changes', async () => {
    const u = await registerUser(srv.url);
    await createServer(srv.url, u, 'Mine');
    const r = await call(srv.url, 'DELETE', '/users/@me', { auth: u.auth, body: { password: PASSWORD } });
    expectError(r, 409, 'owns_servers', /Mine/);
    expect((await me(u.auth)).status).toBe(200);
    expect((await login(srv.url, u.name)).status).toBe(200);
  });

  it('403 wrong_password; 400 without a password; 401 without a session; 403 for a bot', async () => {
    const u = await registerUser(srv.url);
    expectError(
      await call(srv.url, 'DELETE', '/users/@me', { auth: u.auth, body: { password: 'not my password' } }),
      403,
      'wrong_password',
    );
    expectError(await call(srv.url, 'DELETE', '/users/@me', { auth: u.auth, body: {} }), 400);
    expectError(await call(srv.url, 'DELETE', '/users/@me', { auth: u.auth }), 400);
    expectError(await call(srv.url, 'DELETE', '/users/@me', { body: { password: PASSWORD } }), 401);
    const bot = await createBot(srv.url, u);
    expectError(await call(srv.url, 'DELETE', '/users/@me', { auth: bot.auth, body: { password: PASSWORD } }), 403);
    expect((await me(u.auth)).status).toBe(200);
    expect((await me(bot.auth)).status).toBe(200);
  });

  it('204: sessions and bots end, memberships go, the name is free again; messages stay, by "Deleted user"', async () => {
    const owner = await registerUser(srv.url);
    const u = await registerUser(srv.url);
    const other = await secondSession(u);
    const { server, general } = await createServer(srv.url, owner);
    await joinServer(srv.url, owner, u, server.id);
    await patchMe(u.auth, { displayName: 'Soon Gone', avatar: await uploadPng(u.auth) });
    const bot = await createBot(srv.url, u);
    await call(srv.url, 'PATCH', `/bots/${bot.id}`, { auth: u.auth, body: { public: true } });
    await call(srv.url, 'POST', `/servers/${server.id}/bots`, { auth: owner.auth, body: { botId: bot.id } });
    const said = await postMessage(srv.url, u.auth, general.id, 'I was here');
    const botSaid = await postMessage(srv.url, bot.auth, general.id, 'beep');
    const hook = await createWebhook(srv.url, owner, server.id, general.id, 'Hook');
    const hookSaid = await call(srv.url, 'POST', `/webhooks/${hook.id}/${hook.token}`, { body: { content: 'hooked' } });

    const r = await call(srv.url, 'DELETE', '/users/@me', { auth: u.auth, body: { password: PASSWORD } });
    expect(r.status, r.text).toBe(204);
    expectError(await me(u.auth), 401);
    expectError(await me(other), 401);
    expectError(await me(bot.auth), 401);
    expectError(await login(srv.url, u.name), 401);

    const kept = await call(srv.url, 'GET', `/channels/${general.id}/messages/${said.id}`, { auth: owner.auth });
    expect(kept.status).toBe(200);
    expect(kept.body).toMatchObject({ content: 'I was here', author: { id: u.id, name: 'Deleted user', avatar: null, bot: false } });
    // A bot keeps its name on its messages (as when its owner deletes it); webhooks are the server's.
    const botKept = await call(srv.url, 'GET', `/channels/${general.id}/messages/${botSaid.id}`, { auth: owner.auth });
    expect(botKept.body.author).toMatchObject({ id: bot.id, bot: true });
    const hookKept = await call(srv.url, 'GET', `/channels/${general.id}/messages/${hookSaid.body.id}`, { auth: owner.auth });
    expect(hookKept.body.author.name).toBe('Hook');

    const members = await call(srv.url, 'GET', `/servers/${server.id}/members`, { auth: owner.auth });
    expect(members.body.map((m: { id: string }) => m.id)).toEqual([owner.id]);

    // The name is free again, for a new account with a new id.
    const again = await call(srv.url, 'POST', '/auth/register', { body: { username: u.name, password: PASSWORD } });
    expect(again.status, again.text).toBe(201);
    expect(again.body.user.id).not.toBe(u.id);

    // Nothing that identified the person is left in their row.
    const rows = (await dumpDatabase(srv)).filter((row) => row.startsWith('users:') && row.includes(`"id":"${u.id}"`));
    expect(rows).toHaveLength(1);
    expect(rows[0]).not.toContain(u.name);
    expect(rows[0]).not.toContain('Soon Gone');
    expect(rows[0]).toContain('"passwordHash":null');
  });
});

describe('registration modes', () => {
  it('REGISTRATION=invite: the first account is free; then a valid invite code is needed, and is not used up', async () => {
    const inv = await startServer({ env: { RATE_LIMITS: 'off', REGISTRATION: 'invite' } });
    try {
      // A new instance can be set up: the first person registers without a code.
      expect((await call(inv.url, 'GET', '/instance')).body).toMatchObject({ registration: 'open' });
      const owner = await registerUser(inv.url);
      expect((await call(inv.url, 'GET', '/instance')).body).toMatchObject({ registration: 'invite' });
      const register = (body: Record<string, unknown>) =>
        call(inv.url, 'POST', '/auth/register', { body: { username: uname('Inv'), password: PASSWORD, ...body } });

      expectError(await register({}), 403, 'invite_required');
      expectError(await register({ invite: 'NoSuchInvite0000' }), 403, 'invite_required');
      expectError(await register({ invite: 'bad\u0000code' }), 403, 'invite_required');
      expectError(await register({ invite: 'x'.repeat(65) }), 400);

      const { server } = await createServer(inv.url, owner);
      const code = (await call(inv.url, 'POST', `/servers/${server.id}/invites`, { auth: owner.auth })).body.code as string;
      const a = await register({ invite: code });
      expect(a.status, a.text).toBe(201);
      const b = await register({ invite: ` ${code} ` });
      expect(b.status, b.text).toBe(201);
      // Registering joins nothing; the invite still works for joining.
      expect((await call(inv.url, 'GET', '/servers', { auth: `Bearer ${a.body.token}` })).body).toEqual([]);
      expect((await call(inv.url, 'POST', `/invites/${code}`, { auth: `Bearer ${a.body.token}` })).status).toBe(200);
      // A deleted invite no longer lets anyone in.
      await call(inv.url, 'DELETE', `/invites/${code}`, { auth: owner.auth });
      expectError(await register({ invite: code }), 403, 'invite_required');
      // Logging in is not affected.
      expect((await login(inv.url, owner.name)).status).toBe(200);
    } finally {
      await inv.close();
    }
  });

  it('REGISTRATION=closed: after the first account, registering is 403 registration_closed; logging in still works', async () => {
    const closed = await startServer({ env: { RATE_LIMITS: 'off', REGISTRATION: 'closed' } });
    try {
      const first = await registerUser(closed.url);
      expect((await call(closed.url, 'GET', '/instance')).body).toMatchObject({ registration: 'closed' });
      const r = await call(closed.url, 'POST', '/auth/register', { body: { username: uname('Late'), password: PASSWORD } });
      expectError(r, 403, 'registration_closed');
      expectError(
        await call(closed.url, 'POST', '/auth/register', { body: { username: uname('Late'), password: PASSWORD, invite: 'abc' } }),
        403,
      );
      expect((await login(closed.url, first.name)).status).toBe(200);
    } finally {
      await closed.close();
    }
  });
});

describe('a wrong password confirming a change counts as a failed login (rate limits on)', () => {
  let limited: TestServer;
  beforeAll(async () => {
    limited = await startServer({ env: { RATE_LIMITS: 'on' } });
  });
  afterAll(() => limited?.close());

  it('10 wrong passwords over POST /auth/password and DELETE /users/@me, then 429 even with the right one, and logins too', async () => {
    const u = await registerUser(limited.url);
    for (let i = 0; i < 5; i++) {
      const body = { currentPassword: `wrong ${i}`, newPassword: NEW_PASSWORD };
      expectError(await call(limited.url, 'POST', '/auth/password', { auth: u.auth, body }), 403);
      expectError(await call(limited.url, 'DELETE', '/users/@me', { auth: u.auth, body: { password: `wrong ${i}` } }), 403);
    }
    const right = { currentPassword: PASSWORD, newPassword: NEW_PASSWORD };
    expectRateLimited(await call(limited.url, 'POST', '/auth/password', { auth: u.auth, body: right }), 10, 15 * 60);
    expectRateLimited(await call(limited.url, 'DELETE', '/users/@me', { auth: u.auth, body: { password: PASSWORD } }), 10, 15 * 60);
    expectRateLimited(await login(limited.url, u.name), 10, 15 * 60);
    // The session itself keeps working.
    expect((await me(u.auth, limited.url)).status).toBe(200);
  });
});
