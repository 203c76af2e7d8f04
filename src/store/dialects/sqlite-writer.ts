import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
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
 * parameters (each a parameter list), in one message to the writer thread (`insertEach`).
 */
const EACH = '/* each */ ';

/**
 * A query with this SQL runs its parameters as a script (`runScript`): each one a step,
 * `[sql, params, each]`, in order, in one message to the writer thread.
 */
const SCRIPT = '/* script */';

/**
 * The writer thread's program (CommonJS, run with `eval`, so it needs no file of its own in
 * the build or the bundle): one better-sqlite3 connection, statements cached by SQL text,
 * one message in, one message out per query, in order.
 *
 * In: `[id, sql, params]` (a script's params are one JSON string). Out: `[id, rows,
 * changes, lastInsertRowid]`, or
 * `[id, null, { message, code, name }]` when the statement failed. The first message out,
 * with id 0, says the connection is open (or why it is not).
 */
const WRITER_THREAD = String.raw`
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const EACH = ${JSON.stringify(EACH)};
const SCRIPT = ${JSON.stringify(SCRIPT)};
const failure = (e) => ({ message: String(e && e.message), code: e && e.code, name: e && e.name });
let db;
try {
  db = new Database(workerData.file);
  db.defaultSafeIntegers(true);
  for (const p of workerData.pragmas) db.pragma(p);
  parentPort.postMessage([0, []]);
} catch (e) {
  parentPort.postMessage([0, null, failure(e)]);
}
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
parentPort.on('message', (m) => {
  const id = m[0], sql = m[1], params = m[2];
  if (id === -1) {
    if (db) db.close();
    parentPort.close();
    return;
  }
  let r;
  try {
    if (sql === SCRIPT) {
      const steps = JSON.parse(params);
      // All or nothing: a step that fails rolls back the transaction the script began.
      const began = !db.inTransaction;
      try {
        // The answer is the last step that read, or the last step.
        let read;
        for (const s of steps) {
          r = step(s[0], s[1], s[2]);
          if (r[3]) read = r;
        }
        r = read ?? r;
      } catch (e) {
        if (began && db.inTransaction) db.prepare('rollback').run();
        throw e;
      }
    } else r = step(sql, params, sql.startsWith(EACH));
  } catch (e) {
    parentPort.postMessage([id, null, failure(e)]);
    return;
  }
  parentPort.postMessage([id, r[0], r[1], r[2]]);
});
`;

/** Where the writer thread opens the database, and how. */
export interface WriterThreadOptions {
  file: string;
  /** Run in order right after opening, e.g. `synchronous = FULL`. */
  pragmas: string[];
}

type Reply = [id: number, rows: unknown[] | null, changes: unknown, lastInsertRowid: unknown];

function toError(f: { message: string; code?: unknown; name?: unknown }): Error {
  const err = new Error(f.message) as Error & { code?: unknown };
  if (typeof f.name === 'string') err.name = f.name;
  if (f.code !== undefined) err.code = f.code;
  return err;
}

/**
 * The SQLite writer connection on a thread of its own. better-sqlite3 is synchronous: on
 * the event loop, every statement of a group commit and its COMMIT (the fsync of the WAL,
 * with `synchronous = FULL`) stop the process for as long as they take, about half of a
 * message POST's CPU time on the event loop (bench/README.md). Here Kysely's connection
 * sends each query to the writer thread and awaits the answer; the event loop parses,
 * authorises and answers requests meanwhile. Queries run one at a time and in order, as on
 * one connection; a transaction is the same statements (BEGIN ... COMMIT), so nothing above
 * the driver changes, and a COMMIT that resolved is on disk, as before.
 *
 * Reads outside a transaction stay on the event loop's own read connection (the adapter's
 * `readKysely`): one statement is cheaper there than a round trip to a thread.
 */
export class SqliteWriterDialect implements Dialect {
  private driver: WriterThreadDriver | undefined;

  constructor(private readonly opts: WriterThreadOptions) {}

  /**
   * Runs `steps` in order in one message to the writer thread, all or nothing (a failing
   * step rolls back a transaction the script began, then rejects), and resolves with the
   * last reading step's rows (none: the last step's). A group commit of messages alone is
   * one script: BEGIN, the inserts, the epoch read, COMMIT. Scripts do not wait for each
   * other's answers: the next is sent while the thread still runs the one before (each is
   * whole, so none can see another half done), and a transaction or query through Kysely
   * waits until none is in flight.
   */
  script<R>(steps: readonly ScriptStep[]): Promise<R[]> {
    if (!this.driver) return Promise.reject(new Error('the SQLite writer is not open'));
    return this.driver.script<R>(steps);
  }

  createAdapter(): DialectAdapter {
    return new SqliteAdapter();
  }

  createDriver(): Driver {
    this.driver = new WriterThreadDriver(this.opts);
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
 * Runs `sql`, prepared once, for each of `rows` (parameter lists), in one message to the
 * writer thread: a group commit's messages cost one round trip, not one each.
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

class WriterThreadDriver implements Driver {
  private worker: Worker | undefined;
  private connection: WriterConnection | undefined;
  /** Whether Kysely holds the connection (a transaction, a query), and scripts in flight. */
  private held = false;
  private scripts = 0;
  /** Who waits for the connection: Kysely's users alone, scripts together; first come, first served. */
  private readonly waiting: Array<{ script: boolean; go: () => void }> = [];

  constructor(private readonly opts: WriterThreadOptions) {}

  async init(): Promise<void> {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    const worker = new Worker(WRITER_THREAD, { eval: true, workerData: { driver, file: this.opts.file, pragmas: this.opts.pragmas } });
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
    this.worker = worker;
    this.connection = new WriterConnection(worker);
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    if (this.held || this.scripts > 0 || this.waiting.length > 0) {
      await new Promise<void>((go) => this.waiting.push({ script: false, go }));
    }
    this.held = true;
    return this.connection!;
  }

  async script<R>(steps: readonly ScriptStep[]): Promise<R[]> {
    // Counted in by `wake` after waiting, or here.
    if (this.held || this.waiting.length > 0) await new Promise<void>((go) => this.waiting.push({ script: true, go }));
    else this.scripts++;
    try {
      const { rows } = await this.connection!.executeQuery<R>(
        // As JSON: one string is much cheaper to pass between threads than many small values
        // (structured clone); scripts carry text, numbers and nulls only.
        CompiledQuery.raw(SCRIPT, JSON.stringify(steps.map((s) => [s.sql, s.params ?? [], s.each === true])) as unknown as unknown[]),
      );
      return rows;
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
    const worker = this.worker;
    if (!worker) return;
    this.worker = undefined;
    // The thread closes the database (a clean close checkpoints the WAL) and ends.
    if (worker.threadId === -1) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.ref();
    worker.postMessage([-1]);
    await exited;
  }
}

const quoteName = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** Kysely's connection to the writer thread: each query is one message there and one back. */
class WriterConnection implements DatabaseConnection {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (r: Reply) => void; reject: (err: unknown) => void }>();
  private broken: Error | undefined;

  constructor(private readonly worker: Worker) {
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
    worker.on('exit', () => fail(new Error('the SQLite writer thread has ended')));
  }

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (this.broken) return Promise.reject(this.broken);
    const id = this.nextId++;
    return new Promise<Reply>((resolve, reject) => {
      if (this.pending.size === 0) this.worker.ref();
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage([id, query.sql, query.parameters]);
    }).then(([, rows, changes, lastInsertRowid]) => ({
      rows: rows as R[],
      ...(changes !== undefined ? { numAffectedRows: BigInt(changes as number | bigint) } : {}),
      ...(lastInsertRowid !== undefined ? { insertId: BigInt(lastInsertRowid as number | bigint) } : {}),
    }));
  }

  // biome-ignore lint/correctness/useYield: streaming is not offered (nothing streams from the writer)
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('the SQLite writer connection does not stream');
  }
}
