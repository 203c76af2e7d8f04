import { type Kysely, type Transaction, sql } from 'kysely';
import { THREAD_TYPES } from './servers.js';
import type { AuditLogTable, BanTable, ChannelOverwriteTable, Database, RoleTable } from '../schema.js';

type Db = Kysely<Database>;
type Tx = Transaction<Database>;

/** Roles of servers (`@everyone` has the server's id). */
export const roles = {
  insert: (db: Tx, row: RoleTable) => db.insertInto('roles').values(row).execute(),
  ofServer: (db: Db, serverId: string) =>
    db.selectFrom('roles').selectAll().where('serverId', '=', serverId).orderBy('position').orderBy('id').execute(),
  /** Which of `ids` are roles of the server (not `@everyone`), with whether anyone may mention them. */
  mentionableIn: (db: Db, serverId: string, ids: string[]) =>
    db
      .selectFrom('roles')
      .select(['id', 'mentionable'])
      .where('serverId', '=', serverId)
      .where('id', 'in', ids)
      .where('id', '<>', serverId)
      .execute(),
  byId: (db: Db, serverId: string, id: string) =>
    db.selectFrom('roles').selectAll().where('serverId', '=', serverId).where('id', '=', id).executeTakeFirst(),
  managedOf: (db: Db, serverId: string, botId: string) =>
    db.selectFrom('roles').selectAll().where('serverId', '=', serverId).where('botId', '=', botId).executeTakeFirst(),
  update: (db: Tx, serverId: string, id: string, patch: Partial<Omit<RoleTable, 'id' | 'serverId'>>) =>
    db.updateTable('roles').set(patch).where('serverId', '=', serverId).where('id', '=', id).executeTakeFirst(),
  delete: (db: Tx, serverId: string, id: string) =>
    db.deleteFrom('roles').where('serverId', '=', serverId).where('id', '=', id).executeTakeFirst(),
  /**
   * Locks the server's roles until the transaction ends, by writing its `@everyone` row
   * (unchanged): on PostgreSQL, the role changes of one server then run one after another,
   * each seeing what the one before committed (a move's or a create's positions, the count
   * of the cap), where otherwise a concurrent insert stays invisible to an UPDATE. SQLite
   * has one writer anyway. Every role change takes it first, so they queue rather than deadlock.
   */
  lockServer: (db: Tx, serverId: string) =>
    db.updateTable('roles').set({ position: sql<number>`position` }).where('serverId', '=', serverId).where('id', '=', serverId).execute(),
  /** How many roles the server has, `@everyone` not counted (managed roles are). */
  countOf: async (db: Db | Tx, serverId: string) =>
    Number(
      (
        await db
          .selectFrom('roles')
          .select((eb) => eb.fn.countAll<string | number>().as('n'))
          .where('serverId', '=', serverId)
          .where('id', '<>', serverId)
          .executeTakeFirst()
      )?.n ?? 0,
    ),
  /** Moves every role but `@everyone` at or above `from` up by one: room for a new role at `from`. One statement. */
  makeRoomAt: (db: Tx, serverId: string, from: number) =>
    db
      .updateTable('roles')
      .set({ position: sql<number>`position + 1` })
      .where('serverId', '=', serverId)
      .where('id', '<>', serverId)
      .where('position', '>=', from)
      .execute(),
  /**
   * Gives each listed role its position, in ONE statement whatever the count (`case id when
   * ... then ... end`, which SQLite and PostgreSQL both read; the cast types PostgreSQL's
   * otherwise untyped parameters). Roles not listed keep theirs.
   */
  setPositions: async (db: Tx, serverId: string, positions: ReadonlyArray<{ id: string; position: number }>) => {
    if (positions.length === 0) return;
    const cases = sql.join(
      positions.map((p) => sql`when ${p.id} then ${p.position}`),
      sql` `,
    );
    await db
      .updateTable('roles')
      .set({ position: sql<number>`cast(case id ${cases} end as integer)` })
      .where('serverId', '=', serverId)
      .where(
        'id',
        'in',
        positions.map((p) => p.id),
      )
      .execute();
  },
  maxPosition: async (db: Db | Tx, serverId: string) =>
    Number(
      (
        await db
          .selectFrom('roles')
          .select((eb) => eb.fn.max('position').as('top'))
          .where('serverId', '=', serverId)
          .executeTakeFirst()
      )?.top ?? 0,
    ),
};

export const overwrites = {
  ofServer: (db: Db, serverId: string) => db.selectFrom('channelOverwrites').selectAll().where('serverId', '=', serverId).execute(),
  ofChannel: (db: Db, channelId: string) =>
    db.selectFrom('channelOverwrites').selectAll().where('channelId', '=', channelId).orderBy('targetId').execute(),
  ofChannels: (db: Db, channelIds: string[]) =>
    channelIds.length === 0
      ? Promise.resolve([] as ChannelOverwriteTable[])
      : db.selectFrom('channelOverwrites').selectAll().where('channelId', 'in', channelIds).execute(),
  get: (db: Db, channelId: string, targetId: string) =>
    db.selectFrom('channelOverwrites').selectAll().where('channelId', '=', channelId).where('targetId', '=', targetId).executeTakeFirst(),
  put: (db: Tx, row: ChannelOverwriteTable) =>
    db
      .insertInto('channelOverwrites')
      .values(row)
      .onConflict((oc) => oc.columns(['channelId', 'targetId']).doUpdateSet({ type: row.type, allow: row.allow, deny: row.deny }))
      .execute(),
  delete: (db: Tx, channelId: string, targetId: string) =>
    db.deleteFrom('channelOverwrites').where('channelId', '=', channelId).where('targetId', '=', targetId).executeTakeFirst(),
  deleteTarget: (db: Tx, serverId: string, targetId: string) =>
    db.deleteFrom('channelOverwrites').where('serverId', '=', serverId).where('targetId', '=', targetId).execute(),
};

export const bans = {
  put: (db: Tx, row: BanTable) =>
    db
      .insertInto('bans')
      .values(row)
      .onConflict((oc) => oc.columns(['serverId', 'userId']).doUpdateSet({ reason: row.reason }))
      .execute(),
  get: (db: Db, serverId: string, userId: string) =>
    db.selectFrom('bans').selectAll().where('serverId', '=', serverId).where('userId', '=', userId).executeTakeFirst(),
  ofServer: (db: Db, serverId: string) =>
    db
      .selectFrom('bans')
      .leftJoin('users', 'users.id', 'bans.userId')
      .select(['bans.userId', 'bans.reason', 'bans.createdAt', 'users.name', 'users.bot', 'users.avatar'])
      .where('bans.serverId', '=', serverId)
      .orderBy('bans.createdAt')
      .execute(),
  delete: (db: Tx, serverId: string, userId: string) =>
    db.deleteFrom('bans').where('serverId', '=', serverId).where('userId', '=', userId).executeTakeFirst(),
  /** One ban with the banned user's name, as `ofServer` lists them; undefined for someone not banned. */
  withUser: (db: Db, serverId: string, userId: string) =>
    db
      .selectFrom('bans')
      .leftJoin('users', 'users.id', 'bans.userId')
      .select(['bans.userId', 'bans.reason', 'bans.createdAt', 'users.name', 'users.bot', 'users.avatar'])
      .where('bans.serverId', '=', serverId)
      .where('bans.userId', '=', userId)
      .executeTakeFirst(),
};

export interface AuditQuery {
  limit: number;
  before?: string;
  action?: string;
  actorId?: string;
}

export const auditLog = {
  insert: (db: Tx, row: AuditLogTable) => db.insertInto('auditLog').values(row).execute(),
  ofServer: (db: Db, serverId: string, q: AuditQuery) => {
    let query = db.selectFrom('auditLog').selectAll().where('serverId', '=', serverId);
    if (q.before) query = query.where('id', '<', q.before);
    if (q.action) query = query.where('action', '=', q.action);
    if (q.actorId) query = query.where('actorId', '=', q.actorId);
    return query.orderBy('id', 'desc').limit(q.limit).execute();
  },
};

/**
 * What decides a server's permissions, read in one transaction (or as one moment's reads):
 * its owner and permission version, its roles' bits and positions, its channel overwrites
 * and its channels (the gateway's `ModelSnapshot`).
 */
export const permissionInputs = async (db: Db | Tx, serverId: string) => {
  const server = await db.selectFrom('servers').select(['ownerId', 'permVersion']).where('id', '=', serverId).executeTakeFirstOrThrow();
  const [roleRows, overwriteRows, channelRows] = await Promise.all([
    db.selectFrom('roles').select(['id', 'permissions', 'position']).where('serverId', '=', serverId).execute(),
    db.selectFrom('channelOverwrites').selectAll().where('serverId', '=', serverId).execute(),
    db
      .selectFrom('channels')
      .select([
        'id',
        'serverId',
        'name',
        'createdAt',
        'topic',
        'position',
        'type',
        'parentId',
        'defaultAutoArchiveDuration',
        'defaultSortOrder',
        'defaultForumLayout',
        'defaultReactionEmoji',
      ])
      .where('serverId', '=', serverId)
      // Threads are not among the channels a model holds (docs/threads.md).
      .where('type', 'not in', THREAD_TYPES)
      .$narrowType<{ serverId: string }>()
      .execute(),
  ]);
  return {
    ownerId: server.ownerId,
    permVersion: Number(server.permVersion),
    roles: roleRows,
    overwrites: overwriteRows,
    channels: channelRows,
  };
};

/** Bumps a server's permission version: every cached computation for it is stale. */
export const bumpPermVersion = (db: Tx, serverId: string) =>
  db
    .updateTable('servers')
    .set({ permVersion: sql`perm_version + 1` })
    .where('id', '=', serverId)
    .returning('permVersion')
    .executeTakeFirst();
