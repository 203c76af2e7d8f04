// SQLite's writer connection, on the event loop or on a thread of its own
// (src/store/dialects/sqlite-writer.ts): a group commit of messages alone is one script, all
// or nothing; a script never runs inside a transaction another user of the connection has
// open; the connection is durable either way; and `auto` moves it to its thread under load
// and back when quiet, losing nothing on the way.
import { Worker } from 'node:worker_threads';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { SqliteSearchIndex } from '../../src/store/dialects/sqlite-search.js';
import type { SqliteWriterDialect } from '../../src/store/dialects/sqlite-writer.js';
import type { Store } from '../../src/store/index.js';
import { channelFixture, expectSearchIndexMatchesMessages, messageRow, newId, openStore, words } from './dialects.js';

/** Every query sent to a writer thread meanwhile: its SQL (a script's steps' SQL, joined). */
function recordSent(): { sent: string[]; stop: () => void } {
  const sent: string[] = [];
  const post = Worker.prototype.postMessage;
  Worker.prototype.postMessage = function (this: Worker, value: unknown, ...rest: unknown[]) {
    if (Array.isArray(value) && typeof value[1] === 'string') {
      const [, text, params] = value as [number, string, unknown];
      sent.push(
        text === '/* script */'
          ? `script: ${(JSON.parse(params as string) as Array<[string]>).map(([s]) => s.split(' ')[0]!.toLowerCase()).join(', ')}`
          : text,
      );
    }
    return (post as (...a: unknown[]) => void).call(this, value, ...rest);
  } as typeof post;
  return { sent, stop: () => void (Worker.prototype.postMessage = post) };
}

/** Lets the committer's scheduled turns (setImmediate) run. */
const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe.each(['on', 'off'] as const)('SQLite writer, thread %s', (thread) => {
  let store: Store;
  let dispose: () => Promise<void>;
  let recording: ReturnType<typeof recordSent> | undefined;
  const { userId, serverId, seed, message, ...fixture } = channelFixture('writer');
  const stored = (id: string) => fixture.stored(store, id);

  beforeAll(async () => {
    ({ store, dispose } = await openStore('sqlite', { sqliteWriter: { thread } }));
    await seed(store);
  });
  afterEach(() => recording?.stop());
  afterAll(() => dispose?.());

  it('runs where it was told', () => {
    expect((store.adapter.kysely as SqliteWriterDialect).onThread).toBe(thread === 'on');
  });

  it('commits durably: WAL, synchronous = FULL and foreign keys on the writer connection', async () => {
    const pragma = (name: string) => store.write(async (tx) => (await sql.raw(`pragma ${name}`).execute(tx)).rows[0]);
    expect(await pragma('journal_mode')).toEqual({ journalMode: 'wal' });
    expect(await pragma('synchronous')).toEqual({ synchronous: 2 });
    expect(await pragma('foreign_keys')).toEqual({ foreignKeys: 1 });
  });

  it('a batch of messages alone is one script; a bad one fails alone and the rest commit', async () => {
    const taken = message('taken');
    await store.writeMessage(taken);
    recording = recordSent();
    const good = Array.from({ length: 10 }, (_, i) => message(`alone ${i}`));
    const results = await Promise.allSettled([
      ...good.map((m) => store.writeMessage(m)),
      store.writeMessage(message('duplicate', taken.id)),
      store.writeMessage(messageRow({ channelId: newId(), serverId, authorId: userId, content: 'no such channel' })),
    ]);
    expect(results.slice(0, 10).map((r) => r.status)).toEqual(Array(10).fill('fulfilled'));
    expect((results[10] as PromiseRejectedResult).reason).toMatchObject({ code: 'already_exists' });
    expect((results[11] as PromiseRejectedResult).reason).toMatchObject({ code: 'unknown_reference' });
    for (const m of good) expect(await stored(m.id)).toBe(true);
    expect(await stored(taken.id)).toBe(true);
    if (thread === 'on') {
      // First the whole batch as one script, which fails and is rolled back; then the rerun
      // (a transaction: all rows in one statement run, then with a savepoint each).
      expect(recording.sent[0]).toBe('script: begin, insert, select, commit');
      expect(recording.sent.slice(1)).toContain('commit');
    }
    expect(await store.db.selectFrom('messages').select('id').where('content', '=', 'duplicate').execute()).toEqual([]);
  });

  // What only the thread has: messages to it, and scripts that may overlap a transaction.
  if (thread === 'on') {
    it('messages alone, with nothing failing, are one script per batch and nothing else', async () => {
      recording = recordSent();
      const rows = Array.from({ length: 30 }, (_, i) => message(`script ${i}`));
      await Promise.all(rows.map((m) => store.writeMessage(m)));
      expect(recording.sent.length).toBeGreaterThan(0);
      expect(recording.sent.every((s) => s === 'script: begin, insert, select, commit')).toBe(true);
      for (const m of rows) expect(await stored(m.id)).toBe(true);
    });

    it('a script waits while a transaction has the connection, and never joins it', async () => {
      recording = recordSent();
      let release!: () => void;
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      let inside!: () => void;
      const entered = new Promise<void>((resolve) => {
        inside = resolve;
      });
      const rolledBack = message('in the transaction that rolls back');
      const open = store.write(async (tx) => {
        await store.messages.insert(tx, rolledBack);
        inside();
        await held;
        throw new Error('roll it back');
      });
      await entered;
      const alone = message('alone, while the transaction is open');
      const write = store.writeMessage(alone);
      // The committer starts the second batch on a later turn; give it several.
      await turns(10);
      expect(recording.sent.filter((s) => s.startsWith('script'))).toEqual([]);
      release();
      await expect(open).rejects.toThrow('roll it back');
      await write;
      expect(recording.sent.filter((s) => s.startsWith('script'))).toEqual(['script: begin, insert, select, commit']);
      expect(await stored(alone.id)).toBe(true);
      expect(await stored(rolledBack.id)).toBe(false);
    });
  }
});

describe('SQLite writer, thread auto', () => {
  it('moves to its thread when writes are busy and back when they are quiet, losing no write', async () => {
    // The writer and the search index count statements per second on a 1 s interval: the
    // test moves that clock on (fake setInterval) instead of waiting real seconds.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const { store, dispose } = await openStore('sqlite', {
      sqliteWriter: { thread: 'auto', startAt: 200, quietBelow: 40, quietSeconds: 1 },
    });
    try {
      const { channelId, seed, message } = channelFixture('auto');
      await seed(store);
      const dialect = store.adapter.kysely as SqliteWriterDialect;
      expect(dialect.onThread).toBe(false);
      const written: string[] = [];
      const write = async (content: string) => {
        const m = message(content);
        await store.writeMessage(m);
        written.push(m.id);
      };
      const batch = (n: number, text: string) => Promise.all(Array.from({ length: n }, () => write(`${text} ${i++}`)));
      // The search index's connection follows the writer there and back (checked each second).
      const index = store.adapter.searchIndex as SqliteSearchIndex;
      const search = (word: string) => words(store, channelId, word);
      let i = 0;
      // Busy: a second of 200 statements or more, then writes keep coming through the move.
      await batch(250, 'busy');
      vi.advanceTimersByTime(1000);
      while (!dialect.onThread) await batch(10, 'busy');
      // Still busy (40 or more a second) when the index checks, so the writer stays.
      await batch(50, 'on the thread');
      vi.advanceTimersByTime(1000);
      await expect.poll(() => index.onThread, { timeout: 3000 }).toBe(true);
      expect(dialect.onThread).toBe(true);
      await write('kookaburra while on the thread');
      expect(await search('kookaburra')).toEqual([written.at(-1)]);
      // Quiet: one write in a second moves it back; writes go on through the move.
      await write(`quiet ${i++}`);
      vi.advanceTimersByTime(1000);
      while (dialect.onThread) await write(`quiet ${i++}`);
      vi.advanceTimersByTime(1000);
      await expect.poll(() => index.onThread, { timeout: 3000 }).toBe(false);
      await write('back on the event loop');
      expect(await search('back')).toEqual([written.at(-1)]);
      await expectSearchIndexMatchesMessages(store);
      const stored = await store.db.selectFrom('messages').select('id').where('channelId', '=', channelId).execute();
      expect(stored.map((r) => String(r.id)).sort()).toEqual([...written].sort());
    } finally {
      vi.useRealTimers();
      await dispose();
    }
  });

  it('closing while a connection moves to its thread waits for that move, so no thread opens the files after the close', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const { store, dispose } = await openStore('sqlite', {
      sqliteWriter: { thread: 'auto', startAt: 200, quietBelow: 40, quietSeconds: 600 },
    });
    // What happens to the threads started meanwhile, in order; the writer's are known once it moved.
    const log: string[] = [];
    const threads = new Set<Worker>();
    const exited = new Set<Worker>();
    let writers: Set<Worker> | undefined;
    const started = (worker: Worker) => {
      threads.add(worker);
      if (writers) log.push('index thread started');
      worker.once('exit', () => {
        exited.add(worker);
        if (!writers?.has(worker)) log.push('index thread ended');
      });
    };
    process.on('worker', started);
    try {
      const { seed, message } = channelFixture('closing');
      await seed(store);
      const dialect = store.adapter.kysely as SqliteWriterDialect;
      const index = store.adapter.searchIndex as SqliteSearchIndex;
      let i = 0;
      await Promise.all(Array.from({ length: 250 }, () => store.writeMessage(message(`busy ${i++}`))));
      vi.advanceTimersByTime(1000);
      while (!dialect.onThread) await Promise.all(Array.from({ length: 10 }, () => store.writeMessage(message(`busy ${i++}`))));
      writers = new Set(threads);
      expect(index.onThread).toBe(false);
      // The next second the search index's connection follows the writer; it closes while
      // that move is under way.
      vi.advanceTimersByTime(1000);
      await index.close();
      log.push('index closed');
      await dispose();
      await expect.poll(() => exited.size).toBe(threads.size);
      expect(log.slice(log.indexOf('index closed') + 1)).toEqual([]);
    } finally {
      process.off('worker', started);
      vi.useRealTimers();
    }
  });

  it('a thread that ends by itself leaves the writer on the event loop, which goes on writing', async () => {
    const { store, dispose } = await openStore('sqlite', {
      sqliteWriter: { thread: 'auto', startAt: 200, quietBelow: 40, quietSeconds: 600 },
    });
    const post = Worker.prototype.postMessage;
    try {
      const { seed, message, stored } = channelFixture('ended');
      await seed(store);
      const dialect = store.adapter.kysely as SqliteWriterDialect;
      let i = 0;
      while (!dialect.onThread) await Promise.all(Array.from({ length: 10 }, () => store.writeMessage(message(`busy ${i++}`))));
      let thread: Worker | undefined;
      Worker.prototype.postMessage = function (this: Worker, ...args: unknown[]) {
        thread = this;
        return (post as (...a: unknown[]) => void).apply(this, args);
      } as typeof post;
      await store.writeMessage(message('on the thread'));
      Worker.prototype.postMessage = post;
      await thread!.terminate();
      await expect.poll(() => dialect.onThread).toBe(false);
      const after = message('after the thread ended');
      await store.writeMessage(after);
      expect(await stored(store, after.id)).toBe(true);
    } finally {
      Worker.prototype.postMessage = post;
      await dispose();
    }
  });
});
