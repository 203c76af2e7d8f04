import type { FastifyError, FastifyInstance } from 'fastify';
import { AppError } from '../../errors.js';

/**
 * The one place errors become responses: `{ "error": message }` with the right status.
 * Fastify's own 4xx (bad JSON, wrong content type, body too large, validation) keep
 * their status; anything else is a 500 whose details stay in the log.
 */
export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError | AppError | Error, request, reply) => {
    if (err instanceof AppError) {
      if (err.status >= 500) request.log.error({ err }, 'request failed');
      return reply.status(err.status).send({ error: err.message, ...err.extra });
    }
    const fe = err as FastifyError;
    if (fe.validation) {
      return reply.status(400).send({ error: validationMessage(fe) });
    }
    const status = typeof fe.statusCode === 'number' ? fe.statusCode : 500;
    if (status >= 400 && status < 500) {
      return reply.status(status).send({ error: clientMessage(fe) });
    }
    request.log.error({ err }, 'unexpected error');
    return reply.status(500).send({ error: 'internal server error' });
  });
}

function validationMessage(err: FastifyError): string {
  const first = err.validation?.[0];
  if (!first) return err.message;
  const where = `${err.validationContext ?? 'body'}${first.instancePath.replace(/\//g, '.')}`;
  if (first.keyword === 'required') return `${where}.${String(first.params.missingProperty)} is required`;
  if (first.keyword === 'additionalProperties') return `${where}.${String(first.params.additionalProperty)} is not allowed`;
  return `${where} ${first.message ?? 'is invalid'}`;
}

function clientMessage(err: FastifyError): string {
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return 'request body is not valid JSON';
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'unsupported content type';
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
    case 'FST_REQ_FILE_TOO_LARGE':
      return 'request body is too large';
    default:
      if (err instanceof SyntaxError) return 'request body is not valid JSON';
      return err.message;
  }
}
