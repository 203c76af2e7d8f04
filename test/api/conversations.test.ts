// docs/api.md#messages, over real HTTP and the real gateway: mentions and who they ping
// (permissions, allowedMentions, webhook dialects), replies, read states with derived
// mention counts, pins and bulk delete. Every wait is on an event or a response.
import { P } from '@parley/protocol';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ClientPool } from '../gateway/client.js';
import { call, createChannel, createServer, createWebhook, joinServer, postMessage, registerUser, type TestUser } from '../factories.js';
import { startServer, type TestServer } from '../harness.js';

let srv: TestServer;
const pool = new ClientPool();

beforeAll(async () => {
  srv = await startServer({ env: { RATE_LIMITS: 'off', GATEWAY_HEARTBEAT_MS: '2000' } });
});
afterEach(() => pool.closeAll());
afterAll(() => srv?.close());

/** An owner, a server with #general, and two members who joined. */
async function setup() {
  const owner = await registerUser(srv.url);
  const { server, general } = await createServer(srv.url, owner);
  const alice = await registerUser(srv.url);
  const bob = await registerUser(srv.url);
  await joinServer(srv.url, owner, alice, server.id);
  await joinServer(srv.url, owner, bob, server.id);
  return { owner, server, general, alice, bob };
}

async function send(auth: string, channelId: string, body: Record<string, unknown>) {
  const r = await call(srv.url, 'POST', `/channels/${channelId}/messages`, { auth, body });
  expect(r.status, r.text).toBe(201);
  return r.body;
}

async function createRole(owner: TestUser, serverId: string, body: Record<string, unknown>): Promise<{ id: string }> {
  const r = await call(srv.url, 'POST', `/servers/${serverId}/roles`, { auth: owner.auth, body });
  expect(r.status, r.text).toBe(201);
  return r.body;
}

async function giveRole(owner: TestUser, serverId: string, userId: string, roleId: string) {
  const r = await call(srv.url, 'PUT', `/servers/${serverId}/members/${userId}/roles/${roleId}`, { auth: owner.auth });
  expect(r.status, r.text).toBe(204);
}

async function ack(auth: string, channelId: string, messageId: string) {
  const r = await call(srv.url, 'POST', `/channels/${channelId}/messages/${messageId}/ack`, { auth });
  expect(r.status, r.text).toBe(204);
}

/** The read state `ready` gives a new session of `user` for `channelId`. */
async function readStateOf(user: TestUser, channelId: string) {
  const c = await pool.identify(srv.gatewayUrl, user.auth);
  const ready = c.ready as unknown as { readStates: Array<{ channelId: string; lastReadId: string; mentionCount: number }> };
  c.close();
  return ready.readStates.find((r) => r.channelId === channelId);
}

describe('mentions', () => {
  it('resolve <@id> to members (not strangers, not the author), <@&id> to mentionable roles, and leave code alone', async () => {
    const w = await setup();
    const stranger = await registerUser(srv.url);
    const mods = await createRole(w.owner, w.server.id, { name: 'mods', mentionable: true });
    const hidden = await createRole(w.owner, w.server.id, { name: 'quiet' });
    const m = await send(w.alice.auth, w.general.id, {
      content: `hi <@${w.bob.id}> and <@!${w.owner.id}>, not <@${stranger.id}> nor <@${w.alice.id}>; <@&${mods.id}> <@&${hidden.id}> \`<@${w.owner.id}>\` @everyone`,
    });
    expect(m.mentions.map((u: { id: string }) => u.id)).toEqual([w.bob.id, w.owner.id]);
    expect(m.mentions[0]).toEqual({ id: w.bob.id, name: w.bob.name, bot: false, avatar: null });
    // A role that is not mentionable, and @everyone, need MENTION_EVERYONE, which @everyone lacks by default.
    expect(m.mentionRoles).toEqual([mods.id]);
    expect(m.mentionEveryone).toBe(false);
    // The same on a later read.
    const again = await call(srv.url, 'GET', `/channels/${w.general.id}/messages/${m.id}`, { auth: w.bob.auth });
    expect(again.body).toMatchObject({ mentions: m.mentions, mentionRoles: [mods.id], mentionEveryone: false, pinned: false });
  });

  it('@everyone and any role ping with MENTION_EVERYONE (the owner has it); allowedMentions narrows every kind', async () => {
    const w = await setup();
    const quiet = await createRole(w.owner, w.server.id, { name: 'quiet' });
    const loud = await send(w.owner.auth, w.general.id, { content: `@everyone <@&${quiet.id}>` });
    expect(loud.mentionEveryone).toBe(true);
    expect(loud.mentionRoles).toEqual([quiet.id]);

    const none = await send(w.owner.auth, w.general.id, { content: `@everyone <@${w.bob.id}>`, allowedMentions: { parse: [] } });
    expect(none).toMatchObject({ mentionEveryone: false, mentions: [], mentionRoles: [] });
    const onlyAlice = await send(w.owner.auth, w.general.id, {
      content: `<@${w.alice.id}> <@${w.bob.id}> @everyone`,
      allowedMentions: { users: [w.alice.id] },
    });
    expect(onlyAlice.mentions.map((u: { id: string }) => u.id)).toEqual([w.alice.id]);
    expect(onlyAlice.mentionEveryone).toBe(false);

    const both = await call(srv.url, 'POST', `/channels/${w.general.id}/messages`, {
      auth: w.owner.auth,
      body: { content: 'x', allowedMentions: { parse: ['users'], users: [w.bob.id] } },
    });
    expect(both.status).toBe(400);
    expect(both.body.code).toBe('invalid_body');
  });

  it('a member given MENTION_EVERYONE by a role pings everyone; one denied it in the channel does not', async () => {
    const w = await setup();
    const heralds = await createRole(w.owner, w.server.id, { name: 'heralds', permissions: String(P.MENTION_EVERYONE) });
    await giveRole(w.owner, w.server.id, w.alice.id, heralds.id);
    expect((await send(w.alice.auth, w.general.id, { content: '@here standup' })).mentionEveryone).toBe(true);
    const r = await call(srv.url, 'PUT', `/channels/${w.general.id}/permissions/${heralds.id}`, {
      auth: w.owner.auth,
      body: { type: 'role', deny: String(P.MENTION_EVERYONE) },
    });
    expect(r.status).toBe(204);
    expect((await send(w.alice.auth, w.general.id, { content: '@everyone standup' })).mentionEveryone).toBe(false);
  });

  it('webhooks: Discord bodies ping as on Discord and honour allowed_mentions; GitHub and Slack text pings no one', async () => {
    const w = await setup();
    const hook = await createWebhook(srv.url, w.owner, w.server.id, w.general.id);
    const post = async (suffix: string, body: unknown, headers: Record<string, string> = {}) => {
      const r = await call(srv.url, 'POST', `/webhooks/${hook.id}/${hook.token}${suffix}`, { body, headers });
      expect(r.status, r.text).toBe(200);
      return r.body;
    };
    expect((await post('', { content: '@everyone deploy failed' })).mentionEveryone).toBe(true);
    const narrowed = await post('', { content: `@everyone <@${w.bob.id}>`, allowed_mentions: { parse: ['users'] } });
    expect(narrowed.mentionEveryone).toBe(false);
    expect(narrowed.mentions.map((u: { id: string }) => u.id)).toEqual([w.bob.id]);
    const refused = await call(srv.url, 'POST', `/webhooks/${hook.id}/${hook.token}`, {
      body: { content: 'x', allowed_mentions: { parse: ['nobody'] } },
    });
    expect(refused.status).toBe(400);

    // Slack answers "ok" and GitHub 200 with no message: read what they posted.
    const newest = async () => (await call(srv.url, 'GET', `/channels/${w.general.id}/messages?limit=1`, { auth: w.owner.auth })).body[0];
    await post('/slack', { text: `@everyone <@${w.bob.id}> disk full` });
    const slack = await newest();
    expect(slack.content).toContain('disk full');
    expect(slack).toMatchObject({ mentionEveryone: false, mentions: [] });
    await post(
      '/github',
      {
        action: 'opened',
        issue: {
          number: 7,
          title: `@everyone <@${w.bob.id}> look`,
          html_url: 'https://github.com/o/r/issues/7',
          user: { login: 'mallory' },
        },
        repository: { full_name: 'o/r', html_url: 'https://github.com/o/r' },
        sender: { login: 'mallory' },
      },
      { 'X-GitHub-Event': 'issues' },
    );
    const issue = await newest();
    expect(issue.content).toContain('@everyone');
    expect(issue).toMatchObject({ mentionEveryone: false, mentions: [], mentionRoles: [] });
  });
});

describe('replies', () => {
  it('carry messageReference and referencedMessage, ping the replied-to author unless repliedUser is false, and show null once it is deleted', async () => {
    const w = await setup();
    const original = await postMessage(srv.url, w.bob.auth, w.general.id, 'what time is standup?');
    const reply = await send(w.alice.auth, w.general.id, { content: '10:00', messageReference: { messageId: original.id } });
    expect(reply.messageReference).toEqual({ messageId: original.id, channelId: w.general.id, serverId: w.server.id });
    expect(reply.referencedMessage).toMatchObject({ id: original.id, content: 'what time is standup?', author: { id: w.bob.id } });
    expect(reply.referencedMessage.referencedMessage).toBeUndefined();
    expect(reply.mentions.map((u: { id: string }) => u.id)).toEqual([w.bob.id]);

    const quiet = await send(w.alice.auth, w.general.id, {
      content: 'also 10:00',
      messageReference: { messageId: original.id },
      allowedMentions: { repliedUser: false, parse: ['users'] },
    });
    expect(quiet.mentions).toEqual([]);

    const del = await call(srv.url, 'DELETE', `/channels/${w.general.id}/messages/${original.id}`, { auth: w.bob.auth });
    expect(del.status).toBe(204);
    const page = await call(srv.url, 'GET', `/channels/${w.general.id}/messages`, { auth: w.alice.auth });
    const listed = page.body.find((m: { id: string }) => m.id === reply.id);
    expect(listed.messageReference.messageId).toBe(original.id);
    expect(listed.referencedMessage).toBeNull();
  });

  it('must name a message of the same channel', async () => {
    const w = await setup();
    const other = await createChannel(srv.url, w.owner, w.server.id, 'other');
    const there = await postMessage(srv.url, w.owner.auth, other.id, 'elsewhere');
    const r = await call(srv.url, 'POST', `/channels/${w.general.id}/messages`, {
      auth: w.owner.auth,
      body: { content: 'x', messageReference: { messageId: there.id } },
    });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('unknown_message_reference');
    // failIfNotExists: false sends it as a plain message, as Discord does.
    const plain = await send(w.owner.auth, w.general.id, {
      content: 'x',
      messageReference: { messageId: there.id, failIfNotExists: false },
    });
    expect(plain.messageReference).toBeUndefined();
  });
});

describe('read states', () => {
  it('ack stores how far a person read; ready gives lastMessageId and the mentions since, derived per person', async () => {
    const w = await setup();
    const mods = await createRole(w.owner, w.server.id, { name: 'mods', mentionable: true });
    await giveRole(w.owner, w.server.id, w.bob.id, mods.id);
    const first = await postMessage(srv.url, w.owner.auth, w.general.id, 'hello');
    await ack(w.alice.auth, w.general.id, first.id);
    await ack(w.bob.auth, w.general.id, first.id);
    expect(await readStateOf(w.alice, w.general.id)).toEqual({ channelId: w.general.id, lastReadId: first.id, mentionCount: 0 });

    await send(w.owner.auth, w.general.id, { content: `<@${w.alice.id}> look` });
    await send(w.owner.auth, w.general.id, { content: `<@&${mods.id}> look` });
    const everyone = await send(w.owner.auth, w.general.id, { content: `@everyone and <@${w.alice.id}>` });
    await send(w.alice.auth, w.general.id, { content: `@everyone <@&${mods.id}> from alice` });

    // Alice: named once, then @everyone with her name (once). Bob: the role, @everyone, and Alice's role ping.
    expect(await readStateOf(w.alice, w.general.id)).toMatchObject({ lastReadId: first.id, mentionCount: 2 });
    expect(await readStateOf(w.bob, w.general.id)).toMatchObject({ lastReadId: first.id, mentionCount: 3 });
    // The owner never acked: no read state (the client counts the channel unread from lastMessageId).
    expect(await readStateOf(w.owner, w.general.id)).toBeUndefined();

    const c = await pool.identify(srv.gatewayUrl, w.owner.auth);
    const channel = (c.ready as any).servers[0].channels.find((x: { id: string }) => x.id === w.general.id);
    expect(BigInt(channel.lastMessageId)).toBeGreaterThan(BigInt(everyone.id));
    const listed = await call(srv.url, 'GET', `/servers/${w.server.id}/channels`, { auth: w.owner.auth });
    expect(listed.body[0].lastMessageId).toBe(channel.lastMessageId);

    await ack(w.alice.auth, w.general.id, everyone.id);
    expect(await readStateOf(w.alice, w.general.id)).toEqual({ channelId: w.general.id, lastReadId: everyone.id, mentionCount: 0 });
  });

  it("READ_STATE_UPDATE reaches the person's other sessions and nobody else's", async () => {
    const w = await setup();
    const m = await send(w.owner.auth, w.general.id, { content: `<@${w.alice.id}> ping` });
    const laptop = await pool.identify(srv.gatewayUrl, w.alice.auth);
    const phone = await pool.identify(srv.gatewayUrl, w.alice.auth);
    const bob = await pool.identify(srv.gatewayUrl, w.bob.auth);
    await ack(w.alice.auth, w.general.id, m.id);
    for (const c of [laptop, phone]) {
      const e = await c.waitForEvent('READ_STATE_UPDATE');
      expect(e.d).toEqual({ channelId: w.general.id, lastReadId: m.id, mentionCount: 0 });
    }
    // Bob hears the next message; by then the ack, published before it, was filtered.
    const next = await postMessage(srv.url, w.owner.auth, w.general.id, 'sync');
    await bob.waitForEvent('MESSAGE_CREATE', (d) => d.id === next.id);
    expect(bob.events('READ_STATE_UPDATE')).toEqual([]);
  });

  it('a channel never acknowledged: ready lists it (lastReadId "0") only when it holds mentions of the person', async () => {
    const { owner, server, general, alice, bob } = await setup();
    const quiet = await createChannel(srv.url, owner, server.id, 'quiet');
    await send(owner.auth, quiet.id, { content: 'nothing for anyone' });
    await send(owner.auth, general.id, { content: `<@${alice.id}> look here` });
    await send(owner.auth, general.id, { content: 'and @everyone too' });
    expect(await readStateOf(alice, general.id)).toEqual({ channelId: general.id, lastReadId: '0', mentionCount: 2 });
    expect(await readStateOf(alice, quiet.id)).toBeUndefined();
    // Bob was pinged only by @everyone: one.
    expect(await readStateOf(bob, general.id)).toEqual({ channelId: general.id, lastReadId: '0', mentionCount: 1 });
  });

  it('needs read access to the channel: a private channel cannot be acked by those who cannot see it', async () => {
    const w = await setup();
    const secret = await createChannel(srv.url, w.owner, w.server.id, 'secret');
    const m = await postMessage(srv.url, w.owner.auth, secret.id, 'hush');
    const r = await call(srv.url, 'PUT', `/channels/${secret.id}/permissions/${w.server.id}`, {
      auth: w.owner.auth,
      body: { type: 'role', deny: String(P.VIEW_CHANNEL) },
    });
    expect(r.status).toBe(204);
    const refused = await call(srv.url, 'POST', `/channels/${secret.id}/messages/${m.id}/ack`, { auth: w.alice.auth });
    expect(refused.status).toBe(403);
    expect((await call(srv.url, 'POST', `/channels/${secret.id}/messages/not-an-id/ack`, { auth: w.owner.auth })).status).toBe(404);
  });
});

describe('pins', () => {
  it('MANAGE_MESSAGES pins and unpins; members list them; CHANNEL_PINS_UPDATE and the message update follow', async () => {
    const w = await setup();
    const m = await postMessage(srv.url, w.alice.auth, w.general.id, 'the plan');
    const watcher = await pool.identify(srv.gatewayUrl, w.bob.auth);
    expect((await call(srv.url, 'PUT', `/channels/${w.general.id}/pins/${m.id}`, { auth: w.alice.auth })).status).toBe(403);
    expect((await call(srv.url, 'PUT', `/channels/${w.general.id}/pins/${m.id}`, { auth: w.owner.auth })).status).toBe(204);
    const pinsEvent = await watcher.waitForEvent('CHANNEL_PINS_UPDATE');
    expect(pinsEvent.d).toMatchObject({ channelId: w.general.id, serverId: w.server.id, lastPinTimestamp: expect.any(String) });
    const updated = await watcher.waitForEvent('MESSAGE_UPDATE', (d) => d.id === m.id);
    expect(updated.d.pinned).toBe(true);

    const pins = await call(srv.url, 'GET', `/channels/${w.general.id}/pins`, { auth: w.bob.auth });
    expect(pins.status).toBe(200);
    expect(pins.body.map((x: { id: string }) => x.id)).toEqual([m.id]);
    expect(pins.body[0].pinned).toBe(true);

    expect((await call(srv.url, 'DELETE', `/channels/${w.general.id}/pins/${m.id}`, { auth: w.owner.auth })).status).toBe(204);
    expect((await call(srv.url, 'GET', `/channels/${w.general.id}/pins`, { auth: w.bob.auth })).body).toEqual([]);
    const log = await call(srv.url, 'GET', `/servers/${w.server.id}/audit-log`, { auth: w.owner.auth });
    expect(log.body.map((e: { action: string }) => e.action).slice(0, 2)).toEqual(['message_unpin', 'message_pin']);
  });
});

describe('bulk delete', () => {
  it('deletes 2 to 100 messages with MANAGE_MESSAGES in one MESSAGE_DELETE_BULK, and refuses without it', async () => {
    const w = await setup();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await postMessage(srv.url, w.alice.auth, w.general.id, `spam ${i}`)).id);
    const keep = await postMessage(srv.url, w.alice.auth, w.general.id, 'keep');
    const watcher = await pool.identify(srv.gatewayUrl, w.bob.auth);
    const path = `/channels/${w.general.id}/messages/bulk-delete`;
    expect((await call(srv.url, 'POST', path, { auth: w.alice.auth, body: { messages: ids } })).status).toBe(403);
    expect((await call(srv.url, 'POST', path, { auth: w.owner.auth, body: { messages: [ids[0]] } })).status).toBe(400);
    const r = await call(srv.url, 'POST', path, { auth: w.owner.auth, body: { messages: ids }, headers: { 'X-Audit-Log-Reason': 'spam' } });
    expect(r.status, r.text).toBe(204);
    const e = await watcher.waitForEvent('MESSAGE_DELETE_BULK');
    expect(new Set(e.d.ids)).toEqual(new Set(ids));
    expect(e.d.channelId).toBe(w.general.id);
    const left = await call(srv.url, 'GET', `/channels/${w.general.id}/messages`, { auth: w.owner.auth });
    expect(left.body.map((m: { id: string }) => m.id)).toEqual([keep.id]);
    const log = await call(srv.url, 'GET', `/servers/${w.server.id}/audit-log?action=message_bulk_delete`, { auth: w.owner.auth });
    expect(log.body[0]).toMatchObject({ action: 'message_bulk_delete', reason: 'spam', changes: { count: 3 } });
  });

  it('refuses messages older than 14 days', async () => {
    const w = await setup();
    const m = await postMessage(srv.url, w.owner.auth, w.general.id, 'new');
    // A snowflake from 15 days ago.
    const { snowflakeAt } = await import('@parley/protocol');
    const old = snowflakeAt(Date.now() - 15 * 24 * 3600 * 1000);
    const r = await call(srv.url, 'POST', `/channels/${w.general.id}/messages/bulk-delete`, {
      auth: w.owner.auth,
      body: { messages: [m.id, old] },
    });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('message_too_old');
  });
});

describe('notification settings', () => {
  it('start at the defaults, merge per server and channel, and null removes an entry', async () => {
    const w = await setup();
    const me = w.alice.auth;
    const path = '/users/@me/settings';
    expect((await call(srv.url, 'GET', path, { auth: me })).body).toEqual({ allowDmsFromServerMembers: true, servers: {} });

    let r = await call(srv.url, 'PATCH', path, {
      auth: me,
      body: { servers: { [w.server.id]: { level: 'all', channels: { [w.general.id]: { muted: true } } } } },
    });
    expect(r.status, r.text).toBe(200);
    r = await call(srv.url, 'PATCH', path, {
      auth: me,
      body: {
        allowDmsFromServerMembers: false,
        servers: { [w.server.id]: { muted: true, channels: { [w.general.id]: { level: 'none' } } } },
      },
    });
    const merged = {
      allowDmsFromServerMembers: false,
      servers: { [w.server.id]: { level: 'all', muted: true, channels: { [w.general.id]: { muted: true, level: 'none' } } } },
    };
    expect(r.body).toEqual(merged);
    expect((await call(srv.url, 'GET', path, { auth: me })).body).toEqual(merged);
    // Someone else's settings are their own.
    expect((await call(srv.url, 'GET', path, { auth: w.bob.auth })).body).toEqual({ allowDmsFromServerMembers: true, servers: {} });

    r = await call(srv.url, 'PATCH', path, { auth: me, body: { servers: { [w.server.id]: { channels: { [w.general.id]: null } } } } });
    expect(r.body.servers[w.server.id]).toEqual({ level: 'all', muted: true });
    r = await call(srv.url, 'PATCH', path, { auth: me, body: { servers: { [w.server.id]: null } } });
    expect(r.body.servers).toEqual({});
  });

  it('refuse servers the person is not in, channels of another server, unknown levels, and bots', async () => {
    const w = await setup();
    const elsewhere = await createServer(srv.url, w.bob, 'Elsewhere');
    const path = '/users/@me/settings';
    const bad = async (body: unknown, auth = w.alice.auth) => {
      const r = await call(srv.url, 'PATCH', path, { auth, body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      return r;
    };
    await bad({ servers: { [elsewhere.server.id]: { muted: true } } });
    await bad({ servers: { [w.server.id]: { channels: { [elsewhere.general.id]: { muted: true } } } } });
    await bad({ servers: { [w.server.id]: { level: 'loud' } } });
    await bad({});
    await bad({ theme: 'dark' });
    const bot = await call(srv.url, 'POST', '/bots', { auth: w.owner.auth, body: { name: 'Nagger' } });
    expect((await call(srv.url, 'GET', path, { auth: `Bot ${bot.body.token}` })).status).toBe(403);
  });
});
