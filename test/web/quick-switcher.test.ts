/**
 * The quick switcher (Ctrl+K) of the web client, in a real browser against a real Parley:
 * it opens from anywhere, narrows channels of every server, DMs and servers as one types,
 * goes to the chosen one with Enter, marks unread and mentioned places, and Escape gives
 * focus back. Screenshots land in test-results/web/ (light, dark and a 390 px phone).
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { call, createChannel, createServer, joinServer, postMessage, registerUser } from '../factories.js';
import { browserSuite, screenshot, type OpenPage } from './browser.js';

const web = browserSuite();

const named = (name: string) => registerUser(web.url, `${name}_${Math.random().toString(36).slice(2, 7)}`);

/** Alice in "Harbour" (#general, #random, with Bob) and "Orchard" (#general, #planning), and a DM from Bob. */
async function world() {
  const alice = await named('alice');
  const bob = await named('bob');
  const harbour = await createServer(web.url, alice, 'Harbour');
  const random = await createChannel(web.url, alice, harbour.server.id, 'random');
  const orchard = await createServer(web.url, alice, 'Orchard');
  const planning = await createChannel(web.url, alice, orchard.server.id, 'planning');
  await joinServer(web.url, alice, bob, harbour.server.id);
  await joinServer(web.url, alice, bob, orchard.server.id);
  const dm = await call(web.url, 'POST', '/users/@me/channels', { auth: bob.auth, body: { recipientIds: [alice.id] } });
  expect(dm.status).toBeLessThan(300);
  await postMessage(web.url, bob.auth, dm.body.id, 'Alice, a question');
  await postMessage(web.url, bob.auth, planning.id, `<@${alice.id}> the plan is ready`);
  return { alice, bob, harbour, random, orchard, planning, dmId: dm.body.id as string };
}

const composer = (page: Page) => page.getByRole('textbox', { name: /^Message / });
const switcher = (page: Page) => page.getByRole('dialog', { name: 'Quick switcher' });
const box = (page: Page) => switcher(page).getByRole('combobox');
const options = (page: Page) => switcher(page).getByRole('option');
const optionNames = (page: Page) => options(page).evaluateAll((els) => els.map((e) => (e.textContent ?? '').trim()));

async function openSwitcher(page: Page) {
  await page.keyboard.press('Control+k');
  await box(page).waitFor();
  await expect.poll(() => box(page).evaluate((el) => el === (globalThis as any).document.activeElement)).toBe(true);
}

function noPageErrors(o: OpenPage) {
  expect(o.errors, `uncaught errors in the page: ${o.errors.join('\n')}`).toEqual([]);
}

describe('quick switcher', () => {
  it('Ctrl+K opens it, typing narrows, Enter goes to a channel of another server and to a DM, Escape gives focus back', async () => {
    const w = await world();
    const o = await web.open({ token: w.alice.token, path: `/s/${w.harbour.server.id}/c/${w.random.id}`, height: 760 });
    const { page } = o;
    await composer(page).click();

    await openSwitcher(page);
    // The empty box lists what waits for her (the mention in #planning, Bob's message) and where she was.
    const active = async () => {
      const id = await box(page).getAttribute('aria-activedescendant');
      return id ? page.locator(`[id="${id}"]`).textContent() : null;
    };
    await options(page).first().waitFor();
    const planningRow = options(page).filter({ hasText: 'planning' });
    await planningRow.locator('[data-mention-badge="1"]').waitFor();
    await options(page).filter({ hasText: w.bob.name }).locator('[data-mention-badge]').waitFor();
    await screenshot(page, 'quick-switcher-empty-light');

    // Typing narrows: "gen" is #general in both servers, each named with its server.
    await box(page).fill('gen');
    await expect
      .poll(() => optionNames(page))
      .toEqual([expect.stringMatching(/^#?general.*Harbour/), expect.stringMatching(/^#?general.*Orchard/)]);
    await box(page).fill('zzzq');
    await expect.poll(() => options(page).count()).toBe(0);
    await switcher(page).getByText('Nothing matches').waitFor();
    // Fuzzy: the letters in order find #planning; ↑ ↓ move the active row.
    await box(page).fill('plng');
    await expect.poll(() => optionNames(page)).toEqual([expect.stringMatching(/planning.*Orchard/)]);
    await box(page).fill('r');
    await expect.poll(() => options(page).count()).toBeGreaterThan(1);
    const first = await active();
    await page.keyboard.press('ArrowDown');
    await expect.poll(active).not.toBe(first);
    await page.keyboard.press('ArrowUp');
    await expect.poll(active).toBe(first);

    // Enter goes to the best match, here a channel of the other server.
    await box(page).fill('planning');
    await expect.poll(active).toMatch(/planning/);
    await screenshot(page, 'quick-switcher-typed-light');
    await page.keyboard.press('Enter');
    await page.waitForURL(new RegExp(`/s/${w.orchard.server.id}/c/${w.planning.id}$`));
    await expect.poll(() => switcher(page).count()).toBe(0);
    await page.getByText('the plan is ready').waitFor();

    // A DM, by the other person's name.
    await openSwitcher(page);
    await box(page).fill(w.bob.name.slice(0, 5));
    await expect.poll(active).toContain(w.bob.name);
    await page.keyboard.press('Enter');
    await page.waitForURL(new RegExp(`/dms/${w.dmId}$`));
    await page.getByText('Alice, a question').waitFor();

    // A server by its name ("*" keeps only servers).
    await openSwitcher(page);
    await box(page).fill('*harb');
    await expect.poll(() => optionNames(page)).toEqual([expect.stringMatching(/Harbour/)]);
    await page.keyboard.press('Enter');
    await page.waitForURL(new RegExp(`/s/${w.harbour.server.id}(/c/\\d+)?$`));

    // Escape closes and gives focus back to where it was.
    await composer(page).click();
    await openSwitcher(page);
    await box(page).fill('gen');
    await page.keyboard.press('Escape');
    await expect.poll(() => switcher(page).count()).toBe(0);
    await expect.poll(() => composer(page).evaluate((el) => el === (globalThis as any).document.activeElement)).toBe(true);
    noPageErrors(o);
  }, 60_000);

  it('looks right in the dark and on a 390 px phone', async () => {
    const w = await world();
    for (const [name, pageOpts] of [
      ['quick-switcher-dark', { colorScheme: 'dark' as const }],
      ['quick-switcher-phone-dark', { colorScheme: 'dark' as const, width: 390, height: 760 }],
      ['quick-switcher-phone-light', { width: 390, height: 760 }],
    ] as const) {
      const opts: { colorScheme?: 'dark'; width?: number; height?: number } = pageOpts;
      const o = await web.open({ token: w.alice.token, path: `/s/${w.harbour.server.id}/c/${w.random.id}`, height: 760, ...opts });
      const { page } = o;
      await composer(page).waitFor();
      if (opts.width === 390) {
        // No keyboard on a phone: the rail's button, in the channels drawer, opens it.
        await page.getByRole('button', { name: 'Show channels' }).click();
        await page.getByRole('button', { name: 'Find a channel, conversation or server' }).click();
        await box(page).waitFor();
      } else {
        await openSwitcher(page);
      }
      await options(page).filter({ hasText: 'planning' }).locator('[data-mention-badge="1"]').waitFor();
      await screenshot(page, `${name}-empty`);
      await box(page).fill('g');
      await expect.poll(() => options(page).count()).toBeGreaterThan(1);
      await screenshot(page, name);
      // Nothing spills out sideways on a phone.
      const fits = await switcher(page).evaluate((el) => el.getBoundingClientRect().right <= (globalThis as any).innerWidth);
      expect(fits).toBe(true);
      noPageErrors(o);
    }
  }, 60_000);
});
