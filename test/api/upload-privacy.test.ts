/**
 * docs/security.md#files-are-for-those-who-may-see-them (issue 35 items 1, 2 and 5): an upload's URL carries a secret, a
 * file is served only while something references it, a message attaches only files its
 * author may give, and files are stored only after the request is authorised and within
 * the caller's limits and quota.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addBot, call, createBot, createChannel, createWebhook, joinServer, registerUser, upload, world } from '../factories.js';
import { ClientPool } from '../gateway/client.js';
import { type TestServer, startServer } from '../harness.js';
import { UNKNOWN_ID, expectError } from './assert.js';

let srv: TestServer;
let w: Awaited<ReturnType<typeof world>>;

beforeAll(async () => {
  srv = await startServer({ env: { RATE_LIMITS: 'off', MAX_UPLOAD_BYTES: '4096' } });
  w = await world(srv.url);
});
afterAll(() => srv?.close());

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

/** `/uploads/<id>/<secret>/<name>`, split. */
function parts(url: string) {
  const m = /^\/uploads\/([0-9]+)\/([A-Za-z0-9_-]+)\/([^/]+)$/.exec(new URL(url).pathname);
  if (!m) throw new Error(`not an upload URL: ${url}`);
  return { id: m[1]!, secret: m[2]!, name: m[3]! };
}

async function get(url: string) {
  const r = await fetch(url);
  return { status: r.status, text: await r.text() };
}

/** The answer for a file that never existed: every refused guess must be exactly this. */
async function unknownFile() {
  return get(`${srv.url}/uploads/${UNKNOWN_ID}/${'A'.repeat(32)}/x.txt`);
}

async function attach(auth: string, channelId: string, url: string, filename = 'f') {
  return call(srv.url, 'POST', `/channels/${channelId}/messages`, { auth, body: { content: 'here', attachments: [{ url, filename }] } });
}

describe('item 1: upload URLs carry a secret; only referenced files are served', () => {
  it('the URL is /uploads/<id>/<secret of >= 128 bits>/<name>', async () => {
    const r = await upload(srv.url, w.owner.auth, 'hello', 'hello.txt', 'text/plain');
    expect(r.status, r.text).toBe(200);
    const p = parts(r.body.url);
    // base64url: 6 bits a character.
    expect(p.secret.length * 6).toBeGreaterThanOrEqual(128);
    expect(p.name).toBe('hello.txt');
    expect((await get(r.body.url)).status).toBe(200);
  });

  it('guessing ids without the secret finds nothing, a DM attachment included (same 404 as an unknown file)', async () => {
    const alice = await registerUser(srv.url);
    const bob = await registerUser(srv.url);
    await joinServer(srv.url, w.owner, alice, w.server.id);
    await joinServer(srv.url, w.owner, bob, w.server.id);
    const dm = await call(srv.url, 'POST', '/users/@me/channels', { auth: alice.auth, body: { recipientIds: [bob.id] } });
    expect(dm.status, dm.text).toBeLessThan(300);
    const up = await upload(srv.url, alice.auth, 'DM-SECRET medical report', 'report.txt', 'text/plain');
    const sent = await attach(alice.auth, dm.body.id, up.body.url, 'report.txt');
    expect(sent.status, sent.text).toBe(201);
    const p = parts(sent.body.attachments[0].url);
    expect((await get(sent.body.attachments[0].url)).text).toBe('DM-SECRET medical report');

    const unknown = await unknownFile();
    expect(unknown.status).toBe(404);
    const base = BigInt(p.id);
    const guesses: string[] = [
      `/uploads/${p.id}/${p.name}`, // the old shape: no secret
      `/uploads/${p.id}/anything`,
      `/uploads/${p.id}/${'A'.repeat(p.secret.length)}/${p.name}`,
      `/uploads/${p.id}/${p.secret.slice(0, -1)}${p.secret.endsWith('A') ? 'B' : 'A'}/${p.name}`,
      `/uploads/${p.id}/${p.secret.slice(0, -2)}/${p.name}`,
      `/uploads/${p.id}/${p.secret}/other.txt`, // the right secret, a wrong name
    ];
    for (let d = -300n; d <= 300n; d++) guesses.push(`/uploads/${base + d}/${'x'.repeat(p.secret.length)}/${p.name}`);
    for (const g of guesses) {
      const r = await get(srv.url + g);
      expect({ g, status: r.status, text: r.text }).toEqual({ g, status: 404, text: unknown.text });
    }
  });

  it('deleting the message that held a file makes its URL 404 at once (no sweep)', async () => {
    const up = await upload(srv.url, w.owner.auth, 'short-lived', 'gone.txt', 'text/plain');
    const sent = await attach(w.owner.auth, w.channel.id, up.body.url, 'gone.txt');
    expect(sent.status, sent.text).toBe(201);
    const url = sent.body.attachments[0].url;
    expect((await get(url)).status).toBe(200);
    const del = await call(srv.url, 'DELETE', `/channels/${w.channel.id}/messages/${sent.body.id}`, { auth: w.owner.auth });
    expect(del.status).toBe(204);
    const after = await get(url);
    expect(after).toEqual(await unknownFile());
  });

  it('deleting the channel of a file makes its URL 404 at once; an avatar keeps its file while it is the avatar', async () => {
    const room = await createChannel(srv.url, w.owner, w.server.id);
    const up = await upload(srv.url, w.owner.auth, 'in a room', 'room.txt', 'text/plain');
    const sent = await attach(w.owner.auth, room.id, up.body.url, 'room.txt');
    const url = sent.body.attachments[0].url;
    expect((await call(srv.url, 'DELETE', `/channels/${room.id}`, { auth: w.owner.auth })).status).toBe(204);
    expect(await get(url)).toEqual(await unknownFile());

    const face = await upload(srv.url, w.owner.auth, PNG, 'face.png', 'image/png');
    const set = await call(srv.url, 'PATCH', '/users/@me', { auth: w.owner.auth, body: { avatar: face.body.url } });
    expect(set.status, set.text).toBe(200);
    expect((await get(set.body.avatar)).status).toBe(200);
    expect((await call(srv.url, 'PATCH', '/users/@me', { auth: w.owner.auth, body: { avatar: null } })).status).toBe(200);
    expect(await get(set.body.avatar)).toEqual(await unknownFile());
  });
});

describe('item 2: a message attaches only files its author may give', () => {
  it("someone else's pending upload: 400 invalid_attachment, nothing stored", async () => {
    const mallory = await registerUser(srv.url);
    await joinServer(srv.url, w.owner, mallory, w.server.id);
    const up = await upload(srv.url, w.owner.auth, 'mine', 'mine.txt', 'text/plain');
    const before = await call(srv.url, 'GET', `/channels/${w.channel.id}/messages?limit=1`, { auth: w.owner.auth });
    expectError(await attach(mallory.auth, w.channel.id, up.body.url), 400, 'invalid_attachment');
    // Through the Discord layer too.
    const viaApi = await call(srv.url, 'POST', `/api/v10/channels/${w.channel.id}/messages`, {
      auth: mallory.auth,
      body: { content: 'x', attachments: [{ id: '0', url: up.body.url }] },
    });
    expect(viaApi.status).toBeGreaterThanOrEqual(400);
    const after = await call(srv.url, 'GET', `/channels/${w.channel.id}/messages?limit=1`, { auth: w.owner.auth });
    expect(after.body[0]?.id).toBe(before.body[0]?.id);
  });

  it('a file already attached in a channel the author can read may be re-posted there, not elsewhere', async () => {
    const mallory = await registerUser(srv.url);
    await joinServer(srv.url, w.owner, mallory, w.server.id);
    const up = await upload(srv.url, w.owner.auth, 'shared', 'shared.txt', 'text/plain');
    const sent = await attach(w.owner.auth, w.channel.id, up.body.url, 'shared.txt');
    const url = sent.body.attachments[0].url;
    const again = await attach(mallory.auth, w.channel.id, url, 'shared.txt');
    expect(again.status, again.text).toBe(201);
    const other = await createChannel(srv.url, w.owner, w.server.id);
    expectError(await attach(mallory.auth, other.id, url, 'shared.txt'), 400, 'invalid_attachment');
  });

  it('a bot may not take a person’s upload as its avatar', async () => {
    const mallory = await registerUser(srv.url);
    const bot = await createBot(srv.url, mallory);
    const up = await upload(srv.url, w.owner.auth, PNG, 'face.png', 'image/png');
    expectError(
      await call(srv.url, 'PATCH', `/bots/${bot.id}`, { auth: mallory.auth, body: { avatar: up.body.url } }),
      400,
      'invalid_attachment',
    );
    const own = await upload(srv.url, mallory.auth, PNG, 'mine.png', 'image/png');
    const ok = await call(srv.url, 'PATCH', `/bots/${bot.id}`, { auth: mallory.auth, body: { avatar: own.body.url } });
    expect(ok.status, ok.text).toBe(200);
    expect((await get(ok.body.avatar)).status).toBe(200);
    void addBot;
  });

  it("a server icon may be only the caller's own upload, and is kept while it is the icon", async () => {
    const mallory = await registerUser(srv.url);
    const up = await upload(srv.url, mallory.auth, PNG, 'icon.png', 'image/png');
    expectError(
      await call(srv.url, 'PATCH', `/servers/${w.server.id}`, { auth: w.owner.auth, body: { icon: up.body.url } }),
      400,
      'invalid_attachment',
    );
    const own = await upload(srv.url, w.owner.auth, PNG, 'icon.png', 'image/png');
    const ok = await call(srv.url, 'PATCH', `/servers/${w.server.id}`, { auth: w.owner.auth, body: { icon: own.body.url } });
    expect(ok.status, ok.text).toBe(200);
    expect((await get(ok.body.icon)).status).toBe(200);
    const cleared = await call(srv.url, 'PATCH', `/servers/${w.server.id}`, { auth: w.owner.auth, body: { icon: null } });
    expect(cleared.status).toBe(200);
    expect((await get(own.body.url)).status).toBe(404);
  });
});

describe('item 2 on the interaction paths', () => {
  const pool = new ClientPool();
  afterAll(() => pool.closeAll());

  it("a bot's answer and follow-up may not carry a person's upload; an attachment option may not carry someone else's", async () => {
    const command = {
      name: 'show',
      description: 'Show a file',
      options: [{ type: 'attachment', name: 'file', description: 'The file' }],
    };
    expect((await call(srv.url, 'PUT', `/bots/${w.bot.id}/commands`, { auth: w.bot.auth, body: [command] })).status).toBe(200);
    const gw = await pool.identify(srv.gatewayUrl, w.bot.auth);
    const mallory = await registerUser(srv.url);
    await joinServer(srv.url, w.owner, mallory, w.server.id);
    const ownersFile = await upload(srv.url, w.owner.auth, 'the owner’s', 'owner.txt', 'text/plain');

    // The invoker names someone else's pending upload as the option: refused before the bot hears of it.
    const stolen = await call(srv.url, 'POST', `/channels/${w.channel.id}/interactions`, {
      auth: mallory.auth,
      body: { type: 'command', botId: w.bot.id, name: 'show', options: { file: ownersFile.body.url } },
    });
    expect(stolen.status).toBe(400);

    const r = await call(srv.url, 'POST', `/channels/${w.channel.id}/interactions`, {
      auth: w.owner.auth,
      body: { type: 'command', botId: w.bot.id, name: 'show', options: {} },
    });
    expect(r.status, r.text).toBe(202);
    const i = (await gw.waitForEvent('INTERACTION_CREATE', (d) => d.id === r.body.id)).d;
    const personal = await upload(srv.url, mallory.auth, 'mallory’s', 'm.txt', 'text/plain');
    const answer = await call(srv.url, 'POST', `/interactions/${i.id}/${i.token}/callback`, {
      body: { type: 'message', data: { content: 'look', attachments: [{ url: personal.body.url, filename: 'm.txt' }] } },
    });
    expectError(answer, 400, 'invalid_attachment');
    const own = await upload(srv.url, w.bot.auth, 'the bot’s', 'b.txt', 'text/plain');
    const ok = await call(srv.url, 'POST', `/interactions/${i.id}/${i.token}/callback`, {
      body: { type: 'message', data: { content: 'look', attachments: [{ url: own.body.url, filename: 'b.txt' }] } },
    });
    expect(ok.status, ok.text).toBe(204);
    const followUp = await call(srv.url, 'POST', `/interactions/${i.token}/followups`, {
      body: { content: 'again', attachments: [{ url: personal.body.url, filename: 'm.txt' }] },
    });
    expectError(followUp, 400, 'invalid_attachment');
  });
});

describe('item 5: files are stored only after the request is authorised, within limits', () => {
  const uploadsDir = (s: TestServer) => path.join(s.dataDir, 'uploads');
  const stored = (s: TestServer) => (fs.existsSync(uploadsDir(s)) ? fs.readdirSync(uploadsDir(s)).length : 0);

  function tenFiles() {
    const form = new FormData();
    form.append('payload_json', JSON.stringify({ content: 'spam' }));
    for (let i = 0; i < 10; i++) form.append(`files[${i}]`, new Blob(['x'.repeat(1000)]), `f${i}.bin`);
    return form;
  }

  it('a post to a made-up channel is answered 404 before its body is read (a body that never ends)', async () => {
    const enc = new TextEncoder();
    const boundary = 'parleyboundary';
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(enc.encode(`--${boundary}\r\nContent-Disposition: form-data; name="payload_json"\r\n\r\n{"content":"x"}\r\n`));
        c.enqueue(enc.encode(`--${boundary}\r\nContent-Disposition: form-data; name="files[0]"; filename="a.bin"\r\n\r\n`));
        c.enqueue(enc.encode('x'.repeat(100)));
        // ...and never more: a server that reads before it checks waits here.
      },
    });
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), 10_000);
    try {
      const r = await fetch(`${srv.url}/api/v10/channels/${UNKNOWN_ID}/messages`, {
        method: 'POST',
        headers: { authorization: w.bot.auth, 'content-type': `multipart/form-data; boundary=${boundary}` },
        body,
        signal: abort.signal,
        duplex: 'half',
      } as RequestInit);
      expect(r.status).toBe(404);
    } finally {
      clearTimeout(timer);
      abort.abort();
    }
  });

  it('20 /api multipart posts to made-up channels store nothing, and the limiter counts the caller', async () => {
    const limited = await startServer({ env: { MAX_UPLOAD_BYTES: '4096' } });
    try {
      const lw = await world(limited.url);
      const before = stored(limited);
      const statuses: number[] = [];
      for (let i = 0; i < 20; i++) {
        const r = await call(limited.url, 'POST', `/api/v10/channels/${BigInt(UNKNOWN_ID) + BigInt(i)}/messages`, {
          auth: lw.bot.auth,
          raw: tenFiles(),
        });
        statuses.push(r.status);
      }
      expect(stored(limited)).toBe(before);
      expect(new Set(statuses)).toEqual(new Set([404]));
      // A real channel: the per-caller upload limit stops files before they are written.
      const real: number[] = [];
      for (let i = 0; i < 5; i++) {
        const r = await call(limited.url, 'POST', `/api/v10/channels/${lw.channel.id}/messages`, { auth: lw.bot.auth, raw: tenFiles() });
        real.push(r.status);
      }
      expect(real).toContain(429);
      expect(stored(limited) - before).toBeLessThanOrEqual(10);
      // A webhook's files count against the webhook's own upload limit the same way.
      const hook = await createWebhook(limited.url, lw.owner, lw.server.id, lw.channel.id);
      const hookBefore = stored(limited);
      const viaHook: number[] = [];
      for (let i = 0; i < 2; i++) {
        const r = await call(limited.url, 'POST', `/webhooks/${hook.id}/${hook.token}?wait=true`, { raw: tenFiles() });
        viaHook.push(r.status);
      }
      expect(viaHook).toEqual([200, 429]);
      expect(stored(limited) - hookBefore).toBe(10);
    } finally {
      await limited.close();
    }
  });

  it('UPLOAD_QUOTA_BYTES and MAX_UPLOAD_STORAGE: over either is 413 with a code, nothing stored', async () => {
    const q = await startServer({ env: { RATE_LIMITS: 'off', UPLOAD_QUOTA_BYTES: '2500', MAX_UPLOAD_STORAGE: '4000' } });
    try {
      const qw = await world(q.url);
      const other = await registerUser(q.url);
      expect((await upload(q.url, qw.owner.auth, 'a'.repeat(2000), 'a.bin')).status).toBe(200);
      const n = stored(q);
      expectError(await upload(q.url, qw.owner.auth, 'b'.repeat(1000), 'b.bin'), 413, 'upload_quota_exceeded');
      expect(stored(q)).toBe(n);
      // Through the Discord layer as well.
      const form = new FormData();
      form.append('payload_json', JSON.stringify({ content: 'x' }));
      form.append('files[0]', new Blob(['c'.repeat(1000)]), 'c.bin');
      const viaApi = await call(q.url, 'POST', `/api/v10/channels/${qw.channel.id}/messages`, { auth: qw.owner.auth, raw: form });
      expect(viaApi.status).toBe(413);
      expect(stored(q)).toBe(n);
      // Another account has its own quota, but the instance's total is shared.
      expect((await upload(q.url, other.auth, 'd'.repeat(1500), 'd.bin')).status).toBe(200);
      expectError(await upload(q.url, other.auth, 'e'.repeat(800), 'e.bin'), 507, 'upload_storage_full');
      expect(stored(q)).toBe(n + 1);
    } finally {
      await q.close();
    }
  });
});
