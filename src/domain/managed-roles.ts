/**
 * A bot's managed role in a server: its own, named after it, on top of the other roles,
 * holding what the owner granted it (docs/permissions.md#bots). Made when the bot joins,
 * changed when the owner sets its permissions; it goes when the bot leaves
 * (`clearDeparture`), and nobody may give, take or delete it.
 */
import { type LegacyPermission, type Permission, BOT_DEFAULT_PERMISSIONS, bitsOfNames } from '@parley/protocol';
import type { Tx } from '../store/index.js';
import type { RoleTable, UserTable } from '../store/schema.js';
import type { DomainContext } from './context.js';
import { bumpVersion, requirePermissions } from './roles.js';

/** Bits of names (the legacy ones of docs/permissions.md#bots, or those of docs/permissions.md#the-bits), or a bitfield string (POST/PATCH of a bot); none given: BOT_DEFAULT_PERMISSIONS. */
export function botBits(permissions: ReadonlyArray<string> | string | undefined): bigint {
  if (permissions === undefined) return BOT_DEFAULT_PERMISSIONS;
  if (typeof permissions === 'string') return requirePermissions(permissions, 'permissions') ?? 0n;
  return bitsOfNames(permissions as (Permission | LegacyPermission)[]);
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

/**
 * Inside `tx`: makes the bot's managed role holding `bits`, on top of the server's roles,
 * and gives it to the bot. Answers the role and the permission version made.
 */
export async function giveManagedRole(
  ctx: DomainContext,
  tx: Tx,
  serverId: string,
  bot: UserTable,
  bits: bigint,
): Promise<{ role: RoleTable; version: number }> {
  const role = managedRole(ctx, serverId, bot, bits);
  role.position = (await ctx.store.roles.maxPosition(tx, serverId)) + 1;
  await ctx.store.roles.insert(tx, role);
  await ctx.store.members.addRoles(tx, serverId, bot.id, [role.id]);
  return { role, version: await bumpVersion(ctx, tx, serverId) };
}

/** Inside `tx`: sets the bits of the bot's managed role (making one for a bot that has none). */
export async function setManagedRole(
  ctx: DomainContext,
  tx: Tx,
  serverId: string,
  bot: UserTable,
  bits: bigint,
): Promise<{ role: RoleTable; version: number }> {
  const role = await ctx.store.roles.managedOf(tx, serverId, bot.id);
  if (!role) return giveManagedRole(ctx, tx, serverId, bot, bits);
  await ctx.store.roles.update(tx, serverId, role.id, { permissions: bits.toString() });
  return { role: { ...role, permissions: bits.toString() }, version: await bumpVersion(ctx, tx, serverId) };
}
