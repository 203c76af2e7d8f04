/** Outcome of one hit on a limit. */
export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetAfter: number;
}

export interface RateRule {
  /** Bucket name, part of the key (e.g. "typing"). */
  name: string;
  limit: number;
  windowMs: number;
}

/**
 * Fixed-window limiter: a window opens at a key's first hit and allows `limit` hits
 * until it ends. In memory for one node, Redis for several (same semantics).
 */
export interface RateLimiter {
  hit(rule: RateRule, key: string): Promise<RateDecision>;
  /**
   * Takes back one hit of the current window, if it still has any: lets a limit count only
   * failures while every attempt is counted atomically up front (login: a burst of parallel
   * guesses cannot all pass a check made before the first failure is recorded).
   */
  refund(rule: RateRule, key: string): Promise<void>;
  close(): Promise<void>;
}

export class MemoryRateLimiter implements RateLimiter {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();
  private lastSweep: number;

  /** `clock`: the service's (`DomainContext.clock`), so a test can move time on. */
  constructor(private readonly clock: () => number = Date.now) {
    this.lastSweep = clock();
  }

  async hit(rule: RateRule, key: string): Promise<RateDecision> {
    const now = this.clock();
    if (now - this.lastSweep > 60_000) this.sweep(now);
    const k = `${rule.name}:${key}`;
    let w = this.windows.get(k);
    if (!w || w.resetAt <= now) {
      w = { count: 0, resetAt: now + rule.windowMs };
      this.windows.set(k, w);
    }
    w.count++;
    return decision(rule.limit, w.count, w.resetAt - now);
  }

  async refund(rule: RateRule, key: string): Promise<void> {
    const w = this.windows.get(`${rule.name}:${key}`);
    if (w && w.resetAt > this.clock() && w.count > 0) w.count--;
  }

  private sweep(now: number): void {
    this.lastSweep = now;
    for (const [k, w] of this.windows) if (w.resetAt <= now) this.windows.delete(k);
  }

  async close(): Promise<void> {}
}

/** Builds the decision for the `count`-th hit of a window with `msLeft` to go. */
export function decision(limit: number, count: number, msLeft: number): RateDecision {
  return {
    allowed: count <= limit,
    limit,
    remaining: Math.max(0, limit - count),
    resetAfter: Math.max(0, msLeft) / 1000,
  };
}
