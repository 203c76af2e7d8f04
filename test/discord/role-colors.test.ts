// Role colours through discord.js 14.28, which sends `colors: {primary_color, …}` instead
// of the legacy `color`: both forms are taken, both come back (REST, GUILD_ROLE_CREATE /
// UPDATE, GUILD_CREATE), and a gradient, which a Parley role cannot hold, is refused.
import { type Client, DiscordAPIError, Events, GatewayIntentBits, type Role } from 'discord.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call, createBot, createServer, registerUser } from '../factories.js';
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

const INTENTS = [GatewayIntentBits.Guilds];

/** VIEW_CHANNEL, SEND_MESSAGES, READ_MESSAGE_HISTORY and MANAGE_ROLES, as a bot's bitfield. */
const MANAGES_ROLES = ((1n << 10n) | (1n << 11n) | (1n << 16n) | (1n << 28n)).toString();

/** An owner's server with a bot that may manage roles. */
async function world() {
  const owner = await registerUser(srv.url);
  const { server } = await createServer(srv.url, owner);
  const bot = await createBot(srv.url, owner);
  const added = await call(srv.url, 'POST', `/servers/${server.id}/bots`, {
    auth: owner.auth,
    body: { botId: bot.id, permissions: MANAGES_ROLES },
  });
  expect(added.status, added.text).toBe(201);
  return { owner, server, bot };
}

/** The role's colour as Parley's native API reports it. */
async function nativeColor(w: Awaited<ReturnType<typeof world>>, roleId: string): Promise<number | undefined> {
  const list = await call(srv.url, 'GET', `/servers/${w.server.id}/roles`, { auth: w.owner.auth });
  return (list.body as Array<{ id: string; color: number }>).find((r) => r.id === roleId)?.color;
}

describe('role colours with discord.js', () => {
  it('creates and edits with colors.primaryColor; a fetch and the native API show it', async () => {
    const w = await world();
    const client = await login(srv, clients, w.bot.token, INTENTS);
    const guild = client.guilds.cache.get(w.server.id)!;
    const [[announced], role] = await Promise.all([
      next<[Role]>(client, Events.GuildRoleCreate, (r) => r.name === 'Red'),
      guild.roles.create({ name: 'Red', colors: { primaryColor: 0xff0000 } }),
    ]);
    expect(role.colors).toEqual({ primaryColor: 0xff0000, secondaryColor: null, tertiaryColor: null });
    expect(role.color).toBe(0xff0000);
    expect(announced.colors.primaryColor).toBe(0xff0000);
    const fetched = await guild.roles.fetch(role.id, { force: true });
    expect(fetched?.colors.primaryColor).toBe(0xff0000);
    expect(await nativeColor(w, role.id)).toBe(0xff0000);

    const [[, updated]] = await Promise.all([
      next<[Role, Role]>(client, Events.GuildRoleUpdate, (_old, r) => r.id === role.id && r.colors.primaryColor === 0x0000ff),
      role.edit({ colors: { primaryColor: 0x0000ff } }),
    ]);
    expect(updated.color).toBe(0x0000ff);
    expect(await nativeColor(w, role.id)).toBe(0x0000ff);
  });

  it('still takes the legacy color, on create and edit', async () => {
    const w = await world();
    const client = await login(srv, clients, w.bot.token, INTENTS);
    const guild = client.guilds.cache.get(w.server.id)!;
    const role = await guild.roles.create({ name: 'Green', color: 0x00ff00 });
    expect(role.colors.primaryColor).toBe(0x00ff00);
    expect(await nativeColor(w, role.id)).toBe(0x00ff00);
    const edited = await guild.roles.edit(role.id, { color: 0x123456 });
    expect(edited.colors.primaryColor).toBe(0x123456);
    expect(await nativeColor(w, role.id)).toBe(0x123456);
    // Raw: `color` alone on the wire, both forms back.
    const raw = await call(srv.url, 'PATCH', `/api/v10/guilds/${w.server.id}/roles/${role.id}`, {
      auth: w.bot.auth,
      body: { color: 0xabcdef },
    });
    expect(raw.status).toBe(200);
    expect(raw.body).toMatchObject({ color: 0xabcdef, colors: { primary_color: 0xabcdef, secondary_color: null, tertiary_color: null } });
  });

  it('refuses a gradient (secondary or tertiary colour) with 50035, leaving the role as it was', async () => {
    const w = await world();
    const client = await login(srv, clients, w.bot.token, INTENTS);
    const guild = client.guilds.cache.get(w.server.id)!;
    const role = await guild.roles.create({ name: 'Plain', colors: { primaryColor: 0x111111 } });
    const err = await role.edit({ colors: { primaryColor: 0xff0000, secondaryColor: 0x00ff00 } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DiscordAPIError);
    expect((err as DiscordAPIError).code).toBe(50035);
    expect((err as DiscordAPIError).message).toMatch(/secondary_color/);
    expect(await nativeColor(w, role.id)).toBe(0x111111);
    const raw = await call(srv.url, 'POST', `/api/v10/guilds/${w.server.id}/roles`, {
      auth: w.bot.auth,
      body: { name: 'Holo', colors: { primary_color: 11127295, secondary_color: 16759788, tertiary_color: 16761760 } },
    });
    expect([raw.status, raw.body.code]).toEqual([400, 50035]);
    // Out of range is the schema's 50035 too.
    const big = await call(srv.url, 'POST', `/api/v10/guilds/${w.server.id}/roles`, {
      auth: w.bot.auth,
      body: { name: 'Big', colors: { primary_color: 0x1000000 } },
    });
    expect([big.status, big.body.code]).toEqual([400, 50035]);
  });

  it('sends colors on GUILD_CREATE roles and GUILD_ROLE_CREATE, both forms', async () => {
    const w = await world();
    const created = await call(srv.url, 'POST', `/servers/${w.server.id}/roles`, {
      auth: w.owner.auth,
      body: { name: 'Blue', color: 0x0000ff },
    });
    expect(created.status).toBe(201);
    const c = await identifyDiscord(pool, srv, w.bot.token, I.GUILDS);
    const guild = c.events('GUILD_CREATE')[0]!.d as { roles: Array<{ id: string; color: number; colors: unknown }> };
    expect(guild.roles.find((r) => r.id === created.body.id)).toMatchObject({
      color: 0x0000ff,
      colors: { primary_color: 0x0000ff, secondary_color: null, tertiary_color: null },
    });
    await call(srv.url, 'POST', `/api/v10/guilds/${w.server.id}/roles`, {
      auth: w.bot.auth,
      body: { name: 'Teal', colors: { primary_color: 0x008080 } },
    });
    const ev = await c.waitForEvent('GUILD_ROLE_CREATE', (d) => d.role.name === 'Teal');
    expect(ev.d.role).toMatchObject({ color: 0x008080, colors: { primary_color: 0x008080, secondary_color: null, tertiary_color: null } });
  });
});
