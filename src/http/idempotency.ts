import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { IdempotencyRequest } from '../domain/messages.js';
import type { RetryIdentity } from '../domain/webhook-execution.js';
import { badRequest } from '../errors.js';

/**
 * The request's `Idempotency-Key`, validated, or undefined when it has none. Read before
 * the body, so a malformed key costs nothing and a replay can be recognised early.
 */
export function idempotencyKeyOf(request: FastifyRequest): string | undefined {
  const raw = request.headers['idempotency-key'];
  if (raw === undefined) return undefined;
  const key = Array.isArray(raw) ? raw[0]! : raw;
  if (!/^[\x21-\x7e]{1,255}$/.test(key))
    throw badRequest('Idempotency-Key must be 1 to 255 visible ASCII characters', 'invalid_idempotency_key');
  return key;
}

/** Route + body fingerprint: a key reused for a different request is refused, not replayed. */
export function fingerprintOf(request: FastifyRequest, body: unknown): string {
  return createHash('sha256')
    .update(`${request.method} ${request.routeOptions.url ?? ''}\n${JSON.stringify(body ?? null)}`)
    .digest('base64url');
}

/**
 * Reads `Idempotency-Key` and scopes it to the caller. The fingerprint ties the key to
 * the route and body, so reusing a key for a different request is refused, not replayed.
 */
export function idempotencyOf(request: FastifyRequest, caller: () => string, body: () => unknown): IdempotencyRequest | undefined {
  // Scope and body are built only for a request that has a key (most have none).
  const key = idempotencyKeyOf(request);
  return key === undefined ? undefined : { caller: caller(), key, fingerprint: fingerprintOf(request, body()) };
}

/**
 * The request's key and fingerprint for a domain action that reads them itself: the key
 * is validated only when the action asks for it, so the order of refusals stays its own.
 */
export function retryIdentityOf(request: FastifyRequest): RetryIdentity {
  return { key: () => idempotencyKeyOf(request), fingerprint: (body) => fingerprintOf(request, body) };
}
