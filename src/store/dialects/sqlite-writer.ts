import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import {
  CompiledQuery,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type Kysely,
  type QueryCompiler,
  type QueryResult,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from 'kysely';
import type { QueryRunner } from './types.js';

/**
 * A query whose SQL starts with this runs its statement once for each element of its
 * parameters (each a parameter list), in one message to the writer thread (`runEach`).
 */
const EACH = '/* each */ ';

/** A query with this SQL runs its parameters as a script (`SqliteWriterDialect.script`). */
const SCRIPT = '/* script */';

/**
 * What runs the writer connection's queries, in JavaScript source, so that the writer
 * thread (CommonJS, run with `eval`: no file of its own in the build or the bundle) and the
 * event loop run the very same code. `runner(db)` caches statements by SQL text and returns
 * `run(sql, params)`, which answers `[rows, changes, lastInsertRowid]` or throws:
 * - `EACH` + sql: the statement for each parameter list in `params`;
 * - `SCRIPT`: `params` (or its JSON) is a list of steps `[sql, params, each]`, run in order,
 *   all or nothing (a failing step rolls back a transaction the script began); the answer
 *   is the last step that read (none: the last step);
 * - anything else: one statement.
 */
const RUNNER = `
function runner(db) {
  const EACH = ${JSON.stringify(EACH)};
  const SCRIPT = ${JSON.stringify(SCRIPT)};
  const statements = new Map();
  function prepare(sql) {
    let stmt = statements.get(sql);
    if (!stmt) {
      if (statements.size >= 1000) statements.clear();
      stmt = db.prepare(sql);
      statements.set(sql, stmt);
    }
    return stmt;
  }
  function step(sql, params, each) {
    const stmt = prepare(sql);
    if (each) {
      for (const p of params) stmt.run(p);
      return [[], params.length, undefined];
    }
    if (stmt.reader) return [stmt.all(params), undefined, undefined, true];
    const r = stmt.run(params);
    return [[], r.changes, r.lastInsertRowid];
  }
  return function run(sql, params) {
    if (sql !== SCRIPT) return step(sql, params, sql.startsWith(EACH));
    const steps = typeof params === 'string' ? JSON.parse(params) : params;
    const began = !db.inTransaction;
    let last;
    let read;
    try {
      for (const s of steps) {
        last = step(s[0], s[1], s[2]);
        if (last[3]) read = last;
      }
    } catch (e) {
      if (began && db.inTransaction) db.prepare('rollback').run();
      throw e;
    }
    return read ?? last;
  };
}
`;

/**
 * The writer thread: one connection, one message in and one out per query, in order.
 * In: `[id, sql, params]` (a script's params as one JSON string: much cheaper to pass
 * between threads than many small values). Out: `[id, rows, changes, lastInsertRowid]`,
 * or `[id, null, { message, code, name }]` when the query failed. The first message out
 * (id 0) says whether the connection opened; `[-1]` in closes it and ends the thread.
 */
const WRITER_THREAD = `${RUNNER}
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const failure = (e) => ({ message: String(e && e.message), code: e && e.code, name: e && e.name });
let db;
let run;
try {
  db = new Database(workerData.file);
  db.defaultSafeIntegers(true);
  for (const p of workerData.pragmas) db.pragma(p);
  for (const [name, file] of workerData.attach) db.prepare('attach ? as ' + name).run(file);
  if (workerData.nice) {
    // Linux: a thread's own id, from /proc, takes a priority of its own. Elsewhere it keeps the process's.
    try {
      const tid = Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop());
      require('node:os').setPriority(tid, workerData.nice);
    } catch {}
  }
  run = runner(db);
  parentPort.postMessage([0, []]);
} catch (e) {
  parentPort.postMessage([0, null, failure(e)]);
}
parentPort.on('message', (m) => {
  if (m[0] === -1) {
    if (db) db.close();
    parentPort.close();
    return;
  }
  let r;
  try {
    r = run(m[1], m[2]);
  } catch (e) {
    parentPort.postMessage([m[0], null, failure(e)]);
    return;
  }
  parentPort.postMessage([m[0], r[0], r[1], r[2]]);
});
`;

type Run = (sql: string, params: unknown) => [rows: unknown[], changes: unknown, lastInsertRowid: unknown];
// Our own constant source, compiled once: the event loop's copy of the writer thread's runner.
const localRunner = new Function(`${RUNNER}\nreturn runner;`)() as (db: Database.Database) => Run;

/**
 * Where the writer's queries run:
 * - `off`: on the event loop, always;
 * - `on`: on the writer thread, always;
 * - `auto` (the default): on the event loop until a second brings `startAt` statements or
 *   more (a message is one), then on the thread until `quietSeconds` seconds in a row
 *   bring fewer than `quietBelow` each. An idle instance keeps no thread (a Node thread is
 *   ~7 MB of resident memory); a busy one keeps its event loop free.
 */
export interface WriterThreadPolicy {
  thread: 'auto' | 'on' | 'off';
  startAt?: number;
  quietBelow?: number;
  quietSeconds?: number;
  /**
   * `auto` only: instead of counting statements, be on a thread exactly while this writer
   * is (checked once a second). The search index's writer follows the database's: its
   * catch-ups are few statements of many rows each, and are worth a thread only while
   * messages arrive fast enough to need one.
   */
  follows?: { readonly onThread: boolean };
}

/** Where the writer opens the database, and how. */
export interface WriterThreadOptions {
  file: string;
  /** Run in order right after opening, e.g. `synchronous = FULL`. */
  pragmas: string[];
  /** Other database files attached after the pragmas, by schema name. */
  attach?: Record<string, string>;
  /** The thread's priority, as `nice` (19 lowest), where the system allows one per thread (Linux). */
  nice?: number;
  policy?: WriterThreadPolicy;
}

type Reply = [id: number, rows: unknown[] | null, changes: unknown, lastInsertRowid: unknown];

function toError(f: { message: string; code?: unknown; name?: unknown }): Error {
  const err = new Error(f.message) as Error & { code?: unknown };
  if (typeof f.name === 'string') err.name = f.name;
  if (f.code !== undefined) err.code = f.code;
  return err;
}

function result<R>(rows: unknown[], changes: unknown, lastInsertRowid: unknown): QueryResult<R> {
  return {
    rows: rows as R[],
    ...(changes !== undefined ? { numAffectedRows: BigInt(changes as number | bigint) } : {}),
    ...(lastInsertRowid !== undefined ? { insertId: BigInt(lastInsertRowid as number | bigint) } : {}),
  };
}

/**
 * SQLite's writer connection, which can run on a thread of its own. better-sqlite3 is
 * synchronous: on the event loop, every statement of a group commit, its COMMIT (the fsync
 * of the WAL, `synchronous = FULL`), every search-index catch-up and every checkpoint stop
 * the process for as long as they take. On the writer thread, Kysely's connection sends
 * each query there and awaits the answer, and the event loop parses, authorises and
 * answers requests meanwhile. Queries run one at a time and in order either way, as on one
 * connection: a transaction is the same statements (BEGIN ... COMMIT), so nothing above
 * the driver changes, and a COMMIT that resolved is on disk.
 *
 * When the thread starts or stops (`WriterThreadPolicy`), the driver waits until nobody
 * uses the connection, then moves: both ends are connections to the same file, used one at
 * a time. Reads outside a transaction stay on the event loop's own read connection (the
 * adapter's `readKysely`).
 */
export class SqliteWriterDialect implements Dialect {
  private driver: WriterDriver | undefined;

  constructor(private readonly opts: WriterThreadOptions) {}

  /**
   * Runs `steps` in order as one query, all or nothing (a failing step rolls back a
   * transaction the script began, then rejects), and resolves with the last reading step's
   * rows (none: the last step's). A group commit of messages alone is one script: BEGIN, the
   * inserts, the epoch read, COMMIT. On the thread, scripts do not wait for each other's
   * answers: the next is sent while the thread still runs the one before (each is whole, so
   * none can see another half done), and a transaction or query through Kysely waits until
   * none is in flight.
   */
  script<R>(steps: readonly ScriptStep[]): Promise<R[]> {
    if (!this.driver) return Promise.reject(new Error('the SQLite writer is not open'));
    return this.driver.script<R>(steps);
  }

  /** Whether the writer's queries run on its thread now. */
  get onThread(): boolean {
    return this.driver?.onThread ?? false;
  }

  /** Opens the connection for `script` alone, without a Kysely instance over it. */
  async open(): Promise<void> {
    if (this.driver) return;
    const driver = this.createDriver() as WriterDriver;
    await driver.init();
  }

  /** Closes what `open` opened. */
  async close(): Promise<void> {
    await this.driver?.destroy();
    this.driver = undefined;
  }

  createAdapter(): DialectAdapter {
    return new SqliteAdapter();
  }

  createDriver(): Driver {
    this.driver = new WriterDriver(this.opts);
    return this.driver;
  }

  createQueryCompiler(): QueryCompiler {
    return new SqliteQueryCompiler();
  }

  createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new SqliteIntrospector(db);
  }
}

/**
 * Runs `sql`, prepared once, for each of `rows` (parameter lists), as one query: a group
 * commit's messages cost one round trip to the writer thread, not one each.
 */
export async function runEach(db: QueryRunner, sql: string, rows: readonly unknown[][]): Promise<void> {
  await db.executeQuery(CompiledQuery.raw(EACH + sql, rows as unknown[]));
}

/** One statement of a script: its SQL, its parameters, and whether they are a list of parameter lists (`runEach`). */
export interface ScriptStep {
  sql: string;
  params?: readonly unknown[];
  each?: boolean;
}

/** A script as the runner takes it: `[sql, params, each]` a step. */
type ScriptWire = Array<[sql: string, params: readonly unknown[], each: boolean]>;

/** A connection whose queries can also be scripts (`runScript`). */
interface WriterConnection extends DatabaseConnection {
  runScript<R>(script: ScriptWire): Promise<QueryResult<R>>;
}

class WriterDriver implements Driver {
  private local: LocalConnection | undefined;
  private thread: ThreadConnection | undefined;
  /** Whether Kysely holds the connection (a transaction, a query, a move), and scripts in flight. */
  private held = false;
  private scripts = 0;
  /** Who waits for the connection: Kysely's users alone, scripts together; first come, first served. */
  private readonly waiting: Array<{ script: boolean; go: () => void }> = [];
  private readonly policy: Required<Omit<WriterThreadPolicy, 'follows'>> & Pick<WriterThreadPolicy, 'follows'>;
  /** `auto`: statements this second (`counted`), and quiet seconds in a row on the thread. */
  private count = 0;
  private quiet = 0;
  private monitor: NodeJS.Timeout | undefined;
  private moving = false;
  /** The move under way (`tick`): `destroy` waits for it, so no thread outlives the close. */
  private moved: Promise<void> | undefined;
  private destroyed = false;

  constructor(private readonly opts: WriterThreadOptions) {
    this.policy = { thread: 'auto', startAt: 500, quietBelow: 50, quietSeconds: 30, ...opts.policy };
  }

  get onThread(): boolean {
    return this.thread !== undefined;
  }

  private get connection(): WriterConnection {
    return this.thread ?? this.local!;
  }

  async init(): Promise<void> {
    if (this.policy.thread === 'on') {
      this.thread = await ThreadConnection.start(this.opts);
      return;
    }
    this.local = new LocalConnection(this.opts);
    if (this.policy.thread === 'auto') this.local.counted = this.counted;
    if (this.policy.thread === 'auto') {
      this.monitor = setInterval(() => this.tick(), 1000);
      this.monitor.unref();
    }
  }

  /** Once a second (`auto`): starts the thread after a busy second, stops it after a quiet spell. */
  private tick(): void {
    const n = this.count;
    this.count = 0;
    if (this.moving) return;
    const leader = this.policy.follows;
    if (leader) {
      if (leader.onThread !== this.onThread) this.startMove(leader.onThread);
      return;
    }
    if (!this.thread) {
      if (n >= this.policy.startAt) this.startMove(true);
      return;
    }
    this.quiet = n < this.policy.quietBelow ? this.quiet + 1 : 0;
    if (this.quiet >= this.policy.quietSeconds) this.startMove(false);
  }

  private startMove(toThread: boolean): void {
    this.moved = this.move(toThread).finally(() => {
      this.moved = undefined;
    });
  }

  /** Moves the writer to its thread or back, once nobody uses the connection. */
  private async move(toThread: boolean): Promise<void> {
    this.moving = true;
    await this.acquireConnection();
    try {
      if (this.destroyed) return;
      if (toThread && !this.thread) {
        const thread = await ThreadConnection.start(this.opts);
        if (this.destroyed) {
          await thread.close();
          return;
        }
        thread.counted = this.counted;
        // A thread that ends by itself (it should not) leaves the writer on the event loop.
        thread.ended = () => {
          if (this.thread === thread) this.thread = undefined;
        };
        this.thread = thread;
      } else if (!toThread && this.thread) {
        const thread = this.thread;
        this.thread = undefined;
        await thread.close();
      }
    } catch {
      // The thread did not start: the writer stays where it was, on the event loop.
    } finally {
      this.quiet = 0;
      this.moving = false;
      await this.releaseConnection();
    }
  }

  /** Counts what a query runs: a statement, a statement for each of `EACH`'s rows, a script's steps. */
  private readonly counted = (sql: string, params: unknown): void => {
    if (sql === SCRIPT) {
      for (const s of params as Array<[string, unknown[], boolean]>) this.count += s[2] ? s[1].length : 1;
    } else this.count += sql.startsWith(EACH) ? (params as unknown[]).length : 1;
  };

  async acquireConnection(): Promise<DatabaseConnection> {
    if (this.held || this.scripts > 0 || this.waiting.length > 0) {
      await new Promise<void>((go) => this.waiting.push({ script: false, go }));
    }
    this.held = true;
    return this.connection;
  }

  async script<R>(steps: readonly ScriptStep[]): Promise<R[]> {
    // Counted in by `wake` after waiting, or here.
    if (this.held || this.waiting.length > 0) await new Promise<void>((go) => this.waiting.push({ script: true, go }));
    else this.scripts++;
    try {
      return (await this.connection.runScript<R>(steps.map((s) => [s.sql, s.params ?? [], s.each === true]))).rows;
    } finally {
      this.scripts--;
      this.wake();
    }
  }

  /** Lets the next waiting user of the connection in: a Kysely user once it is free, or every script up to the next Kysely user. */
  private wake(): void {
    if (this.held) return;
    const first = this.waiting[0];
    if (!first) return;
    if (!first.script) {
      if (this.scripts > 0) return;
      this.waiting.shift();
      this.held = true;
      first.go();
      return;
    }
    while (this.waiting[0]?.script) {
      this.scripts++;
      this.waiting.shift()!.go();
    }
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin'));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async savepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`savepoint ${quoteName(name)}`));
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`rollback to ${quoteName(name)}`));
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`release ${quoteName(name)}`));
  }

  async releaseConnection(): Promise<void> {
    this.held = false;
    this.wake();
  }

  async destroy(): Promise<void> {
    this.destroyed = true;
    clearInterval(this.monitor);
    // A thread starting now opens the database file: it closes before the files may go.
    await this.moved;
    const thread = this.thread;
    this.thread = undefined;
    await thread?.close();
    this.local?.close();
    this.local = undefined;
  }
}

const quoteName = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** The writer connection on the event loop: each query runs at once. */
class LocalConnection implements WriterConnection {
  private readonly db: Database.Database;
  private readonly run: Run;
  /** Told of every query before it runs (`WriterDriver`'s policy). */
  counted: ((sql: string, params: unknown) => void) | undefined;

  constructor(opts: WriterThreadOptions) {
    this.db = new Database(opts.file);
    this.db.defaultSafeIntegers(true);
    for (const p of opts.pragmas) this.db.pragma(p);
    for (const [name, file] of Object.entries(opts.attach ?? {})) this.db.prepare(`attach ? as ${name}`).run(file);
    this.run = localRunner(this.db);
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    this.counted?.(query.sql, query.parameters);
    const [rows, changes, lastInsertRowid] = this.run(query.sql, query.parameters);
    return result<R>(rows, changes, lastInsertRowid);
  }

  async runScript<R>(script: ScriptWire): Promise<QueryResult<R>> {
    this.counted?.(SCRIPT, script);
    const [rows, changes, lastInsertRowid] = this.run(SCRIPT, script);
    return result<R>(rows, changes, lastInsertRowid);
  }

  // biome-ignore lint/correctness/useYield: streaming is not offered (nothing streams from the writer)
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('the SQLite writer connection does not stream');
  }

  close(): void {
    this.db.close();
  }
}

/** The writer connection on its thread: each query is one message there and one back. */
class ThreadConnection implements WriterConnection {
  /** Told of every query before it runs (`WriterDriver`'s policy). */
  counted: ((sql: string, params: unknown) => void) | undefined;
  /** Told when the thread ends without being closed. */
  ended: (() => void) | undefined;
  private closing = false;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (r: Reply) => void; reject: (err: unknown) => void }>();
  private broken: Error | undefined;

  /** Starts a thread and opens its connection. */
  static async start(opts: WriterThreadOptions): Promise<ThreadConnection> {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    const workerData = { driver, file: opts.file, pragmas: opts.pragmas, attach: Object.entries(opts.attach ?? {}), nice: opts.nice ?? 0 };
    const worker = new Worker(WRITER_THREAD, { eval: true, workerData });
    await new Promise<void>((resolve, reject) => {
      const failed = (err: unknown) => reject(err);
      worker.once('error', failed);
      worker.once('message', (m: Reply) => {
        worker.off('error', failed);
        if (m[1] === null) {
          reject(toError(m[2] as { message: string }));
          void worker.terminate();
        } else resolve();
      });
    });
    return new ThreadConnection(worker);
  }

  private constructor(private readonly worker: Worker) {
    // The thread keeps the process alive only while a query waits for it.
    worker.unref();
    worker.on('message', (m: Reply) => {
      const p = this.pending.get(m[0]);
      if (!p) return;
      this.pending.delete(m[0]);
      if (this.pending.size === 0) worker.unref();
      if (m[1] === null) p.reject(toError(m[2] as { message: string }));
      else p.resolve(m);
    });
    const fail = (err: Error) => {
      this.broken ??= err;
      for (const p of this.pending.values()) p.reject(this.broken);
      this.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', () => {
      fail(new Error('the SQLite writer thread has ended'));
      if (!this.closing) this.ended?.();
    });
  }

  private send(sql: string, params: unknown): Promise<Reply> {
    if (this.broken) return Promise.reject(this.broken);
    const id = this.nextId++;
    return new Promise<Reply>((resolve, reject) => {
      if (this.pending.size === 0) this.worker.ref();
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage([id, sql, params]);
    });
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    this.counted?.(query.sql, query.parameters);
    const [, rows, changes, lastInsertRowid] = await this.send(query.sql, query.parameters);
    return result<R>(rows!, changes, lastInsertRowid);
  }

  async runScript<R>(script: ScriptWire): Promise<QueryResult<R>> {
    this.counted?.(SCRIPT, script);
    const [, rows, changes, lastInsertRowid] = await this.send(SCRIPT, JSON.stringify(script));
    return result<R>(rows!, changes, lastInsertRowid);
  }

  // biome-ignore lint/correctness/useYield: streaming is not offered (nothing streams from the writer)
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('the SQLite writer connection does not stream');
  }

  /** Closes the connection (a clean close checkpoints the WAL) and ends the thread. */
  async close(): Promise<void> {
    this.closing = true;
    if (this.worker.threadId === -1) return;
    const exited = new Promise<void>((resolve) => this.worker.once('exit', () => resolve()));
    this.worker.ref();
    this.worker.postMessage([-1]);
    await exited;
  }
}
