import type { FastifyRequest } from 'fastify';
import { accounts } from '../../domain/accounts.js';
import type { DomainContext } from '../../domain/context.js';
import type { Caller } from '../../domain/types.js';
import { forbidden, unauthorized } from '../../errors.js';

export type Accept = 'any' | 'user';

/**
 * Authenticates `Authorization: Bot <token>` (bots) or `Bearer <token>` (people).
 * `accept: 'user'` refuses bots with 403: they are authenticated, just not allowed.
 */
export async function authenticate(ctx: DomainContext, request: FastifyRequest, accept: Accept): Promise<Caller> {
  const header = request.headers.authorization;
  if (!header) throw unauthorized('missing Authorization header');
  const caller = await accounts.authenticate(ctx, header);
  if (accept === 'user' && caller.bot) throw forbidden('users_only', 'this endpoint is for user accounts, not bots');
  return caller;
}
