import { randomBytes } from 'node:crypto';
import {
  BOT_DEFAULT_PERMISSIONS,
  DEFAULT_EVERYONE_PERMISSIONS,
  type LegacyPermission,
  P,
  type Permission,
  bitsOfNames,
  legacyNamesOf,
  parsePermissions,
} from '@parley/protocol';
import { badRequest, conflict, forbidden, notFound } from '../errors.js';
import { compareIds, isId } from '../ids.js';
import type { Tx } from '../store/index.js';
import type { ServerChannel } from '../store/repos/servers.js';
import type { ChannelTable, InviteTable, RoleTable, ServerTable, UserTable } from '../store/schema.js';
import { JOIN_MEMBERS_MAX, type JoinSnapshot } from '../events/types.js';
import { publicUser } from './accounts.js';
import { directMessages } from './direct-messages.js';
import {
  requireChannelPermission,
  requireServerChannelPermission,
  requireMember,
  requireOwner,
  requireServerPermission,
} from './access.js';
import { auditIn, diff } from './audit.js';
import { type DomainContext, notify, nowIso } from './context.js';
import { cleanName, rejectNul, stripUnsafeCharacters } from './names.js';
import { type ModelDelta, mayReadHistory } from './permissions.js';
import {
  type Departure,
  type OverwriteInput,
  announceDeparture,
  bumpVersion,
  channelView,
  checkOverwriteList,
  clearDeparture,
  requirePermissions,
  roleDelta,
  roleView,
  snapshotIn,
  writeOverwriteList,
} from './roles.js';
import { SharedRows } from './shared-rows.js';
import { releaseUploads } from './uploads.js';
import { serverIcon } from './accounts.js';
import type { Caller, Channel, Server } from './types.js';
import type { DmChannel, PresenceStatus, Role } from '@parley/protocol';

export { channelView };

export const serverView = (s: ServerTable): Server => ({
  id: s.id,
  name: s.name,
  ownerId: s.ownerId,
  createdAt: s.createdAt,
  icon: s.icon ?? null,
  description: s.description ?? null,
});

/**
 * Random bytes per invite code: 12 bytes (96 bits, 16 characters) cannot be found by
 * guessing, even before the join rate limits. Codes made before were 6 bytes (8
 * characters); they keep working.
 */
export const INVITE_CODE_BYTES = 12;
/** An invite's default lifetime (Discord's): 7 days. */
export const INVITE_DEFAULT_MAX_AGE = 604_800;
/** Messages a ban may delete: up to 7 days back. */
const BAN_DELETE_MAX_SECONDS = 604_800;

/** Codes are base64url; anything else (e.g. a NUL, which PostgreSQL refuses) names no invite. */
const inviteByCode = (ctx: DomainContext, code: string) =>
  /^[A-Za-z0-9_-]{1,64}$/.test(code) ? ctx.store.invites.byCode(ctx.store.db, code) : Promise.resolve(undefined);

export const inviteView = (i: InviteTable) => ({
  code: i.code,
  serverId: i.serverId,
  inviterId: i.createdBy,
  createdBy: i.createdBy,
  uses: Number(i.uses ?? 0),
  maxUses: Number(i.maxUses ?? 0),
  maxAge: Number(i.maxAge ?? 0),
  expiresAt: i.expiresAt ?? null,
  createdAt: i.createdAt,
});

/** True while an invite can still be used: not expired, not used up. */
export function inviteUsable(i: InviteTable, now: string): boolean {
  if (i.expiresAt && i.expiresAt <= now) return false;
  return Number(i.maxUses) === 0 || Number(i.uses) < Number(i.maxUses);
}

/** Bits of names (the legacy ones of docs/permissions.md#bots, or those of docs/permissions.md#the-bits), or a bitfield string (POST/PATCH of a bot); none given: BOT_DEFAULT_PERMISSIONS. */
function botBits(permissions: ReadonlyArray<string> | string | undefined): bigint {
  if (permissions === undefined) return BOT_DEFAULT_PERMISSIONS;
  if (typeof permissions === 'string') return requirePermissions(permissions, 'permissions') ?? 0n;
  return bitsOfNames(permissions as (Permission | LegacyPermission)[]);
}

const botMember = (bot: UserTable, role: RoleTable, joinedAt?: string) => ({
  ...publicUser(bot),
  ownerId: bot.ownerId,
  permissions: legacyNamesOf(parsePermissions(role.permissions) ?? 0n),
  ...(joinedAt ? { joinedAt } : {}),
  role: roleView(role),
});

/** A member as the API shows one: the person or bot, their roles, presence, and a bot's section-3 permissions. */
function memberView(
  r: Pick<UserTable, 'id' | 'name' | 'bot' | 'avatar' | 'ownerId'> & { roles: readonly string[]; joinedAt: string; nick?: string | null },
  managedRole: RoleTable | undefined,
  presence: PresenceStatus | undefined,
) {
  const user = publicUser(r);
  return {
    ...user,
    user,
    presence: presence ?? ('offline' as const),
    roles: [...r.roles],
    nick: r.nick ?? null,
    ...(r.bot === 1 ? { ownerId: r.ownerId, permissions: legacyNamesOf(parsePermissions(managedRole?.permissions ?? '0') ?? 0n) } : {}),
    joinedAt: r.joinedAt,
  };
}

/**
 * The role views of a server's join snapshots, shared while unchanged: every bot's
 * MEMBER_ADD lists every role (Discord's GUILD_CREATE does), and the in-process log keeps
 * thousands of entries. (The Redis stream stores each entry's JSON whole.)
 */
const listedRoles = new SharedRows<Role>(
  (r) => r.id,
  (held, v) =>
    held.name === v.name &&
    held.color === v.color &&
    held.position === v.position &&
    held.permissions === v.permissions &&
    held.hoist === v.hoist &&
    held.mentionable === v.mentionable &&
    held.managed === v.managed,
);

/**
 * The server a bot just joined, for its sessions' GUILD_CREATE on Discord's gateway: read
 * in the join's transaction, so its roles are the model's at the join's version (the
 * MEMBER_ADD's model carries them only here).
 */
async function joinSnapshot(ctx: DomainContext, db: Tx, server: ServerTable, botId: string, joinedAt: string): Promise<JoinSnapshot> {
  // One past the limit tells whether there are more: a big server's members are not all read.
  const [first, roles] = await Promise.all([
    ctx.store.members.ofServer(db, server.id, { limit: JOIN_MEMBERS_MAX + 1 }),
    ctx.store.roles.ofServer(db, server.id),
  ]);
  const many = first.length > JOIN_MEMBERS_MAX;
  const [listed, memberCount] = many
    ? await Promise.all([ctx.store.members.ofServer(db, server.id, { userId: botId }), ctx.store.servers.memberCount(db, server.id)])
    : [first, first.length];
  return {
    server: serverView(server),
    roles: listedRoles.share(server.id, roles.map(roleView)),
    members: listed.map((r) => ({ user: publicUser(r), roles: r.roles, joinedAt: r.joinedAt, nick: r.nick ?? null })),
    memberCount,
    joinedAt,
  };
}

export const servers = {
  async create(ctx: DomainContext, caller: Caller, name: string) {
    if (caller.bot) throw forbidden('users_only', 'bots cannot create servers');
    const now = nowIso(ctx);
    const server: ServerTable = {
      id: ctx.store.ids.next(),
      name: cleanName(name, 'name'),
      ownerId: caller.id,
      createdAt: now,
      icon: null,
      description: null,
      permVersion: 0,
    };
    const general: ServerChannel = {
      id: ctx.store.ids.next(),
      serverId: server.id,
      name: 'general',
      createdAt: now,
      topic: null,
      position: 0,
    };
    const model = await ctx.store.write(async (tx) => {
      await ctx.store.servers.insert(tx, server);
      await ctx.store.roles.insert(tx, everyoneRole(server.id));
      await ctx.store.members.insert(tx, { serverId: server.id, userId: caller.id, legacyPermissions: -1, joinedAt: now });
      await ctx.store.channels.insert(tx, general);
      return snapshotIn(ctx, tx, server.id);
    });
    await notify(ctx, {
      kind: 'event',
      serverId: server.id,
      event: {
        t: 'MEMBER_ADD',
        d: { serverId: server.id, user: { id: caller.id, name: caller.name, bot: caller.bot, avatar: caller.avatar } },
      },
      model,
      roles: [],
    });
    return serverView(server);
  },

  async list(ctx: DomainContext, caller: Caller) {
    return (await ctx.store.servers.ofMember(ctx.store.db, caller.id)).map(serverView);
  },

  async get(ctx: DomainContext, caller: Caller, serverId: string) {
    return serverView((await requireMember(ctx, caller, serverId)).server);
  },

  /** `PATCH /servers/{id}`: name, icon, description (MANAGE_SERVER); `ownerId` (the owner only). */
  async update(
    ctx: DomainContext,
    caller: Caller,
    serverId: string,
    body: { name?: string; icon?: string | null; description?: string | null; ownerId?: string },
  ) {
    const m = await requireServerPermission(ctx, caller, serverId, 'MANAGE_SERVER');
    const server = m.server;
    const patch: Partial<Pick<ServerTable, 'name' | 'icon' | 'iconUploadId' | 'description' | 'ownerId'>> = {};
    if (body.name !== undefined) patch.name = cleanName(body.name, 'name');
    if (body.icon !== undefined) Object.assign(patch, await serverIcon(ctx, caller.id, body.icon));
    if (body.description !== undefined) patch.description = cleanDescription(body.description);
    if (body.ownerId !== undefined && body.ownerId !== server.ownerId) {
      if (caller.id !== server.ownerId) throw forbidden('owner_only', 'only the owner can transfer the server');
      const next = isId(body.ownerId) ? await ctx.store.users.byId(ctx.store.db, body.ownerId) : undefined;
      const member = next && (await ctx.store.members.get(ctx.store.db, serverId, body.ownerId));
      if (!next || !member) throw badRequest('the new owner must be a member of the server', 'invalid_owner');
      if (next.bot === 1) throw badRequest('a bot cannot own a server', 'invalid_owner');
      patch.ownerId = body.ownerId;
    }
    const { updated, delta } = await ctx.store.write(async (tx) => {
      if (Object.keys(patch).length > 0) await ctx.store.servers.update(tx, serverId, patch);
      // An owner transfer changes everyone's permissions: its delta names the new owner.
      const delta: ModelDelta | undefined = patch.ownerId
        ? { version: await bumpVersion(ctx, tx, serverId), owner: patch.ownerId }
        : undefined;
      // The icon's upload link is bookkeeping: the audit log shows the icon's URL.
      const { iconUploadId: _link, ...shown } = patch;
      await auditIn(ctx, tx, serverId, caller, 'server_update', serverId, diff(server, shown));
      const updated = await ctx.store.servers.byId(tx, serverId);
      if (!updated) throw notFound('server');
      return { updated, delta };
    });
    // An icon upload no longer shown goes (unless something else references it).
    if (server.iconUploadId && String(server.iconUploadId) !== String(updated.iconUploadId ?? ''))
      await releaseUploads(ctx, [String(server.iconUploadId)]);
    await notify(ctx, { kind: 'event', serverId, event: { t: 'SERVER_UPDATE', d: serverView(updated) }, ...(delta ? { delta } : {}) });
    return serverView(updated);
  },

  /** `DELETE /servers/{id}`: the owner only; everything in it goes. */
  async delete(ctx: DomainContext, caller: Caller, serverId: string) {
    const server = await requireOwner(ctx, caller, serverId);
    const channels = await ctx.store.channels.ofServer(ctx.store.db, serverId);
    const { deleted, uploadIds } = await ctx.store.write(async (tx) => {
      const uploadIds: string[] = server.iconUploadId ? [String(server.iconUploadId)] : [];
      for (const c of channels) uploadIds.push(...(await ctx.store.uploads.ofChannel(tx, c.id)));
      const r = await ctx.store.servers.delete(tx, serverId);
      return { deleted: Number(r.numDeletedRows) > 0, uploadIds };
    });
    if (!deleted) throw notFound('server');
    await releaseUploads(ctx, uploadIds);
    await notify(ctx, { kind: 'event', serverId, event: { t: 'SERVER_DELETE', d: { id: serverId } } });
  },

  /** The channels the caller may see. */
  async channels(ctx: DomainContext, caller: Caller, serverId: string) {
    const m = await requireMember(ctx, caller, serverId);
    const [list, overwrites] = await Promise.all([
      ctx.store.channels.ofServer(ctx.store.db, serverId),
      ctx.store.overwrites.ofServer(ctx.store.db, serverId),
    ]);
    const visible = list.filter((c) => (m.model.permissions(caller.id, caller.bot, m.roles, c.id) & P.VIEW_CHANNEL) !== 0n);
    // Where a channel's history ends is part of the history: only for those who may read it.
    const lastIds = await ctx.store.messages.lastIds(
      ctx.store.db,
      visible.filter((c) => mayReadHistory(m.model.permissions(caller.id, caller.bot, m.roles, c.id))).map((c) => c.id),
    );
    return visible.map((c) => ({ ...channelView(c, overwrites), lastMessageId: lastIds.get(c.id) ?? null }));
  },

  /** One channel the caller can see: a server's (with its overwrites and newest message) or a DM they are in. */
  async channel(ctx: DomainContext, caller: Caller, channelId: string): Promise<Channel | DmChannel> {
    const grant = await requireChannelPermission(ctx, caller, channelId, P.VIEW_CHANNEL);
    if (grant.serverId === null) return directMessages.get(ctx, caller, channelId);
    const [overwrites, lastIds] = await Promise.all([
      ctx.store.overwrites.ofChannel(ctx.store.db, channelId),
      // Where its history ends, only for those who may read it.
      mayReadHistory(grant.permissions) ? ctx.store.messages.lastIds(ctx.store.db, [channelId]) : new Map<string, string>(),
    ]);
    const row: ServerChannel = {
      id: grant.id,
      serverId: grant.serverId,
      name: grant.name,
      createdAt: grant.createdAt,
      topic: grant.topic,
      position: grant.position,
    };
    return { ...channelView(row, overwrites), lastMessageId: lastIds.get(channelId) ?? null };
  },

  /**
   * `overwrites` (the Discord layer's `permission_overwrites`) are checked and written by
   * the rules of the overwrite route (`checkOverwriteList`), in the channel's transaction:
   * refused as a whole, never dropped. The event then carries the model with them, so
   * nobody they hide the channel from hears of it.
   */
  async createChannel(
    ctx: DomainContext,
    caller: Caller,
    serverId: string,
    body: { name: string; topic?: string | null; position?: number; overwrites?: readonly OverwriteInput[] },
  ) {
    await requireServerPermission(ctx, caller, serverId, 'MANAGE_CHANNELS');
    const channel: ServerChannel = {
      id: ctx.store.ids.next(),
      serverId,
      name: cleanName(body.name, 'name'),
      createdAt: nowIso(ctx),
      topic: cleanTopic(body.topic),
      position: 0,
    };
    const rows = body.overwrites ? await checkOverwriteList(ctx, caller, serverId, channel.id, undefined, body.overwrites, []) : [];
    const delta = await ctx.store.write(async (tx) => {
      channel.position = body.position ?? (await ctx.store.channels.nextPosition(tx, serverId));
      await ctx.store.channels.insert(tx, channel);
      await auditIn(ctx, tx, serverId, caller, 'channel_create', channel.id, { name: channel.name, topic: channel.topic });
      return rows.length === 0 ? null : writeOverwriteList(ctx, tx, caller, channel.id, serverId, rows);
    });
    const view = channelView(channel, rows);
    await notify(ctx, { kind: 'event', serverId, event: { t: 'CHANNEL_CREATE', d: view }, ...(delta ? { delta } : {}) });
    return view;
  },

  /** `overwrites`, when given, replace the channel's, as on `createChannel`. */
  async updateChannel(
    ctx: DomainContext,
    caller: Caller,
    channelId: string,
    body: { name?: string; topic?: string | null; position?: number; overwrites?: readonly OverwriteInput[] },
  ) {
    const channel = await requireServerChannelPermission(ctx, caller, channelId, P.VIEW_CHANNEL | P.MANAGE_CHANNELS);
    const patch: Partial<Pick<ChannelTable, 'name' | 'topic' | 'position'>> = {};
    if (body.name !== undefined) patch.name = cleanName(body.name, 'name');
    if (body.topic !== undefined) patch.topic = cleanTopic(body.topic);
    if (body.position !== undefined) patch.position = body.position;
    const rows = body.overwrites
      ? await checkOverwriteList(
          ctx,
          caller,
          channel.serverId,
          channelId,
          channel.permissions,
          body.overwrites,
          await ctx.store.overwrites.ofChannel(ctx.store.db, channelId),
        )
      : undefined;
    const { updated, overwrites, delta } = await ctx.store.write(async (tx) => {
      if (Object.keys(patch).length > 0) await ctx.store.channels.update(tx, channelId, patch);
      await auditIn(ctx, tx, channel.serverId, caller, 'channel_update', channelId, diff(channel, patch));
      const delta = rows === undefined ? null : await writeOverwriteList(ctx, tx, caller, channelId, channel.serverId, rows);
      const updated = await ctx.store.channels.byId(tx, channelId);
      if (!updated) throw notFound('channel');
      return { updated, overwrites: await ctx.store.overwrites.ofChannel(tx, channelId), delta };
    });
    const view = channelView(updated, overwrites);
    await notify(ctx, { kind: 'event', serverId: channel.serverId, event: { t: 'CHANNEL_UPDATE', d: view }, ...(delta ? { delta } : {}) });
    return view;
  },

  async deleteChannel(ctx: DomainContext, caller: Caller, channelId: string) {
    // A group DM is not deleted but left (only its last member's leaving deletes it).
    if (isId(channelId) && (await ctx.store.dms.byId(ctx.store.db, channelId))) return directMessages.leave(ctx, caller, channelId);
    const channel = await requireServerChannelPermission(ctx, caller, channelId, P.VIEW_CHANNEL | P.MANAGE_CHANNELS);
    // Messages, reactions and the channel's webhooks go with it (foreign keys cascade);
    // the uploads its messages referenced are collected in the same transaction.
    const { deleted, uploadIds, row, version } = await ctx.store.write(async (tx) => {
      const row = await ctx.store.channels.byId(tx, channelId);
      const uploadIds = await ctx.store.uploads.ofChannel(tx, channelId);
      const hadOverwrites = (await ctx.store.overwrites.ofChannel(tx, channelId)).length > 0;
      const r = await ctx.store.channels.delete(tx, channelId);
      const deleted = Number(r.numDeletedRows) > 0;
      const version = deleted && hadOverwrites ? await bumpVersion(ctx, tx, channel.serverId) : null;
      if (deleted) await auditIn(ctx, tx, channel.serverId, caller, 'channel_delete', channelId, { name: channel.name });
      return { deleted, uploadIds, row, version };
    });
    // A concurrent delete won and announces it.
    if (!deleted || !row) throw notFound('channel');
    // The files go too, unless a message elsewhere references the same upload.
    await releaseUploads(ctx, uploadIds);
    // The overwrites went with the channel (the event says so); the delta says which version that made.
    await notify(ctx, {
      kind: 'event',
      serverId: channel.serverId,
      event: { t: 'CHANNEL_DELETE', d: channelView(row) },
      ...(version === null ? {} : { delta: { version } }),
    });
  },

  async createInvite(ctx: DomainContext, caller: Caller, serverId: string, body: { maxAge?: number; maxUses?: number } = {}) {
    await requireServerPermission(ctx, caller, serverId, 'CREATE_INVITE');
    const maxAge = body.maxAge ?? INVITE_DEFAULT_MAX_AGE;
    const maxUses = body.maxUses ?? 0;
    const now = new Date(ctx.clock());
    const invite: InviteTable = {
      code: randomBytes(INVITE_CODE_BYTES).toString('base64url'),
      serverId,
      createdBy: caller.id,
      createdAt: now.toISOString(),
      uses: 0,
      maxUses,
      maxAge,
      expiresAt: maxAge === 0 ? null : new Date(now.getTime() + maxAge * 1000).toISOString(),
    };
    await ctx.store.write(async (tx) => {
      await ctx.store.invites.insert(tx, invite);
      await auditIn(ctx, tx, serverId, caller, 'invite_create', null, { maxAge, maxUses, expiresAt: invite.expiresAt });
    });
    return inviteView(invite);
  },

  async listInvites(ctx: DomainContext, caller: Caller, serverId: string) {
    await requireServerPermission(ctx, caller, serverId, 'MANAGE_SERVER');
    return (await ctx.store.invites.ofServer(ctx.store.db, serverId)).map(inviteView);
  },

  /** `GET /invites/{code}`: anyone holding the code sees where it leads. */
  async previewInvite(ctx: DomainContext, code: string) {
    const invite = await inviteByCode(ctx, code);
    if (!invite || !inviteUsable(invite, nowIso(ctx))) throw notFound('invite');
    const server = await ctx.store.servers.byId(ctx.store.db, invite.serverId);
    if (!server) throw notFound('invite');
    return {
      code: invite.code,
      server: {
        id: server.id,
        name: server.name,
        icon: server.icon ?? null,
        memberCount: await ctx.store.servers.memberCount(ctx.store.db, server.id),
      },
      expiresAt: invite.expiresAt ?? null,
    };
  },

  async deleteInvite(ctx: DomainContext, caller: Caller, code: string) {
    const invite = await inviteByCode(ctx, code);
    if (!invite) throw notFound('invite');
    const m = await requireMember(ctx, caller, invite.serverId);
    if (invite.createdBy !== caller.id && (m.bits & P.MANAGE_SERVER) === 0n)
      throw forbidden('missing_permission', 'missing permission MANAGE_SERVER (or be the inviter)');
    await ctx.store.write(async (tx) => {
      await ctx.store.invites.delete(tx, code);
      await auditIn(ctx, tx, invite.serverId, caller, 'invite_delete', null, { inviterId: invite.createdBy });
    });
  },

  async join(ctx: DomainContext, caller: Caller, code: string) {
    if (caller.bot) throw forbidden('users_only', 'bots join servers when the owner adds them');
    const invite = await inviteByCode(ctx, code);
    if (!invite || !inviteUsable(invite, nowIso(ctx))) throw notFound('invite');
    const server = await ctx.store.servers.byId(ctx.store.db, invite.serverId);
    if (!server) throw notFound('invite');
    if (await ctx.store.bans.get(ctx.store.db, server.id, caller.id)) throw forbidden('banned', 'you are banned from this server');
    const model = await ctx.store.write(async (tx) => {
      if (await ctx.store.members.get(tx, server.id, caller.id)) return undefined;
      if (!(await ctx.store.invites.use(tx, code, nowIso(ctx)))) throw notFound('invite');
      const inserted = await ctx.store.members.insert(tx, {
        serverId: server.id,
        userId: caller.id,
        legacyPermissions: -1,
        joinedAt: nowIso(ctx),
      });
      return Number(inserted.numInsertedOrUpdatedRows ?? 0n) > 0 ? snapshotIn(ctx, tx, server.id) : undefined;
    });
    if (model) {
      await notify(ctx, {
        kind: 'event',
        serverId: server.id,
        event: {
          t: 'MEMBER_ADD',
          d: { serverId: server.id, user: { id: caller.id, name: caller.name, bot: false, avatar: caller.avatar } },
        },
        model,
        roles: [],
      });
    }
    return serverView(server);
  },

  async members(ctx: DomainContext, caller: Caller, serverId: string) {
    await requireMember(ctx, caller, serverId);
    const [rows, roles] = await Promise.all([
      ctx.store.members.ofServer(ctx.store.db, serverId),
      ctx.store.roles.ofServer(ctx.store.db, serverId),
    ]);
    const managed = new Map(roles.filter((r) => r.botId).map((r) => [r.botId!, r]));
    const presence = await ctx.presence?.statuses(rows.map((r) => r.id));
    return rows.map((r) => memberView(r, r.bot === 1 ? managed.get(r.id) : undefined, presence?.get(r.id)));
  },

  /**
   * Members found by name or by id, for Discord's member search and Request Guild Members
   * (gateway op 8, docs/discord.md): with `userIds`, those of them who are members (and the
   * ids that are not, `notFound`); otherwise those whose name (or per-server nickname, where
   * there is one) starts with `query`, ignoring case, in id order, at most `limit` of them
   * (0: all). Membership is all it needs, as the member list.
   */
  async findMembers(ctx: DomainContext, caller: Caller, serverId: string, q: { query?: string; limit: number; userIds?: string[] }) {
    const all = await servers.members(ctx, caller, serverId);
    if (q.userIds) {
      const byId = new Map(all.map((m) => [m.user.id, m]));
      const ids = [...new Set(q.userIds)];
      return { members: ids.flatMap((id) => byId.get(id) ?? []), notFound: ids.filter((id) => !byId.has(id)) };
    }
    const prefix = (q.query ?? '').toLowerCase();
    const found = all
      .filter((m) => m.user.name.toLowerCase().startsWith(prefix) || (m.nick?.toLowerCase().startsWith(prefix) ?? false))
      .sort((x, y) => compareIds(x.user.id, y.user.id));
    return { members: q.limit > 0 ? found.slice(0, q.limit) : found, notFound: [] as string[] };
  },

  /** One member, as `members` lists them; 404 `unknown_member` for anyone not in the server. */
  async member(ctx: DomainContext, caller: Caller, serverId: string, userId: string) {
    await requireMember(ctx, caller, serverId);
    const [member, user] = isId(userId)
      ? await Promise.all([ctx.store.members.get(ctx.store.db, serverId, userId), ctx.store.users.byId(ctx.store.db, userId)])
      : [undefined, undefined];
    if (!member || !user) throw notFound('member');
    const role = user.bot === 1 ? (await ctx.store.roles.ofServer(ctx.store.db, serverId)).find((r) => r.botId === userId) : undefined;
    const presence = await ctx.presence?.statuses([userId]);
    return memberView({ ...user, roles: member.roles, joinedAt: member.joinedAt, nick: member.nick ?? null }, role, presence?.get(userId));
  },

  /**
   * Removes a member: a kick (KICK_MEMBERS, of someone whose highest role is below the
   * caller's), or a person leaving. The owner can be neither kicked nor leave.
   */
  async removeMember(ctx: DomainContext, caller: Caller, serverId: string, userId: string) {
    const m = await requireMember(ctx, caller, serverId);
    const self = userId === caller.id;
    if (userId === m.server.ownerId)
      throw badRequest(
        self ? 'the owner cannot leave their own server (transfer it first)' : 'the owner cannot be kicked',
        'owner_cannot_leave',
      );
    if (!self) await requireModeration(ctx, caller, m, serverId, userId, 'KICK_MEMBERS');
    const user = isId(userId) ? await ctx.store.users.byId(ctx.store.db, userId) : undefined;
    const removed =
      user &&
      (await ctx.store.write(async (tx) => {
        const r = await removeMembership(ctx, tx, serverId, userId);
        // The name too: the log names someone who is no longer a member.
        if (r && !self) await auditIn(ctx, tx, serverId, caller, 'member_kick', userId, { name: user.name });
        return r;
      }));
    if (!user || !removed) throw notFound('member');
    await announceDeparture(ctx, removed, publicUser(user));
  },

  async ban(
    ctx: DomainContext,
    caller: Caller,
    serverId: string,
    userId: string,
    body: { reason?: string; deleteMessageSeconds?: number },
  ) {
    const m = await requireServerPermission(ctx, caller, serverId, 'BAN_MEMBERS');
    if (userId === m.server.ownerId) throw badRequest('the owner cannot be banned', 'cannot_ban_owner');
    if (userId === caller.id) throw badRequest('you cannot ban yourself', 'cannot_ban_self');
    const user = isId(userId) ? await ctx.store.users.byId(ctx.store.db, userId) : undefined;
    if (!user) throw notFound('user');
    const target = await ctx.store.members.get(ctx.store.db, serverId, userId);
    if (target) await requireModeration(ctx, caller, m, serverId, userId, 'BAN_MEMBERS');
    const seconds = body.deleteMessageSeconds ?? 0;
    if (!Number.isInteger(seconds) || seconds < 0 || seconds > BAN_DELETE_MAX_SECONDS)
      throw badRequest(`deleteMessageSeconds must be from 0 to ${BAN_DELETE_MAX_SECONDS}`);
    const reason = body.reason !== undefined ? cleanReason(body.reason) : (caller.reason ?? null);
    const since = new Date(ctx.clock() - seconds * 1000).toISOString();
    const { removed, deletedMessages, uploadIds } = await ctx.store.write(async (tx) => {
      await ctx.store.bans.put(tx, { serverId, userId, reason, createdBy: caller.id, createdAt: nowIso(ctx) });
      const removed = await removeMembership(ctx, tx, serverId, userId);
      // As a message delete does: the files only these messages referenced go with them
      // (released after the commit), not at the next sweep.
      let deletedMessages: Array<{ id: string; channelId: string }> = [];
      let uploadIds: string[] = [];
      if (seconds > 0) {
        uploadIds = await ctx.store.uploads.ofAuthorSince(tx, serverId, userId, since);
        deletedMessages = await ctx.store.messages.deleteOfAuthorSince(tx, serverId, userId, since);
      }
      await auditIn(
        ctx,
        tx,
        serverId,
        caller,
        'member_ban',
        userId,
        { name: user.name, deleteMessageSeconds: seconds, deletedMessages: deletedMessages.length },
        reason ?? undefined,
      );
      return { removed, deletedMessages, uploadIds };
    });
    await releaseUploads(ctx, uploadIds);
    await notify(ctx, { kind: 'event', serverId, event: { t: 'BAN_ADD', d: { serverId, user: publicUser(user) } } });
    for (const d of deletedMessages)
      await notify(ctx, { kind: 'event', serverId, event: { t: 'MESSAGE_DELETE', d: { id: d.id, channelId: d.channelId, serverId } } });
    if (removed) await announceDeparture(ctx, removed, publicUser(user));
  },

  async bans(ctx: DomainContext, caller: Caller, serverId: string) {
    await requireServerPermission(ctx, caller, serverId, 'BAN_MEMBERS');
    return (await ctx.store.bans.ofServer(ctx.store.db, serverId)).map((b) => ({
      user: { id: b.userId, name: b.name ?? 'Deleted user', bot: b.bot === 1, avatar: b.avatar ?? null },
      reason: b.reason,
      createdAt: b.createdAt,
    }));
  },

  async unban(ctx: DomainContext, caller: Caller, serverId: string, userId: string) {
    await requireServerPermission(ctx, caller, serverId, 'BAN_MEMBERS');
    const removed = isId(userId)
      ? await ctx.store.write(async (tx) => {
          const r = await ctx.store.bans.delete(tx, serverId, userId);
          if (Number(r.numDeletedRows) > 0) await auditIn(ctx, tx, serverId, caller, 'member_unban', userId, {});
          return Number(r.numDeletedRows) > 0;
        })
      : false;
    if (!removed) throw notFound('ban');
    const user = await ctx.store.users.byId(ctx.store.db, userId);
    await notify(ctx, {
      kind: 'event',
      serverId,
      event: {
        t: 'BAN_REMOVE',
        d: { serverId, user: user ? publicUser(user) : { id: userId, name: 'Deleted user', bot: false, avatar: null } },
      },
    });
  },

  async auditLog(
    ctx: DomainContext,
    caller: Caller,
    serverId: string,
    q: { limit?: number; before?: string; action?: string; actorId?: string },
  ) {
    await requireServerPermission(ctx, caller, serverId, 'VIEW_AUDIT_LOG');
    const limit = q.limit ?? 50;
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw badRequest('limit must be from 1 to 100', 'invalid_query');
    if (q.before !== undefined && !isId(q.before)) throw badRequest('before must be an entry id', 'invalid_query');
    if (q.actorId !== undefined && !isId(q.actorId)) throw badRequest('actorId must be a user id', 'invalid_query');
    const rows = await ctx.store.auditLog.ofServer(ctx.store.db, serverId, {
      limit,
      ...(q.before ? { before: q.before } : {}),
      ...(q.action ? { action: q.action } : {}),
      ...(q.actorId ? { actorId: q.actorId } : {}),
    });
    return rows.map((r) => ({
      id: r.id,
      action: r.action,
      actorId: r.actorId,
      targetId: r.targetId,
      changes: JSON.parse(r.changes) as Record<string, unknown>,
      reason: r.reason,
      createdAt: r.createdAt,
    }));
  },

  /** Adds a bot with a managed role holding `permissions` (the legacy names of docs/permissions.md#bots, the names of docs/permissions.md#the-bits, or a bitfield). */
  async addBot(ctx: DomainContext, caller: Caller, serverId: string, botId: string, permissions?: ReadonlyArray<string> | string) {
    const server = await requireOwner(ctx, caller, serverId);
    const bot = isId(botId) ? await ctx.store.users.byId(ctx.store.db, botId) : undefined;
    if (!bot || bot.bot !== 1) throw notFound('bot');
    // A bot receives the events of every server it is in: only its owner decides where it
    // goes, unless they made it public. 403, not 404: bot ids are visible in member lists
    // and messages anyway, so hiding that the bot exists would protect nothing.
    if (bot.ownerId !== caller.id && bot.isPublic !== 1)
      throw forbidden('bot_owner_only', 'only its owner can add this bot (it is not public)');
    const bits = botBits(permissions);
    const joinedAt = nowIso(ctx);
    const role = managedRole(ctx, serverId, bot, bits);
    const { version, model, join } = await ctx.store.write(async (tx) => {
      const r = await ctx.store.members.insert(tx, { serverId, userId: botId, legacyPermissions: -1, joinedAt });
      if (Number(r.numInsertedOrUpdatedRows ?? 0n) === 0)
        throw conflict('bot_already_member', 'the bot is already a member of this server');
      const version = await insertManagedRole(ctx, tx, role);
      await ctx.store.members.addRoles(tx, serverId, botId, [role.id]);
      await auditIn(ctx, tx, serverId, caller, 'bot_add', botId, { permissions: bits.toString() });
      const [model, join] = await Promise.all([snapshotIn(ctx, tx, serverId), joinSnapshot(ctx, tx, server, bot.id, joinedAt)]);
      return { version, model, join };
    });
    // The members' views gain the managed role from this entry's delta; the bot's own
    // sessions, which have no view yet, take the MEMBER_ADD's model, its roles those of the
    // join snapshot (every role once per bot join, as Discord's GUILD_CREATE lists them).
    await notify(ctx, {
      kind: 'event',
      serverId,
      event: { t: 'ROLE_CREATE', d: { serverId, role: roleView(role) } },
      delta: roleDelta(role, version),
    });
    await notify(ctx, {
      kind: 'event',
      serverId,
      event: { t: 'MEMBER_ADD', d: { serverId, user: publicUser(bot) } },
      model: { ...model, roles: [] },
      roles: [role.id],
      join,
    });
    return botMember(bot, role, joinedAt);
  },

  /** `PATCH /servers/{id}/bots/{botId}` (docs/api.md#servers-channels-members): sets the bot's managed role's permissions. */
  async setBotPermissions(
    ctx: DomainContext,
    caller: Caller,
    serverId: string,
    botId: string,
    permissions: ReadonlyArray<string> | string,
  ) {
    await requireOwner(ctx, caller, serverId);
    const bot = isId(botId) ? await ctx.store.users.byId(ctx.store.db, botId) : undefined;
    if (!bot || bot.bot !== 1) throw notFound('bot');
    const bits = botBits(permissions);
    const { role, version } = await ctx.store.write(async (tx) => {
      const member = await ctx.store.members.get(tx, serverId, botId);
      if (!member) throw notFound('member', 'bot membership not found');
      let role = await ctx.store.roles.managedOf(tx, serverId, botId);
      let version: number;
      if (!role) {
        role = managedRole(ctx, serverId, bot, bits);
        version = await insertManagedRole(ctx, tx, role);
        await ctx.store.members.addRoles(tx, serverId, botId, [role.id]);
      } else {
        await ctx.store.roles.update(tx, serverId, role.id, { permissions: bits.toString() });
        version = await bumpVersion(ctx, tx, serverId);
        role = { ...role, permissions: bits.toString() };
      }
      await auditIn(ctx, tx, serverId, caller, 'bot_update', botId, { permissions: bits.toString() });
      return { role, version };
    });
    await notify(ctx, {
      kind: 'event',
      serverId,
      event: { t: 'ROLE_UPDATE', d: { serverId, role: roleView(role) } },
      delta: roleDelta(role, version),
    });
    await notify(ctx, {
      kind: 'event',
      serverId,
      event: { t: 'MEMBER_UPDATE', d: { serverId, user: publicUser(bot), roles: [role.id], permissions: legacyNamesOf(bits) } },
    });
    return botMember(bot, role);
  },

  async removeBot(ctx: DomainContext, caller: Caller, serverId: string, botId: string) {
    await requireOwner(ctx, caller, serverId);
    const bot = isId(botId) ? await ctx.store.users.byId(ctx.store.db, botId) : undefined;
    if (!bot || bot.bot !== 1) throw notFound('bot');
    const removed = await ctx.store.write(async (tx) => {
      const r = await removeMembership(ctx, tx, serverId, botId);
      if (r) await auditIn(ctx, tx, serverId, caller, 'bot_remove', botId, {});
      return r;
    });
    if (!removed) throw notFound('member', 'bot membership not found');
    await announceDeparture(ctx, removed, publicUser(bot));
  },
};

function everyoneRole(serverId: string): RoleTable {
  return {
    id: serverId,
    serverId,
    name: '@everyone',
    color: 0,
    position: 0,
    permissions: DEFAULT_EVERYONE_PERMISSIONS.toString(),
    hoist: 0,
    mentionable: 0,
    managed: 0,
    botId: null,
  };
}

function managedRole(ctx: DomainContext, serverId: string, bot: UserTable, bits: bigint): RoleTable {
  return {
    id: ctx.store.ids.next(),
    serverId,
    name: bot.name,
    color: 0,
    position: 1,
    permissions: bits.toString(),
    hoist: 0,
    mentionable: 0,
    managed: 1,
    botId: bot.id,
  };
}

/** A managed role goes on top of the other roles: it is the bot's own. Answers the permission version made. */
async function insertManagedRole(ctx: DomainContext, tx: Tx, role: RoleTable): Promise<number> {
  role.position = (await ctx.store.roles.maxPosition(tx, role.serverId)) + 1;
  await ctx.store.roles.insert(tx, role);
  return bumpVersion(ctx, tx, role.serverId);
}

/** Ends a membership inside `tx`, with what it leaves behind (`clearDeparture`); null when they were not a member. */
async function removeMembership(ctx: DomainContext, tx: Tx, serverId: string, userId: string): Promise<Departure | null> {
  const r = await ctx.store.members.delete(tx, serverId, userId);
  if (Number(r.numDeletedRows) === 0) return null;
  return clearDeparture(ctx, tx, serverId, userId);
}

/** Kicks and bans: the permission, and a target whose highest role is below the caller's. */
async function requireModeration(
  ctx: DomainContext,
  caller: Caller,
  m: Awaited<ReturnType<typeof requireMember>>,
  serverId: string,
  userId: string,
  permission: 'KICK_MEMBERS' | 'BAN_MEMBERS',
): Promise<void> {
  if ((m.bits & P[permission]) === 0n) throw forbidden('missing_permission', `missing permission ${permission}`);
  const target = isId(userId) ? await ctx.store.members.get(ctx.store.db, serverId, userId) : undefined;
  if (!target) throw notFound('member');
  if (m.model.highest(userId, target.roles) >= m.model.highest(caller.id, m.roles))
    throw forbidden('role_hierarchy', "that member's highest role is not below yours");
}

function cleanDescription(text: string | null): string | null {
  if (text === null) return null;
  rejectNul(text, 'description');
  const t = text.trim();
  if ([...t].length > 1000) throw badRequest('description must be at most 1000 characters');
  return t === '' ? null : t;
}

function cleanTopic(text: string | null | undefined): string | null {
  if (text === undefined || text === null) return null;
  rejectNul(text, 'topic');
  const t = stripUnsafeCharacters(text).trim();
  if ([...t].length > 1024) throw badRequest('topic must be at most 1024 characters');
  return t === '' ? null : t;
}

function cleanReason(text: string): string | null {
  rejectNul(text, 'reason');
  const t = stripUnsafeCharacters(text).trim();
  if ([...t].length > 512) throw badRequest('reason must be at most 512 characters');
  return t === '' ? null : t;
}
