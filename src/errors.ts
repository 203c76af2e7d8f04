/**
 * The one error type of the service and the catalog of its codes. Domain and store code
 * throw `AppError` (or the store's own errors, mapped in one place); the HTTP error
 * handler turns it into `{ "error": message, "code": code }` with the code's status.
 *
 * `code` is the stable, machine-readable part of every error body; `error` is for people
 * and may be reworded. docs/api.md lists the catalog (a test keeps the two in step), and
 * the SDK takes its list of codes from @parley/protocol too.
 */
import { ERROR_CATALOG, ERROR_CODES, type ErrorCode } from '@parley/protocol';

// The catalog is part of the wire contract, so it lives in @parley/protocol; the server's
// code and tests keep reaching it here, beside the error type built on it.
export { ERROR_CATALOG, ERROR_CODES, type ErrorCode };

/** The codes whose status is `S`: helpers take only codes that match the status they stand for. */
export type CodeWithStatus<S extends number> = {
  [K in ErrorCode]: (typeof ERROR_CATALOG)[K]['status'] extends S ? K : never;
}[ErrorCode];

/** The HTTP status of `code`: the catalog is its only source. */
export function errorStatus(code: ErrorCode): number {
  return ERROR_CATALOG[code].status;
}

/** The JSON body of an error: what every error answer of the service carries. */
export function errorBody(code: ErrorCode, message: string, extra?: Record<string, unknown>): Record<string, unknown> {
  return { error: message, code, ...extra };
}

/**
 * The generic code for a bare status, for errors that arrive with a status only (Fastify's
 * own, Node's). A status the catalog has no generic code for becomes `bad_request` (4xx) or
 * `internal_error` (5xx), so status and code never disagree.
 */
export function codeForStatus(status: number): ErrorCode {
  switch (status) {
    case 401:
      return 'unauthorized';
    case 404:
      return 'unknown_route';
    case 405:
      return 'method_not_allowed';
    case 408:
      return 'request_timeout';
    case 413:
      return 'payload_too_large';
    case 415:
      return 'unsupported_media_type';
    case 417:
      return 'expectation_failed';
    case 429:
      return 'rate_limited';
    case 431:
      return 'headers_too_large';
    case 503:
      return 'service_unavailable';
    default:
      return status >= 500 ? 'internal_error' : 'bad_request';
  }
}

export class AppError extends Error {
  readonly status: number;
  /**
   * `missing_permission`: the bits the caller lacked. Not part of the body; the Discord
   * layer tells a channel the caller cannot see (50001) from a missing right (50013) by it.
   */
  missing?: bigint;
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Extra JSON fields merged into the error body (e.g. retryAfter). */
    readonly extra?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'AppError';
    this.status = errorStatus(code);
  }
}

/** The things a request can name that may not exist, each with its `unknown_*` code. */
const UNKNOWN = {
  server: 'unknown_server',
  channel: 'unknown_channel',
  message: 'unknown_message',
  member: 'unknown_member',
  bot: 'unknown_bot',
  webhook: 'unknown_webhook',
  invite: 'unknown_invite',
  file: 'unknown_file',
  role: 'unknown_role',
  overwrite: 'unknown_overwrite',
  user: 'unknown_user',
  ban: 'unknown_ban',
  command: 'unknown_command',
  component: 'unknown_component',
  interaction: 'unknown_interaction',
} as const satisfies Record<string, ErrorCode>;

/** An entity `notFound` can name. */
export type Entity = keyof typeof UNKNOWN;

/** A 400 for a body that breaks a rule; pass another 400 code when it is not the body. */
export const badRequest = (message: string, code: CodeWithStatus<400> = 'invalid_body') => new AppError(code, message);
/** A 401: missing or invalid credentials (`invalid_credentials` for a failed login). */
export const unauthorized = (message = 'missing or invalid token', code: CodeWithStatus<401> = 'unauthorized') =>
  new AppError(code, message);
/** A 403 whose code says which rule refused (`not_a_member`, `missing_permission`, ...). */
export const forbidden = (code: CodeWithStatus<403>, message: string) => new AppError(code, message);
/** A 404 `unknown_<what>`; the message defaults to "<what> not found". */
export const notFound = (what: Entity, message = `${what} not found`) => new AppError(UNKNOWN[what], message);
/** A 409 whose code says what clashed (`username_taken`, `bot_already_member`, ...). */
export const conflict = (code: CodeWithStatus<409>, message: string) => new AppError(code, message);
