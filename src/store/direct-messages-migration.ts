import { type Kysely, SqliteAdapter, sql } from 'kysely';

/**
 * 0009: direct messages (docs/api.md#direct-messages).
 *
 * A DM is a channel without a server: `channels.server_id` becomes nullable and channels
 * gain a `type` ('text' in servers, 'dm' for two people, 'group_dm' for up to ten), the
 * owner of a group, and `dm_key` (the two ids of a pair, ascending), unique, so two people
 * have one DM however many times, or from how many instances at once, they open it.
 * Who is in a DM is `channel_recipients`. Messages of a DM store server id 0 (the column
 * has no foreign key): no server has id 0.
 *
 * `user_blocks` holds who blocked whom.
 *
 * SQLite cannot drop a NOT NULL, so its channels table is rebuilt in one transaction with
 * foreign keys off (dropping a parent table would otherwise cascade into messages), as
 * migration 0004 does; the tables that reference channels name it and follow the rename.
 */
export async function migrateToDirectMessages(db: Kysely<any>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  if (sqlite) {
    await sql`pragma foreign_keys = off`.execute(db);
    await sql`begin immediate`.execute(db);
  }
  try {
    if (sqlite) {
      await db.schema
        .createTable('channels__new')
        .addColumn('id', 'integer', (c) => c.primaryKey())
        .addColumn('server_id', 'bigint', (c) => c.references('servers.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('topic', 'text')
        .addColumn('position', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('type', 'text', (c) => c.notNull().defaultTo('text'))
        .addColumn('owner_id', 'bigint')
        .addColumn('dm_key', 'text', (c) => c.unique())
        .execute();
      await sql`insert into channels__new (id, server_id, name, created_at, topic, position)
        select id, server_id, name, created_at, topic, position from channels`.execute(db);
      await db.schema.dropTable('channels').execute();
      await sql`alter table channels__new rename to channels`.execute(db);
      await db.schema.createIndex('channels_server').on('channels').column('server_id').execute();
    } else {
      await sql`alter table channels alter column server_id drop not null`.execute(db);
      await db.schema
        .alterTable('channels')
        .addColumn('type', 'text', (c) => c.notNull().defaultTo('text'))
        .execute();
      await db.schema.alterTable('channels').addColumn('owner_id', 'bigint').execute();
      await db.schema
        .alterTable('channels')
        .addColumn('dm_key', 'text', (c) => c.unique())
        .execute();
    }

    await db.schema
      .createTable('channel_recipients')
      .addColumn('channel_id', 'bigint', (c) => c.notNull().references('channels.id').onDelete('cascade'))
      .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('added_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('channel_recipients_pk', ['channel_id', 'user_id'])
      .execute();
    await db.schema.createIndex('channel_recipients_user').on('channel_recipients').column('user_id').execute();

    await db.schema
      .createTable('user_blocks')
      .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('blocked_id', 'bigint', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('user_blocks_pk', ['user_id', 'blocked_id'])
      .execute();
    await db.schema.createIndex('user_blocks_blocked').on('user_blocks').column('blocked_id').execute();

    if (sqlite) {
      const broken = await sql`pragma foreign_key_check`.execute(db);
      if (broken.rows.length > 0) throw new Error(`foreign keys broken by the DM migration: ${JSON.stringify(broken.rows[0])}`);
      await sql`commit`.execute(db);
    }
  } catch (err) {
    if (sqlite) await sql`rollback`.execute(db).catch(() => {});
    throw err;
  } finally {
    if (sqlite) await sql`pragma foreign_keys = on`.execute(db);
  }
}
