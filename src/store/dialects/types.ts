import type { Dialect, Kysely } from 'kysely';

/**
 * What differs between databases, as capabilities rather than names: the domain and the
 * repositories never ask "is this SQLite?".
 */
export interface DialectAdapter {
  /** Human-readable, for logs and /healthz. */
  readonly name: string;
  readonly kysely: Dialect;
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
