import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { SqliteDialect } from 'kysely';
import type { DialectAdapter } from './types.js';

function sqliteCode(err: unknown): string {
  return typeof err === 'object' && err !== null && 'code' in err ? String((err as { code: unknown }).code) : '';
}

/** Embedded SQLite under `dataDir`: WAL with synchronous=FULL, so a commit is on disk. */
export function sqliteAdapter(dataDir: string): DialectAdapter {
  fs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, 'parley.db');
  const database = new Database(file);
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = FULL');
  database.pragma('foreign_keys = ON');
  database.pragma('busy_timeout = 5000');
  return {
    name: `sqlite (${file})`,
    kysely: new SqliteDialect({ database }),
    concurrentWriters: false,
    isUniqueViolation: (err) => /^SQLITE_CONSTRAINT_(UNIQUE|PRIMARYKEY)$/.test(sqliteCode(err)),
    isForeignKeyViolation: (err) => sqliteCode(err) === 'SQLITE_CONSTRAINT_FOREIGNKEY',
    isInvalidText: () => false,
  };
}
