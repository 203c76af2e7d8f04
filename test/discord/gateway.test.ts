// Discord's gateway v10 at /api/gateway/ws, frame by frame over `ws`: hello, heartbeats,
// identify with intents, READY and GUILD_CREATE, dispatches translated from the event log
// and filtered as the native gateway filters them, zlib-stream, resume, op 7 and op 9.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { addBot, call, createBot, createChannel, joinServer, postMessage, registerUser, world } from '../factories.js';
import { startServer, type TestServer } from '../harness.js';
import { ClientPool, type ConnectOptions, type Frame, type TestGatewayClient } from '../gateway/client.js';
import { ALL_MESSAGES, I, connectDiscord, identifyDiscord } from './helpers.js';

let srv: TestServer;
const pool = new ClientPool();

beforeAll(async () => {
  srv = await startServer({ env: { GATEWAY_HEARTBEAT_MS: '5000', RATE_LIMITS: 'off' } });
});
afterEach(() => pool.closeAll());
afterAll(() => srv?.close());

/** Connects to Discord's gateway and waits for hello. */
const connect = (s = srv, query?: string, opts: ConnectOptions = {}) => connectDiscord(pool, s, query, opts);
/** Identifies a bot on Discord's gateway. */
const identify = (token: string, intents: number, opts: { query?: string; guilds?: number; s?: TestServer } = {}) =>
  identifyDiscord(pool, opts.s ?? srv, token, intents, opts);

const ready = (c: TestGatewayClient) => c.events('READY')[0]!;

describe('Discord gateway: connecting', () => {
  it('says hello, then READY (s=1) and a GUILD_CREATE per server with channels, roles and members', async () => {
    const w = await world(srv.url);
    const c = await identify(w.bot.token, ALL_MESSAGES);
    expect(c.frames[0]).toMatchObject({ op: 10, d: { heartbeat_interval: 5000 } });
    const r = ready(c);
    expect(r.s).toBe(1);
    expect(r.d).toMatchObject({
      v: 10,
      user: { id: w.bot.id, bot: true },
      guilds: [{ id: w.server.id, unavailable: true }],
      application: { id: w.bot.id, flags: 0 },
    });
    expect(typeof r.d.session_id).toBe('string');
    expect(r.d.resume_gateway_url).toBe(`${srv.url.replace('http', 'ws')}/api/gateway/ws`);
    const g = c.events('GUILD_CREATE')[0]!;
    expect(g.s).toBe(2);
    expect(g.d).toMatchObject({ id: w.server.id, owner_id: w.owner.id, unavailable: false, member_count: 2 });
    expect(g.d.channels.map((ch: any) => [ch.id, ch.type, ch.guild_id])).toEqual([[w.channel.id, 0, w.server.id]]);
    expect(g.d.roles.some((role: any) => role.id === w.server.id)).toBe(true);
    expect(g.d.members.map((m: any) => m.user.id).sort()).toEqual([w.owner.id, w.bot.id].sort());
  });

  it('lists only its own member without GUILD_MEMBERS', async () => {
    const w = await world(srv.url);
    const c = await identify(w.bot.token, I.GUILDS);
    expect(c.events('GUILD_CREATE')[0]!.d.members.map((m: any) => m.user.id)).toEqual([w.bot.id]);
  });

  it('acknowledges heartbeats (op 1 → op 11), before and after identify', async () => {
    const w = await world(srv.url);
    const c = await connect(srv, undefined, { heartbeat: false });
    c.send({ op: 1, d: null });
    await c.waitFor((f) => f.op === 11);
    c.send({ op: 2, d: { token: w.bot.token, intents: I.GUILDS } });
    await c.waitForEvent('READY');
    const before = c.frames.filter((f) => f.op === 11).length;
    c.send({ op: 1, d: 2 });
    await c.waitFor(() => c.frames.filter((f) => f.op === 11).length > before);
  });

  it('compresses every payload through one zlib context per connection (compress=zlib-stream)', async () => {
    const w = await world(srv.url);
    const c = await identify(w.bot.token, ALL_MESSAGES, { query: '?v=10&encoding=json&compress=zlib-stream' });
    await postMessage(srv.url, w.owner.auth, w.channel.id, 'compressed hello');
    const m = await c.waitForEvent('MESSAGE_CREATE');
    expect(m.d.content).toBe('compressed hello');
    // hello, READY, GUILD_CREATE, MESSAGE_CREATE: all binary, inflated in order through one context.
    expect(c.binaryFrames).toBe(c.frames.length);
    expect(c.frames.length).toBeGreaterThanOrEqual(4);
  });

  it('serves compress=zstd-stream uncompressed, as text frames (discord.py asks for it when Python has zstd)', async () => {
    const w = await world(srv.url);
    const c = await identify(w.bot.token, ALL_MESSAGES, { query: '?v=10&encoding=json&compress=zstd-stream' });
    await postMessage(srv.url, w.owner.auth, w.channel.id, 'plain hello');
    expect((await c.waitForEvent('MESSAGE_CREATE')).d.content).toBe('plain hello');
    expect([c.binaryFrames, c.frames.length >= 4]).toEqual([0, true]);
  });

  it.each([
    ['?v=10&encoding=etf', 4002],
    ['?v=6&encoding=json', 4012],
    ['?v=10&encoding=json&compress=brotli', 4002],
  ])('refuses %s with close %i after hello', async (query, code) => {
    const c = await connect(srv, query);
    expect((await c.waitForClose()).code).toBe(code);
  });

  it.each([
    ['unknown bits', 1 << 30],
    ['a negative number', -1],
    ['missing', undefined],
  ])('closes with 4013 when intents are %s', async (_what, intents) => {
    const w = await world(srv.url);
    const c = await connect();
    c.send({ op: 2, d: { token: w.bot.token, ...(intents === undefined ? {} : { intents }) } });
    expect((await c.waitForClose()).code).toBe(4013);
  });

  it('closes with 4004 on a bad token, 4001 on an unknown opcode, 4005 on a second identify, 4003 before identify', async () => {
    const w = await world(srv.url);
    const bad = await connect();
    bad.send({ op: 2, d: { token: 'nope.nope', intents: 1 } });
    expect((await bad.waitForClose()).code).toBe(4004);
    const unknown = await connect();
    unknown.send({ op: 42, d: {} });
    expect((await unknown.waitForClose()).code).toBe(4001);
    const twice = await identify(w.bot.token, I.GUILDS);
    twice.send({ op: 2, d: { token: w.bot.token, intents: 1 } });
    expect((await twice.waitForClose()).code).toBe(4005);
    const early = await connect();
    early.send({ op: 3, d: { status: 'idle', since: null, activities: [], afk: false } });
    expect((await early.waitForClose()).code).toBe(4003);
  });
});

describe('Discord gateway: dispatch', () => {
  it('sends MESSAGE_CREATE in Discord shape with s following the GUILD_CREATEs', async () => {
    const w = await world(srv.url);
    const c = await identify(w.bot.token, ALL_MESSAGES);
    const posted = await postMessage(srv.url, w.owner.auth, w.channel.id, 'hello discord');
    const m = await c.waitForEvent('MESSAGE_CREATE');
    expect(m.s).toBe(3);
    expect(m.d).toMatchObject({
      id: posted.id,
      channel_id: w.channel.id,
      guild_id: w.server.id,
      content: 'hello discord',
      author: { id: w.owner.id },
    });
  });

  it('empties content without MESSAGE_CONTENT, except for messages that mention the bot', async () => {
    const w = await world(srv.url);
    const c = await identify(w.bot.token, I.GUILDS | I.GUILD_MESSAGES);
    await postMessage(srv.url, w.owner.auth, w.channel.id, 'secret plans');
    await postMessage(srv.url, w.owner.auth, w.channel.id, `hey <@${w.bot.id}>`);
    const [plain, mention] = await c.collect(2, (f) => f.t === 'MESSAGE_CREATE');
    expect(plain!.d.content).toBe('');
    expect(plain!.d.embeds).toEqual([]);
    expect(mention!.d.content).toBe(`hey <@${w.bot.id}>`);
  });

  it('leaves out events whose intent was not asked for, without a gap in s', async () => {
    const w = await world(srv.url);
    const c = await identify(w.bot.token, I.GUILDS);
    await postMessage(srv.url, w.owner.auth, w.channel.id, 'not for you');
    await call(srv.url, 'POST', `/channels/${w.channel.id}/typing`, { auth: w.owner.auth });
    // The marker: a channel event (GUILDS) after both.
    const ch = await createChannel(srv.url, w.owner, w.server.id);
    const created = await c.waitForEvent('CHANNEL_CREATE', (d) => d.id === ch.id);
    expect(created.s).toBe(3);
    expect(c.events().map((f) => f.t)).toEqual(['READY', 'GUILD_CREATE', 'CHANNEL_CREATE']);
  });

  it('sends a bot nothing of a server it is not in, nor of a channel it cannot read', async () => {
    const w = await world(srv.url);
    // Only SEND_MESSAGES: a member that may post but not read.
    const mute = await createBot(srv.url, w.owner);
    await addBot(srv.url, w.owner, w.server.id, mute.id, ['SEND_MESSAGES']);
    // The outsider belongs to another server only, where the marker is posted.
    const other = await registerUser(srv.url);
    const otherServer = await call(srv.url, 'POST', '/servers', { auth: other.auth, body: { name: 'elsewhere' } });
    const otherChannels = await call(srv.url, 'GET', `/servers/${otherServer.body.id}/channels`, { auth: other.auth });
    const outsider = await createBot(srv.url, other);
    await addBot(srv.url, other, otherServer.body.id, outsider.id);
    const [o, m, reader] = await Promise.all([
      identify(outsider.token, ALL_MESSAGES),
      identify(mute.token, ALL_MESSAGES),
      identify(w.bot.token, ALL_MESSAGES),
    ]);
    await postMessage(srv.url, w.owner.auth, w.channel.id, 'members with access only');
    await reader.waitForEvent('MESSAGE_CREATE');
    // Markers each of them does receive, published after the message.
    await postMessage(srv.url, other.auth, otherChannels.body[0].id, 'marker');
    await o.waitForEvent('MESSAGE_CREATE', (d) => d.content === 'marker');
    const role = await call(srv.url, 'POST', `/servers/${w.server.id}/roles`, { auth: w.owner.auth, body: { name: 'marker' } });
    await m.waitForEvent('GUILD_ROLE_CREATE', (d) => d.role.id === role.body.id);
    expect(o.events('MESSAGE_CREATE').map((f) => f.d.content)).toEqual(['marker']);
    expect(m.events('MESSAGE_CREATE')).toEqual([]);
  });
});

describe('Discord gateway: translated events', () => {
  it('sends reactions, typing, roles and members in Discord shape', async () => {
    const w = await world(srv.url);
    const c = await identify(w.bot.token, ALL_MESSAGES | (1 << 10) | I.GUILD_MESSAGE_TYPING);
    const m = await postMessage(srv.url, w.owner.auth, w.channel.id, 'react to me');
    await call(srv.url, 'PUT', `/channels/${w.channel.id}/messages/${m.id}/reactions/${encodeURIComponent('👍')}`, { auth: w.owner.auth });
    const reaction = await c.waitForEvent('MESSAGE_REACTION_ADD');
    expect(reaction.d).toMatchObject({
      user_id: w.owner.id,
      channel_id: w.channel.id,
      message_id: m.id,
      guild_id: w.server.id,
      emoji: { id: null, name: '👍' },
    });
    await call(srv.url, 'POST', `/channels/${w.channel.id}/typing`, { auth: w.owner.auth });
    expect((await c.waitForEvent('TYPING_START')).d).toMatchObject({
      channel_id: w.channel.id,
      guild_id: w.server.id,
      user_id: w.owner.id,
    });
    const role = await call(srv.url, 'POST', `/servers/${w.server.id}/roles`, { auth: w.owner.auth, body: { name: 'mods' } });
    expect((await c.waitForEvent('GUILD_ROLE_CREATE')).d).toMatchObject({
      guild_id: w.server.id,
      role: { id: role.body.id, name: 'mods' },
    });
    const member = await registerUser(srv.url);
    await joinServer(srv.url, w.owner, member, w.server.id);
    expect((await c.waitForEvent('GUILD_MEMBER_ADD')).d).toMatchObject({ guild_id: w.server.id, user: { id: member.id } });
    await call(srv.url, 'DELETE', `/servers/${w.server.id}/roles/${role.body.id}`, { auth: w.owner.auth });
    expect((await c.waitForEvent('GUILD_ROLE_DELETE')).d).toEqual({ guild_id: w.server.id, role_id: role.body.id });
    // Sequence numbers run on without gaps. Typing is live only: it takes no number of its
    // own and carries the last one again (discord.js keeps the highest it has seen).
    const events = c.events();
    const seqs = events.filter((f) => f.t !== 'TYPING_START').map((f) => f.s);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    const typing = events.findIndex((f) => f.t === 'TYPING_START');
    expect(events[typing]!.s).toBe(events[typing - 1]!.s);
  });
});

describe('Discord gateway: resume, reconnect, invalid session', () => {
  it('resumes after a dropped connection: the missed events, then RESUMED, with the same intents', async () => {
    const w = await world(srv.url);
    const c = await identify(w.bot.token, I.GUILDS | I.GUILD_MESSAGES);
    await postMessage(srv.url, w.owner.auth, w.channel.id, 'seen');
    await c.waitForEvent('MESSAGE_CREATE');
    const sessionId = ready(c).d.session_id;
    const seq = c.lastSeq;
    c.heartbeat();
    await c.waitFor((f) => f.op === 11);
    await c.terminate();
    const missed: string[] = [];
    for (const text of ['missed 1', 'missed 2']) missed.push((await postMessage(srv.url, w.owner.auth, w.channel.id, text)).id);

    const r = await connect();
    r.send({ op: 6, d: { token: w.bot.token, session_id: sessionId, seq } });
    await r.waitForEvent('RESUMED');
    const replayed = r.events().filter((f) => f.t === 'MESSAGE_CREATE');
    expect(replayed.map((f) => [f.d.id, f.s, f.d.content])).toEqual([
      [missed[0], seq + 1, ''],
      [missed[1], seq + 2, ''],
    ]);
    // Live again, numbering on.
    await postMessage(srv.url, w.owner.auth, w.channel.id, 'live');
    expect((await r.waitForEvent('MESSAGE_CREATE', (d) => d.id !== missed[0] && d.id !== missed[1])).s).toBe(seq + 3);
  });

  describe('across role and permission changes made while the bot was away (issue 36)', () => {
    const READ = String((1n << 10n) | (1n << 16n)); // VIEW_CHANNEL | READ_MESSAGE_HISTORY
    const VIEW = String(1n << 10n);

    async function role(owner: { auth: string }, serverId: string, name: string, permissions: string): Promise<string> {
      const r = await call(srv.url, 'POST', `/servers/${serverId}/roles`, { auth: owner.auth, body: { name, permissions } });
      expect(r.status, r.text).toBe(201);
      return r.body.id;
    }

    async function memberRole(owner: { auth: string }, serverId: string, userId: string, roleId: string, method: 'PUT' | 'DELETE') {
      const r = await call(srv.url, method, `/servers/${serverId}/members/${userId}/roles/${roleId}`, { auth: owner.auth });
      expect(r.status, r.text).toBe(204);
    }

    /** Drops `c` (no close 1000) after acknowledging what it has; returns what op 6 needs. */
    async function dropAfterAck(c: TestGatewayClient): Promise<{ sessionId: string; seq: number }> {
      const sessionId = ready(c).d.session_id;
      const seq = c.lastSeq;
      c.heartbeat();
      await c.waitFor((f) => f.op === 11, 5000, c.frames.length);
      await c.terminate();
      return { sessionId, seq };
    }

    async function resume(token: string, at: { sessionId: string; seq: number }) {
      const r = await connect();
      r.send({ op: 6, d: { token, session_id: at.sessionId, seq: at.seq } });
      await r.waitFor((f) => f.t === 'RESUMED' || f.op === 9);
      expect(r.frames.some((f) => f.op === 9)).toBe(false);
      const i = r.frames.findIndex((f) => f.t === 'RESUMED');
      return { r, replayed: r.frames.slice(1, i) };
    }

    it('replays the message of a channel it may still read and not that of one it may no longer read', async () => {
      const w = await world(srv.url, []);
      const sid = w.server.id;
      const secret = await createChannel(srv.url, w.owner, sid, 'secret');
      const reader = await role(w.owner, sid, 'reader', READ);
      await memberRole(w.owner, sid, w.bot.id, reader, 'PUT');
      const c = await identify(w.bot.token, ALL_MESSAGES);
      expect(
        c
          .events('GUILD_CREATE')[0]!
          .d.channels.map((ch: any) => ch.id)
          .sort(),
      ).toEqual([w.channel.id, secret.id].sort());
      const at = await dropAfterAck(c);

      // Add a role, change its permissions, change an overwrite, remove the role.
      const extra = await role(w.owner, sid, 'extra', '0');
      await memberRole(w.owner, sid, w.bot.id, extra, 'PUT');
      expect(
        (await call(srv.url, 'PATCH', `/servers/${sid}/roles/${extra}`, { auth: w.owner.auth, body: { permissions: '2048' } })).status,
      ).toBe(200);
      const ow = await call(srv.url, 'PUT', `/channels/${secret.id}/permissions/${w.bot.id}`, {
        auth: w.owner.auth,
        body: { type: 'member', deny: VIEW },
      });
      expect(ow.status, ow.text).toBe(204);
      await memberRole(w.owner, sid, w.bot.id, extra, 'DELETE');
      await postMessage(srv.url, w.owner.auth, w.channel.id, 'still readable');
      await postMessage(srv.url, w.owner.auth, secret.id, 'no longer readable');

      const { r, replayed } = await resume(w.bot.token, at);
      expect(replayed.filter((f) => f.t === 'MESSAGE_CREATE').map((f) => f.d.content)).toEqual(['still readable']);
      expect(replayed.filter((f) => f.t === 'CHANNEL_DELETE').map((f) => f.d.id)).toEqual([secret.id]);
      expect(replayed.filter((f) => f.t === 'GUILD_MEMBER_UPDATE').length).toBeGreaterThanOrEqual(2);
      expect(replayed.map((f) => f.s)).toEqual(replayed.map((_, i) => at.seq + 1 + i));
      expect(JSON.stringify(r.frames)).not.toContain('no longer readable');
      // Live after it, with the current permissions.
      await postMessage(srv.url, w.owner.auth, secret.id, 'live, hidden');
      await postMessage(srv.url, w.owner.auth, w.channel.id, 'live, readable');
      await r.waitForEvent('MESSAGE_CREATE', (d) => d.content === 'live, readable');
      expect(JSON.stringify(r.frames)).not.toContain('live, hidden');
    });

    it('replays the channel a role grant shows and the message posted in it after the grant', async () => {
      const w = await world(srv.url, []);
      const sid = w.server.id;
      const reader = await role(w.owner, sid, 'reader', READ);
      const c = await identify(w.bot.token, ALL_MESSAGES);
      expect(c.events('GUILD_CREATE')[0]!.d.channels).toEqual([]);
      const at = await dropAfterAck(c);
      await postMessage(srv.url, w.owner.auth, w.channel.id, 'before the grant');
      await memberRole(w.owner, sid, w.bot.id, reader, 'PUT');
      await postMessage(srv.url, w.owner.auth, w.channel.id, 'after the grant');

      const { r, replayed } = await resume(w.bot.token, at);
      expect(
        replayed
          .filter((f) => f.t === 'CHANNEL_CREATE' || f.t === 'MESSAGE_CREATE')
          .map((f) => [f.t, f.t === 'CHANNEL_CREATE' ? f.d.id : f.d.content]),
      ).toEqual([
        ['CHANNEL_CREATE', w.channel.id],
        ['MESSAGE_CREATE', 'after the grant'],
      ]);
      expect(JSON.stringify(r.frames)).not.toContain('before the grant');
    });
  });

  it('answers a resume it cannot honour with op 9, d false', async () => {
    const w = await world(srv.url);
    const c = await connect();
    c.send({ op: 6, d: { token: w.bot.token, session_id: '123456', seq: 3 } });
    expect(await c.waitFor((f) => f.op === 9)).toMatchObject({ op: 9, d: false });
  });

  it('does not resume a native session over Discord framing', async () => {
    const w = await world(srv.url);
    const native = await pool.identify(srv.gatewayUrl, w.bot.auth);
    const sessionId = native.sessionId;
    await native.terminate();
    const c = await connect();
    c.send({ op: 6, d: { token: w.bot.token, session_id: sessionId, seq: 0 } });
    expect(await c.waitFor((f) => f.op === 9)).toMatchObject({ d: false });
  });

  it('sends op 7 before closing when the service shuts down', async () => {
    const own = await startServer({ env: { GATEWAY_HEARTBEAT_MS: '5000' } });
    try {
      const w = await world(own.url);
      const c = await identify(w.bot.token, I.GUILDS, { s: own });
      const closing = own.app.gateway.close();
      const f: Frame = await c.waitFor((x) => x.op === 7);
      expect(f).toMatchObject({ op: 7, d: null });
      await closing;
    } finally {
      await own.close();
    }
  });
});
