import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import {
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  SqliteDialect,
  type UnknownRow,
} from 'kysely';
import type { DialectAdapter } from './types.js';

function sqliteCode(err: unknown): string {
  return typeof err === 'object' && err !== null && 'code' in err ? String((err as { code: unknown }).code) : '';
}

/** Embedded SQLite under `dataDir`: WAL with synchronous=FULL, so a commit is on disk. */
export function sqliteAdapter(dataDir: string): DialectAdapter {
  fs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, 'parley.db');
  const database = openSqlite(file);
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = FULL');
  database.pragma('foreign_keys = ON');
  database.pragma('busy_timeout = 5000');
  // WAL lets this connection read committed data while the other one writes.
  const reader = openSqlite(file);
  reader.pragma('busy_timeout = 5000');
  reader.pragma('query_only = ON');
  return {
    name: `sqlite (${file})`,
    kysely: new SqliteDialect({ database: reusingStatements(database) }),
    readKysely: new SqliteDialect({ database: reusingStatements(reader) }),
    plugins: [new SqliteIntegers()],
    concurrentWriters: false,
    isUniqueViolation: (err) => /^SQLITE_CONSTRAINT_(UNIQUE|PRIMARYKEY)$/.test(sqliteCode(err)),
    isForeignKeyViolation: (err) => sqliteCode(err) === 'SQLITE_CONSTRAINT_FOREIGNKEY',
    isInvalidText: () => false,
  };
}

/**
 * Kysely's SQLite driver prepares every query anew, and better-sqlite3 compiles SQL in
 * prepare(): about a fifth of a message POST's CPU. This hands Kysely the same database
 * with prepare() reusing compiled statements by SQL text. Safe because Kysely runs one
 * query at a time on its single connection, and SQLite re-prepares a statement by itself
 * after a schema change. The cache is cleared when full (IN lists of many lengths).
 */
function reusingStatements(database: Database.Database, max = 1000) {
  const statements = new Map<string, Database.Statement>();
  return {
    close: () => database.close(),
    prepare(sql: string) {
      let stmt = statements.get(sql);
      if (!stmt) {
        if (statements.size >= max) statements.clear();
        stmt = database.prepare(sql);
        statements.set(sql, stmt);
      }
      return stmt;
    },
  };
}

/**
 * A better-sqlite3 handle that reads integers exactly: ids are 64-bit snowflakes, beyond
 * the 53 bits a JavaScript number holds, so integers come back as BigInt and
 * `SqliteIntegers` turns them into what the rest of the code expects.
 */
export function openSqlite(file: string): Database.Database {
  const database = new Database(file);
  database.defaultSafeIntegers(true);
  return database;
}

/** Result columns that hold ids, after CamelCasePlugin: `id`, `…Id`, and `createdBy`. */
function isIdColumn(name: string): boolean {
  return name === 'id' || name.endsWith('Id') || name === 'createdBy';
}

/**
 * Ids as decimal strings, as PostgreSQL's driver returns bigint and the API sends them;
 * every other integer (flags, counts, sizes) as a number. Runs after CamelCasePlugin, so
 * it sees the camelCase names.
 */
export class SqliteIntegers implements KyselyPlugin {
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return args.node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    for (const row of args.result.rows) {
      for (const key in row) {
        const value = row[key];
        if (typeof value === 'bigint') row[key] = isIdColumn(key) ? value.toString() : Number(value);
      }
    }
    return args.result;
  }
}
