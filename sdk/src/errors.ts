import { ERROR_CODES, type ErrorCode } from '@parley/protocol';

/** A code from the server's catalog. */
export type ApiErrorCode = ErrorCode;

/**
 * The codes a Parley server puts in its error bodies (`{ "error", "code" }`), in catalog
 * order: the catalog of @parley/protocol, the one the server answers with (docs/api.md
 * lists each with its status and meaning). A code keeps its meaning across server
 * versions; the message beside it is for people.
 */
export const API_ERROR_CODES: readonly ApiErrorCode[] = Object.freeze([...ERROR_CODES]);

/**
 * Codes derived from the HTTP status alone, for answers without a known code: servers
 * older than the catalog, proxies answering in HTML, a code newer than this SDK.
 */
export type StatusErrorCode =
  | 'bad_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'payload_too_large'
  | 'rate_limited'
  | 'server_error'
  | 'http_error';

/** Machine-readable kind of a failed API call: the server's code, else one derived from the status. */
export type ParleyErrorCode = ApiErrorCode | StatusErrorCode;

/** Maps a status to its `StatusErrorCode` (the fallback when the body has no known code). */
export function errorCodeForStatus(status: number): StatusErrorCode {
  switch (status) {
    case 400:
      return 'bad_request';
    case 401:
      return 'unauthorized';
    case 403:
      return 'forbidden';
    case 404:
      return 'not_found';
    case 409:
      return 'conflict';
    case 413:
      return 'payload_too_large';
    case 429:
      return 'rate_limited';
    default:
      return status >= 500 ? 'server_error' : 'http_error';
  }
}

const KNOWN_CODES: ReadonlySet<string> = new Set(API_ERROR_CODES);

/** The catalog code in an error body, if it has one this SDK knows. */
export function apiErrorCodeOf(body: unknown): ApiErrorCode | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const code = (body as { code?: unknown }).code;
  return typeof code === 'string' && KNOWN_CODES.has(code) ? (code as ApiErrorCode) : undefined;
}

/** Where a failed request went; carried by every `ParleyApiError`. */
export interface RequestInfo {
  method: string;
  path: string;
}

/**
 * A non-2xx answer from the REST API. `code` is the server's machine-readable code
 * (branch on it), or one derived from the status when the answer has none this SDK
 * knows; `message` is the server's `{ error }` text, for people; `body` is the parsed
 * body (or raw text) for anything beyond them.
 */
export class ParleyApiError extends Error {
  override name = 'ParleyApiError';
  readonly code: ParleyErrorCode;

  constructor(
    readonly status: number,
    message: string,
    readonly request: RequestInfo,
    readonly body: unknown,
  ) {
    super(message);
    this.code = apiErrorCodeOf(body) ?? errorCodeForStatus(status);
  }

  /** Builds the most specific subclass for `status`. */
  static from(status: number, message: string, request: RequestInfo, body: unknown, retryAfter = 0): ParleyApiError {
    switch (status) {
      case 400:
        return new BadRequestError(message, request, body);
      case 401:
        return new UnauthorizedError(message, request, body);
      case 403:
        return new ForbiddenError(message, request, body);
      case 404:
        return new NotFoundError(message, request, body);
      case 413:
        return new PayloadTooLargeError(message, request, body);
      case 429:
        return new RateLimitError(message, request, body, retryAfter);
      default:
        return new ParleyApiError(status, message, request, body);
    }
  }
}

/** 400: the request was invalid (bad parameters, empty content, foreign attachment URL...). */
export class BadRequestError extends ParleyApiError {
  override name = 'BadRequestError';
  constructor(message: string, request: RequestInfo, body: unknown) {
    super(400, message, request, body);
  }
}

/** 401: missing, invalid or revoked token. */
export class UnauthorizedError extends ParleyApiError {
  override name = 'UnauthorizedError';
  constructor(message: string, request: RequestInfo, body: unknown) {
    super(401, message, request, body);
  }
}

/** 403: not a member of the server, or lacking the permission for the call. */
export class ForbiddenError extends ParleyApiError {
  override name = 'ForbiddenError';
  constructor(message: string, request: RequestInfo, body: unknown) {
    super(403, message, request, body);
  }
}

/** 404: unknown channel, message, server... */
export class NotFoundError extends ParleyApiError {
  override name = 'NotFoundError';
  constructor(message: string, request: RequestInfo, body: unknown) {
    super(404, message, request, body);
  }
}

/** 413: the upload is larger than the service accepts. */
export class PayloadTooLargeError extends ParleyApiError {
  override name = 'PayloadTooLargeError';
  constructor(message: string, request: RequestInfo, body: unknown) {
    super(413, message, request, body);
  }
}

/** 429 that the client gave up retrying; `retryAfter` is in seconds. */
export class RateLimitError extends ParleyApiError {
  override name = 'RateLimitError';
  constructor(
    message: string,
    request: RequestInfo,
    body: unknown,
    readonly retryAfter: number,
  ) {
    super(429, message, request, body);
  }
}

/**
 * No answer came: the service could not be reached (no connection, a refused or reset
 * connection, a name that does not resolve). A `TypeError`, as `fetch` throws, with its
 * error as `cause`.
 */
export class NetworkError extends TypeError {
  override name = 'NetworkError';
  constructor(
    cause: TypeError,
    readonly request: RequestInfo,
  ) {
    super(cause.message, { cause });
  }
}

/** A gateway failure: a fatal close (e.g. 4001 bad token) or a protocol problem. */
export class GatewayError extends Error {
  override name = 'GatewayError';
  constructor(
    message: string,
    /** The WebSocket close code, when the error comes from a close. */
    readonly closeCode?: number,
  ) {
    super(message);
  }
}
