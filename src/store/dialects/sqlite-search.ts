import Database from 'better-sqlite3';
import { type ScriptStep, SqliteWriterDialect, type WriterThreadPolicy } from './sqlite-writer.js';
import type { SearchIndexWriter } from './types.js';

/** The search index's file under DATA_DIR, beside `parley.db`. */
export const SEARCH_FILE = 'parley-search.db';

/** The files SQLite keeps for the search index (`restore` deletes them: they are rebuilt). */
export const searchFiles = (file: string) => [file, `${file}-wal`, `${file}-shm`];

/**
 * The index (0015): FTS5 without a copy of the text (`content = ''`), which can still drop a
 * row by its id alone (`contentless_delete`), so an edit or delete needs nothing but the
 * message's id. Columns, tokenizer and prefix index as 0014's (`sqliteFullText`).
 */
const CREATE_INDEX = `create virtual table messages_fts using fts5(
  content, facets, content = '', contentless_delete = 1,
  tokenize = 'unicode61 remove_diacritics 0', prefix = '2 3')`;

/**
 * Segments of one level FTS5 lets gather before it merges them into the next (its default
 * is 4). Merging is over half of what taking messages in costs, and each level merged
 * rewrites every entry once more: at 8 there are fewer levels, and the catch-up costs about
 * a quarter less CPU per message, with search p99 on a million messages unchanged
 * (bench/README.md, 2026-11-28). Stored in the index (`messages_fts_config`); set on every
 * index built and, on opening, on one built before.
 */
export const AUTOMERGE = 8;
const SET_AUTOMERGE = `insert into messages_fts (messages_fts, rank) values ('automerge', ${AUTOMERGE})`;

/**
 * One row: which database the index belongs to (`messages_fts_owner.token` there), the last
 * change of `messages_fts_queue` it has taken in (`mark`), and a catch-up's range while it runs.
 */
const CREATE_STATE = `create table if not exists search_state (
  id integer primary key check (id = 1), token text not null, mark integer not null, upto integer, taken integer)`;

/** Changes taken in but still queued past which a catch-up prunes them itself. */
const PRUNE_AT = 20_000;

/** The last change queued, committed: `seq` is AUTOINCREMENT, so it never goes back, even once pruned. */
const queuedIn = (schema: string) => `coalesce((select seq from ${schema}.sqlite_sequence where name = 'messages_fts_queue'), 0)`;

/**
 * A catch-up, as one script on the index's connection: the next `limit` changes after the
 * mark (`upto`, `taken`); the ids among them that were edited or deleted leave the index;
 * each id among them that still has a message goes in as it is now (an id queued several
 * times goes in once); the mark moves on. All in one transaction, so the index and its mark
 * never disagree. It reads the messages' database in a snapshot, without its write lock.
 */
const CATCH_UP: readonly ScriptStep[] = [
  // Not `begin immediate`: that takes the write lock of every attached database, the
  // messages' too. The first statement writes, so the index file's lock is taken there.
  { sql: 'begin' },
  {
    sql: `update search_state set
      upto = (select max(seq) from (select seq from msgs.messages_fts_queue where seq > search_state.mark order by seq limit ?)),
      taken = (select count(*) from (select seq from msgs.messages_fts_queue where seq > search_state.mark order by seq limit ?))`,
  },
  {
    sql: `delete from messages_fts where rowid in (select id from msgs.messages_fts_queue
      where seq > (select mark from search_state) and seq <= (select upto from search_state) and fresh = 0)`,
  },
  {
    sql: `insert into messages_fts (rowid, content, facets)
      select m.id, m.content, m.facets from msgs.messages_fts_source m
      where m.id in (select id from msgs.messages_fts_queue where seq > (select mark from search_state) and seq <= (select upto from search_state))`,
  },
  { sql: 'update search_state set mark = coalesce(upto, mark), upto = null' },
  { sql: 'select mark, taken from search_state' },
  { sql: 'commit' },
];

/**
 * SQLite's search index, in a database file of its own (`SEARCH_FILE`) written by a
 * connection of its own (0015). The messages' writer only queues which messages changed
 * (`messages_fts_queue`, by triggers); this takes the queue in, many at a time, holding the
 * index file's write lock and never the messages' one, so posting never waits for indexing.
 * Its connection runs on a thread of its own exactly while the messages' writer does
 * (`WriterThreadPolicy.follows`). The read connection attaches the file as `search`, so
 * searches name `messages_fts` as before.
 *
 * The index can always be rebuilt from the messages, and is whenever it does not match
 * them on opening: no file, a file of another database (its `token`), or one that has
 * taken in more changes than the database has queued (the database was restored from an
 * older copy). The queue is pruned by the messages' writer, up to what the index has
 * committed (`pruneStep`), which is on disk (`synchronous = FULL`).
 */
export class SqliteSearchIndex implements SearchIndexWriter {
  private readonly writer: SqliteWriterDialect;
  private position_: Database.Statement | undefined;
  /** The mark as of this process's last catch-up, and what the queue is pruned up to. */
  private indexed = 0;
  private pruned = 0;

  constructor(
    private readonly file: string,
    private readonly mainFile: string,
    private readonly reader: Database.Database,
    policy: WriterThreadPolicy | undefined,
    /** The messages' writer: the index's connection follows it to a thread, and it prunes the queue. */
    private readonly messagesWriter: SqliteWriterDialect,
  ) {
    const thread = policy?.thread ?? 'auto';
    this.writer = new SqliteWriterDialect({
      file,
      pragmas: ['journal_mode = WAL', 'synchronous = FULL', 'busy_timeout = 5000'],
      attach: { msgs: mainFile },
      nice: 19,
      policy: thread === 'auto' ? { thread, follows: messagesWriter } : { thread },
    });
  }

  /**
   * After migrations: builds the index if it does not match the database (rebuild), and
   * lets the read connection see it.
   */
  async open(): Promise<void> {
    const setup = new Database(this.file);
    try {
      setup.defaultSafeIntegers(true);
      setup.pragma('journal_mode = WAL');
      setup.pragma('busy_timeout = 5000');
      setup.exec(CREATE_STATE);
      this.reader.prepare('attach ? as search').run(this.file);
      // Read in one snapshot of both files.
      const now = this.reader
        .prepare(
          `select (select token from main.messages_fts_owner) as owner, s.token, s.mark, ${queuedIn('main')} as queued,
            exists (select 1 from search.sqlite_master where name = 'messages_fts') as built,
            exists (select 1 from main.messages) as messages
          from (select 1) left join search.search_state s`,
        )
        .get() as { owner: string; token: string | null; mark: bigint | null; queued: bigint; built: bigint; messages: bigint };
      if (!now.built || now.token !== now.owner || now.mark! > now.queued) {
        // No message and nothing queued (a new database): an empty index is exact, and
        // anything written later is queued after its mark of 0. Otherwise the messages'
        // file is needed (and parsing its schema costs this short-lived connection ~1 MB).
        if (!now.messages && !now.queued) emptyIndex(setup, now.owner);
        else {
          setup.prepare('attach ? as msgs').run(this.mainFile);
          rebuild(setup, now.owner);
        }
      } else setup.exec(SET_AUTOMERGE);
    } finally {
      setup.close();
    }
    this.indexed = Number(this.reader.prepare('select mark from search.search_state').pluck().get());
  }

  async catchUp(limit: number): Promise<number> {
    // The connection opens at the first catch-up: an instance nobody writes to keeps none
    // (a connection to both files, with their schemas and page caches, is ~1.5 MB).
    await this.writer.open();
    const steps = CATCH_UP.map((s, i) => (i === 1 ? { ...s, params: [limit, limit] } : s));
    const [row] = await this.writer.script<{ mark: bigint; taken: bigint }>(steps);
    this.indexed = Math.max(this.indexed, Number(row!.mark));
    // Groups of messages alone prune as they commit (`pruneStep`); where none has for a
    // while (messages written with other rows, edits), a transaction of its own does.
    if (this.indexed - this.pruned >= PRUNE_AT) {
      const step = this.pruneStep();
      if (step) await this.messagesWriter.script([{ sql: 'begin' }, step, { sql: 'commit' }]);
    }
    return Number(row!.taken);
  }

  position(): { queued: number; indexed: number } {
    this.position_ ??= this.reader.prepare(`select ${queuedIn('main')} as queued, (select mark from search.search_state) as indexed`);
    const r = this.position_.get() as { queued: bigint; indexed: bigint };
    return { queued: Number(r.queued), indexed: Number(r.indexed) };
  }

  /** For the messages' writer: a statement that deletes the changes the index has taken in since the last one, if any. */
  pruneStep(): ScriptStep | undefined {
    if (this.indexed <= this.pruned) return undefined;
    this.pruned = this.indexed;
    return { sql: 'delete from messages_fts_queue where seq <= ?', params: [this.indexed] };
  }

  /** Whether the index's connection runs on its thread now. */
  get onThread(): boolean {
    return this.writer.onThread;
  }

  /** FTS5's own check of the index's structure (tests). */
  async check(): Promise<void> {
    await this.writer.open();
    await this.writer.script([{ sql: `insert into messages_fts (messages_fts) values ('integrity-check')` }]);
  }

  async close(): Promise<void> {
    await this.writer.close();
  }
}

/**
 * Builds the index from every message, in one transaction of the index's file that reads
 * the messages in one snapshot, so the mark it sets (the last change queued in that
 * snapshot) is exactly what the index holds.
 */
function rebuild(db: Database.Database, owner: string): void {
  // Immediate: every attached file's write lock, the messages' too, for the moment the store opens.
  db.transaction(() => {
    db.exec('drop table if exists messages_fts');
    db.exec(CREATE_INDEX);
    db.exec(SET_AUTOMERGE);
    db.exec(`insert into messages_fts (rowid, content, facets) select id, content, facets from msgs.messages_fts_source`);
    db.prepare(`insert or replace into search_state (id, token, mark) values (1, ?, ${queuedIn('msgs')})`).run(owner);
  }).immediate();
}

/** An index of no message, with nothing taken in yet (`open`, for a database without messages). */
function emptyIndex(db: Database.Database, owner: string): void {
  db.transaction(() => {
    db.exec('drop table if exists messages_fts');
    db.exec(CREATE_INDEX);
    db.exec(SET_AUTOMERGE);
    db.prepare('insert or replace into search_state (id, token, mark) values (1, ?, 0)').run(owner);
  })();
}
