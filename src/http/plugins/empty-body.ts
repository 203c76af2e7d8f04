import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * For routes that take no body. Bots send `Content-Type: application/json` on every call
 * (docs/api.md#authentication), typing and reactions included, and Fastify's JSON parser refuses an empty
 * body with 400. An empty request is not parsed at all, whatever its declared type.
 */
export function ignoreEmptyBody(request: FastifyRequest, _reply: FastifyReply, done: () => void): void {
  // A callback hook, not an async one: it runs on every request, and needs no promise.
  const { headers } = request.raw;
  if (headers['transfer-encoding'] === undefined && (headers['content-length'] ?? '0') === '0') {
    delete headers['content-type'];
  }
  done();
}

/** For routes whose body is optional (every field has a default): no body validates as `{}`. */
export function defaultEmptyBody(request: FastifyRequest, _reply: FastifyReply, done: () => void): void {
  if (request.body === undefined || request.body === null) request.body = {};
  done();
}
