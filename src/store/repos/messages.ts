import { type Kysely, sql } from 'kysely';
import type { Database, MessageTable, UploadTable } from '../schema.js';

type Db = Kysely<Database>;

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
} as const satisfies Record<keyof MessageTable, string>;
const MESSAGE_KEYS = Object.keys(MESSAGE_COLUMNS) as Array<keyof MessageTable>;
const INSERT_MESSAGE = sql.raw(`insert into messages (${Object.values(MESSAGE_COLUMNS).join(', ')}) values `);

/** Messages and their reactions. */
export const messages = {
  /**
   * Every message goes through here, so it is plain SQL: building and compiling the
   * insert with the query builder took about a fifth of its CPU time.
   */
  insert: (db: Db, row: MessageTable) =>
    sql`${INSERT_MESSAGE}(${sql.join(MESSAGE_KEYS.map((k) => row[k]))})`.execute(db),
  byId: (db: Db, channelId: string, id: string) =>
    db.selectFrom('messages').selectAll().where('id', '=', id).where('channelId', '=', channelId).executeTakeFirst(),
  /** Newest first; `before`/`after` are exclusive id bounds. */
  page: (db: Db, channelId: string, opts: { limit: number; before?: string; after?: string }) => {
    let q = db.selectFrom('messages').selectAll().where('channelId', '=', channelId);
    if (opts.before) q = q.where('id', '<', opts.before);
    if (opts.after) q = q.where('id', '>', opts.after);
    // With only `after`, take the oldest ones after it, then present newest first.
    if (opts.after && !opts.before) {
      return q.orderBy('id', 'asc').limit(opts.limit).execute().then((rows) => rows.reverse());
    }
    return q.orderBy('id', 'desc').limit(opts.limit).execute();
  },
  edit: (db: Db, id: string, content: string, editedAt: string) =>
    db.updateTable('messages').set({ content, editedAt }).where('id', '=', id).executeTakeFirst(),
  delete: (db: Db, id: string) => db.deleteFrom('messages').where('id', '=', id).executeTakeFirst(),
};

export const reactions = {
  /** Adds the reaction; false when it was already there. */
  add: async (db: Db, messageId: string, emoji: string, userId: string, createdAt: string) => {
    const r = await db
      .insertInto('reactions')
      .values({ messageId, emoji, userId, createdAt })
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    return Number(r.numInsertedOrUpdatedRows ?? 0n) > 0;
  },
  remove: (db: Db, messageId: string, emoji: string, userId: string) =>
    db.deleteFrom('reactions').where('messageId', '=', messageId).where('emoji', '=', emoji).where('userId', '=', userId).executeTakeFirst(),
  count: async (db: Db, messageId: string, emoji: string) => {
    const r = await db
      .selectFrom('reactions')
      .select((eb) => eb.fn.countAll<string | number>().as('n'))
      .where('messageId', '=', messageId)
      .where('emoji', '=', emoji)
      .executeTakeFirst();
    return Number(r?.n ?? 0);
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

export const uploads = {
  insert: (db: Db, row: UploadTable) => db.insertInto('uploads').values(row).execute(),
  byId: (db: Db, id: string) => db.selectFrom('uploads').selectAll().where('id', '=', id).executeTakeFirst(),
  byIds: (db: Db, ids: string[]) =>
    ids.length === 0 ? Promise.resolve([] as UploadTable[]) : db.selectFrom('uploads').selectAll().where('id', 'in', ids).execute(),
  deleteMany: (db: Db, ids: string[]) =>
    ids.length === 0 ? Promise.resolve([]) : db.deleteFrom('uploads').where('id', 'in', ids).execute(),
};
