import { randomBytes } from 'node:crypto';
import { badRequest, conflict, forbidden, notFound } from '../errors.js';
import { isId } from '../ids.js';
import type { ChannelTable, ServerTable } from '../store/schema.js';
import { publicUser } from './accounts.js';
import { cleanName } from './names.js';
import { requireMember, requireOwner } from './access.js';
import { type DomainContext, notify, nowIso } from './context.js';
import { releaseUploads } from './uploads.js';
import { ALL_PERMISSIONS, type Caller, type Channel, type PermissionName, type Server, permissionBits, permissionNames } from './types.js';

export const serverView = (s: ServerTable): Server => ({ id: s.id, name: s.name, ownerId: s.ownerId, createdAt: s.createdAt });
export const channelView = (c: ChannelTable): Channel => ({ id: c.id, serverId: c.serverId, name: c.name, createdAt: c.createdAt });

/**
 * Random bytes per invite code: 12 bytes (96 bits, 16 characters) cannot be found by
 * guessing, even before the join rate limits. Codes made before were 6 bytes (8
 * characters); they keep working.
 */
export const INVITE_CODE_BYTES = 12;

/** Codes are base64url; anything else (e.g. a NUL, which PostgreSQL refuses) names no invite. */
const inviteByCode = (ctx: DomainContext, code: string) =>
  /^[A-Za-z0-9_-]{1,64}$/.test(code) ? ctx.store.invites.byCode(ctx.store.db, code) : Promise.resolve(undefined);

export const servers = {
  async create(ctx: DomainContext, caller: Caller, name: string) {
    if (caller.bot) throw forbidden('users_only', 'bots cannot create servers');
    const now = nowIso();
    const server: ServerTable = { id: ctx.store.ids.next(), name: cleanName(name, 'name'), ownerId: caller.id, createdAt: now };
    const general: ChannelTable = { id: ctx.store.ids.next(), serverId: server.id, name: 'general', createdAt: now };
    await ctx.store.write(async (tx) => {
      await ctx.store.servers.insert(tx, server);
      await ctx.store.members.insert(tx, { serverId: server.id, userId: caller.id, permissions: ALL_PERMISSIONS, joinedAt: now });
      await ctx.store.channels.insert(tx, general);
    });
    await notify(ctx, {
      kind: 'event',
      serverId: server.id,
      event: {
        t: 'MEMBER_ADD',
        d: { serverId: server.id, user: { id: caller.id, name: caller.name, bot: caller.bot, avatar: caller.avatar } },
      },
      permissions: ALL_PERMISSIONS,
    });
    return serverView(server);
  },

  async list(ctx: DomainContext, caller: Caller) {
    return (await ctx.store.servers.ofMember(ctx.store.db, caller.id)).map(serverView);
  },

  async get(ctx: DomainContext, caller: Caller, serverId: string) {
    return serverView((await requireMember(ctx, caller, serverId)).server);
  },

  async rename(ctx: DomainContext, caller: Caller, serverId: string, name: string) {
    const server = await requireOwner(ctx, caller, serverId);
    const updated = { ...server, name: cleanName(name, 'name') };
    await ctx.store.write((tx) => ctx.store.servers.rename(tx, serverId, updated.name));
    await notify(ctx, { kind: 'event', serverId, event: { t: 'SERVER_UPDATE', d: serverView(updated) } });
    return serverView(updated);
  },

  async channels(ctx: DomainContext, caller: Caller, serverId: string) {
    await requireMember(ctx, caller, serverId);
    return (await ctx.store.channels.ofServer(ctx.store.db, serverId)).map(channelView);
  },

  async createChannel(ctx: DomainContext, caller: Caller, serverId: string, name: string) {
    await requireOwner(ctx, caller, serverId);
    const channel: ChannelTable = { id: ctx.store.ids.next(), serverId, name: cleanName(name, 'name'), createdAt: nowIso() };
    await ctx.store.write((tx) => ctx.store.channels.insert(tx, channel));
    await notify(ctx, { kind: 'event', serverId, event: { t: 'CHANNEL_CREATE', d: channelView(channel) } });
    return channelView(channel);
  },

  async ownedChannel(ctx: DomainContext, caller: Caller, channelId: string) {
    const channel = isId(channelId) ? await ctx.store.channels.byId(ctx.store.db, channelId) : undefined;
    if (!channel) throw notFound('channel');
    await requireOwner(ctx, caller, channel.serverId);
    return channel;
  },

  async renameChannel(ctx: DomainContext, caller: Caller, channelId: string, name: string) {
    const channel = await servers.ownedChannel(ctx, caller, channelId);
    const updated = { ...channel, name: cleanName(name, 'name') };
    await ctx.store.write((tx) => ctx.store.channels.rename(tx, channelId, updated.name));
    await notify(ctx, { kind: 'event', serverId: channel.serverId, event: { t: 'CHANNEL_UPDATE', d: channelView(updated) } });
    return channelView(updated);
  },

  async deleteChannel(ctx: DomainContext, caller: Caller, channelId: string) {
    const channel = await servers.ownedChannel(ctx, caller, channelId);
    // Messages, reactions and the channel's webhooks go with it (foreign keys cascade);
    // the uploads its messages referenced are collected in the same transaction.
    const { deleted, uploadIds } = await ctx.store.write(async (tx) => {
      const uploadIds = await ctx.store.uploads.ofChannel(tx, channelId);
      const r = await ctx.store.channels.delete(tx, channelId);
      return { deleted: Number(r.numDeletedRows) > 0, uploadIds };
    });
    // A concurrent delete won and announces it.
    if (!deleted) throw notFound('channel');
    // The files go too, unless a message elsewhere references the same upload.
    await releaseUploads(ctx, uploadIds);
    await notify(ctx, { kind: 'event', serverId: channel.serverId, event: { t: 'CHANNEL_DELETE', d: channelView(channel) } });
  },

  async createInvite(ctx: DomainContext, caller: Caller, serverId: string) {
    await requireOwner(ctx, caller, serverId);
    const invite = { code: randomBytes(INVITE_CODE_BYTES).toString('base64url'), serverId, createdBy: caller.id, createdAt: nowIso() };
    await ctx.store.write((tx) => ctx.store.invites.insert(tx, invite));
    return invite;
  },

  async listInvites(ctx: DomainContext, caller: Caller, serverId: string) {
    await requireOwner(ctx, caller, serverId);
    return ctx.store.invites.ofServer(ctx.store.db, serverId);
  },

  async deleteInvite(ctx: DomainContext, caller: Caller, code: string) {
    const invite = await inviteByCode(ctx, code);
    if (!invite) throw notFound('invite');
    await requireOwner(ctx, caller, invite.serverId);
    await ctx.store.write((tx) => ctx.store.invites.delete(tx, code));
  },

  async join(ctx: DomainContext, caller: Caller, code: string) {
    if (caller.bot) throw forbidden('users_only', 'bots join servers when the owner adds them');
    const invite = await inviteByCode(ctx, code);
    if (!invite) throw notFound('invite');
    const server = await ctx.store.servers.byId(ctx.store.db, invite.serverId);
    if (!server) throw notFound('invite');
    const inserted = await ctx.store.write((tx) =>
      ctx.store.members.insert(tx, { serverId: server.id, userId: caller.id, permissions: ALL_PERMISSIONS, joinedAt: nowIso() }),
    );
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) > 0) {
      await notify(ctx, {
        kind: 'event',
        serverId: server.id,
        event: {
          t: 'MEMBER_ADD',
          d: { serverId: server.id, user: { id: caller.id, name: caller.name, bot: false, avatar: caller.avatar } },
        },
        permissions: ALL_PERMISSIONS,
      });
    }
    return serverView(server);
  },

  async members(ctx: DomainContext, caller: Caller, serverId: string) {
    await requireMember(ctx, caller, serverId);
    const rows = await ctx.store.members.ofServer(ctx.store.db, serverId);
    return rows.map((r) => ({
      ...publicUser(r),
      ...(r.bot === 1 ? { ownerId: r.ownerId, permissions: permissionNames(r.permissions) } : {}),
      joinedAt: r.joinedAt,
    }));
  },

  /** Removes a member: the owner removing someone, or a person leaving. The owner cannot leave. */
  async removeMember(ctx: DomainContext, caller: Caller, serverId: string, userId: string) {
    const { server } = await requireMember(ctx, caller, serverId);
    if (userId !== caller.id && server.ownerId !== caller.id) throw forbidden('owner_only', 'only the server owner can remove members');
    if (userId === server.ownerId) throw badRequest('the owner cannot leave their own server', 'owner_cannot_leave');
    const user = isId(userId) ? await ctx.store.users.byId(ctx.store.db, userId) : undefined;
    const removed = user && (await ctx.store.write((tx) => ctx.store.members.delete(tx, serverId, userId)));
    if (!user || !removed || Number(removed.numDeletedRows) === 0) throw notFound('member');
    await notify(ctx, { kind: 'event', serverId, event: { t: 'MEMBER_REMOVE', d: { serverId, user: publicUser(user) } } });
  },

  async addBot(ctx: DomainContext, caller: Caller, serverId: string, botId: string, permissions?: PermissionName[]) {
    await requireOwner(ctx, caller, serverId);
    const bot = isId(botId) ? await ctx.store.users.byId(ctx.store.db, botId) : undefined;
    if (!bot || bot.bot !== 1) throw notFound('bot');
    // A bot receives the events of every server it is in: only its owner decides where it
    // goes, unless they made it public. 403, not 404: bot ids are visible in member lists
    // and messages anyway, so hiding that the bot exists would protect nothing.
    if (bot.ownerId !== caller.id && bot.isPublic !== 1)
      throw forbidden('bot_owner_only', 'only its owner can add this bot (it is not public)');
    const bits = permissions ? permissionBits(permissions) : ALL_PERMISSIONS;
    const joinedAt = nowIso();
    const r = await ctx.store.write((tx) => ctx.store.members.insert(tx, { serverId, userId: botId, permissions: bits, joinedAt }));
    if (Number(r.numInsertedOrUpdatedRows ?? 0n) === 0) throw conflict('bot_already_member', 'the bot is already a member of this server');
    await notify(ctx, { kind: 'event', serverId, event: { t: 'MEMBER_ADD', d: { serverId, user: publicUser(bot) } }, permissions: bits });
    return { ...publicUser(bot), ownerId: bot.ownerId, permissions: permissionNames(bits), joinedAt };
  },

  async setBotPermissions(ctx: DomainContext, caller: Caller, serverId: string, botId: string, permissions: PermissionName[]) {
    await requireOwner(ctx, caller, serverId);
    const bot = isId(botId) ? await ctx.store.users.byId(ctx.store.db, botId) : undefined;
    if (!bot || bot.bot !== 1) throw notFound('bot');
    const bits = permissionBits(permissions);
    const r = await ctx.store.write((tx) => ctx.store.members.setPermissions(tx, serverId, botId, bits));
    if (Number(r.numUpdatedRows) === 0) throw notFound('member', 'bot membership not found');
    // Open gateway sessions of the bot take their new view from this entry, in log order.
    await notify(ctx, {
      kind: 'event',
      serverId,
      event: { t: 'MEMBER_UPDATE', d: { serverId, user: publicUser(bot), permissions: permissionNames(bits) } },
      permissions: bits,
    });
    return { ...publicUser(bot), ownerId: bot.ownerId, permissions: permissionNames(bits) };
  },

  async removeBot(ctx: DomainContext, caller: Caller, serverId: string, botId: string) {
    await requireOwner(ctx, caller, serverId);
    const bot = isId(botId) ? await ctx.store.users.byId(ctx.store.db, botId) : undefined;
    if (!bot || bot.bot !== 1) throw notFound('bot');
    const r = await ctx.store.write((tx) => ctx.store.members.delete(tx, serverId, botId));
    if (Number(r.numDeletedRows) === 0) throw notFound('member', 'bot membership not found');
    await notify(ctx, { kind: 'event', serverId, event: { t: 'MEMBER_REMOVE', d: { serverId, user: publicUser(bot) } } });
  },
};
