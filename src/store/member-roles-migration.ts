import { type Kysely, SqliteAdapter, sql } from 'kysely';
import { accessTrigger } from './access-epoch-migration.js';

/**
 * 0021: a member's roles move from `members.roles` (ids joined by commas, searched with
 * LIKE; deleting a role rewrote every holder's row) to `member_roles`, one row per
 * assignment (docs/decisions/0002-member-roles-table.md).
 *
 * - The primary key (server, user, role) answers "a member's roles" from the index alone
 *   (the one query of every message request aggregates it), and serves the foreign key to
 *   `members`: a member's removal (and so a server's) takes its rows with it.
 * - `member_roles_role` (role, user) answers "the holders of a role", and serves the foreign
 *   key to `roles`: a role's deletion takes its rows with it without a scan. Role ids are
 *   unique across servers, so the server is not needed in front of it.
 * - Every assignment is copied, on both databases, by one statement each: the ids of the
 *   comma-joined text that name a role of the member's server (a role's deletion removed
 *   its id from every holder, so there is nothing else; one that escaped by hand is not an
 *   assignment of any role and would break the foreign key). `@everyone` is never listed.
 * - Inserts and deletes bump the access epoch (0013) as `members` updates did: gaining a
 *   role can take access away (a role with a channel overwrite that denies).
 * - The column is then dropped: nothing reads it, and SQLite (3.35 and later, which
 *   better-sqlite3 bundles) drops a column no index, trigger or view names in place.
 */
export async function migrateToMemberRoles(db: Kysely<unknown>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  await db.schema
    .createTable('member_roles')
    .addColumn('server_id', 'bigint', (c) => c.notNull())
    .addColumn('user_id', 'bigint', (c) => c.notNull())
    .addColumn('role_id', 'bigint', (c) => c.notNull().references('roles.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('member_roles_pk', ['server_id', 'user_id', 'role_id'])
    .addForeignKeyConstraint('member_roles_member', ['server_id', 'user_id'], 'members', ['server_id', 'user_id'], (fk) =>
      fk.onDelete('cascade'),
    )
    .execute();
  await db.schema.createIndex('member_roles_role').on('member_roles').columns(['role_id', 'user_id']).execute();

  // The ids of `members.roles`, one row each: SQLite walks the text with a recursive CTE,
  // PostgreSQL splits it into an array.
  const assignments = sqlite
    ? sql`with recursive split(server_id, user_id, id, rest) as (
          select server_id, user_id, '', roles || ',' from members where roles <> ''
          union all
          select server_id, user_id, substr(rest, 1, instr(rest, ',') - 1), substr(rest, instr(rest, ',') + 1)
          from split where rest <> ''
        )
        select distinct s.server_id, s.user_id, r.id as role_id
        from split s join roles r on r.server_id = s.server_id and r.id = cast(s.id as integer)
        where s.id <> '' and s.id not glob '*[^0-9]*' and r.id <> r.server_id`
    : sql`select distinct m.server_id, m.user_id, r.id as role_id
        from members m cross join lateral unnest(string_to_array(m.roles, ',')) as t(id)
        join roles r on r.server_id = m.server_id and r.id::text = t.id
        where m.roles <> '' and r.id <> r.server_id`;
  await sql`insert into member_roles (server_id, user_id, role_id) ${assignments}`.execute(db);

  await db.schema.alterTable('members').dropColumn('roles').execute();
  for (const event of ['insert', 'delete']) await accessTrigger(db, sqlite, 'member_roles', event);
}
