import { type Kysely, type Transaction, sql } from 'kysely';
import { compareIds } from '../../ids.js';
import { uploads } from './messages.js';
import type { DialectAdapter } from '../dialects/types.js';
import type { ChannelTable, Database, InviteTable, MemberTable, ServerTable } from '../schema.js';

type Db = Kysely<Database>;
/** Writes take the transaction `Store.write` hands out: a plain handle is a type error. */
type Tx = Transaction<Database>;

/** How the dialect joins a member's role ids into one text (`DialectAdapter.joinIds`). */
type JoinIds = DialectAdapter['joinIds'];

/**
 * A member's role ids as one text, by a correlated subquery over `member_roles`' primary
 * key (index only): `server` and `user` are the columns (raw SQL, snake case) naming the member.
 */
const roleIdsOf = (joinIds: JoinIds, server: string, user: string) =>
  sql.raw<string | null>(`(select ${joinIds('mr.role_id')} from member_roles mr where mr.server_id = ${server} and mr.user_id = ${user})`);

/** The ids `roleIdsOf` joined, ascending as numbers (none for null). */
const roleIds = (joined: string | null | undefined): string[] => (joined ? joined.split(',').sort(compareIds) : []);

/** A server's members with their user fields and role ids, for a caller to filter, order and limit. */
const memberRows = (db: Db, joinIds: JoinIds, serverId: string) =>
  db
    .selectFrom('members')
    .innerJoin('users', 'users.id', 'members.userId')
    .select(['users.id', 'users.name', 'users.bot', 'users.avatar', 'users.ownerId', 'members.joinedAt', 'members.nick'])
    .select(roleIdsOf(joinIds, 'members.server_id', 'members.user_id').as('roles'))
    .where('members.serverId', '=', serverId);

/** Servers with their channels, members and invites (one aggregate). */
export const serversRepo = (joinIds: JoinIds) => ({
  insert: (db: Tx, row: ServerTable) => db.insertInto('servers').values(row).execute(),
  byId: (db: Db, id: string) => db.selectFrom('servers').selectAll().where('id', '=', id).executeTakeFirst(),
  rename: (db: Tx, id: string, name: string) => db.updateTable('servers').set({ name }).where('id', '=', id).execute(),
  /** The servers `userId` owns (inside a transaction: the check before deleting an account). */
  ownedBy: (db: Db, userId: string) =>
    db.selectFrom('servers').select(['id', 'name']).where('ownerId', '=', userId).orderBy('id').execute(),
  /** Changes the server; an icon that is an upload is claimed (served from now on only while something references it). */
  update: async (
    db: Tx,
    id: string,
    patch: Partial<
      Pick<ServerTable, 'name' | 'icon' | 'iconUploadId' | 'description' | 'ownerId' | 'systemChannelId' | 'systemChannelFlags'>
    >,
  ) => {
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
  ofMember: async (db: Db, userId: string) =>
    (
      await db
        .selectFrom('servers')
        .innerJoin('members', 'members.serverId', 'servers.id')
        .selectAll('servers')
        .select(roleIdsOf(joinIds, 'members.server_id', 'members.user_id').as('roles'))
        .where('members.userId', '=', userId)
        .orderBy('servers.id')
        .execute()
    ).map((r) => ({ ...r, roles: roleIds(r.roles) })),
  /** A page of the servers `userId` belongs to, by id ascending, between the exclusive bounds (a keyset read). */
  pageOfMember: (db: Db, userId: string, page: { after?: string; before?: string; limit: number }) => {
    let q = db
      .selectFrom('servers')
      .innerJoin('members', 'members.serverId', 'servers.id')
      .selectAll('servers')
      .where('members.userId', '=', userId);
    if (page.after !== undefined) q = q.where('servers.id', '>', page.after);
    if (page.before !== undefined) q = q.where('servers.id', '<', page.before);
    return q.orderBy('servers.id').limit(page.limit).execute();
  },
});

/** A channel of a server (a DM's server id is null: `repos/dms.ts` reads those). */
export type ServerChannel = ChannelTable & { serverId: string };

/** Threads are channels too (docs/threads.md), but a server's channel list is of the others: `repos/threads.ts` reads them. */
export const THREAD_TYPES = ['public_thread', 'private_thread'] as const;

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
  /** A server's channels, threads not included. */
  ofServer: (db: Db, serverId: string) =>
    db
      .selectFrom('channels')
      .selectAll()
      .where('serverId', '=', serverId)
      .where('type', 'not in', THREAD_TYPES)
      .orderBy('id')
      .$narrowType<{ serverId: string }>()
      .execute(),
  ofServers: (db: Db, serverIds: string[]) =>
    serverIds.length === 0
      ? Promise.resolve([] as ServerChannel[])
      : db
          .selectFrom('channels')
          .selectAll()
          .where('serverId', 'in', serverIds)
          .where('type', 'not in', THREAD_TYPES)
          .orderBy('id')
          .$narrowType<{ serverId: string }>()
          .execute(),
  /** The channels of these servers (threads not included), as `{id, serverId}` only. */
  idsOfServers: (db: Db, serverIds: string[]) =>
    serverIds.length === 0
      ? Promise.resolve([] as Array<{ id: string; serverId: string }>)
      : db
          .selectFrom('channels')
          .select(['id', 'serverId'])
          .where('serverId', 'in', serverIds)
          .where('type', 'not in', THREAD_TYPES)
          .$narrowType<{ serverId: string }>()
          .execute(),
  /** The position after the server's last channel (0 for its first). */
  nextPosition: async (db: Db, serverId: string) =>
    Number(
      (
        await db
          .selectFrom('channels')
          .select((eb) => eb.fn.max('position').as('top'))
          .where('serverId', '=', serverId)
          .where('type', 'not in', THREAD_TYPES)
          .executeTakeFirst()
      )?.top ?? -1,
    ) + 1,
  rename: (db: Tx, id: string, name: string) => db.updateTable('channels').set({ name }).where('id', '=', id).execute(),
  update: (db: Tx, id: string, patch: Partial<Pick<ChannelTable, 'name' | 'topic' | 'position' | 'parentId'>>) =>
    db.updateTable('channels').set(patch).where('id', '=', id).executeTakeFirst(),
  /** The channels of a category (by position), its children. */
  children: (db: Db, parentId: string) =>
    db
      .selectFrom('channels')
      .selectAll()
      .where('parentId', '=', parentId)
      .orderBy('position')
      .orderBy('id')
      .$narrowType<{ serverId: string }>()
      .execute(),
  /** Leaves a deleted category's channels uncategorised. */
  unparent: (db: Tx, parentId: string) => db.updateTable('channels').set({ parentId: null }).where('parentId', '=', parentId).execute(),
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
  /** 'text' or 'category'. */
  type: string;
  ownerId: string;
  permVersion: number;
  /** The member's role ids, ascending; null for a non-member. */
  roles: string[] | null;
  /** The member's join date (null for a non-member): Discord's `member` of the messages they send. */
  joinedAt: string | null;
  /** The member's nickname in the server, if any: also on Discord's message `member`. */
  nick: string | null;
  /** A thread's parent channel (docs/threads.md); null for any other channel (a category is not read here). */
  threadParentId: string | null;
  /** A thread's state: 1 for a private thread, a locked or archived one, one the caller joined (0 for other channels). */
  threadPrivate: number;
  threadLocked: number;
  threadArchived: number;
  threadMember: number;
}

/** A member's row with their role ids, ascending (`member_roles`). */
type MemberWithRoles = MemberTable & { roles: string[] };

export const membersRepo = (joinIds: JoinIds) => {
  /** Gives `userId` the roles `roleIds` (those they hold already are skipped). */
  const addRoles = async (db: Tx, serverId: string, userId: string, roleIds: readonly string[]) => {
    if (roleIds.length > 0)
      await db
        .insertInto('memberRoles')
        .values(roleIds.map((roleId) => ({ serverId, userId, roleId })))
        .onConflict((oc) => oc.doNothing())
        .execute();
  };
  const get = async (db: Db, serverId: string, userId: string): Promise<MemberWithRoles | undefined> => {
    const row = await db
      .selectFrom('members')
      .selectAll()
      .select(roleIdsOf(joinIds, 'members.server_id', 'members.user_id').as('roles'))
      .where('serverId', '=', serverId)
      .where('userId', '=', userId)
      .executeTakeFirst();
    return row && { ...row, roles: roleIds(row.roles) };
  };
  /** Makes `roles` the member's whole role set: adds what is missing, removes the rest. */
  const setRoles = async (db: Tx, serverId: string, userId: string, roles: readonly string[]) => {
    let q = db.deleteFrom('memberRoles').where('serverId', '=', serverId).where('userId', '=', userId);
    if (roles.length > 0) q = q.where('roleId', 'not in', roles);
    await q.execute();
    await addRoles(db, serverId, userId, roles);
  };
  return {
    /** Adds a member with `roles` (none by default); nothing when they are one already. */
    insert: async (db: Tx, row: MemberTable & { roles?: readonly string[] }) => {
      const { roles = [], ...member } = row;
      const r = await db
        .insertInto('members')
        // Nothing of the legacy bot bits (docs/permissions.md#bots) to carry over for a new member (see 0005).
        .values({ legacyPermissions: -1, ...member })
        .onConflict((oc) => oc.doNothing())
        .executeTakeFirst();
      if (Number(r.numInsertedOrUpdatedRows ?? 0) > 0) await addRoles(db, row.serverId, row.userId, roles);
      return r;
    },
    get,
    /**
     * The caller's membership in the server owning `channelId`, with the channel and their
     * roles, in one query; `roles` is null for a non-member. Every message, reaction and
     * typing request runs it, so it is plain SQL: building and compiling this join with the
     * query builder took as long as running it. The roles come from `member_roles`' primary
     * key alone (docs/decisions/0002-member-roles-table.md).
     */
    forChannel: async (db: Db, channelId: string, userId: string) => {
      const { rows } = await sql<ChannelAccess>`
        select c.id as channel_id, c.server_id, c.name, c.created_at, c.topic, c.position, c.type,
          s.owner_id, s.perm_version, m.joined_at, m.nick,
          ${roleIdsOf(joinIds, 'm.server_id', 'm.user_id')} as roles,
          case when t.channel_id is null then null else c.parent_id end as thread_parent_id,
          case when c.type = 'private_thread' then 1 else 0 end as thread_private,
          coalesce(t.locked, 0) as thread_locked, coalesce(t.archived, 0) as thread_archived,
          case when t.channel_id is not null and exists (select 1 from thread_members tm
            where tm.thread_id = c.id and tm.user_id = ${userId}) then 1 else 0 end as thread_member
        from channels c join servers s on s.id = c.server_id
        left join members m on m.server_id = c.server_id and m.user_id = ${userId}
        left join threads t on t.channel_id = c.id
        where c.id = ${channelId}`.execute(db);
      const row = rows[0];
      if (row) {
        // PostgreSQL's driver answers bigint columns as strings, SQLite's plugin numbers.
        row.permVersion = Number(row.permVersion);
        row.threadPrivate = Number(row.threadPrivate);
        row.threadLocked = Number(row.threadLocked);
        row.threadArchived = Number(row.threadArchived);
        row.threadMember = Number(row.threadMember);
        // The roles arrive joined in one text (`roleIdsOf`); a non-member has no join date.
        row.roles = row.joinedAt === null ? null : roleIds(row.roles as unknown as string | null);
      }
      return row;
    },
    /** The members in the order they joined; with `limit`, the first that many; with `userId`, only that one. */
    ofServer: async (db: Db, serverId: string, only: { limit?: number; userId?: string } = {}) => {
      let q = memberRows(db, joinIds, serverId);
      if (only.userId !== undefined) q = q.where('members.userId', '=', only.userId);
      q = q.orderBy('members.joinedAt').orderBy('users.id');
      const rows = await (only.limit === undefined ? q.execute() : q.limit(only.limit).execute());
      return rows.map((r) => ({ ...r, roles: roleIds(r.roles) }));
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
    /** Which of `userIds` are members of the server, with whether each is a bot and their role ids (ascending). */
    rolesOf: async (db: Db | Tx, serverId: string, userIds: readonly string[]) => {
      if (userIds.length === 0) return [];
      const rows = await db
        .selectFrom('members')
        .innerJoin('users', 'users.id', 'members.userId')
        .select(['members.userId', 'users.bot'])
        .select(roleIdsOf(joinIds, 'members.server_id', 'members.user_id').as('roles'))
        .where('members.serverId', '=', serverId)
        .where('members.userId', 'in', userIds)
        .execute();
      return rows.map((r) => ({ userId: String(r.userId), bot: r.bot === 1, roles: roleIds(r.roles) }));
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
    /** Sets a member's whole role set and/or nickname (null clears it). */
    update: async (db: Tx, serverId: string, userId: string, patch: { roles?: readonly string[]; nick?: string | null }) => {
      if (patch.roles) await setRoles(db, serverId, userId, patch.roles);
      if (patch.nick !== undefined)
        await db.updateTable('members').set({ nick: patch.nick }).where('serverId', '=', serverId).where('userId', '=', userId).execute();
    },
    setRoles,
    addRoles,
    /** Takes `roleId` from the member; false when they did not hold it. */
    removeRole: async (db: Tx, serverId: string, userId: string, roleId: string) => {
      const r = await db
        .deleteFrom('memberRoles')
        .where('serverId', '=', serverId)
        .where('userId', '=', userId)
        .where('roleId', '=', roleId)
        .executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
    },
    /**
     * The members holding `roleId`, each with all their roles (a role being deleted): read
     * by the role alone, which names one server (`member_roles_role`).
     */
    withRole: async (db: Db | Tx, roleId: string) =>
      (
        await db
          .selectFrom('memberRoles as h')
          .select('h.userId')
          .select(roleIdsOf(joinIds, 'h.server_id', 'h.user_id').as('roles'))
          .where('h.roleId', '=', roleId)
          .orderBy('h.userId')
          .execute()
      ).map((r) => ({ userId: r.userId, roles: roleIds(r.roles) })),
    delete: (db: Tx, serverId: string, userId: string) =>
      db.deleteFrom('members').where('serverId', '=', serverId).where('userId', '=', userId).executeTakeFirst(),
    /** Removes `userId` from every server (a deleted account). */
    deleteAllOf: (db: Tx, userId: string) => db.deleteFrom('members').where('userId', '=', userId).execute(),
    serverIdsOf: async (db: Db, userId: string) =>
      (await db.selectFrom('members').select('serverId').where('userId', '=', userId).execute()).map((r) => r.serverId),
    /**
     * A page of the server's members by user id, ascending: the first `limit` whose id is
     * above `after` (Discord's List Guild Members). A keyset read of the `members` primary key,
     * so a page costs the same at any depth and no more rows than it shows are read.
     */
    pageById: async (db: Db, serverId: string, page: { after?: string; limit: number }) => {
      let q = memberRows(db, joinIds, serverId);
      if (page.after !== undefined) q = q.where('members.userId', '>', page.after);
      const rows = await q.orderBy('members.userId').limit(page.limit).execute();
      return rows.map((r) => ({ ...r, roles: roleIds(r.roles) }));
    },
  };
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
