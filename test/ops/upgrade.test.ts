/**
 * Upgrading a database made by the previous release. test/fixtures/upgrade/ is a data
 * directory the release before migration 0010 (commit cacdf2c) made through its own API,
 * written by scripts/make-upgrade-fixture.ts (see there to regenerate it): three people,
 * a server with two channels, roles (one member holds two), members, a bot, messages (one with a file, one
 * edited, one reply), reactions and a DM; manifest.json says what they are. The current
 * service starts on a copy (migrations run at start) and everything must read back over
 * the API as it was (every role assignment too, which 0021 moves out of a comma-joined
 * column), and the new feature (disabled accounts) must work on the old rows.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATION_NAMES } from '../../src/store/migrations.js';
import { call } from '../factories.js';
import { type TestServer, startServer } from '../harness.js';
import { parley } from './cli.js';

const FIXTURE = path.resolve(import.meta.dirname, '..', 'fixtures', 'upgrade');
const manifest = JSON.parse(fs.readFileSync(path.join(FIXTURE, 'manifest.json'), 'utf8'));

let srv: TestServer;
const auth: Record<string, string> = {};

beforeAll(async () => {
  srv = await startServer({
    env: { RATE_LIMITS: 'off' },
    before: async ({ dataDir }) => {
      fs.copyFileSync(path.join(FIXTURE, 'parley.db'), path.join(dataDir, 'parley.db'));
      fs.cpSync(path.join(FIXTURE, 'uploads'), path.join(dataDir, 'uploads'), { recursive: true });
    },
  });
  for (const name of ['alice', 'bob', 'carol']) {
    const r = await call(srv.url, 'POST', '/auth/login', { body: { username: name, password: manifest.password } });
    expect(r.status, r.text).toBe(200);
    expect(r.body.user.id).toBe(manifest.users[name]);
    auth[name] = `Bearer ${r.body.token}`;
  }
});
afterAll(() => srv?.close());

describe('a database of the previous release', () => {
  it('is the previous schema, and is migrated to this release at start', () => {
    expect(manifest.schema.at(-1)).toBe('0009_direct_messages');
    const db = new Database(path.join(srv.dataDir, 'parley.db'), { readonly: true });
    const applied = (db.prepare('select name from kysely_migration order by name').all() as Array<{ name: string }>).map((r) => r.name);
    db.close();
    expect(applied).toEqual([...MIGRATION_NAMES]);
  });

  it('keeps servers, channels, roles and members', async () => {
    const servers = await call(srv.url, 'GET', '/servers', { auth: auth.alice });
    expect(servers.body.map((s: { id: string; name: string }) => [s.id, s.name])).toEqual([[manifest.server.id, 'Fixture server']]);
    const channels = await call(srv.url, 'GET', `/servers/${manifest.server.id}/channels`, { auth: auth.bob });
    expect(channels.body.map((c: { id: string }) => c.id).sort()).toEqual([manifest.server.general, manifest.server.random].sort());
    const roles = await call(srv.url, 'GET', `/servers/${manifest.server.id}/roles`, { auth: auth.alice });
    expect(roles.body.find((r: { id: string }) => r.id === manifest.server.role)).toMatchObject({
      name: 'moderators',
      color: 0x3366ff,
      hoist: true,
    });
    const members = await call(srv.url, 'GET', `/servers/${manifest.server.id}/members?limit=100`, { auth: auth.alice });
    const ids = members.body.map((m: { user: { id: string } }) => m.user.id);
    expect(ids).toEqual(expect.arrayContaining([manifest.users.alice, manifest.users.bob, manifest.users.carol, manifest.bot.id]));
    const bob = members.body.find((m: { user: { id: string } }) => m.user.id === manifest.users.bob);
    expect(bob.roles).toContain(manifest.server.role);
  });

  it('keeps every role assignment, moved from the comma-joined column to member_roles (0020)', async () => {
    // Ids as text: better-sqlite3 answers 64-bit integers as lossy numbers.
    const old = new Database(path.join(FIXTURE, 'parley.db'), { readonly: true });
    const assigned = old.prepare('select cast(server_id as text) as s, cast(user_id as text) as u, roles from members').all() as Array<{
      s: string;
      u: string;
      roles: string;
    }>;
    old.close();
    const before = assigned.flatMap((m) => (m.roles ? m.roles.split(',') : []).map((role) => `${m.s}/${m.u}/${role}`));
    // The fixture's people: bob holds two roles, carol one (another was deleted), the bot its managed one.
    expect(before).toHaveLength(4);
    const db = new Database(path.join(srv.dataDir, 'parley.db'), { readonly: true });
    const rows = db
      .prepare('select cast(server_id as text) as s, cast(user_id as text) as u, cast(role_id as text) as r from member_roles')
      .all() as Array<{ s: string; u: string; r: string }>;
    const after = rows.map((m) => `${m.s}/${m.u}/${m.r}`);
    const columns = (db.prepare('pragma table_info(members)').all() as Array<{ name: string }>).map((c) => c.name);
    db.close();
    expect(after.sort()).toEqual(before.sort());
    expect(columns).not.toContain('roles');
    const members = await call(srv.url, 'GET', `/servers/${manifest.server.id}/members?limit=100`, { auth: auth.alice });
    const rolesOf = (id: string) => members.body.find((m: { user: { id: string } }) => m.user.id === id).roles;
    expect(rolesOf(manifest.users.bob)).toEqual([manifest.server.role, manifest.server.helpers]);
    expect(rolesOf(manifest.users.carol)).toEqual([manifest.server.helpers]);
    expect(rolesOf(manifest.bot.id)).toHaveLength(1);
    expect(rolesOf(manifest.users.alice)).toEqual([]);
  });

  it('keeps messages with their ids, authors, edits, replies, reactions and files', async () => {
    const r = await call(srv.url, 'GET', `/channels/${manifest.server.general}/messages?limit=100`, { auth: auth.carol });
    expect(r.status, r.text).toBe(200);
    const got = r.body.map((m: { id: string; author: { id: string } }) => ({ id: m.id, authorId: m.author.id }));
    expect(got.sort((a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id))).toEqual(
      [...manifest.messages.general].sort((a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id)),
    );
    const byId = new Map(r.body.map((m: { id: string }) => [m.id, m]));
    const first: any = byId.get(manifest.messages.general[0].id);
    expect(first.content).toBe('hello from the previous release');
    expect(first.reactions).toEqual([{ emoji: '👍', count: 2, me: true }]);
    const edited: any = byId.get(manifest.messages.edited);
    expect(edited.content).toBe('hi alice (edited)');
    expect(edited.editedAt).toEqual(expect.any(String));
    expect((byId.get(manifest.messages.reply) as any).messageReference.messageId).toBe(first.id);
    // The message's link was rewritten to carry the upload's new secret (0016); the old,
    // guessable shape is no longer served (docs/security.md, "Files").
    const withFile: any = byId.get(manifest.messages.withFile);
    const stored = new URL(withFile.attachments[0].url).pathname;
    const [, , id, secret, name] = stored.split('/');
    expect(`/uploads/${id}/${name}`).toBe(manifest.file.url);
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const file = await fetch(`${srv.url}${stored}`);
    expect(file.status).toBe(200);
    expect(await file.text()).toBe(manifest.file.content);
    expect((await fetch(`${srv.url}${manifest.file.url}`)).status).toBe(404);

    const random = await call(srv.url, 'GET', `/channels/${manifest.server.random}/messages`, { auth: auth.alice });
    expect(random.body.map((m: { id: string }) => m.id)).toEqual(manifest.messages.random.map((m: { id: string }) => m.id));
  });

  it('keeps the DM, and the bot token still works', async () => {
    const dms = await call(srv.url, 'GET', '/users/@me/channels', { auth: auth.bob });
    expect(dms.body.map((c: { id: string }) => c.id)).toContain(manifest.dm.id);
    const dm = await call(srv.url, 'GET', `/channels/${manifest.dm.id}/messages`, { auth: auth.bob });
    expect(dm.body.map((m: { id: string }) => m.id)).toEqual([manifest.dm.message]);
    const me = await call(srv.url, 'GET', '/users/@me', { auth: `Bot ${manifest.bot.token}` });
    expect(me.status, me.text).toBe(200);
    expect(me.body.id).toBe(manifest.bot.id);
  });

  it('takes new messages after the old ones, and disabling works on old accounts and their bots', async () => {
    const posted = await call(srv.url, 'POST', `/channels/${manifest.server.general}/messages`, {
      auth: auth.bob,
      body: { content: 'after the upgrade' },
    });
    expect(posted.status, posted.text).toBe(201);
    for (const m of manifest.messages.general) expect(BigInt(posted.body.id) > BigInt(m.id)).toBe(true);

    const off = await parley(['users', 'disable', 'alice'], { DATA_DIR: srv.dataDir });
    expect(off.code, off.stderr).toBe(0);
    expect(off.stdout).toMatch(/stopped 1 bot/);
    const login = await call(srv.url, 'POST', '/auth/login', { body: { username: 'alice', password: manifest.password } });
    expect(login.body.code).toBe('account_disabled');
    expect((await call(srv.url, 'GET', '/users/@me', { auth: `Bot ${manifest.bot.token}` })).body.code).toBe('account_disabled');
    expect((await parley(['users', 'enable', 'alice'], { DATA_DIR: srv.dataDir })).code).toBe(0);
    expect((await call(srv.url, 'GET', '/users/@me', { auth: `Bot ${manifest.bot.token}` })).status).toBe(200);
  }, 30_000);
});
