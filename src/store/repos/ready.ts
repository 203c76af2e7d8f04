import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';

type Db = Kysely<Database>;

/**
 * What a gateway session's snapshot reads (`domain/ready.ts`, docs/gateway.md#connecting-hello-identify-ready)
 * beyond what the servers, members and messages repositories already answer: each read
 * covers every server of the identity in one query.
 */
export const ready = {
  /** The roles of `serverIds`, by position then id (as `roles.ofServer` lists one server's). */
  rolesOf: (db: Db, serverIds: readonly string[]) =>
    serverIds.length === 0
      ? Promise.resolve([])
      : db.selectFrom('roles').selectAll().where('serverId', 'in', serverIds).orderBy('position').orderBy('id').execute(),
  /** `userId`'s memberships: when it joined each server, and its nickname there. */
  membershipsOf: (db: Db, userId: string) =>
    db.selectFrom('members').select(['serverId', 'joinedAt', 'nick']).where('userId', '=', userId).execute(),
};
