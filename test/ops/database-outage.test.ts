import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { call, world } from '../factories.js';
import { type TestServer, freshPostgresSchema, startServer } from '../harness.js';
import { storeDialects } from '../store/dialects.js';

/**
 * The database goes away for a few seconds while requests and interaction windows run
 * (docs/security.md, "Failures"): on SQLite another connection holds an exclusive lock
 * on the file; on PostgreSQL this service's connections are cut again and again. Requests
 * meanwhile may fail, as JSON 503 `service_unavailable`; the process stays up, no promise is left unhandled,
 * and every message acknowledged with a 2xx is there afterwards.
 */

/**
 * How long the database is away: on SQLite past the 5 s busy_timeout, so writes waiting
 * on the lock fail rather than only wait; on PostgreSQL long enough for many cuts.
 */
const OUTAGE_MS = { sqlite: 6500, postgres: 4000 } as const;

interface Outage {
  /** Ends the outage; resolves once the database is usable again from outside. */
  end(): Promise<void>;
}

/** SQLite: an exclusive lock held from another connection (writes wait, then fail). */
function lockSqlite(srv: TestServer): Outage {
  const db = new Database(path.join(srv.dataDir, 'parley.db'));
  db.pragma('busy_timeout = 10000');
  db.exec('BEGIN EXCLUSIVE');
  return {
    async end() {
      db.exec('COMMIT');
      db.close();
    },
  };
}

/** PostgreSQL: every connection of this server (its application_name) terminated, every 100 ms. */
async function cutPostgres(baseUrl: string, applicationName: string): Promise<Outage> {
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  const cut = () =>
    admin.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1 AND pid <> pg_backend_pid()',
      [applicationName],
    );
  await cut();
  let cutting = true;
  const loop = (async () => {
    while (cutting) {
      await cut();
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return {
    async end() {
      cutting = false;
      await loop;
      await admin.end();
    },
  };
}

/** A bot's interactions endpoint: pong to the ping, a message to every command. */
async function endpoint(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', () => {
      const type = (JSON.parse(body) as { type: string }).type;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(type === 'ping' ? { type: 'pong' } : { type: 'message', data: { content: 'pong' } }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/i`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

let srv: TestServer | undefined;
let dropSchema: (() => Promise<void>) | undefined;
let bot: Awaited<ReturnType<typeof endpoint>> | undefined;
afterEach(async () => {
  await srv?.close();
  await bot?.close();
  bot = undefined;
  await dropSchema?.();
  srv = undefined;
  dropSchema = undefined;
});

describe.each(storeDialects())('the database goes away for a few seconds (%s)', (dialect) => {
  it('the service stays up, answers JSON errors meanwhile, recovers, and loses no acknowledged write', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (err: unknown) => unhandled.push(err);
    process.on('unhandledRejection', onUnhandled);
    process.on('uncaughtException', onUnhandled);
    try {
      const env: Record<string, string> = { RATE_LIMITS: 'off', INTERACTION_CALLBACK_MS: '300', OUTGOING_ALLOW_PRIVATE: 'true' };
      let applicationName = '';
      if (dialect === 'postgres') {
        const fresh = await freshPostgresSchema();
        dropSchema = fresh.drop;
        applicationName = `parley_outage_${fresh.schema}`;
        const u = new URL(fresh.url);
        u.searchParams.set('application_name', applicationName);
        env.DATABASE_URL = u.toString();
      }
      srv = await startServer({ postgres: false, env });
      const base = srv.url;
      const w = await world(base);
      expect(
        (await call(base, 'PUT', `/bots/${w.bot.id}/commands`, { auth: w.bot.auth, body: [{ name: 'ping', description: 'Ping' }] })).status,
      ).toBe(200);
      // Interactions go over HTTP (delivered in the background); each also arms its window's timer.
      bot = await endpoint();
      const set = await call(base, 'PATCH', `/bots/${w.bot.id}`, { auth: w.owner.auth, body: { interactionsUrl: bot.url } });
      expect(set.status, set.text).toBe(200);

      const acknowledged: string[] = [];
      const statuses: number[] = [];
      const badAnswers: string[] = [];
      let n = 0;
      /** One message and, every third, an interaction (whose window ends unanswered, in the outage). */
      const traffic = async (until: () => boolean) => {
        while (!until()) {
          const i = n++;
          const r = await call(base, 'POST', `/channels/${w.channel.id}/messages`, { auth: w.owner.auth, body: { content: `m${i}` } });
          statuses.push(r.status);
          if (r.status >= 200 && r.status < 300) acknowledged.push(r.body.id);
          // The database's failure, and a passing one: 503, never a 500 that reads as a bug.
          else if (r.status !== 503 || typeof r.body?.error !== 'string' || r.body?.code !== 'service_unavailable')
            badAnswers.push(`${r.status} ${r.text}`);
          if (i % 3 === 0) {
            const x = await call(base, 'POST', `/channels/${w.channel.id}/interactions`, {
              auth: w.owner.auth,
              body: { type: 'command', botId: w.bot.id, name: 'ping' },
            });
            if (x.status !== 202 && (x.status !== 503 || x.body?.code !== 'service_unavailable')) badAnswers.push(`${x.status} ${x.text}`);
          }
        }
      };

      // Written before: these must survive too.
      await traffic(() => n >= 3);
      const outage = dialect === 'sqlite' ? lockSqlite(srv) : await cutPostgres(process.env.DATABASE_URL!, applicationName);
      const started = Date.now();
      const clients = Promise.all([0, 1, 2].map(() => traffic(() => Date.now() - started > OUTAGE_MS[dialect])));
      // The outage lasts OUTAGE_MS whatever the requests do; those waiting on it then finish.
      await new Promise((r) => setTimeout(r, OUTAGE_MS[dialect]));
      await outage.end();
      await clients;

      // Recovery: the next write is acknowledged (the first after a cut may still meet a dead connection).
      let recovered = false;
      for (let attempt = 0; attempt < 50 && !recovered; attempt++) {
        const r = await call(base, 'POST', `/channels/${w.channel.id}/messages`, { auth: w.owner.auth, body: { content: 'after' } });
        if (r.status === 201 || r.status === 200) {
          acknowledged.push(r.body.id);
          recovered = true;
        } else await new Promise((res) => setTimeout(res, 100));
      }
      expect(recovered).toBe(true);
      expect((await call(base, 'GET', '/healthz')).status).toBe(200);

      expect(badAnswers).toEqual([]);
      // The outage was felt: some request was answered 503 (so the check above had something to judge).
      expect(statuses).toContain(503);
      expect(acknowledged.length).toBeGreaterThan(2);
      for (const id of acknowledged) {
        const r = await call(base, 'GET', `/channels/${w.channel.id}/messages/${id}`, { auth: w.owner.auth });
        expect(r.status, `acknowledged message ${id}`).toBe(200);
      }
      // The interaction deliveries and windows that failed in the outage were reported, not left unhandled.
      await new Promise((r) => setImmediate(r));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      process.off('uncaughtException', onUnhandled);
    }
  }, 60_000);
});
