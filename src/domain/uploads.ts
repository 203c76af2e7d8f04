import type { Readable } from 'node:stream';
import { AppError, notFound } from '../errors.js';
import { uploadPath } from '../files/upload-store.js';
import { isId } from '../ids.js';
import type { DomainContext } from './context.js';
import { nowIso } from './context.js';
import { stripUnsafeCharacters } from './names.js';
import type { Attachment } from './types.js';

/** Image types served inline (everything else is served as a download): the ones an avatar may be. */
export const INLINE_IMAGE_TYPES: ReadonlySet<string> = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif']);

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
  filename: string;
  size: number;
  contentType: string;
}

/** The attachment object of an upload, with the upload's canonical URL. */
export function attachmentOf(publicUrl: string, upload: StoredUpload): Attachment {
  return {
    url: publicUrl + uploadPath(upload.id, upload.filename),
    filename: upload.filename,
    size: Number(upload.size),
    contentType: upload.contentType,
  };
}

/** `<id>/<one name segment>`: no further segment, no query, no fragment. */
const UPLOAD_REST = /^(0|[1-9][0-9]{0,18})\/([^/?#\\]+)$/;

/** Splits `url` into upload id and raw name segment if it has the shape of our upload URLs. */
function parseUploadUrl(publicUrl: string, url: string): { id: string; segment: string } | null {
  const prefix = `${publicUrl}/uploads/`;
  const rest = url.startsWith(prefix) ? UPLOAD_REST.exec(url.slice(prefix.length)) : null;
  // isId also bounds the number: one past 2^63 - 1 would be a database error, not a 400.
  return rest && isId(rest[1]!) ? { id: rest[1]!, segment: rest[2]! } : null;
}

/**
 * The upload id of `url` if it has the shape of an upload URL of this service (our
 * PUBLIC_URL, `/uploads/<id>/<name>`, nothing after the name); otherwise null. Whether
 * the name is the upload's is `namesUpload`'s question, once the record is loaded.
 */
export function uploadIdOf(publicUrl: string, url: string): string | null {
  return parseUploadUrl(publicUrl, url)?.id ?? null;
}

/**
 * True when `url` is exactly an upload URL of this upload: its one name segment decodes
 * to the stored name, which holds no "/" and is no dot segment, so the URL cannot
 * resolve anywhere else. Encoding variants of the same name are accepted; the message
 * stores the canonical form.
 */
export function namesUpload(publicUrl: string, url: string, upload: StoredUpload): boolean {
  const parsed = parseUploadUrl(publicUrl, url);
  if (!parsed || parsed.id !== upload.id || upload.filename === '.' || upload.filename === '..') return false;
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
    await Promise.all(gone.map((key) => ctx.files.remove(key).catch((err: unknown) => ctx.report(err, 'upload bytes removal failed'))));
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

export const uploads = {
  /** Stores the bytes, then records them; the upload's URL is valid once this resolves. */
  async store(
    ctx: DomainContext,
    caller: { id: string },
    file: { filename: string; contentType: string; data: Readable; maxBytes: number; truncated: () => boolean },
  ): Promise<StoredUpload> {
    const id = ctx.store.ids.next();
    const name = cleanFilename(file.filename);
    const contentType = file.contentType;
    const size = await ctx.files.put(id, file.data);
    // The multipart parser stops at the limit and marks the stream truncated.
    if (file.truncated() || size > file.maxBytes) {
      await ctx.files.remove(id);
      throw new AppError('payload_too_large', `file is larger than the ${file.maxBytes}-byte limit`);
    }
    const type = /^[\w.+-]+\/[\w.+-]+$/.test(contentType) ? contentType.toLowerCase() : 'application/octet-stream';
    try {
      await ctx.store.write((tx) =>
        ctx.store.uploads.insert(tx, { id, uploaderId: caller.id, filename: name, contentType: type, size, createdAt: nowIso() }),
      );
    } catch (err) {
      await ctx.files.remove(id).catch(() => {});
      throw err;
    }
    return { id, filename: name, size, contentType: type };
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

  async open(ctx: DomainContext, id: string) {
    const row = isId(id) ? await ctx.store.uploads.byId(ctx.store.db, id) : undefined;
    const file = row && (await ctx.files.get(row.fileKey ?? row.id));
    if (!row || !file) throw notFound('file');
    return { ...file, id: row.id, filename: row.filename, contentType: row.contentType };
  },
};
