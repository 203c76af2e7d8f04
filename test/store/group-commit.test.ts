import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GroupCommitter } from '../../src/store/group-commit.js';
import type { Database, Store } from '../../src/store/index.js';
import { messages } from '../../src/store/repos/messages.js';
import type { MessageTable } from '../../src/store/schema.js';
import { messageRow, openStore, storeDialects, newId, userRow } from './dialects.js';

const now = () => new Date().toISOString();

describe.each(storeDialects())('group commit on %s', (dialect) => {
  let store: Store;
  let admin: Kysely<Database>;
  let dispose: () => Promise<void>;
  const userId = newId();
  const serverId = newId();
  const channelId = newId();
  const message = (content: string, id = newId()): MessageTable => messageRow({ id, channelId, serverId, authorId: userId, content });
  const stored = async (id: string) => (await store.messages.byId(store.db, channelId, id)) !== undefined;

  beforeAll(async () => {
    ({ store, admin, dispose } = await openStore(dialect));
    await store.write(async (tx) => {
      await store.users.insert(tx, userRow(userId, 'gc'));
      await store.servers.insert(tx, { id: serverId, name: 's', ownerId: userId, createdAt: now() });
      await store.channels.insert(tx, { id: channelId, serverId, name: 'general', createdAt: now() });
    });
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
});
