/**
 * A channel's permissions editor ("make private", tri-state overwrites) and invites (expiry,
 * uses, revoke, the page that asks before joining) in a real browser (Debian's Chromium via
 * playwright-core) against a real Parley, each step checked against the API.
 * Screenshots land in test-results/web/.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { call, createChannel, createServer, joinServer, registerUser, type TestUser } from '../factories.js';
import { browserSuite, screenshot } from './browser.js';

const VIEW_CHANNEL = 1024n;
const SEND_MESSAGES = 2048n;
const READ_MESSAGE_HISTORY = 65536n;
const MANAGE_CHANNELS = 16n;
const MANAGE_ROLES = 268435456n;

const web = browserSuite();

async function open(user: TestUser | null, path: string, opts: { colorScheme?: 'light' | 'dark'; width?: number; height?: number } = {}) {
  const o = await web.open({ token: user?.token, path, ...opts });
  return o;
}

async function role(owner: TestUser, serverId: string, name: string, permissions: bigint, color = 0) {
  const r = await call(web.url, 'POST', `/servers/${serverId}/roles`, {
    auth: owner.auth,
    body: { name, permissions: permissions.toString(), color },
  });
  expect(r.status, r.text).toBe(201);
  return r.body as { id: string; name: string };
}

async function give(owner: TestUser, serverId: string, userId: string, roleId: string) {
  const r = await call(web.url, 'PUT', `/servers/${serverId}/members/${userId}/roles/${roleId}`, { auth: owner.auth });
  expect(r.status, r.text).toBe(204);
}

async function channelNames(user: TestUser, serverId: string): Promise<string[]> {
  const r = await call(web.url, 'GET', `/servers/${serverId}/channels`, { auth: user.auth });
  expect(r.status, r.text).toBe(200);
  return r.body.map((c: { name: string }) => c.name);
}

type Ow = { id: string; type: string; allow: string; deny: string };

async function overwrites(owner: TestUser, serverId: string, channelId: string): Promise<Ow[]> {
  const r = await call(web.url, 'GET', `/servers/${serverId}/channels`, { auth: owner.auth });
  return (r.body.find((c: { id: string }) => c.id === channelId)?.permissionOverwrites ?? []) as Ow[];
}

const has = (bits: string | undefined, flag: bigint) => (BigInt(bits ?? '0') & flag) === flag;

/** The sidebar's link to a channel (its name, plus " (private)" when it is). */
function channelLink(page: Page, name: string) {
  return page.getByRole('complementary', { name: /channels$/ }).getByRole('link', { name, exact: true });
}

async function members(owner: TestUser, serverId: string): Promise<string[]> {
  const r = await call(web.url, 'GET', `/servers/${serverId}/members`, { auth: owner.auth });
  return r.body.map((m: { id: string }) => m.id);
}

describe('channel permissions', () => {
  it('makes a channel private for a role: members lose it live, the role keeps it with a lock; tri-state overwrites saved and removed', async () => {
    const owner = await registerUser(web.url);
    const mod = await registerUser(web.url);
    const plain = await registerUser(web.url);
    const { server, general } = await createServer(web.url, owner, 'Lighthouse');
    const staff = await createChannel(web.url, owner, server.id, 'staff');
    await joinServer(web.url, owner, mod, server.id);
    await joinServer(web.url, owner, plain, server.id);
    const mods = await role(owner, server.id, 'Moderators', MANAGE_CHANNELS, 0x2e86de);
    await give(owner, server.id, mod.id, mods.id);

    // Both see #staff to begin with.
    const p = await open(plain, `/s/${server.id}/c/${general.id}`);
    const m = await open(mod, `/s/${server.id}/c/${general.id}`);
    await channelLink(p.page, 'staff').waitFor();
    await channelLink(m.page, 'staff').waitFor();

    // A moderator manages channels but not roles: no Permissions button for them.
    await m.page.goto(`${web.url}/s/${server.id}/settings/channels`);
    await m.page.getByLabel('Name of #staff').waitFor();
    expect(await m.page.getByRole('button', { name: 'Permissions of #staff' }).count()).toBe(0);

    const o = await open(owner, `/s/${server.id}/settings/channels`, { height: 1100 });
    const { page } = o;
    // The topic is edited here too.
    await page.getByLabel('Topic of #staff').fill('For the people who keep the light on');
    await page.getByRole('button', { name: 'Save topic' }).click();
    await page.getByText('Topic of #staff saved.').waitFor();
    const topic = (await call(web.url, 'GET', `/servers/${server.id}/channels`, { auth: owner.auth })).body.find(
      (c: { id: string }) => c.id === staff.id,
    ).topic;
    expect(topic).toBe('For the people who keep the light on');
    await screenshot(page, 'channels-section');

    await page.getByRole('button', { name: 'Permissions of #staff' }).click();
    await page.getByRole('heading', { name: 'Permissions for #staff' }).waitFor();
    const privateSwitch = page.getByRole('switch', { name: 'Private channel' });
    expect(await privateSwitch.getAttribute('aria-checked')).toBe('false');
    await privateSwitch.click();
    const dialog = page.getByRole('dialog', { name: 'Make #staff private' });
    await dialog.getByRole('checkbox', { name: 'Moderators' }).check();
    // The owner keeps access anyway: no note about adding themselves.
    expect(await dialog.getByRole('note').count()).toBe(0);
    await dialog.getByRole('button', { name: 'Make private' }).click();
    await page.getByText('#staff is now private.').waitFor();
    expect(await privateSwitch.getAttribute('aria-checked')).toBe('true');
    await page.getByRole('list', { name: 'Who can see #staff' }).getByText('Moderators').waitFor();

    // The API: @everyone is denied seeing it, Moderators allowed; a plain member no longer lists it.
    const ows = await overwrites(owner, server.id, staff.id);
    expect(has(ows.find((x) => x.id === server.id)?.deny, VIEW_CHANNEL)).toBe(true);
    expect(has(ows.find((x) => x.id === mods.id)?.allow, VIEW_CHANNEL)).toBe(true);
    expect(await channelNames(plain, server.id)).toEqual(['general']);
    expect(await channelNames(mod, server.id)).toEqual(['general', 'staff']);

    // Live: the plain member's sidebar drops #staff; the moderator's shows it with a lock.
    await channelLink(p.page, 'staff').waitFor({ state: 'detached' });
    await m.page.goto(`${web.url}/s/${server.id}/c/${general.id}`);
    const locked = channelLink(m.page, 'staff (private)');
    await locked.waitFor();
    expect(await locked.locator('svg').count()).toBe(1);
    await screenshot(m.page, 'channel-private-sidebar');

    // Tri-state: deny Moderators sending messages in #staff.
    await page
      .getByRole('navigation', { name: 'Roles and members with channel settings' })
      .getByRole('button', { name: 'Moderators' })
      .click();
    const send = page.getByRole('radiogroup', { name: 'Send messages', exact: true });
    expect(await send.getByRole('radio', { name: 'Inherit' }).isChecked()).toBe(true);
    await send.getByRole('radio', { name: 'Deny' }).check();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Saved Moderators’s permissions in #staff.').waitFor();
    const modOw = (await overwrites(owner, server.id, staff.id)).find((x) => x.id === mods.id);
    expect(modOw?.type).toBe('role');
    expect(has(modOw?.allow, VIEW_CHANNEL)).toBe(true);
    expect(has(modOw?.deny, SEND_MESSAGES)).toBe(true);
    expect(has(modOw?.allow, SEND_MESSAGES)).toBe(false);
    const posted = await call(web.url, 'POST', `/channels/${staff.id}/messages`, { auth: mod.auth, body: { content: 'hi' } });
    expect(posted.status).toBe(403);
    await page.getByRole('heading', { name: 'Permissions for #staff' }).scrollIntoViewIfNeeded();
    await screenshot(page, 'channel-permissions');

    // A member overwrite through "Add a role or member": saved, then removed.
    const plainName = plain.name;
    await page.getByLabel('Add a role or member').selectOption({ label: plainName });
    await page.getByRole('radiogroup', { name: 'Read earlier messages' }).getByRole('radio', { name: 'Deny' }).check();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText(`Saved ${plainName}’s permissions in #staff.`).waitFor();
    let plainOw = (await overwrites(owner, server.id, staff.id)).find((x) => x.id === plain.id);
    expect(plainOw).toMatchObject({ type: 'member' });
    expect(has(plainOw?.deny, READ_MESSAGE_HISTORY)).toBe(true);
    await page.getByRole('button', { name: `Remove the settings for ${plainName}` }).click();
    await page.getByRole('dialog', { name: 'Remove channel settings' }).getByRole('button', { name: 'Remove' }).click();
    await page.getByText(`Removed ${plainName}’s settings in #staff.`).waitFor();
    plainOw = (await overwrites(owner, server.id, staff.id)).find((x) => x.id === plain.id);
    expect(plainOw).toBeUndefined();

    // Another session's change shows in the open editor (CHANNEL_UPDATE): allow SEND for Moderators by API.
    await page
      .getByRole('navigation', { name: 'Roles and members with channel settings' })
      .getByRole('button', { name: 'Moderators' })
      .click();
    const put = await call(web.url, 'PUT', `/channels/${staff.id}/permissions/${mods.id}`, {
      auth: owner.auth,
      body: { type: 'role', allow: (VIEW_CHANNEL | SEND_MESSAGES).toString(), deny: '0' },
    });
    expect(put.status, put.text).toBe(204);
    await expect
      .poll(() => page.getByRole('radiogroup', { name: 'Send messages', exact: true }).getByRole('radio', { name: 'Allow' }).isChecked())
      .toBe(true);

    // Public again: the VIEW deny goes, the plain member gets #staff back live.
    await privateSwitch.click();
    await page.getByRole('dialog', { name: 'Make channel public' }).getByRole('button', { name: 'Make public' }).click();
    await page.getByText('#staff is now visible to everyone.').waitFor();
    expect(await channelNames(plain, server.id)).toEqual(['general', 'staff']);
    await channelLink(p.page, 'staff').waitFor();

    for (const x of [o, p, m]) expect(x.errors).toEqual([]);
  }, 90_000);

  it('someone who manages roles but is not an administrator keeps access to what they make private', async () => {
    const owner = await registerUser(web.url);
    const keeper = await registerUser(web.url);
    const { server } = await createServer(web.url, owner, 'Keepers');
    const ops = await createChannel(web.url, owner, server.id, 'ops');
    await joinServer(web.url, owner, keeper, server.id);
    const r = await role(owner, server.id, 'Keepers', MANAGE_ROLES);
    await give(owner, server.id, keeper.id, r.id);

    const o = await open(keeper, `/s/${server.id}/settings/channels`, { colorScheme: 'dark', width: 390, height: 900 });
    const { page } = o;
    // Managing roles alone: no create, rename or delete, but Permissions.
    expect(await page.getByLabel('New channel name').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Delete #ops' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Permissions of #ops' }).click();
    await page.getByRole('switch', { name: 'Private channel' }).click();
    const dialog = page.getByRole('dialog', { name: 'Make #ops private' });
    // Their own role is not below their highest role: it cannot be chosen, and they are added themselves.
    expect(await dialog.getByRole('checkbox', { name: /Keepers/ }).isDisabled()).toBe(true);
    await dialog.getByRole('note').getByText('you will be added yourself').waitFor();
    await screenshot(page, 'channel-make-private-dark');
    await dialog.getByRole('button', { name: 'Make private' }).click();
    await page.getByText('#ops is now private.').waitFor();
    await page.getByRole('list', { name: 'Who can see #ops' }).getByText('(you)').waitFor();
    await screenshot(page, 'channel-permissions-390-dark');

    const ows = await overwrites(owner, server.id, ops.id);
    expect(has(ows.find((x) => x.id === server.id)?.deny, VIEW_CHANNEL)).toBe(true);
    expect(ows.find((x) => x.id === keeper.id)).toMatchObject({ type: 'member' });
    expect(has(ows.find((x) => x.id === keeper.id)?.allow, VIEW_CHANNEL)).toBe(true);
    expect(await channelNames(keeper, server.id)).toContain('ops');
    expect(o.errors).toEqual([]);
  }, 40_000);
});

describe('invites', () => {
  it('1 use and 1 hour: listed, asked before joining, then used up; another is revoked', async () => {
    const owner = await registerUser(web.url);
    const guest = await registerUser(web.url);
    const third = await registerUser(web.url);
    const { server } = await createServer(web.url, owner, 'Harbour');

    const o = await open(owner, `/s/${server.id}/settings/invites`);
    const { page } = o;
    await page.getByLabel('Expire after').selectOption({ label: '1 hour' });
    await page.getByLabel('Max uses').selectOption({ label: '1 use' });
    await page.getByRole('button', { name: 'Create invite link' }).click();
    const link = await page.getByLabel('New invite link', { exact: true }).inputValue();
    const code = new URL(link).pathname.split('/').pop() as string;
    const row = page.locator(`tr[data-invite="${code}"]`);
    await row.getByText('0 / 1').waitFor();
    await row.getByText('in 1 hour').waitFor();
    await row.getByRole('cell', { name: owner.name }).waitFor();
    const listed = (await call(web.url, 'GET', `/servers/${server.id}/invites`, { auth: owner.auth })).body.find(
      (i: { code: string }) => i.code === code,
    );
    expect(listed).toMatchObject({ maxUses: 1, maxAge: 3600, uses: 0 });
    await screenshot(page, 'invites-settings');

    // The guest sees where it leads, and is not a member until they say so.
    const g = await open(guest, new URL(link).pathname);
    await g.page.getByRole('heading', { name: 'You’ve been invited to join Harbour' }).waitFor();
    await g.page.getByText('1 member').waitFor();
    await g.page
      .getByRole('button', { name: 'No thanks' })
      .or(g.page.getByRole('link', { name: 'No thanks' }))
      .waitFor();
    await screenshot(g.page, 'invite-page');
    expect(await members(owner, server.id)).not.toContain(guest.id);
    await g.page.getByRole('button', { name: 'Join Harbour' }).click();
    await g.page.waitForURL(new RegExp(`/s/${server.id}`));
    await g.page.getByRole('heading', { name: 'Harbour' }).waitFor();
    expect(await members(owner, server.id)).toContain(guest.id);

    // Used up: a third person is told it no longer works, and stays out.
    const t = await open(third, new URL(link).pathname, { width: 390, height: 760, colorScheme: 'dark' });
    await t.page.getByRole('heading', { name: 'This invite no longer works' }).waitFor();
    expect(await t.page.getByRole('button', { name: /^Join/ }).count()).toBe(0);
    await screenshot(t.page, 'invite-page-used-up-390-dark');
    expect(await members(owner, server.id)).not.toContain(third.id);
    await page.reload();
    await row.getByText('1 / 1').waitFor();
    await row.getByText('used up').waitFor();

    // Revoke another: confirmed, then the code is gone.
    await page.getByRole('button', { name: 'Create invite link' }).click();
    const other = new URL(await page.getByLabel('New invite link', { exact: true }).inputValue()).pathname.split('/').pop() as string;
    expect(other).not.toBe(code);
    expect((await call(web.url, 'GET', `/invites/${other}`)).status).toBe(200);
    // Opened by a member (here the owner, in another tab): said so, with a way in; nothing joined.
    const again = await o.context.newPage();
    await again.goto(`${web.url}/invite/${other}`);
    await again.getByRole('heading', { name: 'You are already in Harbour' }).waitFor();
    await again.getByRole('link', { name: 'Open Harbour' }).waitFor();
    expect(await again.getByRole('button', { name: 'Join Harbour' }).count()).toBe(0);
    await again.close();
    await page.getByRole('button', { name: `Revoke invite ${other}` }).click();
    await page.getByRole('dialog', { name: 'Revoke invite' }).getByRole('button', { name: 'Revoke invite' }).click();
    await page.getByText('Invite revoked.').waitFor();
    await page.locator(`tr[data-invite="${other}"]`).waitFor({ state: 'detached' });
    expect((await call(web.url, 'GET', `/invites/${other}`)).status).toBe(404);

    for (const x of [o, g, t]) expect(x.errors).toEqual([]);
  }, 60_000);

  it('a member without Manage server invites from the sidebar with limits, may revoke their link, and reaches no settings', async () => {
    const owner = await registerUser(web.url);
    const member = await registerUser(web.url);
    const { server, general } = await createServer(web.url, owner, 'Open House');
    await joinServer(web.url, owner, member, server.id);

    const o = await open(member, `/s/${server.id}/c/${general.id}`);
    const { page } = o;
    // @everyone may create invites, not manage the server: no settings entry point.
    await page.getByRole('button', { name: 'Invite people' }).click();
    const dialog = page.getByRole('dialog', { name: 'Invite people to Open House' });
    await dialog.getByLabel('Expire after').selectOption({ label: '1 hour' });
    await dialog.getByLabel('Max uses').selectOption({ label: '1 use' });
    await dialog.getByRole('button', { name: 'Create invite link' }).click();
    const code = new URL(await dialog.getByLabel('Invite link', { exact: true }).inputValue()).pathname.split('/').pop() as string;
    const made = await call(web.url, 'GET', `/invites/${code}`);
    expect(made.status).toBe(200);
    const listed = await call(web.url, 'GET', `/servers/${server.id}/invites`, { auth: owner.auth });
    expect(listed.body.find((i: { code: string }) => i.code === code)).toMatchObject({ maxAge: 3600, maxUses: 1, inviterId: member.id });
    await screenshot(page, 'invites-member-dialog');
    await dialog.getByRole('button', { name: 'Revoke this link' }).click();
    await page.getByText('Invite revoked. The link no longer works.').waitFor();
    expect((await call(web.url, 'GET', `/invites/${code}`)).status).toBe(404);
    await dialog.getByRole('button', { name: 'Done' }).click();
    expect(await page.getByRole('link', { name: 'Server settings' }).count()).toBe(0);

    await page.goto(`${web.url}/s/${server.id}/settings/invites`);
    await page.getByRole('heading', { name: 'Not available' }).waitFor();
    expect(o.errors).toEqual([]);
  }, 40_000);

  it('a logged-out visitor is told which server the invite is for', async () => {
    const owner = await registerUser(web.url);
    const { server } = await createServer(web.url, owner, 'Night Owls');
    const code = (await call(web.url, 'POST', `/servers/${server.id}/invites`, { auth: owner.auth })).body.code as string;
    const o = await open(null, `/invite/${code}`, { width: 390, height: 800 });
    await o.page.getByText('You have been invited to join Night Owls.').waitFor();
    await screenshot(o.page, 'invite-logged-out-390');

    const gone = await open(null, '/invite/NoSuchInvite0000');
    await gone.page.getByText('This invite link no longer works').waitFor();
    expect(o.errors).toEqual([]);
  }, 40_000);
});
