/**
 * What a new community noticed in its first hour with the web client (issue 38), in real
 * Chromium against a real Parley: the list stays pinned to the bottom when the newest row
 * grows (a reaction, an image that loads late).
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { call, createServer, joinServer, postMessage, registerUser, type TestUser, upload } from '../factories.js';
import { browserSuite, makePng, screenshot } from './browser.js';

// Page-side code in evaluate() callbacks (the tests compile without the DOM library).
declare const requestAnimationFrame: (fn: () => void) => number;

const web = browserSuite();

const message = (page: Page, id: string) => page.locator(`[data-message-id="${id}"]`);
const log = (page: Page) => page.getByRole('log');
const settled = (page: Page) => page.locator('[role="log"][aria-busy="false"]').waitFor();

/** Waits until the list's scroll position and height have held still for 10 frames. */
const still = (page: Page) =>
  log(page).evaluate(
    (scroller: any) =>
      new Promise<void>((resolve) => {
        let last = '';
        let same = 0;
        const tick = () => {
          const key = `${scroller.scrollTop}:${scroller.scrollHeight}`;
          same = key === last ? same + 1 : 0;
          last = key;
          if (same >= 10) resolve();
          else requestAnimationFrame(tick);
        };
        requestAnimationFrame(tick);
      }),
  );

/** How far `el`'s bottom lies below the bottom of the list's view (≤ 0: wholly above it). */
async function overhang(page: Page, selector: string): Promise<number> {
  const box = await log(page).boundingBox();
  const el = await page.locator(selector).boundingBox();
  if (!box || !el) throw new Error(`no box for ${selector}`);
  return el.y + el.height - (box.y + box.height);
}

/** A name unique to this run, starting with `name`. */
const named = (name: string) => `${name}_${Math.random().toString(36).slice(2, 6)}`;

async function chatWorld(count: number) {
  const owner = await registerUser(web.url, named('ada'));
  const bob = await registerUser(web.url, named('bob'));
  const { server, general } = await createServer(web.url, owner, 'First Hour');
  await joinServer(web.url, owner, bob, server.id);
  for (let i = 0; i < count; i++) await postMessage(web.url, (i % 2 ? bob : owner).auth, general.id, `Message number ${i + 1}`);
  return { owner, bob, server, general };
}

const open = (user: TestUser, path: string, prepare?: (page: Page) => Promise<void>) =>
  web.open({ token: user.token, path, height: 700, prepare });

describe('the list stays pinned to the bottom', { timeout: 60_000 }, () => {
  it('when someone else reacts to the newest message', async () => {
    const { owner, bob, server, general } = await chatWorld(30);
    const last = await postMessage(web.url, owner.auth, general.id, 'The newest message, soon with a reaction');
    const path = `/s/${server.id}/c/${general.id}`;
    const a = await open(owner, path);
    const b = await open(bob, path);
    for (const o of [a, b]) {
      await message(o.page, last.id).waitFor();
      await settled(o.page);
    }
    expect(await overhang(a.page, `[data-message-id="${last.id}"]`)).toBeLessThanOrEqual(0.5);

    // Bob reacts through the picker.
    const msg = message(b.page, last.id);
    await msg.hover();
    await msg.getByRole('button', { name: 'Add reaction' }).click();
    const picker = b.page.getByRole('dialog', { name: 'Add a reaction' });
    await picker.getByRole('searchbox').fill('thumbsup');
    await picker.getByRole('button', { name: 'React with thumbs up' }).click();

    // Ada's reaction row appears, wholly in view.
    const chip = message(a.page, last.id).getByRole('button', { name: /👍 1 reaction/ });
    await chip.waitFor();
    await still(a.page);
    expect(await overhang(a.page, `[data-message-id="${last.id}"] [role="group"]`)).toBeLessThanOrEqual(0.5);
    expect(await overhang(a.page, `[data-message-id="${last.id}"]`)).toBeLessThanOrEqual(0.5);
    await screenshot(a.page, 'first-hour-reaction-pinned');
    expect(a.errors).toEqual([]);
    expect(b.errors).toEqual([]);
  });

  it('when an image attachment loads late', async () => {
    const { owner, server, general } = await chatWorld(30);
    const png = await upload(web.url, owner.auth, makePng(480, 320), 'late.png', 'image/png');
    const posted = await call(web.url, 'POST', `/channels/${general.id}/messages`, {
      auth: owner.auth,
      body: { content: 'A picture that takes its time', attachments: [{ url: png.body.url, filename: 'late.png' }] },
    });
    expect(posted.status).toBe(201);
    // The image is held back until the list has settled at the bottom.
    let release: (() => void) | undefined;
    const held = new Promise<void>((r) => {
      release = r;
    });
    const a = await open(owner, `/s/${server.id}/c/${general.id}`, (page) =>
      page.route(
        (url) => url.pathname === new URL(png.body.url, web.url).pathname,
        async (route) => {
          await held;
          await route.continue();
        },
      ),
    );
    await message(a.page, posted.body.id).waitFor();
    await settled(a.page);
    const img = message(a.page, posted.body.id).locator('img[alt="late.png"]');
    release?.();
    await expect.poll(() => img.evaluate((e: any) => e.complete && e.naturalWidth > 0)).toBe(true);
    await still(a.page);
    expect(await overhang(a.page, `[data-message-id="${posted.body.id}"] img[alt="late.png"]`)).toBeLessThanOrEqual(0.5);
    expect(await overhang(a.page, `[data-message-id="${posted.body.id}"]`)).toBeLessThanOrEqual(0.5);
    await screenshot(a.page, 'first-hour-image-pinned');
    expect(a.errors).toEqual([]);
  });
});

describe('editing a message', { timeout: 60_000 }, () => {
  it('shows names where the text has ids, with the composer’s autocomplete, and saves the same mentions', async () => {
    const { owner, bob, server, general } = await chatWorld(2);
    const a = await open(owner, `/s/${server.id}/c/${general.id}`);
    const { page } = a;
    const input = page.getByRole('textbox', { name: 'Message #general' });
    await input.click();
    await input.pressSequentially('Hey @bob');
    await page.getByRole('option', { name: bob.name }).waitFor();
    await input.press('Enter');
    await expect.poll(() => input.inputValue()).toBe(`Hey @${bob.name} `);
    await input.press('Enter');
    const sent = page.locator('[data-message-id]').filter({ hasText: 'Hey' });
    await sent.locator('[data-mention="user"]').waitFor();

    // Up in the empty composer edits it: the name, not its id.
    await input.press('ArrowUp');
    const edit = page.getByRole('textbox', { name: 'Edit message' });
    await edit.waitFor();
    expect(await edit.inputValue()).toBe(`Hey @${bob.name}`);

    // The composer's autocomplete works here too.
    await edit.press('End');
    await edit.pressSequentially(' and @');
    await edit.pressSequentially(owner.name.slice(0, 5));
    const option = page.getByRole('option', { name: owner.name });
    await option.waitFor();
    await screenshot(page, 'first-hour-edit-mention');
    await edit.press('Enter');
    await expect.poll(() => edit.inputValue()).toBe(`Hey @${bob.name} and @${owner.name} `);
    await edit.press('Enter');
    await edit.waitFor({ state: 'detached' });

    const id = await sent.getAttribute('data-message-id');
    const stored = await call(web.url, 'GET', `/channels/${general.id}/messages?limit=5`, { auth: owner.auth });
    expect(stored.body.find((m: { id: string }) => m.id === id)?.content).toBe(`Hey <@${bob.id}> and <@${owner.id}>`);
    await expect.poll(() => sent.locator('[data-mention="user"]').allTextContents()).toEqual([`@${bob.name}`, `@${owner.name}`]);
    await screenshot(page, 'first-hour-edited');
    expect(a.errors).toEqual([]);
  });
});
