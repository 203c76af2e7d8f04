import { type Kysely, sql } from 'kysely';
import type { Database, SessionTable, UserTable } from '../schema.js';

type Db = Kysely<Database>;

/** People and bots: one table, since both author messages and belong to servers. */
export const users = {
  insert: (db: Db, row: UserTable) => db.insertInto('users').values(row).execute(),
  /** Plain SQL: every authenticated request runs it, and the query builder added about a fifth to its CPU time. */
  byId: async (db: Db, id: string) => (await sql<UserTable>`select * from users where id = ${id}`.execute(db)).rows[0],
  byUsername: (db: Db, username: string) =>
    db.selectFrom('users').selectAll().where('usernameKey', '=', username.toLowerCase()).executeTakeFirst(),
  botsOf: (db: Db, ownerId: string) =>
    db.selectFrom('users').selectAll().where('ownerId', '=', ownerId).where('bot', '=', 1).orderBy('id').execute(),
  delete: (db: Db, id: string) => db.deleteFrom('users').where('id', '=', id).executeTakeFirst(),
};

/** Login sessions of people. */
export const sessions = {
  insert: (db: Db, row: SessionTable) => db.insertInto('sessions').values(row).execute(),
  byId: (db: Db, id: string) => db.selectFrom('sessions').selectAll().where('id', '=', id).executeTakeFirst(),
  delete: (db: Db, id: string) => db.deleteFrom('sessions').where('id', '=', id).executeTakeFirst(),
};
