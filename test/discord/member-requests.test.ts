// Discord's Request Guild Members (gateway op 8, answered with GUILD_MEMBERS_CHUNK) and
// member search (`GET /guilds/{id}/members/search`), through discord.js and raw frames
// (issue 36 item 5). Membership is all they need, as the member list; a bot asking about a
// server it is not in gets nothing, and the whole list needs the GUILD_MEMBERS intent.
import type { Client } from 'discord.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { addBot, call, createBot, createServer, joinServer, registerUser, type TestUser, world } from '../factories.js';
import { startServer, type TestServer } from '../harness.js';
import { ClientPool } from '../gateway/client.js';
import { login as djsLogin } from './djs.js';
import { ALL_MESSAGES, I, connectDiscord, identifyDiscord } from './helpers.js';

let srv: TestServer;
const pool = new ClientPool();
const clients: Client[] = [];

beforeAll(async () => {
  srv = await startServer({ env: { GATEWAY_HEARTBEAT_MS: '5000', RATE_LIMITS: 'off' } });
});
afterEach(async () => {
  await pool.closeAll();
  for (const c of clients.splice(0)) await c.destroy();
});
afterAll(() => srv?.close());

const tag = () => Math.random().toString(36).slice(2, 7);

/** A server with its owner, a bot, and three people: two whose names start with "al" and one not. */
async function populated() {
  const w = await world(srv.url);
  const t = tag();
  const people: TestUser[] = [];
  for (const name of [`al${t}x`, `Alb${t}`, `bo${t}`]) {
    const u = await registerUser(srv.url, name);
    await joinServer(srv.url, w.owner, u, w.server.id);
    people.push(u);
  }
  return { ...w, alice: people[0]!, alba: people[1]!, bob: people[2]! };
}

describe('Request Guild Members through discord.js', () => {
  it('guild.members.fetch() gets every member', async () => {
    const w = await populated();
    const client = await djsLogin(srv, clients, w.bot.token);
    const guild = client.guilds.cache.get(w.server.id)!;
    guild.members.cache.clear();
    const all = await guild.members.fetch();
    expect([...all.keys()].sort()).toEqual([w.owner.id, w.bot.id, w.alice.id, w.alba.id, w.bob.id].sort());
    expect(all.get(w.alice.id)!.user.username).toBe(w.alice.name);
  });

  it("guild.members.fetch({ query: 'al', limit: 5 }) gets those whose name starts with it, ignoring case", async () => {
    const w = await populated();
    const client = await djsLogin(srv, clients, w.bot.token);
    const guild = client.guilds.cache.get(w.server.id)!;
    const found = await guild.members.fetch({ query: 'al', limit: 5 });
    expect([...found.keys()].sort()).toEqual([w.alice.id, w.alba.id].sort());
    const one = await guild.members.fetch({ query: 'AL', limit: 1 });
    expect(one.size).toBe(1);
  });

  it('guild.members.fetch({ user: [id1, id2] }) gets those members', async () => {
    const w = await populated();
    const client = await djsLogin(srv, clients, w.bot.token);
    const guild = client.guilds.cache.get(w.server.id)!;
    guild.members.cache.clear();
    const found = await guild.members.fetch({ user: [w.alice.id, w.bob.id] });
    expect([...found.keys()].sort()).toEqual([w.alice.id, w.bob.id].sort());
  });

  it('guild.members.search({ query }) answers through GET /guilds/{id}/members/search', async () => {
    const w = await populated();
    const client = await djsLogin(srv, clients, w.bot.token);
    const guild = client.guilds.cache.get(w.server.id)!;
    const found = await guild.members.search({ query: 'al', limit: 10 });
    expect([...found.keys()].sort()).toEqual([w.alice.id, w.alba.id].sort());
    const none = await guild.members.search({ query: 'zz-nobody' });
    expect(none.size).toBe(0);
  });
});

describe('Request Guild Members, frame by frame', () => {
  it('answers user_ids with the members found, not_found and the nonce', async () => {
    const w = await populated();
    const c = await identifyDiscord(pool, srv, w.bot.token, I.GUILDS);
    const stranger = await registerUser(srv.url);
    c.send({ op: 8, d: { guild_id: w.server.id, user_ids: [w.alice.id, stranger.id], nonce: 'n-1' } });
    const chunk = await c.waitForEvent('GUILD_MEMBERS_CHUNK');
    expect(chunk.op).toBe(0);
    expect(chunk.d).toMatchObject({ guild_id: w.server.id, chunk_index: 0, chunk_count: 1, not_found: [stranger.id], nonce: 'n-1' });
    expect(chunk.d.members.map((m: { user: { id: string } }) => m.user.id)).toEqual([w.alice.id]);
    expect(chunk.d.members[0]).toMatchObject({
      user: { id: w.alice.id, username: w.alice.name },
      roles: [],
      joined_at: expect.any(String),
    });
    expect(chunk.d.presences).toBeUndefined();
  });

  it('answers a query with at most limit members; presences only with GUILD_PRESENCES', async () => {
    const w = await populated();
    const c = await identifyDiscord(pool, srv, w.bot.token, I.GUILDS | (1 << 8));
    c.send({ op: 8, d: { guild_id: [w.server.id], query: 'al', limit: 1, presences: true, nonce: 'q' } });
    const chunk = await c.waitForEvent('GUILD_MEMBERS_CHUNK', (d) => d.nonce === 'q');
    expect(chunk.d.members).toHaveLength(1);
    expect(chunk.d.presences).toHaveLength(1);
    expect(chunk.d.presences[0]).toMatchObject({ user: { id: chunk.d.members[0].user.id }, status: expect.any(String) });
  });

  it('answers nothing for the whole list without GUILD_MEMBERS, nor for a server the bot is not in', async () => {
    const w = await populated();
    const elsewhere = await createServer(srv.url, w.owner, 'Elsewhere');
    const c = await identifyDiscord(pool, srv, w.bot.token, I.GUILDS | I.GUILD_MESSAGES);
    c.send({ op: 8, d: { guild_id: w.server.id, query: '', limit: 0, nonce: 'all' } });
    c.send({ op: 8, d: { guild_id: elsewhere.server.id, query: '', limit: 10, nonce: 'other' } });
    c.send({ op: 8, d: { guild_id: elsewhere.server.id, user_ids: [w.owner.id], nonce: 'other-ids' } });
    // A request that is answered, after them: the connection handles frames in order.
    c.send({ op: 8, d: { guild_id: w.server.id, query: '', limit: 2, nonce: 'sync' } });
    const sync = await c.waitForEvent('GUILD_MEMBERS_CHUNK', (d) => d.nonce === 'sync');
    expect(sync.d.members).toHaveLength(2);
    expect(c.events('GUILD_MEMBERS_CHUNK').map((f) => f.d.nonce)).toEqual(['sync']);
    expect(JSON.stringify(c.frames)).not.toContain(elsewhere.server.id);
  });

  it("closes with 4008 past Discord's 120 payloads a minute; heartbeats are not counted", async () => {
    const w = await world(srv.url);
    const c = await identifyDiscord(pool, srv, w.bot.token, ALL_MESSAGES);
    // 200 heartbeats: each acknowledged, the connection stays open.
    for (let i = 0; i < 200; i++) c.send({ op: 1, d: null });
    c.send({ op: 8, d: { guild_id: w.server.id, query: '', limit: 1, nonce: 'after-heartbeats' } });
    await c.waitForEvent('GUILD_MEMBERS_CHUNK', (d) => d.nonce === 'after-heartbeats');
    expect(c.frames.filter((f) => f.op === 11).length).toBeGreaterThanOrEqual(200);
    // identify and the request above are 2; 118 more reach the limit, the next one is over it.
    for (let i = 0; i < 119; i++) c.send({ op: 8, d: { guild_id: w.server.id, query: 'zz-none', limit: 1 } });
    expect((await c.closed).code).toBe(4008);
  });

  it('closes with 4002 on a malformed request and 4003 before identify', async () => {
    const w = await world(srv.url);
    const c = await identifyDiscord(pool, srv, w.bot.token, ALL_MESSAGES);
    c.send({ op: 8, d: { guild_id: w.server.id } });
    expect((await c.closed).code).toBe(4002);
    const bot = await createBot(srv.url, w.owner);
    await addBot(srv.url, w.owner, w.server.id, bot.id);
    const early = await connectDiscord(pool, srv);
    early.send({ op: 8, d: { guild_id: w.server.id, query: '', limit: 1 } });
    expect((await early.closed).code).toBe(4003);
  });
});

describe('GET /api/v10/guilds/{id}/members/search', () => {
  it('returns member objects whose name starts with the query, limit 1 by default and 1 to 1000', async () => {
    const w = await populated();
    const auth = `Bot ${w.bot.token}`;
    const base = `/api/v10/guilds/${w.server.id}/members/search`;
    const one = await call(srv.url, 'GET', `${base}?query=al`, { auth });
    expect(one.status, one.text).toBe(200);
    expect(one.body).toHaveLength(1);
    const two = await call(srv.url, 'GET', `${base}?query=AL&limit=1000`, { auth });
    expect(two.body.map((m: { user: { id: string } }) => m.user.id).sort()).toEqual([w.alice.id, w.alba.id].sort());
    expect(two.body[0]).toMatchObject({ user: { id: expect.any(String) }, roles: [], joined_at: expect.any(String) });
    for (const bad of ['?query=al&limit=0', '?query=al&limit=1001', '']) {
      const r = await call(srv.url, 'GET', `${base}${bad}`, { auth });
      expect(r.status, bad).toBe(400);
      expect(typeof r.body.code).toBe('number');
    }
  });

  it('refuses a bot that is not in the server as the member list does', async () => {
    const w = await populated();
    const stranger = await registerUser(srv.url);
    const other = await createServer(srv.url, stranger, 'Other');
    const bot = await createBot(srv.url, stranger);
    await addBot(srv.url, stranger, other.server.id, bot.id);
    const r = await call(srv.url, 'GET', `/api/v10/guilds/${w.server.id}/members/search?query=al&limit=10`, { auth: bot.auth });
    const list = await call(srv.url, 'GET', `/api/v10/guilds/${w.server.id}/members?limit=10`, { auth: bot.auth });
    expect(r.status).toBe(list.status);
    expect(r.body.code).toBe(list.body.code);
    expect(r.text).not.toContain(w.alice.id);
  });
});

/**
 * `count` more people in `serverId`, written through the store: registering each would take
 * minutes of password hashing. Their names start with `crowd`.
 */
async function crowd(serverId: string, count: number): Promise<string[]> {
  const { store } = srv.app.ctx;
  const at = new Date().toISOString();
  const ids: string[] = [];
  await store.write(async (tx) => {
    for (let i = 0; i < count; i++) {
      const id = store.ids.next();
      ids.push(id);
      await store.users.insert(tx, {
        id,
        username: `crowd${id}`,
        usernameKey: `crowd${id}`,
        name: `crowd ${i}`,
        bot: 0,
        ownerId: null,
        passwordHash: null,
        tokenHash: null,
        avatar: null,
        createdAt: at,
      });
      await store.members.insert(tx, { serverId, userId: id, joinedAt: at });
    }
  });
  return ids;
}

describe('Large servers: members on request, not in GUILD_CREATE', () => {
  it("a server over identify's large_threshold (50 by default) lists only the bot; under it, every member", async () => {
    const w = await world(srv.url);
    await crowd(w.server.id, 60);
    const identify = async (extra: Record<string, unknown>) => {
      const c = await connectDiscord(pool, srv);
      c.send({ op: 2, d: { token: w.bot.token, intents: I.GUILDS | I.GUILD_MEMBERS, properties: {}, ...extra } });
      return (await c.waitForEvent('GUILD_CREATE')).d;
    };
    const byDefault = await identify({});
    expect(byDefault).toMatchObject({ id: w.server.id, large: true, member_count: 62 });
    expect(byDefault.members.map((m: { user: { id: string } }) => m.user.id)).toEqual([w.bot.id]);
    const raised = await identify({ large_threshold: 100 });
    expect(raised).toMatchObject({ large: false, member_count: 62 });
    expect(raised.members).toHaveLength(62);
    // Discord's range is 50 to 250: a larger value is taken as 250, a smaller one as 50.
    expect((await identify({ large_threshold: 10 })).members).toHaveLength(1);
  });

  it('discord.js gets only itself in a large guild, then every member with guild.members.fetch() (op 8)', async () => {
    const w = await world(srv.url);
    const crowded = await crowd(w.server.id, 60);
    const client = await djsLogin(srv, clients, w.bot.token);
    const guild = client.guilds.cache.get(w.server.id)!;
    expect(guild.large).toBe(true);
    expect(guild.memberCount).toBe(62);
    expect([...guild.members.cache.keys()]).toEqual([w.bot.id]);
    const all = await guild.members.fetch();
    expect([...all.keys()].sort()).toEqual([w.owner.id, w.bot.id, ...crowded].sort());
  });

  it('op 8 answers the whole list of a large server in chunks of at most 1000', async () => {
    const w = await world(srv.url);
    const crowded = await crowd(w.server.id, 1100);
    const c = await identifyDiscord(pool, srv, w.bot.token, I.GUILDS | I.GUILD_MEMBERS);
    expect(c.events('GUILD_CREATE')[0]!.d.members).toHaveLength(1);
    c.send({ op: 8, d: { guild_id: w.server.id, query: '', limit: 0, nonce: 'all' } });
    const chunks = await c.collect(2, (f) => f.t === 'GUILD_MEMBERS_CHUNK');
    expect(chunks.map((f) => [f.d.chunk_index, f.d.chunk_count, f.d.members.length, f.d.nonce])).toEqual([
      [0, 2, 1000, 'all'],
      [1, 2, 102, 'all'],
    ]);
    const ids = chunks.flatMap((f) => f.d.members.map((m: { user: { id: string } }) => m.user.id));
    expect(ids.sort()).toEqual([w.owner.id, w.bot.id, ...crowded].sort());
  });
});
