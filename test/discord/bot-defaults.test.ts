// How a bot is added (docs/permissions.md, "Bots"; docs/decisions/0001-bot-permissions.md):
// without `permissions` it holds what a Discord bot expects to in a normal channel
// (read, history, send, embed links, attach files, react), so a discord.js bot's first
// reply with an embed and a file works; with explicit `permissions` it holds exactly
// those. And the invite page's lookup, `GET /bots/{botId}/profile`.
import { AttachmentBuilder, type Client, DiscordAPIError, EmbedBuilder, Events, type Message } from 'discord.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { P, permissionNamesOf } from '@parley/protocol';
import { addBot, call, createBot, createServer, postMessage, registerUser } from '../factories.js';
import { startServer, type TestServer } from '../harness.js';
import { login as djsLogin } from './djs.js';
import { UNKNOWN_ID } from '../api/assert.js';

let srv: TestServer;
const clients: Client[] = [];

beforeAll(async () => {
  srv = await startServer({ env: { GATEWAY_HEARTBEAT_MS: '5000', RATE_LIMITS: 'off' } });
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.destroy()));
});
afterAll(() => srv?.close());

/** A discord.js bot that answers `!report` with an embed and a file, and reports how that went. */
function replier(client: Client): Promise<string> {
  return new Promise((resolve) => {
    client.on(Events.MessageCreate, (m: Message) => {
      if (m.content !== '!report') return;
      m.reply({
        embeds: [new EmbedBuilder().setTitle('Report').setDescription('all good')],
        files: [new AttachmentBuilder(Buffer.from('a,b\n1,2\n'), { name: 'report.csv' })],
      })
        .then((r) => resolve(`ok:${r.embeds[0]?.title}:${r.attachments.first()?.name}`))
        .catch((e: unknown) => resolve(`failed:${e instanceof DiscordAPIError ? e.code : String(e)}`));
    });
  });
}

/** A server of a new owner with `bot` added by the native route, with `permissions` if given. */
async function serverWithBot(permissions?: string | string[]) {
  const owner = await registerUser(srv.url);
  const { server, general } = await createServer(srv.url, owner);
  const bot = await createBot(srv.url, owner);
  const added = await call(srv.url, 'POST', `/servers/${server.id}/bots`, {
    auth: owner.auth,
    body: { botId: bot.id, ...(permissions !== undefined ? { permissions } : {}) },
  });
  expect(added.status).toBe(201);
  return { owner, server, general, bot, added: added.body };
}

describe('a bot added without permissions', () => {
  it('replies to a message with an embed and a file through discord.js', async () => {
    const w = await serverWithBot();
    const client = await djsLogin(srv, clients, w.bot.token);
    const outcome = replier(client);
    await postMessage(srv.url, w.owner.auth, w.general.id, '!report');
    expect(await outcome).toBe('ok:Report:report.csv');
    // What discord.js computes for itself agrees: the bot may send embeds and files here.
    const me = client.guilds.cache.get(w.server.id)?.members.me;
    const channel = client.guilds.cache.get(w.server.id)?.channels.cache.get(w.general.id);
    expect(me && channel ? channel.permissionsFor(me)?.has(['EmbedLinks', 'AttachFiles']) : null).toBe(true);
  });

  it("holds the default set in its managed role: the messaging bits, and none of a moderator's", async () => {
    const w = await serverWithBot();
    const bits = BigInt(w.added.role.permissions);
    expect(permissionNamesOf(bits)).toEqual([
      'ADD_REACTIONS',
      'VIEW_CHANNEL',
      'SEND_MESSAGES',
      'EMBED_LINKS',
      'ATTACH_FILES',
      'READ_MESSAGE_HISTORY',
      // Threads, as a Discord bot takes them from @everyone (docs/threads.md#permissions).
      'CREATE_PUBLIC_THREADS',
      'SEND_MESSAGES_IN_THREADS',
    ]);
    // The legacy view (docs/permissions.md#bots) still names all four.
    expect(w.added.permissions).toEqual(['READ_MESSAGES', 'SEND_MESSAGES', 'ADD_REACTIONS', 'ATTACH_FILES']);
  });
});

describe('a bot added with explicit permissions', () => {
  it('holds exactly the bitfield it was added with, and not @everyone’s', async () => {
    const asked = P.VIEW_CHANNEL | P.SEND_MESSAGES | P.READ_MESSAGE_HISTORY;
    const w = await serverWithBot(asked.toString());
    expect(w.added.role.permissions).toBe(asked.toString());
    const client = await djsLogin(srv, clients, w.bot.token);
    // Sending works; an embed does not (no EMBED_LINKS), as on Discord's managed role alone.
    const outcome = replier(client);
    await postMessage(srv.url, w.owner.auth, w.general.id, '!report');
    expect(await outcome).toBe('failed:50013');
    const plain = await call(srv.url, 'POST', `/api/v10/channels/${w.general.id}/messages`, {
      headers: { authorization: `Bot ${w.bot.token}` },
      body: { content: 'plain text is fine' },
    });
    expect(plain.status).toBe(200);
  });

  it('holds exactly the names it was added with (section 3), and the owner’s PATCH replaces them exactly', async () => {
    const w = await serverWithBot(['READ_MESSAGES']);
    expect(w.added.role.permissions).toBe((P.VIEW_CHANNEL | P.READ_MESSAGE_HISTORY).toString());
    const sent = await call(srv.url, 'POST', `/channels/${w.general.id}/messages`, { auth: `Bot ${w.bot.token}`, body: { content: 'x' } });
    expect(sent.status).toBe(403);
    const patched = await call(srv.url, 'PATCH', `/servers/${w.server.id}/bots/${w.bot.id}`, {
      auth: w.owner.auth,
      body: { permissions: (P.VIEW_CHANNEL | P.SEND_MESSAGES | P.EMBED_LINKS).toString() },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.role.permissions).toBe((P.VIEW_CHANNEL | P.SEND_MESSAGES | P.EMBED_LINKS).toString());
  });
});

describe('the invite link under /api', () => {
  it('sends the link discord.js builds (<api base>/oauth2/authorize) to the web client’s page, query and all', async () => {
    const query = '?client_id=1234567890123456789&permissions=2048&scope=bot%20applications.commands&guild_id=42';
    for (const base of ['/api', '/api/v10']) {
      const r = await fetch(`${srv.url}${base}/oauth2/authorize${query}`, { redirect: 'manual' });
      expect(r.status).toBe(302);
      expect(r.headers.get('location')).toBe(`/oauth2/authorize${query}`);
    }
    const page = await fetch(`${srv.url}/oauth2/authorize${query}`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
  });
});

describe('GET /bots/{botId}/profile', () => {
  it("shows a public bot's face to anyone signed in, and no secret", async () => {
    const owner = await registerUser(srv.url);
    const bot = await createBot(srv.url, owner);
    expect((await call(srv.url, 'PATCH', `/bots/${bot.id}`, { auth: owner.auth, body: { public: true } })).status).toBe(200);
    const someone = await registerUser(srv.url);
    const r = await call(srv.url, 'GET', `/bots/${bot.id}/profile`, { auth: someone.auth });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(Object.keys(r.body).sort()).toEqual(['avatar', 'bot', 'createdAt', 'id', 'name', 'owner', 'public']);
    expect(r.body).toMatchObject({ id: bot.id, bot: true, public: true, owner: { id: owner.id, bot: false } });
    expect(r.text).not.toContain(bot.token);
    expect(r.text).not.toContain(bot.token.split('.')[1]);
    expect(r.text).not.toMatch(/token|publicKey|interactionsUrl|password/i);
  });

  it("is a private bot's to its owner only: 404 to anyone else, as an unknown id", async () => {
    const owner = await registerUser(srv.url);
    const bot = await createBot(srv.url, owner);
    expect((await call(srv.url, 'GET', `/bots/${bot.id}/profile`, { auth: owner.auth })).body).toMatchObject({ public: false });
    const someone = await registerUser(srv.url);
    for (const id of [bot.id, UNKNOWN_ID, owner.id, 'not-an-id']) {
      const r = await call(srv.url, 'GET', `/bots/${encodeURIComponent(id)}/profile`, { auth: someone.auth });
      expect(r.status, id).toBe(404);
      expect(r.headers.get('content-type')).toMatch(/^application\/json/);
      expect(r.body).toEqual({ error: expect.any(String), code: 'unknown_bot' });
    }
  });

  it('asks who is looking: 401 without a session, 403 for a bot', async () => {
    const owner = await registerUser(srv.url);
    const bot = await createBot(srv.url, owner);
    expect((await call(srv.url, 'GET', `/bots/${bot.id}/profile`)).status).toBe(401);
    expect((await call(srv.url, 'GET', `/bots/${bot.id}/profile`, { auth: `Bot ${bot.token}` })).status).toBe(403);
  });

  it('adding a bot already in the server is a 409 (the invite page says so)', async () => {
    const owner = await registerUser(srv.url);
    const { server } = await createServer(srv.url, owner);
    const bot = await createBot(srv.url, owner);
    await addBot(srv.url, owner, server.id, bot.id, ['SEND_MESSAGES']);
    const again = await call(srv.url, 'POST', `/servers/${server.id}/bots`, { auth: owner.auth, body: { botId: bot.id } });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('bot_already_member');
  });
});
