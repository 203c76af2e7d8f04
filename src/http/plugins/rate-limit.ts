import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../errors.js';
import type { RateLimiter, RateRule } from '../../ratelimit/limiter.js';

/**
 * The limits of every limited route. The seed's two are binding (typing, webhook);
 * the others are ours, documented in docs/api.md.
 */
export const RULES = {
  typing: { name: 'typing', limit: 15, windowMs: 5_000 },
  webhook: { name: 'webhook', limit: 5, windowMs: 5_000 },
  messages: { name: 'messages', limit: 10, windowMs: 5_000 },
  reactions: { name: 'reactions', limit: 20, windowMs: 5_000 },
  uploads: { name: 'uploads', limit: 10, windowMs: 60_000 },
  auth: { name: 'auth', limit: 10, windowMs: 60_000 },
  manage: { name: 'manage', limit: 30, windowMs: 10_000 },
} satisfies Record<string, RateRule>;

/** Applies `rule` to `key`: sets the X-RateLimit-* headers, and answers 429 past the limit. */
export async function enforce(
  limiter: RateLimiter | null,
  rule: RateRule,
  key: string,
  reply: FastifyReply,
): Promise<void> {
  if (!limiter) return;
  const d = await limiter.hit(rule, key);
  const resetAfter = d.resetAfter.toFixed(3);
  reply.header('X-RateLimit-Limit', d.limit);
  reply.header('X-RateLimit-Remaining', d.remaining);
  reply.header('X-RateLimit-Reset-After', resetAfter);
  if (!d.allowed) {
    reply.header('Retry-After', Math.max(1, Math.ceil(d.resetAfter)));
    throw new AppError('rate_limited', 'rate limited: too many requests, retry later', { retryAfter: Number(resetAfter) });
  }
}

/** The client address as seen by this instance (set `trustProxy` behind a load balancer). */
export const clientKey = (request: FastifyRequest) => request.ip;
