import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import {
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  SqliteDialect,
  type UnknownRow,
  sql,
} from 'kysely';
import { READ_ACCESS_EPOCH } from '../access-epoch-migration.js';
import { SEARCH_FILE, SqliteSearchIndex } from './sqlite-search.js';
import { runEach, SqliteWriterDialect, type WriterThreadPolicy } from './sqlite-writer.js';
import type { DialectAdapter, FullText } from './types.js';

function sqliteCode(err: unknown): string {
  return typeof err === 'object' && err !== null && 'code' in err ? String((err as { code: unknown }).code) : '';
}

/**
 * Embedded SQLite under `dataDir`: WAL with `synchronous = FULL`, so a commit is on disk.
 * The writer connection's queries run on a thread of its own while writes are busy
 * (`SqliteWriterDialect`, `writerThread`); reads outside a transaction use a read
 * connection on the event loop.
 */
export function sqliteAdapter(dataDir: string, writerThread?: WriterThreadPolicy): DialectAdapter {
  fs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, 'parley.db');
  // WAL is a property of the file: set before the read connection opens it (which cannot,
  // being query-only), and kept by the writer thread's connection.
  const setup = openSqlite(file);
  setup.pragma('journal_mode = WAL');
  setup.close();
  // WAL lets this connection read committed data while the writer writes.
  const reader = openSqlite(file);
  reader.pragma('busy_timeout = 5000');
  reader.pragma('query_only = ON');
  const writer = new SqliteWriterDialect({
    file,
    pragmas: ['journal_mode = WAL', 'synchronous = FULL', 'foreign_keys = ON', 'busy_timeout = 5000'],
    ...(writerThread ? { policy: writerThread } : {}),
  });
  const searchIndex = new SqliteSearchIndex(path.join(dataDir, SEARCH_FILE), file, reader, writerThread, writer);
  return {
    name: `sqlite (${file})`,
    kysely: writer,
    readKysely: new SqliteDialect({ database: reusingStatements(reader) }),
    plugins: [new SqliteIntegers()],
    concurrentWriters: false,
    isUniqueViolation: (err) => /^SQLITE_CONSTRAINT_(UNIQUE|PRIMARYKEY)$/.test(sqliteCode(err)),
    isForeignKeyViolation: (err) => sqliteCode(err) === 'SQLITE_CONSTRAINT_FOREIGNKEY',
    isInvalidText: () => false,
    // Another process holds the file past busy_timeout (a backup tool, an editor's lock).
    isUnavailable: (err) => /^SQLITE_(BUSY|LOCKED)/.test(sqliteCode(err)),
    joinIds: (column) => `group_concat(${column}, ',')`,
    fullText: sqliteFullText,
    searchIndex,
    localAccessEpoch: localAccessEpoch(reader),
    insertEach: runEach,
    async commitRows(sql, rows) {
      // The group also prunes the search index's queue of what the index has taken in.
      const prune = searchIndex.pruneStep();
      const [row] = await writer.script<{ epoch: unknown }>([
        { sql: 'begin' },
        { sql, params: rows, each: true },
        ...(prune ? [prune] : []),
        { sql: READ_ACCESS_EPOCH },
        { sql: 'commit' },
      ]);
      return Number(row!.epoch);
    },
    afterOpen: () => searchIndex.open(),
    close: () => searchIndex.close(),
  };
}

/**
 * The access epoch of a database only this instance serves, which the `parley` command (or
 * another tool) may still change from outside. `PRAGMA data_version` on the read
 * connection changes whenever another connection committed (the writer thread, or another
 * process), and only then is the epoch read again. The store also hands over the epoch its
 * own transactions committed (`committed`), before any of their writes resolves, so a
 * request that follows a revocation in the same turn already sees it. Statements are
 * prepared on first use (the table comes with 0013).
 */
function localAccessEpoch(reader: Database.Database) {
  let known = 0;
  let version: unknown;
  let dataVersion: Database.Statement | undefined;
  let epoch: Database.Statement | undefined;
  let checked = false;
  const uncheck = () => {
    checked = false;
  };
  return {
    current(): number {
      // Once per turn of the event loop: a statement starts a read transaction (shared-memory
      // locks, ~6-14 µs under load), and everything one turn handles was read off the
      // sockets after the turn began, so a commit that finished before any of it was sent
      // is seen by this turn's check.
      if (checked) return known;
      checked = true;
      setImmediate(uncheck);
      dataVersion ??= reader.prepare('pragma data_version').pluck();
      const v = dataVersion.get();
      if (v !== version) {
        version = v;
        epoch ??= reader.prepare(READ_ACCESS_EPOCH).pluck();
        known = Math.max(known, Number(epoch.get()));
      }
      return known;
    },
    /** After the commit of a transaction that read `epoch` inside it. */
    committed(epoch: number): void {
      known = Math.max(known, epoch);
    },
  };
}

/** An FTS5 string: never syntax, whatever it holds. */
const quoted = (text: string) => `"${text.replaceAll('"', '""')}"`;

/**
 * How many channels a search names in its index query at most (`facets : (c1 OR c2 ...)`):
 * FTS5 steps through every one of them for each row, so past this the channels are
 * checked on the messages instead.
 */
const CHANNELS_IN_INDEX_QUERY = 32;

/**
 * Words matching fewer than this many messages (in any channel) have `total` counted on
 * the messages, one read each; more, in the index, merging the channels' lists. Merging
 * costs more per match than a read while the matches are sparse (a few percent of the
 * messages or less), and less as they get dense (bench/README.md).
 */
export const COUNT_ON_MESSAGES_UP_TO = 10_000;

/**
 * The words of the index's `facets` column for the message `row` (an alias: `messages`,
 * `old`): its channel and author, `c<channel> a<author> c<channel>a<author>`, then for each
 * `has` kind it has (by the same conditions as `has` in repos/search.ts) the kind alone
 * and in its channel, `hfile c<channel>hfile` (`himage`, `hlink`, `hembed`). 0014's view
 * and triggers are built from it; changing it needs a migration that rebuilds the index.
 */
function facetsOf(row: string): string {
  const channel = `'c' || ${row}.channel_id`;
  const facet = (word: string) => `' ${word} ' || ${channel} || '${word}'`;
  const when = (condition: string, word: string) => `case when ${condition} then ${facet(word)} else '' end`;
  return [
    `${channel} || ' a' || ${row}.author_id || ' ' || ${channel} || 'a' || ${row}.author_id`,
    when(`${row}.attachments <> '[]'`, 'hfile'),
    when(`${row}.attachments like '%"contentType":"image/%'`, 'himage'),
    when(`lower(${row}.content) like '%http://%' or lower(${row}.content) like '%https://%'`, 'hlink'),
    when(`${row}.embeds <> '[]'`, 'hembed'),
  ].join(' || ');
}

/**
 * FTS5 over `messages.content`: an external-content table, so the text is stored once (in
 * `messages`) and the index holds only its terms, keyed by the message's rowid, which is
 * its id. Triggers keep it in step with every insert, content edit and delete (cascades
 * included), inside the writing transaction. Since 0010 an insert only queues the
 * message's id (`messages_fts_pending`) and `catchUp` indexes the queue in bulk: FTS5
 * writes a new segment and merges at every commit, which cost about 20 µs per message
 * at ~58 messages per group commit and about 3 µs in batches of a few hundred. `unicode61` splits on everything but letters
 * and digits and folds case; `remove_diacritics 0` keeps accents, as PostgreSQL's `simple`
 * configuration does. Positions are kept (`detail=full`): a term the tokenizer splits into
 * several (a letter newer than its Unicode tables) is then a phrase of adjacent tokens,
 * exactly as the text was indexed.
 *
 * Since 0014 the index has a second column, `facets`: each message's channel, author and
 * `has` kinds as words (`facetsOf`), read through the view `messages_fts_source`, so a
 * search by author or `has` without words, or a common word with a rare filter, is led by
 * the index, newest first, and stops at a page; and with the channels in the query too,
 * `total` is counted in the index without reading a message. Words are matched in
 * `content` only and filters in `facets` only (column filters), so neither can meet the
 * other's terms. 0014 also adds a prefix index (`prefix = '2 3'`): without it a prefix
 * query merges the whole doclist of every word it begins before returning a row (45-115
 * ms at the median for common words and two- or three-letter prefixes on a million
 * messages); with it the index is about 2.9 times the size and `catchUp` does about 1.4
 * times the work per message, in the bulk path, never in a message's own transaction
 * (bench/README.md).
 *
 * Since 0015 the index is in a file of its own, without a copy of the text
 * (`contentless_delete`: a row leaves by its id alone), and the triggers queue every
 * insert, edit and delete (`messages_fts_queue`) for a connection of its own to take in
 * (`SqliteSearchIndex`, sqlite-search.ts), which never holds the messages' write lock.
 * The read connection attaches the file, so `match` names `messages_fts` as before.
 *
 * A migration that rebuilds `messages` must recreate the view and the triggers.
 */
export const sqliteFullText: FullText = {
  name: 'sqlite fts5 (messages_fts, in its own file)',
  async migrate(db) {
    await sql`create virtual table messages_fts using fts5(
      content, content = 'messages', content_rowid = 'id', tokenize = 'unicode61 remove_diacritics 0')`.execute(db);
    // Indexes the messages already there.
    await sql`insert into messages_fts (messages_fts) values ('rebuild')`.execute(db);
    await sql`create trigger messages_fts_insert after insert on messages begin
      insert into messages_fts (rowid, content) values (new.id, new.content);
    end`.execute(db);
    await sql`create trigger messages_fts_delete after delete on messages begin
      insert into messages_fts (messages_fts, rowid, content) values ('delete', old.id, old.content);
    end`.execute(db);
    // Only updates that name `content` (edits); pins, author renames and the like skip it.
    await sql`create trigger messages_fts_update after update of content on messages begin
      insert into messages_fts (messages_fts, rowid, content) values ('delete', old.id, old.content);
      insert into messages_fts (rowid, content) values (new.id, new.content);
    end`.execute(db);
  },
  async deferIndexing(db) {
    await sql`create table messages_fts_pending (id integer primary key)`.execute(db);
    for (const t of ['insert', 'delete', 'update']) await sql.raw(`drop trigger messages_fts_${t}`).execute(db);
    await sql`create trigger messages_fts_insert after insert on messages begin
      insert into messages_fts_pending (id) values (new.id);
    end`.execute(db);
    // A queued message was never indexed: FTS5 must not be told to remove terms it never
    // had (an external-content index trusts the text it is given), so only an indexed one is.
    await sql`create trigger messages_fts_delete after delete on messages begin
      insert into messages_fts (messages_fts, rowid, content)
        select 'delete', old.id, old.content where not exists (select 1 from messages_fts_pending where id = old.id);
      delete from messages_fts_pending where id = old.id;
    end`.execute(db);
    // An edit of an indexed message takes its old terms out and queues it again; a queued
    // one stays queued, and `catchUp` reads the text as it is then.
    await sql`create trigger messages_fts_update after update of content on messages begin
      insert into messages_fts (messages_fts, rowid, content)
        select 'delete', old.id, old.content where not exists (select 1 from messages_fts_pending where id = old.id);
      insert or ignore into messages_fts_pending (id) values (new.id);
    end`.execute(db);
  },
  async indexFilters(db) {
    for (const t of ['insert', 'delete', 'update']) await sql.raw(`drop trigger messages_fts_${t}`).execute(db);
    await sql`drop table messages_fts`.execute(db);
    await sql.raw(`create view messages_fts_source as select id, content, ${facetsOf('messages')} as facets from messages`).execute(db);
    await sql`create virtual table messages_fts using fts5(
      content, facets, content = 'messages_fts_source', content_rowid = 'id',
      tokenize = 'unicode61 remove_diacritics 0', prefix = '2 3')`.execute(db);
    // Indexes every message there, queued ones included: the queue is done with.
    await sql`insert into messages_fts (messages_fts) values ('rebuild')`.execute(db);
    await sql`delete from messages_fts_pending`.execute(db);
    await sql`create trigger messages_fts_insert after insert on messages begin
      insert into messages_fts_pending (id) values (new.id);
    end`.execute(db);
    // As 0010's, with the facets the message was indexed with (a queued one never was).
    await sql
      .raw(`create trigger messages_fts_delete after delete on messages begin
      insert into messages_fts (messages_fts, rowid, content, facets)
        select 'delete', old.id, old.content, ${facetsOf('old')} where not exists (select 1 from messages_fts_pending where id = old.id);
      delete from messages_fts_pending where id = old.id;
    end`)
      .execute(db);
    // An edit of anything the index holds (the content, or what `has` reads) takes the
    // old terms out and queues the message again; pins and author renames skip it.
    await sql
      .raw(`create trigger messages_fts_update after update of content, attachments, embeds, channel_id, author_id on messages begin
      insert into messages_fts (messages_fts, rowid, content, facets)
        select 'delete', old.id, old.content, ${facetsOf('old')} where not exists (select 1 from messages_fts_pending where id = old.id);
      insert or ignore into messages_fts_pending (id) values (new.id);
    end`)
      .execute(db);
  },
  async separateIndex(db) {
    for (const t of ['insert', 'delete', 'update']) await sql.raw(`drop trigger messages_fts_${t}`).execute(db);
    await sql`drop table messages_fts`.execute(db);
    await sql`drop table messages_fts_pending`.execute(db);
    // Every change in commit order: `seq` is given under the write lock, so a change
    // committed later always has a higher one (ids need not be: a message's id is issued
    // before its group commit). `fresh`: a new message, which the index cannot hold yet.
    await sql`create table messages_fts_queue (
      seq integer primary key autoincrement, id integer not null, fresh integer not null)`.execute(db);
    await sql`create table messages_fts_owner (token text not null)`.execute(db);
    await sql`insert into messages_fts_owner (token) values (lower(hex(randomblob(16))))`.execute(db);
    await sql`create trigger messages_fts_insert after insert on messages begin
      insert into messages_fts_queue (id, fresh) values (new.id, 1);
    end`.execute(db);
    await sql`create trigger messages_fts_delete after delete on messages begin
      insert into messages_fts_queue (id, fresh) values (old.id, 0);
    end`.execute(db);
    // An edit of anything the index holds (the content, or what `has` reads); pins and
    // author renames skip it.
    await sql`create trigger messages_fts_update after update of content, attachments, embeds, channel_id, author_id on messages begin
      insert into messages_fts_queue (id, fresh) values (new.id, 0);
    end`.execute(db);
  },
  match(terms, filters) {
    // Each term a quoted string (never syntax: AND, NEAR, -, ( and * inside quotes are
    // text), maybe a prefix; words in `content` only, filters in `facets` only.
    const parts: string[] = [];
    if (terms.length > 0) parts.push(`content : (${terms.map((t) => `${quoted(t.word)}${t.prefix ? '*' : ''}`).join(' ')})`);
    // One filter leads, as the channel-and-filter words of each channel searched: they
    // hold the matching messages of those channels only, so the index alone counts them.
    // Past a few dozen channels FTS5's stepping through every one of them for each row
    // costs more than reading the messages: the channels are then checked (and counted) there.
    const { channelIds, authorId } = filters;
    const has = [...new Set(filters.has)];
    const few = channelIds.length <= CHANNELS_IN_INDEX_QUERY;
    const lead = authorId !== undefined ? `a${authorId}` : has.length > 0 ? `h${has.shift()}` : undefined;
    let exact = false;
    if (lead !== undefined && few) {
      parts.push(`facets : (${channelIds.map((id) => quoted(`c${id}${lead}`)).join(' OR ')})`);
      exact = true;
    } else if (lead !== undefined) {
      parts.push(`facets : ${quoted(lead)}`);
    } else if (channelIds.length === 1) {
      parts.push(`facets : ${quoted(`c${channelIds[0]}`)}`);
      exact = true;
    }
    for (const kind of has) parts.push(`facets : ${quoted(`h${kind}`)}`);
    if (parts.length === 0) return undefined;
    const match = (expression: string[]) => sql<boolean>`messages_fts match ${expression.join(' AND ')}`;
    // Words in several channels: the page checks the channels on the rows it reads, and so
    // does `total` unless the words match many messages; then the channels' lists are
    // merged in the index (`COUNT_ON_MESSAGES_UP_TO`).
    const channels = `facets : (${channelIds.map((id) => quoted(`c${id}`)).join(' OR ')})`;
    const count = exact
      ? { from: sql`messages_fts`, where: match(parts) }
      : lead === undefined && few
        ? { from: sql`messages_fts`, where: match([...parts, channels]), above: COUNT_ON_MESSAGES_UP_TO }
        : undefined;
    return {
      // The index drives: it yields matching ids newest first, so a page stops early.
      from: sql`messages_fts cross join messages m on m.id = messages_fts.rowid`,
      where: match(parts),
      key: sql`messages_fts.rowid`,
      ...(count ? { count } : {}),
    };
  },
  async indexBytes(db) {
    // The shadow tables FTS5 keeps in the index's file (a contentless table has no copy of the text).
    const { rows } = await sql<{ n: number | bigint | null }>`
      select sum(pgsize) as n from dbstat('search')
      where name in ('messages_fts_data', 'messages_fts_idx', 'messages_fts_docsize', 'messages_fts_config')`.execute(db);
    return Number(rows[0]?.n ?? 0);
  },
};

/**
 * Kysely's SQLite driver prepares every query anew, and better-sqlite3 compiles SQL in
 * prepare(): about a fifth of a message POST's CPU. This hands Kysely the same database
 * with prepare() reusing compiled statements by SQL text. Safe because Kysely runs one
 * query at a time on its single connection, and SQLite re-prepares a statement by itself
 * after a schema change. The cache is cleared when full (IN lists of many lengths).
 */
function reusingStatements(database: Database.Database, max = 1000) {
  const statements = new Map<string, Database.Statement>();
  return {
    close: () => database.close(),
    prepare(sql: string) {
      let stmt = statements.get(sql);
      if (!stmt) {
        if (statements.size >= max) statements.clear();
        stmt = database.prepare(sql);
        statements.set(sql, stmt);
      }
      return stmt;
    },
  };
}

/**
 * A better-sqlite3 handle that reads integers exactly: ids are 64-bit snowflakes, beyond
 * the 53 bits a JavaScript number holds, so integers come back as BigInt and
 * `SqliteIntegers` turns them into what the rest of the code expects.
 */
export function openSqlite(file: string): Database.Database {
  const database = new Database(file);
  database.defaultSafeIntegers(true);
  return database;
}

/** Result columns that hold ids, after CamelCasePlugin: `id`, `…Id`, and `createdBy`. */
function isIdColumn(name: string): boolean {
  return name === 'id' || name.endsWith('Id') || name === 'createdBy';
}

/**
 * Ids as decimal strings, as PostgreSQL's driver returns bigint and the API sends them;
 * every other integer (flags, counts, sizes) as a number. Runs after CamelCasePlugin, so
 * it sees the camelCase names.
 */
export class SqliteIntegers implements KyselyPlugin {
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return args.node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    for (const row of args.result.rows) {
      for (const key in row) {
        const value = row[key];
        if (typeof value === 'bigint') row[key] = isIdColumn(key) ? value.toString() : Number(value);
      }
    }
    return args.result;
  }
}
