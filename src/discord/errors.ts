/**
 * Errors and rate limits as Discord answers them: `{message, code}` with Discord's numeric
 * JSON error codes (https://discord.com/developers/docs/topics/opcodes-and-status-codes#json),
 * `errors` beside code 50035, and a 429's `{message, retry_after, global}` with the
 * `X-RateLimit-*` headers. The HTTP status is always our catalog's: only the body changes.
 *
 * Every error is first classified by the native handler's `errorAnswer` (so Fastify's own
 * failures mean the same on both paths), then its catalog code is looked up in
 * `DISCORD_CODES`, the one table from our codes to Discord's.
 */
import { createHash } from 'node:crypto';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { P } from '@parley/protocol';
import { type AppError, type ErrorCode, errorStatus } from '../errors.js';
import { errorAnswer } from '../http/plugins/errors.js';

/** Discord's JSON error codes Parley answers with. */
export const DISCORD = {
  GENERAL: 0,
  UNKNOWN_CHANNEL: 10003,
  UNKNOWN_GUILD: 10004,
  UNKNOWN_INVITE: 10006,
  UNKNOWN_MEMBER: 10007,
  UNKNOWN_MESSAGE: 10008,
  UNKNOWN_OVERWRITE: 10009,
  UNKNOWN_ROLE: 10011,
  UNKNOWN_USER: 10013,
  UNKNOWN_EMOJI: 10014,
  UNKNOWN_WEBHOOK: 10015,
  UNKNOWN_BAN: 10026,
  UNKNOWN_INTERACTION: 10062,
  UNKNOWN_COMMAND: 10063,
  BOTS_CANNOT_USE: 20001,
  MAX_PINS: 30003,
  MAX_ROLES: 30005,
  MAX_REACTIONS: 30010,
  UNAUTHORIZED: 40001,
  REQUEST_TOO_LARGE: 40005,
  BANNED: 40007,
  ALREADY_ACKNOWLEDGED: 40060,
  MISSING_ACCESS: 50001,
  CANNOT_EDIT_OTHERS_MESSAGE: 50005,
  CANNOT_DM: 50007,
  CANNOT_SEND_IN_NON_TEXT: 50008,
  MISSING_PERMISSIONS: 50013,
  SYSTEM_MESSAGE: 50021,
  INVALID_WEBHOOK_TOKEN: 50027,
  MESSAGE_TOO_OLD: 50034,
  INVALID_FORM_BODY: 50035,
  CANNOT_REPLY_WITHOUT_HISTORY: 160002,
  THREAD_ARCHIVED: 50083,
  THREAD_ALREADY_CREATED: 160004,
  THREAD_LOCKED: 160005,
} as const;

/**
 * Our catalog code → Discord's. A code not listed gets its status's default
 * (`byStatus`). `missing_permission` lacking VIEW_CHANNEL is 50001 (see `discordCode`).
 */
export const DISCORD_CODES: Partial<Record<ErrorCode, number>> = {
  // 400
  bad_request: DISCORD.INVALID_FORM_BODY,
  invalid_body: DISCORD.INVALID_FORM_BODY,
  invalid_query: DISCORD.INVALID_FORM_BODY,
  invalid_params: DISCORD.INVALID_FORM_BODY,
  invalid_headers: DISCORD.INVALID_FORM_BODY,
  invalid_json: DISCORD.INVALID_FORM_BODY,
  json_too_deep: DISCORD.INVALID_FORM_BODY,
  invalid_components: DISCORD.INVALID_FORM_BODY,
  invalid_modal: DISCORD.INVALID_FORM_BODY,
  invalid_fields: DISCORD.INVALID_FORM_BODY,
  unknown_message_reference: DISCORD.INVALID_FORM_BODY,
  system_message: DISCORD.SYSTEM_MESSAGE,
  too_many_pins: DISCORD.MAX_PINS,
  thread_archived: DISCORD.THREAD_ARCHIVED,
  thread_already_created: DISCORD.THREAD_ALREADY_CREATED,
  max_roles: DISCORD.MAX_ROLES,
  max_reactions: DISCORD.MAX_REACTIONS,
  message_too_old: DISCORD.MESSAGE_TOO_OLD,
  channel_is_category: DISCORD.CANNOT_SEND_IN_NON_TEXT,
  channel_is_forum: DISCORD.CANNOT_SEND_IN_NON_TEXT,
  invalid_parent: DISCORD.INVALID_FORM_BODY,
  interaction_expired: DISCORD.INVALID_WEBHOOK_TOKEN,
  // 401
  unauthorized: DISCORD.UNAUTHORIZED,
  invalid_credentials: DISCORD.UNAUTHORIZED,
  // 403
  users_only: DISCORD.BOTS_CANNOT_USE,
  not_a_member: DISCORD.MISSING_ACCESS,
  missing_permission: DISCORD.MISSING_PERMISSIONS,
  owner_only: DISCORD.MISSING_PERMISSIONS,
  bot_owner_only: DISCORD.MISSING_PERMISSIONS,
  not_message_author: DISCORD.CANNOT_EDIT_OTHERS_MESSAGE,
  role_hierarchy: DISCORD.MISSING_PERMISSIONS,
  managed_role: DISCORD.MISSING_PERMISSIONS,
  cannot_dm: DISCORD.CANNOT_DM,
  cannot_reply_without_history: DISCORD.CANNOT_REPLY_WITHOUT_HISTORY,
  thread_locked: DISCORD.THREAD_LOCKED,
  banned: DISCORD.BANNED,
  account_disabled: DISCORD.UNAUTHORIZED,
  // 404
  unknown_server: DISCORD.UNKNOWN_GUILD,
  unknown_channel: DISCORD.UNKNOWN_CHANNEL,
  unknown_message: DISCORD.UNKNOWN_MESSAGE,
  unknown_member: DISCORD.UNKNOWN_MEMBER,
  unknown_bot: DISCORD.UNKNOWN_USER,
  unknown_user: DISCORD.UNKNOWN_USER,
  unknown_webhook: DISCORD.UNKNOWN_WEBHOOK,
  unknown_invite: DISCORD.UNKNOWN_INVITE,
  unknown_role: DISCORD.UNKNOWN_ROLE,
  unknown_overwrite: DISCORD.UNKNOWN_OVERWRITE,
  unknown_ban: DISCORD.UNKNOWN_BAN,
  unknown_interaction: DISCORD.UNKNOWN_INTERACTION,
  unknown_command: DISCORD.UNKNOWN_COMMAND,
  // 409 and 413
  interaction_already_acknowledged: DISCORD.ALREADY_ACKNOWLEDGED,
  payload_too_large: DISCORD.REQUEST_TOO_LARGE,
  upload_quota_exceeded: DISCORD.REQUEST_TOO_LARGE,
};

/** The default of a status no table entry covers: Discord's own (400 form body, 401, 403 permissions, else 0). */
function byStatus(status: number): number {
  if (status === 400) return DISCORD.INVALID_FORM_BODY;
  if (status === 401) return DISCORD.UNAUTHORIZED;
  if (status === 403) return DISCORD.MISSING_PERMISSIONS;
  return DISCORD.GENERAL;
}

/**
 * Discord's code for one of our errors. A channel the caller cannot see is Discord's
 * "Missing Access" (50001), as for a bot outside the server; any other missing
 * permission is "Missing Permissions" (50013).
 */
export function discordCode(code: ErrorCode, err?: AppError): number {
  if (code === 'missing_permission' && err?.missing !== undefined && (err.missing & P.VIEW_CHANNEL) !== 0n) return DISCORD.MISSING_ACCESS;
  return DISCORD_CODES[code] ?? byStatus(errorStatus(code));
}

/** Our messages name a field first ("body.content is required", "content must be ..."): its snake_case path, if it does. */
function fieldOf(message: string): string {
  const m = /^(?:body\.|querystring\.|params\.)?([A-Za-z_][\w.[\]]*)\s/.exec(message);
  if (!m || m[1] === undefined) return '_body';
  return m[1].replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** The JSON body of an error, Discord's way. */
export function discordErrorBody(code: ErrorCode, message: string, err?: AppError): Record<string, unknown> {
  const numeric = discordCode(code, err);
  if (numeric === DISCORD.INVALID_FORM_BODY) {
    // Discord's form-body errors name the field; libraries print "field[CODE]: message".
    return {
      message: 'Invalid Form Body',
      code: numeric,
      errors: { [fieldOf(message)]: { _errors: [{ code: code.toUpperCase(), message }] } },
    };
  }
  return { message, code: numeric };
}

/** A 429's body and headers, Discord's way (`retry_after` in seconds, as a number). */
export function rateLimitedBody(retryAfter: number): Record<string, unknown> {
  return { message: 'You are being rate limited.', retry_after: retryAfter, global: false, code: DISCORD.GENERAL };
}

/** The error handler of the Discord layer: the native classification, Discord's body. */
export function discordErrorHandler(err: FastifyError | AppError | Error, request: FastifyRequest, reply: FastifyReply) {
  const answer = errorAnswer(err, request);
  const status = errorStatus(answer.code);
  if (answer.code === 'rate_limited') {
    const retryAfter = Number(answer.extra?.retryAfter ?? 1);
    reply.header('X-RateLimit-Scope', 'user');
    return reply.status(status).send(rateLimitedBody(retryAfter));
  }
  return reply.status(status).send(discordErrorBody(answer.code, answer.message, answer.error));
}

/**
 * An `onSend` hook completing the rate-limit headers the shared limiter set
 * (`X-RateLimit-Limit/Remaining/Reset-After`, src/http/plugins/rate-limit.ts) with the two
 * Discord libraries also read: `X-RateLimit-Reset` (epoch seconds) and `X-RateLimit-Bucket`
 * (an opaque name per route; discord.js queues requests per bucket).
 */
export async function completeRateLimitHeaders(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const after = reply.getHeader('x-ratelimit-reset-after');
  if (after === undefined) return;
  const resetAt = Date.now() / 1000 + Number(after);
  reply.header('X-RateLimit-Reset', resetAt.toFixed(3));
  reply.header('X-RateLimit-Bucket', bucketOf(`${request.method} ${request.routeOptions.url ?? ''}`));
}

/**
 * An `onSend` hook giving every JSON answer of the layer Discord's exact type,
 * `application/json`: Fastify's is `application/json; charset=utf-8`, and Eris, Oceanic.js
 * and discord.py parse a body only when the type is exactly Discord's (docs/discord.md,
 * "Content type"). onSend runs after serialization, so Fastify adds no charset back. A
 * body-less answer (204) gets no type at all, as from Discord: discord.js would try to
 * parse an empty body typed as JSON.
 */
export async function discordJsonType(_request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
  const type = reply.getHeader('content-type');
  if (typeof type === 'string' && /^application\/json\s*(;|$)/i.test(type)) reply.header('content-type', 'application/json');
  return payload;
}

const buckets = new Map<string, string>();
function bucketOf(route: string): string {
  let b = buckets.get(route);
  if (b === undefined) {
    b = createHash('sha256').update(route).digest('hex').slice(0, 16);
    buckets.set(route, b);
  }
  return b;
}
