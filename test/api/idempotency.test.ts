/**
 * `Idempotency-Key` (contract 8) on the two seed message-creating POSTs: send-message and
 * webhook execution. Counting is done through the channel's history, so a duplicate that
 * was stored but not returned would still be caught.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createBot, addBot, createChannel, createWebhook, world } from '../factories.js';
import { type TestServer, startServer } from '../harness.js';
import { expectError, history } from './assert.js';

let srv: TestServer;
let w: Awaited<ReturnType<typeof world>>;

beforeAll(async () => {
  srv = await startServer({ env: { RATE_LIMITS: 'off' } });
  w = await world(srv.url);
});
afterAll(() => srv?.close());

const key = () => `key-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;

describe('POST /channels/{channelId}/messages with Idempotency-Key', () => {
  const send = (auth: string, channelId: string, body: unknown, idempotencyKey?: string) =>
    call(srv.url, 'POST', `/channels/${channelId}/messages`, {
      auth,
      body,
      ...(idempotencyKey ? { headers: { 'idempotency-key': idempotencyKey } } : {}),
    });

  it('a retry with the same key returns the same message and creates nothing', async () => {
    const c = await createChannel(srv.url, w.owner, w.server.id);
    const k = key();
    const first = await send(w.bot.auth, c.id, { content: 'exactly once' }, k);
    expect(first.status, first.text).toBe(201);
    const retry = await send(w.bot.auth, c.id, { content: 'exactly once' }, k);
    expect(retry.status).toBe(201);
    expect(retry.body.id).toBe(first.body.id);
    expect(retry.body).toEqual(first.body);
    const third = await send(w.bot.auth, c.id, { content: 'exactly once' }, k);
    expect(third.body.id).toBe(first.body.id);
    expect((await history(srv.url, w.owner.auth, c.id)).map((m) => m.id)).toEqual([first.body.id]);
  });

  it('10 concurrent requests with the same key create exactly one message', async () => {
    const c = await createChannel(srv.url, w.owner, w.server.id);
    const k = key();
    const results = await Promise.all(Array.from({ length: 10 }, () => send(w.bot.auth, c.id, { content: 'stampede' }, k)));
    for (const r of results) expect(r.status, r.text).toBe(201);
    const ids = new Set(results.map((r) => r.body.id));
    expect(ids.size).toBe(1);
    const stored = await history(srv.url, w.owner.auth, c.id);
    expect(stored).toHaveLength(1);
    expect(stored[0].id).toBe([...ids][0]);
    expect(stored[0].content).toBe('stampede');
  });

  it('a different key creates a new message; no key always creates', async () => {
    const c = await createChannel(srv.url, w.owner, w.server.id);
    const a = await send(w.bot.auth, c.id, { content: 'same text' }, key());
    const b = await send(w.bot.auth, c.id, { content: 'same text' }, key());
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.body.id).not.toBe(a.body.id);
    const n1 = await send(w.bot.auth, c.id, { content: 'same text' });
    const n2 = await send(w.bot.auth, c.id, { content: 'same text' });
    expect(n2.body.id).not.toBe(n1.body.id);
    expect(await history(srv.url, w.owner.auth, c.id)).toHaveLength(4);
  });

  it('the same key with a different body, or for another channel: 409, nothing created', async () => {
    const c = await createChannel(srv.url, w.owner, w.server.id);
    const other = await createChannel(srv.url, w.owner, w.server.id);
    const k = key();
    const first = await send(w.bot.auth, c.id, { content: 'original' }, k);
    expect(first.status).toBe(201);
    expectError(await send(w.bot.auth, c.id, { content: 'changed' }, k), 409, /Idempotency-Key/);
    expectError(await send(w.bot.auth, other.id, { content: 'original' }, k), 409);
    expect((await history(srv.url, w.owner.auth, c.id)).map((m) => m.id)).toEqual([first.body.id]);
    expect(await history(srv.url, w.owner.auth, other.id)).toEqual([]);
    // The original request can still be replayed.
    expect((await send(w.bot.auth, c.id, { content: 'original' }, k)).body.id).toBe(first.body.id);
  });

  it('keys belong to their caller: another caller with the same key gets its own message', async () => {
    const c = await createChannel(srv.url, w.owner, w.server.id);
    const bot2 = await createBot(srv.url, w.owner);
    await addBot(srv.url, w.owner, w.server.id, bot2.id);
    const k = key();
    const a = await send(w.bot.auth, c.id, { content: 'hello' }, k);
    const b = await send(bot2.auth, c.id, { content: 'hello' }, k);
    const p = await send(w.owner.auth, c.id, { content: 'hello' }, k);
    expect(new Set([a.body.id, b.body.id, p.body.id]).size).toBe(3);
    expect(b.body.author.id).toBe(bot2.id);
    expect(p.body.author.id).toBe(w.owner.id);
    expect(await history(srv.url, w.owner.auth, c.id)).toHaveLength(3);
  });

  it('a failed request does not consume the key', async () => {
    const c = await createChannel(srv.url, w.owner, w.server.id);
    const k = key();
    expectError(await send(w.bot.auth, c.id, { content: '   ' }, k), 400);
    const ok = await send(w.bot.auth, c.id, { content: 'now valid' }, k);
    expect(ok.status, ok.text).toBe(201);
    expect((await history(srv.url, w.owner.auth, c.id)).map((m) => m.id)).toEqual([ok.body.id]);
  });

  it('a malformed key: 400', async () => {
    const c = await createChannel(srv.url, w.owner, w.server.id);
    for (const k of ['x'.repeat(256), 'has space', 'tab\tkey']) {
      expectError(await send(w.bot.auth, c.id, { content: 'x' }, k), 400, /Idempotency-Key/);
    }
    expect(await history(srv.url, w.owner.auth, c.id)).toEqual([]);
  });
});

describe('POST /webhooks/{webhookId}/{token} with Idempotency-Key', () => {
  const exec = (url: string, body: unknown, idempotencyKey?: string) =>
    call(url, 'POST', '', { body, ...(idempotencyKey ? { headers: { 'idempotency-key': idempotencyKey } } : {}) });

  it('a retry with the same key returns the same message and creates nothing', async () => {
    const c = await createChannel(srv.url, w.owner, w.server.id);
    const hook = await createWebhook(srv.url, w.owner, w.server.id, c.id, 'Retrier');
    const k = key();
    const first = await exec(hook.url, { content: 'deploy #1' }, k);
    expect(first.status, first.text).toBe(200);
    expect(first.body.webhookId).toBe(hook.id);
    const retry = await exec(hook.url, { content: 'deploy #1' }, k);
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual(first.body);
    expect((await history(srv.url, w.owner.auth, c.id)).map((m) => m.id)).toEqual([first.body.id]);
  });

  it('10 concurrent requests with the same key create exactly one message', async () => {
    const c = await createChannel(srv.url, w.owner, w.server.id);
    const hook = await createWebhook(srv.url, w.owner, w.server.id, c.id, 'Stampede');
    const k = key();
    const results = await Promise.all(Array.from({ length: 10 }, () => exec(hook.url, { content: 'alert fired' }, k)));
    for (const r of results) expect(r.status, r.text).toBe(200);
    expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
    const stored = await history(srv.url, w.owner.auth, c.id);
    expect(stored).toHaveLength(1);
    expect(stored[0].id).toBe(results[0]!.body.id);
  });

  it('a different key creates a new message; the same key with a different body is 409', async () => {
    const c = await createChannel(srv.url, w.owner, w.server.id);
    const hook = await createWebhook(srv.url, w.owner, w.server.id, c.id, 'Keys');
    const k = key();
    const a = await exec(hook.url, { content: 'one' }, k);
    const b = await exec(hook.url, { content: 'one' }, key());
    expect(b.status).toBe(200);
    expect(b.body.id).not.toBe(a.body.id);
    expectError(await exec(hook.url, { content: 'two' }, k), 409);
    expect((await history(srv.url, w.owner.auth, c.id)).map((m) => m.id)).toEqual([b.body.id, a.body.id]);
  });

  it('keys belong to their webhook: another webhook with the same key posts its own message', async () => {
    const c = await createChannel(srv.url, w.owner, w.server.id);
    const h1 = await createWebhook(srv.url, w.owner, w.server.id, c.id, 'One');
    const h2 = await createWebhook(srv.url, w.owner, w.server.id, c.id, 'Two');
    const k = key();
    const a = await exec(h1.url, { content: 'same' }, k);
    const b = await exec(h2.url, { content: 'same' }, k);
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(b.body.id).not.toBe(a.body.id);
    expect(b.body.webhookId).toBe(h2.id);
    expect(await history(srv.url, w.owner.auth, c.id)).toHaveLength(2);
  });

  it('a key is not a credential: a wrong token with a used key is still 404', async () => {
    const c = await createChannel(srv.url, w.owner, w.server.id);
    const hook = await createWebhook(srv.url, w.owner, w.server.id, c.id, 'Guarded');
    const k = key();
    expect((await exec(hook.url, { content: 'x' }, k)).status).toBe(200);
    expectError(await exec(`${srv.url}/webhooks/${hook.id}/wrong-token`, { content: 'x' }, k), 404);
  });
});
