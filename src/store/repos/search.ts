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

/** How many rows `rows` (a SELECT) yields. */
async function count(db: Db, rows: RawBuilder<unknown>): Promise<number> {
  const { rows: n } = await sql<{ n: number | string }>`select count(*) as n from (${rows}) found`.execute(db);
  return Number(n[0]?.n ?? 0);
}

/**
 * Message search: one query for the page, one for the total (up to `countLimit`), over the
 * same conditions. Every filter is a condition on the message rows of the page, whatever
 * the index also checks; `total` is counted in the index alone only where the dialect says
 * its index decides the channels, the author and `has` exactly (`FullText.match`'s `count`).
 */
export function searchRepo(fullText: FullText) {
  return {
    async messages(db: Db, s: MessageSearch): Promise<{ total: number; rows: MessageTable[] }> {
      if (s.channelIds.length === 0) return { total: 0, rows: [] };
      const has = [...new Set(s.has ?? [])];
      const index = fullText.match(s.terms, {
        channelIds: s.channelIds,
        ...(s.authorId !== undefined ? { authorId: s.authorId } : {}),
        has,
      });
      const from = index?.from ?? sql`messages m`;
      const key = index?.key ?? sql`m.id`;
      // Where the index drives, the channels are checked on its rows: an index on
      // channel_id would add a bitmap of most of the table (PostgreSQL took it). `+ 0` keeps
      // the condition the same and the index out of it; an expression has no column type, so
      // the ids are cast (SQLite would compare the number with text and find nothing).
      const channel = index ? sql`m.channel_id + 0` : sql`m.channel_id`;
      const ids = sql.join(s.channelIds.map((id) => sql`cast(${id} as bigint)`));
      // Conditions on the key alone, which a count in the index can take as they are.
      const onKey: Array<RawBuilder<unknown>> = [];
      if (s.mentions !== undefined)
        onKey.push(sql`${key} in (select mm.message_id from message_mentions mm where mm.user_id = ${s.mentions})`);
      // Cast as the channel ids are: the key may be an expression (FTS5's rowid) without a column type.
      if (s.before !== undefined) onKey.push(sql`${key} < cast(${s.before} as bigint)`);
      if (s.after !== undefined) onKey.push(sql`${key} > cast(${s.after} as bigint)`);
      const where: Array<RawBuilder<unknown>> = [sql`${channel} in (${ids})`, ...(index ? [index.where] : []), ...onKey];
      if (s.authorId !== undefined) where.push(sql`m.author_id = ${s.authorId}`);
      for (const kind of has) where.push(HAS[kind]);
      const condition = sql.join(where, sql` and `);
      const and = (first: RawBuilder<unknown>) => sql.join([first, ...onKey], sql` and `);
      let counted = sql`select 1 as one from ${from} where ${condition} limit ${s.countLimit}`;
      const inIndex = index?.count;
      if (inIndex) {
        const worth =
          inIndex.above === undefined ||
          (await count(db, sql`select 1 as one from ${inIndex.from} where ${and(index.where)} limit ${inIndex.above}`)) >= inIndex.above;
        if (worth) counted = sql`select 1 as one from ${inIndex.from} where ${and(inIndex.where)} limit ${s.countLimit}`;
      }
      const [page, total] = await Promise.all([
        sql<MessageTable>`select m.* from ${from} where ${condition} order by ${key} desc limit ${s.limit} offset ${s.offset}`.execute(db),
        count(db, counted),
      ]);
      return { total, rows: page.rows };
    },
  };
}
