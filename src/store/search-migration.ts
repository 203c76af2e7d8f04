import { type Migration, SqliteAdapter } from 'kysely';
import { postgresFullText } from './dialects/postgres.js';
import { sqliteFullText } from './dialects/sqlite.js';

/** Migrations get a bare Kysely, so the dialect is read from it, as 0004 does. */
function fullTextOf(db: Parameters<Migration['up']>[0]) {
  return db.getExecutor().adapter instanceof SqliteAdapter ? sqliteFullText : postgresFullText;
}

/**
 * 0008: the full-text index of messages (docs/api.md#search). What the index is
 * differs by database (`FullText` in src/store/dialects/types.ts: FTS5 with triggers on
 * SQLite, a GIN index on a tsvector expression on PostgreSQL); each fills it from the
 * messages already stored.
 */
export const migrateToSearch: Migration['up'] = async (db) => {
  await fullTextOf(db).migrate(db);
};

/**
 * 0010: the index takes new messages in later and in bulk where that is cheaper
 * (`FullText.deferIndexing`: SQLite queues ids, PostgreSQL's GIN index already defers).
 * Searches never see the delay: the store indexes the queue before it searches.
 */
export const migrateToDeferredSearch: Migration['up'] = async (db) => {
  await fullTextOf(db).deferIndexing(db);
};

/**
 * 0014: the index also holds each message's channel, author and `has` kinds
 * (`FullText.indexFilters`: on SQLite a second FTS5 column, and a prefix index, rebuilt
 * from the messages already stored; PostgreSQL keeps its filters as conditions on rows).
 * Nothing is added to a message's own insert: the queue of 0010 takes them in.
 */
export const migrateToSearchFilters: Migration['up'] = async (db) => {
  await fullTextOf(db).indexFilters(db);
};

/**
 * 0015 (SQLite): the index moves to a file of its own, written by a connection of its own
 * (src/store/dialects/sqlite-search.ts), so taking new messages in never holds the
 * messages' write lock. Here the old index and its queue go, and a queue numbered in commit
 * order (`messages_fts_queue`) takes every change; the new index is built from the
 * messages when the store opens.
 */
export const migrateToSeparateSearch: Migration['up'] = async (db) => {
  await fullTextOf(db).separateIndex(db);
};
