/**
 * Preloaded into the Parley processes that bench/messages.ts starts
 * (`node --import tsx --import ./bench/instrument.ts src/main.ts`); never part of the
 * service. It wraps the group committer to count batches and time commits, and reads the
 * durability settings on the server's own database connection (PRAGMA synchronous is
 * per connection, so a second connection to the file could not tell).
 *
 * SIGUSR2 clears the counters (the orchestrator sends it when the measured phase starts);
 * on exit the figures are written as JSON to BENCH_STATS_FILE. With BENCH_PROFILE_FILE
 * set, SIGUSR2 also starts the V8 CPU profiler, so the .cpuprofile written on exit holds
 * the measured phase only (no start-up, no set-up).
 *
 * BENCH_STMT_CACHE=1 is a what-if, not the service: it makes better-sqlite3's prepare()
 * return a cached statement for SQL it has seen, which is what a statement cache in
 * src/store/dialects/sqlite.ts would do (Kysely's SQLite driver prepares every query).
 * BENCH_COMMIT_CONCURRENCY=n is another: the group committer runs up to n batches at
 * once, which is what `new GroupCommitter(db, 256, n)` in src/store/index.ts would do.
 */
import fs from 'node:fs';
import { Session } from 'node:inspector';
import Sqlite from 'better-sqlite3';
import { type Kysely, sql } from 'kysely';
import { GroupCommitter } from '../src/store/group-commit.js';

export interface CommitStats {
  /** Settings as the server's connection sees them, e.g. { synchronous: 2, journal_mode: 'wal' }. */
  durability: Record<string, string | number>;
  batches: number;
  writes: number;
  /** Batch size → how many batches had it. */
  sizes: Record<number, number>;
  /** Total milliseconds spent inside commit (queries + COMMIT, i.e. fsync). */
  commitMs: number;
  maxCommitMs: number;
}

const statsFile = process.env.BENCH_STATS_FILE;
const stats: CommitStats = { durability: {}, batches: 0, writes: 0, sizes: {}, commitMs: 0, maxCommitMs: 0 };
let durabilityRead: Promise<void> | undefined;

async function readDurability(db: Kysely<never>): Promise<void> {
  const first = async (q: string) => {
    const { rows } = await sql.raw<Record<string, unknown>>(q).execute(db);
    const v = rows[0] ? Object.values(rows[0])[0] : undefined;
    return typeof v === 'number' || typeof v === 'bigint' ? Number(v) : String(v);
  };
  try {
    // SQLite: 2 = FULL (an fsync of the WAL at every commit).
    stats.durability.synchronous = await first('PRAGMA synchronous');
    stats.durability.journal_mode = await first('PRAGMA journal_mode');
  } catch {
    // PostgreSQL: a commit returns after its WAL is flushed when both are on.
    stats.durability.synchronous_commit = await first('SHOW synchronous_commit');
    stats.durability.fsync = await first('SHOW fsync');
    stats.durability.wal_sync_method = await first('SHOW wal_sync_method');
  }
}

if (process.env.BENCH_STMT_CACHE === '1') {
  const prepare = Sqlite.prototype.prepare;
  const caches = new WeakMap<object, Map<string, Sqlite.Statement>>();
  Sqlite.prototype.prepare = function (this: Sqlite.Database, source: string) {
    let cache = caches.get(this);
    if (!cache) caches.set(this, (cache = new Map()));
    let stmt = cache.get(source);
    if (!stmt) {
      stmt = prepare.call(this, source) as Sqlite.Statement;
      if (cache.size >= 1000) cache.clear();
      cache.set(source, stmt);
    }
    return stmt;
  } as typeof prepare;
}

const concurrency = Number(process.env.BENCH_COMMIT_CONCURRENCY ?? '');
if (Number.isInteger(concurrency) && concurrency > 0) {
  const proto = GroupCommitter.prototype as unknown as { run: (this: { concurrency: number }, ...args: unknown[]) => unknown };
  const run = proto.run;
  proto.run = function (...args) {
    this.concurrency = concurrency;
    return run.apply(this, args);
  };
}

type CommitFn = (this: { db: Kysely<never> }, batch: unknown[]) => Promise<void>;
const proto = GroupCommitter.prototype as unknown as { commit: CommitFn };
const commit = proto.commit;
if (typeof commit !== 'function') throw new Error('bench/instrument: GroupCommitter.commit not found');
proto.commit = async function (batch) {
  await (durabilityRead ??= readDurability(this.db).catch((err: unknown) => {
    stats.durability.error = String(err);
  }));
  const t0 = performance.now();
  try {
    await commit.call(this, batch);
  } finally {
    const ms = performance.now() - t0;
    stats.batches++;
    stats.writes += batch.length;
    stats.sizes[batch.length] = (stats.sizes[batch.length] ?? 0) + 1;
    stats.commitMs += ms;
    if (ms > stats.maxCommitMs) stats.maxCommitMs = ms;
  }
};

const profileFile = process.env.BENCH_PROFILE_FILE;
let profiler: Session | undefined;

process.on('SIGUSR2', () => {
  Object.assign(stats, { batches: 0, writes: 0, sizes: {}, commitMs: 0, maxCommitMs: 0 });
  if (profileFile && !profiler) {
    profiler = new Session();
    profiler.connect();
    profiler.post('Profiler.enable');
    profiler.post('Profiler.start');
  }
});
process.on('exit', () => {
  if (statsFile) fs.writeFileSync(statsFile, JSON.stringify(stats));
  // An in-thread inspector session answers synchronously, so this works in 'exit'.
  profiler?.post('Profiler.stop', (err, result) => {
    if (!err && profileFile) fs.writeFileSync(profileFile, JSON.stringify(result.profile));
  });
});
