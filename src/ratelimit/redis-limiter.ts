import { Redis } from 'ioredis';
import { MemoryRateLimiter, type RateDecision, type RateLimiter, type RateRule, decision } from './limiter.js';

// One round trip, atomic: count the hit, open the window if there is none (the key has no
// expiry only when INCR just made it), report its age. A count of 1 is not a new window: a
// refund can bring an open window's count back to 0.
const HIT = `
local n = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {n, ttl}
`;

// Undo one hit of a window that still exists; never below zero, never opens a window.
const REFUND = `
local n = tonumber(redis.call('GET', KEYS[1]) or '0')
if n > 0 then redis.call('DECR', KEYS[1]) end
return n
`;

/**
 * The limiter shared by every instance: the same fixed windows as the in-memory one, kept
 * in Redis. While Redis is unreachable each instance falls back to its own memory
 * (limits then hold per instance), and returns to the shared windows when Redis is back.
 */
export class RedisRateLimiter implements RateLimiter {
  private readonly redis: Redis;
  private readonly fallback: MemoryRateLimiter;

  /**
   * Redis keeps the windows' time itself (PEXPIRE), so `clock` reaches only the fallback
   * used while Redis is away.
   */
  constructor(
    url: string,
    private readonly prefix: string,
    private readonly report: (err: unknown, what: string) => void,
    clock: () => number = Date.now,
  ) {
    this.fallback = new MemoryRateLimiter(clock);
    this.redis = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: true });
    this.redis.on('error', () => {});
    this.redis.defineCommand('parleyHit', { numberOfKeys: 1, lua: HIT });
    this.redis.defineCommand('parleyRefund', { numberOfKeys: 1, lua: REFUND });
  }

  async connect(): Promise<void> {
    await this.redis.connect();
  }

  async hit(rule: RateRule, key: string): Promise<RateDecision> {
    try {
      const [n, ttl] = (await (this.redis as unknown as { parleyHit(k: string, ms: number): Promise<[number, number]> }).parleyHit(
        `${this.prefix}rl:${rule.name}:${key}`,
        rule.windowMs,
      )) as [number, number];
      return decision(rule.limit, n, ttl);
    } catch (err) {
      this.report(err, 'shared rate limiter unavailable; limiting per instance');
      return this.fallback.hit(rule, key);
    }
  }

  async refund(rule: RateRule, key: string): Promise<void> {
    try {
      await (this.redis as unknown as { parleyRefund(k: string): Promise<number> }).parleyRefund(`${this.prefix}rl:${rule.name}:${key}`);
    } catch (err) {
      this.report(err, 'shared rate limiter unavailable; limiting per instance');
      await this.fallback.refund(rule, key);
    }
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
