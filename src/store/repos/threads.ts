import { type Kysely, type Transaction, sql } from 'kysely';
import type { ChannelTable, Database, ForumTagTable, ThreadMemberTable, ThreadTable } from '../schema.js';

type Db = Kysely<Database>;
type Tx = Transaction<Database>;

/** The two kinds of thread (Discord's types 11 and 12). */
export type ThreadKind = 'public_thread' | 'private_thread';

/** A thread as stored: its channel row (with its server and parent) and its thread row. */
export type ThreadRow = Pick<ChannelTable, 'id' | 'name' | 'createdAt'> & {
  serverId: string;
  parentId: string;
  type: ThreadKind;
} & Omit<ThreadTable, 'channelId'>;

const COLUMNS = [
  'channels.id',
  'channels.serverId',
  'channels.parentId',
  'channels.type',
  'channels.name',
  'channels.createdAt',
  'threads.ownerId',
  'threads.archived',
  'threads.locked',
  'threads.invitable',
  'threads.autoArchiveDuration',
  'threads.archiveTimestamp',
  'threads.createTimestamp',
  'threads.archiveDueAt',
  'threads.messageCount',
  'threads.memberCount',
  'threads.appliedTags',
] as const;

/** Threads with their channel row: the page of a list ends at `limit` rows. */
const threadRows = (db: Db | Tx) =>
  db.selectFrom('channels').innerJoin('threads', 'threads.channelId', 'channels.id').select(COLUMNS).$narrowType<{
    serverId: string;
    parentId: string;
    type: ThreadKind;
  }>();

/** What of a thread may change after it is made (its name is the channel's). */
export type ThreadPatch = Partial<
  Pick<ThreadTable, 'archived' | 'locked' | 'invitable' | 'autoArchiveDuration' | 'archiveTimestamp' | 'archiveDueAt' | 'appliedTags'>
>;

/** Threads (docs/threads.md): a channel row with a parent, and what Discord's `thread_metadata` says. */
export const threads = {
  /** Makes the thread's channel row and its thread row. */
  insert: async (db: Tx, row: ThreadRow) => {
    const { id, serverId, parentId, type, name, createdAt, ...thread } = row;
    await db.insertInto('channels').values({ id, serverId, parentId, type, name, createdAt, topic: null, position: 0 }).execute();
    await db
      .insertInto('threads')
      .values({ channelId: id, ...thread, parentId })
      .execute();
  },
  byId: (db: Db | Tx, id: string): Promise<ThreadRow | undefined> => threadRows(db).where('channels.id', '=', id).executeTakeFirst(),
  /** The threads of these ids (the messages that started them share their ids). */
  byIds: (db: Db, ids: readonly string[]): Promise<ThreadRow[]> =>
    ids.length === 0 ? Promise.resolve([]) : threadRows(db).where('channels.id', 'in', ids).execute(),
  /**
   * The public threads among `ids` (a page of messages' ids: a thread started from a message
   * takes its id), each with its newest message's id, in one query.
   */
  startedFrom: async (db: Db, ids: readonly string[]): Promise<Array<ThreadRow & { lastMessageId: string | null }>> => {
    if (ids.length === 0) return [];
    const rows = await threadRows(db)
      .select((eb) => [
        eb
          .selectFrom('messages')
          .select((m) => m.fn.max('messages.id').as('lastId'))
          .whereRef('messages.channelId', '=', 'channels.id')
          // An `…Id` name: SQLite's integers come back as ids (strings) only under one.
          .as('lastMessageId'),
      ])
      .where('channels.id', 'in', ids)
      .where('channels.type', '=', 'public_thread')
      .execute();
    return rows.map((r) => ({
      ...r,
      lastMessageId: r.lastMessageId === null || r.lastMessageId === undefined ? null : String(r.lastMessageId),
    }));
  },
  update: (db: Tx, id: string, patch: ThreadPatch) => db.updateTable('threads').set(patch).where('channelId', '=', id).executeTakeFirst(),
  rename: (db: Tx, id: string, name: string) => db.updateTable('channels').set({ name }).where('id', '=', id).execute(),
  /** A message was posted: one more in the count, and the auto-archive clock starts again from `dueAt`. */
  countMessage: (db: Tx, id: string, dueAt: string) =>
    db
      .updateTable('threads')
      .set({ messageCount: sql`message_count + 1`, archiveDueAt: dueAt })
      .where('channelId', '=', id)
      .executeTakeFirst(),
  /** A message of the thread was deleted. */
  uncountMessages: (db: Tx, id: string, n: number) =>
    db
      .updateTable('threads')
      .set({ messageCount: sql`case when message_count > ${n} then message_count - ${n} else 0 end` })
      .where('channelId', '=', id)
      .executeTakeFirst(),
  /** The unarchived threads of a server, by id. */
  activeOfServer: (db: Db, serverId: string): Promise<ThreadRow[]> =>
    threadRows(db).where('channels.serverId', '=', serverId).where('threads.archived', '=', 0).orderBy('channels.id').execute(),
  /** The unarchived threads of these servers, by id (a session's snapshot). */
  activeOfServers: (db: Db, serverIds: readonly string[]): Promise<ThreadRow[]> =>
    serverIds.length === 0
      ? Promise.resolve([])
      : threadRows(db).where('channels.serverId', 'in', serverIds).where('threads.archived', '=', 0).orderBy('channels.id').execute(),
  /** The unarchived threads of one channel (a parent becoming visible: THREAD_LIST_SYNC), through `threads_parent_archive` (0028). */
  activeOfParent: (db: Db, parentId: string): Promise<ThreadRow[]> =>
    threadRows(db).where('threads.parentId', '=', parentId).where('threads.archived', '=', 0).orderBy('channels.id').execute(),
  /**
   * A page of a channel's archived threads of one kind, newest archive first, before the
   * archive timestamp `before`; with `memberId`, only those that member joined.
   */
  archivedOfParent: (
    db: Db,
    parentId: string,
    page: { type: ThreadKind; before?: string; limit: number; memberId?: string },
  ): Promise<ThreadRow[]> => {
    // In the order of `threads_parent_archive` (0028): a page reads its rows, never the channel's every thread.
    let q = threadRows(db)
      .where('threads.parentId', '=', parentId)
      .where('threads.archived', '=', 1)
      .where('channels.type', '=', page.type);
    if (page.before !== undefined) q = q.where('threads.archiveTimestamp', '<', page.before);
    if (page.memberId !== undefined) {
      const memberId = page.memberId;
      q = q.where((eb) =>
        eb.exists(
          eb
            .selectFrom('threadMembers')
            .select('threadMembers.threadId')
            .whereRef('threadMembers.threadId', '=', 'channels.id')
            .where('threadMembers.userId', '=', memberId),
        ),
      );
    }
    return q.orderBy('threads.archiveTimestamp', 'desc').orderBy('threads.channelId', 'desc').limit(page.limit).execute();
  },
  /** A channel's kind and parent, by id (whether it is a thread); undefined for no channel. */
  kindOf: (db: Db, id: string) => db.selectFrom('channels').select(['type', 'parentId']).where('id', '=', id).executeTakeFirst(),
  /** The ids of a channel's threads, archived or not (a parent being deleted takes them along). */
  idsOfParent: async (db: Db | Tx, parentId: string): Promise<string[]> =>
    (
      await db
        .selectFrom('channels')
        .select('id')
        .where('parentId', '=', parentId)
        .where('type', 'in', ['public_thread', 'private_thread'])
        .execute()
    ).map((r) => r.id),
  /** Ids of unarchived threads whose auto-archive time is at or before `now`, oldest due first. */
  due: async (db: Db, now: string, limit: number): Promise<string[]> =>
    (
      await db
        .selectFrom('threads')
        .select('channelId')
        .where('archived', '=', 0)
        .where('archiveDueAt', '<=', now)
        .orderBy('archiveDueAt')
        .limit(limit)
        .execute()
    ).map((r) => r.channelId),
  /** Archives the thread if it is still due at `now` (a message may have come since it was read): whether it did. */
  archiveIfDue: async (db: Tx, id: string, now: string): Promise<boolean> => {
    const r = await db
      .updateTable('threads')
      .set({ archived: 1, archiveTimestamp: now })
      .where('channelId', '=', id)
      .where('archived', '=', 0)
      .where('archiveDueAt', '<=', now)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  },
};

/** Who joined which thread (docs/threads.md#thread-members). */
export const threadMembers = {
  /** Adds a member; false when they already were one. The thread's member count follows. */
  add: async (db: Tx, row: ThreadMemberTable): Promise<boolean> => {
    const r = await db
      .insertInto('threadMembers')
      .values(row)
      .onConflict((oc) => oc.columns(['threadId', 'userId']).doNothing())
      .executeTakeFirst();
    const added = Number(r.numInsertedOrUpdatedRows ?? 0) > 0;
    if (added) await db.updateTable('threads').set({ memberCount: sql`member_count + 1` }).where('channelId', '=', row.threadId).execute();
    return added;
  },
  /** Removes a member; false when they were not one. */
  remove: async (db: Tx, threadId: string, userId: string): Promise<boolean> => {
    const r = await db.deleteFrom('threadMembers').where('threadId', '=', threadId).where('userId', '=', userId).executeTakeFirst();
    const removed = Number(r.numDeletedRows) > 0;
    if (removed)
      await db
        .updateTable('threads')
        .set({ memberCount: sql`case when member_count > 0 then member_count - 1 else 0 end` })
        .where('channelId', '=', threadId)
        .execute();
    return removed;
  },
  get: (db: Db | Tx, threadId: string, userId: string) =>
    db.selectFrom('threadMembers').selectAll().where('threadId', '=', threadId).where('userId', '=', userId).executeTakeFirst(),
  /** A page of a thread's members by user id, after `after`. */
  list: (db: Db, threadId: string, page: { after?: string; limit: number }) => {
    let q = db.selectFrom('threadMembers').selectAll().where('threadId', '=', threadId);
    if (page.after !== undefined) q = q.where('userId', '>', page.after);
    return q.orderBy('userId').limit(page.limit).execute();
  },
  /** Every member's id (a private thread's audience). */
  ids: async (db: Db | Tx, threadId: string): Promise<string[]> =>
    (await db.selectFrom('threadMembers').select('userId').where('threadId', '=', threadId).execute()).map((r) => r.userId),
  /** Which of `threadIds` `userId` joined, with their rows. */
  ofUser: (db: Db, userId: string, threadIds: readonly string[]): Promise<ThreadMemberTable[]> =>
    threadIds.length === 0
      ? Promise.resolve([])
      : db.selectFrom('threadMembers').selectAll().where('userId', '=', userId).where('threadId', 'in', threadIds).execute(),
  /** Drops `userId` from every thread of a server they left, keeping the counts right: the threads it left. */
  leaveServer: async (db: Tx, serverId: string, userId: string): Promise<string[]> => {
    const left = (
      await db
        .selectFrom('threadMembers')
        .innerJoin('channels', 'channels.id', 'threadMembers.threadId')
        .select('threadMembers.threadId')
        .where('channels.serverId', '=', serverId)
        .where('threadMembers.userId', '=', userId)
        .execute()
    ).map((r) => r.threadId);
    for (const id of left) await threadMembers.remove(db, id, userId);
    return left;
  },
};

/** A forum channel's tags (Discord's `available_tags`). */
export const forumTags = {
  /** The tags of these channels, in their order. */
  ofChannels: (db: Db | Tx, channelIds: readonly string[]): Promise<ForumTagTable[]> =>
    channelIds.length === 0
      ? Promise.resolve([])
      : db.selectFrom('forumTags').selectAll().where('channelId', 'in', channelIds).orderBy('position').orderBy('id').execute(),
  /** Replaces a channel's tags with `tags` (ids kept where given). */
  replace: async (db: Tx, channelId: string, tags: readonly ForumTagTable[]) => {
    await db.deleteFrom('forumTags').where('channelId', '=', channelId).execute();
    if (tags.length > 0)
      await db
        .insertInto('forumTags')
        .values([...tags])
        .execute();
  },
};
