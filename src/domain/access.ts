import { LEGACY_PERMISSIONS, type LegacyPermission, P, type Permission, permissionNamesOf } from '@parley/protocol';
import { AppError, type Entity, forbidden, notFound } from '../errors.js';
import { isId } from '../ids.js';
import type { ServerTable } from '../store/schema.js';
import type { DomainContext } from './context.js';
import { NEEDS, ServerModel, dmPermissions, has } from './permissions.js';
import type { Caller } from './types.js';

/** A caller's membership of a server, with the model their permissions come from. */
export interface Membership {
  server: ServerTable;
  /** The member's role ids, ascending. */
  roles: readonly string[];
  model: ServerModel;
  /** Server-wide permissions. */
  bits: bigint;
}

const notMember = (caller: Caller) =>
  forbidden('not_a_member', caller.bot ? 'bot is not a member of this server' : 'you are not a member of this server');

/** Names the missing bits, and the legacy name for them (docs/permissions.md#bots) where there is one (what older bots were granted). */
const missing = (bits: bigint) => {
  const legacy = (Object.keys(LEGACY_PERMISSIONS) as LegacyPermission[]).filter(
    (n) => (LEGACY_PERMISSIONS[n] & bits & ~P.VIEW_CHANNEL) !== 0n || (n === 'READ_MESSAGES' && (bits & P.VIEW_CHANNEL) !== 0n),
  );
  const names = permissionNamesOf(bits).join(', ');
  const err = forbidden('missing_permission', `missing permission ${names}${legacy.length > 0 ? ` (${legacy.join(', ')})` : ''}`);
  err.missing = bits;
  return err;
};

/** The caller's membership of a server; 404 for an unknown server, 403 for a non-member. */
export async function requireMember(ctx: DomainContext, caller: Caller, serverId: string): Promise<Membership> {
  const server = isId(serverId) ? await ctx.store.servers.byId(ctx.store.db, serverId) : undefined;
  if (!server) throw notFound('server');
  const member = await ctx.store.members.get(ctx.store.db, serverId, caller.id);
  if (!member) throw notMember(caller);
  const model = await ctx.perms.model(ctx.store.db, server.id, server.ownerId, Number(server.permVersion));
  return { server, roles: member.roles, model, bits: model.permissions(caller.id, caller.bot, member.roles) };
}

/** The membership, when the caller holds `permission` server-wide (ADMINISTRATOR and ownership hold all). */
export async function requireServerPermission(ctx: DomainContext, caller: Caller, serverId: string, permission: Permission) {
  const m = await requireMember(ctx, caller, serverId);
  if (!has(m.bits, P[permission])) throw missing(P[permission]);
  return m;
}

/** Refuses (403 `missing_permission`) a membership that lacks `permission` server-wide. */
export function requireHeldPermission(m: Membership, permission: Permission): void {
  if (!has(m.bits, P[permission])) throw missing(P[permission]);
}

/** The server, when the caller owns it; members get 403, strangers 404-or-403 like any member check. */
export async function requireOwner(ctx: DomainContext, caller: Caller, serverId: string) {
  const { server } = await requireMember(ctx, caller, serverId);
  if (server.ownerId !== caller.id) throw forbidden('owner_only', 'only the server owner can do this');
  return server;
}

/** A channel the caller may act in, with their permissions there. */
export interface ChannelGrant {
  id: string;
  /** Null for a direct message. */
  serverId: string | null;
  /** A direct message's recipients (the caller among them); null for a server's channel. */
  recipients: string[] | null;
  name: string;
  createdAt: string;
  topic: string | null;
  position: number;
  /** A server's 'text' or 'category' channel, or a DM's 'dm' or 'group_dm'. */
  type: string;
  ownerId: string;
  /** The caller's role ids in the channel's server, ascending (none in a DM). */
  roles: readonly string[];
  /** When the caller joined the channel's server (null in a DM). */
  joinedAt: string | null;
  /** The caller's nickname in the channel's server (null when none, or in a DM). */
  nick: string | null;
  model: ServerModel;
  /** The caller's permissions in the channel. */
  permissions: bigint;
  /** A thread's parent and state (docs/threads.md); absent for any other channel. */
  thread?: ThreadState;
}

/** What the permission check read of a thread. */
export interface ThreadState {
  parentId: string;
  private: boolean;
  locked: boolean;
  archived: boolean;
  /** Whether the caller joined it. */
  member: boolean;
}

/**
 * The channel, when the caller is a member of its server holding every bit of `needed`
 * there. Unknown channel → 404; not a member, a channel they cannot see, or a missing
 * permission → 403 (docs/api.md#authentication). One query, then cached computation (`PermissionCache`).
 */
export async function requireChannelPermission(
  ctx: DomainContext,
  caller: Caller,
  channelId: string,
  needed: bigint,
): Promise<ChannelGrant> {
  const epoch = caller.accessEpoch;
  let row = epoch === undefined ? undefined : ctx.access.channel(epoch, channelId, caller.id);
  if (!row) {
    row = isId(channelId) ? await ctx.store.members.forChannel(ctx.store.db, channelId, caller.id) : undefined;
    if (row && epoch !== undefined) ctx.access.keepChannel(epoch, caller.id, row);
  }
  // A DM has no server to join: the second query runs for DMs and unknown ids only.
  if (!row) return requireDmPermission(ctx, caller, channelId, needed);
  if (row.roles === null || row.roles === undefined) throw notMember(caller);
  const model =
    ctx.perms.cached(row.serverId, row.ownerId, row.permVersion) ??
    (await ctx.perms.model(ctx.store.db, row.serverId, row.ownerId, row.permVersion));
  const thread: ThreadState | undefined =
    row.threadParentId === null || row.threadParentId === undefined
      ? undefined
      : {
          parentId: row.threadParentId,
          private: row.threadPrivate === 1,
          locked: row.threadLocked === 1,
          archived: row.threadArchived === 1,
          member: row.threadMember === 1,
        };
  const permissions = thread
    ? model.threadPermissions(caller.id, caller.bot, row.roles, thread.parentId, thread)
    : model.permissions(caller.id, caller.bot, row.roles, row.channelId);
  if ((permissions & needed) !== needed) {
    // A locked thread refuses a post from someone who could post were it not locked (Discord's 160005).
    if (thread?.locked && (needed & P.SEND_MESSAGES) !== 0n && (permissions & P.VIEW_CHANNEL) !== 0n) {
      const unlocked = model.threadPermissions(caller.id, caller.bot, row.roles, thread.parentId, { ...thread, locked: false });
      if ((unlocked & needed) === needed) throw forbidden('thread_locked', 'this thread is locked: only MANAGE_THREADS may post');
    }
    throw missing(needed & ~permissions);
  }
  return {
    id: row.channelId,
    serverId: row.serverId,
    recipients: null,
    name: row.name,
    createdAt: row.createdAt,
    topic: row.topic,
    position: row.position,
    type: row.type,
    ownerId: row.ownerId,
    roles: row.roles,
    joinedAt: row.joinedAt ?? null,
    nick: row.nick ?? null,
    model,
    permissions,
    ...(thread ? { thread } : {}),
  };
}

/** A server's channel the caller holds `needed` in; in a DM, what servers' channels alone have (overwrites, settings) is missing. */
export async function requireServerChannelPermission(
  ctx: DomainContext,
  caller: Caller,
  channelId: string,
  needed: bigint,
): Promise<ChannelGrant & { serverId: string }> {
  const grant = await requireChannelPermission(ctx, caller, channelId, needed);
  if (grant.serverId === null) throw missing(needed | P.MANAGE_CHANNELS);
  return grant as ChannelGrant & { serverId: string };
}

/**
 * A direct message the caller is in, with their permissions there (`dmPermissions`).
 * Someone outside it gets 404, as for a channel that does not exist: a DM's existence is
 * its recipients' business. Sending is checked against blocks and shared servers only when
 * asked for (two small queries, on DMs only).
 */
async function requireDmPermission(ctx: DomainContext, caller: Caller, channelId: string, needed: bigint): Promise<ChannelGrant> {
  const dm = isId(channelId) ? await ctx.store.dms.byId(ctx.store.db, channelId) : undefined;
  if (!dm) throw notFound('channel');
  const recipients = (await ctx.store.dms.recipients(ctx.store.db, [dm.id])).map((r) => r.id);
  if (!recipients.includes(caller.id)) throw notFound('channel');
  let reachable = true;
  if ((needed & P.SEND_MESSAGES) !== 0n && dm.type === 'dm') {
    const other = recipients.find((id) => id !== caller.id);
    reachable = other !== undefined && (await dmReachability(ctx, caller, [other])).ok;
  }
  const permissions = dmPermissions({ type: dm.type, reachable });
  if ((permissions & needed) !== needed) {
    if (!reachable) throw forbidden('cannot_dm', 'you cannot send messages to this person');
    throw missing(needed & ~permissions);
  }
  return {
    id: dm.id,
    serverId: null,
    recipients,
    name: dm.name,
    createdAt: dm.createdAt,
    topic: null,
    position: 0,
    type: dm.type ?? 'dm',
    ownerId: dm.ownerId ?? '',
    roles: [],
    joinedAt: null,
    nick: null,
    model: EMPTY_MODEL,
    permissions,
  };
}

/** A DM has no roles or overwrites: its grant carries an empty model. */
const EMPTY_MODEL = new ServerModel('0', '', 0, [], []);

/**
 * Whether `caller` may reach each of `others` by direct message: they share a server, the
 * other person allows DMs from server members, neither blocked the other, and not bot to
 * bot. One answer for all reasons, so a block is never revealed.
 */
export async function dmReachability(ctx: DomainContext, caller: Caller, others: string[]): Promise<{ ok: boolean; blocked: string[] }> {
  const db = ctx.store.db;
  const [sharing, blocked, users, settings] = await Promise.all([
    ctx.store.dms.sharingServer(db, caller.id, others),
    ctx.store.blocks.between(db, caller.id, others),
    Promise.all(others.map((id) => ctx.store.users.byId(db, id))),
    Promise.all(others.map((id) => ctx.store.userSettings.get(db, id))),
  ]);
  const refused = others.filter((id, i) => {
    const user = users[i];
    if (!user || user.deletedAt) return true;
    if (caller.bot && user.bot === 1) return true;
    const raw = settings[i];
    const allows = raw ? (JSON.parse(raw) as { allowDmsFromServerMembers?: boolean }).allowDmsFromServerMembers !== false : true;
    return !sharing.has(id) || blocked.has(id) || !allows;
  });
  return { ok: refused.length === 0, blocked: refused };
}

/**
 * The channels whose messages the caller may read (VIEW_CHANNEL and READ_MESSAGE_HISTORY,
 * `NEEDS.read`, computed by the one permission function): of every server they belong to,
 * or, with `serverId`, of that one (404 for an unknown server, 403 for a non-member, as
 * `requireMember`), and without `serverId` the caller's DMs and groups; with the threads of
 * those servers they may read (public ones of readable parents, private ones they joined). What
 * search looks through: its only permission input.
 */
export async function readableChannels(ctx: DomainContext, caller: Caller, serverId?: string): Promise<string[]> {
  const db = ctx.store.db;
  // Without a server, the caller's DMs too: a recipient always reads a DM (`dmPermissions`).
  const direct = serverId === undefined ? (await ctx.store.dms.ofUser(db, caller.id)).map((d) => d.id) : [];
  const memberships =
    serverId === undefined
      ? (await ctx.store.servers.ofMember(db, caller.id)).map((s) => ({
          id: s.id,
          ownerId: s.ownerId,
          version: s.permVersion,
          roles: s.roles,
        }))
      : await requireMember(ctx, caller, serverId).then((m) => [
          { id: m.server.id, ownerId: m.server.ownerId, version: m.server.permVersion, roles: m.roles },
        ]);
  if (memberships.length === 0) return direct;
  const serverIds = memberships.map((m) => m.id);
  const [models, channels, threads] = await Promise.all([
    Promise.all(memberships.map((m) => ctx.perms.model(db, m.id, m.ownerId, Number(m.version ?? 0)))),
    ctx.store.channels.idsOfServers(db, serverIds),
    ctx.store.threads.searchableOf(db, caller.id, serverIds),
  ]);
  const byServer = new Map(memberships.map((m, i) => [m.id, { roles: m.roles, model: models[i]! }]));
  const readable = channels.flatMap((c) => {
    const m = byServer.get(c.serverId);
    return m && has(m.model.permissions(caller.id, caller.bot, m.roles, c.id), NEEDS.read) ? [c.id] : [];
  });
  // Threads (docs/threads.md#search): public ones of parents the caller reads, private ones they
  // joined (the store lists no other private thread), each judged by the thread's rule.
  const readableThreads = threads.flatMap((t) => {
    const m = byServer.get(t.serverId);
    if (!m) return [];
    const access = {
      private: t.type === 'private_thread',
      locked: t.locked === 1,
      member: t.memberId !== null && t.memberId !== undefined,
    };
    return has(m.model.threadPermissions(caller.id, caller.bot, m.roles, t.parentId, access), NEEDS.read) ? [t.id] : [];
  });
  return [...readable, ...readableThreads, ...direct];
}

/**
 * Whether `who` (a person or bot, by id) may read the messages of `channelId` now, by
 * `requireChannelPermission` and `NEEDS.read`: for what is shown to someone other than the
 * caller of the request (a bot receiving the message a person clicked). Anyone else (a
 * webhook, a stranger, an unknown channel) may not.
 */
export async function readsChannel(ctx: DomainContext, who: Pick<Caller, 'id' | 'bot'>, channelId: string): Promise<boolean> {
  const identity: Caller = { id: who.id, bot: who.bot, name: '', avatar: null };
  try {
    await requireChannelPermission(ctx, identity, channelId, NEEDS.read);
    return true;
  } catch (err) {
    if (err instanceof AppError && (err.status === 403 || err.status === 404)) return false;
    throw err;
  }
}

/** Checks an id-shaped path parameter, so malformed ids are a clean 404 rather than a query. */
export function requireIdShape(id: string, what: Entity): void {
  if (!isId(id)) throw notFound(what);
}
