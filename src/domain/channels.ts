import { P, type DmChannel } from '@parley/protocol';
import { badRequest, notFound } from '../errors.js';
import { isId } from '../ids.js';
import type { ServerChannel } from '../store/repos/servers.js';
import type { ChannelTable } from '../store/schema.js';
import { requireChannelPermission, requireMember, requireServerChannelPermission, requireServerPermission } from './access.js';
import { auditIn, diff } from './audit.js';
import { type DomainContext, notify, nowIso } from './context.js';
import { directMessages } from './direct-messages.js';
import { cleanName, rejectNul, stripUnsafeCharacters } from './names.js';
import { mayReadHistory } from './permissions.js';
import { type OverwriteInput, bumpVersion, channelView, checkOverwriteList, writeOverwriteList } from './roles.js';
import type { Caller, Channel } from './types.js';
import { threads } from './threads.js';
import { releaseUploads } from './uploads.js';

/** A server's channels: listed as the caller may see them, made, changed (with their overwrites), deleted. */
export const channels = {
  /** The channels the caller may see. */
  async list(ctx: DomainContext, caller: Caller, serverId: string) {
    const m = await requireMember(ctx, caller, serverId);
    const [list, overwrites] = await Promise.all([
      ctx.store.channels.ofServer(ctx.store.db, serverId),
      ctx.store.overwrites.ofServer(ctx.store.db, serverId),
    ]);
    const visible = list.filter((c) => (m.model.permissions(caller.id, caller.bot, m.roles, c.id) & P.VIEW_CHANNEL) !== 0n);
    // Where a channel's history ends is part of the history: only for those who may read it.
    const lastIds = await ctx.store.messages.lastIds(
      ctx.store.db,
      visible.filter((c) => mayReadHistory(m.model.permissions(caller.id, caller.bot, m.roles, c.id))).map((c) => c.id),
    );
    return visible.map((c) => ({ ...channelView(c, overwrites), lastMessageId: lastIds.get(c.id) ?? null }));
  },

  /** One channel the caller can see: a server's (with its overwrites and newest message) or a DM they are in. */
  async get(ctx: DomainContext, caller: Caller, channelId: string): Promise<Channel | DmChannel> {
    const grant = await requireChannelPermission(ctx, caller, channelId, P.VIEW_CHANNEL);
    if (grant.serverId === null) return directMessages.get(ctx, caller, channelId);
    const [overwrites, lastIds] = await Promise.all([
      ctx.store.overwrites.ofChannel(ctx.store.db, channelId),
      // Where its history ends, only for those who may read it.
      mayReadHistory(grant.permissions) ? ctx.store.messages.lastIds(ctx.store.db, [channelId]) : new Map<string, string>(),
    ]);
    const row: ServerChannel = {
      id: grant.id,
      serverId: grant.serverId,
      name: grant.name,
      createdAt: grant.createdAt,
      topic: grant.topic,
      position: grant.position,
    };
    return { ...channelView(row, overwrites), lastMessageId: lastIds.get(channelId) ?? null };
  },

  /**
   * `overwrites` (the Discord layer's `permission_overwrites`) are checked and written by
   * the rules of the overwrite route (`checkOverwriteList`), in the channel's transaction:
   * refused as a whole, never dropped. The event then carries the model with them, so
   * nobody they hide the channel from hears of it.
   */
  async createChannel(
    ctx: DomainContext,
    caller: Caller,
    serverId: string,
    body: { name: string; topic?: string | null; position?: number; overwrites?: readonly OverwriteInput[] },
  ) {
    await requireServerPermission(ctx, caller, serverId, 'MANAGE_CHANNELS');
    const channel: ServerChannel = {
      id: ctx.store.ids.next(),
      serverId,
      name: cleanName(body.name, 'name'),
      createdAt: nowIso(ctx),
      topic: cleanTopic(body.topic),
      position: 0,
    };
    const rows = body.overwrites ? await checkOverwriteList(ctx, caller, serverId, channel.id, undefined, body.overwrites, []) : [];
    const delta = await ctx.store.write(async (tx) => {
      channel.position = body.position ?? (await ctx.store.channels.nextPosition(tx, serverId));
      await ctx.store.channels.insert(tx, channel);
      await auditIn(ctx, tx, serverId, caller, 'channel_create', channel.id, { name: channel.name, topic: channel.topic });
      return rows.length === 0 ? null : writeOverwriteList(ctx, tx, caller, channel.id, serverId, rows);
    });
    const view = channelView(channel, rows);
    await notify(ctx, { kind: 'event', serverId, event: { t: 'CHANNEL_CREATE', d: view }, ...(delta ? { delta } : {}) });
    return view;
  },

  /** `overwrites`, when given, replace the channel's, as on `createChannel`. */
  async updateChannel(
    ctx: DomainContext,
    caller: Caller,
    channelId: string,
    body: { name?: string; topic?: string | null; position?: number; overwrites?: readonly OverwriteInput[] },
  ) {
    const channel = await requireServerChannelPermission(ctx, caller, channelId, P.VIEW_CHANNEL | P.MANAGE_CHANNELS);
    // A thread changes by its own rules (docs/threads.md), and has no overwrites of its own.
    if (channel.thread) throw badRequest('a thread is changed through the thread routes (docs/threads.md)');
    const patch: Partial<Pick<ChannelTable, 'name' | 'topic' | 'position'>> = {};
    if (body.name !== undefined) patch.name = cleanName(body.name, 'name');
    if (body.topic !== undefined) patch.topic = cleanTopic(body.topic);
    if (body.position !== undefined) patch.position = body.position;
    const rows = body.overwrites
      ? await checkOverwriteList(
          ctx,
          caller,
          channel.serverId,
          channelId,
          channel.permissions,
          body.overwrites,
          await ctx.store.overwrites.ofChannel(ctx.store.db, channelId),
        )
      : undefined;
    const { updated, overwrites, delta } = await ctx.store.write(async (tx) => {
      if (Object.keys(patch).length > 0) await ctx.store.channels.update(tx, channelId, patch);
      await auditIn(ctx, tx, channel.serverId, caller, 'channel_update', channelId, diff(channel, patch));
      const delta = rows === undefined ? null : await writeOverwriteList(ctx, tx, caller, channelId, channel.serverId, rows);
      const updated = await ctx.store.channels.byId(tx, channelId);
      if (!updated) throw notFound('channel');
      return { updated, overwrites: await ctx.store.overwrites.ofChannel(tx, channelId), delta };
    });
    const view = channelView(updated, overwrites);
    await notify(ctx, { kind: 'event', serverId: channel.serverId, event: { t: 'CHANNEL_UPDATE', d: view }, ...(delta ? { delta } : {}) });
    return view;
  },

  async deleteChannel(ctx: DomainContext, caller: Caller, channelId: string) {
    // A group DM is not deleted but left (only its last member's leaving deletes it).
    if (isId(channelId) && (await ctx.store.dms.byId(ctx.store.db, channelId))) return directMessages.leave(ctx, caller, channelId);
    // A thread is deleted by its own rule (MANAGE_THREADS, docs/threads.md).
    if (isId(channelId) && (await threads.isThread(ctx, channelId))) {
      await threads.remove(ctx, caller, channelId);
      return;
    }
    const channel = await requireServerChannelPermission(ctx, caller, channelId, P.VIEW_CHANNEL | P.MANAGE_CHANNELS);
    // Messages, reactions and the channel's webhooks go with it (foreign keys cascade);
    // the uploads its messages referenced are collected in the same transaction.
    const { deleted, uploadIds, row, version } = await ctx.store.write(async (tx) => {
      const row = await ctx.store.channels.byId(tx, channelId);
      // Its threads go with it (docs/threads.md): a thread without its parent would have no permissions to inherit.
      const threadIds = await ctx.store.threads.idsOfParent(tx, channelId);
      const uploadIds = await ctx.store.uploads.ofChannel(tx, channelId);
      for (const id of threadIds) {
        uploadIds.push(...(await ctx.store.uploads.ofChannel(tx, id)));
        await ctx.store.channels.delete(tx, id);
      }
      const hadOverwrites = (await ctx.store.overwrites.ofChannel(tx, channelId)).length > 0;
      const r = await ctx.store.channels.delete(tx, channelId);
      const deleted = Number(r.numDeletedRows) > 0;
      const version = deleted && hadOverwrites ? await bumpVersion(ctx, tx, channel.serverId) : null;
      if (deleted) await auditIn(ctx, tx, channel.serverId, caller, 'channel_delete', channelId, { name: channel.name });
      return { deleted, uploadIds, row, version };
    });
    // A concurrent delete won and announces it.
    if (!deleted || !row) throw notFound('channel');
    // The files go too, unless a message elsewhere references the same upload.
    await releaseUploads(ctx, uploadIds);
    // The overwrites went with the channel (the event says so); the delta says which version that made.
    await notify(ctx, {
      kind: 'event',
      serverId: channel.serverId,
      event: { t: 'CHANNEL_DELETE', d: channelView(row) },
      ...(version === null ? {} : { delta: { version } }),
    });
  },
};

function cleanTopic(text: string | null | undefined): string | null {
  if (text === undefined || text === null) return null;
  rejectNul(text, 'topic');
  const t = stripUnsafeCharacters(text).trim();
  if ([...t].length > 1024) throw badRequest('topic must be at most 1024 characters');
  return t === '' ? null : t;
}
