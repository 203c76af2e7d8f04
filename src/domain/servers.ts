/**
 * A server itself: made, listed, changed, handed to another owner, deleted; its members
 * as the API lists them, and its audit log. Its channels are `channels.ts`, its invites
 * `invites.ts`, kicks and bans `moderation.ts`, bots `server-bots.ts` (with their roles,
 * `managed-roles.ts`), its roles and overwrites `roles.ts`.
 */
import { DEFAULT_EVERYONE_PERMISSIONS, type PresenceStatus, legacyNamesOf, parsePermissions } from '@parley/protocol';
import { badRequest, forbidden, notFound } from '../errors.js';
import { compareIds, isId } from '../ids.js';
import type { ServerChannel } from '../store/repos/servers.js';
import type { RoleTable, ServerTable, UserTable } from '../store/schema.js';
import { publicUser, serverIcon } from './accounts.js';
import { requireMember, requireOwner, requireServerPermission } from './access.js';
import { auditIn, diff } from './audit.js';
import { type DomainContext, notify, nowIso } from './context.js';
import { cleanName, rejectNul } from './names.js';
import type { ModelDelta } from './permissions.js';
import { bumpVersion, snapshotIn } from './roles.js';
import type { Caller, Server } from './types.js';
import { releaseUploads } from './uploads.js';

export const serverView = (s: ServerTable): Server => ({
  id: s.id,
  name: s.name,
  ownerId: s.ownerId,
  createdAt: s.createdAt,
  icon: s.icon ?? null,
  description: s.description ?? null,
  systemChannelId: s.systemChannelId ?? null,
  welcomeMessages: ((s.systemChannelFlags ?? 0) & SUPPRESS_JOIN_NOTIFICATIONS) === 0,
});

/** Discord's `system_channel_flags` bit 0: no welcome lines. */
export const SUPPRESS_JOIN_NOTIFICATIONS = 1;

/** A member as the API shows one: the person or bot, their roles, presence, and a bot's section-3 permissions. */
export function memberView(
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

  /**
   * `PATCH /servers/{id}`: name, icon, description, the system channel and its welcome lines
   * (MANAGE_SERVER); `ownerId` (the owner only).
   */
  async update(
    ctx: DomainContext,
    caller: Caller,
    serverId: string,
    body: {
      name?: string;
      icon?: string | null;
      description?: string | null;
      ownerId?: string;
      systemChannelId?: string | null;
      welcomeMessages?: boolean;
    },
  ) {
    const m = await requireServerPermission(ctx, caller, serverId, 'MANAGE_SERVER');
    const server = m.server;
    const patch: Partial<
      Pick<ServerTable, 'name' | 'icon' | 'iconUploadId' | 'description' | 'ownerId' | 'systemChannelId' | 'systemChannelFlags'>
    > = {};
    if (body.name !== undefined) patch.name = cleanName(body.name, 'name');
    if (body.systemChannelId !== undefined) {
      const id = body.systemChannelId;
      const channel = id !== null && isId(id) ? await ctx.store.channels.byId(ctx.store.db, id) : undefined;
      if (id !== null && (channel?.serverId !== serverId || (channel.type ?? 'text') !== 'text'))
        throw badRequest('systemChannelId must be a text channel of this server');
      patch.systemChannelId = id;
    }
    if (body.welcomeMessages !== undefined) {
      const flags = server.systemChannelFlags ?? 0;
      patch.systemChannelFlags = body.welcomeMessages ? flags & ~SUPPRESS_JOIN_NOTIFICATIONS : flags | SUPPRESS_JOIN_NOTIFICATIONS;
    }
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

function cleanDescription(text: string | null): string | null {
  if (text === null) return null;
  rejectNul(text, 'description');
  const t = text.trim();
  if ([...t].length > 1000) throw badRequest('description must be at most 1000 characters');
  return t === '' ? null : t;
}
