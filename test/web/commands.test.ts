/**
 * Commands and interactions in the web client (docs/commands.md): the `/` palette with the
 * channel's commands grouped by bot and keyboard selection; a command's form checked
 * before sending (a missing required option, a number out of range); an option the bot
 * autocompletes live; a command answered by the bot with buttons, a click that updates the
 * message (the round trip), a click the bot ignores ("The bot did not respond"); and an
 * ephemeral answer shown to the invoker only, dismissable. Real Chromium, a real Parley
 * and a real bot on the gateway (the SDK's ParleyBot); every wait is on the page, the
 * bot or the API.
 */
import { ParleyBot } from '@parley/sdk';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addBot, call, createBot, createServer, joinServer, postMessage, registerUser, type TestBot, type TestUser } from '../factories.js';
import { browserSuite, screenshot } from './browser.js';

const bots: ParleyBot[] = [];

const web = browserSuite();

// Runs before the suite's own afterAll (hooks after tests run in reverse order): bots first.
afterAll(async () => {
  for (const b of bots) await b.close().catch(() => undefined);
});

async function open(user: TestUser, path: string) {
  const o = await web.open({ token: user.token, path, colorScheme: 'dark', height: 800 });
  return o;
}

const FRUITS = ['apple', 'apricot', 'banana', 'blackberry', 'blueberry', 'cherry', 'grape', 'mango'];

const ROLL_BUTTONS = [
  {
    type: 'row',
    components: [
      { type: 'button', style: 'primary', label: 'Roll again', customId: 'reroll' },
      { type: 'button', style: 'secondary', label: 'Ignore me', customId: 'ignored' },
      { type: 'button', style: 'danger', label: 'Retired', customId: 'retired', disabled: true },
      { type: 'button', style: 'link', label: 'Rules', url: 'https://example.com/dice-rules' },
    ],
  },
  {
    type: 'row',
    components: [
      {
        type: 'select',
        customId: 'die',
        placeholder: 'Choose a die',
        options: [
          { label: 'd6', value: '6', description: 'The classic cube' },
          { label: 'd20', value: '20', description: 'For heroes and disasters' },
        ],
      },
    ],
  },
];

interface Received {
  type: string;
  name?: string;
  customId?: string;
  options?: Record<string, unknown>;
  focused?: string;
  values?: string[];
}

/**
 * A dice bot on the gateway: `/roll` answers with buttons, "Roll again" edits that
 * message, "Ignore me" is never answered, `/pick` autocompletes fruit, `/secret` answers
 * ephemerally. Everything it receives is recorded, so tests can wait on it.
 */
/** A promise and the function that settles it. */
function gate() {
  let resolve = () => {};
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** Opened by the test to let `/slow`'s deferred answer arrive. */
let slowGate = gate();

async function startDiceBot(bot: TestBot, received: Received[]): Promise<ParleyBot> {
  const client = new ParleyBot({ baseUrl: web.url, token: bot.token });
  bots.push(client);
  const answer = (i: { id: string; token: string }, body: unknown) =>
    call(web.url, 'POST', `/interactions/${i.id}/${i.token}/callback`, { auth: bot.auth, body }).then((r) => {
      if (r.status >= 300) throw new Error(`callback refused: ${r.status} ${r.text}`);
    });
  client.on('interactionCreate', (i) => {
    received.push({ type: i.type, name: i.name, customId: i.customId, options: i.options, focused: i.focused, values: i.values });
    if (i.type === 'autocomplete' && i.name === 'pick') {
      const typed = String(i.options?.fruit ?? '').toLowerCase();
      const choices = FRUITS.filter((f) => f.startsWith(typed)).map((f) => ({
        name: `${f[0]?.toUpperCase()}${f.slice(1)}`,
        value: `fruit:${f}`,
      }));
      void answer(i, { type: 'autocomplete', data: { choices } });
    } else if (i.type === 'command' && i.name === 'roll') {
      void answer(i, {
        type: 'message',
        data: { content: `You rolled a d${i.options?.sides}: **${Number(i.options?.sides) - 1}**`, components: ROLL_BUTTONS },
      });
    } else if (i.type === 'command' && i.name === 'pick') {
      void answer(i, { type: 'message', data: { content: `You picked \`${i.options?.fruit}\`` } });
    } else if (i.type === 'command' && i.name === 'slow') {
      // Thinking now; the answer when the test says so.
      void answer(i, { type: 'deferred' }).then(async () => {
        await slowGate.promise;
        const r = await call(web.url, 'PATCH', `/interactions/${i.token}/messages/original`, {
          auth: bot.auth,
          body: { content: 'Worth the wait: **a natural 20**' },
        });
        if (r.status !== 200) throw new Error(`edit refused: ${r.status} ${r.text}`);
      });
    } else if (i.type === 'command' && i.name === 'secret') {
      void answer(i, { type: 'message', data: { content: 'Psst: the treasure is under the old oak.', ephemeral: true } });
    } else if (i.type === 'component' && i.customId === 'die') {
      void answer(i, { type: 'update', data: { content: `Switched to a d${i.values?.[0]}`, components: ROLL_BUTTONS } });
    } else if (i.type === 'component' && i.customId === 'reroll') {
      void answer(i, { type: 'update', data: { content: 'Rolled again: **4**', components: ROLL_BUTTONS } });
    }
    // `ignored`: no answer at all.
  });
  await client.connect();
  return client;
}

async function registerCommands(bot: TestBot, commands: unknown[]) {
  const r = await call(web.url, 'PUT', `/bots/${bot.id}/commands`, { auth: bot.auth, body: commands });
  expect(r.status, r.text).toBe(200);
}

/** Waits for the bot to have received an interaction matching `pred`. */
async function receivedOne(received: Received[], pred: (r: Received) => boolean) {
  await expect.poll(() => received.filter(pred).length, { timeout: 5000 }).toBeGreaterThan(0);
}

function composer(page: Page) {
  return page.getByRole('textbox', { name: /^Message #/ });
}

describe('commands in the web client', () => {
  let ana: TestUser;
  let ben: TestUser;
  let dice: TestBot;
  let weather: TestBot;
  let serverId: string;
  let channelId: string;
  const received: Received[] = [];

  beforeAll(async () => {
    ana = await registerUser(web.url, 'ana');
    ben = await registerUser(web.url, 'ben');
    const { server, general } = await createServer(web.url, ana, 'Tabletop');
    serverId = server.id;
    channelId = general.id;
    await joinServer(web.url, ana, ben, serverId);
    dice = await createBot(web.url, ana, 'DiceBot');
    weather = await createBot(web.url, ana, 'Weather');
    await addBot(web.url, ana, serverId, dice.id);
    await addBot(web.url, ana, serverId, weather.id);
    await registerCommands(dice, [
      {
        name: 'roll',
        description: 'Roll a die',
        options: [
          { type: 'integer', name: 'sides', description: 'How many sides', required: true, minValue: 2, maxValue: 100 },
          { type: 'string', name: 'label', description: 'What the roll is for' },
        ],
      },
      {
        name: 'pick',
        description: 'Pick a fruit',
        options: [{ type: 'string', name: 'fruit', description: 'Start typing a fruit', required: true, autocomplete: true }],
      },
      { name: 'secret', description: 'Tell me a secret, quietly' },
      { name: 'slow', description: 'Take your time' },
    ]);
    await registerCommands(weather, WEATHER_COMMANDS);
    await startDiceBot(dice, received);
  }, 60_000);

  const WEATHER_COMMANDS = [
    {
      name: 'forecast',
      description: 'The weather for a city',
      options: [
        {
          type: 'string',
          name: 'city',
          description: 'Which city',
          required: true,
          choices: [
            { name: 'Lisbon', value: 'lis' },
            { name: 'Oslo', value: 'osl' },
          ],
        },
        { type: 'boolean', name: 'metric', description: 'Celsius instead of Fahrenheit' },
        { type: 'user', name: 'notify', description: 'Who to tell' },
      ],
    },
  ];

  it('the palette lists the commands grouped by bot, filters as you type and is driven by the keyboard', async () => {
    const { page, errors } = await open(ana, `/s/${serverId}/c/${channelId}`);
    const box = composer(page);
    await box.click();
    await box.pressSequentially('/');
    const palette = page.getByTestId('command-palette');
    await palette.getByRole('option', { name: /\/roll/ }).waitFor();
    // Grouped by bot: each bot's group names it and holds only its commands.
    const dicebotGroup = palette.getByRole('group', { name: /DiceBot/ });
    const weatherGroup = palette.getByRole('group', { name: /Weather/ });
    expect(await dicebotGroup.getByRole('option').evaluateAll((els) => els.map((e) => e.getAttribute('data-command')))).toEqual([
      'pick',
      'roll',
      'secret',
      'slow',
    ]);
    expect(await weatherGroup.getByRole('option').evaluateAll((els) => els.map((e) => e.getAttribute('data-command')))).toEqual([
      'forecast',
    ]);
    await screenshot(page, 'commands-palette');

    // ↓ moves the active row; the textarea points at it for screen readers.
    const active = () => palette.locator('[role="option"][aria-selected="true"]').getAttribute('data-command');
    expect(await active()).toBe('pick');
    await box.press('ArrowDown');
    expect(await active()).toBe('roll');
    expect(await box.getAttribute('aria-activedescendant')).toBe(await palette.locator('[aria-selected="true"]').getAttribute('id'));

    // Typing narrows it; Esc closes it and leaves the text.
    await box.pressSequentially('fo');
    expect(await palette.getByRole('option').evaluateAll((els) => els.map((e) => e.getAttribute('data-command')))).toEqual(['forecast']);
    await box.press('Escape');
    await palette.waitFor({ state: 'detached' });
    expect(await box.inputValue()).toBe('/fo');

    // Tab picks: the Weather command's form, its choices as a dropdown.
    await box.fill('');
    await box.pressSequentially('/fore');
    await palette.getByRole('option', { name: /\/forecast/ }).waitFor();
    await box.press('Tab');
    const form = page.getByTestId('command-form');
    await form.getByRole('combobox', { name: /city/ }).waitFor();
    expect(await form.getByRole('combobox', { name: /city/ }).locator('option').allTextContents()).toEqual(['Choose…', 'Lisbon', 'Oslo']);
    expect(
      await form
        .getByRole('combobox', { name: /metric/ })
        .locator('option')
        .allTextContents(),
    ).toEqual(['Not set', 'Yes', 'No']);
    // A member option picks among the server's members (bots too), by name.
    await expect
      .poll(() =>
        form
          .getByRole('combobox', { name: /notify/ })
          .locator('option')
          .allTextContents(),
      )
      .toEqual(['None', 'ana', 'ben', 'DiceBot', 'Weather']);
    // Esc goes back to the message box.
    await page.keyboard.press('Escape');
    await form.waitFor({ state: 'detached' });
    await box.waitFor();

    // A bot's new command (COMMANDS_UPDATE) is listed without a reload.
    await registerCommands(weather, [...WEATHER_COMMANDS, { name: 'alerts', description: 'Storm warnings' }]);
    await box.pressSequentially('/');
    await palette
      .getByRole('group', { name: /Weather/ })
      .getByRole('option', { name: /\/alerts/ })
      .waitFor();
    await registerCommands(weather, WEATHER_COMMANDS);
    await palette.getByRole('option', { name: /\/alerts/ }).waitFor({ state: 'detached' });
    expect(errors).toEqual([]);
  });

  it('checks options before sending, then the bot answers with buttons; a click updates the message, an ignored one says so', async () => {
    await postMessage(web.url, ben.auth, channelId, 'Rolling for initiative, everyone');
    const { page, errors } = await open(ana, `/s/${serverId}/c/${channelId}`);
    const box = composer(page);
    await box.click();
    await box.pressSequentially('/roll');
    await page
      .getByTestId('command-palette')
      .getByRole('option', { name: /\/roll/ })
      .waitFor();
    await box.press('Enter');
    const form = page.getByTestId('command-form');
    const sides = form.getByRole('textbox', { name: /sides/ });
    await expect.poll(() => sides.evaluate((el) => el === (globalThis as any).document.activeElement)).toBe(true);

    // Nothing typed: the required option says so, and nothing reaches the bot.
    const before = received.length;
    await sides.press('Enter');
    await form.getByText('This option is required.').waitFor();
    expect(await sides.getAttribute('aria-invalid')).toBe('true');
    // Out of range, and not a whole number.
    await sides.fill('500');
    await sides.press('Enter');
    await form.getByText('Must be between 2 and 100.').waitFor();
    await sides.fill('6.5');
    await sides.press('Enter');
    await form.getByText('Enter a whole number.').waitFor();
    expect(received.length).toBe(before);

    await sides.fill('20');
    await sides.press('Enter');
    await form.waitFor({ state: 'detached' });
    await receivedOne(received, (r) => r.name === 'roll' && r.options?.sides === 20);
    await page.locator('[data-message-id]', { hasText: 'You rolled a d20' }).waitFor();
    // Held by its id from here: the bot's edit changes its text.
    const answerId = await page.locator('[data-message-id]', { hasText: 'You rolled a d20' }).getAttribute('data-message-id');
    const answer = page.locator(`[data-message-id="${answerId}"]`);
    // Who used it, above the bot's message; the command's placeholder is gone.
    await answer.getByText('used').waitFor();
    expect(await answer.locator('[data-invoker]').textContent()).toContain('/roll');
    await page.locator('[data-pending-command]').waitFor({ state: 'detached' });

    // The buttons: styles, a disabled one, a link that opens a new tab safely.
    const components = answer.getByTestId('message-components');
    await expect.poll(() => components.getByRole('button', { name: 'Retired' }).isDisabled()).toBe(true);
    const link = components.getByRole('link', { name: /Rules/ });
    expect(await link.getAttribute('target')).toBe('_blank');
    expect(await link.getAttribute('rel')).toContain('noopener');
    await screenshot(page, 'commands-buttons');

    // The round trip: the bot edits the message in answer to the click.
    await components.getByRole('button', { name: /Roll again/ }).click();
    await receivedOne(received, (r) => r.customId === 'reroll');
    await answer.getByText('Rolled again: 4').waitFor();
    await expect.poll(() => components.getByRole('button', { name: /Roll again/ }).getAttribute('aria-busy')).toBe(null);

    // A select: its options with their descriptions; choosing one is sent with its value.
    await components.getByRole('button', { name: 'Choose a die' }).click();
    await components.getByRole('option', { name: /d6.*classic cube/ }).click();
    await receivedOne(received, (r) => r.customId === 'die' && r.values?.join() === '6');
    await answer.getByText('Switched to a d6').waitFor();

    // A click the bot never answers: loading, then "The bot did not respond" (about 3 s), dismissable.
    const ignore = components.getByRole('button', { name: 'Ignore me' });
    await ignore.click();
    expect(await ignore.getAttribute('aria-busy')).toBe('true');
    await receivedOne(received, (r) => r.customId === 'ignored');
    const failure = answer.getByRole('alert').filter({ hasText: 'The bot did not respond.' });
    await failure.waitFor({ timeout: 8000 });
    expect(await ignore.getAttribute('aria-busy')).toBe(null);
    await failure.getByRole('button', { name: 'Dismiss' }).click();
    await failure.waitFor({ state: 'detached' });
    expect(errors).toEqual([]);
  });

  it('an autocompleted option shows the bot’s suggestions as you type, and sends the value picked', async () => {
    const { page, errors } = await open(ana, `/s/${serverId}/c/${channelId}`);
    const box = composer(page);
    await box.click();
    await box.pressSequentially('/pi');
    await page
      .getByTestId('command-palette')
      .getByRole('option', { name: /\/pick/ })
      .waitFor();
    await box.press('Enter');
    const form = page.getByTestId('command-form');
    const fruit = form.getByRole('combobox', { name: /fruit/ });
    await fruit.pressSequentially('bl');
    const list = form.getByRole('listbox', { name: 'Suggestions for fruit' });
    await expect.poll(() => list.getByRole('option').allTextContents()).toEqual(['Blackberry', 'Blueberry']);
    await receivedOne(received, (r) => r.type === 'autocomplete' && r.focused === 'fruit' && r.options?.fruit === 'bl');
    await fruit.press('ArrowDown');
    await screenshot(page, 'commands-autocomplete');
    await fruit.press('Enter');
    expect(await fruit.inputValue()).toBe('Blueberry');
    await fruit.press('Enter');
    await page.locator('[data-message-id]', { hasText: 'You picked fruit:blueberry' }).waitFor();
    expect(errors).toEqual([]);
  });

  it('a deferred answer shows the bot thinking until it edits its answer in', async () => {
    slowGate = gate();
    const { page, errors } = await open(ana, `/s/${serverId}/c/${channelId}`);
    const box = composer(page);
    await box.click();
    // Typed out in full with a space: straight to the (empty) form.
    await box.pressSequentially('/slow ');
    await page.getByTestId('command-form').getByRole('button', { name: 'Send /slow' }).click();
    const thinking = page.locator('[data-message-id]', { hasText: 'DiceBot is thinking…' });
    await thinking.waitFor();
    const id = await thinking.getAttribute('data-message-id');
    slowGate.resolve();
    const answer = page.locator(`[data-message-id="${id}"]`);
    await answer.getByText('Worth the wait').waitFor();
    expect(await answer.textContent()).not.toContain('thinking');
    expect(await answer.locator('[data-invoker]').textContent()).toContain('/slow');
    expect(errors).toEqual([]);
  });

  it('an ephemeral answer shows for the invoker only, marked so, and can be dismissed', async () => {
    const anaPage = await open(ana, `/s/${serverId}/c/${channelId}`);
    const benPage = await open(ben, `/s/${serverId}/c/${channelId}`);
    await composer(benPage.page).waitFor();
    const box = composer(anaPage.page);
    await box.click();
    await box.pressSequentially('/secret');
    await anaPage.page
      .getByTestId('command-palette')
      .getByRole('option', { name: /\/secret/ })
      .waitFor();
    await box.press('Enter');
    await anaPage.page.getByTestId('command-form').getByRole('button', { name: 'Send /secret' }).click();
    const secret = anaPage.page.locator('[data-ephemeral="true"]', { hasText: 'treasure is under the old oak' });
    await secret.waitFor();
    await secret.getByText('Only you can see this').waitFor();
    await screenshot(anaPage.page, 'commands-ephemeral');

    // Ben sees a message sent after it, and not the secret.
    await postMessage(web.url, ana.auth, channelId, 'after the secret');
    await benPage.page.locator('[data-message-id]', { hasText: 'after the secret' }).waitFor();
    expect(await benPage.page.getByText('treasure is under the old oak').count()).toBe(0);
    // Nor is it in history.
    const history = await call(web.url, 'GET', `/channels/${channelId}/messages?limit=20`, { auth: ana.auth });
    expect(JSON.stringify(history.body)).not.toContain('treasure');

    await secret.getByRole('button', { name: 'Dismiss message' }).click();
    await secret.waitFor({ state: 'detached' });
    expect(anaPage.errors).toEqual([]);
    expect(benPage.errors).toEqual([]);
  });
});
