import { PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import type { DialectAdapter } from './types.js';

function pgCode(err: unknown): string {
  return typeof err === 'object' && err !== null && 'code' in err ? String((err as { code: unknown }).code) : '';
}

/** PostgreSQL through a `pg` pool; commits are durable with the server's default synchronous_commit. */
export function postgresAdapter(databaseUrl: string): DialectAdapter {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
  // An idle client's error (server restart) must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  return {
    name: 'postgresql',
    kysely: new PostgresDialect({ pool }),
    concurrentWriters: true,
    isUniqueViolation: (err) => pgCode(err) === '23505',
    isForeignKeyViolation: (err) => pgCode(err) === '23503',
    // 22021: invalid byte sequence (NUL), 22P05: untranslatable character.
    isInvalidText: (err) => pgCode(err) === '22021' || pgCode(err) === '22P05',
    currentSchema: async (db) => (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]!.schema,
  };
}
