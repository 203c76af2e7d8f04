/**
 * Conversations in the web client (docs/api.md#messages), in a real browser against a real Parley:
 * the composer's autocomplete for members, channels and emoji (keyboard and mouse), what
 * is sent checked through the API; mention chips; messages for the viewer highlighted;
 * replies (the bar, the reference sent, the quote line jumping to an original far up the
 * history); and the pins panel, updated live. Screenshots land in test-results/web/.
 */
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { call, createChannel, createServer, joinServer, postMessage, registerUser, type TestUser } from '../factories.js';
import { browserSuite, screenshot } from './browser.js';

const MANAGE_MESSAGES = 1n << 13n;

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

interface ApiMessage {
  id: string;
  content: string;
  author: { id: string; name: string };
  mentions: { id: string }[];
  mentionRoles: string[];
  mentionEveryone: boolean;
  pinned: boolean;
  messageReference?: { messageId: string };
}

/** The channel's newest message, as the service holds it. */
async function newest(user: TestUser, channelId: string): Promise<ApiMessage> {
  const page = await ok<ApiMessage[]>('GET', `/channels/${channelId}/messages?limit=1`, user.auth);
  const m = page[0];
  if (!m) throw new Error('no messages');
  return m;
}

const suffix = () => Math.random().toString(36).slice(2, 6);

/** Owner `olive`; members `alba`, `alma`, `bob`; channels general and random-talk. */
async function world() {
  const tag = suffix();
  const owner = await registerUser(web.url, `olive_${tag}`);
  const { server, general } = await createServer(web.url, owner, 'Harbour');
  const alba = await registerUser(web.url, `alba_${tag}`);
  const alma = await registerUser(web.url, `alma_${tag}`);
  const bob = await registerUser(web.url, `bob_${tag}`);
  for (const u of [alba, alma, bob]) await joinServer(web.url, owner, u, server.id);
  const random = await createChannel(web.url, owner, server.id, 'random-talk');
  return { owner, server, general, random, alba, alma, bob };
}

const composer = (page: Page) => page.getByRole('textbox', { name: /^Message #/ });
const listbox = (page: Page) => page.getByRole('listbox');
const message = (page: Page, id: string) => page.locator(`[data-message-id="${id}"]`);

/** The message whose text contains `text` (the newest such). */
const messageWith = (page: Page, text: string) => page.locator('[data-message-id]').filter({ hasText: text }).last();

async function activeOption(page: Page): Promise<string> {
  const id = await composer(page).getAttribute('aria-activedescendant');
  if (!id) throw new Error('no active option');
  return (await page.locator(`[id="${id}"]`).getAttribute('data-label')) ?? '';
}

const isFocused = (l: Locator) => l.evaluate((el) => el === (globalThis as any).document.activeElement);

describe('composer autocomplete', { timeout: 90_000 }, () => {
  it('@ with the keyboard inserts a readable name and sends <@id>; # and : complete channels and emoji', async () => {
    const w = await world();
    const o = await open(w.owner, `/s/${w.server.id}/c/${w.general.id}`);
    const { page } = o;
    const input = composer(page);
    await input.waitFor();
    // Members come from the server (the member list loads them).
    await page.getByRole('complementary', { name: 'Members' }).locator(`li[data-member-id="${w.alma.id}"]`).waitFor();

    await input.click();
    await page.keyboard.type('hey @al');
    await listbox(page).waitFor();
    expect(await input.getAttribute('aria-controls')).toBe(await listbox(page).getAttribute('id'));
    const options = listbox(page).getByRole('option');
    expect(await options.evaluateAll((els) => els.map((e) => e.getAttribute('data-label')))).toEqual([w.alba.name, w.alma.name]);
    expect(await activeOption(page)).toBe(w.alba.name);
    await screenshot(page, 'conversations-autocomplete-members');
    await page.keyboard.press('ArrowDown');
    expect(await activeOption(page)).toBe(w.alma.name);
    expect(await options.nth(1).getAttribute('aria-selected')).toBe('true');
    await page.keyboard.press('Enter');
    await listbox(page).waitFor({ state: 'detached' });
    // The textarea shows the name, not the id; the caret sits after it.
    expect(await input.inputValue()).toBe(`hey @${w.alma.name} `);
    await page.keyboard.type('lunch?');
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await newest(w.owner, w.general.id)).content).toBe(`hey <@${w.alma.id}> lunch?`);
    expect((await newest(w.owner, w.general.id)).mentions.map((u) => u.id)).toEqual([w.alma.id]);
    expect(await input.inputValue()).toBe('');

    // The chip shows the name, never the raw syntax.
    const sent = messageWith(page, 'lunch?');
    await sent
      .locator('[data-mention="user"]')
      .filter({ hasText: `@${w.alma.name}` })
      .waitFor();
    expect(await sent.innerText()).not.toContain('<@');

    // The owner holds MENTION_EVERYONE: @everyone and @here are offered; Esc closes.
    await page.keyboard.type('@');
    await listbox(page).waitFor();
    await listbox(page)
      .getByRole('option', { name: /^@everyone/ })
      .waitFor();
    await listbox(page)
      .getByRole('option', { name: /^@here/ })
      .waitFor();
    await page.keyboard.press('Escape');
    await listbox(page).waitFor({ state: 'detached' });
    expect(await input.inputValue()).toBe('@');
    await input.fill('');

    // #: channels, picked with Tab; sent as <#id>, drawn as a link to the channel.
    await page.keyboard.type('see #ran');
    await listbox(page).getByRole('option', { name: 'random-talk' }).waitFor();
    expect(await activeOption(page)).toBe('random-talk');
    await page.keyboard.press('Tab');
    expect(await input.inputValue()).toBe('see #random-talk ');
    // `:` and two characters: emoji by shortcode (the picker's data), inserted as the character.
    await page.keyboard.type('now :thu');
    await listbox(page).getByRole('option', { name: ':thumbsup:' }).waitFor();
    await page.keyboard.press('Enter');
    expect(await input.inputValue()).toBe('see #random-talk now 👍 ');
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await newest(w.owner, w.general.id)).content).toBe(`see <#${w.random.id}> now 👍`);
    // (The emoji is an image now: its text is its alt, which hasText does not see.)
    const chip = messageWith(page, 'now').locator('[data-mention="channel"]');
    await chip.waitFor();
    expect(await chip.innerText()).toBe('#random-talk');
    await chip.click();
    await page.waitForURL(`**/s/${w.server.id}/c/${w.random.id}`);
    await page.getByRole('heading', { name: 'random-talk', exact: true }).waitFor();
    expect(o.errors).toEqual([]);
  });

  it('@ with the mouse, as a member without MENTION_EVERYONE (no @everyone offered); narrow dark screen', async () => {
    const w = await world();
    const o = await open(w.alba, `/s/${w.server.id}/c/${w.general.id}`, { colorScheme: 'dark', width: 390, height: 844 });
    const { page } = o;
    const input = composer(page);
    await input.click();
    await page.keyboard.type('@');
    await listbox(page).getByRole('option', { name: w.bob.name }).waitFor();
    expect(
      await listbox(page)
        .getByRole('option', { name: /^@everyone|^@here/ })
        .count(),
    ).toBe(0);
    await page.keyboard.type('bo');
    const bob = listbox(page).getByRole('option', { name: w.bob.name });
    await expect.poll(() => listbox(page).getByRole('option').count()).toBe(1);
    await screenshot(page, 'conversations-autocomplete-390-dark');
    await bob.click();
    await listbox(page).waitFor({ state: 'detached' });
    expect(await input.inputValue()).toBe(`@${w.bob.name} `);
    // Focus stayed in the composer.
    expect(await isFocused(input)).toBe(true);
    await page.keyboard.type('hi');
    await page.getByRole('button', { name: 'Send' }).click();
    await expect.poll(async () => (await newest(w.alba, w.general.id)).content).toBe(`<@${w.bob.id}> hi`);
    // Inside code, nothing opens and names stay text.
    await page.keyboard.type('`@b');
    await page.keyboard.press('End');
    expect(await listbox(page).count()).toBe(0);
    expect(o.errors).toEqual([]);
  });
});

describe('mentions', { timeout: 90_000 }, () => {
  it('chips render with names (unknown ids too), and messages for the viewer are highlighted', async () => {
    const w = await world();
    const crew = await ok<{ id: string }>('POST', `/servers/${w.server.id}/roles`, w.owner.auth, {
      name: 'Crew',
      color: 0x1abc9c,
      mentionable: true,
    });
    await ok('PUT', `/servers/${w.server.id}/members/${w.alba.id}/roles/${crew.id}`, w.owner.auth);
    const plain = await postMessage(web.url, w.alma.auth, w.general.id, `just chatting with <@${w.bob.id}>`);
    const direct = await postMessage(web.url, w.alma.auth, w.general.id, `<@${w.alba.id}> can you look at this?`);
    const role = await postMessage(web.url, w.bob.auth, w.general.id, `<@&${crew.id}> standup in 5`);
    const ghosts = await postMessage(web.url, w.bob.auth, w.general.id, `ghosts: <@999999999999> <#888888888888> \`<@${w.alba.id}>\``);
    const everyone = await postMessage(web.url, w.owner.auth, w.general.id, '@everyone the harbour closes at 6');
    const mine = await postMessage(web.url, w.alba.auth, w.general.id, 'I can take the evening shift');
    // A reply to the viewer that does not ping them is still for them.
    const quiet = await ok<ApiMessage>('POST', `/channels/${w.general.id}/messages`, w.bob.auth, {
      content: 'thanks!',
      messageReference: { messageId: mine.id },
      allowedMentions: { parse: [], repliedUser: false },
    });
    expect(quiet.mentions).toEqual([]);

    const o = await open(w.alba, `/s/${w.server.id}/c/${w.general.id}`);
    const { page } = o;
    await message(page, quiet.id).waitFor();
    // Chips: names, never ids.
    await message(page, plain.id)
      .locator('[data-mention="user"]')
      .filter({ hasText: `@${w.bob.name}` })
      .waitFor();
    const roleChip = message(page, role.id).locator('[data-mention="role"]');
    await roleChip.filter({ hasText: '@Crew' }).waitFor();
    const roleColor = await roleChip.evaluate((el) => (globalThis as any).getComputedStyle(el).color as string);
    expect(roleColor).not.toBe(
      await message(page, plain.id)
        .locator('[data-mention="user"]')
        .evaluate((el) => (globalThis as any).getComputedStyle(el).color as string),
    );
    const ghostChips = message(page, ghosts.id).locator('[data-mention]');
    expect(await ghostChips.allInnerTexts()).toEqual(['@unknown-user', '#deleted-channel']);
    // Inside code the syntax is text.
    expect(await message(page, ghosts.id).locator('code').innerText()).toBe(`<@${w.alba.id}>`);
    await message(page, everyone.id).locator('[data-mention="everyone"]').waitFor();

    // Highlighted: named, their role, @everyone. Not: a message naming someone else.
    for (const m of [direct, role, everyone, quiet]) expect(await message(page, m.id).getAttribute('data-mentions-me')).toBe('true');
    expect(await message(page, plain.id).getAttribute('data-mentions-me')).toBeNull();
    expect(await message(page, ghosts.id).getAttribute('data-mentions-me')).toBeNull();
    expect(await message(page, mine.id).getAttribute('data-mentions-me')).toBeNull();
    const look = (id: string) =>
      message(page, id).evaluate((el) => {
        const s = (globalThis as any).getComputedStyle(el);
        return { bg: s.backgroundColor as string, bar: s.boxShadow as string };
      });
    await page.mouse.move(0, 0);
    const lit = await look(direct.id);
    const unlit = await look(plain.id);
    expect(lit.bg).not.toBe(unlit.bg);
    expect(lit.bar).not.toBe('none');
    expect(unlit.bar).toBe('none');
    await screenshot(page, 'conversations-mentions');

    // Dark theme: highlighted too.
    const dark = await open(w.alba, `/s/${w.server.id}/c/${w.general.id}`, { colorScheme: 'dark' });
    await message(dark.page, direct.id).waitFor();
    await dark.page.mouse.move(0, 0);
    const darkLit = await message(dark.page, direct.id).evaluate((el) => (globalThis as any).getComputedStyle(el).boxShadow as string);
    expect(darkLit).not.toBe('none');
    await screenshot(dark.page, 'conversations-mentions-dark');
    expect(o.errors).toEqual([]);
    expect(dark.errors).toEqual([]);
  });
});

describe('replies', { timeout: 120_000 }, () => {
  it('reply bar, the reference sent without a ping, and a quote line that jumps to an original far up', async () => {
    const w = await world();
    const original = await postMessage(web.url, w.alma.auth, w.general.id, 'Who has the keys to the **boathouse**?');
    for (let i = 1; i <= 120; i++) await postMessage(web.url, w.bob.auth, w.general.id, `filler ${i}`);
    const answer = await ok<ApiMessage>('POST', `/channels/${w.general.id}/messages`, w.alma.auth, {
      content: 'Anyone? (asking again)',
      messageReference: { messageId: original.id },
    });
    const last = await postMessage(web.url, w.bob.auth, w.general.id, 'filler after the reply');

    const o = await open(w.alba, `/s/${w.server.id}/c/${w.general.id}`);
    const { page } = o;
    await message(page, last.id).waitFor();
    const input = composer(page);

    // Reply from the hover actions: the bar names the author; Esc cancels.
    await message(page, last.id).hover();
    await message(page, last.id).getByRole('button', { name: 'Reply' }).click();
    const bar = page.locator('form').getByText(`Replying to ${w.bob.name}`);
    await bar.waitFor();
    expect(await isFocused(input)).toBe(true);
    await page.keyboard.press('Escape');
    await bar.waitFor({ state: 'detached' });

    // Keyboard: Tab into the message's actions and press Reply.
    await message(page, last.id).getByRole('button', { name: 'Reply' }).focus();
    await page.keyboard.press('Enter');
    await bar.waitFor();
    // Turn the ping off, and send.
    const ping = page.getByRole('button', { name: `Mention ${w.bob.name}` });
    expect(await ping.getAttribute('aria-pressed')).toBe('true');
    await ping.click();
    expect(await ping.getAttribute('aria-pressed')).toBe('false');
    await input.focus();
    await page.keyboard.type('I think Alma has them');
    await screenshot(page, 'conversations-reply-bar');
    await page.keyboard.press('Enter');
    await bar.waitFor({ state: 'detached' });
    await expect.poll(async () => (await newest(w.alba, w.general.id)).content).toBe('I think Alma has them');
    const sent = await newest(w.alba, w.general.id);
    expect(sent.messageReference?.messageId).toBe(last.id);
    expect(sent.mentions).toEqual([]);
    // The sent reply shows its quote line.
    const quote = message(page, sent.id).locator(`[data-reply-quote="${last.id}"]`);
    await quote.getByText('filler after the reply').waitFor();

    // The answer's quote line points at a message 120 messages up, not loaded yet.
    await message(page, answer.id).scrollIntoViewIfNeeded();
    expect(await message(page, original.id).count()).toBe(0);
    const answerQuote = message(page, answer.id).locator(`[data-reply-quote="${original.id}"]`);
    expect(await answerQuote.innerText()).toContain('Who has the keys to the boathouse?');
    await answerQuote.getByRole('button').click();
    const target = message(page, original.id);
    await target.waitFor();
    await expect.poll(() => target.getAttribute('data-flash')).toBe('');
    expect(await target.isVisible()).toBe(true);
    const inView = await target.evaluate((el) => {
      const r = el.getBoundingClientRect();
      const box = el.closest('[role="log"]')!.getBoundingClientRect();
      return r.top >= box.top && r.bottom <= box.bottom;
    });
    expect(inView).toBe(true);
    await screenshot(page, 'conversations-reply-jump');

    // Jump to present goes straight back to the newest.
    await page.getByRole('button', { name: /Jump to present/ }).click();
    await message(page, sent.id).waitFor();
    await expect.poll(() => message(page, sent.id).isVisible()).toBe(true);
    expect(await message(page, original.id).count()).toBe(0);

    // Jump again, then scroll down: newer pages load on the way (only 50 came with the
    // jump) until the present is reached.
    await answerQuote.getByRole('button').click();
    await message(page, original.id).waitFor();
    expect(await message(page, sent.id).count()).toBe(0);
    const log = page.getByRole('log');
    await expect
      .poll(
        async () => {
          await log.evaluate((el) => el.scrollTo(0, el.scrollHeight));
          return message(page, sent.id).count();
        },
        { timeout: 15_000 },
      )
      .toBe(1);
    // Each message once, in order, with nothing missing in between (of those drawn).
    const shown = await page.locator('[data-message-id]').evaluateAll((els) => els.map((e) => e.getAttribute('data-message-id')));
    const all: string[] = [];
    let before: string | undefined;
    for (;;) {
      const batch = await ok<ApiMessage[]>(
        'GET',
        `/channels/${w.general.id}/messages?limit=100${before ? `&before=${before}` : ''}`,
        w.alba.auth,
      );
      all.push(...batch.map((m) => m.id));
      if (batch.length < 100) break;
      before = batch.at(-1)?.id;
    }
    // The list is virtualised: what is drawn is a run of the history, ending at the newest.
    const history = all.reverse();
    const start = history.indexOf(shown[0] as string);
    expect(start).toBeGreaterThanOrEqual(0);
    expect(shown).toEqual(history.slice(start, start + shown.length));
    expect(shown.at(-1)).toBe(history.at(-1));

    // A reply whose original is deleted says so, live and after a reload.
    await ok('DELETE', `/channels/${w.general.id}/messages/${last.id}`, w.bob.auth);
    await message(page, sent.id).getByText('Original message was deleted').waitFor();
    const reloaded = await open(w.alba, `/s/${w.server.id}/c/${w.general.id}`);
    await message(reloaded.page, sent.id).getByText('Original message was deleted').waitFor();
    expect(o.errors).toEqual([]);
    expect(reloaded.errors).toEqual([]);
  });
});

describe('pins', { timeout: 90_000 }, () => {
  it('the panel lists pins, updates live when someone else pins, jumps and unpins; members without the right cannot', async () => {
    const w = await world();
    const mods = await ok<{ id: string }>('POST', `/servers/${w.server.id}/roles`, w.owner.auth, {
      name: 'Harbourmasters',
      permissions: MANAGE_MESSAGES.toString(),
    });
    await ok('PUT', `/servers/${w.server.id}/members/${w.alma.id}/roles/${mods.id}`, w.owner.auth);
    const rules = await postMessage(web.url, w.owner.auth, w.general.id, 'House rules: **be kind**, tie up your boat.');
    const tide = await postMessage(web.url, w.bob.auth, w.general.id, `Tide table for the week, ask <@${w.alma.id}>`);
    const other = await postMessage(web.url, w.bob.auth, w.random.id, 'nothing pinned here');

    const o = await open(w.owner, `/s/${w.server.id}/c/${w.random.id}`);
    const { page } = o;
    await message(page, other.id).waitFor();
    const pinsButton = page.getByRole('button', { name: 'Pinned messages' });
    const panel = page.getByRole('dialog', { name: 'Pinned messages' });

    // Empty state first.
    await pinsButton.click();
    await panel.getByText('This channel doesn’t have any pinned messages yet.').waitFor();
    await screenshot(page, 'conversations-pins-empty');
    await page.keyboard.press('Escape');
    await panel.waitFor({ state: 'detached' });
    expect(await isFocused(pinsButton)).toBe(true);

    // Pin from the message's actions; the panel shows it.
    await page
      .getByRole('complementary', { name: /channels$/ })
      // The link's name may carry its unread state ("general (unread)").
      .getByRole('link', { name: /^#?\s*general\b/ })
      .click();
    await message(page, rules.id).waitFor();
    await message(page, rules.id).hover();
    await message(page, rules.id).getByRole('button', { name: 'Pin message' }).click();
    await expect
      .poll(async () => (await ok<ApiMessage[]>('GET', `/channels/${w.general.id}/pins`, w.owner.auth)).map((m) => m.id))
      .toEqual([rules.id]);
    await pinsButton.click();
    const pinned = panel.locator('li[data-pinned-id]');
    await expect.poll(() => pinned.evaluateAll((els) => els.map((e) => e.getAttribute('data-pinned-id')))).toEqual([rules.id]);
    expect(await pinned.first().innerText()).toContain('House rules: be kind, tie up your boat.');

    // Alma (MANAGE_MESSAGES through a role) pins another elsewhere: it arrives on top, live.
    await ok('PUT', `/channels/${w.general.id}/pins/${tide.id}`, w.alma.auth);
    await expect.poll(() => pinned.evaluateAll((els) => els.map((e) => e.getAttribute('data-pinned-id')))).toEqual([tide.id, rules.id]);
    await panel
      .locator(`li[data-pinned-id="${tide.id}"] [data-mention="user"]`)
      .filter({ hasText: `@${w.alma.name}` })
      .waitFor();
    await screenshot(page, 'conversations-pins');

    // Unpinned elsewhere: it goes.
    await ok('DELETE', `/channels/${w.general.id}/pins/${rules.id}`, w.alma.auth);
    await expect.poll(() => pinned.count()).toBe(1);

    // Jump: the panel closes and the message flashes.
    await panel.locator(`li[data-pinned-id="${tide.id}"]`).getByRole('button', { name: 'Jump' }).click();
    await panel.waitFor({ state: 'detached' });
    await expect.poll(() => message(page, tide.id).getAttribute('data-flash')).toBe('');

    // Unpin from the panel.
    await pinsButton.click();
    await panel
      .locator(`li[data-pinned-id="${tide.id}"]`)
      .getByRole('button', { name: /^Unpin/ })
      .click();
    await panel.getByText('This channel doesn’t have any pinned messages yet.').waitFor();
    expect(await ok<ApiMessage[]>('GET', `/channels/${w.general.id}/pins`, w.owner.auth)).toEqual([]);
    expect(o.errors).toEqual([]);

    // Bob may not pin: no Pin action, no Unpin in the panel (dark, narrow).
    await ok('PUT', `/channels/${w.general.id}/pins/${tide.id}`, w.alma.auth);
    const b = await open(w.bob, `/s/${w.server.id}/c/${w.general.id}`, { colorScheme: 'dark', width: 390, height: 844 });
    await message(b.page, tide.id).waitFor();
    await message(b.page, tide.id).hover();
    await message(b.page, tide.id).getByRole('button', { name: 'Reply' }).waitFor();
    expect(
      await message(b.page, tide.id)
        .getByRole('button', { name: /^(Pin|Unpin) message$/ })
        .count(),
    ).toBe(0);
    await b.page.getByRole('button', { name: 'Pinned messages' }).click();
    const bobPanel = b.page.getByRole('dialog', { name: 'Pinned messages' });
    await bobPanel.locator(`li[data-pinned-id="${tide.id}"]`).waitFor();
    expect(await bobPanel.getByRole('button', { name: /^Unpin/ }).count()).toBe(0);
    await screenshot(b.page, 'conversations-pins-390-dark');
    expect(b.errors).toEqual([]);
  });
});
