import type { Config } from '../../config.js';
import type { DomainContext } from '../../domain/context.js';
import type { RateLimiter } from '../../ratelimit/limiter.js';

/** What every route module receives. `limiter` is null when RATE_LIMITS=off. */
export interface RouteDeps {
  ctx: DomainContext;
  limiter: RateLimiter | null;
  config: Config;
}
