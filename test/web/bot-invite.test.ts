/**
 * A bot's invite link, Discord's `/oauth2/authorize?client_id=…&permissions=…&scope=…`, in
 * a real browser against a real Parley: the page names the bot, lists what it asks for,
 * offers only the servers the person owns, adds the bot with what is left ticked (checked
 * through the API); its error states; signing in from the link and coming back; and My
 * bots making the link. Screenshots land in test-results/web/ (desktop and 390 px).
 */
import { describe, expect, it } from 'vitest';
import { addBot, call, createBot, createServer, joinServer, registerUser, type TestBot, type TestUser } from '../factories.js';
import { browserSuite, screenshot } from './browser.js';

const bit = (n: number) => 1n << BigInt(n);
const P = {
  ADD_REACTIONS: bit(6),
  ADMINISTRATOR: bit(3),
  VIEW_CHANNEL: bit(10),
  SEND_MESSAGES: bit(11),
  MANAGE_MESSAGES: bit(13),
  EMBED_LINKS: bit(14),
  ATTACH_FILES: bit(15),
  READ_MESSAGE_HISTORY: bit(16),
  CREATE_PUBLIC_THREADS: bit(35),
  SEND_MESSAGES_IN_THREADS: bit(38),
  /** Discord's USE_EXTERNAL_EMOJIS: no Parley permission. */
  USE_EXTERNAL_EMOJIS: bit(18),
};
const DEFAULTS =
  P.VIEW_CHANNEL |
  P.SEND_MESSAGES |
  P.EMBED_LINKS |
  P.ATTACH_FILES |
  P.READ_MESSAGE_HISTORY |
  P.ADD_REACTIONS |
  P.CREATE_PUBLIC_THREADS |
  P.SEND_MESSAGES_IN_THREADS;

const web = browserSuite();

async function open(path: string, opts: { user?: TestUser; width?: number; height?: number } = {}) {
  return web.open({ token: opts.user?.token, path, height: opts.height ?? 1000, width: opts.width });
}

const link = (botId: string, bits: bigint, extra = '') =>
  `/oauth2/authorize?client_id=${botId}&permissions=${bits}&scope=bot%20applications.commands${extra}`;

/** A public bot of a developer's, with a name. */
async function publicBot(name: string): Promise<{ dev: TestUser; bot: TestBot }> {
  const dev = await registerUser(web.url);
  const bot = await createBot(web.url, dev, name);
  expect((await call(web.url, 'PATCH', `/bots/${bot.id}`, { auth: dev.auth, body: { public: true } })).status).toBe(200);
  return { dev, bot };
}

/** The bot's managed role's bits in a server, as the owner reads them. */
async function botBits(owner: TestUser, serverId: string, botId: string): Promise<bigint> {
  const r = await call(web.url, 'GET', `/servers/${serverId}/members`, { auth: owner.auth });
  expect(r.status).toBe(200);
  const roles = await call(web.url, 'GET', `/servers/${serverId}/roles`, { auth: owner.auth });
  const member = (r.body as Array<{ id: string; roles: string[] }>).find((m) => m.id === botId);
  expect(member, 'the bot is a member').toBeDefined();
  const own = (roles.body as Array<{ id: string; permissions: string; managed: boolean }>).filter(
    (x) => member!.roles.includes(x.id) && x.managed,
  );
  expect(own).toHaveLength(1);
  return BigInt(own[0]!.permissions);
}

describe('the bot invite page', () => {
  it('names the bot, offers the servers the person owns, and adds it with what is left ticked', async () => {
    const { dev, bot } = await publicBot('Weather Bot');
    const alice = await registerUser(web.url);
    const { server: club } = await createServer(web.url, alice, 'Book club');
    const { server: garden, general } = await createServer(web.url, alice, 'Garden');
    // A server she is only a member of: not hers to add bots to.
    const { server: devServer } = await createServer(web.url, dev, 'Developer lounge');
    await joinServer(web.url, dev, alice, devServer.id);

    const asked = P.MANAGE_MESSAGES | P.EMBED_LINKS | P.ATTACH_FILES | P.ADMINISTRATOR | P.USE_EXTERNAL_EMOJIS;
    const { page, errors } = await open(link(bot.id, asked), { user: alice });
    await page.getByRole('heading', { name: 'Add Weather Bot to a server' }).waitFor();
    await expect(page.getByText(`Made by ${dev.name}`).isVisible()).resolves.toBe(true);
    const select = page.getByLabel('Add to server');
    const options = await select.locator('option').allTextContents();
    expect(options.filter((o) => o !== 'Choose a server')).toEqual(['Book club', 'Garden']);
    // What it asks for, and the basics every member has, each ticked; the unknown Discord bit is named as left out.
    const listed = await page.locator('li[data-permission]').evaluateAll((els) => els.map((e) => e.getAttribute('data-permission')));
    expect(listed.sort()).toEqual(
      [
        'VIEW_CHANNEL',
        'READ_MESSAGE_HISTORY',
        'SEND_MESSAGES',
        'ADD_REACTIONS',
        'ATTACH_FILES',
        'EMBED_LINKS',
        'MANAGE_MESSAGES',
        'ADMINISTRATOR',
        'CREATE_PUBLIC_THREADS',
        'SEND_MESSAGES_IN_THREADS',
      ].sort(),
    );
    expect(await page.locator('li[data-permission] input:checked').count()).toBe(10);
    await page.getByText('Dangerous: Administrator allows everything').waitFor();
    await page.getByText('1 Discord permission Parley does not have').waitFor();
    await screenshot(page, 'bot-invite');

    // Untick Administrator and reactions, pick Garden, add.
    await page.locator('li[data-permission="ADMINISTRATOR"] input').uncheck();
    await page.locator('li[data-permission="ADD_REACTIONS"] input').uncheck();
    await select.selectOption({ label: 'Garden' });
    await page.getByRole('button', { name: 'Add to server' }).click();
    await page.getByText('Weather Bot was added to Garden').waitFor();
    await screenshot(page, 'bot-invite-added');
    expect(await botBits(alice, garden.id, bot.id)).toBe((DEFAULTS | asked) & ~(P.ADMINISTRATOR | P.ADD_REACTIONS | P.USE_EXTERNAL_EMOJIS));
    expect(
      (await call(web.url, 'GET', `/servers/${club.id}/members`, { auth: alice.auth })).body.map((m: { id: string }) => m.id),
    ).not.toContain(bot.id);
    // And it can reply with an embed there.
    const embed = await call(web.url, 'POST', `/channels/${general.id}/messages`, {
      auth: bot.auth,
      body: { content: 'forecast', embeds: [{ title: 'Sunny' }] },
    });
    expect(embed.status, embed.text).toBe(201);

    // Server settings' four boxes change only their own bits: the link's MANAGE_MESSAGES stays.
    await page.goto(`${web.url}/s/${garden.id}/settings/bots`);
    const row = page.locator(`li[data-bot-id="${bot.id}"]`);
    await row.getByLabel('Attach files').uncheck();
    await row.getByRole('button', { name: 'Save permissions' }).click();
    await expect
      .poll(() => botBits(alice, garden.id, bot.id))
      .toBe((DEFAULTS | asked) & ~(P.ADMINISTRATOR | P.ADD_REACTIONS | P.USE_EXTERNAL_EMOJIS | P.ATTACH_FILES));

    // The same link again: the bot is already there.
    await page.goto(web.url + link(bot.id, asked, `&guild_id=${garden.id}`));
    await expect(page.getByLabel('Add to server').inputValue()).resolves.toBe(garden.id);
    await page.getByRole('button', { name: 'Add to server' }).click();
    await page.getByRole('alert').filter({ hasText: 'Weather Bot is already in Garden' }).waitFor();
    expect(errors).toEqual([]);
  });

  it('fits a 390 px phone, with guild_id and disable_guild_select fixing the server', async () => {
    const { bot } = await publicBot('Moderation Helper With A Rather Long Name');
    const bob = await registerUser(web.url);
    await createServer(web.url, bob, 'Other');
    const { server } = await createServer(web.url, bob, 'Neighbourhood watch');
    const { page, errors } = await open(
      link(bot.id, P.MANAGE_MESSAGES | P.ADMINISTRATOR, `&guild_id=${server.id}&disable_guild_select=true`),
      { user: bob, width: 390, height: 1400 },
    );
    await page.getByRole('button', { name: 'Add to server' }).waitFor();
    const select = page.getByLabel('Add to server');
    await expect(select.isDisabled()).resolves.toBe(true);
    await expect(select.inputValue()).resolves.toBe(server.id);
    const overflow = await page.evaluate(() => {
      const d = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document;
      return d.documentElement.scrollWidth - d.documentElement.clientWidth;
    });
    expect(overflow).toBe(0);
    await page.screenshot({ path: `${(await screenshot(page, 'bot-invite-phone')).replace(/\.png$/, '')}-full.png`, fullPage: true });
    await page.getByRole('button', { name: 'Add to server' }).click();
    await page.getByText(/was added to Neighbourhood watch/).waitFor();
    expect(await botBits(bob, server.id, bot.id)).toBe(DEFAULTS | P.MANAGE_MESSAGES | P.ADMINISTRATOR);
    expect(errors).toEqual([]);
  });

  it('says so when the link names no bot, a private bot of someone else, or the person owns no server', async () => {
    const carol = await registerUser(web.url);
    const { page } = await open('/oauth2/authorize?client_id=1234567890123456789&permissions=0&scope=bot', { user: carol });
    await page.getByRole('heading', { name: 'This link names no bot' }).waitFor();
    await page.getByText('No bot here has the id 1234567890123456789').waitFor();

    const other = await registerUser(web.url);
    const hidden = await createBot(web.url, other, 'Secret Bot');
    await page.goto(web.url + link(hidden.id, 0n));
    await page.getByText(`No bot here has the id ${hidden.id}`).waitFor();

    await page.goto(`${web.url}/oauth2/authorize?permissions=8&scope=bot`);
    await page.getByText('The link has no client_id').waitFor();

    const { bot } = await publicBot('Lonely Bot');
    await page.goto(web.url + link(bot.id, 0n));
    await page.getByRole('heading', { name: 'No server to add it to' }).waitFor();
    await screenshot(page, 'bot-invite-no-server');
  });

  it('sends a signed-out person to log in and back to the bot', async () => {
    const { bot } = await publicBot('Quiz Bot');
    const dave = await registerUser(web.url);
    const { server } = await createServer(web.url, dave, 'Quiz night');
    const { page, errors } = await open(link(bot.id, 0n));
    await page.getByText('Log in to add a bot to one of your servers').waitFor();
    await page.getByLabel('Username').fill(dave.name);
    await page.getByLabel('Password', { exact: true }).fill('correct horse battery');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { name: 'Add Quiz Bot to a server' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/oauth2/authorize');
    // A link asking for nothing offers the default set: a bot that can take part in conversations.
    // Its thread bits too: posting in threads and starting them (docs/threads.md#permissions).
    expect(await page.locator('li[data-permission] input:checked').count()).toBe(8);
    await page.getByRole('button', { name: 'Add to server' }).click();
    await page.getByText('Quiz Bot was added to Quiz night').waitFor();
    expect(await botBits(dave, server.id, bot.id)).toBe(DEFAULTS);
    expect(errors).toEqual([]);
  });
});

describe('My bots: the invite link', () => {
  it('makes the link with the permissions ticked, which the invite page then asks for', async () => {
    const erin = await registerUser(web.url);
    const bot = await createBot(web.url, erin, 'Erin Bot');
    const { server } = await createServer(web.url, erin, 'Erin’s place');
    const { page, errors } = await open('/my-bots', { user: erin });
    await page.getByRole('button', { name: 'Invite link for Erin Bot' }).click();
    const dialog = page.getByRole('dialog', { name: 'Invite link for Erin Bot' });
    await dialog.waitFor();
    const field = dialog.getByLabel('Invite link', { exact: true });
    const first = new URL(await field.inputValue());
    expect(first.pathname).toBe('/oauth2/authorize');
    expect(first.searchParams.get('client_id')).toBe(bot.id);
    expect(BigInt(first.searchParams.get('permissions') ?? '')).toBe(DEFAULTS);
    expect(first.searchParams.get('scope')).toBe('bot applications.commands');
    await dialog.getByLabel('Delete other people’s messages').check();
    await dialog.getByLabel('Add reactions').uncheck();
    const asked = BigInt(new URL(await field.inputValue()).searchParams.get('permissions') ?? '');
    expect(asked).toBe((DEFAULTS | P.MANAGE_MESSAGES) & ~P.ADD_REACTIONS);
    await screenshot(page, 'bot-invite-my-bots');

    // The link works for its owner (the bot is private): the page asks for what was ticked.
    await page.goto(await field.inputValue());
    await page.getByText('Private: only you can add it.').waitFor();
    await page.getByRole('button', { name: 'Add to server' }).click();
    await page.getByText('Erin Bot was added to Erin’s place').waitFor();
    // ADD_REACTIONS is a basic the page offers back; the rest is what the link asked.
    expect(await botBits(erin, server.id, bot.id)).toBe(asked | P.ADD_REACTIONS);
    expect(errors).toEqual([]);
    // Not adding it twice through the API either.
    await expect(addBot(web.url, erin, server.id, bot.id)).rejects.toThrow(/409/);
  });
});
