import type { Kysely, Transaction } from 'kysely';
import type { Database } from './schema.js';

type Work<T> = (tx: Transaction<Database>) => Promise<T>;

/** Told of every batch committed or failed: how many writes, and seconds from begin to commit. */
export type CommitObserver = (size: number, seconds: number) => void;

/**
 * A statement that writes many rows of one kind in one round trip (`many`), and the same
 * for one row (`one`). A batch's rows go first, all in one `many`; a batch rerun with
 * savepoints writes each row with `one`, in its own write's savepoint.
 */
export interface BulkInsert<R> {
  many(tx: Transaction<Database>, rows: R[]): Promise<void>;
  one(tx: Transaction<Database>, row: R): Promise<void>;
}

interface Pending {
  /** Undefined: the write is its row alone. */
  work: Work<unknown> | undefined;
  /** A row for `bulk`, written before `work` runs. */
  row: unknown;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/**
 * Group commit: writes that arrive while a batch is being committed wait for the next
 * batch, and each batch is one transaction (one fsync). Every promise settles only after
 * its transaction committed: a resolved write is durable.
 *
 * A batch first runs its writes back to back in the transaction. Writes rarely fail, and
 * a savepoint around each one would be two more statements per write, about 40% of a
 * batched write's CPU time on SQLite. When one does fail, that attempt is rolled back and
 * the batch runs again with a savepoint per write, so the failing write rolls back alone
 * and the others still commit. A write may therefore run twice, but only its last run,
 * in the transaction that commits, takes effect: writes must only touch the database
 * through `tx` (all of ours do).
 *
 * With a `bulk` statement, a write may hand over a row (`run(work, row)`): the rows of a
 * batch are written first, by one statement, then each write's `work` runs. That is two
 * round trips less per write where every statement is one (PostgreSQL): a batch of 100
 * messages is BEGIN, one INSERT, COMMIT. It orders the batch's rows before its other
 * writes; the writes of one batch are concurrent (none waited for another), so any order
 * of them is one they could have had. If the bulk statement fails, the batch is rerun
 * with savepoints like any failing batch, each row written alone in its write's
 * savepoint, so a bad row fails its own write only.
 *
 * `concurrency` batches may be in flight at once. A pooled server database (PostgreSQL)
 * gains from several, because each statement of a batch is a network round trip and one
 * batch at a time leaves the pool idle. SQLite has one connection, whose transactions run
 * one after another; but a batch of rows alone is committed in one call (`commitRows`),
 * which SQLite's writer thread takes while it still commits the one before, so SQLite
 * has two.
 */
export class GroupCommitter<R = never> {
  private queue: Pending[] = [];
  private active = 0;
  /** Writes in the batches being committed. */
  private inFlight = 0;
  private scheduled = false;
  /** Metrics (when enabled): set after construction, so an unobserved committer pays one test per batch. */
  observer: CommitObserver | undefined;
  /**
   * The access epoch, where the store tracks it in-process: read in each batch's
   * transaction just before COMMIT, and handed over after the commit, before any of the
   * batch's writes resolves (so nobody hears of a revocation before the epoch moved).
   */
  epoch: { read: (tx: Transaction<Database>) => Promise<number>; committed: (epoch: number) => void } | undefined;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly maxBatch = 256,
    readonly concurrency = 1,
    private readonly bulk?: BulkInsert<R>,
    /**
     * Commits a batch of rows alone (writes with no `work`) in one call, all or nothing,
     * resolving with the access epoch read before its COMMIT (`DialectAdapter.commitRows`).
     * When it fails, the batch runs again as any other.
     */
    private readonly commitRows?: (rows: R[]) => Promise<number>,
  ) {}

  /**
   * Runs `work` in a batch; with `row` (needs `bulk`), the row is written first, in bulk with
   * the batch's others. Without `work`, the write is the row alone (and resolves to undefined).
   */
  run<T>(work: Work<T> | undefined, row?: R): Promise<T> {
    if (row !== undefined && !this.bulk) return Promise.reject(new Error('GroupCommitter: a row without a bulk statement'));
    if (work === undefined && row === undefined) return Promise.reject(new Error('GroupCommitter: nothing to write'));
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work: work as Work<unknown>, row, resolve: resolve as (v: unknown) => void, reject });
      if (!this.scheduled && this.active < this.concurrency) {
        this.scheduled = true;
        // Let the current tick's requests join the batch.
        setImmediate(() => {
          this.scheduled = false;
          this.next();
        });
      }
    });
  }

  /** Starts batches while there are writes waiting and room for another batch. */
  private next(): void {
    while (this.queue.length > 0 && this.active < this.concurrency) {
      // Another batch while some are in flight only once at least as many writes wait as
      // those hold: a commit has a fixed cost (SQLite writes each page it touched), so a
      // steady load makes a few large batches rather than many small ones. What waits is
      // taken when a batch ends.
      if (this.active > 0 && this.queue.length < this.inFlight) return;
      const batch = this.queue.splice(0, this.maxBatch);
      this.active++;
      this.inFlight += batch.length;
      void this.commit(batch).then(() => {
        this.active--;
        this.inFlight -= batch.length;
        // What queued up during the commit is the next batch.
        this.next();
      });
    }
  }

  /** Writes waiting for a batch, and batches being committed. */
  get load(): { queued: number; committing: number } {
    return { queued: this.queue.length, committing: this.active };
  }

  private async commit(batch: Pending[]): Promise<void> {
    let outcomes: Outcome[];
    const started = this.observer ? performance.now() : 0;
    if (this.commitRows && batch.every((p) => p.work === undefined)) {
      try {
        const epoch = await this.commitRows(batch.map((p) => p.row as R));
        this.epoch?.committed(epoch);
        this.observer?.(batch.length, (performance.now() - started) / 1000);
        for (const p of batch) p.resolve(undefined);
        return;
      } catch {
        // Nothing of it was committed: the batch runs again below, each write alone if need be.
      }
    }
    try {
      outcomes = (await this.attempt(batch, false)) ?? (await this.attempt(batch, true))!;
    } catch (error) {
      this.observer?.(batch.length, (performance.now() - started) / 1000);
      for (const p of batch) p.reject(error);
      return;
    }
    this.observer?.(batch.length, (performance.now() - started) / 1000);
    batch.forEach((p, i) => {
      const o = outcomes[i]!;
      if (o.ok) p.resolve(o.value);
      else p.reject(o.error);
    });
  }

  /**
   * One transaction over the batch. Without savepoints, the first failing write rolls the
   * attempt back and yields null (unless it is alone: then its failure is the outcome).
   * With savepoints, each failing write rolls back to its own savepoint. Throws when the
   * transaction itself fails (begin, commit): then nothing in the batch is committed.
   */
  private async attempt(batch: Pending[], savepoints: boolean): Promise<Outcome[] | null> {
    const trx = await this.db.startTransaction().execute();
    const outcomes: Outcome[] = [];
    try {
      if (!savepoints && this.bulk) {
        const rows: R[] = [];
        for (const p of batch) if (p.row !== undefined) rows.push(p.row as R);
        if (rows.length > 0) {
          try {
            await this.bulk.many(trx, rows);
          } catch (error) {
            await trx.rollback().execute();
            if (batch.length > 1) return null;
            return [{ ok: false, error }];
          }
        }
      }
      for (let i = 0; i < batch.length; i++) {
        const { work, row } = batch[i]!;
        if (!savepoints) {
          try {
            outcomes.push({ ok: true, value: await work?.(trx) });
          } catch (error) {
            await trx.rollback().execute();
            if (batch.length > 1) return null;
            return [{ ok: false, error }];
          }
          continue;
        }
        const sp = await trx.savepoint(`w${i}`).execute();
        try {
          if (row !== undefined) await this.bulk!.one(sp, row as R);
          const value = await work?.(sp);
          await sp.releaseSavepoint(`w${i}`).execute();
          outcomes.push({ ok: true, value });
        } catch (error) {
          await sp.rollbackToSavepoint(`w${i}`).execute();
          outcomes.push({ ok: false, error });
        }
      }
      const epoch = await this.epoch?.read(trx);
      await trx.commit().execute();
      if (epoch !== undefined) this.epoch!.committed(epoch);
    } catch (error) {
      await trx
        .rollback()
        .execute()
        .catch(() => {});
      throw error;
    }
    return outcomes;
  }
}
