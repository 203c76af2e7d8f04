/**
 * Per-server nicknames over the native API (issue 36 item 6): `PATCH /servers/{id}/members/{userId}`
 * with `nick`, cleaned as display names are (at most 32 characters; null or "" clears it);
 * one's own with CHANGE_NICKNAME (in `@everyone` by default), anyone else's with
 * MANAGE_NICKNAMES below the caller's highest role. The member object and MEMBER_UPDATE carry
 * `nick`; the change is in the audit log (docs/api.md, "Members"; docs/permissions.md).
 */
import { DEFAULT_EVERYONE_PERMISSIONS, P } from '@parley/protocol';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type TestUser, call, createServer, joinServer, registerUser } from '../factories.js';
import { ClientPool } from '../gateway/client.js';
import { type TestServer, startServer } from '../harness.js';
import { expectError } from './assert.js';

let srv: TestServer;
const pool = new ClientPool();

beforeAll(async () => {
  srv = await startServer({ env: { RATE_LIMITS: 'off' } });
});
afterEach(() => pool.closeAll());
afterAll(() => srv?.close());

async function setup() {
  const owner = await registerUser(srv.url);
  const { server } = await createServer(srv.url, owner);
  const member = await registerUser(srv.url);
  const other = await registerUser(srv.url);
  await joinServer(srv.url, owner, member, server.id);
  await joinServer(srv.url, owner, other, server.id);
  return { owner, server, member, other };
}

const patch = (who: TestUser, serverId: string, userId: string, body: unknown) =>
  call(srv.url, 'PATCH', `/servers/${serverId}/members/${userId}`, { auth: who.auth, body });

async function nickOf(who: TestUser, serverId: string, userId: string) {
  const r = await call(srv.url, 'GET', `/servers/${serverId}/members`, { auth: who.auth });
  expect(r.status, r.text).toBe(200);
  return (r.body as Array<{ id: string; nick?: string | null }>).find((m) => m.id === userId)?.nick;
}

describe('PATCH /servers/{id}/members/{userId}: nick', () => {
  it('a member sets, cleans and clears their own (@me); @everyone holds CHANGE_NICKNAME', async () => {
    const s = await setup();
    expect(DEFAULT_EVERYONE_PERMISSIONS & P.CHANGE_NICKNAME).toBe(P.CHANGE_NICKNAME);
    const r = await patch(s.member, s.server.id, '@me', { nick: '  Captain\u202E Nick  ' });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ id: s.member.id, nick: 'Captain Nick', roles: [] });
    expect(await nickOf(s.other, s.server.id, s.member.id)).toBe('Captain Nick');
    // By id as well as @me; 32 characters is the most.
    const max = 'n'.repeat(32);
    expect((await patch(s.member, s.server.id, s.member.id, { nick: max })).body.nick).toBe(max);
    expectError(await patch(s.member, s.server.id, '@me', { nick: 'n'.repeat(33) }), 400, 'invalid_body');
    expectError(await patch(s.member, s.server.id, '@me', { nick: 'a\u0000b' }), 400, 'invalid_body');
    expect(await nickOf(s.owner, s.server.id, s.member.id)).toBe(max);
    // "" and invisible-only clear it, as null does.
    expect((await patch(s.member, s.server.id, '@me', { nick: '' })).body.nick).toBeNull();
    await patch(s.member, s.server.id, '@me', { nick: 'x' });
    expect((await patch(s.member, s.server.id, '@me', { nick: '\u200B ' })).body.nick).toBeNull();
    await patch(s.member, s.server.id, '@me', { nick: 'x' });
    expect((await patch(s.member, s.server.id, '@me', { nick: null })).body.nick).toBeNull();
    expect(await nickOf(s.owner, s.server.id, s.member.id)).toBeNull();
    // The body is just `nick`.
    expectError(await patch(s.member, s.server.id, '@me', { nick: 'a', roles: [] }), 400);
    expectError(await patch(s.member, s.server.id, '@me', {}), 400);
  });

  it("someone else's needs MANAGE_NICKNAMES and a higher role; without CHANGE_NICKNAME one's own is refused", async () => {
    const s = await setup();
    expectError(await patch(s.member, s.server.id, s.other.id, { nick: 'Renamed' }), 403, 'missing_permission');
    expectError(await patch(s.member, s.server.id, s.owner.id, { nick: 'Renamed' }), 403, 'missing_permission');
    // The owner renames anyone.
    const byOwner = await patch(s.owner, s.server.id, s.other.id, { nick: 'By owner' });
    expect(byOwner.status, byOwner.text).toBe(200);
    expect(byOwner.body.nick).toBe('By owner');

    // A moderator with MANAGE_NICKNAMES: below them yes, at their level or above (and the owner) no.
    const modRole = await call(srv.url, 'POST', `/servers/${s.server.id}/roles`, {
      auth: s.owner.auth,
      body: { name: 'mods', permissions: P.MANAGE_NICKNAMES.toString() },
    });
    expect(modRole.status, modRole.text).toBe(201);
    await call(srv.url, 'PUT', `/servers/${s.server.id}/members/${s.member.id}/roles/${modRole.body.id}`, { auth: s.owner.auth });
    expect((await patch(s.member, s.server.id, s.other.id, { nick: 'By mod' })).body.nick).toBe('By mod');
    expectError(await patch(s.member, s.server.id, s.owner.id, { nick: 'Nope' }), 403, 'role_hierarchy');
    await call(srv.url, 'PUT', `/servers/${s.server.id}/members/${s.other.id}/roles/${modRole.body.id}`, { auth: s.owner.auth });
    expectError(await patch(s.member, s.server.id, s.other.id, { nick: 'Nope' }), 403, 'role_hierarchy');
    expect(await nickOf(s.owner, s.server.id, s.other.id)).toBe('By mod');
    expect(await nickOf(s.owner, s.server.id, s.owner.id)).toBeNull();

    // @everyone without CHANGE_NICKNAME: one's own is refused.
    const without = (DEFAULT_EVERYONE_PERMISSIONS & ~P.CHANGE_NICKNAME).toString();
    const e = await call(srv.url, 'PATCH', `/servers/${s.server.id}/roles/${s.server.id}`, {
      auth: s.owner.auth,
      body: { permissions: without },
    });
    expect(e.status, e.text).toBe(200);
    expectError(await patch(s.other, s.server.id, '@me', { nick: 'Self' }), 403, 'missing_permission');

    // A stranger is no member; an unknown member is 404.
    const stranger = await registerUser(srv.url);
    expectError(await patch(stranger, s.server.id, s.other.id, { nick: 'x' }), 403, 'not_a_member');
    expectError(await patch(s.owner, s.server.id, '1234567890123456789', { nick: 'x' }), 404, 'unknown_member');

    const log = await call(srv.url, 'GET', `/servers/${s.server.id}/audit-log?action=member_nick`, { auth: s.owner.auth });
    expect(log.status, log.text).toBe(200);
    expect(log.body[0]).toMatchObject({
      actorId: s.member.id,
      targetId: s.other.id,
      changes: { nick: { old: 'By owner', new: 'By mod' } },
    });
  });

  it('members hear MEMBER_UPDATE with nick (and roles); a non-member does not; an unchanged nick sends nothing', async () => {
    const s = await setup();
    const outsider = await registerUser(srv.url);
    const elsewhere = await createServer(srv.url, outsider, 'Elsewhere');
    const [watcher, away] = await Promise.all([pool.identify(srv.gatewayUrl, s.other.auth), pool.identify(srv.gatewayUrl, outsider.auth)]);
    await patch(s.member, s.server.id, '@me', { nick: 'Heard' });
    const ev = await watcher.waitForEvent('MEMBER_UPDATE', (d) => d.user.id === s.member.id);
    expect(ev.d).toEqual(expect.objectContaining({ serverId: s.server.id, nick: 'Heard', roles: [] }));
    // Same nick again: no event. Then a marker change, whose event is the next one.
    await patch(s.member, s.server.id, '@me', { nick: 'Heard' });
    await patch(s.owner, s.server.id, '@me', { nick: 'Marker' });
    await watcher.waitForEvent('MEMBER_UPDATE', (d) => d.user.id === s.owner.id);
    expect(watcher.events('MEMBER_UPDATE').filter((f) => (f.d as { user: { id: string } }).user.id === s.member.id)).toHaveLength(1);
    // The outsider heard none of it: their own server's change reaches them, and only that.
    await patch(outsider, elsewhere.server.id, '@me', { nick: 'Away' });
    await away.waitForEvent('MEMBER_UPDATE', (d) => d.user.id === outsider.id);
    expect(away.events('MEMBER_UPDATE').map((f) => (f.d as { serverId: string }).serverId)).toEqual([elsewhere.server.id]);
  });
});
