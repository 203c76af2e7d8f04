/**
 * Bots in servers: added by the owner (or anyone, for a public bot), their permissions set
 * (through their managed role, `managed-roles.ts`), removed.
 */
import { type Role, legacyNamesOf, parsePermissions } from '@parley/protocol';
import { conflict, forbidden, notFound } from '../errors.js';
import { isId } from '../ids.js';
import type { Tx } from '../store/index.js';
import type { RoleTable, ServerTable, UserTable } from '../store/schema.js';
import { JOIN_MEMBERS_MAX, JOIN_THREADS_MAX, type JoinSnapshot } from '../events/types.js';
import { publicUser } from './accounts.js';
import { requireOwner } from './access.js';
import { auditIn } from './audit.js';
import { type DomainContext, notify, nowIso } from './context.js';
import { botBits, giveManagedRole, setManagedRole } from './managed-roles.js';
import { announceDeparture, removeMembership, notifyRole, roleView, snapshotIn } from './roles.js';
import { serverView } from './servers.js';
import { SharedRows } from './shared-rows.js';
import { activeThreadsOfServer } from './thread-events.js';
import type { Caller } from './types.js';

const botMember = (bot: UserTable, role: RoleTable, joinedAt?: string) => ({
  ...publicUser(bot),
  ownerId: bot.ownerId,
  permissions: legacyNamesOf(parsePermissions(role.permissions) ?? 0n),
  ...(joinedAt ? { joinedAt } : {}),
  role: roleView(role),
});

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

/** The bot account `botId` names; 404 `unknown_bot` for anything else. */
async function requireBot(ctx: DomainContext, botId: string): Promise<UserTable> {
  const user = isId(botId) ? await ctx.store.users.byId(ctx.store.db, botId) : undefined;
  if (user?.bot !== 1) throw notFound('bot');
  return user;
}

export const serverBots = {
  /** Adds a bot with a managed role holding `permissions` (the legacy names of docs/permissions.md#bots, the names of docs/permissions.md#the-bits, or a bitfield). */
  async addBot(ctx: DomainContext, caller: Caller, serverId: string, botId: string, permissions?: ReadonlyArray<string> | string) {
    const server = await requireOwner(ctx, caller, serverId);
    const bot = await requireBot(ctx, botId);
    // A bot receives the events of every server it is in: only its owner decides where it
    // goes, unless they made it public. 403, not 404: bot ids are visible in member lists
    // and messages anyway, so hiding that the bot exists would protect nothing.
    if (bot.ownerId !== caller.id && bot.isPublic !== 1)
      throw forbidden('bot_owner_only', 'only its owner can add this bot (it is not public)');
    const bits = botBits(permissions);
    const joinedAt = nowIso(ctx);
    const { role, version, model, join, threads } = await ctx.store.write(async (tx) => {
      const r = await ctx.store.members.insert(tx, { serverId, userId: botId, legacyPermissions: -1, joinedAt });
      if (Number(r.numInsertedOrUpdatedRows ?? 0n) === 0)
        throw conflict('bot_already_member', 'the bot is already a member of this server');
      const { role, version } = await giveManagedRole(ctx, tx, serverId, bot, bits);
      await auditIn(ctx, tx, serverId, caller, 'bot_add', botId, { permissions: bits.toString() });
      // Its GUILD_CREATE lists the active threads it may see, as at READY (docs/threads.md#events):
      // read here with the rest of the snapshot, so the join's events go out right after its
      // commit, in the order of concurrent joins' commits (test/gateway/deltas.test.ts).
      const [model, join, threads] = await Promise.all([
        snapshotIn(ctx, tx, serverId),
        joinSnapshot(ctx, tx, server, bot.id, joinedAt),
        activeThreadsOfServer(ctx, tx, serverId, JOIN_THREADS_MAX),
      ]);
      return { role, version, model, join, threads };
    });
    // The members' views gain the managed role from this entry's delta; the bot's own
    // sessions, which have no view yet, take the MEMBER_ADD's model, its roles those of the
    // join snapshot (every role once per bot join, as Discord's GUILD_CREATE lists them).
    await notifyRole(ctx, serverId, 'ROLE_CREATE', role, version);
    await notify(ctx, {
      kind: 'event',
      serverId,
      event: { t: 'MEMBER_ADD', d: { serverId, user: publicUser(bot) } },
      model: { ...model, roles: [] },
      roles: [role.id],
      join: threads.length > 0 ? { ...join, threads } : join,
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
    const bot = await requireBot(ctx, botId);
    const bits = botBits(permissions);
    const { role, version } = await ctx.store.write(async (tx) => {
      const member = await ctx.store.members.get(tx, serverId, botId);
      if (!member) throw notFound('member', 'bot membership not found');
      const { role, version } = await setManagedRole(ctx, tx, serverId, bot, bits);
      await auditIn(ctx, tx, serverId, caller, 'bot_update', botId, { permissions: bits.toString() });
      return { role, version };
    });
    await notifyRole(ctx, serverId, 'ROLE_UPDATE', role, version);
    await notify(ctx, {
      kind: 'event',
      serverId,
      event: { t: 'MEMBER_UPDATE', d: { serverId, user: publicUser(bot), roles: [role.id], permissions: legacyNamesOf(bits) } },
    });
    return botMember(bot, role);
  },

  async removeBot(ctx: DomainContext, caller: Caller, serverId: string, botId: string) {
    await requireOwner(ctx, caller, serverId);
    const bot = await requireBot(ctx, botId);
    const removed = await ctx.store.write(async (tx) => {
      const r = await removeMembership(ctx, tx, serverId, botId);
      if (r) await auditIn(ctx, tx, serverId, caller, 'bot_remove', botId, {});
      return r;
    });
    if (!removed) throw notFound('member', 'bot membership not found');
    await announceDeparture(ctx, removed, publicUser(bot));
  },
};
