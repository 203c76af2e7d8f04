import { P } from '@parley/protocol';
import { AppError, badRequest, forbidden, notFound } from '../errors.js';
import type { Tx } from '../store/index.js';
import type { ThreadKind, ThreadPatch, ThreadRow } from '../store/repos/threads.js';
import type { ThreadMemberTable } from '../store/schema.js';
import {
  type ChannelGrant,
  type Membership,
  requireChannelPermission,
  requireIdShape,
  requireMember,
  requireServerChannelPermission,
} from './access.js';
import { type DomainContext, nowIso } from './context.js';
import { cleanName } from './names.js';
import { announceMembers, announceThread, announceThreadDeleted } from './thread-events.js';
import type { Caller } from './types.js';
import { releaseUploads } from './uploads.js';
import { checkAppliedTags } from './forums.js';
import { type NewMessageBody, createMessage, prepareSend } from './messages.js';
import type { ServerChannel } from '../store/repos/servers.js';
import type { Message } from './types.js';

/** When a thread last active at `from` (ms) archives itself after `minutes` without activity. */
export const archiveDue = (from: number, minutes: number): string => new Date(from + minutes * 60_000).toISOString();

/**
 * What a post in a thread does to it, in the post's transaction (docs/threads.md#activity):
 * the thread counts the message and its auto-archive time starts again; an archived thread
 * unarchives (the permission check let the poster post, so it is not locked to them); the
 * poster joins it, as on Discord. Whether it unarchived and whether the poster joined.
 */
export async function recordThreadPost(
  ctx: DomainContext,
  tx: Tx,
  grant: Pick<ChannelGrant, 'id' | 'thread'>,
  poster: Pick<Caller, 'id'>,
): Promise<{ unarchived: boolean; joined: boolean; at?: string }> {
  const thread = await ctx.store.threads.byId(tx, grant.id);
  if (!thread) return { unarchived: false, joined: false };
  const now = ctx.clock();
  const at = new Date(now).toISOString();
  const unarchived = thread.archived === 1;
  if (unarchived) await ctx.store.threads.update(tx, grant.id, { archived: 0, archiveTimestamp: at });
  await ctx.store.threads.countMessage(tx, grant.id, archiveDue(now, thread.autoArchiveDuration));
  const joined = await ctx.store.threadMembers.add(tx, { threadId: grant.id, userId: poster.id, joinTimestamp: at, flags: 0 });
  return { unarchived, joined, at };
}

/**
 * What a post did to its thread (`recordThreadPost`), announced once the post committed: an
 * unarchive (THREAD_UPDATE), the poster joining (THREAD_MEMBERS_UPDATE, THREAD_MEMBER_UPDATE).
 */
export async function announceThreadPost(
  ctx: DomainContext,
  threadId: string,
  poster: Pick<Caller, 'id'>,
  done: { unarchived: boolean; joined: boolean; at?: string },
): Promise<void> {
  if (done.unarchived) await announceThread(ctx, 'THREAD_UPDATE', threadId);
  if (done.joined)
    await announceMembers(ctx, threadId, {
      added: [{ threadId, userId: poster.id, joinTimestamp: done.at ?? nowIso(ctx), flags: 0 }],
    });
}

/** The durations a thread may archive itself after, in minutes (Discord's). */
export const AUTO_ARCHIVE_DURATIONS = [60, 1440, 4320, 10080] as const;

/** A thread as the API shows it (docs/threads.md#the-model). */
export interface ThreadView {
  id: string;
  serverId: string;
  parentId: string;
  type: ThreadKind;
  name: string;
  ownerId: string;
  createdAt: string;
  messageCount: number;
  memberCount: number;
  lastMessageId: string | null;
  appliedTags: string[];
  metadata: {
    archived: boolean;
    locked: boolean;
    autoArchiveDuration: number;
    archiveTimestamp: string;
    createTimestamp: string;
    /** Private threads only: whether members other than moderators may add people. */
    invitable?: boolean;
  };
  /** The caller's own membership, when they joined it. */
  member?: ThreadMemberView;
}

export interface ThreadMemberView {
  threadId: string;
  userId: string;
  joinTimestamp: string;
  flags: number;
}

export const memberView = (m: ThreadMemberTable): ThreadMemberView => ({
  threadId: m.threadId,
  userId: m.userId,
  joinTimestamp: m.joinTimestamp,
  flags: Number(m.flags),
});

/** A thread row as the API shows it, with `member` when the caller joined it. */
export function threadView(row: ThreadRow, lastMessageId: string | null, member?: ThreadMemberTable): ThreadView {
  return {
    id: row.id,
    serverId: row.serverId,
    parentId: row.parentId,
    type: row.type,
    name: row.name,
    ownerId: row.ownerId,
    createdAt: row.createdAt,
    messageCount: Number(row.messageCount),
    memberCount: Number(row.memberCount),
    lastMessageId,
    appliedTags: JSON.parse(row.appliedTags) as string[],
    metadata: {
      archived: row.archived === 1,
      locked: row.locked === 1,
      autoArchiveDuration: Number(row.autoArchiveDuration),
      archiveTimestamp: row.archiveTimestamp,
      createTimestamp: row.createTimestamp,
      ...(row.type === 'private_thread' ? { invitable: row.invitable === 1 } : {}),
    },
    ...(member ? { member: memberView(member) } : {}),
  };
}

/**
 * The threads started from these messages (docs/threads.md#the-starter-message): a message's
 * `thread`, by message id, read in one query for a page of messages. Only a message of the
 * thread's parent counts (a forum post's first message is inside its thread). The thread is
 * public, so whoever reads the message may see it; shown without the viewer's membership.
 */
export async function startedThreads(
  ctx: DomainContext,
  messages: ReadonlyArray<{ id: string; channelId: string }>,
): Promise<Map<string, ThreadView>> {
  const rows = await ctx.store.threads.startedFrom(
    ctx.store.db,
    messages.map((m) => m.id),
  );
  if (rows.length === 0) return new Map();
  const parentOf = new Map(messages.map((m) => [m.id, m.channelId]));
  return new Map(rows.filter((r) => parentOf.get(r.id) === r.parentId).map((r) => [r.id, threadView(r, r.lastMessageId)]));
}

/** Views of rows, with the newest message of each and the caller's memberships, in two reads. */
async function views(ctx: DomainContext, caller: Caller, rows: ThreadRow[]): Promise<ThreadView[]> {
  const ids = rows.map((r) => r.id);
  const [lastIds, mine] = await Promise.all([
    ctx.store.messages.lastIds(ctx.store.db, ids),
    ctx.store.threadMembers.ofUser(ctx.store.db, caller.id, ids),
  ]);
  const byThread = new Map(mine.map((m) => [m.threadId, m]));
  return rows.map((r) => threadView(r, lastIds.get(r.id) ?? null, byThread.get(r.id)));
}

function checkDuration(minutes: number | undefined): number {
  if (minutes === undefined) return 1440;
  if (!(AUTO_ARCHIVE_DURATIONS as readonly number[]).includes(minutes))
    throw badRequest('autoArchiveDuration must be 60, 1440, 4320 or 10080');
  return minutes;
}

/**
 * The parent a thread may start in: a server's text channel or forum (threads do not nest),
 * with the caller's permissions there and its row. `needed(forum)`: the bits it takes, which
 * depend on the kind of parent (a forum's posts take SEND_MESSAGES, as on Discord).
 */
async function requireParent(ctx: DomainContext, caller: Caller, parentId: string, needed: (forum: boolean) => bigint) {
  const grant = await requireServerChannelPermission(ctx, caller, parentId, P.VIEW_CHANNEL);
  const row = await ctx.store.channels.byId(ctx.store.db, parentId);
  const type = row?.type ?? 'text';
  if (grant.thread || !row || (type !== 'text' && type !== 'forum'))
    throw badRequest('threads start in a server’s text channel or forum', 'invalid_body');
  const bits = needed(type === 'forum');
  if ((grant.permissions & bits) !== bits) await requireServerChannelPermission(ctx, caller, parentId, bits);
  return { grant, row, forum: type === 'forum' };
}

/**
 * How a thread is looked up. The native routes (`/threads/{id}`) answer a private thread the
 * caller may not see as one that does not exist (404 `unknown_channel`), as a DM is to those
 * outside it; Discord's routes keep Discord's 403 (50001 Missing Access).
 */
export interface ThreadLookup {
  hideUnseen?: boolean;
}

/** A thread the caller may see (404 for an id that is no thread), with their grant there. */
async function requireThread(
  ctx: DomainContext,
  caller: Caller,
  threadId: string,
  needed: bigint = P.VIEW_CHANNEL,
  lookup: ThreadLookup = {},
) {
  requireIdShape(threadId, 'channel');
  // Hiding: first the caller's bits there, whatever they are (membership and an unknown id are still checked).
  let grant = await requireChannelPermission(ctx, caller, threadId, lookup.hideUnseen ? 0n : needed);
  if (lookup.hideUnseen) {
    if (!grant.thread || (grant.thread.private && (grant.permissions & P.VIEW_CHANNEL) === 0n)) throw notFound('channel');
    // Seen, but short of `needed`: the check again refuses, naming what is missing (or that the thread is locked).
    if ((grant.permissions & needed) !== needed) grant = await requireChannelPermission(ctx, caller, threadId, needed);
  }
  const row = grant.thread ? await ctx.store.threads.byId(ctx.store.db, threadId) : undefined;
  if (!row || !grant.thread) throw notFound('channel');
  return { grant: grant as ChannelGrant & { serverId: string }, row };
}

/** Of `rows`, the threads the caller may see, by the one permission function (docs/threads.md#permissions). */
async function visibleTo(ctx: DomainContext, caller: Caller, m: Pick<Membership, 'model' | 'roles'>, rows: ThreadRow[]) {
  const mine = new Set(
    (
      await ctx.store.threadMembers.ofUser(
        ctx.store.db,
        caller.id,
        rows.map((r) => r.id),
      )
    ).map((t) => t.threadId),
  );
  return rows.filter(
    (r) =>
      (m.model.threadPermissions(caller.id, caller.bot, m.roles, r.parentId, {
        private: r.type === 'private_thread',
        locked: r.locked === 1,
        member: mine.has(r.id),
      }) &
        P.VIEW_CHANNEL) !==
      0n,
  );
}

const manages = (grant: ChannelGrant) => (grant.permissions & P.MANAGE_THREADS) !== 0n;

/**
 * A forum post (docs/threads.md#forum-posts): a public thread and its first message, written in
 * one transaction; the message takes the thread's id, as on Discord. The message is checked
 * as any message (`prepareSend`) with the caller's permissions in the forum; its tags as
 * `checkAppliedTags` says. The poster joins the post.
 */
async function createPost(
  ctx: DomainContext,
  caller: Caller,
  parent: { grant: ChannelGrant & { serverId: string }; row: ServerChannel },
  body: Parameters<typeof threads.create>[3],
): Promise<ThreadView & { message: Message }> {
  const parentId = parent.row.id;
  if (body.type === 'private_thread' || body.type === 'other') throw badRequest('a forum’s posts are public threads (type 11)');
  if (body.message === undefined) throw badRequest('a forum post needs its first message', 'invalid_body');
  const name = cleanName(body.name, 'name');
  const duration = checkDuration(body.autoArchiveDuration ?? parent.row.defaultAutoArchiveDuration ?? undefined);
  const tags = body.appliedTags?.length
    ? checkAppliedTags(body.appliedTags, await ctx.store.forumTags.ofChannels(ctx.store.db, [parentId]), [], manages(parent.grant))
    : [];
  const prepared = await prepareSend(ctx, caller, parent.grant, body.message);
  const id = ctx.store.ids.next();
  const now = ctx.clock();
  const at = new Date(now).toISOString();
  const row: ThreadRow = {
    id,
    serverId: parent.grant.serverId,
    parentId,
    type: 'public_thread',
    name,
    createdAt: at,
    ownerId: caller.id,
    archived: 0,
    locked: 0,
    invitable: 1,
    autoArchiveDuration: duration,
    archiveTimestamp: at,
    createTimestamp: at,
    archiveDueAt: archiveDue(now, duration),
    // Discord's count leaves the first message out.
    messageCount: 0,
    memberCount: 0,
    appliedTags: JSON.stringify(tags),
  };
  const member = { threadId: id, userId: caller.id, joinTimestamp: at, flags: 0 };
  const { message } = await createMessage(
    ctx,
    { id, serverId: parent.grant.serverId, thread: { parentId, private: false } },
    { id: caller.id, name: caller.name, bot: caller.bot, avatar: caller.avatar },
    null,
    { ...prepared, id },
    undefined,
    undefined,
    async (tx) => {
      await ctx.store.threads.insert(tx, row);
      await ctx.store.threadMembers.add(tx, member);
    },
    // The post, then its poster joining it, before its first message (docs/threads.md#events), as on Discord.
    async () => {
      ctx.threadFacts.keep(id, { parentId, private: false });
      await announceThread(ctx, 'THREAD_CREATE', id);
      await announceMembers(ctx, id, { added: [member] });
    },
  );
  return { ...threadView({ ...row, memberCount: 1 }, id, member), message };
}

/** Threads: started, changed, deleted, joined and listed (docs/threads.md). */
export const threads = {
  /**
   * Starts a thread in `parentId`: from one of its messages (`messageId`: the thread takes the
   * message's id, and is public), or on its own (public or private). The caller joins it.
   * In a forum, a post (docs/threads.md#forum-posts): a public thread started with its first
   * `message` (which takes the thread's id, as on Discord), carrying `appliedTags`; answered
   * with that `message`.
   */
  async create(
    ctx: DomainContext,
    caller: Caller,
    parentId: string,
    /** `other`: a kind of channel that is no thread, refused once the caller is known to see the parent. */
    body: {
      name: string;
      type?: ThreadKind | 'other';
      autoArchiveDuration?: number;
      invitable?: boolean;
      messageId?: string;
      /** A forum post's first message (required in a forum, refused elsewhere). */
      message?: NewMessageBody;
      /** A forum post's tags: ids of the forum's tags, at most 5. */
      appliedTags?: readonly string[];
    },
  ): Promise<ThreadView & { message?: Message }> {
    const asked = body.messageId !== undefined ? 'public_thread' : (body.type ?? 'private_thread');
    const creates = asked === 'public_thread' ? P.CREATE_PUBLIC_THREADS : asked === 'private_thread' ? P.CREATE_PRIVATE_THREADS : 0n;
    const parent = await requireParent(ctx, caller, parentId, (forum) =>
      // A forum's posts are its messages: SEND_MESSAGES starts one (Discord's rule), whatever the thread bits say.
      forum ? P.VIEW_CHANNEL | P.SEND_MESSAGES : P.VIEW_CHANNEL | creates | (body.messageId !== undefined ? P.READ_MESSAGE_HISTORY : 0n),
    );
    if (parent.forum) return createPost(ctx, caller, parent, body);
    if (asked === 'other') throw badRequest('type must be 11 (public thread) or 12 (private thread)');
    if (body.message !== undefined || body.appliedTags !== undefined)
      throw badRequest('message and appliedTags belong to forum posts: start a thread in a forum', 'invalid_body');
    const type: ThreadKind = asked;
    const name = cleanName(body.name, 'name');
    const duration = checkDuration(body.autoArchiveDuration);
    let id: string;
    if (body.messageId !== undefined) {
      requireIdShape(body.messageId, 'message');
      if (!(await ctx.store.messages.byId(ctx.store.db, parentId, body.messageId))) throw notFound('message');
      id = body.messageId;
    } else id = ctx.store.ids.next();
    const now = ctx.clock();
    const at = new Date(now).toISOString();
    const row: ThreadRow = {
      id,
      serverId: parent.grant.serverId,
      parentId,
      type,
      name,
      createdAt: at,
      ownerId: caller.id,
      archived: 0,
      locked: 0,
      invitable: body.invitable === false ? 0 : 1,
      autoArchiveDuration: duration,
      archiveTimestamp: at,
      createTimestamp: at,
      archiveDueAt: archiveDue(now, duration),
      messageCount: 0,
      memberCount: 0,
      appliedTags: '[]',
    };
    try {
      await ctx.store.write(async (tx) => {
        if (body.messageId !== undefined && (await ctx.store.threads.byId(tx, id)))
          throw badRequest('a thread was already started from this message', 'thread_already_created');
        await ctx.store.threads.insert(tx, row);
        await ctx.store.threadMembers.add(tx, { threadId: id, userId: caller.id, joinTimestamp: at, flags: 0 });
      });
    } catch (err) {
      // Two starts from one message at once: the channel's primary key settles it.
      if (err instanceof AppError && err.code === 'already_exists')
        throw badRequest('a thread was already started from this message', 'thread_already_created');
      throw err;
    }
    ctx.threadFacts.keep(id, { parentId, private: type === 'private_thread' });
    const own: ThreadMemberView = { threadId: id, userId: caller.id, joinTimestamp: at, flags: 0 };
    // After the commit (docs/threads.md#events): the thread, then its starter joining it.
    await announceThread(ctx, 'THREAD_CREATE', id);
    await announceMembers(ctx, id, { added: [own] });
    return threadView({ ...row, memberCount: 1 }, null, own);
  },

  /**
   * Before a forum post's files are read (docs/security.md#files-are-for-those-who-may-see-them):
   * `parentId` is a forum where the caller may start a post with files (404 / 403 otherwise).
   */
  async admitPostFiles(ctx: DomainContext, caller: Caller, parentId: string): Promise<void> {
    const parent = await requireParent(ctx, caller, parentId, () => P.VIEW_CHANNEL | P.SEND_MESSAGES | P.ATTACH_FILES);
    if (!parent.forum) throw badRequest('files belong to a forum post’s message', 'invalid_body');
  },

  /** One thread the caller may see. */
  async get(ctx: DomainContext, caller: Caller, threadId: string, lookup: ThreadLookup = {}): Promise<ThreadView> {
    const { row } = await requireThread(ctx, caller, threadId, P.VIEW_CHANNEL, lookup);
    return (await views(ctx, caller, [row]))[0]!;
  },

  /** Whether `channelId` is a thread (for routes shared with channels). */
  async isThread(ctx: DomainContext, channelId: string): Promise<boolean> {
    return (await ctx.threadFacts.of(ctx.store, channelId)) !== null;
  },

  /**
   * Changes a thread, as Discord allows: its owner or MANAGE_THREADS renames it, archives
   * it, sets its duration and (private) `invitable`; only MANAGE_THREADS locks, unlocks, or
   * unarchives a locked thread. An archived thread takes nothing but being unarchived
   * (400 `thread_archived`).
   */
  async update(
    ctx: DomainContext,
    caller: Caller,
    threadId: string,
    body: {
      name?: string;
      archived?: boolean;
      locked?: boolean;
      autoArchiveDuration?: number;
      invitable?: boolean;
      /** A forum post's tags, the whole list (docs/threads.md#forum-posts). */
      appliedTags?: readonly string[];
    },
    lookup: ThreadLookup = {},
  ): Promise<ThreadView> {
    const { grant, row } = await requireThread(ctx, caller, threadId, P.VIEW_CHANNEL, lookup);
    const mod = manages(grant);
    const own = row.ownerId === caller.id;
    if (!mod && !own) throw forbidden('missing_permission', 'missing permission MANAGE_THREADS');
    if (body.locked !== undefined && body.locked !== (row.locked === 1) && !mod)
      throw forbidden('missing_permission', 'missing permission MANAGE_THREADS');
    if (row.locked === 1 && !mod) throw forbidden('thread_locked', 'this thread is locked: only MANAGE_THREADS may change it');
    const unarchiving = row.archived === 1 && body.archived === false;
    const others =
      body.name !== undefined || body.autoArchiveDuration !== undefined || body.invitable !== undefined || body.appliedTags !== undefined;
    if (row.archived === 1 && !unarchiving && (others || body.locked !== undefined))
      throw badRequest('the thread is archived', 'thread_archived');
    const now = ctx.clock();
    const at = new Date(now).toISOString();
    const patch: ThreadPatch = {};
    if (body.autoArchiveDuration !== undefined) patch.autoArchiveDuration = checkDuration(body.autoArchiveDuration);
    if (body.invitable !== undefined && row.type === 'private_thread') patch.invitable = body.invitable ? 1 : 0;
    if (body.locked !== undefined) patch.locked = body.locked ? 1 : 0;
    if (body.appliedTags !== undefined) {
      const parent = await ctx.store.channels.byId(ctx.store.db, row.parentId);
      if (parent?.type !== 'forum') throw badRequest('appliedTags belong to forum posts', 'invalid_body');
      const tags = await ctx.store.forumTags.ofChannels(ctx.store.db, [row.parentId]);
      const before = JSON.parse(row.appliedTags) as string[];
      patch.appliedTags = JSON.stringify(checkAppliedTags(body.appliedTags, tags, before, mod));
    }
    if (body.archived !== undefined && body.archived !== (row.archived === 1)) {
      patch.archived = body.archived ? 1 : 0;
      patch.archiveTimestamp = at;
    }
    // Unarchiving, or a new duration, starts the auto-archive time again.
    if (unarchiving || patch.autoArchiveDuration !== undefined)
      patch.archiveDueAt = archiveDue(now, patch.autoArchiveDuration ?? Number(row.autoArchiveDuration));
    const name = body.name === undefined ? undefined : cleanName(body.name, 'name');
    const changes = Object.keys(patch).length > 0 || name !== undefined;
    await ctx.store.write(async (tx) => {
      if (Object.keys(patch).length > 0) await ctx.store.threads.update(tx, threadId, patch);
      if (name !== undefined) await ctx.store.threads.rename(tx, threadId, name);
    });
    if (changes) await announceThread(ctx, 'THREAD_UPDATE', threadId);
    return threads.get(ctx, caller, threadId, lookup);
  },

  /** Deletes a thread with its messages: MANAGE_THREADS. */
  async remove(ctx: DomainContext, caller: Caller, threadId: string, lookup: ThreadLookup = {}): Promise<ThreadView> {
    const { grant, row } = await requireThread(ctx, caller, threadId, P.VIEW_CHANNEL, lookup);
    if (!manages(grant)) throw forbidden('missing_permission', 'missing permission MANAGE_THREADS');
    const view = (await views(ctx, caller, [row]))[0]!;
    const { uploadIds, members } = await ctx.store.write(async (tx) => {
      const ids = await ctx.store.uploads.ofChannel(tx, threadId);
      // A private thread's audience, read before its members go with it.
      const members = row.type === 'private_thread' ? await ctx.store.threadMembers.ids(tx, threadId) : [];
      await ctx.store.channels.delete(tx, threadId);
      return { uploadIds: ids, members };
    });
    await announceThreadDeleted(ctx, row, members);
    await releaseUploads(ctx, uploadIds);
    return view;
  },

  /**
   * Adds `userId` (`@me`: the caller) to the thread. Joining oneself needs to see it; adding
   * someone else needs to post in it, and for a private thread that is not `invitable`,
   * MANAGE_THREADS; they must be a member of the server who sees the parent. Not in an
   * archived thread (400 `thread_archived`).
   */
  async addMember(ctx: DomainContext, caller: Caller, threadId: string, userId: string, lookup: ThreadLookup = {}): Promise<void> {
    const self = userId === '@me' || userId === caller.id;
    const needed = self ? P.VIEW_CHANNEL : P.VIEW_CHANNEL | P.SEND_MESSAGES;
    const { grant, row } = await requireThread(ctx, caller, threadId, needed, lookup);
    if (row.archived === 1) throw badRequest('the thread is archived', 'thread_archived');
    const target = self ? caller.id : userId;
    if (!self) {
      requireIdShape(userId, 'member');
      if (row.type === 'private_thread' && row.invitable === 0 && !manages(grant))
        throw forbidden('missing_permission', 'missing permission MANAGE_THREADS');
      const user = await ctx.store.users.byId(ctx.store.db, userId);
      const member = user ? await ctx.store.members.get(ctx.store.db, grant.serverId, userId) : undefined;
      if (!user || !member) throw notFound('member');
      const bits = grant.model.permissions(userId, user.bot === 1, member.roles, row.parentId);
      if ((bits & P.VIEW_CHANNEL) === 0n) throw forbidden('missing_permission', 'they cannot see the thread’s channel');
    }
    const at = nowIso(ctx);
    const joined: ThreadMemberTable = { threadId, userId: target, joinTimestamp: at, flags: 0 };
    if (await ctx.store.write((tx) => ctx.store.threadMembers.add(tx, joined)))
      await announceMembers(ctx, threadId, { added: [memberView(joined)], created: true });
  },

  /**
   * Removes `userId` (`@me`: the caller leaves) from the thread. Someone else: MANAGE_THREADS,
   * or the owner of a private thread. Not in an archived thread.
   */
  async removeMember(ctx: DomainContext, caller: Caller, threadId: string, userId: string, lookup: ThreadLookup = {}): Promise<void> {
    const self = userId === '@me' || userId === caller.id;
    const { grant, row } = await requireThread(ctx, caller, threadId, P.VIEW_CHANNEL, lookup);
    if (row.archived === 1) throw badRequest('the thread is archived', 'thread_archived');
    if (!self) {
      requireIdShape(userId, 'member');
      if (!manages(grant) && !(row.type === 'private_thread' && row.ownerId === caller.id))
        throw forbidden('missing_permission', 'missing permission MANAGE_THREADS');
    }
    const target = self ? caller.id : userId;
    const removed = await ctx.store.write((tx) => ctx.store.threadMembers.remove(tx, threadId, target));
    if (removed) await announceMembers(ctx, threadId, { removed: [target] });
    if (!removed && !self) throw notFound('member');
  },

  /** One member of the thread (404 `unknown_member` for someone who did not join). */
  async member(ctx: DomainContext, caller: Caller, threadId: string, userId: string, lookup: ThreadLookup = {}): Promise<ThreadMemberView> {
    await requireThread(ctx, caller, threadId, P.VIEW_CHANNEL, lookup);
    const id = userId === '@me' ? caller.id : userId;
    requireIdShape(id, 'member');
    const m = await ctx.store.threadMembers.get(ctx.store.db, threadId, id);
    if (!m) throw notFound('member');
    return memberView(m);
  },

  /** A page of the thread's members, by user id after `after` (at most 100). */
  async members(ctx: DomainContext, caller: Caller, threadId: string, page: { after?: string; limit?: number }, lookup: ThreadLookup = {}) {
    await requireThread(ctx, caller, threadId, P.VIEW_CHANNEL, lookup);
    const limit = page.limit ?? 100;
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw badRequest('limit must be 1 to 100', 'invalid_query');
    if (page.after !== undefined) requireIdShape(page.after, 'member');
    return (await ctx.store.threadMembers.list(ctx.store.db, threadId, { ...page, limit })).map(memberView);
  },

  /** The server's unarchived threads the caller may see, with their memberships (docs/threads.md#routes-discords-under-api). */
  async active(ctx: DomainContext, caller: Caller, serverId: string): Promise<ThreadView[]> {
    const m = await requireMember(ctx, caller, serverId);
    const rows = await ctx.store.threads.activeOfServer(ctx.store.db, serverId);
    return views(ctx, caller, await visibleTo(ctx, caller, m, rows));
  },

  /** One channel's unarchived threads the caller may see, with their memberships (`GET /channels/{id}/threads`). */
  async activeIn(ctx: DomainContext, caller: Caller, parentId: string): Promise<ThreadView[]> {
    const grant = await requireServerChannelPermission(ctx, caller, parentId, P.VIEW_CHANNEL);
    if (grant.thread) throw badRequest('a thread has no threads', 'invalid_body');
    const rows = await ctx.store.threads.activeOfParent(ctx.store.db, parentId);
    return views(ctx, caller, await visibleTo(ctx, caller, grant, rows));
  },

  /**
   * A page of a channel's archived threads, newest archive first, before `before` (an
   * archive timestamp): public ones need reading the channel; private ones also
   * MANAGE_THREADS, or (`joinedOnly`) only those the caller joined.
   */
  async archived(
    ctx: DomainContext,
    caller: Caller,
    parentId: string,
    page: { type: ThreadKind; before?: string; limit?: number; joinedOnly?: boolean },
  ): Promise<{ threads: ThreadView[]; hasMore: boolean }> {
    const grant = await requireServerChannelPermission(ctx, caller, parentId, P.VIEW_CHANNEL | P.READ_MESSAGE_HISTORY);
    if (grant.thread) throw badRequest('a thread has no threads', 'invalid_body');
    if (page.type === 'private_thread' && !page.joinedOnly && !manages(grant))
      throw forbidden('missing_permission', 'missing permission MANAGE_THREADS');
    const limit = page.limit ?? 50;
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw badRequest('limit must be 1 to 100', 'invalid_query');
    if (page.before !== undefined && Number.isNaN(Date.parse(page.before))) throw badRequest('before must be a timestamp', 'invalid_query');
    const before = page.before === undefined ? undefined : new Date(page.before).toISOString();
    const rows = await ctx.store.threads.archivedOfParent(ctx.store.db, parentId, {
      type: page.type,
      limit: limit + 1,
      ...(before !== undefined ? { before } : {}),
      ...(page.joinedOnly ? { memberId: caller.id } : {}),
    });
    return { threads: await views(ctx, caller, rows.slice(0, limit)), hasMore: rows.length > limit };
  },
};

/**
 * Archives the threads whose auto-archive time has passed (docs/threads.md#auto-archive), a
 * batch of 500 per transaction, each only if it is still due (a message may have come since it
 * was read). The background job `app.ts` runs every minute; resolves with how many it archived.
 */
export async function archiveDueThreads(ctx: DomainContext): Promise<number> {
  let total = 0;
  for (;;) {
    const now = new Date(ctx.clock()).toISOString();
    const due = await ctx.store.threads.due(ctx.store.db, now, 500);
    if (due.length === 0) return total;
    const archived = await ctx.store.write(async (tx) => {
      const done: string[] = [];
      for (const id of due) if (await ctx.store.threads.archiveIfDue(tx, id, now)) done.push(id);
      return done;
    });
    total += archived.length;
    for (const id of archived) await announceThread(ctx, 'THREAD_UPDATE', id);
    if (due.length < 500) return total;
  }
}
