import { PassThrough, type Readable, finished } from 'node:stream';
import { badRequest } from '../../errors.js';

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
