/**
 * The Roles section of server settings in a real browser against a real Parley: create,
 * colour, hoist and permissions (checked through the API), reorder by keyboard and by drag,
 * delete with a confirmation; the role hierarchy for a member who manages roles; the tab
 * hidden without MANAGE_ROLES; and changes made elsewhere arriving live.
 * Screenshots land in test-results/web/.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { addBot, call, createBot, createServer, joinServer, registerUser, type TestUser } from '../factories.js';
import { browserSuite, screenshot } from './browser.js';

const MANAGE_MESSAGES = 1n << 13n;
const MANAGE_ROLES = 1n << 28n;
const CREATE_INVITE = 1n;

const web = browserSuite();

async function open(user: TestUser, path: string, opts: { colorScheme?: 'light' | 'dark'; width?: number; height?: number } = {}) {
  const o = await web.open({ token: user.token, path, height: 900, ...opts });
  return o;
}

interface ApiRole {
  id: string;
  name: string;
  position: number;
  color: number;
  hoist: boolean;
  mentionable: boolean;
  permissions: string;
}

async function rolesOf(user: TestUser, serverId: string): Promise<ApiRole[]> {
  const r = await call<ApiRole[]>(web.url, 'GET', `/servers/${serverId}/roles`, { auth: user.auth });
  expect(r.status, r.text).toBe(200);
  return r.body;
}

/** Role names, highest first, `@everyone` left out. */
async function order(user: TestUser, serverId: string): Promise<string[]> {
  return (await rolesOf(user, serverId))
    .filter((r) => r.id !== serverId)
    .sort((a, b) => b.position - a.position)
    .map((r) => r.name);
}

async function apiRole(owner: TestUser, serverId: string, name: string, permissions = 0n): Promise<ApiRole> {
  const r = await call<ApiRole>(web.url, 'POST', `/servers/${serverId}/roles`, {
    auth: owner.auth,
    body: { name, permissions: permissions.toString() },
  });
  expect(r.status, r.text).toBe(201);
  return r.body;
}

/** The role list's rows, by the names they show, top to bottom. */
async function shownOrder(page: Page): Promise<string[]> {
  return page.getByRole('list', { name: 'Roles, highest first' }).locator('li [data-role-name]').allInnerTexts();
}

function row(page: Page, name: string) {
  return page
    .getByRole('list', { name: 'Roles, highest first' })
    .locator('li')
    .filter({ has: page.getByRole('button', { name: new RegExp(`^${name}\\b`) }) });
}

/** Drags a role's handle so that the role lands just above `target`'s row. */
async function dragAbove(page: Page, name: string, target: string, midway?: () => Promise<unknown>) {
  const handle = page.getByRole('button', { name: `Move ${name}`, exact: true });
  const from = await handle.boundingBox();
  const to = await row(page, target).boundingBox();
  if (!from || !to) throw new Error('rows not laid out');
  const x = from.x + from.width / 2;
  await page.mouse.move(x, from.y + from.height / 2);
  await page.mouse.down();
  await page.mouse.move(x, to.y + 4, { steps: 12 });
  await midway?.();
  await page.mouse.up();
}

describe('roles settings', { timeout: 90_000 }, () => {
  it('owner creates a role, sets colour, hoist and permissions, reorders it by keyboard and by drag, and deletes one', async () => {
    const owner = await registerUser(web.url);
    const { server } = await createServer(web.url, owner, 'Role play');
    // Two roles to move among: Senior (2) above Junior (1).
    await apiRole(owner, server.id, 'Senior');
    await apiRole(owner, server.id, 'Junior');
    expect(await order(owner, server.id)).toEqual(['Senior', 'Junior']);

    const o = await open(owner, `/s/${server.id}/settings/roles`);
    const { page } = o;
    await page.getByRole('heading', { name: 'Roles', exact: true }).waitFor();
    await row(page, '@everyone').waitFor();

    // Create: the dialog asks for a name; the new role lands just above @everyone and opens.
    await page.getByRole('button', { name: 'Create role' }).click();
    await page.getByRole('dialog').getByLabel('Role name').fill('Moderators');
    await page.getByRole('dialog').getByRole('button', { name: 'Create role' }).click();
    await page.getByRole('heading', { name: 'Moderators: role settings' }).waitFor();
    expect(await order(owner, server.id)).toEqual(['Senior', 'Junior', 'Moderators']);
    expect(await shownOrder(page)).toEqual(['Senior', 'Junior', 'Moderators', '@everyone']);

    // Colour, hoist, a permission: nothing is sent until "Save changes".
    await page.getByTitle('Blue', { exact: true }).click();
    expect(await page.getByRole('radio', { name: 'Blue' }).isChecked()).toBe(true);
    await page.getByRole('switch', { name: 'Show members separately in the member list' }).check();
    await page.getByRole('switch', { name: 'Delete other people’s messages' }).check();
    await page.getByText('Careful — you have unsaved changes!').waitFor();
    let mods = (await rolesOf(owner, server.id)).find((r) => r.name === 'Moderators');
    expect(mods).toMatchObject({ color: 0, hoist: false, permissions: '0' });
    await page.locator('main').evaluate((el) => el.scrollTo(0, 0));
    await screenshot(page, 'settings-roles-editing');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Careful — you have unsaved changes!').waitFor({ state: 'detached' });
    mods = (await rolesOf(owner, server.id)).find((r) => r.name === 'Moderators');
    expect(mods).toMatchObject({ color: 0x3498db, hoist: true, mentionable: false });
    expect(BigInt(mods?.permissions ?? '0')).toBe(MANAGE_MESSAGES);

    // Discard puts the form back and sends nothing.
    await page.getByRole('switch', { name: 'Allow anyone to @mention this role' }).check();
    await page.getByRole('button', { name: 'Discard changes' }).click();
    expect(await page.getByRole('switch', { name: 'Allow anyone to @mention this role' }).isChecked()).toBe(false);
    expect((await rolesOf(owner, server.id)).find((r) => r.name === 'Moderators')?.mentionable).toBe(false);

    // Keyboard: Alt+ArrowUp on the handle, announced; then move mode (Space, arrows, Space).
    const handle = page.getByRole('button', { name: 'Move Moderators', exact: true });
    await handle.focus();
    await page.keyboard.press('Alt+ArrowUp');
    await page.getByText('Moderators moved to position 2 of 3.').waitFor({ state: 'attached' });
    await expect.poll(() => order(owner, server.id)).toEqual(['Senior', 'Moderators', 'Junior']);
    await page.keyboard.press('Space');
    expect(await handle.getAttribute('aria-pressed')).toBe('true');
    await page.keyboard.press('ArrowUp');
    await page.getByText('Moderators moved to position 1 of 3.').waitFor({ state: 'attached' });
    // Focus stays on the handle as the row moves, so the next key still moves it.
    expect(await handle.evaluate((el) => el === (globalThis as any).document.activeElement)).toBe(true);
    await page.keyboard.press('Space');
    expect(await handle.getAttribute('aria-pressed')).toBe('false');
    await expect.poll(() => order(owner, server.id)).toEqual(['Moderators', 'Senior', 'Junior']);
    // Arrows without Alt outside move mode do nothing.
    await page.keyboard.press('ArrowDown');
    expect(await order(owner, server.id)).toEqual(['Moderators', 'Senior', 'Junior']);
    // Down and back up: focus survives the row moving down too.
    await page.keyboard.press('Alt+ArrowDown');
    await page.getByText('Moderators moved to position 2 of 3.').waitFor({ state: 'attached' });
    expect(await handle.evaluate((el) => el === (globalThis as any).document.activeElement)).toBe(true);
    await page.keyboard.press('Alt+ArrowUp');
    await page.getByText('Moderators moved to position 1 of 3.').waitFor({ state: 'attached' });
    await expect.poll(() => order(owner, server.id)).toEqual(['Moderators', 'Senior', 'Junior']);

    // The rows are measured for the drag: first the list must show what the server holds.
    await expect.poll(() => shownOrder(page)).toEqual(['Moderators', 'Senior', 'Junior', '@everyone']);
    // Drag: Junior's handle onto Moderators' row puts Junior on top.
    await dragAbove(page, 'Junior', 'Moderators', () => screenshot(page, 'settings-roles-dragging'));
    await expect.poll(() => order(owner, server.id)).toEqual(['Junior', 'Moderators', 'Senior']);
    await expect.poll(() => shownOrder(page)).toEqual(['Junior', 'Moderators', 'Senior', '@everyone']);
    // And down again, to just above @everyone.
    await dragAbove(page, 'Junior', '@everyone');
    await expect.poll(() => order(owner, server.id)).toEqual(['Moderators', 'Senior', 'Junior']);
    const positions = (await rolesOf(owner, server.id)).map((r) => r.position).sort();
    expect(positions).toEqual([0, 1, 2, 3]);

    // @everyone cannot be moved or deleted.
    expect(await page.getByRole('button', { name: 'Move @everyone' }).count()).toBe(0);
    await row(page, '@everyone').getByRole('button').click();
    await page.getByRole('heading', { name: '@everyone: role settings' }).waitFor();
    expect(await page.getByRole('button', { name: 'Delete role' }).count()).toBe(0);
    expect(await page.getByLabel('Role name').count()).toBe(0);

    // Delete, with a confirmation: Cancel keeps it, "Delete role" removes it.
    await row(page, 'Senior')
      .getByRole('button', { name: /^Senior/ })
      .click();
    await page.getByRole('heading', { name: 'Senior: role settings' }).waitFor();
    await page.getByRole('button', { name: 'Delete role' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('Delete the role Senior?').waitFor();
    await screenshot(page, 'settings-roles-delete-confirm');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect(await order(owner, server.id)).toContain('Senior');
    await page.getByRole('button', { name: 'Delete role' }).click();
    await dialog.getByRole('button', { name: 'Delete role' }).click();
    await page.getByText('Deleted the role Senior.').waitFor();
    expect(await order(owner, server.id)).toEqual(['Moderators', 'Junior']);
    await expect.poll(() => shownOrder(page)).toEqual(['Moderators', 'Junior', '@everyone']);
    await page.getByRole('heading', { name: 'Choose a role to edit' }).waitFor();
    expect(o.errors).toEqual([]);
  });

  it('a member who manages roles edits those below theirs; their own and higher ones are locked, and refusals are shown', async () => {
    const owner = await registerUser(web.url);
    const member = await registerUser(web.url);
    const { server } = await createServer(web.url, owner, 'Hierarchy');
    await joinServer(web.url, owner, member, server.id);
    // Created bottom-up at position 1 each: Admins (3) > Mods (2) > Helpers (1).
    await apiRole(owner, server.id, 'Admins');
    const mods = await apiRole(owner, server.id, 'Mods', MANAGE_ROLES | MANAGE_MESSAGES);
    const helpers = await apiRole(owner, server.id, 'Helpers');
    expect(await order(owner, server.id)).toEqual(['Admins', 'Mods', 'Helpers']);
    const give = await call(web.url, 'PUT', `/servers/${server.id}/members/${member.id}/roles/${mods.id}`, { auth: owner.auth });
    expect(give.status, give.text).toBe(204);

    const o = await open(member, `/s/${server.id}/settings`, { colorScheme: 'dark', width: 390, height: 844 });
    const { page } = o;
    await page.getByRole('link', { name: 'Roles', exact: true }).click();
    await page.getByRole('heading', { name: 'Roles', exact: true }).waitFor();
    await page.getByText('Your highest role is').waitFor();

    // Only Helpers has a handle; Mods (theirs) and Admins are marked as out of reach.
    await page.getByRole('button', { name: 'Move Helpers', exact: true }).waitFor();
    expect(await page.getByRole('button', { name: 'Move Mods', exact: true }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Move Admins', exact: true }).count()).toBe(0);
    await page.getByRole('button', { name: /^Mods.*above what you can change/ }).waitFor();
    // Mods shows its one member.
    await row(page, 'Mods').getByText('1 member').waitFor({ state: 'attached' });

    // Their own role: read-only, explained.
    await page.getByRole('button', { name: /^Mods/ }).click();
    await page.getByRole('heading', { name: 'Mods: role settings' }).waitFor();
    await page.getByRole('note').filter({ hasText: 'You can only change roles below your highest role.' }).waitFor();
    expect(await page.getByLabel('Role name').isDisabled()).toBe(true);
    expect(await page.getByRole('switch', { name: 'Delete other people’s messages' }).isDisabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'Delete role' }).isDisabled()).toBe(true);
    await screenshot(page, 'settings-roles-member-locked-390-dark');

    // Helpers, below theirs: editable, but only with permissions they hold.
    await page.getByRole('button', { name: /^Helpers/ }).click();
    await page.getByRole('heading', { name: 'Helpers: role settings' }).waitFor();
    expect(await page.getByLabel('Role name').isDisabled()).toBe(false);
    expect(await page.getByRole('switch', { name: 'Ban members' }).isDisabled()).toBe(true);
    expect(await page.getByRole('switch', { name: 'Manage the server' }).isDisabled()).toBe(true);
    expect(await page.getByRole('switch', { name: 'Administrator' }).isDisabled()).toBe(true);
    const deleteMessages = page.getByRole('switch', { name: 'Delete other people’s messages' });
    expect(await deleteMessages.isDisabled()).toBe(false);
    await deleteMessages.check();
    await page.getByText('Careful — you have unsaved changes!').waitFor();
    await page.getByRole('button', { name: 'Save changes' }).scrollIntoViewIfNeeded();
    await screenshot(page, 'settings-roles-member-editing-390-dark');

    // Meanwhile the owner takes MANAGE_MESSAGES from Mods: the switch locks live, and
    // the pending grant is refused by the service with a readable reason.
    const cut = await call(web.url, 'PATCH', `/servers/${server.id}/roles/${mods.id}`, {
      auth: owner.auth,
      body: { permissions: MANAGE_ROLES.toString() },
    });
    expect(cut.status, cut.text).toBe(200);
    await expect.poll(() => deleteMessages.isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: /Not saved: .*cannot grant permissions you do not have: MANAGE_MESSAGES/ })
      .waitFor();
    expect(BigInt((await rolesOf(owner, server.id)).find((r) => r.id === helpers.id)?.permissions ?? '-1')).toBe(0n);
    await page.getByRole('button', { name: 'Discard changes' }).click();

    // What they hold goes through: rename Helpers and let it invite people.
    await page.getByLabel('Role name').fill('Greeters');
    await page.getByRole('switch', { name: 'Invite people' }).check();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Saved Greeters.').waitFor();
    const after = (await rolesOf(owner, server.id)).find((r) => r.id === helpers.id);
    expect(after?.name).toBe('Greeters');
    expect(BigInt(after?.permissions ?? '0')).toBe(CREATE_INVITE);

    // Moving Greeters up is stopped below their own role, and the service agrees.
    const handle = page.getByRole('button', { name: 'Move Greeters', exact: true });
    await handle.focus();
    await page.keyboard.press('Alt+ArrowUp');
    await page.getByText(/Greeters cannot go higher/).waitFor({ state: 'attached' });
    expect(await order(owner, server.id)).toEqual(['Admins', 'Mods', 'Greeters']);
    const refused = await call(web.url, 'PATCH', `/servers/${server.id}/roles/${helpers.id}`, {
      auth: member.auth,
      body: { position: 2 },
    });
    expect(refused.status).toBe(403);
    expect(refused.text).toMatch(/role_hierarchy/);
    expect(o.errors).toEqual([]);
  });

  it('a member without MANAGE_ROLES has no Roles tab', async () => {
    const owner = await registerUser(web.url);
    const member = await registerUser(web.url);
    const { server } = await createServer(web.url, owner, 'No roles for you');
    await joinServer(web.url, owner, member, server.id);
    const o = await open(member, `/s/${server.id}/settings/roles`);
    const { page } = o;
    // @everyone manages nothing: settings are not available at all.
    await page.getByRole('heading', { name: 'Not available' }).waitFor();
    expect(await page.getByRole('link', { name: 'Roles', exact: true }).count()).toBe(0);
    expect(await page.getByRole('heading', { name: 'Roles', exact: true }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Create role' }).count()).toBe(0);
    // The service agrees.
    const r = await call(web.url, 'POST', `/servers/${server.id}/roles`, { auth: member.auth, body: { name: 'Sneaky' } });
    expect(r.status).toBe(403);
    expect(o.errors).toEqual([]);
  });

  it('changes made in another session arrive live', async () => {
    const owner = await registerUser(web.url);
    const { server } = await createServer(web.url, owner, 'Live roles');
    const first = await apiRole(owner, server.id, 'First');
    const o = await open(owner, `/s/${server.id}/settings/roles`);
    const { page } = o;
    await row(page, 'First')
      .getByRole('button', { name: /^First/ })
      .click();
    await page.getByRole('heading', { name: 'First: role settings' }).waitFor();

    // Created elsewhere: it appears (just above @everyone).
    await apiRole(owner, server.id, 'Second');
    await expect.poll(() => shownOrder(page)).toEqual(['First', 'Second', '@everyone']);

    // Renamed, recoloured and given a permission elsewhere: the open editor follows.
    const patched = await call(web.url, 'PATCH', `/servers/${server.id}/roles/${first.id}`, {
      auth: owner.auth,
      body: { name: 'Renamed', color: 0xe74c3c, permissions: MANAGE_MESSAGES.toString() },
    });
    expect(patched.status, patched.text).toBe(200);
    await page.getByRole('heading', { name: 'Renamed: role settings' }).waitFor();
    expect(await page.getByLabel('Role name').inputValue()).toBe('Renamed');
    expect(await page.getByRole('radio', { name: 'Red' }).isChecked()).toBe(true);
    await expect.poll(() => page.getByRole('switch', { name: 'Delete other people’s messages' }).isChecked()).toBe(true);

    // Moved elsewhere: the list reorders.
    const second = (await rolesOf(owner, server.id)).find((r) => r.name === 'Second');
    await call(web.url, 'PATCH', `/servers/${server.id}/roles/${second?.id}`, { auth: owner.auth, body: { position: 2 } });
    await expect.poll(() => shownOrder(page)).toEqual(['Second', 'Renamed', '@everyone']);

    // Deleted elsewhere: it goes, and the editor with it.
    await call(web.url, 'DELETE', `/servers/${server.id}/roles/${first.id}`, { auth: owner.auth });
    await expect.poll(() => shownOrder(page)).toEqual(['Second', '@everyone']);
    await page.getByRole('heading', { name: 'Choose a role to edit' }).waitFor();

    // A bot added elsewhere brings its managed role: marked, editable, not deletable.
    const bot = await createBot(web.url, owner, 'Robo');
    await addBot(web.url, owner, server.id, bot.id);
    const botRow = page.getByRole('button', { name: /^Robo.*managed by a bot/ });
    await botRow.click();
    await page.getByRole('heading', { name: 'Robo: role settings' }).waitFor();
    await page.getByText('1 member · managed by a bot').waitFor();
    expect(await page.getByRole('button', { name: 'Delete role' }).isDisabled()).toBe(true);
    expect(await page.getByRole('switch', { name: 'Add reactions' }).isDisabled()).toBe(false);
    await page.getByText('A bot’s own role goes when the bot is removed').waitFor();
    await page.locator('main').evaluate((el) => el.scrollTo(0, 0));
    await screenshot(page, 'settings-roles-live');
    expect(o.errors).toEqual([]);
  });
});
