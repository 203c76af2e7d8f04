/**
 * A PDF's first page (docs/api.md#uploads): drawn by Poppler's `pdftoppm` where the machine
 * has it (installed by .ci/run, as Chromium is), behind the file's own URL secret, kept
 * once drawn and removed with the file; none on an instance without the program.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, upload, world } from '../factories.js';
import { onePagePdf } from '../fixtures/pdf.js';
import { type TestServer, startServer } from '../harness.js';
import { expectError } from './assert.js';

let srv: TestServer;
let w: Awaited<ReturnType<typeof world>>;

beforeAll(async () => {
  srv = await startServer({ env: { RATE_LIMITS: 'off' } });
  w = await world(srv.url);
});
afterAll(() => srv?.close());

const pageUrl = (fileUrl: string) => `${fileUrl}/page-1.png`;
const previewsDir = () => path.join(srv.dataDir, 'previews');

/** Width and height from a PNG's IHDR chunk. */
function pngSize(bytes: Buffer): { width: number; height: number } {
  expect(bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))).toBe(true);
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

async function uploaded(bytes: Buffer | string, name: string, type = 'application/pdf') {
  const r = await upload(srv.url, w.owner.auth, bytes, name, type);
  expect(r.status, r.text).toBe(200);
  return r.body as { url: string; filename: string };
}

async function get(url: string, headers: Record<string, string> = {}) {
  const r = await fetch(url, { headers });
  const bytes = Buffer.from(await r.arrayBuffer());
  return { status: r.status, headers: r.headers, bytes, json: () => JSON.parse(bytes.toString()) };
}

describe('GET /uploads/{id}/{secret}/{filename}/page-1.png', () => {
  it('GET /instance says this instance draws pages', async () => {
    const r = await call(srv.url, 'GET', '/instance');
    expect(r.status).toBe(200);
    expect(r.body.pdfPreviews).toBe(true);
  });

  it('draws the first page as a PNG that fits 800 pixels, without credentials, and answers 304 to its ETag', async () => {
    const file = await uploaded(onePagePdf('Quarterly report'), 'report.pdf');
    const r = await get(pageUrl(file.url));
    expect(r.status, r.bytes.toString()).toBe(200);
    expect(r.headers.get('content-type')).toBe('image/png');
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    // 300 × 200 points, scaled to fit 800 pixels: 800 wide, two thirds as high.
    const size = pngSize(r.bytes);
    expect(size.width).toBe(800);
    expect(Math.abs(size.height - 533)).toBeLessThanOrEqual(1);
    const etag = r.headers.get('etag');
    expect(etag).toBeTruthy();
    const again = await get(pageUrl(file.url), { 'if-none-match': etag ?? '' });
    expect(again.status).toBe(304);
  });

  it('is drawn once: the kept page is served, byte for byte, while the file lives', async () => {
    const file = await uploaded(onePagePdf('Kept'), 'kept.pdf');
    const first = await get(pageUrl(file.url));
    expect(first.status).toBe(200);
    const id = new URL(file.url).pathname.split('/')[2];
    const kept = path.join(previewsDir(), `${id}.png`);
    expect(fs.readFileSync(kept).equals(first.bytes)).toBe(true);
    // Were it drawn again, this mark would be replaced by a real page.
    fs.writeFileSync(kept, 'kept bytes');
    expect((await get(pageUrl(file.url))).bytes.toString()).toBe('kept bytes');
  });

  it('is removed with the file: once the message holding it is deleted, the page is gone from disk and 404', async () => {
    const file = await uploaded(onePagePdf('Doomed'), 'doomed.pdf');
    const msg = await call(srv.url, 'POST', `/channels/${w.channel.id}/messages`, {
      auth: w.owner.auth,
      body: { content: 'the minutes', attachments: [{ url: file.url, filename: file.filename }] },
    });
    expect(msg.status, msg.text).toBe(201);
    expect((await get(pageUrl(file.url))).status).toBe(200);
    const id = new URL(file.url).pathname.split('/')[2];
    expect(fs.existsSync(path.join(previewsDir(), `${id}.png`))).toBe(true);
    const del = await call(srv.url, 'DELETE', `/channels/${w.channel.id}/messages/${msg.body.id}`, { auth: w.owner.auth });
    expect(del.status).toBe(204);
    await expect.poll(() => fs.existsSync(path.join(previewsDir(), `${id}.png`))).toBe(false);
    const gone = await get(pageUrl(file.url));
    expect(gone.status).toBe(404);
    expect(gone.json().code).toBe('unknown_file');
  });

  it('404 no_preview for a file that is not a PDF by its bytes, whatever its name and type say', async () => {
    for (const [bytes, name, type] of [
      ['just some text', 'notes.txt', 'text/plain'],
      ['just some text', 'fake.pdf', 'application/pdf'],
    ] as const) {
      const file = await uploaded(bytes, name, type);
      const r = await get(pageUrl(file.url));
      expectError({ status: r.status, headers: r.headers, text: r.bytes.toString(), body: r.json() }, 404, 'no_preview');
    }
  });

  it('404 no_preview for a PDF the renderer cannot read, every time, and the service stays up', async () => {
    const file = await uploaded(Buffer.from('%PDF-1.4\nthis is not really a PDF\n%%EOF\n'), 'broken.pdf');
    for (let i = 0; i < 2; i++) {
      const r = await get(pageUrl(file.url));
      expect(r.status).toBe(404);
      expect(r.json().code).toBe('no_preview');
    }
    const id = new URL(file.url).pathname.split('/')[2];
    expect(fs.existsSync(path.join(previewsDir(), `${id}.png.none`))).toBe(true);
    expect((await call(srv.url, 'GET', '/healthz')).status).toBe(200);
  });

  it('404 unknown_file for a wrong secret or name, as the file itself', async () => {
    const file = await uploaded(onePagePdf('Secret'), 'secret.pdf');
    const u = new URL(file.url);
    const [, , id, secret] = u.pathname.split('/');
    for (const p of [`/uploads/${id}/${'A'.repeat(43)}/secret.pdf`, `/uploads/${id}/${secret}/other.pdf`]) {
      const r = await get(pageUrl(srv.url + p));
      expect(r.status).toBe(404);
      expect(r.json().code).toBe('unknown_file');
    }
  });
});

describe('an instance without the renderer', () => {
  for (const [what, command] of [
    ['PDF_PREVIEW_COMMAND empty (turned off)', ''],
    ['a command that is not there', '/nonexistent/pdftoppm'],
  ] as const) {
    it(`${what}: /instance says pdfPreviews false, and a PDF's page is 404 no_preview`, async () => {
      const off = await startServer({ env: { RATE_LIMITS: 'off', PDF_PREVIEW_COMMAND: command } });
      try {
        expect((await call(off.url, 'GET', '/instance')).body.pdfPreviews).toBe(false);
        const ow = await world(off.url);
        const up = await upload(off.url, ow.owner.auth, onePagePdf('No page'), 'nopage.pdf', 'application/pdf');
        expect(up.status).toBe(200);
        const r = await get(pageUrl(up.body.url));
        expect(r.status).toBe(404);
        expect(r.json().code).toBe('no_preview');
      } finally {
        await off.close();
      }
    });
  }
});
