import type { Kysely, Transaction } from 'kysely';
import type { Database, IdempotencyTable, WebhookTable, WebhookThreadTable } from '../schema.js';

type Db = Kysely<Database>;
/** Writes take the transaction `Store.write` hands out: a plain handle is a type error. */
type Tx = Transaction<Database>;

export const webhooks = {
  insert: (db: Tx, row: WebhookTable) => db.insertInto('webhooks').values(row).execute(),
  byId: (db: Db, id: string) => db.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirst(),
  ofServer: (db: Db, serverId: string) => db.selectFrom('webhooks').selectAll().where('serverId', '=', serverId).orderBy('id').execute(),
  update: (db: Tx, id: string, patch: Partial<Pick<WebhookTable, 'name' | 'channelId' | 'avatar' | 'githubThreads'>>) =>
    db.updateTable('webhooks').set(patch).where('id', '=', id).executeTakeFirst(),
  delete: (db: Tx, id: string) => db.deleteFrom('webhooks').where('id', '=', id).executeTakeFirst(),
  /** The thread a webhook keeps for `topic` (docs/webhooks.md#threads), if any. */
  threadOf: async (db: Db, webhookId: string, topic: string) =>
    (
      await db
        .selectFrom('webhookThreads')
        .select('threadId')
        .where('webhookId', '=', webhookId)
        .where('topic', '=', topic)
        .executeTakeFirst()
    )?.threadId,
  /** Makes `row.threadId` the topic's thread (replacing one of another channel or a deleted one). */
  keepThread: (db: Tx, row: WebhookThreadTable) =>
    db
      .insertInto('webhookThreads')
      .values(row)
      .onConflict((oc) => oc.columns(['webhookId', 'topic']).doUpdateSet({ threadId: row.threadId, createdAt: row.createdAt }))
      .execute(),
};

/** Stored first responses of message-creating requests, per caller and key. */
export const idempotency = {
  get: (db: Db, caller: string, key: string) =>
    db.selectFrom('idempotencyKeys').selectAll().where('caller', '=', caller).where('key', '=', key).executeTakeFirst(),
  insert: (db: Tx, row: IdempotencyTable) => db.insertInto('idempotencyKeys').values(row).execute(),
  /**
   * Records the first response under its key, replacing a record created before
   * `expiredBefore` (expired, not yet swept) in the same statement. False when a live
   * record holds the key: the caller lost a race and should replay that one.
   */
  claim: async (db: Tx, row: IdempotencyTable, expiredBefore: string) => {
    const r = await db
      .insertInto('idempotencyKeys')
      .values(row)
      .onConflict((oc) =>
        oc
          .columns(['caller', 'key'])
          .doUpdateSet({ fingerprint: row.fingerprint, status: row.status, body: row.body, createdAt: row.createdAt })
          .where('idempotencyKeys.createdAt', '<', expiredBefore),
      )
      .executeTakeFirst();
    return Number(r.numInsertedOrUpdatedRows ?? 0n) > 0;
  },
  deleteOlderThan: (db: Tx, createdBefore: string) =>
    db.deleteFrom('idempotencyKeys').where('createdAt', '<', createdBefore).executeTakeFirst(),
};
