import { type Kysely, SqliteAdapter, sql } from 'kysely';

/**
 * What each instance's access cache (`src/domain/access-cache.ts`) depends on, and the
 * changes that can take access away: a trigger on each bumps `access_epoch.epoch` in the
 * same transaction as the change. A request reads the epoch first (one indexed row) and
 * trusts its cached identity and channel access only while the epoch is the one they were
 * read under, so a revocation is in force on every instance from its commit on, whoever
 * wrote it (a route, the `parley` CLI, an operator's SQL).
 *
 * Inserts are left out where a new row can only grant (a member joining, a new channel,
 * role or server): the cache holds only what was allowed, never a refusal. An overwrite
 * can deny, so its insert counts; so can a role given to a member (its overwrites), so
 * `member_roles` inserts count too (0020). A session's hourly `last_used_at` touch is not a change
 * of access, so only its deletion and a new token hash count.
 */
/** Reads the access epoch: one row, one column (`epoch`). */
export const READ_ACCESS_EPOCH = 'select epoch from access_epoch where id = 1';

/** The triggers 0013 made (0021 adds `member_roles`' inserts and deletes). */
export const ACCESS_TRIGGERS: ReadonlyArray<{ table: string; events: string[] }> = [
  { table: 'users', events: ['update', 'delete'] },
  { table: 'sessions', events: ['update of token_hash', 'delete'] },
  { table: 'servers', events: ['update', 'delete'] },
  { table: 'channels', events: ['update', 'delete'] },
  { table: 'members', events: ['update', 'delete'] },
  { table: 'roles', events: ['update', 'delete'] },
  { table: 'channel_overwrites', events: ['insert', 'update', 'delete'] },
];

const triggerName = (table: string, event: string) => `access_epoch_${table}_${event.split(' ')[0]}`;

/**
 * Creates the trigger that bumps the access epoch after `event` on `table` (0013's
 * function on PostgreSQL); later migrations add their tables' with it (0020: `member_roles`).
 */
export async function accessTrigger(db: Kysely<unknown>, sqlite: boolean, table: string, event: string): Promise<void> {
  if (sqlite) {
    await sql
      .raw(
        `create trigger ${triggerName(table, event)} after ${event} on ${table}
          begin update access_epoch set epoch = epoch + 1 where id = 1; end`,
      )
      .execute(db);
    return;
  }
  await sql
    .raw(
      `create constraint trigger ${triggerName(table, event)} after ${event} on ${table}
        deferrable initially deferred for each row execute function parley_bump_access_epoch()`,
    )
    .execute(db);
}

/**
 * 0013: `access_epoch` (one row) and its triggers. On PostgreSQL they are deferred
 * constraint triggers: the epoch row is locked at commit, after every other lock the
 * transaction takes, so two transactions cannot deadlock over it, and a transaction that
 * changes many rows (a server's deletion) bumps it once.
 */
export async function migrateToAccessEpoch(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('access_epoch')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('epoch', 'bigint', (c) => c.notNull())
    .execute();
  await sql`insert into access_epoch (id, epoch) values (1, 1)`.execute(db);
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  if (!sqlite)
    await sql
      .raw(`create function parley_bump_access_epoch() returns trigger language plpgsql as $$
      begin
        if current_setting('parley.access_epoch_bumped', true) is distinct from 'yes' then
          update access_epoch set epoch = epoch + 1 where id = 1;
          perform set_config('parley.access_epoch_bumped', 'yes', true);
        end if;
        return null;
      end $$`)
      .execute(db);
  for (const { table, events } of ACCESS_TRIGGERS) for (const event of events) await accessTrigger(db, sqlite, table, event);
}
