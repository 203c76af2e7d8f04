import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { FullText, SearchTerm } from '../dialects/types.js';
import type { Database, MessageTable } from '../schema.js';

type Db = Kysely<Database>;

/** What a message must have (`has=`): a file, an image file, a link in its content, an embed. */
export type HasKind = 'file' | 'image' | 'link' | 'embed';

/** A search over messages, already checked by the domain. */
export interface MessageSearch {
  /** Words that must all occur (`SearchTerm`); empty: no text condition. */
  terms: readonly SearchTerm[];
  /**
   * The channels to search: the only permission input. Messages of any other channel are
   * never considered, neither in `rows` nor in `total`. Empty: nothing is found.
   */
  channelIds: readonly string[];
  authorId?: string;
  /** Messages that mention (and pinged) this user by name. */
  mentions?: string;
  /** Every kind listed must hold. */
  has?: readonly HasKind[];
  /** Exclusive id bounds. */
  before?: string;
  after?: string;
  limit: number;
  offset: number;
  /** `total` counts this many matches at most (counting every match of a common word would read them all). */
  countLimit: number;
}

/** The condition of each `has` kind on `messages as m`. */
const HAS: Record<HasKind, RawBuilder<unknown>> = {
  file: sql`m.attachments <> '[]'`,
  // Attachments are JSON written by the service (attachmentOf): a quote inside a file name
  // is escaped, so only the key itself can read `"contentType":"image/`.
  image: sql`m.attachments like '%"contentType":"image/%'`,
  // lower(): SQLite's LIKE ignores ASCII case, PostgreSQL's does not.
  link: sql`(lower(m.content) like '%http://%' or lower(m.content) like '%https://%')`,
  embed: sql`m.embeds <> '[]'`,
};

/** Message search: one query for the page, one for the total (up to `countLimit`), over the same conditions. */
export function searchRepo(fullText: FullText) {
  return {
    async messages(db: Db, s: MessageSearch): Promise<{ total: number; rows: MessageTable[] }> {
      if (s.channelIds.length === 0) return { total: 0, rows: [] };
      const text = s.terms.length > 0 ? fullText.match(s.terms) : undefined;
      const from = text?.from ?? sql`messages m`;
      const key = text?.key ?? sql`m.id`;
      // With words the text index drives, and the channels are checked on its rows: an index
      // on channel_id would add a bitmap of most of the table (PostgreSQL took it). `+ 0` keeps
      // the condition the same and the index out of it; an expression has no column type, so
      // the ids are cast (SQLite would compare the number with text and find nothing).
      const channel = text ? sql`m.channel_id + 0` : sql`m.channel_id`;
      const ids = sql.join(s.channelIds.map((id) => sql`cast(${id} as bigint)`));
      const where: Array<RawBuilder<unknown>> = [sql`${channel} in (${ids})`];
      if (text) where.push(text.where);
      if (s.authorId !== undefined) where.push(sql`m.author_id = ${s.authorId}`);
      if (s.mentions !== undefined)
        where.push(sql`m.id in (select mm.message_id from message_mentions mm where mm.user_id = ${s.mentions})`);
      for (const kind of new Set(s.has ?? [])) where.push(HAS[kind]);
      // Cast as the channel ids are: the key may be an expression (FTS5's rowid) without a column type.
      if (s.before !== undefined) where.push(sql`${key} < cast(${s.before} as bigint)`);
      if (s.after !== undefined) where.push(sql`${key} > cast(${s.after} as bigint)`);
      const condition = sql.join(where, sql` and `);
      const [page, count] = await Promise.all([
        sql<MessageTable>`select m.* from ${from} where ${condition} order by ${key} desc limit ${s.limit} offset ${s.offset}`.execute(db),
        sql<{
          n: number | string;
        }>`select count(*) as n from (select 1 as one from ${from} where ${condition} limit ${s.countLimit}) found`.execute(db),
      ]);
      return { total: Number(count.rows[0]?.n ?? 0), rows: page.rows };
    },
  };
}
