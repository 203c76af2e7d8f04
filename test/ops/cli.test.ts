/**
 * The `parley` command (docs/deploy.md#the-parley-command, issue 16), run as a child process against a
 * real service: backup under write load and restore, the data directory's lock, account
 * administration while the service runs, help and exit codes; and, when DATABASE_URL is
 * set, the same account commands on PostgreSQL.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createBot, createServer, registerUser, upload } from '../factories.js';
import { TestGatewayClient } from '../gateway/client.js';
import { type TestServer, startServer } from '../harness.js';
import { parley } from './cli.js';

const PASSWORD = 'correct horse battery';
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-cli-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

async function login(base: string, username: string, password: string) {
  return call(base, 'POST', '/auth/login', { body: { username, password } });
}

/** Every message id of a channel, through the API, paging back from the newest. */
async function allMessages(base: string, auth: string, channelId: string): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  let before = '';
  for (;;) {
    const r = await call(base, 'GET', `/channels/${channelId}/messages?limit=100${before ? `&before=${before}` : ''}`, { auth });
    expect(r.status, r.text).toBe(200);
    const page: string[] = r.body.map((m: { id: string; content: string }) => {
      ids.set(m.id, m.content);
      return m.id;
    });
    if (page.length < 100) return ids;
    before = page.reduce((a, b) => (BigInt(a) < BigInt(b) ? a : b));
  }
}

describe('backup and restore', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startServer({ env: { RATE_LIMITS: 'off' } });
  });
  afterAll(() => srv?.close());

  it('a backup taken under write load restores every message acknowledged before it began, and the uploads', async () => {
    const owner = await registerUser(srv.url);
    const { general } = await createServer(srv.url, owner);
    const up = await upload(srv.url, owner.auth, 'the bytes of a file', 'notes.txt', 'text/plain');
    expect(up.status, up.text).toBe(200);

    // Writers post without pause; each id is recorded with when its 201 arrived.
    const acked: Array<{ id: string; at: number }> = [];
    let stop = false;
    let warmedUp: () => void;
    const warm = new Promise<void>((resolve) => {
      warmedUp = resolve;
    });
    const writer = async (w: number) => {
      for (let i = 0; !stop; i++) {
        const r = await call(srv.url, 'POST', `/channels/${general.id}/messages`, { auth: owner.auth, body: { content: `w${w} ${i}` } });
        expect(r.status, r.text).toBe(201);
        acked.push({ id: r.body.id, at: performance.now() });
        if (acked.length === 60) warmedUp();
      }
    };
    const writers = [0, 1, 2].map(writer);
    // Until some messages are acknowledged (a writer that fails ends the test).
    await Promise.race([Promise.all(writers), warm]);
    const began = performance.now();
    const before = acked.filter((a) => a.at < began).map((a) => a.id);
    const file = path.join(tmp, 'load.db');
    const run = await parley(['backup', file], { DATA_DIR: srv.dataDir });
    const writtenDuring = acked.filter((a) => a.at >= began).length;
    stop = true;
    await Promise.all(writers);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/Backed up .* to .*load\.db .*integrity ok/);
    expect(run.stdout).toMatch(/Copied 1 uploaded file/);
    // The service kept answering while the copy ran.
    expect(writtenDuring).toBeGreaterThan(0);
    expect(fs.existsSync(`${file}.partial`)).toBe(false);

    const restored = await startServer({
      before: async ({ dataDir }) => {
        const r = await parley(['restore', file], { DATA_DIR: dataDir });
        expect(r.code, r.stderr).toBe(0);
        expect(r.stdout).toMatch(/Restored .*load\.db .* with 1 uploaded file/);
      },
    });
    try {
      const session = await login(restored.url, owner.name, PASSWORD);
      expect(session.status, session.text).toBe(200);
      const auth = `Bearer ${session.body.token}`;
      const ids = await allMessages(restored.url, auth, general.id);
      const missing = before.filter((id) => !ids.has(id));
      expect(missing, `${missing.length} of ${before.length} acknowledged messages missing`).toEqual([]);
      // The search index is not in the backup: it is built from the restored messages.
      const found = await call<{ total: number }>(restored.url, 'GET', '/search/messages?q=w1', { auth });
      expect(found.status, found.text).toBe(200);
      const byWriter1 = [...ids.values()].filter((content) => content.startsWith('w1 ')).length;
      expect(byWriter1).toBeGreaterThan(0);
      expect(found.body.total).toBe(Math.min(byWriter1, 10_000)); // `total` counts up to 10,000
      const file = await fetch(`${restored.url}${new URL(up.body.url).pathname}`);
      expect(file.status).toBe(200);
      expect(await file.text()).toBe('the bytes of a file');
    } finally {
      await restored.close();
    }
  }, 90_000);

  it('restore refuses while a service runs on the data directory, and a second service refuses to start there', async () => {
    const file = path.join(tmp, 'lock.db');
    expect((await parley(['backup', file], { DATA_DIR: srv.dataDir })).code).toBe(0);
    const r = await parley(['restore', file, '--force'], { DATA_DIR: srv.dataDir });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/a Parley \(pid \d+\) is running on .*; stop it before restoring/);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace

    const second = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: path.resolve(import.meta.dirname, '..', '..'),
      env: { ...process.env, DATA_DIR: srv.dataDir, PORT: '0', HOST: '127.0.0.1', DATABASE_URL: '', REDIS_URL: '', LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    second.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const code = await new Promise<number | null>((resolve) => second.on('close', resolve));
    expect(code).toBe(1);
    expect(stderr).toMatch(/another Parley \(pid \d+\) is running on .*; stop it first/);
  }, 30_000);

  it('restore refuses an existing database without --force, keeps it aside with it, and refuses damaged or newer backups', async () => {
    const file = path.join(tmp, 'force.db');
    expect((await parley(['backup', file], { DATA_DIR: srv.dataDir })).code).toBe(0);
    // A backup is not overwritten by accident either.
    const again = await parley(['backup', file], { DATA_DIR: srv.dataDir });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already exists; choose a new name or add --force/);

    const dataDir = path.join(tmp, 'target');
    expect((await parley(['restore', file], { DATA_DIR: dataDir })).code).toBe(0);
    const refused = await parley(['restore', file], { DATA_DIR: dataDir });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/parley\.db already exists; add --force/);
    const forced = await parley(['restore', file, '--force'], { DATA_DIR: dataDir });
    expect(forced.code, forced.stderr).toBe(0);
    const aside = /The files it replaced are in (\S+)/.exec(forced.stdout)?.[1];
    expect(aside).toBeDefined();
    expect(fs.existsSync(path.join(aside!, 'parley.db'))).toBe(true);
    expect(fs.existsSync(path.join(aside!, 'uploads'))).toBe(true);

    const garbage = path.join(tmp, 'garbage.db');
    fs.writeFileSync(garbage, 'this is not a database at all, just some text '.repeat(100));
    const bad = await parley(['restore', garbage, '--force'], { DATA_DIR: dataDir });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/not a SQLite database|integrity/);

    const newer = path.join(tmp, 'newer.db');
    fs.copyFileSync(file, newer);
    const db = new Database(newer);
    db.prepare('insert into kysely_migration (name, timestamp) values (?, ?)').run('9999_from_the_future', new Date().toISOString());
    db.close();
    const future = await parley(['restore', newer, '--force'], { DATA_DIR: dataDir });
    expect(future.code).toBe(1);
    expect(future.stderr).toMatch(/comes from a newer Parley \(its schema has 9999_from_the_future\)/);
  }, 30_000);
});

/** The account commands against a running service: the CLI changes the database, the service sees it. */
function accountSuite(postgres: boolean) {
  let srv: TestServer;
  let env: Record<string, string>;
  beforeAll(async () => {
    let databaseUrl: string | undefined;
    srv = await startServer({
      postgres,
      env: { RATE_LIMITS: 'off', REVOCATION_POLL_MS: '100' },
      before: async (w) => {
        databaseUrl = w.databaseUrl;
      },
    });
    env = { DATA_DIR: srv.dataDir, ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) };
  });
  afterAll(() => srv?.close());

  it('users create makes an account that logs in; a generated password is printed once; the rules of registration apply', async () => {
    const name = `made${Date.now().toString(36)}`;
    const r = await parley(['users', 'create', name, '--generate'], env);
    expect(r.code, r.stderr).toBe(0);
    const password = /Password: (\S+)/.exec(r.stdout)?.[1];
    expect(password).toHaveLength(24);
    expect((await login(srv.url, name, password!)).status).toBe(200);

    const taken = await parley(['users', 'create', name.toUpperCase(), '--password-stdin'], env, 'another good password\n');
    expect(taken.code).toBe(1);
    expect(taken.stderr).toMatch(/username is taken/);
    const weak = await parley(['users', 'create', `${name}x`, '--password-stdin'], env, 'password\n');
    expect(weak.code).toBe(1);
    expect(weak.stderr).toMatch(/password is too easy to guess: it is a common password/);
    const walk = await parley(['users', 'create', `${name}y`, '--password-stdin'], env, 'qwertyui\n');
    expect(walk.code).toBe(1);
    expect(walk.stderr).toMatch(/password is too easy to guess/);
    const badName = await parley(['users', 'create', 'no spaces', '--generate'], env);
    expect(badName.code).toBe(1);
    expect(badName.stderr).toMatch(/username must be 2 to 32 characters/);
  }, 30_000);

  it('users reset-password: the old password fails, the new one works, and every session ends (gateway too)', async () => {
    const person = await registerUser(srv.url);
    const gw = await TestGatewayClient.identify(srv.gatewayUrl, person.auth);
    const r = await parley(['users', 'reset-password', person.name, '--password-stdin'], env, 'a brand new password 42\n');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/ended 1 session\b/);
    expect(r.stdout).not.toContain('a brand new password 42');
    expect((await call(srv.url, 'GET', '/users/@me', { auth: person.auth })).status).toBe(401);
    expect((await gw.closed).code).toBe(4001);
    expect((await login(srv.url, person.name, PASSWORD)).status).toBe(401);
    expect((await login(srv.url, person.name, 'a brand new password 42')).status).toBe(200);
  }, 30_000);

  it('users reset-password --password-stdin takes the first line only, whatever follows; a guessable one is refused', async () => {
    const person = await registerUser(srv.url);
    const r = await parley(['users', 'reset-password', person.name, '--password-stdin'], env, 'first line lantern 7\r\nsecond line 8\n');
    expect(r.code, r.stderr).toBe(0);
    expect((await login(srv.url, person.name, 'first line lantern 7')).status).toBe(200);
    for (const wrong of ['first line lantern 7\r\nsecond line 8', 'first line lantern 7\r\nsecond line 8\n', 'second line 8']) {
      expect((await login(srv.url, person.name, wrong)).status).toBe(401);
    }

    const weak = await parley(['users', 'reset-password', person.name, '--password-stdin'], env, 'aaaaaaaa\n');
    expect(weak.code).toBe(1);
    expect(weak.stderr).toMatch(/password is too easy to guess: it repeats a character/);
    expect((await login(srv.url, person.name, 'first line lantern 7')).status).toBe(200);
  }, 30_000);

  it('users disable: login refused with account_disabled, sessions and bots stop at once, gateways close; enable undoes it', async () => {
    const person = await registerUser(srv.url);
    await createServer(srv.url, person);
    const bot = await createBot(srv.url, person);
    const gw = await TestGatewayClient.identify(srv.gatewayUrl, person.auth);
    const botGw = await TestGatewayClient.identify(srv.gatewayUrl, bot.auth);
    // Served once before, so the instance holds both in its access cache: the CLI's write
    // from another process must still take effect on the next request (access_epoch).
    expect((await call(srv.url, 'GET', '/users/@me', { auth: person.auth })).status).toBe(200);
    expect((await call(srv.url, 'GET', '/users/@me', { auth: bot.auth })).status).toBe(200);

    const r = await parley(['users', 'disable', person.name], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Disabled .*: ended 1 session, stopped 1 bot/);
    expect((await call(srv.url, 'GET', '/users/@me', { auth: person.auth })).status).toBe(401);
    const botCall = await call(srv.url, 'GET', '/users/@me', { auth: bot.auth });
    expect(botCall.status).toBe(403);
    expect(botCall.body.code).toBe('account_disabled');
    const refused = await login(srv.url, person.name, PASSWORD);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('account_disabled');
    // Only the right password learns that the account exists and is disabled.
    expect((await login(srv.url, person.name, 'not the password at all')).body.code).toBe('invalid_credentials');
    expect((await gw.closed).code).toBe(4001);
    expect((await botGw.closed).code).toBe(4001);
    const again = await parley(['users', 'disable', person.name], env);
    expect(again.stdout).toMatch(/was already disabled/);

    const on = await parley(['users', 'enable', person.name], env);
    expect(on.code, on.stderr).toBe(0);
    expect(on.stdout).toMatch(/Enabled .* and 1 bot/);
    expect((await login(srv.url, person.name, PASSWORD)).status).toBe(200);
    expect((await call(srv.url, 'GET', '/users/@me', { auth: bot.auth })).status).toBe(200);

    const unknown = await parley(['users', 'disable', 'nobody_by_that_name'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no account named "nobody_by_that_name"/);
  }, 30_000);
}

describe('users commands (SQLite)', () => accountSuite(false));

describe.skipIf(!process.env.DATABASE_URL)('on PostgreSQL', () => {
  accountSuite(true);

  it('backup and restore explain pg_dump and pg_restore, exit 3, and never print the password', async () => {
    const url = 'postgres://parley:s3cret-pw@db.example:5432/parley';
    const b = await parley(['backup', 'x.db'], { DATABASE_URL: url });
    expect(b.code).toBe(3);
    expect(b.stdout).toMatch(/pg_dump --format=custom .*'postgres:\/\/parley@db\.example:5432\/parley'/);
    expect(b.stdout + b.stderr).not.toContain('s3cret-pw');
    const r = await parley(['restore', 'x.dump'], { DATABASE_URL: url });
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(/pg_restore/);
    expect(r.stdout + r.stderr).not.toContain('s3cret-pw');
  });
});

describe('help, usage and migrate', () => {
  it('--help of each command exits 0 with its usage; unknown commands and wrong arguments exit 2', async () => {
    const commands = [
      [],
      ['backup'],
      ['restore'],
      ['users'],
      ['users', 'create'],
      ['users', 'reset-password'],
      ['users', 'disable'],
      ['users', 'enable'],
      ['migrate'],
    ];
    const helps = await Promise.all(commands.map((c) => parley([...c, '--help'], { DATA_DIR: tmp })));
    helps.forEach((h, i) => {
      expect(h.code, h.stderr).toBe(0);
      expect(h.stdout).toContain(`Usage: parley ${commands[i]!.length ? commands[i]!.join(' ') : '<command>'}`);
    });
    const wrong = await Promise.all([
      parley(['frobnicate'], { DATA_DIR: tmp }),
      parley(['users', 'frobnicate', 'x'], { DATA_DIR: tmp }),
      parley(['backup'], { DATA_DIR: tmp }),
      parley(['users', 'create', 'alice', '--password-stdin', '--generate'], { DATA_DIR: tmp }),
      parley(['migrate', '--no-such-flag'], { DATA_DIR: tmp }),
    ]);
    for (const w of wrong) {
      expect(w.code).toBe(2);
      expect(w.stderr).toMatch(/^parley: .*\n\nUsage: parley/);
    }
  }, 30_000);

  it('migrate brings a new database up to date and lists what ran; --status lists them applied', async () => {
    const dataDir = path.join(tmp, 'migrate');
    const first = await parley(['migrate', '--status'], { DATA_DIR: dataDir });
    expect(first.stdout).toMatch(/^pending {2}0001_initial$/m);
    const ran = await parley(['migrate'], { DATA_DIR: dataDir });
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toMatch(/^Ran \d+ migrations:\n {2}0001_initial\n/);
    expect(ran.stdout).toContain('0011_disabled_accounts');
    const status = await parley(['migrate', '--status'], { DATA_DIR: dataDir });
    expect(status.stdout).not.toContain('pending');
    expect(status.stdout).toMatch(/^applied {2}0011_disabled_accounts {2}\S+$/m);
    expect((await parley(['migrate'], { DATA_DIR: dataDir })).stdout).toMatch(/up to date/);
  }, 30_000);
});
