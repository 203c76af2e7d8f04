import { type ColumnDefinitionBuilder, type Kysely, SqliteAdapter, sql } from 'kysely';
import { MAX_WORKER, SEQUENCE_BITS, SNOWFLAKE_EPOCH, WORKER_BITS } from '@parley/protocol';
import { isLegacyId, legacyIdTime } from '../ids.js';

/**
 * Migration 0004: ids become snowflakes. Every id column becomes a 64-bit integer (SQLite:
 * `integer primary key`, the rowid itself; PostgreSQL: `bigint`), so ordering and paging
 * compare numbers. Each ULID maps to a snowflake of the same millisecond, so ids keep
 * their order; `legacy_ids` keeps the map, through which old webhook URLs, tokens and
 * upload links keep working. Uploaded bytes stay where they are: `uploads.file_key`
 * names the file of an upload whose id changed.
 *
 * Tables are rebuilt (SQLite cannot change a column's type) in one transaction: create
 * `<name>__new`, copy with ids translated, drop the old tables, rename the new ones.
 */

/** ULID → snowflake: `ms << 22 | source << 19 | rank`, rank counting ULIDs of one millisecond. */
const SOURCE_BITS = 3;
const RANK_BITS = WORKER_BITS + SEQUENCE_BITS - SOURCE_BITS;
const ULID_ANYWHERE = /(?<![0-9A-Za-z])[0-9A-HJKMNP-TV-Z]{26}(?![0-9A-Za-z])/g;
const ULID_IN_UPLOAD_URL = /\/uploads\/([0-9A-HJKMNP-TV-Z]{26})(?=\/)/g;

/** The id columns of each rebuilt table; every other column is copied as it is. */
const ID_COLUMNS: Record<string, string[]> = {
  users: ['id', 'owner_id'],
  sessions: ['id', 'user_id'],
  servers: ['id', 'owner_id'],
  channels: ['id', 'server_id'],
  members: ['server_id', 'user_id'],
  invites: ['server_id', 'created_by'],
  uploads: ['id', 'uploader_id'],
  messages: ['id', 'channel_id', 'server_id', 'author_id', 'webhook_id'],
  message_attachments: ['message_id', 'upload_id'],
  reactions: ['message_id', 'user_id'],
  webhooks: ['id', 'server_id', 'channel_id', 'created_by'],
};

/** Tables that own ids (an `id` column), each a source of the map; the last source is referenced-only ids. */
const ID_TABLES = Object.keys(ID_COLUMNS).filter((table) => ID_COLUMNS[table]!.includes('id'));
const ORPHAN_SOURCE = ID_TABLES.length;

/** Columns that hold ids of other rows, which may be gone (no foreign key, or an author long deleted). */
const REFERENCES = Object.entries(ID_COLUMNS).flatMap(([table, columns]) =>
  columns.filter((c) => c !== 'id').map((column): [table: string, column: string] => [table, column]),
);

/**
 * Assigns snowflakes to one source's ids, given in sorted order: ULIDs sort by time, so
 * the ids of one millisecond arrive together. A value that is not a ULID (none of ours
 * should be) is kept all the same, at the epoch's millisecond with a count of its own.
 */
class Ranker {
  private ms = -1;
  private rank = 0;
  private odd = 0;
  lastMs = 0;
  constructor(private readonly source: number) {}
  next(old: string): string {
    let ms: number;
    let rank: number;
    if (isLegacyId(old)) {
      ms = Math.max(legacyIdTime(old), SNOWFLAKE_EPOCH);
      this.rank = ms === this.ms ? this.rank + 1 : 0;
      this.ms = ms;
      this.lastMs = Math.max(this.lastMs, ms);
      rank = this.rank;
    } else {
      ms = SNOWFLAKE_EPOCH;
      rank = this.odd++;
    }
    if (rank >= 1 << RANK_BITS) throw new Error(`more than ${1 << RANK_BITS} ids in one millisecond`);
    return (
      (BigInt(ms - SNOWFLAKE_EPOCH) << BigInt(WORKER_BITS + SEQUENCE_BITS)) |
      (BigInt(this.source) << BigInt(RANK_BITS)) |
      BigInt(rank)
    ).toString();
  }
}

const BATCH = 1000;

async function buildMap(db: Kysely<any>): Promise<number> {
  let maxMs = 0;
  for (const [source, table] of ID_TABLES.entries()) {
    const ranker = new Ranker(source);
    let after = '';
    for (;;) {
      const rows: Array<{ id: string }> = await db
        .selectFrom(table)
        .select('id')
        .where('id', '>', after)
        .orderBy('id')
        .limit(BATCH)
        .execute();
      if (rows.length === 0) break;
      after = rows[rows.length - 1]!.id;
      await db
        .insertInto('legacy_ids')
        .values(rows.map((r) => ({ old_id: r.id, new_id: ranker.next(r.id) })))
        .execute();
    }
    maxMs = Math.max(maxMs, ranker.lastMs);
  }
  // Ids only referenced: authors deleted since, the webhook of a webhook message, … Few.
  const orphans = new Set<string>();
  for (const [table, column] of REFERENCES) {
    const rows: Array<{ v: string }> = await db
      .selectFrom(table)
      .select(sql.ref<string>(column).as('v'))
      .distinct()
      .where(sql.ref(column), 'is not', null)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('legacy_ids')
              .select('old_id')
              .where('old_id', '=', sql.ref(`${table}.${column}`)),
          ),
        ),
      )
      .execute();
    for (const r of rows) orphans.add(r.v);
  }
  const ranker = new Ranker(ORPHAN_SOURCE);
  const sorted = [...orphans].sort();
  for (let i = 0; i < sorted.length; i += BATCH) {
    await db
      .insertInto('legacy_ids')
      .values(sorted.slice(i, i + BATCH).map((id) => ({ old_id: id, new_id: ranker.next(id) })))
      .execute();
  }
  return Math.max(maxMs, ranker.lastMs);
}

type Col = (c: ColumnDefinitionBuilder) => ColumnDefinitionBuilder;

/** The tables as they are after this migration, in creation order (parents first). */
function newTables(db: Kysely<any>, sqlite: boolean) {
  // SQLite: `integer primary key` is the rowid, so the primary key is the table's own b-tree.
  const pk = sqlite ? 'integer' : 'bigint';
  const id = (c: ColumnDefinitionBuilder) => c.primaryKey();
  const ref =
    (table: string, onDelete?: 'cascade'): Col =>
    (c) => {
      const r = c.notNull().references(`${table}__new.id`);
      return onDelete ? r.onDelete(onDelete) : r;
    };
  const notNull: Col = (c) => c.notNull();
  const t = (name: string) => db.schema.createTable(`${name}__new`);
  return [
    t('users')
      .addColumn('id', pk, id)
      .addColumn('username', 'text')
      .addColumn('username_key', 'text', (c) => c.unique())
      .addColumn('name', 'text', notNull)
      .addColumn('bot', 'integer', notNull)
      .addColumn('owner_id', 'bigint')
      .addColumn('password_hash', 'text')
      .addColumn('token_hash', 'text')
      .addColumn('avatar', 'text')
      .addColumn('created_at', 'text', notNull)
      .addColumn('is_public', 'integer', (c) => c.notNull().defaultTo(0)),
    t('sessions')
      .addColumn('id', pk, id)
      .addColumn('user_id', 'bigint', ref('users', 'cascade'))
      .addColumn('token_hash', 'text', notNull)
      .addColumn('created_at', 'text', notNull),
    t('servers')
      .addColumn('id', pk, id)
      .addColumn('name', 'text', notNull)
      .addColumn('owner_id', 'bigint', ref('users'))
      .addColumn('created_at', 'text', notNull),
    t('channels')
      .addColumn('id', pk, id)
      .addColumn('server_id', 'bigint', ref('servers', 'cascade'))
      .addColumn('name', 'text', notNull)
      .addColumn('created_at', 'text', notNull),
    t('members')
      .addColumn('server_id', 'bigint', ref('servers', 'cascade'))
      .addColumn('user_id', 'bigint', ref('users', 'cascade'))
      .addColumn('permissions', 'integer', notNull)
      .addColumn('joined_at', 'text', notNull)
      .addPrimaryKeyConstraint('members__new_pk', ['server_id', 'user_id']),
    t('invites')
      .addColumn('code', 'text', (c) => c.primaryKey())
      .addColumn('server_id', 'bigint', ref('servers', 'cascade'))
      .addColumn('created_by', 'bigint', notNull)
      .addColumn('created_at', 'text', notNull),
    t('uploads')
      .addColumn('id', pk, id)
      .addColumn('uploader_id', 'bigint', notNull)
      .addColumn('filename', 'text', notNull)
      .addColumn('content_type', 'text', notNull)
      .addColumn('size', 'bigint', notNull)
      .addColumn('created_at', 'text', notNull)
      // The stored file's name when it is not the id (uploads made before snowflakes).
      .addColumn('file_key', 'text'),
    t('messages')
      .addColumn('id', pk, id)
      .addColumn('channel_id', 'bigint', ref('channels', 'cascade'))
      .addColumn('server_id', 'bigint', notNull)
      .addColumn('author_id', 'bigint', notNull)
      .addColumn('author_name', 'text', notNull)
      .addColumn('author_avatar', 'text')
      .addColumn('author_bot', 'integer', notNull)
      .addColumn('webhook_id', 'bigint')
      .addColumn('content', 'text', notNull)
      .addColumn('attachments', 'text', notNull)
      .addColumn('embeds', 'text', notNull)
      .addColumn('created_at', 'text', notNull)
      .addColumn('edited_at', 'text'),
    t('message_attachments')
      .addColumn('message_id', 'bigint', ref('messages', 'cascade'))
      // No cascade: an upload a message references cannot be deleted (see 0003).
      .addColumn('upload_id', 'bigint', ref('uploads'))
      .addPrimaryKeyConstraint('message_attachments__new_pk', ['message_id', 'upload_id']),
    t('reactions')
      .addColumn('message_id', 'bigint', ref('messages', 'cascade'))
      .addColumn('emoji', 'text', notNull)
      .addColumn('user_id', 'bigint', notNull)
      .addColumn('created_at', 'text', notNull)
      .addPrimaryKeyConstraint('reactions__new_pk', ['message_id', 'emoji', 'user_id']),
    t('webhooks')
      .addColumn('id', pk, id)
      .addColumn('server_id', 'bigint', ref('servers', 'cascade'))
      .addColumn('channel_id', 'bigint', ref('channels', 'cascade'))
      .addColumn('name', 'text', notNull)
      .addColumn('avatar', 'text')
      .addColumn('token_hash', 'text', notNull)
      .addColumn('created_by', 'bigint', notNull)
      .addColumn('created_at', 'text', notNull),
  ];
}

/** The columns of each rebuilt table before this migration. */
const COLUMNS: Record<string, string[]> = {
  users: ['id', 'username', 'username_key', 'name', 'bot', 'owner_id', 'password_hash', 'token_hash', 'avatar', 'created_at', 'is_public'],
  sessions: ['id', 'user_id', 'token_hash', 'created_at'],
  servers: ['id', 'name', 'owner_id', 'created_at'],
  channels: ['id', 'server_id', 'name', 'created_at'],
  members: ['server_id', 'user_id', 'permissions', 'joined_at'],
  invites: ['code', 'server_id', 'created_by', 'created_at'],
  uploads: ['id', 'uploader_id', 'filename', 'content_type', 'size', 'created_at'],
  messages: [
    'id',
    'channel_id',
    'server_id',
    'author_id',
    'author_name',
    'author_avatar',
    'author_bot',
    'webhook_id',
    'content',
    'attachments',
    'embeds',
    'created_at',
    'edited_at',
  ],
  message_attachments: ['message_id', 'upload_id'],
  reactions: ['message_id', 'emoji', 'user_id', 'created_at'],
  webhooks: ['id', 'server_id', 'channel_id', 'name', 'avatar', 'token_hash', 'created_by', 'created_at'],
};

const INDEXES: Array<[name: string, table: string, columns: string[]]> = [
  ['users_owner', 'users', ['owner_id']],
  ['channels_server', 'channels', ['server_id']],
  ['members_user', 'members', ['user_id']],
  ['uploads_created', 'uploads', ['created_at']],
  ['messages_channel_id', 'messages', ['channel_id', 'id']],
  ['message_attachments_upload', 'message_attachments', ['upload_id']],
  ['webhooks_server', 'webhooks', ['server_id']],
];

async function copyTables(db: Kysely<any>): Promise<void> {
  for (const [table, idColumns] of Object.entries(ID_COLUMNS)) {
    const columns = COLUMNS[table]!;
    const exprs = columns.map((c) =>
      idColumns.includes(c) ? sql`(select l.new_id from legacy_ids l where l.old_id = o.${sql.ref(c)})` : sql`o.${sql.ref(c)}`,
    );
    const targets = [...columns];
    if (table === 'uploads') {
      targets.push('file_key');
      exprs.push(sql`o.id`);
    }
    await sql`insert into ${sql.table(`${table}__new`)} (${sql.join(targets.map((c) => sql.ref(c)))}) select ${sql.join(exprs)} from ${sql.table(table)} o`.execute(
      db,
    );
  }
}

/** Rewrites the ULIDs inside text columns (upload URLs, idempotency records) to snowflakes. */
async function rewriteText(db: Kysely<any>, table: string, key: string[], column: string, pattern: RegExp, like: string) {
  // Paged by key, unless the column is part of the key: rewriting it would move rows
  // between pages, so those (idempotency records, a day's worth) are read in one go.
  const paged = !key.includes(column);
  let offset = 0;
  for (;;) {
    // Results pass CamelCasePlugin: the column is read under an alias without underscores.
    let q = db
      .selectFrom(table)
      .select([...key, sql.ref(column).as('v')])
      .where(column, 'like', like);
    for (const k of key) q = q.orderBy(k);
    if (paged) q = q.offset(offset).limit(BATCH);
    const rows: Array<Record<string, string>> = await q.execute();
    if (rows.length === 0) return;
    offset += rows.length;
    const olds = new Set<string>();
    for (const r of rows) for (const m of r.v!.matchAll(pattern)) olds.add(m[1] ?? m[0]);
    if (olds.size === 0) continue;
    const mapped: Array<{ oldId: string; newId: string }> = await db
      .selectFrom('legacy_ids')
      .select(['old_id as oldId', 'new_id as newId'])
      .where('old_id', 'in', [...olds])
      .execute();
    const map = new Map(mapped.map((m) => [m.oldId, String(m.newId)]));
    for (const r of rows) {
      const next = r.v!.replace(pattern, (whole: string, group?: string) => {
        const old = typeof group === 'string' ? group : whole;
        const to = map.get(old);
        return to === undefined ? whole : whole.replace(old, to);
      });
      if (next === r.v) continue;
      let u = db.updateTable(table).set({ [column]: next });
      for (const k of key) u = u.where(k, '=', r[k]!);
      await u.execute();
    }
    if (!paged) return;
  }
}

export async function migrateToSnowflakes(db: Kysely<any>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  // SQLite runs migrations outside a transaction (no transactional DDL in Kysely's view):
  // foreign keys go off so dropping a parent table cascades nothing, and the whole
  // rebuild is one transaction of its own. PostgreSQL's migrator already holds one.
  if (sqlite) {
    await sql`pragma foreign_keys = off`.execute(db);
    await sql`begin immediate`.execute(db);
  }
  try {
    await db.schema
      .createTable('legacy_ids')
      .addColumn('old_id', 'text', (c) => c.primaryKey())
      .addColumn('new_id', 'bigint', (c) => c.notNull())
      .execute();
    const maxMs = await buildMap(db);

    for (const table of newTables(db, sqlite)) await table.execute();
    await copyTables(db);
    for (const table of [...Object.keys(ID_COLUMNS)].reverse()) await db.schema.dropTable(table).execute();
    for (const table of Object.keys(ID_COLUMNS))
      await sql`alter table ${sql.table(`${table}__new`)} rename to ${sql.table(table)}`.execute(db);
    if (!sqlite) {
      // PostgreSQL keeps the constraint names the __new tables gave them; make them plain.
      const { rows } = await sql<{ table: string; name: string }>`
        select t.relname as table, c.conname as name from pg_constraint c
        join pg_class t on t.oid = c.conrelid
        where t.relnamespace = current_schema()::regnamespace and c.conname like '%\\_\\_new%'`.execute(db);
      for (const r of rows)
        await sql`alter table ${sql.table(r.table)} rename constraint ${sql.ref(r.name)} to ${sql.ref(r.name.replace('__new', ''))}`.execute(
          db,
        );
    }
    for (const [name, table, columns] of INDEXES) await db.schema.createIndex(name).on(table).columns(columns).execute();

    await rewriteText(db, 'messages', ['id'], 'attachments', ULID_IN_UPLOAD_URL, '%/uploads/%');
    await rewriteText(db, 'messages', ['id'], 'author_avatar', ULID_IN_UPLOAD_URL, '%/uploads/%');
    await rewriteText(db, 'users', ['id'], 'avatar', ULID_IN_UPLOAD_URL, '%/uploads/%');
    await rewriteText(db, 'webhooks', ['id'], 'avatar', ULID_IN_UPLOAD_URL, '%/uploads/%');
    // `bot:<id>` scopes and stored response bodies carry ids too: a retry after the upgrade
    // replays the same answer, with the new ids.
    await rewriteText(db, 'idempotency_keys', ['caller', 'key'], 'body', ULID_ANYWHERE, '%');
    await rewriteText(db, 'idempotency_keys', ['caller', 'key'], 'caller', ULID_ANYWHERE, '%:%');

    // Every worker number starts after the newest migrated id, whatever the clock says.
    await db.schema
      .createTable('worker_leases')
      .addColumn('worker', 'integer', (c) => c.primaryKey())
      .addColumn('holder', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('high_water', 'bigint', (c) => c.notNull())
      .execute();
    const workers = Array.from({ length: MAX_WORKER + 1 }, (_, worker) => ({
      worker,
      holder: 'migration',
      expires_at: 0,
      high_water: maxMs,
    }));
    for (let i = 0; i < workers.length; i += 256)
      await db
        .insertInto('worker_leases')
        .values(workers.slice(i, i + 256))
        .execute();

    if (sqlite) {
      const broken = await sql`pragma foreign_key_check`.execute(db);
      if (broken.rows.length > 0) throw new Error(`foreign keys broken by the id migration: ${JSON.stringify(broken.rows[0])}`);
      await sql`commit`.execute(db);
    }
  } catch (err) {
    if (sqlite) await sql`rollback`.execute(db).catch(() => {});
    throw err;
  } finally {
    if (sqlite) await sql`pragma foreign_keys = on`.execute(db);
  }
}
