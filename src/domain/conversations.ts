/**
 * Read states, pins and bulk deletion (docs/api.md#messages). Read states cost one row per
 * person and channel, written when they acknowledge; mention counts are derived when read
 * (`readStates.mentionCount`), so posting a message never writes per recipient.
 */
import type { Message, ReadState, UpdateSettingsBody, UserSettings } from '@parley/protocol';
import { badRequest, forbidden, notFound } from '../errors.js';
import { snowflakeTime } from '@parley/protocol';
import { isId } from '../ids.js';
import { requireChannelPermission, requireIdShape } from './access.js';
import { audit } from './audit.js';
import { type DomainContext, notify, notifyChannel, nowIso } from './context.js';
import { authorMember, messageView, messageViews, removeMessages } from './messages.js';
import { P } from '@parley/protocol';
import { NEEDS, mayPin, mayReadHistory } from './permissions.js';
import type { Caller } from './types.js';

/** Discord's limit of pins per channel. */
export const MAX_PINS = 50;
/** Bulk delete takes 2 to 100 messages younger than this (Discord's 14 days). */
const BULK_MAX_AGE_MS = 14 * 24 * 60 * 60 * 1000;

/**
 * Mentions of `userId` in a channel after `afterId`. In a DM every message of the others
 * counts, as on Discord: a DM is addressed to its recipients.
 */
function mentionCountOf(
  ctx: DomainContext,
  userId: string,
  channelId: string,
  dm: boolean,
  roles: readonly string[] | null | undefined,
  afterId: string,
) {
  const db = ctx.store.db;
  if (dm) return ctx.store.readStates.othersAfter(db, userId, channelId, afterId);
  return ctx.store.readStates.mentionCount(db, userId, channelId, afterId, roles ?? []);
}

/**
 * The read states of `userId` in `channels` (those it may read, with its roles in each
 * channel's server): one per channel it has acknowledged, with how often it was mentioned
 * after that, and one (`lastReadId` "0") per channel never acknowledged where it was
 * mentioned, so a ping in a channel never opened survives a reload. `lastIds` are the
 * channels' newest messages: a channel read to its end, or empty, costs no count.
 */
export async function readStatesOf(
  ctx: DomainContext,
  userId: string,
  channels: ReadonlyArray<{ id: string; roles: readonly string[] | null; dm?: boolean }>,
  lastIds: ReadonlyMap<string, string>,
): Promise<ReadState[]> {
  const db = ctx.store.db;
  const rows = await ctx.store.readStates.ofUser(
    db,
    userId,
    channels.map((c) => c.id),
  );
  const roles = new Map(channels.map((c) => [c.id, c.roles]));
  const dms = new Set(channels.filter((c) => c.dm).map((c) => c.id));
  const read = rows.map((r) => ({ channelId: String(r.channelId), lastReadId: String(r.lastReadId) }));
  const acked = new Set(read.map((r) => r.channelId));
  // Never acknowledged, with messages: read from the start (mentions only are listed).
  const never = channels.filter((c) => !acked.has(c.id) && lastIds.has(c.id)).map((c) => ({ channelId: c.id, lastReadId: '0' }));
  const states = await Promise.all(
    [...read, ...never].map(async ({ channelId, lastReadId }) => {
      const last = lastIds.get(channelId);
      const behind = last !== undefined && BigInt(last) > BigInt(lastReadId);
      const mentionCount = behind ? await mentionCountOf(ctx, userId, channelId, dms.has(channelId), roles.get(channelId), lastReadId) : 0;
      return { channelId, lastReadId, mentionCount };
    }),
  );
  return states.filter((st) => st.lastReadId !== '0' || st.mentionCount > 0);
}

export const conversations = {
  /**
   * `POST /channels/{id}/messages/{messageId}/ack`: the caller has read the channel up to
   * `messageId`, a message of it (it may move back, to mark later messages unread). Their other sessions
   * hear of it (`READ_STATE_UPDATE`).
   */
  async ack(ctx: DomainContext, caller: Caller, channelId: string, messageId: string): Promise<ReadState> {
    requireIdShape(messageId, 'message');
    const channel = await requireChannelPermission(ctx, caller, channelId, NEEDS.read);
    // A message of the channel, as on Discord: an id from the future would hide messages not yet written.
    if (!(await ctx.store.messages.byId(ctx.store.db, channel.id, messageId))) throw notFound('message');
    await ctx.store.write((tx) => ctx.store.readStates.upsert(tx, caller.id, channel.id, messageId, nowIso(ctx)));
    const mentionCount = await mentionCountOf(ctx, caller.id, channel.id, channel.serverId === null, channel.roles, messageId);
    const state = { channelId: channel.id, lastReadId: messageId, mentionCount };
    await notify(ctx, { kind: 'user', userId: caller.id, serverIds: [], event: { t: 'READ_STATE_UPDATE', d: state } });
    return state;
  },

  /** `GET /channels/{id}/pins`: the pinned messages, most recently pinned first (50 at most). */
  async pins(ctx: DomainContext, caller: Caller, channelId: string): Promise<Message[]> {
    const channel = await requireChannelPermission(ctx, caller, channelId, NEEDS.read);
    const rows = await ctx.store.messages.pinned(ctx.store.db, channel.id, MAX_PINS);
    const viewer = { id: caller.id, reads: mayReadHistory(channel.permissions) };
    return messageViews(ctx, rows, viewer);
  },

  /** `PUT` (pin) or `DELETE` (unpin) `/channels/{id}/pins/{messageId}`, with MANAGE_MESSAGES. */
  async setPinned(ctx: DomainContext, caller: Caller, channelId: string, messageId: string, pinned: boolean): Promise<void> {
    const channel = await requireChannelPermission(ctx, caller, channelId, NEEDS.read);
    if (!mayPin(channel)) throw forbidden('missing_permission', 'missing permission MANAGE_MESSAGES');
    requireIdShape(messageId, 'message');
    const row = await ctx.store.messages.byId(ctx.store.db, channel.id, messageId);
    if (!row) throw notFound('message');
    const already = row.pinnedAt !== null && row.pinnedAt !== undefined;
    if (already === pinned) return;
    const at = nowIso(ctx);
    await ctx.store.write(async (tx) => {
      if (pinned && (await ctx.store.messages.pinCount(tx, channel.id)) >= MAX_PINS) {
        throw badRequest(`a channel holds at most ${MAX_PINS} pinned messages`, 'too_many_pins');
      }
      if (!(await ctx.store.messages.setPinned(tx, row.id, pinned ? at : null))) throw notFound('message');
    });
    const newest = (await ctx.store.messages.pinned(ctx.store.db, channel.id, 1))[0];
    if (channel.serverId !== null)
      await audit(ctx, channel.serverId, caller, pinned ? 'message_pin' : 'message_unpin', row.id, { channelId: channel.id });
    await notifyChannel(ctx, channel, {
      t: 'CHANNEL_PINS_UPDATE',
      d: { channelId: channel.id, serverId: channel.serverId, lastPinTimestamp: newest?.pinnedAt ?? null },
    });
    await notifyChannel(
      ctx,
      channel,
      {
        t: 'MESSAGE_UPDATE',
        // An event of the channel reaches only those who may read it (`visibilityOf`).
        d: await messageView(ctx, { ...row, pinnedAt: pinned ? at : null }, { id: caller.id, reads: true }),
      },
      await authorMember(ctx, row, row.authorId === caller.id ? channel : undefined),
    );
  },

  /**
   * `POST /channels/{id}/messages/bulk-delete`: 2 to 100 messages of the channel, each
   * younger than 14 days, with MANAGE_MESSAGES. Ids that name no message of the channel
   * are skipped; one `MESSAGE_DELETE_BULK` announces the rest.
   */
  async bulkDelete(ctx: DomainContext, caller: Caller, channelId: string, ids: string[], reason?: string): Promise<void> {
    const channel = await requireChannelPermission(ctx, caller, channelId, NEEDS.read | P.MANAGE_MESSAGES);
    const unique = [...new Set(ids)];
    if (unique.length < 2 || unique.length > 100) throw badRequest('messages must hold 2 to 100 distinct ids');
    const oldest = ctx.clock() - BULK_MAX_AGE_MS;
    for (const id of unique) {
      if (!isId(id)) throw badRequest(`${id} is not a message id`);
      if (snowflakeTime(id) < oldest) throw badRequest('bulk delete takes only messages younger than 14 days', 'message_too_old');
    }
    const rows = await ctx.store.messages.inChannel(ctx.store.db, channel.id, unique);
    if (rows.length === 0) return;
    const deleted = await removeMessages(ctx, rows);
    if (deleted.length === 0) return;
    // MANAGE_MESSAGES: a server's channel (a DM never grants it).
    const serverId = channel.serverId as string;
    await audit(ctx, serverId, caller, 'message_bulk_delete', channel.id, { count: deleted.length }, reason);
    // Through the channel's audience: a thread's reaches only those who may see the thread (docs/threads.md#events).
    await notifyChannel(ctx, channel, { t: 'MESSAGE_DELETE_BULK', d: { ids: deleted, channelId: channel.id, serverId } });
  },
};

const DEFAULT_SETTINGS: UserSettings = { allowDmsFromServerMembers: true, servers: {} };

async function loadSettings(ctx: DomainContext, userId: string): Promise<UserSettings> {
  const raw = await ctx.store.userSettings.get(ctx.store.db, userId);
  return raw ? (JSON.parse(raw) as UserSettings) : structuredClone(DEFAULT_SETTINGS);
}

/** Drops fields set to undefined, so stored documents stay small and stable. */
function defined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

export const settings = {
  /** `GET /users/@me/settings`: the defaults until the person changes something. */
  get(ctx: DomainContext, caller: Caller): Promise<UserSettings> {
    return loadSettings(ctx, caller.id);
  },

  /**
   * `PATCH /users/@me/settings`: merged into what is stored. Servers must be the
   * person's, and channels of that server (400 otherwise); `null` removes an entry.
   */
  async update(ctx: DomainContext, caller: Caller, body: UpdateSettingsBody): Promise<UserSettings> {
    const current = await loadSettings(ctx, caller.id);
    if (body.allowDmsFromServerMembers !== undefined) current.allowDmsFromServerMembers = body.allowDmsFromServerMembers;
    const mine = body.servers ? new Set(await ctx.store.members.serverIdsOf(ctx.store.db, caller.id)) : new Set<string>();
    for (const [serverId, patch] of Object.entries(body.servers ?? {})) {
      if (patch === null) {
        delete current.servers[serverId];
        continue;
      }
      if (!mine.has(serverId)) throw badRequest(`servers.${serverId}: you are not a member of that server`);
      const entry = { ...current.servers[serverId] };
      if (patch.level !== undefined) entry.level = patch.level;
      if (patch.muted !== undefined) entry.muted = patch.muted;
      if (patch.channels) {
        const channelIds = new Set((await ctx.store.channels.ofServer(ctx.store.db, serverId)).map((c) => c.id));
        const channels = { ...entry.channels };
        for (const [channelId, c] of Object.entries(patch.channels)) {
          if (c === null) {
            delete channels[channelId];
            continue;
          }
          if (!channelIds.has(channelId)) throw badRequest(`servers.${serverId}.channels.${channelId}: no such channel in that server`);
          channels[channelId] = defined({ ...channels[channelId], ...defined(c) });
        }
        entry.channels = Object.keys(channels).length > 0 ? channels : undefined;
      }
      current.servers[serverId] = defined(entry);
    }
    await ctx.store.write((tx) => ctx.store.userSettings.put(tx, caller.id, JSON.stringify(current), nowIso(ctx)));
    return current;
  },
};
