import type { FastifyRequest } from 'fastify';
import { accounts } from '../../domain/accounts.js';
import type { DomainContext } from '../../domain/context.js';
import type { Caller } from '../../domain/types.js';
import { AppError, forbidden, unauthorized } from '../../errors.js';
import { stripUnsafeCharacters } from '../../domain/names.js';

export type Accept = 'any' | 'user';

/**
 * Authenticates `Authorization: Bot <token>` (bots) or `Bearer <token>` (people).
 * `accept: 'user'` refuses bots with 403: they are authenticated, just not allowed.
 */
export async function authenticate(ctx: DomainContext, request: FastifyRequest, accept: Accept): Promise<Caller> {
  const header = request.headers.authorization;
  if (!header) throw unauthorized('missing Authorization header');
  // Read first, once: the request's identity and channel access may then come from the cache.
  const read = ctx.store.accessEpoch();
  const epoch = typeof read === 'number' ? read : await read;
  const caller = await accounts.authenticate(ctx, header, epoch);
  caller.accessEpoch = epoch;
  if (accept === 'user' && caller.bot) throw forbidden('users_only', 'this endpoint is for user accounts, not bots');
  const reason = request.headers['x-audit-log-reason'];
  if (typeof reason === 'string' && reason !== '') caller.reason = auditReason(reason);
  return caller;
}

/**
 * On a route anyone may use: the caller when the credentials are valid, null when they are
 * not (401); any other failure (the store down) is still an error.
 */
export async function authenticateIfValid(ctx: DomainContext, request: FastifyRequest): Promise<Caller | null> {
  try {
    return await authenticate(ctx, request, 'any');
  } catch (err) {
    if (err instanceof AppError && err.status === 401) return null;
    throw err;
  }
}

/** An `X-Audit-Log-Reason` as Discord sends it (URL-encoded), cleaned, at most 512 characters. */
function auditReason(raw: string): string {
  let text = raw;
  try {
    text = decodeURIComponent(raw);
  } catch {
    // Not encoded: taken as it is.
  }
  return [...stripUnsafeCharacters(text).replaceAll('\u0000', '').trim()].slice(0, 512).join('');
}
