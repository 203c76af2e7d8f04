import type { Dialect, Kysely, KyselyPlugin } from 'kysely';

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
  /** The schema Parley's tables live in, where the database has schemas. */
  currentSchema?(db: Kysely<any>): Promise<string>;
  /** Run once after migrations (pragmas, checks). */
  afterOpen?(): Promise<void>;
  close?(): Promise<void>;
}
