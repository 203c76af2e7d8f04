/** Invites: made, listed, previewed by anyone holding the code, deleted, and joining a server by one. */
import { randomBytes } from 'node:crypto';
import { P } from '@parley/protocol';
import { forbidden, notFound } from '../errors.js';
import type { InviteTable } from '../store/schema.js';
import { requireMember, requireServerPermission } from './access.js';
import { auditIn } from './audit.js';
import { type DomainContext, notify, nowIso } from './context.js';
import { postWelcomeLine } from './messages.js';
import { snapshotIn } from './roles.js';
import { SUPPRESS_JOIN_NOTIFICATIONS, serverView } from './servers.js';
import type { Caller } from './types.js';

/**
 * Random bytes per invite code: 12 bytes (96 bits, 16 characters) cannot be found by
 * guessing, even before the join rate limits. Codes made before were 6 bytes (8
 * characters); they keep working.
 */
export const INVITE_CODE_BYTES = 12;
/** An invite's default lifetime (Discord's): 7 days. */
export const INVITE_DEFAULT_MAX_AGE = 604_800;

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

/**
 * Someone joined by invite: a welcome line in the server's system channel, unless it has
 * none (the default) or its welcome lines are off. Bots, which join when added by someone
 * who may manage the server, get none (docs/api.md, "Servers").
 */
async function welcome(ctx: DomainContext, serverId: string, joiner: Caller): Promise<void> {
  // Read after the join: a change of the setting meanwhile is the one that counts.
  const server = await ctx.store.servers.byId(ctx.store.db, serverId);
  const channelId = server?.systemChannelId;
  if (!server || !channelId || ((server.systemChannelFlags ?? 0) & SUPPRESS_JOIN_NOTIFICATIONS) !== 0) return;
  const channel = await ctx.store.channels.byId(ctx.store.db, channelId);
  if (channel?.serverId !== serverId) return;
  // The join is committed whatever happens here: a channel deleted meanwhile only loses the line.
  await postWelcomeLine(ctx, serverId, channelId, { id: joiner.id, name: joiner.name, bot: false, avatar: joiner.avatar }).catch(
    () => undefined,
  );
}

export const invites = {
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
  async previewInvite(ctx: DomainContext, code: string, caller: Caller | null = null) {
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
      ...(caller ? { banned: !!(await ctx.store.bans.get(ctx.store.db, server.id, caller.id)) } : {}),
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
      await welcome(ctx, server.id, caller);
    }
    return serverView(server);
  },
};
