import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type TestBot,
  type TestUser,
  addBot,
  call,
  createBot,
  createChannel,
  createWebhook,
  joinServer,
  registerUser,
  world,
} from '../factories.js';
import { ClientPool, type TestGatewayClient } from '../gateway/client.js';
import { type TestServer, startServer } from '../harness.js';

/**
 * Commands and interactions (docs/commands.md) over HTTP, with the bot's side on the
 * gateway: registration and its limits, invocation rules, callbacks and their windows,
 * ephemeral answers, components and who may click them.
 */

let srv: TestServer;
const pool = new ClientPool();
const VIEW_CHANNEL = 1n << 10n;
const USE_APPLICATION_COMMANDS = 1n << 31n;
const MANAGE_SERVER = 1n << 5n;

beforeAll(async () => {
  srv = await startServer({ env: { RATE_LIMITS: 'off' } });
});
afterEach(async () => {
  srv.app.ctx.clock = Date.now;
  await pool.closeAll();
});
afterAll(() => srv?.close());

const ROLL = {
  name: 'roll',
  description: 'Roll a die',
  options: [
    { type: 'integer', name: 'sides', description: 'How many sides', required: true, minValue: 2, maxValue: 100 },
    {
      type: 'string',
      name: 'mood',
      description: 'How',
      choices: [
        { name: 'Happy', value: 'happy' },
        { name: 'Sad', value: 'sad' },
      ],
    },
    { type: 'user', name: 'for', description: 'For whom' },
    { type: 'string', name: 'game', description: 'Which game', autocomplete: true },
  ],
};

/** A server with a bot that registered /roll, its gateway session, and a member. */
async function setup() {
  const w = await world(srv.url);
  const member = await registerUser(srv.url);
  await joinServer(srv.url, w.owner, member, w.server.id);
  const put = await call(srv.url, 'PUT', `/bots/${w.bot.id}/commands`, { auth: w.bot.auth, body: [ROLL] });
  expect(put.status).toBe(200);
  const botGw = await pool.identify(srv.gatewayUrl, w.bot.auth);
  return { ...w, member, botGw };
}

const invoke = (who: TestUser, channelId: string, body: object) =>
  call(srv.url, 'POST', `/channels/${channelId}/interactions`, { auth: who.auth, body });

/** Runs /roll as `who` and returns the interaction the bot received. */
async function roll(w: { bot: TestBot; botGw: TestGatewayClient }, who: TestUser, channelId: string, options: object = { sides: 6 }) {
  const r = await invoke(who, channelId, { type: 'command', botId: w.bot.id, name: 'roll', options });
  expect(r.status, r.text).toBe(202);
  const ev = await w.botGw.waitForEvent('INTERACTION_CREATE', (d) => d.id === r.body.id);
  return ev.d;
}

const callback = (i: { id: string; token: string }, body: object) =>
  call(srv.url, 'POST', `/interactions/${i.id}/${i.token}/callback`, { body });

describe('registering commands', () => {
  it('takes the whole list from the bot or its owner, keeps ids of names that stay, and lists it', async () => {
    const w = await world(srv.url);
    const a = await call(srv.url, 'PUT', `/bots/${w.bot.id}/commands`, {
      auth: w.bot.auth,
      body: [ROLL, { name: 'ping', description: 'Ping' }],
    });
    expect(a.status, a.text).toBe(200);
    expect(a.body.map((c: { name: string }) => c.name)).toEqual(['ping', 'roll']);
    const rollId = a.body.find((c: { name: string }) => c.name === 'roll').id;
    const b = await call(srv.url, 'PUT', `/bots/${w.bot.id}/commands`, { auth: w.owner.auth, body: [ROLL] });
    expect(b.status).toBe(200);
    expect(b.body).toHaveLength(1);
    expect(b.body[0].id).toBe(rollId);
    expect(b.body[0].options[0]).toEqual(ROLL.options[0]);
    const list = await call(srv.url, 'GET', `/bots/${w.bot.id}/commands`, { auth: w.owner.auth });
    expect(list.body.map((c: { name: string }) => c.name)).toEqual(['roll']);
    // A server's own list is apart from the global one.
    const own = await call(srv.url, 'PUT', `/bots/${w.bot.id}/commands?serverId=${w.server.id}`, {
      auth: w.bot.auth,
      body: [{ name: 'local', description: 'Only here' }],
    });
    expect(own.status).toBe(200);
    expect(own.body[0].serverId).toBe(w.server.id);
    expect((await call(srv.url, 'GET', `/bots/${w.bot.id}/commands`, { auth: w.bot.auth })).body).toHaveLength(1);
  });

  it('adds, replaces, gets, edits and deletes one command at a time, leaving the others be', async () => {
    const w = await world(srv.url);
    const base = `/bots/${w.bot.id}/commands?serverId=${w.server.id}`;
    const one = (id: string) => `/bots/${w.bot.id}/commands/${id}?serverId=${w.server.id}`;
    await call(srv.url, 'PUT', base, { auth: w.bot.auth, body: [{ name: 'keep', description: 'stays' }] });
    const added = await call(srv.url, 'POST', base, { auth: w.owner.auth, body: ROLL });
    expect([added.status, added.body.name, added.body.serverId]).toEqual([201, 'roll', w.server.id]);
    const replaced = await call(srv.url, 'POST', base, { auth: w.bot.auth, body: { ...ROLL, description: 'Roll again' } });
    expect([replaced.status, replaced.body.id, replaced.body.description]).toEqual([200, added.body.id, 'Roll again']);
    const edited = await call(srv.url, 'PATCH', one(added.body.id), { auth: w.bot.auth, body: { description: 'Roll!' } });
    expect([edited.status, edited.body.description, edited.body.options]).toEqual([200, 'Roll!', replaced.body.options]);
    // The same rules as the bulk overwrite: a bad option is refused, nothing changes.
    const bad = await call(srv.url, 'PATCH', one(added.body.id), {
      auth: w.bot.auth,
      body: { options: [{ type: 'boolean', name: 'b', description: 'b', minValue: 1 }] },
    });
    expect([bad.status, bad.body.code]).toEqual([400, 'invalid_commands']);
    expect((await call(srv.url, 'GET', one(added.body.id), { auth: w.bot.auth })).body.description).toBe('Roll!');
    expect((await call(srv.url, 'POST', base, { auth: (await registerUser(srv.url)).auth, body: ROLL })).status).toBe(403);
    expect((await call(srv.url, 'DELETE', one(added.body.id), { auth: w.bot.auth })).status).toBe(204);
    expect((await call(srv.url, 'DELETE', one(added.body.id), { auth: w.bot.auth })).status).toBe(404);
    expect((await call(srv.url, 'GET', base, { auth: w.bot.auth })).body.map((c: { name: string }) => c.name)).toEqual(['keep']);
  });

  it('refuses strangers, other bots, and servers the bot is not in', async () => {
    const w = await world(srv.url);
    const stranger = await registerUser(srv.url);
    const other = await createBot(srv.url, stranger);
    for (const auth of [stranger.auth, other.auth]) {
      const r = await call(srv.url, 'PUT', `/bots/${w.bot.id}/commands`, { auth, body: [ROLL] });
      expect(r.status).toBe(403);
      expect(r.body.code).toBe('bot_owner_only');
    }
    const elsewhere = await world(srv.url);
    const r = await call(srv.url, 'PUT', `/bots/${w.bot.id}/commands?serverId=${elsewhere.server.id}`, { auth: w.bot.auth, body: [ROLL] });
    expect(r.status).toBe(403);
    expect(r.body.code).toBe('not_a_member');
  });

  it.each([
    ['an upper-case name', [{ name: 'Roll', description: 'x' }], 'invalid_commands'],
    ['a name with a space', [{ name: 'ro ll', description: 'x' }], 'invalid_commands'],
    ['a name of 33 characters', [{ name: 'a'.repeat(33), description: 'x' }], 'invalid_body'],
    [
      'the same name twice',
      [
        { name: 'a', description: 'x' },
        { name: 'a', description: 'y' },
      ],
      'invalid_commands',
    ],
    ['a blank description', [{ name: 'a', description: ' ' }], 'invalid_commands'],
    [
      '26 options',
      [
        {
          name: 'a',
          description: 'x',
          options: Array.from({ length: 26 }, (_, i) => ({ type: 'string', name: `o${i}`, description: 'd' })),
        },
      ],
      'invalid_body',
    ],
    [
      '26 choices',
      [
        {
          name: 'a',
          description: 'x',
          options: [
            {
              type: 'string',
              name: 'o',
              description: 'd',
              choices: Array.from({ length: 26 }, (_, i) => ({ name: `c${i}`, value: `v${i}` })),
            },
          ],
        },
      ],
      'invalid_body',
    ],
    [
      'a required option after an optional one',
      [
        {
          name: 'a',
          description: 'x',
          options: [
            { type: 'string', name: 'o', description: 'd' },
            { type: 'string', name: 'p', description: 'd', required: true },
          ],
        },
      ],
      'invalid_commands',
    ],
    [
      'choices on a boolean',
      [{ name: 'a', description: 'x', options: [{ type: 'boolean', name: 'o', description: 'd', choices: [{ name: 'y', value: 'y' }] }] }],
      'invalid_commands',
    ],
    [
      'a string choice on an integer',
      [{ name: 'a', description: 'x', options: [{ type: 'integer', name: 'o', description: 'd', choices: [{ name: 'y', value: 'y' }] }] }],
      'invalid_commands',
    ],
    [
      'minValue above maxValue',
      [{ name: 'a', description: 'x', options: [{ type: 'number', name: 'o', description: 'd', minValue: 5, maxValue: 1 }] }],
      'invalid_commands',
    ],
    [
      'minValue on a string',
      [{ name: 'a', description: 'x', options: [{ type: 'string', name: 'o', description: 'd', minValue: 1 }] }],
      'invalid_commands',
    ],
    [
      'autocomplete with choices',
      [
        {
          name: 'a',
          description: 'x',
          options: [{ type: 'string', name: 'o', description: 'd', autocomplete: true, choices: [{ name: 'y', value: 'y' }] }],
        },
      ],
      'invalid_commands',
    ],
    [
      'an unknown option type',
      [{ name: 'a', description: 'x', options: [{ type: 'float', name: 'o', description: 'd' }] }],
      'invalid_body',
    ],
    ['unknown permission bits', [{ name: 'a', description: 'x', defaultMemberPermissions: String(1n << 40n) }], 'invalid_commands'],
  ])('refuses %s (400), and keeps the list it had', async (_, body, code) => {
    const w = await world(srv.url);
    await call(srv.url, 'PUT', `/bots/${w.bot.id}/commands`, { auth: w.bot.auth, body: [ROLL] });
    const r = await call(srv.url, 'PUT', `/bots/${w.bot.id}/commands`, { auth: w.bot.auth, body });
    expect(r.status, r.text).toBe(400);
    expect(r.body.code).toBe(code);
    const list = await call(srv.url, 'GET', `/bots/${w.bot.id}/commands`, { auth: w.bot.auth });
    expect(list.body.map((c: { name: string }) => c.name)).toEqual(['roll']);
  });
});

describe('the commands of a channel', () => {
  it("lists the server's bots' commands the caller may use, with the bot", async () => {
    const w = await setup();
    await call(srv.url, 'PUT', `/bots/${w.bot.id}/commands?serverId=${w.server.id}`, {
      auth: w.bot.auth,
      body: [{ name: 'admin', description: 'Owners only', defaultMemberPermissions: String(MANAGE_SERVER) }],
    });
    const forOwner = await call(srv.url, 'GET', `/channels/${w.channel.id}/commands`, { auth: w.owner.auth });
    expect(forOwner.status).toBe(200);
    expect(forOwner.body.map((c: { name: string }) => c.name).sort()).toEqual(['admin', 'roll']);
    expect(forOwner.body[0].bot).toMatchObject({ id: w.bot.id, bot: true });
    const forMember = await call(srv.url, 'GET', `/channels/${w.channel.id}/commands`, { auth: w.member.auth });
    expect(forMember.body.map((c: { name: string }) => c.name)).toEqual(['roll']);
    // Running the hidden one directly is refused too.
    const r = await invoke(w.member, w.channel.id, { type: 'command', botId: w.bot.id, name: 'admin' });
    expect(r.status).toBe(403);
    expect(r.body.code).toBe('missing_permission');
  });

  it('is empty, and running one is refused, without USE_APPLICATION_COMMANDS', async () => {
    const w = await setup();
    const roles = await call(srv.url, 'GET', `/servers/${w.server.id}/roles`, { auth: w.owner.auth });
    const everyone = roles.body.find((r: { id: string }) => r.id === w.server.id);
    const without = BigInt(everyone.permissions) & ~USE_APPLICATION_COMMANDS;
    const p = await call(srv.url, 'PATCH', `/servers/${w.server.id}/roles/${w.server.id}`, {
      auth: w.owner.auth,
      body: { permissions: String(without) },
    });
    expect(p.status, p.text).toBe(200);
    expect((await call(srv.url, 'GET', `/channels/${w.channel.id}/commands`, { auth: w.member.auth })).body).toEqual([]);
    const r = await invoke(w.member, w.channel.id, { type: 'command', botId: w.bot.id, name: 'roll', options: { sides: 6 } });
    expect(r.status).toBe(403);
    expect(r.body.code).toBe('missing_permission');
  });

  it("offers a bot's global commands in a DM with it", async () => {
    const w = await setup();
    const dm = await call(srv.url, 'POST', '/users/@me/channels', { auth: w.owner.auth, body: { recipientIds: [w.bot.id] } });
    expect([200, 201]).toContain(dm.status);
    const list = await call(srv.url, 'GET', `/channels/${dm.body.id}/commands`, { auth: w.owner.auth });
    expect(list.body.map((c: { name: string }) => c.name)).toEqual(['roll']);
    const i = await roll(w, w.owner, dm.body.id);
    expect(i.serverId).toBeNull();
    expect((await callback(i, { type: 'message', data: { content: 'rolled in a DM' } })).status).toBe(204);
  });
});

describe('invoking', () => {
  it('delivers the command with its checked options to the bot, and answers 202', async () => {
    const w = await setup();
    const i = await roll(w, w.member, w.channel.id, { sides: 20, mood: 'happy', for: w.owner.id });
    expect(i).toMatchObject({
      type: 'command',
      botId: w.bot.id,
      channelId: w.channel.id,
      serverId: w.server.id,
      name: 'roll',
      options: { sides: 20, mood: 'happy', for: w.owner.id },
      user: { id: w.member.id, bot: false },
    });
    expect(i.token).toMatch(/^\d+\..{43}$/);
    // The declared types, the invoker as a member, and what the user option names.
    expect(i.optionTypes).toEqual({ sides: 'integer', mood: 'string', for: 'user' });
    expect(i.member).toMatchObject({ roles: [], permissions: expect.stringMatching(/^\d+$/) });
    expect(BigInt(i.member.permissions) & USE_APPLICATION_COMMANDS).toBe(USE_APPLICATION_COMMANDS);
    expect(i.resolved.users[w.owner.id]).toMatchObject({ id: w.owner.id });
    expect(i.resolved.members[w.owner.id]).toMatchObject({ roles: [] });
  });

  it.each([
    ['an unknown command', { name: 'nope', options: {} }, 404, 'unknown_command'],
    ['an unknown option', { options: { sides: 6, colour: 'red' } }, 400, 'unknown_option'],
    ['a missing required option', { options: {} }, 400, 'missing_option'],
    ['a string for an integer', { options: { sides: '6' } }, 400, 'invalid_option'],
    ['a fraction for an integer', { options: { sides: 6.5 } }, 400, 'invalid_option'],
    ['a value under minValue', { options: { sides: 1 } }, 400, 'invalid_option'],
    ['a value that is not a choice', { options: { sides: 6, mood: 'angry' } }, 400, 'invalid_option'],
    ['a user who is not a member', { options: { sides: 6, for: '12345' } }, 400, 'invalid_option'],
  ])('refuses %s, and the bot receives nothing', async (_, change, status, code) => {
    const w = await setup();
    const r = await invoke(w.member, w.channel.id, { type: 'command', botId: w.bot.id, name: 'roll', ...change });
    expect(r.status, r.text).toBe(status);
    expect(r.body.code).toBe(code);
    // The next good one is the first the bot hears of.
    const good = await roll(w, w.member, w.channel.id);
    expect(w.botGw.events('INTERACTION_CREATE').map((f) => f.d.id)).toEqual([good.id]);
  });

  it('is for people: a bot gets 403', async () => {
    const w = await setup();
    const r = await call(srv.url, 'POST', `/channels/${w.channel.id}/interactions`, {
      auth: w.bot.auth,
      body: { type: 'command', botId: w.bot.id, name: 'roll', options: { sides: 6 } },
    });
    expect(r.status).toBe(403);
    expect(r.body.code).toBe('users_only');
  });

  it('refuses a command of a bot that is not in the server', async () => {
    const w = await setup();
    const other = await world(srv.url);
    await call(srv.url, 'PUT', `/bots/${other.bot.id}/commands`, { auth: other.bot.auth, body: [ROLL] });
    const r = await invoke(w.member, w.channel.id, { type: 'command', botId: other.bot.id, name: 'roll', options: { sides: 6 } });
    expect(r.status).toBe(404);
    expect(r.body.code).toBe('unknown_command');
  });
});

describe('callbacks', () => {
  it('posts the answer with its interaction, once: a second callback is 409 and posts nothing', async () => {
    const w = await setup();
    const memberGw = await pool.identify(srv.gatewayUrl, w.member.auth);
    const i = await roll(w, w.member, w.channel.id);
    const r = await callback(i, { type: 'message', data: { content: 'You rolled 4' } });
    expect(r.status, r.text).toBe(204);
    const created = await memberGw.waitForEvent('MESSAGE_CREATE', (d) => d.content === 'You rolled 4');
    expect(created.d.interaction).toEqual({ id: i.id, type: 'command', name: 'roll', user: expect.objectContaining({ id: w.member.id }) });
    expect(created.d.author.id).toBe(w.bot.id);
    await memberGw.waitForEvent('INTERACTION_SUCCESS', (d) => d.id === i.id);
    const again = await callback(i, { type: 'message', data: { content: 'twice' } });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('interaction_already_acknowledged');
    const history = await call(srv.url, 'GET', `/channels/${w.channel.id}/messages`, { auth: w.member.auth });
    expect(history.body.map((m: { content: string }) => m.content)).toEqual(['You rolled 4']);
    // Follow-ups and the original, by token.
    const f = await call(srv.url, 'POST', `/interactions/${i.token}/followups`, { body: { content: 'and again' } });
    expect(f.status, f.text).toBe(200);
    expect(f.body.interaction.id).toBe(i.id);
    const e = await call(srv.url, 'PATCH', `/interactions/${i.token}/messages/original`, { body: { content: 'You rolled 5' } });
    expect(e.status, e.text).toBe(200);
    expect(e.body).toMatchObject({ id: created.d.id, content: 'You rolled 5' });
    expect((await call(srv.url, 'GET', `/interactions/${i.token}/messages/original`)).body.content).toBe('You rolled 5');
    expect((await call(srv.url, 'DELETE', `/interactions/${i.token}/messages/original`)).status).toBe(204);
    await memberGw.waitForEvent('MESSAGE_DELETE', (d) => d.id === created.d.id);
  });

  it('defers with a placeholder that the edit of the original replaces', async () => {
    const w = await setup();
    const i = await roll(w, w.member, w.channel.id);
    expect((await callback(i, { type: 'deferred' })).status).toBe(204);
    const placeholder = await call(srv.url, 'GET', `/interactions/${i.token}/messages/original`);
    expect(placeholder.body).toMatchObject({ content: '', loading: true });
    const e = await call(srv.url, 'PATCH', `/interactions/${i.token}/messages/original`, { body: { content: 'done thinking' } });
    expect(e.status, e.text).toBe(200);
    expect(e.body.loading).toBeUndefined();
    const stored = await call(srv.url, 'GET', `/channels/${w.channel.id}/messages/${e.body.id}`, { auth: w.member.auth });
    expect(stored.body).toMatchObject({ content: 'done thinking', interaction: { id: i.id } });
    expect(stored.body.loading).toBeUndefined();
  });

  it('refuses a callback after the window (interaction_expired), and posts nothing', async () => {
    const w = await setup();
    const i = await roll(w, w.member, w.channel.id);
    srv.app.ctx.clock = () => Date.now() + 3_500;
    const r = await callback(i, { type: 'message', data: { content: 'too late' } });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('interaction_expired');
    const history = await call(srv.url, 'GET', `/channels/${w.channel.id}/messages`, { auth: w.member.auth });
    expect(history.body).toEqual([]);
  });

  it('refuses follow-ups and edits once the token has expired, and before any callback', async () => {
    const w = await setup();
    const i = await roll(w, w.member, w.channel.id);
    const early = await call(srv.url, 'POST', `/interactions/${i.token}/followups`, { body: { content: 'early' } });
    expect(early.status).toBe(400);
    expect(early.body.code).toBe('interaction_not_acknowledged');
    expect((await callback(i, { type: 'message', data: { content: 'ok' } })).status).toBe(204);
    srv.app.ctx.clock = () => Date.now() + 16 * 60_000;
    for (const [method, path] of [
      ['POST', `/interactions/${i.token}/followups`],
      ['PATCH', `/interactions/${i.token}/messages/original`],
    ] as const) {
      const r = await call(srv.url, method, path, { body: { content: 'late' } });
      expect(r.status).toBe(400);
      expect(r.body.code).toBe('interaction_expired');
    }
    srv.app.ctx.clock = Date.now;
    const history = await call(srv.url, 'GET', `/channels/${w.channel.id}/messages`, { auth: w.member.auth });
    expect(history.body.map((m: { content: string }) => m.content)).toEqual(['ok']);
  });

  it('answers 404 for a wrong token or id, the same for each', async () => {
    const w = await setup();
    const i = await roll(w, w.member, w.channel.id);
    const wrongSecret = `${i.id}.${'A'.repeat(43)}`;
    for (const r of [
      await call(srv.url, 'POST', `/interactions/${i.id}/${wrongSecret}/callback`, { body: { type: 'message', data: { content: 'x' } } }),
      await call(srv.url, 'POST', `/interactions/1/${i.token}/callback`, { body: { type: 'message', data: { content: 'x' } } }),
      await call(srv.url, 'POST', `/interactions/${wrongSecret}/followups`, { body: { content: 'x' } }),
    ]) {
      expect(r.status).toBe(404);
      expect(r.body.code).toBe('unknown_interaction');
    }
  });

  it('refuses callback types that do not fit the interaction', async () => {
    const w = await setup();
    const i = await roll(w, w.member, w.channel.id);
    for (const body of [
      { type: 'update', data: { content: 'x' } },
      { type: 'autocomplete', data: { choices: [] } },
    ]) {
      const r = await callback(i, body);
      expect(r.status).toBe(400);
      expect(r.body.code).toBe('invalid_callback');
    }
    // Still answerable: a refused callback settles nothing.
    expect((await callback(i, { type: 'message', data: { content: 'fine' } })).status).toBe(204);
  });
});

describe("a token ends with the bot's place in the channel", () => {
  const SEND_MESSAGES = 1n << 11n;
  /** /roll answered, a follow-up posted: the token works, then `revoke` runs. */
  async function answeredRoll() {
    const w = await setup();
    const i = await roll(w, w.member, w.channel.id);
    expect((await callback(i, { type: 'message', data: { content: 'rolled' } })).status).toBe(204);
    const f = await call(srv.url, 'POST', `/interactions/${i.token}/followups`, { body: { content: 'before' } });
    expect(f.status, f.text).toBe(200);
    return { w, i, followUpId: f.body.id as string };
  }
  /** Every use of the token: follow-up, get/edit/delete of the original and of a follow-up. */
  const uses = (token: string, followUpId: string) =>
    [
      ['POST', `/interactions/${token}/followups`, { content: 'after' }],
      ['GET', `/interactions/${token}/messages/original`, undefined],
      ['PATCH', `/interactions/${token}/messages/original`, { content: 'edited after' }],
      ['PATCH', `/interactions/${token}/messages/${followUpId}`, { content: 'edited after' }],
      ['GET', `/interactions/${token}/messages/${followUpId}`, undefined],
      ['DELETE', `/interactions/${token}/messages/${followUpId}`, undefined],
      ['DELETE', `/interactions/${token}/messages/original`, undefined],
    ] as const;
  async function contents(w: { channel: { id: string }; owner: TestUser }) {
    const h = await call(srv.url, 'GET', `/channels/${w.channel.id}/messages`, { auth: w.owner.auth });
    return h.body.map((m: { content: string }) => m.content).sort();
  }

  it.each([
    [
      'removed from the server',
      (w: Awaited<ReturnType<typeof setup>>) => call(srv.url, 'DELETE', `/servers/${w.server.id}/bots/${w.bot.id}`, { auth: w.owner.auth }),
    ],
    [
      'deleted by its owner',
      (w: Awaited<ReturnType<typeof setup>>) => call(srv.url, 'DELETE', `/bots/${w.bot.id}`, { auth: w.owner.auth }),
    ],
  ])('a bot %s: every use of its tokens is 404 unknown_interaction at once, and nothing changes', async (_, revoke) => {
    const { w, i, followUpId } = await answeredRoll();
    const r = await revoke(w);
    expect(r.status, r.text).toBe(204);
    for (const [method, path, body] of uses(i.token, followUpId)) {
      const a = await call(srv.url, method, path, body ? { body } : {});
      expect([a.status, a.body.code], `${method} ${path}`).toEqual([404, 'unknown_interaction']);
    }
    expect(await contents(w)).toEqual(['before', 'rolled']);
  });

  it('a bot removed before its callback: the callback is 404 unknown_interaction and posts nothing', async () => {
    const w = await setup();
    const i = await roll(w, w.member, w.channel.id);
    expect((await call(srv.url, 'DELETE', `/servers/${w.server.id}/bots/${w.bot.id}`, { auth: w.owner.auth })).status).toBe(204);
    const r = await callback(i, { type: 'message', data: { content: 'after removal' } });
    expect([r.status, r.body.code]).toEqual([404, 'unknown_interaction']);
    expect(await contents(w)).toEqual([]);
  });

  it('a bot that loses SEND_MESSAGES in the channel: callbacks, follow-ups and edits are 403 missing_permission; back once allowed again', async () => {
    const { w, i, followUpId } = await answeredRoll();
    const late = await roll(w, w.member, w.channel.id);
    const deny = await call(srv.url, 'PUT', `/channels/${w.channel.id}/permissions/${w.bot.id}`, {
      auth: w.owner.auth,
      body: { type: 'member', allow: '0', deny: String(SEND_MESSAGES) },
    });
    expect(deny.status, deny.text).toBe(204);
    for (const [method, path, body] of [
      ['POST', `/interactions/${late.id}/${late.token}/callback`, { type: 'message', data: { content: 'after deny' } }],
      ['POST', `/interactions/${i.token}/followups`, { content: 'after deny' }],
      ['PATCH', `/interactions/${i.token}/messages/original`, { content: 'after deny' }],
      ['PATCH', `/interactions/${i.token}/messages/${followUpId}`, { content: 'after deny' }],
    ] as const) {
      const a = await call(srv.url, method, path, { body });
      expect([a.status, a.body.code], `${method} ${path}`).toEqual([403, 'missing_permission']);
    }
    expect(await contents(w)).toEqual(['before', 'rolled']);
    // Reading its own answer needs no more than seeing the channel.
    expect((await call(srv.url, 'GET', `/interactions/${i.token}/messages/original`)).status).toBe(200);
    await call(srv.url, 'DELETE', `/channels/${w.channel.id}/permissions/${w.bot.id}`, { auth: w.owner.auth });
    const again = await call(srv.url, 'POST', `/interactions/${i.token}/followups`, { body: { content: 'allowed again' } });
    expect(again.status, again.text).toBe(200);
  });
});

describe('ephemeral answers', () => {
  it("reach the invoker's sessions alone, never another member's, history or search", async () => {
    const w = await setup();
    const invokerGw = await pool.identify(srv.gatewayUrl, w.member.auth);
    const otherGw = await pool.identify(srv.gatewayUrl, w.owner.auth);
    const i = await roll(w, w.member, w.channel.id);
    expect((await callback(i, { type: 'message', data: { content: 'secret roll 3', ephemeral: true } })).status).toBe(204);
    const seen = await invokerGw.waitForEvent('MESSAGE_CREATE', (d) => d.content === 'secret roll 3');
    expect(seen.d).toMatchObject({ ephemeral: true, interaction: { id: i.id }, author: { id: w.bot.id } });
    // A marker after it: the other member gets the marker, and never got the ephemeral one before it.
    await call(srv.url, 'POST', `/channels/${w.channel.id}/messages`, { auth: w.owner.auth, body: { content: 'marker' } });
    await otherGw.waitForEvent('MESSAGE_CREATE', (d) => d.content === 'marker');
    expect(otherGw.events('MESSAGE_CREATE').map((f) => f.d.content)).toEqual(['marker']);
    expect(w.botGw.events('MESSAGE_CREATE').map((f) => f.d.content)).toEqual(['marker']);
    const history = await call(srv.url, 'GET', `/channels/${w.channel.id}/messages`, { auth: w.member.auth });
    expect(history.body.map((m: { content: string }) => m.content)).toEqual(['marker']);
    const found = await call(srv.url, 'GET', `/search/messages?q=secret&channelId=${w.channel.id}`, { auth: w.member.auth });
    expect(found.body.total).toBe(0);
    // Edited by token, to the invoker alone again.
    const e = await call(srv.url, 'PATCH', `/interactions/${i.token}/messages/original`, { body: { content: 'secret roll 4' } });
    expect(e.status, e.text).toBe(200);
    await invokerGw.waitForEvent('MESSAGE_UPDATE', (d) => d.id === seen.d.id && d.content === 'secret roll 4');
    const f = await call(srv.url, 'POST', `/interactions/${i.token}/followups`, { body: { content: 'secret follow-up', ephemeral: true } });
    expect(f.body.ephemeral).toBe(true);
    await invokerGw.waitForEvent('MESSAGE_CREATE', (d) => d.content === 'secret follow-up');
    await call(srv.url, 'POST', `/channels/${w.channel.id}/messages`, { auth: w.owner.auth, body: { content: 'marker 2' } });
    await otherGw.waitForEvent('MESSAGE_CREATE', (d) => d.content === 'marker 2');
    expect(otherGw.events('MESSAGE_UPDATE')).toEqual([]);
    expect(otherGw.events('MESSAGE_CREATE').map((f) => f.d.content)).toEqual(['marker', 'marker 2']);
  });
});

describe('components', () => {
  const ROWS = [
    {
      type: 'row',
      components: [
        { type: 'button', style: 'primary', label: 'Again', customId: 'again' },
        { type: 'button', style: 'link', label: 'Docs', url: 'https://example.com/docs' },
      ],
    },
    {
      type: 'row',
      components: [
        {
          type: 'select',
          customId: 'pick',
          options: [
            { label: 'One', value: '1' },
            { label: 'Two', value: '2' },
            { label: 'Three', value: '3' },
          ],
          maxValues: 2,
        },
      ],
    },
  ];

  async function botMessage(w: Awaited<ReturnType<typeof setup>>, channelId = w.channel.id) {
    const r = await call(srv.url, 'POST', `/channels/${channelId}/messages`, {
      auth: w.bot.auth,
      body: { content: 'Pick one', components: ROWS },
    });
    expect(r.status, r.text).toBe(201);
    expect(r.body.components).toEqual(ROWS);
    return r.body as { id: string };
  }

  it('a click reaches the bot with the message, and an update edits that message', async () => {
    const w = await setup();
    const m = await botMessage(w);
    const click = await invoke(w.member, w.channel.id, { type: 'component', messageId: m.id, customId: 'pick', values: ['1', '3'] });
    expect(click.status, click.text).toBe(202);
    const ev = await w.botGw.waitForEvent('INTERACTION_CREATE', (d) => d.id === click.body.id);
    expect(ev.d).toMatchObject({ type: 'component', customId: 'pick', values: ['1', '3'], messageId: m.id, message: { id: m.id } });
    const u = await callback(ev.d, { type: 'update', data: { content: 'Picked 1 and 3', components: [] } });
    expect(u.status, u.text).toBe(204);
    const after = await call(srv.url, 'GET', `/channels/${w.channel.id}/messages/${m.id}`, { auth: w.member.auth });
    expect(after.body.content).toBe('Picked 1 and 3');
    expect(after.body.components).toBeUndefined();
    // The clicked message is now the token's original.
    expect((await call(srv.url, 'GET', `/interactions/${ev.d.token}/messages/original`)).body.id).toBe(m.id);
  });

  it.each([
    ['an unknown customId', { customId: 'nope' }, 404, 'unknown_component'],
    ['a link button (it has no customId)', { customId: 'https://example.com/docs' }, 404, 'unknown_component'],
    ['a value not among the options', { customId: 'pick', values: ['9'] }, 400, 'invalid_values'],
    ['too many values', { customId: 'pick', values: ['1', '2', '3'] }, 400, 'invalid_values'],
    ['too few values', { customId: 'pick', values: [] }, 400, 'invalid_values'],
    ['values on a button', { customId: 'again', values: ['1'] }, 400, 'invalid_values'],
  ])('refuses %s, and the bot receives nothing', async (_, change, status, code) => {
    const w = await setup();
    const m = await botMessage(w);
    const r = await invoke(w.member, w.channel.id, { type: 'component', messageId: m.id, ...change });
    expect(r.status, r.text).toBe(status);
    expect(r.body.code).toBe(code);
    const good = await invoke(w.member, w.channel.id, { type: 'component', messageId: m.id, customId: 'again' });
    await w.botGw.waitForEvent('INTERACTION_CREATE', (d) => d.id === good.body.id);
    expect(w.botGw.events('INTERACTION_CREATE').map((f) => f.d.id)).toEqual([good.body.id]);
  });

  it('refuses a click on a message without components', async () => {
    const w = await setup();
    const plain = await call(srv.url, 'POST', `/channels/${w.channel.id}/messages`, { auth: w.bot.auth, body: { content: 'no buttons' } });
    const r = await invoke(w.member, w.channel.id, { type: 'component', messageId: plain.body.id, customId: 'again' });
    expect(r.status).toBe(404);
    expect(r.body.code).toBe('unknown_component');
  });

  it('lets only people who can see the message click: someone who cannot see the channel gets 403, the bot nothing', async () => {
    const w = await setup();
    const hidden = await createChannel(srv.url, w.owner, w.server.id);
    const m = await botMessage(w, hidden.id);
    const deny = await call(srv.url, 'PUT', `/channels/${hidden.id}/permissions/${w.server.id}`, {
      auth: w.owner.auth,
      body: { type: 'role', allow: '0', deny: String(VIEW_CHANNEL) },
    });
    expect(deny.status, deny.text).toBe(204);
    // The bot keeps seeing it (its managed role is not denied), the member does not.
    const r = await invoke(w.member, hidden.id, { type: 'component', messageId: m.id, customId: 'again' });
    expect(r.status).toBe(403);
    const outsider = await registerUser(srv.url);
    const r2 = await invoke(outsider, hidden.id, { type: 'component', messageId: m.id, customId: 'again' });
    expect(r2.status).toBe(403);
    const good = await invoke(w.owner, hidden.id, { type: 'component', messageId: m.id, customId: 'again' });
    expect(good.status).toBe(202);
    await w.botGw.waitForEvent('INTERACTION_CREATE', (d) => d.id === good.body.id);
    expect(w.botGw.events('INTERACTION_CREATE').map((f) => f.d.id)).toEqual([good.body.id]);
  });

  it.each([
    [
      'six rows',
      Array.from({ length: 6 }, () => ({
        type: 'row',
        components: [{ type: 'button', style: 'primary', label: 'x', customId: `${Math.random()}` }],
      })),
      'invalid_body',
    ],
    [
      'six buttons in a row',
      [
        {
          type: 'row',
          components: Array.from({ length: 6 }, (_, i) => ({ type: 'button', style: 'primary', label: 'x', customId: `b${i}` })),
        },
      ],
      'invalid_body',
    ],
    [
      'a customId of 101 characters',
      [{ type: 'row', components: [{ type: 'button', style: 'primary', label: 'x', customId: 'a'.repeat(101) }] }],
      'invalid_body',
    ],
    [
      'a label of 81 characters',
      [{ type: 'row', components: [{ type: 'button', style: 'primary', label: 'a'.repeat(81), customId: 'a' }] }],
      'invalid_body',
    ],
    [
      'a link button to javascript:',
      [{ type: 'row', components: [{ type: 'button', style: 'link', label: 'x', url: 'javascript:alert(1)' }] }],
      'invalid_components',
    ],
    [
      'a link button with a customId',
      [{ type: 'row', components: [{ type: 'button', style: 'link', label: 'x', url: 'https://a.example', customId: 'a' }] }],
      'invalid_components',
    ],
    [
      'a button without a customId',
      [{ type: 'row', components: [{ type: 'button', style: 'primary', label: 'x' }] }],
      'invalid_components',
    ],
    [
      'a customId twice',
      [
        {
          type: 'row',
          components: [
            { type: 'button', style: 'primary', label: 'x', customId: 'a' },
            { type: 'button', style: 'danger', label: 'y', customId: 'a' },
          ],
        },
      ],
      'invalid_components',
    ],
    [
      'a select beside a button',
      [
        {
          type: 'row',
          components: [
            { type: 'select', customId: 's', options: [{ label: 'a', value: 'a' }] },
            { type: 'button', style: 'primary', label: 'x', customId: 'b' },
          ],
        },
      ],
      'invalid_components',
    ],
    [
      'maxValues above the options',
      [{ type: 'row', components: [{ type: 'select', customId: 's', options: [{ label: 'a', value: 'a' }], maxValues: 2 }] }],
      'invalid_components',
    ],
  ])('refuses %s on a message (400), and posts nothing', async (_, components, code) => {
    const w = await setup();
    const r = await call(srv.url, 'POST', `/channels/${w.channel.id}/messages`, { auth: w.bot.auth, body: { content: 'x', components } });
    expect(r.status, r.text).toBe(400);
    expect(r.body.code).toBe(code);
    expect((await call(srv.url, 'GET', `/channels/${w.channel.id}/messages`, { auth: w.bot.auth })).body).toEqual([]);
  });

  it("on webhook messages are link buttons only, in Discord's shape or ours", async () => {
    const w = await setup();
    const hook = await createWebhook(srv.url, w.owner, w.server.id, w.channel.id);
    const ok = await call(srv.url, 'POST', `/webhooks/${hook.id}/${hook.token}`, {
      body: {
        content: 'Read more',
        components: [{ type: 1, components: [{ type: 2, style: 5, label: 'Docs', url: 'https://example.com/d' }] }],
      },
    });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.components).toEqual([
      { type: 'row', components: [{ type: 'button', style: 'link', label: 'Docs', url: 'https://example.com/d' }] },
    ]);
    const interactive = await call(srv.url, 'POST', `/webhooks/${hook.id}/${hook.token}`, {
      body: { content: 'Click', components: [{ type: 1, components: [{ type: 2, style: 1, label: 'Go', custom_id: 'go' }] }] },
    });
    expect(interactive.status).toBe(400);
    expect(interactive.body.code).toBe('invalid_components');
    const history = await call(srv.url, 'GET', `/channels/${w.channel.id}/messages`, { auth: w.owner.auth });
    expect(history.body.map((m: { content: string }) => m.content)).toEqual(['Read more']);
  });

  it('are for bots: a person sending components gets 400', async () => {
    const w = await setup();
    const r = await call(srv.url, 'POST', `/channels/${w.channel.id}/messages`, {
      auth: w.owner.auth,
      body: { content: 'x', components: ROWS },
    });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('invalid_components');
  });

  it('work on an ephemeral answer, for its invoker only', async () => {
    const w = await setup();
    const invokerGw = await pool.identify(srv.gatewayUrl, w.member.auth);
    const i = await roll(w, w.member, w.channel.id);
    const confirm = [{ type: 'row', components: [{ type: 'button', style: 'danger', label: 'Confirm', customId: 'confirm' }] }];
    expect((await callback(i, { type: 'message', data: { content: 'Sure?', ephemeral: true, components: confirm } })).status).toBe(204);
    const eph = await invokerGw.waitForEvent('MESSAGE_CREATE', (d) => d.content === 'Sure?');
    const other = await invoke(w.owner, w.channel.id, { type: 'component', messageId: eph.d.id, customId: 'confirm' });
    expect(other.status).toBe(404);
    const click = await invoke(w.member, w.channel.id, { type: 'component', messageId: eph.d.id, customId: 'confirm' });
    expect(click.status, click.text).toBe(202);
    const ev = await w.botGw.waitForEvent('INTERACTION_CREATE', (d) => d.id === click.body.id);
    expect((await callback(ev.d, { type: 'update', data: { content: 'Confirmed', components: [] } })).status).toBe(204);
    const upd = await invokerGw.waitForEvent('MESSAGE_UPDATE', (d) => d.id === eph.d.id);
    expect(upd.d).toMatchObject({ content: 'Confirmed', ephemeral: true });
    // The command's own token sees the update, and deleting through it reaches the invoker.
    expect((await call(srv.url, 'GET', `/interactions/${i.token}/messages/original`)).body.content).toBe('Confirmed');
    expect((await call(srv.url, 'DELETE', `/interactions/${i.token}/messages/original`)).status).toBe(204);
    await invokerGw.waitForEvent('MESSAGE_DELETE', (d) => d.id === eph.d.id);
    const gone = await invoke(w.member, w.channel.id, { type: 'component', messageId: eph.d.id, customId: 'confirm' });
    expect(gone.status).toBe(404);
  });
});

describe('autocomplete', () => {
  it("answers with the bot's choices", async () => {
    const w = await setup();
    w.botGw
      .waitForEvent('INTERACTION_CREATE', (d) => d.type === 'autocomplete')
      .then((ev) =>
        callback(ev.d, {
          type: 'autocomplete',
          data: {
            choices: [
              { name: 'Chess', value: 'chess' },
              { name: 'Checkers', value: 'checkers' },
            ],
          },
        }),
      );
    const r = await invoke(w.member, w.channel.id, {
      type: 'autocomplete',
      botId: w.bot.id,
      name: 'roll',
      options: { game: 'ch' },
      focused: 'game',
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body.choices).toEqual([
      { name: 'Chess', value: 'chess' },
      { name: 'Checkers', value: 'checkers' },
    ]);
  });

  it('refuses an option that does not autocomplete', async () => {
    const w = await setup();
    const r = await invoke(w.member, w.channel.id, {
      type: 'autocomplete',
      botId: w.bot.id,
      name: 'roll',
      options: { mood: 'h' },
      focused: 'mood',
    });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('invalid_option');
  });
});

describe('bots', () => {
  it('show their Ed25519 public key to their owner', async () => {
    const owner = await registerUser(srv.url);
    const created = await call(srv.url, 'POST', '/bots', { auth: owner.auth, body: { name: 'keyed' } });
    expect(created.body.publicKey).toMatch(/^[0-9a-f]{64}$/);
    const listed = await call(srv.url, 'GET', '/bots', { auth: owner.auth });
    expect(listed.body[0].publicKey).toBe(created.body.publicKey);
    const s = await addBot(
      srv.url,
      owner,
      (await call(srv.url, 'POST', '/servers', { auth: owner.auth, body: { name: 's' } })).body.id,
      created.body.id,
    );
    expect(JSON.stringify(s)).not.toContain('privateKey');
  });
});
