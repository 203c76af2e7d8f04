/**
 * The virtualised message list (issue 13, "Long channels" and the list's keyboard use), in
 * a real Chromium against a real Parley: a channel of 5,000 messages opens at the newest
 * with fewer than 2,500 DOM elements; older pages load anchored (the message
 * on screen stays where it was); a reply's quote line jumps to a message far up; new
 * messages are followed at the bottom and never yank a view scrolled up. Keyboard: the
 * list is one tab stop, arrows move between messages, Tab reaches the current message's
 * actions, Escape returns to the message. How fast it opens: bench/message-list.ts.
 */
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, postMessage, type TestUser } from '../factories.js';
import { browserSuite, screenshot } from './browser.js';
import { type LongChannelWorld, longChannelWorld, whenInView } from './long-channel.js';

// Page-side code in evaluate() callbacks (the tests compile without the DOM library).
declare const document: any;
declare const getComputedStyle: (el: any) => { opacity: string };
declare const requestAnimationFrame: (fn: () => void) => number;
type HTMLElement = any;

const web = browserSuite();

/** MESSAGE_LIST_LONG=300 makes a quicker run while working on the list. */
let w: LongChannelWorld;

beforeAll(async () => {
  w = await longChannelWorld(web.url, Number(process.env.MESSAGE_LIST_LONG ?? 5000));
}, 600_000);

async function open(user: TestUser, path: string, prepare?: (page: Page) => Promise<void>) {
  const o = await web.open({ token: user.token, path, height: 860, prepare });
  return o;
}

const message = (page: Page, id: string) => page.locator(`[data-message-id="${id}"]`);
const log = (page: Page) => page.getByRole('log');
const domCount = (page: Page) => page.evaluate(() => document.querySelectorAll('*').length);

/**
 * Waits until the list has settled where it opened (aria-busy="false"): Virtuoso brings it
 * there over a few frames and puts it back if it moves meanwhile, so a scroll made before
 * then would be undone.
 */
const settled = (page: Page) => page.locator('[role="log"][aria-busy="false"]').waitFor();

/**
 * Waits until the view holds still: the scroll position and height unchanged for 15 frames
 * in a row. After a scroll Virtuoso draws rows it had only estimated and corrects the
 * position by the difference (a grouped row against one with a header is ~31 px), so a
 * position read before then is not where the view rests.
 */
const still = (page: Page) =>
  log(page).evaluate(
    (scroller) =>
      new Promise<void>((resolve) => {
        let last = '';
        let same = 0;
        const tick = () => {
          const key = `${scroller.scrollTop}:${scroller.scrollHeight}`;
          same = key === last ? same + 1 : 0;
          last = key;
          if (same >= 15) resolve();
          else requestAnimationFrame(tick);
        };
        requestAnimationFrame(tick);
      }),
  );

/** The first message wholly in view: its id and its top on screen. */
function firstInView(page: Page): Promise<{ id: string; top: number }> {
  return log(page).evaluate((scroller) => {
    const box = scroller.getBoundingClientRect();
    for (const el of scroller.querySelectorAll('[data-message-id]')) {
      const r = el.getBoundingClientRect();
      if (r.top >= box.top && r.bottom <= box.bottom) return { id: el.dataset.messageId ?? '', top: r.top };
    }
    throw new Error('no message in view');
  });
}

/** The oldest message in the DOM. */
const oldestDrawn = (page: Page) =>
  page.evaluate(() => {
    const ids = [...document.querySelectorAll('[data-message-id]')].map((el) => BigInt(el.dataset.messageId ?? '0'));
    // biome-ignore lint/complexity/useMathMinMax: Math.min takes no BigInt
    return ids.reduce((a, b) => (b < a ? b : a)).toString();
  });

describe('a channel of 5,000 messages', { timeout: 120_000 }, () => {
  it('opens at the newest message with fewer than 2,500 DOM elements, and again after switching away', async () => {
    // How long these take is measured by bench/message-list.ts (bench/README.md), not here.
    const o = await open(w.bob, `/s/${w.serverId}/c/${w.shortId}`);
    await message(o.page, (await lastId(w.shortId)) as string).waitFor();
    // A cold navigation straight to the long channel: the newest message is at the bottom, in view.
    await o.page.goto(`${web.url}/s/${w.serverId}/c/${w.longId}`);
    await whenInView(o.page, w.replyId);
    expect(await domCount(o.page)).toBeLessThan(2500);
    expect(await message(o.page, w.ids[0] as string).count()).toBe(0);
    await screenshot(o.page, 'message-list-long');

    // Switching away and back: drawn again at the newest (the history is held).
    await o.page.getByRole('link', { name: /short/ }).first().click();
    await message(o.page, w.replyId).waitFor({ state: 'detached' });
    await o.page
      .getByRole('link', { name: /long-history/ })
      .first()
      .click();
    await whenInView(o.page, w.replyId);
    expect(o.errors).toEqual([]);
  });

  it('loads older pages as it is scrolled up, keeping the message on screen where it was; the DOM stays small', async () => {
    const o = await open(w.bob, `/s/${w.serverId}/c/${w.longId}`);
    const { page } = o;
    await whenInView(page, w.replyId);
    await settled(page);
    let maxCount = 0;
    // Each older page is held back until the view's first message is noted.
    let release: (() => void) | null = null;
    let requested = false;
    await page.route(/\/messages\?limit=\d+&before=/, async (route) => {
      requested = true;
      await new Promise<void>((r) => {
        release = r;
      });
      await route.continue();
    });
    for (let pageNo = 0; pageNo < 5; pageNo++) {
      const oldest = await oldestDrawn(page);
      requested = false;
      // To the top of what is held: the next older page is asked for. Scrolled again while it
      // is not, as a person would: under load the last page's rows can still be settling, and
      // keeping its anchor in place moves the view off the top once more.
      await expect
        .poll(async () => {
          if (!requested)
            await log(page).evaluate((el) => {
              el.scrollTop = 0;
            });
          return requested;
        })
        .toBe(true);
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(null)))));
      const anchor = await firstInView(page);
      (release as (() => void) | null)?.();
      // Older messages arrive above…
      await page.waitForFunction(
        (old) => [...document.querySelectorAll('[data-message-id]')].some((el: any) => BigInt(el.dataset.messageId ?? '0') < BigInt(old)),
        oldest,
      );
      // …and the message that was first in view is back where it was once the new rows are
      // measured (under load that can take a few frames), and stays there.
      const drift = async () => Math.abs((await message(page, anchor.id).evaluate((el) => el.getBoundingClientRect().top)) - anchor.top);
      await expect.poll(drift, { timeout: 3000 }).toBeLessThan(2);
      // Once the list says it is settled (aria-busy false), it is still there.
      await page.locator('[role="log"][aria-busy="false"]').waitFor();
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(null)))));
      await expect.poll(drift, { timeout: 3000 }).toBeLessThan(2);
      maxCount = Math.max(maxCount, await domCount(page));
    }
    // Five pages up: far more history is held than drawn.
    console.log(`after 5 older pages: at most ${maxCount} DOM elements`);
    expect(maxCount).toBeLessThan(2500);
    expect(await page.locator('[data-message-id]').count()).toBeLessThan(100);
    expect(o.errors).toEqual([]);
  });

  it('jumps from a reply to its original, 4,995 messages up and not loaded', async () => {
    const o = await open(w.bob, `/s/${w.serverId}/c/${w.longId}`);
    const { page } = o;
    await whenInView(page, w.replyId);
    const original = w.ids[4] as string;
    expect(await message(page, original).count()).toBe(0);
    await message(page, w.replyId).locator(`[data-reply-quote="${original}"]`).getByRole('button').click();
    await whenInView(page, original);
    await expect.poll(() => message(page, original).getAttribute('data-flash')).toBe('');
    expect(await domCount(page)).toBeLessThan(2500);
    await screenshot(page, 'message-list-jump');
    // And back to the present.
    await page.getByRole('button', { name: /Jump to present/ }).click();
    await whenInView(page, w.replyId);
    expect(o.errors).toEqual([]);
  });

  it('follows new messages at the bottom; scrolled up, a new message does not move the view and the jump button counts it', async () => {
    const o = await open(w.bob, `/s/${w.serverId}/c/${w.longId}`);
    const { page } = o;
    await whenInView(page, w.replyId);
    const first = await postMessage(web.url, w.owner.auth, w.longId, 'Fresh off the press');
    await whenInView(page, first.id);
    await settled(page);
    expect(await page.getByRole('button', { name: /Jump to present/ }).count()).toBe(0);

    // Scrolled up a few screens: the view stays put.
    await log(page).evaluate((el) => {
      el.scrollTop -= 2000;
    });
    const jumpButton = page.getByRole('button', { name: /Jump to present/ });
    await jumpButton.waitFor();
    // Measured once the view rests (rows drawn for the first time are measured, a page
    // the scroll asked for has come), so that only the new message could move it.
    await still(page);
    await settled(page);
    await still(page);
    const anchor = await firstInView(page);
    const second = await postMessage(web.url, w.owner.auth, w.longId, 'Another one while you read');
    await expect.poll(() => jumpButton.textContent()).toMatch(/^1 new message · Jump to present/);
    expect(await message(page, anchor.id).evaluate((el) => el.getBoundingClientRect().top)).toBeCloseTo(anchor.top, 0);
    expect(await message(page, second.id).isVisible()).toBe(false);
    await jumpButton.click();
    await whenInView(page, second.id);
    await jumpButton.waitFor({ state: 'detached' });
    expect(o.errors).toEqual([]);
  });
});

async function lastId(channelId: string): Promise<string | undefined> {
  const r = await call<{ id: string }[]>(web.url, 'GET', `/channels/${channelId}/messages?limit=1`, { auth: w.owner.auth });
  return r.body[0]?.id;
}

describe('keyboard', { timeout: 90_000 }, () => {
  it('the list is one tab stop: arrows move between messages, Tab reaches the actions, Escape returns', async () => {
    // The page before the first is held back until Home has been checked, so that what is
    // held does not depend on whether the list's overscan reached the top on the way up.
    let release: (() => void) | null = null;
    let asked = false;
    const held = new Promise<void>((r) => {
      release = r;
    });
    const o = await open(w.bob, `/s/${w.serverId}/c/${w.shortId}`, async (p) => {
      await p.route(/\/messages\?limit=\d+&before=/, async (route) => {
        asked = true;
        await held;
        await route.continue();
      });
    });
    const { page } = o;
    const newest = (await lastId(w.shortId)) as string;
    await whenInView(page, newest);
    await settled(page);
    const composer = page.getByRole('textbox', { name: /^Message #/ });
    const active = () =>
      page.evaluate(() => {
        const el = document.activeElement as HTMLElement | null;
        return { id: el?.dataset.messageId ?? null, label: el?.getAttribute('aria-label') ?? el?.textContent ?? '', tag: el?.tagName };
      });

    // From the start of the page, Tab by Tab to the composer: the list is one stop (the
    // newest message), then that message's own controls; no other message's.
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    let presses = 0;
    let inList = 0;
    let messagesPassed = 0;
    let fromHeader = -1;
    while (presses < 80) {
      await page.keyboard.press('Tab');
      presses++;
      const a = await active();
      if (a.id) messagesPassed++;
      if (await page.evaluate(() => !!document.activeElement?.closest('[role="log"]'))) inList++;
      if (a.label === 'Hide member list') fromHeader = 0;
      else if (fromHeader >= 0) fromHeader++;
      if (await composer.evaluate((el) => el === document.activeElement)) break;
    }
    console.log(
      `Tab presses to the composer past 60 messages: ${presses} from the page start (${inList} in the message list), ${fromHeader} from the channel header's last button`,
    );
    expect(messagesPassed).toBe(1);
    // The message, then its actions (react, reply, create thread, pin, edit, delete).
    expect(inList).toBeLessThanOrEqual(7);
    expect(fromHeader).toBeLessThanOrEqual(10);
    // The rail (servers, Join, the quick switcher's button), the channel list, the skip link
    // past it, the header (with its Threads button), then the list (a message's Create thread
    // among its actions): 33; the skip links make most of it one press for those who use them.
    expect(presses).toBeLessThanOrEqual(33);
    // The skip link is one Tab and Enter away from the composer.
    await page.locator('.skip-link').focus();
    await page.keyboard.press('Enter');
    expect(await composer.evaluate((el) => el === document.activeElement)).toBe(true);

    // Back to the list: Shift+Tab lands on the newest message, which holds the tab stop.
    await message(page, newest).focus();
    expect((await active()).id).toBe(newest);
    // Its actions show; another message's are hidden and out of the tab order.
    const toolbar = message(page, newest).getByRole('toolbar', { name: 'Message actions' });
    await expect.poll(() => toolbar.evaluate((el) => getComputedStyle(el).opacity)).toBe('1');

    // Arrows walk the list, scrolling it.
    const ids = await call<{ id: string }[]>(web.url, 'GET', `/channels/${w.shortId}/messages?limit=60`, { auth: w.owner.auth });
    const order = ids.body.map((m) => m.id).reverse();
    await page.keyboard.press('ArrowUp');
    await expect.poll(async () => (await active()).id).toBe(order[order.length - 2]);
    for (let i = 0; i < 30; i++) await page.keyboard.press('ArrowUp');
    const far = order[order.length - 32] as string;
    await expect.poll(async () => (await active()).id).toBe(far);
    await whenInView(page, far);
    expect(await message(page, far).getAttribute('tabindex')).toBe('0');
    expect(await page.locator('[data-message-id][tabindex="0"]').count()).toBe(1);
    // Other messages' buttons are out of the tab order; the current one's are in it.
    const tabbableElsewhere = await page.evaluate((cur) => {
      return [...document.querySelectorAll('[data-message-id] button, [data-message-id] a[href]')].filter(
        (b) => b.closest('[data-message-id]')?.dataset.messageId !== cur && b.tabIndex >= 0,
      ).length;
    }, far);
    expect(tabbableElsewhere).toBe(0);
    await page.keyboard.press('ArrowDown');
    await expect.poll(async () => (await active()).id).toBe(order[order.length - 31]);
    await page.keyboard.press('End');
    await expect.poll(async () => (await active()).id).toBe(newest);
    // Home: the oldest message held (not the channel's first: that could be thousands of
    // pages up). The page before the first was held back from the start (see above).
    await page.keyboard.press('Home');
    // Focus lands on the oldest message in the DOM (with nothing older on its way, the oldest held).
    await expect.poll(async () => (await active()).id === (await oldestDrawn(page))).toBe(true);
    const oldestHeld = (await active()).id as string;
    expect(oldestHeld).not.toBe(order[0]);
    await whenInView(page, oldestHeld);
    // At the top of what is held, the older page is asked for, as when scrolling up.
    await expect.poll(() => asked).toBe(true);
    (release as (() => void) | null)?.();
    await page.getByRole('heading', { name: 'Welcome to #short' }).waitFor();
    // Focus stays on the message while the page arrives (or comes back to it, if Virtuoso
    // dropped its row for a frame); Home again reaches the first.
    await expect.poll(async () => (await active()).id).toBe(oldestHeld);
    await page.keyboard.press('Home');
    await expect.poll(async () => (await active()).id).toBe(order[0]);
    await page.keyboard.press('End');
    await expect.poll(async () => (await active()).id).toBe(newest);
    await screenshot(page, 'message-list-keyboard');

    // Tab goes into the current message, to its actions; Escape returns to the message.
    let reply = false;
    for (let i = 0; i < 8 && !reply; i++) {
      await page.keyboard.press('Tab');
      reply = (await active()).label === 'Reply';
    }
    expect(reply).toBe(true);
    expect(await page.evaluate(() => document.activeElement?.closest('[data-message-id]')?.dataset.messageId)).toBe(newest);
    await page.keyboard.press('Escape');
    await expect.poll(async () => (await active()).id).toBe(newest);
    // The actions, then on to the composer in a few presses.
    let steps = 0;
    while (steps < 10 && !(await composer.evaluate((el) => el === document.activeElement))) {
      await page.keyboard.press('Tab');
      steps++;
    }
    expect(steps).toBeLessThan(10);
    expect(o.errors).toEqual([]);
  });
});
