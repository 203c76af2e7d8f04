/** docs/api.md#accounts-and-bots over HTTP: registration, login, sessions, bots and how credentials are stored. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCRYPT, hashPassword, verifyPassword } from '../../src/crypto.js';
import { call, createBot, createServer, createWebhook, postMessage, registerUser } from '../factories.js';
import { type TestServer, startServer } from '../harness.js';
import { ISO_UTC, UNKNOWN_ID, dumpDatabase, expectError, expectRateLimited } from './assert.js';

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
    expect(r.body.user.id).toMatch(/^[1-9][0-9]{15,18}$/);
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
    expectError(
      await call(srv.url, 'POST', '/auth/register', { body: { username: username.toLowerCase(), password: 'other password 1' } }),
      409,
    );
  });

  it('400 for a password shorter than 8 or longer than 256 characters; 8 and 256 are fine', async () => {
    expectError(await call(srv.url, 'POST', '/auth/register', { body: { username: uname(), password: 'short' } }), 400, /password/);
    expectError(await call(srv.url, 'POST', '/auth/register', { body: { username: uname(), password: 'kq7#vmz' } }), 400, /password/);
    expectError(await call(srv.url, 'POST', '/auth/register', { body: { username: uname(), password: '' } }), 400);
    expect((await call(srv.url, 'POST', '/auth/register', { body: { username: uname(), password: 'kq7#vmz2' } })).status).toBe(201);
    // Code points, not UTF-16 units: eight emoji are eight characters.
    expect((await call(srv.url, 'POST', '/auth/register', { body: { username: uname(), password: '🔑🐎🔋📎🌵🦉🎲🧭' } })).status).toBe(201);
    expectError(
      await call(srv.url, 'POST', '/auth/register', { body: { username: uname(), password: `${'kq7#vmz2'.repeat(32)}x` } }),
      400,
      /at most 256/,
    );
    expect((await call(srv.url, 'POST', '/auth/register', { body: { username: uname(), password: 'kq7#vmz2'.repeat(32) } })).status).toBe(
      201,
    );
  });

  it('400 for one of the 10,000 most common passwords, compared case-insensitively; no account is made', async () => {
    const { dictionary } = await import('@zxcvbn-ts/language-common');
    const ranked = dictionary['passwords-common'];
    // The last long-enough entry of the 10,000 is refused as common too.
    const lastInside = ranked.slice(0, 10_000).findLast((p) => p.length >= 8)!;
    for (const password of ['12345678', 'password', 'PASSWORD', 'PassWord', 'Password1', 'iloveyou', 'qwertyuiop', lastInside]) {
      const username = uname('Common');
      expectError(
        await call(srv.url, 'POST', '/auth/register', { body: { username, password } }),
        400,
        'invalid_body',
        /password is too easy to guess: it is a common password/,
      );
      expectError(await call(srv.url, 'POST', '/auth/login', { body: { username, password } }), 401);
    }
  });

  it.each([
    ['aaaaaaaa', /repeats a character/],
    ['abcdefgh', /sequence/],
    ['zyxwvuts', /sequence/],
    ['11111111', /password is too easy to guess/],
    ['qwertyui', /password is too easy to guess/],
    ['asdfasdf', /password is too easy to guess/],
    ['1qaz2wsx3edc', /password is too easy to guess/],
    ['Summer2024', /password is too easy to guess/],
    ['abcabcabcabc', /repeats a short pattern/],
    // Only the first 64 characters are scored: a guessable start is refused whatever follows.
    [`${'a'.repeat(64)}kq7#vmz2 lantern`, /repeats a character/],
  ])('400 for %s: repeats, sequences and keyboard walks are refused, saying why; no account is made', async (password, why) => {
    const username = uname('Weak');
    expectError(await call(srv.url, 'POST', '/auth/register', { body: { username, password } }), 400, 'invalid_body', why);
    expectError(await call(srv.url, 'POST', '/auth/login', { body: { username, password } }), 401);
  });

  it('400 for a password built on the username', async () => {
    const username = uname('Named');
    expectError(
      await call(srv.url, 'POST', '/auth/register', { body: { username, password: `${username}!` } }),
      400,
      'invalid_body',
      /contains your username/,
    );
  });

  it('the README\'s "correct horse" and a few unrelated words are accepted', async () => {
    for (const password of ['correct horse', 'staple gun lantern 42', 'kq7#vmz2']) {
      expect((await call(srv.url, 'POST', '/auth/register', { body: { username: uname(), password } })).status, password).toBe(201);
    }
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

describe('password hashes: stored scrypt parameters', () => {
  const storedHash = async (id: string) =>
    (await srv.app.ctx.store.db.selectFrom('users').select('passwordHash').where('id', '=', id).executeTakeFirstOrThrow()).passwordHash!;
  const setHash = (id: string, passwordHash: string) =>
    srv.app.ctx.store.write((tx) => tx.updateTable('users').set({ passwordHash }).where('id', '=', id).execute());
  const current = `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$`;

  it('a hash made with other parameters still logs in, and is rehashed with the current ones', async () => {
    const u = await registerUser(srv.url);
    expect((await storedHash(u.id)).startsWith(current)).toBe(true);
    const old = await hashPassword(PASSWORD, { N: 1024, r: 4, p: 2 });
    expect(old.startsWith('scrypt$1024$4$2$')).toBe(true);
    await setHash(u.id, old);

    const r = await call(srv.url, 'POST', '/auth/login', { body: { username: u.name, password: PASSWORD } });
    expect(r.status, r.text).toBe(200);
    const upgraded = await storedHash(u.id);
    expect(upgraded.startsWith(current)).toBe(true);
    expect(await verifyPassword(PASSWORD, upgraded)).toBe(true);
    expect((await call(srv.url, 'POST', '/auth/login', { body: { username: u.name, password: PASSWORD } })).status).toBe(200);
    // A current hash is left alone (no write on every login).
    expect(await storedHash(u.id)).toBe(upgraded);
  });

  it('a wrong password against an old hash is 401 and leaves the hash as it was', async () => {
    const u = await registerUser(srv.url);
    const old = await hashPassword(PASSWORD, { N: 2048, r: 8, p: 1 });
    await setHash(u.id, old);
    expectError(await call(srv.url, 'POST', '/auth/login', { body: { username: u.name, password: 'not the password' } }), 401);
    expect(await storedHash(u.id)).toBe(old);
  });

  it('a hostile or malformed stored hash is an ordinary 401 at once, never a 500 or a stall', async () => {
    const u = await registerUser(srv.url);
    const good = (await storedHash(u.id)).split('$');
    const [salt, key] = [good[4]!, good[5]!];
    const hostile = [
      `scrypt$1073741824$8$1$${salt}$${key}`, // 2^30: 128 GiB of memory
      `scrypt$65536$8$64$${salt}$${key}`, // p = 64: 64 times the work
      `scrypt$1000$8$1$${salt}$${key}`, // not a power of two
      `scrypt$16384$0$1$${salt}$${key}`,
      `scrypt$16384$8$1$${salt}$${'A'.repeat(100_000)}`, // a huge key length
      `scrypt$-16384$8$1$${salt}$${key}`,
      `scrypt$0x4000$8$1$${salt}$${key}`,
      `scrypt$16384$8$1$$${key}`,
      `bcrypt$16384$8$1$${salt}$${key}`,
      'garbage',
    ];
    for (const h of hostile) {
      await setHash(u.id, h);
      const started = Date.now();
      expectError(await call(srv.url, 'POST', '/auth/login', { body: { username: u.name, password: PASSWORD } }), 401);
      expect(Date.now() - started, h.slice(0, 40)).toBeLessThan(2_000);
      expect(await storedHash(u.id)).toBe(h);
    }
  });
});

describe('failed logins are limited per account (10 per 15 minutes), as well as per address', () => {
  let limited: TestServer;
  let address = 0;
  /** Every request from a new client address, as a guesser with many machines would send them. */
  const from = () => ({ 'x-forwarded-for': `10.1.${Math.floor(address / 250)}.${(address++ % 250) + 1}` });
  const login = (username: string, password: string) =>
    call(limited.url, 'POST', '/auth/login', { body: { username, password }, headers: from() });
  const register = async (username: string) => {
    const r = await call(limited.url, 'POST', '/auth/register', { body: { username, password: PASSWORD }, headers: from() });
    expect(r.status, r.text).toBe(201);
  };

  beforeAll(async () => {
    limited = await startServer({ env: { RATE_LIMITS: 'on', TRUST_PROXY: 'true' } });
  });
  afterAll(() => limited?.close());

  it('after 10 failures the account answers 429 with Retry-After, even to the right password; other accounts are unaffected', async () => {
    const username = uname('Target');
    const bystander = uname('Bystander');
    await register(username);
    await register(bystander);
    for (let i = 0; i < 10; i++) expectError(await login(username, `wrong guess ${i}`), 401);
    const locked = await login(username, PASSWORD);
    expectRateLimited(locked, 10, 15 * 60);
    expect(locked.body.error).not.toMatch(/password|username|exist/i);
    expectRateLimited(await login(username.toUpperCase(), PASSWORD), 10, 15 * 60);
    expect((await login(bystander, PASSWORD)).status).toBe(200);
  });

  it('an unknown name behaves exactly like a known one: 10 × 401, then the same 429', async () => {
    const known = uname('Known');
    const unknown = uname('Unknown');
    await register(known);
    const answers = async (username: string) => {
      const out: Array<[number, unknown]> = [];
      for (let i = 0; i < 11; i++) {
        const r = await login(username, `wrong guess ${i}`);
        out.push([r.status, r.status === 429 ? Object.keys(r.body).sort() : r.body]);
      }
      return out;
    };
    const a = await answers(known);
    const b = await answers(unknown);
    expect(a.map(([status]) => status)).toEqual([...Array(10).fill(401), 429]);
    expect(b).toEqual(a);
  });

  it('successful logins do not count; failures do not reset on success', async () => {
    const username = uname('Regular');
    await register(username);
    for (let i = 0; i < 12; i++) expect((await login(username, PASSWORD)).status).toBe(200);
    for (let i = 0; i < 9; i++) expectError(await login(username, 'wrong guess'), 401);
    expect((await login(username, PASSWORD)).status).toBe(200);
    expectError(await login(username, 'wrong guess'), 401);
    expectRateLimited(await login(username, PASSWORD), 10, 15 * 60);
  });

  it('a burst of parallel guesses cannot pass the limit together', async () => {
    const username = uname('Burst');
    await register(username);
    const results = await Promise.all(Array.from({ length: 25 }, (_, i) => login(username, `parallel guess ${i}`)));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 401)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(15);
    expectRateLimited(await login(username, PASSWORD), 10, 15 * 60);
  });

  it('the per-address limit still holds: 10 attempts a minute from one address', async () => {
    const username = uname('OneAddress');
    await register(username);
    const headers = { 'x-forwarded-for': '10.250.0.1' };
    for (let i = 0; i < 10; i++) {
      const r = await call(limited.url, 'POST', '/auth/login', { body: { username, password: PASSWORD }, headers });
      expect(r.status, r.text).toBe(200);
    }
    expectRateLimited(await call(limited.url, 'POST', '/auth/login', { body: { username, password: PASSWORD }, headers }), 10, 60);
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
    expect(r.body.id).toMatch(/^[1-9][0-9]{15,18}$/);
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

describe('PATCH /bots/{botId}: name, avatar, public', () => {
  it('the owner changes them; 200 the bot; GET /bots and the bot itself see the change', async () => {
    const u = await registerUser(srv.url);
    const created = await call(srv.url, 'POST', '/bots', { auth: u.auth, body: { name: 'Before' } });
    expect(created.body.public).toBe(false);
    const bot = { id: created.body.id as string, auth: `Bot ${created.body.token}` };
    expect((await call(srv.url, 'GET', '/bots', { auth: u.auth })).body[0].public).toBe(false);

    const r = await call(srv.url, 'PATCH', `/bots/${bot.id}`, {
      auth: u.auth,
      body: { name: '  After  ', avatar: 'https://example.com/a.png', public: true },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({
      id: bot.id,
      name: 'After',
      avatar: 'https://example.com/a.png',
      ownerId: u.id,
      bot: true,
      public: true,
      interactionsUrl: null,
      publicKey: created.body.publicKey,
      createdAt: created.body.createdAt,
    });
    expect((await call(srv.url, 'GET', '/bots', { auth: u.auth })).body).toEqual([r.body]);
    expect((await call(srv.url, 'GET', '/users/@me', { auth: bot.auth })).body).toMatchObject({
      name: 'After',
      avatar: 'https://example.com/a.png',
    });
    // The public flag is the owner's business: the bot's own view and member lists do not carry it.
    expect((await call(srv.url, 'GET', '/users/@me', { auth: bot.auth })).body).not.toHaveProperty('public');

    // Fields left out stay; avatar null clears; public false makes it private again.
    const back = await call(srv.url, 'PATCH', `/bots/${bot.id}`, { auth: u.auth, body: { avatar: null, public: false } });
    expect(back.status).toBe(200);
    expect(back.body).toMatchObject({ name: 'After', avatar: null, public: false });
    const same = await call(srv.url, 'PATCH', `/bots/${bot.id}`, { auth: u.auth, body: {} });
    expect(same.status).toBe(200);
    expect(same.body).toEqual(back.body);
  });

  it('403 for someone else’s bot or a bot caller, 404 unknown, 401 without token; nothing changes', async () => {
    const owner = await registerUser(srv.url);
    const stranger = await registerUser(srv.url);
    const bot = await createBot(srv.url, owner, 'Mine');
    expectError(await call(srv.url, 'PATCH', `/bots/${bot.id}`, { auth: stranger.auth, body: { public: true } }), 403);
    expectError(await call(srv.url, 'PATCH', `/bots/${bot.id}`, { auth: stranger.auth, body: { name: 'Stolen' } }), 403);
    expectError(await call(srv.url, 'PATCH', `/bots/${bot.id}`, { auth: bot.auth, body: { public: true } }), 403);
    expectError(await call(srv.url, 'PATCH', `/bots/${bot.id}`, { body: { public: true } }), 401);
    expectError(await call(srv.url, 'PATCH', `/bots/${UNKNOWN_ID}`, { auth: owner.auth, body: { public: true } }), 404);
    expectError(await call(srv.url, 'PATCH', `/bots/${stranger.id}`, { auth: owner.auth, body: { public: true } }), 404);
    expectError(await call(srv.url, 'PATCH', '/bots/garbage', { auth: owner.auth, body: { public: true } }), 404);
    expect((await call(srv.url, 'GET', '/bots', { auth: owner.auth })).body).toEqual([
      expect.objectContaining({ id: bot.id, name: 'Mine', public: false }),
    ]);
  });

  it('400 for bad values or unknown fields', async () => {
    const u = await registerUser(srv.url);
    const bot = await createBot(srv.url, u, 'Strict');
    for (const body of [
      { public: 'yes' },
      { public: 1 },
      { name: '' },
      { name: '   ' },
      { name: '\u202E\u200B' },
      { name: 'x'.repeat(81) },
      { name: 'a\u0000' },
      { avatar: 'javascript:alert(1)' },
      { interactionsUrl: 'ftp://example.com/hook' },
      { interactionsUrl: 'not a url' },
      { interactionsUrl: `https://example.com/${'x'.repeat(2048)}` },
      { interactionsUrl: 42 },
      { Public: true },
    ]) {
      expectError(await call(srv.url, 'PATCH', `/bots/${bot.id}`, { auth: u.auth, body }), 400);
    }
    expect((await call(srv.url, 'GET', '/bots', { auth: u.auth })).body[0]).toMatchObject({ name: 'Strict', public: false });
  });
});

describe('names lose disguising characters', () => {
  it('bidi overrides, isolates, marks, zero-width and control characters are stripped from bot and server names', async () => {
    const u = await registerUser(srv.url);
    const cases: Array<[string, string]> = [
      ['invoice\u202Efdp.exe', 'invoicefdp.exe'],
      ['\u2066admin\u2069\u200E\u200F\u061C', 'admin'],
      ['a\u202Ab\u202Bc\u202Cd\u202De\u2067f\u2068g', 'abcdefg'],
      ['zero\u200Bwidth\uFEFF\u2060', 'zerowidth'],
      ['bell\u0007tab\tline\nC1\u0085\u009B', 'belltablineC1'],
      ['  \u202E spaced \u202C ', 'spaced'],
      // ZWJ sequences (and ZWNJ in scripts that need it) survive.
      ['family 👨\u200D👩\u200D👧', 'family 👨\u200D👩\u200D👧'],
      ['می\u200Cخواهم', 'می\u200Cخواهم'],
    ];
    for (const [input, expected] of cases) {
      const bot = await call(srv.url, 'POST', '/bots', { auth: u.auth, body: { name: input } });
      expect(bot.status, bot.text).toBe(201);
      expect(bot.body.name, JSON.stringify(input)).toBe(expected);
      const me = await call(srv.url, 'GET', '/users/@me', { auth: `Bot ${bot.body.token}` });
      expect(me.body.name).toBe(expected);
      const server = await call(srv.url, 'POST', '/servers', { auth: u.auth, body: { name: input } });
      expect(server.status).toBe(201);
      expect(server.body.name).toBe(expected);
    }
  });

  it('a name that is nothing but such characters is empty: 400', async () => {
    const u = await registerUser(srv.url);
    for (const name of ['\u202E', '\u200B\u200E', ' \u2066\u2069 ', '\u3164']) {
      expectError(await call(srv.url, 'POST', '/bots', { auth: u.auth, body: { name } }), 400, /empty/);
      expectError(await call(srv.url, 'POST', '/servers', { auth: u.auth, body: { name } }), 400, /empty/);
    }
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
