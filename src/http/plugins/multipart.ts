import { PassThrough, type Readable, finished } from 'node:stream';
import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.js';
import { badRequest } from '../../errors.js';

/**
 * Lets the routes of `scope` take multipart/form-data bodies (uploads, webhook execution,
 * the Discord layer's messages with files). Only there: @fastify/multipart hooks every
 * request of the scope it is registered in, multipart or not (an async `onRequest` that
 * listens for the response's close and an async `onResponse` that cleans saved files),
 * which cost a JSON route such as the message POST 10-19 µs a request, a tenth or more of
 * what the whole Fastify yardstick spends on one (bench/README.md, 2026-11-28). Anywhere
 * else a multipart body is a 415.
 */
export async function acceptMultipart(scope: FastifyInstance, config: Pick<Config, 'maxUploadBytes'>): Promise<void> {
  await scope.register(multipart, { limits: { fileSize: config.maxUploadBytes, files: 10, fields: 20, fieldSize: 1024 * 1024 } });
}

/** The parser's own errors carry a status (limits: 413); the rest are a body busboy could not read. */
export function malformedMultipart(err: unknown): unknown {
  const status = (err as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === 'number' ? err : badRequest('malformed multipart/form-data body');
}

/**
 * The file part's bytes, through a stream of our own: when the parser fails mid-file (a
 * truncated body) it ends in a 400, while a failure to store the bytes stays a 500.
 */
export function partBytes(file: Readable): Readable {
  const data = new PassThrough();
  // `finished` also reports a part the parser failed before we got to read it.
  finished(file, (err) => {
    if (err) data.destroy(badRequest('malformed multipart/form-data body'));
  });
  // The store gave up (e.g. disk error): stop reading the part, as a pipeline would.
  data.once('close', () => {
    if (!file.readableEnded) file.destroy();
  });
  return file.pipe(data);
}
