/**
 * Direct messages in the web client (docs/api.md#direct-messages), in a real browser (Debian's Chromium via
 * playwright-core) against a real Parley: starting one from a member's card or the member
 * list, the DM list with its unread counts (live and after a reload), replying, groups and
 * leaving them, and the refusal when someone does not take DMs. Screenshots land in
 * test-results/web/.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { call, createServer, joinServer, postMessage, registerUser, type TestUser } from '../factories.js';
import { browserSuite, screenshot, type OpenPage } from './browser.js';
import { recordNotifications, waitForNotifications } from './notifications.js';

const web = browserSuite();

async function open(
  user: TestUser,
  path: string,
  opts: { colorScheme?: 'light' | 'dark'; width?: number; height?: number } = {},
): Promise<OpenPage> {
  const o = await web.open({
    token: user.token,
    path,
    height: opts.height ?? 760,
    width: opts.width,
    colorScheme: opts.colorScheme,
    prepare: (page) => recordNotifications(page, web.url),
  });
  return o;
}

const named = (name: string) => registerUser(web.url, `${name}_${Math.random().toString(36).slice(2, 7)}`);

/** Alice's server "Lighthouse" with Bob (and others) in it. */
async function world(extra: string[] = []) {
  const alice = await named('alice');
  const bob = await named('bob');
  const { server, general } = await createServer(web.url, alice, 'Lighthouse');
  await joinServer(web.url, alice, bob, server.id);
  const others: TestUser[] = [];
  for (const name of extra) {
    const u = await named(name);
    await joinServer(web.url, alice, u, server.id);
    others.push(u);
  }
  return { alice, bob, server, general, others };
}

const composer = (page: Page) => page.getByRole('textbox', { name: /^Message / });
const dmList = (page: Page) => page.getByRole('complementary', { name: 'Direct messages' });
const dmLink = (page: Page, dmId: string) => dmList(page).locator(`a[data-dm-id="${dmId}"]`);
const memberList = (page: Page) => page.getByRole('complementary', { name: 'Members' });
const message = (page: Page, text: string) => page.locator('[data-message-id]', { hasText: text });
const homeButton = (page: Page) => page.getByRole('navigation', { name: 'Servers' }).getByRole('link', { name: /^Direct messages/ });

async function send(page: Page, text: string) {
  await composer(page).fill(text);
  await composer(page).press('Enter');
  await message(page, text).waitFor();
}

function noPageErrors(o: OpenPage) {
  expect(o.errors, `uncaught errors in the page: ${o.errors.join('\n')}`).toEqual([]);
}

describe('direct messages', () => {
  it('a round trip: Alice starts a DM from Bob’s card, Bob sees it arrive unread, opens it and answers', async () => {
    const w = await world();
    const a = await open(w.alice, `/s/${w.server.id}/c/${w.general.id}`);
    const b = await open(w.bob, `/s/${w.server.id}/c/${w.general.id}`);
    await composer(b.page).waitFor();

    // Alice: Bob's card, "Message".
    await memberList(a.page).locator(`li[data-member-id="${w.bob.id}"] button[aria-haspopup]`).click();
    const card = a.page.locator('dialog[open]').filter({ has: a.page.locator(`[data-member-card="${w.bob.id}"]`) });
    await card.getByRole('button', { name: 'Message' }).click();
    await a.page.waitForURL(/\/dms\/\d+$/);
    const dmId = a.page.url().split('/').pop() as string;
    await a.page.getByRole('heading', { name: w.bob.name, level: 2 }).first().waitFor();
    await a.page.getByText(`This is the beginning of your direct message history with ${w.bob.name}.`).waitFor();
    expect(await composer(a.page).getAttribute('placeholder')).toBe(`Message @${w.bob.name}`);
    await a.page.waitForFunction((t) => (globalThis as any).document.title === t, `@${w.bob.name} · Parley`);
    await send(a.page, 'Hi Bob, got a minute?');
    await send(a.page, 'It is about the lamp.');

    // Bob: the home button counts the DM's messages, the tab title too, and a notification came.
    await homeButton(b.page).locator('[data-mention-badge="2"]').waitFor();
    await b.page.waitForFunction(() => (globalThis as any).document.title.startsWith('(2) '));
    const seen = await waitForNotifications(b.page, 2);
    expect(seen.map((n) => [n.title, n.body])).toEqual([
      [w.alice.name, 'Hi Bob, got a minute?'],
      [w.alice.name, 'It is about the lamp.'],
    ]);
    await screenshot(b.page, 'dm-unread-rail');

    // ...and it survives a reload: the DM list shows it bold with its count.
    await b.page.reload();
    await composer(b.page).waitFor();
    await homeButton(b.page).click();
    await b.page.waitForURL('**/dms');
    const link = dmLink(b.page, dmId);
    await link.locator('[data-mention-badge="2"]').waitFor();
    expect(await link.getAttribute('data-unread')).toBe('');
    expect(await link.textContent()).toContain(w.alice.name);
    await screenshot(b.page, 'dm-list-unread');

    // Bob opens it (it is read: the count goes, here and on the server) and answers.
    const acked = b.page.waitForResponse((r) => r.url().includes(`/channels/${dmId}/messages/`) && r.url().endsWith('/ack'));
    await link.click();
    await message(b.page, 'It is about the lamp.').waitFor();
    await acked;
    await b.page.locator(`a[data-dm-id="${dmId}"]:not([data-unread])`).waitFor();
    expect(await homeButton(b.page).locator('[data-mention-badge]').count()).toBe(0);
    await b.page.waitForFunction(() => !(globalThis as any).document.title.startsWith('('));
    await send(b.page, 'Sure, what about it?');
    await message(a.page, 'Sure, what about it?').waitFor();
    await screenshot(a.page, 'dm-conversation');

    // Alice was reading: no mark, no badge for her.
    await a.page.locator(`a[data-dm-id="${dmId}"]:not([data-unread])`).waitFor();
    expect(await dmLink(a.page, dmId).locator('[data-mention-badge]').count()).toBe(0);
    noPageErrors(a);
    noPageErrors(b);
  }, 60_000);

  it('starts a DM from the member list, lists the newest first, and explains a refusal', async () => {
    const w = await world(['carol', 'dan']);
    const [carol, dan] = w.others as [TestUser, TestUser];
    // Carol takes no DMs.
    const off = await call(web.url, 'PATCH', '/users/@me/settings', { auth: carol.auth, body: { allowDmsFromServerMembers: false } });
    expect(off.status).toBe(200);
    const o = await open(w.alice, `/s/${w.server.id}/c/${w.general.id}`, { colorScheme: 'dark' });
    const { page } = o;
    const carolRow = memberList(page).locator(`li[data-member-id="${carol.id}"]`);
    await carolRow.waitFor();
    // No "Message" on your own row.
    expect(
      await memberList(page)
        .locator(`li[data-member-id="${w.alice.id}"]`)
        .getByRole('button', { name: /^Message/ })
        .count(),
    ).toBe(0);

    await carolRow.hover();
    await screenshot(page, 'member-list-message-dark');
    await carolRow.getByRole('button', { name: `Message ${carol.name}` }).click();
    const toast = page.getByText(`You cannot message ${carol.name}`);
    await toast.waitFor();
    expect(page.url()).toContain(`/s/${w.server.id}`);

    // Dan and Bob are fine; the one written to last is on top.
    const danRow = memberList(page).locator(`li[data-member-id="${dan.id}"]`);
    await danRow.getByRole('button', { name: `Message ${dan.name}` }).focus(); // keyboard reachable
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/dms\/\d+$/);
    await send(page, 'Hello Dan');
    const bobDm = await call(web.url, 'POST', '/users/@me/channels', { auth: w.bob.auth, body: { recipientIds: [w.alice.id] } });
    await postMessage(web.url, w.bob.auth, bobDm.body.id, 'Alice, a question');
    const bobLink = dmLink(page, bobDm.body.id);
    await bobLink.locator('[data-mention-badge="1"]').waitFor();
    const order = await dmList(page)
      .locator('a[data-dm-id]')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-dm-id')));
    expect(order[0]).toBe(bobDm.body.id);
    expect(order).toHaveLength(2);
    await screenshot(page, 'dm-list-dark');
    noPageErrors(o);
  }, 60_000);

  it('groups: a new group appears live, shows its members, and can be left', async () => {
    const w = await world(['carol']);
    const [carol] = w.others as [TestUser];
    const o = await open(w.bob, '/dms', { width: 390, height: 760 });
    const { page } = o;
    // On a phone the list is the page.
    await dmList(page).waitFor();
    await page.getByText('No conversations yet.').waitFor();

    const group = await call(web.url, 'POST', '/users/@me/channels', {
      auth: w.alice.auth,
      body: { recipientIds: [w.bob.id, carol.id], name: 'Lamp crew' },
    });
    expect(group.status).toBe(201);
    const link = dmLink(page, group.body.id);
    await link.waitFor();
    expect(await link.textContent()).toContain('3 members');
    await postMessage(web.url, w.alice.auth, group.body.id, `Welcome, ${w.bob.name} and ${carol.name}`);
    await link.locator('[data-mention-badge="1"]').waitFor();
    await screenshot(page, 'dm-list-narrow');

    await link.click();
    await message(page, 'Welcome,').waitFor();
    expect(await composer(page).getAttribute('placeholder')).toBe('Message Lamp crew');
    await screenshot(page, 'dm-group-narrow');

    // Leave it: gone from the list, and the others hear it.
    await page.getByRole('button', { name: 'Leave group' }).click();
    const confirm = page.getByRole('dialog', { name: 'Leave Lamp crew' });
    await confirm.getByRole('button', { name: 'Leave group' }).click();
    await page.waitForURL('**/dms');
    await link.waitFor({ state: 'detached' });
    const left = await call(web.url, 'GET', '/users/@me/channels', { auth: carol.auth });
    expect(left.body.find((d: { id: string }) => d.id === group.body.id)?.recipients.map((u: { id: string }) => u.id)).toEqual([
      w.alice.id,
      carol.id,
    ]);
    noPageErrors(o);
  }, 60_000);
});
