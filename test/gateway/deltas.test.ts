// Log entries that change one role carry that role (a delta), not the server's whole
// permission model: in a server with thousands of bots (a managed role each) an entry per
// bot join carrying every role made the log grow with the square of the bots. Changes are
// made through the real REST API; what the log holds is read from the service's own log.
import { P } from '@parley/protocol';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ModelDelta, ServerModel } from '../../src/domain/permissions.js';
import type { BusEntry } from '../../src/events/types.js';
import { addBot, call, createBot, createServer, joinServer, registerUser } from '../factories.js';
import { startServer, type TestServer } from '../harness.js';
import { ClientPool } from './client.js';

let srv: TestServer;
const pool = new ClientPool();

beforeAll(async () => {
  srv = await startServer({ env: { GATEWAY_HEARTBEAT_MS: '2000', RATE_LIMITS: 'off' } });
});
afterEach(() => pool.closeAll());
afterAll(() => srv?.close());

const ROLES = 200;

async function createRole(auth: string, serverId: string, body: object = {}): Promise<string> {
  const r = await call(srv.url, 'POST', `/servers/${serverId}/roles`, { auth, body });
  expect(r.status, r.text).toBe(201);
  return r.body.id;
}

/** The log's entries of `serverId` from `pos` on. */
async function entriesAfter(pos: string, serverId: string): Promise<Array<Extract<BusEntry, { kind: 'event' }>>> {
  const all = await srv.app.ctx.bus.readAfter(pos);
  if (!all) throw new Error('the log no longer holds that position');
  return all.map(([, e]) => e).filter((e): e is Extract<BusEntry, { kind: 'event' }> => e.kind === 'event' && e.serverId === serverId);
}

describe('in a server with many roles', () => {
  it('role create, update and delete, and a bot joining, log that one role and not every role; members still see what the change allows; people joining share the roles', async () => {
    const owner = await registerUser(srv.url);
    const member = await registerUser(srv.url);
    const { server, general } = await createServer(srv.url, owner);
    await joinServer(srv.url, owner, member, server.id);
    for (let i = 0; i < ROLES; i++) await createRole(owner.auth, server.id, { name: `r${i}` });
    const m = await pool.identify(srv.gatewayUrl, member.auth);
    const from = srv.app.ctx.bus.position();

    // @everyone losing VIEW_CHANNEL hides general from the member at once; regaining it shows it again.
    const everyone = server.id;
    const base = (await call(srv.url, 'GET', `/servers/${server.id}/roles`, { auth: owner.auth })).body.find((r: any) => r.id === everyone);
    const without = (BigInt(base.permissions) & ~P.VIEW_CHANNEL).toString();
    let r = await call(srv.url, 'PATCH', `/servers/${server.id}/roles/${everyone}`, { auth: owner.auth, body: { permissions: without } });
    expect(r.status, r.text).toBe(200);
    await m.waitForEvent('CHANNEL_DELETE', (d) => d.id === general.id);
    r = await call(srv.url, 'PATCH', `/servers/${server.id}/roles/${everyone}`, {
      auth: owner.auth,
      body: { permissions: base.permissions },
    });
    expect(r.status, r.text).toBe(200);
    await m.waitForEvent('CHANNEL_CREATE', (d) => d.id === general.id);

    const role = await createRole(owner.auth, server.id, { name: 'one more' });
    r = await call(srv.url, 'PATCH', `/servers/${server.id}/roles/${role}`, { auth: owner.auth, body: { name: 'renamed' } });
    expect(r.status, r.text).toBe(200);
    r = await call(srv.url, 'DELETE', `/servers/${server.id}/roles/${role}`, { auth: owner.auth });
    expect(r.status, r.text).toBe(204);
    const bot = await createBot(srv.url, owner);
    await addBot(srv.url, owner, server.id, bot.id, ['READ_MESSAGES']);
    await m.waitForEvent('MEMBER_ADD', (d) => d.user.id === bot.id);

    const entries = await entriesAfter(from, server.id);
    const roleEntries = entries.filter((e) => e.event.t.startsWith('ROLE_'));
    expect(roleEntries.map((e) => e.event.t)).toEqual([
      'ROLE_UPDATE',
      'ROLE_UPDATE',
      'ROLE_CREATE',
      'ROLE_UPDATE',
      'ROLE_DELETE',
      'ROLE_CREATE',
    ]);
    for (const e of roleEntries) {
      expect(e.model, e.event.t).toBeUndefined();
      expect(e.delta?.version, e.event.t).toBeGreaterThan(0);
      // Bounded by the one role: a whole model here is some 10 KB at 200 roles.
      expect(JSON.stringify(e).length, e.event.t).toBeLessThan(1000);
    }
    // The bot's MEMBER_ADD lists every role once, for Discord's GUILD_CREATE; its model does not repeat them.
    const join = entries.find((e) => e.event.t === 'MEMBER_ADD' && e.event.d.user.id === bot.id)!;
    expect(join.join?.roles.length).toBe(ROLES + 2); // and @everyone, and its own
    expect(join.model?.roles).toEqual([]);
    expect(join.model?.version).toBe(roleEntries.at(-1)!.delta!.version);

    // People joining carry the whole model for themselves; on the in-process log their entries share its roles.
    const at = srv.app.ctx.bus.position();
    const [p1, p2] = [await registerUser(srv.url), await registerUser(srv.url)];
    await joinServer(srv.url, owner, p1, server.id);
    await joinServer(srv.url, owner, p2, server.id);
    await m.waitForEvent('MEMBER_ADD', (d) => d.user.id === p2.id);
    const [a, b] = (await entriesAfter(at, server.id)).filter((e) => e.event.t === 'MEMBER_ADD');
    expect(a!.model!.roles.length).toBe(ROLES + 2);
    expect(a!.model!.roles).not.toBe(b!.model!.roles);
    for (let i = 0; i < a!.model!.roles.length; i++) expect(a!.model!.roles[i]).toBe(b!.model!.roles[i]);
  });

  it('concurrent bot joins share the unchanged roles of their role lists; a session follows them to the version the store holds, and resumes at it', async () => {
    const owner = await registerUser(srv.url);
    const member = await registerUser(srv.url);
    const { server } = await createServer(srv.url, owner);
    await joinServer(srv.url, owner, member, server.id);
    const m = await pool.identify(srv.gatewayUrl, member.auth);
    const from = srv.app.ctx.bus.position();
    const bots = await Promise.all(Array.from({ length: 16 }, () => createBot(srv.url, owner)));
    // Concurrent joins may reach the log out of the order of their versions.
    await Promise.all(bots.map((b) => addBot(srv.url, owner, server.id, b.id, ['READ_MESSAGES'])));
    await Promise.all(bots.map((b) => m.waitForEvent('MEMBER_ADD', (d) => d.user.id === b.id)));
    // Each join lists every role (for Discord's GUILD_CREATE); on the in-process log, the roles one join shares with the one before are the same objects.
    const joins = (await entriesAfter(from, server.id)).filter((e) => e.event.t === 'MEMBER_ADD').map((e) => e.join!.roles);
    for (const [i, roles] of joins.entries()) {
      if (i === 0) continue;
      const before = new Map(joins[i - 1]!.map((r) => [r.id, r]));
      for (const r of roles) if (before.has(r.id)) expect(r).toBe(before.get(r.id));
    }
    expect(joins.at(-1)!.length).toBe(17);
    const stored = await srv.app.ctx.store.servers.byId(srv.app.ctx.store.db, server.id);
    // Every version reached this session: its checkpoint, taken at the last heartbeat, names the store's.
    const s = m.events().length;
    m.heartbeat();
    await m.waitFor((f) => f.op === 'heartbeat_ack', 5000, m.frames.length);
    let cp = await srv.app.ctx.bus.loadCheckpoint(m.sessionId);
    const deadline = Date.now() + 5000;
    while (cp?.s !== s) {
      if (Date.now() > deadline) throw new Error(`no checkpoint at ${s}: ${JSON.stringify(cp)}`);
      await new Promise((r) => setImmediate(r)); // the save is not awaited by the heartbeat
      cp = await srv.app.ctx.bus.loadCheckpoint(m.sessionId);
    }
    expect(cp.servers.find(([id]) => id === server.id)?.[1]).toBe(Number(stored!.permVersion));
    await m.terminate();
    const again = await pool.resume(srv.gatewayUrl, member.auth, m.sessionId, s);
    expect(again.frames.at(-1)?.op).toBe('resumed');
  });
});

describe('overwrite edits and owner transfers', () => {
  it('log a delta, not the whole model, and sessions see what they change', async () => {
    const owner = await registerUser(srv.url);
    const member = await registerUser(srv.url);
    const { server, general } = await createServer(srv.url, owner);
    await joinServer(srv.url, owner, member, server.id);
    const m = await pool.identify(srv.gatewayUrl, member.auth);
    const from = srv.app.ctx.bus.position();
    const hide = { type: 'member', allow: '0', deny: P.VIEW_CHANNEL.toString() };
    let r = await call(srv.url, 'PUT', `/channels/${general.id}/permissions/${member.id}`, { auth: owner.auth, body: hide });
    expect(r.status, r.text).toBe(204);
    await m.waitForEvent('CHANNEL_DELETE', (d) => d.id === general.id);
    r = await call(srv.url, 'DELETE', `/channels/${general.id}/permissions/${member.id}`, { auth: owner.auth });
    expect(r.status, r.text).toBe(204);
    await m.waitForEvent('CHANNEL_CREATE', (d) => d.id === general.id);
    // A channel made with its overwrites, then edited with a new list (the Discord layer's way).
    r = await call(srv.url, 'POST', `/api/v10/guilds/${server.id}/channels`, {
      auth: owner.auth,
      body: { name: 'hidden', permission_overwrites: [{ id: member.id, type: 1, allow: '0', deny: hide.deny }] },
    });
    expect(r.status, r.text).toBe(201);
    const hidden = r.body.id;
    r = await call(srv.url, 'PATCH', `/servers/${server.id}`, { auth: owner.auth, body: { ownerId: member.id } });
    expect(r.status, r.text).toBe(200);
    // The new owner sees everything: the hidden channel too.
    await m.waitForEvent('CHANNEL_CREATE', (d) => d.id === hidden);
    const logged = (await entriesAfter(from, server.id)).filter((e) => e.event.t !== 'MEMBER_ADD');
    expect(logged.map((e) => e.event.t)).toEqual(['CHANNEL_UPDATE', 'CHANNEL_UPDATE', 'CHANNEL_CREATE', 'SERVER_UPDATE']);
    for (const e of logged) expect(e.model, e.event.t).toBeUndefined();
    expect(logged.map((e) => e.delta?.overwrites ?? e.delta?.owner)).toEqual([
      [general.id, [[member.id, 'member', '0', hide.deny]]],
      [general.id, []],
      [hidden, [[member.id, 'member', '0', hide.deny]]],
      member.id,
    ]);
    const versions = logged.map((e) => e.delta!.version);
    expect(versions).toEqual([...versions].sort((a, b) => a - b));
    expect(new Set(versions).size).toBe(4);
  });
});

describe('deltas reaching the log out of the order of their versions', () => {
  it('leave each role as the latest version made it, and the session at the latest version once it has every one', async () => {
    const owner = await registerUser(srv.url);
    const member = await registerUser(srv.url);
    const { server, general } = await createServer(srv.url, owner);
    await joinServer(srv.url, owner, member, server.id);
    const m = await pool.identify(srv.gatewayUrl, member.auth);
    const ctx = srv.app.ctx;
    const v = Number((await ctx.store.servers.byId(ctx.store.db, server.id))!.permVersion);
    const everyone = (await call(srv.url, 'GET', `/servers/${server.id}/roles`, { auth: owner.auth })).body.find(
      (r: any) => r.id === server.id,
    );
    const role = (permissions: bigint) => ({ ...everyone, permissions: permissions.toString() });
    const entry = (version: number, permissions: bigint): BusEntry => ({
      kind: 'event',
      serverId: server.id,
      event: { t: 'ROLE_UPDATE', d: { serverId: server.id, role: role(permissions) } },
      delta: { version, role: [server.id, permissions.toString(), 0] },
    });
    const withView = BigInt(everyone.permissions);
    // Two requests published after their commits in the other order: v+2 (no VIEW_CHANNEL) first.
    await ctx.bus.publish(entry(v + 2, withView & ~P.VIEW_CHANNEL));
    await ctx.bus.publish(entry(v + 1, withView));
    await m.waitForEvent('CHANNEL_DELETE', (d) => d.id === general.id);
    const name = `sync-${Math.random().toString(36).slice(2, 8)}`;
    expect((await call(srv.url, 'PATCH', `/servers/${server.id}`, { auth: owner.auth, body: { name } })).status).toBe(200);
    await m.waitForEvent('SERVER_UPDATE', (d) => d.name === name);
    // The late v+1 did not bring VIEW_CHANNEL back: v+2 had changed that role since.
    expect(m.events('CHANNEL_CREATE')).toEqual([]);
    expect(m.events().map((f) => f.t)).toEqual(['ROLE_UPDATE', 'CHANNEL_DELETE', 'ROLE_UPDATE', 'SERVER_UPDATE']);
    // With v+1 in, the view holds every version to v+2: that is what its checkpoint names.
    const s = m.events().length;
    m.heartbeat();
    let cp = await ctx.bus.loadCheckpoint(m.sessionId);
    const deadline = Date.now() + 5000;
    while (cp?.s !== s) {
      if (Date.now() > deadline) throw new Error(`no checkpoint at ${s}: ${JSON.stringify(cp)}`);
      await new Promise((r) => setImmediate(r)); // the save is not awaited by the heartbeat
      cp = await ctx.bus.loadCheckpoint(m.sessionId);
    }
    expect(cp.servers.find(([id]) => id === server.id)?.[1]).toBe(v + 2);
  });
});

describe('a permission version that never reaches the log', () => {
  it("makes the server's sessions identify again after a wait, from the store; sessions of other servers are left alone", async () => {
    const owner = await registerUser(srv.url);
    const member = await registerUser(srv.url);
    const elsewhere = await registerUser(srv.url);
    const { server, general } = await createServer(srv.url, owner);
    await joinServer(srv.url, owner, member, server.id);
    await createServer(srv.url, elsewhere, 'Elsewhere');
    const m = await pool.identify(srv.gatewayUrl, member.auth);
    const e = await pool.identify(srv.gatewayUrl, elsewhere.auth);
    const ctx = srv.app.ctx;
    const v = Number((await ctx.store.servers.byId(ctx.store.db, server.id))!.permVersion);
    const everyone = (await call(srv.url, 'GET', `/servers/${server.id}/roles`, { auth: owner.auth })).body.find(
      (r: any) => r.id === server.id,
    );
    // v+2 arrives and v+1 never does (its writer died between commit and publish).
    const hidden = BigInt(everyone.permissions) & ~P.VIEW_CHANNEL;
    await ctx.bus.publish({
      kind: 'event',
      serverId: server.id,
      event: { t: 'ROLE_UPDATE', d: { serverId: server.id, role: { ...everyone, permissions: hidden.toString() } } },
      delta: { version: v + 2, role: [server.id, hidden.toString(), 0] },
    });
    await m.waitForEvent('CHANNEL_DELETE', (d) => d.id === general.id);
    // The view waits (2 heartbeat intervals here, at most 10 s), then the session starts over.
    const started = Date.now();
    const invalid = await m.waitFor((f) => f.op === 'invalid_session', 10_000);
    expect(invalid.d).toEqual({ resumable: false });
    expect(Date.now() - started).toBeGreaterThan(1000);
    // Identifying again gives the store's view, which never had v+2: general is there.
    const from = m.frames.length;
    m.send({ op: 'identify', d: { token: member.auth } });
    const ready = await m.waitFor((f) => f.op === 'ready', 5000, from);
    expect(ready.d.servers.find((x: any) => x.id === server.id).channels.map((c: any) => c.id)).toContain(general.id);
    expect(e.frames.some((f) => f.op === 'invalid_session')).toBe(false);
  });
});

describe('ServerModel.withDelta', () => {
  const model = () =>
    new ServerModel(
      '1',
      '9',
      4,
      [{ id: '1', permissions: P.VIEW_CHANNEL, position: 0 }],
      [['c', { id: '1', type: 'role', allow: 0n, deny: 0n }]],
    );
  const v5 = { version: 5, role: ['50', String(P.SEND_MESSAGES), 1] as [string, string, number] };
  const v6 = { version: 6, role: ['50', String(P.ADD_REACTIONS), 1] as [string, string, number] };
  const v7 = { version: 7, gone: ['1'] };

  it('applies deltas in version order whatever order they come in, and moves the version only past ones it has', () => {
    const ahead = model().withDelta(v6);
    expect(ahead.version).toBe(4);
    expect([...ahead.ahead.keys()]).toEqual([6]);
    expect(ahead.roles.get('50')?.permissions).toBe(P.ADD_REACTIONS);
    // The late v5 changed the same role as v6: v6's stands.
    const caught = ahead.withDelta(v5);
    expect(caught.version).toBe(6);
    expect(caught.ahead.size).toBe(0);
    expect(caught.roles.get('50')?.permissions).toBe(P.ADD_REACTIONS);
    const inOrder = model().withDelta(v5).withDelta(v6);
    expect(inOrder.roles.get('50')?.permissions).toBe(P.ADD_REACTIONS);
    // Held versions change nothing again.
    expect(caught.withDelta(v5)).toBe(caught);
    // Gone: the role and the overwrites naming it.
    const gone = caught.withDelta(v7);
    expect(gone.roles.has('1')).toBe(false);
    expect(gone.overwrites.get('c') ?? []).toEqual([]);
  });

  it("replaces a channel's whole overwrite list and moves the owner, leaving what a later delta already changed", () => {
    const hide = { version: 5, overwrites: ['c', [['1', 'role', '0', String(P.VIEW_CHANNEL)]]] as NonNullable<ModelDelta['overwrites']> };
    const member = {
      version: 6,
      overwrites: ['c', [['77', 'member', String(P.VIEW_CHANNEL), '0']]] as NonNullable<ModelDelta['overwrites']>,
    };
    const hidden = model().withDelta(hide);
    expect(hidden.overwrites.get('c')).toEqual([{ id: '1', type: 'role', allow: 0n, deny: P.VIEW_CHANNEL }]);
    expect(hidden.permissions('5', false, [], 'c')).toBe(0n);
    // The channel's list as a whole: the @everyone overwrite is gone, the member's is there.
    const both = hidden.withDelta(member);
    expect(both.overwrites.get('c')).toEqual([{ id: '77', type: 'member', allow: P.VIEW_CHANNEL, deny: 0n }]);
    // The late v5 set the same channel's list as v6: v6's stands.
    const late = model().withDelta(member).withDelta(hide);
    expect(late.version).toBe(6);
    expect(late.overwrites.get('c')).toEqual(both.overwrites.get('c'));
    // A member gone at v7 takes their overwrite, unless a later delta set that channel's list again.
    const gone = { version: 7, gone: ['77'] };
    expect(both.withDelta(gone).overwrites.get('c') ?? []).toEqual([]);
    const again = { version: 8, overwrites: ['c', [['77', 'member', '0', '0']]] as NonNullable<ModelDelta['overwrites']> };
    expect(both.withDelta(again).withDelta(gone).overwrites.get('c')).toEqual([{ id: '77', type: 'member', allow: 0n, deny: 0n }]);
    // A new owner holds every permission; a late older owner change does not undo a later one.
    const owned = model().withDelta({ version: 5, owner: '77' });
    expect(owned.ownerId).toBe('77');
    expect(owned.highest('77', [])).toBe(Number.POSITIVE_INFINITY);
    expect(model().withDelta({ version: 6, owner: '78' }).withDelta({ version: 5, owner: '77' }).ownerId).toBe('78');
  });
});
