import { createHash } from 'node:crypto';
import { type Readable, Transform, pipeline } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import type { IdempotencyRequest } from '../domain/messages.js';
import { AppError, badRequest } from '../errors.js';

/**
 * The request's `Idempotency-Key`, validated, or undefined when it has none. Read before
 * the body, so a malformed key costs nothing and a replay can be recognised early.
 */
export function idempotencyKeyOf(request: FastifyRequest): string | undefined {
  const raw = request.headers['idempotency-key'];
  if (raw === undefined) return undefined;
  const key = Array.isArray(raw) ? raw[0]! : raw;
  if (!/^[\x21-\x7e]{1,255}$/.test(key)) throw badRequest('Idempotency-Key must be 1 to 255 visible ASCII characters', 'invalid_idempotency_key');
  return key;
}

/** Route + body fingerprint: a key reused for a different request is refused, not replayed. */
export function fingerprintOf(request: FastifyRequest, body: unknown): string {
  return createHash('sha256')
    .update(`${request.method} ${request.routeOptions.url ?? ''}\n${JSON.stringify(body ?? null)}`)
    .digest('base64url');
}

/**
 * Reads `Idempotency-Key` and scopes it to the caller. The fingerprint ties the key to
 * the route and body, so reusing a key for a different request is refused, not replayed.
 */
export function idempotencyOf(request: FastifyRequest, caller: string, body: unknown): IdempotencyRequest | undefined {
  const key = idempotencyKeyOf(request);
  return key === undefined ? undefined : { caller, key, fingerprint: fingerprintOf(request, body) };
}

/** A file part as a request fingerprint sees it: name as sent, size, SHA-256 of the bytes. */
export type FileDigest = [filename: string, size: number, sha256: string];

/**
 * Passes `data` through unchanged while hashing it, so a stored file part can be
 * fingerprinted without reading it twice. `sha256()` is valid once the stream has ended.
 * Errors and early closes travel both ways, as in a pipeline.
 */
export function digesting(data: Readable): { stream: Readable; sha256(): string } {
  const hash = createHash('sha256');
  const tap = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      done(null, chunk);
    },
  });
  // Failures reach the consumer through `tap`; nothing to do here.
  const stream = pipeline(data, tap, () => {});
  return { stream, sha256: () => hash.digest('base64url') };
}

/**
 * Reads a file part to its end without keeping it, for a request that is a replay: its
 * size and SHA-256. Over `maxBytes` (the parser truncates there) is a 413, as storing
 * it would have been.
 */
export async function digestWithoutStoring(data: Readable, maxBytes: number, truncated: () => boolean): Promise<{ size: number; sha256: string }> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of data as AsyncIterable<Buffer>) {
    hash.update(chunk);
    size += chunk.length;
  }
  if (truncated() || size > maxBytes) throw new AppError('payload_too_large', `file is larger than the ${maxBytes}-byte limit`);
  return { size, sha256: hash.digest('base64url') };
}
