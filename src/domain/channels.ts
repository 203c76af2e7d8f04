import { P, type DmChannel } from '@parley/protocol';
import { badRequest, notFound } from '../errors.js';
import { isId } from '../ids.js';
import type { ServerChannel } from '../store/repos/servers.js';
import type { ChannelTable, ServerTable } from '../store/schema.js';
import { requireChannelPermission, requireMember, requireServerChannelPermission, requireServerPermission } from './access.js';
import { auditIn, diff } from './audit.js';
import { type DomainContext, notify, nowIso } from './context.js';
import { directMessages } from './direct-messages.js';
import { cleanName, rejectNul, stripUnsafeCharacters } from './names.js';
import { mayReadHistory } from './permissions.js';
import { type ForumSettingsBody, checkForumTags, forumColumns } from './forums.js';
import {
  type OverwriteInput,
  type ServerChannelType,
  bumpVersion,
  channelView,
  checkOverwriteList,
  forumTagsOf,
  serverChannelType,
  writeOverwriteList,
} from './roles.js';
import { serverView } from './servers.js';
import type { Caller, Channel } from './types.js';
import type { ChannelOverwriteTable } from '../store/schema.js';
import type { ModelDelta, ServerModel } from './permissions.js';
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
    const tags = await forumTagsOf(ctx, ctx.store.db, visible);
    // Where a channel's history ends is part of the history: only for those who may read it.
    const lastIds = await ctx.store.messages.lastIds(
      ctx.store.db,
      visible.filter((c) => mayReadHistory(m.model.permissions(caller.id, caller.bot, m.roles, c.id))).map((c) => c.id),
    );
    return visible.map((c) => ({ ...channelView(c, overwrites, tags), lastMessageId: lastIds.get(c.id) ?? null }));
  },

  /** One channel the caller can see: a server's (with its overwrites and newest message) or a DM they are in. */
  async get(ctx: DomainContext, caller: Caller, channelId: string): Promise<Channel | DmChannel> {
    const grant = await requireChannelPermission(ctx, caller, channelId, P.VIEW_CHANNEL);
    if (grant.serverId === null) return directMessages.get(ctx, caller, channelId);
    const [overwrites, lastIds, stored] = await Promise.all([
      ctx.store.overwrites.ofChannel(ctx.store.db, channelId),
      // Where its history ends, only for those who may read it.
      mayReadHistory(grant.permissions) ? ctx.store.messages.lastIds(ctx.store.db, [channelId]) : new Map<string, string>(),
      // The parent is not in the grant (it is cached, and a move changes it).
      ctx.store.channels.byId(ctx.store.db, channelId),
    ]);
    const row: ServerChannel = {
      ...stored,
      id: grant.id,
      serverId: grant.serverId,
      name: grant.name,
      createdAt: grant.createdAt,
      topic: grant.topic,
      position: grant.position,
      type: serverChannelType(grant.type),
      parentId: stored?.parentId ?? null,
    };
    const tags = await forumTagsOf(ctx, ctx.store.db, [row]);
    return { ...channelView(row, overwrites, tags), lastMessageId: lastIds.get(channelId) ?? null };
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
    body: {
      name: string;
      topic?: string | null;
      position?: number;
      type?: ServerChannelType;
      parentId?: string | null;
      overwrites?: readonly OverwriteInput[];
    } & ForumSettingsBody,
  ) {
    const m = await requireServerPermission(ctx, caller, serverId, 'MANAGE_CHANNELS');
    const type = body.type ?? 'text';
    const parent = await checkParent(ctx, caller, m, serverId, type, body.parentId);
    const channel: ServerChannel = {
      id: ctx.store.ids.next(),
      serverId,
      name: cleanName(body.name, 'name'),
      createdAt: nowIso(ctx),
      topic: type === 'category' ? null : cleanTopic(body.topic),
      position: 0,
      type,
      parentId: parent?.id ?? null,
      ...forumColumns(body, type === 'forum'),
    };
    const tags = body.availableTags ? checkForumTags(ctx, channel.id, body.availableTags, []) : [];
    const rows = body.overwrites ? await checkOverwriteList(ctx, caller, serverId, channel.id, undefined, body.overwrites, []) : [];
    const delta = await ctx.store.write(async (tx) => {
      channel.position = body.position ?? (await ctx.store.channels.nextPosition(tx, serverId));
      await ctx.store.channels.insert(tx, channel);
      if (tags.length > 0) await ctx.store.forumTags.replace(tx, channel.id, tags);
      await auditIn(ctx, tx, serverId, caller, 'channel_create', channel.id, {
        name: channel.name,
        topic: channel.topic,
        ...(type !== 'text' ? { type } : {}),
        ...(channel.parentId ? { parentId: channel.parentId } : {}),
      });
      return rows.length === 0 ? null : writeOverwriteList(ctx, tx, caller, channel.id, serverId, rows);
    });
    const view = channelView(channel, rows, tags);
    await notify(ctx, { kind: 'event', serverId, event: { t: 'CHANNEL_CREATE', d: view }, ...(delta ? { delta } : {}) });
    return view;
  },

  /** `overwrites`, when given, replace the channel's, as on `createChannel`. */
  async updateChannel(
    ctx: DomainContext,
    caller: Caller,
    channelId: string,
    body: {
      name?: string;
      topic?: string | null;
      position?: number;
      parentId?: string | null;
      syncPermissions?: boolean;
      overwrites?: readonly OverwriteInput[];
    } & ForumSettingsBody,
  ) {
    const channel = await requireServerChannelPermission(ctx, caller, channelId, P.VIEW_CHANNEL | P.MANAGE_CHANNELS);
    // A thread changes by its own rules (docs/threads.md), and has no overwrites of its own.
    if (channel.thread) throw badRequest('a thread is changed through the thread routes (docs/threads.md)');
    const isForum = channel.type === 'forum';
    const patch: Partial<
      Pick<
        ChannelTable,
        | 'name'
        | 'topic'
        | 'position'
        | 'parentId'
        | 'defaultAutoArchiveDuration'
        | 'defaultSortOrder'
        | 'defaultForumLayout'
        | 'defaultReactionEmoji'
      >
    > = { ...forumColumns(body, isForum) };
    const tags =
      body.availableTags === undefined
        ? undefined
        : checkForumTags(ctx, channelId, body.availableTags, await ctx.store.forumTags.ofChannels(ctx.store.db, [channelId]));
    if (body.name !== undefined) patch.name = cleanName(body.name, 'name');
    if (body.topic !== undefined) patch.topic = channel.type === 'category' ? null : cleanTopic(body.topic);
    if (body.position !== undefined) patch.position = body.position;
    let parentId: string | null | undefined;
    if (body.parentId !== undefined || body.syncPermissions) {
      const m = { roles: channel.roles, model: channel.model };
      if (body.parentId !== undefined) {
        parentId = (await checkParent(ctx, caller, m, channel.serverId, serverChannelType(channel.type), body.parentId))?.id ?? null;
        patch.parentId = parentId;
      } else parentId = (await ctx.store.channels.byId(ctx.store.db, channelId))?.parentId ?? null;
    }
    if (body.syncPermissions && body.overwrites) throw badRequest('give overwrites or syncPermissions, not both');
    const existing = () => ctx.store.overwrites.ofChannel(ctx.store.db, channelId);
    const wanted = body.syncPermissions ? await categoryOverwrites(ctx, parentId ?? null) : body.overwrites;
    const rows = wanted
      ? await checkOverwriteList(ctx, caller, channel.serverId, channelId, channel.permissions, wanted, await existing())
      : undefined;
    const { updated, overwrites, delta, forumTags } = await ctx.store.write(async (tx) => {
      if (Object.keys(patch).length > 0) await ctx.store.channels.update(tx, channelId, patch);
      if (tags) await ctx.store.forumTags.replace(tx, channelId, tags);
      await auditIn(ctx, tx, channel.serverId, caller, 'channel_update', channelId, {
        ...diff(channel, patch),
        ...(tags ? { availableTags: tags.map((t) => t.name) } : {}),
      });
      const delta = rows === undefined ? null : await writeOverwriteList(ctx, tx, caller, channelId, channel.serverId, rows);
      const updated = await ctx.store.channels.byId(tx, channelId);
      if (!updated) throw notFound('channel');
      return {
        updated,
        overwrites: await ctx.store.overwrites.ofChannel(tx, channelId),
        delta,
        forumTags: isForum ? await ctx.store.forumTags.ofChannels(tx, [channelId]) : [],
      };
    });
    const view = channelView(updated, overwrites, forumTags);
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
    const { deleted, uploadIds, row, version, orphans, server, tags } = await ctx.store.write(async (tx) => {
      const row = await ctx.store.channels.byId(tx, channelId);
      // A forum's tags go with it: the event shows it as it was.
      const tags = row ? await forumTagsOf(ctx, tx, [row]) : [];
      // Its threads go with it (docs/threads.md): a thread without its parent would have no permissions to inherit.
      const threadIds = await ctx.store.threads.idsOfParent(tx, channelId);
      // A category's channels stay, uncategorised (as on Discord).
      const orphans = row?.type === 'category' ? await ctx.store.channels.children(tx, channelId) : [];
      if (orphans.length > 0) await ctx.store.channels.unparent(tx, channelId);
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
      // The server's system channel gone, it has none (as on Discord): no welcome lines until another is chosen.
      let server: ServerTable | undefined;
      if (deleted && (await ctx.store.servers.byId(tx, channel.serverId))?.systemChannelId === channelId) {
        await ctx.store.servers.update(tx, channel.serverId, { systemChannelId: null });
        server = await ctx.store.servers.byId(tx, channel.serverId);
      }
      const overwrites = orphans.length > 0 ? await ctx.store.overwrites.ofServer(tx, channel.serverId) : [];
      const orphanTags = await forumTagsOf(ctx, tx, orphans);
      return {
        deleted,
        uploadIds,
        row,
        version,
        orphans: orphans.map((o) => channelView({ ...o, parentId: null }, overwrites, orphanTags)),
        server,
        tags,
      };
    });
    // A concurrent delete won and announces it.
    if (!deleted || !row) throw notFound('channel');
    // The files go too, unless a message elsewhere references the same upload.
    await releaseUploads(ctx, uploadIds);
    // The overwrites went with the channel (the event says so); the delta says which version that made.
    await notify(ctx, {
      kind: 'event',
      serverId: channel.serverId,
      event: { t: 'CHANNEL_DELETE', d: channelView(row, [], tags) },
      ...(version === null ? {} : { delta: { version } }),
    });
    if (server) await notify(ctx, { kind: 'event', serverId: channel.serverId, event: { t: 'SERVER_UPDATE', d: serverView(server) } });
    for (const view of orphans) await notify(ctx, { kind: 'event', serverId: channel.serverId, event: { t: 'CHANNEL_UPDATE', d: view } });
  },

  /**
   * Moves channels and categories at once (docs/api.md#categories): each item's `position`
   * (among the channels of the same parent), `parentId` (a category, or null) and
   * `syncPermissions` (copy the category's overwrites). Checked as a whole, written in one
   * transaction; a CHANNEL_UPDATE follows for each channel that changed, seen only by those
   * who may see that channel. Answers the changed channels.
   */
  async reorder(
    ctx: DomainContext,
    caller: Caller,
    serverId: string,
    moves: ReadonlyArray<{ id: string; position?: number; parentId?: string | null; syncPermissions?: boolean }>,
  ) {
    const m = await requireServerPermission(ctx, caller, serverId, 'MANAGE_CHANNELS');
    if (new Set(moves.map((x) => x.id)).size !== moves.length) throw badRequest('a channel is named twice');
    const all = new Map((await ctx.store.channels.ofServer(ctx.store.db, serverId)).map((c) => [c.id, c]));
    const plans: Array<{ id: string; patch: Partial<Pick<ChannelTable, 'position' | 'parentId'>>; rows?: ChannelOverwriteTable[] }> = [];
    for (const move of moves) {
      const c = all.get(move.id);
      const bits = c ? m.model.permissions(caller.id, caller.bot, m.roles, c.id) : 0n;
      if (!c || (bits & P.VIEW_CHANNEL) === 0n) throw notFound('channel');
      const patch: Partial<Pick<ChannelTable, 'position' | 'parentId'>> = {};
      if (move.position !== undefined && move.position !== c.position) patch.position = move.position;
      let parentId = c.parentId ?? null;
      if (move.parentId !== undefined) {
        parentId = (await checkParent(ctx, caller, m, serverId, serverChannelType(c.type), move.parentId))?.id ?? null;
        if (parentId !== (c.parentId ?? null)) patch.parentId = parentId;
      }
      const rows = move.syncPermissions
        ? await checkOverwriteList(
            ctx,
            caller,
            serverId,
            c.id,
            bits,
            await categoryOverwrites(ctx, parentId),
            await ctx.store.overwrites.ofChannel(ctx.store.db, c.id),
          )
        : undefined;
      if (Object.keys(patch).length > 0 || rows) plans.push({ id: c.id, patch, ...(rows ? { rows } : {}) });
    }
    const changed = await ctx.store.write(async (tx) => {
      const out: Array<{ view: Channel; delta: ModelDelta | null }> = [];
      for (const plan of plans) {
        if (Object.keys(plan.patch).length > 0) await ctx.store.channels.update(tx, plan.id, plan.patch);
        const delta = plan.rows ? await writeOverwriteList(ctx, tx, caller, plan.id, serverId, plan.rows) : null;
        const row = await ctx.store.channels.byId(tx, plan.id);
        if (!row) throw notFound('channel');
        const before = all.get(plan.id);
        // Nothing moved and the overwrites already matched: no event.
        if (!delta && row.position === before?.position && (row.parentId ?? null) === (before?.parentId ?? null)) continue;
        await auditIn(ctx, tx, serverId, caller, 'channel_update', plan.id, diff(before ?? row, plan.patch));
        out.push({
          view: channelView(row, await ctx.store.overwrites.ofChannel(tx, plan.id), await forumTagsOf(ctx, tx, [row])),
          delta,
        });
      }
      return out;
    });
    for (const { view, delta } of changed)
      await notify(ctx, { kind: 'event', serverId, event: { t: 'CHANNEL_UPDATE', d: view }, ...(delta ? { delta } : {}) });
    return changed.map((c) => c.view);
  },
};

/**
 * The category a channel may be put in: a category of the same server the caller can see.
 * Categories do not nest, so a category has none (400 `invalid_parent` otherwise).
 */
async function checkParent(
  ctx: DomainContext,
  caller: Caller,
  m: { roles: readonly string[]; model: ServerModel },
  serverId: string,
  type: ServerChannelType,
  parentId: string | null | undefined,
): Promise<ServerChannel | null> {
  if (parentId === undefined || parentId === null) return null;
  if (type === 'category') throw badRequest('a category cannot sit in another category', 'invalid_parent');
  const parent = isId(parentId) ? await ctx.store.channels.byId(ctx.store.db, parentId) : undefined;
  if (
    !parent ||
    parent.serverId !== serverId ||
    parent.type !== 'category' ||
    (m.model.permissions(caller.id, caller.bot, m.roles, parent.id) & P.VIEW_CHANNEL) === 0n
  )
    throw badRequest('parentId must name a category of this server', 'invalid_parent');
  return parent;
}

/** A category's overwrites as a list to give a channel (syncing it); a channel with no category cannot sync. */
async function categoryOverwrites(ctx: DomainContext, parentId: string | null): Promise<OverwriteInput[]> {
  if (parentId === null) throw badRequest('syncPermissions needs the channel to be in a category', 'invalid_parent');
  return (await ctx.store.overwrites.ofChannel(ctx.store.db, parentId)).map((o) => ({
    id: o.targetId,
    type: o.type,
    allow: o.allow,
    deny: o.deny,
  }));
}

function cleanTopic(text: string | null | undefined): string | null {
  if (text === undefined || text === null) return null;
  rejectNul(text, 'topic');
  const t = stripUnsafeCharacters(text).trim();
  if ([...t].length > 1024) throw badRequest('topic must be at most 1024 characters');
  return t === '' ? null : t;
}
