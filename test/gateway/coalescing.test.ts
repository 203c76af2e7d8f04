// Issue 17's fan-out: the frames one turn of the event loop sends to a connection leave in
// one write (src/gateway/outbox.ts), in order, numbered as always, and filtered as always.
// Several events reach the gateway in one turn when the log dispatches them together; the
// tests publish them that way (synchronously, through the app's bus) to be sure of it.
import { once } from 'node:events';
import type { Socket } from 'node:net';
import { P } from '@parley/protocol';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { WebSocket, WebSocketServer } from 'ws';
import type { BusEntry, Signal } from '../../src/events/types.js';
import { addBot, call, createBot, createChannel, joinServer, postMessage, registerUser, world } from '../factories.js';
import { startServer, type TestServer } from '../harness.js';
import { ALL_MESSAGES, I, identifyDiscord } from '../discord/helpers.js';
import { ClientPool, type Frame, type TestGatewayClient } from './client.js';
import { LAZY_MS } from '../../src/gateway/outbox.js';

/** Typing sent at once (the harness's default, no typing window): these tests are about one turn's frames. */
let srv: TestServer;
/** The smallest slow-consumer bound (64 KiB). */
let tight: TestServer;
/** A typing window long enough that the staged typing below always falls inside it. */
let windowed: TestServer;
const pool = new ClientPool();

beforeAll(async () => {
  // Long heartbeats: the clients below do not heartbeat on their own, so nothing else is written meanwhile.
  [srv, tight, windowed] = await Promise.all([
    startServer({ env: { GATEWAY_HEARTBEAT_MS: '60000', RATE_LIMITS: 'off' } }),
    startServer({ env: { GATEWAY_HEARTBEAT_MS: '60000', RATE_LIMITS: 'off', GATEWAY_MAX_BUFFER_BYTES: String(64 * 1024) } }),
    startServer({ env: { GATEWAY_HEARTBEAT_MS: '60000', RATE_LIMITS: 'off', GATEWAY_TYPING_WINDOW_MS: '2000' } }),
  ]);
});
afterEach(() => pool.closeAll());
afterAll(() => Promise.all([srv?.close(), tight?.close(), windowed?.close()]));

/** The server's end of a test client's connection (to `srv`, unless said). */
function serverEnd(c: TestGatewayClient, on: TestServer = srv): WebSocket & { _socket: Socket } {
  const port = (c.ws as unknown as { _socket: Socket })._socket.localPort;
  const wss = (on.app.gateway as unknown as { wss: WebSocketServer }).wss;
  for (const ws of wss.clients) {
    const end = ws as WebSocket & { _socket: Socket };
    if (end._socket.remotePort === port) return end;
  }
  throw new Error('no server socket for the client');
}

const serverSocket = (c: TestGatewayClient, on: TestServer = srv): Socket => serverEnd(c, on)._socket;

/** Counts the writes the server's socket hands to the system (each `_write` or `_writev` is one). */
function countWrites(socket: Socket): { n: number } {
  const count = { n: 0 };
  const s = socket as unknown as Record<'_write' | '_writev', (...args: unknown[]) => void>;
  for (const m of ['_write', '_writev'] as const) {
    const original = s[m]!.bind(socket);
    s[m] = (...args: unknown[]) => {
      count.n++;
      original(...args);
    };
  }
  return count;
}

/** Publishes `entries` in one turn: the bus dispatches them together, on one later turn. */
function publishTogether(entries: Array<BusEntry | Signal>): void {
  for (const e of entries) {
    // Log entries and signals are each handed to the gateway in one later turn, log first
    // or signals first by which came first.
    if ('kind' in e) void srv.app.ctx.bus.publish(e);
    else srv.app.ctx.bus.signal(e);
  }
}

/** A bot that may not see `hidden`, in a server with a visible channel; its client (native, not heartbeating, or Discord's). */
async function setup(discord = false) {
  const w = await world(srv.url);
  const hidden = await createChannel(srv.url, w.owner, w.server.id, 'hidden');
  const r = await call(srv.url, 'PUT', `/channels/${hidden.id}/permissions/${w.bot.id}`, {
    auth: w.owner.auth,
    body: { type: 'member', deny: String(P.VIEW_CHANNEL) },
  });
  expect(r.status, r.text).toBe(204);
  const c = discord
    ? await identifyDiscord(pool, srv, w.bot.token, ALL_MESSAGES | I.GUILD_MESSAGE_TYPING)
    : await pool.identify(srv.gatewayUrl, w.bot.auth, { heartbeat: false });
  const visibleMsg = await postMessage(srv.url, w.owner.auth, w.channel.id, 'first');
  const hiddenMsg = await postMessage(srv.url, w.owner.auth, hidden.id, 'hidden secret');
  // The log is ordered: once a later visible event arrives, the hidden one was judged.
  await postMessage(srv.url, w.owner.auth, w.channel.id, 'second');
  await c.collect(discord ? 4 : 2);
  const typing = (channelId: string): Signal => ({
    serverId: w.server.id,
    event: { t: 'TYPING_START', d: { channelId, serverId: w.server.id, userId: w.owner.id, name: 'owner', bot: false } },
  });
  const message = (of: typeof visibleMsg, content: string): BusEntry => ({
    kind: 'event',
    serverId: w.server.id,
    event: { t: 'MESSAGE_CREATE', d: { ...of, content } },
  });
  return { w, hidden, c, typing, message, visibleMsg, hiddenMsg };
}

describe('coalesced fan-out', () => {
  it('several events to one connection in one turn leave in one write, in order, numbered without gaps; what it may not see stays out', async () => {
    const { w, hidden, c, typing, message, visibleMsg, hiddenMsg } = await setup();
    expect(c.lastSeq).toBe(2);
    const writes = countWrites(serverSocket(c));

    publishTogether([
      typing(w.channel.id),
      message(visibleMsg, 'burst 1'),
      message(hiddenMsg, 'hidden burst'),
      typing(hidden.id),
      message(visibleMsg, 'burst 2'),
      typing(w.channel.id),
    ]);
    const got = await c.collect(6);
    // The typing (lazy, unnumbered) waits for the messages' write and leaves with it, ahead of it.
    expect(got.slice(2).map((f) => [f.t, f.s, f.d.content ?? f.d.channelId])).toEqual([
      ['TYPING_START', null, w.channel.id],
      ['TYPING_START', null, w.channel.id],
      ['MESSAGE_CREATE', 3, 'burst 1'],
      ['MESSAGE_CREATE', 4, 'burst 2'],
    ]);
    expect(writes.n).toBe(1);
    expect(JSON.stringify(c.frames)).not.toContain('hidden');
    expect(JSON.stringify(c.frames)).not.toContain(hidden.id);

    // Control frames join the connection's write too, after the events before them.
    c.heartbeat();
    await c.waitFor((f) => f.op === 'heartbeat_ack');
    expect(writes.n).toBe(2);
  });

  it('a session resumes after coalesced events with the numbers they carried, and the replay arrives as one write, without typing', async () => {
    const { w, c, typing, message, visibleMsg } = await setup();
    publishTogether([message(visibleMsg, 'a'), typing(w.channel.id), message(visibleMsg, 'b')]);
    const got = await c.collect(5);
    expect(got.slice(2).map((f) => [f.t, f.s])).toEqual([
      ['MESSAGE_CREATE', 3],
      ['MESSAGE_CREATE', 4],
      ['TYPING_START', null],
    ]);
    c.heartbeat();
    await c.waitFor((f) => f.op === 'heartbeat_ack');
    expect(c.lastSeq).toBe(4);
    // The server's end closes (the gateway detaches the session in its own close listener, registered first).
    const closed = once(serverEnd(c), 'close');
    await c.terminate();
    await closed;

    publishTogether([message(visibleMsg, 'missed 1'), typing(w.channel.id), message(visibleMsg, 'missed 2')]);
    const r = await pool.resume(srv.gatewayUrl, w.bot.auth, c.sessionId, 4, { heartbeat: false });
    await r.waitFor((f) => f.op === 'resumed');
    // Typing is live only: what was typed while the session was away is not replayed.
    const replayed = r.events().map((f) => [f.t, f.s, f.d.content ?? f.d.channelId]);
    expect(replayed).toEqual([
      ['MESSAGE_CREATE', 5, 'missed 1'],
      ['MESSAGE_CREATE', 6, 'missed 2'],
    ]);
    const writes = countWrites(serverSocket(r));
    publishTogether([message(visibleMsg, 'live 1'), message(visibleMsg, 'live 2')]);
    const live = await r.collect(4);
    expect(live.slice(2).map((f) => [f.s, f.d.content])).toEqual([
      [7, 'live 1'],
      [8, 'live 2'],
    ]);
    expect(writes.n).toBe(1);
  });

  it("Discord's gateway (uncompressed) coalesces the same way, numbered after READY and GUILD_CREATE", async () => {
    const { w, hidden, c, typing, message, visibleMsg, hiddenMsg } = await setup(true);
    expect(c.lastSeq).toBe(4);
    const writes = countWrites(serverSocket(c));
    publishTogether([
      typing(w.channel.id),
      message(visibleMsg, 'burst 1'),
      message(hiddenMsg, 'hidden burst'),
      message(visibleMsg, 'burst 2'),
    ]);
    const got = await c.collect(7);
    // Discord's typing carries the last number again (4: READY, GUILD_CREATE and two messages).
    expect(got.slice(4).map((f) => [f.t, f.s, f.d.content ?? f.d.channel_id])).toEqual([
      ['TYPING_START', 4, w.channel.id],
      ['MESSAGE_CREATE', 5, 'burst 1'],
      ['MESSAGE_CREATE', 6, 'burst 2'],
    ]);
    expect(writes.n).toBe(1);
    expect(JSON.stringify(c.frames)).not.toContain('hidden burst');
    expect(JSON.stringify(c.frames.slice(4))).not.toContain(hidden.id);
  });

  it('bytes held for the turn are not taken for a slow consumer: a reading client gets a burst larger than the bound', async () => {
    const w = await world(tight.url);
    const c = await pool.identify(tight.gatewayUrl, w.bot.auth, { heartbeat: false });
    const msg = await postMessage(tight.url, w.owner.auth, w.channel.id, 'first');
    await c.collect(1);
    // 5 x 24 KB in one turn: 120 KB for the connection against a 64 KiB bound, all of which the kernel takes.
    const big = 'y'.repeat(24 * 1024);
    for (let i = 0; i < 5; i++) {
      void tight.app.ctx.bus.publish({
        kind: 'event',
        serverId: w.server.id,
        event: { t: 'MESSAGE_CREATE', d: { ...msg, content: `${i}${big}` } },
      });
    }
    const got = await c.collect(6);
    expect(got.slice(1).map((f) => [f.s, f.d.content[0]])).toEqual([
      [2, '0'],
      [3, '1'],
      [4, '2'],
      [5, '3'],
      [6, '4'],
    ]);
    expect(c.closeInfo).toBeNull();
  });

  it('typing that follows typing within the window waits for it, and the batch leaves in one write, in order', async () => {
    const w = await world(windowed.url);
    const c = await pool.identify(windowed.gatewayUrl, w.bot.auth, { heartbeat: false });
    await postMessage(windowed.url, w.owner.auth, w.channel.id, 'first');
    await c.collect(1);
    const writes = countWrites(serverSocket(c, windowed));
    // Six typists, further apart than the outbox's lazy lane holds typing for (LAZY_MS): on
    // their own, six writes. The spacing stages the input; nothing waits on it for a result.
    for (let i = 0; i < 6; i++) {
      if (i > 0) await new Promise((resolve) => setTimeout(resolve, LAZY_MS + 15));
      windowed.app.ctx.bus.signal({
        serverId: w.server.id,
        event: {
          t: 'TYPING_START',
          d: { channelId: w.channel.id, serverId: w.server.id, userId: `u${i}`, name: `typist ${i}`, bot: false },
        },
      });
    }
    const got = await c.collect(7);
    expect(got.slice(1).map((f) => [f.t, f.s, f.d.userId])).toEqual([0, 1, 2, 3, 4, 5].map((i) => ['TYPING_START', null, `u${i}`]));
    // The first at once, the other five together when the window ends.
    expect(writes.n).toBe(2);
  });

  it('a window of typing in two channels reaches each connection once, as what it may see: a person the channel it looks at, a bot every channel it may read', async () => {
    const w = await world(windowed.url);
    const other = await createChannel(windowed.url, w.owner, w.server.id, 'other');
    const shut = await createBot(windowed.url, w.owner);
    await addBot(windowed.url, w.owner, w.server.id, shut.id);
    const r = await call(windowed.url, 'PUT', `/channels/${other.id}/permissions/${shut.id}`, {
      auth: w.owner.auth,
      body: { type: 'member', deny: String(P.VIEW_CHANNEL) },
    });
    expect(r.status, r.text).toBe(204);
    const person = await registerUser(windowed.url);
    await joinServer(windowed.url, w.owner, person, w.server.id);

    const bot = await pool.identify(windowed.gatewayUrl, w.bot.auth, { heartbeat: false });
    const denied = await pool.identify(windowed.gatewayUrl, shut.auth, { heartbeat: false });
    const discord = await identifyDiscord(pool, windowed, w.bot.token, ALL_MESSAGES | I.GUILD_MESSAGE_TYPING);
    const looking = await pool.identify(windowed.gatewayUrl, person.auth, { heartbeat: false });
    await looking.focus(other.id);
    // The same person in another tab, looking at nothing.
    const away = await pool.identify(windowed.gatewayUrl, person.auth, { heartbeat: false });
    const writes = [bot, denied, discord, looking, away].map((c) => countWrites(serverSocket(c, windowed)));

    const typing = (channelId: string, userId: string): Signal => ({
      serverId: w.server.id,
      event: { t: 'TYPING_START', d: { channelId, serverId: w.server.id, userId, name: userId, bot: false } },
    });
    // The first opens the window and leaves at once; the other three are held for it and
    // leave together, a channel's typing after the other's.
    windowed.app.ctx.bus.signal(typing(w.channel.id, w.owner.id));
    await bot.collect(1, (f) => f.t === 'TYPING_START');
    windowed.app.ctx.bus.signal(typing(other.id, person.id));
    windowed.app.ctx.bus.signal(typing(w.channel.id, shut.id));
    windowed.app.ctx.bus.signal(typing(other.id, w.owner.id));

    const who = (fs: Frame[]) => fs.map((f) => `${f.d.userId ?? f.d.user_id} in ${f.d.channelId ?? f.d.channel_id}`);
    const typed = (c: TestGatewayClient, n: number) => c.collect(n, (f) => f.t === 'TYPING_START').then(who);
    /** Every typing frame the connection received so far. */
    const allTyped = (c: TestGatewayClient) => who(c.events().filter((f) => f.t === 'TYPING_START'));
    const general = w.channel.id;
    expect(await typed(bot, 4)).toEqual([
      `${w.owner.id} in ${general}`,
      `${person.id} in ${other.id}`,
      `${w.owner.id} in ${other.id}`,
      `${shut.id} in ${general}`,
    ]);
    expect(await typed(discord, 4)).toEqual(await typed(bot, 4));
    expect(await typed(denied, 2)).toEqual([`${w.owner.id} in ${general}`, `${shut.id} in ${general}`]);
    expect(await typed(looking, 2)).toEqual([`${person.id} in ${other.id}`, `${w.owner.id} in ${other.id}`]);
    // Native typing is unnumbered; Discord's carries the session's last number again.
    expect(bot.frames.filter((f) => f.t === 'TYPING_START').every((f) => f.s === null)).toBe(true);
    expect(new Set(discord.frames.filter((f) => f.t === 'TYPING_START').map((f) => f.s))).toEqual(new Set([discord.lastSeq]));
    // Each connection got the window's batch in one write: the lone typing and the batch.
    expect(writes.map((x) => x.n)).toEqual([2, 2, 2, 1, 0]);

    // A message reaches every connection after the batch: nothing else was on its way, and
    // neither the denied bot nor the tab looking at nothing heard what it may not.
    await postMessage(windowed.url, w.owner.auth, general, 'after');
    for (const c of [bot, denied, discord, looking, away]) await c.collect(1, (f) => f.t === 'MESSAGE_CREATE');
    expect(allTyped(denied)).toHaveLength(2);
    expect(allTyped(looking)).toHaveLength(2);
    expect(allTyped(away)).toEqual([]);
    expect(allTyped(bot)).toHaveLength(4);
  });

  it("a message drops its author's typing still held for the window, and only theirs in that channel", async () => {
    const w = await world(windowed.url);
    const other = await createChannel(windowed.url, w.owner, w.server.id, 'other');
    const c = await pool.identify(windowed.gatewayUrl, w.bot.auth, { heartbeat: false });
    await postMessage(windowed.url, w.owner.auth, w.channel.id, 'first');
    await c.collect(1);
    const typing = (channelId: string, userId: string): Signal => ({
      serverId: w.server.id,
      event: { t: 'TYPING_START', d: { channelId, serverId: w.server.id, userId, name: userId, bot: false } },
    });
    // The first typing opens the window; the next three are held for it.
    windowed.app.ctx.bus.signal(typing(w.channel.id, 'someone'));
    await c.collect(2);
    windowed.app.ctx.bus.signal(typing(w.channel.id, w.owner.id));
    windowed.app.ctx.bus.signal(typing(other.id, w.owner.id));
    windowed.app.ctx.bus.signal(typing(w.channel.id, 'another'));
    // The owner's message in the general channel, while the window holds their typing there.
    await postMessage(windowed.url, w.owner.auth, w.channel.id, 'sent');
    const got = await c.collect(5);
    expect(got.slice(2).map((f) => [f.t, f.d.content ?? `${f.d.userId} in ${f.d.channelId}`])).toEqual([
      ['MESSAGE_CREATE', 'sent'],
      ['TYPING_START', `${w.owner.id} in ${other.id}`],
      ['TYPING_START', `another in ${w.channel.id}`],
    ]);
  });
});
