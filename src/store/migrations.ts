import { type Kysely, type Migration, type MigrationProvider, Migrator } from 'kysely';

/**
 * Every schema change, in order. One set serves SQLite and PostgreSQL: only portable
 * types (text, integer, bigint) and Kysely's schema builder, so both dialects agree.
 */
const migrations: Record<string, Migration> = {
  '0001_initial': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('users')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('username', 'text')
        .addColumn('username_key', 'text', (c) => c.unique())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('bot', 'integer', (c) => c.notNull())
        .addColumn('owner_id', 'text')
        .addColumn('password_hash', 'text')
        .addColumn('token_hash', 'text')
        .addColumn('avatar', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('users_owner').on('users').column('owner_id').execute();

      await db.schema
        .createTable('sessions')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('token_hash', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('servers')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('owner_id', 'text', (c) => c.notNull().references('users.id'))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('channels')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('server_id', 'text', (c) => c.notNull().references('servers.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('channels_server').on('channels').column('server_id').execute();

      await db.schema
        .createTable('members')
        .addColumn('server_id', 'text', (c) => c.notNull().references('servers.id').onDelete('cascade'))
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('permissions', 'integer', (c) => c.notNull())
        .addColumn('joined_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('members_pk', ['server_id', 'user_id'])
        .execute();
      await db.schema.createIndex('members_user').on('members').column('user_id').execute();

      await db.schema
        .createTable('invites')
        .addColumn('code', 'text', (c) => c.primaryKey())
        .addColumn('server_id', 'text', (c) => c.notNull().references('servers.id').onDelete('cascade'))
        .addColumn('created_by', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('uploads')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('uploader_id', 'text', (c) => c.notNull())
        .addColumn('filename', 'text', (c) => c.notNull())
        .addColumn('content_type', 'text', (c) => c.notNull())
        .addColumn('size', 'bigint', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('messages')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('channel_id', 'text', (c) => c.notNull().references('channels.id').onDelete('cascade'))
        .addColumn('server_id', 'text', (c) => c.notNull())
        .addColumn('author_id', 'text', (c) => c.notNull())
        .addColumn('author_name', 'text', (c) => c.notNull())
        .addColumn('author_avatar', 'text')
        .addColumn('author_bot', 'integer', (c) => c.notNull())
        .addColumn('webhook_id', 'text')
        .addColumn('content', 'text', (c) => c.notNull())
        .addColumn('attachments', 'text', (c) => c.notNull())
        .addColumn('embeds', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('edited_at', 'text')
        .execute();
      await db.schema.createIndex('messages_channel_id').on('messages').columns(['channel_id', 'id']).execute();

      await db.schema
        .createTable('reactions')
        .addColumn('message_id', 'text', (c) => c.notNull().references('messages.id').onDelete('cascade'))
        .addColumn('emoji', 'text', (c) => c.notNull())
        .addColumn('user_id', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('reactions_pk', ['message_id', 'emoji', 'user_id'])
        .execute();

      await db.schema
        .createTable('webhooks')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('server_id', 'text', (c) => c.notNull().references('servers.id').onDelete('cascade'))
        .addColumn('channel_id', 'text', (c) => c.notNull().references('channels.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('avatar', 'text')
        .addColumn('token_hash', 'text', (c) => c.notNull())
        .addColumn('created_by', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('webhooks_server').on('webhooks').column('server_id').execute();

      await db.schema
        .createTable('idempotency_keys')
        .addColumn('caller', 'text', (c) => c.notNull())
        .addColumn('key', 'text', (c) => c.notNull())
        .addColumn('fingerprint', 'text', (c) => c.notNull())
        .addColumn('status', 'integer', (c) => c.notNull())
        .addColumn('body', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('idempotency_keys_pk', ['caller', 'key'])
        .execute();
      await db.schema.createIndex('idempotency_keys_created').on('idempotency_keys').column('created_at').execute();
    },
  },
};

const provider: MigrationProvider = { getMigrations: async () => migrations };

/**
 * Brings the schema up to date; fails loudly if any migration fails. `schema` pins
 * Kysely's own bookkeeping tables to the schema in use, so another application's (or
 * another test's) migration tables elsewhere in the database are never mistaken for ours.
 */
export async function migrateToLatest(db: Kysely<any>, schema?: string): Promise<void> {
  const migrator = new Migrator({ db, provider, ...(schema ? { migrationTableSchema: schema } : {}) });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}
