import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import type { Plugin } from 'vite';

/** What compresses: text. Images and fonts are compressed already. */
const COMPRESSIBLE = new Set(['.js', '.css', '.html', '.svg', '.json', '.txt', '.webmanifest']);

/**
 * Writes a brotli (`.br`) and a gzip (`.gz`) copy beside every text file of the build,
 * at the highest levels: they are made once per build and served as they are
 * (`src/http/routes/web-client.ts` picks one by `Accept-Encoding`), so the service
 * never compresses per request. Files under 1 KiB are left alone: the headers would
 * outweigh the gain. Node's zlib does the work. `skip`: folders (relative to the build)
 * whose files look after themselves (the emoji set, web/build/emoji.ts).
 */
export function precompress(opts: { skip?: string[] } = {}): Plugin {
  let outDir = '';
  return {
    name: 'parley-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
    },
    closeBundle() {
      const skip = (opts.skip ?? []).map((dir) => path.join(path.resolve(outDir, dir), path.sep));
      for (const file of walk(outDir)) {
        if (skip.some((dir) => file.startsWith(dir))) continue;
        if (!COMPRESSIBLE.has(path.extname(file))) continue;
        const body = fs.readFileSync(file);
        if (body.length < 1024) continue;
        fs.writeFileSync(
          `${file}.br`,
          zlib.brotliCompressSync(body, {
            params: {
              [zlib.constants.BROTLI_PARAM_QUALITY]: zlib.constants.BROTLI_MAX_QUALITY,
              [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length,
            },
          }),
        );
        fs.writeFileSync(`${file}.gz`, zlib.gzipSync(body, { level: zlib.constants.Z_BEST_COMPRESSION }));
      }
    },
  };
}

function* walk(dir: string): Generator<string> {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(full);
    else yield full;
  }
}
