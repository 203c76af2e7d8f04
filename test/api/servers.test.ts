/** docs/api.md#servers-channels-members over HTTP: servers, channels, invites, members and bot membership. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type TestUser,
  addBot,
  call,
  createBot,
  createChannel,
  createServer,
  joinServer,
  postMessage,
  registerUser,
  world,
} from '../factories.js';
import { type TestServer, startServer } from '../harness.js';
import { ISO_UTC, UNKNOWN_ID, expectError, expectRateLimited } from './assert.js';

let srv: TestServer;

beforeAll(async () => {
  srv = await startServer({ env: { RATE_LIMITS: 'off' } });
});
afterAll(() => srv?.close());

const ALL = ['READ_MESSAGES', 'SEND_MESSAGES', 'ADD_REACTIONS', 'ATTACH_FILES'];

/** An owner with a server, a second person who joined it, a stranger, and a bot member. */
async function setup() {
  const w = await world(srv.url);
  const member = await registerUser(srv.url);
  await joinServer(srv.url, w.owner, member, w.server.id);
  const stranger = await registerUser(srv.url);
  return { ...w, member, stranger };
}

describe('servers', () => {
  it('POST /servers: 201 {id, name, ownerId, createdAt}; the creator owns it and has a general channel', async () => {
    const u = await registerUser(srv.url);
    const r = await call(srv.url, 'POST', '/servers', { auth: u.auth, body: { name: 'My place' } });
    expect(r.status, r.text).toBe(201);
    expect(Object.keys(r.body).sort()).toEqual([
      'createdAt',
      'description',
      'icon',
      'id',
      'name',
      'ownerId',
      'systemChannelId',
      'welcomeMessages',
    ]);
    expect(r.body).toMatchObject({ name: 'My place', ownerId: u.id });
    expect(r.body.createdAt).toMatch(ISO_UTC);
    const channels = await call(srv.url, 'GET', `/servers/${r.body.id}/channels`, { auth: u.auth });
    expect(channels.body.map((c: { name: string }) => c.name)).toEqual(['general']);
    const members = await call(srv.url, 'GET', `/servers/${r.body.id}/members`, { auth: u.auth });
    expect(members.body.map((m: { id: string }) => m.id)).toEqual([u.id]);
  });

  it('POST /servers: 400 bad name, 401 no token, 403 for a bot', async () => {
    const u = await registerUser(srv.url);
    const bot = await createBot(srv.url, u);
    expectError(await call(srv.url, 'POST', '/servers', { auth: u.auth, body: {} }), 400);
    expectError(await call(srv.url, 'POST', '/servers', { auth: u.auth, body: { name: '' } }), 400);
    expectError(await call(srv.url, 'POST', '/servers', { auth: u.auth, body: { name: '  ' } }), 400);
    expectError(await call(srv.url, 'POST', '/servers', { auth: u.auth, body: { name: 'x'.repeat(101) } }), 400);
    expectError(await call(srv.url, 'POST', '/servers', { auth: u.auth, body: { name: 5 } }), 400);
    expectError(await call(srv.url, 'POST', '/servers', { body: { name: 'x' } }), 401);
    expectError(await call(srv.url, 'POST', '/servers', { auth: bot.auth, body: { name: 'x' } }), 403);
    expect((await call(srv.url, 'GET', '/servers', { auth: u.auth })).body).toEqual([]);
  });

  it('GET /servers: the servers the caller belongs to (users and bots)', async () => {
    const s = await setup();
    const { server: other } = await createServer(srv.url, s.stranger, 'Elsewhere');
    const mine = await call(srv.url, 'GET', '/servers', { auth: s.member.auth });
    expect(mine.status).toBe(200);
    expect(mine.body.map((x: { id: string }) => x.id)).toEqual([s.server.id]);
    const bots = await call(srv.url, 'GET', '/servers', { auth: s.bot.auth });
    expect(bots.status).toBe(200);
    expect(bots.body.map((x: { id: string }) => x.id)).toEqual([s.server.id]);
    const theirs = await call(srv.url, 'GET', '/servers', { auth: s.stranger.auth });
    expect(theirs.body.map((x: { id: string }) => x.id)).toEqual([other.id]);
    expectError(await call(srv.url, 'GET', '/servers'), 401);
  });

  it('GET /servers/{id}: 200 for members and bot members, 403 for non-members, 404 unknown', async () => {
    const s = await setup();
    for (const who of [s.owner, s.member, s.bot]) {
      const r = await call(srv.url, 'GET', `/servers/${s.server.id}`, { auth: who.auth });
      expect(r.status).toBe(200);
      expect(r.body).toEqual({
        id: s.server.id,
        name: s.server.name,
        ownerId: s.owner.id,
        createdAt: expect.stringMatching(ISO_UTC),
        icon: null,
        description: null,
        systemChannelId: null,
        welcomeMessages: true,
      });
    }
    expectError(await call(srv.url, 'GET', `/servers/${s.server.id}`, { auth: s.stranger.auth }), 403);
    expectError(await call(srv.url, 'GET', `/servers/${UNKNOWN_ID}`, { auth: s.owner.auth }), 404);
    expectError(await call(srv.url, 'GET', '/servers/nope', { auth: s.owner.auth }), 404);
    expectError(await call(srv.url, 'GET', `/servers/${s.server.id}`), 401);
  });

  it('PATCH /servers/{id}: the owner renames; members get 403', async () => {
    const s = await setup();
    const r = await call(srv.url, 'PATCH', `/servers/${s.server.id}`, { auth: s.owner.auth, body: { name: 'Renamed' } });
    expect(r.status).toBe(200);
    expect(r.body.name).toBe('Renamed');
    expect((await call(srv.url, 'GET', `/servers/${s.server.id}`, { auth: s.member.auth })).body.name).toBe('Renamed');
    expectError(await call(srv.url, 'PATCH', `/servers/${s.server.id}`, { auth: s.member.auth, body: { name: 'Mine' } }), 403);
    expectError(await call(srv.url, 'PATCH', `/servers/${s.server.id}`, { auth: s.bot.auth, body: { name: 'Mine' } }), 403);
    expect((await call(srv.url, 'GET', `/servers/${s.server.id}`, { auth: s.owner.auth })).body.name).toBe('Renamed');
  });
});

describe('channels', () => {
  const channelFields = { createdAt: expect.stringMatching(ISO_UTC), topic: null, type: 'text', parentId: null, permissionOverwrites: [] };

  it('GET /servers/{id}/channels: 200 [{id, serverId, name, createdAt, topic, position, type, parentId, permissionOverwrites, lastMessageId}] for members; 403 for others', async () => {
    const s = await setup();
    const c = await createChannel(srv.url, s.owner, s.server.id, 'random');
    const last = await postMessage(srv.url, s.owner.auth, c.id, 'the latest');
    for (const who of [s.owner, s.member, s.bot]) {
      const r = await call(srv.url, 'GET', `/servers/${s.server.id}/channels`, { auth: who.auth });
      expect(r.status).toBe(200);
      expect(r.body).toEqual([
        { ...channelFields, id: s.channel.id, serverId: s.server.id, name: 'general', position: 0, lastMessageId: null },
        { ...channelFields, id: c.id, serverId: s.server.id, name: 'random', position: 1, lastMessageId: last.id },
      ]);
    }
    expectError(await call(srv.url, 'GET', `/servers/${s.server.id}/channels`, { auth: s.stranger.auth }), 403);
    expectError(await call(srv.url, 'GET', `/servers/${UNKNOWN_ID}/channels`, { auth: s.owner.auth }), 404);
  });

  it('POST /servers/{id}/channels: 201 for the owner; 403 member/bot/stranger; 404 unknown server; 400 bad name', async () => {
    const s = await setup();
    const r = await call(srv.url, 'POST', `/servers/${s.server.id}/channels`, { auth: s.owner.auth, body: { name: 'news' } });
    expect(r.status, r.text).toBe(201);
    expect(r.body).toEqual({
      id: expect.stringMatching(/^[1-9][0-9]{15,18}$/),
      serverId: s.server.id,
      name: 'news',
      createdAt: expect.stringMatching(ISO_UTC),
      topic: null,
      position: 1,
      type: 'text',
      parentId: null,
      permissionOverwrites: [],
    });
    expectError(await call(srv.url, 'POST', `/servers/${s.server.id}/channels`, { auth: s.member.auth, body: { name: 'x' } }), 403);
    expectError(await call(srv.url, 'POST', `/servers/${s.server.id}/channels`, { auth: s.bot.auth, body: { name: 'x' } }), 403);
    expectError(await call(srv.url, 'POST', `/servers/${s.server.id}/channels`, { auth: s.stranger.auth, body: { name: 'x' } }), 403);
    expectError(await call(srv.url, 'POST', `/servers/${UNKNOWN_ID}/channels`, { auth: s.owner.auth, body: { name: 'x' } }), 404);
    expectError(await call(srv.url, 'POST', `/servers/${s.server.id}/channels`, { auth: s.owner.auth, body: { name: '' } }), 400);
    expectError(await call(srv.url, 'POST', `/servers/${s.server.id}/channels`, { auth: s.owner.auth, body: {} }), 400);
    expectError(await call(srv.url, 'POST', `/servers/${s.server.id}/channels`, { body: { name: 'x' } }), 401);
    const names = (await call(srv.url, 'GET', `/servers/${s.server.id}/channels`, { auth: s.owner.auth })).body.map(
      (c: { name: string }) => c.name,
    );
    expect(names).toEqual(['general', 'news']);
  });

  it('PATCH /channels/{id}: owner renames (200); member 403; unknown 404; bad body 400', async () => {
    const s = await setup();
    const c = await createChannel(srv.url, s.owner, s.server.id, 'old-name');
    const r = await call(srv.url, 'PATCH', `/channels/${c.id}`, { auth: s.owner.auth, body: { name: 'new-name' } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: c.id, serverId: s.server.id, name: 'new-name' });
    expectError(await call(srv.url, 'PATCH', `/channels/${c.id}`, { auth: s.member.auth, body: { name: 'hijack' } }), 403);
    expectError(await call(srv.url, 'PATCH', `/channels/${c.id}`, { auth: s.bot.auth, body: { name: 'hijack' } }), 403);
    expectError(await call(srv.url, 'PATCH', `/channels/${c.id}`, { auth: s.stranger.auth, body: { name: 'hijack' } }), 403);
    expectError(await call(srv.url, 'PATCH', `/channels/${UNKNOWN_ID}`, { auth: s.owner.auth, body: { name: 'x' } }), 404);
    expectError(await call(srv.url, 'PATCH', `/channels/${c.id}`, { auth: s.owner.auth, body: { name: '' } }), 400);
    expectError(await call(srv.url, 'PATCH', `/channels/${c.id}`, { auth: s.owner.auth, body: { title: 'x' } }), 400);
    const names = (await call(srv.url, 'GET', `/servers/${s.server.id}/channels`, { auth: s.owner.auth })).body.map(
      (x: { name: string }) => x.name,
    );
    expect(names).toEqual(['general', 'new-name']);
  });

  it('DELETE /channels/{id}: owner 204 and the channel is gone; member 403; unknown 404', async () => {
    const s = await setup();
    const c = await createChannel(srv.url, s.owner, s.server.id, 'doomed');
    await postMessage(srv.url, s.owner.auth, c.id, 'last words');
    expectError(await call(srv.url, 'DELETE', `/channels/${c.id}`, { auth: s.member.auth }), 403);
    expectError(await call(srv.url, 'DELETE', `/channels/${c.id}`, { auth: s.bot.auth }), 403);
    const r = await call(srv.url, 'DELETE', `/channels/${c.id}`, { auth: s.owner.auth });
    expect(r.status).toBe(204);
    expect(r.text).toBe('');
    expectError(await call(srv.url, 'GET', `/channels/${c.id}/messages`, { auth: s.owner.auth }), 404);
    expectError(await call(srv.url, 'POST', `/channels/${c.id}/messages`, { auth: s.bot.auth, body: { content: 'x' } }), 404);
    expectError(await call(srv.url, 'DELETE', `/channels/${c.id}`, { auth: s.owner.auth }), 404);
    expectError(await call(srv.url, 'DELETE', `/channels/${UNKNOWN_ID}`, { auth: s.owner.auth }), 404);
    const names = (await call(srv.url, 'GET', `/servers/${s.server.id}/channels`, { auth: s.owner.auth })).body.map(
      (x: { name: string }) => x.name,
    );
    expect(names).toEqual(['general']);
  });
});

describe('invites', () => {
  it('POST /servers/{id}/invites: 201 {code}; POST /invites/{code}: 200 the server and the caller is a member', async () => {
    const s = await setup();
    const inv = await call(srv.url, 'POST', `/servers/${s.server.id}/invites`, { auth: s.owner.auth });
    expect(inv.status, inv.text).toBe(201);
    expect(inv.body.code).toMatch(/^[A-Za-z0-9_-]{6,64}$/);
    expectError(await call(srv.url, 'GET', `/servers/${s.server.id}`, { auth: s.stranger.auth }), 403);
    const join = await call(srv.url, 'POST', `/invites/${inv.body.code}`, { auth: s.stranger.auth });
    expect(join.status, join.text).toBe(200);
    expect(join.body).toMatchObject({ id: s.server.id, name: s.server.name, ownerId: s.owner.id });
    expect((await call(srv.url, 'GET', `/servers/${s.server.id}`, { auth: s.stranger.auth })).status).toBe(200);
    const members = await call(srv.url, 'GET', `/servers/${s.server.id}/members`, { auth: s.stranger.auth });
    expect(members.body.map((m: { id: string }) => m.id)).toContain(s.stranger.id);
    // Joining twice is harmless: still one membership.
    expect((await call(srv.url, 'POST', `/invites/${inv.body.code}`, { auth: s.stranger.auth })).status).toBe(200);
    const again = await call(srv.url, 'GET', `/servers/${s.server.id}/members`, { auth: s.stranger.auth });
    expect(again.body.filter((m: { id: string }) => m.id === s.stranger.id)).toHaveLength(1);
  });

  it('GET /servers/{id}/invites lists them for the owner; DELETE /invites/{code} 204 then joining is 404', async () => {
    const s = await setup();
    const a = (await call(srv.url, 'POST', `/servers/${s.server.id}/invites`, { auth: s.owner.auth })).body.code;
    const b = (await call(srv.url, 'POST', `/servers/${s.server.id}/invites`, { auth: s.owner.auth })).body.code;
    const list = await call(srv.url, 'GET', `/servers/${s.server.id}/invites`, { auth: s.owner.auth });
    expect(list.status).toBe(200);
    const codes = list.body.map((i: { code: string }) => i.code);
    expect(codes).toContain(a);
    expect(codes).toContain(b);
    for (const i of list.body) expect(i.serverId).toBe(s.server.id);
    expectError(await call(srv.url, 'DELETE', `/invites/${a}`, { auth: s.member.auth }), 403);
    const del = await call(srv.url, 'DELETE', `/invites/${a}`, { auth: s.owner.auth });
    expect(del.status).toBe(204);
    expectError(await call(srv.url, 'POST', `/invites/${a}`, { auth: s.stranger.auth }), 404);
    expectError(await call(srv.url, 'GET', `/servers/${s.server.id}`, { auth: s.stranger.auth }), 403);
    expectError(await call(srv.url, 'DELETE', `/invites/${a}`, { auth: s.owner.auth }), 404);
    const after = await call(srv.url, 'GET', `/servers/${s.server.id}/invites`, { auth: s.owner.auth });
    expect(after.body.map((i: { code: string }) => i.code)).toEqual(codes.filter((c: string) => c !== a));
  });

  it('invites: a member may create (CREATE_INVITE is in @everyone) but not list; a bot without it cannot create; unknown code 404; bots cannot join (403); no token 401', async () => {
    const s = await setup();
    expect((await call(srv.url, 'POST', `/servers/${s.server.id}/invites`, { auth: s.member.auth })).status).toBe(201);
    expectError(await call(srv.url, 'POST', `/servers/${s.server.id}/invites`, { auth: s.bot.auth }), 403);
    expectError(await call(srv.url, 'GET', `/servers/${s.server.id}/invites`, { auth: s.member.auth }), 403);
    expectError(await call(srv.url, 'POST', `/servers/${UNKNOWN_ID}/invites`, { auth: s.owner.auth }), 404);
    expectError(await call(srv.url, 'POST', '/invites/doesnotexist', { auth: s.stranger.auth }), 404);
    expectError(await call(srv.url, 'POST', '/invites/a%00b', { auth: s.stranger.auth }), 404);
    expectError(await call(srv.url, 'DELETE', '/invites/a%00b', { auth: s.owner.auth }), 404);
    expectError(await call(srv.url, 'POST', '/invites/has%20space', { auth: s.stranger.auth }), 404);
    const code = (await call(srv.url, 'POST', `/servers/${s.server.id}/invites`, { auth: s.owner.auth })).body.code;
    const otherBot = await createBot(srv.url, s.stranger);
    expectError(await call(srv.url, 'POST', `/invites/${code}`, { auth: otherBot.auth }), 403);
    expectError(await call(srv.url, 'GET', `/servers/${s.server.id}`, { auth: otherBot.auth }), 403);
    expectError(await call(srv.url, 'POST', `/invites/${code}`), 401);
  });
});

describe('invite codes resist guessing', () => {
  it('new codes carry 12 random bytes (16 base64url characters), all different', async () => {
    const s = await setup();
    const codes = new Set<string>();
    for (let i = 0; i < 20; i++) {
      const inv = await call(srv.url, 'POST', `/servers/${s.server.id}/invites`, { auth: s.owner.auth });
      expect(inv.status).toBe(201);
      expect(inv.body.code).toMatch(/^[A-Za-z0-9_-]{16}$/);
      expect(Buffer.from(inv.body.code, 'base64url')).toHaveLength(12);
      codes.add(inv.body.code);
    }
    expect(codes.size).toBe(20);
  });

  it('an old 8-character code keeps working', async () => {
    const s = await setup();
    const code = 'Ab3_x-9Z';
    await srv.app.ctx.store.write((tx) =>
      tx
        .insertInto('invites')
        .values({ code, serverId: s.server.id, createdBy: s.owner.id, createdAt: new Date().toISOString() })
        .execute(),
    );
    const join = await call(srv.url, 'POST', `/invites/${code}`, { auth: s.stranger.auth });
    expect(join.status, join.text).toBe(200);
    expect(join.body.id).toBe(s.server.id);
    const list = await call(srv.url, 'GET', `/servers/${s.server.id}/invites`, { auth: s.owner.auth });
    expect(list.body.map((i: { code: string }) => i.code)).toContain(code);
  });

  describe('POST /invites/{code} is rate limited', () => {
    let limited: TestServer;
    let address = 0;
    const from = () => ({ 'x-forwarded-for': `10.2.${Math.floor(address / 250)}.${(address++ % 250) + 1}` });
    const person = async (): Promise<TestUser> => {
      const username = `inv_${Date.now().toString(36)}_${address}`;
      const r = await call(limited.url, 'POST', '/auth/register', {
        body: { username, password: 'correct horse battery' },
        headers: from(),
      });
      expect(r.status, r.text).toBe(201);
      return { id: r.body.user.id, name: username, token: r.body.token, auth: `Bearer ${r.body.token}` };
    };
    const guess = (auth: string | undefined, code: string, headers = from()) =>
      call(limited.url, 'POST', `/invites/${code}`, { ...(auth ? { auth } : {}), headers });

    beforeAll(async () => {
      limited = await startServer({ env: { RATE_LIMITS: 'on', TRUST_PROXY: 'true' } });
    });
    afterAll(() => limited?.close());

    it('per caller: 10 a minute, from any number of addresses; the 11th is 429 even with a valid code', async () => {
      const owner = await person();
      const guesser = await person();
      const { server } = await createServer(limited.url, owner, 'Guarded');
      const code = (await call(limited.url, 'POST', `/servers/${server.id}/invites`, { auth: owner.auth })).body.code;
      for (let i = 0; i < 10; i++) expectError(await guess(guesser.auth, `guess${i}`), 404);
      expectRateLimited(await guess(guesser.auth, code), 10, 60);
      expectError(await call(limited.url, 'GET', `/servers/${server.id}`, { auth: guesser.auth }), 403);
      // Someone else is not held back by the guesser.
      const other = await person();
      expect((await guess(other.auth, code)).status).toBe(200);
    });

    it('per address: 30 a minute, whoever asks (even without a token); the 31st is 429', async () => {
      const owner = await person();
      const joiner = await person();
      const { server } = await createServer(limited.url, owner, 'Crowded');
      const code = (await call(limited.url, 'POST', `/servers/${server.id}/invites`, { auth: owner.auth })).body.code;
      const shared = { 'x-forwarded-for': '10.99.0.1' };
      for (let i = 0; i < 30; i++) expectError(await guess(undefined, `guess${i}`, shared), 401);
      expectRateLimited(await guess(joiner.auth, code, shared), 30, 60);
      expectError(await call(limited.url, 'GET', `/servers/${server.id}`, { auth: joiner.auth }), 403);
      expect((await guess(joiner.auth, code)).status).toBe(200);
    });
  });
});

describe('members', () => {
  it('GET /servers/{id}/members: users and bots, each with bot true/false; 403 for non-members', async () => {
    const s = await setup();
    const r = await call(srv.url, 'GET', `/servers/${s.server.id}/members`, { auth: s.member.auth });
    expect(r.status).toBe(200);
    const byId = new Map(r.body.map((m: { id: string }) => [m.id, m]));
    expect(byId.size).toBe(3);
    expect(byId.get(s.owner.id)).toMatchObject({ id: s.owner.id, name: s.owner.name, bot: false });
    expect(byId.get(s.member.id)).toMatchObject({ id: s.member.id, name: s.member.name, bot: false });
    expect(byId.get(s.bot.id)).toMatchObject({ id: s.bot.id, name: s.bot.name, bot: true, permissions: ALL });
    expect(r.text).not.toContain(s.bot.token.split('.')[1]);
    expect((await call(srv.url, 'GET', `/servers/${s.server.id}/members`, { auth: s.bot.auth })).status).toBe(200);
    expectError(await call(srv.url, 'GET', `/servers/${s.server.id}/members`, { auth: s.stranger.auth }), 403);
    expectError(await call(srv.url, 'GET', `/servers/${UNKNOWN_ID}/members`, { auth: s.owner.auth }), 404);
  });
});

describe('bot membership', () => {
  async function fresh() {
    const owner = await registerUser(srv.url);
    const { server, general } = await createServer(srv.url, owner);
    const bot = await createBot(srv.url, owner);
    return { owner, server, general, bot };
  }
  const permsOf = async (owner: TestUser, serverId: string, botId: string) =>
    (await call(srv.url, 'GET', `/servers/${serverId}/members`, { auth: owner.auth })).body.find((m: { id: string }) => m.id === botId)
      ?.permissions;

  it('POST /servers/{id}/bots without permissions: 201, all four permissions, the bot can act', async () => {
    const { owner, server, general, bot } = await fresh();
    expectError(await call(srv.url, 'POST', `/channels/${general.id}/messages`, { auth: bot.auth, body: { content: 'early' } }), 403);
    const r = await call(srv.url, 'POST', `/servers/${server.id}/bots`, { auth: owner.auth, body: { botId: bot.id } });
    expect(r.status, r.text).toBe(201);
    expect(r.body).toMatchObject({ id: bot.id, bot: true, permissions: ALL });
    expect(await permsOf(owner, server.id, bot.id)).toEqual(ALL);
    expect((await call(srv.url, 'POST', `/channels/${general.id}/messages`, { auth: bot.auth, body: { content: 'hi' } })).status).toBe(201);
    expect((await call(srv.url, 'GET', `/channels/${general.id}/messages`, { auth: bot.auth })).status).toBe(200);
  });

  it('POST /servers/{id}/bots with permissions: exactly those', async () => {
    const { owner, server, general, bot } = await fresh();
    const r = await call(srv.url, 'POST', `/servers/${server.id}/bots`, {
      auth: owner.auth,
      body: { botId: bot.id, permissions: ['READ_MESSAGES'] },
    });
    expect(r.status).toBe(201);
    expect(r.body.permissions).toEqual(['READ_MESSAGES']);
    expect((await call(srv.url, 'GET', `/channels/${general.id}/messages`, { auth: bot.auth })).status).toBe(200);
    expectError(await call(srv.url, 'POST', `/channels/${general.id}/messages`, { auth: bot.auth, body: { content: 'x' } }), 403);
  });

  it('PATCH /servers/{id}/bots/{botId}: 200 with the new permissions, which take effect at once', async () => {
    const { owner, server, general, bot } = await fresh();
    await addBot(srv.url, owner, server.id, bot.id);
    const r = await call(srv.url, 'PATCH', `/servers/${server.id}/bots/${bot.id}`, {
      auth: owner.auth,
      body: { permissions: ['READ_MESSAGES'] },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ id: bot.id, permissions: ['READ_MESSAGES'] });
    expect(await permsOf(owner, server.id, bot.id)).toEqual(['READ_MESSAGES']);
    expectError(await call(srv.url, 'POST', `/channels/${general.id}/messages`, { auth: bot.auth, body: { content: 'x' } }), 403);
    const back = await call(srv.url, 'PATCH', `/servers/${server.id}/bots/${bot.id}`, {
      auth: owner.auth,
      body: { permissions: ['SEND_MESSAGES', 'READ_MESSAGES'] },
    });
    expect(back.body.permissions).toEqual(['READ_MESSAGES', 'SEND_MESSAGES']);
    expect((await call(srv.url, 'POST', `/channels/${general.id}/messages`, { auth: bot.auth, body: { content: 'x' } })).status).toBe(201);
    const none = await call(srv.url, 'PATCH', `/servers/${server.id}/bots/${bot.id}`, { auth: owner.auth, body: { permissions: [] } });
    expect(none.status).toBe(200);
    expect(none.body.permissions).toEqual([]);
    expectError(await call(srv.url, 'GET', `/channels/${general.id}/messages`, { auth: bot.auth }), 403);
  });

  it('DELETE /servers/{id}/bots/{botId}: 204, then the bot gets 403', async () => {
    const { owner, server, general, bot } = await fresh();
    await addBot(srv.url, owner, server.id, bot.id);
    const r = await call(srv.url, 'DELETE', `/servers/${server.id}/bots/${bot.id}`, { auth: owner.auth });
    expect(r.status).toBe(204);
    expect(r.text).toBe('');
    expectError(
      await call(srv.url, 'POST', `/channels/${general.id}/messages`, { auth: bot.auth, body: { content: 'x' } }),
      403,
      /not a member/,
    );
    expectError(await call(srv.url, 'GET', `/channels/${general.id}/messages`, { auth: bot.auth }), 403);
    expectError(await call(srv.url, 'GET', `/servers/${server.id}`, { auth: bot.auth }), 403);
    expect(await permsOf(owner, server.id, bot.id)).toBeUndefined();
    expectError(await call(srv.url, 'DELETE', `/servers/${server.id}/bots/${bot.id}`, { auth: owner.auth }), 404);
    // It can be added again afterwards.
    expect((await call(srv.url, 'POST', `/servers/${server.id}/bots`, { auth: owner.auth, body: { botId: bot.id } })).status).toBe(201);
  });

  it('re-adding a bot that is already a member: 409, permissions unchanged', async () => {
    const { owner, server, bot } = await fresh();
    await addBot(srv.url, owner, server.id, bot.id, ['READ_MESSAGES']);
    expectError(await call(srv.url, 'POST', `/servers/${server.id}/bots`, { auth: owner.auth, body: { botId: bot.id } }), 409);
    expect(await permsOf(owner, server.id, bot.id)).toEqual(['READ_MESSAGES']);
  });

  it('non-owner: 403 on add, patch and remove; the bot is unaffected', async () => {
    const { owner, server, bot } = await fresh();
    const member = await registerUser(srv.url);
    await joinServer(srv.url, owner, member, server.id);
    const other = await createBot(srv.url, member);
    expectError(await call(srv.url, 'POST', `/servers/${server.id}/bots`, { auth: member.auth, body: { botId: other.id } }), 403);
    await addBot(srv.url, owner, server.id, bot.id);
    expectError(
      await call(srv.url, 'PATCH', `/servers/${server.id}/bots/${bot.id}`, { auth: member.auth, body: { permissions: [] } }),
      403,
    );
    expectError(await call(srv.url, 'DELETE', `/servers/${server.id}/bots/${bot.id}`, { auth: member.auth }), 403);
    // A bot cannot manage bots either, not even itself.
    expectError(await call(srv.url, 'PATCH', `/servers/${server.id}/bots/${bot.id}`, { auth: bot.auth, body: { permissions: [] } }), 403);
    expectError(await call(srv.url, 'DELETE', `/servers/${server.id}/bots/${bot.id}`, { auth: bot.auth }), 403);
    expect(await permsOf(owner, server.id, bot.id)).toEqual(ALL);
    expect(await permsOf(owner, server.id, other.id)).toBeUndefined();
  });

  it('someone else’s bot: 403 unless its owner made it public; the bot hears nothing of the server', async () => {
    const { owner, server, general } = await fresh();
    const botOwner = await registerUser(srv.url);
    const theirs = await createBot(srv.url, botOwner, 'Not yours');
    const add = (botId: string) => call(srv.url, 'POST', `/servers/${server.id}/bots`, { auth: owner.auth, body: { botId } });

    expectError(await add(theirs.id), 403, /owner|public/);
    expect(await permsOf(owner, server.id, theirs.id)).toBeUndefined();
    expectError(await call(srv.url, 'GET', `/channels/${general.id}/messages`, { auth: theirs.auth }), 403);
    expectError(await call(srv.url, 'GET', `/servers/${server.id}`, { auth: theirs.auth }), 403);

    // Its owner makes it public: now anyone who owns a server may add it.
    const pub = await call(srv.url, 'PATCH', `/bots/${theirs.id}`, { auth: botOwner.auth, body: { public: true } });
    expect(pub.status, pub.text).toBe(200);
    const added = await add(theirs.id);
    expect(added.status, added.text).toBe(201);
    expect(added.body).toMatchObject({ id: theirs.id, ownerId: botOwner.id, permissions: ALL });
    expect((await call(srv.url, 'GET', `/channels/${general.id}/messages`, { auth: theirs.auth })).status).toBe(200);

    // Private again: servers that already have it keep it, new ones cannot add it.
    await call(srv.url, 'PATCH', `/bots/${theirs.id}`, { auth: botOwner.auth, body: { public: false } });
    expect(await permsOf(owner, server.id, theirs.id)).toEqual(ALL);
    const { server: another } = await createServer(srv.url, owner, 'Another');
    expectError(await call(srv.url, 'POST', `/servers/${another.id}/bots`, { auth: owner.auth, body: { botId: theirs.id } }), 403);
    // Its owner still may.
    const { server: ownersOwn } = await createServer(srv.url, botOwner, 'Own');
    expect((await call(srv.url, 'POST', `/servers/${ownersOwn.id}/bots`, { auth: botOwner.auth, body: { botId: theirs.id } })).status).toBe(
      201,
    );
  });

  it('unknown bot: 404 on add, patch and remove; a person is not a bot', async () => {
    const { owner, server, bot } = await fresh();
    const person = await registerUser(srv.url);
    for (const botId of [UNKNOWN_ID, 'garbage', person.id]) {
      expectError(await call(srv.url, 'POST', `/servers/${server.id}/bots`, { auth: owner.auth, body: { botId } }), 404);
      expectError(
        await call(srv.url, 'PATCH', `/servers/${server.id}/bots/${botId}`, { auth: owner.auth, body: { permissions: [] } }),
        404,
      );
      expectError(await call(srv.url, 'DELETE', `/servers/${server.id}/bots/${botId}`, { auth: owner.auth }), 404);
    }
    // A real bot that is not a member: patch and remove are 404 too.
    expectError(await call(srv.url, 'PATCH', `/servers/${server.id}/bots/${bot.id}`, { auth: owner.auth, body: { permissions: [] } }), 404);
    expectError(await call(srv.url, 'DELETE', `/servers/${server.id}/bots/${bot.id}`, { auth: owner.auth }), 404);
    expectError(await call(srv.url, 'POST', `/servers/${UNKNOWN_ID}/bots`, { auth: owner.auth, body: { botId: bot.id } }), 404);
  });

  it('invalid permissions: 400 on add and patch', async () => {
    const { owner, server, bot } = await fresh();
    for (const permissions of [['ADMINISTRATOR'], ['read_messages'], 'READ_MESSAGES', [1], ['READ_MESSAGES', 'READ_MESSAGES']]) {
      expectError(
        await call(srv.url, 'POST', `/servers/${server.id}/bots`, { auth: owner.auth, body: { botId: bot.id, permissions } }),
        400,
      );
    }
    expectError(await call(srv.url, 'POST', `/servers/${server.id}/bots`, { auth: owner.auth, body: {} }), 400);
    expect(await permsOf(owner, server.id, bot.id)).toBeUndefined();
    await addBot(srv.url, owner, server.id, bot.id, ['SEND_MESSAGES']);
    expectError(
      await call(srv.url, 'PATCH', `/servers/${server.id}/bots/${bot.id}`, { auth: owner.auth, body: { permissions: ['KICK_MEMBERS'] } }),
      400,
    );
    expectError(await call(srv.url, 'PATCH', `/servers/${server.id}/bots/${bot.id}`, { auth: owner.auth, body: {} }), 400);
    expect(await permsOf(owner, server.id, bot.id)).toEqual(['SEND_MESSAGES']);
  });
});
