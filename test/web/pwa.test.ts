/**
 * The web client as an installable app: a manifest with icons, and a service worker that
 * precaches the app shell so that the client opens offline, while API paths are never
 * answered from its cache. Real Chromium, real Parley.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { browserSuite, ROOT } from './browser.js';

// Rate limits at the service's default (on): this suite never turned them off.
const web = browserSuite({ env: { RATE_LIMITS: 'on' } });

describe('installable web client', () => {
  it('serves a manifest with icons that exist', async () => {
    const res = await fetch(`${web.url}/manifest.webmanifest`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/manifest+json');
    const manifest = (await res.json()) as {
      name: string;
      start_url: string;
      display: string;
      icons: Array<{ src: string; sizes: string; purpose?: string }>;
    };
    expect(manifest).toMatchObject({ name: 'Parley', start_url: '/', display: 'standalone' });
    expect(manifest.icons.map((i) => i.sizes)).toEqual(expect.arrayContaining(['192x192', '512x512']));
    expect(manifest.icons.some((i) => i.purpose === 'maskable')).toBe(true);
    for (const icon of manifest.icons) {
      const r = await fetch(web.url + icon.src);
      expect(r.status, icon.src).toBe(200);
    }
    const html = await (await fetch(`${web.url}/`, { headers: { accept: 'text/html' } })).text();
    expect(html).toContain('<link rel="manifest" href="/manifest.webmanifest">');
  });

  it('opens offline from the service worker, and never answers API paths from it', async () => {
    const o = await web.open({ path: '/login', serviceWorkers: 'allow' });
    const { page, context, errors } = o;
    await page.getByRole('button', { name: 'Log in' }).waitFor();
    // Installed, active and in control of the page (clientsClaim), with the shell precached.
    // (No DOM types in test files: the page's globals through `globalThis as any`.)
    await page.waitForFunction(() => (globalThis as any).navigator.serviceWorker.controller !== null, undefined, { timeout: 20_000 });
    const cached = await page.evaluate(async () => {
      const storage = (globalThis as any).caches;
      const paths: string[] = [];
      for (const key of await storage.keys()) {
        for (const request of await (await storage.open(key)).keys()) paths.push(new URL(request.url).pathname);
      }
      return paths;
    });
    expect(cached).toContain('/index.html');
    expect(cached.some((p) => p.startsWith('/assets/') && p.endsWith('.js'))).toBe(true);

    await context.setOffline(true);
    await page.reload();
    await page.getByRole('button', { name: 'Log in' }).waitFor();
    await page.goto(`${web.url}/register`);
    await page.getByRole('button', { name: 'Create account' }).waitFor();

    // An API path is not the app: offline, it fails instead of showing the cached shell.
    const api = await page.goto(`${web.url}/healthz`).then(
      () => 'answered',
      () => 'failed',
    );
    expect(api).toBe('failed');
    await context.setOffline(false);
    const online = await page.goto(`${web.url}/healthz`);
    expect(online?.headers()['content-type']).toContain('application/json');
    expect(errors).toEqual([]);
  });

  it('caches an emoji SVG when it is first drawn (none is precached), and draws it offline from then on', async () => {
    const version = fs.readdirSync(path.join(ROOT, 'web', 'dist', 'assets', 'emoji'))[0];
    const svg = `/assets/emoji/${version}/1f680.svg`;
    const o = await web.open({ path: '/login', serviceWorkers: 'allow' });
    const { page, context, errors } = o;
    await page.getByRole('button', { name: 'Log in' }).waitFor();
    await page.waitForFunction(() => (globalThis as any).navigator.serviceWorker.controller !== null, undefined, { timeout: 20_000 });
    const cachedPaths = () =>
      page.evaluate(async () => {
        const storage = (globalThis as any).caches;
        const paths: string[] = [];
        for (const key of await storage.keys()) {
          for (const request of await (await storage.open(key)).keys()) paths.push(`${key} ${new URL(request.url).pathname}`);
        }
        return paths;
      });
    expect((await cachedPaths()).filter((p) => p.includes('/assets/emoji/'))).toEqual([]);
    const load = (src: string) =>
      page.evaluate(
        (src) =>
          new Promise<number>((resolve) => {
            const img = new (globalThis as any).Image();
            img.onload = () => resolve(img.naturalWidth);
            img.onerror = () => resolve(0);
            img.src = src;
          }),
        src,
      );
    expect(await load(svg)).toBeGreaterThan(0);
    await expect.poll(async () => (await cachedPaths()).filter((p) => p.includes('/assets/emoji/'))).toEqual([`parley-emoji ${svg}`]);
    await context.setOffline(true);
    expect(await load(`${svg}?offline`)).toBe(0);
    expect(await load(svg)).toBeGreaterThan(0);
    await context.setOffline(false);
    expect(errors).toEqual([]);
  });
});
