import { type Kysely, type RawBuilder, type Transaction, sql } from 'kysely';
import type { Database, MessageTable, UploadTable } from '../schema.js';

type Db = Kysely<Database>;
/** Writes take the transaction `Store.write` hands out: a plain handle is a type error. */
type Tx = Transaction<Database>;

export interface ReactionSummary {
  messageId: string;
  emoji: string;
  count: number;
  me: number;
}

/**
 * The columns of `messages` by property, in the insert's order. `satisfies` makes a new
 * MessageTable property a type error here, so the hand-written insert cannot miss it.
 */
const MESSAGE_COLUMNS = {
  id: 'id',
  channelId: 'channel_id',
  serverId: 'server_id',
  authorId: 'author_id',
  authorName: 'author_name',
  authorAvatar: 'author_avatar',
  authorBot: 'author_bot',
  webhookId: 'webhook_id',
  content: 'content',
  attachments: 'attachments',
  embeds: 'embeds',
  createdAt: 'created_at',
  editedAt: 'edited_at',
  mentions: 'mentions',
  mentionRoles: 'mention_roles',
  mentionEveryone: 'mention_everyone',
  referenceId: 'reference_id',
  pinnedAt: 'pinned_at',
  components: 'components',
  interaction: 'interaction',
  type: 'type',
} as const satisfies Record<keyof MessageTable, string>;
const MESSAGE_KEYS = Object.keys(MESSAGE_COLUMNS) as Array<keyof MessageTable>;
const INSERT_MESSAGE = sql.raw(`insert into messages (${Object.values(MESSAGE_COLUMNS).join(', ')}) values `);
/** The same insert as one statement with `?` placeholders, for a driver's own prepared statement. */
export const INSERT_MESSAGE_SQL = `insert into messages (${Object.values(MESSAGE_COLUMNS).join(', ')}) values (${MESSAGE_KEYS.map(() => '?').join(', ')})`;
const COLUMN_LIST = sql.raw(Object.values(MESSAGE_COLUMNS).join(', '));
/** A row's values in `INSERT_MESSAGE_SQL`'s order. */
export const messageParams = (row: MessageTable): unknown[] => MESSAGE_KEYS.map((k) => row[k]);

/** Messages and their reactions. */
export const messages = {
  /**
   * Every message goes through here, so it is plain SQL: building and compiling the
   * insert with the query builder took about a fifth of its CPU time.
   */
  insert: async (db: Tx, row: MessageTable): Promise<void> => {
    await sql`${INSERT_MESSAGE}(${sql.join(MESSAGE_KEYS.map((k) => row[k]))})`.execute(db);
  },
  /**
   * Many messages in one statement, through the dialect's `jsonRows` (one round trip for
   * a whole group commit's messages where each statement is one).
   */
  insertMany: async (db: Tx, rows: MessageTable[], jsonRows: (table: string, json: string) => RawBuilder<unknown>): Promise<void> => {
    const objects = rows.map((row) => {
      const o: Record<string, unknown> = {};
      for (const k of MESSAGE_KEYS) o[MESSAGE_COLUMNS[k]] = row[k];
      return o;
    });
    await sql`insert into messages (${COLUMN_LIST}) select ${COLUMN_LIST} from ${jsonRows('messages', JSON.stringify(objects))}`.execute(
      db,
    );
  },
  byId: (db: Db, channelId: string, id: string) =>
    db.selectFrom('messages').selectAll().where('id', '=', id).where('channelId', '=', channelId).executeTakeFirst(),
  /**
   * Newest first; `before`/`after` are exclusive id bounds. `below` is one more exclusive
   * upper bound that, unlike `before`, leaves the choice of rows to `after` alone.
   */
  page: (db: Db, channelId: string, opts: { limit: number; before?: string; after?: string; below?: string }) => {
    let q = db.selectFrom('messages').selectAll().where('channelId', '=', channelId);
    if (opts.before) q = q.where('id', '<', opts.before);
    if (opts.below) q = q.where('id', '<', opts.below);
    if (opts.after) q = q.where('id', '>', opts.after);
    // With only `after`, take the oldest ones after it, then present newest first.
    if (opts.after && !opts.before) {
      return q
        .orderBy('id', 'asc')
        .limit(opts.limit)
        .execute()
        .then((rows) => rows.reverse());
    }
    return q.orderBy('id', 'desc').limit(opts.limit).execute();
  },
  /** Messages by id, in any channel (the messages replies refer to). */
  byIds: (db: Db, ids: string[]) =>
    ids.length === 0 ? Promise.resolve([] as MessageTable[]) : db.selectFrom('messages').selectAll().where('id', 'in', ids).execute(),
  /** The newest message of each channel (the index's last entry per channel, one lookup each). */
  lastIds: async (db: Db, channelIds: string[]): Promise<Map<string, string>> => {
    if (channelIds.length === 0) return new Map();
    const rows = await db
      .selectFrom('channels')
      .select((eb) => [
        'channels.id',
        eb
          .selectFrom('messages')
          .select((m) => m.fn.max('messages.id').as('lastId'))
          .whereRef('messages.channelId', '=', 'channels.id')
          // An `…Id` name: SQLite's integers come back as ids (strings) only under one.
          .as('lastId'),
      ])
      .where('channels.id', 'in', channelIds)
      .execute();
    return new Map(rows.flatMap((r) => (r.lastId === null || r.lastId === undefined ? [] : [[r.id, String(r.lastId)]])));
  },
  /** Records the users a message names one by one (never its author). */
  insertMentions: (db: Tx, channelId: string, messageId: string, userIds: string[]) =>
    db
      .insertInto('messageMentions')
      .values(userIds.map((userId) => ({ userId, channelId, messageId })))
      .execute(),
  setPinned: async (db: Tx, id: string, pinnedAt: string | null) => {
    const r = await db.updateTable('messages').set({ pinnedAt }).where('id', '=', id).executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  },
  /** A channel's pinned messages, most recently pinned first. */
  pinned: (db: Db, channelId: string, limit: number) =>
    db
      .selectFrom('messages')
      .selectAll()
      .where('channelId', '=', channelId)
      .where('pinnedAt', 'is not', null)
      .orderBy('pinnedAt', 'desc')
      .limit(limit)
      .execute(),
  pinCount: async (db: Db | Tx, channelId: string) => {
    const r = await db
      .selectFrom('messages')
      .select((eb) => eb.fn.countAll<string | number>().as('n'))
      .where('channelId', '=', channelId)
      .where('pinnedAt', 'is not', null)
      .executeTakeFirst();
    return Number(r?.n ?? 0);
  },
  /** Of `ids`, the messages of one channel. */
  inChannel: (db: Db, channelId: string, ids: string[]) =>
    db.selectFrom('messages').selectAll().where('channelId', '=', channelId).where('id', 'in', ids).execute(),
  /**
   * Deletes what `authorId` posted in one server since `since` (a ban's
   * `deleteMessageSeconds`), in one statement whatever their number; resolves to what it
   * deleted.
   */
  deleteOfAuthorSince: (db: Tx, serverId: string, authorId: string, since: string) =>
    db
      .deleteFrom('messages')
      .where('serverId', '=', serverId)
      .where('authorId', '=', authorId)
      .where('createdAt', '>=', since)
      .returning(['id', 'channelId'])
      .execute(),
  deleteMany: async (db: Tx, ids: string[]) => {
    const r = await db.deleteFrom('messages').where('id', 'in', ids).executeTakeFirst();
    return Number(r.numDeletedRows);
  },
  /** False when there is no such message (any more). */
  edit: async (
    db: Tx,
    id: string,
    changes: Pick<MessageTable, 'editedAt'> &
      Partial<Pick<MessageTable, 'content' | 'embeds' | 'components' | 'interaction' | 'attachments'>>,
  ) => {
    const r = await db.updateTable('messages').set(changes).where('id', '=', id).executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  },
  /** A message `webhookId` posted, in whichever channel it is now. */
  byWebhook: (db: Db, webhookId: string, id: string) =>
    db.selectFrom('messages').selectAll().where('id', '=', id).where('webhookId', '=', webhookId).executeTakeFirst(),
  /**
   * Rewrites the author snapshot of every message `authorId` posted themselves (not
   * through a webhook): a deleted account's messages show `name` and no avatar.
   */
  renameAuthor: (db: Tx, authorId: string, name: string) =>
    db
      .updateTable('messages')
      .set({ authorName: name, authorAvatar: null })
      .where('authorId', '=', authorId)
      .where('webhookId', 'is', null)
      .execute(),
  /** False when there is no such message (any more). */
  delete: async (db: Tx, id: string) => {
    const r = await db.deleteFrom('messages').where('id', '=', id).executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  },
};

/** How far people have read, and how often they were mentioned after that (derived when read). */
export const readStates = {
  upsert: (db: Tx, userId: string, channelId: string, lastReadId: string, updatedAt: string) =>
    db
      .insertInto('readStates')
      .values({ userId, channelId, lastReadId, updatedAt })
      .onConflict((oc) => oc.columns(['userId', 'channelId']).doUpdateSet({ lastReadId, updatedAt }))
      .execute(),
  ofUser: (db: Db, userId: string, channelIds: string[]) =>
    channelIds.length === 0
      ? Promise.resolve([])
      : db
          .selectFrom('readStates')
          .select(['channelId', 'lastReadId'])
          .where('userId', '=', userId)
          .where('channelId', 'in', channelIds)
          .execute(),
  /**
   * Messages after `afterId` in the channel that mention `userId`: named one by one (an
   * index range), or pinging `@everyone` or one of `roles` (the partial index of such
   * messages; at most `cap` of them are looked at). The author's own messages do not count.
   */
  /** Messages after `afterId` in the channel by anyone but `userId` (at most `cap`): a DM's unread count. */
  othersAfter: async (db: Db, userId: string, channelId: string, afterId: string, cap = 1000) => {
    const rows = await db
      .selectFrom('messages')
      .select('id')
      .where('channelId', '=', channelId)
      .where('id', '>', afterId)
      .where('authorId', '<>', userId)
      .limit(cap)
      .execute();
    return rows.length;
  },
  mentionCount: async (db: Db, userId: string, channelId: string, afterId: string, roles: readonly string[], cap = 1000) => {
    const [named, broad] = await Promise.all([
      db
        .selectFrom('messageMentions')
        .select('messageId')
        .where('userId', '=', userId)
        .where('channelId', '=', channelId)
        .where('messageId', '>', afterId)
        .limit(cap)
        .execute(),
      db
        .selectFrom('messages')
        .select(['id', 'mentionRoles', 'mentionEveryone', 'authorId'])
        .where('channelId', '=', channelId)
        .where('id', '>', afterId)
        .where((eb) => eb.or([eb('mentionEveryone', '=', 1), eb('mentionRoles', '<>', '')]))
        .orderBy('id')
        .limit(cap)
        .execute(),
    ]);
    const ids = new Set(named.map((r) => String(r.messageId)));
    const mine = new Set(roles);
    for (const m of broad) {
      if (m.authorId === userId) continue;
      if (m.mentionEveryone === 1 || (m.mentionRoles !== '' && m.mentionRoles.split(',').some((id) => mine.has(id)))) ids.add(String(m.id));
    }
    return Math.min(ids.size, cap);
  },
};

/** A person's settings document. */
export const userSettings = {
  get: async (db: Db, userId: string) =>
    (await db.selectFrom('userSettings').select('settings').where('userId', '=', userId).executeTakeFirst())?.settings,
  put: (db: Tx, userId: string, settings: string, updatedAt: string) =>
    db
      .insertInto('userSettings')
      .values({ userId, settings, updatedAt })
      .onConflict((oc) => oc.column('userId').doUpdateSet({ settings, updatedAt }))
      .execute(),
};

export const reactions = {
  /** Adds the reaction; false when it was already there. */
  add: async (db: Tx, messageId: string, emoji: string, userId: string, createdAt: string) => {
    const r = await db
      .insertInto('reactions')
      .values({ messageId, emoji, userId, createdAt })
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    return Number(r.numInsertedOrUpdatedRows ?? 0n) > 0;
  },
  remove: (db: Tx, messageId: string, emoji: string, userId: string) =>
    db
      .deleteFrom('reactions')
      .where('messageId', '=', messageId)
      .where('emoji', '=', emoji)
      .where('userId', '=', userId)
      .executeTakeFirst(),
  count: async (db: Db, messageId: string, emoji: string) => {
    const r = await db
      .selectFrom('reactions')
      .select((eb) => eb.fn.countAll<string | number>().as('n'))
      .where('messageId', '=', messageId)
      .where('emoji', '=', emoji)
      .executeTakeFirst();
    return Number(r?.n ?? 0);
  },
  /** How many distinct emoji the message has, and whether `emoji` is among them: one query. */
  emojiOf: async (db: Db, messageId: string, emoji: string) => {
    const r = await db
      .selectFrom('reactions')
      .select((eb) => [
        eb.fn.count<string | number>('emoji').distinct().as('distinct'),
        eb.fn.max(eb.case().when('emoji', '=', emoji).then(1).else(0).end()).as('present'),
      ])
      .where('messageId', '=', messageId)
      .executeTakeFirst();
    return { distinct: Number(r?.distinct ?? 0), present: Number(r?.present ?? 0) === 1 };
  },
  /** The users who reacted with `emoji`, by user id, after `after` (Discord's order and cursor). */
  users: (db: Db, messageId: string, emoji: string, opts: { limit: number; after?: string }) => {
    let q = db
      .selectFrom('reactions')
      .innerJoin('users', 'users.id', 'reactions.userId')
      .select(['users.id', 'users.name', 'users.bot', 'users.avatar'])
      .where('reactions.messageId', '=', messageId)
      .where('reactions.emoji', '=', emoji);
    if (opts.after) q = q.where('users.id', '>', opts.after);
    return q.orderBy('users.id').limit(opts.limit).execute();
  },
  /** Per message and emoji: the count, and whether `userId` is among them. */
  summaries: async (db: Db, messageIds: string[], userId: string): Promise<ReactionSummary[]> => {
    if (messageIds.length === 0) return [];
    const rows = await db
      .selectFrom('reactions')
      .select((eb) => [
        'messageId',
        'emoji',
        eb.fn.countAll<string | number>().as('count'),
        eb.fn.max(eb.case().when('userId', '=', userId).then(1).else(0).end()).as('me'),
        eb.fn.min('createdAt').as('first'),
      ])
      .where('messageId', 'in', messageIds)
      .groupBy(['messageId', 'emoji'])
      .orderBy('first')
      .execute();
    return rows.map((r) => ({ messageId: r.messageId, emoji: r.emoji, count: Number(r.count), me: Number(r.me) }));
  },
};

/** Uploaded files' records, and which messages reference them. */
export const uploads = {
  insert: (db: Tx, row: UploadTable) => db.insertInto('uploads').values(row).execute(),
  byId: (db: Db, id: string) => db.selectFrom('uploads').selectAll().where('id', '=', id).executeTakeFirst(),
  byIds: (db: Db, ids: string[]) =>
    ids.length === 0 ? Promise.resolve([] as UploadTable[]) : db.selectFrom('uploads').selectAll().where('id', 'in', ids).execute(),
  /** Records that a message references these uploads (claiming them); fails (foreign key) if one is gone. */
  attach: async (db: Tx, messageId: string, uploadIds: string[]) => {
    const ids = [...new Set(uploadIds)];
    await db
      .insertInto('messageAttachments')
      .values(ids.map((uploadId) => ({ messageId, uploadId })))
      .execute();
    await db.updateTable('uploads').set({ claimed: 1 }).where('id', 'in', ids).where('claimed', '=', 0).execute();
  },
  /**
   * Marks an upload as referenced (an avatar or icon now shows it): from now on it is
   * served only while something references it.
   */
  claim: (db: Tx, id: string) => db.updateTable('uploads').set({ claimed: 1 }).where('id', '=', id).where('claimed', '=', 0).execute(),
  /**
   * The upload `id` if it may be served: never claimed (pending), or referenced by a
   * message, an avatar or an icon now. Checked on every GET, so a file whose last
   * reference went is not served even before its record is deleted.
   */
  servable: (db: Db, id: string) =>
    db
      .selectFrom('uploads')
      .selectAll()
      .where('id', '=', id)
      .where((eb) =>
        eb.or([
          eb('claimed', '=', 0),
          eb.exists(
            eb
              .selectFrom('messageAttachments')
              .select('messageAttachments.uploadId')
              .whereRef('messageAttachments.uploadId', '=', 'uploads.id'),
          ),
          eb.exists(eb.selectFrom('users').select('users.id').whereRef('users.avatarUploadId', '=', 'uploads.id')),
          eb.exists(eb.selectFrom('servers').select('servers.id').whereRef('servers.iconUploadId', '=', 'uploads.id')),
        ]),
      )
      .executeTakeFirst(),
  /** Bytes of uploads stored: `uploaderId`'s, or everyone's. */
  usage: async (db: Db | Tx, uploaderId?: string) => {
    let q = db.selectFrom('uploads').select((eb) => eb.fn.sum<string | number | null>('size').as('n'));
    if (uploaderId !== undefined) q = q.where('uploaderId', '=', uploaderId);
    return Number((await q.executeTakeFirst())?.n ?? 0);
  },
  /** Records that a message no longer references these uploads (an edit that dropped them). */
  detach: async (db: Tx, messageId: string, uploadIds: string[]) => {
    if (uploadIds.length > 0)
      await db.deleteFrom('messageAttachments').where('messageId', '=', messageId).where('uploadId', 'in', uploadIds).execute();
  },
  /** The uploads one message references. */
  ofMessage: async (db: Db, messageId: string) =>
    (await db.selectFrom('messageAttachments').select('uploadId').where('messageId', '=', messageId).execute()).map((r) => r.uploadId),
  /** The uploads referenced by what `authorId` posted in one server since `since`. */
  ofAuthorSince: async (db: Db, serverId: string, authorId: string, since: string) =>
    (
      await db
        .selectFrom('messageAttachments')
        .innerJoin('messages', 'messages.id', 'messageAttachments.messageId')
        .select('messageAttachments.uploadId')
        .distinct()
        .where('messages.serverId', '=', serverId)
        .where('messages.authorId', '=', authorId)
        .where('messages.createdAt', '>=', since)
        .execute()
    ).map((r) => String(r.uploadId)),
  /** The uploads the messages of one channel reference; with `among`, only those of `among`. */
  ofChannel: async (db: Db, channelId: string, among?: readonly string[]) => {
    if (among?.length === 0) return [];
    let q = db
      .selectFrom('messageAttachments')
      .innerJoin('messages', 'messages.id', 'messageAttachments.messageId')
      .select('messageAttachments.uploadId')
      .distinct()
      .where('messages.channelId', '=', channelId);
    if (among) q = q.where('messageAttachments.uploadId', 'in', among);
    return (await q.execute()).map((r) => String(r.uploadId));
  },
  /**
   * Deletes the upload's record unless a message or an avatar references it: the check and the delete
   * are one statement, and the foreign key refuses the delete if a concurrent transaction
   * attached it meanwhile. Resolves with the name of the upload's bytes (`fileKey`, else
   * the id) when the record was deleted, undefined when not.
   */
  deleteIfUnattached: async (db: Tx, id: string): Promise<string | undefined> => {
    const r = await db
      .deleteFrom('uploads')
      .where('id', '=', id)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('messageAttachments')
              .select('messageAttachments.uploadId')
              .whereRef('messageAttachments.uploadId', '=', 'uploads.id'),
          ),
        ),
      )
      .where(({ not, exists, selectFrom }) =>
        not(exists(selectFrom('users').select('users.id').whereRef('users.avatarUploadId', '=', 'uploads.id'))),
      )
      .where(({ not, exists, selectFrom }) =>
        not(exists(selectFrom('servers').select('servers.id').whereRef('servers.iconUploadId', '=', 'uploads.id'))),
      )
      .returning(['id', 'fileKey'])
      .executeTakeFirst();
    return r ? (r.fileKey ?? r.id) : undefined;
  },
  /** Up to `limit` uploads created before `createdBefore` that no message or avatar references, oldest first. */
  unattachedBefore: async (db: Db, createdBefore: string, limit: number) =>
    (
      await db
        .selectFrom('uploads')
        .select('id')
        .where('createdAt', '<', createdBefore)
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('messageAttachments')
                .select('messageAttachments.uploadId')
                .whereRef('messageAttachments.uploadId', '=', 'uploads.id'),
            ),
          ),
        )
        .where(({ not, exists, selectFrom }) =>
          not(exists(selectFrom('users').select('users.id').whereRef('users.avatarUploadId', '=', 'uploads.id'))),
        )
        .where(({ not, exists, selectFrom }) =>
          not(exists(selectFrom('servers').select('servers.id').whereRef('servers.iconUploadId', '=', 'uploads.id'))),
        )
        .orderBy('createdAt')
        .limit(limit)
        .execute()
    ).map((r) => r.id),
};
