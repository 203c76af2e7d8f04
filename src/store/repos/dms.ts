import { type Kysely, type Transaction, sql } from 'kysely';
import type { ChannelTable, Database } from '../schema.js';

type Db = Kysely<Database>;
type Tx = Transaction<Database>;

/** A DM or group as stored: a channel without a server. */
export type DmRow = Pick<ChannelTable, 'id' | 'name' | 'createdAt' | 'ownerId' | 'dmKey'> & { type: 'dm' | 'group_dm' };

/** A recipient with what the wire shows of them. */
export interface RecipientRow {
  channelId: string;
  id: string;
  name: string;
  bot: number;
  avatar: string | null;
}

const DM_COLUMNS = ['channels.id', 'channels.name', 'channels.createdAt', 'channels.ownerId', 'channels.dmKey', 'channels.type'] as const;

/** Direct messages and groups: channels with recipients instead of a server. */
export const dms = {
  insert: async (db: Tx, row: DmRow, recipientIds: readonly string[], addedAt: string) => {
    await db
      .insertInto('channels')
      .values({ ...row, serverId: null, position: 0, topic: null })
      .execute();
    await db
      .insertInto('channelRecipients')
      .values(recipientIds.map((userId) => ({ channelId: row.id, userId, addedAt })))
      .execute();
  },
  byKey: (db: Db, dmKey: string) =>
    db.selectFrom('channels').select(DM_COLUMNS).where('dmKey', '=', dmKey).$narrowType<{ type: 'dm' | 'group_dm' }>().executeTakeFirst(),
  byId: (db: Db, id: string) =>
    db
      .selectFrom('channels')
      .select(DM_COLUMNS)
      .where('id', '=', id)
      .where('serverId', 'is', null)
      .$narrowType<{ type: 'dm' | 'group_dm' }>()
      .executeTakeFirst(),
  /** The DMs and groups `userId` is in, newest first. */
  ofUser: (db: Db, userId: string) =>
    db
      .selectFrom('channelRecipients')
      .innerJoin('channels', 'channels.id', 'channelRecipients.channelId')
      .select(DM_COLUMNS)
      .where('channelRecipients.userId', '=', userId)
      .orderBy('channels.id', 'desc')
      .$narrowType<{ type: 'dm' | 'group_dm' }>()
      .execute(),
  /** The recipients of the channels, in the order they joined. */
  recipients: (db: Db, channelIds: readonly string[]): Promise<RecipientRow[]> =>
    channelIds.length === 0
      ? Promise.resolve([])
      : db
          .selectFrom('channelRecipients')
          .innerJoin('users', 'users.id', 'channelRecipients.userId')
          .select(['channelRecipients.channelId', 'users.id', 'users.name', 'users.bot', 'users.avatar'])
          .where('channelRecipients.channelId', 'in', channelIds)
          .orderBy('channelRecipients.addedAt')
          .orderBy('users.id')
          .execute(),
  removeRecipient: (db: Tx, channelId: string, userId: string) =>
    db.deleteFrom('channelRecipients').where('channelId', '=', channelId).where('userId', '=', userId).executeTakeFirst(),
  setOwner: (db: Tx, channelId: string, ownerId: string) =>
    db.updateTable('channels').set({ ownerId }).where('id', '=', channelId).execute(),
  delete: (db: Tx, channelId: string) => db.deleteFrom('channels').where('id', '=', channelId).execute(),
  /** Which of `others` share at least one server with `userId`. */
  sharingServer: async (db: Db, userId: string, others: readonly string[]): Promise<Set<string>> => {
    if (others.length === 0) return new Set();
    const rows = await db
      .selectFrom('members as mine')
      .innerJoin('members as theirs', 'theirs.serverId', 'mine.serverId')
      .select('theirs.userId')
      .distinct()
      .where('mine.userId', '=', userId)
      .where('theirs.userId', 'in', others)
      .execute();
    return new Set(rows.map((r) => String(r.userId)));
  },
  /**
   * The people `userId` shares a server with (never themselves, never deleted accounts), by
   * id after `after`, at most `limit`: with `q`, those whose name or username holds it (any
   * case, `q` lower-cased by the caller); with `ids`, only those.
   */
  contacts: (db: Db, userId: string, opts: { q?: string; ids?: readonly string[]; after?: string; limit: number }) => {
    let q = db
      .selectFrom('members as mine')
      .innerJoin('members as theirs', 'theirs.serverId', 'mine.serverId')
      .innerJoin('users', 'users.id', 'theirs.userId')
      .select(['users.id', 'users.name', 'users.bot', 'users.avatar'])
      .distinct()
      .where('mine.userId', '=', userId)
      .where('theirs.userId', '<>', userId)
      .where('users.deletedAt', 'is', null);
    if (opts.ids) q = q.where('users.id', 'in', opts.ids.length ? opts.ids : ['0']);
    if (opts.after !== undefined) q = q.where('users.id', '>', opts.after);
    if (opts.q) {
      // LIKE's own characters in the text are matched as themselves.
      const pattern = `%${opts.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      q = q.where(sql<boolean>`(lower(users.name) like ${pattern} escape '\\' or users.username_key like ${pattern} escape '\\')`);
    }
    return q.orderBy('users.id').limit(opts.limit).execute();
  },
};

/** Who blocked whom. */
export const blocks = {
  add: (db: Tx, userId: string, blockedId: string, createdAt: string) =>
    db
      .insertInto('userBlocks')
      .values({ userId, blockedId, createdAt })
      .onConflict((oc) => oc.doNothing())
      .execute(),
  remove: (db: Tx, userId: string, blockedId: string) =>
    db.deleteFrom('userBlocks').where('userId', '=', userId).where('blockedId', '=', blockedId).executeTakeFirst(),
  /** The people `userId` blocked, in the order they were blocked. */
  of: (db: Db, userId: string) =>
    db.selectFrom('userBlocks').select(['blockedId', 'createdAt']).where('userId', '=', userId).orderBy('createdAt').execute(),
  /** Which of `others` blocked `userId` or were blocked by them. */
  between: async (db: Db, userId: string, others: readonly string[]): Promise<Set<string>> => {
    if (others.length === 0) return new Set();
    const rows = await db
      .selectFrom('userBlocks')
      .select(['userId', 'blockedId'])
      .where((eb) =>
        eb.or([
          eb.and([eb('userId', '=', userId), eb('blockedId', 'in', others)]),
          eb.and([eb('blockedId', '=', userId), eb('userId', 'in', others)]),
        ]),
      )
      .execute();
    return new Set(rows.map((r) => (String(r.userId) === userId ? String(r.blockedId) : String(r.userId))));
  },
};
