/**
 * The local upload store on its own: a body that fails while it is being stored leaves
 * nothing behind, not even for a moment after `put` has given up (the route answers 400
 * as soon as it does, and the file must already be gone then).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { LocalUploadStore } from '../../src/files/upload-store.js';

describe('LocalUploadStore', () => {
  let dir: string;
  let store: LocalUploadStore;
  let next = 1000;
  const id = () => String(next++);

  /** The process's open files under the store's directory (Linux: /proc/self/fd). */
  const openFiles = (): string[] => {
    if (!fs.existsSync('/proc/self/fd')) return [];
    return fs
      .readdirSync('/proc/self/fd')
      .map((fd) => {
        try {
          return fs.readlinkSync(`/proc/self/fd/${fd}`);
        } catch {
          return ''; // closed between the listing and the read
        }
      })
      .filter((target) => target.startsWith(dir));
  };

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-upload-store-'));
    store = new LocalUploadStore(dir);
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('stores the bytes under the id and reads them back', async () => {
    const key = id();
    expect(await store.put(key, Readable.from([Buffer.from('hello '), Buffer.from('world')]))).toBe(11);
    const got = await store.get(key);
    expect(got?.size).toBe(11);
    const chunks: Buffer[] = [];
    for await (const c of got!.read()) chunks.push(c as Buffer);
    expect(Buffer.concat(chunks).toString()).toBe('hello world');
    const part: Buffer[] = [];
    for await (const c of got!.read({ start: 6, end: 10 })) part.push(c as Buffer);
    expect(Buffer.concat(part).toString()).toBe('world');
    await store.remove(key);
    expect(await store.get(key)).toBeNull();
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('a body that fails while the disk is still opening the file: nothing is left behind', async () => {
    // A slow disk: each open completes 30 ms late. Before the fix, put removed `<id>.part`
    // and rejected at once, and the late open then created the file, which outlived the
    // 400 answer (CI saw exactly that under load).
    const opens: Array<Promise<void>> = [];
    const realOpen = fs.open;
    const slowOpen = vi.spyOn(fs, 'open').mockImplementation(((...args: unknown[]) => {
      const done = args.pop() as (err: NodeJS.ErrnoException | null, fd?: number) => void;
      opens.push(
        new Promise<void>((resolve) => {
          setTimeout(() => {
            (realOpen as (...a: unknown[]) => void)(...args, (err: NodeJS.ErrnoException | null, fd?: number) => {
              done(err, fd);
              resolve();
            });
          }, 30);
        }),
      );
    }) as typeof fs.open);
    try {
      const body = new PassThrough();
      body.write('partial');
      setImmediate(() => body.destroy(new Error('the client went away')));
      await expect(store.put(id(), body)).rejects.toThrow('the client went away');
      expect(opens.length).toBe(1); // the store did open the file through the slow disk
      expect(openFiles()).toEqual([]);
      await Promise.all(opens); // whatever put did, the open has happened now
      expect(openFiles()).toEqual([]);
      expect(fs.readdirSync(dir)).toEqual([]);
    } finally {
      slowOpen.mockRestore();
    }
  });

  it('a body that fails mid-way: once put rejects, no file and no open handle is left', async () => {
    for (let round = 0; round < 20; round++) {
      const body = new PassThrough();
      body.write('partial');
      setImmediate(() => body.destroy(new Error('the client went away')));
      await expect(store.put(id(), body)).rejects.toThrow('the client went away');
      expect(openFiles()).toEqual([]);
      expect(fs.readdirSync(dir)).toEqual([]);
    }
  });

  it('refuses an id that is not a snowflake or a ULID, so no path leaves the directory', async () => {
    await expect(store.put('../escape', Readable.from(['x']))).rejects.toThrow('invalid upload id');
    expect(await store.get('../escape')).toBeNull();
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});
