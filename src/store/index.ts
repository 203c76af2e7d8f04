import { CamelCasePlugin, Kysely, type Transaction, sql } from 'kysely';
import { AppError } from '../errors.js';
import { isLegacyId, SnowflakeGenerator } from '../ids.js';
import { READ_ACCESS_EPOCH } from './access-epoch-migration.js';
import { postgresAdapter } from './dialects/postgres.js';
import { sqliteAdapter } from './dialects/sqlite.js';
import type { WriterThreadPolicy } from './dialects/sqlite-writer.js';
import type { DialectAdapter } from './dialects/types.js';
import { type BulkInsert, type CommitObserver, GroupCommitter } from './group-commit.js';
import { migrateToLatest, migrationStatus } from './migrations.js';
import { type LeaseOptions, WorkerLease } from './worker-lease.js';
import { WriteHorizon } from './write-horizon.js';
import { blocks, dms } from './repos/dms.js';
import { INSERT_MESSAGE_SQL, messageParams, messages, reactions, readStates, uploads, userSettings } from './repos/messages.js';
import { channels, invites, membersRepo, serversRepo } from './repos/servers.js';
import { auditLog, bans, bumpPermVersion, overwrites, permissionInputs, roles } from './repos/roles.js';
import { ready } from './repos/ready.js';
import { searchRepo } from './repos/search.js';
import { forumTags, threadMembers, threads } from './repos/threads.js';
import { sessions, users } from './repos/users.js';
import { idempotency, webhooks } from './repos/webhooks.js';
import { botKeys, commands, interactions } from './repos/interaction-rows.js';
import type { Database, MessageTable } from './schema.js';

export type Db = Kysely<Database>;
export type Tx = Transaction<Database>;
export type { Database } from './schema.js';

/** The access epoch as `tx` sees it (0013). */
async function readAccessEpoch(tx: Tx): Promise<number> {
  const { rows } = await sql.raw<{ epoch: string | number }>(READ_ACCESS_EPOCH).execute(tx);
  return Number(rows[0]!.epoch);
}

/** Where the data lives: PostgreSQL when `databaseUrl` is set, else SQLite under `dataDir`. */
export interface StoreOptions {
  databaseUrl?: string;
  dataDir: string;
  /** SQLite: where the writer connection's queries run (default: `auto`). */
  sqliteWriter?: WriterThreadPolicy;
  /** The worker-number lease of the id generator (tests shorten it). */
  idLease?: LeaseOptions;
}

/**
 * Runs the migrations (or, with `statusOnly`, only reads their state) without opening the
 * rest of the store: `parley migrate`. Resolves with the names that ran and every
 * migration's state afterwards.
 */
export async function migrateDatabase(
  opts: Pick<StoreOptions, 'databaseUrl' | 'dataDir'>,
  statusOnly = false,
): Promise<{ ran: string[]; status: Array<{ name: string; executedAt?: Date }> }> {
  // A migration runs on the event loop: nothing else is going on.
  const adapter = opts.databaseUrl ? await postgresAdapter(opts.databaseUrl) : sqliteAdapter(opts.dataDir, { thread: 'off' });
  const db = new Kysely<Database>({ dialect: adapter.kysely, plugins: [new CamelCasePlugin(), ...(adapter.plugins ?? [])] });
  const reader = adapter.readKysely ? new Kysely<Database>({ dialect: adapter.readKysely }) : undefined;
  try {
    const schema = await adapter.currentSchema?.(db);
    const ran = statusOnly ? [] : await migrateToLatest(db, schema);
    return { ran, status: await migrationStatus(db, schema) };
  } finally {
    await db.destroy();
    await reader?.destroy();
  }
}

/**
 * The database: reads go straight to `db`, writes go through `write`, which commits in
 * groups and settles only after the commit. Repositories are plain functions over an
 * executor, so the same query serves a read and a write inside a transaction.
 */
export class Store {
  readonly users = users;
  readonly sessions = sessions;
  /** Servers and members read a member's roles through the dialect (`DialectAdapter.joinIds`). */
  readonly servers: ReturnType<typeof serversRepo>;
  readonly channels = channels;
  readonly members: ReturnType<typeof membersRepo>;
  readonly roles = roles;
  readonly overwrites = overwrites;
  readonly bans = bans;
  readonly auditLog = auditLog;
  readonly bumpPermVersion = bumpPermVersion;
  readonly permissionInputs = permissionInputs;
  readonly invites = invites;
  readonly messages = messages;
  readonly reactions = reactions;
  readonly readStates = readStates;
  readonly userSettings = userSettings;
  readonly dms = dms;
  readonly blocks = blocks;
  readonly uploads = uploads;
  readonly webhooks = webhooks;
  readonly idempotency = idempotency;
  readonly commands = commands;
  readonly interactions = interactions;
  readonly botKeys = botKeys;
  /** Threads, their members and forum tags (docs/threads.md). */
  readonly threads = threads;
  readonly threadMembers = threadMembers;
  readonly forumTags = forumTags;
  /** What a gateway session's snapshot reads across the identity's servers (`domain/ready.ts`). */
  readonly ready = ready;
  /**
   * Full-text message search, through the dialect's index. Where the index takes new
   * messages in later (`FullText.catchUp`), a search first has it take in every message
   * written before the search began, so nobody misses what was just posted.
   */
  readonly search: ReturnType<typeof searchRepo>;
  /** Message ids being written by this process: pages of history stop below the oldest. */
  readonly messageHorizon = new WriteHorizon();
  /** Issues this instance's ids, under a worker number leased from the database. */
  readonly ids: SnowflakeGenerator;
  private lease: WorkerLease | undefined;
  private readonly committer: GroupCommitter<MessageTable>;
  /** Whether message rows go to the committer to be inserted many at a time (`writeMessage`). */
  private readonly bulkMessages: boolean;
  /** Writes since the search index last caught up (1: check once after opening). */
  private writesSinceIndex = 1;
  private indexing: Promise<void> | undefined;
  private indexTimer: NodeJS.Timeout | undefined;
  /** The read of the access epoch this turn's callers wait for, not sent yet (`accessEpoch`). */
  private nextEpochRead: Promise<number> | undefined;
  /** ULIDs seen since start and the snowflakes they became: old links are reused a lot. */
  private readonly legacy = new Map<string, string | null>();

  private constructor(
    /** For reads outside a transaction; writes need the `Tx` that `write` hands out. */
    readonly db: Db,
    private readonly writer: Db,
    readonly adapter: DialectAdapter,
    clock?: () => number,
  ) {
    this.ids = new SnowflakeGenerator(clock);
    this.servers = serversRepo((column) => adapter.joinIds(column));
    this.members = membersRepo((column) => adapter.joinIds(column));
    const search = searchRepo(adapter.fullText);
    this.search = {
      ...search,
      messages: async (db, s) => {
        await this.searchIndexReady();
        return search.messages(db, s);
      },
    };
    if (adapter.searchIndex) {
      // A quarter of a second of messages at a time: a few hundred to a few thousand under
      // load, where indexing costs a sixth of what it costs one commit's worth at a time.
      this.indexTimer = setInterval(() => {
        if (this.writesSinceIndex > 0) this.catchUpSearchIndex().catch(() => {});
      }, 250);
      this.indexTimer.unref();
    }
    // A pooled server database gains from several batches in flight; SQLite has one writer.
    // A batch's messages are inserted by one statement (PostgreSQL), or by one statement
    // run for each in one round trip (SQLite's writer thread).
    const { jsonRows, insertEach } = adapter;
    const many: BulkInsert<MessageTable>['many'] | undefined = jsonRows
      ? (tx, rows) => messages.insertMany(tx, rows, jsonRows.bind(adapter))
      : insertEach
        ? (tx, rows) => insertEach(tx, INSERT_MESSAGE_SQL, rows.map(messageParams))
        : undefined;
    this.bulkMessages = many !== undefined;
    this.committer = new GroupCommitter<MessageTable>(
      writer,
      256,
      // SQLite: one transaction at a time, but a batch of messages alone is sent whole
      // (`commitRows`) while the writer thread still commits the one before.
      adapter.concurrentWriters ? 4 : adapter.commitRows ? 2 : 1,
      many && { many, one: (tx, row) => messages.insert(tx, row) },
      adapter.commitRows && ((rows) => adapter.commitRows!(INSERT_MESSAGE_SQL, rows.map(messageParams))),
    );
    // An in-process epoch learns of this process's own changes from each batch (one read per batch).
    const local = adapter.localAccessEpoch;
    if (local) this.committer.epoch = { read: readAccessEpoch, committed: (e) => local.committed(e) };
  }

  /** Opens the database and migrates it to the latest schema. */
  static async open(opts: StoreOptions): Promise<Store> {
    const adapter = opts.databaseUrl ? await postgresAdapter(opts.databaseUrl) : sqliteAdapter(opts.dataDir, opts.sqliteWriter);
    const plugins = [new CamelCasePlugin(), ...(adapter.plugins ?? [])];
    const writer = new Kysely<Database>({ dialect: adapter.kysely, plugins });
    const reader = adapter.readKysely ? new Kysely<Database>({ dialect: adapter.readKysely, plugins }) : writer;
    try {
      await migrateToLatest(writer, await adapter.currentSchema?.(writer));
      await adapter.afterOpen?.();
      const store = new Store(reader, writer, adapter, opts.idLease?.clock);
      store.lease = await WorkerLease.start(writer, store.ids, opts.idLease);
      return store;
    } catch (err) {
      await writer.destroy().catch(() => {});
      if (reader !== writer) await reader.destroy().catch(() => {});
      await adapter.close?.().catch(() => {});
      throw err;
    }
  }

  /** The worker number this instance's ids carry. */
  get worker(): number {
    return this.ids.worker;
  }

  /**
   * The snowflake an id from before 0004 (a ULID in an old webhook URL, token or upload
   * link) became; a snowflake is returned as it is; undefined when it names nothing.
   */
  async currentId(id: string): Promise<string | undefined> {
    if (!isLegacyId(id)) return id;
    let found = this.legacy.get(id);
    if (found === undefined) {
      const row = await this.db.selectFrom('legacyIds').select('newId').where('oldId', '=', id).executeTakeFirst();
      found = row ? String(row.newId) : null;
      if (this.legacy.size >= 10_000) this.legacy.clear();
      this.legacy.set(id, found);
    }
    return found ?? undefined;
  }

  /**
   * Runs `work` in a transaction and resolves once it is committed (durable). Store
   * errors become AppErrors here, the one place that knows what they mean. Repositories'
   * writes take only the `Tx` given to `work`, so a write cannot escape the transaction;
   * a read through `db` inside `work` uses another connection and sees the state before
   * it, so it cannot deadlock SQLite's single writer either.
   */
  async write<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    this.writesSinceIndex++;
    try {
      return await this.committer.run(work);
    } catch (err) {
      throw this.translate(err);
    }
  }

  /**
   * Writes a new message, then runs `then` (the message's other rows) in the same
   * transaction; resolves once committed, as `write` does. Where the dialect allows, the
   * message is inserted by one statement with the rest of its group commit's messages.
   */
  async writeMessage<T>(
    row: MessageTable,
    then?: (tx: Tx) => Promise<T>,
    /** Rows the message needs first, in its transaction (a forum post's thread: docs/threads.md#forum-posts); never batched. */
    before?: (tx: Tx) => Promise<unknown>,
  ): Promise<T | undefined> {
    if (!this.bulkMessages || before)
      return this.write(async (tx) => {
        await before?.(tx);
        await this.messages.insert(tx, row);
        return then?.(tx);
      });
    this.writesSinceIndex++;
    try {
      return await this.committer.run(then, row);
    } catch (err) {
      throw this.translate(err);
    }
  }

  private translate(err: unknown): unknown {
    if (err instanceof AppError) return err;
    if (this.adapter.isUniqueViolation(err)) return new AppError('already_exists', 'already exists');
    if (this.adapter.isForeignKeyViolation(err)) return new AppError('unknown_reference', 'a referenced resource no longer exists');
    if (this.adapter.isInvalidText(err)) return new AppError('invalid_body', 'text contains characters that cannot be stored');
    return err;
  }

  /**
   * Indexes every message the search index has yet to take in, a bounded number per
   * transaction. One run at a time: a caller during a run shares it. A failure (which the
   * timer ignores) leaves the queue as it was, for the next run.
   */
  catchUpSearchIndex(): Promise<void> {
    const index = this.adapter.searchIndex;
    if (!index) return Promise.resolve();
    if (this.indexing) return this.indexing;
    this.writesSinceIndex = 0;
    // Most writes are not messages (reactions, read states): nothing to take in then.
    let behind: boolean;
    try {
      const { queued, indexed } = index.position();
      behind = indexed < queued;
    } catch (err) {
      return Promise.reject(err);
    }
    if (!behind) return Promise.resolve();
    this.indexing = (async () => {
      try {
        while ((await index.catchUp(5000)) === 5000) {}
      } finally {
        this.indexing = undefined;
      }
    })();
    return this.indexing;
  }

  /**
   * Returns once every message committed before the call is in the search index. Messages
   * written meanwhile may wait for the next run: under a steady stream of posts a search
   * must not chase them forever.
   */
  private async searchIndexReady(): Promise<void> {
    const index = this.adapter.searchIndex;
    if (!index) return;
    const { queued, indexed } = index.position();
    if (indexed >= queued) return;
    // A run already under way may have read its queue before the last of these committed.
    do await this.catchUpSearchIndex();
    while (index.position().indexed < queued);
  }

  /**
   * The access epoch (0013): bumped by triggers in the transaction of any change that can
   * take access away. Read before trusting `AccessCache`; synchronous where the database is
   * in-process (one prepared statement, no query builder).
   */
  accessEpoch(): number | Promise<number> {
    const local = this.adapter.localAccessEpoch;
    if (local) return local.current();
    // One read serves every caller of an event-loop turn (every request parsed in it): it
    // is sent after all of them asked, so it sees every change committed before any of
    // them did. A read already sent is never shared with a later caller.
    this.nextEpochRead ??= new Promise<number>((resolve, reject) => {
      setImmediate(() => {
        this.nextEpochRead = undefined;
        sql
          .raw<{ epoch: string | number }>(READ_ACCESS_EPOCH)
          .execute(this.db)
          .then(({ rows }) => resolve(Number(rows[0]!.epoch)), reject);
      });
    });
    return this.nextEpochRead;
  }

  /** Calls `observer` after every group commit (metrics); undefined stops it. */
  observeCommits(observer: CommitObserver | undefined): void {
    this.committer.observer = observer;
  }

  /** Writes waiting for the next group commit, and batches being committed. */
  get writeLoad(): { queued: number; committing: number } {
    return this.committer.load;
  }

  /** The connection pool's figures, where the database has a pool (PostgreSQL). */
  poolStats(): { total: number; idle: number; waiting: number } | undefined {
    return this.adapter.poolStats?.();
  }

  async ping(): Promise<void> {
    await this.db.selectFrom('servers').select('id').limit(1).execute();
  }

  async close(): Promise<void> {
    clearInterval(this.indexTimer);
    await this.indexing?.catch(() => {});
    await this.lease?.release().catch(() => {});
    if (this.db !== this.writer) await this.db.destroy();
    await this.writer.destroy();
    await this.adapter.close?.();
  }
}
