/**
 * Discord's member edit (`PATCH /guilds/{id}/members/{userId}` and `/members/@me`), driven
 * by discord.js (issue 36 item 6): `setNickname`, `roles.set`, `edit({nick, roles})` and
 * `editMe`, with Discord's permissions (CHANGE_NICKNAME for one's own nickname,
 * MANAGE_NICKNAMES below the caller for anyone else's; the role hierarchy of the one-role
 * routes for `roles`), all or nothing, one GUILD_MEMBER_UPDATE carrying `nick`; voice and
 * timeouts refused with 50035 unless null (docs/discord.md, "Members").
 */
import { type Client, DiscordAPIError, type GuildMember, PermissionFlagsBits } from 'discord.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type TestUser, call, createBot, createServer, joinServer, registerUser } from '../factories.js';
import { ClientPool } from '../gateway/client.js';
import { type TestServer, startServer } from '../harness.js';
import { login, next } from './djs.js';
import { ALL_MESSAGES, identifyDiscord } from './helpers.js';

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

async function role(owner: TestUser, serverId: string, name: string, permissions = '0', position?: number): Promise<string> {
  const r = await call(srv.url, 'POST', `/servers/${serverId}/roles`, { auth: owner.auth, body: { name, permissions } });
  expect(r.status, r.text).toBe(201);
  if (position !== undefined) {
    const moved = await call(srv.url, 'PATCH', `/servers/${serverId}/roles/${r.body.id}`, { auth: owner.auth, body: { position } });
    expect(moved.status, moved.text).toBe(200);
  }
  return r.body.id as string;
}

/** A server with a bot holding `bits` (its managed role) and a person with no roles. */
async function setup(bits: bigint) {
  const owner = await registerUser(srv.url);
  const { server } = await createServer(srv.url, owner);
  const bot = await createBot(srv.url, owner);
  const added = await call(srv.url, 'POST', `/servers/${server.id}/bots`, {
    auth: owner.auth,
    body: { botId: bot.id, permissions: bits.toString() },
  });
  expect(added.status, added.text).toBe(201);
  const person = await registerUser(srv.url);
  await joinServer(srv.url, owner, person, server.id);
  return { owner, server, bot, person };
}

async function nativeMember(owner: TestUser, serverId: string, userId: string) {
  const r = await call(srv.url, 'GET', `/servers/${serverId}/members`, { auth: owner.auth });
  return (r.body as Array<{ id: string; nick?: string | null; roles: string[] }>).find((m) => m.id === userId);
}

async function refused(p: Promise<unknown>): Promise<DiscordAPIError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(DiscordAPIError);
  return e as DiscordAPIError;
}

describe('nicknames through discord.js', () => {
  it('a bot with CHANGE_NICKNAME sets its own (setNickname and editMe); without it, 50013', async () => {
    const s = await setup(F.ViewChannel | F.ChangeNickname);
    const client = await login(srv, clients, s.bot.token);
    const guild = client.guilds.cache.get(s.server.id)!;
    const me = await guild.members.me!.setNickname('Robo');
    expect(me.nickname).toBe('Robo');
    expect((await nativeMember(s.owner, s.server.id, s.bot.id))?.nick).toBe('Robo');
    const again = await guild.members.editMe({ nick: '  Robo two  ' });
    expect(again.nickname).toBe('Robo two');
    // Cleared with null.
    expect((await guild.members.editMe({ nick: null })).nickname).toBeNull();
    expect((await nativeMember(s.owner, s.server.id, s.bot.id))?.nick).toBeNull();

    const t = await setup(F.ViewChannel);
    const other = await login(srv, clients, t.bot.token);
    const e = await refused(other.guilds.cache.get(t.server.id)!.members.me!.setNickname('Nope'));
    expect([e.status, e.code]).toEqual([403, 50013]);
    expect((await nativeMember(t.owner, t.server.id, t.bot.id))?.nick).toBeNull();
  });

  it("a bot with MANAGE_NICKNAMES sets a lower member's; the nick is in GUILD_MEMBER_UPDATE, MEMBER_UPDATE and member objects", async () => {
    const s = await setup(F.ViewChannel | F.ManageNicknames);
    const watcher = await pool.identify(srv.gatewayUrl, s.owner.auth);
    const client = await login(srv, clients, s.bot.token);
    const raw = await identifyDiscord(pool, srv, s.bot.token, ALL_MESSAGES);
    const guild = client.guilds.cache.get(s.server.id)!;
    const member = await guild.members.fetch(s.person.id);
    const updated = next<[GuildMember, GuildMember]>(client, 'guildMemberUpdate', (_o, n) => n.id === s.person.id);
    const result = await member.setNickname('Lower one');
    expect(result.nickname).toBe('Lower one');
    const [, after] = await updated;
    expect(after.nickname).toBe('Lower one');
    const frame = await raw.waitForEvent('GUILD_MEMBER_UPDATE', (d) => d.user.id === s.person.id);
    expect(frame.d).toMatchObject({ guild_id: s.server.id, nick: 'Lower one', roles: [] });
    const native = await watcher.waitForEvent('MEMBER_UPDATE', (d) => d.user.id === s.person.id);
    expect(native.d).toMatchObject({ serverId: s.server.id, nick: 'Lower one', roles: [] });
    const got = await call(srv.url, 'GET', `/api/v10/guilds/${s.server.id}/members/${s.person.id}`, { auth: `Bot ${s.bot.token}` });
    expect(got.body.nick).toBe('Lower one');
    expect((await guild.members.fetch({ user: s.person.id, force: true })).nickname).toBe('Lower one');
  });

  it("refuses a higher member's nickname (the owner; a member with a role above the bot's): 50013, nothing changes", async () => {
    const s = await setup(F.ViewChannel | F.ManageNicknames);
    const high = await role(s.owner, s.server.id, 'high', '0', 99);
    const given = await call(srv.url, 'PUT', `/servers/${s.server.id}/members/${s.person.id}/roles/${high}`, { auth: s.owner.auth });
    expect(given.status, given.text).toBe(204);
    const client = await login(srv, clients, s.bot.token);
    const guild = client.guilds.cache.get(s.server.id)!;
    for (const id of [s.owner.id, s.person.id]) {
      const member = await guild.members.fetch(id);
      const e = await refused(member.setNickname('Demoted'));
      expect([e.status, e.code]).toEqual([403, 50013]);
      expect((await nativeMember(s.owner, s.server.id, id))?.nick).toBeNull();
    }
  });
});

describe('roles through discord.js', () => {
  it('roles.set replaces the set (keeping roles at or above the bot untouched), in one event; edit({nick, roles}) does both', async () => {
    const s = await setup(F.ViewChannel | F.ManageRoles | F.ManageNicknames);
    const high = await role(s.owner, s.server.id, 'high', '0', 99);
    const low1 = await role(s.owner, s.server.id, 'low1');
    const low2 = await role(s.owner, s.server.id, 'low2');
    for (const id of [high, low1]) {
      const r = await call(srv.url, 'PUT', `/servers/${s.server.id}/members/${s.person.id}/roles/${id}`, { auth: s.owner.auth });
      expect(r.status, r.text).toBe(204);
    }
    const watcher = await pool.identify(srv.gatewayUrl, s.owner.auth);
    const client = await login(srv, clients, s.bot.token);
    const guild = client.guilds.cache.get(s.server.id)!;
    const member = await guild.members.fetch(s.person.id);

    // low1 out, low2 in, high (above the bot) kept as it is: allowed.
    const from = watcher.events('MEMBER_UPDATE').length;
    const done = await member.roles.set([low2, high]);
    expect([...done.roles.cache.keys()].filter((id) => id !== guild.id).sort()).toEqual([high, low2].sort());
    expect((await nativeMember(s.owner, s.server.id, s.person.id))?.roles.sort()).toEqual([high, low2].sort());
    // A marker after it: the gateway delivers one server's events in order.
    const marker = await call(srv.url, 'PATCH', `/servers/${s.server.id}/members/@me`, { auth: s.owner.auth, body: { nick: 'marker' } });
    expect(marker.status, marker.text).toBe(200);
    await watcher.waitForEvent('MEMBER_UPDATE', (d) => d.user.id === s.owner.id);
    const mine = watcher
      .events('MEMBER_UPDATE')
      .slice(from)
      .filter((f) => (f.d as { user: { id: string } }).user.id === s.person.id);
    expect(mine).toHaveLength(1);
    expect((mine[0]!.d as { roles: string[] }).roles.sort()).toEqual([high, low2].sort());

    // Taking `high` (above the bot) is refused, and nothing else of the request happens.
    const e = await refused(member.roles.set([low1]));
    expect([e.status, e.code]).toEqual([403, 50013]);
    expect((await nativeMember(s.owner, s.server.id, s.person.id))?.roles.sort()).toEqual([high, low2].sort());

    // edit({nick, roles}) on this member (above the bot now): the nick is refused, so the roles do not change either.
    const whole = await refused(member.edit({ nick: 'Edited', roles: [high, low1, low2] }));
    expect([whole.status, whole.code]).toEqual([403, 50013]);
    const still = await nativeMember(s.owner, s.server.id, s.person.id);
    expect([still?.nick, still?.roles.sort()]).toEqual([null, [high, low2].sort()]);

    // On a member below the bot, both at once.
    const lower = await registerUser(srv.url);
    await joinServer(srv.url, s.owner, lower, s.server.id);
    const lowerMember = await guild.members.fetch(lower.id);
    const edited = await lowerMember.edit({ nick: 'Edited', roles: [low1, low2] });
    expect(edited.nickname).toBe('Edited');
    expect([...edited.roles.cache.keys()].filter((id) => id !== guild.id).sort()).toEqual([low1, low2].sort());
    const after = await nativeMember(s.owner, s.server.id, lower.id);
    expect(after?.nick).toBe('Edited');
    expect(after?.roles.sort()).toEqual([low1, low2].sort());
  });

  it('giving a role with a bit the bot lacks is refused whole; an unknown role is 10011', async () => {
    const s = await setup(F.ViewChannel | F.ManageRoles);
    const admin = await role(s.owner, s.server.id, 'admin-ish', F.Administrator.toString());
    const plain = await role(s.owner, s.server.id, 'plain');
    const client = await login(srv, clients, s.bot.token);
    const member = await client.guilds.cache.get(s.server.id)!.members.fetch(s.person.id);
    const e = await refused(member.roles.set([plain, admin]));
    expect([e.status, e.code]).toEqual([403, 50013]);
    expect((await nativeMember(s.owner, s.server.id, s.person.id))?.roles).toEqual([]);
    const r = await call(srv.url, 'PATCH', `/api/v10/guilds/${s.server.id}/members/${s.person.id}`, {
      auth: `Bot ${s.bot.token}`,
      body: { roles: [plain, '1234567890123456789'] },
    });
    expect([r.status, r.body.code]).toEqual([404, 10011]);
    expect((await nativeMember(s.owner, s.server.id, s.person.id))?.roles).toEqual([]);
  });
});

describe('voice and timeouts', () => {
  it('channel_id, mute, deaf, communication_disabled_until: null is a no-op (200); any other value 400 50035', async () => {
    const s = await setup(F.ViewChannel | F.ManageRoles);
    const auth = `Bot ${s.bot.token}`;
    const path = `/api/v10/guilds/${s.server.id}/members/${s.person.id}`;
    const ok = await call(srv.url, 'PATCH', path, {
      auth,
      body: { channel_id: null, mute: null, deaf: null, communication_disabled_until: null },
    });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.user.id).toBe(s.person.id);
    expect(ok.headers.get('content-type')).toMatch(/^application\/json/);
    const voice = await call(srv.url, 'PATCH', path, { auth, body: { channel_id: '1234567890123456789' } });
    expect([voice.status, voice.body.code]).toEqual([400, 50035]);
    expect(voice.text).toContain('voice channels are not supported');
    for (const body of [{ mute: true }, { deaf: false }, { communication_disabled_until: '2030-01-01T00:00:00.000Z' }]) {
      const r = await call(srv.url, 'PATCH', path, { auth, body });
      expect([r.status, r.body.code], JSON.stringify(body)).toEqual([400, 50035]);
    }
    const client = await login(srv, clients, s.bot.token);
    const member = await client.guilds.cache.get(s.server.id)!.members.fetch(s.person.id);
    const e = await refused(member.timeout(60_000));
    expect([e.status, e.code]).toEqual([400, 50035]);
  });
});
