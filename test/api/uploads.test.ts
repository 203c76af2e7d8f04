/** docs/api.md#uploads (upload) and serving uploads back safely (docs/security.md#files-are-for-those-who-may-see-them) over HTTP, with MAX_UPLOAD_BYTES=1024. */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, upload, world } from '../factories.js';
import { type TestServer, startServer } from '../harness.js';
import { UNKNOWN_ID, countRows, expectError } from './assert.js';

const MAX = 1024;
let srv: TestServer;
let w: Awaited<ReturnType<typeof world>>;

beforeAll(async () => {
  srv = await startServer({ env: { MAX_UPLOAD_BYTES: String(MAX), RATE_LIMITS: 'off' } });
  w = await world(srv.url);
});
afterAll(() => srv?.close());

/** The smallest valid PNG (1×1, transparent). */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

async function fetchBack(url: string) {
  const r = await fetch(url);
  return { status: r.status, headers: r.headers, bytes: Buffer.from(await r.arrayBuffer()) };
}

const uploadsDir = () => path.join(srv.dataDir, 'uploads');
const storedFiles = () => (fs.existsSync(uploadsDir()) ? fs.readdirSync(uploadsDir()).sort() : []);

describe('seed 4.4: POST /upload', () => {
  it('200 {url, filename, size, contentType}; url is absolute under PUBLIC_URL/uploads/', async () => {
    const r = await upload(srv.url, w.bot.auth, 'hello, file', 'hello.txt', 'text/plain');
    expect(r.status, r.text).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['contentType', 'filename', 'size', 'url']);
    expect(r.body).toMatchObject({ filename: 'hello.txt', size: 11, contentType: 'text/plain' });
    expect(r.body.url.startsWith(`${srv.url}/uploads/`)).toBe(true);
    const u = new URL(r.body.url);
    expect(u.origin).toBe(srv.url);
    expect(u.pathname).toMatch(/^\/uploads\/[0-9]{16,19}\/[A-Za-z0-9_-]{43}\/hello\.txt$/);
  });

  it('the file can be fetched back, byte for byte, without authentication', async () => {
    const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    const r = await upload(srv.url, w.bot.auth, bytes, 'all-bytes.bin');
    expect(r.status, r.text).toBe(200);
    expect(r.body.size).toBe(256);
    const back = await fetchBack(r.body.url);
    expect(back.status).toBe(200);
    expect(back.bytes.equals(bytes)).toBe(true);
    expect(back.headers.get('content-length')).toBe('256');
    expect(back.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('people can upload too (the web client uses the same API)', async () => {
    const r = await upload(srv.url, w.owner.auth, 'from a person', 'p.txt', 'text/plain');
    expect(r.status).toBe(200);
    expect((await fetchBack(r.body.url)).bytes.toString()).toBe('from a person');
  });

  it('an image is served inline with its type and nosniff', async () => {
    const r = await upload(srv.url, w.bot.auth, PNG, 'dot.png', 'image/png');
    expect(r.status).toBe(200);
    expect(r.body.contentType).toBe('image/png');
    const back = await fetchBack(r.body.url);
    expect(back.status).toBe(200);
    expect(back.bytes.equals(PNG)).toBe(true);
    expect(back.headers.get('content-type')).toBe('image/png');
    expect(back.headers.get('content-disposition')).toMatch(/^inline/);
    expect(back.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('HTML and SVG are served as attachment/octet-stream, never as a document of our origin', async () => {
    const cases = [
      { name: 'page.html', type: 'text/html', body: '<!doctype html><script>alert(document.cookie)</script>' },
      { name: 'image.svg', type: 'image/svg+xml', body: '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>' },
      { name: 'page.htm', type: 'application/octet-stream', body: '<html><body onload="alert(1)"></body></html>' },
      {
        name: 'x.xhtml',
        type: 'application/xhtml+xml',
        body: '<html xmlns="http://www.w3.org/1999/xhtml"><script>alert(1)</script></html>',
      },
    ];
    for (const c of cases) {
      const r = await upload(srv.url, w.bot.auth, c.body, c.name, c.type);
      expect(r.status, `${c.name}: ${r.text}`).toBe(200);
      const back = await fetchBack(r.body.url);
      expect(back.status).toBe(200);
      expect(back.bytes.toString()).toBe(c.body);
      const type = back.headers.get('content-type') ?? '';
      expect(type, c.name).toBe('application/octet-stream');
      expect(type).not.toMatch(/html|svg|xml/);
      expect(back.headers.get('content-disposition'), c.name).toMatch(/^attachment;/);
      expect(back.headers.get('x-content-type-options')).toBe('nosniff');
      expect(back.headers.get('content-security-policy') ?? '').toMatch(/sandbox/);
    }
  });

  it('file names are kept without any path', async () => {
    const r = await upload(srv.url, w.bot.auth, 'x', '../../etc/passwd', 'text/plain');
    expect(r.status).toBe(200);
    expect(r.body.filename).toBe('passwd');
    expect(new URL(r.body.url).pathname).toMatch(/^\/uploads\/[0-9]{16,19}\/[A-Za-z0-9_-]{43}\/passwd$/);
    const back = await fetchBack(r.body.url);
    expect(back.headers.get('content-disposition')).toContain("filename*=UTF-8''passwd");
  });

  it('a name that would be a dot segment in the URL is stored as "file", so the URL leads to the file', async () => {
    for (const name of ['..', '.', 'dir/..']) {
      const r = await upload(srv.url, w.bot.auth, 'dots', name, 'text/plain');
      expect(r.status, r.text).toBe(200);
      expect(r.body.filename).toBe('file');
      expect(new URL(r.body.url).pathname).toMatch(/^\/uploads\/[0-9]{16,19}\/[A-Za-z0-9_-]{43}\/file$/);
      expect((await fetchBack(r.body.url)).bytes.toString()).toBe('dots');
    }
  });

  it('the download name survives quotes, brackets and non-ASCII (RFC 8187 encoding)', async () => {
    const r = await upload(srv.url, w.bot.auth, 'x', "it's (1) *é*.txt", 'text/plain');
    expect(r.status).toBe(200);
    expect(r.body.filename).toBe("it's (1) *é*.txt");
    const back = await fetchBack(r.body.url);
    expect(back.headers.get('content-disposition')).toBe("attachment; filename*=UTF-8''it%27s%20%281%29%20%2A%C3%A9%2A.txt");
  });

  it('exactly MAX_UPLOAD_BYTES is accepted', async () => {
    const r = await upload(srv.url, w.bot.auth, Buffer.alloc(MAX, 7), 'max.bin');
    expect(r.status, r.text).toBe(200);
    expect(r.body.size).toBe(MAX);
    expect((await fetchBack(r.body.url)).bytes.equals(Buffer.alloc(MAX, 7))).toBe(true);
  });

  it('over MAX_UPLOAD_BYTES: 413 and nothing is stored', async () => {
    const filesBefore = storedFiles();
    const rowsBefore = await countRows(srv, 'uploads');
    for (const size of [MAX + 1, MAX * 4, 3 * 1024 * 1024]) {
      const r = await upload(srv.url, w.bot.auth, Buffer.alloc(size, 1), `big-${size}.bin`);
      expectError(r, 413);
    }
    expect(storedFiles()).toEqual(filesBefore);
    expect(storedFiles().filter((f) => f.endsWith('.part'))).toEqual([]);
    expect(await countRows(srv, 'uploads')).toBe(rowsBefore);
    // The service is fine afterwards.
    expect((await upload(srv.url, w.bot.auth, 'small', 'small.txt', 'text/plain')).status).toBe(200);
  });

  it('no `file` field, or not multipart: 400', async () => {
    const filesBefore = storedFiles();
    const other = new FormData();
    other.append('attachment', new Blob(['x']), 'x.txt');
    expectError(await call(srv.url, 'POST', '/upload', { auth: w.bot.auth, raw: other }), 400, /file/);
    const textOnly = new FormData();
    textOnly.append('file', 'just a string field');
    expectError(await call(srv.url, 'POST', '/upload', { auth: w.bot.auth, raw: textOnly }), 400, /file/);
    const empty = new FormData();
    empty.append('note', 'nothing');
    expectError(await call(srv.url, 'POST', '/upload', { auth: w.bot.auth, raw: empty }), 400);
    expectError(await call(srv.url, 'POST', '/upload', { auth: w.bot.auth, body: { file: 'aGVsbG8=' } }), 400, /multipart/);
    expectError(await call(srv.url, 'POST', '/upload', { auth: w.bot.auth }), 400);
    expect(storedFiles()).toEqual(filesBefore);
  });

  it('a malformed multipart body: 400 (not 500), and nothing is stored', async () => {
    const filesBefore = storedFiles();
    const rowsBefore = await countRows(srv, 'uploads');
    const head = '--XYZ\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\n';
    const cases: Array<[string, string]> = [
      ['multipart/form-data', 'no boundary parameter'],
      ['multipart/form-data; boundary=XYZ', 'no parts at all'],
      ['multipart/form-data; boundary=XYZ', `${head}hello`], // the closing boundary never comes
      ['multipart/form-data; boundary=XYZ', `${head}${'x'.repeat(600)}`],
    ];
    for (const [type, raw] of cases) {
      expectError(await call(srv.url, 'POST', '/upload', { auth: w.bot.auth, raw, headers: { 'content-type': type } }), 400);
    }
    expect(storedFiles()).toEqual(filesBefore);
    expect(await countRows(srv, 'uploads')).toBe(rowsBefore);
    expect((await upload(srv.url, w.bot.auth, 'fine', 'fine.txt', 'text/plain')).status).toBe(200);
  });

  it('no token or an invalid one: 401, and nothing is stored', async () => {
    const filesBefore = storedFiles();
    const form = new FormData();
    form.append('file', new Blob(['secret']), 's.txt');
    expectError(await call(srv.url, 'POST', '/upload', { raw: form }), 401);
    const form2 = new FormData();
    form2.append('file', new Blob(['secret']), 's.txt');
    expectError(await call(srv.url, 'POST', '/upload', { raw: form2, headers: { authorization: 'Bot nope' } }), 401);
    expect(storedFiles()).toEqual(filesBefore);
  });
});

describe('GET /uploads/{id}/{filename}', () => {
  it('a Range request gets those bytes (206), so audio and video can seek; an unusable range gets the whole file', async () => {
    const bytes = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 251));
    const r = await upload(srv.url, w.bot.auth, bytes, 'clip.ogg', 'audio/ogg');
    expect(r.status, r.text).toBe(200);
    const get = (headers: Record<string, string>) =>
      fetch(r.body.url, { headers }).then(async (res) => ({
        status: res.status,
        headers: res.headers,
        bytes: Buffer.from(await res.arrayBuffer()),
      }));
    const whole = await get({});
    expect(whole.status).toBe(200);
    expect(whole.headers.get('accept-ranges')).toBe('bytes');
    const etag = whole.headers.get('etag')!;
    for (const [range, start, end] of [
      ['bytes=100-199', 100, 199],
      ['bytes=990-', 990, 999],
      ['bytes=-10', 990, 999],
      ['bytes=0-5000', 0, 999],
    ] as const) {
      const part = await get({ range });
      expect(part.status, range).toBe(206);
      expect(part.headers.get('content-range'), range).toBe(`bytes ${start}-${end}/1000`);
      expect(part.headers.get('content-length'), range).toBe(String(end - start + 1));
      expect(part.bytes.equals(bytes.subarray(start, end + 1)), range).toBe(true);
      // Still a download, with the same protections.
      expect(part.headers.get('content-disposition')).toMatch(/^attachment;/);
      expect(part.headers.get('x-content-type-options')).toBe('nosniff');
    }
    expect((await get({ range: 'bytes=100-199', 'if-range': etag })).status).toBe(206);
    const unusable: Array<Record<string, string>> = [
      { range: 'bytes=100-199', 'if-range': '"other"' },
      { range: 'bytes=5-1' },
      { range: 'bytes=2000-' },
      { range: 'items=0-1' },
      { range: 'bytes=0-1,5-6' },
    ];
    for (const headers of unusable) {
      const full = await get(headers);
      expect(full.status, JSON.stringify(headers)).toBe(200);
      expect(full.bytes.equals(bytes), JSON.stringify(headers)).toBe(true);
    }
  });

  it('unknown file: 404 JSON', async () => {
    expectError(await call(srv.url, 'GET', `/uploads/${UNKNOWN_ID}/x.txt`), 404);
    expectError(await call(srv.url, 'GET', '/uploads/garbage/x.txt'), 404);
    expectError(await call(srv.url, 'GET', '/uploads/..%2F..%2Fparley.db/x'), 404);
  });
});
