/**
 * Categories on the Discord layer (docs/discord.md#categories), driven by discord.js: type 4
 * channels in GUILD_CREATE and GET /guilds/{id}/channels, `parent_id`, creating a category,
 * `setParent` with and without `lockPermissions`, `guild.channels.setPositions` (Discord's
 * `PATCH /guilds/{id}/channels`), and 50008 for a message sent to a category.
 */
import { CategoryChannel, ChannelType, type Client, Events, OverwriteType, PermissionFlagsBits, type TextChannel } from 'discord.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call, createBot, createServer, registerUser } from '../factories.js';
import { type TestServer, startServer } from '../harness.js';
import { login, next } from './djs.js';

let srv: TestServer;
const clients: Client[] = [];

beforeAll(async () => {
  srv = await startServer({ env: { RATE_LIMITS: 'off' } });
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.destroy()));
});
afterAll(() => srv?.close());

const F = PermissionFlagsBits;

/** A server whose bot may manage channels and roles, and a category made natively before the bot logs in. */
async function setup() {
  const owner = await registerUser(srv.url);
  const { server, general } = await createServer(srv.url, owner);
  const bot = await createBot(srv.url, owner);
  const added = await call(srv.url, 'POST', `/servers/${server.id}/bots`, {
    auth: owner.auth,
    body: { botId: bot.id, permissions: (F.ViewChannel | F.SendMessages | F.ManageChannels | F.ManageRoles).toString() },
  });
  expect(added.status, added.text).toBe(201);
  const cat = await call(srv.url, 'POST', `/servers/${server.id}/channels`, {
    auth: owner.auth,
    body: { name: 'Info', type: 'category' },
  });
  const inside = await call(srv.url, 'POST', `/servers/${server.id}/channels`, {
    auth: owner.auth,
    body: { name: 'rules', parentId: cat.body.id },
  });
  return { owner, server, general, bot, category: cat.body as { id: string }, inside: inside.body as { id: string } };
}

describe('categories through discord.js', () => {
  it('GUILD_CREATE and GET /guilds/{id}/channels carry the category as type 4 and its channel with parent_id', async () => {
    const s = await setup();
    const client = await login(srv, clients, s.bot.token);
    const guild = client.guilds.cache.get(s.server.id)!;
    const cat = guild.channels.cache.get(s.category.id);
    expect(cat).toBeInstanceOf(CategoryChannel);
    expect(cat?.type).toBe(ChannelType.GuildCategory);
    expect((guild.channels.cache.get(s.inside.id) as TextChannel).parentId).toBe(s.category.id);
    expect((cat as CategoryChannel).children.cache.map((c) => c.id)).toEqual([s.inside.id]);
    const listed = await call(srv.url, 'GET', `/api/v10/guilds/${s.server.id}/channels`, { auth: `Bot ${s.bot.token}` });
    const byId = new Map((listed.body as Array<{ id: string; type: number; parent_id: string | null }>).map((c) => [c.id, c]));
    expect(byId.get(s.category.id)).toMatchObject({ type: 4, parent_id: null });
    expect(byId.get(s.inside.id)).toMatchObject({ type: 0, parent_id: s.category.id });
    expect(byId.get(s.general.id)).toMatchObject({ type: 0, parent_id: null });
  });

  it('creates a category and a channel in it; setParent with lockPermissions copies its overwrites, without keeps them', async () => {
    const s = await setup();
    const client = await login(srv, clients, s.bot.token);
    const guild = client.guilds.cache.get(s.server.id)!;
    const cat = await guild.channels.create({
      name: 'Staff',
      type: ChannelType.GuildCategory,
      permissionOverwrites: [{ id: guild.id, type: OverwriteType.Role, deny: [F.SendMessages] }],
    });
    expect(cat.type).toBe(ChannelType.GuildCategory);
    const native = await call(srv.url, 'GET', `/servers/${s.server.id}/channels`, { auth: s.owner.auth });
    expect(native.body.find((c: { id: string }) => c.id === cat.id)).toMatchObject({ type: 'category', parentId: null });
    const made = await guild.channels.create({ name: 'mods', parent: cat.id });
    expect(made.parentId).toBe(cat.id);

    const general = guild.channels.cache.get(s.general.id) as TextChannel;
    const kept = await general.setParent(cat.id, { lockPermissions: false });
    expect(kept.parentId).toBe(cat.id);
    expect(kept.permissionOverwrites.cache.size).toBe(0);
    expect(kept.permissionsLocked).toBe(false);
    const locked = await general.setParent(cat.id, { lockPermissions: true });
    expect(locked.permissionsLocked).toBe(true);
    const got = await call(srv.url, 'GET', `/api/v10/channels/${s.general.id}`, { auth: `Bot ${s.bot.token}` });
    expect(got.body).toMatchObject({
      parent_id: cat.id,
      permission_overwrites: [{ id: s.server.id, type: 0, deny: F.SendMessages.toString() }],
    });
    const out = await general.setParent(null);
    expect(out.parentId).toBeNull();
  });

  it('guild.channels.setPositions moves channels in one PATCH /guilds/{id}/channels; each arrives as CHANNEL_UPDATE', async () => {
    const s = await setup();
    const client = await login(srv, clients, s.bot.token);
    const guild = client.guilds.cache.get(s.server.id)!;
    const updated = next(client, Events.ChannelUpdate, (_old: unknown, ch: { id: string }) => ch.id === s.general.id);
    await guild.channels.setPositions([
      { channel: s.general.id, position: 3, parent: s.category.id, lockPermissions: true },
      { channel: s.inside.id, position: 0 },
    ]);
    const [, ch] = (await updated) as [unknown, TextChannel];
    expect(ch.parentId).toBe(s.category.id);
    expect(ch.rawPosition).toBe(3);
    const native = await call(srv.url, 'GET', `/servers/${s.server.id}/channels`, { auth: s.owner.auth });
    expect(native.body.find((c: { id: string }) => c.id === s.general.id)).toMatchObject({ parentId: s.category.id, position: 3 });
    // A category cannot sit in a category: Discord's form-body error, nothing moved.
    const bad = await call(srv.url, 'PATCH', `/api/v10/guilds/${s.server.id}/channels`, {
      auth: `Bot ${s.bot.token}`,
      body: [{ id: s.category.id, parent_id: s.category.id }],
    });
    expect(bad.status, bad.text).toBe(400);
    expect(bad.body.code).toBe(50035);
  });

  it('a message sent to a category is 400 with Discord code 50008', async () => {
    const s = await setup();
    const r = await call(srv.url, 'POST', `/api/v10/channels/${s.category.id}/messages`, {
      auth: `Bot ${s.bot.token}`,
      body: { content: 'hello' },
    });
    expect(r.status, r.text).toBe(400);
    expect(r.body.code).toBe(50008);
  });
});
