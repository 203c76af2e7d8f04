import type { FastifyReply, FastifyRequest } from 'fastify';
import { hashToken } from '../../crypto.js';
import { AppError } from '../../errors.js';
import type { RateDecision, RateLimiter, RateRule } from '../../ratelimit/limiter.js';

/**
 * The limits of every limited route (docs/api.md#rate-limits). Two are binding, from the
 * seed, the bot and webhook interface Parley grew from (typing, webhook execution); the
 * others are ours.
 */
export const RULES = {
  typing: { name: 'typing', limit: 15, windowMs: 5_000 },
  webhook: { name: 'webhook', limit: 5, windowMs: 5_000 },
  messages: { name: 'messages', limit: 10, windowMs: 5_000 },
  reactions: { name: 'reactions', limit: 20, windowMs: 5_000 },
  uploads: { name: 'uploads', limit: 10, windowMs: 60_000 },
  auth: { name: 'auth', limit: 10, windowMs: 60_000 },
  manage: { name: 'manage', limit: 30, windowMs: 10_000 },
  ack: { name: 'ack', limit: 30, windowMs: 5_000 },
  /** Commands, clicks and autocomplete, per person and channel (autocomplete: clients debounce keystrokes). */
  interactions: { name: 'interactions', limit: 20, windowMs: 5_000 },
  /** A bot's callback, follow-ups and edits, per interaction. */
  interactionReplies: { name: 'interaction-replies', limit: 10, windowMs: 5_000 },
  /** Each search reads an index and counts its matches: cheap, but not free. */
  search: { name: 'search', limit: 20, windowMs: 10_000 },
  /** The person picker's look-ups as someone types (clients debounce keystrokes). */
  contacts: { name: 'contacts', limit: 30, windowMs: 10_000 },
  /** A bot's profile for the invite page, per person: enough for a page, too few to walk the id space for public bots. */
  botProfiles: { name: 'bot-profiles', limit: 30, windowMs: 60_000 },
  /** Failed logins per account name, known or not (so the limit says nothing about which exist). */
  loginFailures: { name: 'login-failures', limit: 10, windowMs: 15 * 60_000 },
  /** Joining by invite code, per client address (generous: many people may share one address)... */
  joinByAddress: { name: 'join-address', limit: 30, windowMs: 60_000 },
  /** ...and per caller, so neither many accounts nor many addresses make guessing fast. */
  joinByCaller: { name: 'join-caller', limit: 10, windowMs: 60_000 },
} satisfies Record<string, RateRule>;

/** Applies `rule` to `key`: sets the X-RateLimit-* headers, and answers 429 past the limit. */
export async function enforce(limiter: RateLimiter | null, rule: RateRule, key: string, reply: FastifyReply): Promise<void> {
  if (!limiter) return;
  const d = await limiter.hit(rule, key);
  rateHeaders(d, reply);
  if (!d.allowed) refuse(d, rule, reply);
}

/**
 * Runs `attempt` under a limit on its failures: the attempt is counted before it runs (so
 * parallel attempts cannot slip past the limit together) and refunded unless it fails
 * with `failure`. Past the limit it answers 429 without running `attempt`, whether or not
 * it would have succeeded. Headers are set only on that 429: the count of an account's
 * failures is nobody's business while it is under the limit.
 */
export async function limitFailures<T>(
  limiter: RateLimiter | null,
  rule: RateRule,
  key: string,
  reply: FastifyReply,
  failure: AppError['code'],
  attempt: () => Promise<T>,
): Promise<T> {
  if (!limiter) return attempt();
  const d = await limiter.hit(rule, key);
  if (!d.allowed) {
    rateHeaders(d, reply);
    refuse(d, rule, reply);
  }
  let failed = false;
  try {
    return await attempt();
  } catch (err) {
    failed = err instanceof AppError && err.code === failure;
    throw err;
  } finally {
    if (!failed) await limiter.refund(rule, key);
  }
}

function rateHeaders(d: RateDecision, reply: FastifyReply): void {
  reply.header('X-RateLimit-Limit', d.limit);
  reply.header('X-RateLimit-Remaining', d.remaining);
  reply.header('X-RateLimit-Reset-After', d.resetAfter.toFixed(3));
}

function refuse(d: RateDecision, rule: RateRule, reply: FastifyReply): never {
  // Counted here, on the refusal path only: a request under its limit pays nothing.
  reply.server.metrics?.rateLimited(rule.name);
  reply.header('Retry-After', Math.max(1, Math.ceil(d.resetAfter)));
  throw new AppError('rate_limited', 'rate limited: too many requests, retry later', { retryAfter: Number(d.resetAfter.toFixed(3)) });
}

/**
 * The limiter key of a login name: case-folded as names are, and hashed so that no raw
 * client input (NUL, megabytes of it) becomes a limiter key.
 */
export const accountKey = (username: string) => hashToken(username.toLowerCase());

/** The client address as seen by this instance (set `trustProxy` behind a load balancer). */
export const clientKey = (request: FastifyRequest) => request.ip;
