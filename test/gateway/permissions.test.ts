// The gateway delivers each event only to identities that may see it now: the same rule
// as the REST API's reads (src/domain/permissions.ts), kept current on open sessions by
// the log itself, live and on resume.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { addBot, call, createBot, createChannel, createServer, joinServer, postMessage, registerUser, world } from '../factories.js';
import { startServer, type TestServer } from '../harness.js';
import { ClientPool, type TestGatewayClient } from './client.js';

let srv: TestServer;
const pool = new ClientPool();

beforeAll(async () => {
  srv = await startServer({ env: { GATEWAY_HEARTBEAT_MS: '2000', RATE_LIMITS: 'off' } });
});
afterEach(() => pool.closeAll());
afterAll(() => srv?.close());

const CONTENT_EVENTS = ['MESSAGE_CREATE', 'MESSAGE_UPDATE', 'MESSAGE_DELETE', 'REACTION_ADD', 'REACTION_REMOVE', 'TYPING_START'];
const thumbs = encodeURIComponent('👍');

/**
 * Renames the channel and waits until `clients` have the CHANNEL_UPDATE: the log is
 * ordered, so every event published before it has been delivered (or filtered) by then.
 */
async function syncPoint(owner: string, channelId: string, ...clients: TestGatewayClient[]): Promise<void> {
  const name = `sync-${Math.random().toString(36).slice(2, 8)}`;
  const r = await call(srv.url, 'PATCH', `/channels/${channelId}`, { auth: owner, body: { name } });
  expect(r.status).toBe(200);
  await Promise.all(clients.map((c) => c.waitForEvent('CHANNEL_UPDATE', (d) => d.name === name)));
}

/** Causes every content event once, through the REST API, as `actor`. */
async function everyContentEvent(actor: string, channelId: string): Promise<void> {
  const { url } = srv;
  const msg = await postMessage(url, actor, channelId, 'secret plans');
  expect(
    (await call(url, 'PATCH', `/channels/${channelId}/messages/${msg.id}`, { auth: actor, body: { content: 'edited plans' } })).status,
  ).toBe(200);
  expect((await call(url, 'PUT', `/channels/${channelId}/messages/${msg.id}/reactions/${thumbs}`, { auth: actor })).status).toBe(200);
  expect((await call(url, 'PUT', `/channels/${channelId}/messages/${msg.id}/reactions/${thumbs}`, { auth: actor })).status).toBe(200);
  expect((await call(url, 'POST', `/channels/${channelId}/typing`, { auth: actor })).status).toBe(204);
  expect((await call(url, 'DELETE', `/channels/${channelId}/messages/${msg.id}`, { auth: actor })).status).toBe(204);
}

describe('events need the permission their REST read needs', () => {
  it('a bot without READ_MESSAGES receives no content event, while REST also refuses it; a full bot receives all', async () => {
    const w = await world(srv.url, ['SEND_MESSAGES']);
    const full = await createBot(srv.url, w.owner);
    await addBot(srv.url, w.owner, w.server.id, full.id);
    const restricted = await pool.identify(srv.gatewayUrl, w.bot.auth);
    const control = await pool.identify(srv.gatewayUrl, full.auth);

    // The REST read it must match.
    expect((await call(srv.url, 'GET', `/channels/${w.channel.id}/messages`, { auth: w.bot.auth })).status).toBe(403);

    await everyContentEvent(w.owner.auth, w.channel.id);
    // The restricted bot's own message is content too: it may send, not read.
    await postMessage(srv.url, w.bot.auth, w.channel.id, 'sent blind');
    await syncPoint(w.owner.auth, w.channel.id, restricted, control);

    for (const t of CONTENT_EVENTS) {
      expect(control.events(t).length, `control bot gets ${t}`).toBeGreaterThan(0);
      expect(restricted.events(t), `restricted bot gets no ${t}`).toEqual([]);
    }
    expect(JSON.stringify(restricted.frames)).not.toContain('plans');
    expect(JSON.stringify(restricted.frames)).not.toContain('sent blind');
    // Numbering stays gapless: filtered events take no sequence number.
    const s = restricted.events().map((f) => f.s);
    expect(s).toEqual(s.map((_, i) => i + 1));
  });

  it('a bot with no permissions sees no channel, in REST or in events, but still receives the member, role and server events GET /members and /roles show it', async () => {
    const w = await world(srv.url, []);
    const restricted = await pool.identify(srv.gatewayUrl, w.bot.auth);
    const other = await createBot(srv.url, w.owner);
    const person = await registerUser(srv.url);

    // What REST shows it: no channel (it lacks VIEW_CHANNEL everywhere), but the members and roles.
    expect(restricted.ready!.servers).toHaveLength(1);
    expect(restricted.ready!.servers[0].channels).toEqual([]);
    expect(restricted.ready!.servers[0].permissions).toBe('0');
    expect((await call(srv.url, 'GET', `/servers/${w.server.id}/channels`, { auth: w.bot.auth })).body).toEqual([]);
    expect((await call(srv.url, 'GET', `/servers/${w.server.id}/members`, { auth: w.bot.auth })).status).toBe(200);
    expect((await call(srv.url, 'GET', `/servers/${w.server.id}/roles`, { auth: w.bot.auth })).status).toBe(200);

    const channel = await createChannel(srv.url, w.owner, w.server.id, 'shape');
    expect((await call(srv.url, 'PATCH', `/channels/${channel.id}`, { auth: w.owner.auth, body: { name: 'shape2' } })).status).toBe(200);
    expect((await call(srv.url, 'DELETE', `/channels/${channel.id}`, { auth: w.owner.auth })).status).toBe(204);
    await addBot(srv.url, w.owner, w.server.id, other.id, ['READ_MESSAGES']);
    expect(
      (await call(srv.url, 'PATCH', `/servers/${w.server.id}/bots/${other.id}`, { auth: w.owner.auth, body: { permissions: [] } })).status,
    ).toBe(200);
    expect((await call(srv.url, 'DELETE', `/servers/${w.server.id}/bots/${other.id}`, { auth: w.owner.auth })).status).toBe(204);
    const inv = await call(srv.url, 'POST', `/servers/${w.server.id}/invites`, { auth: w.owner.auth });
    expect((await call(srv.url, 'POST', `/invites/${inv.body.code}`, { auth: person.auth })).status).toBe(200);
    await everyContentEvent(w.owner.auth, w.channel.id);
    expect((await call(srv.url, 'PATCH', `/channels/${w.channel.id}`, { auth: w.owner.auth, body: { name: 'lobby' } })).status).toBe(200);
    // The sync point: a server rename, which every member receives.
    expect((await call(srv.url, 'PATCH', `/servers/${w.server.id}`, { auth: w.owner.auth, body: { name: 'Renamed' } })).status).toBe(200);
    await restricted.waitForEvent('SERVER_UPDATE', (d) => d.name === 'Renamed');

    expect(restricted.events().map((f) => f.t)).toEqual([
      'ROLE_CREATE',
      'MEMBER_ADD',
      'ROLE_UPDATE',
      'MEMBER_UPDATE',
      'MEMBER_REMOVE',
      'ROLE_DELETE',
      'MEMBER_ADD',
      'SERVER_UPDATE',
    ]);
    const role = restricted.events('ROLE_CREATE')[0]!.d.role;
    expect(role).toMatchObject({ serverId: w.server.id, name: other.name, managed: true });
    expect(restricted.events('MEMBER_UPDATE')[0]!.d).toEqual({
      serverId: w.server.id,
      user: expect.objectContaining({ id: other.id, bot: true }),
      roles: [role.id],
      permissions: [],
    });
    expect(restricted.events('ROLE_DELETE')[0]!.d).toEqual({ serverId: w.server.id, roleId: role.id });
    expect(JSON.stringify(restricted.frames)).not.toContain('shape');
    expect(JSON.stringify(restricted.frames)).not.toContain('lobby');
    expect(JSON.stringify(restricted.frames)).not.toContain('plans');
  });

  it('a person who is not a member receives nothing of the server, of any event type', async () => {
    const w = await world(srv.url);
    const outsider = await registerUser(srv.url);
    const { server: own, general } = await createServer(srv.url, outsider);
    const c = await pool.identify(srv.gatewayUrl, outsider.auth);
    await everyContentEvent(w.owner.auth, w.channel.id);
    await createChannel(srv.url, w.owner, w.server.id);
    await syncPoint(w.owner.auth, w.channel.id);
    await syncPoint(outsider.auth, general.id, c);
    expect(c.events().every((f) => f.d.serverId === own.id)).toBe(true);
    expect(c.events().map((f) => f.t)).toEqual(['CHANNEL_UPDATE']);
  });
});

describe('a permission change reaches open sessions at once', () => {
  it('revoking READ_MESSAGES stops content at once and restoring it resumes it; the bot is told with MEMBER_UPDATE', async () => {
    const w = await world(srv.url);
    const bot = await pool.identify(srv.gatewayUrl, w.bot.auth);
    const setPermissions = (permissions: string[]) =>
      call(srv.url, 'PATCH', `/servers/${w.server.id}/bots/${w.bot.id}`, { auth: w.owner.auth, body: { permissions } });

    await postMessage(srv.url, w.owner.auth, w.channel.id, 'before');
    await bot.waitForEvent('MESSAGE_CREATE', (d) => d.content === 'before');

    expect((await setPermissions(['SEND_MESSAGES'])).status).toBe(200);
    const update = await bot.waitForEvent('MEMBER_UPDATE');
    expect(update.d).toMatchObject({ serverId: w.server.id, user: { id: w.bot.id }, permissions: ['SEND_MESSAGES'] });
    await postMessage(srv.url, w.owner.auth, w.channel.id, 'while revoked');
    await syncPoint(w.owner.auth, w.channel.id, bot);
    expect(bot.events('MESSAGE_CREATE').map((f) => f.d.content)).toEqual(['before']);

    expect((await setPermissions(['READ_MESSAGES', 'SEND_MESSAGES'])).status).toBe(200);
    await postMessage(srv.url, w.owner.auth, w.channel.id, 'after');
    await bot.waitForEvent('MESSAGE_CREATE', (d) => d.content === 'after');
    expect(bot.events('MESSAGE_CREATE').map((f) => f.d.content)).toEqual(['before', 'after']);
  });

  it('a resume across a permission change replays each missed event under the permissions it was published with', async () => {
    // The checkpoint written when the connection dropped carries the permission model as it
    // stood there, so the replay applies the change at its place in the log, as live.
    const w = await world(srv.url);
    const first = await pool.identify(srv.gatewayUrl, w.bot.auth);
    expect(first.ready!.servers[0].channels.map((c: { id: string }) => c.id)).toEqual([w.channel.id]);
    await postMessage(srv.url, w.owner.auth, w.channel.id, 'seen live');
    await first.waitForEvent('MESSAGE_CREATE');
    first.heartbeat();
    await first.waitFor((f) => f.op === 'heartbeat_ack', 5000, first.frames.length);
    const acked = first.lastSeq;
    await first.terminate();

    await postMessage(srv.url, w.owner.auth, w.channel.id, 'missed but allowed');
    const r = await call(srv.url, 'PATCH', `/servers/${w.server.id}/bots/${w.bot.id}`, { auth: w.owner.auth, body: { permissions: [] } });
    expect(r.status).toBe(200);
    await postMessage(srv.url, w.owner.auth, w.channel.id, 'missed and forbidden');

    const resumed = await pool.resume(srv.gatewayUrl, w.bot.auth, first.sessionId, acked);
    const i = resumed.frames.findIndex((f) => f.op === 'resumed');
    expect(i).toBeGreaterThan(0);
    // The change comes as its ROLE_UPDATE, the channel it hides, then the bot's MEMBER_UPDATE.
    expect(resumed.frames.slice(1, i).map((f) => [f.t, f.s])).toEqual([
      ['MESSAGE_CREATE', acked + 1],
      ['ROLE_UPDATE', acked + 2],
      ['CHANNEL_DELETE', acked + 3],
      ['MEMBER_UPDATE', acked + 4],
    ]);
    expect(resumed.frames[1]!.d.content).toBe('missed but allowed');

    // And live after it, the revoked view holds.
    await postMessage(srv.url, w.owner.auth, w.channel.id, 'live and forbidden');
    expect((await call(srv.url, 'PATCH', `/servers/${w.server.id}`, { auth: w.owner.auth, body: { name: 'sync' } })).status).toBe(200);
    await resumed.waitForEvent('SERVER_UPDATE', (d) => d.name === 'sync');
    expect(JSON.stringify(resumed.frames)).not.toContain('forbidden');
  });

  it('a resume across a role given to the member replays, the MEMBER_UPDATE included', async () => {
    const w = await world(srv.url);
    const member = await registerUser(srv.url);
    await joinServer(srv.url, w.owner, member, w.server.id);
    const role = await call(srv.url, 'POST', `/servers/${w.server.id}/roles`, { auth: w.owner.auth, body: { name: 'r' } });
    expect(role.status).toBe(201);
    const c = await pool.identify(srv.gatewayUrl, member.auth);
    await c.terminate();
    expect(
      (await call(srv.url, 'PUT', `/servers/${w.server.id}/members/${member.id}/roles/${role.body.id}`, { auth: w.owner.auth })).status,
    ).toBe(204);
    const r = await pool.resume(srv.gatewayUrl, member.auth, c.sessionId, 0);
    expect(r.frames.slice(1).map((f) => f.t ?? f.op)).toEqual(['MEMBER_UPDATE', 'resumed']);
  });

  it("a resume across another member's role change (which changes nothing for the session) still replays", async () => {
    const w = await world(srv.url);
    const member = await registerUser(srv.url);
    await joinServer(srv.url, w.owner, member, w.server.id);
    const role = await call(srv.url, 'POST', `/servers/${w.server.id}/roles`, { auth: w.owner.auth, body: { name: 'r' } });
    const c = await pool.identify(srv.gatewayUrl, w.bot.auth);
    await c.terminate();
    expect(
      (await call(srv.url, 'PUT', `/servers/${w.server.id}/members/${member.id}/roles/${role.body.id}`, { auth: w.owner.auth })).status,
    ).toBe(204);
    await postMessage(srv.url, w.owner.auth, w.channel.id, 'missed');
    const r = await pool.resume(srv.gatewayUrl, w.bot.auth, c.sessionId, 0);
    expect(r.frames.slice(1).map((f) => [f.op, f.t, f.s])).toEqual([
      ['event', 'MEMBER_UPDATE', 1],
      ['event', 'MESSAGE_CREATE', 2],
      ['resumed', undefined, undefined],
    ]);
  });

  it('a bot removed from a server stops receiving it, and one added later gets only what follows', async () => {
    const w = await world(srv.url);
    const bot = await pool.identify(srv.gatewayUrl, w.bot.auth);
    expect((await call(srv.url, 'DELETE', `/servers/${w.server.id}/bots/${w.bot.id}`, { auth: w.owner.auth })).status).toBe(204);
    await bot.waitForEvent('MEMBER_REMOVE', (d) => d.user.id === w.bot.id);
    await postMessage(srv.url, w.owner.auth, w.channel.id, 'after removal');
    await addBot(srv.url, w.owner, w.server.id, w.bot.id, ['READ_MESSAGES']);
    await bot.waitForEvent('MEMBER_ADD', (d) => d.user.id === w.bot.id);
    await postMessage(srv.url, w.owner.auth, w.channel.id, 'after re-adding');
    await bot.waitForEvent('MESSAGE_CREATE', (d) => d.content === 'after re-adding');
    expect(bot.events('MESSAGE_CREATE').map((f) => f.d.content)).toEqual(['after re-adding']);
  });
});

describe('a gap in the log', () => {
  it('sends invalid_session to the sessions of the servers concerned, which identify again on the same socket', async () => {
    const w = await world(srv.url);
    const other = await world(srv.url);
    const hit = await pool.identify(srv.gatewayUrl, w.bot.auth);
    const spared = await pool.identify(srv.gatewayUrl, other.bot.auth);
    await srv.app.ctx.bus.publish({ kind: 'gap', serverIds: [w.server.id] });
    await hit.waitFor((f) => f.op === 'invalid_session');
    expect(hit.frames.at(-1)).toEqual({ op: 'invalid_session', d: { resumable: false } });
    // The old session cannot be resumed: its events were lost.
    const stale = await pool.resume(srv.gatewayUrl, w.bot.auth, hit.sessionId, hit.lastSeq);
    expect(stale.frames.at(-1)?.op).toBe('invalid_session');

    const from = hit.frames.length;
    hit.send({ op: 'identify', d: { token: w.bot.auth } });
    const ready = await hit.waitFor((f) => f.op === 'ready', 5000, from);
    expect(ready.d.servers.map((s: { id: string }) => s.id)).toEqual([w.server.id]);
    await postMessage(srv.url, w.owner.auth, w.channel.id, 'after the gap');
    await hit.waitForEvent('MESSAGE_CREATE', (d) => d.content === 'after the gap');

    await postMessage(srv.url, other.owner.auth, other.channel.id, 'unaffected');
    await spared.waitForEvent('MESSAGE_CREATE', (d) => d.content === 'unaffected');
    expect(spared.frames.some((f) => f.op === 'invalid_session')).toBe(false);
  });
});
