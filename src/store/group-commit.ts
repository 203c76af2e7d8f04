import type { Kysely, Transaction } from 'kysely';
import type { Database } from './schema.js';

type Work<T> = (tx: Transaction<Database>) => Promise<T>;

interface Pending {
  work: Work<unknown>;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

/**
 * Group commit: writes that arrive while a batch is being committed wait for the next
 * batch, and each batch is one transaction (one fsync) with a savepoint per write, so a
 * failing write rolls back alone and the others still commit. Every promise settles only
 * after its transaction committed: a resolved write is durable.
 */
export class GroupCommitter {
  private queue: Pending[] = [];
  private running = false;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly maxBatch = 256,
  ) {}

  run<T>(work: Work<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work: work as Work<unknown>, resolve: resolve as (v: unknown) => void, reject });
      if (!this.running) {
        this.running = true;
        // Let the current tick's requests join the batch.
        setImmediate(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch);
      await this.commit(batch);
    }
    this.running = false;
  }

  private async commit(batch: Pending[]): Promise<void> {
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    let trx;
    try {
      trx = await this.db.startTransaction().execute();
    } catch (error) {
      for (const p of batch) p.reject(error);
      return;
    }
    try {
      if (batch.length === 1) {
        try {
          outcomes.push({ ok: true, value: await batch[0]!.work(trx) });
        } catch (error) {
          outcomes.push({ ok: false, error });
        }
      } else {
        for (let i = 0; i < batch.length; i++) {
          const sp = await trx.savepoint(`w${i}`).execute();
          try {
            const value = await batch[i]!.work(sp);
            await sp.releaseSavepoint(`w${i}`).execute();
            outcomes.push({ ok: true, value });
          } catch (error) {
            await sp.rollbackToSavepoint(`w${i}`).execute();
            outcomes.push({ ok: false, error });
          }
        }
      }
      if (batch.length === 1 && !outcomes[0]!.ok) await trx.rollback().execute();
      else await trx.commit().execute();
    } catch (error) {
      await trx.rollback().execute().catch(() => {});
      for (const p of batch) p.reject(error);
      return;
    }
    batch.forEach((p, i) => {
      const o = outcomes[i]!;
      if (o.ok) p.resolve(o.value);
      else p.reject(o.error);
    });
  }
}
