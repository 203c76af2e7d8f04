import { CamelCasePlugin, Kysely, type Transaction } from 'kysely';
import { AppError } from '../errors.js';
import { isLegacyId, SnowflakeGenerator } from '../ids.js';
import { postgresAdapter } from './dialects/postgres.js';
import { sqliteAdapter } from './dialects/sqlite.js';
import type { DialectAdapter } from './dialects/types.js';
import { GroupCommitter } from './group-commit.js';
import { migrateToLatest } from './migrations.js';
import { type LeaseOptions, WorkerLease } from './worker-lease.js';
import { WriteHorizon } from './write-horizon.js';
import { blocks, dms } from './repos/dms.js';
import { messages, reactions, readStates, uploads, userSettings } from './repos/messages.js';
import { channels, invites, members, servers } from './repos/servers.js';
import { auditLog, bans, bumpPermVersion, overwrites, roles } from './repos/roles.js';
import { searchRepo } from './repos/search.js';
import { sessions, users } from './repos/users.js';
import { idempotency, webhooks } from './repos/webhooks.js';
import { botKeys, commands, interactions } from './repos/interactions.js';
import type { Database } from './schema.js';

export type Db = Kysely<Database>;
export type Tx = Transaction<Database>;
export type { Database } from './schema.js';

/** Where the data lives: PostgreSQL when `databaseUrl` is set, else SQLite under `dataDir`. */
export interface StoreOptions {
  databaseUrl?: string;
  dataDir: string;
  /** The worker-number lease of the id generator (tests shorten it). */
  idLease?: LeaseOptions;
}

/**
 * The database: reads go straight to `db`, writes go through `write`, which commits in
 * groups and settles only after the commit. Repositories are plain functions over an
 * executor, so the same query serves a read and a write inside a transaction.
 */
export class Store {
  readonly users = users;
  readonly sessions = sessions;
  readonly servers = servers;
  readonly channels = channels;
  readonly members = members;
  readonly roles = roles;
  readonly overwrites = overwrites;
  readonly bans = bans;
  readonly auditLog = auditLog;
  readonly bumpPermVersion = bumpPermVersion;
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
  /** Full-text message search, through the dialect's index. */
  readonly search: ReturnType<typeof searchRepo>;
  /** Message ids being written by this process: pages of history stop below the oldest. */
  readonly messageHorizon = new WriteHorizon();
  /** Issues this instance's ids, under a worker number leased from the database. */
  readonly ids: SnowflakeGenerator;
  private lease: WorkerLease | undefined;
  private readonly committer: GroupCommitter;
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
    this.search = searchRepo(adapter.fullText);
    // A pooled server database gains from several batches in flight; SQLite has one writer.
    this.committer = new GroupCommitter(writer, 256, adapter.concurrentWriters ? 4 : 1);
  }

  /** Opens the database and migrates it to the latest schema. */
  static async open(opts: StoreOptions): Promise<Store> {
    const adapter = opts.databaseUrl ? postgresAdapter(opts.databaseUrl) : sqliteAdapter(opts.dataDir);
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
    try {
      return await this.committer.run(work);
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

  async ping(): Promise<void> {
    await this.db.selectFrom('servers').select('id').limit(1).execute();
  }

  async close(): Promise<void> {
    await this.lease?.release().catch(() => {});
    if (this.db !== this.writer) await this.db.destroy();
    await this.writer.destroy();
  }
}
