/**
 * The member list grouped by hoisted role, role colours on names, the profile card and the
 * moderation it offers (roles, kick, ban), and the composer without SEND_MESSAGES, in a real
 * browser (Debian's Chromium via playwright-core) against a real Parley. Each action is
 * checked against the API afterwards; each control a user may not use is checked absent.
 * Screenshots land in test-results/web/.
 */
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import {
  addBot,
  call,
  createBot,
  createChannel,
  createServer,
  joinServer,
  postMessage,
  registerUser,
  type TestUser,
} from '../factories.js';
import { browserSuite, screenshot } from './browser.js';

const KICK_MEMBERS = 2n;
const SEND_MESSAGES = 2048n;
/** Discord's "dark blue": readable on the light theme as it is, lightened on the dark one. */
const MOD_COLOR = 0x206694;
const HELPER_COLOR = 0xe67e22;

const web = browserSuite();

async function open(user: TestUser, path: string, opts: { colorScheme?: 'light' | 'dark'; width?: number; height?: number } = {}) {
  const o = await web.open({ token: user.token, path, height: 860, ...opts });
  return o;
}

async function ok<T = any>(method: string, path: string, auth: string, body?: unknown): Promise<T> {
  const r = await call<T>(web.url, method, path, { auth, body });
  expect(r.status, `${method} ${path}: ${r.text}`).toBeLessThan(300);
  return r.body;
}

async function createRole(owner: TestUser, serverId: string, body: Record<string, unknown>) {
  return ok<{ id: string; name: string; position: number }>('POST', `/servers/${serverId}/roles`, owner.auth, body);
}

const giveRole = (owner: TestUser, serverId: string, userId: string, roleId: string) =>
  ok('PUT', `/servers/${serverId}/members/${userId}/roles/${roleId}`, owner.auth);

async function rolesOf(owner: TestUser, serverId: string, userId: string): Promise<string[] | undefined> {
  const members = await ok<{ id: string; roles: string[] }[]>('GET', `/servers/${serverId}/members`, owner.auth);
  return members.find((m) => m.id === userId)?.roles;
}

/**
 * A server with a hoisted, coloured "Moderators" role (KICK_MEMBERS, held by `mod`), a
 * plain "Helpers" role, a plain member `pat`, and a bot.
 */
async function world(extra: string[] = []) {
  const named = (name: string) => registerUser(web.url, `${name}_${Math.random().toString(36).slice(2, 6)}`);
  const owner = await named('owner');
  const { server, general } = await createServer(web.url, owner, 'Lighthouse');
  const mod = await named('mod');
  const pat = await named('pat');
  const others: TestUser[] = [];
  for (const name of extra) others.push(await named(name));
  for (const u of [mod, pat, ...others]) await joinServer(web.url, owner, u, server.id);
  const bot = await createBot(web.url, owner, 'Beacon');
  await addBot(web.url, owner, server.id, bot.id);
  // New roles start at position 1, pushing the others up: Moderators ends above Helpers.
  const mods = await createRole(owner, server.id, {
    name: 'Moderators',
    color: MOD_COLOR,
    hoist: true,
    permissions: KICK_MEMBERS.toString(),
  });
  const helpers = await createRole(owner, server.id, { name: 'Helpers', color: HELPER_COLOR });
  await giveRole(owner, server.id, mod.id, mods.id);
  return { owner, server, general, mod, pat, others, bot, helpers, mods };
}

const memberList = (page: Page) => page.getByRole('complementary', { name: 'Members' });
/** The member's row button (the one that opens their card; the row also has "Message"). */
const row = (page: Page, userId: string) => memberList(page).locator(`li[data-member-id="${userId}"] button[aria-haspopup]`);
const card = (page: Page) => page.locator('dialog[open]').filter({ has: page.locator('[data-member-card]') });

async function openCard(page: Page, userId: string): Promise<Locator> {
  await row(page, userId).click();
  const c = card(page);
  await c.locator(`[data-member-card="${userId}"]`).waitFor();
  return c;
}

function rgb(css: string): [number, number, number] {
  const m = /^rgb\((\d+), (\d+), (\d+)\)$/.exec(css);
  if (!m) throw new Error(`not an rgb() colour: ${css}`);
  return [Number(m[1]), Number(m[2]), Number(m[3])];
}

const colorOf = (l: Locator) => l.evaluate((el) => (globalThis as any).getComputedStyle(el).color as string);

describe('member list', () => {
  it('groups by hoisted role in order with counts, colours names by role, live', async () => {
    const w = await world();
    await postMessage(web.url, w.mod.auth, w.general.id, 'Keep it friendly, folks');
    const { page, errors } = await open(w.owner, `/s/${w.server.id}/c/${w.general.id}`);

    const list = memberList(page);
    await row(page, w.bot.id).waitFor();
    const groups = list.locator('section[data-group]');
    expect(await groups.evaluateAll((els) => els.map((e) => e.getAttribute('data-group')))).toEqual([w.mods.id, 'members', 'bots']);
    expect(await list.locator('h3').allTextContents()).toEqual(['Moderators — 1', 'Members — 2', 'Bots — 1']);
    await list.getByRole('region', { name: 'Moderators, 1' }).locator(`li[data-member-id="${w.mod.id}"]`).waitFor();
    const people = list.getByRole('region', { name: 'Members, 2' });
    await people.locator(`li[data-member-id="${w.owner.id}"]`).waitFor();
    await people.locator(`li[data-member-id="${w.pat.id}"]`).waitFor();
    await list.getByRole('region', { name: 'Bots, 1' }).locator(`li[data-member-id="${w.bot.id}"]`).waitFor();
    // The owner keeps the crown.
    await row(page, w.owner.id).getByRole('img', { name: 'owner' }).waitFor();

    // The moderator's name in Moderators' colour, in the list and on their message; the
    // others in the normal text colour.
    const modName = row(page, w.mod.id).getByText(w.mod.name, { exact: true });
    expect(await colorOf(modName)).toBe('rgb(32, 102, 148)');
    const author = page.locator('[data-message-id]').getByRole('button', { name: w.mod.name, exact: true });
    expect(await colorOf(author)).toBe('rgb(32, 102, 148)');
    const plain = await colorOf(row(page, w.pat.id).getByText(w.pat.name, { exact: true }));
    expect(plain).not.toBe('rgb(32, 102, 148)');
    await screenshot(page, 'members-list');

    // Another session gives pat the orange Helpers role: pat's name turns orange (darkened
    // just enough to read on the light theme) without a reload.
    await giveRole(w.owner, w.server.id, w.pat.id, w.helpers.id);
    const patName = row(page, w.pat.id).getByText(w.pat.name, { exact: true });
    await expect.poll(() => colorOf(patName)).not.toBe(plain);
    const orange = await colorOf(patName);
    const [r, g, b] = rgb(orange);
    expect(r).toBeGreaterThan(g);
    expect(g).toBeGreaterThan(b);
    // ...and Moderators recoloured to red by another session: the moderator's name follows.
    await ok('PATCH', `/servers/${w.server.id}/roles/${w.mods.id}`, w.owner.auth, { color: 0x992d22 });
    await expect.poll(() => colorOf(modName)).toBe('rgb(153, 45, 34)');
    await expect.poll(() => colorOf(author)).toBe('rgb(153, 45, 34)');
    // Un-hoisted: the group goes and the moderator joins Members.
    await ok('PATCH', `/servers/${w.server.id}/roles/${w.mods.id}`, w.owner.auth, { hoist: false });
    await list.getByRole('region', { name: 'Members, 3' }).locator(`li[data-member-id="${w.mod.id}"]`).waitFor();
    expect(await list.locator('section[data-group]').count()).toBe(2);
    expect(errors).toEqual([]);
  });

  it('dark theme: a dark role colour is lightened to stay readable', async () => {
    const w = await world();
    const { page } = await open(w.owner, `/s/${w.server.id}/c/${w.general.id}`, { colorScheme: 'dark' });
    const modName = row(page, w.mod.id).getByText(w.mod.name, { exact: true });
    await modName.waitFor();
    const shown = await colorOf(modName);
    expect(shown).not.toBe('rgb(32, 102, 148)');
    const [r, g, b] = rgb(shown);
    // Lighter than the role colour, same hue family (blue strongest).
    expect(r + g + b).toBeGreaterThan(32 + 102 + 148);
    expect(b).toBeGreaterThan(r);
    await screenshot(page, 'members-list-dark');
  });
});

describe('profile card', () => {
  it('the owner gives and takes a role, kicks with a reason, bans deleting recent messages', async () => {
    const w = await world(['kim', 'bob']);
    const [kim, bob] = w.others as [TestUser, TestUser];
    const spam = await postMessage(web.url, bob.auth, w.general.id, 'buy cheap followers');
    const { page, errors } = await open(w.owner, `/s/${w.server.id}/c/${w.general.id}`);

    // Open pat's card from the list; Escape closes it and focus returns to the row.
    let c = await openCard(page, w.pat.id);
    await c.getByRole('heading', { name: w.pat.name }).waitFor();
    await c.getByText('Member since').waitFor();
    await page.keyboard.press('Escape');
    await card(page).waitFor({ state: 'detached' });
    expect(await row(page, w.pat.id).evaluate((el) => el === (globalThis as any).document.activeElement)).toBe(true);
    // The keyboard opens it too.
    await page.keyboard.press('Enter');
    c = card(page);
    await c.locator(`[data-member-card="${w.pat.id}"]`).waitFor();

    // Add Helpers from the + menu.
    await c.getByRole('button', { name: 'Add role' }).click();
    const menu = c.getByRole('group', { name: 'Roles you can give' });
    // Neither @everyone nor the bot's own role is offered.
    expect(await menu.getByRole('button').allTextContents()).toEqual(['Moderators', 'Helpers']);
    await menu.getByRole('button', { name: 'Helpers' }).click();
    await c.getByRole('button', { name: 'Remove role Helpers' }).waitFor();
    expect(await rolesOf(w.owner, w.server.id, w.pat.id)).toEqual([w.helpers.id]);
    await screenshot(page, 'member-card');
    // ...and take it away.
    await c.getByRole('button', { name: 'Remove role Helpers' }).click();
    await c.getByRole('button', { name: 'Remove role Helpers' }).waitFor({ state: 'detached' });
    expect(await rolesOf(w.owner, w.server.id, w.pat.id)).toEqual([]);
    await page.keyboard.press('Escape');
    await card(page).waitFor({ state: 'detached' });

    // The bot's card: BOT badge, its managed role shown without a remove button.
    c = await openCard(page, w.bot.id);
    await c.getByText('BOT', { exact: true }).waitFor();
    await c.locator('[data-role-id]').first().waitFor();
    expect(await c.getByRole('button', { name: /^Remove role/ }).count()).toBe(0);
    await page.keyboard.press('Escape');

    // The owner's own card: the Owner mark, no kick or ban.
    c = await openCard(page, w.owner.id);
    await c.getByText(/^★ Owner$/).waitFor();
    expect(await c.getByRole('button', { name: 'Kick' }).count()).toBe(0);
    expect(await c.getByRole('button', { name: 'Ban' }).count()).toBe(0);
    await page.keyboard.press('Escape');

    // Kick kim, with a reason.
    c = await openCard(page, kim.id);
    await c.getByRole('button', { name: 'Kick', exact: true }).click();
    const kick = page.getByRole('dialog', { name: `Kick ${kim.name}` });
    await kick.getByLabel('Reason (optional)').fill('posting in every channel');
    await kick.getByRole('button', { name: `Kick ${kim.name}` }).click();
    await page.getByText(`${kim.name} was removed from Lighthouse.`).waitFor();
    await row(page, kim.id).waitFor({ state: 'detached' });
    expect(await card(page).count()).toBe(0);
    expect(await rolesOf(w.owner, w.server.id, kim.id)).toBeUndefined();
    const kicks = await ok<{ targetId: string; reason: string | null }[]>(
      'GET',
      `/servers/${w.server.id}/audit-log?action=member_kick`,
      w.owner.auth,
    );
    expect(kicks).toEqual([expect.objectContaining({ targetId: kim.id, reason: 'posting in every channel' })]);

    // Ban bob, deleting his last 24 hours of messages.
    c = await openCard(page, bob.id);
    await c.getByRole('button', { name: 'Ban', exact: true }).click();
    const ban = page.getByRole('dialog', { name: `Ban ${bob.name}` });
    await ban.getByLabel('Reason (optional)').fill('spam');
    await ban.getByLabel('Delete their messages from the last').selectOption({ label: '24 hours' });
    await screenshot(page, 'member-ban-dialog');
    await ban.getByRole('button', { name: `Ban ${bob.name}` }).click();
    await page.getByText(`${bob.name} was banned from Lighthouse.`).waitFor();
    await row(page, bob.id).waitFor({ state: 'detached' });
    const bans = await ok<{ user: { id: string }; reason: string | null }[]>('GET', `/servers/${w.server.id}/bans`, w.owner.auth);
    expect(bans).toEqual([expect.objectContaining({ user: expect.objectContaining({ id: bob.id }), reason: 'spam' })]);
    const left = await ok<{ id: string }[]>('GET', `/channels/${w.general.id}/messages`, w.owner.auth);
    expect(left.map((m) => m.id)).not.toContain(spam.id);
    await page.locator(`[data-message-id="${spam.id}"]`).waitFor({ state: 'detached' });
    expect(errors).toEqual([]);
  });

  it('a message author’s name opens their card', async () => {
    const w = await world();
    await postMessage(web.url, w.pat.auth, w.general.id, 'hello lighthouse');
    const { page } = await open(w.owner, `/s/${w.server.id}/c/${w.general.id}`);
    const author = page.locator('[data-message-id]').getByRole('button', { name: w.pat.name, exact: true });
    await author.click();
    await card(page).locator(`[data-member-card="${w.pat.id}"]`).waitFor();
    await page.keyboard.press('Escape');
    await card(page).waitFor({ state: 'detached' });
    expect(await author.evaluate((el) => el === (globalThis as any).document.activeElement)).toBe(true);
  });

  it('a moderator with KICK_MEMBERS only: Kick but no Ban or roles, nothing on peers or the owner', async () => {
    const w = await world(['peer']);
    const [peer] = w.others as [TestUser];
    await giveRole(w.owner, w.server.id, peer.id, w.mods.id);
    const { page, errors } = await open(w.mod, `/s/${w.server.id}/c/${w.general.id}`, { width: 390, colorScheme: 'dark' });

    await page.getByRole('button', { name: 'Show member list' }).click();
    let c = await openCard(page, w.pat.id);
    await c.getByRole('button', { name: 'Kick', exact: true }).waitFor();
    expect(await c.getByRole('button', { name: 'Ban', exact: true }).count()).toBe(0);
    expect(await c.getByRole('button', { name: 'Add role' }).count()).toBe(0);
    await screenshot(page, 'member-card-narrow-dark');
    await page.keyboard.press('Escape');

    // The server agrees: no banning without BAN_MEMBERS.
    const refused = await call(web.url, 'PUT', `/servers/${w.server.id}/bans/${w.pat.id}`, { auth: w.mod.auth, body: {} });
    expect(refused.status).toBe(403);

    // A peer (same highest role) and the owner: no actions at all.
    for (const target of [peer.id, w.owner.id]) {
      c = await openCard(page, target);
      await c.getByText('Member since').waitFor();
      expect(await c.getByRole('button', { name: /^(Kick|Ban|Add role)$/ }).count()).toBe(0);
      await page.keyboard.press('Escape');
      await card(page).waitFor({ state: 'detached' });
    }
    const peerKick = await call(web.url, 'DELETE', `/servers/${w.server.id}/members/${peer.id}`, { auth: w.mod.auth });
    expect(peerKick.status).toBe(403);

    // The kick they may do works.
    c = await openCard(page, w.pat.id);
    await c.getByRole('button', { name: 'Kick', exact: true }).click();
    await page
      .getByRole('dialog', { name: `Kick ${w.pat.name}` })
      .getByRole('button', { name: `Kick ${w.pat.name}` })
      .click();
    await page.getByText(`${w.pat.name} was removed from Lighthouse.`).waitFor();
    expect(await rolesOf(w.owner, w.server.id, w.pat.id)).toBeUndefined();
    expect(errors).toEqual([]);
  });
});

describe('composer permissions', () => {
  it('without SEND_MESSAGES in a channel, a note replaces the composer; history stays', async () => {
    const w = await world();
    const news = await createChannel(web.url, w.owner, w.server.id, 'announcements');
    await postMessage(web.url, w.owner.auth, news.id, 'Welcome aboard');
    await ok('PUT', `/channels/${news.id}/permissions/${w.server.id}`, w.owner.auth, { type: 'role', deny: SEND_MESSAGES.toString() });

    const { page, errors } = await open(w.pat, `/s/${w.server.id}/c/${news.id}`);
    await page.getByText('You do not have permission to send messages in this channel.').waitFor();
    await page.locator('[data-message-id]').filter({ hasText: 'Welcome aboard' }).waitFor();
    expect(await page.getByRole('textbox', { name: 'Message #announcements' }).count()).toBe(0);
    const refused = await call(web.url, 'POST', `/channels/${news.id}/messages`, { auth: w.pat.auth, body: { content: 'hi' } });
    expect(refused.status).toBe(403);
    await screenshot(page, 'composer-no-permission');

    // In general they can write; lifting the overwrite brings the composer back live.
    await page.getByRole('link', { name: 'general' }).click();
    await page.getByRole('textbox', { name: 'Message #general' }).waitFor();
    await page.getByRole('link', { name: 'announcements' }).click();
    await page.getByText('You do not have permission to send messages in this channel.').waitFor();
    await ok('DELETE', `/channels/${news.id}/permissions/${w.server.id}`, w.owner.auth);
    await page.getByRole('textbox', { name: 'Message #announcements' }).waitFor();

    // Without ATTACH_FILES or ADD_REACTIONS: no attach button, no "Add reaction".
    await ok('PUT', `/channels/${news.id}/permissions/${w.server.id}`, w.owner.auth, { type: 'role', deny: (32768n | 64n).toString() });
    await page.getByRole('button', { name: 'Attach a file' }).waitFor({ state: 'detached' });
    const msg = page.locator('[data-message-id]').filter({ hasText: 'Welcome aboard' });
    await msg.hover();
    expect(await msg.getByRole('button', { name: 'Add reaction' }).count()).toBe(0);
    await page.getByRole('link', { name: 'general' }).click();
    await page.getByRole('button', { name: 'Attach a file' }).waitFor();
    expect(errors).toEqual([]);
  });
});
