import { type Kysely, type Transaction, sql } from 'kysely';
import type { Database, SessionTable, UserTable } from '../schema.js';
import { uploads } from './messages.js';

type Db = Kysely<Database>;
/** Writes take the transaction `Store.write` hands out: a plain handle is a type error. */
type Tx = Transaction<Database>;
/** A row to insert: the columns that have a default may be left out. */
export type NewUser = Omit<UserTable, 'isPublic'> & Partial<Pick<UserTable, 'isPublic'>>;

/** People and bots: one table, since both author messages and belong to servers. */
export const users = {
  /** A new user; a bot is private unless `isPublic` says otherwise. */
  insert: async (db: Tx, row: NewUser) => {
    await db
      .insertInto('users')
      .values({ isPublic: 0, ...row })
      .execute();
    if (row.avatarUploadId) await uploads.claim(db, row.avatarUploadId);
  },
  /** Plain SQL: every authenticated request runs it, and the query builder added about a fifth to its CPU time. */
  byId: async (db: Db, id: string) => (await sql<UserTable>`select * from users where id = ${id}`.execute(db)).rows[0],
  /** Whether any person (not a bot) has ever registered; deleted accounts count. */
  anyPerson: async (db: Db) => (await db.selectFrom('users').select('id').where('bot', '=', 0).limit(1).executeTakeFirst()) !== undefined,
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
  updateBot: async (db: Tx, id: string, changes: BotChanges) => {
    const r = await db.updateTable('users').set(changes).where('id', '=', id).where('bot', '=', 1).executeTakeFirst();
    if (changes.avatarUploadId) await uploads.claim(db, changes.avatarUploadId);
    return r;
  },
  /** What a person or bot changes about themselves (`PATCH /users/@me`); never a deleted account. */
  updateProfile: async (db: Tx, id: string, changes: ProfileChanges) => {
    const r = await db.updateTable('users').set(changes).where('id', '=', id).where('deletedAt', 'is', null).executeTakeFirst();
    if (changes.avatarUploadId) await uploads.claim(db, changes.avatarUploadId);
    return r;
  },
  /** Sets a new password hash. */
  setPasswordHash: (db: Tx, id: string, passwordHash: string) =>
    db.updateTable('users').set({ passwordHash }).where('id', '=', id).where('deletedAt', 'is', null).executeTakeFirst(),
  /**
   * Turns a person into the "deleted user" their messages keep as author: no login name
   * (it is free again), no credentials, no avatar. The row stays so ids still resolve.
   */
  anonymise: (db: Tx, id: string, name: string, deletedAt: string) =>
    db
      .updateTable('users')
      .set({
        username: null,
        usernameKey: null,
        name,
        displayName: null,
        avatar: null,
        avatarUploadId: null,
        passwordHash: null,
        tokenHash: null,
        deletedAt,
      })
      .where('id', '=', id)
      .where('deletedAt', 'is', null)
      .executeTakeFirst(),
  /**
   * Disables a person and their bots that are active, at `at`; marks all of them revoked
   * so running instances close their connections. Resolves with the bots disabled.
   */
  disable: async (db: Tx, id: string, at: string) => {
    await db.updateTable('users').set({ disabledAt: at, revokedAt: at }).where('id', '=', id).execute();
    const bots = await db
      .updateTable('users')
      .set({ disabledAt: at, revokedAt: at })
      .where('ownerId', '=', id)
      .where('bot', '=', 1)
      .where('disabledAt', 'is', null)
      .returning('id')
      .execute();
    return bots.length;
  },
  /** Enables a person and the bots that were disabled with them (same timestamp); resolves with those bots' count. */
  enable: async (db: Tx, id: string, disabledAt: string) => {
    await db.updateTable('users').set({ disabledAt: null }).where('id', '=', id).execute();
    const bots = await db
      .updateTable('users')
      .set({ disabledAt: null })
      .where('ownerId', '=', id)
      .where('bot', '=', 1)
      .where('disabledAt', '=', disabledAt)
      .returning('id')
      .execute();
    return bots.length;
  },
  /** Sets a password hash as an administrator does, marking the account's credentials revoked at `at`. */
  resetPasswordHash: (db: Tx, id: string, passwordHash: string, at: string) =>
    db.updateTable('users').set({ passwordHash, revokedAt: at }).where('id', '=', id).where('deletedAt', 'is', null).executeTakeFirst(),
  /** Accounts an administrator revoked after `cutoff` (ISO), for the instances' poll. */
  revokedAfter: (db: Db, cutoff: string) =>
    db.selectFrom('users').select(['id', 'revokedAt', 'disabledAt']).where('revokedAt', '>', cutoff).execute(),
};

/** Fields of a bot its owner edits. */
export type BotChanges = Partial<Pick<UserTable, 'name' | 'avatar' | 'avatarUploadId' | 'isPublic' | 'interactionsUrl'>>;
/** Fields a person or bot edits about themselves. */
export type ProfileChanges = Partial<Pick<UserTable, 'name' | 'displayName' | 'avatar' | 'avatarUploadId'>>;

/** Login sessions of people. */
export const sessions = {
  insert: (db: Tx, row: SessionTable) => db.insertInto('sessions').values(row).execute(),
  byId: (db: Db, id: string) => db.selectFrom('sessions').selectAll().where('id', '=', id).executeTakeFirst(),
  /** A person's sessions, newest first. */
  ofUser: (db: Db, userId: string) => db.selectFrom('sessions').selectAll().where('userId', '=', userId).orderBy('id', 'desc').execute(),
  delete: (db: Tx, id: string) => db.deleteFrom('sessions').where('id', '=', id).executeTakeFirst(),
  /** Deletes one session of `userId`; resolves with whether there was one. */
  deleteOf: async (db: Tx, userId: string, id: string) =>
    Number((await db.deleteFrom('sessions').where('id', '=', id).where('userId', '=', userId).executeTakeFirst()).numDeletedRows) > 0,
  /** Deletes every session of `userId` but `keep` (none kept when null); resolves with the ids deleted. */
  deleteAllBut: async (db: Tx, userId: string, keep: string | null) => {
    let q = db.deleteFrom('sessions').where('userId', '=', userId);
    if (keep !== null) q = q.where('id', '<>', keep);
    return (await q.returning('id').execute()).map((r) => r.id);
  },
  /** Records a use; only ever moves `lastUsedAt` forward. */
  touch: (db: Tx, id: string, lastUsedAt: string) =>
    db
      .updateTable('sessions')
      .set({ lastUsedAt })
      .where('id', '=', id)
      .where((eb) => eb.or([eb('lastUsedAt', 'is', null), eb('lastUsedAt', '<', lastUsedAt)]))
      .executeTakeFirst(),
  /** Deletes up to `limit` sessions unused since `cutoff`; resolves with who they belonged to. */
  deleteUnusedSince: async (db: Tx, cutoff: string, limit: number) => {
    const stale = db
      .selectFrom('sessions')
      .select('id')
      .where((eb) => eb.or([eb('lastUsedAt', '<', cutoff), eb.and([eb('lastUsedAt', 'is', null), eb('createdAt', '<', cutoff)])]))
      .limit(limit);
    return db.deleteFrom('sessions').where('id', 'in', stale).returning(['id', 'userId']).execute();
  },
};
