/**
 * Starting direct messages and blocking, in a real browser against a real Parley (issue 38
 * item 6; docs/api.md#direct-messages): "New message" with its person picker (one person
 * opens or reuses the DM; several make a group, up to the cap), the DM header's presence
 * following the other person live, and Block / Unblock from the profile card and the
 * account page, with what blocking changes on screen (and that it silences desktop
 * notifications). Screenshots land in test-results/web/.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { call, createServer, joinServer, postMessage, registerUser, type TestUser } from '../factories.js';
import { TestGatewayClient } from '../gateway/client.js';
import { browserSuite, screenshot, type OpenPage } from './browser.js';
import { notifications, recordNotifications, waitForNotifications } from './notifications.js';

// Presence without the grace period and merging, so "offline" and "idle" show at once (the harness turns its fan-out off).
const web = browserSuite({ env: { PRESENCE_GRACE_MS: '0', PRESENCE_INTERVAL_MS: '0', PRESENCE_FANOUT_MAX: '100' } });

const named = (name: string) => registerUser(web.url, `${name}_${Math.random().toString(36).slice(2, 7)}`);

async function open(user: TestUser, path: string, opts: { width?: number; height?: number; colorScheme?: 'light' | 'dark' } = {}) {
  return web.open({ token: user.token, path, height: opts.height ?? 800, width: opts.width, colorScheme: opts.colorScheme });
}

function noPageErrors(o: OpenPage) {
  expect(o.errors, `uncaught errors in the page: ${o.errors.join('\n')}`).toEqual([]);
}

const picker = (page: Page) => page.getByRole('dialog', { name: 'New message' });
const toField = (page: Page) => picker(page).getByRole('combobox', { name: 'To' });
const option = (page: Page, userId: string) => picker(page).locator(`[role="option"][data-contact-id="${userId}"]`);
const chips = (page: Page) =>
  picker(page)
    .locator('[data-picked-id]')
    .evaluateAll((els) => els.map((e) => e.getAttribute('data-picked-id')));
const composer = (page: Page) => page.getByRole('textbox', { name: /^Message / });
const message = (page: Page, text: string) => page.locator('article[data-message-id]', { hasText: text });

async function openPicker(page: Page) {
  await page.getByRole('complementary', { name: 'Direct messages' }).getByRole('button', { name: 'New message' }).click();
  await toField(page).waitFor();
  await expect.poll(() => page.evaluate(() => (globalThis as any).document.activeElement?.getAttribute('role'))).toBe('combobox');
}

describe('New message: the person picker', () => {
  it('one person, from the keyboard: type, Enter adds the chip, Enter opens the DM; the same pair gets the same DM again', async () => {
    const alice = await named('alice');
    const bob = await named('bob');
    const { server } = await createServer(web.url, alice, 'Lighthouse');
    await joinServer(web.url, alice, bob, server.id);
    // Dave shares another server with Alice only: he is in her picker all the same.
    const dave = await named('dave');
    const other = await createServer(web.url, alice, 'Harbour');
    await joinServer(web.url, alice, dave, other.server.id);
    const stranger = await named('stranger');

    const o = await open(alice, '/dms');
    const { page } = o;
    await openPicker(page);
    // Everyone who shares a server with Alice, across servers; not herself, not strangers.
    await option(page, bob.id).waitFor();
    await option(page, dave.id).waitFor();
    expect(await option(page, stranger.id).count()).toBe(0);
    expect(await option(page, alice.id).count()).toBe(0);

    await toField(page).pressSequentially(bob.name.slice(0, 5));
    await expect.poll(() => picker(page).locator('[role="option"]').count()).toBe(1);
    // The first match is highlighted (the input's active descendant) and Enter adds it.
    await expect.poll(() => toField(page).getAttribute('aria-activedescendant')).toBeTruthy();
    await page.keyboard.press('Enter');
    await expect.poll(() => chips(page)).toEqual([bob.id]);
    expect(await toField(page).inputValue()).toBe('');
    expect(await option(page, bob.id).getAttribute('aria-selected')).toBe('true');
    await picker(page).getByRole('button', { name: 'Open conversation' }).waitFor();
    // The field is cleared for the next name: everyone is listed again.
    await option(page, dave.id).waitFor();
    await screenshot(page, 'dm-new-message-one');

    // Nobody highlighted: Enter opens the conversation.
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/dms\/\d+$/);
    const dmId = page.url().split('/').pop() as string;
    await picker(page).waitFor({ state: 'detached' });
    await page.getByText(`This is the beginning of your direct message history with ${bob.name}.`).waitFor();
    await composer(page).fill('Found you through New message');
    await composer(page).press('Enter');
    await message(page, 'Found you through New message').waitFor();

    // Again: the same DM, not a second one.
    await openPicker(page);
    await option(page, bob.id).click();
    await picker(page).getByRole('button', { name: 'Open conversation' }).click();
    await picker(page).waitFor({ state: 'detached' });
    expect(page.url().endsWith(`/dms/${dmId}`)).toBe(true);
    const dms = await call(web.url, 'GET', '/users/@me/channels', { auth: alice.auth });
    expect(dms.body.map((d: { id: string }) => d.id)).toEqual([dmId]);
    noPageErrors(o);
  }, 60_000);

  it('a group: several people, Backspace removes the last chip, the cap of nine others is said and kept, the name is optional', async () => {
    const alice = await named('alice');
    const { server } = await createServer(web.url, alice, 'Lighthouse');
    const people: TestUser[] = [];
    for (let i = 0; i < 10; i++) {
      const u = await named(`p${i}`);
      await joinServer(web.url, alice, u, server.id);
      people.push(u);
    }
    const o = await open(alice, '/dms');
    const { page } = o;
    await page.getByRole('button', { name: 'New message' }).first().waitFor();
    await openPicker(page);
    await expect.poll(() => picker(page).locator('[role="option"]').count()).toBe(10);

    // Arrows and Enter pick the first nine in the list (by id: the order they registered).
    for (let i = 0; i < 9; i++) {
      await page.keyboard.press('ArrowDown');
      for (let k = 0; k < i; k++) await page.keyboard.press('ArrowDown');
      await page.keyboard.press('Enter');
      await expect.poll(() => chips(page).then((c) => c.length)).toBe(i + 1);
    }
    expect(await chips(page)).toEqual(people.slice(0, 9).map((u) => u.id));
    // The cap: said in the live status, and the tenth person cannot be added.
    await picker(page).getByText('A group holds at most 10 people, you included').waitFor();
    const tenth = option(page, people[9]!.id);
    expect(await tenth.getAttribute('aria-disabled')).toBe('true');
    await tenth.click({ force: true });
    expect((await chips(page)).length).toBe(9);
    await picker(page).getByRole('textbox', { name: 'Group name (optional)' }).waitFor();
    await screenshot(page, 'dm-new-message-cap');

    // Backspace in the empty field removes the last chip (twice: seven left), and the cap note goes.
    await toField(page).focus();
    await page.keyboard.press('Backspace');
    await page.keyboard.press('Backspace');
    await expect.poll(() => chips(page)).toEqual(people.slice(0, 7).map((u) => u.id));
    expect(await picker(page).getByText('A group holds at most').count()).toBe(0);
    await picker(page).getByText('7 people picked, a group').waitFor();
    // A chip's own remove button (mouse) works too.
    await picker(page)
      .getByRole('button', { name: `Remove ${people[6]!.name}` })
      .click();
    await expect.poll(() => chips(page).then((c) => c.length)).toBe(6);

    await picker(page).getByRole('textbox', { name: 'Group name (optional)' }).fill('Lamp crew');
    await picker(page).getByRole('button', { name: 'Create group' }).click();
    await page.waitForURL(/\/dms\/\d+$/);
    const groupId = page.url().split('/').pop() as string;
    await page.getByRole('heading', { name: 'Lamp crew', level: 2 }).first().waitFor();
    const group = (await call(web.url, 'GET', '/users/@me/channels', { auth: alice.auth })).body.find(
      (d: { id: string }) => d.id === groupId,
    );
    expect(group.type).toBe('group_dm');
    expect(group.name).toBe('Lamp crew');
    expect(group.recipients.map((u: { id: string }) => u.id)).toEqual([alice.id, ...people.slice(0, 6).map((u) => u.id)]);
    // Its header: the size, and who of it is online (nobody else: they are not connected).
    await page.locator('[data-dm-online="0"]', { hasText: '7 members · nobody else online' }).waitFor();
    noPageErrors(o);
  }, 90_000);

  it('pages: the list holds 25 at first, and the next page comes as it is scrolled to its end', async () => {
    const alice = await named('alice');
    const { server } = await createServer(web.url, alice, 'Crowd');
    const people: TestUser[] = [];
    for (let i = 0; i < 30; i++) {
      const u = await named(`m${String(i).padStart(2, '0')}`);
      await joinServer(web.url, alice, u, server.id);
      people.push(u);
    }
    const o = await open(alice, '/dms');
    const { page } = o;
    await openPicker(page);
    const options = picker(page).locator('[role="option"]');
    await expect.poll(() => options.count()).toBe(25);
    const next = page.waitForResponse((r) => r.url().includes('/users/@me/contacts') && r.url().includes('after='));
    await picker(page)
      .getByRole('listbox')
      .evaluate((el) => el.scrollTo(0, el.scrollHeight));
    expect(new URL((await next).url()).searchParams.get('after')).toBe(people[24]!.id);
    await expect.poll(() => options.count()).toBe(30);
    await option(page, people[29]!.id).waitFor();
    noPageErrors(o);
  }, 60_000);

  it('on a 390 px phone, dark: the picker fits, its chips wrap, and a group is made from it', async () => {
    const alice = await named('alice');
    const { server } = await createServer(web.url, alice, 'Lighthouse');
    const people: TestUser[] = [];
    for (const n of ['bob', 'carol', 'dan']) {
      const u = await named(n);
      await joinServer(web.url, alice, u, server.id);
      people.push(u);
    }
    const o = await open(alice, '/dms', { width: 390, height: 760, colorScheme: 'dark' });
    const { page } = o;
    await openPicker(page);
    for (const u of people) await option(page, u.id).click();
    await expect.poll(() => chips(page).then((c) => c.length)).toBe(3);
    const box = await picker(page).boundingBox();
    expect(box && box.x >= 0 && box.x + box.width <= 390).toBe(true);
    await screenshot(page, 'dm-new-message-narrow');
    await picker(page).getByRole('button', { name: 'Create group' }).click();
    await page.waitForURL(/\/dms\/\d+$/);
    await page.locator('[data-dm-online]', { hasText: '4 members' }).waitFor();
    await screenshot(page, 'dm-group-header-narrow');
    noPageErrors(o);
  }, 60_000);
});

describe('the DM header', () => {
  it('shows the other person’s presence and follows it live: online, idle, offline; a group says who is online', async () => {
    const alice = await named('alice');
    const bob = await named('bob');
    const carol = await named('carol');
    const { server } = await createServer(web.url, alice, 'Lighthouse');
    await joinServer(web.url, alice, bob, server.id);
    await joinServer(web.url, alice, carol, server.id);
    const dm = (await call(web.url, 'POST', '/users/@me/channels', { auth: alice.auth, body: { recipientIds: [bob.id] } })).body;
    await postMessage(web.url, bob.auth, dm.id, 'Ping me when you are around');
    // Bob is already connected when Alice opens the DM: the header knows it without a member list.
    const bobGateway = await TestGatewayClient.identify(web.srv.gatewayUrl, bob.auth);

    const o = await open(alice, `/dms/${dm.id}`);
    const { page } = o;
    const presence = page.locator('[data-dm-presence]');
    await page.locator('[data-dm-presence="online"]').waitFor();
    // Seen as a dot and a word; read out as a sentence.
    expect(await presence.textContent()).toBe(`${bob.name} is Online`);
    await page.locator('header [data-status="online"]').waitFor();
    await screenshot(page, 'dm-header-online');

    bobGateway.send({ op: 'presence_update', d: { status: 'idle' } });
    await page.locator('[data-dm-presence="idle"]', { hasText: 'Idle' }).waitFor();
    await bobGateway.close();
    await page.locator('[data-dm-presence="offline"]', { hasText: 'Offline' }).waitFor();
    await screenshot(page, 'dm-header-offline');

    // A group: its size, and the names of those online, changing as they come and go.
    const group = (await call(web.url, 'POST', '/users/@me/channels', { auth: alice.auth, body: { recipientIds: [bob.id, carol.id] } }))
      .body;
    await page.goto(`${web.url}/dms/${group.id}`);
    await page.locator('[data-dm-online="0"]', { hasText: '3 members · nobody else online' }).waitFor();
    const carolGateway = await TestGatewayClient.identify(web.srv.gatewayUrl, carol.auth);
    await page.locator('[data-dm-online="1"]', { hasText: `3 members · online: ${carol.name}` }).waitFor();
    await carolGateway.close();
    await page.locator('[data-dm-online="0"]').waitFor();
    noPageErrors(o);
  }, 60_000);
});

describe('blocking', () => {
  it('Block from the profile card explains what it does; their messages fold; no DM either way; Unblock from the account page and the card', async () => {
    const alice = await named('alice');
    const bob = await named('bob');
    const { server, general } = await createServer(web.url, alice, 'Lighthouse');
    await joinServer(web.url, alice, bob, server.id);
    await postMessage(web.url, alice.auth, general.id, 'Welcome, everyone');
    await postMessage(web.url, bob.auth, general.id, 'First thing bob says');
    await postMessage(web.url, bob.auth, general.id, 'Second thing bob says');
    await postMessage(web.url, alice.auth, general.id, 'Alice again');

    const o = await open(alice, `/s/${server.id}/c/${general.id}`);
    const { page } = o;
    await message(page, 'Second thing bob says').waitFor();
    const memberList = page.getByRole('complementary', { name: 'Members' });
    const card = page.locator('dialog[open]').filter({ has: page.locator(`[data-member-card="${bob.id}"]`) });
    await memberList.locator(`li[data-member-id="${bob.id}"] button[aria-haspopup]`).click();
    await card.getByRole('button', { name: 'Message' }).waitFor();
    await screenshot(page, 'block-card-before');
    await card.getByRole('button', { name: 'Block' }).click();
    const confirm = page.getByRole('dialog', { name: `Block ${bob.name}?` });
    await confirm.waitFor();
    const explained = await confirm.textContent();
    expect(explained).toContain(`${bob.name} will not be told`);
    expect(explained).toContain('neither of you can start a direct message with the other');
    expect(explained).toContain('stays, with its history, but neither of you can send in it');
    expect(explained).toContain('their messages still arrive: Parley folds them away');
    await screenshot(page, 'block-confirm');
    await confirm.getByRole('button', { name: 'Block' }).click();
    await page.getByText(`You blocked ${bob.name}.`).waitFor();
    // The card now says so: Unblock instead of Block, and no Message.
    await card.getByRole('button', { name: 'Unblock' }).waitFor();
    await card.getByText('Blocked', { exact: true }).waitFor();
    expect(await card.getByRole('button', { name: 'Message' }).count()).toBe(0);
    await screenshot(page, 'block-card');
    await page.keyboard.press('Escape');
    await card.waitFor({ state: 'detached' });

    // The service: no DM either way now.
    const blocks = await call(web.url, 'GET', '/users/@me/blocks', { auth: alice.auth });
    expect(blocks.body.map((u: { id: string }) => u.id)).toEqual([bob.id]);
    const fromBob = await call(web.url, 'POST', '/users/@me/channels', { auth: bob.auth, body: { recipientIds: [alice.id] } });
    expect(fromBob.status).toBe(403);
    // The member list's Message says why, to the one who blocked.
    const bobRow = memberList.locator(`li[data-member-id="${bob.id}"]`);
    await bobRow.hover();
    await bobRow.getByRole('button', { name: `Message ${bob.name}` }).click();
    await page.getByText(`You blocked ${bob.name}. Unblock them from their profile to write to them.`).waitFor();

    // Bob's two messages are one folded line; Alice's stay.
    const fold = page.locator('[data-blocked-fold="hidden"]');
    await fold.waitFor();
    expect(await fold.textContent()).toContain('2 blocked messages');
    expect(await message(page, 'First thing bob says').count()).toBe(0);
    await message(page, 'Alice again').waitFor();
    // A new message of his, live, after Alice's: a fold of its own; one more joins it.
    await postMessage(web.url, bob.auth, general.id, 'Third thing bob says');
    await postMessage(web.url, bob.auth, general.id, 'Fourth thing bob says');
    await fold.last().filter({ hasText: '2 blocked messages' }).waitFor();
    await expect.poll(() => fold.count()).toBe(2);
    expect(await message(page, 'Fourth thing bob says').count()).toBe(0);
    // Read as they arrive, folded or not (acks go at most once a second).
    await page.getByText(/new messages? since/).waitFor({ state: 'detached' });
    await screenshot(page, 'block-folded');
    // Show opens one run only, and focus lands on its first message.
    await fold.first().getByRole('button', { name: 'Show' }).click();
    await message(page, 'First thing bob says').waitFor();
    await message(page, 'Second thing bob says').waitFor();
    await expect
      .poll(() => page.evaluate(() => (globalThis as any).document.activeElement?.textContent ?? ''))
      .toContain('First thing bob says');
    expect(await message(page, 'Third thing bob says').count()).toBe(0);
    await screenshot(page, 'block-shown');
    await page.locator('[data-blocked-fold="shown"]').getByRole('button', { name: 'Hide' }).click();
    await expect.poll(() => fold.count()).toBe(2);
    expect(await message(page, 'First thing bob says').count()).toBe(0);

    // Account settings list him; Unblock there, and his messages are back.
    await page.goto(`${web.url}/account#blocked`);
    const row = page.locator(`[data-blocked-id="${bob.id}"]`);
    await row.scrollIntoViewIfNeeded();
    await screenshot(page, 'block-account-list');
    await row.getByRole('button', { name: `Unblock ${bob.name}` }).click();
    await row.waitFor({ state: 'detached' });
    await page.getByText('You have not blocked anyone.').waitFor();
    expect((await call(web.url, 'GET', '/users/@me/blocks', { auth: alice.auth })).body).toEqual([]);
    await page.goto(`${web.url}/s/${server.id}/c/${general.id}`);
    await message(page, 'Fourth thing bob says').waitFor();
    expect(await page.locator('[data-blocked-fold]').count()).toBe(0);

    // Not on one's own card; on Bob's, Unblock undoes a block at once.
    await memberList.locator(`li[data-member-id="${alice.id}"] button[aria-haspopup]`).click();
    const own = page.locator('dialog[open]').filter({ has: page.locator(`[data-member-card="${alice.id}"]`) });
    await own.getByText('Member since').waitFor();
    expect(await own.getByRole('button', { name: /Block|Unblock/ }).count()).toBe(0);
    await page.keyboard.press('Escape');
    await own.waitFor({ state: 'detached' });
    expect((await call(web.url, 'PUT', `/users/@me/blocks/${bob.id}`, { auth: alice.auth })).status).toBe(204);
    await page.reload();
    await page.locator('[data-blocked-fold="hidden"]').first().waitFor();
    await memberList.locator(`li[data-member-id="${bob.id}"] button[aria-haspopup]`).click();
    await card.getByRole('button', { name: 'Unblock' }).click();
    await page.getByText(`You unblocked ${bob.name}.`).waitFor();
    await card.getByRole('button', { name: 'Message' }).waitFor();
    await card.getByRole('button', { name: 'Block' }).waitFor();
    expect((await call(web.url, 'GET', '/users/@me/blocks', { auth: alice.auth })).body).toEqual([]);
    await page.keyboard.press('Escape');
    await message(page, 'First thing bob says').waitFor();
    noPageErrors(o);
  }, 90_000);

  it('a blocked person’s mention raises no desktop notification; someone else’s does', async () => {
    const alice = await named('alice');
    const bob = await named('bob');
    const carol = await named('carol');
    const { server, general } = await createServer(web.url, alice, 'Lighthouse');
    await joinServer(web.url, alice, bob, server.id);
    await joinServer(web.url, alice, carol, server.id);
    expect((await call(web.url, 'PUT', `/users/@me/blocks/${bob.id}`, { auth: alice.auth })).status).toBe(204);
    // Alice is elsewhere (her DMs), so a mention in #general would notify her.
    // The block list has loaded (it decides) and the gateway is ready before anyone writes.
    let blocksLoaded: Promise<unknown> = Promise.resolve();
    let gatewayReady: Promise<unknown> = Promise.resolve();
    const o = await web.open({
      token: alice.token,
      path: '/dms',
      prepare: async (p) => {
        await recordNotifications(p, web.url);
        blocksLoaded = p.waitForResponse((r) => r.url().endsWith('/users/@me/blocks') && r.request().method() === 'GET');
        gatewayReady = new Promise<void>((resolve) =>
          p.on('websocket', (ws) => ws.on('framereceived', (f) => String(f.payload).includes('"op":"ready"') && resolve())),
        );
      },
    });
    const { page } = o;
    await Promise.all([blocksLoaded, gatewayReady]);
    await postMessage(web.url, bob.auth, general.id, `<@${alice.id}> are you there?`);
    await postMessage(web.url, carol.auth, general.id, `<@${alice.id}> lunch?`);
    // Events arrive in order: once Carol's has notified, Bob's had its turn.
    const seen = await waitForNotifications(page, 1);
    expect(seen.map((n) => n.title)).toEqual([`${carol.name} (#general, Lighthouse)`]);
    expect((await notifications(page)).length).toBe(1);
    noPageErrors(o);
  }, 60_000);

  it('a DM with someone blocked: the history stays, the composer gives way to a notice with Unblock, and sending works again after it', async () => {
    const alice = await named('alice');
    const bob = await named('bob');
    const { server } = await createServer(web.url, alice, 'Lighthouse');
    await joinServer(web.url, alice, bob, server.id);
    const dm = (await call(web.url, 'POST', '/users/@me/channels', { auth: alice.auth, body: { recipientIds: [bob.id] } })).body;
    await postMessage(web.url, alice.auth, dm.id, 'Before the block');
    expect((await call(web.url, 'PUT', `/users/@me/blocks/${bob.id}`, { auth: alice.auth })).status).toBe(204);

    const o = await open(alice, `/dms/${dm.id}`, { width: 390, height: 760 });
    const { page } = o;
    await message(page, 'Before the block').waitFor();
    const notice = page.getByRole('note');
    await notice.getByText(`You blocked ${bob.name}. Neither of you can send messages here; the history stays.`).waitFor();
    expect(await composer(page).count()).toBe(0);
    await screenshot(page, 'block-dm-narrow');
    await notice.getByRole('button', { name: 'Unblock' }).click();
    await composer(page).fill('After the unblock');
    await composer(page).press('Enter');
    await message(page, 'After the unblock').waitFor();
    const history = await call(web.url, 'GET', `/channels/${dm.id}/messages`, { auth: bob.auth });
    expect(history.body.map((m: { content: string }) => m.content)).toEqual(['After the unblock', 'Before the block']);
    noPageErrors(o);
  }, 60_000);
});
