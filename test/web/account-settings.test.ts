/**
 * Account settings and the registration page in a real browser (Debian's Chromium via
 * playwright-core) against real Parleys: display name, avatar, password, sessions,
 * deleting the account, and the register view of each REGISTRATION mode.
 * Screenshots land in test-results/web/.
 */
import { describe, expect, it } from 'vitest';
import { call, createServer, registerUser, type TestUser } from '../factories.js';
import { startServer } from '../harness.js';
import { browserSuite, makePng, screenshot, type OpenPage } from './browser.js';

const PASSWORD = 'correct horse battery';

const web = browserSuite();

async function open(base: string, user: TestUser | null, path = '/', height = 900) {
  const o = await web.open({ base, token: user?.token, path, height });
  openedOn.set(o, base);
  return o;
}

const openedOn = new Map<OpenPage, string>();

/** Closes the pages opened on `base`: before its server closes, which a live page would keep reconnecting to. */
async function closePages(base: string): Promise<void> {
  for (const [o, b] of openedOn) if (b === base) await o.context.close().catch(() => undefined);
}

async function anotherSession(u: TestUser, userAgent: string): Promise<string> {
  const r = await call(web.url, 'POST', '/auth/login', {
    body: { username: u.name, password: PASSWORD },
    headers: { 'user-agent': userAgent },
  });
  expect(r.status, r.text).toBe(200);
  return `Bearer ${r.body.token}`;
}

const status = async (auth: string) => (await call(web.url, 'GET', '/users/@me', { auth })).status;

describe('account settings', () => {
  it('reached from the user menu: display name, picture, password (rules shown first), sessions', async () => {
    const u = await registerUser(web.url);
    const { server, general } = await createServer(web.url, u, 'Home base');
    const phone = await anotherSession(u, 'Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 Chrome/126.0 Mobile Safari/537.36');
    const laptop = await anotherSession(u, 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) Gecko/20100101 Firefox/128.0');
    const o = await open(web.url, u, `/s/${server.id}/c/${general.id}`);
    const { page } = o;

    await page.getByRole('link', { name: 'Account settings' }).click();
    await page.getByRole('heading', { name: 'Profile' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/account');

    // Display name: saved, and the user panel follows.
    await page.getByLabel('Display name').fill('Ada Lovelace');
    await page.getByRole('button', { name: 'Save display name' }).click();
    await page.getByText('You now appear as Ada Lovelace.').waitFor();
    expect((await call(web.url, 'GET', '/users/@me', { auth: u.auth })).body).toMatchObject({
      displayName: 'Ada Lovelace',
      name: 'Ada Lovelace',
    });

    // Picture: upload, then PATCH; the avatar image shows.
    await page.locator('input[type=file]').setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: makePng(96, 96) });
    await page.getByText('Profile picture updated.').waitFor();
    const avatar = (await call(web.url, 'GET', '/users/@me', { auth: u.auth })).body.avatar as string;
    expect(avatar).toMatch(/\/uploads\/\d+\/[\w-]{43}\/me\.png$/);
    await page.locator(`main img[src="${avatar}"]`).waitFor();

    // The password rules are on the page before anything is submitted.
    await page.getByText(/Password rules:.*At least 8 characters/).waitFor();

    // Sessions: three, this browser marked; the Android one is ended alone.
    const rows = page.locator('tr[data-session-id]');
    await rows.nth(2).waitFor();
    expect(await rows.count()).toBe(3);
    await page.getByText('This browser', { exact: true }).waitFor();
    await page.getByText('Chrome on Android').waitFor();
    await page.getByText('Firefox on macOS').waitFor();
    await screenshot(page, 'account-settings');
    await page.locator('#sessions').scrollIntoViewIfNeeded();
    await screenshot(page, 'account-settings-sessions');
    await page.getByRole('button', { name: 'Log out the session on Chrome on Android' }).click();
    await page.getByText('Logged out Chrome on Android.').waitFor();
    expect(await status(phone)).toBe(401);
    expect(await status(laptop)).toBe(200);

    // A wrong current password is a readable message; nothing changes.
    await page.getByLabel('Current password').fill('not my password');
    await page.getByLabel('New password', { exact: true }).fill('a fresh secret 42');
    await page.getByLabel('New password again').fill('a fresh secret 42');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: /current password is wrong/i })
      .waitFor();
    expect(await status(laptop)).toBe(200);

    // The right one: the other session ends, this browser stays, the list shows one session.
    await page.getByLabel('Current password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('Password changed. You were logged out on your other devices.').waitFor();
    expect(await status(laptop)).toBe(401);
    expect(await status(u.auth)).toBe(200);
    await page.getByText('This browser is your only session.').waitFor();
    expect(o.errors).toEqual([]);
  });

  it('"Log out everywhere else" ends every other session after a confirmation', async () => {
    const u = await registerUser(web.url);
    const a = await anotherSession(u, 'curl/8.5.0');
    const b = await anotherSession(u, 'SomeBot/1.0');
    const o = await open(web.url, u, '/account#sessions');
    const { page } = o;
    await page.locator('tr[data-session-id]').nth(2).waitFor();
    await page.getByRole('button', { name: 'Log out everywhere else' }).click();
    await page.getByRole('dialog').getByText('End your 2 other sessions?').waitFor();
    await page.getByRole('dialog').getByRole('button', { name: 'Log out everywhere else' }).click();
    await page.getByText('Logged out everywhere else.').waitFor();
    expect(await status(a)).toBe(401);
    expect(await status(b)).toBe(401);
    expect(await status(u.auth)).toBe(200);
    expect(await page.locator('tr[data-session-id]').count()).toBe(1);
    expect(o.errors).toEqual([]);
  });

  it('deleting: explained while the person owns a server; otherwise confirmed with the password, then logged out', async () => {
    const owner = await registerUser(web.url);
    await createServer(web.url, owner, 'Still mine');
    const o = await open(web.url, owner, '/account#delete');
    const { page } = o;
    await page.getByRole('note').filter({ hasText: 'You own a server: Still mine' }).waitFor();
    await page.getByRole('button', { name: 'Delete account…' }).click();
    await page.getByLabel('Your password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Delete my account' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: /cannot be deleted/ })
      .waitFor();
    await screenshot(page, 'account-delete-owner');
    expect(await status(owner.auth)).toBe(200);

    const leaver = await registerUser(web.url);
    const l = await open(web.url, leaver, '/account');
    await l.page.getByRole('button', { name: 'Delete account…' }).click();
    await l.page.getByLabel('Your password').fill('wrong password');
    await l.page.getByRole('button', { name: 'Delete my account' }).click();
    await l.page
      .getByRole('alert')
      .filter({ hasText: /password is wrong/i })
      .waitFor();
    await l.page.getByLabel('Your password').fill(PASSWORD);
    await l.page.getByRole('button', { name: 'Delete my account' }).click();
    await l.page.getByText('Your account was deleted.').waitFor();
    await l.page.getByRole('heading', { name: 'Welcome back' }).waitFor();
    expect(await status(leaver.auth)).toBe(401);
    expect(o.errors).toEqual([]);
    expect(l.errors).toEqual([]);
  });
});

describe('the register view follows REGISTRATION', () => {
  it('open: a new visitor is greeted to create an account (not welcomed back), with the password rules shown', async () => {
    const o = await open(web.url, null, '/register');
    await o.page.getByRole('heading', { name: 'Create your account' }).waitFor();
    await o.page.getByText(/At least 8 characters/).waitFor();
    expect(await o.page.getByLabel('Invite code or link').count()).toBe(0);
    // A browser nobody has logged in from is not welcomed back on the login view either.
    await o.page.getByRole('link', { name: 'Log in' }).click();
    await o.page.getByRole('heading', { name: 'Log in to Parley' }).waitFor();
  });

  it('invite: the form asks for an invite; an invite link fills it in and the account is made', async () => {
    const inv = await startServer({ env: { RATE_LIMITS: 'off', REGISTRATION: 'invite' } });
    try {
      const owner = await registerUser(inv.url); // the first account needs no invite
      const { server } = await createServer(inv.url, owner, 'Invited');
      const code = (await call(inv.url, 'POST', `/servers/${server.id}/invites`, { auth: owner.auth })).body.code as string;

      const plain = await open(inv.url, null, '/register');
      await plain.page.getByText('This Parley takes new accounts by invitation').waitFor();
      await plain.page.getByLabel('Username').fill(`nocode${Date.now().toString(36)}`);
      await plain.page.getByLabel('Password').fill(PASSWORD);
      await plain.page.getByLabel('Invite code or link').fill('NotARealCode0000');
      await plain.page.getByRole('button', { name: 'Create account' }).click();
      await plain.page
        .getByRole('alert')
        .filter({ hasText: /invite code/i })
        .waitFor();
      await screenshot(plain.page, 'register-invite');

      const o = await open(inv.url, null, `/invite/${code}`);
      const { page } = o;
      await page.getByRole('heading', { name: 'Create your account' }).waitFor();
      expect(await page.getByLabel('Invite code or link').inputValue()).toBe(code);
      const name = `invited${Date.now().toString(36)}`;
      await page.getByLabel('Username').fill(name);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Create account' }).click();
      // Registered, then the invite page joins the server with the same code.
      await page.waitForURL(new RegExp(`/s/${server.id}`));
      await page.getByRole('heading', { name: 'Invited' }).waitFor();
      const login = await call(inv.url, 'POST', '/auth/login', { body: { username: name, password: PASSWORD } });
      expect(login.status).toBe(200);
      const servers = await call(inv.url, 'GET', '/servers', { auth: `Bearer ${login.body.token}` });
      expect(servers.body.map((x: { id: string }) => x.id)).toEqual([server.id]);
      expect(o.errors).toEqual([]);
    } finally {
      await closePages(inv.url);
      await inv.close();
    }
    // A server of its own and two pages: more than the default 20 s under the full suite's
    // load (its own waits still fail at 10 s each, with what they waited for).
  }, 45_000);

  it('closed: a clear message instead of the form; logging in still offered', async () => {
    const closed = await startServer({ env: { RATE_LIMITS: 'off', REGISTRATION: 'closed' } });
    try {
      await registerUser(closed.url);
      const o = await open(closed.url, null, '/register');
      await o.page.getByRole('heading', { name: 'Registration is closed' }).waitFor();
      await o.page.getByText('This Parley does not take new accounts.').waitFor();
      expect(await o.page.getByLabel('Password').count()).toBe(0);
      await screenshot(o.page, 'register-closed');
      await o.page.getByRole('link', { name: 'Log in' }).click();
      await o.page.getByRole('heading', { name: 'Log in to Parley' }).waitFor();
    } finally {
      await closePages(closed.url);
      await closed.close();
    }
  });
});
