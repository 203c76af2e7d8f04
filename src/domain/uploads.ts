import { createHash, timingSafeEqual } from 'node:crypto';
import type { Readable } from 'node:stream';
import { AppError, notFound } from '../errors.js';
import { measuringImage } from '../files/image-dimensions.js';
import { looksLikePdf } from '../files/pdf-pages.js';
import { uploadPath } from '../files/upload-store.js';
import { isId } from '../ids.js';
import { newUploadSecret } from '../store/upload-secrets-migration.js';
import type { DomainContext } from './context.js';
import { nowIso } from './context.js';
import { stripUnsafeCharacters } from './names.js';
import type { Attachment } from './types.js';

/** Image types served inline (everything else is served as a download): the ones an avatar may be. */
export const INLINE_IMAGE_TYPES: ReadonlySet<string> = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif']);

/**
 * A size as people read it: bytes under 1 KB, else KB, MB or GB (powers of 1024) with
 * one decimal under 10. The web client's `formatSize` (web/src/lib/format.ts) writes
 * sizes the same way, so the limit it states before uploading is the one refused here.
 */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = bytes / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[u]}`;
}

/** The 413 of a file over MAX_UPLOAD_BYTES, with the limit as people read it (docs/api.md#uploads). */
export function fileTooLarge(maxBytes: number): AppError {
  return new AppError('payload_too_large', `Files may be at most ${formatSize(maxBytes)}`);
}

/** File names as stored and shown: no path, no control characters, at most 255 characters. */
export function cleanFilename(name: string | undefined): string {
  const base = (name ?? '').split(/[\\/]/).pop() ?? '';
  const clean = stripUnsafeCharacters(base).replace(/"/g, '').trim();
  // "." and ".." would be dot segments in the file's URL, which resolves elsewhere.
  const usable = clean === '.' || clean === '..' ? '' : clean;
  return [...(usable || 'file')].slice(0, 255).join('');
}

/** An upload as messages reference it: the record its attachment object is built from. */
export interface StoredUpload {
  id: string;
  /** The random part of its URL: whoever has the URL has the file (docs/security.md, "Files"). */
  secret: string;
  filename: string;
  size: number;
  contentType: string;
  /** An image's size in pixels (PNG, JPEG, GIF, WebP, AVIF), measured when stored; absent or null otherwise. */
  width?: number | null;
  height?: number | null;
}

/** The attachment object of an upload, with the upload's canonical URL (and an image's size, when known). */
export function attachmentOf(publicUrl: string, upload: StoredUpload): Attachment {
  return {
    url: publicUrl + uploadPath(upload.id, upload.secret, upload.filename),
    filename: upload.filename,
    size: Number(upload.size),
    contentType: upload.contentType,
    ...(upload.width != null && upload.height != null ? { width: Number(upload.width), height: Number(upload.height) } : {}),
  };
}

/** `<id>/<secret>/<one name segment>`: no further segment, no query, no fragment. */
const UPLOAD_REST = /^(0|[1-9][0-9]{0,18})\/([A-Za-z0-9_-]{16,128})\/([^/?#\\]+)$/;

/** Splits `url` into upload id, secret and raw name segment if it has the shape of our upload URLs. */
function parseUploadUrl(publicUrl: string, url: string): { id: string; secret: string; segment: string } | null {
  const prefix = `${publicUrl}/uploads/`;
  const rest = url.startsWith(prefix) ? UPLOAD_REST.exec(url.slice(prefix.length)) : null;
  // isId also bounds the number: one past 2^63 - 1 would be a database error, not a 400.
  return rest && isId(rest[1]!) ? { id: rest[1]!, secret: rest[2]!, segment: rest[3]! } : null;
}

/**
 * The upload id of `url` if it has the shape of an upload URL of this service (our
 * PUBLIC_URL, `/uploads/<id>/<secret>/<name>`, nothing after the name); otherwise null.
 * Whether the secret and name are the upload's is `namesUpload`'s question, once the
 * record is loaded.
 */
export function uploadIdOf(publicUrl: string, url: string): string | null {
  return parseUploadUrl(publicUrl, url)?.id ?? null;
}

/** The id and secret of an upload URL of this service (see `uploadIdOf`), or null. */
export function uploadRefOf(publicUrl: string, url: string): { id: string; secret: string } | null {
  const parsed = parseUploadUrl(publicUrl, url);
  return parsed ? { id: parsed.id, secret: parsed.secret } : null;
}

/** What a missing record's secret is compared with, so a miss costs what a wrong secret costs. */
const NO_SECRET = newUploadSecret();

/**
 * Whether `given` is `secret`, in time that does not depend on where they differ: both
 * are hashed to 32 bytes first, so neither length nor content leaks through timing.
 */
export function sameSecret(given: string, secret: string | null | undefined): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256')
    .update(secret ?? NO_SECRET)
    .digest();
  return timingSafeEqual(a, b) && secret !== null && secret !== undefined;
}

/**
 * True when `url` is exactly an upload URL of this upload: its secret is the upload's,
 * and its one name segment decodes to the stored name, which holds no "/" and is no dot
 * segment, so the URL cannot resolve anywhere else. Encoding variants of the same name
 * are accepted; the message stores the canonical form.
 */
export function namesUpload(publicUrl: string, url: string, upload: { id: string; secret: string; filename: string }): boolean {
  const parsed = parseUploadUrl(publicUrl, url);
  if (!parsed || parsed.id !== upload.id || upload.filename === '.' || upload.filename === '..') return false;
  if (!sameSecret(parsed.secret, upload.secret)) return false;
  try {
    return decodeURIComponent(parsed.segment) === upload.filename;
  } catch {
    return false; // a malformed escape
  }
}

/** Uploads released per round: bounds the writes queued at once (a large channel's delete). */
const RELEASE_BATCH = 500;

/**
 * Deletes the uploads among `ids` that no message references, then their bytes. The
 * record goes first: if removing the bytes fails, what is left is bytes nothing serves
 * (GET needs the record), never a record whose bytes are gone. Each upload is its own
 * write (group commit still makes a round one transaction): one attached by a concurrent
 * request fails its foreign key alone and is kept. Never throws: this runs after a
 * committed delete, and what it leaves behind the periodic sweep finds later.
 * Resolves with the number of uploads removed.
 */
export async function releaseUploads(ctx: DomainContext, ids: Iterable<string>): Promise<number> {
  const unique = [...new Set(ids)].filter(isId);
  let removed = 0;
  for (let i = 0; i < unique.length; i += RELEASE_BATCH) {
    const round = unique.slice(i, i + RELEASE_BATCH);
    const results = await Promise.allSettled(round.map((id) => ctx.store.write((tx) => ctx.store.uploads.deleteIfUnattached(tx, id))));
    const gone: string[] = [];
    for (const r of results) {
      if (r.status === 'fulfilled') {
        if (r.value !== undefined) gone.push(r.value); // the name of the bytes to remove
      } else if (!(r.reason instanceof AppError && r.reason.code === 'unknown_reference')) {
        // unknown_reference is the foreign key: attached meanwhile, so it stays. Anything else is a fault.
        ctx.report(r.reason, 'upload release failed');
      }
    }
    await Promise.all(
      gone.map((key) =>
        Promise.all([ctx.files.remove(key), ctx.pdfPages?.remove(key)]).catch((err: unknown) =>
          ctx.report(err, 'upload bytes removal failed'),
        ),
      ),
    );
    removed += gone.length;
  }
  return removed;
}

/**
 * Removes uploads created before `createdBefore` that no message references (uploaded,
 * then never attached, or left by a release that failed). Safe against a concurrent
 * attach: see `releaseUploads`. Resolves with the number removed.
 */
export async function sweepUnattachedUploads(ctx: DomainContext, createdBefore: Date): Promise<number> {
  const cutoff = createdBefore.toISOString();
  let total = 0;
  for (;;) {
    const ids = await ctx.store.uploads.unattachedBefore(ctx.store.db, cutoff, RELEASE_BATCH);
    const removed = ids.length > 0 ? await releaseUploads(ctx, ids) : 0;
    total += removed;
    // A short page was the last; a page where nothing could go would only repeat.
    if (ids.length < RELEASE_BATCH || removed === 0) return total;
  }
}

/** Refuses a file that would take `uploaderId`'s uploads, or the instance's, past their limit (`size` 0: before writing). */
async function checkQuota(
  ctx: DomainContext,
  db: Parameters<DomainContext['store']['uploads']['usage']>[0],
  uploaderId: string,
  size: number,
) {
  const limits = ctx.uploadLimits;
  if (!limits) return;
  // Before writing, the size is unknown: a caller already at the limit stores nothing.
  const adding = Math.max(size, 1);
  if (limits.quotaBytes > 0 && (await ctx.store.uploads.usage(db, uploaderId)) + adding > limits.quotaBytes)
    throw new AppError('upload_quota_exceeded', `your uploads would be over your ${limits.quotaBytes}-byte storage quota`);
  if (limits.maxStorageBytes > 0 && (await ctx.store.uploads.usage(db)) + adding > limits.maxStorageBytes)
    throw new AppError('upload_storage_full', 'this instance has no room for more uploads');
}

export const uploads = {
  /**
   * Stores the bytes, then records them; the upload's URL is valid once this resolves. The
   * caller's quota and the instance's total are checked before a byte is written (a caller
   * at the limit) and again, with the size, in the transaction that records the upload:
   * over either, the bytes are removed and nothing is recorded.
   */
  async store(
    ctx: DomainContext,
    caller: { id: string },
    file: { filename: string; contentType: string; data: Readable; maxBytes: number; truncated: () => boolean },
  ): Promise<StoredUpload> {
    await checkQuota(ctx, ctx.store.db, caller.id, 0);
    const id = ctx.store.ids.next();
    const secret = newUploadSecret();
    const name = cleanFilename(file.filename);
    const contentType = file.contentType;
    const measured = measuringImage(file.data);
    const size = await ctx.files.put(id, measured.stream);
    // The multipart parser stops at the limit and marks the stream truncated.
    if (file.truncated() || size > file.maxBytes) {
      await ctx.files.remove(id);
      throw fileTooLarge(file.maxBytes);
    }
    const type = /^[\w.+-]+\/[\w.+-]+$/.test(contentType) ? contentType.toLowerCase() : 'application/octet-stream';
    const dimensions = measured.dimensions();
    try {
      await ctx.store.write(async (tx) => {
        await checkQuota(ctx, tx, caller.id, size);
        await ctx.store.uploads.insert(tx, {
          id,
          secret,
          uploaderId: caller.id,
          filename: name,
          contentType: type,
          size,
          createdAt: nowIso(ctx),
          width: dimensions?.width ?? null,
          height: dimensions?.height ?? null,
        });
      });
    } catch (err) {
      await ctx.files.remove(id).catch(() => {});
      throw err;
    }
    return { id, secret, filename: name, size, contentType: type, ...(dimensions ?? {}) };
  },

  /**
   * Removes uploads a failed or replayed request stored, so they never become attachable.
   * Never throws, so the request's own error is the one answered.
   */
  async discard(ctx: DomainContext, stored: StoredUpload[]): Promise<void> {
    if (stored.length > 0)
      await releaseUploads(
        ctx,
        stored.map((u) => u.id),
      );
  },

  /**
   * The bytes at `/uploads/<id>/<secret>/<filename>`, if all three are an upload's and
   * something still references it (or it is pending: never attached yet). Every miss is
   * the same 404: an unknown id, a wrong or missing secret, a wrong name, a file whose
   * last reference went. The secret is compared in constant time, also against a record
   * that does not exist.
   */
  async open(ctx: DomainContext, id: string, secret: string | undefined, filename: string) {
    const row = isId(id) ? await ctx.store.uploads.servable(ctx.store.db, id) : undefined;
    const secretOk = sameSecret(secret ?? '', row?.secret);
    if (!row || !secretOk || secret === undefined || row.filename !== filename) throw notFound('file');
    const key = row.fileKey ?? row.id;
    const file = await ctx.files.get(key);
    if (!file) throw notFound('file');
    return { ...file, id: row.id, key, filename: row.filename, contentType: row.contentType };
  },

  /**
   * The first page of the PDF at `/uploads/<id>/<secret>/<filename>`, as PNG: the same
   * lookup as the file's (every miss the same 404 `unknown_file`), then 404 `no_preview`
   * for a file that is not a PDF (by its bytes), one the renderer could not draw, or an
   * instance without a renderer (docs/api.md#uploads).
   */
  async firstPage(ctx: DomainContext, id: string, secret: string, filename: string) {
    const file = await uploads.open(ctx, id, secret, filename);
    const pages = ctx.pdfPages;
    const none = new AppError('no_preview', 'this file has no preview page');
    if (!pages?.available || !(await looksLikePdf(file))) throw none;
    const png = await pages.firstPage(file.key, file);
    if (!png) throw none;
    return { id: file.id, png };
  },
};
