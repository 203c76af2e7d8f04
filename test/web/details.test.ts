/**
 * The small things that make the client pleasant, in a real browser against a real Parley:
 * pending sends shown and retried (a visible "Slow down" note under a rate limit), toasts
 * that never cover a control, a webhook moved only after a confirmation, password rules
 * shown before anyone types, and "Welcome back" only for someone who has been here before.
 */
import type { Page, Route } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, createChannel, createServer, createWebhook, registerUser, type TestUser } from '../factories.js';
import { browserSuite, screenshot } from './browser.js';

const web = browserSuite();

async function open(user: TestUser | null, path: string, opts: { width?: number; height?: number } = {}) {
  const o = await web.open({ ...(user ? { token: user.token } : {}), path, height: 800, ...opts });
  return o;
}

async function latest(user: TestUser, channelId: string): Promise<string | undefined> {
  const r = await call(web.url, 'GET', `/channels/${channelId}/messages?limit=1`, { auth: user.auth });
  return r.body[0]?.content;
}

/** Routes POSTs of messages to `channelId` through `handle` (other requests go on as usual). */
async function onSend(page: Page, channelId: string, handle: (route: Route) => Promise<void>) {
  await page.route(`**/channels/${channelId}/messages`, async (route) => {
    if (route.request().method() !== 'POST') return route.fallback();
    await handle(route);
  });
}

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}
const overlaps = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

/** Every visible control outside the toasts (and outside the scrolling message list) that a toast's box covers. */
async function controlsUnderToasts(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const d = (globalThis as any).document;
    const region = d.querySelector('[role="region"][aria-label="Notifications"]');
    const toasts = [...region.querySelectorAll('[role="alert"], [role="status"]')].map((t: any) => t.getBoundingClientRect());
    const covered: string[] = [];
    for (const el of d.querySelectorAll('button, a[href], input, select, textarea, [tabindex="0"]')) {
      if (region.contains(el) || el.closest('[role="log"]')) continue;
      const b = el.getBoundingClientRect();
      if (b.width === 0 || b.height === 0) continue;
      for (const t of toasts) {
        if (b.x < t.x + t.width && t.x < b.x + b.width && b.y < t.y + t.height && t.y < b.y + b.height) {
          covered.push(`${el.tagName.toLowerCase()} "${(el.getAttribute('aria-label') ?? el.textContent ?? '').trim().slice(0, 40)}"`);
        }
      }
    }
    return covered;
  });
}

describe('sending: pending, retried, rate-limited', () => {
  let owner: TestUser;
  let serverId: string;
  let channelId: string;

  beforeAll(async () => {
    owner = await registerUser(web.url);
    const { server, general } = await createServer(web.url, owner, 'Outbox');
    serverId = server.id;
    channelId = general.id;
  });

  it('a message on its way shows greyed with a spinner until the service has it', async () => {
    const { page, errors } = await open(owner, `/s/${serverId}/c/${channelId}`);
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    await onSend(page, channelId, async (route) => {
      await held;
      await route.continue();
    });
    const box = page.getByRole('textbox', { name: 'Message #general' });
    await box.fill('on its way');
    await box.press('Enter');
    const outbox = page.getByTestId('outbox');
    const pending = outbox.getByRole('listitem').filter({ hasText: 'on its way' });
    await pending.waitFor();
    expect(await box.inputValue()).toBe('');
    expect(await pending.getByRole('status').textContent()).toBe('Sending…');
    // Greyed (muted text) with a turning spinner.
    const look = await pending.evaluate((el) => {
      const g = globalThis as any;
      const spinner = el.querySelector('[aria-hidden="true"]');
      return {
        color: g.getComputedStyle(el).color,
        body: g.getComputedStyle(g.document.body).color,
        spin: g.getComputedStyle(spinner).animationName,
      };
    });
    expect(look.color).not.toBe(look.body);
    expect(look.spin).not.toBe('none');
    await screenshot(page, 'details-pending');
    release();
    await outbox.waitFor({ state: 'detached' });
    await page.getByText('on its way').first().waitFor();
    expect(await latest(owner, channelId)).toBe('on its way');
    expect(errors).toEqual([]);
  });

  it('rate-limited: "Slow down — sending in N s" is shown, then the message goes out by itself', async () => {
    const { page, errors } = await open(owner, `/s/${serverId}/c/${channelId}`);
    let limited = 0;
    await onSend(page, channelId, async (route) => {
      if (limited++ === 0) {
        await route.fulfill({
          status: 429,
          headers: { 'Retry-After': '3', 'Content-Type': 'application/json' },
          body: JSON.stringify({ error: 'rate limited', code: 'rate_limited', retryAfter: 3 }),
        });
        return;
      }
      await route.continue();
    });
    const box = page.getByRole('textbox', { name: 'Message #general' });
    await box.fill('patience');
    await box.press('Enter');
    const note = page.getByTestId('outbox').getByRole('status');
    await note.filter({ hasText: /^Slow down — sending in [1-3] s$/ }).waitFor();
    await screenshot(page, 'details-rate-limited');
    await page.getByTestId('outbox').waitFor({ state: 'detached', timeout: 8000 });
    expect(limited).toBe(2);
    expect(await latest(owner, channelId)).toBe('patience');
    // No error toast: waiting is not a failure.
    expect(await page.getByRole('alert').count()).toBe(0);
    expect(errors).toEqual([]);
  });

  it('a send that cannot reach the server is retried and says so', async () => {
    const { page, errors } = await open(owner, `/s/${serverId}/c/${channelId}`);
    let failed = 0;
    await onSend(page, channelId, async (route) => {
      if (failed++ === 0) return route.abort('internetdisconnected');
      await route.continue();
    });
    const box = page.getByRole('textbox', { name: 'Message #general' });
    await box.fill('through the tunnel');
    await box.press('Enter');
    await page
      .getByTestId('outbox')
      .getByRole('status')
      .filter({ hasText: /^No connection — retrying in \d s$/ })
      .waitFor();
    await page.getByTestId('outbox').waitFor({ state: 'detached', timeout: 8000 });
    expect(await latest(owner, channelId)).toBe('through the tunnel');
    expect(errors).toEqual([]);
  });
});

describe('toasts never cover a control', () => {
  let owner: TestUser;
  let serverId: string;
  let channelId: string;

  beforeAll(async () => {
    owner = await registerUser(web.url);
    const { server, general } = await createServer(web.url, owner, 'Toasty');
    serverId = server.id;
    channelId = general.id;
  });

  for (const size of [
    { width: 1280, height: 800, name: 'desktop' },
    { width: 390, height: 844, name: 'phone' },
  ]) {
    it(`chat page, ${size.name}: an error toast sits clear of the composer, Send and the header`, async () => {
      const { page } = await open(owner, `/s/${serverId}/c/${channelId}`, size);
      await onSend(page, channelId, (route) =>
        route.fulfill({ status: 500, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ error: 'boom' }) }),
      );
      const box = page.getByRole('textbox', { name: 'Message #general' });
      await box.fill('x'.repeat(40));
      await page.getByRole('button', { name: 'Send', exact: true }).click();
      const alert = page.getByRole('alert').filter({ hasText: 'Boom' });
      await alert.waitFor();
      const toastBox = (await alert.boundingBox())!;
      for (const control of [
        page.getByRole('button', { name: 'Send', exact: true }),
        box,
        page.getByRole('button', { name: 'Attach a file' }),
      ]) {
        const b = await control.boundingBox();
        expect(b && overlaps(toastBox, b), `the toast covers ${await control.evaluate((e) => e.outerHTML.slice(0, 80))}`).toBe(false);
      }
      expect(await controlsUnderToasts(page)).toEqual([]);
      await screenshot(page, `details-toast-${size.name}`);
    });
  }

  it('settings page: a notice sits clear of every control', async () => {
    const { page } = await open(owner, `/s/${serverId}/settings/overview`);
    await page.getByLabel('Server name').fill('Toasty two');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Server settings saved.').waitFor();
    expect(await controlsUnderToasts(page)).toEqual([]);
  });
});

describe('confirmations', () => {
  it('a webhook moves to another channel only after Move and a confirmation; arrow keys in the select move nothing', async () => {
    const owner = await registerUser(web.url);
    const { server, general } = await createServer(web.url, owner, 'Hooks');
    const alerts = await createChannel(web.url, owner, server.id, 'alerts');
    const hook = await createWebhook(web.url, owner, server.id, general.id, 'Deploys');
    const channelOf = async () =>
      ((await call(web.url, 'GET', `/servers/${server.id}/webhooks`, { auth: owner.auth })).body as { channelId: string }[])[0]?.channelId;
    const { page, errors } = await open(owner, `/s/${server.id}/settings/webhooks`);
    const row = page.locator(`[data-webhook-id="${hook.id}"]`);
    const select = row.getByRole('combobox', { name: 'Channel for Deploys' });
    await select.waitFor();

    // A keyboard user passing through the select: nothing is sent.
    await select.focus();
    await page.keyboard.press('ArrowDown');
    await row.getByRole('button', { name: 'Move', exact: true }).waitFor();
    expect(await channelOf()).toBe(general.id);
    await row.getByRole('button', { name: 'Cancel' }).click();
    expect(await select.inputValue()).toBe(general.id);

    // Move, then the dialog says where it goes; Cancel there keeps it.
    await select.selectOption(alerts.id);
    await row.getByRole('button', { name: 'Move', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Move webhook' });
    expect(await dialog.textContent()).toContain('#alerts');
    await screenshot(page, 'details-webhook-move');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await channelOf()).toBe(general.id);
    await row.getByRole('button', { name: 'Move', exact: true }).click();
    await page.getByRole('dialog', { name: 'Move webhook' }).getByRole('button', { name: 'Move to #alerts' }).click();
    await page.getByText('“Deploys” now posts to #alerts.').waitFor();
    expect(await channelOf()).toBe(alerts.id);
    expect(errors).toEqual([]);
  });

  it('deleting a channel, kicking and banning ask first in a dialog', async () => {
    const owner = await registerUser(web.url);
    const victim = await registerUser(web.url);
    const { server, general } = await createServer(web.url, owner, 'Careful');
    const doomed = await createChannel(web.url, owner, server.id, 'doomed');
    const inv = await call(web.url, 'POST', `/servers/${server.id}/invites`, { auth: owner.auth });
    await call(web.url, 'POST', `/invites/${inv.body.code}`, { auth: victim.auth });
    const { page } = await open(owner, `/s/${server.id}/settings/channels`);
    await page.getByRole('button', { name: 'Delete #doomed' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    const channels = await call(web.url, 'GET', `/servers/${server.id}/channels`, { auth: owner.auth });
    expect((channels.body as { id: string }[]).map((c) => c.id)).toContain(doomed.id);

    await page.goto(`${web.url}/s/${server.id}/c/${general.id}`);
    const members = page.getByRole('complementary', { name: 'Members' });
    await members
      .getByRole('button', { name: new RegExp(victim.name) })
      .first()
      .click();
    for (const action of ['Kick', 'Ban']) {
      await page.getByRole('button', { name: action, exact: true }).click();
      const d = page.getByRole('dialog', { name: `${action} ${victim.name}` });
      await d.waitFor();
      await d.getByRole('button', { name: 'Cancel' }).click();
      await d.waitFor({ state: 'detached' });
    }
    const members2 = await call(web.url, 'GET', `/servers/${server.id}/members`, { auth: owner.auth });
    expect(JSON.stringify(members2.body)).toContain(victim.id);
  });
});

describe('login and register pages', () => {
  it('a new visitor is not welcomed back; the password rules show before typing, on register and on password change', async () => {
    const { page } = await open(null, '/register');
    await page.getByRole('heading', { name: 'Create your account' }).waitFor();
    expect(await page.getByText('Welcome back').count()).toBe(0);
    const password = page.getByLabel('Password', { exact: true });
    const hint = await password.evaluate(
      (el) => (globalThis as any).document.getElementById(el.getAttribute('aria-describedby'))?.textContent,
    );
    expect(hint).toContain('At least 8 characters');
    expect(await page.getByText('At least 8 characters').isVisible()).toBe(true);
    // The login form, for someone who never logged in here.
    await page.getByRole('link', { name: 'Log in' }).click();
    await page.getByRole('heading', { name: 'Log in to Parley' }).waitFor();
    expect(await page.getByText('Welcome back').count()).toBe(0);

    // Someone who has logged in from this browser is welcomed back, on the login form only.
    const user = await registerUser(web.url);
    const o = await open(user, '/account');
    await o.page.getByRole('heading', { name: 'Password' }).waitFor();
    expect(await o.page.getByText('At least 8 characters').first().isVisible()).toBe(true);
    await o.page.evaluate(() => (globalThis as any).localStorage.removeItem('parley.token'));
    await o.page.goto(`${web.url}/login`);
    await o.page.getByRole('heading', { name: 'Welcome back' }).waitFor();
    await o.page.goto(`${web.url}/register`);
    await o.page.getByRole('heading', { name: 'Create your account' }).waitFor();
    expect(await o.page.getByText('Welcome back').count()).toBe(0);
  });
});
