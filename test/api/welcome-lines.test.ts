/**
 * Welcome lines (docs/api.md, "Servers"): a server's system channel and its welcome-lines
 * switch on PATCH /servers/{id}, and the system message (`type: "join"`) someone joining
 * by invite gets there, delivered over the gateway to those who see the channel only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createChannel, createServer, joinServer, registerUser } from '../factories.js';
import { type TestServer, startServer } from '../harness.js';
import { TestGatewayClient } from '../gateway/client.js';
import { expectError } from './assert.js';

let srv: TestServer;

beforeAll(async () => {
  srv = await startServer({ env: { RATE_LIMITS: 'off' } });
});
afterAll(() => srv?.close());

const newest = async (auth: string, channelId: string) =>
  (await call(srv.url, 'GET', `/channels/${channelId}/messages?limit=5`, { auth })).body as Array<Record<string, any>>;

describe('welcome lines', () => {
  it('PATCH /servers/{id} sets the system channel and the switch; a server has none by default', async () => {
    const owner = await registerUser(srv.url);
    const { server, general } = await createServer(srv.url, owner);
    const created = await call(srv.url, 'GET', `/servers/${server.id}`, { auth: owner.auth });
    expect(created.body).toMatchObject({ systemChannelId: null, welcomeMessages: true });

    const set = await call(srv.url, 'PATCH', `/servers/${server.id}`, { auth: owner.auth, body: { systemChannelId: general.id } });
    expect(set.status, set.text).toBe(200);
    expect(set.body).toMatchObject({ systemChannelId: general.id, welcomeMessages: true });
    const off = await call(srv.url, 'PATCH', `/servers/${server.id}`, { auth: owner.auth, body: { welcomeMessages: false } });
    expect(off.body).toMatchObject({ systemChannelId: general.id, welcomeMessages: false });
    const read = await call(srv.url, 'GET', `/servers/${server.id}`, { auth: owner.auth });
    expect(read.body).toMatchObject({ systemChannelId: general.id, welcomeMessages: false });
    const none = await call(srv.url, 'PATCH', `/servers/${server.id}`, { auth: owner.auth, body: { systemChannelId: null } });
    expect(none.body.systemChannelId).toBeNull();

    // Deleting the system channel leaves the server with none.
    const lobby = await createChannel(srv.url, owner, server.id, 'lobby');
    await call(srv.url, 'PATCH', `/servers/${server.id}`, { auth: owner.auth, body: { systemChannelId: lobby.id } });
    expect((await call(srv.url, 'DELETE', `/channels/${lobby.id}`, { auth: owner.auth })).status).toBe(204);
    expect((await call(srv.url, 'GET', `/servers/${server.id}`, { auth: owner.auth })).body.systemChannelId).toBeNull();
  });

  it('refuses a channel of another server, a DM, a non-id, a wrong type, and a member without MANAGE_SERVER', async () => {
    const owner = await registerUser(srv.url);
    const member = await registerUser(srv.url);
    const { server, general } = await createServer(srv.url, owner);
    const other = await createServer(srv.url, owner, 'Other');
    await joinServer(srv.url, owner, member, server.id);
    const dm = await call(srv.url, 'POST', '/users/@me/channels', { auth: owner.auth, body: { recipientIds: [member.id] } });
    const patch = (body: unknown, auth = owner.auth) => call(srv.url, 'PATCH', `/servers/${server.id}`, { auth, body });
    expectError(await patch({ systemChannelId: other.general.id }), 400, /text channel of this server/);
    expectError(await patch({ systemChannelId: dm.body.id }), 400, /text channel of this server/);
    expectError(await patch({ systemChannelId: 'general' }), 400, /text channel of this server/);
    expectError(await patch({ systemChannelId: 12 }), 400);
    expectError(await patch({ welcomeMessages: 'yes' }), 400);
    expectError(await patch({ systemChannelId: general.id }, member.auth), 403, 'missing_permission');
    const unchanged = await call(srv.url, 'GET', `/servers/${server.id}`, { auth: owner.auth });
    expect(unchanged.body.systemChannelId).toBeNull();
  });

  it('someone joining by invite gets a welcome line in the system channel, live to who sees it; none when off or unset', async () => {
    const owner = await registerUser(srv.url);
    const { server, general } = await createServer(srv.url, owner);
    const lobby = await createChannel(srv.url, owner, server.id, 'lobby');
    // A member who may not see #lobby gets no event of it.
    const hidden = await registerUser(srv.url);
    await joinServer(srv.url, owner, hidden, server.id);
    expect(
      (
        await call(srv.url, 'PUT', `/channels/${lobby.id}/permissions/${hidden.id}`, {
          auth: owner.auth,
          body: { type: 'member', allow: '0', deny: '1024' },
        })
      ).status,
    ).toBe(204);
    // Unset (the default): joining posts nothing.
    const early = await registerUser(srv.url);
    await joinServer(srv.url, owner, early, server.id);
    expect((await newest(owner.auth, general.id)).length).toBe(0);

    await call(srv.url, 'PATCH', `/servers/${server.id}`, { auth: owner.auth, body: { systemChannelId: lobby.id } });
    const watcher = await TestGatewayClient.identify(srv.gatewayUrl, owner.auth);
    const blind = await TestGatewayClient.identify(srv.gatewayUrl, hidden.auth);
    try {
      const newcomer = await registerUser(srv.url);
      await joinServer(srv.url, owner, newcomer, server.id);
      const line = (await newest(owner.auth, lobby.id))[0]!;
      expect(line).toMatchObject({ type: 'join', content: '', channelId: lobby.id, author: { id: newcomer.id }, mentions: [] });
      const event = await watcher.waitFor((f) => f.t === 'MESSAGE_CREATE' && f.d.id === line.id);
      expect(event.d.type).toBe('join');
      // An ordinary message has no type.
      const plain = await call(srv.url, 'POST', `/channels/${lobby.id}/messages`, { auth: newcomer.auth, body: { content: 'hi all' } });
      expect(plain.body.type).toBeUndefined();
      await watcher.waitFor((f) => f.t === 'MESSAGE_CREATE' && f.d.id === plain.body.id);
      // The member who cannot see #lobby got neither (both events come in order for those who get them).
      await call(srv.url, 'POST', `/channels/${general.id}/messages`, { auth: owner.auth, body: { content: 'marker' } });
      await blind.waitFor((f) => f.t === 'MESSAGE_CREATE' && f.d.content === 'marker');
      expect(blind.events('MESSAGE_CREATE').map((f) => f.d.id)).not.toContain(line.id);
      // The joiner cannot edit it (a system message), and may see it.
      const edit = await call(srv.url, 'PATCH', `/channels/${lobby.id}/messages/${line.id}`, {
        auth: newcomer.auth,
        body: { content: 'hello' },
      });
      expectError(edit, 400, 'system_message');

      // Switched off: the next joiner gets none.
      await call(srv.url, 'PATCH', `/servers/${server.id}`, { auth: owner.auth, body: { welcomeMessages: false } });
      const quiet = await registerUser(srv.url);
      await joinServer(srv.url, owner, quiet, server.id);
      expect((await newest(owner.auth, lobby.id)).some((m) => m.author.id === quiet.id)).toBe(false);
    } finally {
      watcher.ws.close();
      blind.ws.close();
    }
  });
});
