import { PassThrough, type Readable, finished } from 'node:stream';
import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import { ATTACHMENTS_MAX } from '@parley/protocol';
import type { Config } from '../../config.js';
import { fileTooLarge } from '../../domain/uploads.js';
import { badRequest } from '../../errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** How many files a multipart route takes (`POST /upload`: one); unset, a message's most. */
    maxFiles?: number;
  }
}

/** The parser's limits on the parts that are not files: 20 fields of at most 1 MiB. */
const FIELD_LIMITS = { fields: 20, fieldSize: 1024 * 1024 };

/** Room for one part's boundary and headers (its name, file name and type). */
const PART_FRAMING = 64 * 1024;

/**
 * The largest multipart body a route that takes `files` files may need: each file at its
 * limit with its framing, plus the fields beside them (a single-file route, `POST /upload`,
 * takes a file and nothing else of any size).
 */
function largestMultipartBody(files: number, maxUploadBytes: number): number {
  const fields = files > 1 ? FIELD_LIMITS.fields * (FIELD_LIMITS.fieldSize + PART_FRAMING) : 0;
  return files * (maxUploadBytes + PART_FRAMING) + fields;
}

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
  await scope.register(multipart, { limits: { fileSize: config.maxUploadBytes, files: ATTACHMENTS_MAX, ...FIELD_LIMITS } });
  // A body whose Content-Length is over what the route's files can need is refused before
  // a byte of it is read (docs/api.md#uploads); one without a length (chunked) is refused
  // by the parser once a file crosses the limit.
  scope.addHook('onRequest', (req, _reply, done) => {
    const length = req.headers['content-length'];
    if (length === undefined || !/^\s*multipart\//i.test(req.headers['content-type'] ?? '')) return done();
    const largest = largestMultipartBody(req.routeOptions.config?.maxFiles ?? ATTACHMENTS_MAX, config.maxUploadBytes);
    done(Number(length) > largest ? fileTooLarge(config.maxUploadBytes) : undefined);
  });
}

/** The parser's own errors carry a status (limits: 413); the rest are a body busboy could not read. */
export function malformedMultipart(err: unknown): unknown {
  const status = (err as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === 'number' ? err : badRequest('malformed multipart/form-data body');
}

/**
 * The file part's bytes, through a stream of our own: when the parser fails mid-file (a
 * truncated body) it ends in a 400, while a failure to store the bytes stays a 500. A file
 * crossing `maxBytes` fails at once with the 413, rather than when its part ends: the parser
 * only stops keeping its bytes, and would read a chunked body to its end first.
 */
export function partBytes(file: Readable, maxBytes: number): Readable {
  const data = new PassThrough();
  file.once('limit', () => data.destroy(fileTooLarge(maxBytes)));
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
