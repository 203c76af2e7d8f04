import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CamelCasePlugin, Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { SnowflakeGenerator } from '../../src/ids.js';
import { openSqlite, SqliteIntegers } from '../../src/store/dialects/sqlite.js';
import type { SqliteSearchIndex } from '../../src/store/dialects/sqlite-search.js';
import { type Database, Store, type StoreOptions } from '../../src/store/index.js';
import type { NewUser } from '../../src/store/repos/users.js';
import type { MessageTable } from '../../src/store/schema.js';
import { freshPostgresSchema } from '../harness.js';

/**
 * The databases the store suite runs on: SQLite always; PostgreSQL when DATABASE_URL is
 * set. Under CI (`PARLEY_REQUIRE_SERVICES=1`) a missing DATABASE_URL is an error, not a skip.
 */
export function storeDialects(): Array<'sqlite' | 'postgres'> {
  if (process.env.PARLEY_REQUIRE_SERVICES === '1' && !process.env.DATABASE_URL) {
    throw new Error('PARLEY_REQUIRE_SERVICES=1 but DATABASE_URL is not set: the PostgreSQL suite cannot be skipped');
  }
  return process.env.DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];
}

/**
 * An empty database of the given dialect, not yet opened as a store: the options that
 * open it, an `admin` connection of its own, and the schema Kysely's bookkeeping tables
 * belong in (PostgreSQL). `dispose` removes it.
 */
export async function emptyDatabase(dialect: 'sqlite' | 'postgres'): Promise<{
  options: StoreOptions;
  admin: Kysely<Database>;
  schema: string | undefined;
  dispose(): Promise<void>;
}> {
  const plugins = dialect === 'sqlite' ? [new CamelCasePlugin(), new SqliteIntegers()] : [new CamelCasePlugin()];
  if (dialect === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-store-'));
    const admin = new Kysely<Database>({ dialect: new SqliteDialect({ database: openSqlite(path.join(dir, 'parley.db')) }), plugins });
    return {
      options: { dataDir: dir },
      admin,
      schema: undefined,
      async dispose() {
        await admin.destroy();
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const fresh = await freshPostgresSchema();
  const admin = new Kysely<Database>({
    dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: fresh.url, max: 2 }) }),
    plugins,
  });
  return {
    options: { databaseUrl: fresh.url, dataDir: os.tmpdir() },
    admin,
    schema: fresh.schema,
    async dispose() {
      await admin.destroy();
      await fresh.drop();
    },
  };
}

/**
 * Opens a fresh, migrated store of the given dialect; `dispose` removes it. `admin` is a
 * connection of its own to the same database, for what the store deliberately does not
 * offer outside `write` (schema surgery, a committer under test).
 */
export async function openStore(
  dialect: 'sqlite' | 'postgres',
  options: Pick<StoreOptions, 'sqliteWriter'> = {},
): Promise<{ store: Store; admin: Kysely<Database>; dispose(): Promise<void> }> {
  const plugins = dialect === 'sqlite' ? [new CamelCasePlugin(), new SqliteIntegers()] : [new CamelCasePlugin()];
  if (dialect === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-store-'));
    const store = await Store.open({ dataDir: dir, ...options });
    const admin = new Kysely<Database>({ dialect: new SqliteDialect({ database: openSqlite(path.join(dir, 'parley.db')) }), plugins });
    return {
      store,
      admin,
      async dispose() {
        await admin.destroy();
        await store.close();
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const schema = await freshPostgresSchema();
  const store = await Store.open({ databaseUrl: schema.url, dataDir: os.tmpdir() });
  const admin = new Kysely<Database>({
    dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: schema.url, max: 4 }) }),
    plugins,
  });
  return {
    store,
    admin,
    async dispose() {
      await admin.destroy();
      await store.close();
      await schema.drop();
    },
  };
}

/**
 * Ids for rows the store suites write themselves, beside the store's own: worker 1023,
 * which a store under test (leasing from 0 up) does not reach.
 */
const testIds = new SnowflakeGenerator();
testIds.lease(1023, Number.POSITIVE_INFINITY);
export const newId = (): string => testIds.next();

/** A message row for the store suites: the given fields over plain defaults (a fresh id, now). */
export function messageRow(fields: Pick<MessageTable, 'channelId' | 'serverId' | 'authorId'> & Partial<MessageTable>): MessageTable {
  return {
    id: newId(),
    authorName: 'a',
    authorAvatar: null,
    authorBot: 0,
    webhookId: null,
    content: 'x',
    attachments: '[]',
    embeds: '[]',
    createdAt: new Date().toISOString(),
    editedAt: null,
    mentions: '[]',
    mentionRoles: '',
    mentionEveryone: 0,
    referenceId: null,
    pinnedAt: null,
    components: null,
    interaction: null,
    type: 0,
    ...fields,
  };
}

/** A person's row for tests that need one to hang servers and messages on (no password anyone uses). */
export function userRow(id: string, name: string): NewUser {
  return {
    id,
    username: name,
    usernameKey: name.toLowerCase(),
    name,
    bot: 0,
    ownerId: null,
    passwordHash: 'x',
    tokenHash: null,
    avatar: null,
    createdAt: new Date().toISOString(),
  };
}

/**
 * A channel to write messages in: its owner, server and channel ids (fixed now), `seed` to
 * create them in `store`, `message` rows for it and `stored` to look one up.
 */
export function channelFixture(name: string) {
  const userId = newId();
  const serverId = newId();
  const channelId = newId();
  const createdAt = () => new Date().toISOString();
  return {
    userId,
    serverId,
    channelId,
    seed: (store: Store) =>
      store.write(async (tx) => {
        await store.users.insert(tx, userRow(userId, name));
        await store.servers.insert(tx, { id: serverId, name: 's', ownerId: userId, createdAt: createdAt() });
        await store.channels.insert(tx, { id: channelId, serverId, name: 'general', createdAt: createdAt() });
      }),
    message: (content: string, id = newId()): MessageTable => messageRow({ id, channelId, serverId, authorId: userId, content }),
    stored: async (store: Store, id: string) => (await store.messages.byId(store.db, channelId, id)) !== undefined,
  };
}

/**
 * SQLite: the search index (its own file since 0015) passes FTS5's check of its structure,
 * has taken in every queued change, and holds exactly the messages there are, by id.
 */
export async function expectSearchIndexMatchesMessages(store: Store): Promise<void> {
  const index = store.adapter.searchIndex as SqliteSearchIndex;
  await store.catchUpSearchIndex();
  await index.check();
  const position = index.position();
  if (position.indexed !== position.queued) throw new Error(`the index is behind: ${JSON.stringify(position)}`);
  const { rows } = await sql<{ stray: number; missing: number }>`select
    (select count(*) from search.messages_fts_docsize d where not exists (select 1 from messages m where m.id = d.id)) as stray,
    (select count(*) from messages m where not exists (select 1 from search.messages_fts_docsize d where d.id = m.id)) as missing`.execute(
    store.db,
  );
  if (rows[0]!.stray !== 0 || rows[0]!.missing !== 0) throw new Error(`the index and the messages differ: ${JSON.stringify(rows[0])}`);
}

/** The ids of the messages of `channelId` (at most 10) holding the whole word `word`, newest first. */
export async function words(store: Store, channelId: string, word: string): Promise<string[]> {
  const found = await store.search.messages(store.db, {
    terms: [{ word, prefix: false }],
    channelIds: [channelId],
    has: [],
    limit: 10,
    offset: 0,
    countLimit: 10,
  });
  return found.rows.map((r) => r.id);
}
