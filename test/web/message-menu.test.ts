/**
 * Messages in the web client (issue 38, item 7), in a real browser against a real Parley:
 * the message context menu by mouse, keyboard (Shift+F10, the context-menu key) and touch
 * (a long press), message links that open their channel on the message, links to messages
 * that unfurl as quotes only for those who may read them, and drafts that survive a reload.
 * Screenshots land in test-results/web/.
 */
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, createChannel, createServer, joinServer, postMessage, registerUser, type TestUser } from '../factories.js';
import { browserSuite, screenshot } from './browser.js';

const web = browserSuite();

const named = (name: string) => registerUser(web.url, `${name}_${Math.random().toString(36).slice(2, 7)}`);
const composer = (page: Page) => page.getByRole('textbox', { name: /^Message / });
const menu = (page: Page) => page.getByRole('menu', { name: 'Message options' });
const menuItems = (page: Page) => menu(page).getByRole('menuitem').allInnerTexts();
const focusedText = (page: Page) => page.evaluate(() => (globalThis as any).document.activeElement?.textContent ?? null);
const sidebar = (page: Page) => page.getByRole('complementary', { name: /channels$/ });
const channelLink = (page: Page, name: string) => sidebar(page).getByRole('link', { name: new RegExp(`^#?\\s*${name}\\b`) });

describe('messages', () => {
  let ana: TestUser;
  let ben: TestUser;
  let serverId: string;
  let generalId: string;
  let randomId: string;
  let staffId: string;
  let first: { id: string };
  let second: { id: string };
  let third: { id: string };
  let secret: { id: string };

  beforeAll(async () => {
    ana = await named('ana');
    ben = await named('ben');
    const { server, general } = await createServer(web.url, ana, 'Harbour');
    serverId = server.id;
    generalId = general.id;
    randomId = (await createChannel(web.url, ana, serverId, 'random')).id;
    // #staff: ana only (the @everyone overwrite denies VIEW_CHANNEL; the owner sees everything).
    staffId = (await createChannel(web.url, ana, serverId, 'staff')).id;
    const deny = await call(web.url, 'PUT', `/channels/${staffId}/permissions/${serverId}`, {
      auth: ana.auth,
      body: { type: 'role', allow: '0', deny: '1024' },
    });
    expect(deny.status).toBe(204);
    await joinServer(web.url, ana, ben, serverId);
    first = await postMessage(web.url, ben.auth, generalId, 'The boats leave at nine');
    second = await postMessage(web.url, ben.auth, generalId, 'Bring a **warm** coat');
    third = await postMessage(web.url, ana.auth, generalId, 'Noted, thanks');
    secret = await postMessage(web.url, ana.auth, staffId, 'Staff only: the keys are under the mat');
  }, 60_000);

  const open = (user: TestUser, path = `/s/${serverId}/c/${generalId}`, more: { width?: number; height?: number } = {}) =>
    web.open({ token: user.token, path, ...more });
  const messageEl = (page: Page, id: string) => page.locator(`[data-message-id="${id}"]`);

  it('a right-click opens the message menu with what the person may do; Copy link and Mark unread work', async () => {
    const { page, errors } = await open(ana);
    await messageEl(page, second.id).waitFor();
    await messageEl(page, second.id).getByText('warm').click({ button: 'right' });
    await menu(page).waitFor();
    // Ana owns the server: she may pin and delete ben's message, not edit it.
    expect(await menuItems(page)).toEqual([
      'Add reaction',
      'Reply',
      'Create thread',
      'Pin message',
      'Mark unread',
      'Copy text',
      'Copy message link',
      'Delete message',
    ]);
    expect(await focusedText(page)).toBe('Add reaction');
    await screenshot(page, 'message-menu');

    await menu(page).getByRole('menuitem', { name: 'Copy message link' }).click();
    await menu(page).waitFor({ state: 'detached' });
    const link = await page.evaluate(() => (globalThis as any).navigator.clipboard.readText());
    expect(link).toBe(`${web.url}/s/${serverId}/c/${generalId}/m/${second.id}`);

    // Copy text copies what the person reads (the markdown source).
    await messageEl(page, second.id).getByText('warm').click({ button: 'right' });
    await menu(page).getByRole('menuitem', { name: 'Copy text' }).click();
    expect(await page.evaluate(() => (globalThis as any).navigator.clipboard.readText())).toBe('Bring a **warm** coat');

    // Her own message offers Edit; a right-click in it then Edit opens the edit box.
    await messageEl(page, third.id).getByText('Noted').click({ button: 'right' });
    expect(await menuItems(page)).toContain('Edit message');
    await menu(page).getByRole('menuitem', { name: 'Edit message' }).click();
    await messageEl(page, third.id).getByRole('textbox').waitFor();
    await page.keyboard.press('Escape');
    await messageEl(page, third.id).getByRole('textbox').waitFor({ state: 'detached' });

    // Mark unread on the second message: the channel is unread from it, on the server too.
    await messageEl(page, second.id).getByText('warm').click({ button: 'right' });
    await menu(page).getByRole('menuitem', { name: 'Mark unread' }).click();
    await sidebar(page).locator('a[data-unread]', { hasText: 'general' }).waitFor();
    await channelLink(page, 'random').click();
    await page.waitForURL(new RegExp(`/c/${randomId}$`));
    await page.reload();
    await channelLink(page, 'random').waitFor();
    await sidebar(page).locator('a[data-unread]', { hasText: 'general' }).waitFor();
    expect(errors).toEqual([]);
  });

  it('Shift+F10 and the context-menu key open it on a focused message; arrows move, Escape gives focus back', async () => {
    const { page, errors } = await open(ben);
    const msg = messageEl(page, first.id);
    await msg.waitFor();
    await msg.focus();
    await page.keyboard.press('Shift+F10');
    await menu(page).waitFor();
    // Ben is a plain member: no pin, no delete of others' messages; his own message is editable.
    expect(await menuItems(page)).toEqual([
      'Add reaction',
      'Reply',
      'Create thread',
      'Edit message',
      'Mark unread',
      'Copy text',
      'Copy message link',
      'Delete message',
    ]);
    expect(await focusedText(page)).toBe('Add reaction');
    await page.keyboard.press('ArrowDown');
    expect(await focusedText(page)).toBe('Reply');
    await page.keyboard.press('End');
    expect(await focusedText(page)).toBe('Delete message');
    await page.keyboard.press('ArrowDown');
    expect(await focusedText(page)).toBe('Add reaction');
    await page.keyboard.press('Escape');
    await menu(page).waitFor({ state: 'detached' });
    expect(await msg.evaluate((el) => el === el.ownerDocument.activeElement)).toBe(true);

    // The context-menu key on ana's message: no edit, no delete, no pin.
    const other = messageEl(page, third.id);
    await other.focus();
    await page.keyboard.press('ContextMenu');
    await menu(page).waitFor();
    expect(await menuItems(page)).toEqual(['Add reaction', 'Reply', 'Create thread', 'Mark unread', 'Copy text', 'Copy message link']);
    // Reply from the menu: the composer says whom it answers.
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await page.getByText(`Replying to ${ana.name}`).waitFor();
    expect(errors).toEqual([]);
  });

  it('a long press on a phone opens the menu; Add reaction opens the picker', async () => {
    const { page, errors } = await open(ben, `/s/${serverId}/c/${generalId}`, { width: 390, height: 760 });
    const msg = messageEl(page, second.id);
    await msg.waitFor();
    const text = msg.getByText('Bring a');
    const box = (await text.boundingBox())!;
    const at = { clientX: box.x + 8, clientY: box.y + 5, pointerType: 'touch', bubbles: true, isPrimary: true, pointerId: 3 };
    await text.dispatchEvent('pointerdown', at);
    await menu(page).waitFor();
    await text.dispatchEvent('pointerup', at);
    await screenshot(page, 'message-menu-phone');
    await menu(page).getByRole('menuitem', { name: 'Add reaction' }).click();
    await page.getByRole('dialog', { name: 'Add a reaction' }).waitFor();
    expect(errors).toEqual([]);
  });

  it('a message link opens its channel on the message, flashed', async () => {
    const { page, errors } = await open(ben, `/s/${serverId}/c/${generalId}/m/${first.id}`);
    await page.waitForURL(new RegExp(`/s/${serverId}/c/${generalId}$`));
    const landed = messageEl(page, first.id);
    await landed.and(page.locator('[data-flash]')).waitFor();
    expect(errors).toEqual([]);
  });

  it('a link to a message unfurls as a quote for who may read it, and shows nothing to who may not', async () => {
    const link = (channelId: string, id: string) => `${web.url}/s/${serverId}/c/${channelId}/m/${id}`;
    const holder = await postMessage(web.url, ana.auth, randomId, `See ${link(staffId, secret.id)} and ${link(generalId, first.id)}`);
    // Ana reads #staff: two quotes.
    const a = await open(ana, `/s/${serverId}/c/${randomId}`);
    const inAna = messageEl(a.page, holder.id);
    await inAna.locator(`[data-unfurl="${secret.id}"]`).getByText('the keys are under the mat').waitFor();
    await inAna.locator(`[data-unfurl="${first.id}"]`).getByText('The boats leave at nine').waitFor();
    expect(await inAna.locator(`[data-unfurl="${secret.id}"]`).innerText()).toContain('#staff');
    // The links themselves read as their channels, not as long addresses.
    expect(await inAna.locator('[data-mention="message"]').allInnerTexts()).toEqual(['#staff ›', '#general ›']);
    await screenshot(a.page, 'message-unfurl');

    // Ben does not: the API says 403, and nothing shows, not even that something is hidden.
    const statuses: number[] = [];
    const b = await web.open({
      token: ben.token,
      path: `/s/${serverId}/c/${randomId}`,
      prepare: async (page) => {
        page.on('response', (r) => {
          if (r.url().endsWith(`/messages/${secret.id}`)) statuses.push(r.status());
        });
      },
    });
    const inBen = messageEl(b.page, holder.id);
    await inBen.locator(`[data-unfurl="${first.id}"]`).getByText('The boats leave at nine').waitFor();
    await expect.poll(() => statuses).toEqual([403]);
    expect(await inBen.locator('[data-unfurl]').count()).toBe(1);
    expect(await inBen.innerText()).not.toContain('keys');
    // Nor is the channel he cannot see named in the link.
    expect(await inBen.locator('[data-mention="message"]').allInnerTexts()).toEqual(['Message ›', '#general ›']);

    // Its jump link opens the linked message.
    await inBen.locator(`[data-unfurl="${first.id}"]`).getByRole('link', { name: /Jump/ }).click();
    await b.page.waitForURL(new RegExp(`/c/${generalId}$`));
    await messageEl(b.page, first.id).and(b.page.locator('[data-flash]')).waitFor();
    expect(a.errors).toEqual([]);
    expect(b.errors).toEqual([]);
  });

  it('welcome lines: chosen in server settings, one appears live when someone joins by invite', async () => {
    const { page, errors } = await open(ana, `/s/${serverId}/settings`);
    const channel = page.getByRole('combobox', { name: 'Channel' });
    await channel.waitFor();
    const toggle = page.getByRole('checkbox', { name: 'Welcome people who join' });
    expect(await toggle.isDisabled()).toBe(true);
    await channel.selectOption({ label: '#general' });
    await expect
      .poll(async () => (await call(web.url, 'GET', `/servers/${serverId}`, { auth: ana.auth })).body.systemChannelId)
      .toBe(generalId);
    expect(await toggle.isChecked()).toBe(true);
    await screenshot(page, 'welcome-settings');

    await page.goto(`${web.url}/s/${serverId}/c/${generalId}`);
    await messageEl(page, third.id).waitFor();
    const cleo = await named('cleo');
    await joinServer(web.url, ana, cleo, serverId);
    const line = page.locator('[data-join]').filter({ hasText: cleo.name });
    await line.waitFor();
    expect(await line.innerText()).toMatch(new RegExp(`${cleo.name}`));
    // Its accessible name is the sentence, without markup.
    expect(await line.getAttribute('aria-label')).toMatch(new RegExp(`^[^<>]*${cleo.name}[^<>]*, `));
    await screenshot(page, 'welcome-line');
    // Its menu offers what fits a system message (no edit, no reaction, no copy text).
    await line.click({ button: 'right' });
    expect(await menuItems(page)).toEqual(['Reply', 'Mark unread', 'Copy message link', 'Delete message']);
    await page.keyboard.press('Escape');

    // Switched off, the next person joins without one.
    await page.goto(`${web.url}/s/${serverId}/settings`);
    await page.getByRole('checkbox', { name: 'Welcome people who join' }).uncheck();
    await expect
      .poll(async () => (await call(web.url, 'GET', `/servers/${serverId}`, { auth: ana.auth })).body.welcomeMessages)
      .toBe(false);
    expect(errors).toEqual([]);
  });

  it('a draft (with a picked name and a reply) survives a reload, per channel, and sending clears it', async () => {
    const { page, errors } = await open(ana, `/s/${serverId}/c/${randomId}`);
    const input = composer(page);
    await input.click();
    await page.keyboard.type(`Ask @${ben.name.slice(0, 4)}`);
    await page
      .getByRole('listbox')
      .getByRole('option', { name: new RegExp(ben.name) })
      .first()
      .click();
    await page.keyboard.type('about the boats');
    const typed = await input.inputValue();
    expect(typed).toBe(`Ask @${ben.name} about the boats`);
    // #general gets another draft, answering ben.
    await channelLink(page, 'general').click();
    await messageEl(page, second.id).hover();
    await messageEl(page, second.id).getByRole('button', { name: 'Reply' }).click();
    await composer(page).fill('On it');

    await page.reload();
    await composer(page).waitFor();
    expect(await composer(page).inputValue()).toBe('On it');
    await page.getByText(`Replying to ${ben.name}`).waitFor();
    await messageEl(page, second.id).waitFor();
    await screenshot(page, 'draft-restored');
    await channelLink(page, 'random').click();
    await page.waitForURL(new RegExp(`/c/${randomId}$`));
    expect(await composer(page).inputValue()).toBe(typed);

    // Sent as a mention of ben, and the draft is gone after another reload.
    await composer(page).press('Enter');
    await expect.poll(() => composer(page).inputValue()).toBe('');
    await expect
      .poll(async () => (await call(web.url, 'GET', `/channels/${randomId}/messages?limit=1`, { auth: ana.auth })).body[0]?.content)
      .toBe(`Ask <@${ben.id}> about the boats`);
    await page.reload();
    await composer(page).waitFor();
    await messageEl(page, third.id).or(page.locator('[data-message-id]').first()).first().waitFor();
    expect(await composer(page).inputValue()).toBe('');
    expect(await page.evaluate(() => Object.keys(JSON.parse((globalThis as any).localStorage.getItem('parley.drafts') ?? '{}')))).toEqual([
      generalId,
    ]);
    expect(errors).toEqual([]);
  });
});
