/** Contract section 2 over HTTP: registration, login, sessions, bots and how credentials are stored. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createBot, createServer, createWebhook, postMessage, registerUser } from '../factories.js';
import { type TestServer, startServer } from '../harness.js';
import { ISO_UTC, UNKNOWN_ID, dumpDatabase, expectError } from './assert.js';

let srv: TestServer;
let n = 0;
/** A fresh, valid username (2..32 of [A-Za-z0-9_.-]). */
const uname = (prefix = 'acct') => `${prefix}_${Date.now().toString(36)}_${n++}`;
const PASSWORD = 'correct horse battery';

beforeAll(async () => {
  srv = await startServer({ env: { RATE_LIMITS: 'off' } });
});
afterAll(() => srv?.close());

describe('POST /auth/register', () => {
  it('201 with {token, user}; the user is a person', async () => {
    const username = uname('Reg');
    const r = await call(srv.url, 'POST', '/auth/register', { body: { username, password: PASSWORD } });
    expect(r.status, r.text).toBe(201);
    expect(Object.keys(r.body).sort()).toEqual(['token', 'user']);
    expect(r.body.token).toBeTypeOf('string');
    expect(r.body.token.length).toBeGreaterThanOrEqual(32);
    expect(r.body.user).toMatchObject({ name: username, username, bot: false, avatar: null });
    expect(r.body.user.id).toMatch(/^[0-9A-Z]{26}$/);
    expect(r.body.user.createdAt).toMatch(ISO_UTC);
    expect(r.body.user).not.toHaveProperty('passwordHash');
    const me = await call(srv.url, 'GET', '/users/@me', { auth: `Bearer ${r.body.token}` });
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(r.body.user.id);
  });

  it('409 when the name is taken, compared case-insensitively', async () => {
    const username = uname('Dup');
    expect((await call(srv.url, 'POST', '/auth/register', { body: { username, password: PASSWORD } })).status).toBe(201);
    expectError(await call(srv.url, 'POST', '/auth/register', { body: { username, password: PASSWORD } }), 409);
    expectError(await call(srv.url, 'POST', '/auth/register', { body: { username: username.toUpperCase(), password: PASSWORD } }), 409);
    expectError(await call(srv.url, 'POST', '/auth/register', { body: { username: username.toLowerCase(), password: 'other password 1' } }), 409);
  });

  it('400 for a password shorter than 8 characters; 8 is enough', async () => {
    expectError(await call(srv.url, 'POST', '/auth/register', { body: { username: uname(), password: 'short' } }), 400, /password/);
    expectError(await call(srv.url, 'POST', '/auth/register', { body: { username: uname(), password: '1234567' } }), 400, /password/);
    expectError(await call(srv.url, 'POST', '/auth/register', { body: { username: uname(), password: '' } }), 400);
    expect((await call(srv.url, 'POST', '/auth/register', { body: { username: uname(), password: '12345678' } })).status).toBe(201);
  });

  it('400 for a bad username', async () => {
    for (const username of ['a', '', 'has space', 'semi;colon', 'x'.repeat(33), 'émile', '../etc']) {
      expectError(await call(srv.url, 'POST', '/auth/register', { body: { username, password: PASSWORD } }), 400);
    }
  });

  it('400 for missing fields or wrong types', async () => {
    expectError(await call(srv.url, 'POST', '/auth/register', { body: { username: uname() } }), 400, /password/);
    expectError(await call(srv.url, 'POST', '/auth/register', { body: { password: PASSWORD } }), 400, /username/);
    expectError(await call(srv.url, 'POST', '/auth/register', { body: { username: 42, password: PASSWORD } }), 400);
    expectError(await call(srv.url, 'POST', '/auth/register', { body: [] }), 400);
  });
});

describe('POST /auth/login', () => {
  it('200 with a new working token; names are case-insensitive', async () => {
    const username = uname('Login');
    const reg = await call(srv.url, 'POST', '/auth/register', { body: { username, password: PASSWORD } });
    const r = await call(srv.url, 'POST', '/auth/login', { body: { username, password: PASSWORD } });
    expect(r.status, r.text).toBe(200);
    expect(r.body.user).toMatchObject({ id: reg.body.user.id, username, bot: false });
    expect(r.body.token).not.toBe(reg.body.token);
    expect((await call(srv.url, 'GET', '/users/@me', { auth: `Bearer ${r.body.token}` })).body.id).toBe(reg.body.user.id);
    const upper = await call(srv.url, 'POST', '/auth/login', { body: { username: username.toUpperCase(), password: PASSWORD } });
    expect(upper.status).toBe(200);
    expect(upper.body.user.id).toBe(reg.body.user.id);
  });

  it('401 for a wrong password or an unknown name, with the same answer', async () => {
    const username = uname();
    await call(srv.url, 'POST', '/auth/register', { body: { username, password: PASSWORD } });
    const wrong = await call(srv.url, 'POST', '/auth/login', { body: { username, password: 'not the password' } });
    const unknown = await call(srv.url, 'POST', '/auth/login', { body: { username: uname('nobody'), password: PASSWORD } });
    expectError(wrong, 401);
    expectError(unknown, 401);
    expect(wrong.body).toEqual(unknown.body);
  });

  it('a name that cannot exist (NUL, spaces, too long) is an ordinary 401', async () => {
    for (const username of ['a\u0000b', 'has space', 'x'.repeat(40)]) {
      expectError(await call(srv.url, 'POST', '/auth/login', { body: { username, password: PASSWORD } }), 401);
    }
  });

  it('400 for a malformed body', async () => {
    expectError(await call(srv.url, 'POST', '/auth/login', { body: { username: 'x' } }), 400);
  });
});

describe('GET /users/@me', () => {
  it('200 the calling user', async () => {
    const u = await registerUser(srv.url);
    const r = await call(srv.url, 'GET', '/users/@me', { auth: u.auth });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: u.id, name: u.name, username: u.name, bot: false, avatar: null });
    expect(r.body).not.toHaveProperty('passwordHash');
    expect(r.body).not.toHaveProperty('token');
  });

  it('200 the calling bot, with its owner', async () => {
    const u = await registerUser(srv.url);
    const bot = await createBot(srv.url, u, 'Me Bot');
    const r = await call(srv.url, 'GET', '/users/@me', { auth: bot.auth });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: bot.id, name: 'Me Bot', bot: true, ownerId: u.id });
    expect(r.body).not.toHaveProperty('token');
    expect(r.body).not.toHaveProperty('tokenHash');
  });

  it('401 without a token, with a malformed one, or with a credential under the wrong scheme', async () => {
    const u = await registerUser(srv.url);
    const bot = await createBot(srv.url, u);
    const cases: Array<string | undefined> = [
      undefined,
      '',
      'Bearer',
      'Bearer ',
      'Bearer garbage',
      `Bearer ${u.token}x`,
      `Bearer ${UNKNOWN_ID}.${u.token.split('.')[1]}`,
      'Bot garbage',
      `Bot ${bot.token.split('.')[0]}.wrongsecret`,
      `Bot ${u.token}`, // a session token is not a bot token
      `Bearer ${bot.token}`, // nor the other way round
      `Basic ${Buffer.from('a:b').toString('base64')}`,
      bot.token, // no scheme
    ];
    for (const auth of cases) {
      const r = await call(srv.url, 'GET', '/users/@me', auth === undefined ? {} : { headers: { authorization: auth } });
      expectError(r, 401);
    }
  });
});

describe('POST /auth/logout', () => {
  it('204, then that session token is 401 while other sessions keep working', async () => {
    const u = await registerUser(srv.url);
    const second = await call(srv.url, 'POST', '/auth/login', { body: { username: u.name, password: PASSWORD } });
    const r = await call(srv.url, 'POST', '/auth/logout', { auth: u.auth });
    expect(r.status).toBe(204);
    expect(r.text).toBe('');
    expectError(await call(srv.url, 'GET', '/users/@me', { auth: u.auth }), 401);
    expectError(await call(srv.url, 'POST', '/servers', { auth: u.auth, body: { name: 'x' } }), 401);
    expect((await call(srv.url, 'GET', '/users/@me', { auth: `Bearer ${second.body.token}` })).status).toBe(200);
    expectError(await call(srv.url, 'POST', '/auth/logout', { auth: u.auth }), 401);
  });

  it('401 without a token; 403 for a bot (bots have no session)', async () => {
    expectError(await call(srv.url, 'POST', '/auth/logout'), 401);
    const u = await registerUser(srv.url);
    const bot = await createBot(srv.url, u);
    expectError(await call(srv.url, 'POST', '/auth/logout', { auth: bot.auth }), 403);
  });
});

describe('bots: POST /bots, GET /bots, DELETE /bots/{botId}', () => {
  it('POST /bots: 201 {id, name, ownerId, token, createdAt}; the token works as "Bot <token>"', async () => {
    const u = await registerUser(srv.url);
    const r = await call(srv.url, 'POST', '/bots', { auth: u.auth, body: { name: 'Helper' } });
    expect(r.status, r.text).toBe(201);
    expect(r.body).toMatchObject({ name: 'Helper', ownerId: u.id });
    expect(r.body.id).toMatch(/^[0-9A-Z]{26}$/);
    expect(r.body.token).toBeTypeOf('string');
    expect(r.body.token.length).toBeGreaterThanOrEqual(32);
    expect(r.body.createdAt).toMatch(ISO_UTC);
    const me = await call(srv.url, 'GET', '/users/@me', { auth: `Bot ${r.body.token}` });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: r.body.id, bot: true });
  });

  it('POST /bots: an avatar must be an http(s) URL', async () => {
    const u = await registerUser(srv.url);
    const ok = await call(srv.url, 'POST', '/bots', { auth: u.auth, body: { name: 'Face', avatar: 'https://example.com/bot.png' } });
    expect(ok.status).toBe(201);
    expect(ok.body.avatar).toBe('https://example.com/bot.png');
    expect((await call(srv.url, 'GET', '/users/@me', { auth: `Bot ${ok.body.token}` })).body.avatar).toBe('https://example.com/bot.png');
    for (const avatar of ['javascript:alert(1)', 'not a url', 'data:image/png;base64,AAAA', 'https://example.com/\u0000.png']) {
      expectError(await call(srv.url, 'POST', '/bots', { auth: u.auth, body: { name: 'Bad face', avatar } }), 400, /avatar/);
    }
    expect((await call(srv.url, 'GET', '/bots', { auth: u.auth })).body.map((b: { name: string }) => b.name)).toEqual(['Face']);
  });

  it('POST /bots: 400 without a name, 401 without a token, 403 for a bot', async () => {
    const u = await registerUser(srv.url);
    const bot = await createBot(srv.url, u);
    expectError(await call(srv.url, 'POST', '/bots', { auth: u.auth, body: {} }), 400);
    expectError(await call(srv.url, 'POST', '/bots', { auth: u.auth, body: { name: '' } }), 400);
    expectError(await call(srv.url, 'POST', '/bots', { auth: u.auth, body: { name: '   ' } }), 400);
    expectError(await call(srv.url, 'POST', '/bots', { body: { name: 'x' } }), 401);
    expectError(await call(srv.url, 'POST', '/bots', { auth: bot.auth, body: { name: 'child' } }), 403);
    // The bot made nothing.
    const list = await call(srv.url, 'GET', '/bots', { auth: u.auth });
    expect(list.body.map((b: { id: string }) => b.id)).toEqual([bot.id]);
  });

  it('GET /bots: the caller’s bots only, never with tokens', async () => {
    const u = await registerUser(srv.url);
    const other = await registerUser(srv.url);
    const a = await createBot(srv.url, u, 'A');
    const b = await createBot(srv.url, u, 'B');
    await createBot(srv.url, other, 'Not mine');
    const r = await call(srv.url, 'GET', '/bots', { auth: u.auth });
    expect(r.status).toBe(200);
    expect(r.body.map((x: { id: string }) => x.id).sort()).toEqual([a.id, b.id].sort());
    for (const x of r.body) {
      expect(x.ownerId).toBe(u.id);
      expect(x).not.toHaveProperty('token');
      expect(x).not.toHaveProperty('tokenHash');
    }
    expect(r.text).not.toContain(a.token.split('.')[1]);
    expect(r.text).not.toContain(b.token.split('.')[1]);
    expectError(await call(srv.url, 'GET', '/bots'), 401);
    const bot = await createBot(srv.url, u);
    expectError(await call(srv.url, 'GET', '/bots', { auth: bot.auth }), 403);
  });

  it('DELETE /bots/{botId}: 204, then the bot token is 401 at once', async () => {
    const u = await registerUser(srv.url);
    const { general } = await createServer(srv.url, u);
    const bot = await createBot(srv.url, u);
    const { server } = await createServer(srv.url, u);
    await call(srv.url, 'POST', `/servers/${server.id}/bots`, { auth: u.auth, body: { botId: bot.id } });
    expect((await call(srv.url, 'GET', '/users/@me', { auth: bot.auth })).status).toBe(200);
    const r = await call(srv.url, 'DELETE', `/bots/${bot.id}`, { auth: u.auth });
    expect(r.status).toBe(204);
    expect(r.text).toBe('');
    expectError(await call(srv.url, 'GET', '/users/@me', { auth: bot.auth }), 401);
    expectError(await call(srv.url, 'POST', `/channels/${general.id}/messages`, { auth: bot.auth, body: { content: 'hi' } }), 401);
    expect((await call(srv.url, 'GET', '/bots', { auth: u.auth })).body).toEqual([]);
    const members = await call(srv.url, 'GET', `/servers/${server.id}/members`, { auth: u.auth });
    expect(members.body.map((m: { id: string }) => m.id)).not.toContain(bot.id);
    expectError(await call(srv.url, 'DELETE', `/bots/${bot.id}`, { auth: u.auth }), 404);
  });

  it('DELETE /bots/{botId}: a bot that posted messages can be deleted; its messages stay', async () => {
    const u = await registerUser(srv.url);
    const { server, general } = await createServer(srv.url, u);
    const bot = await createBot(srv.url, u, 'Poster');
    await call(srv.url, 'POST', `/servers/${server.id}/bots`, { auth: u.auth, body: { botId: bot.id } });
    const m = await postMessage(srv.url, bot.auth, general.id, 'from the bot');
    expect((await call(srv.url, 'DELETE', `/bots/${bot.id}`, { auth: u.auth })).status).toBe(204);
    const got = await call(srv.url, 'GET', `/channels/${general.id}/messages/${m.id}`, { auth: u.auth });
    expect(got.status).toBe(200);
    expect(got.body.author).toMatchObject({ id: bot.id, name: 'Poster', bot: true });
  });

  it('DELETE /bots/{botId}: 403 for someone else’s bot (it keeps working), 404 for unknown, 401 without token, 403 for a bot', async () => {
    const owner = await registerUser(srv.url);
    const stranger = await registerUser(srv.url);
    const bot = await createBot(srv.url, owner);
    expectError(await call(srv.url, 'DELETE', `/bots/${bot.id}`, { auth: stranger.auth }), 403);
    expect((await call(srv.url, 'GET', '/users/@me', { auth: bot.auth })).status).toBe(200);
    expectError(await call(srv.url, 'DELETE', `/bots/${UNKNOWN_ID}`, { auth: owner.auth }), 404);
    expectError(await call(srv.url, 'DELETE', '/bots/not-an-id', { auth: owner.auth }), 404);
    // A person's id is not a bot.
    expectError(await call(srv.url, 'DELETE', `/bots/${stranger.id}`, { auth: owner.auth }), 404);
    expectError(await call(srv.url, 'DELETE', `/bots/${bot.id}`), 401);
    expectError(await call(srv.url, 'DELETE', `/bots/${bot.id}`, { auth: bot.auth }), 403);
    expect((await call(srv.url, 'GET', '/users/@me', { auth: bot.auth })).status).toBe(200);
  });
});

describe('credentials are stored only as hashes', () => {
  it('no row of the database holds a password, session token, bot token or webhook token in clear', async () => {
    const password = `pw-${Math.random().toString(36).slice(2)}-secret`;
    const username = uname('Vault');
    const reg = await call(srv.url, 'POST', '/auth/register', { body: { username, password } });
    expect(reg.status).toBe(201);
    const user = { id: reg.body.user.id, name: username, token: reg.body.token as string, auth: `Bearer ${reg.body.token}` };
    const login = await call(srv.url, 'POST', '/auth/login', { body: { username, password } });
    const bot = await createBot(srv.url, user);
    const { server, general } = await createServer(srv.url, user);
    const hook = await createWebhook(srv.url, user, server.id, general.id);

    const secrets = {
      password,
      session: user.token,
      sessionSecret: user.token.split('.')[1]!,
      login: login.body.token as string,
      loginSecret: (login.body.token as string).split('.')[1]!,
      bot: bot.token,
      botSecret: bot.token.split('.')[1]!,
      webhook: hook.token,
    };
    for (const s of Object.values(secrets)) expect(s.length).toBeGreaterThanOrEqual(16);

    const rows = await dumpDatabase(srv);
    // The dump really covers the rows just written (so the check below can fail).
    expect(rows.some((r) => r.startsWith('users:') && r.includes(user.id))).toBe(true);
    expect(rows.some((r) => r.startsWith('users:') && r.includes(bot.id))).toBe(true);
    expect(rows.some((r) => r.startsWith('sessions:') && r.includes(user.token.split('.')[0]!))).toBe(true);
    expect(rows.some((r) => r.startsWith('webhooks:') && r.includes(hook.id))).toBe(true);
    for (const [what, secret] of Object.entries(secrets)) {
      const leaks = rows.filter((r) => r.includes(secret));
      expect(leaks, `${what} stored in clear`).toEqual([]);
    }
  });
});
