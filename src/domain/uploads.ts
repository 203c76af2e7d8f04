import type { Readable } from 'node:stream';
import { AppError, notFound } from '../errors.js';
import { isId, newId } from '../ids.js';
import type { DomainContext } from './context.js';
import { nowIso } from './context.js';
import type { Attachment } from './types.js';

/** File names as stored and shown: no path, no control characters, at most 255 characters. */
export function cleanFilename(name: string | undefined): string {
  const base = (name ?? '').split(/[\\/]/).pop() ?? '';
  // biome-ignore lint: control characters are exactly what we strip
  const clean = base.replace(/[\u0000-\u001f\u007f"]/g, '').trim();
  return [...(clean || 'file')].slice(0, 255).join('');
}

export const uploads = {
  /** Stores the bytes, then records them; the URL is valid once this resolves. */
  async store(
    ctx: DomainContext,
    caller: { id: string },
    file: { filename: string; contentType: string; data: Readable; maxBytes: number; truncated: () => boolean },
  ): Promise<Attachment> {
    const id = newId();
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
    return { url: `${ctx.publicUrl}/uploads/${id}/${encodeURIComponent(name)}`, filename: name, size, contentType: type };
  },

  /** Removes uploads a failed request stored, so their URLs never become attachable. */
  async discard(ctx: DomainContext, stored: Attachment[]): Promise<void> {
    const ids = stored.map((a) => new URL(a.url).pathname.split('/')[2] ?? '').filter(isId);
    await ctx.store.write((tx) => ctx.store.uploads.deleteMany(tx, ids));
    await Promise.all(ids.map((id) => ctx.files.remove(id)));
  },

  async open(ctx: DomainContext, id: string) {
    const row = isId(id) ? await ctx.store.uploads.byId(ctx.store.db, id) : undefined;
    const file = row && (await ctx.files.get(id));
    if (!row || !file) throw notFound('file');
    return { ...file, filename: row.filename, contentType: row.contentType };
  },
};

