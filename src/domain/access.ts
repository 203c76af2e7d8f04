import { type Entity, forbidden, notFound } from '../errors.js';
import { isId } from '../ids.js';
import type { DomainContext } from './context.js';
import { type Caller, PERMISSIONS, type PermissionName } from './types.js';

/** The caller's membership of a server; 404 for an unknown server, 403 for a non-member. */
export async function requireMember(ctx: DomainContext, caller: Caller, serverId: string) {
  const server = isId(serverId) ? await ctx.store.servers.byId(ctx.store.db, serverId) : undefined;
  if (!server) throw notFound('server');
  const member = await ctx.store.members.get(ctx.store.db, serverId, caller.id);
  if (!member) throw forbidden('not_a_member', caller.bot ? 'bot is not a member of this server' : 'you are not a member of this server');
  return { server, member };
}

/** The server, when the caller owns it; members get 403, strangers 404-or-403 like any member check. */
export async function requireOwner(ctx: DomainContext, caller: Caller, serverId: string) {
  const { server } = await requireMember(ctx, caller, serverId);
  if (server.ownerId !== caller.id) throw forbidden('owner_only', 'only the server owner can do this');
  return server;
}

/**
 * The channel, when the caller is a member of its server holding `permission`.
 * Unknown channel → 404; not a member or missing permission → 403 (seed 5.1).
 */
export async function requireChannelPermission(ctx: DomainContext, caller: Caller, channelId: string, permission: PermissionName) {
  const row = isId(channelId) ? await ctx.store.members.forChannel(ctx.store.db, channelId, caller.id) : undefined;
  if (!row) throw notFound('channel');
  if (row.permissions === null || row.permissions === undefined) {
    throw forbidden('not_a_member', caller.bot ? 'bot is not a member of this server' : 'you are not a member of this server');
  }
  if ((row.permissions & PERMISSIONS[permission]) === 0) throw forbidden('missing_permission', `missing permission ${permission}`);
  return { id: row.channelId, serverId: row.serverId, name: row.name, createdAt: row.createdAt, permissions: row.permissions };
}

/** Checks an id-shaped path parameter, so malformed ids are a clean 404 rather than a query. */
export function requireIdShape(id: string, what: Entity): void {
  if (!isId(id)) throw notFound(what);
}
