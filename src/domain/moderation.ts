/** Members removed: kicked, or leaving; banned (with their recent messages), the bans listed and lifted. */
import { P } from '@parley/protocol';
import { badRequest, forbidden, notFound } from '../errors.js';
import { isId } from '../ids.js';
import { publicUser } from './accounts.js';
import { requireMember, requireServerPermission } from './access.js';
import { auditIn } from './audit.js';
import { type DomainContext, notify, notifyChannel, nowIso } from './context.js';
import { rejectNul, stripUnsafeCharacters } from './names.js';
import { announceDeparture, removeMembership, requireMemberBelow } from './roles.js';
import type { Caller } from './types.js';
import { releaseUploads } from './uploads.js';

/** Messages a ban may delete: up to 7 days back. */
const BAN_DELETE_MAX_SECONDS = 604_800;

export const moderation = {
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
        // Threads count their messages (docs/threads.md#activity); for another channel this changes no row.
        const perChannel = new Map<string, number>();
        for (const d of deletedMessages) perChannel.set(d.channelId, (perChannel.get(d.channelId) ?? 0) + 1);
        for (const [channelId, n] of perChannel) await ctx.store.threads.uncountMessages(tx, channelId, n);
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
    // Each through its channel's audience: a thread's reaches only those who may see the thread (docs/threads.md#events).
    for (const d of deletedMessages)
      await notifyChannel(ctx, { id: d.channelId, serverId }, { t: 'MESSAGE_DELETE', d: { id: d.id, channelId: d.channelId, serverId } });
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

  /** One ban, as `bans` lists them (BAN_MEMBERS); 404 `unknown_ban` for someone not banned. */
  async banOf(ctx: DomainContext, caller: Caller, serverId: string, userId: string) {
    await requireServerPermission(ctx, caller, serverId, 'BAN_MEMBERS');
    const b = isId(userId) ? await ctx.store.bans.withUser(ctx.store.db, serverId, userId) : undefined;
    if (!b) throw notFound('ban');
    return {
      user: { id: b.userId, name: b.name ?? 'Deleted user', bot: b.bot === 1, avatar: b.avatar ?? null },
      reason: b.reason,
      createdAt: b.createdAt,
    };
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
};

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
  requireMemberBelow(caller, m, userId, target.roles);
}

function cleanReason(text: string): string | null {
  rejectNul(text, 'reason');
  const t = stripUnsafeCharacters(text).trim();
  if ([...t].length > 512) throw badRequest('reason must be at most 512 characters');
  return t === '' ? null : t;
}
