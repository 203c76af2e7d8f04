/**
 * Contract 8: GET/PATCH/DELETE /webhooks/{id}/{token}/messages/{messageId}, a webhook
 * reading, editing and deleting the messages it posted (Discord's fetch/edit/delete
 * webhook message). Events are awaited on a real gateway connection of the owner.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhooks } from '../../src/domain/webhooks.js';
import { call, createChannel, createServer, createWebhook, joinServer, postMessage, registerUser, world } from '../factories.js';
import { TestGatewayClient } from '../gateway/client.js';
import { type TestServer, startServer } from '../harness.js';
import { UNKNOWN_ID, countRows, expectError, expectRateHeaders, expectRateLimited } from './assert.js';
import { beforeFirstWrite } from './interleave.js';

type Hook = Awaited<ReturnType<typeof createWebhook>>;

let srv: TestServer;
let limited: TestServer;
let w: Awaited<ReturnType<typeof world>>;
let member: Awaited<ReturnType<typeof registerUser>>;
let hook: Hook;
let otherHook: Hook;
let gateway: TestGatewayClient;

beforeAll(async () => {
  [srv, limited] = await Promise.all([startServer({ env: { RATE_LIMITS: 'off' } }), startServer()]);
  w = await world(srv.url);
  member = await registerUser(srv.url);
  await joinServer(srv.url, w.owner, member, w.server.id);
  hook = await createWebhook(srv.url, w.owner, w.server.id, w.channel.id, 'Deploys');
  otherHook = await createWebhook(srv.url, w.owner, w.server.id, w.channel.id, 'Other');
  gateway = await TestGatewayClient.identify(srv.gatewayUrl, w.owner.auth);
});
afterAll(async () => {
  await gateway?.close();
  await Promise.all([srv?.close(), limited?.close()]);
});

const messagePath = (h: Hook, messageId: string) => `${new URL(h.url).pathname}/messages/${messageId}`;

/** Posts through the webhook (Discord body) and returns the created message. */
async function execute(h: Hook, body: Record<string, unknown>, base = srv.url) {
  const r = await call(base, 'POST', new URL(h.url).pathname, { body });
  expect(r.status, r.text).toBe(200);
  return r.body;
}

/** The message as the owner reads it through the channel API. */
const ownerView = (channelId: string, messageId: string) =>
  call(srv.url, 'GET', `/channels/${channelId}/messages/${messageId}`, { auth: w.owner.auth });

/**
 * Posts a sentinel and waits for its MESSAGE_CREATE on the owner's gateway: events are
 * delivered in the bus's order, so whatever was published before it has arrived by then.
 * Returns the event types seen for `messageId` besides its creation.
 */
async function eventsAbout(messageId: string): Promise<string[]> {
  const sentinel = await postMessage(srv.url, w.owner.auth, w.channel.id, 'sentinel');
  await gateway.waitForEvent('MESSAGE_CREATE', (d) => d.id === sentinel.id);
  return gateway.events().flatMap((f) => (f.t !== 'MESSAGE_CREATE' && f.d?.id === messageId ? [f.t!] : []));
}

describe('GET /webhooks/{id}/{token}/messages/{messageId}', () => {
  it('200: the message exactly as GET /channels/{id}/messages/{id} shows it, reactions included', async () => {
    const m = await execute(hook, { content: 'build 41 passed', embeds: [{ title: 'CI', color: 0x2eb67d }] });
    const react = await call(srv.url, 'PUT', `/channels/${w.channel.id}/messages/${m.id}/reactions/${encodeURIComponent('👍')}`, {
      auth: member.auth,
    });
    expect(react.status, react.text).toBe(200);
    const r = await call(srv.url, 'GET', messagePath(hook, m.id));
    expect(r.status, r.text).toBe(200);
    expect(r.body.reactions).toEqual([{ emoji: '👍', count: 1, me: false }]);
    expect(r.body).toEqual((await ownerView(w.channel.id, m.id)).body);
    expect(r.body).toMatchObject({ id: m.id, webhookId: hook.id, content: 'build 41 passed', author: { name: 'Deploys', bot: true } });
  });

  it('needs no Authorization header, and ignores one', async () => {
    const m = await execute(hook, { content: 'with a session' });
    const r = await call(srv.url, 'GET', messagePath(hook, m.id), { auth: member.auth });
    expect(r.status, r.text).toBe(200);
    expect(r.body.id).toBe(m.id);
  });
});

describe('PATCH /webhooks/{id}/{token}/messages/{messageId}', () => {
  it('200: new content, embeds kept, editedAt set; MESSAGE_UPDATE carries the same message', async () => {
    const m = await execute(hook, { content: 'deploying v1.4.2', embeds: [{ title: 'Deploy' }] });
    expect(m.editedAt).toBeNull();
    const r = await call(srv.url, 'PATCH', messagePath(hook, m.id), { body: { content: 'deployed v1.4.2' } });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ id: m.id, content: 'deployed v1.4.2', embeds: [{ title: 'Deploy' }], webhookId: hook.id });
    expect(r.body.editedAt).toEqual(expect.any(String));
    const event = await gateway.waitForEvent('MESSAGE_UPDATE', (d) => d.id === m.id);
    expect(event.d).toEqual(r.body);
    expect((await ownerView(w.channel.id, m.id)).body).toEqual(r.body);
  });

  it('embeds alone: replaced and validated as executing does; content kept', async () => {
    const m = await execute(hook, { content: 'status', embeds: [{ title: 'old' }] });
    const r = await call(srv.url, 'PATCH', messagePath(hook, m.id), {
      body: { embeds: [{ title: 'new', fields: [{ name: 'env', value: 'prod', inline: true }], timestamp: '2024-05-01 12:00:00' }] },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body.content).toBe('status');
    expect(r.body.embeds).toEqual([
      { title: 'new', fields: [{ name: 'env', value: 'prod', inline: true }], timestamp: '2024-05-01T12:00:00.000Z' },
    ]);

    const bad: Array<[unknown, RegExp]> = [
      [[{ title: 'x'.repeat(257) }], /embeds\[0\]\.title/],
      [[{ title: 't', color: 0x1000000 }], /embeds\[0\]\.color/],
      [[{ image: { url: 'javascript:alert(1)' } }], /embeds\[0\]\.image\.url/],
      [Array.from({ length: 11 }, () => ({ title: 't' })), /embeds must have at most 10/],
      ['not an array', /embeds must be an array/],
    ];
    for (const [embeds, message] of bad) {
      expectError(await call(srv.url, 'PATCH', messagePath(hook, m.id), { body: { embeds } }), 400, message);
    }
    expect((await ownerView(w.channel.id, m.id)).body.embeds).toEqual(r.body.embeds);
  });

  it('content: at most 4000 code points (an emoji counts once); a non-string is 400', async () => {
    const m = await execute(hook, { content: 'short' });
    const max = '😀'.repeat(4000);
    const ok = await call(srv.url, 'PATCH', messagePath(hook, m.id), { body: { content: max } });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.content).toBe(max);
    expectError(await call(srv.url, 'PATCH', messagePath(hook, m.id), { body: { content: `${max}x` } }), 400, /4000/);
    expectError(await call(srv.url, 'PATCH', messagePath(hook, m.id), { body: { content: 42 } }), 400, /content/);
    expectError(await call(srv.url, 'PATCH', messagePath(hook, m.id), { body: { content: 'a\u0000b' } }), 400, /NUL/);
    expectError(await call(srv.url, 'PATCH', messagePath(hook, m.id), { raw: 'not json', headers: { 'content-type': 'text/plain' } }), 400);
    expect((await ownerView(w.channel.id, m.id)).body.content).toBe(max);
  });

  it('the edited message must not end up empty; null clears a part when another remains', async () => {
    const m = await execute(hook, { content: 'text', embeds: [{ title: 'card' }] });
    const noText = await call(srv.url, 'PATCH', messagePath(hook, m.id), { body: { content: null } });
    expect(noText.status, noText.text).toBe(200);
    expect(noText.body).toMatchObject({ content: '', embeds: [{ title: 'card' }] });
    for (const body of [{ embeds: [] }, { embeds: null }, { content: '   ', embeds: [] }, { embeds: [{ color: 5 }] }]) {
      expectError(await call(srv.url, 'PATCH', messagePath(hook, m.id), { body }), 400, /must not be empty/);
    }
    const back = await call(srv.url, 'PATCH', messagePath(hook, m.id), { body: { content: 'text again', embeds: null } });
    expect(back.status, back.text).toBe(200);
    expect(back.body).toMatchObject({ content: 'text again', embeds: [] });
  });

  it('ignores keys it does not edit (username, avatar_url, allowed_mentions)', async () => {
    const m = await execute(hook, { content: 'before' });
    const r = await call(srv.url, 'PATCH', messagePath(hook, m.id), {
      body: { content: 'after', username: 'Someone else', avatar_url: 'not a url', allowed_mentions: { parse: [] } },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body.author).toEqual(m.author);
  });

  it('a PATCH whose message is deleted before it writes: 404, and only MESSAGE_DELETE is published', async () => {
    const m = await execute(hook, { content: 'about to go' });
    const row = await webhooks.authenticate(srv.app.ctx, hook.id, hook.token);
    const ctx = beforeFirstWrite(srv.app.ctx, async () => {
      const r = await call(srv.url, 'DELETE', messagePath(hook, m.id));
      expect(r.status, r.text).toBe(204);
    });
    await expect(webhooks.editMessage(ctx, row, m.id, { content: 'too late' })).rejects.toMatchObject({ status: 404 });
    expect(await eventsAbout(m.id)).toEqual(['MESSAGE_DELETE']);
  });
});

describe('DELETE /webhooks/{id}/{token}/messages/{messageId}', () => {
  it('204: gone from the channel; MESSAGE_DELETE names it', async () => {
    const m = await execute(hook, { content: 'temporary' });
    const r = await call(srv.url, 'DELETE', messagePath(hook, m.id));
    expect(r.status, r.text).toBe(204);
    expect(r.text).toBe('');
    const event = await gateway.waitForEvent('MESSAGE_DELETE', (d) => d.id === m.id);
    expect(event.d).toEqual({ id: m.id, channelId: w.channel.id, serverId: w.server.id });
    expectError(await ownerView(w.channel.id, m.id), 404);
    expectError(await call(srv.url, 'GET', messagePath(hook, m.id)), 404);
    expectError(await call(srv.url, 'DELETE', messagePath(hook, m.id)), 404);
  });

  it('removes the files the message carried', async () => {
    const form = new FormData();
    form.append('payload_json', JSON.stringify({ content: 'report' }));
    form.append('files[0]', new Blob(['a,b\n1,2\n'], { type: 'text/csv' }), 'report.csv');
    const posted = await call(srv.url, 'POST', new URL(hook.url).pathname, { raw: form });
    expect(posted.status, posted.text).toBe(200);
    const fileUrl: string = posted.body.attachments[0].url;
    expect((await call(fileUrl, 'GET', '')).status).toBe(200);
    const uploadsBefore = await countRows(srv, 'uploads');

    expect((await call(srv.url, 'DELETE', messagePath(hook, posted.body.id))).status).toBe(204);
    expect(await countRows(srv, 'uploads')).toBe(uploadsBefore - 1);
    expectError(await call(fileUrl, 'GET', ''), 404);
  });
});

describe('attachment:// in edited embeds', () => {
  it('names the message’s own files, as on Discord; a name it has no file for is dropped', async () => {
    const form = new FormData();
    form.append('payload_json', JSON.stringify({ content: 'chart attached' }));
    form.append('files[0]', new Blob([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], { type: 'image/png' }), 'chart.png');
    const posted = await call(srv.url, 'POST', new URL(hook.url).pathname, { raw: form });
    expect(posted.status, posted.text).toBe(200);
    const r = await call(srv.url, 'PATCH', messagePath(hook, posted.body.id), {
      body: { embeds: [{ title: 'Chart', image: { url: 'attachment://chart.png' }, thumbnail: { url: 'attachment://missing.png' } }] },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body.embeds).toEqual([{ title: 'Chart', image: { url: posted.body.attachments[0].url } }]);
  });
});

describe('only the webhook’s own messages, and only with its URL', () => {
  it('another author’s or another webhook’s message, an unknown or malformed id: 404 on every method, nothing changes', async () => {
    const byOwner = await postMessage(srv.url, w.owner.auth, w.channel.id, 'the owner’s');
    const byOther = await execute(otherHook, { content: 'the other hook’s' });
    const cases: Array<[string, string]> = [
      [byOwner.id, byOwner.content],
      [byOther.id, byOther.content],
    ];
    for (const id of [byOwner.id, byOther.id, UNKNOWN_ID, 'not-an-id', 'x'.repeat(80)]) {
      expectError(await call(srv.url, 'GET', messagePath(hook, id)), 404, /message/);
      expectError(await call(srv.url, 'PATCH', messagePath(hook, id), { body: { content: 'hijacked' } }), 404, /message/);
      expectError(await call(srv.url, 'DELETE', messagePath(hook, id)), 404, /message/);
    }
    for (const [id, content] of cases) {
      const r = await ownerView(w.channel.id, id);
      expect(r.status).toBe(200);
      expect(r.body.content).toBe(content);
      expect(r.body.editedAt).toBeNull();
    }
  });

  it('a wrong token, an unknown webhook or a deleted one: the same 404 as executing', async () => {
    const doomed = await createWebhook(srv.url, w.owner, w.server.id, w.channel.id, 'Doomed');
    const own = await execute(doomed, { content: 'posted before deletion' });
    const mine = await execute(hook, { content: 'mine' });
    expect((await call(srv.url, 'DELETE', `/webhooks/${doomed.id}`, { auth: w.owner.auth })).status).toBe(204);
    const wrongToken = `${hook.token.slice(0, -1)}${hook.token.endsWith('A') ? 'B' : 'A'}`;
    const urls = [
      `/webhooks/${hook.id}/${wrongToken}/messages/${mine.id}`,
      `/webhooks/${UNKNOWN_ID}/${hook.token}/messages/${mine.id}`,
      `/webhooks/${doomed.id}/${doomed.token}/messages/${own.id}`,
    ];
    const executeAnswer = await call(srv.url, 'POST', `/webhooks/${doomed.id}/${doomed.token}`, { body: { content: 'x' } });
    expectError(executeAnswer, 404);
    for (const url of urls) {
      for (const [method, body] of [
        ['GET', undefined],
        ['PATCH', { content: 'hijacked' }],
        ['DELETE', undefined],
      ] as const) {
        const r = await call(srv.url, method, url, { body });
        expectError(r, 404);
        expect(r.body).toEqual(executeAnswer.body);
      }
    }
    expect((await ownerView(w.channel.id, mine.id)).body.content).toBe('mine');
    expect((await ownerView(w.channel.id, own.id)).body.content).toBe('posted before deletion');
  });

  it('messages posted before the webhook was re-pointed to another channel are still its own', async () => {
    const h = await createWebhook(srv.url, w.owner, w.server.id, w.channel.id, 'Mover');
    const old = await execute(h, { content: 'in general' });
    const elsewhere = await createChannel(srv.url, w.owner, w.server.id);
    const moved = await call(srv.url, 'PATCH', `/webhooks/${h.id}`, { auth: w.owner.auth, body: { channelId: elsewhere.id } });
    expect(moved.status, moved.text).toBe(200);

    const got = await call(srv.url, 'GET', messagePath(h, old.id));
    expect(got.status, got.text).toBe(200);
    expect(got.body.channelId).toBe(w.channel.id);
    const edited = await call(srv.url, 'PATCH', messagePath(h, old.id), { body: { content: 'still in general' } });
    expect(edited.status, edited.text).toBe(200);
    expect(edited.body).toMatchObject({ channelId: w.channel.id, content: 'still in general' });
    expect((await call(srv.url, 'DELETE', messagePath(h, old.id))).status).toBe(204);
    expectError(await ownerView(w.channel.id, old.id), 404);
  });
});

describe('rate limit', () => {
  it('PATCH and DELETE count against the webhook’s 5 per 5 s with executions; GET does not', async () => {
    const owner = await registerUser(limited.url);
    const { server, general } = await createServer(limited.url, owner);
    const h = await createWebhook(limited.url, owner, server.id, general.id, 'Busy');
    const m = await execute(h, { content: 'v0' }, limited.url);
    for (let i = 1; i <= 4; i++) {
      const r = await call(limited.url, 'PATCH', messagePath(h, m.id), { body: { content: `v${i}` } });
      expect(r.status, r.text).toBe(200);
      expectRateHeaders(r, 5, 4 - i, 5);
    }
    expectRateLimited(await call(limited.url, 'PATCH', messagePath(h, m.id), { body: { content: 'v5' } }), 5, 5);
    expectRateLimited(await call(limited.url, 'DELETE', messagePath(h, m.id)), 5, 5);
    const r = await call(limited.url, 'GET', messagePath(h, m.id));
    expect(r.status, r.text).toBe(200);
    expect(r.body.content).toBe('v4');
  });
});
