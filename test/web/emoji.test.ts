/**
 * The bundled emoji set (issue 13) in real Chromium against a real Parley: emoji in
 * messages and reactions are Twemoji images that load (Debian's Chromium has no colour
 * emoji font, so system emoji would be boxes), with the emoji as their alt text; an
 * emoji-only message is drawn large; an emoji newer than the set stays text; the picker
 * (its data a chunk of its own) searches by shortcode, reacts and inserts into the composer.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { call, createServer, postMessage, registerUser } from '../factories.js';
import { axeScan, settle } from './axe.js';
import { browserSuite, screenshot } from './browser.js';

const web = browserSuite();

/** A screenshot under test-results/web, and a copy in EMOJI_SHOTS when that names a folder. */
async function shot(page: Page, name: string) {
  const file = await screenshot(page, name);
  if (process.env.EMOJI_SHOTS) fs.copyFileSync(file, path.join(process.env.EMOJI_SHOTS, `${name}.png`));
}

const message = (page: Page, text: string) => page.locator('[data-message-id]').filter({ hasText: text });

/** Waits until every image in `scope` has loaded, and returns their alt texts and sizes. */
async function loadedImages(scope: Locator) {
  await expect
    .poll(() => scope.locator('img.emoji').evaluateAll((els) => els.every((e: any) => e.complete && e.naturalWidth > 0)), {
      timeout: 10_000,
    })
    .toBe(true);
  return scope.locator('img.emoji').evaluateAll((els) =>
    els.map((e: any) => ({
      alt: e.alt as string,
      src: e.getAttribute('src') as string,
      natural: e.naturalWidth as number,
      height: e.getBoundingClientRect().height as number,
    })),
  );
}

describe('emoji', () => {
  it('draws emoji in messages from the bundled set, jumbo when alone, text when newer than the set', async () => {
    const owner = await registerUser(web.url);
    const { server, general } = await createServer(web.url, owner, 'Emoji Land');
    await postMessage(web.url, owner.auth, general.id, 'Ship it 🚀 today 👍🏽 — `code 🚀 stays text`');
    await postMessage(web.url, owner.auth, general.id, '🎉🎉');
    await postMessage(web.url, owner.auth, general.id, 'A new face 🫩 here');

    for (const [scheme, width] of [
      ['light', 1280],
      ['dark', 1280],
      ['light', 390],
    ] as const) {
      const o = await web.open({
        token: owner.token,
        path: `/s/${server.id}/c/${general.id}`,
        colorScheme: scheme,
        width,
        height: 844,
      });
      const { page, errors } = o;

      const ship = message(page, 'Ship it');
      await ship.waitFor();
      const imgs = await loadedImages(ship.locator('.md'));
      expect(imgs.map((i) => i.alt)).toEqual(['🚀', '👍🏽']);
      expect(imgs.map((i) => i.src)).toEqual([
        expect.stringMatching(/^\/assets\/emoji\/15\.0\.0\/1f680\.svg$/),
        expect.stringMatching(/\/1f44d-1f3fd\.svg$/),
      ]);
      for (const i of imgs) {
        expect(i.natural).toBeGreaterThan(0);
        expect(i.height).toBeGreaterThan(18);
        expect(i.height).toBeLessThan(28);
      }
      // Code keeps its emoji as text; the text of the message (what copying takes) is unchanged.
      expect(await ship.locator('code').locator('img').count()).toBe(0);
      expect(await ship.locator('.md').evaluate((el: any) => [...el.querySelectorAll('img')].map((i: any) => i.alt).join(''))).toBe(
        '🚀👍🏽',
      );

      if (width === 1280 && scheme === 'light') {
        // Copying the message copies the emoji as text.
        await ship.locator('.md p').evaluate((el: any) => {
          const g = globalThis as any;
          const range = g.document.createRange();
          range.selectNodeContents(el);
          g.getSelection().removeAllRanges();
          g.getSelection().addRange(range);
        });
        await page.keyboard.press('Control+C');
        const copied = await page.evaluate(() => (globalThis as any).navigator.clipboard.readText());
        expect(copied).toBe('Ship it 🚀 today 👍🏽 — code 🚀 stays text');
      }

      // Emoji alone: jumbo (Discord's 48 px).
      const party = page.locator('[data-message-id] .md-jumbo');
      const big = await loadedImages(party);
      expect(big.map((i) => i.alt)).toEqual(['🎉', '🎉']);
      for (const i of big) expect(i.height).toBeGreaterThanOrEqual(44);

      // 🫩 (Emoji 16.0) is not in Twemoji 15.0: the text itself, no broken image.
      const face = message(page, 'A new face');
      await face.locator('.emoji-text', { hasText: '🫩' }).waitFor();
      expect(await face.locator('img').count()).toBe(0);

      await shot(page, `emoji-message-${scheme}-${width}`);
      expect(errors).toEqual([]);
    }
  }, 60_000);

  it('reacts and inserts from the picker, whose data loads on first use and whose search takes shortcodes', async () => {
    const owner = await registerUser(web.url);
    const { server, general } = await createServer(web.url, owner, 'Picker Land');
    await postMessage(web.url, owner.auth, general.id, 'Pick a reaction for this one');

    for (const [scheme, width] of [
      ['light', 1280],
      ['dark', 1280],
      ['dark', 390],
    ] as const) {
      const o = await web.open({
        token: owner.token,
        path: `/s/${server.id}/c/${general.id}`,
        colorScheme: scheme,
        width,
        height: 844,
      });
      const { page, errors } = o;
      const msg = message(page, 'Pick a reaction');
      await msg.waitFor();
      // Nothing of the picker's data in the first load.
      const first = await page.locator('script[src]').evaluateAll((els) => els.map((e) => e.getAttribute('src') ?? ''));
      expect(first.some((u) => u.includes('emoji-data'))).toBe(false);

      await msg.hover();
      await msg.getByRole('button', { name: 'Add reaction' }).click();
      const picker = page.getByRole('dialog', { name: 'Add a reaction' });
      await picker.getByRole('heading', { name: 'Smileys & emotion' }).waitFor();
      const loaded = await page.evaluate(() =>
        (globalThis as any).performance.getEntriesByType('resource').map((e: any) => e.name as string),
      );
      expect(loaded.some((u: string) => /\/assets\/[\w-]*emoji-data[\w-]*\.js$/.test(u))).toBe(true);
      // The grid holds every emoji, but only those in view are fetched.
      expect(await picker.locator('button[data-index]').count()).toBeGreaterThan(1800);
      await expect
        .poll(() =>
          picker
            .locator('button[data-index] img')
            .first()
            .evaluate((e: any) => e.complete && e.naturalWidth > 0),
        )
        .toBe(true);
      const svgs = await page.evaluate(
        () => (globalThis as any).performance.getEntriesByType('resource').filter((e: any) => e.name.includes('/assets/emoji/')).length,
      );
      expect(svgs).toBeLessThan(400);
      // Inside the window.
      const box = await picker.boundingBox();
      expect(box && box.x >= 0 && box.y >= 0 && box.x + box.width <= width && box.y + box.height <= 844).toBe(true);
      await shot(page, `emoji-picker-${scheme}-${width}`);
      await settle(page);
      expect(await axeScan(page, [], ['[role="dialog"]'])).toEqual([]);

      if (width === 1280 && scheme === 'light') {
        // Search by shortcode (GitHub's, as Slack and Discord write them; not a word of the name): 👍.
        await picker.getByRole('searchbox').fill('thumbsup');
        const thumbs = picker.getByRole('button', { name: 'React with thumbs up' });
        await thumbs.waitFor();
        expect(await picker.locator('button[data-index]').first().getAttribute('data-emoji')).toBe('👍');
        // :joy: is 😂, which also shows the search's order: the shortcode's owner first.
        await picker.getByRole('searchbox').fill('joy');
        const joy = picker.getByRole('button', { name: 'React with face with tears of joy' });
        await joy.waitFor();
        expect(await picker.locator('button[data-index]').first().getAttribute('data-emoji')).toBe('😂');
        await shot(page, 'emoji-picker-search');
        await joy.click();
        const chip = msg.getByRole('button', { name: /😂 1 reaction/ });
        await chip.waitFor();
        expect(await chip.getAttribute('aria-pressed')).toBe('true');
        const chipImg = await loadedImages(chip);
        expect(chipImg.map((i) => i.alt)).toEqual(['']);
        expect(await chip.locator('img').getAttribute('src')).toMatch(/\/1f602\.svg$/);
        await shot(page, 'emoji-reaction');

        // The composer's picker, by keyboard: search, Down into the grid, Right, Enter.
        const input = page.getByRole('textbox', { name: 'Message #general' });
        await input.fill('Launch ');
        await page.getByRole('button', { name: 'Insert emoji' }).click();
        const inserter = page.getByRole('dialog', { name: 'Insert emoji' });
        await inserter.getByRole('heading', { name: 'Smileys & emotion' }).waitFor();
        await page.keyboard.type('rocket');
        await inserter.getByRole('heading', { name: 'Search results' }).waitFor();
        expect(await inserter.locator('button[data-index]').first().getAttribute('aria-label')).toBe('rocket');
        await page.keyboard.press('ArrowDown');
        await page.keyboard.press('Enter');

        await expect.poll(() => input.inputValue()).toBe('Launch 🚀');
        expect(await inserter.count()).toBe(0);
        await page.keyboard.press('Enter');
        await expect
          .poll(async () => (await call(web.url, 'GET', `/channels/${general.id}/messages?limit=1`, { auth: owner.auth })).body[0]?.content)
          .toBe('Launch 🚀');
        // Recently used comes first the next time.
        await page.getByRole('button', { name: 'Insert emoji' }).click();
        await inserter.getByRole('heading', { name: 'Recently used' }).waitFor();
        expect(await inserter.locator('button[data-index]').first().getAttribute('data-emoji')).toBe('🚀');
        await page.keyboard.press('Escape');
        expect(await inserter.count()).toBe(0);
      }
      expect(errors).toEqual([]);
    }
  }, 90_000);
});
