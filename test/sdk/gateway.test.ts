// The SDK's gateway client against a real Parley: identify/ready, typed events caused
// by HTTP calls, heartbeats, resume after a dropped connection, and fatal closes.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GatewayClient, GatewayError, ParleyBot, type DispatchEvent, type Message } from '@parley/sdk';
import type WebSocket from 'ws';
import { call, createChannel, joinServer, postMessage, registerUser, world } from '../factories.js';
import { startServer, type TestServer } from '../harness.js';
import { TestGatewayClient } from '../gateway/client.js';
import { until } from './mock-gateway.js';

const HEARTBEAT_MS = 500;

let srv: TestServer;
const bots: ParleyBot[] = [];

beforeAll(async () => {
  srv = await startServer({ env: { GATEWAY_HEARTBEAT_MS: String(HEARTBEAT_MS), RATE_LIMITS: 'off' } });
});

afterEach(async () => {
  await Promise.all(bots.splice(0).map((bot) => bot.close()));
});

afterAll(async () => {
  await srv?.close();
});

function newBot(token: string, options: Partial<ConstructorParameters<typeof ParleyBot>[0]> = {}): ParleyBot {
  const bot = new ParleyBot({ baseUrl: srv.url, token, reconnect: { initialDelayMs: 100, maxDelayMs: 1000 }, ...options });
  bots.push(bot);
  return bot;
}

describe('ParleyBot against a real server', () => {
  it('identifies and receives ready with the bot and its servers', async () => {
    const w = await world(srv.url);
    const bot = newBot(w.bot.token);
    const ready = await bot.connect();
    expect(ready.sessionId).toEqual(expect.any(String));
    expect(ready.user).toMatchObject({ id: w.bot.id, name: w.bot.name, bot: true });
    expect(bot.user?.id).toBe(w.bot.id);
    const server = ready.servers.find((s) => s.id === w.server.id);
    expect(server).toMatchObject({ id: w.server.id, name: w.server.name });
    expect(server?.channels).toContainEqual(expect.objectContaining({ id: w.channel.id, name: 'general', serverId: w.server.id }));
    expect(bot.gateway.status).toBe('ready');
  });

  it('delivers messageCreate (typed) for a message posted over HTTP', async () => {
    const w = await world(srv.url);
    const bot = newBot(w.bot.token);
    await bot.connect();
    const next = bot.waitFor('messageCreate', { filter: (m) => m.content === 'hello bot' });
    const posted = await postMessage(srv.url, w.owner.auth, w.channel.id, 'hello bot');
    const [message] = await next;
    const content: string = message.content; // typed: Message
    expect(content).toBe('hello bot');
    expect(message).toMatchObject({
      id: posted.id,
      channelId: w.channel.id,
      serverId: w.server.id,
      author: { id: w.owner.id, bot: false },
    });
  });

  it('delivers a thread’s events (threadCreate, threadMembersUpdate, threadUpdate, threadDelete) and ready’s threads', async () => {
    const w = await world(srv.url);
    const early = await call(srv.url, 'POST', `/api/v10/channels/${w.channel.id}/threads`, {
      auth: w.owner.auth,
      body: { name: 'early', type: 11 },
    });
    const bot = newBot(w.bot.token);
    const ready = await bot.connect();
    expect(ready.servers.find((s) => s.id === w.server.id)?.threads?.map((t) => t.id)).toEqual([early.body.id]);
    const created = bot.waitFor('threadCreate', { filter: (t) => t.name === 'sdk thread' });
    const joined = bot.waitFor('threadMembersUpdate', { filter: (d) => d.addedMembers?.[0]?.userId === w.owner.id });
    const made = await call(srv.url, 'POST', `/api/v10/channels/${w.channel.id}/threads`, {
      auth: w.owner.auth,
      body: { name: 'sdk thread', type: 11 },
    });
    const [thread] = await created;
    expect(thread).toMatchObject({ id: made.body.id, parentId: w.channel.id, type: 'public_thread', ownerId: w.owner.id });
    expect((await joined)[0].memberCount).toBe(1);
    const updated = bot.waitFor('threadUpdate', { filter: (t) => t.id === thread.id && t.metadata.archived });
    await call(srv.url, 'PATCH', `/api/v10/channels/${thread.id}`, { auth: w.owner.auth, body: { archived: true } });
    await updated;
    const deleted = bot.waitFor('threadDelete', { filter: (d) => d.id === thread.id });
    await call(srv.url, 'DELETE', `/api/v10/channels/${thread.id}`, { auth: w.owner.auth });
    expect((await deleted)[0]).toEqual({ id: thread.id, serverId: w.server.id, parentId: w.channel.id, type: 'public_thread' });
  });

  it('delivers the other event types with their payloads', async () => {
    const w = await world(srv.url);
    const bot = newBot(w.bot.token);
    const events: DispatchEvent[] = [];
    bot.on('dispatch', (e) => {
      events.push(e);
    });
    await bot.connect();
    const owner = w.owner.auth;

    const message = await postMessage(srv.url, owner, w.channel.id, 'v1');
    const updated = bot.waitFor('messageUpdate');
    await call(srv.url, 'PATCH', `/channels/${w.channel.id}/messages/${message.id}`, { auth: owner, body: { content: 'v2' } });
    expect((await updated)[0]).toMatchObject({ id: message.id, content: 'v2' });

    const added = bot.waitFor('reactionAdd');
    await call(srv.url, 'PUT', `/channels/${w.channel.id}/messages/${message.id}/reactions/${encodeURIComponent('🎉')}`, { auth: owner });
    expect((await added)[0]).toEqual({
      channelId: w.channel.id,
      serverId: w.server.id,
      messageId: message.id,
      emoji: '🎉',
      userId: w.owner.id,
      count: 1,
    });
    const removed = bot.waitFor('reactionRemove');
    await call(srv.url, 'PUT', `/channels/${w.channel.id}/messages/${message.id}/reactions/${encodeURIComponent('🎉')}`, { auth: owner });
    expect((await removed)[0]).toMatchObject({ messageId: message.id, emoji: '🎉', count: 0 });

    const typing = bot.waitFor('typingStart');
    await call(srv.url, 'POST', `/channels/${w.channel.id}/typing`, { auth: owner });
    expect((await typing)[0]).toEqual({
      channelId: w.channel.id,
      serverId: w.server.id,
      userId: w.owner.id,
      name: w.owner.name,
      bot: false,
    });

    const deleted = bot.waitFor('messageDelete');
    await call(srv.url, 'DELETE', `/channels/${w.channel.id}/messages/${message.id}`, { auth: owner });
    expect((await deleted)[0]).toEqual({ id: message.id, channelId: w.channel.id, serverId: w.server.id });

    const channelCreated = bot.waitFor('channelCreate');
    const channel = await createChannel(srv.url, w.owner, w.server.id, 'fresh');
    expect((await channelCreated)[0]).toMatchObject({ id: channel.id, serverId: w.server.id, name: 'fresh' });
    const channelUpdated = bot.waitFor('channelUpdate');
    await call(srv.url, 'PATCH', `/channels/${channel.id}`, { auth: owner, body: { name: 'renamed' } });
    expect((await channelUpdated)[0]).toMatchObject({ id: channel.id, name: 'renamed' });
    const channelDeleted = bot.waitFor('channelDelete');
    await call(srv.url, 'DELETE', `/channels/${channel.id}`, { auth: owner });
    expect((await channelDeleted)[0]).toMatchObject({ id: channel.id, serverId: w.server.id });

    const joined = bot.waitFor('memberAdd');
    const newcomer = await registerUser(srv.url);
    await joinServer(srv.url, w.owner, newcomer, w.server.id);
    expect((await joined)[0]).toMatchObject({ serverId: w.server.id, user: { id: newcomer.id, name: newcomer.name, bot: false } });

    // Sequence numbers of one session count up from 1 without gaps. Typing is live only:
    // the client hands it on with the last number it had.
    const numbered = events.filter((e) => e.t !== 'TYPING_START');
    expect(numbered.map((e) => e.s)).toEqual(numbered.map((_, i) => i + 1));
    const typed = events.findIndex((e) => e.t === 'TYPING_START');
    expect(events[typed]!.s).toBe(events[typed - 1]!.s);
  });

  it('keeps the connection alive with heartbeats', async () => {
    const w = await world(srv.url);
    const bot = newBot(w.bot.token);
    const closes: number[] = [];
    bot.on('close', (info) => {
      closes.push(info.code);
    });
    await bot.connect();
    // The deadline's own event instead of a pause: a silent connection identified after
    // the bot is closed (4009) no earlier than the bot would be without heartbeats.
    const silent = await TestGatewayClient.identify(srv.gatewayUrl, w.owner.auth, { heartbeat: false });
    expect((await silent.waitForClose(HEARTBEAT_MS * 10)).code).toBe(4009);
    // Sync point on the bot's own connection: a 4009 would have come before this event
    // (the SDK would report the close, even if it then resumed).
    const seen = bot.waitFor('messageCreate', { timeoutMs: 5000 });
    await postMessage(srv.url, w.owner.auth, w.channel.id, 'still here');
    await seen;
    expect(closes).toEqual([]); // no 4009
    expect(bot.gateway.ping).toEqual(expect.any(Number));
  });

  it('resumes after the socket is dropped and receives the events it missed, in order', async () => {
    const w = await world(srv.url);
    // A slow first reconnect leaves time to post while the bot is away.
    const bot = newBot(w.bot.token, { reconnect: { initialDelayMs: 3000, maxDelayMs: 5000 } });
    const got: Message[] = [];
    const sequences: number[] = [];
    bot.on('messageCreate', (m) => {
      got.push(m);
    });
    bot.on('dispatch', (e) => {
      sequences.push(e.s);
    });
    let readies = 0;
    bot.on('ready', () => {
      readies++;
    });
    const ready = await bot.connect();

    await postMessage(srv.url, w.owner.auth, w.channel.id, 'before 1');
    await postMessage(srv.url, w.owner.auth, w.channel.id, 'before 2');
    await until(() => got.length === 2, 5000, 'messages before the drop');
    // Let a heartbeat acknowledge what was received, as a long-lived bot would: the second
    // ack from here on answers a heartbeat sent after the first ack, so after both
    // messages, carrying their sequence number (waiting for it, not for a fixed time).
    let acks = 0;
    // On Node the client's socket is a `ws` WebSocket.
    const socket = bot.gateway.socket as WebSocket;
    socket.on('message', (data) => {
      if ((JSON.parse(data.toString()) as { op: string }).op === 'heartbeat_ack') acks++;
    });
    await until(() => acks >= 2, HEARTBEAT_MS * 10, 'two heartbeat acks');

    const closed = bot.waitFor('close');
    socket.terminate(); // the network drops; no close frame
    expect((await closed)[0]).toMatchObject({ code: 1006, reconnecting: true });
    const resumed = bot.waitFor('resumed', { timeoutMs: 10_000 });
    const missed: string[] = [];
    for (let i = 1; i <= 5; i++) {
      missed.push((await postMessage(srv.url, w.owner.auth, w.channel.id, `while away ${i}`)).id);
    }
    expect(bot.gateway.status).toBe('reconnecting'); // still away: these must come by replay
    await resumed;
    await postMessage(srv.url, w.owner.auth, w.channel.id, 'after');
    await until(() => got.length === 8, 5000, 'all eight messages');

    expect(got.map((m) => m.content)).toEqual([
      'before 1',
      'before 2',
      'while away 1',
      'while away 2',
      'while away 3',
      'while away 4',
      'while away 5',
      'after',
    ]);
    expect(got.slice(2, 7).map((m) => m.id)).toEqual(missed);
    expect(sequences).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(readies).toBe(1); // resumed, not re-identified
    expect(bot.gateway.sessionId).toBe(ready.sessionId);
  });

  it('resumes when the socket drops before any heartbeat acknowledged anything', async () => {
    const w = await world(srv.url);
    const bot = newBot(w.bot.token, { reconnect: { initialDelayMs: 800, maxDelayMs: 1000 } });
    const got: string[] = [];
    bot.on('messageCreate', (m) => {
      got.push(m.content);
    });
    await bot.connect();
    await postMessage(srv.url, w.owner.auth, w.channel.id, 'one');
    await until(() => got.length === 1, 5000, 'first message');
    (bot.gateway.socket as WebSocket).terminate();
    await postMessage(srv.url, w.owner.auth, w.channel.id, 'two');
    await bot.waitFor('resumed', { timeoutMs: 10_000 });
    await until(() => got.length === 2, 5000, 'second message');
    expect(got).toEqual(['one', 'two']); // nothing delivered twice
  });

  it('rejects connect() with a GatewayError (4001) for a bad token', async () => {
    const bot = newBot('definitely-wrong');
    const error = await bot.connect().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).closeCode).toBe(4001);
    expect(bot.gateway.status).toBe('closed');
  });

  it('emits error (4001) and stays closed when the bot is deleted while connected', async () => {
    const w = await world(srv.url);
    const bot = newBot(w.bot.token);
    const closes: Array<{ code: number; reconnecting: boolean }> = [];
    bot.on('close', ({ code, reconnecting }) => {
      closes.push({ code, reconnecting });
    });
    await bot.connect();
    const errored = bot.waitFor('error', { timeoutMs: 5000 });
    const deleted = await call(srv.url, 'DELETE', `/bots/${w.bot.id}`, { auth: w.owner.auth });
    expect(deleted.status).toBe(204);
    const [error] = await errored;
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).closeCode).toBe(4001);
    // The SDK decides at the close whether to reconnect, and says so then: no pause can
    // show more (a reconnect is only ever scheduled together with reconnecting: true).
    expect(closes).toEqual([{ code: 4001, reconnecting: false }]);
    expect(bot.gateway.status).toBe('closed');
  });

  it('also works with a user session token (Bearer)', async () => {
    const w = await world(srv.url);
    const client = new GatewayClient({ url: srv.gatewayUrl, token: w.owner.auth });
    try {
      const ready = await client.connect();
      expect(ready.user).toMatchObject({ id: w.owner.id, bot: false });
    } finally {
      await client.close();
    }
  });

  it('reconnects when the server shuts down (1012)', async () => {
    const other = await startServer({ env: { GATEWAY_HEARTBEAT_MS: String(HEARTBEAT_MS) } });
    const w = await world(other.url);
    const bot = new ParleyBot({ baseUrl: other.url, token: w.bot.token, reconnect: { initialDelayMs: 5000 } });
    try {
      await bot.connect();
      const closed = bot.waitFor('close');
      await other.close();
      expect((await closed)[0]).toMatchObject({ code: 1012, reconnecting: true });
      expect(bot.gateway.status).toBe('reconnecting');
    } finally {
      await bot.close();
    }
  });
});
