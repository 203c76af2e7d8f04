// Issue 35, item 3 (docs/security.md, "Replies and embedded messages"): what a caller may
// not read never reaches them through another message that embeds it, nor through a
// channel's newest message id. A member whose overwrite denies READ_MESSAGE_HISTORY, and a
// bot added with only SEND_MESSAGES, are each asked through every path that embeds a
// message (native HTTP, Discord's /api, both gateways, an interaction's clicked message),
// beside a reader who must still see it all.
import type { Client, TextChannel } from 'discord.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { login } from '../discord/djs.js';
import { ClientPool } from '../gateway/client.js';
import { ALL_MESSAGES, identifyDiscord } from '../discord/helpers.js';
import {
  addBot,
  call,
  createBot,
  createChannel,
  createServer,
  joinServer,
  postMessage,
  registerUser,
  type TestBot,
  type TestUser,
} from '../factories.js';
import { startServer, type TestServer } from '../harness.js';

let srv: TestServer;
const pool = new ClientPool();

beforeAll(async () => {
  srv = await startServer({ env: { RATE_LIMITS: 'off' } });
});
const clients: Client[] = [];
afterEach(async () => {
  await pool.closeAll();
  for (const c of clients.splice(0)) await c.destroy();
});
afterAll(() => srv?.close());

const READ_MESSAGE_HISTORY = (1n << 16n).toString();
const SECRET = 'the launch code is 0000';

/**
 * An owner's server whose #general holds a secret, a reader, a member whose overwrite
 * denies READ_MESSAGE_HISTORY there (after they replied to the secret while they still
 * could), and a bot added with only SEND_MESSAGES.
 */
async function setup() {
  const owner = await registerUser(srv.url);
  const { server, general } = await createServer(srv.url, owner);
  const reader = await registerUser(srv.url);
  const blind = await registerUser(srv.url);
  await joinServer(srv.url, owner, reader, server.id);
  await joinServer(srv.url, owner, blind, server.id);
  const bot = await createBot(srv.url, owner);
  await addBot(srv.url, owner, server.id, bot.id, ['SEND_MESSAGES']);
  const secret = await postMessage(srv.url, owner.auth, general.id, SECRET);
  // Replied while they still read the channel: an edit later must not hand the secret back.
  const earlier = await call(srv.url, 'POST', `/channels/${general.id}/messages`, {
    auth: blind.auth,
    body: { content: 'noted', messageReference: { messageId: secret.id } },
  });
  expect(earlier.status, earlier.text).toBe(201);
  const ack = await call(srv.url, 'POST', `/channels/${general.id}/messages/${earlier.body.id}/ack`, { auth: blind.auth });
  expect(ack.status, ack.text).toBe(204);
  const deny = await call(srv.url, 'PUT', `/channels/${general.id}/permissions/${blind.id}`, {
    auth: owner.auth,
    body: { type: 'member', allow: '0', deny: READ_MESSAGE_HISTORY },
  });
  expect(deny.status, deny.text).toBe(204);
  // A ping where they can no longer read.
  await postMessage(srv.url, owner.auth, general.id, `<@${blind.id}> still there?`);
  return { owner, server, general, reader, blind, bot, secret, earlier: earlier.body as { id: string } };
}

type World = Awaited<ReturnType<typeof setup>>;
type Who = 'blind member' | 'bot with only SEND_MESSAGES';
const as = (w: World, who: Who): TestUser | TestBot => (who === 'blind member' ? w.blind : w.bot);

describe('a caller who cannot read history', () => {
  let w: World;
  beforeAll(async () => {
    w = await setup();
  });

  it('is refused the history itself (the premise)', async () => {
    for (const who of ['blind member', 'bot with only SEND_MESSAGES'] as const) {
      const r = await call(srv.url, 'GET', `/channels/${w.general.id}/messages`, { auth: as(w, who).auth });
      expect(r.status, who).toBe(403);
    }
  });

  // Every native path that could carry the secret or say where the channel's history is.
  const native: Array<[string, (w: World, auth: string) => Promise<unknown>]> = [
    [
      'GET /servers/{id}/channels: lastMessageId',
      async (w, auth) => {
        const r = await call(srv.url, 'GET', `/servers/${w.server.id}/channels`, { auth });
        expect(r.status, r.text).toBe(200);
        const general = r.body.find((c: { id: string }) => c.id === w.general.id);
        expect(general).toBeDefined();
        expect(general.lastMessageId).toBeNull();
      },
    ],
    [
      'GET /channels/{id}/messages/{replyId}',
      async (w, auth) => {
        const r = await call(srv.url, 'GET', `/channels/${w.general.id}/messages/${w.earlier.id}`, { auth });
        expect(r.status).toBe(403);
        expect(r.text).not.toContain(SECRET);
      },
    ],
    [
      'GET /channels/{id}/pins',
      async (w, auth) => {
        const r = await call(srv.url, 'GET', `/channels/${w.general.id}/pins`, { auth });
        expect(r.status).toBe(403);
      },
    ],
    [
      'GET /search/messages',
      async (w, auth) => {
        const r = await call(srv.url, 'GET', `/search/messages?q=launch&serverId=${w.server.id}`, { auth });
        expect(r.status, r.text).toBe(200);
        expect(r.body.total).toBe(0);
        expect(r.text).not.toContain(SECRET);
      },
    ],
    [
      'POST /channels/{id}/messages with messageReference',
      async (w, auth) => {
        const r = await call(srv.url, 'POST', `/channels/${w.general.id}/messages`, {
          auth,
          body: { content: 'what was it?', messageReference: { messageId: w.secret.id } },
        });
        expect(r.status, r.text).toBe(403);
        expect(r.body.code).toBe('cannot_reply_without_history');
        expect(r.text).not.toContain(SECRET);
      },
    ],
    [
      'POST a reply to a message that does not exist: the same 403, so existence is not told either',
      async (w, auth) => {
        const r = await call(srv.url, 'POST', `/channels/${w.general.id}/messages`, {
          auth,
          body: { content: 'and this?', messageReference: { messageId: '1' } },
        });
        expect(r.status, r.text).toBe(403);
        expect(r.body.code).toBe('cannot_reply_without_history');
      },
    ],
  ];

  for (const [path, check] of native)
    for (const who of ['blind member', 'bot with only SEND_MESSAGES'] as const)
      it(`${path}, as the ${who}`, () => check(w, as(w, who).auth));

  it('may still post (SEND_MESSAGES) without a reference', async () => {
    for (const who of ['blind member', 'bot with only SEND_MESSAGES'] as const) {
      const r = await call(srv.url, 'POST', `/channels/${w.general.id}/messages`, { auth: as(w, who).auth, body: { content: 'hi' } });
      expect(r.status, r.text).toBe(201);
    }
  });

  it('PATCH of their own earlier reply answers without the message it replies to', async () => {
    const r = await call(srv.url, 'PATCH', `/channels/${w.general.id}/messages/${w.earlier.id}`, {
      auth: w.blind.auth,
      body: { content: 'noted, edited' },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body.messageReference).toMatchObject({ messageId: w.secret.id });
    expect(r.body.referencedMessage).toBeUndefined();
    expect(r.text).not.toContain(SECRET);
  });

  // Discord's layer: the same rules, Discord's shapes and codes.
  const discord: Array<[string, (w: World, auth: string) => Promise<unknown>]> = [
    [
      'GET /api/v10/guilds/{id}/channels: last_message_id',
      async (w, auth) => {
        const r = await call(srv.url, 'GET', `/api/v10/guilds/${w.server.id}/channels`, { auth });
        expect(r.status, r.text).toBe(200);
        const general = r.body.find((c: { id: string }) => c.id === w.general.id);
        expect(general).toBeDefined();
        expect(general.last_message_id).toBeNull();
      },
    ],
    [
      'GET /api/v10/channels/{id}: last_message_id',
      async (w, auth) => {
        const r = await call(srv.url, 'GET', `/api/v10/channels/${w.general.id}`, { auth });
        expect(r.status, r.text).toBe(200);
        expect(r.body.last_message_id).toBeNull();
      },
    ],
    [
      'GET /api/v10/channels/{id}/messages/{replyId} and /pins',
      async (w, auth) => {
        for (const path of [`messages/${w.earlier.id}`, 'pins', 'messages']) {
          const r = await call(srv.url, 'GET', `/api/v10/channels/${w.general.id}/${path}`, { auth });
          expect(r.status, path).toBe(403);
          expect(r.text).not.toContain(SECRET);
        }
      },
    ],
    [
      'POST /api/v10/channels/{id}/messages with message_reference: 160002',
      async (w, auth) => {
        const r = await call(srv.url, 'POST', `/api/v10/channels/${w.general.id}/messages`, {
          auth,
          body: { content: 'what was it?', message_reference: { message_id: w.secret.id } },
        });
        expect(r.status, r.text).toBe(403);
        expect(r.body.code).toBe(160002);
        expect(r.text).not.toContain(SECRET);
      },
    ],
  ];
  for (const [path, check] of discord)
    for (const who of ['blind member', 'bot with only SEND_MESSAGES'] as const)
      it(`${path}, as the ${who}`, () => check(w, as(w, who).auth));

  it('discord.js: the bot with only SEND_MESSAGES may send, and its reply is DiscordAPIError 160002', async () => {
    const client = await login(srv, clients, w.bot.token);
    const channel = (await client.channels.fetch(w.general.id)) as TextChannel;
    expect(channel.lastMessageId).toBeNull();
    await expect(channel.send('plain')).resolves.toMatchObject({ content: 'plain' });
    const refused = await channel.send({ content: 'quote it', reply: { messageReference: w.secret.id } }).then(
      () => null,
      (err: { code?: number; status?: number }) => err,
    );
    expect(refused).toMatchObject({ code: 160002, status: 403 });
  });

  it('PATCH /api/v10 of their own earlier reply answers without referenced_message', async () => {
    const r = await call(srv.url, 'PATCH', `/api/v10/channels/${w.general.id}/messages/${w.earlier.id}`, {
      auth: w.blind.auth,
      body: { content: 'noted, edited again' },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body.message_reference).toMatchObject({ message_id: w.secret.id });
    expect(r.body.referenced_message).toBeUndefined();
    expect(r.text).not.toContain(SECRET);
  });

  it('a reader still gets the reply with the message it replies to, and the channel with its newest message', async () => {
    const reply = await call(srv.url, 'POST', `/channels/${w.general.id}/messages`, {
      auth: w.reader.auth,
      body: { content: 'ack', messageReference: { messageId: w.secret.id } },
    });
    expect(reply.status, reply.text).toBe(201);
    expect(reply.body.referencedMessage).toMatchObject({ id: w.secret.id, content: SECRET });
    const got = await call(srv.url, 'GET', `/channels/${w.general.id}/messages/${w.earlier.id}`, { auth: w.reader.auth });
    expect(got.body.referencedMessage).toMatchObject({ content: SECRET });
    const channels = await call(srv.url, 'GET', `/servers/${w.server.id}/channels`, { auth: w.reader.auth });
    expect(channels.body.find((c: { id: string }) => c.id === w.general.id).lastMessageId).not.toBeNull();
    const api = await call(srv.url, 'GET', `/api/v10/channels/${w.general.id}`, { auth: w.reader.auth });
    expect(api.body.last_message_id).not.toBeNull();
  });
});

describe('the gateway', () => {
  it("ready gives the blind member no newest message id nor read state there, and no reply's event; a reader's event carries it", async () => {
    const w = await setup();
    const other = await createChannel(srv.url, w.owner, w.server.id);
    const blind = await pool.identify(srv.gatewayUrl, w.blind.auth);
    const reader = await pool.identify(srv.gatewayUrl, w.reader.auth);
    const channelIn = (c: typeof blind) =>
      (c.ready!.servers as Array<{ id: string; channels: Array<{ id: string; lastMessageId: string | null }> }>)
        .find((s) => s.id === w.server.id)!
        .channels.find((ch) => ch.id === w.general.id)!;
    expect(channelIn(blind)).toBeDefined();
    expect(channelIn(blind).lastMessageId).toBeNull();
    expect(channelIn(reader).lastMessageId).not.toBeNull();
    // Nor a read state that says where the history they cannot read ends, or who pinged them there.
    expect(JSON.stringify((blind.ready as { readStates?: unknown }).readStates ?? [])).not.toContain(w.general.id);
    const r = await call(srv.url, 'POST', `/channels/${w.general.id}/messages`, {
      auth: w.reader.auth,
      body: { content: 'see above', messageReference: { messageId: w.secret.id } },
    });
    expect(r.status).toBe(201);
    const got = await reader.waitForEvent('MESSAGE_CREATE', (d) => d.id === r.body.id);
    expect(got.d.referencedMessage).toMatchObject({ content: SECRET });
    // The blind member's own edit: its event reaches readers with the secret; the blind member's sessions get none.
    const edit = await call(srv.url, 'PATCH', `/channels/${w.general.id}/messages/${w.earlier.id}`, {
      auth: w.blind.auth,
      body: { content: 'noted!' },
    });
    expect(edit.status).toBe(200);
    const updated = await reader.waitForEvent('MESSAGE_UPDATE', (d) => d.id === w.earlier.id);
    expect(updated.d.referencedMessage).toMatchObject({ content: SECRET });
    // A later event the blind member does receive: everything before it was delivered or filtered.
    const marker = await postMessage(srv.url, w.owner.auth, other.id, 'marker');
    await blind.waitForEvent('MESSAGE_CREATE', (d) => d.id === marker.id);
    expect(JSON.stringify(blind.frames)).not.toContain(SECRET);
  });

  it("Discord's gateway: the bot with only SEND_MESSAGES sees the channel without last_message_id", async () => {
    const w = await setup();
    const c = await identifyDiscord(pool, srv, w.bot.token, ALL_MESSAGES);
    const guild = c.events('GUILD_CREATE').find((f) => f.d.id === w.server.id)!;
    const general = guild.d.channels.find((ch: { id: string }) => ch.id === w.general.id);
    expect(general).toBeDefined();
    expect(general.last_message_id ?? null).toBeNull();
  });
});

describe('an interaction', () => {
  const ROWS = [{ type: 'row', components: [{ type: 'button', style: 'primary', label: 'Go', customId: 'go' }] }];

  it('the clicked message reaches a bot that cannot read history without the message it replies to, on both gateways', async () => {
    const w = await setup();
    // A bot that replied (with a button) while it could read, and then lost READ_MESSAGE_HISTORY.
    const clicky = await createBot(srv.url, w.owner);
    await addBot(srv.url, w.owner, w.server.id, clicky.id, ['READ_MESSAGES', 'SEND_MESSAGES']);
    const m = await call(srv.url, 'POST', `/channels/${w.general.id}/messages`, {
      auth: clicky.auth,
      body: { content: 'press', components: ROWS, messageReference: { messageId: w.secret.id } },
    });
    expect(m.status, m.text).toBe(201);
    expect(m.body.referencedMessage).toMatchObject({ content: SECRET });
    const deny = await call(srv.url, 'PUT', `/channels/${w.general.id}/permissions/${clicky.id}`, {
      auth: w.owner.auth,
      body: { type: 'member', allow: '0', deny: READ_MESSAGE_HISTORY },
    });
    expect(deny.status, deny.text).toBe(204);
    const native = await pool.identify(srv.gatewayUrl, clicky.auth);
    const discord = await identifyDiscord(pool, srv, clicky.token, ALL_MESSAGES);
    const click = await call(srv.url, 'POST', `/channels/${w.general.id}/interactions`, {
      auth: w.reader.auth,
      body: { type: 'component', messageId: m.body.id, customId: 'go' },
    });
    expect(click.status, click.text).toBe(202);
    const ev = await native.waitForEvent('INTERACTION_CREATE', (d) => d.id === click.body.id);
    expect(ev.d.message).toMatchObject({ id: m.body.id, messageReference: { messageId: w.secret.id } });
    expect(ev.d.message.referencedMessage).toBeUndefined();
    expect(JSON.stringify(ev.d)).not.toContain(SECRET);
    const dev = await discord.waitForEvent('INTERACTION_CREATE', (d) => d.id === click.body.id);
    expect(dev.d.message.referenced_message).toBeUndefined();
    expect(JSON.stringify(dev.d)).not.toContain(SECRET);
    // Its token reads the clicked message back (once it is the original) the same way.
    const u = await call(srv.url, 'POST', `/interactions/${ev.d.id}/${ev.d.token}/callback`, {
      body: { type: 'update', data: { content: 'pressed' } },
    });
    expect(u.status, u.text).toBe(204);
    const original = await call(srv.url, 'GET', `/interactions/${ev.d.token}/messages/original`);
    expect(original.status, original.text).toBe(200);
    expect(original.body.referencedMessage).toBeUndefined();
    expect(original.text).not.toContain(SECRET);
  });
});
