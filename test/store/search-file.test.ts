/**
 * SQLite's search index in a file of its own (0015): taking messages in never holds the
 * messages' write lock; the queue of changes is pruned once the index has them; and the
 * index is rebuilt whenever it does not match the database it opens with (no file, a file
 * of another database, a database restored from an older copy).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { AUTOMERGE, SEARCH_FILE, type SqliteSearchIndex, searchFiles } from '../../src/store/dialects/sqlite-search.js';
import { Store } from '../../src/store/index.js';
import { channelFixture, expectSearchIndexMatchesMessages, words } from './dialects.js';

const dirs: string[] = [];
const stores: Store[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close().catch(() => {});
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

async function open(dir?: string, thread: 'on' | 'off' = 'off'): Promise<{ store: Store; dir: string }> {
  const at = dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'parley-search-file-'));
  if (!dir) dirs.push(at);
  const store = await Store.open({ dataDir: at, sqliteWriter: { thread } });
  stores.push(store);
  return { store, dir: at };
}

async function close(store: Store): Promise<void> {
  stores.splice(stores.indexOf(store), 1);
  await store.close();
}

/** The index's merge setting as FTS5 stores it (undefined: none stored, FTS5's default of 4). */
const automerge = async (store: Store) => {
  const row = (await sql<{ v: unknown }>`select v from search.messages_fts_config where k = 'automerge'`.execute(store.db)).rows[0];
  return row === undefined ? undefined : Number(row.v);
};

const queueLength = async (store: Store) =>
  Number((await sql<{ n: number }>`select count(*) as n from messages_fts_queue`.execute(store.db)).rows[0]!.n);

describe('SQLite search index file', () => {
  it('lives in its own file, and a catch-up waiting for it never holds up writes', async () => {
    // On threads: the event loop's connection would wait for the lock synchronously.
    const { store, dir } = await open(undefined, 'on');
    const f = channelFixture('apart');
    await f.seed(store);
    const first = f.message('quoll before the lock');
    await store.writeMessage(first);
    const find = (word: string) => words(store, f.channelId, word);
    expect(await find('quoll')).toEqual([first.id]);
    expect(fs.existsSync(path.join(dir, SEARCH_FILE))).toBe(true);

    // Another connection holds the index file's write lock: a catch-up must wait for it.
    const holder = new Database(path.join(dir, SEARCH_FILE));
    holder.exec('begin immediate');
    try {
      await store.writeMessage(f.message('quoll while the index is locked'));
      const catchingUp = store.catchUpSearchIndex();
      // Writes of every kind commit while the catch-up waits (before 0015 it held the
      // messages' writer, and these would have waited behind it).
      const during = f.message('quoll written during the catch-up');
      await store.writeMessage(during);
      await store.write((tx) => store.messages.edit(tx, first.id, { editedAt: new Date().toISOString(), content: 'quoll edited' }));
      expect(await f.stored(store, during.id)).toBe(true);
      holder.exec('commit');
      await catchingUp;
    } finally {
      if (holder.inTransaction) holder.exec('rollback');
      holder.close();
    }
    expect((await find('quoll')).length).toBe(3);
    expect(await find('edited')).toEqual([first.id]);
    await expectSearchIndexMatchesMessages(store);
  });

  it('holds no write lock of the messages while it takes them in', async () => {
    const { store, dir } = await open(undefined, 'on');
    const f = channelFixture('unlocked');
    await f.seed(store);
    await store.write(async (tx) => {
      // Fewer than a catch-up prunes by itself (through the messages' writer, which does lock them).
      for (let i = 0; i < 15_000; i++) await store.messages.insert(tx, f.message(`dibbler number ${i} of many`));
    });
    // Another process's writes to the messages, which give up at once if the lock is held.
    const other = new Database(path.join(dir, 'parley.db'));
    other.pragma('busy_timeout = 0');
    const write = other.prepare('update channels set name = ? where id = ?');
    let done = false;
    let attempts = 0;
    const failures: string[] = [];
    const catchingUp = store.catchUpSearchIndex().finally(() => {
      done = true;
    });
    try {
      while (!done) {
        try {
          write.run(`n${attempts++}`, f.channelId);
        } catch (err) {
          failures.push((err as Error).message);
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
      await catchingUp;
    } finally {
      other.close();
    }
    expect(failures).toEqual([]);
    expect(attempts).toBeGreaterThan(20);
    await expectSearchIndexMatchesMessages(store);
  });

  it('prunes the queue of what the index has taken in', async () => {
    const { store } = await open();
    const f = channelFixture('prune');
    await f.seed(store);
    for (let i = 0; i < 5; i++) await store.writeMessage(f.message(`bilby ${i}`));
    await store.catchUpSearchIndex();
    // The next group of messages alone prunes what the index has taken in: only it is left.
    await store.writeMessage(f.message('bilby after'));
    expect(await queueLength(store)).toBe(1);
    // Changes in other transactions (no group of messages alone to prune them) are pruned
    // by the catch-up itself once there are many.
    await store.write(async (tx) => {
      for (let i = 0; i < 20_001; i++) await store.messages.insert(tx, f.message(`bandicoot ${i}`));
    });
    await store.catchUpSearchIndex();
    expect(await queueLength(store)).toBeLessThan(5000);
    await expectSearchIndexMatchesMessages(store);
  });

  it('merges eight segments of a level at a time: a new index, one rebuilt, and one built before that setting', async () => {
    expect(AUTOMERGE).toBe(8);
    const { store, dir } = await open();
    expect(await automerge(store)).toBe(AUTOMERGE);
    const f = channelFixture('merges');
    await f.seed(store);
    await store.writeMessage(f.message('numbat one'));
    await store.catchUpSearchIndex();
    await close(store);

    // An index file from before: FTS5's default.
    const older = new Database(path.join(dir, SEARCH_FILE));
    older.exec(`insert into messages_fts (messages_fts, rank) values ('automerge', 4)`);
    older.close();
    const reopened = (await open(dir)).store;
    expect(await automerge(reopened)).toBe(AUTOMERGE);
    expect(await words(reopened, f.channelId, 'numbat')).toHaveLength(1);
    await close(reopened);

    // Rebuilt from the messages (the file is gone).
    for (const file of searchFiles(path.join(dir, SEARCH_FILE))) fs.rmSync(file, { force: true });
    const rebuilt = (await open(dir)).store;
    expect(await automerge(rebuilt)).toBe(AUTOMERGE);
    expect(await words(rebuilt, f.channelId, 'numbat')).toHaveLength(1);
    await expectSearchIndexMatchesMessages(rebuilt);
  });

  it('is rebuilt when its file is gone, belongs to another database, or is ahead of a restored one', async () => {
    const { store, dir } = await open();
    const f = channelFixture('rebuild');
    await f.seed(store);
    const kept = f.message('wallaby kept');
    await store.writeMessage(kept);
    const edited = f.message('wallaby original');
    await store.writeMessage(edited);
    await store.catchUpSearchIndex();
    // An older copy of the database, as a backup would have it.
    const older = path.join(dir, 'older.db');
    const copy = new Database(path.join(dir, 'parley.db'));
    await copy.backup(older);
    copy.close();
    // Then more changes, all taken in by the index.
    await store.writeMessage(f.message('wallaby newer'));
    await store.write((tx) => store.messages.edit(tx, edited.id, { editedAt: new Date().toISOString(), content: 'wallaby rewritten' }));
    await store.catchUpSearchIndex();
    await close(store);

    // Restored from the older copy: the index has taken in changes the database never had.
    for (const file of searchFiles(path.join(dir, 'parley.db'))) fs.rmSync(file, { force: true });
    fs.renameSync(older, path.join(dir, 'parley.db'));
    const restored = (await open(dir)).store;
    expect(await words(restored, f.channelId, 'newer')).toEqual([]);
    expect(await words(restored, f.channelId, 'rewritten')).toEqual([]);
    expect(await words(restored, f.channelId, 'original')).toEqual([edited.id]);
    await expectSearchIndexMatchesMessages(restored);
    await close(restored);

    // The file is gone.
    for (const file of searchFiles(path.join(dir, SEARCH_FILE))) fs.rmSync(file, { force: true });
    const again = (await open(dir)).store;
    expect(await words(again, f.channelId, 'wallaby')).toEqual([edited.id, kept.id]);
    await expectSearchIndexMatchesMessages(again);
    await close(again);

    // Another database's index file put in its place.
    const other = await open();
    const g = channelFixture('other');
    await g.seed(other.store);
    await other.store.writeMessage(g.message('wallaby elsewhere'));
    await other.store.catchUpSearchIndex();
    await close(other.store);
    for (const file of searchFiles(path.join(dir, SEARCH_FILE))) fs.rmSync(file, { force: true });
    fs.copyFileSync(path.join(other.dir, SEARCH_FILE), path.join(dir, SEARCH_FILE));
    const mixed = (await open(dir)).store;
    expect(await words(mixed, f.channelId, 'wallaby')).toEqual([edited.id, kept.id]);
    await expectSearchIndexMatchesMessages(mixed);
    expect((mixed.adapter.searchIndex as SqliteSearchIndex).position().indexed).toBeGreaterThan(0);
  });
});
