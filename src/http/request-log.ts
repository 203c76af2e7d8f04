import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import { redactSecrets } from './log-redaction.js';

/**
 * Fastify's per-request log lines, made one (docs/deploy.md#starting-and-logs): at `info`,
 * a line when a request ends, with its method, URL (secrets scrubbed), status and time;
 * the arrival only at `debug`. Fastify calls these for every request, those refused before
 * routing (a malformed URL) included.
 */
export class RequestLog extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const line = {
      method: request.method,
      url: redactSecrets(request.url),
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 10) / 10,
    };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request');
  }
}
