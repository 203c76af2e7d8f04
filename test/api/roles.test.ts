/** docs/permissions.md over HTTP: roles, member roles, channel overwrites, kicks, bans, invites, server settings, audit log. */
import { DEFAULT_EVERYONE_PERMISSIONS, P } from '@parley/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type TestUser,
  addBot,
  call,
  createBot,
  createChannel,
  createServer,
  joinServer,
  postMessage,
  registerUser,
} from '../factories.js';
import { type TestServer, startServer } from '../harness.js';
import { ISO_UTC, UNKNOWN_ID, expectError, history } from './assert.js';

let srv: TestServer;

beforeAll(async () => {
  srv = await startServer({ env: { RATE_LIMITS: 'off' } });
});
afterAll(() => srv?.close());

const bits = (...flags: bigint[]) => flags.reduce((a, b) => a | b, 0n).toString();

/** An owner with a server and its general channel, and a plain member. */
async function setup() {
  const owner = await registerUser(srv.url);
  const { server, general } = await createServer(srv.url, owner);
  const member = await registerUser(srv.url);
  await joinServer(srv.url, owner, member, server.id);
  return { owner, server, general, member };
}

/** The owner creates a role (201 expected). */
async function makeRole(owner: TestUser, serverId: string, name: string, permissions = '0') {
  const r = await call(srv.url, 'POST', `/servers/${serverId}/roles`, { auth: owner.auth, body: { name, permissions } });
  expect(r.status, r.text).toBe(201);
  return r.body as { id: string; name: string; position: number; permissions: string; managed: boolean };
}

async function giveRole(by: TestUser, serverId: string, userId: string, roleId: string) {
  const r = await call(srv.url, 'PUT', `/servers/${serverId}/members/${userId}/roles/${roleId}`, { auth: by.auth });
  expect(r.status, r.text).toBe(204);
}

/** A new person who joined `serverId` and holds a fresh role with `permissions`. */
async function memberWith(owner: TestUser, serverId: string, permissions: bigint, name = 'staff') {
  const user = await registerUser(srv.url);
  await joinServer(srv.url, owner, user, serverId);
  const role = await makeRole(owner, serverId, name, permissions.toString());
  await giveRole(owner, serverId, user.id, role.id);
  return { user, role };
}

async function getRoles(auth: string, serverId: string) {
  const r = await call(srv.url, 'GET', `/servers/${serverId}/roles`, { auth });
  expect(r.status, r.text).toBe(200);
  return r.body as Array<{ id: string; name: string; position: number; permissions: string; managed: boolean }>;
}

async function channelIds(auth: string, serverId: string): Promise<string[]> {
  const r = await call(srv.url, 'GET', `/servers/${serverId}/channels`, { auth });
  expect(r.status, r.text).toBe(200);
  return r.body.map((c: { id: string }) => c.id);
}

async function memberIds(auth: string, serverId: string): Promise<string[]> {
  const r = await call(srv.url, 'GET', `/servers/${serverId}/members`, { auth });
  expect(r.status, r.text).toBe(200);
  return r.body.map((m: { user: { id: string } }) => m.user.id);
}

async function invite(by: TestUser, serverId: string, body: Record<string, unknown> = {}) {
  const r = await call(srv.url, 'POST', `/servers/${serverId}/invites`, { auth: by.auth, body });
  expect(r.status, r.text).toBe(201);
  return r.body as { code: string; createdAt: string; expiresAt: string | null; maxAge: number; maxUses: number; inviterId: string };
}

describe('roles', () => {
  it('GET roles: @everyone has the server id, position 0 and the default permissions', async () => {
    const s = await setup();
    const roles = await getRoles(s.member.auth, s.server.id);
    expect(roles).toHaveLength(1);
    expect(roles[0]).toEqual({
      id: s.server.id,
      serverId: s.server.id,
      name: '@everyone',
      color: 0,
      position: 0,
      permissions: DEFAULT_EVERYONE_PERMISSIONS.toString(),
      hoist: false,
      mentionable: false,
      managed: false,
    });
    expect(DEFAULT_EVERYONE_PERMISSIONS & P.VIEW_CHANNEL).toBe(P.VIEW_CHANNEL);
    const stranger = await registerUser(srv.url);
    expectError(await call(srv.url, 'GET', `/servers/${s.server.id}/roles`, { auth: stranger.auth }), 403);
  });

  it('POST roles: 201 role at position 1; a plain member gets 403', async () => {
    const s = await setup();
    const r = await call(srv.url, 'POST', `/servers/${s.server.id}/roles`, {
      auth: s.owner.auth,
      body: { name: 'Helpers', permissions: bits(P.KICK_MEMBERS), color: 0x00ff00, hoist: true },
    });
    expect(r.status, r.text).toBe(201);
    expect(r.body).toMatchObject({
      serverId: s.server.id,
      name: 'Helpers',
      color: 0x00ff00,
      position: 1,
      permissions: bits(P.KICK_MEMBERS),
      hoist: true,
      mentionable: false,
      managed: false,
    });
    expect((await getRoles(s.owner.auth, s.server.id)).map((x) => x.id)).toEqual([s.server.id, r.body.id]);
    expectError(
      await call(srv.url, 'POST', `/servers/${s.server.id}/roles`, { auth: s.member.auth, body: { name: 'x' } }),
      403,
      'missing_permission',
    );
  });

  it('a MANAGE_ROLES member manages roles below their highest only, and grants only what they hold', async () => {
    const s = await setup();
    const top = await makeRole(s.owner, s.server.id, 'top');
    const { user: mod, role: modRole } = await memberWith(s.owner, s.server.id, P.MANAGE_ROLES | P.KICK_MEMBERS, 'mod');
    // mod's role was created last: position 1, pushing `top` to 2.
    const created = await call(srv.url, 'POST', `/servers/${s.server.id}/roles`, {
      auth: mod.auth,
      body: { name: 'low', permissions: bits(P.KICK_MEMBERS) },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.position).toBe(1);
    const roles = await getRoles(s.owner.auth, s.server.id);
    const pos = Object.fromEntries(roles.map((x) => [x.id, x.position]));
    expect(pos[created.body.id]).toBeLessThan(pos[modRole.id]!);
    expect(pos[modRole.id]).toBeLessThan(pos[top.id]!);

    const patched = await call(srv.url, 'PATCH', `/servers/${s.server.id}/roles/${created.body.id}`, {
      auth: mod.auth,
      body: { name: 'lower', permissions: bits(P.MANAGE_ROLES) },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body).toMatchObject({ id: created.body.id, name: 'lower', permissions: bits(P.MANAGE_ROLES) });

    // At or above their highest role.
    for (const id of [modRole.id, top.id]) {
      expectError(
        await call(srv.url, 'PATCH', `/servers/${s.server.id}/roles/${id}`, { auth: mod.auth, body: { name: 'mine now' } }),
        403,
        'role_hierarchy',
      );
      expectError(await call(srv.url, 'DELETE', `/servers/${s.server.id}/roles/${id}`, { auth: mod.auth }), 403, 'role_hierarchy');
    }
    // Permissions they do not hold.
    expectError(
      await call(srv.url, 'POST', `/servers/${s.server.id}/roles`, {
        auth: mod.auth,
        body: { name: 'admins', permissions: bits(P.ADMINISTRATOR) },
      }),
      403,
      'role_hierarchy',
    );
    expectError(
      await call(srv.url, 'PATCH', `/servers/${s.server.id}/roles/${created.body.id}`, {
        auth: mod.auth,
        body: { permissions: bits(P.BAN_MEMBERS) },
      }),
      403,
      'role_hierarchy',
    );
    expect((await getRoles(s.owner.auth, s.server.id)).find((x) => x.id === created.body.id)?.permissions).toBe(bits(P.MANAGE_ROLES));

    expect((await call(srv.url, 'DELETE', `/servers/${s.server.id}/roles/${created.body.id}`, { auth: mod.auth })).status).toBe(204);
    expect((await getRoles(s.owner.auth, s.server.id)).map((x) => x.id)).not.toContain(created.body.id);
  });

  it('permissions that are not a decimal bitfield are 400', async () => {
    const s = await setup();
    const role = await makeRole(s.owner, s.server.id, 'r');
    for (const permissions of ['12x', '-1', '1.5']) {
      expectError(
        await call(srv.url, 'POST', `/servers/${s.server.id}/roles`, { auth: s.owner.auth, body: { name: 'bad', permissions } }),
        400,
      );
      expectError(
        await call(srv.url, 'PATCH', `/servers/${s.server.id}/roles/${role.id}`, { auth: s.owner.auth, body: { permissions } }),
        400,
      );
    }
    expect((await getRoles(s.owner.auth, s.server.id)).map((x) => x.name)).toEqual(['@everyone', 'r']);
  });

  it('DELETE @everyone is 400 everyone_role; a managed (bot) role is 403 managed_role; unknown is 404', async () => {
    const s = await setup();
    expectError(
      await call(srv.url, 'DELETE', `/servers/${s.server.id}/roles/${s.server.id}`, { auth: s.owner.auth }),
      400,
      'everyone_role',
    );
    const bot = await createBot(srv.url, s.owner);
    await addBot(srv.url, s.owner, s.server.id, bot.id, ['READ_MESSAGES']);
    const managed = (await getRoles(s.owner.auth, s.server.id)).find((x) => x.managed);
    expect(managed).toBeDefined();
    expect(managed!.name).toBe(bot.name);
    expectError(await call(srv.url, 'DELETE', `/servers/${s.server.id}/roles/${managed!.id}`, { auth: s.owner.auth }), 403, 'managed_role');
    expectError(await call(srv.url, 'DELETE', `/servers/${s.server.id}/roles/${UNKNOWN_ID}`, { auth: s.owner.auth }), 404);
    expect((await getRoles(s.owner.auth, s.server.id)).map((x) => x.id)).toContain(managed!.id);
  });

  it('new roles start at position 1; PATCH position reorders and GET lists by position', async () => {
    const s = await setup();
    const a = await makeRole(s.owner, s.server.id, 'a');
    const b = await makeRole(s.owner, s.server.id, 'b');
    const c = await makeRole(s.owner, s.server.id, 'c');
    for (const r of [a, b, c]) expect(r.position).toBe(1);
    let roles = await getRoles(s.owner.auth, s.server.id);
    expect(roles.map((x) => x.name)).toEqual(['@everyone', 'c', 'b', 'a']);
    expect(roles.map((x) => x.position)).toEqual([0, 1, 2, 3]);

    const moved = await call(srv.url, 'PATCH', `/servers/${s.server.id}/roles/${a.id}`, { auth: s.owner.auth, body: { position: 1 } });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body.position).toBe(1);
    roles = await getRoles(s.owner.auth, s.server.id);
    expect(roles.map((x) => x.name)).toEqual(['@everyone', 'a', 'c', 'b']);
    expect(roles.map((x) => x.position)).toEqual([0, 1, 2, 3]);
  });
});

describe('member roles', () => {
  it('PUT/DELETE member role: 204, shown in GET members; 404 unknown role/member; @everyone 400', async () => {
    const s = await setup();
    const role = await makeRole(s.owner, s.server.id, 'vip');
    const path = `/servers/${s.server.id}/members/${s.member.id}/roles/${role.id}`;
    expect((await call(srv.url, 'PUT', path, { auth: s.owner.auth })).status).toBe(204);
    const rolesOf = async () => {
      const r = await call(srv.url, 'GET', `/servers/${s.server.id}/members`, { auth: s.member.auth });
      expect(r.status).toBe(200);
      return r.body.find((m: { user: { id: string } }) => m.user.id === s.member.id).roles as string[];
    };
    expect(await rolesOf()).toEqual([role.id]);
    expect((await call(srv.url, 'DELETE', path, { auth: s.owner.auth })).status).toBe(204);
    expect(await rolesOf()).toEqual([]);

    expectError(
      await call(srv.url, 'PUT', `/servers/${s.server.id}/members/${s.member.id}/roles/${UNKNOWN_ID}`, { auth: s.owner.auth }),
      404,
    );
    expectError(await call(srv.url, 'PUT', `/servers/${s.server.id}/members/${UNKNOWN_ID}/roles/${role.id}`, { auth: s.owner.auth }), 404);
    const stranger = await registerUser(srv.url);
    expectError(await call(srv.url, 'PUT', `/servers/${s.server.id}/members/${stranger.id}/roles/${role.id}`, { auth: s.owner.auth }), 404);
    expectError(
      await call(srv.url, 'PUT', `/servers/${s.server.id}/members/${s.member.id}/roles/${s.server.id}`, { auth: s.owner.auth }),
      400,
      'everyone_role',
    );
    // A plain member cannot give roles.
    expectError(await call(srv.url, 'PUT', path, { auth: s.member.auth }), 403);
    expect(await rolesOf()).toEqual([]);
  });
});

describe('channel overwrites', () => {
  it('a private channel hides from plain members; a role allow restores it; a member deny beats a role allow', async () => {
    const s = await setup();
    const secret = await createChannel(srv.url, s.owner, s.server.id, 'secret');
    await postMessage(srv.url, s.owner.auth, secret.id, 'hush');
    const priv = await call(srv.url, 'PUT', `/channels/${secret.id}/permissions/${s.server.id}`, {
      auth: s.owner.auth,
      body: { type: 'role', deny: String(1n << 10n) },
    });
    expect(priv.status, priv.text).toBe(204);

    expect(await channelIds(s.member.auth, s.server.id)).toEqual([s.general.id]);
    expectError(await call(srv.url, 'GET', `/channels/${secret.id}/messages`, { auth: s.member.auth }), 403);
    expectError(await call(srv.url, 'POST', `/channels/${secret.id}/messages`, { auth: s.member.auth, body: { content: 'hi' } }), 403);
    expect(await channelIds(s.owner.auth, s.server.id)).toContain(secret.id);
    expect((await history(srv.url, s.owner.auth, secret.id)).map((m) => m.content)).toEqual(['hush']);

    const seer = await makeRole(s.owner, s.server.id, 'seer');
    const allow = await call(srv.url, 'PUT', `/channels/${secret.id}/permissions/${seer.id}`, {
      auth: s.owner.auth,
      body: { type: 'role', allow: P.VIEW_CHANNEL.toString() },
    });
    expect(allow.status, allow.text).toBe(204);
    expect(await channelIds(s.member.auth, s.server.id)).not.toContain(secret.id);
    await giveRole(s.owner, s.server.id, s.member.id, seer.id);
    expect(await channelIds(s.member.auth, s.server.id)).toContain(secret.id);
    expect((await history(srv.url, s.member.auth, secret.id)).map((m) => m.content)).toEqual(['hush']);

    const deny = await call(srv.url, 'PUT', `/channels/${secret.id}/permissions/${s.member.id}`, {
      auth: s.owner.auth,
      body: { type: 'member', deny: P.VIEW_CHANNEL.toString() },
    });
    expect(deny.status, deny.text).toBe(204);
    expect(await channelIds(s.member.auth, s.server.id)).not.toContain(secret.id);
    expectError(await call(srv.url, 'GET', `/channels/${secret.id}/messages`, { auth: s.member.auth }), 403);
  });

  it('a role given, taken or deleted changes what the next request may do: nothing cached outlives it', async () => {
    const s = await setup();
    const send = () => call(srv.url, 'POST', `/channels/${s.general.id}/messages`, { auth: s.member.auth, body: { content: 'hi' } });
    const muted = await makeRole(s.owner, s.server.id, 'muted');
    const deny = await call(srv.url, 'PUT', `/channels/${s.general.id}/permissions/${muted.id}`, {
      auth: s.owner.auth,
      body: { type: 'role', deny: P.SEND_MESSAGES.toString() },
    });
    expect(deny.status, deny.text).toBe(204);
    // Allowed, and so kept by the instance's access cache for the next request.
    expect((await send()).status).toBe(201);
    expect((await send()).status).toBe(201);
    await giveRole(s.owner, s.server.id, s.member.id, muted.id);
    expectError(await send(), 403, 'missing_permission');
    const take = await call(srv.url, 'DELETE', `/servers/${s.server.id}/members/${s.member.id}/roles/${muted.id}`, { auth: s.owner.auth });
    expect(take.status, take.text).toBe(204);
    expect((await send()).status).toBe(201);
    await giveRole(s.owner, s.server.id, s.member.id, muted.id);
    expectError(await send(), 403, 'missing_permission');
    expect((await call(srv.url, 'DELETE', `/servers/${s.server.id}/roles/${muted.id}`, { auth: s.owner.auth })).status).toBe(204);
    expect((await send()).status).toBe(201);
    const members = await call(srv.url, 'GET', `/servers/${s.server.id}/members`, { auth: s.owner.auth });
    expect(members.body.find((m: { user: { id: string } }) => m.user.id === s.member.id).roles).toEqual([]);
  });

  it("allow 'abc' is 400; a MANAGE_ROLES member cannot allow a permission they lack (403)", async () => {
    const s = await setup();
    expectError(
      await call(srv.url, 'PUT', `/channels/${s.general.id}/permissions/${s.server.id}`, {
        auth: s.owner.auth,
        body: { type: 'role', allow: 'abc' },
      }),
      400,
    );
    const { user: mod } = await memberWith(s.owner, s.server.id, P.MANAGE_ROLES);
    expectError(
      await call(srv.url, 'PUT', `/channels/${s.general.id}/permissions/${s.server.id}`, {
        auth: mod.auth,
        body: { type: 'role', allow: P.MANAGE_MESSAGES.toString() },
      }),
      403,
      'role_hierarchy',
    );
    // What they hold, they may deny.
    const ok = await call(srv.url, 'PUT', `/channels/${s.general.id}/permissions/${s.server.id}`, {
      auth: mod.auth,
      body: { type: 'role', deny: P.ADD_REACTIONS.toString() },
    });
    expect(ok.status, ok.text).toBe(204);
    const ch = await call(srv.url, 'GET', `/servers/${s.server.id}/channels`, { auth: s.owner.auth });
    expect(ch.body[0].permissionOverwrites).toEqual([{ id: s.server.id, type: 'role', allow: '0', deny: P.ADD_REACTIONS.toString() }]);
    // A plain member has no MANAGE_ROLES.
    expectError(
      await call(srv.url, 'PUT', `/channels/${s.general.id}/permissions/${s.server.id}`, {
        auth: s.member.auth,
        body: { type: 'role', deny: '0' },
      }),
      403,
    );
  });
});

describe('ADMINISTRATOR', () => {
  it('sees private channels and may do everything except owner-only actions', async () => {
    const s = await setup();
    const { user: admin } = await memberWith(s.owner, s.server.id, P.ADMINISTRATOR, 'admin');
    const secret = await createChannel(srv.url, s.owner, s.server.id, 'secret');
    await call(srv.url, 'PUT', `/channels/${secret.id}/permissions/${s.server.id}`, {
      auth: s.owner.auth,
      body: { type: 'role', deny: P.VIEW_CHANNEL.toString() },
    });
    expect(await channelIds(admin.auth, s.server.id)).toContain(secret.id);
    await postMessage(srv.url, admin.auth, secret.id, 'admin was here');
    expect((await history(srv.url, admin.auth, secret.id)).map((m) => m.content)).toEqual(['admin was here']);

    // Everything a permission grants.
    const role = await call(srv.url, 'POST', `/servers/${s.server.id}/roles`, {
      auth: admin.auth,
      body: { name: 'made by admin', permissions: bits(P.BAN_MEMBERS, P.MANAGE_MESSAGES) },
    });
    expect(role.status, role.text).toBe(201);
    expect((await call(srv.url, 'POST', `/servers/${s.server.id}/channels`, { auth: admin.auth, body: { name: 'adm' } })).status).toBe(201);
    expect((await call(srv.url, 'PATCH', `/servers/${s.server.id}`, { auth: admin.auth, body: { name: 'Renamed' } })).status).toBe(200);
    expect((await call(srv.url, 'GET', `/servers/${s.server.id}/audit-log`, { auth: admin.auth })).status).toBe(200);
    expect((await call(srv.url, 'GET', `/servers/${s.server.id}/invites`, { auth: admin.auth })).status).toBe(200);
    expect((await call(srv.url, 'DELETE', `/servers/${s.server.id}/members/${s.member.id}`, { auth: admin.auth })).status).toBe(204);
    const other = await registerUser(srv.url);
    await joinServer(srv.url, s.owner, other, s.server.id);
    expect((await call(srv.url, 'PUT', `/servers/${s.server.id}/bans/${other.id}`, { auth: admin.auth, body: {} })).status).toBe(204);

    // Owner-only.
    expectError(await call(srv.url, 'DELETE', `/servers/${s.server.id}`, { auth: admin.auth }), 403);
    expectError(
      await call(srv.url, 'PATCH', `/servers/${s.server.id}`, { auth: admin.auth, body: { ownerId: admin.id } }),
      403,
      'owner_only',
    );
    expectError(
      await call(srv.url, 'POST', `/servers/${s.server.id}/webhooks`, { auth: admin.auth, body: { name: 'h', channelId: s.general.id } }),
      403,
    );
    expectError(await call(srv.url, 'DELETE', `/servers/${s.server.id}/members/${s.owner.id}`, { auth: admin.auth }), 400);
    expectError(
      await call(srv.url, 'PUT', `/servers/${s.server.id}/bans/${s.owner.id}`, { auth: admin.auth, body: {} }),
      400,
      'cannot_ban_owner',
    );
    const server = await call(srv.url, 'GET', `/servers/${s.server.id}`, { auth: s.owner.auth });
    expect(server.body).toMatchObject({ ownerId: s.owner.id, name: 'Renamed' });
  });
});

describe('kicks', () => {
  it('KICK_MEMBERS kicks below, not at/above; the owner can be neither kicked nor leave', async () => {
    const s = await setup();
    const { user: kicker, role } = await memberWith(s.owner, s.server.id, P.KICK_MEMBERS, 'kickers');
    const peer = await registerUser(srv.url);
    await joinServer(srv.url, s.owner, peer, s.server.id);
    await giveRole(s.owner, s.server.id, peer.id, role.id);

    expectError(await call(srv.url, 'DELETE', `/servers/${s.server.id}/members/${peer.id}`, { auth: kicker.auth }), 403, 'role_hierarchy');
    expectError(await call(srv.url, 'DELETE', `/servers/${s.server.id}/members/${kicker.id}`, { auth: s.member.auth }), 403);
    expect((await call(srv.url, 'DELETE', `/servers/${s.server.id}/members/${s.member.id}`, { auth: kicker.auth })).status).toBe(204);
    const ids = await memberIds(s.owner.auth, s.server.id);
    expect(ids).not.toContain(s.member.id);
    expect(ids).toContain(peer.id);
    expectError(await call(srv.url, 'GET', `/servers/${s.server.id}`, { auth: s.member.auth }), 403);

    expectError(await call(srv.url, 'DELETE', `/servers/${s.server.id}/members/${s.owner.id}`, { auth: kicker.auth }), 400);
    expectError(await call(srv.url, 'DELETE', `/servers/${s.server.id}/members/@me`, { auth: s.owner.auth }), 400, 'owner_cannot_leave');
    // Anyone else may leave.
    expect((await call(srv.url, 'DELETE', `/servers/${s.server.id}/members/@me`, { auth: peer.auth })).status).toBe(204);
    expect(await memberIds(s.owner.auth, s.server.id)).toEqual(expect.not.arrayContaining([peer.id]));
  });
});

describe('bans', () => {
  it('PUT ban removes the member, blocks rejoining, lists the reason; DELETE ban lets them join again', async () => {
    const s = await setup();
    const r = await call(srv.url, 'PUT', `/servers/${s.server.id}/bans/${s.member.id}`, { auth: s.owner.auth, body: { reason: 'spam' } });
    expect(r.status, r.text).toBe(204);
    expect(await memberIds(s.owner.auth, s.server.id)).not.toContain(s.member.id);
    const inv = await invite(s.owner, s.server.id);
    expectError(await call(srv.url, 'POST', `/invites/${inv.code}`, { auth: s.member.auth }), 403, 'banned');

    const bans = await call(srv.url, 'GET', `/servers/${s.server.id}/bans`, { auth: s.owner.auth });
    expect(bans.status).toBe(200);
    expect(bans.body).toHaveLength(1);
    expect(bans.body[0]).toMatchObject({ user: { id: s.member.id }, reason: 'spam' });
    expect(bans.body[0].createdAt).toMatch(ISO_UTC);

    expectError(
      await call(srv.url, 'PUT', `/servers/${s.server.id}/bans/${s.owner.id}`, { auth: s.owner.auth, body: {} }),
      400,
      'cannot_ban_owner',
    );

    expect((await call(srv.url, 'DELETE', `/servers/${s.server.id}/bans/${s.member.id}`, { auth: s.owner.auth })).status).toBe(204);
    expect((await call(srv.url, 'GET', `/servers/${s.server.id}/bans`, { auth: s.owner.auth })).body).toEqual([]);
    expect((await call(srv.url, 'POST', `/invites/${inv.code}`, { auth: s.member.auth })).status).toBe(200);
    expect(await memberIds(s.owner.auth, s.server.id)).toContain(s.member.id);
  });

  it('a plain member cannot ban or list bans', async () => {
    const s = await setup();
    const other = await registerUser(srv.url);
    await joinServer(srv.url, s.owner, other, s.server.id);
    expectError(await call(srv.url, 'PUT', `/servers/${s.server.id}/bans/${other.id}`, { auth: s.member.auth, body: {} }), 403);
    expectError(await call(srv.url, 'GET', `/servers/${s.server.id}/bans`, { auth: s.member.auth }), 403);
    expect(await memberIds(s.owner.auth, s.server.id)).toContain(other.id);
  });

  it("deleteMessageSeconds deletes the banned user's recent messages only", async () => {
    const s = await setup();
    await postMessage(srv.url, s.owner.auth, s.general.id, 'from owner');
    await postMessage(srv.url, s.member.auth, s.general.id, 'spam 1');
    await postMessage(srv.url, s.member.auth, s.general.id, 'spam 2');
    const r = await call(srv.url, 'PUT', `/servers/${s.server.id}/bans/${s.member.id}`, {
      auth: s.owner.auth,
      body: { deleteMessageSeconds: 3600 },
    });
    expect(r.status, r.text).toBe(204);
    expect((await history(srv.url, s.owner.auth, s.general.id)).map((m) => m.content)).toEqual(['from owner']);
  });

  it('a ban without deleteMessageSeconds keeps the messages', async () => {
    const s = await setup();
    await postMessage(srv.url, s.member.auth, s.general.id, 'keep me');
    expect((await call(srv.url, 'PUT', `/servers/${s.server.id}/bans/${s.member.id}`, { auth: s.owner.auth, body: {} })).status).toBe(204);
    expect((await history(srv.url, s.owner.auth, s.general.id)).map((m) => m.content)).toEqual(['keep me']);
  });
});

describe('invites', () => {
  it('maxUses 1: the second join is 404', async () => {
    const s = await setup();
    const inv = await invite(s.owner, s.server.id, { maxUses: 1 });
    expect(inv.maxUses).toBe(1);
    const [a, b] = [await registerUser(srv.url), await registerUser(srv.url)];
    expect((await call(srv.url, 'POST', `/invites/${inv.code}`, { auth: a.auth })).status).toBe(200);
    expectError(await call(srv.url, 'POST', `/invites/${inv.code}`, { auth: b.auth }), 404);
    expect(await memberIds(s.owner.auth, s.server.id)).not.toContain(b.id);
  });

  it('expiresAt is createdAt + maxAge; maxAge 0 never expires; the default is 7 days', async () => {
    const s = await setup();
    const hour = await invite(s.owner, s.server.id, { maxAge: 3600 });
    expect(hour.maxAge).toBe(3600);
    expect(hour.createdAt).toMatch(ISO_UTC);
    expect(Date.parse(hour.expiresAt!) - Date.parse(hour.createdAt)).toBe(3600 * 1000);
    const never = await invite(s.owner, s.server.id, { maxAge: 0 });
    expect(never.expiresAt).toBeNull();
    expect(never.maxAge).toBe(0);
    const dflt = await invite(s.owner, s.server.id);
    expect(dflt.maxAge).toBe(604800);
    expect(Date.parse(dflt.expiresAt!) - Date.parse(dflt.createdAt)).toBe(604800 * 1000);
  });

  it('GET /invites/{code} without auth previews the server', async () => {
    const s = await setup();
    const inv = await invite(s.owner, s.server.id, { maxAge: 0 });
    const r = await call(srv.url, 'GET', `/invites/${inv.code}`);
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({
      code: inv.code,
      server: { id: s.server.id, name: s.server.name, icon: null, memberCount: 2 },
      expiresAt: null,
    });
    expectError(await call(srv.url, 'GET', '/invites/nosuchcodeatall0'), 404);
  });

  it('DELETE /invites/{code}: its inviter (a plain member) 204, another plain member 403', async () => {
    const s = await setup();
    const other = await registerUser(srv.url);
    await joinServer(srv.url, s.owner, other, s.server.id);
    const mine = await invite(s.member, s.server.id);
    expect(mine.inviterId).toBe(s.member.id);
    expectError(await call(srv.url, 'DELETE', `/invites/${mine.code}`, { auth: other.auth }), 403);
    expect((await call(srv.url, 'GET', `/invites/${mine.code}`)).status).toBe(200);
    expect((await call(srv.url, 'DELETE', `/invites/${mine.code}`, { auth: s.member.auth })).status).toBe(204);
    expectError(await call(srv.url, 'GET', `/invites/${mine.code}`), 404);
  });
});

describe('server settings', () => {
  it('MANAGE_SERVER edits name and description; ownerId is the owner’s alone', async () => {
    const s = await setup();
    const { user: manager } = await memberWith(s.owner, s.server.id, P.MANAGE_SERVER, 'managers');
    const r = await call(srv.url, 'PATCH', `/servers/${s.server.id}`, {
      auth: manager.auth,
      body: { name: 'New name', description: 'About us' },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ id: s.server.id, name: 'New name', description: 'About us', ownerId: s.owner.id });
    expectError(await call(srv.url, 'PATCH', `/servers/${s.server.id}`, { auth: s.member.auth, body: { name: 'no' } }), 403);
    expectError(
      await call(srv.url, 'PATCH', `/servers/${s.server.id}`, { auth: manager.auth, body: { ownerId: manager.id } }),
      403,
      'owner_only',
    );
    expect((await call(srv.url, 'GET', `/servers/${s.server.id}`, { auth: s.member.auth })).body).toMatchObject({
      name: 'New name',
      ownerId: s.owner.id,
    });
  });

  it('transfer to a member: the old owner loses ownership; to a non-member 400; DELETE by the owner then 404', async () => {
    const s = await setup();
    const stranger = await registerUser(srv.url);
    expectError(
      await call(srv.url, 'PATCH', `/servers/${s.server.id}`, { auth: s.owner.auth, body: { ownerId: stranger.id } }),
      400,
      'invalid_owner',
    );
    const t = await call(srv.url, 'PATCH', `/servers/${s.server.id}`, { auth: s.owner.auth, body: { ownerId: s.member.id } });
    expect(t.status, t.text).toBe(200);
    expect(t.body.ownerId).toBe(s.member.id);
    expect(await memberIds(s.member.auth, s.server.id)).toContain(s.owner.id);
    expectError(await call(srv.url, 'DELETE', `/servers/${s.server.id}`, { auth: s.owner.auth }), 403);
    expectError(await call(srv.url, 'PATCH', `/servers/${s.server.id}`, { auth: s.owner.auth, body: { name: 'mine' } }), 403);
    // The old owner may now leave; the new one may not.
    expectError(await call(srv.url, 'DELETE', `/servers/${s.server.id}/members/@me`, { auth: s.member.auth }), 400, 'owner_cannot_leave');

    expect((await call(srv.url, 'DELETE', `/servers/${s.server.id}`, { auth: s.member.auth })).status).toBe(204);
    expectError(await call(srv.url, 'GET', `/servers/${s.server.id}`, { auth: s.member.auth }), 404);
  });
});

describe('audit log', () => {
  it('records a role create with the X-Audit-Log-Reason; filters by action and actorId', async () => {
    const s = await setup();
    const made = await call(srv.url, 'POST', `/servers/${s.server.id}/roles`, {
      auth: s.owner.auth,
      body: { name: 'audited' },
      headers: { 'X-Audit-Log-Reason': 'because%20tests' },
    });
    expect(made.status, made.text).toBe(201);
    const log = await call(srv.url, 'GET', `/servers/${s.server.id}/audit-log?action=role_create`, { auth: s.owner.auth });
    expect(log.status, log.text).toBe(200);
    expect(log.body).toHaveLength(1);
    expect(log.body[0]).toMatchObject({ action: 'role_create', actorId: s.owner.id, targetId: made.body.id, reason: 'because tests' });
    expect(log.body[0].createdAt).toMatch(ISO_UTC);

    const { user: banner } = await memberWith(s.owner, s.server.id, P.BAN_MEMBERS | P.VIEW_AUDIT_LOG, 'banners');
    expect(
      (await call(srv.url, 'PUT', `/servers/${s.server.id}/bans/${s.member.id}`, { auth: banner.auth, body: { reason: 'r' } })).status,
    ).toBe(204);

    const bans = await call(srv.url, 'GET', `/servers/${s.server.id}/audit-log?action=member_ban`, { auth: banner.auth });
    expect(bans.status, bans.text).toBe(200);
    expect(bans.body).toHaveLength(1);
    expect(bans.body[0]).toMatchObject({ action: 'member_ban', actorId: banner.id, targetId: s.member.id, reason: 'r' });

    const all = await call(srv.url, 'GET', `/servers/${s.server.id}/audit-log`, { auth: s.owner.auth });
    expect(new Set(all.body.map((e: { actorId: string }) => e.actorId))).toEqual(new Set([s.owner.id, banner.id]));
    const byOwner = await call(srv.url, 'GET', `/servers/${s.server.id}/audit-log?actorId=${s.owner.id}`, { auth: s.owner.auth });
    expect(byOwner.status).toBe(200);
    expect(byOwner.body.length).toBeGreaterThan(1);
    expect(byOwner.body.every((e: { actorId: string }) => e.actorId === s.owner.id)).toBe(true);
    expect(byOwner.body.map((e: { action: string }) => e.action)).toContain('role_create');
    const byBanner = await call(srv.url, 'GET', `/servers/${s.server.id}/audit-log?actorId=${banner.id}`, { auth: s.owner.auth });
    expect(byBanner.body.map((e: { action: string }) => e.action)).toEqual(['member_ban']);
  });

  it('403 without VIEW_AUDIT_LOG; limit=0 is 400', async () => {
    const s = await setup();
    const { user: mod } = await memberWith(s.owner, s.server.id, P.MANAGE_ROLES, 'mods');
    expectError(await call(srv.url, 'GET', `/servers/${s.server.id}/audit-log`, { auth: s.member.auth }), 403);
    expectError(await call(srv.url, 'GET', `/servers/${s.server.id}/audit-log`, { auth: mod.auth }), 403);
    expectError(await call(srv.url, 'GET', `/servers/${s.server.id}/audit-log?limit=0`, { auth: s.owner.auth }), 400);
    expectError(await call(srv.url, 'GET', `/servers/${s.server.id}/audit-log?limit=101`, { auth: s.owner.auth }), 400);
  });

  // Query values are strings: `limit` is parsed by the route, not coerced by the validator.
  it('a valid limit (1) is 200 with at most that many entries', async () => {
    const s = await setup();
    await makeRole(s.owner, s.server.id, 'one');
    await makeRole(s.owner, s.server.id, 'two');
    const one = await call(srv.url, 'GET', `/servers/${s.server.id}/audit-log?limit=1`, { auth: s.owner.auth });
    expect(one.status, one.text).toBe(200);
    expect(one.body).toHaveLength(1);
    expect(one.body[0].action).toBe('role_create');
  });
});
