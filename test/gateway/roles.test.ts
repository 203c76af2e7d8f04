// Roles and channel overwrites change what open sessions receive at once
// (docs/permissions.md#changes-reach-open-connections-at-once): a channel a member may no longer see is announced to them as CHANNEL_DELETE
// and nothing of it follows; one they may now see arrives as CHANNEL_CREATE. Every change
// here is made through the real REST API, and every wait is on an event.
import { P } from '@parley/protocol';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call, createChannel, createServer, joinServer, postMessage, registerUser, type TestUser, world } from '../factories.js';
import { startServer, type TestServer } from '../harness.js';
import { ClientPool, type TestGatewayClient, expectConsecutive } from './client.js';

let srv: TestServer;
const pool = new ClientPool();

beforeAll(async () => {
  srv = await startServer({ env: { GATEWAY_HEARTBEAT_MS: '2000', RATE_LIMITS: 'off' } });
});
afterEach(() => pool.closeAll());
afterAll(() => srv?.close());

const VIEW = String(P.VIEW_CHANNEL);
const CONTENT_EVENTS = ['MESSAGE_CREATE', 'MESSAGE_UPDATE', 'MESSAGE_DELETE', 'REACTION_ADD', 'REACTION_REMOVE', 'TYPING_START'];
const thumbs = encodeURIComponent('👍');
const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT/);

/** A member's (or bot's) world: the usual owner, server, general channel and bot, plus a person who joined. */
async function setup() {
  const w = await world(srv.url);
  const member = await registerUser(srv.url);
  await joinServer(srv.url, w.owner, member, w.server.id);
  return { ...w, member };
}

/**
 * Renames the server and waits until `clients` have the SERVER_UPDATE: every member
 * receives it whatever channels they see, and the log is ordered, so every event published
 * before it has been delivered (or filtered) by then.
 */
async function syncPoint(owner: TestUser, serverId: string, ...clients: TestGatewayClient[]): Promise<void> {
  const name = `sync-${Math.random().toString(36).slice(2, 8)}`;
  const r = await call(srv.url, 'PATCH', `/servers/${serverId}`, { auth: owner.auth, body: { name } });
  expect(r.status, r.text).toBe(200);
  await Promise.all(clients.map((c) => c.waitForEvent('SERVER_UPDATE', (d) => d.name === name)));
}

/** Causes every content event once in `channelId`, through the REST API, as `actor`. */
async function everyContentEvent(actor: string, channelId: string, content = 'secret plans'): Promise<void> {
  const { url } = srv;
  const msg = await postMessage(url, actor, channelId, content);
  expect(
    (await call(url, 'PATCH', `/channels/${channelId}/messages/${msg.id}`, { auth: actor, body: { content: `${content}!` } })).status,
  ).toBe(200);
  expect((await call(url, 'PUT', `/channels/${channelId}/messages/${msg.id}/reactions/${thumbs}`, { auth: actor })).status).toBe(200);
  expect((await call(url, 'PUT', `/channels/${channelId}/messages/${msg.id}/reactions/${thumbs}`, { auth: actor })).status).toBe(200);
  expect((await call(url, 'POST', `/channels/${channelId}/typing`, { auth: actor })).status).toBe(204);
  expect((await call(url, 'DELETE', `/channels/${channelId}/messages/${msg.id}`, { auth: actor })).status).toBe(204);
}

async function putOverwrite(
  owner: TestUser,
  channelId: string,
  targetId: string,
  body: { type: 'role' | 'member'; allow?: string; deny?: string },
) {
  const r = await call(srv.url, 'PUT', `/channels/${channelId}/permissions/${targetId}`, { auth: owner.auth, body });
  expect(r.status, r.text).toBe(204);
}

async function createRole(owner: TestUser, serverId: string, name: string, permissions: string): Promise<{ id: string }> {
  const r = await call(srv.url, 'POST', `/servers/${serverId}/roles`, { auth: owner.auth, body: { name, permissions } });
  expect(r.status, r.text).toBe(201);
  return r.body;
}

async function giveRole(owner: TestUser, serverId: string, userId: string, roleId: string) {
  const r = await call(srv.url, 'PUT', `/servers/${serverId}/members/${userId}/roles/${roleId}`, { auth: owner.auth });
  expect(r.status, r.text).toBe(204);
}

const types = (c: TestGatewayClient) => c.events().map((f) => f.t);
const channelIds = (ready: { servers: Array<{ channels: Array<{ id: string }> }> }) => ready.servers[0]!.channels.map((c) => c.id);

describe('a channel made private while sessions are open', () => {
  it('is deleted for a plain member, who then receives none of its content while the owner does; a role allowed in it brings it back', async () => {
    const w = await setup();
    const sid = w.server.id;
    const secret = await createChannel(srv.url, w.owner, sid, 'secret');
    const owner = await pool.identify(srv.gatewayUrl, w.owner.auth);
    const member = await pool.identify(srv.gatewayUrl, w.member.auth);
    expect(channelIds(member.ready!)).toEqual([w.channel.id, secret.id]);
    // Both look at the channel: what keeps its typing from the member is the permission.
    for (const c of [owner, member]) await c.focus(secret.id);

    // @everyone denied VIEW_CHANNEL: a private channel.
    await putOverwrite(w.owner, secret.id, sid, { type: 'role', deny: VIEW });
    const gone = await member.waitForEvent('CHANNEL_DELETE', (d) => d.id === secret.id);
    expect(gone.d).toEqual({
      id: secret.id,
      serverId: sid,
      name: 'secret',
      createdAt: ISO,
      topic: null,
      position: 1,
      type: 'text',
      parentId: null,
      permissionOverwrites: [],
    });
    // The owner sees the channel change instead, with its new overwrite.
    const changed = await owner.waitForEvent('CHANNEL_UPDATE', (d) => d.id === secret.id);
    expect(changed.d.permissionOverwrites).toEqual([{ id: sid, type: 'role', allow: '0', deny: VIEW }]);
    expect((await call(srv.url, 'GET', `/channels/${secret.id}/messages`, { auth: w.member.auth })).status).toBe(403);

    await everyContentEvent(w.owner.auth, secret.id);
    await postMessage(srv.url, w.owner.auth, w.channel.id, 'in general');
    await syncPoint(w.owner, sid, owner, member);
    expect(types(member)).toEqual(['CHANNEL_DELETE', 'MESSAGE_CREATE', 'SERVER_UPDATE']);
    expect(JSON.stringify(member.frames.slice(2))).not.toContain('plans');
    for (const t of CONTENT_EVENTS) {
      expect(
        owner.events(t).filter((f) => f.d.channelId === secret.id),
        `owner gets ${t} of the private channel`,
      ).toHaveLength(1);
    }

    // A role allowed in the channel: the member sees nothing of it until they hold the role.
    const insiders = await createRole(w.owner, sid, 'insiders', '0');
    await putOverwrite(w.owner, secret.id, insiders.id, { type: 'role', allow: VIEW });
    await syncPoint(w.owner, sid, member);
    expect(types(member).slice(3)).toEqual(['ROLE_CREATE', 'SERVER_UPDATE']);

    await giveRole(w.owner, sid, w.member.id, insiders.id);
    const back = await member.waitForEvent('CHANNEL_CREATE', (d) => d.id === secret.id);
    expect(types(member).slice(5)).toEqual(['MEMBER_UPDATE', 'CHANNEL_CREATE']);
    expect(member.events('MEMBER_UPDATE')[0]!.d).toEqual({
      serverId: sid,
      user: expect.objectContaining({ id: w.member.id, bot: false }),
      roles: [insiders.id],
    });
    expect(back.d).toMatchObject({ id: secret.id, serverId: sid, name: 'secret', topic: null, position: 1 });
    expect([...back.d.permissionOverwrites].sort((a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : 1))).toEqual(
      [
        { id: sid, type: 'role', allow: '0', deny: VIEW },
        { id: insiders.id, type: 'role', allow: VIEW, deny: '0' },
      ].sort((a, b) => (a.id < b.id ? -1 : 1)),
    );

    // Its content flows again, every kind of it.
    await everyContentEvent(w.owner.auth, secret.id, 'open plans');
    await syncPoint(w.owner, sid, member);
    for (const t of CONTENT_EVENTS)
      expect(
        member.events(t).filter((f) => f.d.channelId === secret.id),
        t,
      ).toHaveLength(1);
    expect(member.events('MESSAGE_CREATE').map((f) => f.d.content)).toEqual(['in general', 'open plans']);
    expectConsecutive(member);
    expectConsecutive(owner);
  });

  it('a member overwrite hides a channel from that member alone', async () => {
    const w = await setup();
    const other = await registerUser(srv.url);
    await joinServer(srv.url, w.owner, other, w.server.id);
    const member = await pool.identify(srv.gatewayUrl, w.member.auth);
    const bystander = await pool.identify(srv.gatewayUrl, other.auth);
    await putOverwrite(w.owner, w.channel.id, w.member.id, { type: 'member', deny: VIEW });
    await member.waitForEvent('CHANNEL_DELETE', (d) => d.id === w.channel.id);
    await postMessage(srv.url, w.owner.auth, w.channel.id, 'not for the member');
    await syncPoint(w.owner, w.server.id, member, bystander);
    expect(types(member)).toEqual(['CHANNEL_DELETE', 'SERVER_UPDATE']);
    expect(types(bystander)).toEqual(['CHANNEL_UPDATE', 'MESSAGE_CREATE', 'SERVER_UPDATE']);
    expect(bystander.events('CHANNEL_UPDATE')[0]!.d.permissionOverwrites).toEqual([
      { id: w.member.id, type: 'member', allow: '0', deny: VIEW },
    ]);
  });
});

describe('a role losing VIEW_CHANNEL', () => {
  it('hides the channels at once: the next message is not delivered, and gaining the role back shows them again', async () => {
    const w = await setup();
    const sid = w.server.id;
    const second = await createChannel(srv.url, w.owner, sid, 'second');
    // @everyone without VIEW_CHANNEL; a role that grants it, held by the member.
    const everyone = (await call(srv.url, 'GET', `/servers/${sid}/roles`, { auth: w.owner.auth })).body.find(
      (r: { id: string }) => r.id === sid,
    );
    const base = BigInt(everyone.permissions);
    const readers = await createRole(w.owner, sid, 'readers', VIEW);
    await giveRole(w.owner, sid, w.member.id, readers.id);
    const r = await call(srv.url, 'PATCH', `/servers/${sid}/roles/${sid}`, {
      auth: w.owner.auth,
      body: { permissions: String(base & ~P.VIEW_CHANNEL) },
    });
    expect(r.status, r.text).toBe(200);

    const owner = await pool.identify(srv.gatewayUrl, w.owner.auth);
    const member = await pool.identify(srv.gatewayUrl, w.member.auth);
    const bot = await pool.identify(srv.gatewayUrl, w.bot.auth);
    expect(channelIds(member.ready!)).toEqual([w.channel.id, second.id]);

    const patched = await call(srv.url, 'PATCH', `/servers/${sid}/roles/${readers.id}`, { auth: w.owner.auth, body: { permissions: '0' } });
    expect(patched.status, patched.text).toBe(200);
    // Straight after the 200: this message is not for the member any more.
    await postMessage(srv.url, w.owner.auth, w.channel.id, 'after the change');
    await syncPoint(w.owner, sid, owner, member, bot);
    expect(types(member)).toEqual(['ROLE_UPDATE', 'CHANNEL_DELETE', 'CHANNEL_DELETE', 'SERVER_UPDATE']);
    expect(member.events('ROLE_UPDATE')[0]!.d).toEqual({
      serverId: sid,
      role: expect.objectContaining({ id: readers.id, name: 'readers', permissions: '0' }),
    });
    expect(member.events('CHANNEL_DELETE').map((f) => f.d.id)).toEqual([w.channel.id, second.id]);
    // The owner and the bot (whose managed role grants what it has) are not affected.
    expect(types(owner)).toEqual(['ROLE_UPDATE', 'MESSAGE_CREATE', 'SERVER_UPDATE']);
    expect(types(bot)).toEqual(['ROLE_UPDATE', 'MESSAGE_CREATE', 'SERVER_UPDATE']);
    expect((await call(srv.url, 'GET', `/servers/${sid}/channels`, { auth: w.member.auth })).body).toEqual([]);

    // Granting it again shows both channels, then their messages.
    expect(
      (await call(srv.url, 'PATCH', `/servers/${sid}/roles/${readers.id}`, { auth: w.owner.auth, body: { permissions: VIEW } })).status,
    ).toBe(200);
    await postMessage(srv.url, w.owner.auth, second.id, 'visible again');
    await member.waitForEvent('MESSAGE_CREATE', (d) => d.content === 'visible again');
    expect(types(member).slice(4)).toEqual(['ROLE_UPDATE', 'CHANNEL_CREATE', 'CHANNEL_CREATE', 'MESSAGE_CREATE']);
    expect(member.events('CHANNEL_CREATE').map((f) => f.d.id)).toEqual([w.channel.id, second.id]);
    expectConsecutive(member);
  });
});

describe('ready', () => {
  it('lists only the channels the member can see, as GET /servers/{id}/channels does', async () => {
    const w = await setup();
    const sid = w.server.id;
    const secret = await createChannel(srv.url, w.owner, sid, 'secret');
    await putOverwrite(w.owner, secret.id, sid, { type: 'role', deny: VIEW });
    const invited = await registerUser(srv.url);
    await joinServer(srv.url, w.owner, invited, sid);
    await putOverwrite(w.owner, secret.id, invited.id, { type: 'member', allow: VIEW });

    const member = await pool.identify(srv.gatewayUrl, w.member.auth);
    const owner = await pool.identify(srv.gatewayUrl, w.owner.auth);
    const guest = await pool.identify(srv.gatewayUrl, invited.auth);
    expect(member.ready!.servers[0].channels).toEqual([
      {
        id: w.channel.id,
        serverId: sid,
        name: 'general',
        createdAt: ISO,
        topic: null,
        position: 0,
        type: 'text',
        parentId: null,
        permissionOverwrites: [],
        lastMessageId: null,
      },
    ]);
    expect(channelIds(owner.ready!)).toEqual([w.channel.id, secret.id]);
    expect(channelIds(guest.ready!)).toEqual([w.channel.id, secret.id]);
    expect(owner.ready!.servers[0].channels[1].permissionOverwrites).toEqual(
      expect.arrayContaining([
        { id: sid, type: 'role', allow: '0', deny: VIEW },
        { id: invited.id, type: 'member', allow: VIEW, deny: '0' },
      ]),
    );
    for (const [who, c] of [
      [w.member, member],
      [w.owner, owner],
      [invited, guest],
    ] as const) {
      const rest = await call(srv.url, 'GET', `/servers/${sid}/channels`, { auth: who.auth });
      expect(rest.body.map((ch: { id: string }) => ch.id)).toEqual(channelIds(c.ready!));
    }
    expect(JSON.stringify(member.frames)).not.toContain(secret.id);
  });
});

describe('bans', () => {
  it('BAN_ADD reaches only sessions with BAN_MEMBERS; the banned member gets MEMBER_REMOVE and nothing more', async () => {
    const w = await setup();
    const sid = w.server.id;
    const mod = await registerUser(srv.url);
    const target = await registerUser(srv.url);
    await joinServer(srv.url, w.owner, mod, sid);
    await joinServer(srv.url, w.owner, target, sid);
    const own = await createServer(srv.url, target, 'Elsewhere');
    const mods = await createRole(w.owner, sid, 'mods', String(P.BAN_MEMBERS));

    const owner = await pool.identify(srv.gatewayUrl, w.owner.auth);
    const moderator = await pool.identify(srv.gatewayUrl, mod.auth);
    const member = await pool.identify(srv.gatewayUrl, w.member.auth);
    const bot = await pool.identify(srv.gatewayUrl, w.bot.auth);
    const banned = await pool.identify(srv.gatewayUrl, target.auth);
    for (const c of [owner, moderator, member, banned]) await c.focus(w.channel.id);
    // The moderator is given the permission while connected: their session follows.
    await giveRole(w.owner, sid, mod.id, mods.id);
    await moderator.waitForEvent('MEMBER_UPDATE', (d) => d.user.id === mod.id);

    const ban = await call(srv.url, 'PUT', `/servers/${sid}/bans/${target.id}`, { auth: mod.auth, body: { reason: 'spam' } });
    expect(ban.status, ban.text).toBe(204);
    // Straight after: content, a new channel and the unban, none of it for the banned member.
    await postMessage(srv.url, w.owner.auth, w.channel.id, 'after the ban');
    await call(srv.url, 'POST', `/channels/${w.channel.id}/typing`, { auth: w.owner.auth });
    await createChannel(srv.url, w.owner, sid, 'later');
    expect((await call(srv.url, 'DELETE', `/servers/${sid}/bans/${target.id}`, { auth: mod.auth })).status).toBe(204);
    await syncPoint(w.owner, sid, owner, moderator, member, bot);
    await postMessage(srv.url, target.auth, own.general.id, 'fence');
    await banned.waitForEvent('MESSAGE_CREATE', (d) => d.content === 'fence');

    const after = ['MESSAGE_CREATE', 'TYPING_START', 'CHANNEL_CREATE'];
    expect(types(owner)).toEqual(['MEMBER_UPDATE', 'BAN_ADD', 'MEMBER_REMOVE', ...after, 'BAN_REMOVE', 'SERVER_UPDATE']);
    expect(types(moderator)).toEqual(['MEMBER_UPDATE', 'BAN_ADD', 'MEMBER_REMOVE', ...after, 'BAN_REMOVE', 'SERVER_UPDATE']);
    expect(types(member)).toEqual(['MEMBER_UPDATE', 'MEMBER_REMOVE', ...after, 'SERVER_UPDATE']);
    expect(types(bot)).toEqual(['MEMBER_UPDATE', 'MEMBER_REMOVE', ...after, 'SERVER_UPDATE']);
    for (const c of [owner, moderator]) {
      expect(c.events('BAN_ADD')[0]!.d).toEqual({ serverId: sid, user: expect.objectContaining({ id: target.id, bot: false }) });
      expect(c.events('BAN_REMOVE')[0]!.d).toEqual({ serverId: sid, user: expect.objectContaining({ id: target.id }) });
    }
    expect(types(banned)).toEqual(['MEMBER_UPDATE', 'MEMBER_REMOVE', 'MESSAGE_CREATE']);
    expect(banned.events('MEMBER_REMOVE')[0]!.d).toEqual({ serverId: sid, user: expect.objectContaining({ id: target.id }) });
    expect(banned.events('MESSAGE_CREATE')[0]!.d.serverId).toBe(own.server.id);
    expect(JSON.stringify(banned.frames)).not.toContain('after the ban');
    for (const c of [owner, moderator, member, bot, banned]) expectConsecutive(c);
  });
});

describe('a channel the member cannot see', () => {
  it('sends them nothing of it: not its renames, topic, overwrite changes, content or deletion', async () => {
    const w = await setup();
    const sid = w.server.id;
    const hidden = await createChannel(srv.url, w.owner, sid, 'hidden-one');
    await putOverwrite(w.owner, hidden.id, sid, { type: 'role', deny: VIEW });
    const staff = await createRole(w.owner, sid, 'staff', '0');
    const member = await pool.identify(srv.gatewayUrl, w.member.auth);
    const owner = await pool.identify(srv.gatewayUrl, w.owner.auth);
    expect(channelIds(member.ready!)).toEqual([w.channel.id]);

    const rename = await call(srv.url, 'PATCH', `/channels/${hidden.id}`, {
      auth: w.owner.auth,
      body: { name: 'renamed-hidden', topic: 'hidden topic' },
    });
    expect(rename.status, rename.text).toBe(200);
    await everyContentEvent(w.owner.auth, hidden.id);
    // An overwrite change that still leaves it hidden from the member.
    await putOverwrite(w.owner, hidden.id, staff.id, { type: 'role', allow: VIEW });
    await syncPoint(w.owner, sid, owner, member);
    expect(types(member)).toEqual(['SERVER_UPDATE']);
    expect(owner.events('CHANNEL_UPDATE').map((f) => f.d.name)).toEqual(['renamed-hidden', 'renamed-hidden']);
    expect(JSON.stringify(member.frames)).not.toContain(hidden.id);
    expect(JSON.stringify(member.frames)).not.toContain('hidden');

    // Shown again (the overwrite removed), it arrives as it is now: renamed, with its topic.
    expect((await call(srv.url, 'DELETE', `/channels/${hidden.id}/permissions/${sid}`, { auth: w.owner.auth })).status).toBe(204);
    const shown = await member.waitForEvent('CHANNEL_CREATE', (d) => d.id === hidden.id);
    expect(shown.d).toEqual({
      id: hidden.id,
      serverId: sid,
      name: 'renamed-hidden',
      createdAt: ISO,
      topic: 'hidden topic',
      position: 1,
      type: 'text',
      parentId: null,
      permissionOverwrites: [{ id: staff.id, type: 'role', allow: VIEW, deny: '0' }],
    });
    // Hidden once more, then deleted: the deletion is not sent to the member.
    await putOverwrite(w.owner, hidden.id, sid, { type: 'role', deny: VIEW });
    await member.waitForEvent('CHANNEL_DELETE', (d) => d.id === hidden.id);
    expect((await call(srv.url, 'DELETE', `/channels/${hidden.id}`, { auth: w.owner.auth })).status).toBe(204);
    await owner.waitForEvent('CHANNEL_DELETE', (d) => d.id === hidden.id);
    await syncPoint(w.owner, sid, owner, member);
    expect(types(member)).toEqual(['SERVER_UPDATE', 'CHANNEL_CREATE', 'CHANNEL_DELETE', 'SERVER_UPDATE']);
    expectConsecutive(member);
  });
});

describe('resuming across a change of what the member may see', () => {
  /** Identifies `who`, then drops the connection; returns the session to resume. */
  async function dropped(who: TestUser): Promise<TestGatewayClient> {
    const c = await pool.identify(srv.gatewayUrl, who.auth);
    await c.terminate();
    return c;
  }

  /** Resumes `c`'s session from 0 and expects `resumed`; returns the client and what was replayed before it. */
  async function resumedFrom(who: TestUser, c: TestGatewayClient) {
    const r = await pool.resume(srv.gatewayUrl, who.auth, c.sessionId, 0);
    const i = r.frames.findIndex((f) => f.op === 'resumed');
    expect(r.frames.slice(1).map((f) => f.op)).not.toContain('invalid_session');
    expect(i).toBeGreaterThan(0);
    return { r, replayed: r.frames.slice(1, i) };
  }

  const READ = String(P.VIEW_CHANNEL | P.READ_MESSAGE_HISTORY);

  it('replays across a channel made private meanwhile: what came before, the CHANNEL_DELETE, and nothing of it after', async () => {
    const w = await setup();
    const secret = await createChannel(srv.url, w.owner, w.server.id, 'secret');
    const c = await dropped(w.member);
    await postMessage(srv.url, w.owner.auth, secret.id, 'before, allowed');
    await putOverwrite(w.owner, secret.id, w.server.id, { type: 'role', deny: VIEW });
    await postMessage(srv.url, w.owner.auth, secret.id, 'after, forbidden');
    const { r, replayed } = await resumedFrom(w.member, c);
    expect(replayed.map((f) => [f.t, f.d.content ?? f.d.id])).toEqual([
      ['MESSAGE_CREATE', 'before, allowed'],
      ['CHANNEL_DELETE', secret.id],
    ]);
    await postMessage(srv.url, w.owner.auth, secret.id, 'live, forbidden');
    await syncPoint(w.owner, w.server.id, r);
    expect(JSON.stringify(r.frames)).not.toContain('forbidden');
    expectConsecutive(r);
  });

  it('replays across a private channel deleted meanwhile without its missed messages', async () => {
    // Deleting a channel takes its overwrites with it; the checkpoint's model still has them.
    const w = await setup();
    const secret = await createChannel(srv.url, w.owner, w.server.id, 'secret-room');
    await putOverwrite(w.owner, secret.id, w.server.id, { type: 'role', deny: VIEW });
    const c = await dropped(w.member);
    await postMessage(srv.url, w.owner.auth, secret.id, 'top secret');
    expect((await call(srv.url, 'DELETE', `/channels/${secret.id}`, { auth: w.owner.auth })).status).toBe(204);
    await postMessage(srv.url, w.owner.auth, w.channel.id, 'public');
    const { r, replayed } = await resumedFrom(w.member, c);
    expect(replayed.map((f) => [f.t, f.d.content])).toEqual([['MESSAGE_CREATE', 'public']]);
    expect(JSON.stringify(r.frames)).not.toContain('secret');
  });

  it("replays across a bot's role added, changed and removed and an overwrite: the readable channel's message, not the hidden one's", async () => {
    // Issue 36 item 7: reaction-role bots change roles all the time; a resume must survive it.
    const w = await world(srv.url, []);
    const sid = w.server.id;
    const secret = await createChannel(srv.url, w.owner, sid, 'secret');
    const reader = await createRole(w.owner, sid, 'reader', READ);
    await giveRole(w.owner, sid, w.bot.id, reader.id);
    const c = await pool.identify(srv.gatewayUrl, w.bot.auth);
    expect(channelIds(c.ready!)).toEqual([w.channel.id, secret.id]);
    await c.terminate();

    const extra = await createRole(w.owner, sid, 'extra', '0');
    await giveRole(w.owner, sid, w.bot.id, extra.id);
    const patched = await call(srv.url, 'PATCH', `/servers/${sid}/roles/${extra.id}`, {
      auth: w.owner.auth,
      body: { permissions: String(P.SEND_MESSAGES) },
    });
    expect(patched.status, patched.text).toBe(200);
    await putOverwrite(w.owner, secret.id, w.bot.id, { type: 'member', deny: VIEW });
    const removed = await call(srv.url, 'DELETE', `/servers/${sid}/members/${w.bot.id}/roles/${extra.id}`, { auth: w.owner.auth });
    expect(removed.status, removed.text).toBe(204);
    await postMessage(srv.url, w.owner.auth, w.channel.id, 'still readable');
    await postMessage(srv.url, w.owner.auth, secret.id, 'no longer readable');

    const { r, replayed } = await resumedFrom(w.bot, c);
    const events = replayed.map((f) => f.t);
    expect(events.filter((t) => t === 'MEMBER_UPDATE').length).toBe(2);
    expect(replayed.filter((f) => f.t === 'CHANNEL_DELETE').map((f) => f.d.id)).toEqual([secret.id]);
    expect(replayed.filter((f) => f.t === 'MESSAGE_CREATE').map((f) => f.d.content)).toEqual(['still readable']);
    expect(JSON.stringify(r.frames)).not.toContain('no longer readable');
    expectConsecutive(r);
    // Live after it, the current permissions hold.
    await postMessage(srv.url, w.owner.auth, secret.id, 'live, hidden');
    await postMessage(srv.url, w.owner.auth, w.channel.id, 'live, readable');
    await r.waitForEvent('MESSAGE_CREATE', (d) => d.content === 'live, readable');
    expect(JSON.stringify(r.frames)).not.toContain('live, hidden');
  });

  it('replays across a role that grants access: the channel arrives, then only what was posted after the grant', async () => {
    const w = await world(srv.url, []);
    const sid = w.server.id;
    const reader = await createRole(w.owner, sid, 'reader', READ);
    const c = await pool.identify(srv.gatewayUrl, w.bot.auth);
    expect(channelIds(c.ready!)).toEqual([]);
    await c.terminate();
    await postMessage(srv.url, w.owner.auth, w.channel.id, 'before the grant');
    await giveRole(w.owner, sid, w.bot.id, reader.id);
    await postMessage(srv.url, w.owner.auth, w.channel.id, 'after the grant');

    const { r, replayed } = await resumedFrom(w.bot, c);
    expect(replayed.filter((f) => f.t !== 'MEMBER_UPDATE').map((f) => [f.t, f.t === 'CHANNEL_CREATE' ? f.d.id : f.d.content])).toEqual([
      ['CHANNEL_CREATE', w.channel.id],
      ['MESSAGE_CREATE', 'after the grant'],
    ]);
    expect(JSON.stringify(r.frames)).not.toContain('before the grant');
    expectConsecutive(r);
  });

  it("replays across a role's permissions taken away: nothing posted after it", async () => {
    const w = await world(srv.url, []);
    const sid = w.server.id;
    const reader = await createRole(w.owner, sid, 'reader', READ);
    await giveRole(w.owner, sid, w.bot.id, reader.id);
    const c = await pool.identify(srv.gatewayUrl, w.bot.auth);
    expect(channelIds(c.ready!)).toEqual([w.channel.id]);
    await c.terminate();
    await postMessage(srv.url, w.owner.auth, w.channel.id, 'while it could read');
    const patched = await call(srv.url, 'PATCH', `/servers/${sid}/roles/${reader.id}`, { auth: w.owner.auth, body: { permissions: '0' } });
    expect(patched.status, patched.text).toBe(200);
    await postMessage(srv.url, w.owner.auth, w.channel.id, 'after it lost the right');

    const { r, replayed } = await resumedFrom(w.bot, c);
    expect(replayed.filter((f) => f.t === 'MESSAGE_CREATE' || f.t === 'CHANNEL_DELETE').map((f) => f.t)).toEqual([
      'MESSAGE_CREATE',
      'CHANNEL_DELETE',
    ]);
    expect(JSON.stringify(r.frames)).not.toContain('after it lost the right');
  });

  it('still replays when a channel created meanwhile was deleted again (it had no overwrites to lose)', async () => {
    const w = await setup();
    const c = await dropped(w.member);
    const brief = await createChannel(srv.url, w.owner, w.server.id, 'brief');
    await postMessage(srv.url, w.owner.auth, brief.id, 'short-lived');
    expect((await call(srv.url, 'DELETE', `/channels/${brief.id}`, { auth: w.owner.auth })).status).toBe(204);
    const r = await pool.resume(srv.gatewayUrl, w.member.auth, c.sessionId, 0);
    expect(r.frames.slice(1).map((f) => [f.op, f.t, f.s])).toEqual([
      ['event', 'CHANNEL_CREATE', 1],
      ['event', 'MESSAGE_CREATE', 2],
      ['event', 'CHANNEL_DELETE', 3],
      ['resumed', undefined, undefined],
    ]);
  });

  it('never replays what a member overwrite hid from a member who was kicked meanwhile', async () => {
    const w = await setup();
    await putOverwrite(w.owner, w.channel.id, w.member.id, { type: 'member', deny: VIEW });
    const c = await dropped(w.member);
    await postMessage(srv.url, w.owner.auth, w.channel.id, 'not for the member');
    expect((await call(srv.url, 'DELETE', `/servers/${w.server.id}/members/${w.member.id}`, { auth: w.owner.auth })).status).toBe(204);
    const r = await pool.resume(srv.gatewayUrl, w.member.auth, c.sessionId, 0);
    // Either a replay without the message or a refusal is right; the message never is.
    expect(r.frames.some((f) => f.op === 'resumed' || f.op === 'invalid_session')).toBe(true);
    expect(JSON.stringify(r.frames)).not.toContain('not for the member');
  });
});
