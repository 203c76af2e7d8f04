/**
 * The web client on a phone (390×844, touch, mobile viewport) against a real Parley: no
 * page scrolls sideways, every page can be reached from every state (no servers, one
 * server, settings, account), the drawers get a backdrop and close on an outside tap and on
 * Escape, the webhook table's actions stay on screen, and on a touch screen Enter writes a
 * new line while a visible Send button sends. Screenshots land in test-results/web/.
 */
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  addBot,
  call,
  createBot,
  createChannel,
  createServer,
  createWebhook,
  joinServer,
  postMessage,
  registerUser,
  type TestUser,
} from '../factories.js';
import { settle } from './axe.js';
import { browserSuite, screenshot } from './browser.js';

const web = browserSuite();

const WIDTH = 390;

/** A phone: 390×844, touch, mobile viewport; logged in as `user` when given. */
async function phone(user: TestUser | null, path: string, colorScheme: 'light' | 'dark' = 'light') {
  const context = web.track(
    await web.browser.newContext({
      viewport: { width: WIDTH, height: 844 },
      hasTouch: true,
      isMobile: true,
      deviceScaleFactor: 1,
      colorScheme,
      serviceWorkers: 'block',
    }),
  );
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(String(err)));
  if (user) {
    await page.goto(`${web.url}/login`);
    await page.evaluate((t) => (globalThis as any).localStorage.setItem('parley.token', t), user.token);
  }
  await page.goto(web.url + path);
  return { page, errors };
}

/** The page does not scroll sideways, and no element pokes out to the right of the screen. */
async function noOverflow(page: Page, where: string) {
  await settle(page);
  const r = await page.evaluate((width) => {
    const d = (globalThis as any).document;
    const wide: string[] = [];
    const any: string[] = [];
    for (const el of d.body.querySelectorAll('*')) {
      const box = el.getBoundingClientRect();
      if (box.width === 0 || box.height === 0) continue;
      if (box.right > width + 1)
        any.push(`${el.tagName.toLowerCase()}.${String(el.className).slice(0, 40)} right=${Math.round(box.right)}`);
      // Inside a horizontally scrolling box (code blocks, wide tables by design) is fine.
      let clipped = false;
      for (let p = el.parentElement; p && p !== d.body; p = p.parentElement) {
        const s = (globalThis as any).getComputedStyle(p);
        if (s.overflowX !== 'visible' || s.position === 'fixed') {
          clipped = true;
          break;
        }
      }
      if (!clipped && box.right > width + 1)
        wide.push(`${el.tagName.toLowerCase()}.${String(el.className).slice(0, 60)} right=${Math.round(box.right)}`);
    }
    return { scrollWidth: d.documentElement.scrollWidth, wide: wide.slice(0, 8), any: any.slice(0, 8) };
  }, WIDTH);
  expect(r.scrollWidth, `${where}: the page scrolls sideways (${r.scrollWidth}px): ${r.any.join(', ')}`).toBeLessThanOrEqual(WIDTH);
  void r.any;
  expect(r.wide, `${where}: elements past the right edge`).toEqual([]);
}

/** Whether the element's box lies within the screen (fully). */
async function onScreen(_page: Page, selector: ReturnType<Page['locator']>) {
  const box = await selector.boundingBox();
  if (!box) return false;
  return box.x >= 0 && box.x + box.width <= WIDTH + 0.5 && box.y >= 0 && box.y + box.height <= 844 + 0.5;
}

describe('phone: 390 px, touch', () => {
  let owner: TestUser;
  let friend: TestUser;
  let serverId: string;
  let channelId: string;

  beforeAll(async () => {
    owner = await registerUser(web.url, `phone${Date.now().toString(36)}`);
    friend = await registerUser(web.url, `pal${Date.now().toString(36)}`);
    const { server, general } = await createServer(web.url, owner, 'Pocket club with a rather long name');
    serverId = server.id;
    channelId = general.id;
    await createChannel(web.url, owner, serverId, 'a-channel-with-an-unusually-long-name-for-a-phone');
    await joinServer(web.url, owner, friend, serverId);
    const bot = await createBot(web.url, owner, 'Pocketbot');
    await addBot(web.url, owner, serverId, bot.id);
    await createWebhook(web.url, owner, serverId, channelId, 'Deploy notifications from the build server');
    await call(web.url, 'POST', `/servers/${serverId}/invites`, { auth: owner.auth });
    await call(web.url, 'POST', `/servers/${serverId}/roles`, { auth: owner.auth, body: { name: 'Keepers', permissions: '0' } });
    await postMessage(
      web.url,
      friend.auth,
      channelId,
      `Hi @${owner.name}! A long link: https://example.com/${'very-long-path/'.repeat(8)}`,
    );
    await postMessage(web.url, friend.auth, channelId, `\`\`\`\n${'const x = 1; '.repeat(20)}\n\`\`\``);
    const dm = await call(web.url, 'POST', '/users/@me/channels', { auth: owner.auth, body: { recipientIds: [friend.id] } });
    expect(dm.status, dm.text).toBeLessThan(300);
    await postMessage(web.url, friend.auth, dm.body.id, 'Pocket-sized hello.');
  }, 60_000);

  it('no page scrolls sideways, in light and dark', async () => {
    for (const scheme of ['light', 'dark'] as const) {
      const out = await phone(null, '/login', scheme);
      await out.page.getByRole('button', { name: 'Log in' }).waitFor();
      await noOverflow(out.page, `login ${scheme}`);
      await out.page.goto(`${web.url}/register`);
      await out.page.getByRole('button', { name: 'Create account' }).waitFor();
      await noOverflow(out.page, `register ${scheme}`);

      const { page, errors } = await phone(owner, `/s/${serverId}/c/${channelId}`, scheme);
      await page.getByText('A long link').first().waitFor();
      await noOverflow(page, `chat ${scheme}`);
      await screenshot(page, `phone-chat-${scheme}`);
      await page.goto(`${web.url}/dms`);
      await page
        .getByRole('link', { name: new RegExp(friend.name) })
        .first()
        .click();
      await page.getByText('Pocket-sized hello').first().waitFor();
      await noOverflow(page, `dm ${scheme}`);
      await page.goto(`${web.url}/account`);
      await page.getByRole('heading', { level: 1 }).first().waitFor();
      await noOverflow(page, `account ${scheme}`);
      await page.goto(`${web.url}/my-bots`);
      await page.getByText('Pocketbot').first().waitFor();
      await noOverflow(page, `my bots ${scheme}`);
      for (const tab of ['overview', 'roles', 'channels', 'invites', 'bans', 'audit-log', 'webhooks', 'bots']) {
        await page.goto(`${web.url}/s/${serverId}/settings/${tab}`);
        await page.locator('main h2').first().waitFor();
        if (tab === 'webhooks') await page.getByText('Deploy notifications').first().waitFor();
        await noOverflow(page, `settings ${tab} ${scheme}`);
        if (scheme === 'light') await screenshot(page, `phone-settings-${tab}`);
      }
      expect(errors).toEqual([]);
    }
  }, 180_000);

  it('the webhook list stacks as cards: Rename, Delete and the channel are on screen', async () => {
    const { page } = await phone(owner, `/s/${serverId}/settings/webhooks`);
    const row = page.locator('[data-webhook-id]').first();
    await row.waitFor();
    for (const control of [
      row.getByRole('button', { name: /^Rename / }),
      row.getByRole('button', { name: /^Delete / }),
      row.getByRole('combobox', { name: /^Channel for / }),
    ]) {
      await control.scrollIntoViewIfNeeded();
      expect(await onScreen(page, control), `a webhook control is off screen: ${JSON.stringify(await control.boundingBox())}`).toBe(true);
    }
    await screenshot(page, 'phone-webhooks');
  }, 60_000);

  it('an account with no servers reaches account settings and log out', async () => {
    const loner = await registerUser(web.url);
    const { page, errors } = await phone(loner, '/');
    await page.getByRole('heading', { name: /Welcome to Parley/ }).waitFor();
    await noOverflow(page, 'home, no servers');
    await page.getByRole('button', { name: 'Show menu' }).click();
    const account = page.getByRole('link', { name: /account settings/ });
    expect(await onScreen(page, account)).toBe(true);
    await screenshot(page, 'phone-home-menu');
    await account.click();
    await page.waitForURL(`${web.url}/account`);
    await page.getByRole('link', { name: /Close account settings/ }).click();
    await page.waitForURL(`${web.url}/`);
    await page.getByRole('button', { name: 'Show menu' }).click();
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.waitForURL(`${web.url}/login`);
    expect(errors).toEqual([]);
  }, 60_000);

  it('from the chat, the drawers reach every page: servers, DMs, settings, account, and back', async () => {
    const { page, errors } = await phone(owner, `/s/${serverId}/c/${channelId}`);
    await page.getByText('A long link').first().waitFor();
    await page.getByRole('button', { name: 'Show channels' }).click();
    await page
      .getByRole('navigation', { name: 'Servers' })
      .getByRole('link', { name: /Direct messages/ })
      .click();
    await page.waitForURL(`${web.url}/dms`);
    await page.getByRole('link', { name: /Pocket club/ }).click();
    await page.waitForURL(new RegExp(`/s/${serverId}/c/`));
    await page.getByRole('button', { name: 'Show channels' }).click();
    await page.getByRole('link', { name: /account settings/ }).click();
    await page.waitForURL(`${web.url}/account`);
    await page.getByRole('link', { name: /Close account settings/ }).click();
    await page.waitForURL(new RegExp(`/s/${serverId}`));
    await page.getByRole('button', { name: 'Show channels' }).click();
    await page.getByRole('link', { name: /Server settings/ }).click();
    await page.waitForURL(new RegExp(`/s/${serverId}/settings`));
    await page.getByRole('link', { name: /Close settings/ }).click();
    await page.waitForURL(new RegExp(`/s/${serverId}/c/`));
    expect(errors).toEqual([]);
  }, 60_000);

  it('drawers have a backdrop and close on an outside tap and on Escape', async () => {
    const { page, errors } = await phone(owner, `/s/${serverId}/c/${channelId}`);
    await page.getByText('A long link').first().waitFor();
    const scrim = page.locator('.scrim');
    const channels = page.getByRole('complementary', { name: /channels$/ });

    // The channel drawer: a backdrop; a tap beside the drawer closes it.
    await page.getByRole('button', { name: 'Show channels' }).click();
    await channels.waitFor();
    expect(await scrim.isVisible()).toBe(true);
    await screenshot(page, 'phone-channel-drawer');
    await page.touchscreen.tap(WIDTH - 20, 420);
    await scrim.waitFor({ state: 'detached' });
    expect(await channels.isVisible()).toBe(false);
    // Escape closes it too, and focus goes back to the button that opened it.
    await page.getByRole('button', { name: 'Show channels' }).click();
    await scrim.waitFor();
    await page.keyboard.press('Escape');
    await scrim.waitFor({ state: 'detached' });
    expect(await page.evaluate(() => (globalThis as any).document.activeElement?.getAttribute('aria-label'))).toBe('Show channels');

    // The member drawer: the same.
    const members = page.getByRole('complementary', { name: 'Members' });
    await page.getByRole('button', { name: 'Show member list' }).click();
    await members.waitFor();
    expect(await scrim.isVisible()).toBe(true);
    await screenshot(page, 'phone-member-drawer');
    await page.touchscreen.tap(20, 420);
    await members.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Show member list' }).click();
    await members.waitFor();
    await page.keyboard.press('Escape');
    await members.waitFor({ state: 'detached' });
    expect(errors).toEqual([]);
  }, 60_000);

  it('on a touch screen Enter writes a new line and the Send button sends', async () => {
    const { page, errors } = await phone(owner, `/s/${serverId}/c/${channelId}`);
    const box = page.getByRole('textbox', { name: /^Message #/ });
    await box.click();
    await box.pressSequentially('first line');
    await box.press('Enter');
    await box.pressSequentially('second line');
    expect(await box.inputValue()).toBe('first line\nsecond line');
    const send = page.getByRole('button', { name: 'Send', exact: true });
    expect(await onScreen(page, send)).toBe(true);
    await send.tap();
    await expect
      .poll(async () => (await call(web.url, 'GET', `/channels/${channelId}/messages?limit=1`, { auth: owner.auth })).body[0]?.content)
      .toBe('first line\nsecond line');
    expect(await box.inputValue()).toBe('');
    // The hint says what Enter does here.
    expect(await page.locator('#composer-help').textContent()).toContain('Send');
    expect(errors).toEqual([]);
  }, 60_000);
});
