import { DEFAULT_EVERYONE_PERMISSIONS } from '@parley/protocol';
import { type Kysely, sql } from 'kysely';

/**
 * 0005: roles, channel overwrites, bans, invites with expiry and uses, server settings and
 * the audit log (docs/permissions.md).
 *
 * - Every server gets its `@everyone` role (id = the server's id) with the default
 *   permissions. A member's roles are a text column on `members` (ids joined by commas),
 *   so the one query every message request runs reads them with the membership.
 * - `servers.perm_version` counts changes to what decides permissions (roles, overwrites,
 *   the owner): computed permissions are cached per version.
 * - Bots' per-server permissions (`members.permissions`, the four legacy bits of docs/permissions.md#bots) move to a
 *   managed role per membership. Those roles need snowflakes, which are issued only under
 *   a worker lease: 0022 makes them (`migrateToManagedRoles`);
 *   `members.legacy_permissions` keeps the old bits until then.
 */
export async function migrateToRoles(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('roles')
    .addColumn('id', 'bigint', (c) => c.notNull())
    .addColumn('server_id', 'bigint', (c) => c.notNull().references('servers.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('color', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('permissions', 'text', (c) => c.notNull())
    .addColumn('hoist', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('mentionable', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('managed', 'integer', (c) => c.notNull().defaultTo(0))
    /** For a managed role: the bot it belongs to. */
    .addColumn('bot_id', 'bigint')
    .addPrimaryKeyConstraint('roles_pk', ['id'])
    .execute();
  await db.schema.createIndex('roles_server').on('roles').column('server_id').execute();

  await db.schema
    .createTable('channel_overwrites')
    .addColumn('channel_id', 'bigint', (c) => c.notNull().references('channels.id').onDelete('cascade'))
    .addColumn('server_id', 'bigint', (c) => c.notNull())
    .addColumn('target_id', 'bigint', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('allow', 'text', (c) => c.notNull())
    .addColumn('deny', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('channel_overwrites_pk', ['channel_id', 'target_id'])
    .execute();
  await db.schema.createIndex('channel_overwrites_server').on('channel_overwrites').column('server_id').execute();

  await db.schema
    .createTable('bans')
    .addColumn('server_id', 'bigint', (c) => c.notNull().references('servers.id').onDelete('cascade'))
    .addColumn('user_id', 'bigint', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('created_by', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('bans_pk', ['server_id', 'user_id'])
    .execute();

  await db.schema
    .createTable('audit_log')
    .addColumn('id', 'bigint', (c) => c.primaryKey())
    .addColumn('server_id', 'bigint', (c) => c.notNull().references('servers.id').onDelete('cascade'))
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('actor_id', 'bigint', (c) => c.notNull())
    .addColumn('target_id', 'text')
    .addColumn('changes', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('audit_log_server').on('audit_log').columns(['server_id', 'id']).execute();

  await db.schema
    .alterTable('servers')
    .addColumn('perm_version', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('servers').addColumn('icon', 'text').execute();
  await db.schema.alterTable('servers').addColumn('description', 'text').execute();
  await db.schema.alterTable('channels').addColumn('topic', 'text').execute();
  await db.schema
    .alterTable('channels')
    .addColumn('position', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('members')
    .addColumn('roles', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await db.schema.alterTable('members').renameColumn('permissions', 'legacy_permissions').execute();
  await db.schema
    .alterTable('invites')
    .addColumn('uses', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('invites')
    .addColumn('max_uses', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('invites')
    .addColumn('max_age', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('invites').addColumn('expires_at', 'text').execute();

  // Channels keep their order: by creation.
  await sql`update channels set position = (select count(*) from channels c2 where c2.server_id = channels.server_id and c2.id < channels.id)`.execute(
    db,
  );
  // Everyone but bots had the four permissions; `@everyone` now holds the defaults.
  await sql`insert into roles (id, server_id, name, color, position, permissions, hoist, mentionable, managed)
    select id, id, '@everyone', 0, 0, ${DEFAULT_EVERYONE_PERMISSIONS.toString()}, 0, 0, 0 from servers`.execute(db);
  // People need no per-member bits any more; a bot's bits wait for its managed role.
  await sql`update members set legacy_permissions = -1 where user_id in (select id from users where bot = 0)`.execute(db);
}
