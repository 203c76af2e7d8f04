/**
 * Bounded objects (issue 35, item 6; docs/security.md, "Bounded objects"): the same caps on
 * the native API and on Discord's, table-driven. The Discord side is driven through
 * @discordjs/rest (what a discord.js bot or client uses), so its errors are read as
 * discord.js reads them.
 */
import { DiscordAPIError, REST } from '@discordjs/rest';
import { Routes } from 'discord-api-types/v10';
import { OBJECT_LIMITS } from '@parley/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createBot, createServer, joinServer, registerUser, type TestUser } from '../factories.js';
import { type TestServer, startServer } from '../harness.js';

let srv: TestServer;
let owner: TestUser;
let guildId: string;
let channelId: string;
let rest: REST;

/** One answer, whichever API gave it: the status and the code (native: the catalog's; Discord: its number). */
interface Answer {
  status: number;
  code: string | number | undefined;
  body: unknown;
}

async function native(method: string, path: string, body?: unknown, who: TestUser = owner): Promise<Answer> {
  const r = await call(srv.url, method, path, { auth: who.auth, ...(body !== undefined ? { body } : {}) });
  return { status: r.status, code: r.body?.code, body: r.body };
}

async function discord(
  method: 'get' | 'post' | 'put' | 'patch' | 'delete',
  route: `/${string}`,
  body?: unknown,
  client = rest,
): Promise<Answer> {
  try {
    const out = await client[method](route, body !== undefined ? { body } : {});
    return { status: 200, code: undefined, body: out };
  } catch (err) {
    if (!(err instanceof DiscordAPIError)) throw err;
    return { status: err.status, code: err.code, body: err.rawError };
  }
}

const restFor = (who: TestUser) => new REST({ api: `${srv.url}/api`, version: '10', authPrefix: 'Bearer', retries: 0 }).setToken(who.token);

/** Runs `n` calls, `width` at a time. */
async function inBatches(n: number, width: number, one: (i: number) => Promise<void>) {
  for (let i = 0; i < n; i += width) await Promise.all(Array.from({ length: Math.min(width, n - i) }, (_, k) => one(i + k)));
}

beforeAll(async () => {
  srv = await startServer({ env: { RATE_LIMITS: 'off' } });
  owner = await registerUser(srv.url);
  const created = await createServer(srv.url, owner, 'Limits');
  guildId = created.server.id;
  channelId = created.general.id;
  rest = restFor(owner);
});
afterAll(() => srv?.close());

describe('roles: at most 250 per server, on both APIs', () => {
  it('the 251st role is refused natively (400 max_roles) and through discord.js (30005); creating stays right below it', async () => {
    const limit = OBJECT_LIMITS.rolesPerServer;
    await inBatches(limit - 1, 8, async (i) => {
      const r = await native('POST', `/servers/${guildId}/roles`, { name: `r${i}` });
      expect(r.status).toBe(201);
    });
    // The 250th through Discord's route: still room for it, just above @everyone.
    const last = await discord('post', Routes.guildRoles(guildId), { name: 'two-fifty' });
    expect(last.status).toBe(200);
    expect(last.body).toMatchObject({ name: 'two-fifty', position: 1 });

    const refusals: Array<[string, () => Promise<Answer>, number, string | number]> = [
      ['native', () => native('POST', `/servers/${guildId}/roles`, { name: 'one too many' }), 400, 'max_roles'],
      ['/api (discord.js)', () => discord('post', Routes.guildRoles(guildId), { name: 'one too many' }), 400, 30005],
    ];
    for (const [path, send, status, code] of refusals) {
      const r = await send();
      expect({ path, status: r.status, code: r.code }).toEqual({ path, status, code });
    }
    const list = await native('GET', `/servers/${guildId}/roles`);
    expect((list.body as unknown[]).length).toBe(limit + 1); // and @everyone
    // The positions are still 1..250 with no gap or repeat: every create shifted the others once.
    const positions = (list.body as Array<{ id: string; position: number }>)
      .filter((r) => r.id !== guildId)
      .map((r) => r.position)
      .sort((a, b) => a - b);
    expect(positions).toEqual(Array.from({ length: limit }, (_, i) => i + 1));
  }, 120_000);
});

const EMOJI = [...'😀😁😂🤣😃😄😅😆😉😊😋😎😍😘🥰😗😙😚🙂🤗🤩🤔'];

describe('reactions: at most 20 distinct emoji per message, on both APIs', () => {
  it('the 21st distinct emoji is refused natively (max_reactions) and through discord.js (30010); one already there is still accepted', async () => {
    const max = OBJECT_LIMITS.reactionsPerMessage;
    expect(EMOJI.length).toBeGreaterThan(max + 1);
    const other = await registerUser(srv.url);
    await joinServer(srv.url, owner, other, guildId);
    const otherRest = restFor(other);
    const message = await native('POST', `/channels/${channelId}/messages`, { content: 'react to me' });
    const messageId = (message.body as { id: string }).id;
    const nativeReact = (emoji: string, who: TestUser = owner) =>
      native('PUT', `/channels/${channelId}/messages/${messageId}/reactions/${encodeURIComponent(emoji)}`, undefined, who);
    const discordReact = (emoji: string, client = rest) =>
      discord('put', Routes.channelMessageOwnReaction(channelId, messageId, encodeURIComponent(emoji)), undefined, client);
    for (let i = 0; i < max; i++) {
      const r = i % 2 === 0 ? await nativeReact(EMOJI[i]!) : await discordReact(EMOJI[i]!);
      expect(r.status, EMOJI[i]).toBeLessThan(300);
    }
    const cases: Array<[string, () => Promise<Answer>, number, string | number | undefined]> = [
      ['native, a new emoji', () => nativeReact(EMOJI[max]!, other), 400, 'max_reactions'],
      ['/api, a new emoji', () => discordReact(EMOJI[max + 1]!, otherRest), 400, 30010],
      ['native, an emoji already there', () => nativeReact(EMOJI[0]!, other), 200, undefined],
      ['/api, an emoji already there', () => discordReact(EMOJI[1]!, otherRest), 200, undefined],
    ];
    for (const [path, send, status, code] of cases) {
      const r = await send();
      expect({ path, status: r.status < 300 ? 200 : r.status, code: r.code }).toEqual({ path, status, code });
    }
    const got = await native('GET', `/channels/${channelId}/messages/${messageId}`);
    const reactions = (got.body as { reactions: Array<{ emoji: string; count: number }> }).reactions;
    expect(reactions).toHaveLength(max);
    expect(reactions.find((r) => r.emoji === EMOJI[0])?.count).toBe(2);
    expect(reactions.find((r) => r.emoji === EMOJI[1])?.count).toBe(2);
    // A refused emoji left nothing behind.
    expect(reactions.some((r) => r.emoji === EMOJI[max] || r.emoji === EMOJI[max + 1])).toBe(false);
  }, 60_000);
});

describe('group DMs: at most 10 people, on both APIs', () => {
  it('a group of 11 (or 25) is refused natively and on /api; 10 is accepted on both', async () => {
    const people: TestUser[] = [];
    await inBatches(24, 6, async () => {
      const u = await registerUser(srv.url);
      await joinServer(srv.url, owner, u, guildId);
      people.push(u);
    });
    const ids = people.map((p) => p.id);
    const others = OBJECT_LIMITS.groupDmMembers - 1;
    const cases: Array<[string, () => Promise<Answer>, number]> = [
      ['native, 10 people', () => native('POST', '/users/@me/channels', { recipientIds: ids.slice(0, others) }), 201],
      ['/api, 10 people', () => discord('post', Routes.userChannels(), { recipients: ids.slice(0, others) }), 200],
      ['native, 11 people', () => native('POST', '/users/@me/channels', { recipientIds: ids.slice(0, others + 1) }), 400],
      ['/api, 11 people', () => discord('post', Routes.userChannels(), { recipients: ids.slice(0, others + 1) }), 400],
      ['/api, 25 people', () => discord('post', Routes.userChannels(), { recipients: ids }), 400],
    ];
    for (const [path, send, status] of cases) {
      const r = await send();
      expect({ path, status: r.status }).toEqual({ path, status });
      if (status === 400 && path.startsWith('/api')) expect(r.code).toBe(50035);
    }
    const mine = await native('GET', '/users/@me/channels');
    expect((mine.body as Array<{ recipients: unknown[] }>).every((d) => d.recipients.length <= OBJECT_LIMITS.groupDmMembers)).toBe(true);
  }, 60_000);
});

describe("numbers in the Discord layer's bodies are checked against the same limits", () => {
  it('position 1e300 and other out-of-range numbers are 400 50035 naming the field; nothing changes', async () => {
    const member = await registerUser(srv.url);
    await joinServer(srv.url, owner, member, guildId);
    const before = await native('GET', `/channels/${channelId}`);
    const roleId = ((await native('GET', `/servers/${guildId}/roles`)).body as Array<{ id: string }>).find((r) => r.id !== guildId)!.id;
    const cases: Array<[string, 'post' | 'patch' | 'put', `/${string}`, Record<string, unknown>, string]> = [
      ['channel edit: position', 'patch', Routes.channel(channelId), { position: 1e300 }, 'position'],
      [
        'channel edit: position past the native limit',
        'patch',
        Routes.channel(channelId),
        { position: OBJECT_LIMITS.position + 1 },
        'position',
      ],
      ['channel edit: position negative', 'patch', Routes.channel(channelId), { position: -1 }, 'position'],
      ['channel edit: rate_limit_per_user', 'patch', Routes.channel(channelId), { rate_limit_per_user: 1e300 }, 'rate_limit_per_user'],
      ['channel edit: bitrate', 'patch', Routes.channel(channelId), { bitrate: 1e300 }, 'bitrate'],
      ['channel edit: user_limit', 'patch', Routes.channel(channelId), { user_limit: 1e300 }, 'user_limit'],
      ['channel edit: name too long', 'patch', Routes.channel(channelId), { name: 'x'.repeat(OBJECT_LIMITS.name + 1) }, 'name'],
      ['channel create: position', 'post', Routes.guildChannels(guildId), { name: 'big', position: 1e300 }, 'position'],
      ['channel create: position 1.5', 'post', Routes.guildChannels(guildId), { name: 'half', position: 1.5 }, 'position'],
      [
        'channel create: rate_limit_per_user',
        'post',
        Routes.guildChannels(guildId),
        { name: 'slow', rate_limit_per_user: 1e300 },
        'rate_limit_per_user',
      ],
      ['role create: color', 'post', Routes.guildRoles(guildId), { name: 'c', color: 1e300 }, 'color'],
      ['role edit: position', 'patch', Routes.guildRole(guildId, roleId), { position: 1e300 }, 'position'],
      ['role edit: permissions', 'patch', Routes.guildRole(guildId, roleId), { permissions: 1e300 }, 'permissions'],
      ['guild edit: afk_timeout', 'patch', Routes.guild(guildId), { afk_timeout: 1e300 }, 'afk_timeout'],
      [
        'ban: delete_message_seconds',
        'put',
        Routes.guildBan(guildId, member.id),
        { delete_message_seconds: 1e300 },
        'delete_message_seconds',
      ],
      ['ban: delete_message_days', 'put', Routes.guildBan(guildId, member.id), { delete_message_days: 8 }, 'delete_message_days'],
      [
        'bulk delete: 101 ids',
        'post',
        Routes.channelBulkDelete(channelId),
        { messages: Array.from({ length: 101 }, (_, i) => String(10 ** 17 + i)) },
        'messages',
      ],
      ['message: nonce', 'post', Routes.channelMessages(channelId), { content: 'x', nonce: 1e300 }, 'nonce'],
      ['message: flags', 'post', Routes.channelMessages(channelId), { content: 'x', flags: 1e300 }, 'flags'],
      [
        'message: 11 attachments',
        'post',
        Routes.channelMessages(channelId),
        { content: 'x', attachments: Array.from({ length: 11 }, (_, i) => ({ id: i })) },
        'attachments',
      ],
      ['webhook create: name too long', 'post', Routes.channelWebhooks(channelId), { name: 'w'.repeat(81) }, 'name'],
    ];
    for (const [name, method, route, body, field] of cases) {
      const r = await discord(method, route, body);
      const errors = (r.body as { errors?: Record<string, unknown> }).errors ?? {};
      expect({ name, status: r.status, code: r.code, field: Object.keys(errors)[0] }).toEqual({ name, status: 400, code: 50035, field });
    }
    const after = await native('GET', `/channels/${channelId}`);
    expect(after.body).toEqual(before.body);
    // The member was not banned by the refused requests.
    expect((await discord('get', Routes.guildMember(guildId, member.id))).status).toBe(200);
    // An ordinary edit still goes through.
    const ok = await discord('patch', Routes.channel(channelId), { topic: 'still fine', position: 0, rate_limit_per_user: 0 });
    expect(ok.status).toBe(200);
  }, 60_000);
});

describe('commands registered on /api pass the native route schema', () => {
  it('an option max_length of 1e300 or 6001 is 400 50035 naming it, as natively; a valid one registers', async () => {
    const bot = await createBot(srv.url, owner);
    const botRest = new REST({ api: `${srv.url}/api`, version: '10', retries: 0 }).setToken(bot.token);
    const command = (maxLength: number) => ({
      name: 'echo',
      description: 'says it back',
      options: [{ type: 3, name: 'text', description: 'what to say', max_length: maxLength }],
    });
    const cases: Array<[string, number, number, number | undefined]> = [
      ['1e300', 1e300, 400, 50035],
      ['past the limit', 6001, 400, 50035],
      ['inside', 100, 201, undefined],
    ];
    for (const [name, maxLength, status, code] of cases) {
      const r = await discord('post', Routes.applicationCommands(bot.id), command(maxLength), botRest);
      const field = Object.keys((r.body as { errors?: Record<string, unknown> }).errors ?? {})[0];
      expect({ name, status: r.status === 200 ? 201 : r.status, code: r.code }).toEqual({ name, status, code });
      if (status === 400) expect(field).toBe('options.0.max_length');
    }
    const native = await call(srv.url, 'POST', `/bots/${bot.id}/commands`, {
      auth: bot.auth,
      body: { name: 'other', description: 'x', options: [{ type: 'string', name: 't', description: 'd', maxLength: 1e300 }] },
    });
    expect(native.status).toBe(400);
  });
});
