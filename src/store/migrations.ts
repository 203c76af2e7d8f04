import { type Kysely, type Migration, type MigrationProvider, Migrator, SqliteAdapter, sql } from 'kysely';
import { migrateToAccessEpoch } from './access-epoch-migration.js';
import { migrateToConversations } from './conversations-migration.js';
import { migrateToDirectMessages } from './direct-messages-migration.js';
import { migrateToDisabledAccounts } from './disabled-accounts-migration.js';
import { migrateToInteractions } from './interactions-migration.js';
import { migrateToManagedRoles } from './managed-roles-migration.js';
import { migrateToMemberRoles } from './member-roles-migration.js';
import { migrateToRoles } from './roles-migration.js';
import { migrateToDeferredSearch, migrateToSearch, migrateToSearchFilters, migrateToSeparateSearch } from './search-migration.js';
import { migrateToSnowflakes } from './snowflake-migration.js';
import { migrateToThreadPermissions } from './thread-permissions-migration.js';
import { migrateToThreads } from './threads-migration.js';
import { migrateToUploadSecrets } from './upload-secrets-migration.js';

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
  '0002_credentials': {
    async up(db: Kysely<any>) {
      // Existing bots stay private: only their owner can add them, as the fix intends.
      await db.schema
        .alterTable('users')
        .addColumn('is_public', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
    },
  },
  '0003_uploads': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('message_attachments')
        .addColumn('message_id', 'text', (c) => c.notNull().references('messages.id').onDelete('cascade'))
        // No cascade: deleting an upload a message still references fails, so a message
        // can never end up pointing at a deleted file, whatever races the delete.
        .addColumn('upload_id', 'text', (c) => c.notNull().references('uploads.id'))
        .addPrimaryKeyConstraint('message_attachments_pk', ['message_id', 'upload_id'])
        .execute();
      // "Is this upload still referenced?" for deletes and the sweep.
      await db.schema.createIndex('message_attachments_upload').on('message_attachments').column('upload_id').execute();
      // The sweep of unattached uploads looks for old ones.
      await db.schema.createIndex('uploads_created').on('uploads').column('created_at').execute();
      await backfillMessageAttachments(db);
    },
  },
  '0004_snowflakes': { up: migrateToSnowflakes },
  '0005_roles': { up: migrateToRoles },
  '0006_accounts': {
    async up(db: Kysely<any>) {
      // Plain ALTER TABLE ADD COLUMN, so merging with the roles migration (0005) touches nothing here.
      const users = () => db.schema.alterTable('users');
      await users().addColumn('display_name', 'text').execute();
      // No cascade: an upload someone's avatar shows cannot be deleted under it (as 0003 does for messages).
      await users()
        .addColumn('avatar_upload_id', 'bigint', (c) => c.references('uploads.id'))
        .execute();
      await users().addColumn('interactions_url', 'text').execute();
      await users().addColumn('deleted_at', 'text').execute();
      await db.schema.alterTable('sessions').addColumn('last_used_at', 'text').execute();
      await db.schema.alterTable('sessions').addColumn('user_agent', 'text').execute();
      // Sessions opened before count as used now: the upgrade does not log everyone out.
      await db.updateTable('sessions').set({ last_used_at: new Date().toISOString() }).execute();
      // Listing a person's sessions, and the expiry sweep.
      await db.schema.createIndex('sessions_user').on('sessions').column('user_id').execute();
      await db.schema.createIndex('sessions_last_used').on('sessions').column('last_used_at').execute();
      // No index on messages.author_id: every message insert would pay for it, to speed up
      // only account deletion's rewrite of the author's messages, which is rare. The sweep of
      // uploads asks which avatars use one.
      await db.schema.createIndex('users_avatar_upload').on('users').column('avatar_upload_id').execute();
    },
  },
  '0007_conversations': { up: migrateToConversations },
  '0008_search': { up: migrateToSearch },
  '0009_direct_messages': { up: migrateToDirectMessages },
  '0010_search_index_queue': { up: migrateToDeferredSearch },
  '0011_disabled_accounts': { up: migrateToDisabledAccounts },
  '0012_interactions': { up: migrateToInteractions },
  '0013_access_epoch': { up: migrateToAccessEpoch },
  '0014_search_filters': { up: migrateToSearchFilters },
  '0015_search_file': { up: migrateToSeparateSearch },
  '0016_upload_secrets': { up: migrateToUploadSecrets },
  '0017_upload_dimensions': {
    async up(db: Kysely<any>) {
      // An image's pixel size, measured when stored (null: not an image, or stored before 0017).
      await db.schema.alterTable('uploads').addColumn('width', 'integer').execute();
      await db.schema.alterTable('uploads').addColumn('height', 'integer').execute();
    },
  },
  '0018_command_localizations': {
    async up(db: Kysely<any>) {
      // Discord's command fields Parley keeps and returns (JSON, null when not given).
      const commands = () => db.schema.alterTable('commands');
      await commands().addColumn('name_localizations', 'text').execute();
      await commands().addColumn('description_localizations', 'text').execute();
      await commands().addColumn('contexts', 'text').execute();
      await commands().addColumn('integration_types', 'text').execute();
    },
  },
  // A member's nickname in one server (docs/api.md, "Members"); null when they have none.
  '0019_member_nick': {
    async up(db: Kysely<any>) {
      await db.schema.alterTable('members').addColumn('nick', 'text').execute();
    },
  },
  // User and message commands (Discord's types 2 and 3; docs/commands.md, "User and message
  // commands"): a command's type, with names unique per type, and an interaction's (what its
  // answers show); and the modal a bot answered an interaction with, kept (JSON) until its one submit.
  '0020_command_types_and_modals': {
    async up(db: Kysely<any>) {
      await db.schema
        .alterTable('commands')
        .addColumn('type', 'text', (c) => c.notNull().defaultTo('chat'))
        .execute();
      await db.schema.dropIndex('commands_scope_name').execute();
      await db.schema.createIndex('commands_scope_name').unique().on('commands').columns(['bot_id', 'server_id', 'type', 'name']).execute();
      await db.schema.alterTable('interactions').addColumn('modal', 'text').execute();
      await db.schema.alterTable('interactions').addColumn('command_type', 'text').execute();
    },
  },
  '0021_member_roles': { up: migrateToMemberRoles },
  '0022_managed_roles': { up: migrateToManagedRoles },
  // A channel's parent (Discord's `parent_id`): the category a server channel sits in, or the
  // channel a thread belongs to. Null for a top-level channel and for DMs.
  '0023_channel_parents': {
    async up(db: Kysely<any>) {
      await db.schema.alterTable('channels').addColumn('parent_id', 'bigint').execute();
      await db.schema.createIndex('channels_parent').on('channels').column('parent_id').execute();
    },
  },
  // System messages (docs/api.md, "Servers"): the channel a server's welcome lines go to (null:
  // none, the default) and its flags (Discord's `system_channel_flags`; bit 0 suppresses the
  // welcome lines), and a message's type (0: an ordinary message; 7: someone joined, Discord's USER_JOIN).
  '0024_system_messages': {
    async up(db: Kysely<any>) {
      await db.schema.alterTable('servers').addColumn('system_channel_id', 'bigint').execute();
      await db.schema
        .alterTable('servers')
        .addColumn('system_channel_flags', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .alterTable('messages')
        .addColumn('type', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
    },
  },
  '0025_threads': { up: migrateToThreads },
  '0027_thread_permissions': { up: migrateToThreadPermissions },
  // A forum's defaults (docs/threads.md#forum-channels): the auto-archive duration of its new
  // posts (null: a day), how clients sort and lay out its posts (null: not set), and the
  // emoji they offer to react to a post with. Its tags are 0025's `forum_tags`.
  // And a thread's parent beside its state (it never changes), so a channel's active list and
  // its archived pages read an index in their order (bench/README.md, "Threads at scale")
  // instead of every thread of the channel and a sort.
  '0028_forum_settings': {
    async up(db: Kysely<any>) {
      await db.schema.alterTable('channels').addColumn('default_auto_archive_duration', 'integer').execute();
      await db.schema.alterTable('channels').addColumn('default_sort_order', 'text').execute();
      await db.schema.alterTable('channels').addColumn('default_forum_layout', 'text').execute();
      await db.schema.alterTable('channels').addColumn('default_reaction_emoji', 'text').execute();
      await db.schema.alterTable('threads').addColumn('parent_id', 'bigint').execute();
      await sql`update threads set parent_id = (select c.parent_id from channels c where c.id = threads.channel_id)`.execute(db);
      await db.schema
        .createIndex('threads_parent_archive')
        .on('threads')
        .columns(['parent_id', 'archived', 'archive_timestamp', 'channel_id'])
        .execute();
    },
  },
};

/** Finds the upload an attachment URL of an earlier version names: the first `/uploads/<id>`. */
const UPLOAD_IN_URL = /\/uploads\/([0-9A-Z]{26})(?=[/?#]|$)/;

/**
 * Records the uploads that messages written before 0003 reference (otherwise the sweep
 * would take them for unattached and delete them), and rewrites their attachment URLs to
 * the canonical form: earlier versions stored whatever URL the client sent, as long as
 * it started with the upload prefix. Pages through messages by id to bound memory.
 */
async function backfillMessageAttachments(db: Kysely<any>): Promise<void> {
  let after = '';
  for (;;) {
    const rows: Array<{ id: string; attachments: string }> = await db
      .selectFrom('messages')
      .select(['id', 'attachments'])
      .where('id', '>', after)
      .where('attachments', '<>', '[]')
      .orderBy('id')
      .limit(500)
      .execute();
    if (rows.length === 0) return;
    after = rows[rows.length - 1]!.id;
    const parsed = rows.map((r) => ({ id: r.id, list: parseAttachments(r.attachments) }));
    const ids = [...new Set(parsed.flatMap((m) => m.list.map((a) => UPLOAD_IN_URL.exec(a.url)?.[1] ?? '')).filter(Boolean))];
    if (ids.length === 0) continue;
    const uploads: Array<{ id: string; filename: string }> = await db
      .selectFrom('uploads')
      .select(['id', 'filename'])
      .where('id', 'in', ids)
      .execute();
    const byId = new Map(uploads.map((u) => [u.id, u]));
    const links: Array<{ message_id: string; upload_id: string }> = [];
    for (const m of parsed) {
      const referenced = new Set<string>();
      let changed = false;
      for (const a of m.list) {
        const match = UPLOAD_IN_URL.exec(a.url);
        const upload = match && byId.get(match[1]!);
        if (!match || !upload) continue;
        referenced.add(upload.id);
        // The shape of the time (0016 adds the secret): `/uploads/<id>/<name>`.
        const canonical = `${a.url.slice(0, match.index)}/uploads/${upload.id}/${encodeURIComponent(upload.filename)}`;
        if (a.url !== canonical || a.filename !== upload.filename) {
          a.url = canonical;
          a.filename = upload.filename;
          changed = true;
        }
      }
      for (const uploadId of referenced) links.push({ message_id: m.id, upload_id: uploadId });
      if (changed)
        await db
          .updateTable('messages')
          .set({ attachments: JSON.stringify(m.list) })
          .where('id', '=', m.id)
          .execute();
    }
    if (links.length > 0) await db.insertInto('message_attachments').values(links).execute();
  }
}

function parseAttachments(json: string): Array<{ url: string; filename: string }> {
  try {
    const list: unknown = JSON.parse(json);
    if (!Array.isArray(list)) return [];
    return list.filter((a): a is { url: string; filename: string } => typeof (a as { url?: unknown } | null)?.url === 'string');
  } catch {
    return [];
  }
}

/**
 * Each migration starts with PostgreSQL's deferred triggers fired (`set constraints all
 * immediate`): Kysely runs the pending migrations in one transaction, and the access-epoch
 * triggers (0013) are deferred, so rows an earlier migration changed (0022's roles) would
 * leave events pending on their tables, and PostgreSQL refuses to ALTER a table with pending
 * trigger events (0024's `servers`). SQLite has no deferred triggers.
 */
const provider: MigrationProvider = {
  getMigrations: async () =>
    Object.fromEntries(
      Object.entries(migrations).map(([name, m]) => [
        name,
        {
          up: async (db: Kysely<any>) => {
            if (!(db.getExecutor().adapter instanceof SqliteAdapter)) await sql`set constraints all immediate`.execute(db);
            await m.up(db);
          },
        },
      ]),
    ),
};

/**
 * Orders migration names by code point (they all start with a distinct 4-digit number).
 * Kysely's default, `localeCompare`, pulls ICU's collation data into memory: about 2 MB
 * of resident pages for the life of the process (bench/README.md, idle memory).
 */
const byCodePoint = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The names of every migration this release knows, in order (the last is its schema). */
export const MIGRATION_NAMES: readonly string[] = Object.keys(migrations).sort();

/** Every migration of this release and when it ran, if it did (`parley migrate --status`). */
export async function migrationStatus(db: Kysely<any>, schema?: string): Promise<Array<{ name: string; executedAt?: Date }>> {
  const migrator = new Migrator({ db, provider, nameComparator: byCodePoint, ...(schema ? { migrationTableSchema: schema } : {}) });
  return (await migrator.getMigrations()).map((m) => ({ name: m.name, ...(m.executedAt ? { executedAt: m.executedAt } : {}) }));
}

/**
 * Brings the schema up to date and returns the names of the migrations it ran (none when
 * already current); fails loudly if any migration fails. `target` stops at that migration
 * (tests build a database as an earlier version left it). `schema` pins Kysely's own
 * bookkeeping tables to the schema in use, so another application's (or another test's)
 * migration tables elsewhere in the database are never mistaken for ours.
 */
export async function migrateToLatest(db: Kysely<any>, schema?: string, target?: string): Promise<string[]> {
  const migrator = new Migrator({ db, provider, nameComparator: byCodePoint, ...(schema ? { migrationTableSchema: schema } : {}) });
  let { error, results } = await (target ? migrator.migrateTo(target) : migrator.migrateToLatest());
  // Kysely looks for its bookkeeping tables by listing every table of the database, which
  // fails on PostgreSQL (3F000) when another schema is dropped during the listing: another
  // application's, or another test's. Nothing ran then (it fails before the lock), so it is
  // tried again; a missing schema of our own still fails.
  for (let attempt = 1; error && attempt < 5 && droppedMeanwhile(error, schema); attempt++) {
    ({ error, results } = await (target ? migrator.migrateTo(target) : migrator.migrateToLatest()));
  }
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** A PostgreSQL "schema does not exist" (3F000) naming a schema other than `ours`. */
function droppedMeanwhile(error: unknown, ours: string | undefined): boolean {
  const e = error as { code?: unknown; message?: unknown };
  return e?.code === '3F000' && typeof e.message === 'string' && !(ours !== undefined && e.message.includes(`"${ours}"`));
}
