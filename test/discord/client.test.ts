// Acceptance with the real discord.js v14: a Client given only its intents and
// `rest: { api: base + '/api' }` logs in with a Parley bot token, gets ready with its
// guilds, and runs a command bot; people act through Parley's native API.
import {
  ActionRowBuilder,
  AttachmentBuilder,
  ButtonBuilder,
  ButtonStyle,
  type Client,
  EmbedBuilder,
  Events,
  GatewayIntentBits,
  type Guild,
  type Interaction,
  type Message,
} from 'discord.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call, createBot, createChannel, createServer, postMessage, registerUser, world } from '../factories.js';
import { ClientPool } from '../gateway/client.js';
import { startServer, type TestServer } from '../harness.js';
import { login as djsLogin, next } from './djs.js';

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

const INTENTS = [
  GatewayIntentBits.Guilds,
  GatewayIntentBits.GuildMembers,
  GatewayIntentBits.GuildMessages,
  GatewayIntentBits.GuildMessageReactions,
  GatewayIntentBits.GuildMessageTyping,
  GatewayIntentBits.MessageContent,
];

/** A discord.js client logged in with `token`, once `ready` has fired. */
const login = (token: string, intents: GatewayIntentBits[] = INTENTS) => djsLogin(srv, clients, token, intents);

describe('discord.js Client against Parley', () => {
  it('logs in, gets ready, and caches its guild with channels, roles and members', async () => {
    const w = await world(srv.url);
    const client = await login(w.bot.token);
    expect(client.user?.id).toBe(w.bot.id);
    expect(client.application?.id).toBe(w.bot.id);
    const guild = client.guilds.cache.get(w.server.id);
    expect(guild?.name).toBe(w.server.name);
    expect(guild?.channels.cache.get(w.channel.id)?.name).toBe(w.channel.name);
    expect(guild?.roles.cache.has(w.server.id)).toBe(true);
    expect(guild?.members.cache.has(w.owner.id)).toBe(true);
    expect(guild?.members.me?.id).toBe(w.bot.id);
  });

  it('receives messageCreate with content, and channel events', async () => {
    const w = await world(srv.url);
    const client = await login(w.bot.token);
    const [got] = await Promise.all([
      next<[Message]>(client, Events.MessageCreate, (m) => m.content === 'hello bot'),
      postMessage(srv.url, w.owner.auth, w.channel.id, 'hello bot'),
    ]);
    expect(got[0].author.id).toBe(w.owner.id);
    expect(got[0].channelId).toBe(w.channel.id);
    expect(got[0].guildId).toBe(w.server.id);
    const created = next(client, Events.ChannelCreate);
    const ch = await createChannel(srv.url, w.owner, w.server.id, 'fresh');
    const [channel] = (await created) as [{ id: string; name: string }];
    expect([channel.id, channel.name]).toEqual([ch.id, 'fresh']);
  });

  it('runs a command bot: reply, react, typing, embed, file, edit, delete, history', async () => {
    // A bot invited with what such a bot asks for: view, send, history, embeds, files, reactions.
    const owner = await registerUser(srv.url);
    const { server, general } = await createServer(srv.url, owner);
    const bot = await createBot(srv.url, owner);
    const bits = [10, 11, 16, 14, 15, 6].reduce((a, b) => a | (1n << BigInt(b)), 0n).toString();
    expect(
      (await call(srv.url, 'POST', `/servers/${server.id}/bots`, { auth: owner.auth, body: { botId: bot.id, permissions: bits } })).status,
    ).toBe(201);
    const w = { owner, server, channel: general, bot };
    const client = await login(w.bot.token);
    const done = new Promise<string[]>((resolve, reject) => {
      client.on(Events.MessageCreate, async (m) => {
        if (m.author.bot || m.content !== '!go') return;
        try {
          const steps: string[] = [];
          const reply = await m.reply('on it');
          steps.push(`reply:${reply.reference?.messageId}`);
          await m.react('👍');
          steps.push('react');
          await m.channel.sendTyping();
          steps.push('typing');
          const embed = await m.channel.send({ embeds: [new EmbedBuilder().setTitle('Report').setDescription('all good')] });
          steps.push(`embed:${embed.embeds[0]?.title}`);
          const file = await m.channel.send({ files: [new AttachmentBuilder(Buffer.from('hello file'), { name: 'hello.txt' })] });
          steps.push(`file:${file.attachments.first()?.name}`);
          const edited = await reply.edit('done');
          steps.push(`edit:${edited.content}`);
          await embed.delete();
          steps.push('delete');
          const history = await m.channel.messages.fetch({ limit: 10 });
          steps.push(`history:${history.has(m.id)}:${history.has(embed.id)}`);
          resolve(steps);
        } catch (err) {
          reject(err);
        }
      });
    });
    await postMessage(srv.url, w.owner.auth, w.channel.id, '!go');
    const steps = await done;
    const go = (await call(srv.url, 'GET', `/channels/${w.channel.id}/messages`, { auth: w.owner.auth })).body as any[];
    const original = go.find((m) => m.content === '!go');
    expect(steps).toEqual([
      `reply:${original.id}`,
      'react',
      'typing',
      'embed:Report',
      'file:hello.txt',
      'edit:done',
      'delete',
      'history:true:false',
    ]);
    expect(original.reactions.map((r: any) => r.emoji)).toEqual(['👍']);
    expect(go.some((m) => m.content === 'done' && m.author.id === w.bot.id)).toBe(true);
  });

  it('registers a slash command, answers it with interaction.reply, and handles a button with interaction.update', async () => {
    const w = await world(srv.url);
    const client = await login(w.bot.token);
    const cmd = await client.application!.commands.create({ name: 'ping', description: 'Ping the bot' });
    expect(cmd.name).toBe('ping');
    client.on(Events.InteractionCreate, async (i: Interaction) => {
      if (i.isChatInputCommand() && i.commandName === 'ping') {
        const row = new ActionRowBuilder<ButtonBuilder>().addComponents(
          new ButtonBuilder().setCustomId('again').setLabel('Again').setStyle(ButtonStyle.Primary),
        );
        await i.reply({ content: `pong to ${i.user.id}`, components: [row] });
      } else if (i.isButton() && i.customId === 'again') {
        await i.update({ content: 'clicked', components: [] });
      }
    });
    // The person watches the channel on Parley's own gateway.
    const person = await pool.identify(srv.gatewayUrl, w.owner.auth);
    const invoked = await call(srv.url, 'POST', `/channels/${w.channel.id}/interactions`, {
      auth: w.owner.auth,
      body: { type: 'command', botId: w.bot.id, name: 'ping' },
    });
    expect(invoked.status).toBe(202);
    const answer = (await person.waitForEvent('MESSAGE_CREATE', (d) => d.content === `pong to ${w.owner.id}`)).d;
    expect(answer.author.id).toBe(w.bot.id);
    expect(answer.components[0].components[0]).toMatchObject({ type: 'button', customId: 'again' });

    const clicked = await call(srv.url, 'POST', `/channels/${w.channel.id}/interactions`, {
      auth: w.owner.auth,
      body: { type: 'component', messageId: answer.id, customId: 'again' },
    });
    expect(clicked.status).toBe(202);
    const updated = (await person.waitForEvent('MESSAGE_UPDATE', (d) => d.id === answer.id && d.content === 'clicked')).d;
    expect(updated.components ?? []).toEqual([]);
  });

  it('resumes after its connection is dropped and receives what was posted meanwhile', async () => {
    const w = await world(srv.url);
    const client = await login(w.bot.token);
    const seen: string[] = [];
    client.on(Events.MessageCreate, (m) => seen.push(m.content));
    const resumed = next(client, Events.ShardResume);
    // Drop every gateway socket server-side, as a network failure would.
    for (const socket of (srv.app.gateway as unknown as { wss: { clients: Set<{ terminate(): void }> } }).wss.clients) socket.terminate();
    await postMessage(srv.url, w.owner.auth, w.channel.id, 'while away');
    await resumed;
    await postMessage(srv.url, w.owner.auth, w.channel.id, 'after resume');
    await next<[Message]>(client, Events.MessageCreate, (m) => m.content === 'after resume');
    expect(seen).toEqual(['while away', 'after resume']);
  });

  it('honours intents: without GuildMessages no messageCreate, while channel events still come', async () => {
    const w = await world(srv.url);
    const client = await login(w.bot.token, [GatewayIntentBits.Guilds]);
    const messages: string[] = [];
    client.on(Events.MessageCreate, (m) => messages.push(m.content));
    await postMessage(srv.url, w.owner.auth, w.channel.id, 'unseen');
    // The marker, published after the message: a channel event, which Guilds covers.
    const marker = next(client, Events.ChannelCreate);
    await createChannel(srv.url, w.owner, w.server.id, 'marker');
    await marker;
    expect(messages).toEqual([]);
  });
});

describe('joining and leaving servers mid-session', () => {
  it("fires guildCreate with the server's visible channels, roles and members when the bot is added, then its events arrive", async () => {
    const w = await world(srv.url);
    const client = await login(w.bot.token);
    const { server, general } = await createServer(srv.url, w.owner, 'Second home');
    const secret = await createChannel(srv.url, w.owner, server.id, 'secret');
    // Hidden from everyone but the owner, before the bot arrives.
    await call(srv.url, 'PUT', `/channels/${secret.id}/permissions/${server.id}`, {
      auth: w.owner.auth,
      body: { type: 'role', allow: '0', deny: String(1n << 10n) },
    });
    const created = next<[Guild]>(client, Events.GuildCreate, (g) => g.id === server.id);
    expect((await call(srv.url, 'POST', `/servers/${server.id}/bots`, { auth: w.owner.auth, body: { botId: w.bot.id } })).status).toBe(201);
    const [guild] = await created;
    expect(guild.name).toBe('Second home');
    expect(client.guilds.cache.get(server.id)).toBe(guild);
    expect(guild.channels.cache.get(general.id)?.name).toBe('general');
    expect(guild.channels.cache.has(secret.id)).toBe(false);
    expect(guild.roles.cache.has(server.id)).toBe(true);
    expect(guild.members.cache.has(w.owner.id)).toBe(true);
    expect(guild.members.me?.id).toBe(w.bot.id);
    const [got] = await Promise.all([
      next<[Message]>(client, Events.MessageCreate, (m) => m.content === 'welcome'),
      postMessage(srv.url, w.owner.auth, general.id, 'welcome'),
    ]);
    expect(got[0].guild?.id).toBe(server.id);
    expect(got[0].channel.id).toBe(general.id);
  });

  it('past 250 members, guildCreate lists only the bot and gives the member count', async () => {
    const w = await world(srv.url);
    const client = await login(w.bot.token);
    const { server } = await createServer(srv.url, w.owner, 'Crowded');
    // 260 more people, written through the store: registering each would take minutes of scrypt.
    const { store } = srv.app.ctx;
    const at = new Date().toISOString();
    await store.write(async (tx) => {
      for (let i = 0; i < 260; i++) {
        const id = store.ids.next();
        await store.users.insert(tx, {
          id,
          username: `crowd${id}`,
          usernameKey: `crowd${id}`,
          name: `Crowd ${i}`,
          bot: 0,
          ownerId: null,
          passwordHash: null,
          tokenHash: null,
          avatar: null,
          createdAt: at,
        });
        await store.members.insert(tx, { serverId: server.id, userId: id, joinedAt: at });
      }
    });
    const created = next<[Guild]>(client, Events.GuildCreate, (g) => g.id === server.id);
    expect((await call(srv.url, 'POST', `/servers/${server.id}/bots`, { auth: w.owner.auth, body: { botId: w.bot.id } })).status).toBe(201);
    const [guild] = await created;
    expect(guild.memberCount).toBe(262);
    expect([...guild.members.cache.keys()]).toEqual([w.bot.id]);
    expect(guild.members.me?.roles.cache.size).toBe(2);
  });

  it('fires guildDelete when the bot is removed or the server deleted, and nothing of the server arrives after', async () => {
    const w = await world(srv.url);
    const { server, general } = await createServer(srv.url, w.owner, 'Short stay');
    const doomed = await createServer(srv.url, w.owner, 'Doomed');
    for (const s of [server, doomed.server])
      expect((await call(srv.url, 'POST', `/servers/${s.id}/bots`, { auth: w.owner.auth, body: { botId: w.bot.id } })).status).toBe(201);
    const client = await login(w.bot.token);
    expect(client.guilds.cache.has(server.id)).toBe(true);
    const seen: string[] = [];
    client.on(Events.MessageCreate, (m) => seen.push(m.content));
    const removed = next<[Guild]>(client, Events.GuildDelete, (g) => g.id === server.id);
    expect((await call(srv.url, 'DELETE', `/servers/${server.id}/bots/${w.bot.id}`, { auth: w.owner.auth })).status).toBe(204);
    await removed;
    expect(client.guilds.cache.has(server.id)).toBe(false);
    await postMessage(srv.url, w.owner.auth, general.id, 'after removal');
    // The marker, posted after it in a server the bot is still in.
    const marker = next<[Message]>(client, Events.MessageCreate, (m) => m.content === 'marker');
    await postMessage(srv.url, w.owner.auth, w.channel.id, 'marker');
    await marker;
    expect(seen).toEqual(['marker']);

    const gone = next<[Guild]>(client, Events.GuildDelete, (g) => g.id === doomed.server.id);
    expect((await call(srv.url, 'DELETE', `/servers/${doomed.server.id}`, { auth: w.owner.auth })).status).toBe(204);
    await gone;
    expect(client.guilds.cache.has(doomed.server.id)).toBe(false);
  });
});
