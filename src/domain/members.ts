/**
 * Members: editing one (their nickname in the server and their whole role set, as the native
 * `PATCH /servers/{id}/members/{userId}` and Discord's `PATCH /guilds/{id}/members/{userId}`
 * and `/members/@me` ask for it: docs/api.md, "Members"; docs/permissions.md, "Nicknames"),
 * and pages of a server's members and of a caller's servers, read by the store a page at a time.
 */
import { OBJECT_LIMITS, parsePermissions } from '@parley/protocol';
import { badRequest, forbidden, notFound } from '../errors.js';
import { isId } from '../ids.js';
import { publicUser } from './accounts.js';
import { type Membership, requireHeldPermission, requireMember } from './access.js';
import { auditIn } from './audit.js';
import { type DomainContext, notify } from './context.js';
import { cleanName, stripUnsafeCharacters } from './names.js';
import { roleSet } from './permissions.js';
import { requireBelow, requireHeld, requireMemberBelow } from './roles.js';
import { memberView, serverView, servers } from './servers.js';
import type { RoleTable } from '../store/schema.js';
import type { Caller } from './types.js';

/** A nickname is at most this many characters, as Discord's. */
export const NICK_MAX = 32;

export interface MemberEdit {
  /** The nickname; null or "" (after cleaning) clears it. */
  nick?: string | null;
  /** The member's whole role set (`@everyone` ignored; a bot's managed role stays). */
  roles?: readonly string[];
}

/** A nickname cleaned as display names are (docs/security.md, "Names"); null when it clears. */
export function cleanNick(nick: string | null): string | null {
  if (nick === null || stripUnsafeCharacters(nick).trim() === '') return null;
  return cleanName(nick, 'nick', NICK_MAX);
}

/**
 * Who may set `targetId`'s nickname: themselves with CHANGE_NICKNAME; anyone else with
 * MANAGE_NICKNAMES when the target's highest role is below theirs (the owner is above all,
 * so only the owner changes the owner's).
 */
function requireNickRight(caller: Caller, m: Membership, targetId: string, targetRoles: readonly string[]): void {
  if (targetId === caller.id) {
    requireHeldPermission(m, 'CHANGE_NICKNAME');
    return;
  }
  requireHeldPermission(m, 'MANAGE_NICKNAMES');
  requireMemberBelow(caller, m, targetId, targetRoles);
}

export const members = {
  /**
   * Changes a member's nickname and/or role set in one transaction, all or nothing, then
   * announces one MEMBER_UPDATE (with `roles` and `nick`) when anything changed. Roles follow
   * the one-role PUT/DELETE's rules (roles.setMemberRole): MANAGE_ROLES; each role given or
   * taken is below the caller's highest; giving needs every bit the role carries; managed
   * roles can be neither given nor taken. Answers the member as `servers.member` shows them.
   */
  async edit(ctx: DomainContext, caller: Caller, serverId: string, userIdOrMe: string, edit: MemberEdit) {
    const m = await requireMember(ctx, caller, serverId);
    const userId = userIdOrMe === '@me' ? caller.id : userIdOrMe;
    const user = isId(userId) ? await ctx.store.users.byId(ctx.store.db, userId) : undefined;
    const target = user && (await ctx.store.members.get(ctx.store.db, serverId, userId));
    if (!user || !target) throw notFound('member');
    const nick = edit.nick === undefined ? undefined : cleanNick(edit.nick);
    if (nick !== undefined) requireNickRight(caller, m, userId, target.roles);
    let wanted: string[] | undefined;
    if (edit.roles !== undefined) {
      requireHeldPermission(m, 'MANAGE_ROLES');
      wanted = [...new Set(edit.roles)].filter((id) => id !== serverId);
      if (wanted.length > OBJECT_LIMITS.rolesPerServer) throw badRequest(`roles: at most ${OBJECT_LIMITS.rolesPerServer}`);
    }
    const result = await ctx.store.write(async (tx) => {
      const current = await ctx.store.members.get(tx, serverId, userId);
      if (!current) throw notFound('member');
      const patch: { roles?: string[]; nick?: string | null } = {};
      let roles = current.roles;
      const changes: Array<{ roleId: string; add: boolean }> = [];
      if (wanted) {
        const all = new Map((await ctx.store.roles.ofServer(tx, serverId)).map((r) => [r.id, r]));
        const held = new Set(roles);
        for (const id of wanted) {
          const role = isId(id) ? all.get(id) : undefined;
          if (!role) throw notFound('role');
          if (held.has(id)) continue;
          if (role.managed === 1) throw forbidden('managed_role', "a bot's role belongs to that bot alone");
          requireBelow(caller, m, role.position, 'that role');
          requireHeld(m, parsePermissions(role.permissions) ?? 0n);
          changes.push({ roleId: id, add: true });
        }
        const keep = new Set(wanted);
        for (const id of roles) {
          const role = all.get(id);
          if (keep.has(id) || !role || role.managed === 1) continue;
          requireBelow(caller, m, role.position, 'that role');
          changes.push({ roleId: id, add: false });
        }
        if (changes.length > 0) {
          const next = roles.filter((id) => keep.has(id) || all.get(id)?.managed === 1);
          for (const c of changes) if (c.add) next.push(c.roleId);
          patch.roles = roleSet(next);
          roles = patch.roles;
        }
      }
      const before = current.nick ?? null;
      if (nick !== undefined && nick !== before) patch.nick = nick;
      if (Object.keys(patch).length === 0) return { changed: false, roles, nick: before };
      await ctx.store.members.update(tx, serverId, userId, patch);
      for (const c of changes)
        await auditIn(ctx, tx, serverId, caller, c.add ? 'member_role_add' : 'member_role_remove', userId, { roleId: c.roleId });
      if (patch.nick !== undefined)
        await auditIn(ctx, tx, serverId, caller, 'member_nick', userId, { nick: { old: before, new: patch.nick } });
      return { changed: true, roles, nick: patch.nick !== undefined ? patch.nick : before };
    });
    if (result.changed)
      await notify(ctx, {
        kind: 'event',
        serverId,
        event: { t: 'MEMBER_UPDATE', d: { serverId, user: publicUser(user), roles: result.roles, nick: result.nick } },
      });
    return servers.member(ctx, caller, serverId, userId);
  },

  /**
   * A page of the server's members by user id, ascending: the first `limit` above `after`
   * (Discord's List Guild Members, docs/discord.md). Membership is all it needs, as the
   * member list; the page is read by the store, never the whole list.
   */
  async page(ctx: DomainContext, caller: Caller, serverId: string, page: { after?: string; limit: number }) {
    await requireMember(ctx, caller, serverId);
    const rows = await ctx.store.members.pageById(ctx.store.db, serverId, page);
    const bots = new Set(rows.filter((r) => r.bot === 1).map((r) => r.id));
    const managed = new Map<string, RoleTable>();
    if (bots.size > 0)
      for (const r of await ctx.store.roles.ofServer(ctx.store.db, serverId)) if (r.botId && bots.has(r.botId)) managed.set(r.botId, r);
    const presence = rows.length > 0 ? await ctx.presence?.statuses(rows.map((r) => r.id)) : undefined;
    return rows.map((r) => memberView(r, managed.get(r.id), presence?.get(r.id)));
  },

  /**
   * A page of the servers the caller is a member of, by id ascending, between the exclusive
   * bounds `after` and `before` (Discord's `GET /users/@me/guilds`), read by the store.
   */
  async serversPage(ctx: DomainContext, caller: Caller, page: { after?: string; before?: string; limit: number }) {
    return (await ctx.store.servers.pageOfMember(ctx.store.db, caller.id, page)).map(serverView);
  },
};
