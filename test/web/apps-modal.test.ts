/**
 * The "Apps" menu and bots' modals in the web client (docs/commands.md): a right-click on
 * a message lists the server's message commands (keyboard driven), the message's toolbar
 * opens the same menu, a right-click or long press on a member lists user commands; a
 * command answered with a modal shows a labelled dialog whose text inputs are checked
 * inline (required, at least so many characters) before it is submitted, Escape closes it,
 * and the bot's answer to the submit shows as a slash command's does. Real Chromium, a real
 * Parley, and a real bot (the SDK's ParleyBot, showModal); every wait is on the page or the bot.
 */
import { ParleyBot, modal, textInput } from '@parley/sdk';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addBot, createBot, createServer, joinServer, postMessage, registerUser, type TestBot, type TestUser } from '../factories.js';
import { axeScan, settle } from './axe.js';
import { browserSuite, screenshot } from './browser.js';

const web = browserSuite();
let bot: ParleyBot;

// Registered after browserSuite's, so it runs first: the bot goes before the server.
afterAll(async () => {
  await bot?.close().catch(() => undefined);
});

/** What the bot received, for tests to wait on. */
const received: Array<{ type: string; name?: string; targetId?: string; fields?: Record<string, string> }> = [];

/** Helper: "Report" (message) opens a modal, "Wave" (user) answers at once, the report's submit is thanked. */
async function startHelper(helper: TestBot) {
  bot = new ParleyBot({ baseUrl: web.url, token: helper.token });
  bot
    .command('ping', { description: 'Ping' }, (i) => i.reply('pong'))
    .messageCommand('Report', async (i) => {
      received.push({ type: 'message', name: i.commandName, targetId: i.targetId });
      await i.showModal(
        modal({
          customId: `report:${i.targetId}`,
          title: 'Report message',
          inputs: [
            textInput({ customId: 'reason', label: 'Reason', minLength: 10, maxLength: 200, placeholder: 'What is wrong with it?' }),
            textInput({ customId: 'notes', label: 'Notes', style: 'paragraph', required: false, value: 'Seen in #general' }),
          ],
        }),
      );
    })
    .userCommand('Wave', async (i) => {
      received.push({ type: 'user', name: i.commandName, targetId: i.targetId });
      await i.reply(`${i.user.name} waves at ${i.targetUser?.name}`);
    })
    .modal('report:', async (i) => {
      received.push({ type: 'modalSubmit', fields: i.fields });
      await i.reply({ content: `Thanks, reported: ${i.field('reason')}`, ephemeral: true });
    });
  await bot.connect();
}

describe('the Apps menu and modals', () => {
  let ana: TestUser;
  let ben: TestUser;
  let serverId: string;
  let channelId: string;
  let messageId: string;

  beforeAll(async () => {
    ana = await registerUser(web.url, 'ana');
    ben = await registerUser(web.url, 'ben');
    const { server, general } = await createServer(web.url, ana, 'Moderation');
    serverId = server.id;
    channelId = general.id;
    await joinServer(web.url, ana, ben, serverId);
    const helper = await createBot(web.url, ana, 'Helper');
    await addBot(web.url, ana, serverId, helper.id);
    await startHelper(helper);
    messageId = (await postMessage(web.url, ben.auth, channelId, 'Buy cheap watches at example.test')).id;
  }, 60_000);

  async function open(user: TestUser) {
    const o = await web.open({ token: user.token, path: `/s/${serverId}/c/${channelId}`, colorScheme: 'dark' });
    return o;
  }

  const messageEl = (page: Page) => page.locator(`[data-message-id="${messageId}"]`);

  it('right-click on a message lists its apps; the modal checks its fields inline, then the bot answers the submit', async () => {
    const { page, errors } = await open(ana);
    await messageEl(page).waitFor();
    // The right-click opens the message's menu; its "Apps" item lists the message commands.
    await messageEl(page).click({ button: 'right', position: { x: 300, y: 20 } });
    await page.getByRole('menu', { name: 'Message options' }).getByRole('menuitem', { name: 'Apps' }).click();
    const menu = page.getByRole('menu', { name: 'Apps for this message' });
    await menu.waitFor();
    expect(await menu.getByRole('menuitem').evaluateAll((els) => els.map((e) => e.getAttribute('data-command')))).toEqual(['Report']);
    // The first item has focus; the chat command and the user command are not here.
    expect(await page.evaluate(() => (globalThis as any).document.activeElement?.getAttribute('data-command'))).toBe('Report');
    await screenshot(page, 'apps-menu-message');
    await settle(page);
    expect(await axeScan(page, [], ['[data-testid="apps-menu"]'])).toEqual([]);
    await page.keyboard.press('Enter');

    const dialog = page.getByRole('dialog', { name: 'Report message' });
    await dialog.waitFor();
    await expect.poll(() => received.some((r) => r.type === 'message' && r.targetId === messageId)).toBe(true);
    const reason = dialog.getByRole('textbox', { name: /Reason/ });
    const notes = dialog.getByRole('textbox', { name: /Notes/ });
    // Focus starts in the first field; its placeholder and the default value are shown.
    expect(await reason.evaluate((el) => el === el.ownerDocument.activeElement)).toBe(true);
    expect(await reason.getAttribute('placeholder')).toBe('What is wrong with it?');
    expect(await notes.inputValue()).toBe('Seen in #general');

    // Submitting empty: the required field says so, and nothing reaches the bot.
    await dialog.getByRole('button', { name: 'Submit' }).click();
    await dialog.getByText('This field is required').waitFor();
    expect(await reason.getAttribute('aria-invalid')).toBe('true');
    await reason.fill('spam');
    await dialog.getByText('At least 10 characters').waitFor();
    await screenshot(page, 'apps-modal-errors');
    await settle(page);
    expect(await axeScan(page, [], ['dialog'])).toEqual([]);
    expect(received.some((r) => r.type === 'modalSubmit')).toBe(false);

    await reason.fill('Unsolicited advertising');
    await dialog.getByRole('button', { name: 'Submit' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByText('Thanks, reported: Unsolicited advertising').waitFor();
    expect(received.find((r) => r.type === 'modalSubmit')?.fields).toEqual({
      reason: 'Unsolicited advertising',
      notes: 'Seen in #general',
    });
    expect(errors).toEqual([]);
  });

  it('the message toolbar opens the same menu by keyboard, and Escape closes the modal without telling the bot', async () => {
    const { page, errors } = await open(ana);
    await messageEl(page).hover();
    const appsButton = messageEl(page).getByRole('button', { name: 'Apps' });
    await appsButton.focus();
    await page.keyboard.press('Enter');
    const menu = page.getByRole('menu', { name: 'Apps for this message' });
    await menu.waitFor();
    // Escape closes the menu and gives focus back.
    await page.keyboard.press('Escape');
    await menu.waitFor({ state: 'detached' });
    expect(await appsButton.evaluate((el) => el === el.ownerDocument.activeElement)).toBe(true);
    await page.keyboard.press('Enter');
    await menu.waitFor();
    const before = received.length;
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Report message' });
    await dialog.waitFor();
    await screenshot(page, 'apps-modal');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(received.slice(before).map((r) => r.type)).toEqual(['message']);
    expect(errors).toEqual([]);
  });

  it("a right-click on a member lists user commands; a long press on a message's author does too, and runs one", async () => {
    const { page, errors } = await open(ana);
    const row = page.locator(`.member-list [data-member-id="${ben.id}"] button`).first();
    await row.click({ button: 'right' });
    const menu = page.getByRole('menu', { name: 'Apps for this member' });
    await menu.waitFor();
    expect(await menu.getByRole('menuitem').evaluateAll((els) => els.map((e) => e.getAttribute('data-command')))).toEqual(['Wave']);
    await screenshot(page, 'apps-menu-member');
    await page.keyboard.press('Escape');
    await menu.waitFor({ state: 'detached' });

    // Touch: a long press on the author's name opens the menu for them.
    const author = messageEl(page).getByRole('button', { name: ben.name });
    const box = (await author.boundingBox())!;
    const at = { clientX: box.x + 5, clientY: box.y + 5, pointerType: 'touch', bubbles: true, isPrimary: true, pointerId: 7 };
    await author.dispatchEvent('pointerdown', at);
    await menu.waitFor();
    await author.dispatchEvent('pointerup', at);
    await menu.getByRole('menuitem', { name: /Wave/ }).click();
    await expect.poll(() => received.filter((r) => r.type === 'user').map((r) => r.targetId)).toEqual([ben.id]);
    await page.getByText(`${ana.name} waves at ${ben.name}`).waitFor();
    // "You used Wave": a user command's name without a slash, as Discord shows it.
    const invoker = page.locator('[data-invoker]').last();
    const line = (await invoker.textContent()) ?? '';
    expect(line).toMatch(/used\s*Wave$/);
    expect(line).not.toContain('/');
    await screenshot(page, 'apps-user-answer');
    expect(errors).toEqual([]);
  });
});
