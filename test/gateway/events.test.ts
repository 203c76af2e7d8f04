// Every state change made through the REST API reaches, after its commit, exactly the
// members of the server concerned, over real WebSocket connections.
import type { GatewayEventType } from '@parley/protocol';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  addBot,
  call,
  createBot,
  createChannel,
  createServer,
  createWebhook,
  joinServer,
  postMessage,
  registerUser,
  world,
} from '../factories.js';
import { startServer, type TestServer } from '../harness.js';
import { ClientPool, type Frame, type TestGatewayClient, expectConsecutive } from './client.js';

let srv: TestServer;
const pool = new ClientPool();

beforeAll(async () => {
  srv = await startServer({ env: { GATEWAY_HEARTBEAT_MS: '2000', RATE_LIMITS: 'off' } });
});
afterEach(() => pool.closeAll());
afterAll(() => srv?.close());

/** Every event type of the protocol: a type added there and not here fails the typecheck. */
const EVENT_TYPES: Record<GatewayEventType, true> = {
  MESSAGE_CREATE: true,
  MESSAGE_UPDATE: true,
  MESSAGE_DELETE: true,
  MESSAGE_DELETE_BULK: true,
  CHANNEL_PINS_UPDATE: true,
  READ_STATE_UPDATE: true,
  REACTION_ADD: true,
  REACTION_REMOVE: true,
  TYPING_START: true,
  CHANNEL_CREATE: true,
  THREAD_CREATE: true,
  THREAD_UPDATE: true,
  THREAD_DELETE: true,
  THREAD_MEMBER_UPDATE: true,
  THREAD_MEMBERS_UPDATE: true,
  THREAD_LIST_SYNC: true,
  CHANNEL_UPDATE: true,
  CHANNEL_DELETE: true,
  MEMBER_ADD: true,
  MEMBER_UPDATE: true,
  MEMBER_REMOVE: true,
  SERVER_UPDATE: true,
  SERVER_DELETE: true,
  USER_UPDATE: true,
  ROLE_CREATE: true,
  ROLE_UPDATE: true,
  ROLE_DELETE: true,
  BAN_ADD: true,
  BAN_REMOVE: true,
  DM_CREATE: true,
  DM_UPDATE: true,
  DM_DELETE: true,
  PRESENCE_UPDATE: true,
  INTERACTION_CREATE: true,
  INTERACTION_SUCCESS: true,
  INTERACTION_FAILED: true,
  COMMANDS_UPDATE: true,
  INTERACTION_MODAL: true,
};
// PRESENCE_UPDATE has its own suite (presence.test.ts): the harness keeps it out of the others.
// The interaction events have theirs (interactions.test.ts, modals.test.ts): they need a bot that answers.
const OWN_SUITES = new Set([
  'PRESENCE_UPDATE',
  'INTERACTION_CREATE',
  'INTERACTION_SUCCESS',
  'INTERACTION_FAILED',
  'INTERACTION_MODAL',
  'COMMANDS_UPDATE',
  // Threads have theirs (threads.test.ts, with who must not receive a private thread's).
  'THREAD_CREATE',
  'THREAD_UPDATE',
  'THREAD_DELETE',
  'THREAD_MEMBER_UPDATE',
  'THREAD_MEMBERS_UPDATE',
  'THREAD_LIST_SYNC',
]);
const ALL_EVENT_TYPES = Object.keys(EVENT_TYPES).filter((t) => !OWN_SUITES.has(t));

describe('every event type, caused through the REST API', () => {
  it('delivers each change to the owner (user session) and to the bot, in order, numbered from 1', async () => {
    const w = await world(srv.url);
    const member = await registerUser(srv.url);
    const owner = await pool.identify(srv.gatewayUrl, w.owner.auth);
    const bot = await pool.identify(srv.gatewayUrl, w.bot.auth);
    const { url } = srv;
    const ch = w.channel.id;
    // A person's connection hears typing where it looks; the bot hears it everywhere.
    await owner.focus(ch);
    const sid = w.server.id;

    // Each step: the REST call, then what the event must look like, and who receives it
    // (both, unless `to` says otherwise: BAN_* need BAN_MEMBERS, which the bot lacks).
    const msg = await postMessage(url, w.owner.auth, ch, 'first');
    const outsider = await registerUser(srv.url);
    let roleId = '';
    let groupId = '';
    const bulk: string[] = [];
    const steps: Array<{
      t: string;
      d: Record<string, unknown> | (() => Record<string, unknown>);
      act?: () => Promise<unknown>;
      to?: TestGatewayClient[];
      /** Which event of that type (the first, by default). */
      match?: (d: any) => boolean;
    }> = [
      {
        t: 'MESSAGE_CREATE',
        d: { id: msg.id, channelId: ch, serverId: sid, content: 'first', author: expect.objectContaining({ id: w.owner.id, bot: false }) },
      },
      {
        t: 'MESSAGE_UPDATE',
        act: () => call(url, 'PATCH', `/channels/${ch}/messages/${msg.id}`, { auth: w.owner.auth, body: { content: 'edited' } }),
        d: { id: msg.id, content: 'edited', editedAt: expect.any(String) },
      },
      {
        t: 'REACTION_ADD',
        act: () => call(url, 'PUT', `/channels/${ch}/messages/${msg.id}/reactions/${encodeURIComponent('👍')}`, { auth: w.bot.auth }),
        d: { channelId: ch, serverId: sid, messageId: msg.id, emoji: '👍', userId: w.bot.id, count: 1 },
      },
      {
        t: 'REACTION_REMOVE',
        act: () => call(url, 'PUT', `/channels/${ch}/messages/${msg.id}/reactions/${encodeURIComponent('👍')}`, { auth: w.bot.auth }),
        d: { messageId: msg.id, emoji: '👍', userId: w.bot.id, count: 0 },
      },
      {
        t: 'TYPING_START',
        act: () => call(url, 'POST', `/channels/${ch}/typing`, { auth: w.bot.auth }),
        d: { channelId: ch, serverId: sid, userId: w.bot.id, name: w.bot.name, bot: true },
      },
      {
        t: 'CHANNEL_PINS_UPDATE',
        act: () => call(url, 'PUT', `/channels/${ch}/pins/${msg.id}`, { auth: w.owner.auth }),
        d: { channelId: ch, serverId: sid, lastPinTimestamp: expect.any(String) },
      },
      { t: 'MESSAGE_UPDATE', d: { id: msg.id, pinned: true }, match: (d) => d.pinned === true },
      {
        t: 'READ_STATE_UPDATE',
        act: () => call(url, 'POST', `/channels/${ch}/messages/${msg.id}/ack`, { auth: w.owner.auth }),
        d: { channelId: ch, lastReadId: msg.id, mentionCount: 0 },
        to: [owner],
      },
      {
        t: 'MESSAGE_CREATE',
        act: async () => bulk.push((await postMessage(url, w.owner.auth, ch, 'second')).id),
        d: { content: 'second' },
        match: (d) => d.content === 'second',
      },
      {
        t: 'MESSAGE_CREATE',
        act: async () => bulk.push((await postMessage(url, w.owner.auth, ch, 'third')).id),
        d: { content: 'third' },
        match: (d) => d.content === 'third',
      },
      {
        t: 'MESSAGE_DELETE_BULK',
        act: () => call(url, 'POST', `/channels/${ch}/messages/bulk-delete`, { auth: w.owner.auth, body: { messages: bulk } }),
        d: () => ({ ids: expect.arrayContaining(bulk), channelId: ch, serverId: sid }),
      },
      {
        t: 'MESSAGE_DELETE',
        act: () => call(url, 'DELETE', `/channels/${ch}/messages/${msg.id}`, { auth: w.owner.auth }),
        d: { id: msg.id, channelId: ch, serverId: sid },
      },
      {
        t: 'CHANNEL_CREATE',
        act: () => call(url, 'POST', `/servers/${sid}/channels`, { auth: w.owner.auth, body: { name: 'news' } }),
        d: { serverId: sid, name: 'news', id: expect.any(String), topic: null, position: 1, permissionOverwrites: [] },
      },
      {
        t: 'CHANNEL_UPDATE',
        act: () => call(url, 'PATCH', `/channels/${ch}`, { auth: w.owner.auth, body: { name: 'lobby' } }),
        d: { id: ch, serverId: sid, name: 'lobby', topic: null, position: 0, permissionOverwrites: [] },
      },
      {
        t: 'SERVER_UPDATE',
        act: () => call(url, 'PATCH', `/servers/${sid}`, { auth: w.owner.auth, body: { name: 'Renamed' } }),
        d: { id: sid, name: 'Renamed', ownerId: w.owner.id, icon: null, description: null },
      },
      {
        t: 'USER_UPDATE',
        act: () => call(url, 'PATCH', '/users/@me', { auth: w.owner.auth, body: { displayName: 'Boss' } }),
        d: { user: { id: w.owner.id, name: 'Boss', displayName: 'Boss' } },
      },
      {
        t: 'ROLE_CREATE',
        act: async () => {
          const r = await call(url, 'POST', `/servers/${sid}/roles`, { auth: w.owner.auth, body: { name: 'mods', permissions: '0' } });
          roleId = r.body.id;
          return r;
        },
        d: { serverId: sid, role: expect.objectContaining({ serverId: sid, name: 'mods', permissions: '0', managed: false }) },
      },
      {
        t: 'ROLE_UPDATE',
        act: () => call(url, 'PATCH', `/servers/${sid}/roles/${roleId}`, { auth: w.owner.auth, body: { name: 'moderators' } }),
        d: { serverId: sid, role: expect.objectContaining({ name: 'moderators' }) },
      },
      {
        t: 'MEMBER_ADD',
        act: () => joinServer(url, w.owner, member, sid),
        d: { serverId: sid, user: { id: member.id, name: member.name, bot: false, avatar: null } },
      },
      {
        t: 'MEMBER_UPDATE',
        act: () => call(url, 'PUT', `/servers/${sid}/members/${member.id}/roles/${roleId}`, { auth: w.owner.auth }),
        d: () => ({ serverId: sid, user: expect.objectContaining({ id: member.id }), roles: [roleId] }),
      },
      {
        t: 'DM_CREATE',
        act: async () => {
          const r = await call(url, 'POST', '/users/@me/channels', { auth: w.owner.auth, body: { recipientIds: [w.bot.id, member.id] } });
          groupId = r.body.id;
          return r;
        },
        d: () => ({
          id: groupId,
          type: 'group_dm',
          ownerId: w.owner.id,
          recipients: [
            expect.objectContaining({ id: w.owner.id }),
            expect.objectContaining({ id: w.bot.id }),
            expect.objectContaining({ id: member.id }),
          ],
        }),
      },
      {
        t: 'DM_UPDATE',
        act: () => call(url, 'DELETE', `/channels/${groupId}`, { auth: member.auth }),
        d: () => ({ id: groupId, recipients: [expect.objectContaining({ id: w.owner.id }), expect.objectContaining({ id: w.bot.id })] }),
      },
      {
        t: 'DM_DELETE',
        act: () => call(url, 'DELETE', `/channels/${groupId}`, { auth: w.owner.auth }),
        d: () => ({ id: groupId }),
        to: [owner],
      },
      // The creator left: the group passes to the one who stays.
      { t: 'DM_UPDATE', d: () => ({ id: groupId, ownerId: w.bot.id }), to: [bot], match: (d) => d.ownerId === w.bot.id },
      {
        t: 'MEMBER_REMOVE',
        act: () => call(url, 'DELETE', `/servers/${sid}/members/@me`, { auth: member.auth }),
        d: { serverId: sid, user: expect.objectContaining({ id: member.id, bot: false }) },
      },
      {
        t: 'ROLE_DELETE',
        act: () => call(url, 'DELETE', `/servers/${sid}/roles/${roleId}`, { auth: w.owner.auth }),
        d: () => ({ serverId: sid, roleId }),
      },
      {
        t: 'BAN_ADD',
        act: () => call(url, 'PUT', `/servers/${sid}/bans/${outsider.id}`, { auth: w.owner.auth, body: { reason: 'spam' } }),
        d: { serverId: sid, user: expect.objectContaining({ id: outsider.id, bot: false }) },
        to: [owner],
      },
      {
        t: 'BAN_REMOVE',
        act: () => call(url, 'DELETE', `/servers/${sid}/bans/${outsider.id}`, { auth: w.owner.auth }),
        d: { serverId: sid, user: expect.objectContaining({ id: outsider.id }) },
        to: [owner],
      },
    ];
    for (const step of steps) {
      if (step.act) {
        const r = (await step.act()) as { status?: number } | undefined;
        if (r?.status !== undefined) expect(r.status, step.t).toBeLessThan(300);
      }
      for (const c of step.to ?? [owner, bot]) {
        const f = await c.waitForEvent(step.t, step.match);
        expect(f.d, `${step.t} payload`).toMatchObject(typeof step.d === 'function' ? step.d() : step.d);
      }
    }
    // The channel created above, deleted next, then the server itself, so every type is covered.
    const news = owner.events('CHANNEL_CREATE')[0]!.d;
    expect((await call(url, 'DELETE', `/channels/${news.id}`, { auth: w.owner.auth })).status).toBe(204);
    for (const c of [owner, bot]) {
      expect((await c.waitForEvent('CHANNEL_DELETE')).d).toMatchObject({ id: news.id, serverId: sid, name: 'news' });
    }
    expect((await call(url, 'DELETE', `/servers/${sid}`, { auth: w.owner.auth })).status).toBe(204);
    for (const c of [owner, bot]) expect((await c.waitForEvent('SERVER_DELETE')).d).toEqual({ id: sid });

    const tail = ['CHANNEL_DELETE', 'SERVER_DELETE'];
    const of = (c: TestGatewayClient) => steps.filter((s) => !s.to || s.to.includes(c)).map((s) => s.t);
    expect(owner.events().map((f) => f.t)).toEqual([...of(owner), ...tail]);
    expect(bot.events().map((f) => f.t)).toEqual([...of(bot), ...tail]);
    for (const c of [owner, bot]) expectConsecutive(c);
    // Every event type of the protocol was caused, and the bot saw every one it may see.
    expect(new Set(owner.events().map((f) => f.t))).toEqual(new Set(ALL_EVENT_TYPES));

    // After SERVER_DELETE the server is gone from both sessions: nothing of it follows.
    await postMessage(url, w.owner.auth, (await createServer(url, w.owner, 'Fence')).general.id, 'fence');
    await owner.waitForEvent('MESSAGE_CREATE', (d) => d.content === 'fence');
    expect(owner.events().at(-1)!.d.serverId).not.toBe(sid);
  });

  it('delivers a webhook message as MESSAGE_CREATE with its webhookId', async () => {
    const w = await world(srv.url);
    const hook = await createWebhook(srv.url, w.owner, w.server.id, w.channel.id, 'CI');
    const bot = await pool.identify(srv.gatewayUrl, w.bot.auth);
    const r = await call(srv.url, 'POST', new URL(hook.url).pathname, { body: { content: 'build passed' } });
    expect(r.status).toBe(200);
    const f = await bot.waitForEvent('MESSAGE_CREATE');
    expect(f.d).toMatchObject({
      id: r.body.id,
      content: 'build passed',
      webhookId: hook.id,
      author: expect.objectContaining({ name: 'CI', bot: true }),
    });
  });

  it('announces a write only after it committed: the message can be read back when its event arrives', async () => {
    const w = await world(srv.url);
    const bot = await pool.identify(srv.gatewayUrl, w.bot.auth);
    const seen: Array<Promise<number>> = [];
    bot.ws.on('message', (data) => {
      const f = JSON.parse(data.toString()) as Frame;
      if (f.t === 'MESSAGE_CREATE') {
        seen.push(call(srv.url, 'GET', `/channels/${w.channel.id}/messages/${f.d.id}`, { auth: w.bot.auth }).then((r) => r.status));
      }
    });
    await Promise.all(Array.from({ length: 10 }, (_, i) => postMessage(srv.url, w.owner.auth, w.channel.id, `m${i}`)));
    await bot.collect(10, (f) => f.t === 'MESSAGE_CREATE');
    expect(await Promise.all(seen)).toEqual(Array(10).fill(200));
  });
});

describe('typing: live only, where people look', () => {
  const typeIn = async (w: { owner: { auth: string } }, channelId: string) =>
    expect((await call(srv.url, 'POST', `/channels/${channelId}/typing`, { auth: w.owner.auth })).status).toBe(204);

  it("reaches a person's connection only in the channel it looks at, a bot in every channel; unnumbered", async () => {
    const w = await world(srv.url);
    const other = await createChannel(srv.url, w.owner, w.server.id, 'other');
    const member = await registerUser(srv.url);
    await joinServer(srv.url, w.owner, member, w.server.id);
    const person = await pool.identify(srv.gatewayUrl, member.auth);
    const bot = await pool.identify(srv.gatewayUrl, w.bot.auth);
    const typedIn = (c: TestGatewayClient) => c.events('TYPING_START').map((f) => f.d.channelId);

    // Looking nowhere: nothing. Looking at `other`: only `other`'s (signals keep their order,
    // so the first would have arrived before the second).
    await typeIn(w, w.channel.id);
    await person.focus(other.id);
    await typeIn(w, w.channel.id);
    await typeIn(w, other.id);
    const seen = await person.waitForEvent('TYPING_START');
    expect(seen.d).toEqual({ channelId: other.id, serverId: w.server.id, userId: w.owner.id, name: w.owner.name, bot: false });
    expect(seen.s).toBeNull();
    // Looking away (null), then at general.
    await person.focus(null);
    await typeIn(w, other.id);
    await person.focus(w.channel.id);
    await typeIn(w, w.channel.id);
    await person.waitFor(() => person.events('TYPING_START').length === 2);
    expect(typedIn(person)).toEqual([other.id, w.channel.id]);
    // The bot heard all five.
    await bot.waitFor(() => bot.events('TYPING_START').length === 5);
    expect(typedIn(bot)).toEqual([w.channel.id, w.channel.id, other.id, other.id, w.channel.id]);
    // Typing took no numbers: the first logged event is 1 for both.
    await postMessage(srv.url, w.owner.auth, w.channel.id, 'typed');
    for (const c of [person, bot]) expect((await c.waitForEvent('MESSAGE_CREATE')).s).toBe(1);
  });

  it('a focus on a channel of a server one is not in, or one hidden from them, brings nothing; a malformed focus closes with 4002', async () => {
    const w = await world(srv.url);
    const hidden = await createChannel(srv.url, w.owner, w.server.id, 'hidden');
    const member = await registerUser(srv.url);
    await joinServer(srv.url, w.owner, member, w.server.id);
    const deny = await call(srv.url, 'PUT', `/channels/${hidden.id}/permissions/${member.id}`, {
      auth: w.owner.auth,
      body: { type: 'member', deny: String(1 << 10) },
    });
    expect(deny.status, deny.text).toBe(204);
    // The outsider shares another server with the owner (so the owner may DM them), not this one.
    const outsider = await registerUser(srv.url);
    await joinServer(srv.url, w.owner, outsider, (await createServer(srv.url, w.owner, 'Elsewhere')).server.id);
    const inside = await pool.identify(srv.gatewayUrl, member.auth);
    const outside = await pool.identify(srv.gatewayUrl, outsider.auth);
    await inside.focus(hidden.id);
    await outside.focus(w.channel.id);
    await typeIn(w, hidden.id);
    await typeIn(w, w.channel.id);
    // A fence both hear: the member looks at general now, the outsider gets a DM's typing.
    await inside.focus(w.channel.id);
    await typeIn(w, w.channel.id);
    await inside.waitForEvent('TYPING_START');
    const dm = await call(srv.url, 'POST', '/users/@me/channels', { auth: w.owner.auth, body: { recipientIds: [outsider.id] } });
    expect(dm.status, dm.text).toBeLessThan(300);
    await typeIn(w, dm.body.id);
    await outside.waitForEvent('TYPING_START');
    expect(inside.events('TYPING_START').map((f) => f.d.channelId)).toEqual([w.channel.id]);
    expect(outside.events('TYPING_START').map((f) => f.d.channelId)).toEqual([dm.body.id]);

    inside.send({ op: 'focus', d: { channelId: 'general' } });
    expect((await inside.waitForClose()).code).toBe(4002);
  });
});

describe('audience', () => {
  it('isolates servers: a client of server B receives nothing from server A, and the reverse', async () => {
    const a = await world(srv.url);
    const b = await world(srv.url);
    const aUser = await pool.identify(srv.gatewayUrl, a.owner.auth);
    const aBot = await pool.identify(srv.gatewayUrl, a.bot.auth);
    const bUser = await pool.identify(srv.gatewayUrl, b.owner.auth);
    const bBot = await pool.identify(srv.gatewayUrl, b.bot.auth);
    const stranger = await registerUser(srv.url);
    const strangerClient = await pool.identify(srv.gatewayUrl, stranger.auth);
    // Looking at A's channel is not a way in: typing there still reaches A's members only.
    for (const c of [aUser, bUser, strangerClient]) await c.focus(a.channel.id);

    // A burst of every kind of change in A.
    const m = await postMessage(srv.url, a.owner.auth, a.channel.id, 'secret of A');
    await call(srv.url, 'PATCH', `/channels/${a.channel.id}/messages/${m.id}`, { auth: a.owner.auth, body: { content: 'still secret' } });
    await call(srv.url, 'PUT', `/channels/${a.channel.id}/messages/${m.id}/reactions/${encodeURIComponent('🔥')}`, { auth: a.bot.auth });
    await call(srv.url, 'POST', `/channels/${a.channel.id}/typing`, { auth: a.bot.auth });
    await createChannel(srv.url, a.owner, a.server.id, 'a-only');
    await call(srv.url, 'PATCH', `/servers/${a.server.id}`, { auth: a.owner.auth, body: { name: 'A!' } });
    const joiner = await registerUser(srv.url);
    await joinServer(srv.url, a.owner, joiner, a.server.id);
    // A fence in B: once B's clients have it, anything of A would have arrived before it.
    await postMessage(srv.url, b.owner.auth, b.channel.id, 'fence B');
    for (const c of [bUser, bBot]) {
      await c.waitForEvent('MESSAGE_CREATE', (d) => d.content === 'fence B');
      expect(c.events().map((f) => [f.t, f.d.serverId])).toEqual([['MESSAGE_CREATE', b.server.id]]);
      expect(JSON.stringify(c.frames)).not.toContain('secret');
    }
    for (const c of [aUser, aBot]) {
      await c.waitForEvent('MEMBER_ADD', (d) => d.user.id === joiner.id);
      expect(c.events()).toHaveLength(7);
      expect(c.events().every((f) => f.d.serverId === a.server.id || f.d.id === a.server.id)).toBe(true);
    }
    expect(strangerClient.events()).toEqual([]);
  });

  it('gives a member of two servers the events of both on one connection', async () => {
    const a = await world(srv.url);
    const b = await world(srv.url);
    await joinServer(srv.url, b.owner, a.owner, b.server.id);
    const c = await pool.identify(srv.gatewayUrl, a.owner.auth);
    expect(c.ready!.servers.map((s: any) => s.id).sort()).toEqual([a.server.id, b.server.id].sort());
    await postMessage(srv.url, a.owner.auth, a.channel.id, 'in A');
    await postMessage(srv.url, b.owner.auth, b.channel.id, 'in B');
    const [one, two] = await c.collect(2);
    expect([one!.d.content, two!.d.content]).toEqual(['in A', 'in B']);
    expectConsecutive(c);
  });

  it('starts delivering a server to a user who joins it while connected, announced by their own MEMBER_ADD', async () => {
    const w = await world(srv.url);
    const user = await registerUser(srv.url);
    const c = await pool.identify(srv.gatewayUrl, user.auth);
    expect(c.ready!.servers).toEqual([]);
    await joinServer(srv.url, w.owner, user, w.server.id);
    const add = await c.waitForEvent('MEMBER_ADD');
    expect(add.d).toMatchObject({ serverId: w.server.id, user: { id: user.id } });
    await postMessage(srv.url, w.owner.auth, w.channel.id, 'welcome');
    expect((await c.waitForEvent('MESSAGE_CREATE')).d.content).toBe('welcome');
    expectConsecutive(c);
  });

  it('starts delivering a server to a bot added while connected', async () => {
    const w = await world(srv.url);
    const other = await createServer(srv.url, w.owner, 'Second');
    const bot = await pool.identify(srv.gatewayUrl, w.bot.auth);
    await addBot(srv.url, w.owner, other.server.id, w.bot.id);
    expect((await bot.waitForEvent('MEMBER_ADD')).d).toMatchObject({ serverId: other.server.id, user: { id: w.bot.id, bot: true } });
    await postMessage(srv.url, w.owner.auth, other.general.id, 'hello second');
    expect((await bot.waitForEvent('MESSAGE_CREATE')).d).toMatchObject({ serverId: other.server.id, content: 'hello second' });
  });

  it('stops a bot removed from a server at once: it gets its own MEMBER_REMOVE and nothing after', async () => {
    const w = await world(srv.url);
    const keep = await createServer(srv.url, w.owner, 'Still has the bot');
    await addBot(srv.url, w.owner, keep.server.id, w.bot.id);
    const bot = await pool.identify(srv.gatewayUrl, w.bot.auth);
    const owner = await pool.identify(srv.gatewayUrl, w.owner.auth);
    await owner.focus(w.channel.id);

    expect((await call(srv.url, 'DELETE', `/servers/${w.server.id}/bots/${w.bot.id}`, { auth: w.owner.auth })).status).toBe(204);
    // Straight after the 204: changes in the server the bot just left...
    await postMessage(srv.url, w.owner.auth, w.channel.id, 'after removal');
    await call(srv.url, 'POST', `/channels/${w.channel.id}/typing`, { auth: w.owner.auth });
    await createChannel(srv.url, w.owner, w.server.id, 'later');
    // ...then a fence in the server it still belongs to.
    await postMessage(srv.url, w.owner.auth, keep.general.id, 'fence');
    await bot.waitForEvent('MESSAGE_CREATE', (d) => d.content === 'fence');

    expect(bot.events().map((f) => f.t)).toEqual(['MEMBER_REMOVE', 'MESSAGE_CREATE']);
    expect(bot.events()[0]!.d).toEqual({ serverId: w.server.id, user: expect.objectContaining({ id: w.bot.id, bot: true }) });
    expectConsecutive(bot);
    // The owner saw the removal, the bot's managed role going with it, and everything after.
    await owner.waitForEvent('MESSAGE_CREATE', (d) => d.content === 'fence');
    expect(owner.events().map((f) => f.t)).toEqual([
      'MEMBER_REMOVE',
      'ROLE_DELETE',
      'MESSAGE_CREATE',
      'TYPING_START',
      'CHANNEL_CREATE',
      'MESSAGE_CREATE',
    ]);
    const managed = owner.ready!.servers.find((s: { id: string }) => s.id === w.server.id).roles.find((r: any) => r.managed);
    expect(managed).toMatchObject({ name: w.bot.name, managed: true });
    expect(owner.events('ROLE_DELETE')[0]!.d).toEqual({ serverId: w.server.id, roleId: managed.id });
  });

  it('stops a user removed by the owner, after their own MEMBER_REMOVE', async () => {
    const w = await world(srv.url);
    const user = await registerUser(srv.url);
    await joinServer(srv.url, w.owner, user, w.server.id);
    const c = await pool.identify(srv.gatewayUrl, user.auth);
    expect((await call(srv.url, 'DELETE', `/servers/${w.server.id}/members/${user.id}`, { auth: w.owner.auth })).status).toBe(204);
    await postMessage(srv.url, w.owner.auth, w.channel.id, 'not for you');
    // A fence the user does get: a server of their own.
    const own = await createServer(srv.url, user, 'Mine');
    await postMessage(srv.url, user.auth, own.general.id, 'fence');
    await c.waitForEvent('MESSAGE_CREATE', (d) => d.content === 'fence');
    expect(c.events().map((f) => f.t)).toEqual(['MEMBER_REMOVE', 'MEMBER_ADD', 'MESSAGE_CREATE']);
    expect(JSON.stringify(c.frames)).not.toContain('not for you');
  });

  it("closes a deleted bot's connections with 4001, and tells the servers it was in", async () => {
    const w = await world(srv.url);
    const second = await createServer(srv.url, w.owner, 'Second');
    await addBot(srv.url, w.owner, second.server.id, w.bot.id);
    const one = await pool.identify(srv.gatewayUrl, w.bot.auth);
    const two = await pool.identify(srv.gatewayUrl, w.bot.auth);
    const owner = await pool.identify(srv.gatewayUrl, w.owner.auth);
    const bystander = await createBot(srv.url, w.owner);
    await addBot(srv.url, w.owner, w.server.id, bystander.id);
    const other = await pool.identify(srv.gatewayUrl, bystander.auth);

    expect((await call(srv.url, 'DELETE', `/bots/${w.bot.id}`, { auth: w.owner.auth })).status).toBe(204);
    expect((await one.waitForClose()).code).toBe(4001);
    expect((await two.waitForClose()).code).toBe(4001);

    const removed = (await owner.collect(2, (f) => f.t === 'MEMBER_REMOVE')).map((f) => f.d.serverId).sort();
    expect(removed).toEqual([w.server.id, second.server.id].sort());
    // Another bot is not affected.
    await postMessage(srv.url, w.owner.auth, w.channel.id, 'still here');
    await other.waitForEvent('MESSAGE_CREATE');
    expect(other.closeInfo).toBeNull();
    // The deleted token no longer identifies, and its session no longer resumes.
    const again = await pool.connect(srv.gatewayUrl);
    again.send({ op: 'identify', d: { token: w.bot.auth } });
    expect((await again.waitForClose()).code).toBe(4001);
    const resume = await pool.connect(srv.gatewayUrl);
    resume.send({ op: 'resume', d: { token: w.bot.auth, sessionId: one.sessionId, s: one.lastSeq } });
    expect((await resume.waitForClose()).code).toBe(4001);
  });

  it("closes the connections of a logged-out session with 4001 and leaves the user's other sessions open", async () => {
    const user = await registerUser(srv.url);
    const login = await call(srv.url, 'POST', '/auth/login', { body: { username: user.name, password: 'correct horse battery' } });
    const otherAuth = `Bearer ${login.body.token}`;
    const own = await createServer(srv.url, user, 'Mine');
    const a = await pool.identify(srv.gatewayUrl, user.auth);
    const b = await pool.identify(srv.gatewayUrl, otherAuth);
    expect((await call(srv.url, 'POST', '/auth/logout', { auth: user.auth })).status).toBe(204);
    expect((await a.waitForClose()).code).toBe(4001);
    // Sync point: the logout is in the log before this message, so had it closed b, the
    // close would have come instead of (and before) the event.
    await postMessage(srv.url, otherAuth, own.general.id, 'still connected');
    await b.waitForEvent('MESSAGE_CREATE');
    expect(b.closeInfo).toBeNull();
  });
});
