// discord.js bots with subcommands and subcommand groups: registered through the bulk
// overwrite, run by a person, read with getSubcommandGroup()/getSubcommand()/getString(),
// autocompleted inside a group, and invalid nestings refused with 50035.
import { type Client, Events, type Interaction, SlashCommandBuilder } from 'discord.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call, world } from '../factories.js';
import { startServer, type TestServer } from '../harness.js';
import { login } from './djs.js';

let srv: TestServer;
const clients: Client[] = [];

beforeAll(async () => {
  srv = await startServer({ env: { GATEWAY_HEARTBEAT_MS: '5000', RATE_LIMITS: 'off' } });
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.destroy()));
});
afterAll(() => srv?.close());

const config = new SlashCommandBuilder()
  .setName('config')
  .setDescription('Settings')
  .addSubcommandGroup((g) =>
    g
      .setName('role')
      .setDescription('Roles')
      .addSubcommand((s) =>
        s
          .setName('add')
          .setDescription('Add a role')
          .addStringOption((o) => o.setName('name').setDescription('Its name').setRequired(true))
          .addStringOption((o) => o.setName('hint').setDescription('A hint').setAutocomplete(true)),
      ),
  )
  .addSubcommand((s) => s.setName('show').setDescription('Show them'));
const ping = new SlashCommandBuilder().setName('ping').setDescription('Ping');

describe('discord.js subcommands', () => {
  it('a bulk PUT with a subcommand group succeeds with the others, and the bot reads the group, subcommand and options', async () => {
    const w = await world(srv.url);
    const client = await login(srv, clients, w.bot.token);
    const put = await call(srv.url, 'PUT', `/api/v10/applications/${w.bot.id}/commands`, {
      auth: w.bot.auth,
      body: [ping.toJSON(), config.toJSON()],
    });
    expect(put.status, put.text).toBe(200);
    expect((put.body as Array<{ name: string }>).map((c) => c.name).sort()).toEqual(['config', 'ping']);
    const stored = (put.body as Array<{ name: string; options: unknown }>).find((c) => c.name === 'config');
    expect(stored?.options).toMatchObject([
      {
        type: 2,
        name: 'role',
        description: 'Roles',
        options: [
          {
            type: 1,
            name: 'add',
            options: [
              { type: 3, name: 'name', required: true },
              { type: 3, name: 'hint', autocomplete: true },
            ],
          },
        ],
      },
      { type: 1, name: 'show', description: 'Show them', options: [] },
    ]);
    // discord.js reads the same list back.
    const fetched = await client.application!.commands.fetch();
    expect(fetched.find((c) => c.name === 'config')?.options[0]).toMatchObject({
      type: 2,
      name: 'role',
      options: [{ type: 1, name: 'add' }],
    });

    const seen = new Promise<{ group: string | null; sub: string; name: string; raw: unknown }>((resolve) => {
      client.on(Events.InteractionCreate, async (i: Interaction) => {
        if (!i.isChatInputCommand() || i.commandName !== 'config') return;
        const out = {
          group: i.options.getSubcommandGroup(false),
          sub: i.options.getSubcommand(),
          name: i.options.getString('name', true),
          raw: i.options.data,
        };
        await i.reply(`added ${out.name}`);
        resolve(out);
      });
    });
    const r = await call(srv.url, 'POST', `/channels/${w.channel.id}/interactions`, {
      auth: w.owner.auth,
      body: { type: 'command', botId: w.bot.id, name: 'config', subcommandGroup: 'role', subcommand: 'add', options: { name: 'mods' } },
    });
    expect(r.status, r.text).toBe(202);
    const got = await seen;
    expect(got).toMatchObject({ group: 'role', sub: 'add', name: 'mods' });
    expect(got.raw).toMatchObject([
      { type: 2, name: 'role', options: [{ type: 1, name: 'add', options: [{ type: 3, name: 'name', value: 'mods' }] }] },
    ]);
  });

  it('runs a subcommand outside a group (getSubcommandGroup() is null) and autocompletes inside a group', async () => {
    const w = await world(srv.url);
    const client = await login(srv, clients, w.bot.token);
    await client.application!.commands.set([ping.toJSON(), config.toJSON()], w.server.id);
    const shown = new Promise<[string | null, string]>((resolve) => {
      client.on(Events.InteractionCreate, async (i: Interaction) => {
        if (i.isChatInputCommand()) {
          resolve([i.options.getSubcommandGroup(false), i.options.getSubcommand()]);
          await i.reply('shown');
        } else if (i.isAutocomplete()) {
          const focused = i.options.getFocused(true);
          await i.respond([
            { name: `${i.options.getSubcommandGroup()}/${i.options.getSubcommand()}/${focused.name}=${focused.value}`, value: 'x' },
          ]);
        }
      });
    });
    const run = await call(srv.url, 'POST', `/channels/${w.channel.id}/interactions`, {
      auth: w.owner.auth,
      body: { type: 'command', botId: w.bot.id, name: 'config', subcommand: 'show' },
    });
    expect(run.status, run.text).toBe(202);
    expect(await shown).toEqual([null, 'show']);
    const ac = await call(srv.url, 'POST', `/channels/${w.channel.id}/interactions`, {
      auth: w.owner.auth,
      body: {
        type: 'autocomplete',
        botId: w.bot.id,
        name: 'config',
        subcommandGroup: 'role',
        subcommand: 'add',
        options: { hint: 'mo' },
        focused: 'hint',
      },
    });
    expect([ac.status, ac.body.choices], ac.text).toEqual([200, [{ name: 'role/add/hint=mo', value: 'x' }]]);
  });

  it('refuses invalid nestings with 50035, and the bulk PUT leaves the old list', async () => {
    const w = await world(srv.url);
    const api = `/api/v10/applications/${w.bot.id}/commands`;
    const auth = w.bot.auth;
    expect((await call(srv.url, 'PUT', api, { auth, body: [ping.toJSON()] })).status).toBe(200);
    const bads = [
      [
        { type: 1, name: 'a', description: 'A' },
        { type: 3, name: 'b', description: 'B' },
      ],
      [{ type: 2, name: 'g', description: 'G', options: [{ type: 3, name: 'b', description: 'B' }] }],
      [{ type: 1, name: 's', description: 'S', options: [{ type: 1, name: 't', description: 'T' }] }],
      [
        {
          type: 2,
          name: 'g',
          description: 'G',
          options: [
            {
              type: 1,
              name: 's',
              description: 'S',
              options: [{ type: 3, name: 'o', description: 'O', options: [{ type: 3, name: 'p', description: 'P' }] }],
            },
          ],
        },
      ],
    ];
    for (const options of bads) {
      const r = await call(srv.url, 'PUT', api, { auth, body: [ping.toJSON(), { name: 'bad', description: 'Bad', options }] });
      expect([r.status, r.body.code], JSON.stringify(options)).toEqual([400, 50035]);
      expect(typeof r.body.message).toBe('string');
    }
    const list = (await call(srv.url, 'GET', api, { auth })).body as Array<{ name: string }>;
    expect(list.map((c) => c.name)).toEqual(['ping']);
  });
});
