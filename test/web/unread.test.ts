/**
 * Unread state and desktop notifications in the web client (docs/api.md#messages), in a real
 * browser (Debian's Chromium via playwright-core) against a real Parley: bold channels and
 * mention badges that survive a reload, acks that clear them in the person's other tabs,
 * the "new messages" divider and bar, the title's count, and notifications that follow the
 * settings. Screenshots land in test-results/web/.
 */
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { call, createChannel, createServer, joinServer, postMessage, registerUser, type TestUser } from '../factories.js';
import { browserSuite, screenshot, type OpenPage } from './browser.js';
import { clickNotification, notifications, recordNotifications, waitForNotifications } from './notifications.js';

const web = browserSuite();

async function open(
  user: TestUser,
  path: string,
  opts: {
    colorScheme?: 'light' | 'dark';
    width?: number;
    height?: number;
    notify?: boolean;
    /** Runs before the first navigation: to wait for something the page may do while it loads. */
    before?: (page: Page) => void;
  } = {},
): Promise<OpenPage> {
  const o = await web.open({
    token: user.token,
    path,
    height: opts.height ?? 760,
    width: opts.width,
    colorScheme: opts.colorScheme,
    prepare: (page) => {
      opts.before?.(page);
      return recordNotifications(page, web.url, { grant: opts.notify ?? false });
    },
  });
  return o;
}

const named = (name: string) => registerUser(web.url, `${name}_${Math.random().toString(36).slice(2, 7)}`);

/** Alice's server "Harbour" (#general, #random) with Bob in it. */
async function world() {
  const alice = await named('alice');
  const bob = await named('bob');
  const { server, general } = await createServer(web.url, alice, 'Harbour');
  const random = await createChannel(web.url, alice, server.id, 'random');
  await joinServer(web.url, alice, bob, server.id);
  return { alice, bob, server, general, random };
}

const ping = (u: TestUser) => `<@${u.id}>`;
const sidebar = (page: Page) => page.getByRole('complementary', { name: /channels$/ });
const channelLink = (page: Page, name: string) => sidebar(page).getByRole('link', { name: new RegExp(`^#?\\s*${name}\\b`) });
const badgeOf = (l: Locator) => l.locator('[data-mention-badge]');
const composer = (page: Page) => page.getByRole('textbox', { name: /^Message / });
const weight = (l: Locator) => l.evaluate((el) => Number((globalThis as any).getComputedStyle(el).fontWeight));

/** The next ack this page sends for a channel (the server's answer). */
const ackSent = (page: Page, channelId: string) =>
  page.waitForResponse(
    (r) => r.request().method() === 'POST' && r.url().includes(`/channels/${channelId}/messages/`) && r.url().endsWith('/ack'),
  );

function noPageErrors(o: OpenPage) {
  expect(o.errors, `uncaught errors in the page: ${o.errors.join('\n')}`).toEqual([]);
}

describe('unread', () => {
  it('marks unread channels bold with their mentions, counts them in the rail and the title, and keeps them after a reload', async () => {
    const w = await world();
    const ops = await createChannel(web.url, w.alice, w.server.id, 'ops');
    await postMessage(web.url, w.alice.auth, w.random.id, 'Welcome to random');
    // Bob has read #random before (the server counts mentions from where he left off).
    // The ack may go out while the page loads, so it is awaited from before the first navigation.
    let firstRead: Promise<unknown> | undefined;
    const o = await open(w.bob, `/s/${w.server.id}/c/${w.random.id}`, { before: (p) => (firstRead = ackSent(p, w.random.id)) });
    const { page } = o;
    await page.locator('[data-message-id]', { hasText: 'Welcome to random' }).waitFor();
    await firstRead;
    await channelLink(page, 'general').click();
    await composer(page).waitFor();
    await page.waitForFunction(() => (globalThis as any).document.title.includes('#general'));

    const random = channelLink(page, 'random');
    expect(await random.getAttribute('data-unread')).toBeNull();
    await postMessage(web.url, w.alice.auth, w.random.id, 'Just chatting, no pings here');
    await page.locator('a[data-unread]', { hasText: 'random' }).waitFor();
    expect(await weight(random)).toBeGreaterThanOrEqual(700);
    expect(await badgeOf(random).count()).toBe(0);

    await postMessage(web.url, w.alice.auth, w.random.id, `${ping(w.bob)} can you look at this?`);
    await postMessage(web.url, w.alice.auth, w.random.id, `${ping(w.bob)} and this one`);
    await badgeOf(random).filter({ hasText: '2' }).waitFor();
    await page.waitForFunction(() => (globalThis as any).document.title.startsWith('(2) #general'));
    // The server's icon in the rail carries the count too.
    const rail = page.getByRole('navigation', { name: 'Servers' });
    await badgeOf(rail.getByRole('link', { name: /^Harbour/ }))
      .filter({ hasText: '2' })
      .waitFor();

    // A message in the channel being read is read: no bold, no count, and the server hears the ack.
    const acked = ackSent(page, w.general.id);
    await postMessage(web.url, w.alice.auth, w.general.id, `${ping(w.bob)} welcome aboard`);
    await page.locator('[data-message-id]', { hasText: 'welcome aboard' }).waitFor();
    await acked;
    expect(await channelLink(page, 'general').getAttribute('data-unread')).toBeNull();
    expect(await page.title()).toMatch(/^\(2\) /);
    // A channel never opened is unread as soon as it has messages.
    await postMessage(web.url, w.alice.auth, ops.id, 'Deploy at noon');
    await page.locator('a[data-unread]', { hasText: 'ops' }).waitFor();
    await screenshot(page, 'unread-sidebar');

    // Everything above comes back from `ready` after a reload.
    await page.reload();
    await composer(page).waitFor();
    await badgeOf(channelLink(page, 'random')).filter({ hasText: '2' }).waitFor();
    expect(await channelLink(page, 'random').getAttribute('data-unread')).toBe('');
    expect(await channelLink(page, 'ops').getAttribute('data-unread')).toBe('');
    expect(await channelLink(page, 'general').getAttribute('data-unread')).toBeNull();
    await page.waitForFunction(() => (globalThis as any).document.title === '(2) #general · Harbour · Parley');

    // Opening the channel reads it: the marks and the count go.
    await channelLink(page, 'random').click();
    await page.locator('[data-message-id]', { hasText: 'and this one' }).waitFor();
    await page.waitForFunction(() => (globalThis as any).document.title === '#random · Harbour · Parley');
    expect(await badgeOf(channelLink(page, 'random')).count()).toBe(0);
    expect(await channelLink(page, 'random').getAttribute('data-unread')).toBeNull();
    noPageErrors(o);
  }, 60_000);

  it('reading a channel in one tab clears it in the person’s other tab', async () => {
    const w = await world();
    const first = await open(w.bob, `/s/${w.server.id}/c/${w.general.id}`);
    await composer(first.page).waitFor();
    // A second tab of the same browser: the same login.
    const second = await first.context.newPage();
    await second.goto(`${web.url}/s/${w.server.id}/c/${w.general.id}`);
    await composer(second).waitFor();

    await postMessage(web.url, w.alice.auth, w.random.id, `${ping(w.bob)} are you there?`);
    for (const page of [first.page, second]) await badgeOf(channelLink(page, 'random')).filter({ hasText: '1' }).waitFor();

    const acked = ackSent(second, w.random.id);
    await channelLink(second, 'random').click();
    await second.locator('[data-message-id]', { hasText: 'are you there?' }).waitFor();
    await acked;
    // READ_STATE_UPDATE reaches the first tab, which was never told by this one.
    await first.page.locator('a:not([data-unread])', { hasText: 'random' }).waitFor();
    expect(await badgeOf(channelLink(first.page, 'random')).count()).toBe(0);
    await first.page.waitForFunction(() => !(globalThis as any).document.title.startsWith('('));
    noPageErrors(first);
  }, 60_000);

  it('shows where the person left off with a divider and a bar that marks the channel read (click or Escape)', async () => {
    const w = await world();
    await postMessage(web.url, w.alice.auth, w.random.id, 'The last message Bob read');
    let read: Promise<unknown> | undefined;
    const o = await open(w.bob, `/s/${w.server.id}/c/${w.random.id}`, { height: 700, before: (p) => (read = ackSent(p, w.random.id)) });
    const { page } = o;
    // Bob reads #random, then goes elsewhere while Alice writes a lot.
    await page.locator('[data-message-id]', { hasText: 'The last message Bob read' }).waitFor();
    await read;
    await channelLink(page, 'general').click();
    await composer(page).waitFor();
    const long = (i: number) => `Update ${i}: the tide tables changed\nsee the harbour notes\nthird line`;
    for (let i = 1; i <= 30; i++) await postMessage(web.url, w.alice.auth, w.random.id, long(i));
    await page.locator('a[data-unread]', { hasText: 'random' }).waitFor();

    await channelLink(page, 'random').click();
    const bar = page.getByTestId('unread-bar');
    await bar.waitFor();
    expect(await bar.textContent()).toMatch(/^30 new messages since \d{1,2}[:.]\d{2}/);
    // The divider sits right before the first new message, which is on screen.
    const divider = page.getByRole('separator', { name: 'New messages' });
    await divider.waitFor();
    const next = await divider.evaluate((el) => el.nextElementSibling?.textContent ?? '');
    expect(next).toContain('Update 1:');
    await page.locator('[data-message-id]', { hasText: 'Update 1:' }).first().waitFor({ state: 'visible' });
    expect(await page.locator('[data-message-id]', { hasText: 'Update 1:' }).first().isVisible()).toBe(true);
    // Not scrolled to the end, so not read yet.
    expect(await channelLink(page, 'random').getAttribute('data-unread')).toBe('');
    await screenshot(page, 'unread-divider-bar');

    const acked = ackSent(page, w.random.id);
    await bar.getByRole('button', { name: 'Mark as read' }).click();
    await bar.waitFor({ state: 'detached' });
    await acked;
    expect(await channelLink(page, 'random').getAttribute('data-unread')).toBeNull();
    // The divider stays for the visit: it still shows where the person left off.
    expect(await divider.count()).toBe(1);

    // Escape does the same.
    await channelLink(page, 'general').click();
    await composer(page).waitFor();
    for (let i = 31; i <= 55; i++) await postMessage(web.url, w.alice.auth, w.random.id, long(i));
    await page.locator('a[data-unread]', { hasText: 'random' }).waitFor();
    await channelLink(page, 'random').click();
    await bar.waitFor();
    expect(await bar.textContent()).toMatch(/^25 new messages/);
    const acked2 = ackSent(page, w.random.id);
    await page.keyboard.press('Escape');
    await bar.waitFor({ state: 'detached' });
    await acked2;

    // Read on the server too: nothing unread after a reload.
    await page.reload();
    await composer(page).waitFor();
    await page.locator('[data-message-id]', { hasText: 'Update 55:' }).waitFor();
    expect(await channelLink(page, 'random').getAttribute('data-unread')).toBeNull();
    expect(await bar.count()).toBe(0);
    noPageErrors(o);
  }, 90_000);

  it('scrolling to the newest message reads the channel', async () => {
    const w = await world();
    await postMessage(web.url, w.alice.auth, w.random.id, 'Old news');
    let read: Promise<unknown> | undefined;
    const o = await open(w.bob, `/s/${w.server.id}/c/${w.random.id}`, { height: 600, before: (p) => (read = ackSent(p, w.random.id)) });
    const { page } = o;
    await page.locator('[data-message-id]', { hasText: 'Old news' }).waitFor();
    await read;
    await channelLink(page, 'general').click();
    await composer(page).waitFor();
    for (let i = 1; i <= 25; i++) await postMessage(web.url, w.alice.auth, w.random.id, `Line ${i}\nmore\nmore`);
    await page.locator('a[data-unread]', { hasText: 'random' }).waitFor();
    await channelLink(page, 'random').click();
    await page.getByTestId('unread-bar').waitFor();
    // Once the list has settled where it opened (a scroll before then is undone).
    await page.locator('[role="log"][aria-busy="false"]').waitFor();
    const acked = ackSent(page, w.random.id);
    await page.getByRole('log').evaluate((el) => {
      el.scrollTop = el.scrollHeight;
    });
    await acked;
    await page.getByTestId('unread-bar').waitFor({ state: 'detached' });
    expect(await channelLink(page, 'random').getAttribute('data-unread')).toBeNull();
    noPageErrors(o);
  }, 60_000);
});

describe('desktop notifications', () => {
  it('notifies of a mention elsewhere, not in the channel being read, not from a muted server or channel; a click opens it', async () => {
    const w = await world();
    const { server: cove, general: coveGeneral } = await createServer(web.url, w.alice, 'Cove');
    await joinServer(web.url, w.alice, w.bob, cove.id);
    const o = await open(w.bob, `/s/${w.server.id}/c/${w.general.id}`, { notify: true });
    const { page } = o;
    await composer(page).waitFor();
    await page.waitForFunction(() => (globalThis as any).document.title.includes('#general'));

    // A mention in another channel: one notification, named after its channel and server.
    const first = await postMessage(web.url, w.alice.auth, w.random.id, `${ping(w.bob)} the ferry is late`);
    let seen = await waitForNotifications(page, 1);
    expect(seen[0]).toMatchObject({ title: `${w.alice.name} (#random, Harbour)`, body: `@${w.bob.name} the ferry is late`, tag: first.id });

    // Not for the channel on screen, nor for a plain message; the next mention elsewhere still comes.
    await postMessage(web.url, w.alice.auth, w.general.id, `${ping(w.bob)} you are reading this already`);
    await postMessage(web.url, w.alice.auth, w.random.id, 'nothing for Bob in this one');
    await postMessage(web.url, w.alice.auth, coveGeneral.id, `${ping(w.bob)} over in Cove`);
    seen = await waitForNotifications(page, 2);
    expect(seen.map((n) => n.body)).toEqual([`@${w.bob.name} the ferry is late`, `@${w.bob.name} over in Cove`]);

    // A reply to Bob's message pings him by default, and notifies.
    const bobs = await postMessage(web.url, w.bob.auth, w.random.id, 'Who has the keys?');
    await call(web.url, 'POST', `/channels/${w.random.id}/messages`, {
      auth: w.alice.auth,
      body: { content: 'I do', messageReference: { messageId: bobs.id }, allowedMentions: { parse: [], repliedUser: false } },
    });
    seen = await waitForNotifications(page, 3);
    expect(seen[2]?.body).toBe('I do');

    // Mute Harbour from its bell menu: its mentions no longer notify (Cove's still do).
    await sidebar(page).getByRole('button', { name: 'Notification settings' }).click();
    const dialog = page.getByRole('dialog', { name: 'Notifications for Harbour' });
    const saved = page.waitForResponse((r) => r.url().endsWith('/users/@me/settings') && r.request().method() === 'PATCH');
    await dialog.getByRole('checkbox', { name: /Mute Harbour/ }).check();
    expect((await saved).status()).toBe(200);
    await screenshot(page, 'notification-settings');
    await dialog.getByRole('button', { name: 'Done' }).click();
    await sidebar(page).getByRole('button', { name: 'Notification settings (muted)' }).waitFor();
    await postMessage(web.url, w.alice.auth, w.random.id, `${ping(w.bob)} muted, so quiet`);
    await postMessage(web.url, w.alice.auth, coveGeneral.id, `${ping(w.bob)} Cove is not muted`);
    seen = await waitForNotifications(page, 4);
    expect(seen.map((n) => n.body).slice(3)).toEqual([`@${w.bob.name} Cove is not muted`]);
    // Muted on the server: a fresh page reads it back.
    const settings = await call(web.url, 'GET', '/users/@me/settings', { auth: w.bob.auth });
    expect(settings.body.servers[w.server.id]).toMatchObject({ muted: true });

    // Cove at "All messages", but its #general muted from the channel's own menu (a right click, "Notification settings").
    await page.getByRole('navigation', { name: 'Servers' }).getByRole('link', { name: /^Cove/ }).click();
    await page.waitForFunction(() => (globalThis as any).document.title.includes('Cove'));
    await channelLink(page, 'general').click({ button: 'right' });
    await page.getByRole('menu', { name: 'Options for general' }).getByRole('menuitem', { name: 'Notification settings' }).click();
    const coveDialog = page.getByRole('dialog', { name: 'Notifications for Cove' });
    const allSaved = page.waitForResponse((r) => r.url().endsWith('/users/@me/settings') && r.request().method() === 'PATCH');
    await coveDialog.getByRole('radio', { name: /All messages/ }).check();
    await allSaved;
    const chSaved = page.waitForResponse((r) => r.url().endsWith('/users/@me/settings') && r.request().method() === 'PATCH');
    await coveDialog.getByRole('checkbox', { name: 'Mute #general' }).check();
    await chSaved;
    await coveDialog.getByRole('button', { name: 'Done' }).click();
    const coveRandom = await createChannel(web.url, w.alice, cove.id, 'lounge');
    // Bob looks at Harbour's #general again, so Cove's channels are not on screen.
    await page.goto(`${web.url}/s/${w.server.id}/c/${w.general.id}`);
    await composer(page).waitFor();
    await postMessage(web.url, w.alice.auth, coveGeneral.id, `${ping(w.bob)} muted channel`);
    await postMessage(web.url, w.alice.auth, coveRandom.id, 'A plain message in the lounge');
    seen = await waitForNotifications(page, 1); // the page was reloaded: a new record
    expect(seen.map((n) => n.body)).toEqual(['A plain message in the lounge']);

    // Clicking a notification opens its channel with the message in view.
    await clickNotification(page, 0);
    await page.waitForURL(`**/s/${cove.id}/c/${coveRandom.id}`);
    await page.locator('[data-message-id]', { hasText: 'A plain message in the lounge' }).waitFor({ state: 'visible' });
    // Bob's own messages never notify, even where every message does.
    await page
      .getByRole('navigation', { name: 'Servers' })
      .getByRole('link', { name: /^Harbour/ })
      .click();
    await page.waitForFunction(() => (globalThis as any).document.title.includes('Harbour'));
    await postMessage(web.url, w.bob.auth, coveRandom.id, 'talking to myself');
    await postMessage(web.url, w.alice.auth, coveGeneral.id, 'muted channel, not notified');
    await postMessage(web.url, w.alice.auth, w.random.id, `${ping(w.bob)} muted server again`);
    const dm = await call(web.url, 'POST', '/users/@me/channels', { auth: w.alice.auth, body: { recipientIds: [w.bob.id] } });
    await postMessage(web.url, w.alice.auth, dm.body.id, 'a direct message always notifies');
    seen = await waitForNotifications(page, 2);
    expect(seen.map((n) => n.body)).toEqual(['A plain message in the lounge', 'a direct message always notifies']);
    expect(seen[1]?.title).toBe(w.alice.name);
    noPageErrors(o);
  }, 90_000);

  it('do not disturb (the status menu) silences every notification until the person is back online', async () => {
    const w = await world();
    const o = await open(w.bob, `/s/${w.server.id}/c/${w.general.id}`, { notify: true });
    const { page } = o;
    await composer(page).waitFor();
    await page.getByRole('button', { name: /^Set status/ }).click();
    await page.getByRole('menuitemradio', { name: /Do not disturb/ }).click();
    await postMessage(web.url, w.alice.auth, w.random.id, `${ping(w.bob)} while busy`);
    // Back online: the next mention notifies, and it is the only one made.
    await page.getByRole('button', { name: /^Set status/ }).click();
    await page.getByRole('menuitemradio', { name: /^Online/ }).click();
    await postMessage(web.url, w.alice.auth, w.random.id, `${ping(w.bob)} back now`);
    const seen = await waitForNotifications(page, 1);
    expect(seen.map((n) => n.body)).toEqual([`@${w.bob.name} back now`]);
    noPageErrors(o);
  });

  it('one tab of the browser notifies, and none for a channel open in another tab', async () => {
    const w = await world();
    const ops = await createChannel(web.url, w.alice, w.server.id, 'ops');
    const first = await open(w.bob, `/s/${w.server.id}/c/${w.general.id}`, { notify: true });
    await composer(first.page).waitFor();
    const second = await first.context.newPage();
    await second.goto(`${web.url}/s/${w.server.id}/c/${w.random.id}`);
    await composer(second).waitFor();
    await second.waitForFunction(() => (globalThis as any).document.title.includes('#random'));
    const both = async () => [...(await notifications(first.page)), ...(await notifications(second))];

    // #random is on screen in the second tab: nobody notifies. #ops is nowhere: one tab does.
    await postMessage(web.url, w.alice.auth, w.random.id, `${ping(w.bob)} you see this one already`);
    const control = await postMessage(web.url, w.alice.auth, ops.id, `${ping(w.bob)} deploy?`);
    const later = await postMessage(web.url, w.alice.auth, ops.id, `${ping(w.bob)} deploy now?`);
    // The first tab took the notifier's lock first (the second asked once the first was up).
    await waitForNotifications(first.page, 2);
    // Both tabs heard both messages (their sidebars count them; a tab notifies as it hears one) before we look at who notified.
    for (const page of [first.page, second]) await badgeOf(channelLink(page, 'ops')).filter({ hasText: '2' }).waitFor();
    expect((await both()).map((n) => n.tag)).toEqual([control.id, later.id]);
    noPageErrors(first);
  }, 60_000);

  it('the account page asks for the permission and shows its state', async () => {
    const bob = await named('bob');
    const o = await open(bob, '/account', { colorScheme: 'dark' });
    const { page } = o;
    const section = page.locator('section#notifications');
    await section.waitFor();
    // A browser that blocks notifications (this context denies what it did not grant): say how to allow them.
    await section.getByText(/^Blocked: this browser does not let Parley/).waitFor();
    await section.getByText(/open this site’s settings in your browser/).waitFor();
    expect(await section.getByRole('button', { name: 'Enable desktop notifications' }).count()).toBe(0);
    await section.scrollIntoViewIfNeeded();
    await screenshot(page, 'account-notifications-dark');

    // Not asked yet: a button asks.
    await o.context.clearPermissions();
    await page.reload();
    await section.getByText(/^Off: Parley has not asked/).waitFor();
    const enable = section.getByRole('button', { name: 'Enable desktop notifications' });
    await enable.waitFor();
    // The person says yes to the browser's question.
    await o.context.grantPermissions(['notifications'], { origin: web.url });
    await enable.click();
    await section.getByText(/^On: Parley shows desktop notifications/).waitFor();
    await section.getByRole('button', { name: 'Send a test notification' }).click();
    const seen = await waitForNotifications(page, 1);
    expect(seen[0]?.title).toBe('Parley');
    // Turning DMs off is saved.
    const saved = page.waitForResponse((r) => r.url().endsWith('/users/@me/settings') && r.request().method() === 'PATCH');
    await section.getByRole('checkbox', { name: /Allow direct messages/ }).uncheck();
    await saved;
    const settings = await call(web.url, 'GET', '/users/@me/settings', { auth: bob.auth });
    expect(settings.body.allowDmsFromServerMembers).toBe(false);
    expect(await notifications(page)).toHaveLength(1);
    noPageErrors(o);
  }, 60_000);
});
