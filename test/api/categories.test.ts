/**
 * docs/api.md#categories over HTTP and the gateway: a category is a channel of type
 * `category` (Discord's 4) that holds channels and no messages; channels move between
 * categories and positions one at a time or in bulk (`PATCH /servers/{id}/channels`), and
 * sync their overwrites with their category's. Each moved channel's CHANNEL_UPDATE reaches
 * only those who may see it.
 */
import { P } from '@parley/protocol';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call, createChannel, joinServer, registerUser, world } from '../factories.js';
import { ClientPool } from '../gateway/client.js';
import { type TestServer, startServer } from '../harness.js';
import { UNKNOWN_ID, expectError } from './assert.js';

let srv: TestServer;
const pool = new ClientPool();

beforeAll(async () => {
  srv = await startServer({ env: { RATE_LIMITS: 'off' } });
});
afterEach(() => pool.closeAll());
afterAll(() => srv?.close());

type Ch = { id: string; name: string; type: string; parentId: string | null; position: number; permissionOverwrites: unknown[] };

async function category(auth: string, serverId: string, name = 'Info') {
  const r = await call(srv.url, 'POST', `/servers/${serverId}/channels`, { auth, body: { name, type: 'category' } });
  expect(r.status, r.text).toBe(201);
  return r.body as Ch;
}

async function listed(auth: string, serverId: string): Promise<Ch[]> {
  const r = await call(srv.url, 'GET', `/servers/${serverId}/channels`, { auth });
  expect(r.status, r.text).toBe(200);
  return r.body;
}

const VIEW = P.VIEW_CHANNEL.toString();

describe('categories', () => {
  it('a category is created with type "category"; channels are created in it and listed under it', async () => {
    const w = await world(srv.url);
    const cat = await category(w.owner.auth, w.server.id);
    expect(cat).toMatchObject({ type: 'category', parentId: null, topic: null });
    const inside = await call(srv.url, 'POST', `/servers/${w.server.id}/channels`, {
      auth: w.owner.auth,
      body: { name: 'rules', parentId: cat.id },
    });
    expect(inside.status, inside.text).toBe(201);
    expect(inside.body).toMatchObject({ type: 'text', parentId: cat.id });
    const all = await listed(w.owner.auth, w.server.id);
    expect(all.find((c) => c.id === w.channel.id)).toMatchObject({ type: 'text', parentId: null });
    expect(all.filter((c) => c.parentId === cat.id).map((c) => c.name)).toEqual(['rules']);
  });

  it('a category holds no messages: 400 channel_is_category on POST messages, typing and a webhook for it', async () => {
    const w = await world(srv.url);
    const cat = await category(w.owner.auth, w.server.id);
    expectError(
      await call(srv.url, 'POST', `/channels/${cat.id}/messages`, { auth: w.owner.auth, body: { content: 'hi' } }),
      400,
      'channel_is_category',
    );
    expectError(await call(srv.url, 'POST', `/channels/${cat.id}/typing`, { auth: w.owner.auth }), 400, 'channel_is_category');
    // Nor does a webhook post there.
    expectError(
      await call(srv.url, 'POST', `/servers/${w.server.id}/webhooks`, { auth: w.owner.auth, body: { name: 'Hook', channelId: cat.id } }),
      400,
      'channel_is_category',
    );
  });

  it('PATCH parentId moves a channel in and out; 400 invalid_parent for a text channel, a category in a category, another server', async () => {
    const w = await world(srv.url);
    const other = await world(srv.url);
    const cat = await category(w.owner.auth, w.server.id);
    const cat2 = await category(w.owner.auth, w.server.id, 'More');
    const foreign = await category(other.owner.auth, other.server.id);
    const moved = await call(srv.url, 'PATCH', `/channels/${w.channel.id}`, { auth: w.owner.auth, body: { parentId: cat.id } });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body.parentId).toBe(cat.id);
    const out = await call(srv.url, 'PATCH', `/channels/${w.channel.id}`, { auth: w.owner.auth, body: { parentId: null } });
    expect(out.body.parentId).toBeNull();
    for (const parentId of [w.channel.id, foreign.id, UNKNOWN_ID, 'nope'])
      expectError(
        await call(srv.url, 'PATCH', `/channels/${w.channel.id}`, { auth: w.owner.auth, body: { parentId } }),
        400,
        'invalid_parent',
      );
    expectError(
      await call(srv.url, 'PATCH', `/channels/${cat2.id}`, { auth: w.owner.auth, body: { parentId: cat.id } }),
      400,
      'invalid_parent',
    );
    expectError(
      await call(srv.url, 'POST', `/servers/${w.server.id}/channels`, {
        auth: w.owner.auth,
        body: { name: 'x', type: 'category', parentId: cat.id },
      }),
      400,
      'invalid_parent',
    );
    expectError(
      await call(srv.url, 'POST', `/servers/${w.server.id}/channels`, { auth: w.owner.auth, body: { name: 'x', type: 'voice' } }),
      400,
      'invalid_body',
    );
  });

  it('deleting a category leaves its channels uncategorised, and says so with CHANNEL_UPDATE', async () => {
    const w = await world(srv.url);
    const cat = await category(w.owner.auth, w.server.id);
    const a = await call(srv.url, 'POST', `/servers/${w.server.id}/channels`, {
      auth: w.owner.auth,
      body: { name: 'a', parentId: cat.id },
    });
    const gw = await pool.identify(srv.gatewayUrl, w.owner.auth);
    expect((await call(srv.url, 'DELETE', `/channels/${cat.id}`, { auth: w.owner.auth })).status).toBe(204);
    const ev = await gw.waitForEvent('CHANNEL_UPDATE', (d) => d.id === a.body.id);
    expect(ev.d.parentId).toBeNull();
    const all = await listed(w.owner.auth, w.server.id);
    expect(all.map((c) => c.id)).not.toContain(cat.id);
    expect(all.find((c) => c.id === a.body.id)?.parentId).toBeNull();
  });

  it('syncPermissions copies the category overwrites; 400 without a category or with overwrites too', async () => {
    const w = await world(srv.url);
    const cat = await category(w.owner.auth, w.server.id);
    const put = await call(srv.url, 'PUT', `/channels/${cat.id}/permissions/${w.server.id}`, {
      auth: w.owner.auth,
      body: { type: 'role', deny: VIEW },
    });
    expect(put.status, put.text).toBe(204);
    expectError(
      await call(srv.url, 'PATCH', `/channels/${w.channel.id}`, { auth: w.owner.auth, body: { syncPermissions: true } }),
      400,
      'invalid_parent',
    );
    expectError(
      await call(srv.url, 'PATCH', `/channels/${w.channel.id}`, {
        auth: w.owner.auth,
        body: { parentId: cat.id, syncPermissions: true, overwrites: [] },
      }),
      400,
    );
    const synced = await call(srv.url, 'PATCH', `/channels/${w.channel.id}`, {
      auth: w.owner.auth,
      body: { parentId: cat.id, syncPermissions: true },
    });
    expect(synced.status, synced.text).toBe(200);
    expect(synced.body.permissionOverwrites).toEqual([{ id: w.server.id, type: 'role', allow: '0', deny: VIEW }]);
  });

  it('categories: a member without MANAGE_CHANNELS gets 403 on create, move and reorder', async () => {
    const w = await world(srv.url);
    const member = await registerUser(srv.url);
    await joinServer(srv.url, w.owner, member, w.server.id);
    const cat = await category(w.owner.auth, w.server.id);
    expectError(
      await call(srv.url, 'POST', `/servers/${w.server.id}/channels`, { auth: member.auth, body: { name: 'c', type: 'category' } }),
      403,
      'missing_permission',
    );
    expectError(
      await call(srv.url, 'PATCH', `/channels/${w.channel.id}`, { auth: member.auth, body: { parentId: cat.id } }),
      403,
      'missing_permission',
    );
    expectError(
      await call(srv.url, 'PATCH', `/servers/${w.server.id}/channels`, { auth: member.auth, body: [{ id: w.channel.id, position: 3 }] }),
      403,
      'missing_permission',
    );
  });
});

describe('PATCH /servers/{id}/channels', () => {
  it('moves several channels at once (positions per parent, categories, sync) and answers those that changed', async () => {
    const w = await world(srv.url);
    const cat = await category(w.owner.auth, w.server.id);
    await call(srv.url, 'PUT', `/channels/${cat.id}/permissions/${w.server.id}`, {
      auth: w.owner.auth,
      body: { type: 'role', allow: P.SEND_MESSAGES.toString() },
    });
    const b = await createChannel(srv.url, w.owner, w.server.id, 'b');
    const r = await call(srv.url, 'PATCH', `/servers/${w.server.id}/channels`, {
      auth: w.owner.auth,
      body: [
        { id: b.id, position: 0, parentId: cat.id, syncPermissions: true },
        { id: w.channel.id, position: 1, parentId: cat.id },
        { id: cat.id, position: 0 },
      ],
    });
    expect(r.status, r.text).toBe(200);
    expect((r.body as Ch[]).map((c) => c.id).sort()).toEqual([b.id, w.channel.id, cat.id].sort());
    const all = await listed(w.owner.auth, w.server.id);
    const byId = new Map(all.map((c) => [c.id, c]));
    expect(byId.get(b.id)).toMatchObject({ parentId: cat.id, position: 0 });
    expect(byId.get(b.id)?.permissionOverwrites).toEqual([{ id: w.server.id, type: 'role', allow: P.SEND_MESSAGES.toString(), deny: '0' }]);
    expect(byId.get(w.channel.id)).toMatchObject({ parentId: cat.id, position: 1 });
    expect(byId.get(w.channel.id)?.permissionOverwrites).toEqual([]);
    // The same moves again change nothing.
    const again = await call(srv.url, 'PATCH', `/servers/${w.server.id}/channels`, {
      auth: w.owner.auth,
      body: [{ id: b.id, position: 0, parentId: cat.id }],
    });
    expect(again.body).toEqual([]);
  });

  it('refuses as a whole: 400 for a channel named twice, an empty list, a bad parent; 404 for another server’s channel', async () => {
    const w = await world(srv.url);
    const other = await world(srv.url);
    const b = await createChannel(srv.url, w.owner, w.server.id, 'b');
    const path = `/servers/${w.server.id}/channels`;
    const patch = (body: unknown) => call(srv.url, 'PATCH', path, { auth: w.owner.auth, body });
    expectError(await patch([{ id: b.id }, { id: b.id }]), 400, 'invalid_body');
    expectError(await patch([]), 400, 'invalid_body');
    expectError(await patch({ id: b.id }), 400, 'invalid_body');
    expectError(await patch([{ id: b.id, position: -1 }]), 400, 'invalid_body');
    expectError(
      await patch([
        { id: b.id, position: 5 },
        { id: w.channel.id, parentId: b.id },
      ]),
      400,
      'invalid_parent',
    );
    expectError(await patch([{ id: other.channel.id, position: 2 }]), 404, 'unknown_channel');
    expectError(await patch([{ id: UNKNOWN_ID, position: 2 }]), 404, 'unknown_channel');
    // Nothing of a refused list was written.
    expect((await listed(w.owner.auth, w.server.id)).find((c) => c.id === b.id)?.position).not.toBe(5);
    expectError(
      await call(srv.url, 'PATCH', `/servers/${UNKNOWN_ID}/channels`, { auth: w.owner.auth, body: [{ id: b.id }] }),
      404,
      'unknown_server',
    );
    expectError(await call(srv.url, 'PATCH', path, { body: [{ id: b.id }] }), 401);
  });

  it('a member who cannot see a moved channel gets no CHANNEL_UPDATE for it; one who can gets it', async () => {
    const w = await world(srv.url);
    const member = await registerUser(srv.url);
    await joinServer(srv.url, w.owner, member, w.server.id);
    const secret = await createChannel(srv.url, w.owner, w.server.id, 'secret');
    const hide = await call(srv.url, 'PUT', `/channels/${secret.id}/permissions/${member.id}`, {
      auth: w.owner.auth,
      body: { type: 'member', deny: VIEW },
    });
    expect(hide.status, hide.text).toBe(204);
    const open = await createChannel(srv.url, w.owner, w.server.id, 'open');
    const ownerGw = await pool.identify(srv.gatewayUrl, w.owner.auth);
    const memberGw = await pool.identify(srv.gatewayUrl, member.auth);
    const r = await call(srv.url, 'PATCH', `/servers/${w.server.id}/channels`, {
      auth: w.owner.auth,
      body: [
        { id: secret.id, position: 7 },
        { id: open.id, position: 8 },
      ],
    });
    expect(r.status, r.text).toBe(200);
    // The log is ordered: once the member has the open channel's update, the secret one's was filtered.
    await ownerGw.waitForEvent('CHANNEL_UPDATE', (d) => d.id === secret.id && d.position === 7);
    await memberGw.waitForEvent('CHANNEL_UPDATE', (d) => d.id === open.id && d.position === 8);
    expect(memberGw.events('CHANNEL_UPDATE').map((f) => f.d.id)).toEqual([open.id]);
    expect(JSON.stringify(memberGw.frames)).not.toContain(secret.id);
  });
});
