/**
 * The role hierarchy (issue 35 item 4; docs/permissions.md "Role hierarchy"), table-driven
 * over actor rank × target rank × action, on the native API and on the Discord layer under
 * `/api`, which call the same domain functions.
 *
 * Each row runs in a fresh server laid out by the owner, bottom to top:
 *   @everyone (0) · Admin (1, ADMINISTRATOR) · Low (2) · Mod (3, the actor's) · High (4)
 * Admin is made last, so it lands at position 1 below Mod: issue 35's reproduction. Members:
 * `actor` (Mod), `below` (Low), `equal` (Mod), `above` (High), `plain` (no role).
 *
 * Every row checks both the answer and the state after it, so a row that expects a refusal
 * fails if the action happens, and one that expects success fails if it is refused.
 */
import { P } from '@parley/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Res, type TestUser, call, createChannel, createServer, joinServer, registerUser } from '../factories.js';
import { type TestServer, startServer } from '../harness.js';
import { expectError } from './assert.js';

let srv: TestServer;
let owner: TestUser;
let actor: TestUser;
let below: TestUser;
let equal: TestUser;
let above: TestUser;
let plain: TestUser;

beforeAll(async () => {
  srv = await startServer({ env: { RATE_LIMITS: 'off' } });
  const users = await Promise.all(Array.from({ length: 6 }, () => registerUser(srv.url)));
  [owner, actor, below, equal, above, plain] = users as [TestUser, TestUser, TestUser, TestUser, TestUser, TestUser];
});
afterAll(() => srv?.close());

/** What the actor's role (Mod) holds beyond @everyone's. */
const MOD_BITS = P.MANAGE_ROLES | P.KICK_MEMBERS | P.BAN_MEMBERS | P.MANAGE_CHANNELS;
/** A bit Mod lacks. */
const LACKED = P.MANAGE_MESSAGES;

interface World {
  serverId: string;
  general: string;
  /** A channel whose overwrite allows Mod MANAGE_MESSAGES: the actor holds it there only. */
  granted: string;
  /** A channel whose overwrite denies Mod SEND_MESSAGES: the actor lacks it there only. */
  muted: string;
  role: { admin: string; low: string; mod: string; high: string };
}

async function ok(r: Res): Promise<Res> {
  expect(r.status, `${r.status} ${r.text}`).toBeLessThan(300);
  return r;
}

async function fresh(): Promise<World> {
  const { server, general } = await createServer(srv.url, owner);
  const serverId = server.id;
  for (const u of [actor, below, equal, above, plain]) await joinServer(srv.url, owner, u, serverId);
  const make = async (name: string, bits: bigint) =>
    (
      await ok(
        await call(srv.url, 'POST', `/servers/${serverId}/roles`, { auth: owner.auth, body: { name, permissions: bits.toString() } }),
      )
    ).body.id as string;
  // Each new role lands at position 1: made top first.
  const high = await make('High', MOD_BITS);
  const mod = await make('Mod', MOD_BITS);
  const low = await make('Low', 0n);
  const admin = await make('Admin', P.ADMINISTRATOR);
  const give = async (u: TestUser, roleId: string) =>
    ok(await call(srv.url, 'PUT', `/servers/${serverId}/members/${u.id}/roles/${roleId}`, { auth: owner.auth }));
  await give(actor, mod);
  await give(below, low);
  await give(equal, mod);
  await give(above, high);
  const granted = (await createChannel(srv.url, owner, serverId)).id as string;
  const muted = (await createChannel(srv.url, owner, serverId)).id as string;
  const overwrite = async (channelId: string, body: Record<string, unknown>) =>
    ok(await call(srv.url, 'PUT', `/channels/${channelId}/permissions/${mod}`, { auth: owner.auth, body: { type: 'role', ...body } }));
  await overwrite(granted, { allow: LACKED.toString() });
  await overwrite(muted, { deny: P.SEND_MESSAGES.toString() });
  return { serverId, general: general.id, granted, muted, role: { admin, low, mod, high } };
}

type Api = 'native' | 'discord';

/** The request for each action, on either API, made by the actor. */
const act = {
  assign: (api: Api, w: World, user: TestUser, roleId: string) =>
    call(srv.url, 'PUT', `${api === 'native' ? '/servers' : '/api/v10/guilds'}/${w.serverId}/members/${user.id}/roles/${roleId}`, {
      auth: actor.auth,
    }),
  remove: (api: Api, w: World, user: TestUser, roleId: string) =>
    call(srv.url, 'DELETE', `${api === 'native' ? '/servers' : '/api/v10/guilds'}/${w.serverId}/members/${user.id}/roles/${roleId}`, {
      auth: actor.auth,
    }),
  edit: (api: Api, w: World, roleId: string, body: Record<string, unknown>) =>
    call(srv.url, 'PATCH', `${api === 'native' ? '/servers' : '/api/v10/guilds'}/${w.serverId}/roles/${roleId}`, {
      auth: actor.auth,
      body,
    }),
  delete: (api: Api, w: World, roleId: string) =>
    call(srv.url, 'DELETE', `${api === 'native' ? '/servers' : '/api/v10/guilds'}/${w.serverId}/roles/${roleId}`, { auth: actor.auth }),
  create: (api: Api, w: World, bits: bigint) =>
    call(srv.url, 'POST', `${api === 'native' ? '/servers' : '/api/v10/guilds'}/${w.serverId}/roles`, {
      auth: actor.auth,
      body: { name: 'made by mod', permissions: bits.toString() },
    }),
  overwrite: (api: Api, channelId: string, roleId: string, allow: bigint) =>
    call(srv.url, 'PUT', `${api === 'native' ? '' : '/api/v10'}/channels/${channelId}/permissions/${roleId}`, {
      auth: actor.auth,
      body: { type: api === 'native' ? 'role' : 0, allow: allow.toString() },
    }),
  kick: (api: Api, w: World, user: TestUser) =>
    call(srv.url, 'DELETE', `${api === 'native' ? '/servers' : '/api/v10/guilds'}/${w.serverId}/members/${user.id}`, {
      auth: actor.auth,
    }),
  ban: (api: Api, w: World, user: TestUser) =>
    call(srv.url, 'PUT', `${api === 'native' ? '/servers' : '/api/v10/guilds'}/${w.serverId}/bans/${user.id}`, {
      auth: actor.auth,
      ...(api === 'native' ? { body: {} } : {}),
    }),
};

/** What the owner sees, to check that an action happened or did not. */
const look = {
  members: async (w: World): Promise<Array<{ user: { id: string }; roles: string[] }>> =>
    (await ok(await call(srv.url, 'GET', `/servers/${w.serverId}/members`, { auth: owner.auth }))).body,
  rolesOf: async (w: World, user: TestUser): Promise<string[]> => {
    const m = (await look.members(w)).find((x) => x.user.id === user.id);
    if (!m) throw new Error(`${user.id} is not a member`);
    return m.roles;
  },
  isMember: async (w: World, user: TestUser): Promise<boolean> => (await look.members(w)).some((x) => x.user.id === user.id),
  roles: async (w: World): Promise<Array<{ id: string; name: string; position: number; permissions: string }>> =>
    (await ok(await call(srv.url, 'GET', `/servers/${w.serverId}/roles`, { auth: owner.auth }))).body,
  role: async (w: World, id: string) => (await look.roles(w)).find((r) => r.id === id),
  overwriteOf: async (w: World, channelId: string, targetId: string) => {
    const channels = (await ok(await call(srv.url, 'GET', `/servers/${w.serverId}/channels`, { auth: owner.auth }))).body as Array<{
      id: string;
      permissionOverwrites: Array<{ id: string; allow: string }>;
    }>;
    return channels.find((c) => c.id === channelId)?.permissionOverwrites.find((o) => o.id === targetId);
  },
};

type Outcome = 'allowed' | 'refused';

interface Row {
  action: string;
  target: string;
  expect: Outcome;
  /** Native only: the Discord layer has no such route. */
  nativeOnly?: boolean;
  /** Runs the action as the actor (before: any extra setup by the owner). */
  run: (api: Api, w: World) => Promise<Res>;
  /** Whether the action's effect is there. */
  happened: (w: World) => Promise<boolean>;
}

const ROWS: Row[] = [
  // ---- giving a role: only below your highest; a role's bits you lack are not yours to give
  {
    action: 'assign role',
    target: 'Low (below) to a plain member',
    expect: 'allowed',
    run: (api, w) => act.assign(api, w, plain, w.role.low),
    happened: async (w) => (await look.rolesOf(w, plain)).includes(w.role.low),
  },
  {
    action: 'assign role',
    target: 'Mod (equal) to a plain member',
    expect: 'refused',
    run: (api, w) => act.assign(api, w, plain, w.role.mod),
    happened: async (w) => (await look.rolesOf(w, plain)).includes(w.role.mod),
  },
  {
    action: 'assign role',
    target: 'High (above) to a plain member',
    expect: 'refused',
    run: (api, w) => act.assign(api, w, plain, w.role.high),
    happened: async (w) => (await look.rolesOf(w, plain)).includes(w.role.high),
  },
  {
    action: 'assign role',
    target: 'Admin (below, ADMINISTRATOR) to themselves: issue 35 item 4',
    expect: 'refused',
    run: (api, w) => act.assign(api, w, actor, w.role.admin),
    happened: async (w) => (await look.rolesOf(w, actor)).includes(w.role.admin),
  },
  {
    action: 'assign role',
    target: 'Admin (below, ADMINISTRATOR) to a plain member',
    expect: 'refused',
    run: (api, w) => act.assign(api, w, plain, w.role.admin),
    happened: async (w) => (await look.rolesOf(w, plain)).includes(w.role.admin),
  },
  {
    action: 'assign role',
    target: 'Low (below) to a higher-ranked member (reaction roles)',
    expect: 'allowed',
    run: (api, w) => act.assign(api, w, above, w.role.low),
    happened: async (w) => (await look.rolesOf(w, above)).includes(w.role.low),
  },
  // ---- taking a role
  {
    action: 'remove role',
    target: 'Low (below) from a lower member',
    expect: 'allowed',
    run: (api, w) => act.remove(api, w, below, w.role.low),
    happened: async (w) => !(await look.rolesOf(w, below)).includes(w.role.low),
  },
  {
    action: 'remove role',
    target: 'Mod (equal) from an equal member',
    expect: 'refused',
    run: (api, w) => act.remove(api, w, equal, w.role.mod),
    happened: async (w) => !(await look.rolesOf(w, equal)).includes(w.role.mod),
  },
  {
    action: 'remove role',
    target: 'High (above) from a higher member',
    expect: 'refused',
    run: (api, w) => act.remove(api, w, above, w.role.high),
    happened: async (w) => !(await look.rolesOf(w, above)).includes(w.role.high),
  },
  {
    action: 'remove role',
    target: 'Low (below) from a higher-ranked member',
    expect: 'allowed',
    run: async (api, w) => {
      await ok(await call(srv.url, 'PUT', `/servers/${w.serverId}/members/${above.id}/roles/${w.role.low}`, { auth: owner.auth }));
      return act.remove(api, w, above, w.role.low);
    },
    happened: async (w) => !(await look.rolesOf(w, above)).includes(w.role.low),
  },
  // ---- editing a role
  ...(['low', 'mod', 'high'] as const).map(
    (k): Row => ({
      action: 'edit role',
      target: `${k} (${k === 'low' ? 'below' : k === 'mod' ? 'equal' : 'above'})`,
      expect: k === 'low' ? 'allowed' : 'refused',
      run: (api, w) => act.edit(api, w, w.role[k], { name: 'renamed' }),
      happened: async (w) => (await look.role(w, w.role[k]))?.name === 'renamed',
    }),
  ),
  // ---- deleting a role
  ...(['low', 'mod', 'high'] as const).map(
    (k): Row => ({
      action: 'delete role',
      target: `${k} (${k === 'low' ? 'below' : k === 'mod' ? 'equal' : 'above'})`,
      expect: k === 'low' ? 'allowed' : 'refused',
      run: (api, w) => act.delete(api, w, w.role[k]),
      happened: async (w) => (await look.role(w, w.role[k])) === undefined,
    }),
  ),
  // ---- reordering (native `position`; the Discord layer has no reorder route)
  {
    action: 'reorder',
    target: 'Low (below) down to 1',
    expect: 'allowed',
    nativeOnly: true,
    run: (api, w) => act.edit(api, w, w.role.low, { position: 1 }),
    happened: async (w) => (await look.role(w, w.role.low))?.position === 1,
  },
  {
    action: 'reorder',
    target: 'Low (below) up to their own position (3)',
    expect: 'refused',
    nativeOnly: true,
    run: (api, w) => act.edit(api, w, w.role.low, { position: 3 }),
    happened: async (w) => (await look.role(w, w.role.low))?.position !== 2,
  },
  {
    action: 'reorder',
    target: 'Mod (equal) down to 1',
    expect: 'refused',
    nativeOnly: true,
    run: (api, w) => act.edit(api, w, w.role.mod, { position: 1 }),
    happened: async (w) => (await look.role(w, w.role.mod))?.position !== 3,
  },
  {
    action: 'reorder',
    target: 'High (above) down to 1',
    expect: 'refused',
    nativeOnly: true,
    run: (api, w) => act.edit(api, w, w.role.high, { position: 1 }),
    happened: async (w) => (await look.role(w, w.role.high))?.position !== 4,
  },
  // ---- granting bits through a role
  {
    action: 'grant via role create',
    target: 'bits they hold (KICK_MEMBERS), at position 1 above @everyone',
    expect: 'allowed',
    run: (api, w) => act.create(api, w, P.KICK_MEMBERS),
    happened: async (w) => {
      const roles = await look.roles(w);
      const made = roles.find((r) => r.name === 'made by mod');
      if (!made) return false;
      // Just above @everyone; every other role moved up by one.
      expect(made.position).toBe(1);
      expect(roles.find((r) => r.id === w.role.admin)?.position).toBe(2);
      expect(roles.find((r) => r.id === w.role.high)?.position).toBe(5);
      return true;
    },
  },
  {
    action: 'grant via role create',
    target: 'a bit they lack (MANAGE_MESSAGES)',
    expect: 'refused',
    run: (api, w) => act.create(api, w, LACKED),
    happened: async (w) => (await look.roles(w)).some((r) => r.name === 'made by mod'),
  },
  {
    action: 'grant via role create',
    target: 'ADMINISTRATOR',
    expect: 'refused',
    run: (api, w) => act.create(api, w, P.ADMINISTRATOR),
    happened: async (w) => (await look.roles(w)).some((r) => r.name === 'made by mod'),
  },
  {
    action: 'grant via role edit',
    target: 'Low gets a bit they hold (KICK_MEMBERS)',
    expect: 'allowed',
    run: (api, w) => act.edit(api, w, w.role.low, { permissions: P.KICK_MEMBERS.toString() }),
    happened: async (w) => (await look.role(w, w.role.low))?.permissions === P.KICK_MEMBERS.toString(),
  },
  {
    action: 'grant via role edit',
    target: 'Low gets a bit they lack (MANAGE_MESSAGES)',
    expect: 'refused',
    run: (api, w) => act.edit(api, w, w.role.low, { permissions: LACKED.toString() }),
    happened: async (w) => (await look.role(w, w.role.low))?.permissions !== '0',
  },
  {
    action: 'grant via role edit',
    target: 'Low gets ADMINISTRATOR',
    expect: 'refused',
    run: (api, w) => act.edit(api, w, w.role.low, { permissions: P.ADMINISTRATOR.toString() }),
    happened: async (w) => (await look.role(w, w.role.low))?.permissions !== '0',
  },
  // ---- granting bits through a channel overwrite: judged by the actor's permissions in that channel
  {
    action: 'grant via overwrite',
    target: '#general: Low allowed a bit they hold (MANAGE_CHANNELS)',
    expect: 'allowed',
    run: (api, w) => act.overwrite(api, w.general, w.role.low, P.MANAGE_CHANNELS),
    happened: async (w) => (await look.overwriteOf(w, w.general, w.role.low)) !== undefined,
  },
  {
    action: 'grant via overwrite',
    target: '#general: Low allowed a bit they lack (MANAGE_MESSAGES)',
    expect: 'refused',
    run: (api, w) => act.overwrite(api, w.general, w.role.low, LACKED),
    happened: async (w) => (await look.overwriteOf(w, w.general, w.role.low)) !== undefined,
  },
  {
    action: 'grant via overwrite',
    target: 'a channel where an overwrite gives them MANAGE_MESSAGES: Low allowed it',
    expect: 'allowed',
    run: (api, w) => act.overwrite(api, w.granted, w.role.low, LACKED),
    happened: async (w) => (await look.overwriteOf(w, w.granted, w.role.low)) !== undefined,
  },
  {
    action: 'grant via overwrite',
    target: 'a channel where an overwrite denies them SEND_MESSAGES: Low allowed it',
    expect: 'refused',
    run: (api, w) => act.overwrite(api, w.muted, w.role.low, P.SEND_MESSAGES),
    happened: async (w) => (await look.overwriteOf(w, w.muted, w.role.low)) !== undefined,
  },
  {
    action: 'grant via overwrite',
    target: '#general: Mod (their own, equal) allowed a bit they hold',
    expect: 'refused',
    run: (api, w) => act.overwrite(api, w.general, w.role.mod, P.MANAGE_CHANNELS),
    happened: async (w) => (await look.overwriteOf(w, w.general, w.role.mod)) !== undefined,
  },
  // ---- kicks and bans
  ...(['kick', 'ban'] as const).flatMap((action) =>
    (
      [
        ['below', () => below, 'allowed'],
        ['equal', () => equal, 'refused'],
        ['above', () => above, 'refused'],
      ] as const
    ).map(
      ([rank, who, expected]): Row => ({
        action,
        target: `a member ${rank}`,
        expect: expected,
        run: (api, w) => act[action](api, w, who()),
        happened: async (w) => !(await look.isMember(w, who())),
      }),
    ),
  ),
  // Nicknames and timeouts: Parley has neither (docs/permissions.md), so they have no row.
];

function expectRefused(api: Api, r: Res) {
  if (api === 'native') expectError(r, 403, 'role_hierarchy');
  else {
    expect(r.status, r.text).toBe(403);
    expect(r.body.code, r.text).toBe(50013);
  }
}

describe.each(['native', 'discord'] as const)('role hierarchy matrix (%s)', (api) => {
  it.each(ROWS.filter((r) => api === 'native' || !r.nativeOnly).map((r) => [`${r.action}: ${r.target} → ${r.expect}`, r] as const))(
    '%s',
    async (_name, row) => {
      const w = await fresh();
      const r = await row.run(api, w);
      if (row.expect === 'allowed') expect(r.status, `${r.status} ${r.text}`).toBeLessThan(300);
      else expectRefused(api, r);
      expect(await row.happened(w)).toBe(row.expect === 'allowed');
    },
  );
});

describe('role hierarchy: the owner and the reproduction', () => {
  it('the owner may give any role, ADMINISTRATOR included, and kick anyone', async () => {
    const w = await fresh();
    await ok(await call(srv.url, 'PUT', `/servers/${w.serverId}/members/${plain.id}/roles/${w.role.high}`, { auth: owner.auth }));
    await ok(await call(srv.url, 'PUT', `/servers/${w.serverId}/members/${plain.id}/roles/${w.role.admin}`, { auth: owner.auth }));
    await ok(await call(srv.url, 'DELETE', `/servers/${w.serverId}/members/${above.id}`, { auth: owner.auth }));
  });

  it('an ADMINISTRATOR (not the owner) still gives only roles below their highest, and may give ADMINISTRATOR below it', async () => {
    const w = await fresh();
    // `below` holds Low (2); with Admin (1) too their highest is still Low.
    await ok(await call(srv.url, 'PUT', `/servers/${w.serverId}/members/${below.id}/roles/${w.role.admin}`, { auth: owner.auth }));
    const give = (roleId: string, user: TestUser) =>
      call(srv.url, 'PUT', `/servers/${w.serverId}/members/${user.id}/roles/${roleId}`, { auth: below.auth });
    await ok(await give(w.role.admin, plain));
    expectError(await give(w.role.low, plain), 403, 'role_hierarchy');
    expectError(await give(w.role.mod, plain), 403, 'role_hierarchy');
  });

  it("issue 35: Moderator (MANAGE_ROLES), then Admin (ADMINISTRATOR) made below it: the moderator's PUT of Admin on themselves is 403", async () => {
    const { server } = await createServer(srv.url, owner);
    await joinServer(srv.url, owner, actor, server.id);
    const make = async (name: string, bits: bigint) =>
      (
        await ok(
          await call(srv.url, 'POST', `/servers/${server.id}/roles`, { auth: owner.auth, body: { name, permissions: bits.toString() } }),
        )
      ).body as { id: string; position: number };
    const moderator = await make('Moderator', P.MANAGE_ROLES);
    const admin = await make('Admin', P.ADMINISTRATOR);
    expect(admin.position).toBe(1);
    await ok(await call(srv.url, 'PUT', `/servers/${server.id}/members/${actor.id}/roles/${moderator.id}`, { auth: owner.auth }));
    expectError(
      await call(srv.url, 'PUT', `/servers/${server.id}/members/${actor.id}/roles/${admin.id}`, { auth: actor.auth }),
      403,
      'role_hierarchy',
    );
    const members = (await call(srv.url, 'GET', `/servers/${server.id}/members`, { auth: owner.auth })).body;
    expect(members.find((m: { user: { id: string } }) => m.user.id === actor.id).roles).toEqual([moderator.id]);
  });
});
