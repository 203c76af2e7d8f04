/**
 * Subcommands in the web client (docs/commands.md#subcommands): the `/` palette lists a
 * command with subcommands once per subcommand (`/config role add`), narrowed as the path
 * is typed; picking one opens that subcommand's form, and the bot receives the group, the
 * subcommand and its options. Real Chromium, a real Parley, a real bot (the SDK).
 */
import { ParleyBot } from '@parley/sdk';
import { afterAll, describe, expect, it } from 'vitest';
import { addBot, call, createBot, createServer, registerUser } from '../factories.js';
import { browserSuite } from './browser.js';

const bots: ParleyBot[] = [];

const web = browserSuite();

// Runs before the suite's own afterAll (hooks after tests run in reverse order): bots first.
afterAll(async () => {
  for (const b of bots) await b.close().catch(() => undefined);
});

describe('subcommands in the web client', () => {
  it('types /config role, picks the add subcommand, fills its option and the bot answers', async () => {
    const ana = await registerUser(web.url, 'ana');
    const { server, general } = await createServer(web.url, ana, 'Settings');
    const bot = await createBot(web.url, ana, 'ConfigBot');
    await addBot(web.url, ana, server.id, bot.id);
    const put = await call(web.url, 'PUT', `/bots/${bot.id}/commands`, {
      auth: bot.auth,
      body: [
        {
          name: 'config',
          description: 'Settings',
          options: [
            {
              type: 'subcommandGroup',
              name: 'role',
              description: 'Roles',
              options: [
                {
                  type: 'subcommand',
                  name: 'add',
                  description: 'Add a role',
                  options: [{ type: 'string', name: 'name', description: 'Its name', required: true }],
                },
                { type: 'subcommand', name: 'list', description: 'List the roles' },
              ],
            },
            { type: 'subcommand', name: 'show', description: 'Show the settings' },
          ],
        },
      ],
    });
    expect(put.status, put.text).toBe(200);
    const received: Array<{ group?: string; sub?: string; options?: unknown }> = [];
    const client = new ParleyBot({ baseUrl: web.url, token: bot.token });
    bots.push(client);
    client.on('interactionCreate', (i) => {
      received.push({ group: i.subcommandGroup, sub: i.subcommand, options: i.options });
      void call(web.url, 'POST', `/interactions/${i.id}/${i.token}/callback`, {
        body: { type: 'message', data: { content: `Done: ${i.subcommandGroup} ${i.subcommand} ${String(i.options?.name)}` } },
      });
    });
    await client.connect();

    const o = await web.open({
      token: ana.token,
      path: `/s/${server.id}/c/${general.id}`,
      colorScheme: 'dark',
      height: 800,
    });
    const { page, errors } = o;
    const box = page.getByRole('textbox', { name: /^Message #/ });
    await box.click();
    await box.pressSequentially('/config');
    const palette = page.getByTestId('command-palette');
    await palette.getByRole('option', { name: /\/config role add/ }).waitFor();
    const listed = () => palette.getByRole('option').evaluateAll((els) => els.map((e) => e.getAttribute('data-command')));
    expect(await listed()).toEqual(['config role add', 'config role list', 'config show']);
    await box.pressSequentially(' role a');
    await expect.poll(listed).toEqual(['config role add']);
    await box.press('Enter');
    const form = page.getByTestId('command-form');
    await form.getByText('/config role add', { exact: true }).waitFor();
    const name = form.getByRole('textbox', { name: /name/ });
    await name.fill('moderators');
    await name.press('Enter');
    await form.waitFor({ state: 'detached' });
    await expect.poll(() => received.length, { timeout: 5000 }).toBe(1);
    expect(received[0]).toEqual({ group: 'role', sub: 'add', options: { name: 'moderators' } });
    await page.locator('[data-message-id]', { hasText: 'Done: role add moderators' }).waitFor();
    expect(errors).toEqual([]);
  });
});
