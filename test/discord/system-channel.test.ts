// Welcome lines on the Discord API (docs/discord.md): a guild's `system_channel_id` and
// `system_channel_flags` (bit 0, SUPPRESS_JOIN_NOTIFICATIONS), read and changed through
// discord.js, and the USER_JOIN message (type 7) a person joining by invite gets there,
// as discord.js sees it on MESSAGE_CREATE.
import { type Client, Events, GuildSystemChannelFlags, type Message, MessageType } from 'discord.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call, createBot, createServer, joinServer, registerUser } from '../factories.js';
import { startServer, type TestServer } from '../harness.js';
import { login as djsLogin, next } from './djs.js';

let srv: TestServer;
const clients: Client[] = [];

beforeAll(async () => {
  srv = await startServer({ env: { GATEWAY_HEARTBEAT_MS: '5000', RATE_LIMITS: 'off' } });
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.destroy()));
});
afterAll(() => srv?.close());

describe('system channel', () => {
  it('a bot sets the system channel; a join posts a USER_JOIN message there; the suppress flag stops them', async () => {
    const owner = await registerUser(srv.url);
    const { server, general } = await createServer(srv.url, owner);
    const bot = await createBot(srv.url, owner);
    // See, read history, send, and MANAGE_SERVER (1024 + 65536 + 2048 + 32).
    const added = await call(srv.url, 'POST', `/servers/${server.id}/bots`, {
      auth: owner.auth,
      body: { botId: bot.id, permissions: '68640' },
    });
    expect(added.status, added.text).toBe(201);
    const client = await djsLogin(srv, clients, bot.token);
    const guild = await client.guilds.fetch(server.id);
    // None by default, welcome lines not suppressed.
    expect(guild.systemChannelId).toBeNull();
    expect(guild.systemChannelFlags.bitfield).toBe(0);

    const edited = await guild.edit({ systemChannel: general.id });
    expect(edited.systemChannelId).toBe(general.id);
    const raw = await call(srv.url, 'GET', `/api/guilds/${server.id}`, { auth: `Bot ${bot.token}` });
    expect(raw.body).toMatchObject({ system_channel_id: general.id, system_channel_flags: 0 });
    expect((await call(srv.url, 'GET', `/servers/${server.id}`, { auth: owner.auth })).body.systemChannelId).toBe(general.id);

    const joined = next<[Message]>(client, Events.MessageCreate, (m) => m.type === MessageType.UserJoin);
    const newcomer = await registerUser(srv.url);
    await joinServer(srv.url, owner, newcomer, server.id);
    const [line] = await joined;
    expect(line.system).toBe(true);
    expect(line.author.id).toBe(newcomer.id);
    expect(line.channelId).toBe(general.id);
    expect(line.content).toBe('');
    // Over REST too.
    const fetched = await call(srv.url, 'GET', `/api/channels/${general.id}/messages/${line.id}`, { auth: `Bot ${bot.token}` });
    expect(fetched.body.type).toBe(7);

    // Suppressed: the next join posts nothing (a plain message after it arrives first).
    const quiet = await guild.setSystemChannelFlags(GuildSystemChannelFlags.SuppressJoinNotifications);
    expect(quiet.systemChannelFlags.has(GuildSystemChannelFlags.SuppressJoinNotifications)).toBe(true);
    expect((await call(srv.url, 'GET', `/servers/${server.id}`, { auth: owner.auth })).body.welcomeMessages).toBe(false);
    const seen: Message[] = [];
    client.on(Events.MessageCreate, (m) => seen.push(m));
    const later = await registerUser(srv.url);
    await joinServer(srv.url, owner, later, server.id);
    const marker = next<[Message]>(client, Events.MessageCreate, (m) => m.content === 'after the join');
    await call(srv.url, 'POST', `/channels/${general.id}/messages`, { auth: owner.auth, body: { content: 'after the join' } });
    await marker;
    expect(seen.filter((m) => m.type === MessageType.UserJoin)).toEqual([]);

    // A channel of another guild is refused with Discord's form error.
    const other = await createServer(srv.url, owner, 'Elsewhere');
    const refused = await call(srv.url, 'PATCH', `/api/guilds/${server.id}`, {
      auth: `Bot ${bot.token}`,
      body: { system_channel_id: other.general.id },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe(50035);
  });
});
