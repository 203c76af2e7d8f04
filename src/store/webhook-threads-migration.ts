import type { Kysely } from 'kysely';

/**
 * 0029: webhooks that keep a thread per topic (docs/webhooks.md#threads). `github_threads`
 * (0 or 1) is the GitHub dialect's option: the first event of an issue or pull request starts
 * a thread from its message, later events of it post there. `webhook_threads` remembers which
 * thread each topic (`owner/repo#123`) of a webhook has; a row goes with its webhook and with
 * its thread (a deleted thread is started again by the next event).
 */
export async function migrateToWebhookThreads(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('webhooks')
    .addColumn('github_threads', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createTable('webhook_threads')
    .addColumn('webhook_id', 'bigint', (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
    .addColumn('topic', 'text', (c) => c.notNull())
    .addColumn('thread_id', 'bigint', (c) => c.notNull().references('channels.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('webhook_threads_pk', ['webhook_id', 'topic'])
    .execute();
  // A thread's deletion cascades here through its id.
  await db.schema.createIndex('webhook_threads_thread').on('webhook_threads').column('thread_id').execute();
}
