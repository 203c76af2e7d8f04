// Application commands and interactions on Discord's paths, over the model of docs/commands.md:
// command routes (global and guild), INTERACTION_CREATE in Discord's shape, callbacks
// 4 to 8, and the interaction webhook (@original and follow-ups).
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call, world } from '../factories.js';
import { ClientPool, type TestGatewayClient } from '../gateway/client.js';
import { startServer, type TestServer } from '../harness.js';
import { I, identifyDiscord } from './helpers.js';

let srv: TestServer;
const pool = new ClientPool();

beforeAll(async () => {
  srv = await startServer({ env: { GATEWAY_HEARTBEAT_MS: '5000', RATE_LIMITS: 'off' } });
});
afterEach(() => pool.closeAll());
afterAll(() => srv?.close());

const api = (path: string) => `/api/v10${path}`;

describe('application commands', () => {
  it('creates (an upsert by name), lists, gets, edits, overwrites and deletes global and guild commands', async () => {
    const w = await world(srv.url);
    const auth = w.bot.auth;
    const base = api(`/applications/${w.bot.id}/commands`);
    const created = await call(srv.url, 'POST', base, {
      auth,
      body: { name: 'roll', description: 'Roll a die', options: [{ type: 4, name: 'sides', description: 'Sides', min_value: 2 }] },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      application_id: w.bot.id,
      name: 'roll',
      type: 1,
      options: [{ type: 4, name: 'sides', min_value: 2 }],
      default_member_permissions: null,
    });
    const again = await call(srv.url, 'POST', base, { auth, body: { name: 'roll', description: 'Roll dice' } });
    expect([again.status, again.body.id, again.body.description]).toEqual([200, created.body.id, 'Roll dice']);
    const patched = await call(srv.url, 'PATCH', `${base}/${created.body.id}`, { auth, body: { description: 'Roll!' } });
    expect([patched.status, patched.body.id, patched.body.description]).toEqual([200, created.body.id, 'Roll!']);
    expect((await call(srv.url, 'GET', `${base}/${created.body.id}`, { auth })).body.description).toBe('Roll!');

    const guildBase = api(`/applications/${w.bot.id}/guilds/${w.server.id}/commands`);
    const put = await call(srv.url, 'PUT', guildBase, {
      auth,
      body: [
        { name: 'a', description: 'first' },
        { name: 'b', description: 'second', options: [{ type: 3, name: 'q', description: 'query', required: true }] },
      ],
    });
    expect(put.status).toBe(200);
    expect(put.body.map((c: any) => [c.name, c.guild_id])).toEqual([
      ['a', w.server.id],
      ['b', w.server.id],
    ]);
    const del = await call(srv.url, 'DELETE', `${guildBase}/${put.body[0].id}`, { auth });
    expect(del.status).toBe(204);
    expect((await call(srv.url, 'GET', guildBase, { auth })).body.map((c: any) => c.name)).toEqual(['b']);
    // The global list was not touched by the guild's.
    expect((await call(srv.url, 'GET', base, { auth })).body.map((c: any) => c.name)).toEqual(['roll']);
    expect((await call(srv.url, 'GET', `${base}/123`, { auth })).status).toBe(404);
    // Another bot may not manage them.
    const other = await world(srv.url);
    expect((await call(srv.url, 'GET', base, { auth: other.bot.auth })).status).toBe(403);
  });

  it('keeps every one of many concurrent creates, and an edit racing them (each a one-command write)', async () => {
    const w = await world(srv.url);
    const auth = w.bot.auth;
    const base = api(`/applications/${w.bot.id}/guilds/${w.server.id}/commands`);
    const first = await call(srv.url, 'POST', base, { auth, body: { name: 'first', description: 'before' } });
    const names = Array.from({ length: 60 }, (_, i) => `cmd-${i}`);
    const results = await Promise.all([
      ...names.map((name) => call(srv.url, 'POST', base, { auth, body: { name, description: `the ${name}` } })),
      call(srv.url, 'PATCH', `${base}/${first.body.id}`, { auth, body: { description: 'after' } }),
    ]);
    expect(results.map((r) => r.status)).toEqual([...names.map(() => 201), 200]);
    const listed = (await call(srv.url, 'GET', base, { auth })).body as Array<{ name: string; description: string; id: string }>;
    expect(listed.map((c) => c.name).sort()).toEqual([...names, 'first'].sort());
    expect(listed.find((c) => c.name === 'first')).toMatchObject({ id: first.body.id, description: 'after' });
    // Concurrent creates of one new name: one adds it, the others replace it; one command.
    const same = await Promise.all(
      Array.from({ length: 5 }, (_, i) => call(srv.url, 'POST', base, { auth, body: { name: 'same', description: `take ${i}` } })),
    );
    expect(same.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 201]);
    expect(new Set(same.map((r) => r.body.id)).size).toBe(1);
    // Names stay unique per scope: renaming onto another command's name is refused.
    const clash = await call(srv.url, 'PATCH', `${base}/${first.body.id}`, { auth, body: { name: 'cmd-0' } });
    expect(clash.status).toBe(400);
    // A command of another scope is not this one's.
    const global = await call(srv.url, 'POST', api(`/applications/${w.bot.id}/commands`), { auth, body: { name: 'g', description: 'g' } });
    expect((await call(srv.url, 'DELETE', `${base}/${global.body.id}`, { auth })).status).toBe(404);
    expect((await call(srv.url, 'DELETE', `${base}/${first.body.id}`, { auth })).status).toBe(204);
    expect((await call(srv.url, 'GET', `${base}/${first.body.id}`, { auth })).status).toBe(404);
  });

  it('takes subcommands, and refuses a nesting Discord refuses with its invalid form body', async () => {
    const w = await world(srv.url);
    const ok = await call(srv.url, 'POST', api(`/applications/${w.bot.id}/commands`), {
      auth: w.bot.auth,
      body: { name: 'admin', description: 'x', options: [{ type: 1, name: 'kick', description: 'k' }] },
    });
    expect(ok.status, ok.text).toBe(201);
    expect(ok.body.options).toEqual([{ type: 1, name: 'kick', description: 'k', options: [] }]);
    const r = await call(srv.url, 'POST', api(`/applications/${w.bot.id}/commands`), {
      auth: w.bot.auth,
      body: {
        name: 'bad',
        description: 'x',
        options: [{ type: 1, name: 'kick', description: 'k', options: [{ type: 1, name: 'sub', description: 's' }] }],
      },
    });
    expect([r.status, r.body.code]).toEqual([400, 50035]);
  });
});

describe('interactions in Discord shape', () => {
  /** A world whose bot has a /echo command and listens on Discord's gateway. */
  async function setup() {
    const w = await world(srv.url);
    await call(srv.url, 'PUT', api(`/applications/${w.bot.id}/commands`), {
      auth: w.bot.auth,
      body: [
        {
          name: 'echo',
          description: 'Echo',
          options: [
            { type: 3, name: 'text', description: 'text', required: true },
            { type: 3, name: 'lang', description: 'language', autocomplete: true },
          ],
        },
      ],
    });
    const bot = await identifyDiscord(pool, srv, w.bot.token, I.GUILDS | I.GUILD_MESSAGES);
    const person = await pool.identify(srv.gatewayUrl, w.owner.auth);
    return { ...w, botGw: bot, person };
  }

  async function invoke(w: Awaited<ReturnType<typeof setup>>, body: object) {
    return call(srv.url, 'POST', `/channels/${w.channel.id}/interactions`, { auth: w.owner.auth, body });
  }

  const created = (c: TestGatewayClient, n = 1) => c.collect(n, (f) => f.t === 'INTERACTION_CREATE').then((f) => f[n - 1]!.d);

  it('delivers a command as type 2 with data.options, and answers a type 4 callback as a message', async () => {
    const w = await setup();
    expect((await invoke(w, { type: 'command', botId: w.bot.id, name: 'echo', options: { text: 'hi' } })).status).toBe(202);
    const i = await created(w.botGw);
    expect(i).toMatchObject({
      type: 2,
      application_id: w.bot.id,
      channel_id: w.channel.id,
      guild_id: w.server.id,
      version: 1,
      locale: 'en-US',
      member: { user: { id: w.owner.id } },
      data: { name: 'echo', type: 1, options: [{ name: 'text', type: 3, value: 'hi' }] },
    });
    expect(typeof i.token).toBe('string');
    expect(BigInt(i.app_permissions) & 1024n).toBe(1024n); // VIEW_CHANNEL
    const cb = await call(srv.url, 'POST', api(`/interactions/${i.id}/${i.token}/callback`), {
      body: {
        type: 4,
        data: {
          content: 'hi back',
          components: [
            {
              type: 1,
              components: [
                {
                  type: 3,
                  custom_id: 'pick',
                  options: [
                    { label: 'A', value: 'a' },
                    { label: 'B', value: 'b' },
                  ],
                },
              ],
            },
          ],
        },
      },
    });
    expect(cb.status).toBe(204);
    const answer = (await w.person.waitForEvent('MESSAGE_CREATE', (d) => d.content === 'hi back')).d;
    expect(answer.components[0].components[0]).toMatchObject({ type: 'select', customId: 'pick' });

    // A select: type 3 with component_type 3 and values; answered with deferred update (6), then @original edited.
    await invoke(w, { type: 'component', messageId: answer.id, customId: 'pick', values: ['b'] });
    const click = await created(w.botGw, 2);
    expect(click).toMatchObject({ type: 3, data: { custom_id: 'pick', component_type: 3, values: ['b'] }, message: { id: answer.id } });
    expect((await call(srv.url, 'POST', api(`/interactions/${click.id}/${click.token}/callback`), { body: { type: 6 } })).status).toBe(204);
    // Then an update (7) of the clicked message through a second click.
    await invoke(w, { type: 'component', messageId: answer.id, customId: 'pick', values: ['a'] });
    const again = await created(w.botGw, 3);
    const upd = await call(srv.url, 'POST', api(`/interactions/${again.id}/${again.token}/callback`), {
      body: { type: 7, data: { content: 'picked a', components: [] } },
    });
    expect(upd.status).toBe(204);
    await w.person.waitForEvent('MESSAGE_UPDATE', (d) => d.id === answer.id && d.content === 'picked a');
  });

  it('defers (5) then edits, gets and deletes @original, and posts follow-ups (ephemeral with flags 64)', async () => {
    const w = await setup();
    await invoke(w, { type: 'command', botId: w.bot.id, name: 'echo', options: { text: 'x' } });
    const i = await created(w.botGw);
    expect((await call(srv.url, 'POST', api(`/interactions/${i.id}/${i.token}/callback`), { body: { type: 5 } })).status).toBe(204);
    const placeholder = (await w.person.waitForEvent('MESSAGE_CREATE', (d) => d.loading === true)).d;
    const hook = api(`/webhooks/${w.bot.id}/${i.token}`);
    const edited = await call(srv.url, 'PATCH', `${hook}/messages/@original`, { body: { content: 'thought about it' } });
    expect([edited.body.id, edited.body.content, edited.body.flags & 128]).toEqual([placeholder.id, 'thought about it', 0]);
    expect((await call(srv.url, 'GET', `${hook}/messages/@original`)).body.content).toBe('thought about it');
    const follow = await call(srv.url, 'POST', `${hook}?wait=true`, { body: { content: 'psst', flags: 64 } });
    expect([follow.status, follow.body.content, follow.body.flags & 64]).toEqual([200, 'psst', 64]);
    const silent = await call(srv.url, 'POST', hook, { body: { content: 'and another' } });
    expect(silent.status).toBe(204);
    expect((await call(srv.url, 'DELETE', `${hook}/messages/@original`)).status).toBe(204);
    await w.person.waitForEvent('MESSAGE_DELETE', (d) => d.id === placeholder.id);
    // A second callback is refused, as on Discord (already acknowledged).
    const twice = await call(srv.url, 'POST', api(`/interactions/${i.id}/${i.token}/callback`), {
      body: { type: 4, data: { content: 'no' } },
    });
    expect(twice.status).toBe(409);
  });

  it('a bot removed from the guild: its tokens are Unknown Webhook (10015) on the webhook paths and Unknown Interaction (10062) on the callback', async () => {
    const w = await setup();
    await invoke(w, { type: 'command', botId: w.bot.id, name: 'echo', options: { text: 'x' } });
    const i = await created(w.botGw);
    expect(
      (await call(srv.url, 'POST', api(`/interactions/${i.id}/${i.token}/callback`), { body: { type: 4, data: { content: 'one' } } }))
        .status,
    ).toBe(204);
    await invoke(w, { type: 'command', botId: w.bot.id, name: 'echo', options: { text: 'y' } });
    const pending = await created(w.botGw, 2);
    const hook = api(`/webhooks/${w.bot.id}/${i.token}`);
    expect((await call(srv.url, 'POST', `${hook}?wait=true`, { body: { content: 'before' } })).status).toBe(200);
    expect((await call(srv.url, 'DELETE', `/servers/${w.server.id}/bots/${w.bot.id}`, { auth: w.owner.auth })).status).toBe(204);
    for (const [method, path, body] of [
      ['POST', `${hook}?wait=true`, { content: 'after' }],
      ['PATCH', `${hook}/messages/@original`, { content: 'after' }],
      ['GET', `${hook}/messages/@original`, undefined],
      ['DELETE', `${hook}/messages/@original`, undefined],
    ] as const) {
      const r = await call(srv.url, method, path, body ? { body } : {});
      expect([r.status, r.body.code], `${method} ${path}`).toEqual([404, 10015]);
    }
    const cb = await call(srv.url, 'POST', api(`/interactions/${pending.id}/${pending.token}/callback`), {
      body: { type: 4, data: { content: 'after' } },
    });
    expect([cb.status, cb.body.code]).toEqual([404, 10062]);
    const history = await call(srv.url, 'GET', `/channels/${w.channel.id}/messages`, { auth: w.owner.auth });
    expect(history.body.map((m: { content: string }) => m.content).sort()).toEqual(['before', 'one']);
  });

  it('a bot denied SEND_MESSAGES in the channel: follow-ups and callbacks are Missing Permissions (50013)', async () => {
    const w = await setup();
    await invoke(w, { type: 'command', botId: w.bot.id, name: 'echo', options: { text: 'x' } });
    const i = await created(w.botGw);
    expect(
      (await call(srv.url, 'POST', api(`/interactions/${i.id}/${i.token}/callback`), { body: { type: 4, data: { content: 'one' } } }))
        .status,
    ).toBe(204);
    await invoke(w, { type: 'command', botId: w.bot.id, name: 'echo', options: { text: 'y' } });
    const pending = await created(w.botGw, 2);
    const deny = await call(srv.url, 'PUT', `/channels/${w.channel.id}/permissions/${w.bot.id}`, {
      auth: w.owner.auth,
      body: { type: 'member', allow: '0', deny: String(1n << 11n) },
    });
    expect(deny.status, deny.text).toBe(204);
    const hook = api(`/webhooks/${w.bot.id}/${i.token}`);
    const follow = await call(srv.url, 'POST', `${hook}?wait=true`, { body: { content: 'after' } });
    expect([follow.status, follow.body.code]).toEqual([403, 50013]);
    const edit = await call(srv.url, 'PATCH', `${hook}/messages/@original`, { body: { content: 'after' } });
    expect([edit.status, edit.body.code]).toEqual([403, 50013]);
    const cb = await call(srv.url, 'POST', api(`/interactions/${pending.id}/${pending.token}/callback`), {
      body: { type: 4, data: { content: 'after' } },
    });
    expect([cb.status, cb.body.code]).toEqual([403, 50013]);
    const history = await call(srv.url, 'GET', `/channels/${w.channel.id}/messages`, { auth: w.owner.auth });
    expect(history.body.map((m: { content: string }) => m.content)).toEqual(['one']);
  });

  it('sends autocomplete as type 4 with the focused option, and returns the choices of callback 8', async () => {
    const w = await setup();
    const asked = invoke(w, { type: 'autocomplete', botId: w.bot.id, name: 'echo', options: { text: 'x', lang: 'fr' }, focused: 'lang' });
    const i = await created(w.botGw);
    expect(i.type).toBe(4);
    expect(i.data.options).toContainEqual({ name: 'lang', type: 3, value: 'fr', focused: true });
    const cb = await call(srv.url, 'POST', api(`/interactions/${i.id}/${i.token}/callback`), {
      body: { type: 8, data: { choices: [{ name: 'French', value: 'fr' }] } },
    });
    expect(cb.status).toBe(204);
    expect((await asked).body.choices).toEqual([{ name: 'French', value: 'fr' }]);
  });

  it("refuses callback types Parley does not have (9, modals); the interaction reaches the bot's sessions only", async () => {
    const w = await setup();
    const second = await identifyDiscord(pool, srv, w.bot.token, I.GUILDS);
    await invoke(w, { type: 'command', botId: w.bot.id, name: 'echo', options: { text: 'x' } });
    const i = await created(w.botGw);
    await created(second);
    const modal = await call(srv.url, 'POST', api(`/interactions/${i.id}/${i.token}/callback`), { body: { type: 9, data: {} } });
    expect(modal.status).toBe(400);
    const ok = await call(srv.url, 'POST', api(`/interactions/${i.id}/${i.token}/callback`), {
      body: { type: 4, data: { content: 'marker' } },
    });
    expect(ok.status).toBe(204);
    // The marker, published after the interaction: the person's session never had it.
    await w.person.waitForEvent('MESSAGE_CREATE', (d) => d.content === 'marker');
    expect(w.person.events('INTERACTION_CREATE')).toEqual([]);
  });
});
