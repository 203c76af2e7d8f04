/**
 * Search in the web client (docs/api.md#search): the box in the channel header, filters written as
 * `from:`/`in:`/`has:` and shown as chips (× removes one), results with their channel and
 * author, and Jump, which opens the channel at a message far up the history (not loaded
 * before) and flashes it. A message in a channel the viewer cannot read is never listed.
 * Real Chromium, real Parley; every wait is on the page or the API.
 */
import { describe, expect, it } from 'vitest';
import { call, createChannel, createServer, joinServer, postMessage, registerUser, type TestUser } from '../factories.js';
import { browserSuite, screenshot } from './browser.js';

const web = browserSuite();

async function open(user: TestUser, path: string, opts: { colorScheme?: 'light' | 'dark'; width?: number } = {}) {
  const o = await web.open({ token: user.token, path, height: 860, ...opts });
  return o;
}

const VIEW_CHANNEL = 1024n;

describe('search', () => {
  it('finds words with filters as chips, hides what the viewer cannot read, and jumps to a message far up the history', async () => {
    const owner = await registerUser(web.url, `olive_${Math.random().toString(36).slice(2, 6)}`);
    const bob = await registerUser(web.url, `bob_${Math.random().toString(36).slice(2, 6)}`);
    const { server, general } = await createServer(web.url, owner, 'Harbour');
    await joinServer(web.url, owner, bob, server.id);
    const ops = await createChannel(web.url, owner, server.id, 'ops');
    const secret = await createChannel(web.url, owner, server.id, 'secret');
    // #secret hidden from everyone but the owner.
    const hide = await call(web.url, 'PUT', `/channels/${secret.id}/permissions/${server.id}`, {
      auth: owner.auth,
      body: { type: 'role', allow: '0', deny: String(VIEW_CHANNEL) },
    });
    expect(hide.status, hide.text).toBe(204);

    const target = await postMessage(web.url, owner.auth, ops.id, 'the lighthouse generator needs diesel');
    for (let i = 0; i < 120; i++) await postMessage(web.url, owner.auth, ops.id, `log line ${i}`);
    await postMessage(web.url, bob.auth, general.id, 'is the lighthouse open today? https://example.com/hours');
    await postMessage(web.url, owner.auth, secret.id, 'lighthouse keys are under the mat');

    const { page, errors } = await open(bob, `/s/${server.id}/c/${general.id}`);
    const box = page.getByRole('searchbox', { name: 'Search Harbour' });
    await box.click();
    await page.getByText('Search options').waitFor();
    await box.fill('lighthouse');
    await box.press('Enter');
    const panel = page.getByRole('region', { name: /results?$/ });
    await panel.getByRole('heading', { name: '2 results' }).waitFor();
    // Newest first; #secret's message is not among them.
    expect(await panel.locator('[data-result-id]').evaluateAll((els) => els.map((e) => e.getAttribute('data-result-id')))).toHaveLength(2);
    expect(await panel.textContent()).not.toContain('under the mat');

    // A filter narrows it, shown as a chip; removing the chip widens it again.
    await box.fill(`lighthouse from:${owner.name} in:ops`);
    await box.press('Enter');
    await panel.getByRole('heading', { name: '1 result' }).waitFor();
    await panel.getByRole('list', { name: 'Search terms' }).getByText(`from: ${owner.name}`).waitFor();
    await screenshot(page, 'search-results');
    await panel.getByRole('button', { name: 'Remove in: #ops' }).click();
    await panel.getByRole('heading', { name: '1 result' }).waitFor();
    await box.fill('lighthouse has:link');
    await box.press('Enter');
    await panel.getByRole('heading', { name: '1 result' }).waitFor();
    expect(await panel.textContent()).toContain('example.com/hours');

    // An unknown member is said plainly, not searched.
    await box.fill('lighthouse from:nobody_here');
    await box.press('Enter');
    await panel
      .getByRole('alert')
      .getByText(/No member here is called/)
      .waitFor();

    // Jump to the generator message, 120 messages up #ops: the channel opens on it.
    await box.fill('generator');
    await box.press('Enter');
    await panel.getByRole('heading', { name: '1 result' }).waitFor();
    await panel.getByRole('button', { name: /^Jump to the message/ }).click();
    await page.waitForURL(new RegExp(`/c/${ops.id}$`));
    const landed = page.locator(`[data-message-id="${target.id}"]`);
    await landed.waitFor();
    await expect
      .poll(() =>
        landed.evaluate((el) => {
          const r = el.getBoundingClientRect();
          return r.top >= 0 && r.bottom <= (globalThis as any).innerHeight;
        }),
      )
      .toBe(true);
    await screenshot(page, 'search-jump');
    expect(errors).toEqual([]);
  });

  it('a narrow dark screen shows the results as a sheet', async () => {
    const owner = await registerUser(web.url);
    const { server, general } = await createServer(web.url, owner, 'Night');
    await postMessage(web.url, owner.auth, general.id, 'night watch rota');
    const { page } = await open(owner, `/s/${server.id}/c/${general.id}`, { colorScheme: 'dark', width: 390 });
    const box = page.getByRole('searchbox', { name: 'Search Night' });
    await box.click();
    await box.fill('rota');
    await box.press('Enter');
    await page
      .getByRole('region', { name: /results?$/ })
      .getByRole('heading', { name: '1 result' })
      .waitFor();
    await screenshot(page, 'search-390-dark');
  });
});
