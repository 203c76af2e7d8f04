/**
 * Snowflake ids: the generator under concurrency and a clock that steps back, and the
 * worker numbers instances lease from the database, on every database.
 */
import { compareIds, isSnowflake, MAX_SEQUENCE, snowflakeTime } from '@parley/protocol';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.js';
import { SnowflakeGenerator } from '../../src/ids.js';
import { Store } from '../../src/store/index.js';
import { emptyDatabase, storeDialects } from './dialects.js';

const workerOf = (id: string) => Number((BigInt(id) >> 12n) & 1023n);

function expectIncreasing(ids: string[]): void {
  for (let i = 1; i < ids.length; i++) if (compareIds(ids[i - 1]!, ids[i]!) >= 0) expect.fail(`${ids[i - 1]} then ${ids[i]} at ${i}`);
}

describe('the snowflake generator', () => {
  it('issues unique, increasing ids that carry their time and worker', () => {
    const gen = new SnowflakeGenerator();
    gen.lease(37, Number.POSITIVE_INFINITY);
    const before = Date.now();
    const ids = Array.from({ length: 100_000 }, () => gen.next());
    expect(new Set(ids).size).toBe(ids.length);
    expectIncreasing(ids);
    for (const id of [ids[0]!, ids.at(-1)!]) {
      expect(isSnowflake(id)).toBe(true);
      expect(workerOf(id)).toBe(37);
      expect(snowflakeTime(id)).toBeGreaterThanOrEqual(before);
    }
  });

  it('keeps ids increasing when the clock steps back, and on a clock that stands still', () => {
    const times = [10_000_000_000_000, 10_000_000_000_000, 9_999_999_000_000, 9_999_999_000_001, 10_000_000_000_002, 10_000_000_000_001];
    let i = 0;
    const gen = new SnowflakeGenerator(() => times[Math.min(i++, times.length - 1)]!);
    gen.lease(1, Number.POSITIVE_INFINITY);
    const stepped = times.map(() => gen.next());
    expectIncreasing(stepped);
    // Time never goes back in the ids: the steps back reuse the last millisecond.
    expect(stepped.map(snowflakeTime)).toEqual([1e13, 1e13, 1e13, 1e13, 1e13 + 2, 1e13 + 2]);

    // More ids in one millisecond than the sequence holds: the next millisecond is borrowed.
    const frozen = new SnowflakeGenerator(() => 20_000_000_000_000);
    frozen.lease(2, Number.POSITIVE_INFINITY);
    const burst = Array.from({ length: 3 * (MAX_SEQUENCE + 1) }, () => frozen.next());
    expectIncreasing(burst);
    expect(snowflakeTime(burst.at(-1)!)).toBe(20_000_000_000_002);
  });

  it('issues nothing past its lease, and nothing at or before where the previous holder stopped', () => {
    let now = 1_700_000_000_000;
    const gen = new SnowflakeGenerator(() => now);
    gen.lease(5, now + 1000, now + 5000);
    // The previous holder used up to now + 5000: the first id comes after it, and that is
    // past this lease's end, so nothing is issued until a renewal covers it.
    expect(() => gen.next()).toThrow(AppError);
    gen.renew(now + 10_000);
    const first = gen.next();
    expect(snowflakeTime(first)).toBe(now + 5001);
    now += 20_000;
    try {
      gen.next();
      expect.fail('issued past the lease');
    } catch (err) {
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).code).toBe('service_unavailable');
    }
  });
});

describe('the snowflake generator changing numbers', () => {
  it('keeps ids increasing when a lost lease gives it a smaller number in the same millisecond', () => {
    const gen = new SnowflakeGenerator(() => 1_700_000_000_000);
    gen.lease(900, Number.POSITIVE_INFINITY);
    const before = gen.next();
    gen.lease(3, Number.POSITIVE_INFINITY);
    const after = gen.next();
    expect(workerOf(after)).toBe(3);
    expect(compareIds(after, before)).toBeGreaterThan(0);
  });
});

describe.each(storeDialects())('worker numbers leased from %s', (dialect) => {
  let cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const c of cleanup.reverse()) await c();
    cleanup = [];
  });

  async function database() {
    const db = await emptyDatabase(dialect);
    cleanup.push(() => db.dispose());
    return db;
  }
  async function open(db: Awaited<ReturnType<typeof emptyDatabase>>, idLease?: Parameters<typeof Store.open>[0]['idLease']) {
    const store = await Store.open({ ...db.options, ...(idLease ? { idLease } : {}) });
    cleanup.push(() => store.close());
    return store;
  }

  it('instances opening at once get different numbers, so their ids never collide', async () => {
    const db = await database();
    await open(db); // migrates first, so the racing opens below only lease
    const stores = await Promise.all(Array.from({ length: 6 }, () => open(db)));
    const workers = stores.map((s) => s.worker);
    expect(new Set(workers).size).toBe(workers.length);
    // Interleaved issuing from every instance, as concurrent requests would.
    const ids: string[] = [];
    for (let round = 0; round < 2000; round++) for (const s of stores) ids.push(s.ids.next());
    expect(new Set(ids).size).toBe(ids.length);
    for (const s of stores) expect(ids.filter((id) => workerOf(id) === s.worker)).toHaveLength(2000);
  });

  it('a released number goes to the next instance, which starts after its last id even with its clock behind', async () => {
    const db = await database();
    const first = await open(db);
    // Only one number is free, so both instances must take it.
    await sql`update worker_leases set expires_at = ${Date.now() + 3600_000} where worker <> ${first.worker}`.execute(db.admin);
    const last = Array.from({ length: 100 }, () => first.ids.next()).at(-1)!;
    await first.close();
    const behind = Date.now() - 600_000;
    const second = await open(db, { clock: () => behind });
    expect(second.worker).toBe(first.worker);
    const next = second.ids.next();
    expect(compareIds(next, last)).toBeGreaterThan(0);
  });

  it('a lease taken over by another instance is given up for a new number', async () => {
    const db = await database();
    const store = await open(db, { ttlMs: 60_000, renewMs: 3600_000 });
    const before = store.worker;
    // Another instance judged the lease expired and took the number.
    await sql`update worker_leases set holder = ${'someone else'} where worker = ${before}`.execute(db.admin);
    await (store as unknown as { lease: { renew(): Promise<void> } }).lease.renew();
    expect(store.worker).not.toBe(before);
    expect(workerOf(store.ids.next())).toBe(store.worker);
  });

  it('an instance that cannot renew stops issuing ids when its lease ends', async () => {
    const db = await database();
    let now = Date.now();
    const store = await open(db, { ttlMs: 1000, renewMs: 3600_000, clock: () => now });
    expect(isSnowflake(store.ids.next())).toBe(true);
    now += 5000; // no renewal happened in the meantime
    expect(() => store.ids.next()).toThrow(AppError);
  });
});
