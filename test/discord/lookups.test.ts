/**
 * Pages and lookups of the Discord layer (docs/discord.md, "Routes"), through
 * @discordjs/rest as a bot calls them and raw where the answer's details matter: the
 * member list paged with `after`/`limit` over more members than a page, a guild list paged
 * the same way, one role and one ban by id (404 10011 and 10026 for anything else), and
 * who may manage commands decided before their body is read.
 */
import { DiscordAPIError, REST } from '@discordjs/rest';
import { type APIGuildMember, type APIRole, Routes } from 'discord-api-types/v10';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { addBot, call, createBot, createServer, joinServer, registerUser, type TestUser, world } from '../factories.js';
import { ClientPool } from '../gateway/client.js';
import { type TestServer, startServer } from '../harness.js';
import { ALL_MESSAGES, identifyDiscord } from './helpers.js';

let srv: TestServer;
const pool = new ClientPool();

beforeAll(async () => {
  srv = await startServer({ env: { RATE_LIMITS: 'off' } });
});
afterEach(() => pool.closeAll());
afterAll(() => srv?.close());

const restFor = (token: string, authPrefix: 'Bot' | 'Bearer' = 'Bot') =>
  new REST({ api: `${srv.url}/api`, version: '10', authPrefix, retries: 0 }).setToken(token);

/** A failed call as discord.js sees it: status and Discord's code. */
async function failure(p: Promise<unknown>): Promise<{ status: number; code: number | string }> {
  try {
    await p;
  } catch (err) {
    if (err instanceof DiscordAPIError) return { status: err.status, code: err.code };
    throw err;
  }
  throw new Error('the call succeeded');
}

const byNumber = (a: string, b: string) => (BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0);

describe('GET /guilds/{id}/members pages by user id', () => {
  it('walks 13 members 5 at a time with after, each page ascending and after the last, as discord.js pages them', async () => {
    const w = await world(srv.url);
    const people: TestUser[] = [];
    for (let i = 0; i < 11; i++) {
      const u = await registerUser(srv.url);
      await joinServer(srv.url, w.owner, u, w.server.id);
      people.push(u);
    }
    const everyone = [w.owner.id, w.bot.id, ...people.map((p) => p.id)].sort(byNumber);
    expect(everyone).toHaveLength(13);
    const rest = restFor(w.bot.token);
    const pages: string[][] = [];
    let after = '0';
    for (;;) {
      const page = (await rest.get(Routes.guildMembers(w.server.id), {
        query: new URLSearchParams({ limit: '5', after }),
      })) as APIGuildMember[];
      if (page.length === 0) break;
      pages.push(page.map((m) => m.user!.id));
      after = page.at(-1)!.user!.id;
    }
    expect(pages.map((p) => p.length)).toEqual([5, 5, 3]);
    expect(pages.flat()).toEqual(everyone);

    // Without a limit, one member (Discord's default); after the last, none.
    const first = (await rest.get(Routes.guildMembers(w.server.id))) as APIGuildMember[];
    expect(first.map((m) => m.user!.id)).toEqual([everyone[0]]);
    const mid = (await rest.get(Routes.guildMembers(w.server.id), {
      query: new URLSearchParams({ limit: '2', after: everyone[6]! }),
    })) as APIGuildMember[];
    expect(mid.map((m) => m.user!.id)).toEqual(everyone.slice(7, 9));
    // A bot in the page carries its managed role, as the member itself reads.
    const botInPage = (await rest.get(Routes.guildMembers(w.server.id), {
      query: new URLSearchParams({ limit: '1000' }),
    })) as APIGuildMember[];
    const botMember = botInPage.find((m) => m.user!.id === w.bot.id)!;
    expect(botMember).toEqual(await rest.get(Routes.guildMember(w.server.id, w.bot.id)));
  });

  it('refuses a limit outside 1 to 1000 and an after that is no id with 400 50035 naming the parameter; a stranger gets 50001', async () => {
    const w = await world(srv.url);
    for (const [query, field] of [
      ['limit=0', 'limit'],
      ['limit=1001', 'limit'],
      ['limit=ten', 'limit'],
      ['after=abc', 'after'],
      ['after=99999999999999999999', 'after'],
    ] as const) {
      const r = await call(srv.url, 'GET', `/api/v10/guilds/${w.server.id}/members?${query}`, { auth: w.bot.auth });
      expect([query, r.status, r.body.code, Object.keys(r.body.errors ?? {})]).toEqual([query, 400, 50035, [field]]);
    }
    const stranger = await registerUser(srv.url);
    const r = await call(srv.url, 'GET', `/api/v10/guilds/${w.server.id}/members?limit=10`, { auth: stranger.auth });
    expect([r.status, r.body.code]).toEqual([403, 50001]);
  });
});

describe('GET /users/@me/guilds pages by guild id', () => {
  it('walks a bot in 5 guilds 2 at a time with after, and between before and after; limit past 200 is 50035', async () => {
    const owner = await registerUser(srv.url);
    const bot = await createBot(srv.url, owner);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const { server } = await createServer(srv.url, owner, `g${i}`);
      await addBot(srv.url, owner, server.id, bot.id);
      ids.push(server.id);
    }
    ids.sort(byNumber);
    const rest = restFor(bot.token);
    const page = async (q: Record<string, string>) =>
      ((await rest.get(Routes.userGuilds(), { query: new URLSearchParams(q) })) as Array<{ id: string }>).map((g) => g.id);
    expect(await page({})).toEqual(ids);
    expect(await page({ limit: '2' })).toEqual(ids.slice(0, 2));
    expect(await page({ limit: '2', after: ids[1]! })).toEqual(ids.slice(2, 4));
    expect(await page({ limit: '2', after: ids[3]! })).toEqual(ids.slice(4));
    expect(await page({ after: ids[0]!, before: ids[4]! })).toEqual(ids.slice(1, 4));
    const r = await call(srv.url, 'GET', '/api/v10/users/@me/guilds?limit=201', { auth: bot.auth });
    expect([r.status, r.body.code, Object.keys(r.body.errors ?? {})]).toEqual([400, 50035, ['limit']]);
  });
});

describe('one role and one ban by id', () => {
  it("GET /guilds/{id}/roles/{roleId} answers the role; another guild's role, an unknown id and a non-id are 404 10011", async () => {
    const w = await world(srv.url);
    const role = await call(srv.url, 'POST', `/servers/${w.server.id}/roles`, {
      auth: w.owner.auth,
      body: { name: 'mods', color: 0x00ff00 },
    });
    expect(role.status).toBe(201);
    const elsewhere = await createServer(srv.url, w.owner, 'Elsewhere');
    const otherRole = await call(srv.url, 'POST', `/servers/${elsewhere.server.id}/roles`, { auth: w.owner.auth, body: { name: 'x' } });
    const rest = restFor(w.bot.token);
    const got = (await rest.get(Routes.guildRole(w.server.id, role.body.id))) as APIRole;
    expect(got).toMatchObject({ id: role.body.id, name: 'mods', color: 0x00ff00 });
    expect(got).toEqual(((await rest.get(Routes.guildRoles(w.server.id))) as APIRole[]).find((r) => r.id === role.body.id));
    for (const id of [otherRole.body.id, '1234567890123456789', 'mods'])
      expect(await failure(rest.get(Routes.guildRole(w.server.id, id)))).toEqual({ status: 404, code: 10011 });
    // Outside the guild: no role is shown, whichever id.
    const stranger = await registerUser(srv.url);
    expect(await failure(restFor(stranger.token, 'Bearer').get(Routes.guildRole(w.server.id, role.body.id)))).toEqual({
      status: 403,
      code: 50001,
    });
  });

  it('GET /guilds/{id}/bans/{userId} answers the ban with its reason; someone not banned is 404 10026; without BAN_MEMBERS 50013', async () => {
    const w = await world(srv.url);
    const banned = await registerUser(srv.url);
    const member = await registerUser(srv.url);
    await joinServer(srv.url, w.owner, banned, w.server.id);
    await joinServer(srv.url, w.owner, member, w.server.id);
    const owner = restFor(w.owner.token, 'Bearer');
    await owner.put(Routes.guildBan(w.server.id, banned.id), { body: {}, reason: 'spam' });
    expect(await owner.get(Routes.guildBan(w.server.id, banned.id))).toEqual({
      user: expect.objectContaining({ id: banned.id, username: banned.name }),
      reason: 'spam',
    });
    for (const id of [member.id, '1234567890123456789', 'someone'])
      expect(await failure(owner.get(Routes.guildBan(w.server.id, id)))).toEqual({ status: 404, code: 10026 });
    expect(await failure(restFor(member.token, 'Bearer').get(Routes.guildBan(w.server.id, banned.id)))).toEqual({
      status: 403,
      code: 50013,
    });
  });
});

describe('commands: who may manage them is decided before the body is read', () => {
  it("another bot's bad body is 403 (not 400); the bot's own bad body 400 50035; DELETE of another's command 403", async () => {
    const w = await world(srv.url);
    const other = await createBot(srv.url, w.owner);
    const mine = restFor(w.bot.token);
    const theirs = restFor(other.token);
    const bad = { name: 'Not A Name!', description: 'x' };
    const cases: Array<[string, Promise<unknown>, { status: number; code: number }]> = [
      ['PUT, another bot', theirs.put(Routes.applicationCommands(w.bot.id), { body: [bad] }), { status: 403, code: 50013 }],
      ['POST, another bot', theirs.post(Routes.applicationCommands(w.bot.id), { body: bad }), { status: 403, code: 50013 }],
      ['PUT, a body not a list', theirs.put(Routes.applicationCommands(w.bot.id), { body: {} }), { status: 403, code: 50013 }],
      ['PUT, own', mine.put(Routes.applicationCommands(w.bot.id), { body: [bad] }), { status: 400, code: 50035 }],
      ['POST, own', mine.post(Routes.applicationCommands(w.bot.id), { body: bad }), { status: 400, code: 50035 }],
    ];
    for (const [name, p, expected] of cases) expect([name, await failure(p)]).toEqual([name, expected]);
    const made = (await mine.post(Routes.applicationCommands(w.bot.id), { body: { name: 'ping', description: 'Ping' } })) as { id: string };
    expect(await failure(theirs.patch(Routes.applicationCommand(w.bot.id, made.id), { body: { description: 'x'.repeat(500) } }))).toEqual({
      status: 403,
      code: 50013,
    });
    expect(await failure(theirs.delete(Routes.applicationCommand(w.bot.id, made.id)))).toEqual({ status: 403, code: 50013 });
    // A guild the bot is not in is refused before the body too.
    const elsewhere = await createServer(srv.url, w.owner, 'Elsewhere');
    expect(await failure(mine.put(Routes.applicationGuildCommands(w.bot.id, elsewhere.server.id), { body: [bad] }))).toEqual({
      status: 403,
      code: 50001,
    });
    expect(((await mine.get(Routes.applicationCommands(w.bot.id))) as Array<{ name: string }>).map((c) => c.name)).toEqual(['ping']);
  });
});

describe('an interaction callback with with_response answers its own types', () => {
  it("a deferred ephemeral answer (5) is loading and ephemeral; a modal (9) has no message; the interaction's type is the command's (2)", async () => {
    const w = await world(srv.url);
    const rest = restFor(w.bot.token);
    await rest.put(Routes.applicationCommands(w.bot.id), { body: [{ name: 'ping', description: 'Ping' }] });
    const gw = await identifyDiscord(pool, srv, w.bot.token, ALL_MESSAGES);
    const seen = new Set<string>();
    const run = async () => {
      const r = await call(srv.url, 'POST', `/channels/${w.channel.id}/interactions`, {
        auth: w.owner.auth,
        body: { type: 'command', botId: w.bot.id, name: 'ping' },
      });
      expect(r.status, r.text).toBe(202);
      const i = (await gw.waitForEvent('INTERACTION_CREATE', (d) => d.type === 2 && !seen.has(d.id))).d;
      seen.add(i.id);
      return i;
    };
    const callback = (i: { id: string; token: string }, body: unknown) =>
      call(srv.url, 'POST', `/api/v10/interactions/${i.id}/${i.token}/callback?with_response=true`, { body });

    const deferred = await run();
    const d = await callback(deferred, { type: 5, data: { flags: 64 } });
    expect(d.status, d.text).toBe(200);
    expect(d.body.interaction).toMatchObject({
      id: deferred.id,
      type: 2,
      response_message_loading: true,
      response_message_ephemeral: true,
    });
    expect(d.body.resource.type).toBe(5);
    expect(d.body.interaction.response_message_id).toBe(d.body.resource.message.id);

    const modal = await run();
    const m = await callback(modal, {
      type: 9,
      data: {
        custom_id: 'form',
        title: 'Form',
        components: [{ type: 1, components: [{ type: 4, custom_id: 'name', style: 1, label: 'Name' }] }],
      },
    });
    expect(m.status, m.text).toBe(200);
    expect(m.body).toEqual({
      interaction: {
        id: modal.id,
        type: 2,
        activity_instance_id: null,
        response_message_id: null,
        response_message_loading: false,
        response_message_ephemeral: false,
      },
      resource: { type: 9 },
    });
  });
});
