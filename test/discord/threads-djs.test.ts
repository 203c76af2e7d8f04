// Issue 39 (docs/threads.md, docs/discord.md#routes): discord.js v14's thread calls, unchanged,
// against Parley: message.startThread, channel.threads.create (public and private),
// thread.members.add, setArchived, setLocked, fetchActiveThreads and fetchArchived; and
// @discordjs/core's API class over the same routes.
import { API } from '@discordjs/core';
import { REST } from '@discordjs/rest';
import { ChannelType, type Client, type Collection, type Guild, type TextChannel, type ThreadChannel, type ThreadMember } from 'discord.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { addBot, call, createBot, joinServer, registerUser, world } from '../factories.js';
import { startServer, type TestServer } from '../harness.js';
import { login as djsLogin, next } from './djs.js';

let srv: TestServer;
const clients: Client[] = [];

beforeAll(async () => {
  srv = await startServer({ env: { GATEWAY_HEARTBEAT_MS: '5000', RATE_LIMITS: 'off' } });
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.destroy()));
});
afterAll(() => srv?.close());

/** VIEW_CHANNEL, SEND_MESSAGES, READ_MESSAGE_HISTORY and the four thread bits (34, 35, 36, 38). */
const BOT_PERMISSIONS = String((1n << 10n) | (1n << 11n) | (1n << 16n) | (1n << 34n) | (1n << 35n) | (1n << 36n) | (1n << 38n));

/** A server with a bot holding `BOT_PERMISSIONS`. */
async function threadWorld() {
  const w = await world(srv.url);
  const r = await call(srv.url, 'PATCH', `/servers/${w.server.id}/bots/${w.bot.id}`, {
    auth: w.owner.auth,
    body: { permissions: BOT_PERMISSIONS },
  });
  expect(r.status).toBe(200);
  return w;
}

describe('discord.js threads against Parley', () => {
  it('starts threads from a message and on their own, posts in them, adds members, archives and locks', async () => {
    const w = await threadWorld();
    const person = await registerUser(srv.url);
    await joinServer(srv.url, w.owner, person, w.server.id);
    const client = await djsLogin(srv, clients, w.bot.token);
    const channel = (await client.channels.fetch(w.channel.id)) as TextChannel;

    const message = await channel.send('let us discuss');
    const fromMessage = await message.startThread({ name: 'discussion' });
    expect(fromMessage.isThread()).toBe(true);
    expect(fromMessage.id).toBe(message.id);
    expect(fromMessage.type).toBe(ChannelType.PublicThread);
    expect(fromMessage.parentId).toBe(channel.id);
    const posted = await fromMessage.send('in the thread');
    expect(posted.channelId).toBe(fromMessage.id);

    const pub = await channel.threads.create({ name: 'public one', type: ChannelType.PublicThread });
    expect(pub.type).toBe(ChannelType.PublicThread);
    const priv = await channel.threads.create({ name: 'private one', type: ChannelType.PrivateThread, invitable: false });
    expect(priv.type).toBe(ChannelType.PrivateThread);
    expect(priv.invitable).toBe(false);

    // The person cannot see the private thread until the bot adds them.
    expect((await call(srv.url, 'GET', `/channels/${priv.id}/messages`, { auth: person.auth })).status).toBe(403);
    await priv.members.add(person.id);
    expect((await call(srv.url, 'GET', `/channels/${priv.id}/messages`, { auth: person.auth })).status).toBe(200);
    const members = await priv.members.fetch();
    expect([...members.keys()].sort()).toEqual([w.bot.id, person.id].sort());

    const archived = await pub.setArchived(true);
    expect(archived.archived).toBe(true);
    const locked = await fromMessage.setLocked(true);
    expect(locked.locked).toBe(true);
    // A locked thread refuses the person (160005 natively as thread_locked).
    const refused = await call(srv.url, 'POST', `/channels/${fromMessage.id}/messages`, { auth: person.auth, body: { content: 'x' } });
    expect(refused.body.code).toBe('thread_locked');
  });

  it('fetches active and archived threads', async () => {
    const w = await threadWorld();
    const client = await djsLogin(srv, clients, w.bot.token);
    const channel = (await client.channels.fetch(w.channel.id)) as TextChannel;
    const active = await channel.threads.create({ name: 'active', type: ChannelType.PublicThread });
    const old = await channel.threads.create({ name: 'old', type: ChannelType.PublicThread });
    await old.setArchived(true);

    const guild = client.guilds.cache.get(w.server.id)!;
    const fetched = await guild.channels.fetchActiveThreads();
    expect([...fetched.threads.keys()]).toContain(active.id);
    expect([...fetched.threads.keys()]).not.toContain(old.id);
    const fromChannel = await channel.threads.fetchActive();
    expect([...fromChannel.threads.keys()]).toEqual([active.id]);

    const page = await channel.threads.fetchArchived({ type: 'public' });
    expect([...page.threads.keys()]).toEqual([old.id]);
    expect(page.hasMore).toBe(false);
    const thread = page.threads.get(old.id) as ThreadChannel;
    expect(thread.archived).toBe(true);
    const priv = await channel.threads.fetchArchived({ type: 'private' });
    expect(priv.threads.size).toBe(0);
  });
});

const api = (method: string, path: string, who: { auth: string }, body?: unknown) =>
  call(srv.url, method, `/api/v10${path}`, { auth: who.auth, ...(body !== undefined ? { body } : {}) });

describe('discord.js hears threads (docs/threads.md#events)', () => {
  it('has the active threads it may see in its caches after login, with its own membership', async () => {
    const w = await threadWorld();
    const msg = await call(srv.url, 'POST', `/channels/${w.channel.id}/messages`, { auth: w.owner.auth, body: { content: 'topic' } });
    const pub = await api('POST', `/channels/${w.channel.id}/messages/${msg.body.id}/threads`, w.owner, { name: 'before login' });
    expect(pub.status).toBe(201);
    const priv = await api('POST', `/channels/${w.channel.id}/threads`, w.owner, { name: 'private before', type: 12 });
    await api('PUT', `/channels/${priv.body.id}/thread-members/${w.bot.id}`, w.owner);
    const client = await djsLogin(srv, clients, w.bot.token);
    const guild = client.guilds.cache.get(w.server.id)!;
    const thread = client.channels.cache.get(pub.body.id) as ThreadChannel;
    expect(thread?.isThread()).toBe(true);
    expect(thread.name).toBe('before login');
    expect(thread.parentId).toBe(w.channel.id);
    expect(guild.channels.cache.has(pub.body.id)).toBe(true);
    expect((guild.channels.cache.get(w.channel.id) as TextChannel).threads.cache.has(pub.body.id)).toBe(true);
    expect(thread.joined).toBe(false);
    const mine = client.channels.cache.get(priv.body.id) as ThreadChannel;
    expect(mine.type).toBe(ChannelType.PrivateThread);
    expect(mine.joined).toBe(true);
  });

  it('a bot added mid-session has the server’s active threads it may see from its GUILD_CREATE', async () => {
    const w = await threadWorld();
    const pub = await api('POST', `/channels/${w.channel.id}/threads`, w.owner, { name: 'before the bot', type: 11 });
    const priv = await api('POST', `/channels/${w.channel.id}/threads`, w.owner, { name: 'not for it', type: 12 });
    expect(pub.status).toBe(201);
    const late = await createBot(srv.url, w.owner);
    const client = await djsLogin(srv, clients, late.token);
    const joined = next<[Guild]>(client, 'guildCreate', (g) => g.id === w.server.id);
    await addBot(srv.url, w.owner, w.server.id, late.id);
    await joined;
    expect((client.channels.cache.get(pub.body.id) as ThreadChannel | undefined)?.name).toBe('before the bot');
    expect(client.channels.cache.has(priv.body.id)).toBe(false);
  });

  it('emits threadCreate, threadUpdate, threadMembersUpdate and threadDelete', async () => {
    const w = await threadWorld();
    const person = await registerUser(srv.url);
    await joinServer(srv.url, w.owner, person, w.server.id);
    const client = await djsLogin(srv, clients, w.bot.token);

    const created = next<[ThreadChannel, boolean]>(client, 'threadCreate', (t) => t.name === 'by a person');
    const made = await api('POST', `/channels/${w.channel.id}/threads`, person, { name: 'by a person', type: 11 });
    expect(made.status).toBe(201);
    const [thread, newly] = await created;
    expect(newly).toBe(true);
    expect(thread.id).toBe(made.body.id);
    expect(thread.ownerId).toBe(person.id);
    expect(client.channels.cache.get(thread.id)).toBe(thread);

    const archived = next<[ThreadChannel, ThreadChannel]>(client, 'threadUpdate', (_, t) => t.id === thread.id && t.archived === true);
    await thread.setArchived(true);
    // (discord.js already patched its cache from the REST answer: the event's `after` is what counts.)
    const [, after] = await archived;
    expect(after.archived).toBe(true);
    await thread.setArchived(false);
    const locked = next<[ThreadChannel, ThreadChannel]>(client, 'threadUpdate', (_, t) => t.id === thread.id && t.locked === true);
    await thread.setLocked(true);
    await locked;

    // Someone joining, with GUILD_MEMBERS.
    const joined = next<[Collection<string, ThreadMember>, Collection<string, ThreadMember>, ThreadChannel]>(
      client,
      'threadMembersUpdate',
      (added, _removed, t) => t.id === thread.id && added.has(w.bot.id),
    );
    await thread.members.add('@me');
    await joined;
    expect(thread.joined).toBe(true);

    const deleted = next<[ThreadChannel]>(client, 'threadDelete', (t) => t.id === thread.id);
    await api('DELETE', `/channels/${thread.id}`, w.owner);
    await deleted;
    expect(client.channels.cache.has(thread.id)).toBe(false);
  });

  it('syncs a channel’s threads when it gains the channel (threadListSync)', async () => {
    const w = await threadWorld();
    const msg = await call(srv.url, 'POST', `/channels/${w.channel.id}/messages`, {
      auth: w.owner.auth,
      body: { content: 'hidden topic' },
    });
    const deny = await call(srv.url, 'PUT', `/channels/${w.channel.id}/permissions/${w.bot.id}`, {
      auth: w.owner.auth,
      body: { type: 'member', allow: '0', deny: String(1n << 10n) },
    });
    expect(deny.status).toBe(204);
    const pub = await api('POST', `/channels/${w.channel.id}/messages/${msg.body.id}/threads`, w.owner, { name: 'while hidden' });
    expect(pub.status).toBe(201);
    const client = await djsLogin(srv, clients, w.bot.token);
    expect(client.channels.cache.has(pub.body.id)).toBe(false);
    const synced = next<[Collection<string, ThreadChannel>]>(client, 'threadListSync', (threads) => threads.has(pub.body.id));
    expect((await call(srv.url, 'DELETE', `/channels/${w.channel.id}/permissions/${w.bot.id}`, { auth: w.owner.auth })).status).toBe(204);
    await synced;
    expect((client.channels.cache.get(pub.body.id) as ThreadChannel).name).toBe('while hidden');
  });
});

describe('@discordjs/core threads against Parley', () => {
  it('creates, joins, lists, archives and deletes threads through its API class', async () => {
    const w = await threadWorld();
    const person = await registerUser(srv.url);
    await joinServer(srv.url, w.owner, person, w.server.id);
    const api = new API(new REST({ api: `${srv.url}/api` }).setToken(w.bot.token));
    const message = await api.channels.createMessage(w.channel.id, { content: 'a topic' });
    const started = await api.channels.createThread(w.channel.id, { name: 'from core' }, message.id);
    expect(started).toMatchObject({ id: message.id, type: ChannelType.PublicThread, parent_id: w.channel.id });
    const priv = await api.channels.createThread(w.channel.id, { name: 'private core', type: ChannelType.PrivateThread });
    await api.threads.addMember(priv.id, person.id);
    expect((await api.threads.getMember(priv.id, person.id)).user_id).toBe(person.id);
    expect((await api.threads.getAllMembers(priv.id)).map((m) => m.user_id).sort()).toEqual([w.bot.id, person.id].sort());
    await api.threads.removeMember(priv.id, person.id);
    await api.threads.leave(started.id);
    await api.threads.join(started.id);
    const active = await api.guilds.getActiveThreads(w.server.id);
    expect(active.threads.map((t) => t.id).sort()).toEqual([started.id, priv.id].sort());
    await api.channels.edit(priv.id, { archived: true });
    const archived = await api.channels.getArchivedThreads(w.channel.id, 'private');
    expect(archived.threads.map((t) => t.id)).toEqual([priv.id]);
    expect((await api.channels.getJoinedPrivateArchivedThreads(w.channel.id)).threads.map((t) => t.id)).toEqual([priv.id]);
    const deleted = await api.channels.delete(started.id);
    expect(deleted.id).toBe(started.id);
    await expect(api.channels.get(started.id)).rejects.toMatchObject({ code: 10003 });
  });
});
