/**
 * Attachments in the web client (issue 38, item 4), real Chromium against a real Parley:
 * a file over the upload limit is refused from its size before any upload, with the limit
 * in MB beside it; text and code show their first lines highlighted (from a byte range of
 * the file's own URL); audio and video play in place from the file's own URL.
 */
import type { Page, Request } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { call, createServer, registerUser, upload } from '../factories.js';
import { onePagePdf } from '../fixtures/pdf.js';
import { browserSuite, screenshot } from './browser.js';

const MAX = 1024 * 1024;
const web = browserSuite({ env: { MAX_UPLOAD_BYTES: String(MAX) } });

/** Requests the page makes from now on. */
function recordRequests(page: Page): Request[] {
  const seen: Request[] = [];
  page.on('request', (r) => seen.push(r));
  return seen;
}

/** One second of a 440 Hz tone: a 16-bit mono WAV file. */
function wav(seconds = 1, rate = 8000): Buffer {
  const samples = seconds * rate;
  const data = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++) data.writeInt16LE(Math.round(Math.sin((2 * Math.PI * 440 * i) / rate) * 12000), i * 2);
  const head = Buffer.alloc(44);
  head.write('RIFF', 0);
  head.writeUInt32LE(36 + data.length, 4);
  head.write('WAVE', 8);
  head.write('fmt ', 12);
  head.writeUInt32LE(16, 16);
  head.writeUInt16LE(1, 20); // PCM
  head.writeUInt16LE(1, 22); // mono
  head.writeUInt32LE(rate, 24);
  head.writeUInt32LE(rate * 2, 28);
  head.writeUInt16LE(2, 32);
  head.writeUInt16LE(16, 34);
  head.write('data', 36);
  head.writeUInt32LE(data.length, 40);
  return Buffer.concat([head, data]);
}

/**
 * A short WebM video, made by the browser itself (MediaRecorder over a canvas, stopped
 * after a number of drawn frames), as bytes.
 */
async function webm(page: Page): Promise<Buffer> {
  const base64 = await page.evaluate(async () => {
    // The page's own globals (the test's types have no DOM).
    const { document, MediaRecorder, requestAnimationFrame, Blob, btoa } = globalThis as any;
    const canvas = document.createElement('canvas');
    canvas.width = 320;
    canvas.height = 180;
    const g = canvas.getContext('2d');
    const recorder = new MediaRecorder(canvas.captureStream(30), { mimeType: 'video/webm;codecs=vp8' });
    const parts: unknown[] = [];
    recorder.ondataavailable = (e: { data: unknown }) => parts.push(e.data);
    const stopped = new Promise((resolve) => {
      recorder.onstop = resolve;
    });
    recorder.start();
    await new Promise<void>((resolve) => {
      let frame = 0;
      const draw = () => {
        g.fillStyle = `hsl(${frame * 6}, 70%, 50%)`;
        g.fillRect(0, 0, 320, 180);
        g.fillStyle = '#fff';
        g.font = '48px sans-serif';
        g.fillText(`frame ${frame}`, 40, 110);
        if (++frame > 40) resolve();
        else requestAnimationFrame(draw);
      };
      draw();
    });
    recorder.stop();
    await stopped;
    const bytes = new Uint8Array(await new Blob(parts, { type: 'video/webm' }).arrayBuffer());
    let s = '';
    for (const b of bytes) s += String.fromCharCode(b);
    return btoa(s);
  });
  return Buffer.from(base64, 'base64');
}

async function postWith(owner: { auth: string }, channelId: string, content: string, file: { url: string; filename: string }) {
  const r = await call(web.url, 'POST', `/channels/${channelId}/messages`, {
    auth: owner.auth,
    body: { content, attachments: [{ url: file.url, filename: file.filename }] },
  });
  expect(r.status, r.text).toBe(201);
}

const message = (page: Page, text: string) => page.locator('[data-message-id]').filter({ hasText: text });

describe('attachments', () => {
  it('a file over the limit is refused from its size, before any upload, with the limit in MB', { timeout: 90_000 }, async () => {
    const owner = await registerUser(web.url);
    const { server, general } = await createServer(web.url, owner, 'Uploads');
    const { page, errors } = await web.open({ token: owner.token, path: `/s/${server.id}/c/${general.id}` });
    await page.getByRole('textbox', { name: /Message #general/ }).waitFor();
    const requests = recordRequests(page);
    await page
      .locator('input[type=file]')
      .setInputFiles({ name: 'holiday.mov', mimeType: 'video/quicktime', buffer: Buffer.alloc(MAX + 1, 1) });
    const pending = page.getByRole('list', { name: 'Attachments to send' });
    const refused = pending.getByRole('listitem').filter({ hasText: 'holiday.mov' });
    await refused.getByRole('alert').filter({ hasText: 'Files may be at most 1.0 MB' }).waitFor();
    await screenshot(page, 'i38-uploads-too-large');
    expect(requests.filter((r) => r.method() === 'POST' && new URL(r.url()).pathname === '/upload')).toEqual([]);
    // A file within the limit still uploads, beside the refused one.
    await page.locator('input[type=file]').setInputFiles({ name: 'small.txt', mimeType: 'text/plain', buffer: Buffer.from('small') });
    await pending.getByRole('listitem').filter({ hasText: 'small.txt' }).getByText('5 B').waitFor();
    expect(requests.filter((r) => r.method() === 'POST' && new URL(r.url()).pathname === '/upload')).toHaveLength(1);
    // The refused one can be removed.
    await refused.getByRole('button', { name: 'Remove holiday.mov' }).click();
    await expect.poll(() => refused.count()).toBe(0);
    expect(errors).toEqual([]);
  });

  it('text and code show their first lines, highlighted, fetched as a byte range of the file’s own URL', { timeout: 90_000 }, async () => {
    const owner = await registerUser(web.url);
    const { server, general } = await createServer(web.url, owner, 'Code review');
    const code = [
      'def greet(name):',
      '    """Say hello."""',
      '    return f"Hello, {name}!"',
      '',
      ...Array.from({ length: 30 }, (_, i) => `print(greet("person {i}"))`.replace('{i}', String(i))),
    ].join('\n');
    const py = await upload(web.url, owner.auth, code, 'greet.py', 'text/x-python');
    await postWith(owner, general.id, 'here is the script', py.body);
    const log = await upload(web.url, owner.auth, 'started\nlistening on :8080\n', 'server.log', 'text/plain');
    await postWith(owner, general.id, 'and the log', log.body);

    const { page, errors } = await web.open({ token: owner.token, path: `/s/${server.id}/c/${general.id}`, height: 900 });
    const requests = recordRequests(page);
    const script = message(page, 'here is the script');
    const preview = script.getByTestId('text-preview');
    await preview.locator('pre[data-highlighted] .hljs-keyword', { hasText: 'def' }).waitFor();
    const text = await preview.locator('pre').textContent();
    expect(text?.startsWith('def greet(name):\n    """Say hello."""')).toBe(true);
    // The first lines only, and a word that there is more.
    expect(text?.split('\n')).toHaveLength(12);
    await preview.getByText('More in the file').waitFor();
    // The card still downloads the file.
    expect(await script.getByRole('link', { name: /greet\.py/ }).getAttribute('download')).toBe('greet.py');
    // A short file shows whole, plain.
    const logPreview = message(page, 'and the log').getByTestId('text-preview');
    await logPreview.locator('pre').waitFor();
    expect(await logPreview.locator('pre').textContent()).toBe('started\nlistening on :8080');
    expect(await logPreview.getByText('More in the file').count()).toBe(0);
    // Only the start of each file was asked for, at the URL the message carries (no other path).
    await page.reload();
    await page.locator('[data-testid=text-preview] pre').first().waitFor();
    await expect.poll(() => requests.filter((r) => r.url() === py.body.url).length).toBeGreaterThan(0);
    for (const r of requests.filter((r) => r.url() === py.body.url || r.url() === log.body.url)) {
      expect(r.headers().range).toBe('bytes=0-16383');
    }
    expect(
      requests.filter((r) => new URL(r.url()).pathname.startsWith('/uploads/')).every((r) => [py.body.url, log.body.url].includes(r.url())),
    ).toBe(true);
    await script.scrollIntoViewIfNeeded();
    await screenshot(page, 'i38-uploads-text');
    expect(errors).toEqual([]);
  });

  it('a PDF shows its first page, drawn by the service, above its card; a PDF it cannot draw shows the card alone', {
    timeout: 90_000,
  }, async () => {
    const owner = await registerUser(web.url);
    const { server, general } = await createServer(web.url, owner, 'Reports');
    const pdf = await upload(web.url, owner.auth, onePagePdf('Quarterly report'), 'q3-report.pdf', 'application/pdf');
    await postWith(owner, general.id, 'the quarterly report', pdf.body);
    const broken = await upload(web.url, owner.auth, '%PDF-1.4\nnot really\n', 'broken.pdf', 'application/pdf');
    await postWith(owner, general.id, 'a broken one', broken.body);

    const { page, errors } = await web.open({ token: owner.token, path: `/s/${server.id}/c/${general.id}`, height: 900 });
    const report = message(page, 'the quarterly report');
    const first = report.getByRole('img', { name: 'First page of q3-report.pdf' });
    await first.waitFor();
    await expect.poll(() => first.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth)).toBe(800);
    expect(await first.getAttribute('src')).toBe(`${pdf.body.url}/page-1.png`);
    // The card still downloads the file, and the page opens it.
    expect(
      await report
        .getByRole('link', { name: /q3-report\.pdf/ })
        .last()
        .getAttribute('download'),
    ).toBe('q3-report.pdf');
    // The page that cannot be drawn leaves the card alone (its image is dropped on the 404).
    const other = message(page, 'a broken one');
    await other.getByRole('link', { name: /broken\.pdf/ }).waitFor();
    await expect.poll(() => other.getByRole('img', { name: /First page/ }).count()).toBe(0);
    await report.scrollIntoViewIfNeeded();
    await screenshot(page, 'i38-uploads-pdf');
    // The 404 of the broken one's page is the only failed load.
    expect(errors.filter((e) => !/404/.test(e))).toEqual([]);
  });

  it('audio and video play in place from the file’s own URL, and can seek', { timeout: 90_000 }, async () => {
    const owner = await registerUser(web.url);
    const { server, general } = await createServer(web.url, owner, 'Media');
    const { page, errors } = await web.open({ token: owner.token, path: `/s/${server.id}/c/${general.id}`, height: 900 });
    await page.getByRole('textbox', { name: /Message #general/ }).waitFor();
    const video = await upload(web.url, owner.auth, await webm(page), 'demo.webm', 'video/webm');
    expect(video.status, video.text).toBe(200);
    await postWith(owner, general.id, 'the demo video', video.body);
    const audio = await upload(web.url, owner.auth, wav(2), 'tone.wav', 'audio/wav');
    await postWith(owner, general.id, 'a voice note', audio.body);

    const player = message(page, 'a voice note').locator('audio');
    await player.waitFor();
    expect(await player.getAttribute('src')).toBe(audio.body.url);
    expect(await player.getAttribute('controls')).not.toBeNull();
    // The browser reads its length from the file: it loaded through that URL.
    await expect.poll(() => player.evaluate((a: any) => a.duration)).toBeCloseTo(2, 1);
    // Seeking lands where asked.
    await player.evaluate(
      (a: any) =>
        new Promise<void>((resolve) => {
          a.addEventListener('seeked', () => resolve(), { once: true });
          a.currentTime = 1.5;
        }),
    );
    expect(await player.evaluate((a: any) => a.currentTime)).toBeCloseTo(1.5, 1);
    expect(
      await message(page, 'a voice note')
        .getByRole('link', { name: /tone\.wav/ })
        .getAttribute('download'),
    ).toBe('tone.wav');

    const screen = message(page, 'the demo video').locator('video');
    await screen.waitFor();
    expect(await screen.getAttribute('src')).toBe(video.body.url);
    await expect.poll(() => screen.evaluate((v: any) => v.videoWidth)).toBe(320);
    await expect.poll(() => screen.evaluate((v: any) => v.readyState)).toBeGreaterThanOrEqual(2);
    await screenshot(page, 'i38-uploads-media');
    expect(errors).toEqual([]);
  });
});
