import { newBotKeys } from '../crypto.js';
import type { Kysely } from 'kysely';

/**
 * 0012: commands and interactions (docs/commands.md).
 *
 * `commands`: a bot's commands, per scope: `server_id` is the server's id, or 0 for the
 * global ones (no server has id 0; the column has no foreign key, as messages of DMs), so
 * one unique index settles "name unique per bot and scope" on both databases (a nullable
 * column would make every global command distinct). Options are a JSON document, read
 * and written whole.
 *
 * `interactions`: one row per command, click or autocomplete, with its token's hash (the
 * token itself is never stored), its state (`pending`, `acknowledged`, `failed`) and the
 * message its answer made or edits (`original_message_id`). An ephemeral original is
 * kept here, as JSON, since it is in no channel's history.
 *
 * `bot_keys`: each bot's Ed25519 key pair for signing HTTP deliveries, apart from `users`
 * (whose row every request reads), so the private key is read only to sign. Bots that
 * exist get theirs now.
 *
 * `messages` gains `components` and `interaction` (JSON, null when absent).
 */
export async function migrateToInteractions(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('commands')
    .addColumn('id', 'bigint', (c) => c.primaryKey())
    .addColumn('bot_id', 'bigint', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('server_id', 'bigint', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('options', 'text', (c) => c.notNull())
    .addColumn('default_member_permissions', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('commands_scope_name').unique().on('commands').columns(['bot_id', 'server_id', 'name']).execute();
  // A channel's commands: those of the server's bots, by server.
  await db.schema.createIndex('commands_server').on('commands').column('server_id').execute();

  await db.schema
    .createTable('interactions')
    .addColumn('id', 'bigint', (c) => c.primaryKey())
    .addColumn('token_hash', 'text', (c) => c.notNull())
    .addColumn('bot_id', 'bigint', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('channel_id', 'bigint', (c) => c.notNull().references('channels.id').onDelete('cascade'))
    .addColumn('server_id', 'bigint', (c) => c.notNull())
    .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('callback_type', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('source_message_id', 'bigint')
    .addColumn('original_message_id', 'bigint')
    .addColumn('ephemeral_message', 'text')
    .addColumn('choices', 'text')
    .execute();
  // Clicks on an ephemeral message find the interaction that holds it.
  await db.schema.createIndex('interactions_original').on('interactions').column('original_message_id').execute();
  // The sweep of interactions past their token's life.
  await db.schema.createIndex('interactions_created').on('interactions').column('created_at').execute();

  await db.schema
    .createTable('bot_keys')
    .addColumn('bot_id', 'bigint', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('public_key', 'text', (c) => c.notNull())
    .addColumn('private_key', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  const bots: Array<{ id: string | bigint }> = await db.selectFrom('users').select('id').where('bot', '=', 1).execute();
  const now = new Date().toISOString();
  for (const bot of bots)
    await db
      .insertInto('bot_keys')
      .values({ bot_id: bot.id, ...newBotKeys(), created_at: now })
      .execute();

  await db.schema.alterTable('messages').addColumn('components', 'text').execute();
  await db.schema.alterTable('messages').addColumn('interaction', 'text').execute();
}
