import { type Kysely, sql } from 'kysely';

/**
 * 0007: mentions, replies, read states and pins (docs/api.md#messages).
 *
 * Nothing here is written per recipient. A message stores what it mentions: the users it
 * names (as a JSON snapshot, like its author), the roles it pings and whether it pings
 * everyone. Only users named one by one get a row in `message_mentions` (bounded by the
 * content's length), so that "how many times was I mentioned since I last read" is an index
 * range. Role and `@everyone` pings are found at read time through a partial index that
 * holds only the messages that have them.
 *
 * A read state is one row per person and channel, written when they acknowledge reading.
 */
export async function migrateToConversations(db: Kysely<any>): Promise<void> {
  const messages = () => db.schema.alterTable('messages');
  await messages()
    .addColumn('mentions', 'text', (c) => c.notNull().defaultTo('[]'))
    .execute();
  await messages()
    .addColumn('mention_roles', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  // 0: none; 1: @everyone; 2: @here.
  await messages()
    .addColumn('mention_everyone', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  // The message replied to (same channel); no foreign key: the reply outlives it.
  await messages().addColumn('reference_id', 'bigint').execute();
  await messages().addColumn('pinned_at', 'text').execute();

  // Partial indexes (SQLite and PostgreSQL both have them): only messages that carry such pings.
  await sql`create index messages_broad_mentions on messages (channel_id, id) where mention_everyone = 1 or mention_roles <> ''`.execute(
    db,
  );
  await sql`create index messages_pinned on messages (channel_id, pinned_at) where pinned_at is not null`.execute(db);

  await db.schema
    .createTable('message_mentions')
    .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('channel_id', 'bigint', (c) => c.notNull())
    .addColumn('message_id', 'bigint', (c) => c.notNull().references('messages.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('message_mentions_pk', ['user_id', 'channel_id', 'message_id'])
    .execute();
  // Deleting a message (and its cascade) finds its mention rows.
  await db.schema.createIndex('message_mentions_message').on('message_mentions').column('message_id').execute();

  await db.schema
    .createTable('read_states')
    .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('channel_id', 'bigint', (c) => c.notNull().references('channels.id').onDelete('cascade'))
    .addColumn('last_read_id', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('read_states_pk', ['user_id', 'channel_id'])
    .execute();
  await db.schema.createIndex('read_states_channel').on('read_states').column('channel_id').execute();

  // A person's notification and privacy settings, as one JSON document (read and written whole).
  await db.schema
    .createTable('user_settings')
    .addColumn('user_id', 'bigint', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('settings', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}
