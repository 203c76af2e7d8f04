import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { StoredBytes } from './upload-store.js';

/**
 * A PDF's first page as a PNG, for the web client to show above the file's card
 * (docs/api.md#uploads). Made by Poppler's `pdftoppm` where the machine has it (Debian's
 * `poppler-utils`); an instance without it makes none and says so in `GET /instance`
 * (`pdfPreviews: false`), and the client shows the file's card alone.
 *
 * The PDF comes from a stranger, so the renderer runs as a separate process with a time
 * limit, one at a time, its output bounded; a file it cannot render in time is remembered
 * as having no page (not tried again). Pages are kept under `dir`, named by the bytes'
 * key, and removed with the bytes.
 */
export interface PdfPages {
  /** Whether this instance can make pages (the renderer ran when the service started). */
  readonly available: boolean;
  /** The first page of the PDF in `bytes` (stored under `key`), or null if it has none. */
  firstPage(key: string, bytes: StoredBytes): Promise<Buffer | null>;
  /** Forgets the page of `key` (its bytes were deleted). */
  remove(key: string): Promise<void>;
}

/** Width and height the page is scaled to fit, in pixels: sharp in a message at twice its shown size. */
const PAGE_PIXELS = 800;
/** A page the renderer has not written in this time is abandoned (the process killed). */
const RENDER_TIMEOUT_MS = 15_000;
/** The most PNG bytes taken from the renderer; past it the page is abandoned. */
const MAX_PAGE_BYTES = 8 * 1024 * 1024;
/** How the file of a PDF without a page is named: a render failed, and is not tried again. */
const NONE = '.none';

const PDF_MAGIC = Buffer.from('%PDF-');

/** Whether the stored bytes start as a PDF does (`%PDF-`): the name and the declared type are the uploader's. */
export async function looksLikePdf(bytes: StoredBytes): Promise<boolean> {
  if (bytes.size < PDF_MAGIC.length) return false;
  const chunks: Buffer[] = [];
  for await (const chunk of bytes.read({ start: 0, end: PDF_MAGIC.length - 1 })) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).equals(PDF_MAGIC);
}

/**
 * Runs `command -v` to learn whether the renderer is there; resolves with the pages, or
 * with none (`available: false`) when `command` is empty or does not run.
 */
export async function openPdfPages(command: string, dir: string, report: (err: unknown, what: string) => void): Promise<PdfPages> {
  if (command && (await runs(command))) return new PdftoppmPages(command, dir, report);
  return NO_PAGES;
}

const NO_PAGES: PdfPages = {
  available: false,
  firstPage: async () => null,
  remove: async () => {},
};

function runs(command: string): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn(command, ['-v'], { stdio: 'ignore' });
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('error', () => {
      clearTimeout(timer);
      resolve(false);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code === 0);
    });
  });
}

class PdftoppmPages implements PdfPages {
  readonly available = true;
  /** Renders run one after another: a burst of PDFs costs one core, not all of them. */
  private queue: Promise<unknown> = Promise.resolve();
  /** Renders asked for and not finished, by key: a second request waits for the first. */
  private readonly pending = new Map<string, Promise<Buffer | null>>();

  constructor(
    private readonly command: string,
    private readonly dir: string,
    private readonly report: (err: unknown, what: string) => void,
  ) {
    fs.mkdirSync(dir, { recursive: true });
  }

  private file(key: string): string {
    // The upload store's keys (snowflakes, or the ULIDs of old uploads); anything else cannot name a file here.
    if (!/^([0-9]{1,19}|[0-9A-Z]{26})$/.test(key)) throw new Error('invalid upload key');
    return path.join(this.dir, `${key}.png`);
  }

  async firstPage(key: string, bytes: StoredBytes): Promise<Buffer | null> {
    const file = this.file(key);
    const kept = await readIfThere(file);
    if (kept) return kept;
    if (fs.existsSync(file + NONE)) return null;
    const running = this.pending.get(key);
    if (running) return running;
    const made = this.render(file, bytes).finally(() => this.pending.delete(key));
    this.pending.set(key, made);
    return made;
  }

  private render(file: string, bytes: StoredBytes): Promise<Buffer | null> {
    const turn = this.queue.then(async () => {
      const png = await this.run(bytes).catch((err: unknown) => {
        this.report(err, 'PDF page rendering failed');
        return null;
      });
      // Kept either way: a page, or the mark that this file has none.
      const target = png ? file : file + NONE;
      const tmp = `${target}.${process.pid}.part`;
      await fs.promises.writeFile(tmp, png ?? '');
      await fs.promises.rename(tmp, target);
      return png;
    });
    this.queue = turn.catch(() => {});
    return turn;
  }

  /** The first page as PNG (`pdftoppm -f 1 -l 1 -png -scale-to N -`, the PDF on stdin and the PNG on stdout). */
  private run(bytes: StoredBytes): Promise<Buffer | null> {
    return new Promise((resolve, reject) => {
      const args = ['-f', '1', '-l', '1', '-png', '-scale-to', String(PAGE_PIXELS), '-'];
      const child = spawn(this.command, args, { stdio: ['pipe', 'pipe', 'ignore'] });
      const out: Buffer[] = [];
      let size = 0;
      let outcome: 'ok' | 'timeout' | 'too large' = 'ok';
      const timer = setTimeout(() => {
        outcome = 'timeout';
        child.kill('SIGKILL');
      }, RENDER_TIMEOUT_MS);
      child.stdout.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_PAGE_BYTES) {
          outcome = 'too large';
          child.kill('SIGKILL');
        } else out.push(chunk);
      });
      child.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      child.once('close', (code) => {
        clearTimeout(timer);
        // A PDF the renderer cannot read exits non-zero with nothing written: no page, not a fault.
        if (outcome !== 'ok') reject(new Error(`pdftoppm stopped: ${outcome}`));
        else resolve(code === 0 && size > 0 ? Buffer.concat(out) : null);
      });
      // The renderer may stop reading (a broken file); its closed stdin is not an error here.
      child.stdin.on('error', () => {});
      const input = bytes.read();
      input.on('error', (err) => {
        child.kill('SIGKILL');
        reject(err);
      });
      input.pipe(child.stdin);
    });
  }

  async remove(key: string): Promise<void> {
    const file = this.file(key);
    await Promise.all([fs.promises.rm(file, { force: true }), fs.promises.rm(file + NONE, { force: true })]);
  }
}

async function readIfThere(file: string): Promise<Buffer | null> {
  try {
    return await fs.promises.readFile(file);
  } catch {
    return null;
  }
}
