import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { IdempotencyRequest } from '../domain/messages.js';
import { badRequest } from '../errors.js';

/**
 * Reads `Idempotency-Key` and scopes it to the caller. The fingerprint ties the key to
 * the route and body, so reusing a key for a different request is refused, not replayed.
 */
export function idempotencyOf(request: FastifyRequest, caller: string, body: unknown): IdempotencyRequest | undefined {
  const raw = request.headers['idempotency-key'];
  if (raw === undefined) return undefined;
  const key = Array.isArray(raw) ? raw[0]! : raw;
  if (!/^[\x21-\x7e]{1,255}$/.test(key)) throw badRequest('Idempotency-Key must be 1 to 255 visible ASCII characters');
  const fingerprint = createHash('sha256')
    .update(`${request.method} ${request.routeOptions.url ?? ''}\n${JSON.stringify(body ?? null)}`)
    .digest('base64url');
  return { caller, key, fingerprint };
}
