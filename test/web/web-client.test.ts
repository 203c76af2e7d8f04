/**
 * The web client in a real browser (Debian's Chromium via playwright-core) against a
 * real Parley on a temporary data directory. Screenshots land in test-results/web/.
 */
import type { Page, WebSocketRoute } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import {
  addBot,
  call,
  createBot,
  createChannel,
  createServer,
  createWebhook,
  joinServer,
  postMessage,
  registerUser,
  upload,
  type TestUser,
} from '../factories.js';
import { browserSuite, makePng, screenshot, type OpenPage } from './browser.js';

const web = browserSuite();

async function open(
  user: TestUser | null,
  path = '/',
  opts: { colorScheme?: 'light' | 'dark'; width?: number; height?: number; prepare?: (page: Page) => Promise<void> } = {},
) {
  const o = await web.open({ token: user?.token, path, ...opts });
  return o;
}

/** Every message in the list (each carries its id; styling classes are CSS-module hashes). */
function messages(page: Page) {
  return page.locator('[data-message-id]');
}

/** The message list item whose text contains `text`. */
function message(page: Page, text: string) {
  return messages(page).filter({ hasText: text });
}

type Frame = string | Buffer;
const opOf = (msg: Frame) => JSON.parse(typeof msg === 'string' ? msg : msg.toString()).op as string;

/**
 * The page's gateway connections through a proxy the test drives: the ops of each
 * connection's client frames, the page side of each (to drop it), and `holdNext()`, which
 * keeps the next connection waiting until `release()`. `fromPage` and `fromServer` may
 * answer a frame themselves (returning true) instead of passing it on; `onPageClose`
 * hears the page close a connection. Install it with `open(…, { prepare: proxy.attach })`.
 */
function gatewayProxy(
  hooks: {
    fromPage?: (op: string, ws: WebSocketRoute) => boolean;
    fromServer?: (msg: Frame, ws: WebSocketRoute) => boolean;
    onPageClose?: (connection: number) => void;
  } = {},
) {
  const sentOps: string[][] = [];
  const pageSides: WebSocketRoute[] = [];
  let hold: Promise<void> | undefined;
  let release: () => void = () => undefined;
  return {
    sentOps,
    pageSides,
    holdNext() {
      hold = new Promise<void>((resolve) => {
        release = resolve;
      });
    },
    release: () => release(),
    attach: (page: Page) =>
      page.routeWebSocket(/\/gateway$/, async (ws) => {
        const connection = sentOps.length;
        const ops: string[] = [];
        sentOps.push(ops);
        pageSides.push(ws);
        const gate = hold;
        hold = undefined;
        await gate;
        const upstream = ws.connectToServer();
        ws.onMessage((msg) => {
          const op = opOf(msg);
          ops.push(op);
          if (!hooks.fromPage?.(op, ws)) upstream.send(msg);
        });
        // A handler replaces Playwright's own forwarding in that direction, so only with a hook.
        const { fromServer, onPageClose } = hooks;
        if (onPageClose)
          ws.onClose(() => {
            onPageClose(connection);
            upstream.close();
          });
        if (fromServer) upstream.onMessage((msg) => fromServer(msg, ws) || ws.send(msg));
      }),
  };
}

/** The BOT badge, found by its tooltip. */
const BOT_BADGE = 'Posted by a bot or webhook';

async function noPageErrors(o: OpenPage) {
  expect(o.errors, `uncaught errors in the page: ${o.errors.join('\n')}`).toEqual([]);
}

describe('web client', () => {
  it('registers, logs out and logs in again through the forms', async () => {
    const o = await open(null, '/register');
    const { page } = o;
    const name = `ada${Date.now().toString(36)}`;
    await page.getByLabel('Username').fill(name);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: new RegExp(`Welcome to Parley, ${name}`) }).waitFor();
    await screenshot(page, 'welcome');

    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('heading', { name: 'Welcome back' }).waitFor();

    // A wrong password is a readable message, not a blank page.
    await page.getByLabel('Username').fill(name);
    await page.getByLabel('Password').fill('wrong password');
    await page.getByRole('button', { name: 'Log in' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect((await alert.textContent())?.trim().length).toBeGreaterThan(3);
    await screenshot(page, 'login-error');

    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { name: new RegExp(`Welcome to Parley, ${name}`) }).waitFor();

    // Create a server from the welcome screen: it opens on its first channel.
    // ...using only the keyboard: the dialog opens with the cursor in its field.
    await page.getByRole('button', { name: 'Create a server' }).first().focus();
    await page.keyboard.press('Enter');
    await page.getByRole('dialog', { name: 'Create a server' }).waitFor();
    const focused = await page.evaluate(() => (globalThis as any).document.activeElement?.id as string | undefined);
    expect(focused).toBe(await page.getByLabel('Server name').getAttribute('id'));
    await page.keyboard.type('Analytical Engines');
    await page.keyboard.press('Enter');
    const composer = page.getByRole('textbox', { name: /^Message #/ });
    await composer.waitFor();
    await page.getByRole('heading', { name: 'Analytical Engines' }).waitFor();
    // The composer of the opened channel has the focus, so typing goes straight in.
    await page.keyboard.type('first!');
    await page.keyboard.press('Enter');
    await message(page, 'first!').waitFor();
    await noPageErrors(o);
  });
  it('owner creates a webhook in settings, copies its URL, and a POST to it appears live with the BOT badge', async () => {
    const owner = await registerUser(web.url);
    const { server, general } = await createServer(web.url, owner, 'Webhook Works');
    await postMessage(web.url, owner.auth, general.id, 'Morning! The deploy pipeline will post here.');
    const o = await open(owner, `/s/${server.id}/c/${general.id}`);
    const { page } = o;
    await page.getByRole('textbox', { name: 'Message #general' }).waitFor();

    // Settings open on the server's overview; webhooks have their own section.
    await page.getByRole('link', { name: 'Server settings' }).click();
    await page.getByRole('heading', { name: 'Overview', level: 2 }).waitFor();
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('heading', { name: 'Webhooks', level: 2 }).waitFor();
    await page.getByLabel('Webhook name').fill('Deploy Bot');
    await page.getByLabel('Channel', { exact: true }).selectOption({ label: '#general' });
    await page.getByRole('button', { name: 'Create webhook' }).click();

    const panel = page.getByRole('region', { name: 'New webhook URL' });
    await panel.waitFor();
    expect(await panel.textContent()).toContain('You will not see it again');
    await panel.getByRole('button', { name: 'Copy Webhook URL' }).click();
    await panel.getByText('Webhook URL copied to the clipboard').waitFor();
    const copied: string = await page.evaluate(() => (globalThis as any).navigator.clipboard.readText());
    expect(copied).toMatch(new RegExp(`^${web.url}/webhooks/[^/]+/[^/]+$`));
    expect(await panel.getByLabel('Webhook URL', { exact: true }).inputValue()).toBe(copied);
    // Beside it, the same webhook as Discord tools want it, with its own Copy button.
    await panel.getByRole('button', { name: 'Copy Discord-style URL' }).click();
    await panel.getByText('Discord-style URL copied to the clipboard').waitFor();
    const discordUrl: string = await page.evaluate(() => (globalThis as any).navigator.clipboard.readText());
    expect(discordUrl).toBe(copied.replace(`${web.url}/webhooks/`, `${web.url}/api/webhooks/`));
    expect(await panel.getByLabel('Discord-style URL', { exact: true }).inputValue()).toBe(discordUrl);

    // The list shows name, channel, creator and date.
    const row = page.locator('tbody tr').filter({ hasText: 'Deploy Bot' });
    await row.waitFor();
    expect(await row.locator('select').inputValue()).toBe(general.id);
    expect(await row.textContent()).toContain(owner.name);
    await screenshot(page, 'settings-webhook-created');

    // Once dismissed, the URLs are gone for good.
    await panel.getByRole('button', { name: 'I have copied it' }).click();
    expect(await page.getByText(copied).count()).toBe(0);
    expect(await page.locator(`input[value="${copied}"]`).count()).toBe(0);
    expect(await page.locator(`input[value="${discordUrl}"]`).count()).toBe(0);

    await page.getByRole('link', { name: /Close settings/ }).click();
    await page.getByRole('textbox', { name: 'Message #general' }).waitFor();

    // A curl-like POST from outside the browser.
    const res = await fetch(copied, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ content: 'Deploy of **v2.4.0** finished in `3m 12s` ✅' }),
    });
    expect(res.status).toBe(200);
    const posted = (await res.json()) as { webhookId?: string };
    expect(posted.webhookId).toBeTruthy();
    // The Discord-style URL answers as Discord does: 204 unless the caller waits.
    const viaDiscord = await fetch(discordUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ content: 'posted through the Discord-style URL' }),
    });
    expect(viaDiscord.status).toBe(204);

    const live = message(page, 'Deploy of');
    await live.waitFor();
    expect(await live.getAttribute('data-webhook')).toBe('true');
    expect(await live.getByText('Deploy Bot', { exact: true }).count()).toBe(1);
    expect((await live.getByTitle(BOT_BADGE).textContent())?.trim()).toBe('BOT');
    expect(await live.locator('strong').textContent()).toBe('v2.4.0');
    expect(await live.locator('code').textContent()).toBe('3m 12s');
    await screenshot(page, 'chat-webhook-message');
    await noPageErrors(o);
  });

  it('owner renames, re-points and deletes a webhook; the deleted URL stops working', async () => {
    const owner = await registerUser(web.url);
    const { server, general } = await createServer(web.url, owner, 'Hooks Galore');
    const alerts = await createChannel(web.url, owner, server.id, 'alerts');
    const hook = await createWebhook(web.url, owner, server.id, general.id, 'CI');
    const o = await open(owner, `/s/${server.id}/settings/webhooks`);
    const { page } = o;
    const row = page.locator('tbody tr').filter({ hasText: 'CI' });
    await row.waitFor();

    await row.getByRole('button', { name: 'Rename CI' }).click();
    await row.getByLabel('New name for CI').fill('CI Pipeline');
    await row.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Webhook renamed to “CI Pipeline”.').waitFor();
    const renamed = page.locator('tbody tr').filter({ hasText: 'CI Pipeline' });
    // Picking a channel moves nothing yet: Move, then a confirmation.
    await renamed.getByRole('combobox', { name: 'Channel for CI Pipeline' }).selectOption(alerts.id);
    await renamed.getByRole('button', { name: 'Move', exact: true }).click();
    await page.getByRole('dialog', { name: 'Move webhook' }).getByRole('button', { name: 'Move to #alerts' }).click();
    await page.getByText('“CI Pipeline” now posts to #alerts.').waitFor();

    const listed = await call(web.url, 'GET', `/servers/${server.id}/webhooks`, { auth: owner.auth });
    expect(listed.body).toEqual([expect.objectContaining({ id: hook.id, name: 'CI Pipeline', channelId: alerts.id })]);
    expect(JSON.stringify(listed.body)).not.toContain(hook.token);

    const moved = await call(web.url, 'POST', `/webhooks/${hook.id}/${hook.token}`, { body: { content: 'now in alerts' } });
    expect(moved.status).toBe(200);
    expect(moved.body.channelId).toBe(alerts.id);
    expect(moved.body.author.name).toBe('CI Pipeline');

    await renamed.getByRole('button', { name: 'Delete CI Pipeline' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete webhook' });
    await dialog.waitFor();
    const text = (await dialog.textContent()) ?? '';
    expect(text).toContain('stops working at once');
    expect(text).toContain('cannot be restored');
    await screenshot(page, 'settings-webhook-delete-confirm');
    await dialog.getByRole('button', { name: 'Delete webhook' }).click();
    await page.getByText('No webhooks yet.').waitFor();

    const gone = await call(web.url, 'POST', `/webhooks/${hook.id}/${hook.token}`, { body: { content: 'hello?' } });
    expect(gone.status).toBe(404);
    await noPageErrors(o);
  });

  it('a member who is not the owner never sees the settings entry point', async () => {
    const owner = await registerUser(web.url);
    const { server, general } = await createServer(web.url, owner, 'Owner Only');
    const invite = await call(web.url, 'POST', `/servers/${server.id}/invites`, { auth: owner.auth });
    expect(invite.status).toBe(201);
    // Members may not invite either: @everyone keeps its defaults but CREATE_INVITE (bit 0).
    const everyone = await call(web.url, 'PATCH', `/servers/${server.id}/roles/${server.id}`, {
      auth: owner.auth,
      body: { permissions: (2147601473n & ~1n).toString() },
    });
    expect(everyone.status, everyone.text).toBe(200);

    // Arrive through the invite link while logged out, create an account, join.
    const o = await open(null, `/invite/${invite.body.code}`);
    const { page } = o;
    await page.getByText('You have been invited to join Owner Only.').waitFor();
    const name = `grace${Date.now().toString(36)}`;
    await page.getByLabel('Username').fill(name);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('textbox', { name: 'Message #general' }).waitFor();
    expect(page.url()).toContain(`/s/${server.id}/c/${general.id}`);

    await page.getByRole('heading', { name: 'Owner Only' }).waitFor();
    expect(await page.getByRole('link', { name: 'Server settings' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Invite people' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Create a channel' }).count()).toBe(0);
    expect(await page.getByText('Server settings').count()).toBe(0);
    await screenshot(page, 'member-view');

    // Typing the address is not a way in either.
    await page.goto(`${web.url}/s/${server.id}/settings/webhooks`);
    await page.getByRole('heading', { name: 'Not available' }).waitFor();
    await page.getByText('Your roles in Owner Only do not include managing it.').waitFor();
    expect(await page.getByLabel('Webhook name').count()).toBe(0);
    await noPageErrors(o);
  }, 30_000);

  it('renders a bot message with Markdown, an inline image, a file and reactions', async () => {
    const owner = await registerUser(web.url);
    const { server, general } = await createServer(web.url, owner, 'Bot Land');
    const bot = await createBot(web.url, owner, 'Helper');
    await addBot(web.url, owner, server.id, bot.id);
    const png = await upload(web.url, bot.auth, makePng(), 'chart.png', 'image/png');
    expect(png.status).toBe(200);
    const txt = await upload(web.url, bot.auth, 'line one\nline two\n'.repeat(200), 'build-log.txt', 'text/plain');
    expect(txt.status).toBe(200);

    const o = await open(owner, `/s/${server.id}/c/${general.id}`);
    const { page } = o;
    await page.getByRole('textbox', { name: 'Message #general' }).waitFor();

    const content = [
      '**Build passed** on _main_ with `npm test`',
      '> 212 tests, 0 failures',
      '- unit: ok',
      '- browser: ok',
      '1. first',
      '2. second',
      '```',
      'const answer = 42; // <b>not bold</b>',
      '```',
      'Details: [the report](https://example.com/report) or https://example.org/runs/7',
    ].join('\n');
    const r = await call(web.url, 'POST', `/channels/${general.id}/messages`, {
      auth: bot.auth,
      body: {
        content,
        attachments: [
          { url: png.body.url, filename: 'chart.png' },
          { url: txt.body.url, filename: 'build-log.txt' },
        ],
      },
    });
    expect(r.status).toBe(201);
    await call(web.url, 'PUT', `/channels/${general.id}/messages/${r.body.id}/reactions/${encodeURIComponent('🎉')}`, { auth: bot.auth });

    const m = message(page, 'Build passed');
    await m.waitFor();
    expect(await m.getByText('Helper', { exact: true }).count()).toBe(1);
    expect(await m.getByTitle(BOT_BADGE).count()).toBe(1);
    expect(await m.locator('strong').first().textContent()).toBe('Build passed');
    expect(await m.locator('em').first().textContent()).toBe('main');
    expect(await m.locator('code.md-code').first().textContent()).toBe('npm test');
    expect(await m.locator('blockquote').textContent()).toContain('212 tests');
    expect(await m.locator('ul > li').count()).toBe(2);
    expect(await m.locator('ol > li').count()).toBe(2);
    // The message's own code block; the text file's preview below is a code block too.
    expect(await m.locator('pre code').first().textContent()).toBe('const answer = 42; // <b>not bold</b>');
    await m.getByTestId('text-preview').getByText('line one').first().waitFor();
    expect(await m.locator('a[href="https://example.com/report"]').textContent()).toBe('the report');
    expect(await m.locator('a[href="https://example.org/runs/7"]').count()).toBe(1);
    const rel = await m.locator('a[href="https://example.com/report"]').getAttribute('rel');
    expect(rel).toContain('noopener');

    const img = m.getByRole('img', { name: 'chart.png' });
    await img.waitFor();
    expect(await img.getAttribute('alt')).toBe('chart.png');
    await expect.poll(() => img.evaluate((el) => (el as any).naturalWidth as number)).toBe(160);
    const file = m.getByRole('link', { name: /build-log\.txt/ });
    expect(await file.getByText('build-log.txt', { exact: true }).count()).toBe(1);
    expect(await file.getByText(/KB$/).count()).toBe(1);

    // The bot's reaction shows as a chip; clicking it adds mine, clicking again removes it.
    const chip = m.getByRole('button', { name: /🎉 1 reaction/ });
    await chip.waitFor();
    await chip.click();
    const both = m.getByRole('button', { name: /🎉 2 reactions/ });
    await both.waitFor();
    expect(await both.getAttribute('aria-pressed')).toBe('true');
    await page.mouse.move(5, 795);
    await screenshot(page, 'chat-bot-markdown');
    await both.click();
    await m.getByRole('button', { name: /🎉 1 reaction/ }).waitFor();
    await noPageErrors(o);
  });

  it('shows <script> in content, webhook names and embeds as text, never as markup', async () => {
    const owner = await registerUser(web.url);
    const { server, general } = await createServer(web.url, owner, 'Safe Harbour');
    const evilName = '<script>window.xssHit=1</script><img src=x onerror="window.xssHit=2">';
    const hook = await createWebhook(web.url, owner, server.id, general.id, evilName);
    const thumb = await upload(web.url, owner.auth, makePng(80, 80), 'thumb.png', 'image/png');
    expect(thumb.status).toBe(200);

    const o = await open(owner, `/s/${server.id}/c/${general.id}`);
    const { page } = o;
    await page.getByRole('textbox', { name: 'Message #general' }).waitFor();

    const evilContent = [
      '<script>window.xssHit=3</script>',
      '<img src=x onerror="window.xssHit=4">',
      '[click me](javascript:window.xssHit=5)',
      '<a href="javascript:window.xssHit=6">link</a>',
    ].join('\n');
    const res = await call(web.url, 'POST', `/webhooks/${hook.id}/${hook.token}`, {
      body: {
        content: evilContent,
        embeds: [
          {
            title: '<b>Incident</b> report',
            url: 'https://status.example.com/incidents/1',
            description: 'Status: **resolved** <script>window.xssHit=8</script>',
            color: 0xe67e22,
            fields: [
              { name: 'Service', value: '`api`', inline: true },
              { name: 'Duration', value: '14 min', inline: true },
              { name: '<i>Note</i>', value: '<iframe src="javascript:window.xssHit=9"></iframe>' },
            ],
            footer: { text: 'status page' },
            author: { name: '<u>Ops</u>', url: 'https://example.com/ops' },
            thumbnail: { url: thumb.body.url },
          },
        ],
      },
    });
    expect(res.status, res.text).toBe(200);

    const m = page.locator('[data-message-id][data-webhook="true"]').last();
    await m.waitFor();
    expect(await m.getByText(evilName, { exact: true }).count()).toBe(1);
    expect(await m.getByTitle(BOT_BADGE).count()).toBe(1);
    const contentText = (await m.locator('.md').first().textContent()) ?? '';
    expect(contentText).toContain('<script>window.xssHit=3</script>');
    expect(contentText).toContain('<img src=x onerror="window.xssHit=4">');
    expect(contentText).toContain('[click me](javascript:window.xssHit=5)');

    const embed = m.getByRole('article', { name: /^Embed/ });
    await embed.waitFor();
    const title = embed.getByRole('link', { name: '<b>Incident</b> report', exact: true });
    expect(await title.textContent()).toBe('<b>Incident</b> report');
    expect(await title.getAttribute('href')).toBe('https://status.example.com/incidents/1');
    expect(await embed.getByRole('link', { name: '<u>Ops</u>', exact: true }).textContent()).toBe('<u>Ops</u>');
    await expect.poll(() => embed.locator(`img[src="${thumb.body.url}"]`).evaluate((el) => (el as any).naturalWidth as number)).toBe(80);
    const resolved = embed.getByText('resolved', { exact: true });
    expect(await resolved.evaluate((el) => el.tagName)).toBe('STRONG');
    expect(await embed.textContent()).toContain('<script>window.xssHit=8</script>');
    // Inline fields share a row; the third (not inline) starts below them.
    const fieldTop = async (name: string) => (await embed.getByText(name, { exact: true }).boundingBox())!.y;
    expect(await fieldTop('Duration')).toBe(await fieldTop('Service'));
    expect(await fieldTop('<i>Note</i>')).toBeGreaterThan(await fieldTop('Service'));
    expect(await embed.getByText(/<iframe/).count()).toBe(1);
    const border = await embed.evaluate((el) => (globalThis as any).getComputedStyle(el).borderInlineStartColor as string);
    expect(border).toBe('rgb(230, 126, 34)');

    // Nothing was parsed as markup and nothing ran.
    const injected = await page.evaluate(() => {
      const doc = (globalThis as any).document;
      return {
        scripts: doc.querySelectorAll('.message-list script').length as number,
        imgs: doc.querySelectorAll('.message-list img[src="x"]').length as number,
        iframes: doc.querySelectorAll('.message-list iframe').length as number,
        jsLinks: doc.querySelectorAll('a[href^="javascript"]').length as number,
        bold: doc.querySelectorAll('.embed-title b, .message-author script').length as number,
        pwned: (globalThis as any).xssHit ?? null,
      };
    });
    expect(injected).toEqual({ scripts: 0, imgs: 0, iframes: 0, jsLinks: 0, bold: 0, pwned: null });
    await screenshot(page, 'chat-xss-as-text');

    // The name is text in the settings list too.
    await page.goto(`${web.url}/s/${server.id}/settings/webhooks`);
    const listed = page.getByRole('table', { name: 'Webhooks of Safe Harbour' }).getByText(evilName, { exact: true });
    await listed.waitFor();
    expect(await listed.textContent()).toBe(evilName);
    expect(await page.evaluate(() => (globalThis as any).xssHit ?? null)).toBeNull();
    await noPageErrors(o);
  });
  it('chats: Enter sends, Shift+Enter adds a line, edit, delete, react, attach, typing', async () => {
    const owner = await registerUser(web.url);
    const { server, general } = await createServer(web.url, owner, 'Chatty');
    const bot = await createBot(web.url, owner, 'Typist');
    await addBot(web.url, owner, server.id, bot.id);
    const o = await open(owner, `/s/${server.id}/c/${general.id}`);
    const { page } = o;
    const box = page.getByRole('textbox', { name: 'Message #general' });
    await box.waitFor();

    await box.click();
    await page.keyboard.type('Hello **team**');
    await page.keyboard.press('Shift+Enter');
    await page.keyboard.type('second line');
    expect(await box.inputValue()).toBe('Hello **team**\nsecond line');
    await page.keyboard.press('Enter');
    await message(page, 'second line').waitFor();
    const sent = page.locator(`[data-message-id="${await message(page, 'second line').getAttribute('data-message-id')}"]`);
    expect(await box.inputValue()).toBe('');
    expect(await sent.locator('strong').textContent()).toBe('team');
    expect(await sent.locator('.md br').count()).toBe(1);

    // Edit with the pencil; Enter saves.
    await sent.hover();
    await sent.getByRole('button', { name: 'Edit message' }).click();
    const edit = sent.getByRole('textbox', { name: 'Edit message' });
    await edit.fill('Hello *everyone*');
    await edit.press('Enter');
    const edited = sent;
    await edited.getByTitle(/^Edited /).waitFor();
    expect(await edited.locator('.md').textContent()).toBe('Hello everyone (edited)');
    expect(await edited.locator('em').textContent()).toBe('everyone');

    // Up arrow in the empty composer edits the last own message; Escape cancels.
    await box.click();
    await page.keyboard.press('ArrowUp');
    await edited.getByRole('textbox', { name: 'Edit message' }).waitFor();
    await page.keyboard.press('Escape');
    expect(await edited.getByRole('textbox', { name: 'Edit message' }).count()).toBe(0);

    // React through the picker.
    await edited.hover();
    await edited.getByRole('button', { name: 'Add reaction' }).click();
    await page.getByRole('button', { name: 'React with thumbs up' }).click();
    const chip = edited.getByRole('button', { name: /👍 1 reaction/ });
    await chip.waitFor();
    expect(await chip.getAttribute('aria-pressed')).toBe('true');

    // Attach a file: upload first, then send it with the message.
    await page.locator('input[type=file]').setInputFiles({ name: 'notes.md', mimeType: 'text/markdown', buffer: Buffer.from('# Notes\n') });
    const pending = page.getByRole('list', { name: 'Attachments to send' });
    await pending.getByText('notes.md').waitFor();
    await expect.poll(() => pending.getByText('Uploading…').count()).toBe(0);
    await box.click();
    await page.keyboard.type('meeting notes attached');
    await page.keyboard.press('Enter');
    const withFile = message(page, 'meeting notes attached');
    const notes = withFile.getByRole('link', { name: /notes\.md/ });
    await notes.waitFor();
    expect(await notes.getByText('notes.md', { exact: true }).count()).toBe(1);

    // A message in another channel marks that channel unread until it is opened.
    const random = await createChannel(web.url, owner, server.id, 'random');
    await page.getByRole('link', { name: 'random', exact: true }).waitFor();
    await postMessage(web.url, bot.auth, random.id, 'psst, over here');
    await page.getByRole('link', { name: 'random (unread)' }).waitFor();
    await page.getByRole('link', { name: 'random (unread)' }).click();
    await message(page, 'psst, over here').waitFor();
    await page.getByRole('link', { name: 'random', exact: true }).waitFor();
    await page.getByRole('link', { name: 'general', exact: true }).click();
    await box.waitFor();

    // Someone else types: "X is typing..." shows.
    const typing = await call(web.url, 'POST', `/channels/${general.id}/typing`, { auth: bot.auth });
    expect(typing.status).toBe(204);
    await page.getByText('Typist is typing…').waitFor();
    await screenshot(page, 'chat-typing');

    // A message from the typist clears the indicator at once.
    await postMessage(web.url, bot.auth, general.id, 'done typing');
    await message(page, 'done typing').waitFor();
    expect(await page.getByText('Typist is typing…').count()).toBe(0);

    // Delete asks first.
    await edited.hover();
    await edited.getByRole('button', { name: 'Delete message' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete message' });
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await expect.poll(() => message(page, 'Hello everyone').count()).toBe(0);
    const left = await call(web.url, 'GET', `/channels/${general.id}/messages`, { auth: owner.auth });
    expect(left.body.map((m: { content: string }) => m.content)).toEqual(['done typing', 'meeting notes attached']);
    await noPageErrors(o);
  }, 40_000);

  it('the typing indicator expires after about 8 seconds', async () => {
    const owner = await registerUser(web.url);
    const { server, general } = await createServer(web.url, owner, 'Quiet');
    const bot = await createBot(web.url, owner, 'Ghost');
    await addBot(web.url, owner, server.id, bot.id);
    const o = await open(owner, `/s/${server.id}/c/${general.id}`);
    const { page } = o;
    await page.getByRole('textbox', { name: 'Message #general' }).waitFor();
    // Typing reaches the sessions looking at the channel (their focus frame), and is not
    // replayed: under load the page's focus can reach the service after a first POST. The bot
    // types again until the page shows it, as a bot that keeps typing does.
    await expect
      .poll(
        async () => {
          await call(web.url, 'POST', `/channels/${general.id}/typing`, { auth: bot.auth });
          return page.getByText('Ghost is typing…').isVisible();
        },
        { timeout: 15_000, interval: 1000 },
      )
      .toBe(true);
    const shown = Date.now();
    await page.getByText('Ghost is typing…').waitFor({ state: 'detached', timeout: 15_000 });
    const lasted = Date.now() - shown;
    expect(lasted).toBeGreaterThan(6000);
    expect(lasted).toBeLessThan(11000);
    await noPageErrors(o);
  }, 30_000);

  it('loads older messages when scrolled to the top, newest at the bottom', async () => {
    const owner = await registerUser(web.url);
    const { server, general } = await createServer(web.url, owner, 'History');
    for (let i = 1; i <= 130; i++) await postMessage(web.url, owner.auth, general.id, `Message number ${i}`);
    const o = await open(owner, `/s/${server.id}/c/${general.id}`);
    const { page } = o;
    const last = message(page, 'Message number 130');
    await last.waitFor();
    const scroller = page.getByRole('log', { name: 'Messages in #general' });
    // Settled where it opened (a scroll before then is undone).
    await page.locator('[role="log"][aria-busy="false"]').waitFor();
    // At the bottom: the newest message is in view.
    expect(await scroller.evaluate((el: any) => el.scrollHeight - el.scrollTop - el.clientHeight)).toBeLessThan(60);
    expect(await message(page, 'Message number 1$').count()).toBe(0);
    expect(await messages(page).count()).toBeLessThanOrEqual(100);

    // Scroll to the top: the next page arrives and the view stays on the same messages.
    const before = await messages(page).count();
    await scroller.evaluate((el: any) => {
      el.scrollTop = 0;
    });
    await expect.poll(() => messages(page).count()).toBeGreaterThan(before);
    expect(await scroller.evaluate((el: any) => el.scrollTop)).toBeGreaterThan(200);

    // Keep going until the start of the channel.
    await expect
      .poll(
        async () => {
          await scroller.evaluate((el: any) => {
            el.scrollTop = 0;
          });
          return page.getByText('This is the start of the #general channel.').count();
        },
        { timeout: 15_000, interval: 300 },
      )
      .toBe(1);
    // The last page keeps the view where it was (the banner can show before the first
    // rows are drawn): once more to the top, until the first message is drawn.
    await expect
      .poll(
        async () => {
          await scroller.evaluate((el: any) => {
            el.scrollTop = 0;
          });
          return messages(page).locator('.md').first().textContent();
        },
        { timeout: 15_000, interval: 300 },
      )
      .toBe('Message number 1');
    // The list is virtualised: from the first message on, a run of consecutive ones is drawn.
    const texts = await messages(page).locator('.md').allTextContents();
    expect(texts.length).toBeGreaterThan(5);
    expect(texts.length).toBeLessThan(130);
    const firstNo = Number(texts[0]?.replace('Message number ', ''));
    expect(firstNo).toBeLessThanOrEqual(5);
    expect(texts).toEqual(texts.map((_, i) => `Message number ${firstNo + i}`));
    await noPageErrors(o);
  }, 60_000);

  it('reconnects after the gateway drops, resumes, and shows what was missed', async () => {
    const owner = await registerUser(web.url);
    const { server, general } = await createServer(web.url, owner, 'Flaky Wifi');
    const proxy = gatewayProxy();
    const { sentOps } = proxy;
    const { page } = await open(owner, `/s/${server.id}/c/${general.id}`, { prepare: proxy.attach });
    await page.getByRole('textbox', { name: 'Message #general' }).waitFor();
    await page.getByText('Online', { exact: true }).waitFor();
    expect(sentOps.at(-1)).toContain('identify');

    const connections = sentOps.length;
    proxy.holdNext(); // the reconnect waits until the test has posted
    await proxy.pageSides.at(-1)!.close({ code: 4000, reason: 'network blip' });
    await page.getByRole('status').filter({ hasText: 'Reconnecting…' }).waitFor();
    await postMessage(web.url, owner.auth, general.id, 'sent while you were away');
    await screenshot(page, 'chat-reconnecting');
    proxy.release();

    await message(page, 'sent while you were away').waitFor();
    await page.getByText('Online', { exact: true }).waitFor();
    expect(sentOps.length).toBe(connections + 1);
    expect(sentOps.at(-1)).toContain('resume');
    expect(sentOps.at(-1)).not.toContain('identify');
  }, 40_000);

  it('drops a connection whose heartbeats go unanswered, then resumes it (a browser socket has no terminate())', async () => {
    const owner = await registerUser(web.url);
    const { server, general } = await createServer(web.url, owner, 'Zombie Link');
    const closedByPage: number[] = [];
    let swallowAcks = false;
    const proxy = gatewayProxy({
      onPageClose: (connection) => closedByPage.push(connection),
      fromServer(msg, ws) {
        const frame = JSON.parse(typeof msg === 'string' ? msg : msg.toString()) as { op: string; d?: { heartbeatInterval?: number } };
        // Quick heartbeats, so that a missing ack shows within a second.
        if (frame.op === 'hello') ws.send(JSON.stringify({ ...frame, d: { ...frame.d, heartbeatInterval: 250 } }));
        return frame.op === 'hello' || (frame.op === 'heartbeat_ack' && swallowAcks);
      },
    });
    const { sentOps } = proxy;
    const o = await open(owner, `/s/${server.id}/c/${general.id}`, { prepare: proxy.attach });
    const { page } = o;
    await page.getByRole('textbox', { name: 'Message #general' }).waitFor();
    await page.getByText('Online', { exact: true }).waitFor();
    expect(sentOps.at(-1)).toContain('identify');

    // The link goes dead: the server stops answering heartbeats. The client closes the
    // socket itself and reconnects without waiting for a closing handshake.
    const connections = sentOps.length;
    proxy.holdNext(); // the reconnect waits until the test has posted
    swallowAcks = true;
    await page.getByRole('status').filter({ hasText: 'Reconnecting…' }).waitFor();
    expect(new Set(closedByPage)).toEqual(new Set([connections - 1])); // the page closed it, not the server
    await postMessage(web.url, owner.auth, general.id, 'sent while the link was dead');
    swallowAcks = false;
    proxy.release();

    await message(page, 'sent while the link was dead').waitFor();
    await page.getByText('Online', { exact: true }).waitFor();
    expect(sentOps.length).toBe(connections + 1);
    expect(sentOps.at(-1)).toContain('resume');
    expect(sentOps.at(-1)).not.toContain('identify');
    await noPageErrors(o);
  }, 40_000);

  it('identifies afresh when the session cannot be resumed, and refetches what it missed', async () => {
    const owner = await registerUser(web.url);
    const { server, general } = await createServer(web.url, owner, 'Lost Session');
    const proxy = gatewayProxy({
      // As if the server had forgotten the session (expired, or restarted without Redis).
      fromPage(op, ws) {
        if (op === 'resume') ws.send(JSON.stringify({ op: 'invalid_session', d: { resumable: false } }));
        return op === 'resume';
      },
    });
    const { sentOps } = proxy;
    const o = await open(owner, `/s/${server.id}/c/${general.id}`, { prepare: proxy.attach });
    const { page } = o;
    await page.getByRole('textbox', { name: 'Message #general' }).waitFor();
    await page.getByText('Online', { exact: true }).waitFor();

    const connections = sentOps.length;
    proxy.holdNext();
    await proxy.pageSides.at(-1)!.close({ code: 4000, reason: 'network blip' });
    await page.getByRole('status').filter({ hasText: 'Reconnecting…' }).waitFor();
    await postMessage(web.url, owner.auth, general.id, 'lost with the old session');
    proxy.release();

    // No replay is coming: the message can only arrive by the refetch after the new ready.
    await message(page, 'lost with the old session').waitFor();
    await page.getByText('Online', { exact: true }).waitFor();
    expect(sentOps.length).toBe(connections + 1);
    expect(sentOps.at(-1)).toEqual(expect.arrayContaining(['resume', 'identify']));
    await noPageErrors(o);
  }, 40_000);

  it('logs out when the gateway refuses the session (4001)', async () => {
    const owner = await registerUser(web.url);
    const { server, general } = await createServer(web.url, owner, 'Revoked');
    const o = await open(owner, `/s/${server.id}/c/${general.id}`);
    const { page } = o;
    await page.getByText('Online', { exact: true }).waitFor();
    const unauthorized: string[] = [];
    page.on('response', (res) => {
      if (res.status() === 401) unauthorized.push(res.url());
    });

    // The session ends elsewhere (another device logs it out): the gateway closes with 4001.
    const ended = await call(web.url, 'POST', '/auth/logout', { auth: owner.auth });
    expect(ended.status).toBe(204);
    await page.getByRole('heading', { name: 'Welcome back' }).waitFor();
    await page.getByText('Your session has ended. Please log in again.').waitFor();
    expect(unauthorized).toEqual([]); // the gateway said so, not a failed request
    expect(await page.evaluate(() => (globalThis as any).localStorage.getItem('parley.token'))).toBeNull();
    await noPageErrors(o);
  });

  it('retries a 429 after Retry-After and shows API errors as readable messages', async () => {
    const owner = await registerUser(web.url);
    const { server, general } = await createServer(web.url, owner, 'Busy');
    const o = await open(owner, `/s/${server.id}/c/${general.id}`);
    const { page } = o;
    const box = page.getByRole('textbox', { name: 'Message #general' });
    await box.waitFor();

    let limited = 0;
    await page.route(`**/channels/${general.id}/messages`, async (route) => {
      if (route.request().method() === 'POST' && limited === 0) {
        limited++;
        await route.fulfill({
          status: 429,
          headers: { 'Retry-After': '1', 'Content-Type': 'application/json' },
          body: JSON.stringify({ error: 'rate limited', retryAfter: 1 }),
        });
        return;
      }
      await route.fallback();
    });
    const t0 = Date.now();
    await box.fill('patience pays');
    await box.press('Enter');
    await message(page, 'patience pays').waitFor();
    expect(limited).toBe(1);
    expect(Date.now() - t0).toBeGreaterThan(900);
    await page.unroute(`**/channels/${general.id}/messages`);

    // A server error while sending: the text comes back and the reason is shown.
    await page.route(`**/channels/${general.id}/messages`, (route) =>
      route.request().method() === 'POST'
        ? route.fulfill({ status: 500, contentType: 'application/json', body: JSON.stringify({ error: 'database unavailable' }) })
        : route.fallback(),
    );
    await box.fill('this one fails');
    await box.press('Enter');
    await page.getByRole('alert').filter({ hasText: 'Database unavailable' }).waitFor();
    expect(await box.inputValue()).toBe('this one fails');
    await page.unroute(`**/channels/${general.id}/messages`);

    // A channel whose history cannot load says so, with a way to retry.
    const other = await createChannel(web.url, owner, server.id, 'broken');
    await page.route(`**/channels/${other.id}/messages?**`, (route) =>
      route.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify({ error: 'service unavailable' }) }),
    );
    await page.getByRole('link', { name: 'broken' }).click();
    await page.getByText('Could not load messages: Service unavailable').waitFor();
    await page.unroute(`**/channels/${other.id}/messages?**`);
    await page.getByRole('button', { name: 'Try again' }).click();
    await page.getByText('This is the start of the #broken channel.').waitFor();
    await noPageErrors(o);
  }, 30_000);

  it('"My bots": create a bot (token shown once, copied), list it, delete it', async () => {
    const owner = await registerUser(web.url);
    await createServer(web.url, owner, 'Bot Garage');
    const o = await open(owner, '/');
    const { page } = o;
    await page.getByRole('link', { name: 'My bots' }).click();
    await page.getByRole('heading', { name: 'My bots', level: 2 }).waitFor();
    await page.getByLabel('Bot name').fill('Reminder');
    await page.getByRole('button', { name: 'Create bot' }).click();
    const panel = page.getByRole('region', { name: 'New bot token' });
    await panel.waitFor();
    expect(await panel.textContent()).toContain('You will not see it again');
    await panel.getByRole('button', { name: 'Copy Bot token' }).click();
    await panel.getByText('Bot token copied to the clipboard').waitFor();
    const token: string = await page.evaluate(() => (globalThis as any).navigator.clipboard.readText());
    const me = await call(web.url, 'GET', '/users/@me', { auth: `Bot ${token}` });
    expect(me.status).toBe(200);
    expect(me.body.name).toBe('Reminder');
    await screenshot(page, 'my-bots-created');

    await panel.getByRole('button', { name: 'I have copied it' }).click();
    const row = page.locator('tbody tr').filter({ hasText: 'Reminder' });
    await row.waitFor();
    expect(await row.textContent()).toContain(me.body.id);
    await row.getByRole('button', { name: 'Delete Reminder' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete bot' });
    expect(await dialog.textContent()).toContain('stops working at once');
    await dialog.getByRole('button', { name: 'Delete bot' }).click();
    await page.getByText('You have no bots yet.').waitFor();
    expect((await call(web.url, 'GET', '/users/@me', { auth: `Bot ${token}` })).status).toBe(401);
    await noPageErrors(o);
  });

  it('settings: add a bot with chosen permissions, change them, remove it', async () => {
    const owner = await registerUser(web.url);
    const { server } = await createServer(web.url, owner, 'Permissions');
    const bot = await createBot(web.url, owner, 'Moderator');
    const o = await open(owner, `/s/${server.id}/settings/bots`);
    const { page } = o;
    await page.getByRole('heading', { name: 'Bots', level: 2 }).waitFor();
    // The bot is one of "Your bots": added from its card, with the permissions chosen in a dialog.
    const card = page.locator(`li[data-my-bot-id="${bot.id}"]`);
    await card.getByRole('button', { name: 'Add to server' }).click();
    const addDialog = page.getByRole('dialog', { name: 'Add Moderator' });
    await addDialog.getByLabel('Attach files').uncheck();
    await addDialog.getByRole('button', { name: 'Add bot' }).click();
    const row = page.locator(`li[data-bot-id="${bot.id}"]`);
    await row.waitFor();
    await card.getByText('Already in this server').waitFor();
    const perms = async () => {
      const r = await call(web.url, 'GET', `/servers/${server.id}/members`, { auth: owner.auth });
      return (
        (r.body as { id: string; permissions?: string[] }[])
          .find((m) => m.id === bot.id)
          ?.permissions?.slice()
          .sort() ?? null
      );
    };
    expect(await perms()).toEqual(['ADD_REACTIONS', 'READ_MESSAGES', 'SEND_MESSAGES']);
    expect(await row.getByLabel('Attach files').isChecked()).toBe(false);

    await row.getByLabel('Attach files').check();
    await row.getByLabel('Add reactions').uncheck();
    await row.getByRole('button', { name: 'Save permissions' }).click();
    await page.getByText('Permissions of Moderator saved.').waitFor();
    expect(await perms()).toEqual(['ATTACH_FILES', 'READ_MESSAGES', 'SEND_MESSAGES']);
    await screenshot(page, 'settings-bots');

    await row.getByRole('button', { name: 'Remove Moderator from the server' }).click();
    await page.getByRole('dialog', { name: 'Remove bot' }).getByRole('button', { name: 'Remove bot' }).click();
    await page.getByText('No bots yet.').waitFor();
    expect(await perms()).toBeNull();
    await noPageErrors(o);
  });

  it('settings: create, rename and delete channels; an invite link brings a logged-in user in', async () => {
    const owner = await registerUser(web.url);
    const { server } = await createServer(web.url, owner, 'Channel Surfing');
    const o = await open(owner, `/s/${server.id}/settings/channels`);
    const { page } = o;
    await page.getByLabel('New channel name').fill('Random Stuff');
    await page.getByRole('button', { name: 'Create channel' }).click();
    const renameBox = page.getByLabel('Name of #random-stuff');
    await renameBox.waitFor();
    await renameBox.fill('off-topic');
    await page.getByRole('listitem').filter({ has: renameBox }).getByRole('button', { name: 'Rename' }).click();
    await page.getByText('Channel renamed to #off-topic.').waitFor();
    let channels = await call(web.url, 'GET', `/servers/${server.id}/channels`, { auth: owner.auth });
    expect(channels.body.map((c: { name: string }) => c.name)).toEqual(['general', 'off-topic']);

    await page.getByRole('button', { name: 'Delete #off-topic' }).click();
    await page.getByRole('dialog', { name: 'Delete channel' }).getByRole('button', { name: 'Delete channel' }).click();
    await page.getByText('#off-topic deleted.').waitFor();
    channels = await call(web.url, 'GET', `/servers/${server.id}/channels`, { auth: owner.auth });
    expect(channels.body.map((c: { name: string }) => c.name)).toEqual(['general']);

    await page.getByRole('link', { name: 'Invites' }).click();
    await page.getByRole('button', { name: 'Create invite link' }).click();
    const link = await page.getByLabel('New invite link', { exact: true }).inputValue();
    expect(link).toMatch(new RegExp(`^${web.url}/invite/[^/]+$`));

    const guest = await registerUser(web.url);
    const g = await open(guest, new URL(link).pathname);
    // The invite page names the server and joins only when asked to.
    await g.page.getByRole('button', { name: 'Join Channel Surfing' }).click();
    await g.page.getByRole('textbox', { name: 'Message #general' }).waitFor();
    await g.page.getByRole('heading', { name: 'Channel Surfing' }).waitFor();
    const members = await call(web.url, 'GET', `/servers/${server.id}/members`, { auth: owner.auth });
    expect(members.body.map((m: { id: string }) => m.id)).toContain(guest.id);
    await noPageErrors(o);
    await noPageErrors(g);
  });

  it('follows the light or dark colour scheme and stays usable on a narrow screen', async () => {
    const ada = await registerUser(web.url, 'ada');
    const grace = await registerUser(web.url, 'grace');
    const { server, general } = await createServer(web.url, ada, 'Analytical Engines');
    await createChannel(web.url, ada, server.id, 'releases');
    await createChannel(web.url, ada, server.id, 'random');
    await joinServer(web.url, ada, grace, server.id);
    const bot = await createBot(web.url, ada, 'CI');
    await addBot(web.url, ada, server.id, bot.id);

    const hello = await postMessage(web.url, ada.auth, general.id, 'Morning all! Release **1.4** goes out today 🚀');
    await postMessage(
      web.url,
      grace.auth,
      general.id,
      'Nice. Before we ship:\n- migrations are applied\n- the changelog mentions the new *webhook settings*',
    );
    const png = await upload(web.url, bot.auth, makePng(320, 120), 'coverage.png', 'image/png');
    await call(web.url, 'POST', `/channels/${general.id}/messages`, {
      auth: bot.auth,
      body: {
        content: 'Build **#412** passed on `main`\n> 212 tests, 0 failures, coverage 91%',
        attachments: [{ url: png.body.url, filename: 'coverage.png' }],
      },
    });
    const logo = await upload(web.url, ada.auth, makePng(64, 64), 'pager.png', 'image/png');
    const created = await call(web.url, 'POST', `/servers/${server.id}/webhooks`, {
      auth: ada.auth,
      body: { name: 'Pager', channelId: general.id, avatar: logo.body.url },
    });
    expect(created.status).toBe(201);
    const hook = created.body as { id: string; token: string };
    const incident = await call(web.url, 'POST', `/webhooks/${hook.id}/${hook.token}`, {
      body: {
        embeds: [
          {
            title: 'Incident resolved',
            url: 'https://status.example.com/i/99',
            description: 'Error rate back under **0.1%** after the rollback.',
            color: 0x2ecc71,
            fields: [
              { name: 'Service', value: 'api', inline: true },
              { name: 'Duration', value: '14 min', inline: true },
              { name: 'On call', value: 'grace', inline: true },
            ],
            footer: { text: 'Pager' },
          },
        ],
      },
    });
    expect(incident.status).toBe(200);
    const react = (auth: string, id: string, emoji: string) =>
      call(web.url, 'PUT', `/channels/${general.id}/messages/${id}/reactions/${encodeURIComponent(emoji)}`, { auth });
    await react(grace.auth, hello.id, '🎉');
    await react(bot.auth, hello.id, '🎉');
    await react(ada.auth, incident.body.id, '👀');

    for (const scheme of ['light', 'dark'] as const) {
      const o = await open(ada, `/s/${server.id}/c/${general.id}`, { colorScheme: scheme });
      const { page } = o;
      await message(page, 'Incident resolved').waitFor();
      // The webhook's avatar is shown with its messages.
      expect(await message(page, 'Incident resolved').locator('img').first().getAttribute('src')).toBe(logo.body.url);
      const bg = await page.evaluate(
        () => (globalThis as any).getComputedStyle((globalThis as any).document.body).backgroundColor as string,
      );
      expect(bg).toBe(scheme === 'dark' ? 'rgb(29, 30, 35)' : 'rgb(255, 255, 255)');
      await call(web.url, 'POST', `/channels/${general.id}/typing`, { auth: grace.auth });
      await page.getByText('grace is typing…').waitFor();
      await expect
        .poll(() => page.getByRole('img', { name: 'coverage.png' }).evaluate((el) => (el as any).naturalWidth as number))
        .toBe(320);
      await page.mouse.move(5, 795);
      await screenshot(page, `overview-${scheme}`);
      await noPageErrors(o);
    }

    const narrow = await open(ada, `/s/${server.id}/c/${general.id}`, { width: 390, height: 780 });
    await message(narrow.page, 'Incident resolved').waitFor();
    const sidebar = narrow.page.getByRole('complementary', { name: 'Analytical Engines channels' });
    expect(await sidebar.isVisible()).toBe(false);
    await screenshot(narrow.page, 'chat-narrow');
    await narrow.page.getByRole('button', { name: 'Show channels' }).click();
    await sidebar.waitFor();
    await screenshot(narrow.page, 'chat-narrow-sidebar');
    await noPageErrors(narrow);
  });
});
