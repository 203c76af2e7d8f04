import { bitsOfNames } from '@parley/protocol';
import { CamelCasePlugin, type Kysely, SqliteAdapter, sql } from 'kysely';
import { SnowflakeGenerator } from '../ids.js';
import type { Database } from './schema.js';
import { WorkerLease } from './worker-lease.js';

/** The legacy names' bits as schema 0003 stored them (docs/permissions.md#bots), lowest first. */
const LEGACY_BIT_NAMES = ['READ_MESSAGES', 'SEND_MESSAGES', 'ADD_REACTIONS', 'ATTACH_FILES'] as const;

/**
 * 0022: bots added before roles (0005) get their managed role, with their old bits. 0005
 * kept those bits in `members.legacy_permissions` (-1 once nothing is left to carry over)
 * because a role needs a snowflake, and ids are issued only under a worker lease; until
 * this migration the service made these roles at every start. Here the migration takes a
 * worker number of its own for the ids (`WorkerLease`, released at the end with the last
 * millisecond it used, so the store's own lease starts after it).
 *
 * - Each managed role goes on top of the server's roles, named after the bot, holds the
 *   bot's old bits, and is given to the bot; the server's permission version moves on.
 * - A row of someone who is not a bot (or no longer exists) is only marked done.
 * - SQLite runs migrations outside a transaction (`migrateToSnowflakes`): this one is a
 *   transaction of its own there. PostgreSQL's migrator already holds one.
 */
export async function migrateToManagedRoles(db: Kysely<unknown>): Promise<void> {
  // Ids as text: a 64-bit id read as a number would lose digits, whichever plugins the connection has.
  const { rows: pending } = await sql<{ server: string; member: string; bits: number | string }>`
    select cast(server_id as text) as server, cast(user_id as text) as member, legacy_permissions as bits
    from members where legacy_permissions >= 0 order by server_id, user_id`.execute(db);
  if (pending.length === 0) return;
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  if (sqlite) await sql`begin immediate`.execute(db);
  const ids = new SnowflakeGenerator();
  let lease: WorkerLease | undefined;
  try {
    // The lease's queries name tables as the repositories do; a second CamelCasePlugin changes nothing.
    lease = await WorkerLease.start(db.withPlugin(new CamelCasePlugin()) as Kysely<Database>, ids);
    for (const p of pending) await giveManagedRole(db, ids, p.server, p.member, Number(p.bits));
    await lease.release();
    if (sqlite) await sql`commit`.execute(db);
  } catch (err) {
    // Stops the renewal; the write fails with the transaction, which rolls back anyway.
    await lease?.release().catch(() => {});
    if (sqlite) await sql`rollback`.execute(db).catch(() => {});
    throw err;
  }
}

async function giveManagedRole(db: Kysely<unknown>, ids: SnowflakeGenerator, serverId: string, userId: string, old: number): Promise<void> {
  const { rows } = await sql<{ name: string }>`select name from users where id = ${userId} and bot = 1`.execute(db);
  const bot = rows[0];
  if (bot) {
    const { rows: top } = await sql<{ top: number | string | null }>`
      select max(position) as top from roles where server_id = ${serverId}`.execute(db);
    const roleId = ids.next();
    const bits = bitsOfNames(LEGACY_BIT_NAMES.filter((_, i) => (old & (1 << i)) !== 0)).toString();
    const position = Number(top[0]?.top ?? 0) + 1;
    await sql`insert into roles (id, server_id, name, color, position, permissions, hoist, mentionable, managed, bot_id)
      values (${roleId}, ${serverId}, ${bot.name}, 0, ${position}, ${bits}, 0, 0, 1, ${userId})`.execute(db);
    await sql`insert into member_roles (server_id, user_id, role_id) values (${serverId}, ${userId}, ${roleId})`.execute(db);
    await sql`update servers set perm_version = perm_version + 1 where id = ${serverId}`.execute(db);
  }
  await sql`update members set legacy_permissions = -1 where server_id = ${serverId} and user_id = ${userId}`.execute(db);
}
