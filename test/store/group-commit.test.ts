import type { Kysely } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GroupCommitter } from '../../src/store/group-commit.js';
import type { Database, Store } from '../../src/store/index.js';
import { messages } from '../../src/store/repos/messages.js';
import type { MessageTable } from '../../src/store/schema.js';
import { channelFixture, messageRow, newId, openStore, storeDialects } from './dialects.js';

describe.each(storeDialects())('group commit on %s', (dialect) => {
  let store: Store;
  let admin: Kysely<Database>;
  let dispose: () => Promise<void>;
  const { userId, serverId, channelId, seed, message, ...fixture } = channelFixture('gc');
  const stored = (id: string) => fixture.stored(store, id);

  beforeAll(async () => {
    ({ store, admin, dispose } = await openStore(dialect));
    await seed(store);
  });
  afterAll(() => dispose?.());

  it('reruns a batch with savepoints after a failure: every other write commits once', async () => {
    const runs = new Map<string, number>();
    const good = Array.from({ length: 10 }, (_, i) => message(`rerun${i}`));
    const taken = message('taken');
    await store.write((tx) => store.messages.insert(tx, taken));
    const results = await Promise.allSettled([
      ...good.map((m) =>
        store.write(async (tx) => {
          runs.set(m.id, (runs.get(m.id) ?? 0) + 1);
          await store.messages.insert(tx, m);
          return m.id;
        }),
      ),
      store.write(async (tx) => {
        await store.messages.insert(tx, message('half-written'));
        await store.messages.insert(tx, taken); // primary key clash
      }),
    ]);
    expect(results.slice(0, 10).map((r) => r.status)).toEqual(Array(10).fill('fulfilled'));
    expect(results[10]!.status).toBe('rejected');
    // They ran in the first attempt and again in the savepoint attempt, committed once.
    expect([...runs.values()].every((n) => n === 2)).toBe(true);
    for (const m of good) expect(await stored(m.id)).toBe(true);
    const page = await store.messages.page(store.db, channelId, { limit: 100 });
    expect(page.filter((m) => m.content === 'half-written')).toHaveLength(0);
    expect(page.filter((m) => m.content.startsWith('rerun'))).toHaveLength(10);
  });

  it('with several batches in flight, every write is committed when it resolves', async () => {
    const committer = new GroupCommitter(admin, 8, 4);
    const rows = Array.from({ length: 60 }, (_, i) => message(`concurrent${i}`));
    // The repository's own insert, through `admin`: the store's runs on the store's connection only.
    const seen = await Promise.all(rows.map((m) => committer.run((tx) => messages.insert(tx, m)).then(() => stored(m.id))));
    expect(seen.every(Boolean)).toBe(true);
  });

  it('writeMessage: a message that fails fails alone, and the rest of its batch commits with its other rows', async () => {
    const taken = message('taken by writeMessage');
    await store.writeMessage(taken);
    const good = Array.from({ length: 12 }, (_, i) => message(`bulk${i}`));
    const results = await Promise.allSettled([
      // Each message's other rows run after it, in the same transaction: the mention's
      // foreign key needs the message in already.
      ...good.map((m) =>
        store.writeMessage(m, async (tx) => {
          await store.messages.insertMentions(tx, channelId, m.id, [userId]);
          return m.id;
        }),
      ),
      store.writeMessage(message('duplicate', taken.id)),
      store.writeMessage(message('then fails'), async () => {
        throw new Error('then failed');
      }),
      store.writeMessage(messageRow({ channelId: newId(), serverId, authorId: userId, content: 'no such channel' })),
    ]);
    expect(results.slice(0, 12).map((r) => (r.status === 'fulfilled' ? r.value : r.reason))).toEqual(good.map((m) => m.id));
    expect(results.slice(12).map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect((results[12] as PromiseRejectedResult).reason).toMatchObject({ code: 'already_exists' });
    expect(String((results[13] as PromiseRejectedResult).reason)).toContain('then failed');
    expect((results[14] as PromiseRejectedResult).reason).toMatchObject({ code: 'unknown_reference' });
    const page = await store.messages.page(store.db, channelId, { limit: 100 });
    expect(page.filter((m) => m.content.startsWith('bulk'))).toHaveLength(12);
    expect(page.filter((m) => m.content === 'duplicate' || m.content === 'then fails')).toHaveLength(0);
    const mentioned = await store.db.selectFrom('messageMentions').select('messageId').where('userId', '=', userId).execute();
    expect(mentioned.map((r) => String(r.messageId)).sort()).toEqual(good.map((m) => m.id).sort());
  });

  it('writeMessage stores every column as written, awkward text included', async () => {
    const referenced = message('referenced');
    await store.writeMessage(referenced);
    const rows = [
      message('quotes \' " \\ backslash \\" \n newline \t tab, emoji 🎉, {"json": [1]}, é'),
      {
        ...message(''),
        authorName: 'naïve "bot"',
        authorAvatar: 'https://example.com/a.png',
        authorBot: 1,
        attachments: '[{"id":"1","filename":"a b.png"}]',
        embeds: '[{"title":"t"}]',
        editedAt: new Date().toISOString(),
        mentions: '[{"id":"2","name":"x","bot":false,"avatar":null}]',
        mentionRoles: '11,12',
        mentionEveryone: 2,
        referenceId: referenced.id,
        pinnedAt: new Date().toISOString(),
        components: '[{"type":1,"components":[]}]',
        interaction: '{"id":"3","name":"cmd","loading":true}',
      },
    ];
    await Promise.all(rows.map((r) => store.writeMessage(r)));
    for (const r of rows) expect(await store.messages.byId(store.db, channelId, r.id)).toEqual(r);
  });

  it.runIf(dialect === 'postgres')('PostgreSQL: one statement inserts a batch of messages', async () => {
    const jsonRows = store.adapter.jsonRows;
    expect(jsonRows).toBeDefined();
    const committer = new GroupCommitter<MessageTable>(admin, 256, 1, {
      many: (tx, rows) => messages.insertMany(tx, rows, jsonRows!),
      one: (tx, row) => messages.insert(tx, row),
    });
    const rows = Array.from({ length: 40 }, (_, i) => message(`one statement ${i}`));
    // Every statement any pg client sends meanwhile (the store's own pool too, though it is idle).
    const sent: string[] = [];
    const query = pg.Client.prototype.query;
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      const q = args[0];
      sent.push(typeof q === 'string' ? q : (q as { text: string }).text);
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof query;
    try {
      await Promise.all(rows.map((m) => committer.run(async () => m.id, m)));
    } finally {
      pg.Client.prototype.query = query;
    }
    // BEGIN, one INSERT for the 40 messages, COMMIT.
    expect(sent.map((q) => q.split(' ')[0]!.toLowerCase())).toEqual(['begin', 'insert', 'commit']);
    for (const m of rows) expect(await stored(m.id)).toBe(true);
  });
});
