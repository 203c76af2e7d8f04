/**
 * Presence in the web client (docs/gateway.md#presence): dots on avatars in the member list and the
 * profile card, offline members receding, and the status menu (online, idle, do not
 * disturb, invisible) driven by mouse and keyboard, seen live by another person through
 * PRESENCE_UPDATE, and by the service (GET members). Real Chromium, real Parley; every
 * wait is on the page or the API. Screenshots land in test-results/web/.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { call, createServer, joinServer, registerUser, type TestUser } from '../factories.js';
import { browserSuite, screenshot } from './browser.js';

const web = browserSuite({ env: { PRESENCE_GRACE_MS: '0', PRESENCE_INTERVAL_MS: '0', PRESENCE_FANOUT_MAX: '100' } });

async function open(user: TestUser, path: string, opts: { colorScheme?: 'light' | 'dark'; width?: number } = {}) {
  const o = await web.open({ token: user.token, path, height: 860, ...opts });
  return o;
}

/** The presence dot of `userId` in the member list, as the page shows it. */
const dotOf = (page: Page, userId: string) => page.locator(`[data-member-id="${userId}"] [data-status]`);

async function serviceSees(viewer: TestUser, serverId: string, userId: string): Promise<string> {
  const r = await call(web.url, 'GET', `/servers/${serverId}/members`, { auth: viewer.auth });
  return r.body.find((m: { id: string }) => m.id === userId)?.presence;
}

describe('presence in the web client', () => {
  it('dots follow another person live: online when they open Parley, their chosen status, offline when invisible or gone', async () => {
    const owner = await registerUser(web.url);
    const { server, general } = await createServer(web.url, owner, 'Lighthouse');
    const bob = await registerUser(web.url);
    await joinServer(web.url, owner, bob, server.id);
    const path = `/s/${server.id}/c/${general.id}`;

    const alice = await open(owner, path);
    await expect.poll(() => dotOf(alice.page, bob.id).getAttribute('data-status')).toBe('offline');
    await expect.poll(() => dotOf(alice.page, owner.id).getAttribute('data-status')).toBe('online');
    expect(await alice.page.locator(`[data-member-id="${bob.id}"]`).getAttribute('class')).toMatch(/offline/);

    const b = await open(bob, path);
    await dotOf(alice.page, bob.id).and(alice.page.locator('[data-status="online"]')).waitFor();

    // Bob picks Do not disturb with the mouse.
    await b.page.getByRole('button', { name: /^Set status/ }).click();
    await b.page.getByRole('menuitemradio', { name: /Do not disturb/ }).click();
    await dotOf(alice.page, bob.id).and(alice.page.locator('[data-status="dnd"]')).waitFor();
    expect(await serviceSees(owner, server.id, bob.id)).toBe('dnd');
    await b.page.getByText('Do not disturb', { exact: true }).waitFor();

    // Then Idle from the keyboard: open, arrows, Enter; focus returns to the button.
    await b.page.getByRole('button', { name: /^Set status/ }).focus();
    await b.page.keyboard.press('Enter');
    const menu = b.page.getByRole('menu', { name: 'Status' });
    await menu.waitFor();
    await expect
      .poll(() => b.page.evaluate(() => (globalThis as any).document.activeElement?.textContent ?? ''))
      .toContain('Do not disturb');
    await b.page.keyboard.press('ArrowUp');
    await b.page.keyboard.press('Enter');
    await menu.waitFor({ state: 'detached' });
    await dotOf(alice.page, bob.id).and(alice.page.locator('[data-status="idle"]')).waitFor();
    expect(await b.page.evaluate(() => (globalThis as any).document.activeElement?.getAttribute('aria-haspopup'))).toBe('menu');

    await screenshot(alice.page, 'presence-member-list');
    await b.page.getByRole('button', { name: /^Set status/ }).click();
    await b.page.getByRole('menu', { name: 'Status' }).waitFor();
    await screenshot(b.page, 'presence-status-menu');

    // Invisible: others see offline; Bob's own panel says Invisible; it survives a reload.
    await b.page.getByRole('menuitemradio', { name: /Invisible/ }).click();
    await dotOf(alice.page, bob.id).and(alice.page.locator('[data-status="offline"]')).waitFor();
    await b.page.reload();
    await b.page.getByText('Invisible', { exact: true }).waitFor();
    // Reconnected after the reload, still shown offline.
    await b.page.getByRole('button', { name: /^Set status \(now Invisible\)/ }).waitFor();
    expect(await serviceSees(owner, server.id, bob.id)).toBe('offline');

    // Back online, then gone: offline once the page closes.
    await b.page.getByRole('button', { name: /^Set status/ }).click();
    await b.page.getByRole('menuitemradio', { name: /^Online/ }).click();
    await dotOf(alice.page, bob.id).and(alice.page.locator('[data-status="online"]')).waitFor();
    await b.context.close();
    await dotOf(alice.page, bob.id).and(alice.page.locator('[data-status="offline"]')).waitFor();
    expect(alice.errors).toEqual([]);
  });

  it('the profile card shows the dot; the dark theme and a narrow screen keep the menu readable', async () => {
    const owner = await registerUser(web.url);
    const { server, general } = await createServer(web.url, owner, 'Night shift');
    const path = `/s/${server.id}/c/${general.id}`;
    // On a narrow screen the user panel is in the channels drawer.
    const o = await open(owner, path, { colorScheme: 'dark', width: 390 });
    await o.page.getByRole('button', { name: 'Show channels' }).click();
    await o.page.getByRole('button', { name: /^Set status/ }).click();
    await o.page.getByRole('menu', { name: 'Status' }).waitFor();
    await screenshot(o.page, 'presence-status-menu-390-dark');
    await o.page.keyboard.press('Escape');
    await o.page.getByRole('menu', { name: 'Status' }).waitFor({ state: 'detached' });
    const wide = await open(owner, path, { colorScheme: 'dark' });
    await wide.page.locator(`[data-member-id="${owner.id}"] button`).click();
    const card = wide.page.locator(`[data-member-card="${owner.id}"]`);
    await card.waitFor();
    expect(await card.locator('[data-status]').getAttribute('data-status')).toBe('online');
    await screenshot(wide.page, 'presence-member-card-dark');
  });
});
