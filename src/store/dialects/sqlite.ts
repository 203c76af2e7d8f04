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
import type { DialectAdapter, FullText } from './types.js';

function sqliteCode(err: unknown): string {
  return typeof err === 'object' && err !== null && 'code' in err ? String((err as { code: unknown }).code) : '';
}

/** Embedded SQLite under `dataDir`: WAL with synchronous=FULL, so a commit is on disk. */
export function sqliteAdapter(dataDir: string): DialectAdapter {
  fs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, 'parley.db');
  const database = openSqlite(file);
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = FULL');
  database.pragma('foreign_keys = ON');
  database.pragma('busy_timeout = 5000');
  // WAL lets this connection read committed data while the other one writes.
  const reader = openSqlite(file);
  reader.pragma('busy_timeout = 5000');
  reader.pragma('query_only = ON');
  return {
    name: `sqlite (${file})`,
    kysely: new SqliteDialect({ database: reusingStatements(database) }),
    readKysely: new SqliteDialect({ database: reusingStatements(reader) }),
    plugins: [new SqliteIntegers()],
    concurrentWriters: false,
    isUniqueViolation: (err) => /^SQLITE_CONSTRAINT_(UNIQUE|PRIMARYKEY)$/.test(sqliteCode(err)),
    isForeignKeyViolation: (err) => sqliteCode(err) === 'SQLITE_CONSTRAINT_FOREIGNKEY',
    isInvalidText: () => false,
    fullText: sqliteFullText,
    localAccessEpoch: localAccessEpoch(database, reader),
    writerStatement(text) {
      let stmt: Database.Statement | undefined;
      return (params) => {
        // Only inside the group commit's transaction: alone, it would commit by itself.
        if (!database.inTransaction) throw new Error('a writer statement runs only inside Store.write');
        stmt ??= database.prepare(text);
        stmt.run(params);
      };
    },
  };
}

/**
 * The access epoch of a database only this process writes to, but that the `parley`
 * command (or another tool) may change from outside: `PRAGMA data_version` on the writer
 * changes only when another connection committed, so only then is the epoch read again
 * (on the read connection, which sees that commit). What this process's own commits do
 * to it the store takes in through `inTransaction`. Statements are prepared on first use
 * (the table comes with 0013).
 */
function localAccessEpoch(writer: Database.Database, reader: Database.Database) {
  let known = 0;
  let version: unknown;
  let dataVersion: Database.Statement | undefined;
  let onReader: Database.Statement | undefined;
  let onWriter: Database.Statement | undefined;
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
      dataVersion ??= writer.prepare('pragma data_version').pluck();
      const v = dataVersion.get();
      if (v !== version) {
        version = v;
        onReader ??= reader.prepare('select epoch from access_epoch where id = 1').pluck();
        known = Math.max(known, Number(onReader.get()));
      }
      return known;
    },
    /** Inside a write transaction: what the epoch will be if it commits (not yet in force). */
    inTransaction(): number {
      onWriter ??= writer.prepare('select epoch from access_epoch where id = 1').pluck();
      return Number(onWriter.get());
    },
    /** After the commit of a transaction that read `epoch` inside it. */
    committed(epoch: number): void {
      known = Math.max(known, epoch);
    },
  };
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
 * exactly as the text was indexed. There is no prefix index (`prefix = '2 3'`): it would
 * make two- and three-letter prefixes about 40 ms faster on a million messages but more
 * than double the index (bench/README.md).
 *
 * A migration that rebuilds `messages` must recreate the triggers, and must not change
 * `content` behind them: FTS5 removes a row's terms by the text it was indexed with.
 */
export const sqliteFullText: FullText = {
  name: 'sqlite fts5 (messages_fts)',
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
  async catchUp(tx, limit) {
    const { rows } = await sql<{ id: string }>`select id from messages_fts_pending order by id limit ${limit}`.execute(tx);
    if (rows.length === 0) return 0;
    const last = rows[rows.length - 1]!.id;
    await sql`insert into messages_fts (rowid, content)
      select m.id, m.content from messages m join messages_fts_pending p on p.id = m.id where p.id <= cast(${last} as integer)`.execute(tx);
    await sql`delete from messages_fts_pending where id <= cast(${last} as integer)`.execute(tx);
    return rows.length;
  },
  async backlog(db) {
    const { rows } = await sql<{ firstId: unknown; lastId: unknown }>`
      select min(id) as first_id, max(id) as last_id from messages_fts_pending`.execute(db);
    const r = rows[0];
    return r?.firstId == null ? undefined : { first: String(r.firstId), last: String(r.lastId) };
  },
  match(terms) {
    // Each term a quoted string (never syntax: AND, NEAR, -, ( and * inside quotes are text), maybe a prefix.
    const query = terms.map((t) => `"${t.word.replaceAll('"', '""')}"${t.prefix ? '*' : ''}`).join(' ');
    return {
      // The index drives: it yields matching ids newest first, so a page stops early.
      from: sql`messages_fts cross join messages m on m.id = messages_fts.rowid`,
      where: sql<boolean>`messages_fts match ${query}`,
      key: sql`messages_fts.rowid`,
    };
  },
  async indexBytes(db) {
    // The shadow tables FTS5 keeps (an external-content table has no copy of the text).
    const { rows } = await sql<{ n: number | bigint | null }>`
      select sum(pgsize) as n from dbstat
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
