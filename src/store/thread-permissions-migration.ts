import { type Kysely, SqliteAdapter, sql } from 'kysely';
import { accessTrigger } from './access-epoch-migration.js';

/** SEND_MESSAGES, and what 0027 gives `@everyone` beside it (bits 35, 36 and 38; docs/permissions.md#the-bits). */
const SEND_MESSAGES = 1n << 11n;
const THREAD_BITS = (1n << 35n) | (1n << 36n) | (1n << 38n);

/**
 * 0027: the thread permissions (docs/threads.md#permissions).
 *
 * - Each server's `@everyone` that may send messages may also create public and private
 *   threads and post in threads, as Discord did for its servers when threads came and as a
 *   new server's `@everyone` holds; the server's permission version moves on.
 * - A thread's lock, its archival and a member leaving it can take access away, so they
 *   bump the access epoch (`access-epoch-migration.ts`); a message counted in a thread does not.
 */
export async function migrateToThreadPermissions(db: Kysely<any>): Promise<void> {
  const { rows } = await sql<{ id: string; permissions: string }>`
    select cast(id as text) as id, permissions from roles where id = server_id`.execute(db);
  for (const r of rows) {
    const bits = BigInt(r.permissions);
    if ((bits & SEND_MESSAGES) === 0n || (bits & THREAD_BITS) === THREAD_BITS) continue;
    await sql`update roles set permissions = ${(bits | THREAD_BITS).toString()} where id = ${r.id}`.execute(db);
    await sql`update servers set perm_version = perm_version + 1 where id = ${r.id}`.execute(db);
  }
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  await accessTrigger(db, sqlite, 'threads', 'update of locked, archived');
  await accessTrigger(db, sqlite, 'thread_members', 'delete');
}
