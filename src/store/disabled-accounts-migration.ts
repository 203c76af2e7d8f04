import type { Migration } from 'kysely';

/**
 * 0011: accounts an administrator disabled (`parley users disable`). Only adds nullable
 * columns and an index, so an instance still running the previous release keeps working
 * on the migrated database (it just does not enforce the new column).
 *
 * - `disabled_at`: when the account (or, for a bot, its owner) was disabled; null when
 *   it is active. A bot disabled with its owner carries the owner's timestamp, which is
 *   how `users enable` knows which bots to bring back.
 * - `revoked_at`: when an administrator last ended the account's credentials from outside
 *   the service (disable, reset-password). Running instances poll it to close the gateway
 *   connections of those accounts, since the command runs in another process.
 */
export const migrateToDisabledAccounts: Migration['up'] = async (db) => {
  await db.schema.alterTable('users').addColumn('disabled_at', 'text').execute();
  await db.schema.alterTable('users').addColumn('revoked_at', 'text').execute();
  await db.schema.createIndex('users_revoked').on('users').column('revoked_at').execute();
};
