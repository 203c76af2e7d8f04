/** Machine-readable kind of a failed API call, derived from its HTTP status. */
export type ParleyErrorCode =
  | 'bad_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'payload_too_large'
  | 'rate_limited'
  | 'server_error'
  | 'http_error';

/** Maps a status to its `ParleyErrorCode`. */
export function errorCodeForStatus(status: number): ParleyErrorCode {
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

/** Where a failed request went; carried by every `ParleyApiError`. */
export interface RequestInfo {
  method: string;
  path: string;
}

/**
 * A non-2xx answer from the REST API. `message` is the server's `{ error }` text;
 * `body` is the parsed body (or raw text) for anything beyond it.
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
    this.code = errorCodeForStatus(status);
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
