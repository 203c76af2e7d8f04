import { CONTACT_LIMITS, type Contact, type ContactsQuery, type DmChannel, OBJECT_LIMITS, type OpenDmBody } from '@parley/protocol';
import { AppError, badRequest, forbidden, notFound } from '../errors.js';
import { isId } from '../ids.js';
import type { DmRow, RecipientRow } from '../store/repos/dms.js';
import { publicUser } from './accounts.js';
import { dmReachability, requireChannelPermission } from './access.js';
import { type DomainContext, notify, nowIso } from './context.js';
import { NEEDS } from './permissions.js';
import type { Caller } from './types.js';

/** The wire form of a DM, with its recipients and newest message. */
function dmView(row: DmRow, recipients: RecipientRow[], lastMessageId: string | null): DmChannel {
  return {
    id: row.id,
    type: row.type,
    name: row.type === 'group_dm' && row.name !== '' ? row.name : null,
    ownerId: row.type === 'group_dm' ? (row.ownerId ?? null) : null,
    recipients: recipients.filter((r) => r.channelId === row.id).map(publicUser),
    createdAt: row.createdAt,
    lastMessageId,
  };
}

async function viewsOf(ctx: DomainContext, rows: DmRow[]): Promise<DmChannel[]> {
  const ids = rows.map((r) => r.id);
  const [recipients, lastIds] = await Promise.all([
    ctx.store.dms.recipients(ctx.store.db, ids),
    ctx.store.messages.lastIds(ctx.store.db, ids),
  ]);
  return rows.map((r) => dmView(r, recipients, lastIds.get(r.id) ?? null));
}

/** Publishes a DM's own event to `recipients` (who may include someone who just left). */
async function announce(ctx: DomainContext, t: 'DM_CREATE' | 'DM_UPDATE' | 'DM_DELETE', dm: DmChannel, recipients: string[]) {
  await notify(ctx, { kind: 'direct', channelId: dm.id, recipients, event: { t, d: dm } });
}

export const directMessages = {
  /** The caller's DMs and groups, the newest first (ready carries the same). */
  async list(ctx: DomainContext, userId: string): Promise<DmChannel[]> {
    return viewsOf(ctx, await ctx.store.dms.ofUser(ctx.store.db, userId));
  },

  /** One DM or group the caller is in; 404 for anyone else, as for a channel that does not exist. */
  async get(ctx: DomainContext, caller: Caller, channelId: string): Promise<DmChannel> {
    await requireChannelPermission(ctx, caller, channelId, NEEDS.view);
    const row = await ctx.store.dms.byId(ctx.store.db, channelId);
    if (!row) throw notFound('channel');
    return (await viewsOf(ctx, [row]))[0]!;
  },

  /**
   * `POST /users/@me/channels`: with one person, their DM (the existing one, `created`
   * false); with two to nine, a new group. Each must be reachable (`dmReachability`);
   * an existing DM is returned even when it is not, and sending there is then refused.
   */
  async open(ctx: DomainContext, caller: Caller, body: OpenDmBody): Promise<{ channel: DmChannel; created: boolean }> {
    const ids = body.recipientIds;
    if (ids.some((id) => !isId(id)) || new Set(ids).size !== ids.length || ids.includes(caller.id)) {
      throw badRequest('recipientIds must name other people, each once', 'invalid_recipients');
    }
    // The schema caps the list too; this is the rule both APIs share (docs/security.md).
    if (ids.length === 0 || ids.length > OBJECT_LIMITS.groupDmMembers - 1)
      throw badRequest(`a group DM holds at most ${OBJECT_LIMITS.groupDmMembers} people, you included`, 'invalid_recipients');
    const group = ids.length > 1;
    if (group && caller.bot) throw badRequest('a bot opens DMs with one person at a time', 'invalid_recipients');
    if (!group && body.name !== undefined) throw badRequest('only a group DM has a name', 'invalid_recipients');
    const dmKey = group ? null : [caller.id, ids[0]!].sort((a, b) => a.length - b.length || (a < b ? -1 : 1)).join(':');
    if (dmKey) {
      const existing = await ctx.store.dms.byKey(ctx.store.db, dmKey);
      if (existing) return { channel: (await viewsOf(ctx, [existing]))[0]!, created: false };
    }
    const users = await Promise.all(ids.map((id) => ctx.store.users.byId(ctx.store.db, id)));
    if (users.some((u) => !u || u.deletedAt)) throw notFound('user');
    // A recipient deleted meanwhile fails the recipients' foreign key: 404 as above.
    const reach = await dmReachability(ctx, caller, ids);
    if (!reach.ok)
      throw forbidden('cannot_dm', group ? 'you cannot add some of these people to a group' : 'you cannot message this person');
    const row: DmRow = {
      id: ctx.store.ids.next(),
      type: group ? 'group_dm' : 'dm',
      name: body.name?.trim() ?? '',
      createdAt: nowIso(ctx),
      ownerId: group ? caller.id : null,
      dmKey,
    };
    const recipients = [caller.id, ...ids];
    try {
      await ctx.store.write((tx) => ctx.store.dms.insert(tx, row, recipients, row.createdAt));
    } catch (err) {
      // Opened at the same moment by the other person (or another instance): theirs stands.
      if (dmKey && err instanceof AppError && err.code === 'already_exists') {
        const existing = await ctx.store.dms.byKey(ctx.store.db, dmKey);
        if (existing) return { channel: (await viewsOf(ctx, [existing]))[0]!, created: false };
      }
      throw err;
    }
    const channel = (await viewsOf(ctx, [row]))[0]!;
    await announce(ctx, 'DM_CREATE', channel, recipients);
    return { channel, created: true };
  },

  /**
   * `DELETE /channels/{id}` of a group: the caller leaves it. They hear DM_DELETE, the
   * others DM_UPDATE; the creator's leaving hands the group to the longest-standing member;
   * the last one out deletes it. A DM between two cannot be left (block the person instead).
   */
  async leave(ctx: DomainContext, caller: Caller, channelId: string): Promise<void> {
    const grant = await requireChannelPermission(ctx, caller, channelId, NEEDS.view);
    const dm = await ctx.store.dms.byId(ctx.store.db, grant.id);
    if (!dm) throw notFound('channel');
    if (dm.type !== 'group_dm') throw badRequest('a DM between two people cannot be left', 'invalid_recipients');
    const remaining = (grant.recipients ?? []).filter((id) => id !== caller.id);
    const before = (await viewsOf(ctx, [dm]))[0]!;
    const owner = dm.ownerId === caller.id ? (remaining[0] ?? null) : (dm.ownerId ?? null);
    await ctx.store.write(async (tx) => {
      await ctx.store.dms.removeRecipient(tx, dm.id, caller.id);
      if (remaining.length === 0) await ctx.store.dms.delete(tx, dm.id);
      else if (owner !== dm.ownerId && owner) await ctx.store.dms.setOwner(tx, dm.id, owner);
    });
    await announce(ctx, 'DM_DELETE', before, [caller.id]);
    if (remaining.length > 0) {
      const after = (await viewsOf(ctx, [{ ...dm, ownerId: owner }]))[0]!;
      await announce(ctx, 'DM_UPDATE', after, remaining);
    }
  },

  /**
   * `GET /users/@me/contacts`: the people the caller shares a server with, whom a DM or
   * group could name, by id and paged (`after`, `limit`), with their presence. It says nothing
   * of blocks or DM settings (`open` decides, with one answer for every refusal), and a
   * stranger appears only once they share a server. Bounded: at most 100 a page, `q` at most
   * 100 characters.
   */
  async contacts(ctx: DomainContext, caller: Caller, query: ContactsQuery): Promise<Contact[]> {
    const limit = query.limit === undefined ? CONTACT_LIMITS.limitDefault : Number(query.limit);
    if (!(limit >= 1 && limit <= CONTACT_LIMITS.limitMax))
      throw badRequest(`limit must be from 1 to ${CONTACT_LIMITS.limitMax}`, 'invalid_query');
    const rows = await ctx.store.dms.contacts(ctx.store.db, caller.id, {
      q: query.q?.trim().toLowerCase() || undefined,
      ids: query.ids ? [...new Set(query.ids.split(','))] : undefined,
      after: query.after,
      limit,
    });
    const presence = await ctx.presence?.statuses(rows.map((r) => r.id));
    return rows.map((r) => ({ user: publicUser(r), presence: presence?.get(r.id) ?? 'offline' }));
  },

  /** `PUT /users/@me/blocks/{userId}`: from now on neither can open or write to a DM with the other. */
  async block(ctx: DomainContext, caller: Caller, userId: string): Promise<void> {
    if (!isId(userId)) throw notFound('user');
    if (userId === caller.id) throw badRequest('you cannot block yourself', 'cannot_block_self');
    const user = await ctx.store.users.byId(ctx.store.db, userId);
    if (!user || user.deletedAt) throw notFound('user');
    await ctx.store.write((tx) => ctx.store.blocks.add(tx, caller.id, userId, nowIso(ctx)));
  },

  /** `DELETE /users/@me/blocks/{userId}`: 404 when the person was not blocked. */
  async unblock(ctx: DomainContext, caller: Caller, userId: string): Promise<void> {
    if (!isId(userId)) throw notFound('user');
    const r = await ctx.store.write((tx) => ctx.store.blocks.remove(tx, caller.id, userId));
    if (Number(r.numDeletedRows) === 0) throw notFound('user');
  },

  /** `GET /users/@me/blocks`: the people the caller blocked. */
  async blocked(ctx: DomainContext, caller: Caller) {
    const rows = await ctx.store.blocks.of(ctx.store.db, caller.id);
    const users = await Promise.all(rows.map((r) => ctx.store.users.byId(ctx.store.db, String(r.blockedId))));
    return users.flatMap((u) => (u ? [publicUser(u)] : []));
  },
};
