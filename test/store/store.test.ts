import { CompiledQuery, type KyselyPlugin, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.js';
import { Store } from '../../src/store/index.js';
import { migrateToLatest } from '../../src/store/migrations.js';
import type { MessageTable } from '../../src/store/schema.js';
import { emptyDatabase, messageRow, openStore, storeDialects, newId, userRow } from './dialects.js';

const now = () => new Date().toISOString();

function message(channelId: string, serverId: string, authorId: string, content: string): MessageTable {
  return messageRow({ channelId, serverId, authorId, content });
}

describe.each(storeDialects())('store on %s', (dialect) => {
  let store: Store;
  let dispose: () => Promise<void>;
  const userId = newId();
  const serverId = newId();
  const channelId = newId();

  beforeAll(async () => {
    ({ store, dispose } = await openStore(dialect));
    await store.write(async (tx) => {
      await store.users.insert(tx, userRow(userId, 'Alice'));
      await store.servers.insert(tx, { id: serverId, name: 's', ownerId: userId, createdAt: now() });
      // Ids whose text order is not their order as numbers: roles come ascending as numbers.
      for (const id of ['12', '7'])
        await store.roles.insert(tx, {
          id,
          serverId,
          name: `r${id}`,
          color: 0,
          position: Number(id),
          permissions: '0',
          hoist: 0,
          mentionable: 0,
          managed: 0,
          botId: null,
        });
      await store.members.insert(tx, { serverId, userId, roles: ['12', '7'], joinedAt: now() });
      await store.channels.insert(tx, { id: channelId, serverId, name: 'general', createdAt: now() });
    });
  });
  afterAll(() => dispose?.());

  it('finds users case-insensitively and refuses a duplicate name as a conflict', async () => {
    expect((await store.users.byUsername(store.db, 'ALICE'))?.id).toBe(userId);
    const dup = store.write((tx) =>
      store.users.insert(tx, {
        id: newId(),
        username: 'alice',
        usernameKey: 'alice',
        name: 'alice',
        bot: 0,
        ownerId: null,
        passwordHash: 'x',
        tokenHash: null,
        avatar: null,
        createdAt: now(),
      }),
    );
    await expect(dup).rejects.toSatisfy((e) => e instanceof AppError && e.code === 'already_exists');
  });

  it("joins membership, channel and the server's permission version in one lookup", async () => {
    const row = await store.members.forChannel(store.db, channelId, userId);
    expect(row).toMatchObject({ channelId, serverId, roles: ['7', '12'], ownerId: userId, permVersion: 0 });
    const stranger = await store.members.forChannel(store.db, channelId, newId());
    expect(stranger?.roles ?? null).toBeNull();
    expect(await store.members.forChannel(store.db, newId(), userId)).toBeUndefined();
  });

  it.runIf(dialect === 'sqlite')('SQLite: that lookup reads the member’s roles from an index alone, with no sort', async () => {
    let compiled: CompiledQuery | undefined;
    const capture: KyselyPlugin = {
      transformQuery: (args) => {
        compiled = store.db.getExecutor().compileQuery(args.node, args.queryId);
        return args.node;
      },
      transformResult: async (args) => args.result,
    };
    await store.members.forChannel(store.db.withPlugin(capture), channelId, userId);
    const plan = await store.db.executeQuery<{ detail: string }>(
      CompiledQuery.raw(`explain query plan ${compiled!.sql}`, [...compiled!.parameters]),
    );
    const steps = plan.rows.map((r) => r.detail);
    expect(steps).toContain('SEARCH mr USING COVERING INDEX sqlite_autoindex_member_roles_1 (server_id=? AND user_id=?)');
    expect(steps.filter((d) => /^SCAN|TEMP B-TREE/.test(d))).toEqual([]);
  });

  it('pages messages newest first with before/after bounds', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) {
      const m = message(channelId, serverId, userId, `m${i}`);
      await store.write((tx) => store.messages.insert(tx, m));
      ids.push(m.id);
    }
    const first = await store.messages.page(store.db, channelId, { limit: 3 });
    expect(first.map((m) => m.content)).toEqual(['m6', 'm5', 'm4']);
    const older = await store.messages.page(store.db, channelId, { limit: 3, before: first[2]!.id });
    expect(older.map((m) => m.content)).toEqual(['m3', 'm2', 'm1']);
    const newer = await store.messages.page(store.db, channelId, { limit: 2, after: ids[1]! });
    expect(newer.map((m) => m.content)).toEqual(['m3', 'm2']);
    const between = await store.messages.page(store.db, channelId, { limit: 10, after: ids[1]!, before: ids[4]! });
    expect(between.map((m) => m.content)).toEqual(['m3', 'm2']);
  });

  it('group commit: concurrent writes commit together and a failing one rolls back alone', async () => {
    const good = Array.from({ length: 20 }, (_, i) => message(channelId, serverId, userId, `batch${i}`));
    const clash = good[3]!; // same primary key as a good one
    const results = await Promise.allSettled([
      ...good.map((m) => store.write((tx) => store.messages.insert(tx, m))),
      store.write(async (tx) => {
        await store.messages.insert(tx, message(channelId, serverId, userId, 'half-written'));
        await store.messages.insert(tx, clash);
      }),
    ]);
    expect(results.slice(0, 20).every((r) => r.status === 'fulfilled')).toBe(true);
    expect(results[20]!.status).toBe('rejected');
    const all = await store.messages.page(store.db, channelId, { limit: 100 });
    expect(all.filter((m) => m.content.startsWith('batch'))).toHaveLength(20);
    expect(all.some((m) => m.content === 'half-written')).toBe(false);
  });

  it('a write that throws leaves nothing behind', async () => {
    const m = message(channelId, serverId, userId, 'never');
    await expect(
      store.write(async (tx) => {
        await store.messages.insert(tx, m);
        throw new AppError('bad_request', 'changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    expect(await store.messages.byId(store.db, channelId, m.id)).toBeUndefined();
  });

  it('a read through the plain handle inside a write neither deadlocks nor sees the uncommitted write', async () => {
    const m = message(channelId, serverId, userId, 'inside');
    // Before reads had a connection of their own, this hung SQLite forever: the read waited
    // for the one connection that the transaction around it held.
    const seenInside = await Promise.race([
      store.write(async (tx) => {
        await store.messages.insert(tx, m);
        return (await store.messages.byId(store.db, channelId, m.id)) ?? null;
      }),
      new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 5000).unref()),
    ]);
    expect(seenInside).toBeNull();
    expect((await store.messages.byId(store.db, channelId, m.id))?.content).toBe('inside');
  });

  it('toggles reactions and summarises counts per emoji with "me"', async () => {
    const m = message(channelId, serverId, userId, 'react');
    await store.write((tx) => store.messages.insert(tx, m));
    const other = newId();
    expect(await store.write((tx) => store.reactions.add(tx, m.id, '👍', userId, now()))).toBe(true);
    expect(await store.write((tx) => store.reactions.add(tx, m.id, '👍', userId, now()))).toBe(false);
    await store.write((tx) => store.reactions.add(tx, m.id, '👍', other, now()));
    await store.write((tx) => store.reactions.add(tx, m.id, '🎉', other, now()));
    const sums = await store.reactions.summaries(store.db, [m.id], userId);
    expect(sums).toEqual([
      { messageId: m.id, emoji: '👍', count: 2, me: 1 },
      { messageId: m.id, emoji: '🎉', count: 1, me: 0 },
    ]);
    await store.write((tx) => store.reactions.remove(tx, m.id, '👍', userId));
    expect(await store.reactions.count(store.db, m.id, '👍')).toBe(1);
  });

  it('deleting a channel cascades to its messages, reactions and webhooks', async () => {
    const ch = newId();
    const m = message(ch, serverId, userId, 'doomed');
    const hookId = newId();
    await store.write(async (tx) => {
      await store.channels.insert(tx, { id: ch, serverId, name: 'tmp', createdAt: now() });
      await store.messages.insert(tx, m);
      await store.reactions.add(tx, m.id, '👍', userId, now());
      await store.webhooks.insert(tx, {
        id: hookId,
        serverId,
        channelId: ch,
        name: 'h',
        avatar: null,
        tokenHash: 'h',
        createdBy: userId,
        createdAt: now(),
      });
    });
    await store.write((tx) => store.channels.delete(tx, ch));
    expect(await store.messages.byId(store.db, ch, m.id)).toBeUndefined();
    expect(await store.reactions.count(store.db, m.id, '👍')).toBe(0);
    expect(await store.webhooks.byId(store.db, hookId)).toBeUndefined();
  });

  it('keeps one idempotency record per caller and key, and expires old ones', async () => {
    const rec = { caller: 'bot:1', key: 'k', fingerprint: 'f', status: 201, body: '{}', createdAt: now() };
    await store.write((tx) => store.idempotency.insert(tx, rec));
    await expect(store.write((tx) => store.idempotency.insert(tx, rec))).rejects.toSatisfy(
      (e) => e instanceof AppError && e.code === 'already_exists',
    );
    await store.write((tx) => store.idempotency.insert(tx, { ...rec, caller: 'bot:2' }));
    const old = { ...rec, key: 'old', createdAt: new Date(Date.now() - 25 * 3600_000).toISOString() };
    await store.write((tx) => store.idempotency.insert(tx, old));
    await store.write((tx) => store.idempotency.deleteOlderThan(tx, new Date(Date.now() - 24 * 3600_000).toISOString()));
    expect(await store.idempotency.get(store.db, 'bot:1', 'old')).toBeUndefined();
    expect(await store.idempotency.get(store.db, 'bot:1', 'k')).toBeDefined();
  });

  it('stores upload sizes as numbers beyond 32 bits', async () => {
    const id = newId();
    await store.write((tx) =>
      store.uploads.insert(tx, {
        id,
        secret: 's',
        uploaderId: userId,
        filename: 'big',
        contentType: 'application/octet-stream',
        size: 5 * 2 ** 32,
        createdAt: now(),
      }),
    );
    expect(Number((await store.uploads.byId(store.db, id))?.size)).toBe(5 * 2 ** 32);
  });

  it('reopening keeps the data and runs no migration twice', async () => {
    const db = await emptyDatabase(dialect);
    try {
      // Every migration runs once on an empty database...
      const ran = await migrateToLatest(db.admin, db.schema);
      expect(ran.length).toBeGreaterThan(0);
      // ...and opening it (twice, with a write in between) runs none of them again: a
      // re-run would fail on tables that exist, or redo a data migration.
      const first = await Store.open(db.options);
      const id = newId();
      await first.write((tx) =>
        first.users.insert(tx, {
          id,
          username: 'Kept',
          usernameKey: 'kept',
          name: 'Kept',
          bot: 0,
          ownerId: null,
          passwordHash: 'x',
          tokenHash: null,
          avatar: null,
          createdAt: now(),
        }),
      );
      await first.close();
      const second = await Store.open(db.options);
      try {
        expect((await second.users.byId(second.db, id))?.username).toBe('Kept');
      } finally {
        await second.close();
      }
      // Kysely's bookkeeping lists exactly the migrations of the first run, and a further
      // run finds nothing left to do.
      const { rows } = await sql<{ name: string }>`select name from kysely_migration`.execute(db.admin);
      expect(rows.map((r) => r.name).sort()).toEqual([...ran].sort());
      expect(await migrateToLatest(db.admin, db.schema)).toEqual([]);
    } finally {
      await db.dispose();
    }
  });
});

describe.runIf(storeDialects().includes('postgres'))('store on postgres beside another application', () => {
  it('starts in its schema although another schema holds Kysely migration tables', async () => {
    const pg = (await import('pg')).default;
    const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    const other = `other_${Date.now().toString(36)}`;
    await admin.query(`create schema ${other}`);
    await admin.query(`create table ${other}.kysely_migration (name varchar(255) primary key, timestamp varchar(255) not null)`);
    await admin.query(`create table ${other}.kysely_migration_lock (id varchar(255) primary key, is_locked integer default 0 not null)`);
    try {
      const { store, dispose } = await openStore('postgres');
      await expect(store.ping()).resolves.toBeUndefined();
      await dispose();
    } finally {
      await admin.query(`drop schema ${other} cascade`);
      await admin.end();
    }
  });
});
