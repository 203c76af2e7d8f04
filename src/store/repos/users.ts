import { type Kysely, type Transaction, sql } from 'kysely';
import type { Database, SessionTable, UserTable } from '../schema.js';

type Db = Kysely<Database>;
/** Writes take the transaction `Store.write` hands out: a plain handle is a type error. */
type Tx = Transaction<Database>;
/** A row to insert: the columns that have a default may be left out. */
export type NewUser = Omit<UserTable, 'isPublic'> & Partial<Pick<UserTable, 'isPublic'>>;

/** People and bots: one table, since both author messages and belong to servers. */
export const users = {
  /** A new user; a bot is private unless `isPublic` says otherwise. */
  insert: (db: Tx, row: NewUser) =>
    db
      .insertInto('users')
      .values({ isPublic: 0, ...row })
      .execute(),
  /** Plain SQL: every authenticated request runs it, and the query builder added about a fifth to its CPU time. */
  byId: async (db: Db, id: string) => (await sql<UserTable>`select * from users where id = ${id}`.execute(db)).rows[0],
  byUsername: (db: Db, username: string) =>
    db.selectFrom('users').selectAll().where('usernameKey', '=', username.toLowerCase()).executeTakeFirst(),
  botsOf: (db: Db, ownerId: string) =>
    db.selectFrom('users').selectAll().where('ownerId', '=', ownerId).where('bot', '=', 1).orderBy('id').execute(),
  delete: (db: Tx, id: string) => db.deleteFrom('users').where('id', '=', id).executeTakeFirst(),
  /**
   * Replaces a password hash only if it is still `previous`: a rehash at login never
   * overwrites a password changed meanwhile.
   */
  replacePasswordHash: (db: Tx, id: string, previous: string, next: string) =>
    db.updateTable('users').set({ passwordHash: next }).where('id', '=', id).where('passwordHash', '=', previous).executeTakeFirst(),
  /** A bot's own settings, as its owner edits them. */
  updateBot: (db: Tx, id: string, changes: Partial<Pick<UserTable, 'name' | 'avatar' | 'isPublic'>>) =>
    db.updateTable('users').set(changes).where('id', '=', id).where('bot', '=', 1).executeTakeFirst(),
};

/** Login sessions of people. */
export const sessions = {
  insert: (db: Tx, row: SessionTable) => db.insertInto('sessions').values(row).execute(),
  byId: (db: Db, id: string) => db.selectFrom('sessions').selectAll().where('id', '=', id).executeTakeFirst(),
  delete: (db: Tx, id: string) => db.deleteFrom('sessions').where('id', '=', id).executeTakeFirst(),
};
