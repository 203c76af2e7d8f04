import { Readable } from 'node:stream';
import { imageSize } from 'image-size';

/**
 * An image's size is read from its first bytes: where PNG, GIF and WebP say it, and far
 * enough into a JPEG to pass its EXIF and colour-profile segments to the frame header. A
 * JPEG whose header lies further in is stored with no size.
 */
const HEAD_BYTES = 256 * 1024;

/** The image types whose size is recorded: those served inline (src/domain/uploads.ts). */
const MEASURED = new Set(['png', 'jpg', 'gif', 'webp', 'avif']);

export interface Dimensions {
  width: number;
  height: number;
}

/** The pixel size of a PNG, JPEG, GIF, WebP or AVIF image from its first bytes; null for anything else or a damaged header. */
export function imageDimensions(head: Uint8Array): Dimensions | null {
  try {
    const size = imageSize(head);
    if (!MEASURED.has(size.type ?? '')) return null;
    const { width, height } = size;
    return Number.isSafeInteger(width) && Number.isSafeInteger(height) && width > 0 && height > 0 ? { width, height } : null;
  } catch {
    return null;
  }
}

/**
 * Passes `data` through unchanged, keeping its first bytes: `dimensions()` measures them once
 * the stream has been read (the upload is written, not buffered, whatever its size). An
 * error of `data` fails the copy, and a copy stopped early stops `data` (for await).
 */
export function measuringImage(data: Readable): { stream: Readable; dimensions: () => Dimensions | null } {
  const head: Buffer[] = [];
  let kept = 0;
  async function* copy() {
    for await (const chunk of data as AsyncIterable<Buffer>) {
      if (kept < HEAD_BYTES) {
        const part = chunk.subarray(0, HEAD_BYTES - kept);
        head.push(Buffer.from(part));
        kept += part.length;
      }
      yield chunk;
    }
  }
  return { stream: Readable.from(copy(), { objectMode: false }), dimensions: () => imageDimensions(Buffer.concat(head)) };
}
