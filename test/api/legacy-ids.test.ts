/**
 * A Parley upgraded from ULIDs to snowflakes (migration 0004): what users and their tools
 * hold from before keeps working. Bot and session tokens, webhook URLs, upload links and
 * ids in a bot's configuration all carry ULIDs; answers carry the new ids.
 */
import path from 'node:path';
import { compareIds } from '@parley/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../factories.js';
import { startServer, type TestServer } from '../harness.js';
import { adminOf, type LegacyWorld, seedLegacyDatabase, ulid } from '../store/legacy.js';
import { expectError } from './assert.js';

describe('ids from before snowflakes', () => {
  let srv: TestServer;
  let w: LegacyWorld;
  /** The snowflake each old id became. */
  let id: (old: string) => Promise<string>;

  beforeAll(async () => {
    srv = await startServer({
      async before(where) {
        const admin = adminOf(where);
        try {
          w = await seedLegacyDatabase(admin, {
            schema: where.schema,
            base: 'https://old.example',
            uploadsDir: path.join(where.dataDir, 'uploads'),
          });
        } finally {
          await admin.destroy();
        }
      },
    });
    id = async (old) => (await srv.app.ctx.store.currentId(old))!;
  });
  afterAll(() => srv?.close());

  it('an old bot token and an old session token still sign in, as the new ids', async () => {
    const bot = await call(srv.url, 'GET', '/users/@me', { auth: `Bot ${w.botToken}` });
    expect(bot.status, bot.text).toBe(200);
    expect(bot.body.id).toBe(await id(w.bot));
    const person = await call(srv.url, 'GET', '/users/@me', { auth: `Bearer ${w.sessionToken}` });
    expect(person.status, person.text).toBe(200);
    expect(person.body.id).toBe(await id(w.owner));
    // The secret still has to match.
    expectError(await call(srv.url, 'GET', '/users/@me', { auth: `Bot ${w.bot}.wrong-secret` }), 401);
  });

  it("a bot's section-3 permissions became its managed role (0005), and the server its @everyone role", async () => {
    const owner = `Bearer ${w.sessionToken}`;
    const serverId = await id(w.server);
    const roles = await call(srv.url, 'GET', `/servers/${serverId}/roles`, { auth: owner });
    expect(roles.status, roles.text).toBe(200);
    const bot = await id(w.bot);
    const managed = roles.body.find((r: { managed: boolean }) => r.managed);
    expect(roles.body.map((r: { id: string; name: string }) => r.name)).toEqual(['@everyone', managed?.name]);
    expect(roles.body[0].id).toBe(serverId);
    const members = await call(srv.url, 'GET', `/servers/${serverId}/members`, { auth: owner });
    const row = members.body.find((m: { id: string }) => m.id === bot);
    expect(row).toMatchObject({ roles: [managed.id], permissions: ['READ_MESSAGES', 'SEND_MESSAGES', 'ADD_REACTIONS', 'ATTACH_FILES'] });
  });

  it('ids in paths may be the old ones: history comes back in order, with new ids and links', async () => {
    const r = await call(srv.url, 'GET', `/channels/${w.channel}/messages?limit=50`, { auth: `Bot ${w.botToken}` });
    expect(r.status, r.text).toBe(200);
    const ids = await Promise.all([...w.messages, w.webhookMessage].map(id));
    expect(r.body.map((m: { id: string }) => m.id)).toEqual([...ids].reverse());
    const first = r.body.find((m: { id: string }) => m.id === ids[0]);
    expect(first.channelId).toBe(await id(w.channel));
    expect(new URL(first.attachments[0].url).pathname).toMatch(
      new RegExp(`^/uploads/${await id(w.upload)}/[A-Za-z0-9_-]{43}/notes\\.txt$`),
    );
    // `before` may be old too.
    const older = await call(srv.url, 'GET', `/channels/${w.channel}/messages?before=${ids[2]}`, { auth: `Bot ${w.botToken}` });
    expect(older.body.map((m: { id: string }) => m.id)).toEqual([ids[1], ids[0]]);
    // An old cursor that named no message pages from its instant, as a snowflake of that time would.
    const cursor = await call(srv.url, 'GET', `/channels/${w.channel}/messages?before=${ulid(w.newestMs - 1)}`, {
      auth: `Bot ${w.botToken}`,
    });
    expect(cursor.body.map((m: { id: string }) => m.id)).toEqual([ids[2], ids[1], ids[0]]);
    // Neither a snowflake nor an old id: the database compares numbers, so it is refused.
    expectError(
      await call(srv.url, 'GET', `/channels/${w.channel}/messages?after=abc`, { auth: `Bot ${w.botToken}` }),
      400,
      'invalid_query',
    );
    // An old id that named nothing still names nothing.
    expectError(
      await call(srv.url, 'GET', `/channels/${ulid(Date.now())}/messages`, { auth: `Bot ${w.botToken}` }),
      404,
      'unknown_channel',
    );
  });

  it('an old webhook URL still posts, and new ids come after every old one', async () => {
    const r = await call(srv.url, 'POST', `/webhooks/${w.hook}/${w.hookSecret}?wait=true`, { body: { content: 'deploy finished' } });
    expect(r.status, r.text).toBe(200);
    expect(r.body.webhookId).toBe(await id(w.hook));
    expect(compareIds(r.body.id, await id(w.webhookMessage))).toBeGreaterThan(0);
    expectError(await call(srv.url, 'POST', `/webhooks/${w.hook}/not-the-secret`, { body: { content: 'x' } }), 404);
  });

  it('an uploaded file is served at the link its message now carries (with its secret, 0016); links without a secret are 404', async () => {
    const r = await call(srv.url, 'GET', `/channels/${w.channel}/messages?limit=50`, { auth: `Bot ${w.botToken}` });
    const withFile = r.body.find((m: { attachments: unknown[] }) => m.attachments.length > 0);
    const file = await fetch(`${srv.url}${new URL(withFile.attachments[0].url).pathname}`);
    expect(file.status).toBe(200);
    expect(await file.text()).toBe('hello');
    // The old links carry no secret (a ULID's 80 random bits are fewer than the 128 of docs/security.md#files-are-for-those-who-may-see-them).
    for (const key of [w.upload, await id(w.upload)]) expect((await fetch(`${srv.url}/uploads/${key}/notes.txt`)).status, key).toBe(404);
  });
});
