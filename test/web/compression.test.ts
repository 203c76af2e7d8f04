/**
 * The web client's files travel compressed (issue 13, transfer): the build writes brotli
 * and gzip twins of its text files, and the service sends the one the browser takes,
 * with `Vary: Accept-Encoding`, decompressing to exactly the plain file. Prints the first
 * load's bytes (the page, its scripts and styles) plain, gzip and brotli.
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../harness.js';
import { ensureWebBuilt, ROOT } from './browser.js';

const DIST = path.join(ROOT, 'web', 'dist');
let srv: TestServer;

beforeAll(async () => {
  ensureWebBuilt();
  srv = await startServer();
}, 240_000);
afterAll(() => srv?.close());

/** A raw GET (fetch would decompress and hide Content-Encoding): status, headers, bytes as sent. */
async function get(url: string, headers: Record<string, string>) {
  const { request } = await import('node:http');
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }>((resolve, reject) => {
    const req = request(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** The page's own scripts and styles, as index.html names them. */
function firstLoadAssets(): string[] {
  const html = fs.readFileSync(path.join(DIST, 'index.html'), 'utf8');
  return [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+\.(?:js|css))"/g)].map((m) => m[1]!);
}

describe('compressed web client files', () => {
  it('the build writes a brotli and a gzip twin of each script and style', () => {
    const assets = firstLoadAssets();
    expect(assets.length).toBeGreaterThan(0);
    for (const a of assets) {
      const plain = fs.readFileSync(path.join(DIST, a));
      if (plain.length < 1024) continue;
      expect(zlib.brotliDecompressSync(fs.readFileSync(path.join(DIST, `${a}.br`))).equals(plain), a).toBe(true);
      expect(zlib.gunzipSync(fs.readFileSync(path.join(DIST, `${a}.gz`))).equals(plain), a).toBe(true);
    }
  });

  it('sends brotli, gzip or the plain file as Accept-Encoding says, each varying by it', async () => {
    const script = firstLoadAssets().find((a) => a.endsWith('.js'))!;
    const plain = fs.readFileSync(path.join(DIST, script));
    const cases: Array<[string | undefined, string | undefined]> = [
      ['gzip, deflate, br, zstd', 'br'],
      ['gzip', 'gzip'],
      ['br;q=0, gzip;q=0.8', 'gzip'],
      ['*', 'br'],
      ['identity', undefined],
      ['br;q=0, gzip;q=0', undefined],
      [undefined, undefined],
    ];
    for (const [accept, encoding] of cases) {
      const res = await get(`${srv.url}${script}`, accept === undefined ? {} : { 'accept-encoding': accept });
      expect(res.status, String(accept)).toBe(200);
      expect(res.headers['content-encoding'], String(accept)).toBe(encoding);
      expect(res.headers.vary, String(accept)).toBe('Accept-Encoding');
      expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
      const body = encoding === 'br' ? zlib.brotliDecompressSync(res.body) : encoding === 'gzip' ? zlib.gunzipSync(res.body) : res.body;
      expect(body.equals(plain), String(accept)).toBe(true);
    }
  });

  it('the page varies by Accept as well; a file under 1 KiB has no twin and goes as it is', async () => {
    const page = await get(`${srv.url}/s/1/c/2`, { accept: 'text/html', 'accept-encoding': 'br, gzip' });
    expect(page.status).toBe(200);
    expect(page.headers.vary).toBe('Accept, Accept-Encoding');
    const html = fs.readFileSync(path.join(DIST, 'index.html'));
    const expected = html.length < 1024 ? undefined : 'br';
    expect(page.headers['content-encoding']).toBe(expected);
    expect((expected ? zlib.brotliDecompressSync(page.body) : page.body).equals(html)).toBe(true);
    const icon = await get(`${srv.url}/favicon.svg`, { 'accept-encoding': 'br, gzip' });
    expect(icon.status).toBe(200);
    expect(fs.statSync(path.join(DIST, 'favicon.svg')).size).toBeLessThan(1024);
    expect(icon.headers['content-encoding']).toBeUndefined();
    expect(icon.body.equals(fs.readFileSync(path.join(DIST, 'favicon.svg')))).toBe(true);
  });

  it('first load: the page, its scripts and styles', async () => {
    const files = ['/', ...firstLoadAssets()];
    const total = { plain: 0, gzip: 0, br: 0 };
    for (const f of files) {
      for (const enc of ['identity', 'gzip', 'br'] as const) {
        const res = await get(`${srv.url}${f}`, { accept: 'text/html', 'accept-encoding': enc });
        total[enc === 'identity' ? 'plain' : enc] += res.body.length;
      }
    }
    console.log(
      `first load (${files.length} files): plain ${(total.plain / 1024).toFixed(0)} KiB, gzip ${(total.gzip / 1024).toFixed(0)} KiB, brotli ${(total.br / 1024).toFixed(0)} KiB`,
    );
    expect(total.br).toBeLessThan(total.gzip);
    expect(total.gzip).toBeLessThan(total.plain / 2);
  });
});
