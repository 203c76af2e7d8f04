import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call, world } from '../factories.js';
import { ClientPool } from '../gateway/client.js';
import { type TestServer, startServer } from '../harness.js';

/**
 * Subcommands and subcommand groups (option types `subcommand` and `subcommandGroup`,
 * Discord's 1 and 2): how they nest when registered, and how a run names its path
 * (docs/commands.md#subcommands).
 */

let srv: TestServer;
const pool = new ClientPool();

beforeAll(async () => {
  srv = await startServer({ env: { RATE_LIMITS: 'off' } });
});
afterEach(() => pool.closeAll());
afterAll(() => srv?.close());

const CONFIG = {
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
          options: [
            { type: 'string', name: 'name', description: 'Its name', required: true },
            { type: 'string', name: 'hint', description: 'A hint', autocomplete: true },
          ],
        },
        { type: 'subcommand', name: 'list', description: 'List roles' },
      ],
    },
    { type: 'subcommand', name: 'show', description: 'Show them', options: [{ type: 'integer', name: 'page', description: 'Page' }] },
  ],
};
const PING = { name: 'ping', description: 'Ping' };

describe('registering subcommands', () => {
  it('takes a command with a group and subcommands beside the others in one bulk PUT, nested as given', async () => {
    const w = await world(srv.url);
    const put = await call(srv.url, 'PUT', `/bots/${w.bot.id}/commands`, { auth: w.bot.auth, body: [PING, CONFIG] });
    expect(put.status, put.text).toBe(200);
    const list = (await call(srv.url, 'GET', `/bots/${w.bot.id}/commands`, { auth: w.bot.auth })).body as Array<{
      name: string;
      options: unknown;
    }>;
    expect(list.map((c) => c.name).sort()).toEqual(['config', 'ping']);
    // As given; a subcommand registered without options lists `options: []`, as on Discord.
    const expected = structuredClone(CONFIG.options) as Array<{ options?: Array<{ options?: unknown[] }> }>;
    expected[0]!.options![1]!.options = [];
    expect(list.find((c) => c.name === 'config')?.options).toEqual(expected);
  });

  const bad: Array<[string, object[]]> = [
    [
      'subcommands beside plain options',
      [
        { type: 'subcommand', name: 'a', description: 'A' },
        { type: 'string', name: 'b', description: 'B' },
      ],
    ],
    [
      'a group holding a plain option',
      [{ type: 'subcommandGroup', name: 'g', description: 'G', options: [{ type: 'string', name: 'b', description: 'B' }] }],
    ],
    [
      'a group holding a group',
      [
        {
          type: 'subcommandGroup',
          name: 'g',
          description: 'G',
          options: [{ type: 'subcommandGroup', name: 'h', description: 'H', options: [] }],
        },
      ],
    ],
    ['an empty group', [{ type: 'subcommandGroup', name: 'g', description: 'G', options: [] }]],
    [
      'a subcommand holding a subcommand',
      [{ type: 'subcommand', name: 's', description: 'S', options: [{ type: 'subcommand', name: 't', description: 'T' }] }],
    ],
    [
      'a plain option with options',
      [{ type: 'string', name: 's', description: 'S', options: [{ type: 'string', name: 't', description: 'T' }] }],
    ],
    [
      'a name used twice in a group',
      [
        {
          type: 'subcommandGroup',
          name: 'g',
          description: 'G',
          options: [
            { type: 'subcommand', name: 'x', description: 'X' },
            { type: 'subcommand', name: 'x', description: 'Y' },
          ],
        },
      ],
    ],
    [
      'a required option after an optional one in a subcommand',
      [
        {
          type: 'subcommand',
          name: 's',
          description: 'S',
          options: [
            { type: 'string', name: 'a', description: 'A' },
            { type: 'string', name: 'b', description: 'B', required: true },
          ],
        },
      ],
    ],
    ['a required subcommand', [{ type: 'subcommand', name: 's', description: 'S', required: true }]],
  ];
  it.each(bad)('refuses %s (400 invalid_commands), and the old list stays', async (_what, options) => {
    const w = await world(srv.url);
    expect((await call(srv.url, 'PUT', `/bots/${w.bot.id}/commands`, { auth: w.bot.auth, body: [PING] })).status).toBe(200);
    const r = await call(srv.url, 'PUT', `/bots/${w.bot.id}/commands`, {
      auth: w.bot.auth,
      body: [PING, { name: 'bad', description: 'Bad', options }],
    });
    expect([r.status, r.body.code], r.text).toEqual([400, 'invalid_commands']);
    const list = (await call(srv.url, 'GET', `/bots/${w.bot.id}/commands`, { auth: w.bot.auth })).body as Array<{ name: string }>;
    expect(list.map((c) => c.name)).toEqual(['ping']);
  });

  it('refuses nesting deeper than command, group, subcommand, option (400 invalid_body)', async () => {
    const w = await world(srv.url);
    const deep = {
      name: 'deep',
      description: 'Deep',
      options: [
        {
          type: 'subcommandGroup',
          name: 'g',
          description: 'G',
          options: [
            { type: 'subcommand', name: 's', description: 'S', options: [{ type: 'string', name: 'o', description: 'O', options: [] }] },
          ],
        },
      ],
    };
    const r = await call(srv.url, 'PUT', `/bots/${w.bot.id}/commands`, { auth: w.bot.auth, body: [deep] });
    expect([r.status, r.body.code]).toEqual([400, 'invalid_body']);
  });
});

describe('running a subcommand', () => {
  async function setup() {
    const w = await world(srv.url);
    expect((await call(srv.url, 'PUT', `/bots/${w.bot.id}/commands`, { auth: w.bot.auth, body: [PING, CONFIG] })).status).toBe(200);
    const botGw = await pool.identify(srv.gatewayUrl, w.bot.auth);
    const run = (body: object) =>
      call(srv.url, 'POST', `/channels/${w.channel.id}/interactions`, {
        auth: w.owner.auth,
        body: { type: 'command', botId: w.bot.id, name: 'config', ...body },
      });
    return { ...w, botGw, run };
  }

  it('delivers the group, the subcommand and its checked options', async () => {
    const w = await setup();
    const r = await w.run({ subcommandGroup: 'role', subcommand: 'add', options: { name: 'mods' } });
    expect(r.status, r.text).toBe(202);
    const ev = await w.botGw.waitForEvent('INTERACTION_CREATE', (d) => d.id === r.body.id);
    expect(ev.d).toMatchObject({
      name: 'config',
      subcommandGroup: 'role',
      subcommand: 'add',
      options: { name: 'mods' },
      optionTypes: { name: 'string' },
    });
    const top = await w.run({ subcommand: 'show', options: { page: 2 } });
    expect(top.status, top.text).toBe(202);
    const ev2 = await w.botGw.waitForEvent('INTERACTION_CREATE', (d) => d.id === top.body.id);
    expect(ev2.d).toMatchObject({ subcommand: 'show', options: { page: 2 } });
    expect(ev2.d.subcommandGroup).toBeUndefined();
  });

  it("checks the subcommand's own options, and refuses a missing or unknown path before the bot hears anything", async () => {
    const w = await setup();
    const cases: Array<[object, string]> = [
      [{ options: {} }, 'missing_option'], // no subcommand named
      [{ subcommandGroup: 'role', options: {} }, 'missing_option'],
      [{ subcommand: 'role' }, 'missing_option'], // a group, not a subcommand
      [{ subcommand: 'add', options: { name: 'x' } }, 'unknown_option'], // add is in the group
      [{ subcommandGroup: 'nope', subcommand: 'add' }, 'unknown_option'],
      [{ subcommandGroup: 'role', subcommand: 'add', options: {} }, 'missing_option'], // name is required
      [{ subcommandGroup: 'role', subcommand: 'add', options: { name: 'x', page: 1 } }, 'unknown_option'], // show's option
      [{ subcommand: 'show', options: { page: 'two' } }, 'invalid_option'],
    ];
    for (const [body, code] of cases) {
      const r = await w.run(body);
      expect([r.status, r.body.code], JSON.stringify(body)).toEqual([400, code]);
    }
    const plain = await call(srv.url, 'POST', `/channels/${w.channel.id}/interactions`, {
      auth: w.owner.auth,
      body: { type: 'command', botId: w.bot.id, name: 'ping', subcommand: 'x' },
    });
    expect([plain.status, plain.body.code]).toEqual([400, 'unknown_option']);
    // The bot heard none of them: the next one it hears is this valid run.
    const ok = await w.run({ subcommand: 'show' });
    const ev = await w.botGw.waitForEvent('INTERACTION_CREATE');
    expect(ev.d.id).toBe(ok.body.id);
  });

  it('autocompletes an option inside a subcommand of a group', async () => {
    const w = await setup();
    const pending = call(srv.url, 'POST', `/channels/${w.channel.id}/interactions`, {
      auth: w.owner.auth,
      body: {
        type: 'autocomplete',
        botId: w.bot.id,
        name: 'config',
        subcommandGroup: 'role',
        subcommand: 'add',
        options: { hint: 'ad' },
        focused: 'hint',
      },
    });
    const ev = await w.botGw.waitForEvent('INTERACTION_CREATE');
    expect(ev.d).toMatchObject({
      type: 'autocomplete',
      subcommandGroup: 'role',
      subcommand: 'add',
      focused: 'hint',
      options: { hint: 'ad' },
    });
    const cb = await call(srv.url, 'POST', `/interactions/${ev.d.id}/${ev.d.token}/callback`, {
      body: { type: 'autocomplete', data: { choices: [{ name: 'admins', value: 'admins' }] } },
    });
    expect(cb.status).toBe(204);
    const r = await pending;
    expect([r.status, r.body.choices]).toEqual([200, [{ name: 'admins', value: 'admins' }]]);
  });
});
