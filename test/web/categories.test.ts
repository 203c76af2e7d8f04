/**
 * Categories and the channel menu in the web client (issue 38 item 5), in Chromium against
 * a real Parley: channels grouped under collapsible category headers (remembered per
 * server; a collapsed category still shows its unread channel), reordering by dragging and
 * with Ctrl+↑/↓, the channel's context menu (right-click and Shift+F10: mark read, copy
 * link, notifications, Move up/down; Escape gives focus back), categories made and filled
 * in server settings, and "Synced with" / "Sync now" in a channel's permissions.
 * Screenshots land in test-results/web/.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { call, createServer, joinServer, postMessage, registerUser } from '../factories.js';
import { type OpenPage, browserSuite, screenshot } from './browser.js';

const web = browserSuite();

const named = (name: string) => registerUser(web.url, `${name}_${Math.random().toString(36).slice(2, 7)}`);

type Ch = { id: string; name: string; parentId: string | null; position: number };

/** Alice's "Harbour": #general, a category "Info" with #rules and #faq, a category "Team" with #standup; Bob a member. */
async function world() {
  const alice = await named('alice');
  const bob = await named('bob');
  const { server, general } = await createServer(web.url, alice, 'Harbour');
  const make = async (body: Record<string, unknown>) => {
    const r = await call(web.url, 'POST', `/servers/${server.id}/channels`, { auth: alice.auth, body });
    expect(r.status, r.text).toBe(201);
    return r.body as Ch;
  };
  const info = await make({ name: 'Info', type: 'category' });
  const rules = await make({ name: 'rules', parentId: info.id });
  const faq = await make({ name: 'faq', parentId: info.id });
  const team = await make({ name: 'Team', type: 'category' });
  const standup = await make({ name: 'standup', parentId: team.id });
  await joinServer(web.url, alice, bob, server.id);
  return { alice, bob, server, general, info, rules, faq, team, standup };
}

async function channels(auth: string, serverId: string): Promise<Ch[]> {
  return (await call(web.url, 'GET', `/servers/${serverId}/channels`, { auth })).body;
}

const sidebar = (page: Page) => page.locator('.channel-sidebar');
/** The channel names the sidebar shows, in order, with the category headers as "[Name]". */
const sidebarOrder = (page: Page) =>
  sidebar(page)
    .locator('[data-category-toggle], [data-channel]')
    .evaluateAll((els) =>
      els.map((e) =>
        e.hasAttribute('data-category-toggle')
          ? `[${(e.textContent ?? '').trim()}]`
          : (e.querySelector('[class*="channelName"]')?.textContent ?? '').trim(),
      ),
    );
const focused = (page: Page) => page.evaluate(() => (globalThis as any).document.activeElement?.textContent?.trim() ?? null);

function noPageErrors(o: OpenPage) {
  expect(o.errors, `uncaught errors in the page: ${o.errors.join('\n')}`).toEqual([]);
}

describe('categories in the sidebar', () => {
  it('groups channels under headers that collapse (remembered after a reload); a collapsed category still shows its unread channel', async () => {
    const w = await world();
    const o = await web.open({ token: w.bob.token, path: `/s/${w.server.id}/c/${w.general.id}`, height: 720 });
    const { page } = o;
    await expect.poll(() => sidebarOrder(page)).toEqual(['general', '[Info]', 'rules', 'faq', '[Team]', 'standup']);
    await screenshot(page, 'categories-sidebar-light');

    const info = sidebar(page).getByRole('button', { name: 'Info' });
    await expect.poll(() => info.getAttribute('aria-expanded')).toBe('true');
    await info.click();
    await expect.poll(() => info.getAttribute('aria-expanded')).toBe('false');
    await expect.poll(() => sidebarOrder(page)).toEqual(['general', '[Info]', '[Team]', 'standup']);

    // A message in a collapsed category's channel shows that channel (unread), and only it.
    await postMessage(web.url, w.alice.auth, w.faq.id, 'new FAQ entry');
    await expect.poll(() => sidebarOrder(page)).toEqual(['general', '[Info]', 'faq', '[Team]', 'standup']);
    await sidebar(page).locator(`[data-channel="${w.faq.id}"][data-unread]`).waitFor();
    await screenshot(page, 'categories-collapsed-unread-light');

    // Remembered per server after a reload.
    await page.reload();
    await sidebar(page).getByRole('button', { name: 'Team' }).waitFor();
    await expect.poll(() => sidebar(page).getByRole('button', { name: 'Info' }).getAttribute('aria-expanded')).toBe('false');
    await sidebar(page).getByRole('button', { name: 'Info' }).click();
    await expect.poll(() => sidebarOrder(page)).toEqual(['general', '[Info]', 'rules', 'faq', '[Team]', 'standup']);
    noPageErrors(o);
  });

  it("right-click and Shift+F10 open a channel's menu: mark read, copy link, notifications; Escape gives focus back", async () => {
    const w = await world();
    await postMessage(web.url, w.alice.auth, w.rules.id, 'read the rules');
    const o = await web.open({ token: w.bob.token, path: `/s/${w.server.id}/c/${w.general.id}`, height: 720 });
    const { page } = o;
    const rules = sidebar(page).locator(`[data-channel="${w.rules.id}"]`);
    await sidebar(page).locator(`[data-channel="${w.rules.id}"][data-unread]`).waitFor();

    await rules.click({ button: 'right' });
    const menu = page.getByRole('menu', { name: 'Options for rules' });
    await menu.waitFor();
    const items = await menu.getByRole('menuitem').allTextContents();
    // Bob manages nothing: no settings, no moves.
    expect(items).toEqual(['Mark as read', 'Notification settings', 'Copy link']);
    await expect.poll(() => focused(page)).toBe('Mark as read');
    await screenshot(page, 'channel-menu-light');
    await page.keyboard.press('Enter');
    await expect.poll(() => sidebar(page).locator(`[data-channel="${w.rules.id}"][data-unread]`).count()).toBe(0);
    await expect.poll(() => focused(page)).toContain('rules');

    // From the keyboard: Shift+F10 on the focused channel; "Mark as read" is now disabled, so
    // focus starts on "Notification settings"; ↓ to "Copy link", Enter.
    await rules.focus();
    await page.keyboard.press('Shift+F10');
    await menu.waitFor();
    await expect.poll(() => focused(page)).toBe('Notification settings');
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => focused(page)).toBe('Copy link');
    await page.keyboard.press('Enter');
    await expect
      .poll(() => page.evaluate(() => (globalThis as any).navigator.clipboard.readText()))
      .toBe(`${web.url}/s/${w.server.id}/c/${w.rules.id}`);
    await expect.poll(() => menu.count()).toBe(0);

    // Escape closes and returns focus to the channel.
    await rules.focus();
    await page.keyboard.press('Shift+F10');
    await menu.waitFor();
    await page.keyboard.press('Escape');
    await expect.poll(() => menu.count()).toBe(0);
    await expect.poll(() => focused(page)).toContain('rules');

    // "Notification settings" opens the dialog on this channel.
    await rules.click({ button: 'right' });
    await menu.getByRole('menuitem', { name: 'Notification settings' }).click();
    await page.getByRole('dialog').waitFor();
    noPageErrors(o);
  });

  it('a long press on a channel (touch) opens its menu; in dark mode too', async () => {
    const w = await world();
    const o = await web.open({ token: w.alice.token, path: `/s/${w.server.id}/c/${w.general.id}`, height: 720, colorScheme: 'dark' });
    const { page } = o;
    const faq = sidebar(page).locator(`[data-channel="${w.faq.id}"]`);
    await faq.waitFor();
    const box = await faq.boundingBox();
    // A touch that stays put: the menu opens after the long-press delay, where the finger is.
    await faq.dispatchEvent('pointerdown', { pointerType: 'touch', clientX: box!.x + 30, clientY: box!.y + 10, bubbles: true });
    const menu = page.getByRole('menu', { name: 'Options for faq' });
    await menu.waitFor();
    await faq.dispatchEvent('pointerup', { pointerType: 'touch', bubbles: true });
    expect(await menu.getByRole('menuitem').count()).toBe(6);
    await screenshot(page, 'channel-menu-dark');
    await page.keyboard.press('Escape');
    await expect.poll(() => menu.count()).toBe(0);
    noPageErrors(o);
  });

  it('a manager reorders with Ctrl+↑/↓ and the menu’s Move up/down, and by dragging a channel into another category', async () => {
    const w = await world();
    const o = await web.open({ token: w.alice.token, path: `/s/${w.server.id}/c/${w.general.id}`, height: 720 });
    const { page } = o;
    await expect.poll(() => sidebarOrder(page)).toEqual(['general', '[Info]', 'rules', 'faq', '[Team]', 'standup']);

    // Ctrl+↓ on #rules: below #faq; focus stays on it.
    const rules = sidebar(page).locator(`[data-channel="${w.rules.id}"]`);
    await rules.focus();
    await page.keyboard.press('Control+ArrowDown');
    await expect.poll(() => sidebarOrder(page)).toEqual(['general', '[Info]', 'faq', 'rules', '[Team]', 'standup']);
    await expect.poll(() => focused(page)).toContain('rules');
    // Again: across the edge, into Team's first place.
    await page.keyboard.press('Control+ArrowDown');
    await expect.poll(() => sidebarOrder(page)).toEqual(['general', '[Info]', 'faq', '[Team]', 'rules', 'standup']);
    let stored = new Map((await channels(w.alice.auth, w.server.id)).map((c) => [c.id, c]));
    expect(stored.get(w.rules.id)).toMatchObject({ parentId: w.team.id, position: 0 });
    expect(stored.get(w.standup.id)).toMatchObject({ parentId: w.team.id, position: 1 });

    // A category moves among categories: Ctrl+↑ on Team's header.
    await sidebar(page).getByRole('button', { name: 'Team' }).focus();
    await page.keyboard.press('Control+ArrowUp');
    await expect.poll(() => sidebarOrder(page)).toEqual(['general', '[Team]', 'rules', 'standup', '[Info]', 'faq']);

    // The menu's Move up puts #rules back into… the end of the uncategorised channels.
    await rules.click({ button: 'right' });
    const menu = page.getByRole('menu', { name: 'Options for rules' });
    expect(await menu.getByRole('menuitem').allTextContents()).toEqual([
      'Mark as read',
      'Notification settings',
      'Copy link',
      'Channel settings',
      'Move upCtrl+↑',
      'Move downCtrl+↓',
    ]);
    await screenshot(page, 'channel-menu-manager-light');
    await menu.getByRole('menuitem', { name: /^Move up/ }).click();
    await expect.poll(() => sidebarOrder(page)).toEqual(['general', 'rules', '[Team]', 'standup', '[Info]', 'faq']);

    // Drag #general (pointer) onto Info's header: it goes into Info, first.
    await sidebar(page)
      .locator(`[data-channel="${w.general.id}"]`)
      .dragTo(sidebar(page).getByRole('button', { name: 'Info' }));
    await expect.poll(() => sidebarOrder(page)).toEqual(['rules', '[Team]', 'standup', '[Info]', 'general', 'faq']);
    // Drag #faq above #general within Info.
    await sidebar(page)
      .locator(`[data-channel="${w.faq.id}"]`)
      .dragTo(sidebar(page).locator(`[data-channel="${w.general.id}"]`), { targetPosition: { x: 20, y: 2 } });
    await expect.poll(() => sidebarOrder(page)).toEqual(['rules', '[Team]', 'standup', '[Info]', 'faq', 'general']);
    stored = new Map((await channels(w.alice.auth, w.server.id)).map((c) => [c.id, c]));
    expect(stored.get(w.general.id)).toMatchObject({ parentId: w.info.id, position: 1 });
    expect(stored.get(w.faq.id)).toMatchObject({ parentId: w.info.id, position: 0 });
    await screenshot(page, 'categories-reordered-light');

    // Bob's client follows the moves (CHANNEL_UPDATE).
    const b = await web.open({ token: w.bob.token, path: `/s/${w.server.id}/c/${w.general.id}`, height: 720 });
    await expect.poll(() => sidebarOrder(b.page)).toEqual(['rules', '[Team]', 'standup', '[Info]', 'faq', 'general']);
    noPageErrors(o);
    noPageErrors(b);
  });
});

describe('categories in server settings', () => {
  it('creates a category, moves a channel into it, and syncs its permissions with "Sync now"', async () => {
    const alice = await named('alice');
    const { server, general } = await createServer(web.url, alice, 'Orchard');
    const o = await web.open({ token: alice.token, path: `/s/${server.id}/settings/channels`, height: 800 });
    const { page } = o;
    await page.getByLabel('New channel name').fill('Staff area');
    await page.getByLabel('Type').selectOption('category');
    await page.getByRole('button', { name: 'Create category' }).click();
    await expect.poll(() => page.locator('[data-channel-row]').count()).toBe(2);
    const cat = (await channels(alice.auth, server.id)).find((c) => c.name === 'Staff area');
    expect(cat).toMatchObject({ type: 'category' });
    // The category hides itself from @everyone.
    const hide = await call(web.url, 'PUT', `/channels/${cat!.id}/permissions/${server.id}`, {
      auth: alice.auth,
      body: { type: 'role', deny: String(1n << 10n) },
    });
    expect(hide.status).toBe(204);

    await page.getByLabel('Category of #general').selectOption({ label: 'Staff area' });
    await expect.poll(async () => (await channels(alice.auth, server.id)).find((c) => c.id === general.id)?.parentId).toBe(cat!.id);
    await screenshot(page, 'settings-categories-light');

    await page.getByRole('button', { name: 'Permissions of #general' }).click();
    const line = page.getByText(/Permissions not synced with Staff area/);
    await line.waitFor();
    await screenshot(page, 'channel-not-synced-light');
    await page.getByRole('button', { name: 'Sync now' }).click();
    await page.locator('[data-synced]').getByText('Permissions synced with Staff area').waitFor();
    const synced = (await channels(alice.auth, server.id)).find((c) => c.id === general.id) as Ch & { permissionOverwrites: unknown[] };
    expect(synced.permissionOverwrites).toEqual([{ id: server.id, type: 'role', allow: '0', deny: String(1n << 10n) }]);
    noPageErrors(o);
  });
});
