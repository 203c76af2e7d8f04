import type { FastifyInstance } from 'fastify';
import { badRequest } from '../../errors.js';
import { jsonTooDeep, tooDeepMessage } from '../../json-depth.js';

/**
 * Replaces Fastify's `application/json` parser with the same parser behind a nesting
 * check, so no route ever sees a body deeper than MAX_JSON_DEPTH. Everything else is
 * Fastify's: an empty body and malformed JSON keep their errors (and so the handler's
 * "request body is not valid JSON"), and `__proto__`/`constructor` keys are refused.
 */
export function registerJsonBodyParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    if (jsonTooDeep(text)) {
      done(badRequest(tooDeepMessage('request body'), 'json_too_deep'), undefined);
      return;
    }
    parse(request, text, done);
  });
}
