import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';

/**
 * The path an upload is served at, under PUBLIC_URL: its id, its URL secret (128 random
 * bits, base64url) and its stored file name as one encoded segment. The one place this
 * shape is written, so every stored attachment URL is canonical (docs/security.md, "Files").
 */
export function uploadPath(id: string, secret: string, filename: string): string {
  return `/uploads/${id}/${secret}/${encodeURIComponent(filename)}`;
}

/**
 * Where uploaded bytes live. The local directory is the default; several instances
 * share it over a network file system, and an object-storage implementation fits the
 * same three calls.
 */
export interface UploadStore {
  /** Stores the stream under `id`; resolves with its size once it is durably written. */
  put(id: string, data: Readable): Promise<number>;
  /** The stored bytes' size and a way to read them (all, or `start` to `end` inclusive), or null if there are none. */
  get(id: string): Promise<StoredBytes | null>;
  /** Deletes the bytes; removing what is not there is not an error. */
  remove(id: string): Promise<void>;
}

/** Bytes found in the store; `read` opens them (a byte range for a `Range` request). */
export interface StoredBytes {
  size: number;
  read(range?: { start: number; end: number }): Readable;
}

export class LocalUploadStore implements UploadStore {
  constructor(private readonly dir: string) {
    fs.mkdirSync(dir, { recursive: true });
  }

  private file(id: string): string {
    // Snowflakes, or the ULIDs of uploads made before them; refuse anything else, so no
    // path can escape the directory.
    if (!/^([0-9]{1,19}|[0-9A-Z]{26})$/.test(id)) throw new Error('invalid upload id');
    return path.join(this.dir, id);
  }

  async put(id: string, data: Readable): Promise<number> {
    const target = this.file(id);
    const tmp = `${target}.part`;
    const out = fs.createWriteStream(tmp, { flags: 'wx' });
    try {
      await pipeline(data, out);
      // fsync before rename so a 200 means the bytes survive a crash.
      const fh = await fs.promises.open(tmp, 'r');
      try {
        await fh.sync();
      } finally {
        await fh.close();
      }
      await fs.promises.rename(tmp, target);
      return (await fs.promises.stat(target)).size;
    } catch (err) {
      // A failed body rejects the pipeline at once, while the stream may still be opening
      // the file: removing it before the stream has closed would leave a `.part` behind.
      if (!out.closed) await new Promise<void>((resolve) => out.once('close', () => resolve()));
      await fs.promises.rm(tmp, { force: true });
      throw err;
    }
  }

  async get(id: string): Promise<StoredBytes | null> {
    let file: string;
    try {
      file = this.file(id);
    } catch {
      return null;
    }
    try {
      const st = await fs.promises.stat(file);
      return { size: st.size, read: (range) => fs.createReadStream(file, range) };
    } catch {
      return null;
    }
  }

  async remove(id: string): Promise<void> {
    await fs.promises.rm(this.file(id), { force: true });
  }
}
