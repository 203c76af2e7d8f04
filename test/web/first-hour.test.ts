/**
 * What a new community noticed in its first hour with the web client (issue 38), in real
 * Chromium against a real Parley: the list stays pinned to the bottom when the newest row
 * grows (a reaction, an image that loads late).
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import {
  addBot,
  call,
  createBot,
  createChannel,
  createServer,
  joinServer,
  postMessage,
  registerUser,
  type TestUser,
  upload,
} from '../factories.js';
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
    const a = await open(owner, `/s/${server.id}/c/${general.id}`, async (page) => {
      await page.route(
        (url) => url.pathname === new URL(png.body.url, web.url).pathname,
        async (route) => {
          await held;
          await route.continue();
        },
      );
    });
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

describe('small things', { timeout: 60_000 }, () => {
  /** The page's background colour, as drawn. */
  const background = (page: Page) =>
    page.evaluate(() => (globalThis as any).getComputedStyle((globalThis as any).document.body).backgroundColor);
  const DARK = 'rgb(29, 30, 35)';
  const LIGHT = 'rgb(255, 255, 255)';

  it('switches the theme in settings (system, light, dark), and keeps the choice', async () => {
    const { owner } = await chatWorld(0);
    const o = await web.open({ token: owner.token, path: '/account#appearance', colorScheme: 'light' });
    const { page } = o;
    const group = page.getByRole('group', { name: 'Theme' });
    await group.waitFor();
    expect(await group.getByRole('radio', { name: 'Match the system' }).isChecked()).toBe(true);
    expect(await background(page)).toBe(LIGHT);
    await group.getByText('Dark', { exact: true }).click();
    await expect.poll(() => background(page)).toBe(DARK);
    await page.locator('#appearance').scrollIntoViewIfNeeded();
    await screenshot(page, 'first-hour-theme-dark');
    // Kept: after a reload, and over a light system.
    await page.reload();
    await group.waitFor();
    expect(await group.getByRole('radio', { name: 'Dark' }).isChecked()).toBe(true);
    expect(await background(page)).toBe(DARK);
    // Light over a dark system.
    const d = await web.open({ token: owner.token, path: '/account#appearance', colorScheme: 'dark' });
    await d.page.getByRole('group', { name: 'Theme' }).waitFor();
    expect(await background(d.page)).toBe(DARK);
    await d.page.getByRole('group', { name: 'Theme' }).getByText('Light', { exact: true }).click();
    await expect.poll(() => background(d.page)).toBe(LIGHT);
    await d.page.getByRole('group', { name: 'Theme' }).getByText('Match the system').click();
    await expect.poll(() => background(d.page)).toBe(DARK);
    expect(o.errors).toEqual([]);
    expect(d.errors).toEqual([]);
  });

  it('tells a person who was kicked that they were removed, not that the server was not found', async () => {
    const { owner, bob, server, general } = await chatWorld(1);
    const b = await open(bob, `/s/${server.id}/c/${general.id}`);
    await b.page.locator('[data-message-id]').first().waitFor();
    const kicked = await call(web.url, 'DELETE', `/servers/${server.id}/members/${bob.id}`, { auth: owner.auth });
    expect(kicked.status).toBe(204);
    await b.page.getByRole('heading', { name: 'You were removed from First Hour' }).waitFor();
    expect(await b.page.getByText('Server not found').count()).toBe(0);
    await screenshot(b.page, 'first-hour-removed');
    expect(b.errors).toEqual([]);
  });

  it('tells a banned person on an invite page that they are banned, instead of offering to join', async () => {
    const { owner, bob, server } = await chatWorld(0);
    const banned = await call(web.url, 'PUT', `/servers/${server.id}/bans/${bob.id}`, { auth: owner.auth, body: {} });
    expect(banned.status).toBe(204);
    const invite = await call(web.url, 'POST', `/servers/${server.id}/invites`, { auth: owner.auth });
    const code = invite.body.code as string;
    // The preview says so to the caller, and to no one else.
    expect((await call(web.url, 'GET', `/invites/${code}`, { auth: bob.auth })).body.banned).toBe(true);
    expect((await call(web.url, 'GET', `/invites/${code}`, { auth: owner.auth })).body.banned).toBe(false);
    expect((await call(web.url, 'GET', `/invites/${code}`)).body).not.toHaveProperty('banned');

    const b = await web.open({ token: bob.token, path: `/invite/${code}` });
    await b.page.getByRole('heading', { name: 'You are banned from First Hour' }).waitFor();
    expect(await b.page.getByRole('button', { name: /Join/ }).count()).toBe(0);
    await screenshot(b.page, 'first-hour-invite-banned');
    expect(b.errors).toEqual([]);
  });

  it('draws a button’s emoji from the same set as messages', async () => {
    const { owner, server, general } = await chatWorld(0);
    const bot = await createBot(web.url, owner);
    await addBot(web.url, owner, server.id, bot.id);
    const posted = await call(web.url, 'POST', `/channels/${general.id}/messages`, {
      auth: bot.auth,
      body: {
        content: 'You rolled a 4',
        components: [
          { type: 'row', components: [{ type: 'button', style: 'primary', label: 'Roll again', emoji: '🎲', customId: 'reroll' }] },
        ],
      },
    });
    expect(posted.status).toBe(201);
    const o = await open(owner, `/s/${server.id}/c/${general.id}`);
    const button = o.page.getByRole('button', { name: 'Roll again' });
    await button.waitFor();
    const img = button.locator('img.emoji');
    await expect.poll(() => img.evaluate((e: any) => e.complete && e.naturalWidth > 0)).toBe(true);
    expect(await img.getAttribute('src')).toMatch(/\/1f3b2\.svg$/);
    const box = await img.boundingBox();
    expect(box?.height).toBeGreaterThan(14);
    expect(box?.height).toBeLessThan(24);
    await screenshot(o.page, 'first-hour-button-emoji');
    expect(o.errors).toEqual([]);
  });
});

describe('keyboard', { timeout: 60_000 }, () => {
  /** The focused element's message id, or its tag when it is not a message. */
  const focused = (page: Page) =>
    page.evaluate(() => {
      const el = (globalThis as any).document.activeElement;
      return el?.dataset?.messageId ?? el?.tagName ?? null;
    });

  it('returns the focus to the message when the reaction picker closes (Enter or Escape)', async () => {
    const { owner, server, general } = await chatWorld(3);
    const last = await postMessage(web.url, owner.auth, general.id, 'React to me by keyboard');
    const o = await open(owner, `/s/${server.id}/c/${general.id}`);
    const { page } = o;
    const msg = message(page, last.id);
    await msg.waitFor();
    await settled(page);
    await msg.focus();
    // Tab from the message reaches its actions; Enter on "Add reaction" opens the picker.
    const add = msg.getByRole('button', { name: 'Add reaction' });
    await add.focus();
    await page.keyboard.press('Enter');
    const picker = page.getByRole('dialog', { name: 'Add a reaction' });
    await picker.getByRole('searchbox').waitFor();
    await page.keyboard.type('thumbsup');
    await page.keyboard.press('Enter');
    await msg.getByRole('button', { name: /👍 1 reaction/ }).waitFor();
    await expect.poll(() => focused(page)).toBe(last.id);

    // Opened again (by pointer this time), and closed with Escape.
    await msg.hover();
    await add.click();
    await picker.getByRole('searchbox').waitFor();
    await page.keyboard.press('Escape');
    await picker.waitFor({ state: 'detached' });
    await expect.poll(() => focused(page)).toBe(last.id);
    expect(o.errors).toEqual([]);
  });

  it('Enter on a reaction search typed before the emoji data arrived picks its first match once it does', async () => {
    const { owner, server, general } = await chatWorld(1);
    const last = await postMessage(web.url, owner.auth, general.id, 'React before the data is in');
    // The emoji data (a chunk of its own) is held back until the search and Enter are typed.
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const o = await open(owner, `/s/${server.id}/c/${general.id}`, async (page) => {
      await page.route(/parley-emoji-data/, async (route) => {
        await held;
        await route.continue();
      });
    });
    const { page } = o;
    const msg = message(page, last.id);
    await msg.waitFor();
    await msg.hover();
    await msg.getByRole('button', { name: 'Add reaction' }).click();
    await page.getByRole('dialog', { name: 'Add a reaction' }).getByRole('searchbox').waitFor();
    await page.keyboard.type('thumbsup');
    await page.keyboard.press('Enter');
    release();
    await msg.getByRole('button', { name: /👍 1 reaction/ }).waitFor();
    expect(o.errors).toEqual([]);
  });

  it('moves between channels with Alt+Up/Down, and between unread ones with Alt+Shift+Up/Down', async () => {
    const { owner, bob, server, general } = await chatWorld(1);
    const second = await createChannel(web.url, owner, server.id, 'second');
    const third = await createChannel(web.url, owner, server.id, 'third');
    const o = await open(owner, `/s/${server.id}/c/${general.id}`);
    const { page } = o;
    await page.getByRole('textbox', { name: 'Message #general' }).waitFor();
    // Read #second and #third first, so that only what comes next is unread.
    for (const c of [second, third]) {
      await page.getByRole('link', { name: c.name }).first().click();
      await page.getByRole('textbox', { name: `Message #${c.name}` }).waitFor();
    }
    await page.getByRole('link', { name: 'general' }).first().click();
    const composer = page.getByRole('textbox', { name: 'Message #general' });
    await composer.waitFor();

    await page.keyboard.press('Alt+ArrowDown');
    await page.getByRole('textbox', { name: 'Message #second' }).waitFor();
    await page.keyboard.press('Alt+ArrowUp');
    await composer.waitFor();
    // Round the top: the last channel.
    await page.keyboard.press('Alt+ArrowUp');
    await page.getByRole('textbox', { name: 'Message #third' }).waitFor();
    // Nothing was edited on the way (Up in an empty composer edits the last message).
    expect(await page.getByRole('textbox', { name: 'Edit message' }).count()).toBe(0);

    await page.keyboard.press('Alt+ArrowUp');
    await page.keyboard.press('Alt+ArrowUp');
    await composer.waitFor();
    await postMessage(web.url, bob.auth, third.id, 'News in the third channel');
    await page.locator('[data-unread]').filter({ hasText: 'third' }).waitFor();
    // #second is read: Alt+Shift+Down skips it.
    await page.keyboard.press('Alt+Shift+ArrowDown');
    await page.getByRole('textbox', { name: 'Message #third' }).waitFor();
    expect(o.errors).toEqual([]);
  });
});

describe('tabbing', { timeout: 60_000 }, () => {
  it('reaches the composer from the channel list in at most 15 presses', async () => {
    const { owner, server, general } = await chatWorld(3);
    for (const name of ['rules', 'random', 'help']) await createChannel(web.url, owner, server.id, name);
    const o = await open(owner, `/s/${server.id}/c/${general.id}`);
    const { page } = o;
    const composer = page.getByRole('textbox', { name: 'Message #general' });
    await composer.waitFor();
    await page.getByRole('link', { name: 'general' }).first().focus();
    let presses = 0;
    const isComposer = () => composer.evaluate((el: any) => el === (globalThis as any).document.activeElement);
    while (!(await isComposer()) && presses < 30) {
      await page.keyboard.press('Tab');
      presses++;
      // A skip link, when it is the stop: follow it.
      const skip = await page.evaluate(() => (globalThis as any).document.activeElement?.dataset?.skip ?? null);
      if (skip === 'composer') {
        await screenshot(page, 'first-hour-skip-link');
        await page.keyboard.press('Enter');
        presses++;
      }
    }
    expect(await isComposer()).toBe(true);
    expect(presses).toBeLessThanOrEqual(15);
    expect(o.errors).toEqual([]);
  });
});
