/**
 * Images open in a lightbox (issue 13), in real Chromium against a real Parley: a click
 * on an image attachment opens it large, the arrow keys move between the images of the
 * same message (attachments and embed images), the original is a link away, Escape
 * closes and gives focus back to the image; the viewer is not in the first load.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { call, createServer, registerUser, upload } from '../factories.js';
import { axeScan } from './axe.js';
import { browserSuite, makePng, screenshot } from './browser.js';

const web = browserSuite();

async function shot(page: Page, name: string) {
  const file = await screenshot(page, name);
  if (process.env.EMOJI_SHOTS) fs.copyFileSync(file, path.join(process.env.EMOJI_SHOTS, `${name}.png`));
}

/** The alt text of the image the lightbox shows now. */
const currentAlt = (page: Page) => page.locator('.yarl__slide_current img').getAttribute('alt');

describe('image lightbox', () => {
  it('opens an attachment large, moves through the message’s images with the arrow keys, closes with Escape', async () => {
    const owner = await registerUser(web.url);
    const { server, general } = await createServer(web.url, owner, 'Gallery');
    const one = await upload(web.url, owner.auth, makePng(640, 360), 'sunrise.png', 'image/png');
    const two = await upload(web.url, owner.auth, makePng(360, 640), 'tower.png', 'image/png');
    const three = await upload(web.url, owner.auth, makePng(300, 300), 'chart.png', 'image/png');
    const posted = await call(web.url, 'POST', `/channels/${general.id}/messages`, {
      auth: owner.auth,
      body: {
        content: 'Holiday pictures',
        attachments: [
          { url: one.body.url, filename: 'sunrise.png' },
          { url: two.body.url, filename: 'tower.png' },
        ],
        embeds: [{ title: 'Weekly chart', image: { url: three.body.url } }],
      },
    });
    expect(posted.status).toBe(201);

    for (const [scheme, width, height] of [
      ['light', 1280, 800],
      ['dark', 1280, 800],
      ['dark', 390, 844],
    ] as const) {
      const o = await web.open({
        token: owner.token,
        path: `/s/${server.id}/c/${general.id}`,
        colorScheme: scheme,
        width,
        height,
      });
      const { page, errors } = o;
      const msg = page.locator('[data-message-id]').filter({ hasText: 'Holiday pictures' });
      const first = msg.getByRole('link', { name: 'sunrise.png' });
      await first.waitFor();
      // The viewer's code is not in the first load.
      const scripts = await page
        .locator('script[src], link[rel=modulepreload]')
        .evaluateAll((els) => els.map((e) => e.getAttribute('src') ?? e.getAttribute('href') ?? ''));
      expect(scripts.some((u) => u.includes('lightbox'))).toBe(false);

      await first.click();
      const box = page.getByRole('dialog', { name: 'Image viewer' });
      await box.waitFor();
      await expect.poll(() => currentAlt(page)).toBe('sunrise.png');
      await expect.poll(() => page.locator('.yarl__slide_current img').evaluate((e: any) => e.complete && e.naturalWidth > 0)).toBe(true);
      const loaded = await page.evaluate(() =>
        (globalThis as any).performance.getEntriesByType('resource').map((e: any) => e.name as string),
      );
      expect(loaded.some((u: string) => /\/assets\/lightbox-view-[\w-]+\.js$/.test(u))).toBe(true);
      // Large, and within the window at any width.
      const img = await page.locator('.yarl__slide_current img').boundingBox();
      expect(img && img.width > Math.min(500, width - 40) && img.x >= 0 && img.x + img.width <= width).toBe(true);
      const original = box.getByRole('link', { name: 'Open original' });
      expect(await original.getAttribute('href')).toBe(one.body.url);
      expect(await box.getByRole('button', { name: 'Close' }).count()).toBe(1);
      // Faded in (for the screenshot).
      await expect
        .poll(() => page.locator('.yarl__portal').evaluate((e: any) => (globalThis as any).getComputedStyle(e).opacity))
        .toBe('1');
      await shot(page, `lightbox-${scheme}-${width}`);
      expect(await axeScan(page, [], ['.yarl__portal'])).toEqual([]);

      // Right: the next image of the message (the embed's too); Left: back.
      await page.keyboard.press('ArrowRight');
      await expect.poll(() => currentAlt(page)).toBe('tower.png');
      await expect.poll(() => original.getAttribute('href')).toBe(two.body.url);
      await page.keyboard.press('ArrowRight');
      await expect.poll(() => currentAlt(page)).toBe('Image for Weekly chart');
      await page.keyboard.press('ArrowLeft');
      await expect.poll(() => currentAlt(page)).toBe('tower.png');

      // Escape closes; focus is back on the image that was clicked.
      await page.keyboard.press('Escape');
      await box.waitFor({ state: 'detached' });
      expect(await first.evaluate((e) => e === (globalThis as any).document.activeElement)).toBe(true);

      // The close button too, and from the embed's image.
      if (width === 1280 && scheme === 'light') {
        const embedImage = msg.getByRole('link', { name: 'Image for Weekly chart' });
        await embedImage.click();
        await box.waitFor();
        await expect.poll(() => currentAlt(page)).toBe('Image for Weekly chart');
        await box.getByRole('button', { name: 'Close' }).click();
        await box.waitFor({ state: 'detached' });
        expect(await embedImage.evaluate((e) => e === (globalThis as any).document.activeElement)).toBe(true);
      }
      expect(errors).toEqual([]);
    }
  }, 90_000);
});
