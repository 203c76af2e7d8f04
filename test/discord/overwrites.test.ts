/**
 * `permission_overwrites` on the Discord layer's channel create (`POST /guilds/{id}/channels`)
 * and edit (`PATCH /channels/{id}`), driven by discord.js (issue 35 item 10): applied with
 * the rules of the overwrite route (`MANAGE_ROLES`, targets below the caller, only bits the
 * caller holds), or refused; never dropped. A ticket channel a bot makes private is
 * private: another member cannot GET it, list it, or hear of it on the gateway.
 */
import { type Client, OverwriteType, PermissionFlagsBits } from 'discord.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call, createBot, createServer, joinServer, registerUser } from '../factories.js';
import { ClientPool } from '../gateway/client.js';
import { type TestServer, startServer } from '../harness.js';
import { login } from './djs.js';

let srv: TestServer;
const clients: Client[] = [];
const pool = new ClientPool();

beforeAll(async () => {
  srv = await startServer({ env: { RATE_LIMITS: 'off' } });
});
afterEach(async () => {
  await Promise.all([...clients.splice(0).map((c) => c.destroy()), pool.closeAll()]);
});
afterAll(() => srv?.close());

const F = PermissionFlagsBits;
const TICKET_BOT = F.ViewChannel | F.SendMessages | F.ReadMessageHistory | F.ManageChannels | F.ManageRoles;

/** Adds a bot whose managed role holds `bits`. */
async function addBot(owner: { auth: string }, serverId: string, botId: string, bits: bigint) {
  const r = await call(srv.url, 'POST', `/servers/${serverId}/bots`, { auth: owner.auth, body: { botId, permissions: bits.toString() } });
  expect(r.status, r.text).toBe(201);
}

/** A server with a ticket bot, the person who opens a ticket, and a bystander. */
async function setup(botPermissions = TICKET_BOT) {
  const owner = await registerUser(srv.url);
  const { server } = await createServer(srv.url, owner);
  const bot = await createBot(srv.url, owner);
  await addBot(owner, server.id, bot.id, botPermissions);
  const opener = await registerUser(srv.url);
  const bystander = await registerUser(srv.url);
  await joinServer(srv.url, owner, opener, server.id);
  await joinServer(srv.url, owner, bystander, server.id);
  return { owner, server, bot, opener, bystander };
}

type Overwrite = { id: string; type: number; allow: string; deny: string };

const sorted = (list: Overwrite[]) => [...list].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

describe('permission_overwrites on /api channel create and edit', () => {
  it('a ticket channel made private by discord.js is invisible to another member (GET, list, gateway); GET returns its overwrites', async () => {
    const s = await setup();
    const [openerWs, bystanderWs] = await Promise.all([
      pool.identify(srv.gatewayUrl, s.opener.auth),
      pool.identify(srv.gatewayUrl, s.bystander.auth),
    ]);
    const client = await login(srv, clients, s.bot.token);
    const guild = client.guilds.cache.get(s.server.id)!;
    const ticket = await guild.channels.create({
      name: 'ticket-1',
      permissionOverwrites: [
        { id: guild.id, type: OverwriteType.Role, deny: [PermissionFlagsBits.ViewChannel] },
        { id: s.opener.id, type: OverwriteType.Member, allow: [PermissionFlagsBits.ViewChannel, PermissionFlagsBits.SendMessages] },
        { id: s.bot.id, type: OverwriteType.Member, allow: [PermissionFlagsBits.ViewChannel] },
      ],
    });
    const expected: Overwrite[] = [
      { id: s.server.id, type: 0, allow: '0', deny: PermissionFlagsBits.ViewChannel.toString() },
      { id: s.opener.id, type: 1, allow: (PermissionFlagsBits.ViewChannel | PermissionFlagsBits.SendMessages).toString(), deny: '0' },
      { id: s.bot.id, type: 1, allow: PermissionFlagsBits.ViewChannel.toString(), deny: '0' },
    ];
    // What the create answered, what GET answers, and what discord.js made of it.
    const got = await call(srv.url, 'GET', `/api/v10/channels/${ticket.id}`, { auth: `Bot ${s.bot.token}` });
    expect(got.status, got.text).toBe(200);
    expect(sorted(got.body.permission_overwrites)).toEqual(sorted(expected));
    const fetched = await client.channels.fetch(ticket.id, { force: true });
    expect(fetched && 'permissionOverwrites' in fetched ? [...fetched.permissionOverwrites.cache.keys()].sort() : []).toEqual(
      [s.server.id, s.opener.id, s.bot.id].sort(),
    );
    expect(ticket.permissionOverwrites.cache.get(guild.id)?.deny.has(PermissionFlagsBits.ViewChannel)).toBe(true);

    // The opener sees it, on the gateway and over REST.
    await openerWs.waitForEvent('CHANNEL_CREATE', (d) => d.id === ticket.id);
    expect((await call(srv.url, 'GET', `/api/v10/channels/${ticket.id}`, { auth: s.opener.auth })).status).toBe(200);

    // The bystander does not: a later public channel reaches them, the ticket never did.
    const lobby = await guild.channels.create({ name: 'lobby' });
    await bystanderWs.waitForEvent('CHANNEL_CREATE', (d) => d.id === lobby.id);
    expect(bystanderWs.events('CHANNEL_CREATE').map((f) => f.d.id)).not.toContain(ticket.id);
    expect((await call(srv.url, 'GET', `/api/v10/channels/${ticket.id}`, { auth: s.bystander.auth })).status).toBe(403);
    const listed = await call(srv.url, 'GET', `/servers/${s.server.id}/channels`, { auth: s.bystander.auth });
    expect(listed.body.map((c: { id: string }) => c.id)).not.toContain(ticket.id);
    expect(listed.body.map((c: { id: string }) => c.id)).toContain(lobby.id);
    const posted = await call(srv.url, 'POST', `/channels/${ticket.id}/messages`, { auth: s.bystander.auth, body: { content: 'hi' } });
    expect(posted.status).toBe(403);
  });

  it('channel.edit({permissionOverwrites}) replaces the overwrites: a public channel turns private, and back', async () => {
    const s = await setup();
    const bystanderWs = await pool.identify(srv.gatewayUrl, s.bystander.auth);
    const client = await login(srv, clients, s.bot.token);
    const guild = client.guilds.cache.get(s.server.id)!;
    const room = await guild.channels.create({ name: 'room' });
    await bystanderWs.waitForEvent('CHANNEL_CREATE', (d) => d.id === room.id);
    expect((await call(srv.url, 'GET', `/api/v10/channels/${room.id}`, { auth: s.bystander.auth })).status).toBe(200);

    await room.edit({
      permissionOverwrites: [
        { id: guild.id, type: OverwriteType.Role, deny: [PermissionFlagsBits.ViewChannel] },
        { id: s.bot.id, type: OverwriteType.Member, allow: [PermissionFlagsBits.ViewChannel] },
      ],
    });
    // The bystander loses it on the gateway (a CHANNEL_DELETE for them) and over REST.
    await bystanderWs.waitForEvent('CHANNEL_DELETE', (d) => d.id === room.id);
    expect((await call(srv.url, 'GET', `/api/v10/channels/${room.id}`, { auth: s.bystander.auth })).status).toBe(403);
    const got = await call(srv.url, 'GET', `/api/v10/channels/${room.id}`, { auth: `Bot ${s.bot.token}` });
    expect(sorted(got.body.permission_overwrites)).toEqual(
      sorted([
        { id: s.server.id, type: 0, allow: '0', deny: PermissionFlagsBits.ViewChannel.toString() },
        { id: s.bot.id, type: 1, allow: PermissionFlagsBits.ViewChannel.toString(), deny: '0' },
      ]),
    );

    // An empty list removes them all: public again.
    const r = await call(srv.url, 'PATCH', `/api/v10/channels/${room.id}`, {
      auth: `Bot ${s.bot.token}`,
      body: { permission_overwrites: [] },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body.permission_overwrites).toEqual([]);
    await bystanderWs.waitForEvent('CHANNEL_CREATE', (d) => d.id === room.id);
    expect((await call(srv.url, 'GET', `/api/v10/channels/${room.id}`, { auth: s.bystander.auth })).status).toBe(200);
  });

  it('refused, never dropped: bits the bot lacks, no MANAGE_ROLES, a target above it, a bad body; nothing is created or changed', async () => {
    const s = await setup();
    const auth = `Bot ${s.bot.token}`;
    const channels = async () =>
      (await call(srv.url, 'GET', `/servers/${s.server.id}/channels`, { auth: s.owner.auth })).body as Array<{
        id: string;
        name: string;
        permissionOverwrites: unknown[];
      }>;
    const before = await channels();
    const create = (permission_overwrites: unknown, by = auth) =>
      call(srv.url, 'POST', `/api/v10/guilds/${s.server.id}/channels`, { auth: by, body: { name: 'nope', permission_overwrites } });

    // A bit the bot does not hold (MANAGE_MESSAGES), allowed or denied.
    for (const o of [
      { id: s.server.id, type: 0, allow: PermissionFlagsBits.ManageMessages.toString() },
      { id: s.opener.id, type: 1, deny: PermissionFlagsBits.ManageMessages.toString() },
    ]) {
      const r = await create([o]);
      expect(r.status, r.text).toBe(403);
      expect(r.body.code).toBe(50013);
    }
    // A role at or above the bot's highest (its own managed role is its highest).
    const roles = (await call(srv.url, 'GET', `/servers/${s.server.id}/roles`, { auth: s.owner.auth })).body as Array<{
      id: string;
      managed: boolean;
    }>;
    const own = roles.find((r) => r.managed)!;
    const r1 = await create([{ id: own.id, type: 0, allow: PermissionFlagsBits.ViewChannel.toString() }]);
    expect(r1.status, r1.text).toBe(403);
    // Malformed: an unknown type, a bad bitfield, a duplicate target, an unknown role, not a list.
    for (const bad of [
      [{ id: s.server.id, type: 2, allow: '0' }],
      [{ id: s.server.id, type: 0, allow: 'abc' }],
      [
        { id: s.server.id, type: 0, deny: '1024' },
        { id: s.server.id, type: 0, deny: '2048' },
      ],
      'everyone',
    ]) {
      const r = await create(bad);
      expect(r.status, `${JSON.stringify(bad)}: ${r.text}`).toBe(400);
    }
    const unknownRole = await create([{ id: '1234567890123456789', type: 0, deny: '1024' }]);
    expect(unknownRole.status, unknownRole.text).toBe(404);

    // A bot without MANAGE_ROLES: refused, not created without them.
    const plain = await createBot(srv.url, s.owner);
    await addBot(s.owner, s.server.id, plain.id, F.ViewChannel | F.SendMessages | F.ManageChannels);
    const r2 = await create([{ id: s.server.id, type: 0, deny: PermissionFlagsBits.ViewChannel.toString() }], `Bot ${plain.token}`);
    expect(r2.status, r2.text).toBe(403);
    expect(r2.body.code).toBe(50013);
    expect(await channels()).toEqual(before);

    // Edit: the same rules; the channel and its overwrites stay as they were.
    const general = before[0]!;
    const edits = [
      {
        by: auth,
        body: {
          name: 'renamed',
          permission_overwrites: [{ id: s.server.id, type: 0, allow: PermissionFlagsBits.ManageMessages.toString() }],
        },
      },
      {
        by: `Bot ${plain.token}`,
        body: { permission_overwrites: [{ id: s.server.id, type: 0, deny: PermissionFlagsBits.ViewChannel.toString() }] },
      },
    ];
    for (const e of edits) {
      const r = await call(srv.url, 'PATCH', `/api/v10/channels/${general.id}`, { auth: e.by, body: e.body });
      expect(r.status, r.text).toBe(403);
    }
    expect(await channels()).toEqual(before);

    // The same list sent back unchanged with a rename changes no overwrite: MANAGE_ROLES is not needed.
    const same = await call(srv.url, 'PATCH', `/api/v10/channels/${general.id}`, {
      auth: `Bot ${plain.token}`,
      body: { name: 'renamed', permission_overwrites: [] },
    });
    expect(same.status, same.text).toBe(200);
    expect(same.body.name).toBe('renamed');
  });
});
