/**
 * Server settings in a real browser (Debian's Chromium via playwright-core) against a real
 * Parley: the Overview (name, icon, description, transfer, delete), Bans, the Audit log and
 * adding bots from "Your bots" or by id. Each step is checked against the API afterwards.
 * Screenshots land in test-results/web/.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { addBot, call, createBot, createServer, joinServer, registerUser, type TestUser } from '../factories.js';
import { browserSuite, makePng, screenshot, type OpenPage } from './browser.js';

const web = browserSuite();

async function open(
  user: TestUser,
  path: string,
  opts: { colorScheme?: 'light' | 'dark'; width?: number; height?: number } = {},
): Promise<OpenPage> {
  const o = await web.open({ token: user.token, path, height: 900, ...opts });
  return o;
}

function noPageErrors(o: OpenPage) {
  expect(o.errors, `uncaught errors in the page: ${o.errors.join('\n')}`).toEqual([]);
}

/** A role holding `permissions` (a bitfield), given to `user`. */
async function giveRole(owner: TestUser, serverId: string, user: TestUser, name: string, permissions: bigint) {
  const role = await call(web.url, 'POST', `/servers/${serverId}/roles`, {
    auth: owner.auth,
    body: { name, permissions: permissions.toString() },
  });
  expect(role.status, role.text).toBe(201);
  const r = await call(web.url, 'PUT', `/servers/${serverId}/members/${user.id}/roles/${role.body.id}`, { auth: owner.auth });
  expect(r.status, r.text).toBe(204);
  return role.body as { id: string; name: string };
}

async function ban(by: TestUser, serverId: string, user: TestUser, reason: string) {
  const r = await call(web.url, 'PUT', `/servers/${serverId}/bans/${user.id}`, { auth: by.auth, body: { reason } });
  expect(r.status, r.text).toBe(204);
}

const MANAGE_SERVER = 32n;
const KICK_MEMBERS = 2n;
const BAN_MEMBERS = 4n;
const VIEW_AUDIT_LOG = 128n;

/** The entries of the audit log on screen. */
const entries = (page: Page) => page.locator('li[data-entry-id]');

describe('server settings: overview', () => {
  it('the owner renames, describes and gives an icon to the server, then transfers it; the new owner deletes it', async () => {
    const owner = await registerUser(web.url);
    const heir = await registerUser(web.url);
    const { server } = await createServer(web.url, owner, 'Garden club');
    await joinServer(web.url, owner, heir, server.id);
    const bot = await createBot(web.url, owner, 'Sprinkler');
    await addBot(web.url, owner, server.id, bot.id);
    // The owner also holds Manage server through a role, so they keep the Overview after the transfer.
    await giveRole(owner, server.id, owner, 'Gardeners', MANAGE_SERVER);

    const o = await open(owner, `/s/${server.id}/settings/overview`);
    const { page } = o;
    await page.getByRole('heading', { name: 'Overview', level: 2 }).waitFor();

    // Name and description: a save bar appears with the first change.
    expect(await page.getByRole('region', { name: 'Unsaved changes' }).count()).toBe(0);
    await page.getByLabel('Server name').fill('Allotment society');
    await page.getByLabel('Description').fill('Seeds, soil and swapping cuttings.');
    const bar = page.getByRole('region', { name: 'Unsaved changes' });
    await bar.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Server settings saved.').waitFor();
    await bar.waitFor({ state: 'detached' });
    const after = await call(web.url, 'GET', `/servers/${server.id}`, { auth: owner.auth });
    expect(after.body).toMatchObject({ name: 'Allotment society', description: 'Seeds, soil and swapping cuttings.' });
    await page.getByRole('navigation', { name: 'Settings sections' }).getByRole('heading', { name: 'Allotment society' }).waitFor();

    // Icon: uploaded, set, and shown in the server rail.
    await page.locator('input[type=file]').setInputFiles({ name: 'garden.png', mimeType: 'image/png', buffer: makePng(128, 128) });
    await page.getByText('Server icon updated.').waitFor();
    const icon = (await call(web.url, 'GET', `/servers/${server.id}`, { auth: owner.auth })).body.icon as string;
    expect(icon).toMatch(/\/uploads\/\d+\/[\w-]{43}\/garden\.png$/);
    await page.getByRole('navigation', { name: 'Servers' }).locator(`img[src="${icon}"]`).waitFor();
    await page.getByRole('button', { name: 'Remove icon' }).waitFor();
    await screenshot(page, 'settings-overview');

    // Transfer: people only (the bot is not offered), and a confirmation that says what is lost.
    const select = page.getByLabel('New owner');
    const options = await select.locator('option').allTextContents();
    expect(options).toContain(heir.name);
    expect(options).not.toContain('Sprinkler');
    expect(options).not.toContain(owner.name);
    await select.selectOption({ label: heir.name });
    await page.getByRole('button', { name: 'Transfer ownership' }).click();
    const dialog = page.getByRole('dialog', { name: 'Transfer ownership' });
    expect(await dialog.textContent()).toContain('You will lose your owner powers');
    await screenshot(page, 'settings-overview-transfer');
    await dialog.getByRole('button', { name: `Make ${heir.name} the owner` }).click();
    await page.getByText(`${heir.name} now owns Allotment society.`).waitFor();
    expect((await call(web.url, 'GET', `/servers/${server.id}`, { auth: owner.auth })).body.ownerId).toBe(heir.id);
    // Still able to edit the server through the role, but transfer and delete are gone.
    await page.getByRole('heading', { name: 'Delete server' }).waitFor({ state: 'detached' });
    expect(await page.getByRole('heading', { name: 'Transfer ownership' }).count()).toBe(0);
    await page.getByLabel('Server name').waitFor();
    expect(await page.getByRole('link', { name: 'Bots' }).count()).toBe(0);
    noPageErrors(o);

    // The new owner, on a phone-sized screen in the dark: deleting asks for the name first.
    const h = await open(heir, `/s/${server.id}/settings/overview`, { colorScheme: 'dark', width: 390, height: 844 });
    const hp = h.page;
    const confirmField = hp.getByLabel('Type the server’s name to confirm');
    await confirmField.scrollIntoViewIfNeeded();
    const del = hp.getByRole('button', { name: 'Delete server' });
    await confirmField.fill('Allotment');
    expect(await del.isDisabled()).toBe(true);
    await confirmField.fill('Allotment society');
    await screenshot(hp, 'settings-overview-delete-390-dark');
    await del.click();
    await hp.waitForURL(`${web.url}/`);
    expect((await call(web.url, 'GET', `/servers/${server.id}`, { auth: heir.auth })).status).toBe(404);
    noPageErrors(h);
  }, 60_000);
});

describe('server settings: bans', () => {
  it('lists bans with their reason, searches them, unbans, and shows a new ban at once', async () => {
    const owner = await registerUser(web.url);
    const mod = await registerUser(web.url);
    const spammer = await registerUser(web.url);
    const troll = await registerUser(web.url);
    const flooder = await registerUser(web.url);
    const { server } = await createServer(web.url, owner, 'Quiet place');
    for (const u of [mod, spammer, troll, flooder]) await joinServer(web.url, owner, u, server.id);
    await giveRole(owner, server.id, mod, 'Moderators', BAN_MEMBERS);
    await ban(owner, server.id, spammer, 'spamming links');
    await ban(owner, server.id, troll, 'insults in #general');

    const o = await open(owner, `/s/${server.id}/settings/bans`);
    const { page } = o;
    const rows = page.locator('li[data-user-id]');
    const row = (u: TestUser) => page.locator(`li[data-user-id="${u.id}"]`);
    await row(spammer).waitFor();
    expect(await row(spammer).textContent()).toContain('spamming links');
    expect(await row(troll).textContent()).toContain('insults in #general');
    expect(await rows.count()).toBe(2);
    await screenshot(page, 'settings-bans');

    // Search by name.
    await page.getByLabel('Search bans').fill(troll.name);
    await row(spammer).waitFor({ state: 'detached' });
    expect(await rows.count()).toBe(1);
    await page.getByLabel('Search bans').fill('');
    await row(spammer).waitFor();

    // Unban, confirmed.
    await row(spammer)
      .getByRole('button', { name: `Unban ${spammer.name}` })
      .click();
    const dialog = page.getByRole('dialog', { name: 'Unban' });
    expect(await dialog.textContent()).toContain('join Quiet place again');
    await dialog.getByRole('button', { name: 'Unban' }).click();
    await row(spammer).waitFor({ state: 'detached' });
    const bans = async () =>
      ((await call(web.url, 'GET', `/servers/${server.id}/bans`, { auth: owner.auth })).body as { user: { id: string } }[]).map(
        (b) => b.user.id,
      );
    expect(await bans()).toEqual([troll.id]);

    // A ban by the moderator, elsewhere, appears here at once, and its reason follows.
    await ban(mod, server.id, flooder, 'flooding the channel');
    await row(flooder).waitFor();
    await row(flooder).getByText('flooding the channel').waitFor();

    // Unbanning the rest leaves the empty state.
    for (const u of [troll, flooder]) {
      await row(u)
        .getByRole('button', { name: `Unban ${u.name}` })
        .click();
      await page.getByRole('dialog', { name: 'Unban' }).getByRole('button', { name: 'Unban' }).click();
      await row(u).waitFor({ state: 'detached' });
    }
    await page.getByText('No one is banned').waitFor();
    expect(await bans()).toEqual([]);
    noPageErrors(o);
  }, 60_000);
});

describe('server settings: audit log', () => {
  it('reads as sentences, filters by action and by person, pages, and stays hidden without View audit log', async () => {
    const owner = await registerUser(web.url);
    const mod = await registerUser(web.url);
    const rude = await registerUser(web.url);
    const plain = await registerUser(web.url);
    const { server } = await createServer(web.url, owner, 'Logged');
    for (const u of [mod, rude, plain]) await joinServer(web.url, owner, u, server.id);
    // Enough older entries for a second page.
    for (let i = 0; i < 50; i++) {
      const r = await call(web.url, 'POST', `/servers/${server.id}/invites`, { auth: owner.auth });
      expect(r.status).toBe(201);
    }
    const role = await giveRole(owner, server.id, mod, 'Moderators', KICK_MEMBERS | VIEW_AUDIT_LOG);
    const channel = await call(web.url, 'POST', `/servers/${server.id}/channels`, { auth: owner.auth, body: { name: 'announcements' } });
    expect(channel.status).toBe(201);
    const kick = await call(web.url, 'DELETE', `/servers/${server.id}/members/${rude.id}`, {
      auth: mod.auth,
      headers: { 'X-Audit-Log-Reason': encodeURIComponent('being rude — twice') },
    });
    expect(kick.status, kick.text).toBe(204);
    const total = 3 + 50 + 3 + 1; // the joins' invites, the invites, role create + give + channel, the kick

    const o = await open(owner, `/s/${server.id}/settings/audit-log`);
    const { page } = o;
    await page.getByRole('heading', { name: 'Audit log', level: 2 }).waitFor();
    await entries(page).first().waitFor();
    const sentences = async () => (await entries(page).locator('p').allTextContents()).map((s) => s.trim());
    const first = await sentences();
    expect(first).toHaveLength(50);
    // Newest first, as sentences; the kicked member has left, and the entry recorded their name.
    expect(first.slice(0, 4)).toEqual([
      `${mod.name} kicked ${rude.name} — being rude — twice`,
      `${owner.name} created channel #announcements`,
      `${owner.name} gave Moderators to ${mod.name}`,
      `${owner.name} created role Moderators`,
    ]);
    expect(first[4]).toBe(`${owner.name} created an invite`);

    // What changed, on request.
    const created = entries(page).filter({ hasText: 'created role Moderators' });
    await created.getByText('Changes').click();
    const detail = created.locator('dl');
    await detail.waitFor();
    expect(await detail.textContent()).toContain('Moderators');
    expect(await detail.textContent()).toContain('See the audit log');
    await screenshot(page, 'settings-audit-log');

    // Paging: the rest arrive with "Load more", which then goes away.
    await page.getByRole('button', { name: 'Load more' }).click();
    await expect.poll(() => entries(page).count()).toBe(total);
    await page.getByRole('button', { name: 'Load more' }).waitFor({ state: 'detached' });

    // Filter by action.
    await page.getByLabel('Action', { exact: true }).selectOption({ label: 'Member kicked' });
    await expect.poll(() => entries(page).count()).toBe(1);
    expect(await entries(page).getAttribute('data-action')).toBe('member_kick');
    await page.getByLabel('Action', { exact: true }).selectOption({ label: 'Channel created' });
    await expect.poll(sentences).toEqual([`${owner.name} created channel #announcements`]);

    // Filter by person: the moderator did one thing; with "all actions" the owner did the rest.
    await page.getByLabel('Action', { exact: true }).selectOption({ label: 'All actions' });
    await page.getByLabel('Done by').selectOption({ label: mod.name });
    await expect.poll(sentences).toEqual([`${mod.name} kicked ${rude.name} — being rude — twice`]);
    await page.getByLabel('Done by').selectOption({ label: owner.name });
    await expect.poll(() => entries(page).count()).toBe(50);
    expect((await sentences()).every((s) => s.startsWith(`${owner.name} `))).toBe(true);
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await expect.poll(async () => (await sentences())[0]).toBe(`${mod.name} kicked ${rude.name} — being rude — twice`);
    noPageErrors(o);

    // The moderator holds View audit log through the role and sees it too.
    const m = await open(mod, `/s/${server.id}/settings/audit-log`);
    await m.page.getByRole('link', { name: 'Audit log' }).waitFor();
    await entries(m.page).first().waitFor();
    expect(role.name).toBe('Moderators');

    // A member without it (and without any other management permission) reaches no
    // settings at all, even typing the address.
    const p = await open(plain, `/s/${server.id}/settings/audit-log`);
    await p.page.getByRole('heading', { name: 'Not available' }).waitFor();
    expect(await p.page.getByRole('link', { name: 'Audit log' }).count()).toBe(0);
    expect(await p.page.getByRole('heading', { name: 'Audit log' }).count()).toBe(0);
    expect(await entries(p.page).count()).toBe(0);
    noPageErrors(p);
  }, 60_000);
});

describe('server settings: bots', () => {
  it('adds one of "Your bots" with chosen permissions; by id, a private bot of someone else is refused and a public one added', async () => {
    const owner = await registerUser(web.url);
    const stranger = await registerUser(web.url);
    const { server } = await createServer(web.url, owner, 'Bot yard');
    await createBot(web.url, owner, 'Greeter');
    const helper = await createBot(web.url, owner, 'Helper');
    const secret = await createBot(web.url, stranger, 'Secretive');
    const open_ = await createBot(web.url, stranger, 'Openbot');
    const pub = await call(web.url, 'PATCH', `/bots/${open_.id}`, { auth: stranger.auth, body: { public: true } });
    expect(pub.status, pub.text).toBe(200);
    const members = async () =>
      (
        (await call(web.url, 'GET', `/servers/${server.id}/members`, { auth: owner.auth })).body as {
          id: string;
          permissions?: string[];
        }[]
      ).filter((m) => m.permissions);

    const o = await open(owner, `/s/${server.id}/settings/bots`);
    const { page } = o;
    const card = page.locator(`li[data-my-bot-id="${helper.id}"]`);
    await card.waitFor();
    expect(await page.locator('li[data-my-bot-id]').count()).toBe(2);
    await screenshot(page, 'settings-bots-yours');
    await card.getByRole('button', { name: 'Add to server' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add Helper' });
    await dialog.getByLabel('Attach files').uncheck();
    await dialog.getByLabel('Add reactions').uncheck();
    await dialog.getByRole('button', { name: 'Add bot' }).click();
    await card.getByText('Already in this server').waitFor();
    await page.locator(`li[data-bot-id="${helper.id}"]`).waitFor();
    expect((await members()).map((m) => [m.id, m.permissions?.slice().sort()])).toEqual([[helper.id, ['READ_MESSAGES', 'SEND_MESSAGES']]]);
    // "Send messages" includes embeds, as a bot's replies need (docs/permissions.md, "Bots").
    const roles = (await call(web.url, 'GET', `/servers/${server.id}/roles`, { auth: owner.auth })).body as {
      managed: boolean;
      permissions: string;
    }[];
    const EMBED_LINKS = 1n << 14n;
    expect(roles.filter((r) => r.managed).map((r) => (BigInt(r.permissions) & EMBED_LINKS) !== 0n)).toEqual([true]);

    // Someone else's private bot: the server's refusal, next to the field.
    const byId = page.getByRole('form', { name: 'Add a public bot by id' });
    await byId.getByLabel('Bot id').fill(secret.id);
    await byId.getByRole('button', { name: 'Add bot by id' }).click();
    const refusal = byId.getByRole('alert');
    await refusal.waitFor();
    expect(await refusal.textContent()).toContain('Only its owner can add this bot (it is not public)');
    expect((await members()).map((m) => m.id)).toEqual([helper.id]);
    await screenshot(page, 'settings-bots-refused');

    // Their public bot is welcome.
    await byId.getByLabel('Bot id').fill(open_.id);
    await byId.getByRole('button', { name: 'Add bot by id' }).click();
    await page.locator(`li[data-bot-id="${open_.id}"]`).waitFor();
    expect(await refusal.count()).toBe(0);
    expect((await members()).map((m) => m.id).sort()).toEqual([helper.id, open_.id].sort());
    noPageErrors(o);

    // An owner with no bots is sent to "My bots" to make one.
    const newcomer = await registerUser(web.url);
    const { server: theirs } = await createServer(web.url, newcomer, 'Empty yard');
    const n = await open(newcomer, `/s/${theirs.id}/settings/bots`);
    await n.page.getByText('You have no bots yet').waitFor();
    await n.page.getByRole('main').getByRole('link', { name: 'My bots' }).click();
    await n.page.waitForURL(`${web.url}/my-bots`);
    noPageErrors(n);
  }, 60_000);
});
