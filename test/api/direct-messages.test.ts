// docs/api.md#direct-messages, direct messages: opening a DM (one per pair) or a group, who may
// DM whom (a shared server, the opt-out, blocks, no bot to bot), the channel routes inside
// a DM, leaving a group, and who receives DM events: the recipients, never a third member
// of the server. Waits are on events: "nothing arrived" is checked after a later marker
// event that every session receives, since the log keeps order.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ClientPool, type TestGatewayClient } from '../gateway/client.js';
import { addBot, call, createBot, createServer, joinServer, postMessage, registerUser, type TestUser } from '../factories.js';
import { startServer, type TestServer } from '../harness.js';
import { UNKNOWN_ID, expectError } from './assert.js';

let srv: TestServer;
const pool = new ClientPool();

beforeAll(async () => {
  srv = await startServer({ env: { RATE_LIMITS: 'off', GATEWAY_HEARTBEAT_MS: '2000' } });
});
afterEach(() => pool.closeAll());
afterAll(() => srv?.close());

/** Three people in one server (owner, alice, bob), and carol, who shares none with them. */
async function setup() {
  const owner = await registerUser(srv.url);
  const { server, general } = await createServer(srv.url, owner);
  const alice = await registerUser(srv.url);
  const bob = await registerUser(srv.url);
  const carol = await registerUser(srv.url);
  await joinServer(srv.url, owner, alice, server.id);
  await joinServer(srv.url, owner, bob, server.id);
  return { owner, server, general, alice, bob, carol };
}

async function openDm(who: TestUser, recipientIds: string[], extra: Record<string, unknown> = {}) {
  return call(srv.url, 'POST', '/users/@me/channels', { auth: who.auth, body: { recipientIds, ...extra } });
}

/** Posts a marker in the shared channel and waits for it everywhere: what had not arrived by then never will. */
async function settle(ownerAuth: string, channelId: string, clients: TestGatewayClient[]) {
  const marker = await postMessage(srv.url, ownerAuth, channelId, `marker ${Math.random()}`);
  for (const c of clients) await c.waitForEvent('MESSAGE_CREATE', (d) => d.id === marker.id);
}

describe('opening DMs', () => {
  it('POST /users/@me/channels: 201 a DM {id, type, recipients, lastMessageId}; the same pair gets the same one (200), from either side', async () => {
    const { alice, bob } = await setup();
    const r = await openDm(alice, [bob.id]);
    expect(r.status, r.text).toBe(201);
    expect(r.body).toEqual({
      id: expect.stringMatching(/^[1-9][0-9]{15,18}$/),
      type: 'dm',
      name: null,
      ownerId: null,
      recipients: [
        { id: alice.id, name: alice.name, bot: false, avatar: null },
        { id: bob.id, name: bob.name, bot: false, avatar: null },
      ],
      createdAt: expect.any(String),
      lastMessageId: null,
    });
    const again = await openDm(alice, [bob.id]);
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(r.body.id);
    const back = await openDm(bob, [alice.id]);
    expect(back.status).toBe(200);
    expect(back.body.id).toBe(r.body.id);
    // Both list it; a third person does not.
    for (const who of [alice, bob]) {
      const list = await call(srv.url, 'GET', '/users/@me/channels', { auth: who.auth });
      expect(list.status).toBe(200);
      expect(list.body.map((c: { id: string }) => c.id)).toEqual([r.body.id]);
    }
  });

  it('two people opening their DM at once get one channel', async () => {
    const { alice, bob } = await setup();
    const [a, b] = await Promise.all([openDm(alice, [bob.id]), openDm(bob, [alice.id])]);
    expect([a.status, b.status].sort()).toEqual([200, 201]);
    expect(a.body.id).toBe(b.body.id);
  });

  it('refuses: no shared server, DMs turned off, a block either way (403 cannot_dm, the same for all); bad recipient lists (400); unknown user (404)', async () => {
    const { alice, bob, carol, owner } = await setup();
    expectError(await openDm(alice, [carol.id]), 403, 'cannot_dm');

    const off = await call(srv.url, 'PATCH', '/users/@me/settings', { auth: bob.auth, body: { allowDmsFromServerMembers: false } });
    expect(off.status, off.text).toBe(200);
    expectError(await openDm(alice, [bob.id]), 403, 'cannot_dm');
    await call(srv.url, 'PATCH', '/users/@me/settings', { auth: bob.auth, body: { allowDmsFromServerMembers: true } });
    expect((await openDm(alice, [bob.id])).status).toBe(201);

    const blocked = await call(srv.url, 'PUT', `/users/@me/blocks/${alice.id}`, { auth: owner.auth });
    expect(blocked.status, blocked.text).toBe(204);
    expectError(await openDm(alice, [owner.id]), 403, 'cannot_dm');
    expectError(await openDm(owner, [alice.id]), 403, 'cannot_dm');
    const list = await call(srv.url, 'GET', '/users/@me/blocks', { auth: owner.auth });
    expect(list.body.map((u: { id: string }) => u.id)).toEqual([alice.id]);
    expect((await call(srv.url, 'DELETE', `/users/@me/blocks/${alice.id}`, { auth: owner.auth })).status).toBe(204);
    expectError(await call(srv.url, 'DELETE', `/users/@me/blocks/${alice.id}`, { auth: owner.auth }), 404, 'unknown_user');
    expect((await openDm(owner, [alice.id])).status).toBe(201);

    expectError(await openDm(alice, [alice.id]), 400, 'invalid_recipients');
    expectError(await openDm(alice, [bob.id, bob.id]), 400, 'invalid_recipients');
    expectError(await openDm(alice, []), 400);
    expectError(
      await openDm(
        alice,
        Array.from({ length: 10 }, () => bob.id),
      ),
      400,
    );
    expectError(await openDm(alice, [bob.id], { name: 'pair' }), 400, 'invalid_recipients');
    expectError(await openDm(alice, [UNKNOWN_ID]), 404, 'unknown_user');
    expectError(await call(srv.url, 'PUT', `/users/@me/blocks/${alice.id}`, { auth: alice.auth }), 400, 'cannot_block_self');
    expectError(await call(srv.url, 'PUT', `/users/@me/blocks/${UNKNOWN_ID}`, { auth: alice.auth }), 404, 'unknown_user');
  });

  it('bots: a bot DMs a person of its servers and a person DMs a bot; not bot to bot, no groups by bots', async () => {
    const { owner, server, alice } = await setup();
    const bot = await createBot(srv.url, owner);
    const other = await createBot(srv.url, owner);
    await addBot(srv.url, owner, server.id, bot.id);
    await addBot(srv.url, owner, server.id, other.id);
    const fromBot = await call(srv.url, 'POST', '/users/@me/channels', { auth: bot.auth, body: { recipientIds: [alice.id] } });
    expect(fromBot.status, fromBot.text).toBe(201);
    const toBot = await openDm(alice, [bot.id]);
    expect(toBot.status).toBe(200);
    expect(toBot.body.id).toBe(fromBot.body.id);
    expectError(
      await call(srv.url, 'POST', '/users/@me/channels', { auth: bot.auth, body: { recipientIds: [other.id] } }),
      403,
      'cannot_dm',
    );
    expectError(
      await call(srv.url, 'POST', '/users/@me/channels', { auth: bot.auth, body: { recipientIds: [alice.id, owner.id] } }),
      400,
      'invalid_recipients',
    );
    const m = await call(srv.url, 'POST', `/channels/${fromBot.body.id}/messages`, {
      auth: bot.auth,
      body: { content: 'hello from a bot' },
    });
    expect(m.status, m.text).toBe(201);
    expect(m.body.serverId).toBeNull();
  });
});

describe('contacts: whom a DM could name', () => {
  it('GET /users/@me/contacts: people sharing a server, by id, paged, found by part of a name; with presence; never oneself or strangers', async () => {
    const { owner, server, alice, bob, carol } = await setup();
    // Dave shares a second server with alice only: he is her contact, not bob's.
    const dave = await registerUser(srv.url, `dave_${Math.random().toString(36).slice(2, 7)}`);
    const second = await createServer(srv.url, alice, 'Second');
    await joinServer(srv.url, alice, dave, second.server.id);
    const ids = (r: { body: { user: { id: string } }[] }) => r.body.map((c) => c.user.id);
    const byId = (xs: string[]) => [...xs].sort((x, y) => x.length - y.length || (x < y ? -1 : 1));

    const gw = await pool.identify(srv.gatewayUrl, bob.auth);
    expect(gw.ready).toBeTruthy();
    const all = await call(srv.url, 'GET', '/users/@me/contacts', { auth: alice.auth });
    expect(all.status, all.text).toBe(200);
    expect(ids(all)).toEqual(byId([owner.id, bob.id, dave.id]));
    expect(all.body.find((c: { user: { id: string } }) => c.user.id === bob.id)).toEqual({
      user: { id: bob.id, name: bob.name, bot: false, avatar: null },
      presence: 'online',
    });
    expect(all.body.find((c: { user: { id: string } }) => c.user.id === owner.id).presence).toBe('offline');
    expect(ids(await call(srv.url, 'GET', '/users/@me/contacts', { auth: bob.auth }))).toEqual(byId([owner.id, alice.id]));
    expect(ids(await call(srv.url, 'GET', '/users/@me/contacts', { auth: carol.auth }))).toEqual([]);

    // Paging: one at a time, after the last id seen.
    const first = await call(srv.url, 'GET', '/users/@me/contacts?limit=1', { auth: alice.auth });
    expect(ids(first)).toEqual(ids(all).slice(0, 1));
    const next = await call(srv.url, 'GET', `/users/@me/contacts?limit=2&after=${ids(first)[0]}`, { auth: alice.auth });
    expect(ids(next)).toEqual(ids(all).slice(1, 3));

    // Part of the name, any case; LIKE's own characters are plain text.
    const part = dave.name.slice(1, 4).toUpperCase();
    expect(ids(await call(srv.url, 'GET', `/users/@me/contacts?q=${part}`, { auth: alice.auth }))).toEqual([dave.id]);
    expect(ids(await call(srv.url, 'GET', '/users/@me/contacts?q=%25', { auth: alice.auth }))).toEqual([]);
    expect(ids(await call(srv.url, 'GET', '/users/@me/contacts?q=_', { auth: alice.auth }))).toEqual(
      all.body.filter((c: { user: { name: string } }) => c.user.name.includes('_')).map((c: { user: { id: string } }) => c.user.id),
    );
    // Only these: a stranger's id among them is left out.
    expect(ids(await call(srv.url, 'GET', `/users/@me/contacts?ids=${bob.id},${carol.id}`, { auth: alice.auth }))).toEqual([bob.id]);

    // Bounds.
    for (const q of ['limit=0', 'limit=101', 'limit=x', `q=${'x'.repeat(101)}`, 'ids=1,x', 'after=x']) {
      const r = await call(srv.url, 'GET', `/users/@me/contacts?${q}`, { auth: alice.auth });
      expect(r.status, q).toBe(400);
    }
    expect((await call(srv.url, 'GET', '/users/@me/contacts')).status).toBe(401);
    // Someone who left every shared server is no longer a contact.
    expect((await call(srv.url, 'DELETE', `/servers/${server.id}/members/@me`, { auth: bob.auth })).status).toBe(204);
    expect(ids(await call(srv.url, 'GET', '/users/@me/contacts', { auth: alice.auth }))).toEqual(byId([owner.id, dave.id]));
  });
});

describe('inside a DM', () => {
  it('messages, history, edits, reactions, typing, pins and replies work; outsiders get 404 for all of it', async () => {
    const { alice, bob, owner } = await setup();
    const dm = (await openDm(alice, [bob.id])).body;
    const first = await call(srv.url, 'POST', `/channels/${dm.id}/messages`, {
      auth: alice.auth,
      body: { content: `hi <@${bob.id}> and <@${owner.id}>` },
    });
    expect(first.status, first.text).toBe(201);
    expect(first.body).toMatchObject({ channelId: dm.id, serverId: null, mentionRoles: [], mentionEveryone: false });
    // Only a recipient can be pinged in a DM.
    expect(first.body.mentions.map((u: { id: string }) => u.id)).toEqual([bob.id]);
    const reply = await call(srv.url, 'POST', `/channels/${dm.id}/messages`, {
      auth: bob.auth,
      body: { content: 'hello', messageReference: { messageId: first.body.id } },
    });
    expect(reply.status, reply.text).toBe(201);
    expect(reply.body.messageReference).toEqual({ messageId: first.body.id, channelId: dm.id, serverId: null });

    const page = await call(srv.url, 'GET', `/channels/${dm.id}/messages`, { auth: bob.auth });
    expect(page.body.map((m: { id: string }) => m.id)).toEqual([reply.body.id, first.body.id]);
    expect(
      (await call(srv.url, 'PATCH', `/channels/${dm.id}/messages/${first.body.id}`, { auth: alice.auth, body: { content: 'edited' } }))
        .status,
    ).toBe(200);
    expect(
      (await call(srv.url, 'PUT', `/channels/${dm.id}/messages/${first.body.id}/reactions/${encodeURIComponent('👍')}`, { auth: bob.auth }))
        .status,
    ).toBe(200);
    expect((await call(srv.url, 'POST', `/channels/${dm.id}/typing`, { auth: bob.auth })).status).toBe(204);
    // Either recipient pins, as on Discord; neither deletes the other's messages.
    expect((await call(srv.url, 'PUT', `/channels/${dm.id}/pins/${first.body.id}`, { auth: bob.auth })).status).toBe(204);
    expect((await call(srv.url, 'GET', `/channels/${dm.id}/pins`, { auth: alice.auth })).body.map((m: { id: string }) => m.id)).toEqual([
      first.body.id,
    ]);
    expectError(
      await call(srv.url, 'DELETE', `/channels/${dm.id}/messages/${first.body.id}`, { auth: bob.auth }),
      403,
      'not_message_author',
    );
    expectError(
      await call(srv.url, 'POST', `/channels/${dm.id}/messages/bulk-delete`, {
        auth: alice.auth,
        body: { messages: [first.body.id, reply.body.id] },
      }),
      403,
      'missing_permission',
    );
    // Server-channel settings do not apply to a DM.
    expectError(await call(srv.url, 'PATCH', `/channels/${dm.id}`, { auth: alice.auth, body: { name: 'x' } }), 403, 'missing_permission');
    expectError(await call(srv.url, 'DELETE', `/channels/${dm.id}`, { auth: alice.auth }), 400, 'invalid_recipients');

    for (const [method, path] of [
      ['GET', `/channels/${dm.id}/messages`],
      ['POST', `/channels/${dm.id}/messages`],
      ['GET', `/channels/${dm.id}/messages/${first.body.id}`],
      ['PUT', `/channels/${dm.id}/messages/${first.body.id}/reactions/${encodeURIComponent('👍')}`],
      ['POST', `/channels/${dm.id}/typing`],
      ['GET', `/channels/${dm.id}/pins`],
      ['POST', `/channels/${dm.id}/messages/${first.body.id}/ack`],
    ] as const) {
      const r = await call(srv.url, method, path, { auth: owner.auth, body: method === 'POST' ? { content: 'intrude' } : undefined });
      expectError(r, 404, 'unknown_channel');
    }
  });

  it('after a block, the history stays readable but neither can send (403 cannot_dm); unblocking restores it', async () => {
    const { alice, bob } = await setup();
    const dm = (await openDm(alice, [bob.id])).body;
    await postMessage(srv.url, alice.auth, dm.id, 'before');
    expect((await call(srv.url, 'PUT', `/users/@me/blocks/${alice.id}`, { auth: bob.auth })).status).toBe(204);
    for (const who of [alice, bob]) {
      expectError(
        await call(srv.url, 'POST', `/channels/${dm.id}/messages`, { auth: who.auth, body: { content: 'after' } }),
        403,
        'cannot_dm',
      );
      expect((await call(srv.url, 'GET', `/channels/${dm.id}/messages`, { auth: who.auth })).body).toHaveLength(1);
    }
    // Reacting and pinning read the history, not send: both still work (docs/api.md, "What a block does").
    const before = (await call(srv.url, 'GET', `/channels/${dm.id}/messages`, { auth: bob.auth })).body[0];
    const react = `/channels/${dm.id}/messages/${before.id}/reactions/${encodeURIComponent('👍')}`;
    expect((await call(srv.url, 'PUT', react, { auth: bob.auth })).status).toBe(200);
    expect((await call(srv.url, 'PUT', `/channels/${dm.id}/pins/${before.id}`, { auth: alice.auth })).status).toBe(204);
    // The DM is still returned (200), as Discord does; sending is what is refused.
    expect((await openDm(alice, [bob.id])).status).toBe(200);
    expect((await call(srv.url, 'DELETE', `/users/@me/blocks/${alice.id}`, { auth: bob.auth })).status).toBe(204);
    expect((await call(srv.url, 'POST', `/channels/${dm.id}/messages`, { auth: alice.auth, body: { content: 'after' } })).status).toBe(201);
  });

  it('a group of up to ten: named, left one by one, the creator hands it on, the last one out deletes it', async () => {
    const { owner, server, alice, bob } = await setup();
    const more = await Promise.all(Array.from({ length: 7 }, () => registerUser(srv.url)));
    for (const u of more) await joinServer(srv.url, owner, u, server.id);
    const extra = await registerUser(srv.url);
    await joinServer(srv.url, owner, extra, server.id);
    // Ten with the creator is the most.
    expectError(await openDm(owner, [alice.id, bob.id, ...more.map((u) => u.id), extra.id]), 400);
    const g = await openDm(owner, [alice.id, bob.id, ...more.map((u) => u.id)], { name: 'Planning' });
    expect(g.status, g.text).toBe(201);
    expect(g.body).toMatchObject({ type: 'group_dm', name: 'Planning', ownerId: owner.id });
    expect(g.body.recipients).toHaveLength(10);
    // A new group each time, unlike a DM between two.
    expect((await openDm(owner, [alice.id, bob.id])).status).toBe(201);

    expect((await call(srv.url, 'DELETE', `/channels/${g.body.id}`, { auth: owner.auth })).status).toBe(204);
    expectError(await call(srv.url, 'GET', `/channels/${g.body.id}/messages`, { auth: owner.auth }), 404, 'unknown_channel');
    const list = await call(srv.url, 'GET', '/users/@me/channels', { auth: alice.auth });
    const seen = list.body.find((c: { id: string }) => c.id === g.body.id);
    expect(seen.recipients).toHaveLength(9);
    expect(seen.ownerId).not.toBe(owner.id);
    for (const u of [alice, bob, ...more])
      expect((await call(srv.url, 'DELETE', `/channels/${g.body.id}`, { auth: u.auth })).status).toBe(204);
    expectError(await call(srv.url, 'GET', `/channels/${g.body.id}/messages`, { auth: alice.auth }), 404, 'unknown_channel');
  });
});

describe('search and DMs', () => {
  it('recipients find a DM message by its words (all of their channels, or the DM alone); nobody else does', async () => {
    const { alice, bob, owner } = await setup();
    const dm = (await openDm(alice, [bob.id])).body;
    const m = await postMessage(srv.url, alice.auth, dm.id, 'the zanzibar lighthouse keys');
    for (const who of [alice, bob]) {
      const all = await call(srv.url, 'GET', '/search/messages?q=zanzibar', { auth: who.auth });
      expect(all.status, all.text).toBe(200);
      expect(all.body.messages.map((x: { id: string }) => x.id)).toEqual([m.id]);
      const inDm = await call(srv.url, 'GET', `/search/messages?q=zanz&channelId=${dm.id}`, { auth: who.auth });
      expect(inDm.body.total).toBe(1);
    }
    const outsider = await call(srv.url, 'GET', '/search/messages?q=zanzibar', { auth: owner.auth });
    expect(outsider.body).toEqual({ total: 0, messages: [] });
    expectError(await call(srv.url, 'GET', `/search/messages?q=zanzibar&channelId=${dm.id}`, { auth: owner.auth }), 404, 'unknown_channel');
  });
});

describe('DM events reach the recipients only', () => {
  it('DM_CREATE and every message event of a DM reach both recipients and no third member of their server', async () => {
    const { owner, general, alice, bob } = await setup();
    const [a, b, o] = (await Promise.all([alice, bob, owner].map((u) => pool.identify(srv.gatewayUrl, u.auth)))) as [
      TestGatewayClient,
      TestGatewayClient,
      TestGatewayClient,
    ];
    const dm = (await openDm(alice, [bob.id])).body;
    for (const c of [a, b]) expect((await c.waitForEvent('DM_CREATE', (d) => d.id === dm.id)).d).toMatchObject({ id: dm.id, type: 'dm' });
    const m = await postMessage(srv.url, alice.auth, dm.id, 'just us');
    for (const c of [a, b])
      expect((await c.waitForEvent('MESSAGE_CREATE', (d) => d.id === m.id)).d).toMatchObject({ serverId: null, channelId: dm.id });
    await call(srv.url, 'PUT', `/channels/${dm.id}/messages/${m.id}/reactions/${encodeURIComponent('🎉')}`, { auth: bob.auth });
    await call(srv.url, 'POST', `/channels/${dm.id}/typing`, { auth: bob.auth });
    await call(srv.url, 'PATCH', `/channels/${dm.id}/messages/${m.id}`, { auth: alice.auth, body: { content: 'still us' } });
    await call(srv.url, 'PUT', `/channels/${dm.id}/pins/${m.id}`, { auth: alice.auth });
    await call(srv.url, 'DELETE', `/channels/${dm.id}/messages/${m.id}`, { auth: alice.auth });
    for (const c of [a, b]) await c.waitForEvent('MESSAGE_DELETE', (d) => d.id === m.id);
    await settle(owner.auth, general.id, [a, b, o]);
    for (const t of ['REACTION_ADD', 'TYPING_START', 'MESSAGE_UPDATE', 'CHANNEL_PINS_UPDATE']) {
      for (const c of [a, b])
        expect(
          c.events(t).some((f) => f.d.channelId === dm.id),
          `${t} to a recipient`,
        ).toBe(true);
    }
    // The owner of the server both are in hears nothing of it.
    expect(o.events().filter((f) => f.d.channelId === dm.id || f.d.id === dm.id)).toEqual([]);
  });

  it('ready lists the DMs (privateChannels) with read states that count every unread message of the others', async () => {
    const { alice, bob } = await setup();
    const dm = (await openDm(alice, [bob.id])).body;
    const first = await postMessage(srv.url, alice.auth, dm.id, 'one');
    expect((await call(srv.url, 'POST', `/channels/${dm.id}/messages/${first.id}/ack`, { auth: bob.auth })).status).toBe(204);
    await postMessage(srv.url, alice.auth, dm.id, 'two');
    const last = await postMessage(srv.url, alice.auth, dm.id, 'three');
    await postMessage(srv.url, bob.auth, dm.id, 'mine does not count');
    const c = await pool.identify(srv.gatewayUrl, bob.auth);
    const ready = c.ready as unknown as {
      privateChannels: Array<{ id: string; lastMessageId: string }>;
      readStates: Array<{ channelId: string; mentionCount: number }>;
    };
    expect(ready.privateChannels.map((p) => p.id)).toEqual([dm.id]);
    expect(BigInt(ready.privateChannels[0]!.lastMessageId)).toBeGreaterThan(BigInt(last.id));
    expect(ready.readStates.find((r) => r.channelId === dm.id)).toEqual({ channelId: dm.id, lastReadId: first.id, mentionCount: 2 });
  });
});
