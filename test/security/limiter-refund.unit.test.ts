/**
 * `RateLimiter.refund`, which lets login limits count failures only: the same behaviour
 * in memory and, when REDIS_URL is set, in Redis.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryRateLimiter, type RateLimiter } from '../../src/ratelimit/limiter.js';
import { RedisRateLimiter } from '../../src/ratelimit/redis-limiter.js';

const limiters: Array<[string, () => Promise<RateLimiter>]> = [['memory', async () => new MemoryRateLimiter()]];
if (process.env.REDIS_URL) {
  limiters.push([
    'redis',
    async () => {
      const prefix = `parley-test-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}:`;
      const l = new RedisRateLimiter(process.env.REDIS_URL!, prefix, (err) => {
        throw err;
      });
      await l.connect();
      return l;
    },
  ]);
}

describe.each(limiters)('%s limiter', (_, open) => {
  const opened: RateLimiter[] = [];
  const limiter = async () => {
    const l = await open();
    opened.push(l);
    return l;
  };
  afterAll(async () => {
    for (const l of opened) await l.close();
  });
  const rule = { name: 'refund-test', limit: 3, windowMs: 60_000 };

  it('a refunded hit does not count', async () => {
    const l = await limiter();
    for (let i = 0; i < 10; i++) {
      expect((await l.hit(rule, 'a')).allowed).toBe(true);
      await l.refund(rule, 'a');
    }
    const d = await l.hit(rule, 'a');
    expect(d).toMatchObject({ allowed: true, remaining: 2 });
  });

  it('unrefunded hits still run out, and a refund never goes below zero or opens a window', async () => {
    const l = await limiter();
    await l.refund(rule, 'b');
    await l.refund(rule, 'b');
    for (let i = 0; i < 3; i++) expect((await l.hit(rule, 'b')).allowed).toBe(true);
    const refused = await l.hit(rule, 'b');
    expect(refused.allowed).toBe(false);
    expect(refused.resetAfter).toBeGreaterThan(59);
    // Other keys and rules are their own.
    expect((await l.hit(rule, 'c')).remaining).toBe(2);
    expect((await l.hit({ ...rule, name: 'other' }, 'b')).remaining).toBe(2);
  });

  it('the window keeps its end: a refund does not extend it', async () => {
    const l = await limiter();
    const first = await l.hit(rule, 'd');
    // The window ages a little (this stages the input; nothing waits on it for a result), so
    // one the refund had opened again would end measurably later than the first one.
    await new Promise((resolve) => setTimeout(resolve, 100));
    await l.refund(rule, 'd');
    const after = await l.hit(rule, 'd');
    expect(after.remaining).toBe(2);
    // Clocks differ by a millisecond between Redis's script calls: compare well past that.
    expect(after.resetAfter).toBeLessThan(first.resetAfter - 0.05);
  });
});
