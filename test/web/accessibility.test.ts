/**
 * Accessibility: axe-core run in a real browser on every page of the web client, in light
 * and in dark, against a real Parley. Violations with impact "serious" or "critical" fail
 * the test and are printed one per line (rule, impact, target, summary).
 *
 * Nothing is left out: the chat scans include the virtualised message list (its rows,
 * separators and the current message's actions).
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
  type TestBot,
  type TestUser,
} from '../factories.js';
import { axeScan, settle } from './axe.js';
import { browserSuite, type OpenPage } from './browser.js';

const failures: string[] = [];

/** Scans the page as it is now, in both colour schemes, collecting failures under `name`. */
async function check(page: Page, name: string, exclude: string[] = []) {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await settle(page);
    for (const line of await axeScan(page, exclude)) failures.push(`[${name}, ${scheme}] ${line}`);
  }
}

function report(): string {
  return `axe found serious or critical violations:\n${failures.join('\n')}`;
}

const web = browserSuite();

async function open(user: TestUser | null, path: string, opts: { width?: number; height?: number } = {}): Promise<OpenPage> {
  const o = await web.open({ ...(user ? { token: user.token } : {}), path, height: 900, ...opts });
  return o;
}

describe('axe: no serious or critical violations, light and dark', () => {
  let owner: TestUser;
  let friend: TestUser;
  let bot: TestBot;
  let serverId: string;
  let channelId: string;
  let inviteCode: string;

  beforeAll(async () => {
    owner = await registerUser(web.url, `axeowner${Date.now().toString(36)}`);
    friend = await registerUser(web.url, `axefriend${Date.now().toString(36)}`);
    const { server, general } = await createServer(web.url, owner, 'Reading room');
    serverId = server.id;
    channelId = general.id;
    await createChannel(web.url, owner, serverId, 'announcements');
    await joinServer(web.url, owner, friend, serverId);
    bot = await createBot(web.url, owner, 'Librarian');
    await addBot(web.url, owner, serverId, bot.id);
    const r = await call(web.url, 'PUT', `/bots/${bot.id}/commands`, {
      auth: bot.auth,
      body: [
        { name: 'lookup', description: 'Find a book', options: [{ type: 'string', name: 'title', description: 'Title', required: true }] },
      ],
    });
    expect(r.status, r.text).toBe(200);
    await createWebhook(web.url, owner, serverId, channelId, 'Catalogue feed');
    inviteCode = (await call(web.url, 'POST', `/servers/${serverId}/invites`, { auth: owner.auth })).body.code;
    const role = await call(web.url, 'POST', `/servers/${serverId}/roles`, {
      auth: owner.auth,
      body: { name: 'Librarians', permissions: '0', color: 0x2e7d32 },
    });
    expect(role.status, role.text).toBe(201);
    const first = await postMessage(web.url, friend.auth, channelId, `Hello @${owner.name}, have you read **Middlemarch**?`);
    await call(web.url, 'POST', `/channels/${channelId}/messages`, {
      auth: owner.auth,
      body: { content: 'Yes, twice. `chapter 20` is the best.', messageReference: { messageId: first.id } },
    });
    await call(web.url, 'PUT', `/channels/${channelId}/pins/${first.id}`, { auth: owner.auth });
    // A DM between the two.
    const dm = await call(web.url, 'POST', '/users/@me/channels', { auth: owner.auth, body: { recipientIds: [friend.id] } });
    expect(dm.status, dm.text).toBeLessThan(300);
    await postMessage(web.url, friend.auth, dm.body.id, 'A quiet word about the book club.');
  }, 60_000);

  it('login and register pages', async () => {
    failures.length = 0;
    const o = await open(null, '/login');
    await o.page.getByRole('button', { name: /log in/i }).waitFor();
    await check(o.page, 'login');
    await o.page.goto(`${web.url}/register`);
    await o.page.getByRole('button', { name: /create account|register|sign up/i }).waitFor();
    await check(o.page, 'register');
    await o.page.goto(`${web.url}/invite/${inviteCode}`);
    await o.page.getByText('Reading room').first().waitFor();
    await check(o.page, 'invite, logged out');
    expect(failures, report()).toEqual([]);
  }, 60_000);

  it('chat page, its panels, member card and command palette', async () => {
    failures.length = 0;
    const o = await open(owner, `/s/${serverId}/c/${channelId}`);
    const { page } = o;
    await page.getByText('have you read').first().waitFor();
    await page.getByRole('complementary', { name: 'Members' }).waitFor();
    await check(page, 'chat');

    // Search results.
    await page.getByRole('searchbox', { name: /^Search / }).fill('Middlemarch');
    await page.getByRole('searchbox', { name: /^Search / }).press('Enter');
    await page.getByRole('button', { name: 'Close search results' }).waitFor();
    await page
      .getByRole('button', { name: /Jump to the message/ })
      .first()
      .waitFor();
    await check(page, 'chat: search results');
    await page.getByRole('button', { name: 'Close search results' }).click();

    // Pins.
    await page.getByRole('button', { name: 'Pinned messages' }).click();
    await page.getByRole('button', { name: 'Close pinned messages' }).waitFor();
    await page.getByText('have you read').nth(1).waitFor();
    await check(page, 'chat: pins');
    await page.getByRole('button', { name: 'Close pinned messages' }).click();

    // Member card.
    await page
      .getByRole('complementary', { name: 'Members' })
      .getByRole('button', { name: new RegExp(friend.name) })
      .first()
      .click();
    await page.getByRole('dialog').waitFor();
    await check(page, 'chat: member card');
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });

    // Command palette, then a command's form.
    const box = page.getByRole('textbox', { name: /^Message #/ });
    await box.click();
    await box.pressSequentially('/');
    await page
      .getByTestId('command-palette')
      .getByRole('option', { name: /\/lookup/ })
      .waitFor();
    await check(page, 'chat: command palette');
    await box.press('Tab');
    await page.getByTestId('command-form').waitFor();
    await check(page, 'chat: command form');
    await page.keyboard.press('Escape');
    expect(o.errors).toEqual([]);
    expect(failures, report()).toEqual([]);
  }, 120_000);

  it('direct messages, account page, my bots, home with no servers', async () => {
    failures.length = 0;
    const o = await open(owner, '/dms');
    const { page } = o;
    await page
      .getByRole('link', { name: new RegExp(friend.name) })
      .first()
      .click();
    await page.getByText('A quiet word').first().waitFor();
    await check(page, 'dm conversation');
    await page.goto(`${web.url}/account`);
    await page.getByRole('heading', { level: 1 }).first().waitFor();
    await check(page, 'account');
    await page.goto(`${web.url}/my-bots`);
    await page.getByText('Librarian').first().waitFor();
    await check(page, 'my bots');
    await page.getByRole('button', { name: 'Invite link for Librarian' }).click();
    await page.getByRole('dialog', { name: 'Invite link for Librarian' }).waitFor();
    await check(page, 'my bots, invite link');
    await page.goto(`${web.url}/oauth2/authorize?client_id=${bot.id}&permissions=8200&scope=bot%20applications.commands`);
    await page.getByRole('button', { name: 'Add to server' }).waitFor();
    await check(page, 'bot invite page');

    const loner = await registerUser(web.url);
    const l = await open(loner, '/');
    await l.page.getByRole('heading', { level: 1 }).first().waitFor();
    await check(l.page, 'home, no servers');
    await l.page.goto(`${web.url}/invite/${inviteCode}`);
    await l.page.getByText('Reading room').first().waitFor();
    await check(l.page, 'invite, logged in');
    expect(o.errors).toEqual([]);
    expect(failures, report()).toEqual([]);
  }, 120_000);

  it('every server settings section, the role editor and channel permissions', async () => {
    failures.length = 0;
    const o = await open(owner, `/s/${serverId}/settings/overview`);
    const { page } = o;
    const heading = (name: string) => page.getByRole('heading', { name, level: 2 }).first().waitFor();
    await heading('Overview');
    await check(page, 'settings: overview');

    await page.goto(`${web.url}/s/${serverId}/settings/roles`);
    await heading('Roles');
    await check(page, 'settings: roles');
    await page.getByRole('button', { name: /^Librarians\b/ }).click();
    await page.getByRole('heading', { name: 'Librarians: role settings' }).waitFor();
    await check(page, 'settings: role editor');

    await page.goto(`${web.url}/s/${serverId}/settings/channels`);
    await heading('Channels');
    await check(page, 'settings: channels');
    await page
      .getByRole('button', { name: /Permissions of #general/ })
      .first()
      .click();
    await page.locator('#perm-title').waitFor();
    await check(page, 'settings: channel permissions');

    for (const [tab, title, wait] of [
      ['invites', 'Invites', null],
      ['bans', 'Bans', null],
      ['audit-log', 'Audit log', 'li[data-entry-id]'],
      ['webhooks', 'Webhooks', null],
      ['bots', 'Bots', null],
    ] as const) {
      await page.goto(`${web.url}/s/${serverId}/settings/${tab}`);
      await heading(title);
      if (wait) await page.locator(wait).first().waitFor();
      if (tab === 'webhooks') await page.getByText('Catalogue feed').first().waitFor();
      await check(page, `settings: ${title.toLowerCase()}`);
    }
    expect(o.errors).toEqual([]);
    expect(failures, report()).toEqual([]);
  }, 180_000);
});
