import { type Kysely, type Transaction, sql } from 'kysely';
import { uploads } from './messages.js';
import type { ChannelTable, Database, InviteTable, MemberTable, ServerTable } from '../schema.js';

type Db = Kysely<Database>;
/** Writes take the transaction `Store.write` hands out: a plain handle is a type error. */
type Tx = Transaction<Database>;

/** Servers with their channels, members and invites (one aggregate). */
export const servers = {
  insert: (db: Tx, row: ServerTable) => db.insertInto('servers').values(row).execute(),
  byId: (db: Db, id: string) => db.selectFrom('servers').selectAll().where('id', '=', id).executeTakeFirst(),
  rename: (db: Tx, id: string, name: string) => db.updateTable('servers').set({ name }).where('id', '=', id).execute(),
  /** The servers `userId` owns (inside a transaction: the check before deleting an account). */
  ownedBy: (db: Db, userId: string) =>
    db.selectFrom('servers').select(['id', 'name']).where('ownerId', '=', userId).orderBy('id').execute(),
  /** Changes the server; an icon that is an upload is claimed (served from now on only while something references it). */
  update: async (db: Tx, id: string, patch: Partial<Pick<ServerTable, 'name' | 'icon' | 'iconUploadId' | 'description' | 'ownerId'>>) => {
    const r = await db.updateTable('servers').set(patch).where('id', '=', id).executeTakeFirst();
    if (patch.iconUploadId) await uploads.claim(db, patch.iconUploadId);
    return r;
  },
  delete: (db: Tx, id: string) => db.deleteFrom('servers').where('id', '=', id).executeTakeFirst(),
  memberCount: async (db: Db, id: string) =>
    Number(
      (
        await db
          .selectFrom('members')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('serverId', '=', id)
          .executeTakeFirst()
      )?.n ?? 0,
    ),
  /** The servers `userId` belongs to, each with the member's roles there. */
  ofMember: (db: Db, userId: string) =>
    db
      .selectFrom('servers')
      .innerJoin('members', 'members.serverId', 'servers.id')
      .selectAll('servers')
      .select('members.roles')
      .where('members.userId', '=', userId)
      .orderBy('servers.id')
      .execute(),
};

/** A channel of a server (a DM's server id is null: `repos/dms.ts` reads those). */
export type ServerChannel = ChannelTable & { serverId: string };

export const channels = {
  insert: (db: Tx, row: ServerChannel) => db.insertInto('channels').values(row).execute(),
  /** A server's channel; a DM's id finds nothing here. */
  byId: (db: Db, id: string) =>
    db
      .selectFrom('channels')
      .selectAll()
      .where('id', '=', id)
      .where('serverId', 'is not', null)
      .$narrowType<{ serverId: string }>()
      .executeTakeFirst(),
  ofServer: (db: Db, serverId: string) =>
    db.selectFrom('channels').selectAll().where('serverId', '=', serverId).orderBy('id').$narrowType<{ serverId: string }>().execute(),
  ofServers: (db: Db, serverIds: string[]) =>
    serverIds.length === 0
      ? Promise.resolve([] as ServerChannel[])
      : db
          .selectFrom('channels')
          .selectAll()
          .where('serverId', 'in', serverIds)
          .orderBy('id')
          .$narrowType<{ serverId: string }>()
          .execute(),
  /** The channels of these servers, as `{id, serverId}` only. */
  idsOfServers: (db: Db, serverIds: string[]) =>
    serverIds.length === 0
      ? Promise.resolve([] as Array<{ id: string; serverId: string }>)
      : db
          .selectFrom('channels')
          .select(['id', 'serverId'])
          .where('serverId', 'in', serverIds)
          .$narrowType<{ serverId: string }>()
          .execute(),
  rename: (db: Tx, id: string, name: string) => db.updateTable('channels').set({ name }).where('id', '=', id).execute(),
  update: (db: Tx, id: string, patch: Partial<Pick<ChannelTable, 'name' | 'topic' | 'position'>>) =>
    db.updateTable('channels').set(patch).where('id', '=', id).executeTakeFirst(),
  delete: (db: Tx, id: string) => db.deleteFrom('channels').where('id', '=', id).executeTakeFirst(),
};

/** A channel with what decides the caller's permissions there; `roles` is null when not a member. */
export interface ChannelAccess {
  channelId: string;
  serverId: string;
  name: string;
  createdAt: string;
  topic: string | null;
  position: number;
  ownerId: string;
  permVersion: number;
  roles: string | null;
  /** The member's join date (null for a non-member): Discord's `member` of the messages they send. */
  joinedAt: string | null;
  /** The member's nickname in the server, if any: also on Discord's message `member`. */
  nick: string | null;
}

export const members = {
  insert: (db: Tx, row: MemberTable) =>
    db
      .insertInto('members')
      // Nothing of section 3's bits to carry over for a new member (see 0005).
      .values({ legacyPermissions: -1, ...row })
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst(),
  get: (db: Db, serverId: string, userId: string) =>
    db.selectFrom('members').selectAll().where('serverId', '=', serverId).where('userId', '=', userId).executeTakeFirst(),
  /**
   * The caller's membership in the server owning `channelId`, with the channel, in one
   * query; `permissions` is null for a non-member. Every message, reaction and typing
   * request runs it, so it is plain SQL: building and compiling this join with the query
   * builder took as long as running it.
   */
  forChannel: async (db: Db, channelId: string, userId: string) => {
    const { rows } = await sql<ChannelAccess>`
      select c.id as channel_id, c.server_id, c.name, c.created_at, c.topic, c.position,
        s.owner_id, s.perm_version, m.roles, m.joined_at, m.nick
      from channels c join servers s on s.id = c.server_id
      left join members m on m.server_id = c.server_id and m.user_id = ${userId}
      where c.id = ${channelId}`.execute(db);
    const row = rows[0];
    // PostgreSQL's driver answers bigint columns as strings, SQLite's plugin numbers.
    if (row) row.permVersion = Number(row.permVersion);
    return row;
  },
  /** The members in the order they joined; with `limit`, the first that many; with `userId`, only that one. */
  ofServer: (db: Db, serverId: string, only: { limit?: number; userId?: string } = {}) => {
    let q = db
      .selectFrom('members')
      .innerJoin('users', 'users.id', 'members.userId')
      .select(['users.id', 'users.name', 'users.bot', 'users.avatar', 'users.ownerId', 'members.roles', 'members.joinedAt', 'members.nick'])
      .where('members.serverId', '=', serverId);
    if (only.userId !== undefined) q = q.where('members.userId', '=', only.userId);
    q = q.orderBy('members.joinedAt').orderBy('users.id');
    return only.limit === undefined ? q.execute() : q.limit(only.limit).execute();
  },
  /** How many members each of `serverIds` has. */
  counts: async (db: Db, serverIds: readonly string[]): Promise<Map<string, number>> => {
    if (serverIds.length === 0) return new Map();
    const rows = await db
      .selectFrom('members')
      .select((eb) => ['serverId', eb.fn.countAll<number | string>().as('n')])
      .where('serverId', 'in', serverIds)
      .groupBy('serverId')
      .execute();
    return new Map(rows.map((r) => [String(r.serverId), Number(r.n)]));
  },
  /** Which of `userIds` are members of the server, as `{id, name, bot, avatar}` in the order asked. */
  usersIn: async (db: Db, serverId: string, userIds: string[]) => {
    const rows = await db
      .selectFrom('members')
      .innerJoin('users', 'users.id', 'members.userId')
      .select(['users.id', 'users.name', 'users.bot', 'users.avatar'])
      .where('members.serverId', '=', serverId)
      .where('members.userId', 'in', userIds)
      .execute();
    const byId = new Map(rows.map((r) => [r.id, { id: r.id, name: r.name, bot: r.bot === 1, avatar: r.avatar }]));
    return userIds.flatMap((id) => byId.get(id) ?? []);
  },
  /** Sets a member's roles and/or nickname (null clears it). */
  update: (db: Tx, serverId: string, userId: string, patch: { roles?: string; nick?: string | null }) =>
    db.updateTable('members').set(patch).where('serverId', '=', serverId).where('userId', '=', userId).executeTakeFirst(),
  setRoles: (db: Tx, serverId: string, userId: string, roles: string) =>
    db.updateTable('members').set({ roles }).where('serverId', '=', serverId).where('userId', '=', userId).executeTakeFirst(),
  /** Members holding `roleId` (a role being deleted). */
  withRole: (db: Db | Tx, serverId: string, roleId: string) =>
    db
      .selectFrom('members')
      .select(['userId', 'roles'])
      .where('serverId', '=', serverId)
      .where(sql<boolean>`(',' || roles || ',') like ${`%,${roleId},%`}`)
      .execute(),
  /** Bots added before roles whose managed role is still to be made. */
  pendingLegacy: (db: Db) =>
    db.selectFrom('members').select(['serverId', 'userId', 'legacyPermissions', 'roles']).where('legacyPermissions', '>=', 0).execute(),
  delete: (db: Tx, serverId: string, userId: string) =>
    db.deleteFrom('members').where('serverId', '=', serverId).where('userId', '=', userId).executeTakeFirst(),
  /** Removes `userId` from every server (a deleted account). */
  deleteAllOf: (db: Tx, userId: string) => db.deleteFrom('members').where('userId', '=', userId).execute(),
  serverIdsOf: async (db: Db, userId: string) =>
    (await db.selectFrom('members').select('serverId').where('userId', '=', userId).execute()).map((r) => r.serverId),
};

export const invites = {
  insert: (db: Tx, row: InviteTable) => db.insertInto('invites').values(row).execute(),
  /** Counts a use, unless it is used up or expired; false when it was not usable. */
  use: async (db: Tx, code: string, now: string) => {
    const r = await db
      .updateTable('invites')
      .set({ uses: sql`uses + 1` })
      .where('code', '=', code)
      .where((eb) => eb.or([eb('maxUses', '=', 0), eb('uses', '<', eb.ref('maxUses'))]))
      .where((eb) => eb.or([eb('expiresAt', 'is', null), eb('expiresAt', '>', now)]))
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  },
  byCode: (db: Db, code: string) => db.selectFrom('invites').selectAll().where('code', '=', code).executeTakeFirst(),
  ofServer: (db: Db, serverId: string) =>
    db.selectFrom('invites').selectAll().where('serverId', '=', serverId).orderBy('createdAt').execute(),
  delete: (db: Tx, code: string) => db.deleteFrom('invites').where('code', '=', code).executeTakeFirst(),
};
