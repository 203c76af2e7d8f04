import '@fastify/multipart';
import type { Readable } from 'node:stream';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { INLINE_IMAGE_TYPES, attachmentOf, uploads } from '../../domain/uploads.js';
import { badRequest } from '../../errors.js';
import { authenticate } from '../plugins/auth.js';
import { malformedMultipart, partBytes } from '../plugins/multipart.js';
import { RULES, enforce } from '../plugins/rate-limit.js';
import { SECURITY, documentedBody } from '../openapi.js';
import { Attachment, SecretlessUploadParams, UploadForm, UploadParams, ref } from '@parley/protocol';
import { NoContent, errors } from '../schemas/wire.js';
import type { RouteDeps } from './deps.js';

/** Types shown inline: images browsers render without running script. Everything else downloads. */
const INLINE_TYPES = INLINE_IMAGE_TYPES;

/**
 * Files are deleted with their messages, and a cache keeps serving what it holds: five
 * minutes bounds how long a deleted file outlives its deletion in browsers and shared
 * caches. After that a cache revalidates with the ETag (a cheap 304 while the file is
 * referenced, a 404 once it is not). docs/security.md, "Files", has the rules.
 */
const CACHE_CONTROL = 'public, max-age=300';

/** If-None-Match holds `etag` (weak or strong) or `*`. */
function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((t) => {
    const tag = t.trim();
    return tag === '*' || tag === etag || tag === `W/${etag}`;
  });
}

/**
 * The one byte range a `Range` header asks of a file of `size` bytes (`bytes=a-b`, `a-`,
 * `-n`), honoured only when `If-Range` (if sent) names the file's ETag. Anything else (no
 * header, several ranges, another unit, a range past the end) is answered with the whole
 * file, as RFC 9110 lets a server do: media elements ask for `bytes=0-` and then seek.
 */
function byteRange(
  header: string | undefined,
  ifRange: string | undefined,
  etag: string,
  size: number,
): { start: number; end: number } | undefined {
  if (!header || (ifRange !== undefined && ifRange.trim() !== etag)) return undefined;
  const m = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!m || (m[1] === '' && m[2] === '') || size === 0) return undefined;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    return suffix > 0 ? { start: Math.max(0, size - suffix), end: size - 1 } : undefined;
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  return start <= end ? { start, end } : undefined;
}

/** What GET /uploads answers: the file's bytes, an image inline or anything else as a download. */
const FileBytes = Type.Unsafe<Readable>({ type: 'string', format: 'binary' });
/** A PDF's first page: a PNG, whole in memory. */
const PageBytes = Type.Unsafe<Buffer>({ type: 'string', format: 'binary' });

/** RFC 8187 ext-value: encodeURIComponent leaves ' ( ) * as they are, but ' delimits the value. */
const rfc8187 = (s: string) => encodeURIComponent(s).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** Upload (docs/api.md#uploads) and serving the files back safely (docs/security.md#files-are-for-those-who-may-see-them). */
export function uploadRoutes(fastify: FastifyInstance, { ctx, limiter, config }: RouteDeps): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const upload = {
    tags: ['uploads'],
    summary: 'Upload a file (multipart/form-data, one field named `file`)',
    security: SECURITY.any,
    response: { 200: ref(Attachment), ...errors },
  };
  // The body is in the document only: @fastify/multipart streams the parts to the handler,
  // so Fastify never validates a body here (a body schema would refuse every upload).
  const uploadForm = documentedBody({ 'multipart/form-data': UploadForm });
  app.post('/upload', { schema: upload, config: { swaggerTransform: uploadForm, maxFiles: 1 } }, async (req, reply) => {
    const caller = await authenticate(ctx, req, 'any');
    if (!req.isMultipart()) throw badRequest('upload must be multipart/form-data with a field named "file"');
    await enforce(limiter, RULES.uploads, caller.id, reply);
    const part = await req.file({ limits: { fileSize: config.maxUploadBytes, files: 1 } }).catch((err: unknown) => {
      throw malformedMultipart(err);
    });
    if (part?.fieldname !== 'file') throw badRequest('multipart field "file" is required');
    const stored = await uploads.store(ctx, caller, {
      filename: part.filename,
      contentType: part.mimetype,
      data: partBytes(part.file, config.maxUploadBytes),
      maxBytes: config.maxUploadBytes,
      truncated: () => part.file.truncated,
    });
    return attachmentOf(ctx.publicUrl, stored);
  });

  const file = {
    tags: ['uploads'],
    summary: 'An uploaded file',
    description:
      'PNG, JPEG, GIF, WebP and AVIF are shown inline with their type; anything else is application/octet-stream, as an attachment.',
    security: SECURITY.none,
    params: UploadParams,
    response: {
      200: {
        description: "the file's bytes",
        content: { 'application/octet-stream': { schema: FileBytes }, 'image/*': { schema: FileBytes } },
      },
      206: {
        description: 'the bytes a `Range` header asked for (one range; `Content-Range` says which)',
        content: { 'application/octet-stream': { schema: FileBytes }, 'image/*': { schema: FileBytes } },
      },
      304: { ...NoContent, description: 'Not Modified (If-None-Match matched the ETag)' },
      ...errors,
    },
  };
  // The shape of links before they carried a secret: the same lookup and comparison, the
  // same 404 as a wrong secret (docs/security.md, "Files").
  const secretless = {
    tags: ['uploads'],
    summary: 'The shape of upload URLs before they carried a secret: always 404 unknown_file',
    security: SECURITY.none,
    params: SecretlessUploadParams,
    response: { ...errors },
  };
  app.get('/uploads/:id/:filename', { schema: secretless }, async (req) => {
    await uploads.open(ctx, req.params.id, undefined, req.params.filename);
    throw new Error('unreachable: an upload is never served without its secret');
  });
  app.get('/uploads/:id/:secret/:filename', { schema: file }, async (req, reply) => {
    const file = await uploads.open(ctx, req.params.id, req.params.secret, req.params.filename);
    // An upload's bytes never change under its id, so the id is its validator.
    const etag = `"${file.id}"`;
    reply.header('ETag', etag).header('Cache-Control', CACHE_CONTROL);
    if (matchesEtag(req.headers['if-none-match'], etag)) return reply.status(304).send();
    const inline = INLINE_TYPES.has(file.contentType);
    // Byte ranges, so audio and video played in the page can seek (docs/api.md#uploads).
    const ifRange = req.headers['if-range'];
    const range = byteRange(req.headers.range, Array.isArray(ifRange) ? '' : ifRange, etag, file.size);
    reply.header('Accept-Ranges', 'bytes');
    if (range) reply.status(206).header('Content-Range', `bytes ${range.start}-${range.end}/${file.size}`);
    reply
      .header('Content-Type', inline ? file.contentType : 'application/octet-stream')
      .header('Content-Length', range ? range.end - range.start + 1 : file.size)
      .header('X-Content-Type-Options', 'nosniff')
      // Even if a browser were tricked into rendering it, the file gets no script and no origin.
      .header('Content-Security-Policy', "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; sandbox")
      .header('Cross-Origin-Resource-Policy', 'same-site')
      .header('Content-Disposition', `${inline ? 'inline' : 'attachment'}; filename*=UTF-8''${rfc8187(file.filename)}`);
    return reply.send(file.read(range));
  });

  const firstPage = {
    tags: ['uploads'],
    summary: "A PDF's first page, as a PNG image",
    description:
      'Drawn once (at most 800 pixels wide or high) by the `pdftoppm` program where the instance has it (`GET /instance` says `pdfPreviews`), then kept. The same URL secret as the file: 404 `unknown_file` for every miss; 404 `no_preview` for a file that is not a PDF, one that could not be drawn, or an instance that draws none.',
    security: SECURITY.none,
    params: UploadParams,
    response: {
      200: { description: 'the page', content: { 'image/png': { schema: PageBytes } } },
      304: { ...NoContent, description: 'Not Modified (If-None-Match matched the ETag)' },
      ...errors,
    },
  };
  app.get('/uploads/:id/:secret/:filename/page-1.png', { schema: firstPage }, async (req, reply) => {
    const page = await uploads.firstPage(ctx, req.params.id, req.params.secret, req.params.filename);
    const etag = `"${page.id}-page-1"`;
    reply.header('ETag', etag).header('Cache-Control', CACHE_CONTROL);
    if (matchesEtag(req.headers['if-none-match'], etag)) return reply.status(304).send();
    return reply
      .header('Content-Type', 'image/png')
      .header('X-Content-Type-Options', 'nosniff')
      .header('Content-Security-Policy', "default-src 'none'; sandbox")
      .header('Cross-Origin-Resource-Policy', 'same-site')
      .send(page.png);
  });
}
