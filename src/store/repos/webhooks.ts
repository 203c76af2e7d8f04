import type { Kysely } from 'kysely';
import type { Database, IdempotencyTable, WebhookTable } from '../schema.js';

type Db = Kysely<Database>;

export const webhooks = {
  insert: (db: Db, row: WebhookTable) => db.insertInto('webhooks').values(row).execute(),
  byId: (db: Db, id: string) => db.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirst(),
  ofServer: (db: Db, serverId: string) =>
    db.selectFrom('webhooks').selectAll().where('serverId', '=', serverId).orderBy('id').execute(),
  update: (db: Db, id: string, patch: Partial<Pick<WebhookTable, 'name' | 'channelId' | 'avatar'>>) =>
    db.updateTable('webhooks').set(patch).where('id', '=', id).executeTakeFirst(),
  delete: (db: Db, id: string) => db.deleteFrom('webhooks').where('id', '=', id).executeTakeFirst(),
};

/** Stored first responses of message-creating requests, per caller and key. */
export const idempotency = {
  get: (db: Db, caller: string, key: string) =>
    db.selectFrom('idempotencyKeys').selectAll().where('caller', '=', caller).where('key', '=', key).executeTakeFirst(),
  insert: (db: Db, row: IdempotencyTable) => db.insertInto('idempotencyKeys').values(row).execute(),
  deleteOlderThan: (db: Db, createdBefore: string) =>
    db.deleteFrom('idempotencyKeys').where('createdAt', '<', createdBefore).executeTakeFirst(),
};
