import type { CompiledQuery, Dialect, Kysely, KyselyPlugin, QueryResult, RawBuilder, SqlBool } from 'kysely';

/** What runs a compiled query: a Kysely instance or a transaction. */
export interface QueryRunner {
  executeQuery<R>(query: CompiledQuery<R>): Promise<QueryResult<R>>;
}

/**
 * What differs between databases, as capabilities rather than names: the domain and the
 * repositories never ask "is this SQLite?".
 */
export interface DialectAdapter {
  /** Human-readable, for logs and /healthz. */
  readonly name: string;
  /** The connection(s) writes and migrations go through. */
  readonly kysely: Dialect;
  /**
   * Where reads outside a transaction go, when not through `kysely`. SQLite has one
   * connection per handle and a transaction holds it, so reads get a connection of their
   * own: a read can never wait for (or deadlock with) an open write transaction.
   */
  readonly readKysely?: Dialect;
  /** Result conversions the driver needs (SQLite: exact 64-bit integers). */
  readonly plugins?: KyselyPlugin[];
  /** True when concurrent transactions can run (a pool); SQLite has one writer. */
  readonly concurrentWriters: boolean;
  /** Classifies a driver error. */
  isUniqueViolation(err: unknown): boolean;
  isForeignKeyViolation(err: unknown): boolean;
  /** Text the database cannot store (PostgreSQL refuses NUL): the caller's input was bad. */
  isInvalidText(err: unknown): boolean;
  /**
   * The database could not answer: unreachable, its connection cut, shutting down, or
   * locked past the busy timeout. Such a failure is the service's, and passing: a 503
   * `service_unavailable`, not a 500 (docs/security.md, "Failures: the database going away").
   */
  isUnavailable(err: unknown): boolean;
  /** The schema Parley's tables live in, where the database has schemas. */
  currentSchema?(db: Kysely<any>): Promise<string>;
  /**
   * An aggregate joining the values of `column` (an id, bigint) over a group into one text,
   * separated by commas, in no promised order; null over no rows. A member's roles
   * (`member_roles`, 0020) come with the membership this way, in the same query. No ORDER
   * BY: SQLite would sort in a temporary b-tree for it, though the index already reads
   * them in order; the repository sorts the few ids instead.
   */
  joinIds(column: string): string;
  /** Full-text search over messages' content (migration 0008 builds its index). */
  readonly fullText: FullText;
  /** Open, idle and awaited connections of the pool, where there is one (metrics). */
  poolStats?(): { total: number; idle: number; waiting: number };
  /**
   * Where the database is in-process and this instance its only writer (SQLite): the
   * access epoch (0013) without a query per request. `current` is the epoch as of the
   * last commit of this process or of another one (`PRAGMA data_version` tells when to
   * look again); `committed` takes in what a transaction of this process read inside it
   * (`Store`'s group commit), once it has committed and before anyone hears of it.
   */
  readonly localAccessEpoch?: { current(): number; committed(epoch: number): void };
  /**
   * Runs `sql`, prepared once, for each of `rows` (positional parameter lists) in one
   * round trip to the connection, inside `tx`'s transaction (SQLite: one message to the
   * writer thread for a group commit's messages).
   */
  insertEach?(tx: QueryRunner, sql: string, rows: readonly unknown[][]): Promise<void>;
  /**
   * Commits `rows` of `sql` (positional parameter lists) in a transaction of their own, in
   * one round trip (SQLite's writer thread: BEGIN, the inserts, the read of the access
   * epoch, COMMIT, as one script), and resolves with the access epoch read before COMMIT.
   * All or nothing: a failing row rolls the whole back, and the call rejects. Calls may
   * overlap: each is whole, and they commit in the order they were made.
   */
  commitRows?(sql: string, rows: readonly unknown[][]): Promise<number>;
  /**
   * Where every statement is a network round trip (PostgreSQL): a FROM item yielding rows
   * of `table` from `json`, a JSON array of objects keyed by column name (missing keys are
   * null), each value taken as the column's type takes its text. Lets one statement insert
   * a group commit's messages.
   */
  jsonRows?(table: string, json: string): RawBuilder<unknown>;
  /** Where the full-text index is written apart from `kysely` (SQLite): opened by `afterOpen`. */
  readonly searchIndex?: SearchIndexWriter;
  /** Run once after migrations (pragmas, checks). */
  afterOpen?(): Promise<void>;
  close?(): Promise<void>;
}

/**
 * One word to look for: `word` is letters, digits and marks only (never query syntax);
 * with `prefix`, any word that starts with it matches too.
 */
export interface SearchTerm {
  word: string;
  prefix: boolean;
}

/** The filters of a search an index may hold beside the words (`FullText.match`). */
export interface IndexFilters {
  channelIds: readonly string[];
  authorId?: string;
  has: readonly ('file' | 'image' | 'link' | 'embed')[];
}

/**
 * How a database finds messages by the words of their content. Both dialects tokenize the
 * same way as far as they can: runs of letters and digits are words, everything else
 * (punctuation, symbols, emoji) separates them, case is folded, accents are kept.
 */
export interface FullText {
  /** What the index is, for logs and the benchmark. */
  readonly name: string;
  /** Creates the index over `messages.content`, filling it from the rows already there (0008). */
  migrate(db: Kysely<any>): Promise<void>;
  /**
   * The messages holding every one of `terms` as `m`: a FROM item, the condition that does
   * the matching, and the key the rows are ordered and bounded by (the message id, as the
   * index knows it). The caller adds its own conditions on `m`, and keeps every filter there
   * too: what the index also checks only narrows the rows it reads.
   *
   * Where the index holds the filters (`filters`: channels, author, `has`), it may answer
   * without words. With `count` it can count the matches alone, without reading a message:
   * `count.where` over `count.from` (with conditions on `key` only) decides the channels,
   * the author and `has` exactly. With `count.above`, that is worth it only when `where`
   * over `count.from` matches at least that many rows; below, the caller counts as for the
   * page. Undefined: the index cannot help (no words, and it holds no filters).
   */
  match(
    terms: readonly SearchTerm[],
    filters: IndexFilters,
  ):
    | {
        from: RawBuilder<unknown>;
        where: RawBuilder<SqlBool>;
        key: RawBuilder<unknown>;
        count?: { from: RawBuilder<unknown>; where: RawBuilder<SqlBool>; above?: number };
      }
    | undefined;
  /** Bytes the index takes on disk. */
  indexBytes(db: Kysely<any>): Promise<number>;
  /**
   * 0010: from then on, writes only note which messages the index has yet to take in,
   * and `catchUp` takes them in later, many at a time. A no-op where the database keeps
   * its index in step cheaply by itself.
   */
  deferIndexing(db: Kysely<any>): Promise<void>;
  /**
   * 0014: the index also holds each message's channel, author and `has` kinds, so those
   * filters (alone or with words) are led by it. A no-op where the database does not.
   */
  indexFilters(db: Kysely<any>): Promise<void>;
  /**
   * 0015: the index moves out of the writer's way, where the database allows (SQLite: a
   * file and a connection of its own, `SearchIndexWriter`); writes only queue which
   * messages changed. A no-op elsewhere.
   */
  separateIndex(db: Kysely<any>): Promise<void>;
}

/**
 * A full-text index that takes in changed messages later, many at a time, apart from the
 * database's writer (SQLite since 0015). Changes are numbered in commit order; the index
 * knows the last one it has taken in.
 */
export interface SearchIndexWriter {
  /** Takes in up to `limit` queued changes, and returns how many it took. */
  catchUp(limit: number): Promise<number>;
  /** The last change committed to the queue, and the last the index has taken in, now. */
  position(): { queued: number; indexed: number };
}
