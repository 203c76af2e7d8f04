// Issue 39 (docs/threads.md, docs/discord.md#routes): discord.js v14's thread calls, unchanged,
// against Parley: message.startThread, channel.threads.create (public and private),
// thread.members.add, setArchived, setLocked, fetchActiveThreads and fetchArchived; and
// @discordjs/core's API class over the same routes.
import { API } from '@discordjs/core';
import { REST } from '@discordjs/rest';
import { ChannelType, type Client, type TextChannel, type ThreadChannel } from 'discord.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call, joinServer, registerUser, world } from '../factories.js';
import { startServer, type TestServer } from '../harness.js';
import { login as djsLogin } from './djs.js';

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
