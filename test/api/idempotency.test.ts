/**
 * `Idempotency-Key` (docs/webhooks.md#5-idempotency-key) on the two seed message-creating POSTs: send-message and
 * webhook execution. Counting is done through the channel's history, so a duplicate that
 * was stored but not returned would still be caught.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createBot, addBot, createChannel, createWebhook, world } from '../factories.js';
import { type TestServer, startServer } from '../harness.js';
import { countRows, expectError, history } from './assert.js';

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

describe('an expired record not yet swept (security review, finding 3)', () => {
  /** Writes a record as a request 25 hours ago would have left it. */
  const expiredRecord = (caller: string, k: string) =>
    srv.app.ctx.store.write((tx) =>
      srv.app.ctx.store.idempotency.insert(tx, {
        caller,
        key: k,
        fingerprint: 'an older request',
        status: 201,
        body: JSON.stringify({ id: 'OLD', content: 'from yesterday' }),
        createdAt: new Date(Date.now() - 25 * 3600_000).toISOString(),
      }),
    );

  it('send-message: the new request replaces it (201, a new message), and its retries replay the new one', async () => {
    const c = await createChannel(srv.url, w.owner, w.server.id);
    const k = key();
    await expiredRecord(`user:${w.bot.id}`, k);
    const send = () =>
      call(srv.url, 'POST', `/channels/${c.id}/messages`, {
        auth: w.bot.auth,
        body: { content: 'today' },
        headers: { 'idempotency-key': k },
      });
    const first = await send();
    expect(first.status, first.text).toBe(201);
    expect(first.body.id).not.toBe('OLD');
    expect(first.body.content).toBe('today');
    const retry = await send();
    expect(retry.status).toBe(201);
    expect(retry.body).toEqual(first.body);
    expect((await history(srv.url, w.owner.auth, c.id)).map((m) => m.id)).toEqual([first.body.id]);
  });

  it('webhook execution: the same, and concurrent first uses still create one message', async () => {
    const c = await createChannel(srv.url, w.owner, w.server.id);
    const hook = await createWebhook(srv.url, w.owner, w.server.id, c.id, 'Daily');
    const k = key();
    await expiredRecord(`webhook:${hook.id}`, k);
    const results = await Promise.all(
      Array.from({ length: 5 }, () => call(hook.url, 'POST', '', { body: { content: 'daily report' }, headers: { 'idempotency-key': k } })),
    );
    for (const r of results) expect(r.status, r.text).toBe(200);
    expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
    expect(results[0]!.body.id).not.toBe('OLD');
    expect(await history(srv.url, w.owner.auth, c.id)).toHaveLength(1);
  });
});

describe('webhook multipart with files and Idempotency-Key (security review, finding 1)', () => {
  const uploadsDir = () => path.join(srv.dataDir, 'uploads');
  const storedFiles = () => (fs.existsSync(uploadsDir()) ? fs.readdirSync(uploadsDir()).length : 0);
  const stored = async () => ({ rows: await countRows(srv, 'uploads'), files: storedFiles() });

  /** Counts calls into the real upload store while `fn` runs. */
  async function countingPuts<T>(fn: () => Promise<T>): Promise<{ result: T; puts: number }> {
    const files = srv.app.ctx.files;
    const real = files.put;
    let puts = 0;
    files.put = (id, data) => {
      puts++;
      return real.call(files, id, data);
    };
    try {
      return { result: await fn(), puts };
    } finally {
      files.put = real;
    }
  }

  const form = (payload: unknown, files: Array<[string, string]>) => {
    const f = new FormData();
    f.append('payload_json', typeof payload === 'string' ? payload : JSON.stringify(payload));
    files.forEach(([name, body], i) => f.append(`files[${i}]`, new Blob([body], { type: 'text/plain' }), name));
    return f;
  };
  const exec = (url: string, body: FormData, k?: string) =>
    call(url, 'POST', '', { raw: body, ...(k ? { headers: { 'idempotency-key': k } } : {}) });

  let hook: Awaited<ReturnType<typeof createWebhook>>;
  let channelId: string;
  beforeAll(async () => {
    channelId = (await createChannel(srv.url, w.owner, w.server.id)).id;
    hook = await createWebhook(srv.url, w.owner, w.server.id, channelId, 'Uploader');
  });

  it('a replay stores nothing and returns the first response', async () => {
    const k = key();
    const first = await exec(hook.url, form({ content: 'build log' }, [['build.log', 'line 1\n']]), k);
    expect(first.status, first.text).toBe(200);
    expect(first.body.attachments).toHaveLength(1);
    const before = await stored();
    const { result: replay, puts } = await countingPuts(() =>
      exec(hook.url, form({ content: 'build log' }, [['build.log', 'line 1\n']]), k),
    );
    expect(replay.status, replay.text).toBe(200);
    expect(replay.body).toEqual(first.body);
    expect(puts).toBe(0);
    expect(await stored()).toEqual(before);
  });

  it('the same key with other file bytes (same name and size) is 409 and stores nothing', async () => {
    const k = key();
    expect((await exec(hook.url, form({ content: 'x' }, [['a.txt', 'AAAA']]), k)).status).toBe(200);
    const before = await stored();
    const { result, puts } = await countingPuts(() => exec(hook.url, form({ content: 'x' }, [['a.txt', 'BBBB']]), k));
    expectError(result, 409, /Idempotency-Key/);
    expect(puts).toBe(0);
    expect(await stored()).toEqual(before);
  });

  it('concurrent first uses of a key: one message, and only its files are kept', async () => {
    const k = key();
    const before = await stored();
    const messagesBefore = (await history(srv.url, w.owner.auth, channelId)).length;
    // All six usually look the key up before any has committed, so all store their files.
    const results = await Promise.all(
      Array.from({ length: 6 }, () =>
        exec(
          hook.url,
          form({ content: 'once' }, [
            ['one.txt', 'one'],
            ['two.txt', 'two'],
          ]),
          k,
        ),
      ),
    );
    for (const r of results) expect(r.status, r.text).toBe(200);
    expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
    expect(await history(srv.url, w.owner.auth, channelId)).toHaveLength(messagesBefore + 1);
    expect(await stored()).toEqual({ rows: before.rows + 2, files: before.files + 2 });
    for (const a of results[0]!.body.attachments) expect((await fetch(a.url)).status).toBe(200);
  });

  it('a payload refused before the first file is stored: 400 and the store is never called', async () => {
    const before = await stored();
    const { result, puts } = await countingPuts(() => exec(hook.url, form('{"embeds": "not an array"}', [['x.txt', 'x']]), key()));
    expectError(result, 400);
    expect(puts).toBe(0);
    expect(await stored()).toEqual(before);
  });

  it('a malformed key: 400 before anything is stored', async () => {
    const before = await stored();
    const { result, puts } = await countingPuts(() => exec(hook.url, form({ content: 'x' }, [['x.txt', 'x']]), 'has space'));
    expectError(result, 400, /Idempotency-Key/);
    expect(puts).toBe(0);
    expect(await stored()).toEqual(before);
  });

  it('a post that fails after its files were stored keeps none of them, and does not use up the key', async () => {
    const k = key();
    const before = await stored();
    // NUL is refused by the domain action, after both files were stored.
    const { result: bad, puts } = await countingPuts(() =>
      exec(
        hook.url,
        form({ content: 'nul \u0000 inside' }, [
          ['a.txt', 'a'],
          ['b.txt', 'b'],
        ]),
        k,
      ),
    );
    expectError(bad, 400, /NUL/);
    expect(puts).toBe(2);
    expect(await stored()).toEqual(before);
    const good = await exec(hook.url, form({ content: 'fixed' }, [['a.txt', 'a']]), k);
    expect(good.status, good.text).toBe(200);
    expect(await stored()).toEqual({ rows: before.rows + 1, files: before.files + 1 });
  });
});
