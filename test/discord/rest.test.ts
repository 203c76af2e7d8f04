/**
 * The Discord REST layer driven by the real library: @discordjs/rest's `REST` (what a
 * discord.js bot uses) pointed at `base/api`, calling `Routes.*` as discord.js does.
 */
import { DiscordAPIError, REST, RequestMethod } from '@discordjs/rest';
import {
  type APIChannel,
  type APIGuild,
  type APIGuildMember,
  type APIMessage,
  type APIRole,
  type APIUser,
  Routes,
} from 'discord-api-types/v10';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createBot, createChannel, createServer, joinServer, registerUser, type TestBot, type TestUser } from '../factories.js';
import { type TestServer, startServer } from '../harness.js';

let srv: TestServer;
let owner: TestUser;
let member: TestUser;
let bot: TestBot;
let guildId: string;
let channelId: string;
let rest: REST;

/** A bitfield of Discord's bits (docs/permissions.md). */
const bits = (...n: number[]) => n.reduce((a, b) => a | (1n << BigInt(b)), 0n).toString();
/** What a Discord bot usually holds: view, send, manage messages, embed, attach, history, react. */
const BOT_PERMISSIONS = bits(10, 11, 13, 14, 15, 16, 6);

/** Adds a bot with a permission bitfield (the factory takes the legacy names of docs/permissions.md#bots). */
async function addBotWith(botId: string, permissions: string) {
  const r = await call(srv.url, 'POST', `/servers/${guildId}/bots`, { auth: owner.auth, body: { botId, permissions } });
  if (r.status !== 201) throw new Error(`add bot failed: ${r.status} ${r.text}`);
}

beforeAll(async () => {
  srv = await startServer({ env: { RATE_LIMITS: 'off' } });
  owner = await registerUser(srv.url);
  member = await registerUser(srv.url);
  const created = await createServer(srv.url, owner, 'Discordish');
  guildId = created.server.id;
  channelId = created.general.id;
  await joinServer(srv.url, owner, member, guildId);
  bot = await createBot(srv.url, owner, 'djs-bot');
  await addBotWith(bot.id, BOT_PERMISSIONS);
  rest = new REST({ api: `${srv.url}/api`, version: '10' }).setToken(bot.token);
});
afterAll(() => srv?.close());

describe('users and guilds through @discordjs/rest', () => {
  it('GET /users/@me is the bot, as a Discord user', async () => {
    const me = (await rest.get(Routes.user('@me'))) as APIUser;
    expect(me).toMatchObject({ id: bot.id, username: 'djs-bot', bot: true, discriminator: '0' });
  });

  it('GET /applications/@me: the application id is the bot id', async () => {
    const app = (await rest.get(Routes.currentApplication())) as { id: string; name: string; owner?: APIUser };
    expect(app.id).toBe(bot.id);
    expect(app.owner?.id).toBe(owner.id);
    // discord.py's login reads it at GET /oauth2/applications/@me: the same object.
    expect(await rest.get(Routes.oauth2CurrentApplication())).toEqual(app);
  });

  it('GET /users/@me/guilds and /users/{id}', async () => {
    const guilds = (await rest.get(Routes.userGuilds())) as Array<{ id: string; name: string; owner: boolean; permissions: string }>;
    expect(guilds).toEqual([expect.objectContaining({ id: guildId, name: 'Discordish', owner: false })]);
    expect(BigInt(guilds[0]!.permissions) & (1n << 11n)).toBe(1n << 11n);
    const u = (await rest.get(Routes.user(member.id))) as APIUser;
    expect(u).toMatchObject({ id: member.id, username: member.name });
    expect(u.bot).toBeUndefined();
  });

  it('GET guild, channels, roles, members', async () => {
    const guild = (await rest.get(Routes.guild(guildId))) as APIGuild;
    expect(guild).toMatchObject({ id: guildId, name: 'Discordish', owner_id: owner.id });
    expect(guild.roles.find((r) => r.id === guildId)?.name).toBe('@everyone');
    const channels = (await rest.get(Routes.guildChannels(guildId))) as APIChannel[];
    expect(channels.map((c) => c.id)).toContain(channelId);
    expect(channels[0]).toMatchObject({ type: 0, guild_id: guildId });
    const roles = (await rest.get(Routes.guildRoles(guildId))) as APIRole[];
    const managed = roles.find((r) => r.managed);
    expect(managed?.name).toBe('djs-bot');
    const members = (await rest.get(Routes.guildMembers(guildId), { query: new URLSearchParams({ limit: '1000' }) })) as APIGuildMember[];
    expect(members.map((m) => m.user?.id).sort()).toEqual([owner.id, member.id, bot.id].sort());
    const me = (await rest.get(Routes.guildMember(guildId, bot.id))) as APIGuildMember;
    expect(me.roles).toEqual([managed?.id]);
    const channel = (await rest.get(Routes.channel(channelId))) as APIChannel;
    expect(channel).toMatchObject({ id: channelId, type: 0, guild_id: guildId });
  });

  it('a 404 is a DiscordAPIError with our message and Discord code', async () => {
    const err = await rest.get(Routes.channel('1234567890123456789')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DiscordAPIError);
    const e = err as DiscordAPIError;
    expect(e.status).toBe(404);
    expect(e.code).toBe(10003);
    expect(e.message).toBe('channel not found');
    const msg = await rest.get(Routes.channelMessage(channelId, '1234567890123456789')).catch((x: unknown) => x);
    expect((msg as DiscordAPIError).code).toBe(10008);
    const guild = await rest.get(Routes.guild('1234567890123456789')).catch((x: unknown) => x);
    expect((guild as DiscordAPIError).code).toBe(10004);
  });

  it('an invalid body is 50035 with the field named', async () => {
    const err = (await rest
      .post(Routes.channelMessages(channelId), { body: { content: 'x'.repeat(4001) } })
      .catch((e) => e)) as DiscordAPIError;
    expect(err).toBeInstanceOf(DiscordAPIError);
    expect(err.status).toBe(400);
    expect(err.code).toBe(50035);
    expect(err.message).toMatch(/^Invalid Form Body\ncontent\[INVALID_BODY\]: content must be at most 4000 characters/);
  });
});

describe('messages through @discordjs/rest', () => {
  it('creates, fetches, edits and deletes a message', async () => {
    const created = (await rest.post(Routes.channelMessages(channelId), {
      body: { content: 'hello from discord.js', nonce: 'n1' },
    })) as APIMessage;
    expect(created).toMatchObject({
      channel_id: channelId,
      content: 'hello from discord.js',
      author: { id: bot.id, bot: true },
      type: 0,
      tts: false,
      mention_everyone: false,
      attachments: [],
      embeds: [],
      pinned: false,
      nonce: 'n1',
    });
    expect(Date.parse(created.timestamp)).toBeGreaterThan(0);
    const fetched = (await rest.get(Routes.channelMessage(channelId, created.id))) as APIMessage;
    expect(fetched.content).toBe('hello from discord.js');
    const edited = (await rest.patch(Routes.channelMessage(channelId, created.id), { body: { content: 'edited' } })) as APIMessage;
    expect(edited.content).toBe('edited');
    expect(edited.edited_timestamp).not.toBeNull();
    await rest.delete(Routes.channelMessage(channelId, created.id));
    const gone = (await rest.get(Routes.channelMessage(channelId, created.id)).catch((e) => e)) as DiscordAPIError;
    expect(gone.code).toBe(10008);
  });

  it('sends and edits embeds', async () => {
    const embed = { title: 'Status', description: 'All good', color: 0x00ff00, fields: [{ name: 'CPU', value: '3%', inline: true }] };
    const m = (await rest.post(Routes.channelMessages(channelId), { body: { embeds: [embed] } })) as APIMessage;
    expect(m.content).toBe('');
    expect(m.embeds).toEqual([{ type: 'rich', ...embed }]);
    const e = (await rest.patch(Routes.channelMessage(channelId, m.id), { body: { embeds: [{ title: 'Changed' }] } })) as APIMessage;
    expect(e.embeds).toEqual([{ type: 'rich', title: 'Changed' }]);
  });

  it('replies with message_reference, mentions and referenced_message', async () => {
    const first = (await rest.post(Routes.channelMessages(channelId), { body: { content: 'question' } })) as APIMessage;
    const reply = (await rest.post(Routes.channelMessages(channelId), {
      body: { content: `answer <@${member.id}>`, message_reference: { message_id: first.id } },
    })) as APIMessage;
    expect(reply.type).toBe(19);
    expect(reply.message_reference).toMatchObject({ message_id: first.id, channel_id: channelId, guild_id: guildId });
    expect(reply.referenced_message?.id).toBe(first.id);
    expect(reply.mentions.map((u) => u.id)).toEqual([member.id]);
  });

  it('uploads files with payload_json (multipart, files[n])', async () => {
    const m = (await rest.post(Routes.channelMessages(channelId), {
      body: { content: 'two files', embeds: [{ title: 'pic', image: { url: 'attachment://a.png' } }] },
      files: [
        { name: 'a.png', data: Buffer.from([0x89, 0x50, 0x4e, 0x47]), contentType: 'image/png' },
        { name: 'notes.txt', data: Buffer.from('some notes') },
      ],
    })) as APIMessage;
    expect(m.attachments.map((a) => a.filename)).toEqual(['a.png', 'notes.txt']);
    expect(m.attachments[1]).toMatchObject({ size: 10 });
    expect(m.attachments[0]!.url).toMatch(new RegExp(`^${srv.url}/uploads/`));
    expect(m.attachments[0]!.id).toMatch(/^\d+$/);
    expect(m.embeds[0]?.image?.url).toBe(m.attachments[0]!.url);
    const bytes = await fetch(m.attachments[1]!.url).then((r) => r.text());
    expect(bytes).toBe('some notes');
  });

  it('lists history with limit, before, after and around', async () => {
    const ch = await createChannel(srv.url, owner, guildId, 'history');
    const ids: string[] = [];
    for (let i = 0; i < 7; i++)
      ids.push(((await rest.post(Routes.channelMessages(ch.id), { body: { content: `m${i}` } })) as APIMessage).id);
    const q = (o: Record<string, string>) => ({ query: new URLSearchParams(o) });
    const latest = (await rest.get(Routes.channelMessages(ch.id), q({ limit: '3' }))) as APIMessage[];
    expect(latest.map((m) => m.content)).toEqual(['m6', 'm5', 'm4']);
    const before = (await rest.get(Routes.channelMessages(ch.id), q({ before: ids[2]! }))) as APIMessage[];
    expect(before.map((m) => m.content)).toEqual(['m1', 'm0']);
    const after = (await rest.get(Routes.channelMessages(ch.id), q({ after: ids[4]! }))) as APIMessage[];
    expect(after.map((m) => m.content)).toEqual(['m6', 'm5']);
    const around = (await rest.get(Routes.channelMessages(ch.id), q({ around: ids[3]!, limit: '3' }))) as APIMessage[];
    expect(around.map((m) => m.content)).toEqual(['m4', 'm3', 'm2']);
  });

  it('reactions: PUT @me adds (twice is still one), GET lists, DELETE @me removes', async () => {
    const m = (await rest.post(Routes.channelMessages(channelId), { body: { content: 'react here' } })) as APIMessage;
    const thumbs = encodeURIComponent('👍');
    await rest.put(Routes.channelMessageOwnReaction(channelId, m.id, thumbs));
    await rest.put(Routes.channelMessageOwnReaction(channelId, m.id, thumbs));
    const after = (await rest.get(Routes.channelMessage(channelId, m.id))) as APIMessage;
    expect(after.reactions).toEqual([
      { count: 1, count_details: { burst: 0, normal: 1 }, me: true, me_burst: false, emoji: { id: null, name: '👍' }, burst_colors: [] },
    ]);
    const users = (await rest.get(Routes.channelMessageReaction(channelId, m.id, thumbs))) as APIUser[];
    expect(users.map((u) => u.id)).toEqual([bot.id]);
    await rest.delete(Routes.channelMessageOwnReaction(channelId, m.id, thumbs));
    await rest.delete(Routes.channelMessageOwnReaction(channelId, m.id, thumbs));
    const cleared = (await rest.get(Routes.channelMessage(channelId, m.id))) as APIMessage;
    expect(cleared.reactions).toBeUndefined();
  });

  it('typing answers 204', async () => {
    const res = await rest.queueRequest({ method: RequestMethod.Post, fullRoute: Routes.channelTyping(channelId) });
    expect(res.status).toBe(204);
  });

  it('pins: pin, list (both routes), unpin', async () => {
    const m = (await rest.post(Routes.channelMessages(channelId), { body: { content: 'pin me' } })) as APIMessage;
    await rest.put(Routes.channelPin(channelId, m.id));
    const pins = (await rest.get(Routes.channelPins(channelId))) as APIMessage[];
    expect(pins.map((p) => p.id)).toEqual([m.id]);
    expect(pins[0]!.pinned).toBe(true);
    const newer = (await rest.get(`/channels/${channelId}/messages/pins`)) as { items: Array<{ message: APIMessage }>; has_more: boolean };
    expect(newer.items.map((i) => i.message.id)).toEqual([m.id]);
    await rest.delete(Routes.channelPin(channelId, m.id));
    expect(await rest.get(Routes.channelPins(channelId))).toEqual([]);
  });

  it('bulk delete', async () => {
    const a = (await rest.post(Routes.channelMessages(channelId), { body: { content: 'a' } })) as APIMessage;
    const b = (await rest.post(Routes.channelMessages(channelId), { body: { content: 'b' } })) as APIMessage;
    await rest.post(Routes.channelBulkDelete(channelId), { body: { messages: [a.id, b.id] } });
    for (const id of [a.id, b.id]) {
      const err = (await rest.get(Routes.channelMessage(channelId, id)).catch((e) => e)) as DiscordAPIError;
      expect(err.code).toBe(10008);
    }
  });

  it('messages others posted natively look the same (one domain, two dialects)', async () => {
    const native = await call(srv.url, 'POST', `/channels/${channelId}/messages`, { auth: member.auth, body: { content: 'native' } });
    const viaDiscord = (await rest.get(Routes.channelMessage(channelId, native.body.id))) as APIMessage;
    expect(viaDiscord).toMatchObject({ id: native.body.id, content: 'native', author: { id: member.id, username: member.name } });
  });

  it('answers the same under /api/v9 and /api (no version)', async () => {
    for (const version of ['9', '6']) {
      const r = new REST({ api: `${srv.url}/api`, version }).setToken(bot.token);
      expect(((await r.get(Routes.user('@me'))) as APIUser).id).toBe(bot.id);
    }
    const plain = await call(srv.url, 'GET', '/api/users/@me', { auth: bot.auth });
    expect(plain.body.id).toBe(bot.id);
  });
});

describe('permissions on /api', () => {
  it('a bot that cannot see a channel gets 50001 Missing Access, reading or posting', async () => {
    const hidden = await createChannel(srv.url, owner, guildId, 'staff');
    const deny = await call(srv.url, 'PUT', `/channels/${hidden.id}/permissions/${guildId}`, {
      auth: owner.auth,
      body: { type: 'role', deny: String(1 << 10) },
    });
    expect(deny.status).toBe(204);
    // The bot's own role still lets it see: take that away too.
    const roles = (await rest.get(Routes.guildRoles(guildId))) as APIRole[];
    const managed = roles.find((r) => r.managed)!;
    await call(srv.url, 'PUT', `/channels/${hidden.id}/permissions/${managed.id}`, {
      auth: owner.auth,
      body: { type: 'role', deny: String(1 << 10) },
    });
    for (const attempt of [
      () => rest.get(Routes.channelMessages(hidden.id)),
      () => rest.post(Routes.channelMessages(hidden.id), { body: { content: 'sneak' } }),
      () => rest.get(Routes.channel(hidden.id)),
    ]) {
      const err = (await attempt().catch((e) => e)) as DiscordAPIError;
      expect(err).toBeInstanceOf(DiscordAPIError);
      expect(err.status).toBe(403);
      expect(err.code).toBe(50001);
    }
    const channels = (await rest.get(Routes.guildChannels(guildId))) as APIChannel[];
    expect(channels.map((c) => c.id)).not.toContain(hidden.id);
  });

  it('a bot outside a server gets 50001; a missing right is 50013', async () => {
    const otherOwner = await registerUser(srv.url);
    const other = await createServer(srv.url, otherOwner, 'elsewhere');
    const err = (await rest.post(Routes.channelMessages(other.general.id), { body: { content: 'hi' } }).catch((e) => e)) as DiscordAPIError;
    expect([err.status, err.code]).toEqual([403, 50001]);
    const guild = (await rest.get(Routes.guild(other.server.id)).catch((e) => e)) as DiscordAPIError;
    expect([guild.status, guild.code]).toEqual([403, 50001]);
    const ban = (await rest.put(Routes.guildBan(guildId, member.id)).catch((e) => e)) as DiscordAPIError;
    expect([ban.status, ban.code]).toEqual([403, 50013]);
  });

  it('a wrong bot token is 401 with code 40001', async () => {
    const bad = new REST({ api: `${srv.url}/api`, version: '10' }).setToken(`${bot.id}.wrong`);
    const err = (await bad.get(Routes.user('@me')).catch((e) => e)) as DiscordAPIError;
    expect(err).toBeInstanceOf(DiscordAPIError);
    expect([err.status, err.code]).toEqual([401, 40001]);
  });

  it("a person's Bearer token works too", async () => {
    const r = await call(srv.url, 'POST', `/api/v10/channels/${channelId}/messages`, {
      auth: member.auth,
      body: { content: 'from a person' },
    });
    expect(r.status).toBe(200);
    expect(r.body.author.id).toBe(member.id);
  });

  it('a moderation bot bans, lists bans and unbans', async () => {
    const victim = await registerUser(srv.url);
    await joinServer(srv.url, owner, victim, guildId);
    const mod = await createBot(srv.url, owner, 'mod-bot');
    await addBotWith(mod.id, bits(2, 10));
    const modRest = new REST({ api: `${srv.url}/api`, version: '10' }).setToken(mod.token);
    await modRest.put(Routes.guildBan(guildId, victim.id), { body: { delete_message_seconds: 0 }, reason: 'spam' });
    const bans = (await modRest.get(Routes.guildBans(guildId))) as Array<{ user: APIUser; reason: string | null }>;
    expect(bans).toEqual([{ user: expect.objectContaining({ id: victim.id }), reason: 'spam' }]);
    await modRest.delete(Routes.guildBan(guildId, victim.id));
    expect(await modRest.get(Routes.guildBans(guildId))).toEqual([]);
  });
});

describe('rate limits on /api', () => {
  it('a 429 carries retry_after, global and the X-RateLimit headers', async () => {
    const limited = await startServer();
    try {
      const o = await registerUser(limited.url);
      const { general } = await createServer(limited.url, o);
      let last: Response | undefined;
      for (let i = 0; i < 16; i++) {
        last = await fetch(`${limited.url}/api/v10/channels/${general.id}/typing`, { method: 'POST', headers: { Authorization: o.auth } });
        if (i === 0) {
          expect(last.status).toBe(204);
          expect(last.headers.get('x-ratelimit-limit')).toBe('15');
          expect(last.headers.get('x-ratelimit-remaining')).toBe('14');
          expect(Number(last.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
          expect(last.headers.get('x-ratelimit-bucket')).toMatch(/^[0-9a-f]{16}$/);
        }
      }
      expect(last!.status).toBe(429);
      const body = (await last!.json()) as { message: string; retry_after: number; global: boolean };
      expect(body.global).toBe(false);
      expect(body.retry_after).toBeGreaterThan(0);
      expect(body.retry_after).toBeLessThanOrEqual(5);
      expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(last!.headers.get('x-ratelimit-scope')).toBe('user');
    } finally {
      await limited.close();
    }
  });
});
