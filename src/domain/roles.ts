import { ALL_PERMISSION_BITS, OBJECT_LIMITS, P, parsePermissions, permissionNamesOf, type Overwrite, type Role } from '@parley/protocol';
import { badRequest, forbidden, notFound } from '../errors.js';
import { isId } from '../ids.js';
import type { Db, Tx } from '../store/index.js';
import type { ServerChannel } from '../store/repos/servers.js';
import type { ChannelOverwriteTable, ForumTagTable, RoleTable } from '../store/schema.js';
import { publicUser } from './accounts.js';
import { type Membership, requireServerChannelPermission, requireMember, requireServerPermission } from './access.js';
import { auditIn, diff } from './audit.js';
import { type DomainContext, notify } from './context.js';
import { forumFields } from './forums.js';
import { cleanName } from './names.js';
import { SharedRows } from './shared-rows.js';
import { announceMembers } from './thread-events.js';
import { type ModelDelta, type ModelSnapshot, roleSet } from './permissions.js';
import type { Caller, Channel, PublicUser } from './types.js';

export const roleView = (r: RoleTable): Role => ({
  id: r.id,
  serverId: r.serverId,
  name: r.name,
  color: r.color,
  position: r.position,
  permissions: r.permissions,
  hoist: r.hoist === 1,
  mentionable: r.mentionable === 1,
  managed: r.managed === 1,
});

export const overwriteView = (o: ChannelOverwriteTable): Overwrite => ({ id: o.targetId, type: o.type, allow: o.allow, deny: o.deny });

/** A server channel's kind as clients see it (docs/threads.md#forum-channels for `forum`). */
export type ServerChannelType = 'text' | 'category' | 'forum';

/** A server channel's type as clients see it: `category`, `forum`, else `text`. */
export const serverChannelType = (type: string | null | undefined): ServerChannelType =>
  type === 'category' ? 'category' : type === 'forum' ? 'forum' : 'text';

/** The tags of those of `list` that are forums, in one read (none when there is no forum). */
export const forumTagsOf = (ctx: DomainContext, db: Db | Tx, list: ReadonlyArray<Pick<ServerChannel, 'id' | 'type'>>) => {
  const ids = list.filter((c) => c.type === 'forum').map((c) => c.id);
  return ids.length === 0 ? Promise.resolve([] as ForumTagTable[]) : ctx.store.forumTags.ofChannels(db, ids);
};

/** A channel as the API shows it, with its overwrites; a forum with its tags (of `tags`) and defaults. */
export function channelView(c: ServerChannel, overwrites: ChannelOverwriteTable[] = [], tags: readonly ForumTagTable[] = []): Channel {
  const type = serverChannelType(c.type);
  return {
    id: c.id,
    serverId: c.serverId,
    name: c.name,
    createdAt: c.createdAt,
    topic: c.topic ?? null,
    position: c.position ?? 0,
    type,
    parentId: c.parentId ?? null,
    permissionOverwrites: overwrites.filter((o) => o.channelId === c.id).map(overwriteView),
    ...(type === 'forum' ? forumFields(c, tags) : {}),
  };
}

type RoleTuple = ModelSnapshot['roles'][number];

/**
 * The role tuples of a server's snapshots, shared while unchanged: a person's MEMBER_ADD
 * carries the whole model for the joiner, and a server with thousands of bots has
 * thousands of roles.
 */
const snapshotRoles = new SharedRows<RoleTuple>(
  (t) => t[0],
  (held, t) => held[1] === t[1] && held[2] === t[2],
);

/**
 * The server's permission model as it stands inside `tx`: for a joiner's MEMBER_ADD, and
 * the rare changes a delta does not express (`BusEntry`), and for sessions that identify.
 */
export async function snapshotIn(ctx: DomainContext, tx: Db | Tx, serverId: string): Promise<ModelSnapshot> {
  const { ownerId, permVersion, roles, overwrites, channels } = await ctx.store.permissionInputs(tx, serverId);
  const tags = await forumTagsOf(ctx, tx, channels);
  return {
    serverId,
    ownerId,
    version: permVersion,
    channels: channels.map((c) => {
      const type = serverChannelType(c.type);
      return {
        id: c.id,
        serverId: c.serverId,
        name: c.name,
        createdAt: c.createdAt,
        topic: c.topic ?? null,
        position: Number(c.position),
        type,
        parentId: c.parentId ?? null,
        ...(type === 'forum' ? forumFields(c, tags) : {}),
      };
    }),
    roles: snapshotRoles.share(
      serverId,
      roles.map((r): RoleTuple => [r.id, r.permissions, Number(r.position)]),
    ) as RoleTuple[],
    overwrites: overwrites.map((o) => [o.channelId, o.targetId, o.type, o.allow, o.deny]),
  };
}

/**
 * Inside `tx`: moves the server's permission version on (every cached computation for it
 * is stale) and answers the version made, for the delta the change's entry carries.
 */
export async function bumpVersion(ctx: DomainContext, tx: Tx, serverId: string): Promise<number> {
  const row = await ctx.store.bumpPermVersion(tx, serverId);
  if (!row) throw notFound('server');
  return Number(row.permVersion);
}

/** The delta of a role created or changed at `version`: the role alone, not the server's every role. */
const roleDelta = (role: RoleTable, version: number): ModelDelta => ({
  version,
  role: [role.id, role.permissions, role.position],
});

/** Announces a role created or changed at `version`: the event, and its delta for the members' views. */
export const notifyRole = (ctx: DomainContext, serverId: string, t: 'ROLE_CREATE' | 'ROLE_UPDATE', role: RoleTable, version: number) =>
  notify(ctx, { kind: 'event', serverId, event: { t, d: { serverId, role: roleView(role) } }, delta: roleDelta(role, version) });

/** The delta of a channel's overwrites changed at `version`: the channel's whole list as `rows` (all of them) now hold it. */
export const overwritesDelta = (channelId: string, rows: readonly ChannelOverwriteTable[], version: number): ModelDelta => ({
  version,
  overwrites: [channelId, rows.map((o) => [o.targetId, o.type, o.allow, o.deny])],
});

/** What an account's leaving a server cleared: a bot's managed role, and the change to the permission model, when anything that decides permissions went. */
export interface Departure {
  serverId: string;
  roleId: string | null;
  delta: ModelDelta | null;
  /** The threads of the server they were a member of, and left with it. */
  threadsLeft?: string[];
}

/**
 * Inside `tx`, as an account leaves a server (kicked, banned, removed, or deleted): the
 * overwrites naming it and, for a bot, its managed role and the overwrites naming that go
 * too. When either existed the permission version moves on and the model after is read in
 * the same transaction, so the gateway gets it with the departure.
 */
export async function clearDeparture(ctx: DomainContext, tx: Tx, serverId: string, userId: string): Promise<Departure> {
  const role = await ctx.store.roles.managedOf(tx, serverId, userId);
  // Their threads of the server too: a private thread must not let them back in if they rejoin (docs/threads.md#thread-members).
  const threadsLeft = await ctx.store.threadMembers.leaveServer(tx, serverId, userId);
  const own = await ctx.store.overwrites.deleteTarget(tx, serverId, userId);
  if (role) {
    await ctx.store.overwrites.deleteTarget(tx, serverId, role.id);
    await ctx.store.roles.delete(tx, serverId, role.id);
  }
  const changed = role !== undefined || own.some((r) => Number(r.numDeletedRows) > 0);
  if (!changed) return { serverId, roleId: null, delta: null, threadsLeft };
  const version = await bumpVersion(ctx, tx, serverId);
  return { serverId, roleId: role?.id ?? null, delta: { version, gone: role ? [userId, role.id] : [userId] }, threadsLeft };
}

/** Ends a membership inside `tx`, with what it leaves behind (`clearDeparture`); null when they were not a member. */
export async function removeMembership(ctx: DomainContext, tx: Tx, serverId: string, userId: string): Promise<Departure | null> {
  const r = await ctx.store.members.delete(tx, serverId, userId);
  if (Number(r.numDeletedRows) === 0) return null;
  return clearDeparture(ctx, tx, serverId, userId);
}

/**
 * After the commit: the server hears the member left, then (a bot) that its managed role
 * went; both carry the delta (the second is then already held, and changes nothing).
 */
export async function announceDeparture(ctx: DomainContext, d: Departure, user: PublicUser): Promise<void> {
  const model = d.delta ? { delta: d.delta } : {};
  await notify(ctx, { kind: 'event', serverId: d.serverId, event: { t: 'MEMBER_REMOVE', d: { serverId: d.serverId, user } }, ...model });
  if (d.roleId)
    await notify(ctx, {
      kind: 'event',
      serverId: d.serverId,
      event: { t: 'ROLE_DELETE', d: { serverId: d.serverId, roleId: d.roleId } },
      ...model,
    });
  // The threads they left with the server (docs/threads.md#events).
  for (const threadId of d.threadsLeft ?? []) await announceMembers(ctx, threadId, { removed: [user.id] });
}

/** Parses a bitfield from a request: a decimal string of known bits, else 400. */
export function requirePermissions(value: string | undefined, what: string): bigint | undefined {
  if (value === undefined) return undefined;
  const bits = parsePermissions(value);
  if (bits === null) throw badRequest(`${what} must be a permission bitfield: a decimal integer string`);
  if ((bits & ~ALL_PERMISSION_BITS) !== 0n) throw badRequest(`${what} has bits that name no permission`);
  return bits;
}

/** Refuses granting what the caller does not hold themselves (the owner and administrators hold all). */
export function requireHeld(m: Membership, bits: bigint, where?: bigint): void {
  const held = where ?? m.bits;
  const extra = bits & ~held;
  if (extra !== 0n)
    throw forbidden('role_hierarchy', `you cannot grant permissions you do not have: ${permissionNamesOf(extra).join(', ')}`);
}

/** Refuses acting on a member whose highest role is not below the caller's (the owner is above everyone): kicks, bans, nicknames. */
export function requireMemberBelow(caller: Caller, m: Membership, targetId: string, targetRoles: readonly string[]): void {
  if (m.model.highest(targetId, targetRoles) >= m.model.highest(caller.id, m.roles))
    throw forbidden('role_hierarchy', "that member's highest role is not below yours");
}

/** Refuses acting on a role at or above the caller's highest role. */
export function requireBelow(caller: Caller, m: Membership, position: number, what: string): void {
  if (position >= m.model.highest(caller.id, m.roles)) throw forbidden('role_hierarchy', `${what} is not below your highest role`);
}

async function loadRole(ctx: DomainContext, serverId: string, roleId: string): Promise<RoleTable> {
  const role = isId(roleId) ? await ctx.store.roles.byId(ctx.store.db, serverId, roleId) : undefined;
  if (!role) throw notFound('role');
  return role;
}

function colorOf(color: number | undefined): number | undefined {
  if (color === undefined) return undefined;
  if (!Number.isInteger(color) || color < 0 || color > 0xffffff) throw badRequest('color must be an integer from 0 to 16777215');
  return color;
}

export interface RoleBody {
  name?: string;
  permissions?: string;
  color?: number;
  hoist?: boolean;
  mentionable?: boolean;
  position?: number;
}

/**
 * Renumbers `ordered` (every role but `@everyone`, bottom first) to positions 1..n: the
 * roles whose position changes, in one statement (a server may have 250 roles).
 */
async function renumber(ctx: DomainContext, tx: Tx, serverId: string, ordered: RoleTable[]): Promise<void> {
  const changed: Array<{ id: string; position: number }> = [];
  ordered.forEach((r, i) => {
    if (r.position !== i + 1) changed.push({ id: r.id, position: i + 1 });
    r.position = i + 1;
  });
  await ctx.store.roles.setPositions(tx, serverId, changed);
}

export const roles = {
  async list(ctx: DomainContext, caller: Caller, serverId: string) {
    await requireMember(ctx, caller, serverId);
    return (await ctx.store.roles.ofServer(ctx.store.db, serverId)).map(roleView);
  },

  /** One role of the server, as `list` shows it (membership is all it needs); 404 `unknown_role` for any other id. */
  async get(ctx: DomainContext, caller: Caller, serverId: string, roleId: string) {
    await requireMember(ctx, caller, serverId);
    const role = isId(roleId) ? await ctx.store.roles.byId(ctx.store.db, serverId, roleId) : undefined;
    if (!role) throw notFound('role');
    return roleView(role);
  },

  async create(ctx: DomainContext, caller: Caller, serverId: string, body: RoleBody) {
    const m = await requireServerPermission(ctx, caller, serverId, 'MANAGE_ROLES');
    const permissions = requirePermissions(body.permissions, 'permissions') ?? 0n;
    requireHeld(m, permissions);
    const role: RoleTable = {
      id: ctx.store.ids.next(),
      serverId,
      name: cleanName(body.name ?? 'new role', 'name'),
      color: colorOf(body.color) ?? 0,
      position: 1,
      permissions: permissions.toString(),
      hoist: body.hoist ? 1 : 0,
      mentionable: body.mentionable ? 1 : 0,
      managed: 0,
      botId: null,
    };
    const version = await ctx.store.write(async (tx) => {
      // One server's role changes run in turn, each seeing the last one's roles (count, positions).
      await ctx.store.roles.lockServer(tx, serverId);
      if ((await ctx.store.roles.countOf(tx, serverId)) >= OBJECT_LIMITS.rolesPerServer)
        throw badRequest(`a server holds at most ${OBJECT_LIMITS.rolesPerServer} roles`, 'max_roles');
      // New roles start just above `@everyone`, as Discord's do: below whoever made them.
      // The others move up in one statement, not one per role (docs/security.md, "Bounded objects").
      await ctx.store.roles.makeRoomAt(tx, serverId, 1);
      await ctx.store.roles.insert(tx, role);
      const version = await bumpVersion(ctx, tx, serverId);
      await auditIn(ctx, tx, serverId, caller, 'role_create', role.id, { role: roleView(role) });
      return version;
    });
    await notifyRole(ctx, serverId, 'ROLE_CREATE', role, version);
    return roleView(role);
  },

  async update(ctx: DomainContext, caller: Caller, serverId: string, roleId: string, body: RoleBody) {
    const m = await requireServerPermission(ctx, caller, serverId, 'MANAGE_ROLES');
    const role = await loadRole(ctx, serverId, roleId);
    const everyone = role.id === serverId;
    if (!everyone) requireBelow(caller, m, role.position, 'that role');
    if (everyone && (body.name !== undefined || body.position !== undefined || body.hoist !== undefined))
      throw badRequest("@everyone's name, position and hoist cannot change", 'everyone_role');
    const permissions = requirePermissions(body.permissions, 'permissions');
    if (permissions !== undefined) requireHeld(m, permissions ^ (parsePermissions(role.permissions) ?? 0n));
    if (body.position !== undefined) {
      if (!Number.isInteger(body.position) || body.position < 1) throw badRequest('position must be an integer of at least 1');
      requireBelow(caller, m, body.position, 'that position');
    }
    const patch: Partial<RoleTable> = {
      ...(body.name !== undefined ? { name: cleanName(body.name, 'name') } : {}),
      ...(permissions !== undefined ? { permissions: permissions.toString() } : {}),
      ...(body.color !== undefined ? { color: colorOf(body.color) } : {}),
      ...(body.hoist !== undefined ? { hoist: body.hoist ? 1 : 0 } : {}),
      ...(body.mentionable !== undefined ? { mentionable: body.mentionable ? 1 : 0 } : {}),
    };
    const { updated, version, moved } = await ctx.store.write(async (tx) => {
      await ctx.store.roles.lockServer(tx, serverId);
      if (Object.keys(patch).length > 0) await ctx.store.roles.update(tx, serverId, roleId, patch);
      let moved: RoleTable[] = [];
      if (body.position !== undefined && body.position !== role.position) {
        const others = (await ctx.store.roles.ofServer(tx, serverId)).filter((r) => r.id !== serverId && r.id !== roleId);
        const before = new Map(others.map((r) => [r.id, r.position]));
        const at = Math.min(body.position, others.length + 1) - 1;
        const self = { ...role, ...patch };
        others.splice(at, 0, self);
        await renumber(ctx, tx, serverId, others);
        moved = others.filter((r) => r.id !== roleId && before.get(r.id) !== r.position);
      }
      const version = await bumpVersion(ctx, tx, serverId);
      const updated = await ctx.store.roles.byId(tx, serverId, roleId);
      if (!updated) throw notFound('role');
      await auditIn(ctx, tx, serverId, caller, 'role_update', roleId, diff(roleView(role), roleView(updated)));
      return { updated, version, moved };
    });
    // Roles whose position shifted are announced too, so clients keep the order.
    for (const r of moved) await notify(ctx, { kind: 'event', serverId, event: { t: 'ROLE_UPDATE', d: { serverId, role: roleView(r) } } });
    await notifyRole(ctx, serverId, 'ROLE_UPDATE', updated, version);
    return roleView(updated);
  },

  async delete(ctx: DomainContext, caller: Caller, serverId: string, roleId: string) {
    const m = await requireServerPermission(ctx, caller, serverId, 'MANAGE_ROLES');
    if (roleId === serverId) throw badRequest('@everyone cannot be deleted', 'everyone_role');
    const role = await loadRole(ctx, serverId, roleId);
    if (role.managed === 1) throw forbidden('managed_role', "a bot's role goes when the bot is removed");
    requireBelow(caller, m, role.position, 'that role');
    const { version, holders } = await ctx.store.write(async (tx) => {
      await ctx.store.roles.lockServer(tx, serverId);
      // The role's rows in `member_roles` go with it (a foreign key): its holders are read first, to be told.
      const holders = await ctx.store.members.withRole(tx, roleId);
      await ctx.store.overwrites.deleteTarget(tx, serverId, roleId);
      await ctx.store.roles.delete(tx, serverId, roleId);
      const rest = (await ctx.store.roles.ofServer(tx, serverId)).filter((r) => r.id !== serverId);
      await renumber(ctx, tx, serverId, rest);
      const version = await bumpVersion(ctx, tx, serverId);
      await auditIn(ctx, tx, serverId, caller, 'role_delete', roleId, { role: roleView(role) });
      return { version, holders };
    });
    await notify(ctx, {
      kind: 'event',
      serverId,
      event: { t: 'ROLE_DELETE', d: { serverId, roleId } },
      delta: { version, gone: [roleId] },
    });
    for (const h of holders) {
      const user = await ctx.store.users.byId(ctx.store.db, h.userId);
      if (user)
        await notify(ctx, {
          kind: 'event',
          serverId,
          event: { t: 'MEMBER_UPDATE', d: { serverId, user: publicUser(user), roles: h.roles.filter((id) => id !== roleId) } },
        });
    }
  },

  /** Gives (`add`) or takes a role from a member. */
  async setMemberRole(ctx: DomainContext, caller: Caller, serverId: string, userId: string, roleId: string, add: boolean) {
    const m = await requireServerPermission(ctx, caller, serverId, 'MANAGE_ROLES');
    if (roleId === serverId) throw badRequest('everyone has @everyone: it cannot be given or taken', 'everyone_role');
    const role = await loadRole(ctx, serverId, roleId);
    if (role.managed === 1) throw forbidden('managed_role', "a bot's role belongs to that bot alone");
    requireBelow(caller, m, role.position, 'that role');
    // Giving a role grants its bits: only those the giver holds (docs/permissions.md, "The
    // hierarchy"). Without this a MANAGE_ROLES holder gives themselves any role below theirs,
    // ADMINISTRATOR included. Taking one away grants nothing. The target's rank is not
    // checked: a low role may be given to anyone, higher-ranked members too (reaction roles).
    if (add) requireHeld(m, parsePermissions(role.permissions) ?? 0n);
    const user = isId(userId) ? await ctx.store.users.byId(ctx.store.db, userId) : undefined;
    const target = user && (await ctx.store.members.get(ctx.store.db, serverId, userId));
    if (!user || !target) throw notFound('member');
    const { changed, next } = await ctx.store.write(async (tx) => {
      const current = await ctx.store.members.get(tx, serverId, userId);
      if (!current) throw notFound('member');
      const ids = current.roles;
      const has = ids.includes(roleId);
      if (has === add) return { changed: false, next: ids };
      if (add) await ctx.store.members.addRoles(tx, serverId, userId, [roleId]);
      else await ctx.store.members.removeRole(tx, serverId, userId, roleId);
      await auditIn(ctx, tx, serverId, caller, add ? 'member_role_add' : 'member_role_remove', userId, { roleId });
      return { changed: true, next: roleSet(add ? [...ids, roleId] : ids.filter((id) => id !== roleId)) };
    });
    if (changed)
      await notify(ctx, { kind: 'event', serverId, event: { t: 'MEMBER_UPDATE', d: { serverId, user: publicUser(user), roles: next } } });
  },

  /** `PUT /channels/{id}/permissions/{targetId}`. */
  async putOverwrite(
    ctx: DomainContext,
    caller: Caller,
    channelId: string,
    targetId: string,
    body: { type: 'role' | 'member'; allow?: string; deny?: string },
  ) {
    const channel = await requireServerChannelPermission(ctx, caller, channelId, P.VIEW_CHANNEL);
    const m = await requireServerPermission(ctx, caller, channel.serverId, 'MANAGE_ROLES');
    const allow = requirePermissions(body.allow ?? '0', 'allow') ?? 0n;
    const deny = requirePermissions(body.deny ?? '0', 'deny') ?? 0n;
    await requireOverwriteTarget(ctx, caller, m, channel.serverId, targetId, body.type);
    const before = await ctx.store.overwrites.get(ctx.store.db, channelId, targetId);
    // Only what the caller holds in the channel can be allowed or denied, or changed.
    const changed = (allow ^ (parsePermissions(before?.allow ?? '0') ?? 0n)) | (deny ^ (parsePermissions(before?.deny ?? '0') ?? 0n));
    requireHeld(m, changed, channel.permissions);
    const row: ChannelOverwriteTable = {
      channelId,
      serverId: channel.serverId,
      targetId,
      type: body.type,
      allow: allow.toString(),
      deny: deny.toString(),
    };
    await changeOverwrites(ctx, caller, channelId, channel.serverId, 'overwrite_update', targetId, async (tx) => {
      await ctx.store.overwrites.put(tx, row);
      return { type: body.type, allow: { old: before?.allow ?? null, new: row.allow }, deny: { old: before?.deny ?? null, new: row.deny } };
    });
  },

  async deleteOverwrite(ctx: DomainContext, caller: Caller, channelId: string, targetId: string) {
    const channel = await requireServerChannelPermission(ctx, caller, channelId, P.VIEW_CHANNEL);
    const m = await requireServerPermission(ctx, caller, channel.serverId, 'MANAGE_ROLES');
    const before = isId(targetId) ? await ctx.store.overwrites.get(ctx.store.db, channelId, targetId) : undefined;
    if (!before) throw notFound('overwrite');
    await requireOverwriteTarget(ctx, caller, m, channel.serverId, targetId, before.type);
    requireHeld(m, (parsePermissions(before.allow) ?? 0n) | (parsePermissions(before.deny) ?? 0n), channel.permissions);
    await changeOverwrites(ctx, caller, channelId, channel.serverId, 'overwrite_delete', targetId, async (tx) => {
      await ctx.store.overwrites.delete(tx, channelId, targetId);
      return { type: before.type, allow: before.allow, deny: before.deny };
    });
  },
};

/** One channel overwrite as a request gives it: the target, its type, and the bits as decimal strings. */
export interface OverwriteInput {
  id: string;
  type: 'role' | 'member';
  allow?: string;
  deny?: string;
}

/** At most this many overwrites in one request that sets a channel's whole list (docs/discord.md). */
export const MAX_OVERWRITES_PER_REQUEST = 100;

/**
 * A channel's whole new list of overwrites (`list`, replacing `existing`), checked by the
 * rules of `putOverwrite` and `deleteOverwrite` when anything changes: the caller holds
 * MANAGE_ROLES; each target added, changed or removed is a role below the caller's highest
 * (`@everyone` always) or a member below them (or themselves); and only bits the caller
 * holds in the channel (`held`: their permissions there; server-wide for a channel being
 * created) are allowed, denied or stop being so. Answers the rows to write; writes nothing
 * (`writeOverwriteList`).
 */
export async function checkOverwriteList(
  ctx: DomainContext,
  caller: Caller,
  serverId: string,
  channelId: string,
  held: bigint | undefined,
  list: readonly OverwriteInput[],
  existing: readonly ChannelOverwriteTable[],
): Promise<ChannelOverwriteTable[]> {
  if (list.length > MAX_OVERWRITES_PER_REQUEST)
    throw badRequest(`permission overwrites: at most ${MAX_OVERWRITES_PER_REQUEST} in one request`);
  const before = new Map(existing.map((o) => [o.targetId, o]));
  const rows: ChannelOverwriteTable[] = [];
  /** Each target added, changed or removed, with the bits whose state changes. */
  const changes: Array<{ id: string; type: 'role' | 'member'; bits: bigint }> = [];
  for (const o of list) {
    if (rows.some((r) => r.targetId === o.id)) throw badRequest('permission overwrites name a target twice');
    const allow = requirePermissions(o.allow ?? '0', 'allow') ?? 0n;
    const deny = requirePermissions(o.deny ?? '0', 'deny') ?? 0n;
    const old = before.get(o.id);
    const bits = (allow ^ (parsePermissions(old?.allow ?? '0') ?? 0n)) | (deny ^ (parsePermissions(old?.deny ?? '0') ?? 0n));
    if (!old || old.type !== o.type || bits !== 0n) changes.push({ id: o.id, type: o.type, bits });
    rows.push({ channelId, serverId, targetId: o.id, type: o.type, allow: allow.toString(), deny: deny.toString() });
  }
  for (const old of existing)
    if (!rows.some((r) => r.targetId === old.targetId))
      changes.push({
        id: old.targetId,
        type: old.type,
        bits: (parsePermissions(old.allow) ?? 0n) | (parsePermissions(old.deny) ?? 0n),
      });
  // Sending a channel's overwrites back unchanged (with a rename, say) needs nothing more.
  if (changes.length === 0) return rows;
  const m = await requireServerPermission(ctx, caller, serverId, 'MANAGE_ROLES');
  for (const c of changes) {
    await requireOverwriteTarget(ctx, caller, m, serverId, c.id, c.type);
    requireHeld(m, c.bits, held);
  }
  return rows;
}

/**
 * Inside `tx`: makes `rows` (from `checkOverwriteList`) the channel's overwrites, each
 * change in the audit log, and moves the permission version on when anything changed.
 * Answers the delta that change made (for the channel event), or null when nothing changed.
 */
export async function writeOverwriteList(
  ctx: DomainContext,
  tx: Tx,
  caller: Caller,
  channelId: string,
  serverId: string,
  rows: readonly ChannelOverwriteTable[],
): Promise<ModelDelta | null> {
  const existing = await ctx.store.overwrites.ofChannel(tx, channelId);
  const before = new Map(existing.map((o) => [o.targetId, o]));
  const kept = new Set(rows.map((r) => r.targetId));
  let changed = false;
  for (const old of existing) {
    if (kept.has(old.targetId)) continue;
    await ctx.store.overwrites.delete(tx, channelId, old.targetId);
    await auditIn(ctx, tx, serverId, caller, 'overwrite_delete', old.targetId, {
      channelId,
      type: old.type,
      allow: old.allow,
      deny: old.deny,
    });
    changed = true;
  }
  for (const row of rows) {
    const old = before.get(row.targetId);
    if (old && old.type === row.type && old.allow === row.allow && old.deny === row.deny) continue;
    await ctx.store.overwrites.put(tx, row);
    await auditIn(ctx, tx, serverId, caller, 'overwrite_update', row.targetId, {
      channelId,
      type: row.type,
      allow: { old: old?.allow ?? null, new: row.allow },
      deny: { old: old?.deny ?? null, new: row.deny },
    });
    changed = true;
  }
  return changed ? overwritesDelta(channelId, rows, await bumpVersion(ctx, tx, serverId)) : null;
}

async function requireOverwriteTarget(
  ctx: DomainContext,
  caller: Caller,
  m: Membership,
  serverId: string,
  targetId: string,
  type: 'role' | 'member',
): Promise<void> {
  if (type === 'role') {
    const role = await loadRole(ctx, serverId, targetId);
    if (role.id !== serverId) requireBelow(caller, m, role.position, 'that role');
    return;
  }
  const target = isId(targetId) ? await ctx.store.members.get(ctx.store.db, serverId, targetId) : undefined;
  if (!target) throw notFound('member');
  if (targetId !== caller.id) requireBelow(caller, m, m.model.highest(targetId, target.roles), "that member's highest role");
}

/**
 * Writes an overwrite change with its audit entry, then announces the channel with the
 * delta it made: the channel's overwrites as they now are, whatever they were.
 */
async function changeOverwrites(
  ctx: DomainContext,
  caller: Caller,
  channelId: string,
  serverId: string,
  action: 'overwrite_update' | 'overwrite_delete',
  targetId: string,
  change: (tx: Tx) => Promise<Record<string, unknown>>,
): Promise<void> {
  const { channel, overwrites, version } = await ctx.store.write(async (tx) => {
    const changes = await change(tx);
    const version = await bumpVersion(ctx, tx, serverId);
    await auditIn(ctx, tx, serverId, caller, action, targetId, { channelId, ...changes });
    const channel = await ctx.store.channels.byId(tx, channelId);
    if (!channel) throw notFound('channel');
    return { channel, overwrites: await ctx.store.overwrites.ofChannel(tx, channelId), version };
  });
  const tags = await forumTagsOf(ctx, ctx.store.db, [channel]);
  await notify(ctx, {
    kind: 'event',
    serverId,
    event: { t: 'CHANNEL_UPDATE', d: channelView(channel, overwrites, tags) },
    delta: overwritesDelta(channelId, overwrites, version),
  });
}
