import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { type App, buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';

export interface TestServer {
  /** Base URL, e.g. http://127.0.0.1:40123 */
  url: string;
  /** ws://127.0.0.1:40123/gateway */
  gatewayUrl: string;
  dataDir: string;
  app: App;
  close(): Promise<void>;
}

export interface StartOptions {
  /** Extra environment settings (RATE_LIMITS, MAX_UPLOAD_BYTES, ...). */
  env?: Record<string, string>;
  /**
   * Run on PostgreSQL (needs DATABASE_URL) in a schema of its own. Defaults to
   * TEST_DATABASE=postgres, so a whole HTTP suite can be re-run on PostgreSQL.
   */
  postgres?: boolean;
  /** Runs before the service starts, on its empty database: to seed what an earlier version left. */
  before?: (where: { dataDir: string; databaseUrl?: string; schema?: string }) => Promise<void>;
  /** The service's clock (`AppDeps.clock`), e.g. a `TestClock` the test moves on. */
  clock?: () => number;
}

/**
 * The first match of `pattern` in what `child` writes to stdout or stderr: how a process
 * started with port 0 tells where it listens. Attach right after spawning. Rejects when
 * the child exits first, or after `timeoutMs`, with what it wrote.
 */
export function announced(child: ChildProcess, pattern: RegExp, timeoutMs = 30_000): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const finish = (err: Error | null, m?: RegExpExecArray) => {
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.stderr?.off('data', onData);
      child.off('exit', onExit);
      if (m) resolve(m);
      else reject(err);
    };
    const onData = (d: Buffer) => {
      seen += d.toString();
      const m = pattern.exec(seen);
      if (m) finish(null, m);
    };
    const onExit = (code: number | null) => finish(new Error(`exited (${code}) before printing ${pattern}:\n${seen}`));
    const timer = setTimeout(() => finish(new Error(`printed no ${pattern} within ${timeoutMs} ms:\n${seen}`)), timeoutMs);
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', onExit);
  });
}

/** What `src/main.ts` prints once it listens; group 1 is the bound address, e.g. http://127.0.0.1:40123. */
export const PARLEY_LISTENING = /Parley is running at \S+ \(listening on (http:\/\/[^\s)]+)\)/;

/**
 * A fresh PostgreSQL schema of the database at `baseUrl` (default DATABASE_URL); returns
 * a URL whose connections use it. Without a user in the URL, the login name is used, as
 * psql does (pg itself would want $USER).
 */
export async function freshPostgresSchema(
  baseUrl = process.env.DATABASE_URL,
  prefix = 't',
): Promise<{ url: string; schema: string; drop(): Promise<void> }> {
  if (!baseUrl) throw new Error('DATABASE_URL is not set');
  const withUser = new URL(baseUrl);
  if (!withUser.username) withUser.username = os.userInfo().username;
  const base = withUser.toString();
  const schema = `${prefix}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  const u = new URL(base);
  u.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: u.toString(),
    schema,
    async drop() {
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      await c.query(`DROP SCHEMA ${schema} CASCADE`);
      await c.end();
    },
  };
}

/**
 * Starts a real Parley with a temporary data directory on a port the system assigns
 * (PORT=0): nothing picks a number first that another process could take before we bind.
 * PUBLIC_URL's port 0 becomes that port once the server listens (`withListeningPort`).
 */
export async function startServer(opts: StartOptions = {}): Promise<TestServer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-test-'));
  const onPostgres = opts.postgres ?? process.env.TEST_DATABASE === 'postgres';
  const pgSchema = onPostgres ? await freshPostgresSchema() : undefined;
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    PUBLIC_URL: 'http://127.0.0.1:0',
    LOG_LEVEL: 'silent',
    ...(pgSchema ? { DATABASE_URL: pgSchema.url } : {}),
    // Presence reaches no server unless a suite asks (presence.test.ts): other suites'
    // exact event sequences stay free of people coming and going.
    PRESENCE_FANOUT_MAX: '0',
    // Typing goes out at once unless a suite asks for the window (coalescing.test.ts): the
    // suites that use a logged event as a fence after typing need it sent by then.
    GATEWAY_TYPING_WINDOW_MS: '0',
    ...opts.env,
  });
  let built: App | undefined;
  let port: number;
  try {
    await opts.before?.({ dataDir, ...(pgSchema ? { databaseUrl: pgSchema.url, schema: pgSchema.schema } : {}) });
    built = await buildApp(config, opts.clock ? { clock: opts.clock } : {});
    await built.app.listen({ port: 0, host: '127.0.0.1' });
    port = (built.app.server.address() as AddressInfo).port;
    // Every link the server writes starts with its public URL: one still saying port 0 fails here.
    if (!opts.env?.PUBLIC_URL && built.ctx.publicUrl !== `http://127.0.0.1:${port}`) {
      throw new Error(`public URL ${built.ctx.publicUrl} is not the listening address (port ${port})`);
    }
  } catch (err) {
    await built?.close().catch(() => {});
    await pgSchema?.drop().catch(() => {});
    fs.rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
  const app = built;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    gatewayUrl: `ws://127.0.0.1:${port}/gateway`,
    dataDir,
    app,
    async close() {
      await app.close();
      await pgSchema?.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
