/**
 * docs/webhooks.md#1-the-seed-format (execute a webhook) and docs/api.md#webhooks-management-server-owner-only (owner-only management) over HTTP.
 * The management and most execution tests run with rate limits off (so the owner's
 * management limit never interferes); the binding 5-per-5-s execution limit (docs/api.md#rate-limits) is checked
 * on a second server with limits on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createChannel, createServer, createWebhook, joinServer, registerUser, world } from '../factories.js';
import { type TestServer, startServer } from '../harness.js';
import { ISO_UTC, UNKNOWN_ID, expectError, expectRateHeaders, expectRateLimited, history } from './assert.js';

let srv: TestServer;
let limited: TestServer;
let w: Awaited<ReturnType<typeof world>>;
let member: Awaited<ReturnType<typeof registerUser>>;

beforeAll(async () => {
  [srv, limited] = await Promise.all([startServer({ env: { RATE_LIMITS: 'off' } }), startServer()]);
  w = await world(srv.url);
  member = await registerUser(srv.url);
  await joinServer(srv.url, w.owner, member, w.server.id);
});
afterAll(async () => {
  await Promise.all([srv?.close(), limited?.close()]);
});

/** POST to a webhook URL (absolute) with no Authorization header. */
const execute = (url: string, body: unknown, headers: Record<string, string> = {}) => call(url, 'POST', '', { body, headers });

describe('contract 5: POST /servers/{serverId}/webhooks', () => {
  it('201: the seed’s webhook object plus token and url of shape {PUBLIC_URL}/webhooks/{id}/{token}', async () => {
    const r = await call(srv.url, 'POST', `/servers/${w.server.id}/webhooks`, {
      auth: w.owner.auth,
      body: { name: 'Deploys', channelId: w.channel.id },
    });
    expect(r.status, r.text).toBe(201);
    expect(Object.keys(r.body).sort()).toEqual(['avatar', 'channelId', 'createdAt', 'createdBy', 'id', 'name', 'serverId', 'token', 'url']);
    expect(r.body).toMatchObject({ serverId: w.server.id, channelId: w.channel.id, name: 'Deploys', avatar: null, createdBy: w.owner.id });
    expect(r.body.id).toMatch(/^[1-9][0-9]{15,18}$/);
    expect(r.body.createdAt).toMatch(ISO_UTC);
    expect(r.body.token).toBeTypeOf('string');
    expect(r.body.token.length).toBeGreaterThanOrEqual(32);
    expect(r.body.token).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(r.body.url).toBe(`${srv.url}/webhooks/${r.body.id}/${r.body.token}`);
  });

  it('with an avatar URL: kept; a non-http avatar: 400', async () => {
    const ok = await call(srv.url, 'POST', `/servers/${w.server.id}/webhooks`, {
      auth: w.owner.auth,
      body: { name: 'With face', channelId: w.channel.id, avatar: 'https://example.com/a.png' },
    });
    expect(ok.status).toBe(201);
    expect(ok.body.avatar).toBe('https://example.com/a.png');
    expectError(
      await call(srv.url, 'POST', `/servers/${w.server.id}/webhooks`, {
        auth: w.owner.auth,
        body: { name: 'Bad face', channelId: w.channel.id, avatar: 'javascript:alert(1)' },
      }),
      400,
    );
  });

  it('400: missing or empty name, missing channelId, unknown channel, channel of another server', async () => {
    const { general: foreign } = await createServer(srv.url, member, 'Member’s own');
    const bodies: unknown[] = [
      { channelId: w.channel.id },
      { name: '', channelId: w.channel.id },
      { name: '   ', channelId: w.channel.id },
      { name: 'x'.repeat(81), channelId: w.channel.id },
      { name: 'No channel' },
      { name: 'Unknown', channelId: UNKNOWN_ID },
      { name: 'Garbage', channelId: 'garbage' },
      { name: 'Foreign', channelId: foreign.id },
      { name: 42, channelId: w.channel.id },
    ];
    for (const body of bodies) {
      expectError(await call(srv.url, 'POST', `/servers/${w.server.id}/webhooks`, { auth: w.owner.auth, body }), 400);
    }
  });

  it('403 for a member, a bot member and a stranger; 404 unknown server; 401 without token', async () => {
    const stranger = await registerUser(srv.url);
    const body = { name: 'Sneaky', channelId: w.channel.id };
    expectError(await call(srv.url, 'POST', `/servers/${w.server.id}/webhooks`, { auth: member.auth, body }), 403);
    expectError(await call(srv.url, 'POST', `/servers/${w.server.id}/webhooks`, { auth: w.bot.auth, body }), 403);
    expectError(await call(srv.url, 'POST', `/servers/${w.server.id}/webhooks`, { auth: stranger.auth, body }), 403);
    expectError(await call(srv.url, 'POST', `/servers/${UNKNOWN_ID}/webhooks`, { auth: w.owner.auth, body }), 404);
    expectError(await call(srv.url, 'POST', `/servers/${w.server.id}/webhooks`, { body }), 401);
    const list = await call(srv.url, 'GET', `/servers/${w.server.id}/webhooks`, { auth: w.owner.auth });
    expect(list.body.map((h: { name: string }) => h.name)).not.toContain('Sneaky');
  });
});

describe('contract 5: GET /servers/{serverId}/webhooks', () => {
  it('200: webhook objects without token (nor the URL that carries it)', async () => {
    const { server, general } = await createServer(srv.url, w.owner, 'Listing');
    const a = await createWebhook(srv.url, w.owner, server.id, general.id, 'A');
    const b = await createWebhook(srv.url, w.owner, server.id, general.id, 'B');
    const r = await call(srv.url, 'GET', `/servers/${server.id}/webhooks`, { auth: w.owner.auth });
    expect(r.status).toBe(200);
    expect(r.body).toEqual([
      {
        id: a.id,
        serverId: server.id,
        channelId: general.id,
        name: 'A',
        avatar: null,
        createdBy: w.owner.id,
        createdAt: expect.stringMatching(ISO_UTC),
      },
      {
        id: b.id,
        serverId: server.id,
        channelId: general.id,
        name: 'B',
        avatar: null,
        createdBy: w.owner.id,
        createdAt: expect.stringMatching(ISO_UTC),
      },
    ]);
    expect(r.text).not.toContain(a.token);
    expect(r.text).not.toContain(b.token);
  });

  it('403 for a member and a bot; 404 unknown server', async () => {
    expectError(await call(srv.url, 'GET', `/servers/${w.server.id}/webhooks`, { auth: member.auth }), 403);
    expectError(await call(srv.url, 'GET', `/servers/${w.server.id}/webhooks`, { auth: w.bot.auth }), 403);
    expectError(await call(srv.url, 'GET', `/servers/${UNKNOWN_ID}/webhooks`, { auth: w.owner.auth }), 404);
    expectError(await call(srv.url, 'GET', `/servers/${w.server.id}/webhooks`), 401);
  });
});

describe('contract 5: PATCH and DELETE /webhooks/{webhookId}', () => {
  it('rename: 200, and the next execution is authored under the new name', async () => {
    const hook = await createWebhook(srv.url, w.owner, w.server.id, w.channel.id, 'Old name');
    const r = await call(srv.url, 'PATCH', `/webhooks/${hook.id}`, { auth: w.owner.auth, body: { name: 'New name' } });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ id: hook.id, name: 'New name', channelId: w.channel.id, serverId: w.server.id });
    expect(r.body).not.toHaveProperty('token');
    const m = await execute(hook.url, { content: 'after rename' });
    expect(m.status).toBe(200);
    expect(m.body.author.name).toBe('New name');
    // The token is unchanged by a rename.
    expect(hook.url).toBe(`${srv.url}/webhooks/${hook.id}/${hook.token}`);
  });

  it('re-point to another channel of the same server: 200, and the next execution lands there', async () => {
    const target = await createChannel(srv.url, w.owner, w.server.id, 'alerts');
    const hook = await createWebhook(srv.url, w.owner, w.server.id, w.channel.id, 'Mover');
    const first = await execute(hook.url, { content: 'in general' });
    expect(first.body.channelId).toBe(w.channel.id);
    const r = await call(srv.url, 'PATCH', `/webhooks/${hook.id}`, { auth: w.owner.auth, body: { channelId: target.id } });
    expect(r.status, r.text).toBe(200);
    expect(r.body.channelId).toBe(target.id);
    const second = await execute(hook.url, { content: 'in alerts' });
    expect(second.status).toBe(200);
    expect(second.body.channelId).toBe(target.id);
    expect((await history(srv.url, w.owner.auth, target.id)).map((m) => m.id)).toEqual([second.body.id]);
    expect((await history(srv.url, w.owner.auth, w.channel.id)).map((m) => m.id)).not.toContain(second.body.id);
    const listed = await call(srv.url, 'GET', `/servers/${w.server.id}/webhooks`, { auth: w.owner.auth });
    expect(listed.body.find((h: { id: string }) => h.id === hook.id).channelId).toBe(target.id);
  });

  it('re-point to a channel of another server: 400, and the webhook still posts where it did', async () => {
    const { general: foreign } = await createServer(srv.url, w.owner, 'Other server, same owner');
    const hook = await createWebhook(srv.url, w.owner, w.server.id, w.channel.id, 'Stay');
    expectError(await call(srv.url, 'PATCH', `/webhooks/${hook.id}`, { auth: w.owner.auth, body: { channelId: foreign.id } }), 400);
    expectError(await call(srv.url, 'PATCH', `/webhooks/${hook.id}`, { auth: w.owner.auth, body: { channelId: UNKNOWN_ID } }), 400);
    const m = await execute(hook.url, { content: 'still here' });
    expect(m.body.channelId).toBe(w.channel.id);
    expect(await history(srv.url, w.owner.auth, foreign.id)).toEqual([]);
  });

  it('PATCH: 400 bad body (empty name, wrong types)', async () => {
    const hook = await createWebhook(srv.url, w.owner, w.server.id, w.channel.id, 'Strict');
    for (const body of [
      { name: '' },
      { name: '  ' },
      { name: 7 },
      { channelId: 7 },
      { name: 'x'.repeat(81) },
      { name: 'a\u0000' },
      { avatar: 'https://x.example/\u0000' },
    ]) {
      expectError(await call(srv.url, 'PATCH', `/webhooks/${hook.id}`, { auth: w.owner.auth, body }), 400);
    }
  });

  it('DELETE: 204, then the URL is 404 at once, with the same answer as an unknown id or a wrong token', async () => {
    const hook = await createWebhook(srv.url, w.owner, w.server.id, w.channel.id, 'Doomed');
    expect((await execute(hook.url, { content: 'alive' })).status).toBe(200);
    const del = await call(srv.url, 'DELETE', `/webhooks/${hook.id}`, { auth: w.owner.auth });
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    const deleted = await execute(hook.url, { content: 'ghost' });
    expectError(deleted, 404);
    const other = await createWebhook(srv.url, w.owner, w.server.id, w.channel.id, 'Other');
    const unknown = await execute(`${srv.url}/webhooks/${UNKNOWN_ID}/${hook.token}`, { content: 'x' });
    const wrongToken = await execute(`${srv.url}/webhooks/${other.id}/${hook.token}`, { content: 'x' });
    expectError(unknown, 404);
    expectError(wrongToken, 404);
    expect(deleted.text).toBe(unknown.text);
    expect(deleted.text).toBe(wrongToken.text);
    expect((await history(srv.url, w.owner.auth, w.channel.id)).map((m) => m.content)).not.toContain('ghost');
    const listed = await call(srv.url, 'GET', `/servers/${w.server.id}/webhooks`, { auth: w.owner.auth });
    expect(listed.body.map((h: { id: string }) => h.id)).not.toContain(hook.id);
    expectError(await call(srv.url, 'DELETE', `/webhooks/${hook.id}`, { auth: w.owner.auth }), 404);
    expectError(await call(srv.url, 'PATCH', `/webhooks/${hook.id}`, { auth: w.owner.auth, body: { name: 'back' } }), 404);
  });

  it('deleting the webhook’s channel deletes the webhook: its URL is 404', async () => {
    const c = await createChannel(srv.url, w.owner, w.server.id);
    const hook = await createWebhook(srv.url, w.owner, w.server.id, c.id, 'Orphan');
    expect((await call(srv.url, 'DELETE', `/channels/${c.id}`, { auth: w.owner.auth })).status).toBe(204);
    expectError(await execute(hook.url, { content: 'x' }), 404);
  });

  it('every management call by a non-owner member or a bot: 403; the webhook is untouched', async () => {
    const hook = await createWebhook(srv.url, w.owner, w.server.id, w.channel.id, 'Guarded');
    const other = await createChannel(srv.url, w.owner, w.server.id);
    for (const who of [member, w.bot]) {
      expectError(await call(srv.url, 'PATCH', `/webhooks/${hook.id}`, { auth: who.auth, body: { name: 'Pwned' } }), 403);
      expectError(await call(srv.url, 'PATCH', `/webhooks/${hook.id}`, { auth: who.auth, body: { channelId: other.id } }), 403);
      expectError(await call(srv.url, 'DELETE', `/webhooks/${hook.id}`, { auth: who.auth }), 403);
    }
    const stranger = await registerUser(srv.url);
    expectError(await call(srv.url, 'PATCH', `/webhooks/${hook.id}`, { auth: stranger.auth, body: { name: 'Pwned' } }), 403);
    expectError(await call(srv.url, 'DELETE', `/webhooks/${hook.id}`, { auth: stranger.auth }), 403);
    const m = await execute(hook.url, { content: 'still mine' });
    expect(m.status).toBe(200);
    expect(m.body).toMatchObject({ channelId: w.channel.id, author: { name: 'Guarded' } });
  });

  it('unknown webhook: 404 on PATCH and DELETE; no token: 401', async () => {
    for (const id of [UNKNOWN_ID, 'garbage']) {
      expectError(await call(srv.url, 'PATCH', `/webhooks/${id}`, { auth: w.owner.auth, body: { name: 'x' } }), 404);
      expectError(await call(srv.url, 'DELETE', `/webhooks/${id}`, { auth: w.owner.auth }), 404);
    }
    const hook = await createWebhook(srv.url, w.owner, w.server.id, w.channel.id, 'Anon');
    expectError(await call(srv.url, 'PATCH', `/webhooks/${hook.id}`, { body: { name: 'x' } }), 401);
    expectError(await call(srv.url, 'DELETE', `/webhooks/${hook.id}`), 401);
  });
});

describe('seed 4.5: POST /webhooks/{webhookId}/{token}', () => {
  it('200 with the message: webhookId set, author.name = webhook name, author.bot true; no Authorization needed', async () => {
    const hook = await createWebhook(srv.url, w.owner, w.server.id, w.channel.id, 'CI Pipeline');
    const r = await execute(hook.url, { content: 'Build **passed**' });
    expect(r.status, r.text).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(r.body).toMatchObject({
      channelId: w.channel.id,
      serverId: w.server.id,
      content: 'Build **passed**',
      attachments: [],
      webhookId: hook.id,
      author: { name: 'CI Pipeline', bot: true },
      editedAt: null,
    });
    expect(r.body.id).toMatch(/^[1-9][0-9]{15,18}$/);
    expect(r.body.createdAt).toMatch(ISO_UTC);
    const latest = (await history(srv.url, w.owner.auth, w.channel.id, 'limit=1'))[0];
    expect(latest).toEqual(r.body);
  });

  it('an Authorization header is neither needed nor used', async () => {
    const hook = await createWebhook(srv.url, w.owner, w.server.id, w.channel.id, 'Ignores auth');
    const r = await execute(hook.url, { content: 'hi' }, { authorization: 'Bot not-a-real-token' });
    expect(r.status).toBe(200);
    expect(r.body.author.name).toBe('Ignores auth');
  });

  it('content: 4000 characters is fine; 4001 is 400; 4000 astral code points is fine', async () => {
    const hook = await createWebhook(srv.url, w.owner, w.server.id, w.channel.id, 'Long');
    const ok = await execute(hook.url, { content: 'b'.repeat(4000) });
    expect(ok.status).toBe(200);
    expect(ok.body.content).toBe('b'.repeat(4000));
    const emoji = await execute(hook.url, { content: '🚀'.repeat(4000) });
    expect(emoji.status, emoji.text).toBe(200);
    expect(emoji.body.content).toBe('🚀'.repeat(4000));
    const before = (await history(srv.url, w.owner.auth, w.channel.id, 'limit=1'))[0].id;
    expectError(await execute(hook.url, { content: 'b'.repeat(4001) }), 400, /4000/);
    expectError(await execute(hook.url, { content: '🚀'.repeat(4001) }), 400);
    expect((await history(srv.url, w.owner.auth, w.channel.id, 'limit=1'))[0].id).toBe(before);
  });

  it('missing, empty or whitespace content: 400; wrong types and malformed JSON: 400', async () => {
    const hook = await createWebhook(srv.url, w.owner, w.server.id, w.channel.id, 'Picky');
    for (const body of [
      {},
      { content: '' },
      { content: '   \n' },
      { content: 'a\u0000b' },
      { content: 5 },
      { content: ['x'] },
      [],
      'text',
      null,
    ]) {
      expectError(await execute(hook.url, body), 400);
    }
    expectError(await call(hook.url, 'POST', '', { raw: '{"content": "x"', headers: { 'content-type': 'application/json' } }), 400, /JSON/);
  });

  it('unknown id, wrong token, malformed id: 404', async () => {
    const hook = await createWebhook(srv.url, w.owner, w.server.id, w.channel.id, 'Real');
    const flipped = hook.token.slice(0, -1) + (hook.token.endsWith('A') ? 'B' : 'A');
    for (const url of [
      `${srv.url}/webhooks/${UNKNOWN_ID}/${hook.token}`,
      `${srv.url}/webhooks/${hook.id}/${flipped}`,
      `${srv.url}/webhooks/${hook.id}/x`,
      `${srv.url}/webhooks/garbage/${hook.token}`,
    ]) {
      expectError(await execute(url, { content: 'x' }), 404);
    }
    // The error never echoes the token.
    const r = await execute(`${srv.url}/webhooks/${hook.id}/${flipped}`, { content: 'x' });
    expect(r.text).not.toContain(flipped);
  });

  it('5 per 5 seconds per webhook, then 429 with Retry-After and {error, retryAfter}; another webhook is unaffected', async () => {
    const owner = await registerUser(limited.url);
    const { server, general } = await createServer(limited.url, owner);
    const hook = await createWebhook(limited.url, owner, server.id, general.id, 'Chatty');
    const quiet = await createWebhook(limited.url, owner, server.id, general.id, 'Quiet');
    for (let i = 1; i <= 5; i++) {
      const r = await execute(hook.url, { content: `n${i}` });
      expect(r.status, `request ${i}: ${r.text}`).toBe(200);
      expectRateHeaders(r, 5, 5 - i, 5);
    }
    const sixth = await execute(hook.url, { content: 'n6' });
    expectRateLimited(sixth, 5, 5);
    const contents = (await history(limited.url, owner.auth, general.id)).map((m) => m.content);
    expect(contents).toEqual(['n5', 'n4', 'n3', 'n2', 'n1']);
    const other = await execute(quiet.url, { content: 'still fine' });
    expect(other.status).toBe(200);
    expectRateHeaders(other, 5, 4, 5);
    // A wrong token is 404, not 429, even for a limited webhook: the limit is applied after authentication.
    expectError(await execute(`${limited.url}/webhooks/${hook.id}/wrong`, { content: 'x' }), 404);
  });
});
