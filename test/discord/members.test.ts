// The author's `member` on a guild message's MESSAGE_CREATE and MESSAGE_UPDATE (none on a
// webhook's message, none on REST message objects, as on Discord), and the invoking
// member on an interaction: through discord.js with intents Guilds, GuildMessages and
// MessageContent only (no GuildMembers, so nothing but the event can name the member), and
// as raw gateway frames against discord-api-types' shapes.
import type {
  APIGuildMemberNoUser,
  APIInteractionGuildMember,
  GatewayMessageCreateDispatchData,
  GatewayMessageUpdateDispatchData,
} from 'discord-api-types/v10';
import { type ChatInputCommandInteraction, type Client, Events, GatewayIntentBits, type Interaction, type Message } from 'discord.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call, createWebhook, joinServer, postMessage, registerUser, world } from '../factories.js';
import { ClientPool } from '../gateway/client.js';
import { startServer, type TestServer } from '../harness.js';
import { login, next } from './djs.js';
import { I, identifyDiscord } from './helpers.js';

let srv: TestServer;
const clients: Client[] = [];
const pool = new ClientPool();

beforeAll(async () => {
  srv = await startServer({ env: { GATEWAY_HEARTBEAT_MS: '5000', RATE_LIMITS: 'off' } });
});
afterEach(async () => {
  await Promise.all([...clients.splice(0).map((c) => c.destroy()), pool.closeAll()]);
});
afterAll(() => srv?.close());

/** The intents of the report: no GuildMembers, so GUILD_CREATE lists the bot alone. */
const INTENTS = [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.MessageContent];
const RAW_INTENTS = I.GUILDS | I.GUILD_MESSAGES | I.MESSAGE_CONTENT;

const KICK_MEMBERS = 1n << 1n;
const MANAGE_MESSAGES = 1n << 13n;

/** Every key Discord sends on a message's `member` (APIGuildMemberNoUser), checked against the type. */
const MEMBER_NO_USER_KEYS = [
  'avatar',
  'banner',
  'communication_disabled_until',
  'deaf',
  'flags',
  'joined_at',
  'mute',
  'nick',
  'pending',
  'premium_since',
  'roles',
] as const satisfies readonly (keyof APIGuildMemberNoUser)[];

/** The keys an interaction's member must carry (APIInteractionGuildMember's required ones). */
const INTERACTION_MEMBER_KEYS = [
  'deaf',
  'flags',
  'joined_at',
  'mute',
  'permissions',
  'roles',
  'user',
] as const satisfies readonly (keyof APIInteractionGuildMember)[];

/** A server with a member holding a Helpers role (KICK_MEMBERS), and its bot. */
async function setup() {
  const w = await world(srv.url);
  const member = await registerUser(srv.url);
  await joinServer(srv.url, w.owner, member, w.server.id);
  const role = (
    await call(srv.url, 'POST', `/servers/${w.server.id}/roles`, {
      auth: w.owner.auth,
      body: { name: 'Helpers', permissions: KICK_MEMBERS.toString() },
    })
  ).body as { id: string };
  const put = await call(srv.url, 'PUT', `/servers/${w.server.id}/members/${member.id}/roles/${role.id}`, { auth: w.owner.auth });
  expect(put.status).toBe(204);
  return { ...w, member, role };
}

describe('message.member with discord.js (Guilds, GuildMessages, MessageContent)', () => {
  it("is the author's GuildMember on messageCreate and messageUpdate, with roles and permissions", async () => {
    const w = await setup();
    const client = await login(srv, clients, w.bot.token, INTENTS);
    // Without GuildMembers the guild's cache holds the bot alone: the member must come with the event.
    expect(client.guilds.cache.get(w.server.id)?.members.cache.has(w.member.id)).toBe(false);
    const [[created], posted] = await Promise.all([
      next<[Message]>(client, Events.MessageCreate, (m) => m.content === 'who am I'),
      postMessage(srv.url, w.member.auth, w.channel.id, 'who am I'),
    ]);
    const member = created.member;
    expect(member).not.toBeNull();
    expect(member!.id).toBe(w.member.id);
    expect(member!.roles.cache.has(w.role.id)).toBe(true);
    expect(member!.permissions.has('SendMessages')).toBe(true);
    expect(member!.permissions.has('KickMembers')).toBe(true);
    expect(member!.permissions.has('BanMembers')).toBe(false);
    expect(typeof member!.joinedTimestamp).toBe('number');

    const [[, updated]] = await Promise.all([
      next<[Message, Message]>(client, Events.MessageUpdate, (_old, m) => m.id === posted.id),
      call(srv.url, 'PATCH', `/channels/${w.channel.id}/messages/${posted.id}`, { auth: w.member.auth, body: { content: 'edited' } }),
    ]);
    expect(updated.content).toBe('edited');
    expect(updated.member?.id).toBe(w.member.id);
    expect(updated.member?.roles.cache.has(w.role.id)).toBe(true);
    expect(updated.member?.permissions.has('SendMessages')).toBe(true);
  });

  it("carries the author's nickname in the server on messageCreate and messageUpdate, and none before one is set", async () => {
    const w = await setup();
    const client = await login(srv, clients, w.bot.token, INTENTS);
    const [[plain]] = await Promise.all([
      next<[Message]>(client, Events.MessageCreate, (m) => m.content === 'no nick yet'),
      postMessage(srv.url, w.member.auth, w.channel.id, 'no nick yet'),
    ]);
    expect(plain.member?.nickname).toBeNull();
    const set = await call(srv.url, 'PATCH', `/servers/${w.server.id}/members/${w.member.id}`, {
      auth: w.owner.auth,
      body: { nick: 'Helper Bee' },
    });
    expect(set.status, set.text).toBe(200);
    const [[created], posted] = await Promise.all([
      next<[Message]>(client, Events.MessageCreate, (m) => m.content === 'nicknamed'),
      postMessage(srv.url, w.member.auth, w.channel.id, 'nicknamed'),
    ]);
    expect(created.member?.nickname).toBe('Helper Bee');
    expect(created.member?.displayName).toBe('Helper Bee');
    const [[, updated]] = await Promise.all([
      next<[Message, Message]>(client, Events.MessageUpdate, (_old, m) => m.id === posted.id),
      call(srv.url, 'PATCH', `/channels/${w.channel.id}/messages/${posted.id}`, { auth: w.member.auth, body: { content: 'renamed' } }),
    ]);
    expect(updated.member?.nickname).toBe('Helper Bee');
  });

  it("carries the owner's member (all permissions) and no member on a webhook's message", async () => {
    const w = await setup();
    const client = await login(srv, clients, w.bot.token, INTENTS);
    const [[fromOwner]] = await Promise.all([
      next<[Message]>(client, Events.MessageCreate, (m) => m.content === 'owner speaking'),
      postMessage(srv.url, w.owner.auth, w.channel.id, 'owner speaking'),
    ]);
    expect(fromOwner.member?.id).toBe(w.owner.id);
    expect(fromOwner.member?.permissions.has('Administrator')).toBe(true);
    const hook = await createWebhook(srv.url, w.owner, w.server.id, w.channel.id);
    const [[fromHook]] = await Promise.all([
      next<[Message]>(client, Events.MessageCreate, (m) => m.content === 'hook speaking'),
      call(srv.url, 'POST', `/api/webhooks/${hook.id}/${hook.token}`, { body: { content: 'hook speaking' } }),
    ]);
    expect(fromHook.webhookId).toBe(hook.id);
    expect(fromHook.member).toBeNull();
  });
});

describe('member on raw gateway frames and REST, as discord-api-types shapes them', () => {
  it('MESSAGE_CREATE and MESSAGE_UPDATE carry member without user; REST messages carry none', async () => {
    const w = await setup();
    const c = await identifyDiscord(pool, srv, w.bot.token, RAW_INTENTS);
    const posted = await postMessage(srv.url, w.member.auth, w.channel.id, 'raw frame');
    const created = (await c.waitForEvent('MESSAGE_CREATE', (d) => d.id === posted.id)).d as GatewayMessageCreateDispatchData;
    expect(Object.keys(created.member!).sort()).toEqual([...MEMBER_NO_USER_KEYS]);
    expect(created.member).toMatchObject({ roles: [w.role.id], deaf: false, mute: false, flags: 0, nick: null, pending: false });
    expect(Date.parse(created.member!.joined_at ?? '')).not.toBeNaN();
    // `@everyone` is never listed, as on Discord.
    expect(created.member!.roles).not.toContain(w.server.id);

    await call(srv.url, 'PATCH', `/channels/${w.channel.id}/messages/${posted.id}`, { auth: w.member.auth, body: { content: 'raw edit' } });
    const updated = (await c.waitForEvent('MESSAGE_UPDATE', (d) => d.id === posted.id)).d as GatewayMessageUpdateDispatchData;
    expect(updated.member).toEqual(created.member);

    // A pin's MESSAGE_UPDATE, by someone else, still names the author.
    await call(srv.url, 'PUT', `/channels/${w.channel.id}/pins/${posted.id}`, { auth: w.owner.auth });
    const pinned = (await c.waitForEvent('MESSAGE_UPDATE', (d) => d.id === posted.id && d.pinned)).d as GatewayMessageUpdateDispatchData;
    expect(pinned.member?.roles).toEqual([w.role.id]);

    // REST message objects have no member on Discord (APIMessage has none).
    const rest = await call(srv.url, 'GET', `/api/v10/channels/${w.channel.id}/messages/${posted.id}`, { auth: w.bot.auth });
    expect(rest.status).toBe(200);
    expect(rest.body).not.toHaveProperty('member');
    const sent = await call(srv.url, 'POST', `/api/v10/channels/${w.channel.id}/messages`, {
      auth: w.bot.auth,
      body: { content: 'bot says' },
    });
    expect(sent.status).toBe(200);
    expect(sent.body).not.toHaveProperty('member');
    // The bot's own message over the gateway names the bot as a member.
    const own = (await c.waitForEvent('MESSAGE_CREATE', (d) => d.id === sent.body.id)).d as GatewayMessageCreateDispatchData;
    expect(Object.keys(own.member!).sort()).toEqual([...MEMBER_NO_USER_KEYS]);
  });

  it("a webhook's MESSAGE_CREATE has no member; a role change shows in the next message's member", async () => {
    const w = await setup();
    const c = await identifyDiscord(pool, srv, w.bot.token, RAW_INTENTS);
    const hook = await createWebhook(srv.url, w.owner, w.server.id, w.channel.id);
    expect((await call(srv.url, 'POST', `/api/webhooks/${hook.id}/${hook.token}`, { body: { content: 'from hook' } })).status).toBe(204);
    const fromHook = (await c.waitForEvent('MESSAGE_CREATE', (d) => d.content === 'from hook')).d as GatewayMessageCreateDispatchData;
    expect(fromHook.webhook_id).toBe(hook.id);
    expect(fromHook).not.toHaveProperty('member');

    const del = await call(srv.url, 'DELETE', `/servers/${w.server.id}/members/${w.member.id}/roles/${w.role.id}`, { auth: w.owner.auth });
    expect(del.status).toBe(204);
    await postMessage(srv.url, w.member.auth, w.channel.id, 'no role now');
    const after = (await c.waitForEvent('MESSAGE_CREATE', (d) => d.content === 'no role now')).d as GatewayMessageCreateDispatchData;
    expect(after.member?.roles).toEqual([]);
  });

  it("INTERACTION_CREATE carries the invoker's member with user and their permissions in the channel", async () => {
    const w = await setup();
    const registered = await call(srv.url, 'POST', `/api/v10/applications/${w.bot.id}/guilds/${w.server.id}/commands`, {
      auth: w.bot.auth,
      body: { name: 'whoami', description: 'Who am I' },
    });
    expect(registered.status).toBe(201);
    const c = await identifyDiscord(pool, srv, w.bot.token, RAW_INTENTS);
    const r = await call(srv.url, 'POST', `/channels/${w.channel.id}/interactions`, {
      auth: w.member.auth,
      body: { type: 'command', botId: w.bot.id, name: 'whoami', options: {} },
    });
    expect(r.status, r.text).toBe(202);
    const d = (await c.waitForEvent('INTERACTION_CREATE')).d as { member: APIInteractionGuildMember };
    for (const key of INTERACTION_MEMBER_KEYS) expect(d.member).toHaveProperty(key);
    expect(d.member.user.id).toBe(w.member.id);
    expect(d.member.roles).toEqual([w.role.id]);
    const perms = BigInt(d.member.permissions);
    expect(perms & KICK_MEMBERS).toBe(KICK_MEMBERS);
    expect(perms & MANAGE_MESSAGES).toBe(0n);
  });
});

describe('interaction.member with discord.js', () => {
  /** Runs `handler` on the next chat input command `name` the client receives. */
  function onCommand<T>(client: Client, name: string, handler: (i: ChatInputCommandInteraction) => Promise<T>): Promise<T> {
    return new Promise((resolve, reject) => {
      const on = (i: Interaction) => {
        if (!i.isChatInputCommand() || i.commandName !== name) return;
        client.off(Events.InteractionCreate, on);
        handler(i).then(resolve, reject);
      };
      client.on(Events.InteractionCreate, on);
    });
  }

  it('gives member.permissions and memberPermissions: a bit the member lacks is false, the owner has all', async () => {
    const w = await setup();
    const client = await login(srv, clients, w.bot.token, INTENTS);
    await client.application!.commands.create({ name: 'perms', description: 'Permissions' }, w.server.id);
    const inspect = (i: ChatInputCommandInteraction) => {
      const member = i.inCachedGuild() ? i.member : null;
      const out = {
        id: member?.id ?? null,
        roles: member ? [...member.roles.cache.keys()] : null,
        memberKick: member?.permissions.has('KickMembers') ?? null,
        memberManage: member?.permissions.has('ManageMessages') ?? null,
        memberSend: member?.permissions.has('SendMessages') ?? null,
        kick: i.memberPermissions?.has('KickMembers') ?? null,
        manage: i.memberPermissions?.has('ManageMessages') ?? null,
        send: i.memberPermissions?.has('SendMessages') ?? null,
      };
      return i.reply({ content: 'ok', ephemeral: true }).then(() => out);
    };
    const invoke = (auth: string) =>
      call(srv.url, 'POST', `/channels/${w.channel.id}/interactions`, {
        auth,
        body: { type: 'command', botId: w.bot.id, name: 'perms', options: {} },
      });

    const byMember = onCommand(client, 'perms', inspect);
    expect((await invoke(w.member.auth)).status).toBe(202);
    expect(await byMember).toEqual({
      id: w.member.id,
      roles: expect.arrayContaining([w.role.id]),
      memberKick: true,
      memberManage: false,
      memberSend: true,
      kick: true,
      manage: false,
      send: true,
    });

    const byOwner = onCommand(client, 'perms', inspect);
    expect((await invoke(w.owner.auth)).status).toBe(202);
    expect(await byOwner).toMatchObject({ id: w.owner.id, memberManage: true, manage: true, kick: true });
  });
});
