import type { Kysely } from 'kysely';

/**
 * 0025: threads and forum channels (docs/threads.md). A thread is a row of `channels`
 * (type `public_thread` or `private_thread`, `parent_id` its text or forum channel, the
 * server's id as any channel's) with one row of `threads` beside it: what Discord's
 * `thread_metadata`, `owner_id` and counts say. `archive_due_at` is when the thread
 * archives itself unless something happens in it (its last activity plus its
 * `auto_archive_duration`), indexed so the auto-archive job reads only the due ones.
 * Thread members are their own table; a forum channel's `available_tags` are rows of
 * `forum_tags`. Everything goes with its channel (foreign keys cascade). Ids are `bigint`,
 * as every id column since 0004, so joins with `channels.id` use its key.
 */
export async function migrateToThreads(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('threads')
    .addColumn('channel_id', 'bigint', (c) => c.primaryKey().references('channels.id').onDelete('cascade'))
    .addColumn('owner_id', 'bigint', (c) => c.notNull())
    .addColumn('archived', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('locked', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('invitable', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('auto_archive_duration', 'integer', (c) => c.notNull())
    .addColumn('archive_timestamp', 'text', (c) => c.notNull())
    .addColumn('create_timestamp', 'text', (c) => c.notNull())
    .addColumn('archive_due_at', 'text', (c) => c.notNull())
    .addColumn('message_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('member_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('applied_tags', 'text', (c) => c.notNull().defaultTo('[]'))
    .execute();
  await db.schema.createIndex('threads_due').on('threads').columns(['archived', 'archive_due_at']).execute();
  await db.schema
    .createTable('thread_members')
    .addColumn('thread_id', 'bigint', (c) => c.notNull().references('channels.id').onDelete('cascade'))
    .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('join_timestamp', 'text', (c) => c.notNull())
    .addColumn('flags', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('thread_members_pk', ['thread_id', 'user_id'])
    .execute();
  await db.schema.createIndex('thread_members_user').on('thread_members').columns(['user_id', 'thread_id']).execute();
  await db.schema
    .createTable('forum_tags')
    .addColumn('id', 'bigint', (c) => c.primaryKey())
    .addColumn('channel_id', 'bigint', (c) => c.notNull().references('channels.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('moderated', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('emoji_id', 'bigint')
    .addColumn('emoji_name', 'text')
    .addColumn('position', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('forum_tags_channel').on('forum_tags').column('channel_id').execute();
}
