import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, type ErrorCode, codeForStatus, errorBody, errorStatus } from '../../errors.js';
import { answerRaw } from '../raw-answer.js';
import { redactSecrets } from '../log-redaction.js';

/**
 * The one place errors become responses: `{ "error": message, "code": code }` with the
 * code's status. Fastify's own 4xx (bad JSON, wrong content type, body too large,
 * validation) get the catalog code for what they mean; anything else is a 500
 * `internal_error` whose details stay in the log.
 */
export function registerErrorHandler(app: FastifyInstance, databaseUnavailable: (err: unknown) => boolean): void {
  // Decorated on the root, so the Discord layer's scope (its own error handler) sees it too.
  app.decorate('databaseUnavailable', databaseUnavailable);
  app.setErrorHandler((err: FastifyError | AppError | Error, request, reply) => {
    const answer = errorAnswer(err, request);
    return reply.status(errorStatus(answer.code)).send(errorBody(answer.code, answer.message, answer.extra));
  });
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Whether an error means the database could not answer: the store's dialect decides (503, not 500). */
    databaseUnavailable?: (err: unknown) => boolean;
  }
}

/** What an error means to a client: its catalog code, the message for people, extra body fields. */
export interface ErrorAnswer {
  code: ErrorCode;
  message: string;
  extra?: Record<string, unknown>;
  /** The `AppError` itself, when it was one (the Discord layer reads its details). */
  error?: AppError;
}

/**
 * Classifies any error a handler or Fastify raised: the one classification both the
 * native error handler and the Discord layer's (src/discord/errors.ts) answer from.
 * Server failures are logged here.
 */
export function errorAnswer(err: FastifyError | AppError | Error, request: FastifyRequest): ErrorAnswer {
  if (err instanceof AppError) {
    if (err.status >= 500) request.log.error({ err }, 'request failed');
    return { code: err.code, message: err.message, extra: err.extra, error: err };
  }
  const fe = err as FastifyError;
  if (fe.validation) return { code: validationCode(fe), message: validationMessage(fe) };
  const status = typeof fe.statusCode === 'number' ? fe.statusCode : 500;
  if (status >= 400 && status < 500) {
    const [code, message] = clientAnswer(fe, status);
    return { code, message };
  }
  // The database could not answer (its dialect says so): passing, and not the request's fault.
  if (request.server.databaseUnavailable?.(err)) {
    request.log.warn({ err }, 'database unavailable');
    return { code: 'service_unavailable', message: 'the database is unavailable; try again shortly' };
  }
  request.log.error({ err }, 'unexpected error');
  return { code: 'internal_error', message: 'internal server error' };
}

/** Which part of the request broke its schema decides the code. */
function validationCode(err: FastifyError): ErrorCode {
  switch (err.validationContext) {
    case 'querystring':
      return 'invalid_query';
    case 'params':
      return 'invalid_params';
    case 'headers':
      return 'invalid_headers';
    default:
      return 'invalid_body';
  }
}

function validationMessage(err: FastifyError): string {
  const first = err.validation?.[0];
  if (!first) return err.message;
  const where = `${err.validationContext ?? 'body'}${first.instancePath.replace(/\//g, '.')}`;
  if (first.keyword === 'required') return `${where}.${String(first.params.missingProperty)} is required`;
  if (first.keyword === 'additionalProperties') return `${where}.${String(first.params.additionalProperty)} is not allowed`;
  return `${where} ${first.message ?? 'is invalid'}`;
}

/** Code and message of a 4xx raised by Fastify or a plugin; other 4xx get their status's generic code. */
function clientAnswer(err: FastifyError, status: number): [ErrorCode, string] {
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return ['invalid_json', 'request body is not valid JSON'];
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return ['unsupported_media_type', 'unsupported content type'];
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
    case 'FST_REQ_FILE_TOO_LARGE':
      return ['payload_too_large', 'request body is too large'];
    default:
      if (err instanceof SyntaxError) return ['invalid_json', 'request body is not valid JSON'];
      return [codeForStatus(status), err.message];
  }
}

/**
 * Fastify's `frameworkErrors`: failures before a route is found. Their messages quote
 * the path (a webhook token included), so each gets a fixed message instead. A path
 * segment over the router's limit is the client's mistake (400), not a 414.
 */
export function frameworkErrorHandler(err: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  let code: ErrorCode;
  let message: string;
  switch (err.code) {
    case 'FST_ERR_BAD_URL':
      [code, message] = ['invalid_url', 'malformed URL'];
      break;
    case 'FST_ERR_MAX_PARAM_LENGTH':
      [code, message] = ['invalid_url', 'a path segment is too long'];
      break;
    default: {
      const status = typeof err.statusCode === 'number' && err.statusCode >= 400 ? err.statusCode : 500;
      code = codeForStatus(status);
      message = status >= 500 ? 'internal server error' : 'bad request';
    }
  }
  const status = errorStatus(code);
  // Refused before routing, so the request hooks that log every request do not run: its
  // one line is written here (docs/deploy.md#starting-and-logs).
  request.log.info({ method: request.method, url: redactSecrets(request.url), status, refused: err.code }, 'request');
  void reply.code(status).send(errorBody(code, message));
}

/** Code and message for what Node's HTTP parser refuses before Fastify sees a request. */
function clientErrorAnswer(err: NodeJS.ErrnoException): [ErrorCode, string] {
  switch (err.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return ['request_timeout', 'request timed out'];
    case 'HPE_HEADER_OVERFLOW':
      return ['headers_too_large', 'request headers are too large'];
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return ['payload_too_large', 'request body is too large'];
    default:
      return ['bad_request', 'malformed HTTP request'];
  }
}

/**
 * The http server's 'clientError' (a malformed request, headers over the size limit, a
 * request not received within its timeout): a JSON answer like every other error, then
 * the connection is closed, as Node does by default.
 */
export function clientErrorHandler(this: FastifyInstance, err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  // Not the error itself: Node attaches the raw request bytes (headers, tokens) to it.
  this.log.debug({ code: err.code, reason: err.message }, 'client error');
  // A response already under way cannot be followed by another (Node's own check).
  const pending = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (pending?.headersSent) {
    socket.destroy();
    return;
  }
  const [code, message] = clientErrorAnswer(err);
  answerRaw(socket, code, message);
}
