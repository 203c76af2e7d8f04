import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { SnowflakeGenerator } from '../ids.js';
import type { Database } from './schema.js';

export interface LeaseOptions {
  /** How long a lease lasts without renewal. */
  ttlMs?: number;
  /** How often it is renewed; well inside the ttl, so a slow round trip does not lose it. */
  renewMs?: number;
  clock?: () => number;
}

/**
 * The worker number of this instance's snowflake generator, leased from the database, so
 * instances sharing a database never share a number. `worker_leases` has a row per number
 * (0004 creates all 1024): taking one is a compare-and-set on a row whose lease has run
 * out. `high_water` is the last millisecond the holder may have used (its lease's end
 * while it runs, its last id once released, the newest migrated id at first), and the
 * next holder issues nothing at or before it, so ids stay unique even when clocks
 * disagree or step back between holders. A lease lost (the
 * database was unreachable past the ttl, or another instance took the number) stops the
 * generator at its end; the next renewal takes a new number.
 */
export class WorkerLease {
  private readonly holder = randomUUID();
  private timer: NodeJS.Timeout | undefined;
  private worker = -1;
  private readonly ttlMs: number;
  private readonly renewMs: number;
  private readonly clock: () => number;
  private renewing: Promise<void> | undefined;

  private constructor(
    private readonly db: Kysely<Database>,
    private readonly ids: SnowflakeGenerator,
    opts: LeaseOptions,
  ) {
    this.ttlMs = opts.ttlMs ?? 30_000;
    this.renewMs = opts.renewMs ?? Math.floor(this.ttlMs / 3);
    this.clock = opts.clock ?? Date.now;
  }

  /** Takes a free number and keeps it renewed until `release`. */
  static async start(db: Kysely<Database>, ids: SnowflakeGenerator, opts: LeaseOptions = {}): Promise<WorkerLease> {
    const lease = new WorkerLease(db, ids, opts);
    await lease.acquire();
    lease.timer = setInterval(() => {
      lease.renewing ??= lease.renew().finally(() => {
        lease.renewing = undefined;
      });
    }, lease.renewMs);
    lease.timer.unref();
    return lease;
  }

  private async acquire(): Promise<void> {
    for (let attempt = 0; attempt < 20; attempt++) {
      const now = this.clock();
      const free = await this.db
        .selectFrom('workerLeases')
        .select(['worker', 'holder', 'expiresAt', 'highWater'])
        .where('expiresAt', '<', now)
        .orderBy('worker')
        .limit(8)
        .execute();
      if (free.length === 0) throw new Error('every worker number is leased: more than 1024 instances share this database');
      // Racing instances try different rows first, so they rarely collide.
      const row = free[Math.floor(Math.random() * free.length)]!;
      const startAfter = Math.max(Number(row.expiresAt), Number(row.highWater));
      const expiresAt = now + this.ttlMs;
      // Ids may run ahead of a clock that is behind the previous holder: the window of
      // milliseconds this lease may use starts where they do.
      const highWater = Math.max(now, startAfter + 1) + this.ttlMs;
      const r = await this.db
        .updateTable('workerLeases')
        .set({ holder: this.holder, expiresAt, highWater })
        .where('worker', '=', row.worker)
        .where('holder', '=', row.holder)
        .where('expiresAt', '=', row.expiresAt)
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) === 1) {
        this.worker = Number(row.worker);
        this.ids.lease(this.worker, highWater, startAfter);
        return;
      }
    }
    throw new Error('could not lease a worker number: too much contention');
  }

  /** Extends the lease; takes a new number if this one was lost. Never throws. */
  async renew(): Promise<void> {
    try {
      const now = this.clock();
      const expiresAt = now + this.ttlMs;
      const highWater = Math.max(now, this.ids.highWater) + this.ttlMs;
      const r = await this.db
        .updateTable('workerLeases')
        .set({ expiresAt, highWater })
        .where('worker', '=', this.worker)
        .where('holder', '=', this.holder)
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) === 1) this.ids.renew(highWater);
      else await this.acquire();
    } catch {
      // The database is unreachable: the generator stops at the lease's end, and the
      // next round tries again.
    }
  }

  /**
   * Gives the number back: the next holder may take it at once, and starts after the
   * last millisecond used.
   */
  async release(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.renewing;
    // Nothing is issued past the last millisecond used from here on.
    this.ids.renew(this.ids.highWater);
    await this.db
      .updateTable('workerLeases')
      .set({ expiresAt: 0, highWater: Math.max(this.ids.highWater, 0) })
      .where('worker', '=', this.worker)
      .where('holder', '=', this.holder)
      .execute();
  }
}
