/**
 * Every route Parley serves under /api, called with a valid request and read raw: the
 * status, `Content-Type` exactly `application/json` (a 204 has none and no body), and the
 * body's shape against `discord-api-types` (shapes.ts), so that the next Discord library
 * works too (issue 36). The routes come from the app's own route table: a route added
 * under /api and not called here fails the last test. Each GET is also sent as HEAD.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createBot, createServer, joinServer, registerUser, type TestUser } from '../factories.js';
import { ClientPool } from '../gateway/client.js';
import { startServer, type TestServer } from '../harness.js';
import { ALL_MESSAGES, identifyDiscord } from './helpers.js';
import {
  APPLICATION,
  arrayOf,
  assertShape,
  BAN,
  CHANNEL,
  COMMAND,
  DM_CHANNEL,
  GATEWAY,
  GATEWAY_BOT,
  GUILD,
  GUILD_CHANNEL,
  MEMBER,
  MESSAGE,
  obj,
  PARTIAL_GUILD,
  PINS,
  ROLE,
  type Spec,
  THREAD,
  THREAD_LIST,
  THREAD_MEMBER,
  USER,
  WEBHOOK,
} from './shapes.js';

let srv: TestServer;
const pool = new ClientPool();

/** `METHOD /api/pattern` of every route called. */
const covered = new Set<string>();

interface Hit {
  /** The Authorization value, if any. */
  auth?: string;
  /** A JSON body. */
  body?: unknown;
  /** A multipart body instead. */
  form?: FormData;
  /** The status Discord answers. */
  status: number;
  /** The body's shape; required unless the status is 204. */
  shape?: Spec<any> | ((body: any) => void);
}

/**
 * Calls `method path` under /api/v10 as the route `pattern` (Fastify's, after /api), checks
 * status, type and shape, and returns the body; a GET is repeated as HEAD.
 */
async function hit(method: string, pattern: string, path: string, h: Hit): Promise<any> {
  covered.add(`${method} /api${pattern}`);
  const headers: Record<string, string> = {};
  if (h.auth) headers.authorization = h.auth;
  let body: RequestInit['body'];
  if (h.form) body = h.form;
  else if (h.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(h.body);
  }
  const r = await fetch(`${srv.url}/api/v10${path}`, { method, headers, body });
  const text = await r.text();
  const where = `${method} ${path}`;
  expect([where, r.status], text).toEqual([where, h.status]);
  if (h.status === 204) {
    expect([where, r.headers.get('content-type'), text]).toEqual([where, null, '']);
    return undefined;
  }
  expect([where, r.headers.get('content-type')]).toEqual([where, 'application/json']);
  const parsed = JSON.parse(text);
  if (!h.shape) throw new Error(`${where}: no shape given for a ${h.status}`);
  try {
    if (typeof h.shape === 'function') h.shape(parsed);
    else assertShape(parsed, h.shape);
  } catch (err) {
    throw new Error(`${where}: ${(err as Error).message}`);
  }
  if (method === 'GET') {
    covered.add(`HEAD /api${pattern}`);
    const head = await fetch(`${srv.url}/api/v10${path}`, { method: 'HEAD', headers });
    expect([`HEAD ${path}`, head.status, head.headers.get('content-type'), await head.text()]).toEqual([
      `HEAD ${path}`,
      h.status,
      'application/json',
      '',
    ]);
  }
  return parsed;
}

/** A shape check for an array of `spec`, at least `min` long. */
const list =
  (spec: Spec<any>, min = 1) =>
  (b: unknown) =>
    arrayOf(obj(spec), { min })(b, 'body');

const w = {} as {
  owner: TestUser;
  alice: TestUser;
  carol: TestUser;
  guild: string;
  channel: string;
  bot: { id: string; auth: string; token: string };
};

beforeAll(async () => {
  srv = await startServer({ env: { RATE_LIMITS: 'off' } });
  [w.owner, w.alice, w.carol] = await Promise.all([registerUser(srv.url), registerUser(srv.url), registerUser(srv.url)]);
  const { server, general } = await createServer(srv.url, w.owner, 'Routes');
  [w.guild, w.channel] = [server.id, general.id];
  const bot = await createBot(srv.url, w.owner);
  w.bot = { id: bot.id, auth: bot.auth, token: bot.token };
  // What such a bot asks for: view, send, history, embeds, files, reactions, its own nickname.
  const permissions = [10, 11, 16, 14, 15, 6, 26].reduce((a, b) => a | (1n << BigInt(b)), 0n).toString();
  const added = await call(srv.url, 'POST', `/servers/${server.id}/bots`, { auth: w.owner.auth, body: { botId: bot.id, permissions } });
  if (added.status !== 201) throw new Error(added.text);
  await joinServer(srv.url, w.owner, w.alice, server.id);
  await joinServer(srv.url, w.owner, w.carol, server.id);
});
afterAll(async () => {
  pool.closeAll();
  await srv?.close();
});

describe('every /api route answers application/json with Discord shapes', () => {
  it('gateway, users and the application', async () => {
    const bot = w.bot.auth;
    await hit('GET', '/gateway', '/gateway', { status: 200, shape: GATEWAY });
    await hit('GET', '/gateway/bot', '/gateway/bot', { auth: bot, status: 200, shape: GATEWAY_BOT });
    const me = await hit('GET', '/users/@me', '/users/@me', { auth: bot, status: 200, shape: USER });
    expect([me.id, me.bot]).toEqual([w.bot.id, true]);
    const alice = await hit('GET', '/users/:userId', `/users/${w.alice.id}`, { auth: bot, status: 200, shape: USER });
    expect(alice.id).toBe(w.alice.id);
    const guilds = await hit('GET', '/users/@me/guilds', '/users/@me/guilds', { auth: bot, status: 200, shape: list(PARTIAL_GUILD) });
    expect(guilds.map((g: { id: string }) => g.id)).toEqual([w.guild]);
    const app = await hit('GET', '/applications/@me', '/applications/@me', { auth: bot, status: 200, shape: APPLICATION });
    expect(app.id).toBe(w.bot.id);
    const oauth = await hit('GET', '/oauth2/applications/@me', '/oauth2/applications/@me', { auth: bot, status: 200, shape: APPLICATION });
    expect(oauth).toEqual(app);
    const dm = await hit('POST', '/users/@me/channels', '/users/@me/channels', {
      auth: w.owner.auth,
      body: { recipient_id: w.alice.id },
      status: 200,
      shape: DM_CHANNEL,
    });
    const dms = await hit('GET', '/users/@me/channels', '/users/@me/channels', {
      auth: w.owner.auth,
      status: 200,
      shape: list(DM_CHANNEL),
    });
    expect(dms.map((c: { id: string }) => c.id)).toContain(dm.id);
  });

  it('guilds, members, roles and bans', async () => {
    const [owner, g] = [w.owner.auth, w.guild];
    const guild = await hit('GET', '/guilds/:guildId', `/guilds/${g}`, { auth: w.bot.auth, status: 200, shape: GUILD });
    expect(guild.id).toBe(g);
    await hit('PATCH', '/guilds/:guildId', `/guilds/${g}`, { auth: owner, body: { name: 'Routes 2' }, status: 200, shape: GUILD });
    const created = await hit('POST', '/guilds/:guildId/channels', `/guilds/${g}/channels`, {
      auth: owner,
      body: { name: 'extra', type: 0 },
      status: 201,
      shape: GUILD_CHANNEL,
    });
    const channels = await hit('GET', '/guilds/:guildId/channels', `/guilds/${g}/channels`, {
      auth: owner,
      status: 200,
      shape: list(GUILD_CHANNEL, 2),
    });
    expect(channels.map((c: { id: string }) => c.id)).toContain(created.id);
    // A category (type 4), and the bulk move that puts the new channel in it: 204, as Discord.
    const category = await hit('POST', '/guilds/:guildId/channels', `/guilds/${g}/channels`, {
      auth: owner,
      body: { name: 'Info', type: 4 },
      status: 201,
      shape: (c: { type: number; parent_id: unknown }) => expect([c.type, c.parent_id]).toEqual([4, null]),
    });
    await hit('PATCH', '/guilds/:guildId/channels', `/guilds/${g}/channels`, {
      auth: owner,
      body: [{ id: created.id, position: 0, parent_id: category.id, lock_permissions: true }],
      status: 204,
    });
    const members = await hit('GET', '/guilds/:guildId/members', `/guilds/${g}/members?limit=10`, {
      auth: w.bot.auth,
      status: 200,
      shape: list(MEMBER, 4),
    });
    expect(members).toHaveLength(4);
    const found = await hit(
      'GET',
      '/guilds/:guildId/members/search',
      `/guilds/${g}/members/search?query=${w.alice.name.slice(0, 4)}&limit=5`,
      {
        auth: w.bot.auth,
        status: 200,
        shape: list(MEMBER),
      },
    );
    expect(found.map((m: { user: { id: string } }) => m.user.id)).toContain(w.alice.id);
    const alice = await hit('GET', '/guilds/:guildId/members/:userId', `/guilds/${g}/members/${w.alice.id}`, {
      auth: w.bot.auth,
      status: 200,
      shape: MEMBER,
    });
    expect(alice.user.id).toBe(w.alice.id);
    const nick = await hit('PATCH', '/guilds/:guildId/members/:userId', `/guilds/${g}/members/${w.alice.id}`, {
      auth: owner,
      body: { nick: 'Al' },
      status: 200,
      shape: MEMBER,
    });
    expect(nick.nick).toBe('Al');
    await hit('PATCH', '/guilds/:guildId/members/@me', `/guilds/${g}/members/@me`, {
      auth: w.bot.auth,
      body: { nick: 'Robo' },
      status: 200,
      shape: MEMBER,
    });

    const role = await hit('POST', '/guilds/:guildId/roles', `/guilds/${g}/roles`, {
      auth: owner,
      body: { name: 'mods', color: 0x3366ff },
      status: 200,
      shape: ROLE,
    });
    expect(role.colors.primary_color).toBe(0x3366ff);
    await hit('GET', '/guilds/:guildId/roles', `/guilds/${g}/roles`, { auth: w.bot.auth, status: 200, shape: list(ROLE, 2) });
    await hit('GET', '/guilds/:guildId/roles/:roleId', `/guilds/${g}/roles/${role.id}`, { auth: w.bot.auth, status: 200, shape: ROLE });
    await hit('PATCH', '/guilds/:guildId/roles/:roleId', `/guilds/${g}/roles/${role.id}`, {
      auth: owner,
      body: { name: 'moderators' },
      status: 200,
      shape: ROLE,
    });
    await hit('PUT', '/guilds/:guildId/members/:userId/roles/:roleId', `/guilds/${g}/members/${w.alice.id}/roles/${role.id}`, {
      auth: owner,
      status: 204,
    });
    await hit('DELETE', '/guilds/:guildId/members/:userId/roles/:roleId', `/guilds/${g}/members/${w.alice.id}/roles/${role.id}`, {
      auth: owner,
      status: 204,
    });
    await hit('DELETE', '/guilds/:guildId/roles/:roleId', `/guilds/${g}/roles/${role.id}`, { auth: owner, status: 204 });

    await hit('PUT', '/guilds/:guildId/bans/:userId', `/guilds/${g}/bans/${w.carol.id}`, {
      auth: owner,
      body: { delete_message_seconds: 0 },
      status: 204,
    });
    const bans = await hit('GET', '/guilds/:guildId/bans', `/guilds/${g}/bans`, { auth: owner, status: 200, shape: list(BAN) });
    expect(bans.map((b: { user: { id: string } }) => b.user.id)).toEqual([w.carol.id]);
    await hit('GET', '/guilds/:guildId/bans/:userId', `/guilds/${g}/bans/${w.carol.id}`, { auth: owner, status: 200, shape: BAN });
    await hit('DELETE', '/guilds/:guildId/bans/:userId', `/guilds/${g}/bans/${w.carol.id}`, { auth: owner, status: 204 });
  });

  it('channels, messages, reactions, pins, typing and overwrites', async () => {
    const [owner, bot, c] = [w.owner.auth, w.bot.auth, w.channel];
    const ch = await hit('GET', '/channels/:channelId', `/channels/${c}`, { auth: bot, status: 200, shape: GUILD_CHANNEL });
    expect(ch.id).toBe(c);
    await hit('PATCH', '/channels/:channelId', `/channels/${c}`, {
      auth: owner,
      body: { topic: 'routes' },
      status: 200,
      shape: GUILD_CHANNEL,
    });
    const m = await hit('POST', '/channels/:channelId/messages', `/channels/${c}/messages`, {
      auth: bot,
      body: { content: 'one' },
      status: 200,
      shape: MESSAGE,
    });
    const form = new FormData();
    form.append('payload_json', JSON.stringify({ content: 'with a file' }));
    form.append('files[0]', new Blob(['hello']), 'hello.txt');
    await hit('POST', '/channels/:channelId/messages', `/channels/${c}/messages`, { auth: bot, form, status: 200, shape: MESSAGE });
    await hit('GET', '/channels/:channelId/messages', `/channels/${c}/messages?limit=5`, {
      auth: bot,
      status: 200,
      shape: list(MESSAGE, 2),
    });
    await hit('GET', '/channels/:channelId/messages/:messageId', `/channels/${c}/messages/${m.id}`, {
      auth: bot,
      status: 200,
      shape: MESSAGE,
    });
    const edited = await hit('PATCH', '/channels/:channelId/messages/:messageId', `/channels/${c}/messages/${m.id}`, {
      auth: bot,
      body: { content: 'one, edited' },
      status: 200,
      shape: MESSAGE,
    });
    expect(edited.edited_timestamp).not.toBeNull();

    const emoji = encodeURIComponent('👍');
    const r = `/channels/${c}/messages/${m.id}/reactions/${emoji}`;
    await hit('PUT', '/channels/:channelId/messages/:messageId/reactions/:emoji/@me', `${r}/@me`, { auth: bot, status: 204 });
    const users = await hit('GET', '/channels/:channelId/messages/:messageId/reactions/:emoji', r, {
      auth: bot,
      status: 200,
      shape: list(USER),
    });
    expect(users.map((u: { id: string }) => u.id)).toEqual([w.bot.id]);
    await hit('DELETE', '/channels/:channelId/messages/:messageId/reactions/:emoji/@me', `${r}/@me`, { auth: bot, status: 204 });

    await hit('POST', '/channels/:channelId/typing', `/channels/${c}/typing`, { auth: bot, status: 204 });

    await hit('PUT', '/channels/:channelId/pins/:messageId', `/channels/${c}/pins/${m.id}`, { auth: owner, status: 204 });
    const pins = await hit('GET', '/channels/:channelId/pins', `/channels/${c}/pins`, { auth: bot, status: 200, shape: list(MESSAGE) });
    expect(pins.map((p: { id: string }) => p.id)).toEqual([m.id]);
    await hit('DELETE', '/channels/:channelId/pins/:messageId', `/channels/${c}/pins/${m.id}`, { auth: owner, status: 204 });
    await hit('PUT', '/channels/:channelId/messages/pins/:messageId', `/channels/${c}/messages/pins/${m.id}`, { auth: owner, status: 204 });
    const items = await hit('GET', '/channels/:channelId/messages/pins', `/channels/${c}/messages/pins`, {
      auth: bot,
      status: 200,
      shape: PINS,
    });
    expect(items.items.map((p: { message: { id: string } }) => p.message.id)).toEqual([m.id]);
    await hit('DELETE', '/channels/:channelId/messages/pins/:messageId', `/channels/${c}/messages/pins/${m.id}`, {
      auth: owner,
      status: 204,
    });

    await hit('PUT', '/channels/:channelId/permissions/:overwriteId', `/channels/${c}/permissions/${w.alice.id}`, {
      auth: owner,
      body: { type: 1, allow: '0', deny: String(1n << 6n) },
      status: 204,
    });
    await hit('DELETE', '/channels/:channelId/permissions/:overwriteId', `/channels/${c}/permissions/${w.alice.id}`, {
      auth: owner,
      status: 204,
    });

    const more = [];
    for (const content of ['two', 'three'])
      more.push((await call(srv.url, 'POST', `/api/v10/channels/${c}/messages`, { auth: bot, body: { content } })).body.id);
    await hit('POST', '/channels/:channelId/messages/bulk-delete', `/channels/${c}/messages/bulk-delete`, {
      auth: owner,
      body: { messages: more },
      status: 204,
    });
    await hit('DELETE', '/channels/:channelId/messages/:messageId', `/channels/${c}/messages/${m.id}`, { auth: bot, status: 204 });
  });

  it('webhooks: management, execution and their messages', async () => {
    const [owner, c] = [w.owner.auth, w.channel];
    const hook = await hit('POST', '/channels/:channelId/webhooks', `/channels/${c}/webhooks`, {
      auth: owner,
      body: { name: 'Hook' },
      status: 200,
      shape: WEBHOOK,
    });
    expect([typeof hook.token, typeof hook.url]).toEqual(['string', 'string']);
    await hit('GET', '/channels/:channelId/webhooks', `/channels/${c}/webhooks`, { auth: owner, status: 200, shape: list(WEBHOOK) });
    await hit('GET', '/guilds/:guildId/webhooks', `/guilds/${w.guild}/webhooks`, { auth: owner, status: 200, shape: list(WEBHOOK) });
    await hit('GET', '/webhooks/:webhookId', `/webhooks/${hook.id}`, { auth: owner, status: 200, shape: WEBHOOK });
    await hit('PATCH', '/webhooks/:webhookId', `/webhooks/${hook.id}`, {
      auth: owner,
      body: { name: 'Renamed' },
      status: 200,
      shape: WEBHOOK,
    });

    const t = `/webhooks/${hook.id}/${hook.token}`;
    await hit('GET', '/webhooks/:webhookId/:token', t, { status: 200, shape: WEBHOOK });
    await hit('POST', '/webhooks/:webhookId/:token', t, { body: { content: 'no wait' }, status: 204 });
    const sent = await hit('POST', '/webhooks/:webhookId/:token', `${t}?wait=true`, {
      body: { content: 'waited' },
      status: 200,
      shape: MESSAGE,
    });
    expect(sent.webhook_id).toBe(hook.id);
    await hit('GET', '/webhooks/:webhookId/:token/messages/:messageId', `${t}/messages/${sent.id}`, { status: 200, shape: MESSAGE });
    await hit('PATCH', '/webhooks/:webhookId/:token/messages/:messageId', `${t}/messages/${sent.id}`, {
      body: { content: 'edited' },
      status: 200,
      shape: MESSAGE,
    });
    await hit('DELETE', '/webhooks/:webhookId/:token/messages/:messageId', `${t}/messages/${sent.id}`, { status: 204 });
    // The token alone does not manage the webhook (docs/discord.md): 403 / 50013, still JSON.
    const err = (b: { message: unknown; code: unknown }) => expect([typeof b.message, b.code]).toEqual(['string', 50013]);
    await hit('PATCH', '/webhooks/:webhookId/:token', t, { body: { name: 'x' }, status: 403, shape: err });
    await hit('DELETE', '/webhooks/:webhookId/:token', t, { status: 403, shape: err });
    await hit('DELETE', '/webhooks/:webhookId', `/webhooks/${hook.id}`, { auth: owner, status: 204 });
  });

  it('application commands and an interaction callback', async () => {
    const [bot, app, g] = [w.bot.auth, w.bot.id, w.guild];
    const cmd = { name: 'ping', description: 'Ping', options: [{ type: 1, name: 'now', description: 'Now' }] };
    const put = await hit('PUT', '/applications/:appId/commands', `/applications/${app}/commands`, {
      auth: bot,
      body: [cmd],
      status: 200,
      shape: list(COMMAND),
    });
    const made = await hit('POST', '/applications/:appId/commands', `/applications/${app}/commands`, {
      auth: bot,
      body: { name: 'echo', description: 'Echo' },
      status: 201,
      shape: COMMAND,
    });
    await hit('GET', '/applications/:appId/commands', `/applications/${app}/commands`, { auth: bot, status: 200, shape: list(COMMAND, 2) });
    await hit('GET', '/applications/:appId/commands/:cmdId', `/applications/${app}/commands/${put[0].id}`, {
      auth: bot,
      status: 200,
      shape: COMMAND,
    });
    await hit('PATCH', '/applications/:appId/commands/:cmdId', `/applications/${app}/commands/${made.id}`, {
      auth: bot,
      body: { description: 'Echo!' },
      status: 200,
      shape: COMMAND,
    });
    await hit('DELETE', '/applications/:appId/commands/:cmdId', `/applications/${app}/commands/${made.id}`, { auth: bot, status: 204 });

    const gc = `/applications/${app}/guilds/${g}/commands`;
    const gput = await hit('PUT', '/applications/:appId/guilds/:guildId/commands', gc, {
      auth: bot,
      body: [{ name: 'local', description: 'Local' }],
      status: 200,
      shape: list(COMMAND),
    });
    expect(gput[0].guild_id).toBe(g);
    const gmade = await hit('POST', '/applications/:appId/guilds/:guildId/commands', gc, {
      auth: bot,
      body: { name: 'other', description: 'Other' },
      status: 201,
      shape: COMMAND,
    });
    await hit('GET', '/applications/:appId/guilds/:guildId/commands', gc, { auth: bot, status: 200, shape: list(COMMAND, 2) });
    await hit('GET', '/applications/:appId/guilds/:guildId/commands/:cmdId', `${gc}/${gmade.id}`, {
      auth: bot,
      status: 200,
      shape: COMMAND,
    });
    await hit('PATCH', '/applications/:appId/guilds/:guildId/commands/:cmdId', `${gc}/${gmade.id}`, {
      auth: bot,
      body: { description: 'Other!' },
      status: 200,
      shape: COMMAND,
    });
    await hit('DELETE', '/applications/:appId/guilds/:guildId/commands/:cmdId', `${gc}/${gmade.id}`, { auth: bot, status: 204 });

    // A person runs /ping now; the bot answers the interaction it received on the gateway.
    const gw = await identifyDiscord(pool, srv, w.bot.token, ALL_MESSAGES);
    const run = await call(srv.url, 'POST', `/channels/${w.channel}/interactions`, {
      auth: w.alice.auth,
      body: { type: 'command', botId: app, name: 'ping', subcommand: 'now' },
    });
    expect(run.status, run.text).toBe(202);
    const i = (await gw.waitForEvent('INTERACTION_CREATE')).d;
    await hit('POST', '/interactions/:id/:token/callback', `/interactions/${i.id}/${i.token}/callback`, {
      body: { type: 4, data: { content: 'pong' } },
      status: 204,
    });
    // Its follow-ups are the webhook-by-token routes, with the bot's id as the webhook id.
    const follow = await call(srv.url, 'POST', `/api/v10/webhooks/${app}/${i.token}?wait=true`, { body: { content: 'and more' } });
    expect([follow.status, follow.headers.get('content-type')]).toEqual([200, 'application/json']);
    assertShape(follow.body, MESSAGE);
  });

  it('threads: started, changed, joined, listed and deleted', async () => {
    const [owner, bot, c, g] = [w.owner.auth, w.bot.auth, w.channel, w.guild];
    const m = (await call(srv.url, 'POST', `/api/v10/channels/${c}/messages`, { auth: owner, body: { content: 'start here' } })).body;
    const fromMessage = await hit('POST', '/channels/:channelId/messages/:messageId/threads', `/channels/${c}/messages/${m.id}/threads`, {
      auth: owner,
      body: { name: 'from a message' },
      status: 201,
      shape: THREAD,
    });
    const t = await hit('POST', '/channels/:channelId/threads', `/channels/${c}/threads`, {
      auth: owner,
      body: { name: 'on its own', type: 11 },
      status: 201,
      shape: THREAD,
    });
    await hit('PUT', '/channels/:channelId/thread-members/:userId', `/channels/${t.id}/thread-members/@me`, { auth: bot, status: 204 });
    await hit('GET', '/channels/:channelId/thread-members', `/channels/${t.id}/thread-members`, {
      auth: bot,
      status: 200,
      shape: list(THREAD_MEMBER, 2),
    });
    await hit('GET', '/channels/:channelId/thread-members/:userId', `/channels/${t.id}/thread-members/${w.bot.id}`, {
      auth: bot,
      status: 200,
      shape: THREAD_MEMBER,
    });
    await hit('DELETE', '/channels/:channelId/thread-members/:userId', `/channels/${t.id}/thread-members/@me`, { auth: bot, status: 204 });
    await hit('GET', '/guilds/:guildId/threads/active', `/guilds/${g}/threads/active`, { auth: owner, status: 200, shape: THREAD_LIST });
    expect((await call(srv.url, 'PATCH', `/api/v10/channels/${fromMessage.id}`, { auth: owner, body: { archived: true } })).status).toBe(
      200,
    );
    const archived = await hit('GET', '/channels/:channelId/threads/archived/public', `/channels/${c}/threads/archived/public`, {
      auth: owner,
      status: 200,
      shape: { ...THREAD_LIST, has_more: 'boolean' },
    });
    expect(archived.threads.map((x: { id: string }) => x.id)).toEqual([fromMessage.id]);
    await hit('GET', '/channels/:channelId/threads/archived/private', `/channels/${c}/threads/archived/private`, {
      auth: owner,
      status: 200,
      shape: { ...THREAD_LIST, has_more: 'boolean' },
    });
    await hit('GET', '/channels/:channelId/users/@me/threads/archived/private', `/channels/${c}/users/@me/threads/archived/private`, {
      auth: owner,
      status: 200,
      shape: { ...THREAD_LIST, has_more: 'boolean' },
    });
    const changed = await call(srv.url, 'PATCH', `/api/v10/channels/${t.id}`, { auth: owner, body: { name: 'renamed', locked: true } });
    assertShape(changed.body, THREAD);
    assertShape((await call(srv.url, 'GET', `/api/v10/channels/${t.id}`, { auth: owner })).body, THREAD);
    assertShape((await call(srv.url, 'DELETE', `/api/v10/channels/${t.id}`, { auth: owner })).body, THREAD);
  });

  it('what removes: a channel, a member, the bot leaving', async () => {
    const [owner, g] = [w.owner.auth, w.guild];
    const extra = (await call(srv.url, 'POST', `/api/v10/guilds/${g}/channels`, { auth: owner, body: { name: 'doomed' } })).body;
    const gone = await hit('DELETE', '/channels/:channelId', `/channels/${extra.id}`, { auth: owner, status: 200, shape: CHANNEL });
    expect(gone.id).toBe(extra.id);
    await hit('DELETE', '/guilds/:guildId/members/:userId', `/guilds/${g}/members/${w.alice.id}`, { auth: owner, status: 204 });
    await hit('DELETE', '/users/@me/guilds/:guildId', `/users/@me/guilds/${g}`, { auth: w.bot.auth, status: 204 });
  });

  it("the bot invite link on the API's base is sent to the web client's page (a 302, not JSON)", async () => {
    // discord.js's generateInvite() builds the link on the API base (docs/discord.md#adding-a-bot).
    const query = `?client_id=${w.bot.id}&permissions=2048&scope=bot`;
    for (const method of ['GET', 'HEAD']) {
      covered.add(`${method} /api/oauth2/authorize`);
      const r = await fetch(`${srv.url}/api/v10/oauth2/authorize${query}`, { method, redirect: 'manual' });
      expect([method, r.status, r.headers.get('location'), await r.text()]).toEqual([method, 302, `/oauth2/authorize${query}`, '']);
    }
  });

  it('no /api route was left out', () => {
    const served = srv.app.routes.filter((r) => r.url.startsWith('/api')).map((r) => `${r.method} ${r.url}`);
    expect(served.length).toBeGreaterThan(50);
    const missing = served.filter((k) => !covered.has(k));
    expect(missing, 'routes under /api that this suite does not call: add them above').toEqual([]);
    // And nothing was called that is not a route (a renamed route would otherwise pass unnoticed).
    expect([...covered].filter((k) => !served.includes(k))).toEqual([]);
  });
});
