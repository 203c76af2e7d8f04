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
export async function migrateToManagedRoles(db: Kysely<any>): Promise<void> {
  // Ids as text: a 64-bit id read as a number would lose digits, whichever plugins the connection has.
  const pending: Array<{ server: string; member: string; bits: number | string }> = await db
    .selectFrom('members')
    .select([
      sql<string>`cast(server_id as text)`.as('server'),
      sql<string>`cast(user_id as text)`.as('member'),
      'legacy_permissions as bits',
    ])
    .where('legacy_permissions', '>=', 0)
    .orderBy('server_id')
    .orderBy('user_id')
    .execute();
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

async function giveManagedRole(db: Kysely<any>, ids: SnowflakeGenerator, serverId: string, userId: string, old: number): Promise<void> {
  const done = () =>
    db.updateTable('members').set({ legacy_permissions: -1 }).where('server_id', '=', serverId).where('user_id', '=', userId).execute();
  const bot: { name: string } | undefined = await db
    .selectFrom('users')
    .select('name')
    .where('id', '=', userId)
    .where('bot', '=', 1)
    .executeTakeFirst();
  if (!bot) return void (await done());
  const top: { top: number | string | null } | undefined = await db
    .selectFrom('roles')
    .select((eb) => eb.fn.max('position').as('top'))
    .where('server_id', '=', serverId)
    .executeTakeFirst();
  const roleId = ids.next();
  const names = LEGACY_BIT_NAMES.filter((_, i) => (old & (1 << i)) !== 0);
  await db
    .insertInto('roles')
    .values({
      id: roleId,
      server_id: serverId,
      name: bot.name,
      color: 0,
      position: Number(top?.top ?? 0) + 1,
      permissions: bitsOfNames(names).toString(),
      hoist: 0,
      mentionable: 0,
      managed: 1,
      bot_id: userId,
    })
    .execute();
  await db.insertInto('member_roles').values({ server_id: serverId, user_id: userId, role_id: roleId }).execute();
  await done();
  await db
    .updateTable('servers')
    .set({ perm_version: sql`perm_version + 1` })
    .where('id', '=', serverId)
    .execute();
}
