import fs from 'node:fs';
import net from 'node:net';
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
}

/** A free TCP port on loopback. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * A fresh PostgreSQL schema of the database at `baseUrl` (default DATABASE_URL); returns
 * a URL whose connections use it. Without a user in the URL, the login name is used, as
 * psql does (pg itself would want $USER).
 */
export async function freshPostgresSchema(
  baseUrl = process.env.DATABASE_URL,
  prefix = 't',
): Promise<{ url: string; drop(): Promise<void> }> {
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
    async drop() {
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      await c.query(`DROP SCHEMA ${schema} CASCADE`);
      await c.end();
    },
  };
}

/** Starts a real Parley on a free port with a temporary data directory. */
export async function startServer(opts: StartOptions = {}): Promise<TestServer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-test-'));
  const port = await freePort();
  const onPostgres = opts.postgres ?? process.env.TEST_DATABASE === 'postgres';
  const pgSchema = onPostgres ? await freshPostgresSchema() : undefined;
  const config = loadConfig({
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    LOG_LEVEL: 'silent',
    ...(pgSchema ? { DATABASE_URL: pgSchema.url } : {}),
    ...opts.env,
  });
  let app: App;
  try {
    app = await buildApp(config);
    await app.app.listen({ port, host: '127.0.0.1' });
  } catch (err) {
    await pgSchema?.drop().catch(() => {});
    fs.rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
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
