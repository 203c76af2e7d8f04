/**
 * Files do not outlive their messages: deleting a message or a channel deletes the files
 * no other message references, unattached uploads are swept after
 * UNATTACHED_UPLOAD_TTL_HOURS, and caches keep a file for minutes, not a year.
 */
import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { messages } from '../../src/domain/messages.js';
import { sweepUnattachedUploads } from '../../src/domain/uploads.js';
import { call, createChannel, joinServer, registerUser, upload, world } from '../factories.js';
import { type TestServer, startServer } from '../harness.js';
import { expectError } from './assert.js';
import { beforeFirstWrite } from './interleave.js';

let srv: TestServer;
let w: Awaited<ReturnType<typeof world>>;

beforeAll(async () => {
  srv = await startServer({ env: { RATE_LIMITS: 'off' } });
  w = await world(srv.url);
});
afterAll(() => srv?.close());

const idOf = (url: string) => new URL(url).pathname.split('/')[2]!;
const onDisk = (url: string) => fs.existsSync(path.join(srv.dataDir, 'uploads', idOf(url)));
const fetchStatus = async (url: string) => (await fetch(url)).status;
const uploadRow = async (url: string) =>
  (await sql<{ id: string }>`select id from uploads where id = ${idOf(url)}`.execute(srv.app.ctx.store.db)).rows[0];

async function uploaded(name = 'doc.txt', bytes = `bytes of ${name}`): Promise<string> {
  const r = await upload(srv.url, w.bot.auth, bytes, name, 'text/plain');
  expect(r.status, r.text).toBe(200);
  return r.body.url as string;
}

async function post(channelId: string, urls: string[]) {
  const r = await call(srv.url, 'POST', `/channels/${channelId}/messages`, {
    auth: w.bot.auth,
    body: { content: 'with files', attachments: urls.map((url) => ({ url, filename: 'x' })) },
  });
  expect(r.status, r.text).toBe(201);
  return r.body as { id: string; attachments: Array<{ url: string }> };
}

const remove = (channelId: string, messageId: string) =>
  call(srv.url, 'DELETE', `/channels/${channelId}/messages/${messageId}`, { auth: w.bot.auth });

/** Everything of an upload is gone: not served, no record, no bytes. */
async function expectGone(url: string) {
  expect(await fetchStatus(url)).toBe(404);
  expect(await uploadRow(url)).toBeUndefined();
  expect(onDisk(url)).toBe(false);
}

async function expectServed(url: string) {
  expect(await fetchStatus(url)).toBe(200);
  expect(onDisk(url)).toBe(true);
}

describe('deleting a message deletes its files', () => {
  it('the attachment is no longer served once DELETE answered 204', async () => {
    const url = await uploaded('secret.txt');
    const m = await post(w.channel.id, [url]);
    await expectServed(m.attachments[0]!.url);
    expect((await remove(w.channel.id, m.id)).status).toBe(204);
    await expectGone(url);
  });

  it('an upload attached to two messages stays until the last of them is deleted', async () => {
    const url = await uploaded('shared.txt');
    const a = await post(w.channel.id, [url]);
    const b = await post(w.channel.id, [url]);
    expect((await remove(w.channel.id, a.id)).status).toBe(204);
    await expectServed(url);
    expect((await remove(w.channel.id, b.id)).status).toBe(204);
    await expectGone(url);
  });

  it('deleting a message twice: the second is 404 and deletes nothing else', async () => {
    const url = await uploaded('twice.txt');
    const m = await post(w.channel.id, [url]);
    const [first, second] = await Promise.all([remove(w.channel.id, m.id), remove(w.channel.id, m.id)]);
    expect([first.status, second.status].sort()).toEqual([204, 404]);
    expectError(first.status === 404 ? first : second, 404);
    await expectGone(url);
  });

  it('deleting a channel deletes the files of its messages, not those another channel still shows', async () => {
    const doomed = await createChannel(srv.url, w.owner, w.server.id);
    const other = await createChannel(srv.url, w.owner, w.server.id);
    const only = await uploaded('only-here.txt');
    const shared = await uploaded('also-elsewhere.txt');
    await post(doomed.id, [only, shared]);
    await post(doomed.id, [only]);
    await post(other.id, [shared]);
    const r = await call(srv.url, 'DELETE', `/channels/${doomed.id}`, { auth: w.owner.auth });
    expect(r.status, r.text).toBe(204);
    await expectGone(only);
    await expectServed(shared);
  });
});

describe('a ban that deletes messages deletes their files', () => {
  it("the banned member's files go with their messages at once; a file another message shows stays", async () => {
    const spammer = await registerUser(srv.url);
    await joinServer(srv.url, w.owner, spammer, w.server.id);
    const own = await upload(srv.url, spammer.auth, 'spam bytes', 'spam.txt', 'text/plain');
    expect(own.status, own.text).toBe(200);
    const shared = await uploaded('shared-with-spammer.txt');
    await post(w.channel.id, [shared]);
    const sent = await call(srv.url, 'POST', `/channels/${w.channel.id}/messages`, {
      auth: spammer.auth,
      body: { content: 'spam', attachments: [own.body.url, shared].map((url) => ({ url, filename: 'x' })) },
    });
    expect(sent.status, sent.text).toBe(201);
    const r = await call(srv.url, 'PUT', `/servers/${w.server.id}/bans/${spammer.id}`, {
      auth: w.owner.auth,
      body: { deleteMessageSeconds: 3600 },
    });
    expect(r.status, r.text).toBe(204);
    await expectGone(own.body.url as string);
    await expectServed(shared);
  });
});

describe('GET /uploads/{id}/{name}: cache lifetime', () => {
  it('caches keep a file for five minutes, with the upload id as ETag; revalidation is a 304, or 404 once deleted', async () => {
    const url = await uploaded('cached.txt');
    const r = await fetch(url);
    const cacheControl = r.headers.get('cache-control') ?? '';
    expect(cacheControl).toBe('public, max-age=300');
    expect(cacheControl).not.toMatch(/immutable/);
    const etag = r.headers.get('etag');
    expect(etag).toBe(`"${idOf(url)}"`);
    const again = await fetch(url, { headers: { 'if-none-match': etag! } });
    expect(again.status).toBe(304);
    expect(again.headers.get('etag')).toBe(etag);
    expect(await again.text()).toBe('');
    expect((await fetch(url, { headers: { 'if-none-match': `"other", W/${etag}` } })).status).toBe(304);
    expect((await fetch(url, { headers: { 'if-none-match': '"other"' } })).status).toBe(200);

    const m = await post(w.channel.id, [url]);
    expect((await remove(w.channel.id, m.id)).status).toBe(204);
    const stale = await call(srv.url, 'GET', new URL(url).pathname, { headers: { 'if-none-match': etag! } });
    expectError(stale, 404);
  });
});

describe('the sweep of unattached uploads', () => {
  const inAMoment = () => new Date(Date.now() + 1000);

  it('removes uploads no message references that are older than the cutoff, and nothing else', async () => {
    const orphan = await uploaded('never-attached.txt');
    const young = await uploaded('just-uploaded.txt');
    const attached = await uploaded('attached.txt');
    await post(w.channel.id, [attached]);
    // The cutoff falls between the orphan and the young upload.
    await srv.app.ctx.store.write((tx) =>
      sql`update uploads set created_at = ${new Date(Date.now() - 48 * 3600_000).toISOString()} where id in (${idOf(orphan)}, ${idOf(attached)})`.execute(
        tx,
      ),
    );
    const removed = await sweepUnattachedUploads(srv.app.ctx, new Date(Date.now() - 24 * 3600_000));
    expect(removed).toBeGreaterThanOrEqual(1);
    await expectGone(orphan);
    await expectServed(young);
    await expectServed(attached);
  });

  it('an upload swept before it is attached: the message is refused with 400 and not created', async () => {
    const c = await createChannel(srv.url, w.owner, w.server.id);
    const url = await uploaded('late.txt');
    await sweepUnattachedUploads(srv.app.ctx, inAMoment());
    const r = await call(srv.url, 'POST', `/channels/${c.id}/messages`, {
      auth: w.bot.auth,
      body: { content: 'too late', attachments: [{ url, filename: 'late.txt' }] },
    });
    expectError(r, 400, /url/);
    const list = await call(srv.url, 'GET', `/channels/${c.id}/messages`, { auth: w.owner.auth });
    expect(list.body).toEqual([]);
  });

  it('swept after the message resolved it but before the message is written: 400, no message, no link to a deleted file', async () => {
    const c = await createChannel(srv.url, w.owner, w.server.id);
    const url = await uploaded('in-the-window.txt');
    const bot = { id: w.bot.id, name: w.bot.name, bot: true, avatar: null };
    const ctx = beforeFirstWrite(srv.app.ctx, () => sweepUnattachedUploads(srv.app.ctx, inAMoment()));
    const sent = messages.send(ctx, bot, c.id, { content: 'x', attachments: [{ url, filename: 'in-the-window.txt' }] });
    await expect(sent).rejects.toMatchObject({ status: 400, message: expect.stringMatching(/no longer exists/) });
    await expectGone(url);
    const list = await call(srv.url, 'GET', `/channels/${c.id}/messages`, { auth: w.owner.auth });
    expect(list.body).toEqual([]);
  });
});

describe('UNATTACHED_UPLOAD_TTL_HOURS', () => {
  it('defaults to 24 hours and takes whole hours from 1 to 8760', () => {
    expect(loadConfig({}).unattachedUploadTtlMs).toBe(24 * 3600_000);
    expect(loadConfig({ UNATTACHED_UPLOAD_TTL_HOURS: '2' }).unattachedUploadTtlMs).toBe(2 * 3600_000);
    for (const bad of ['0', '-1', '1.5', 'a day', '8761']) {
      expect(() => loadConfig({ UNATTACHED_UPLOAD_TTL_HOURS: bad })).toThrow(ConfigError);
      try {
        loadConfig({ UNATTACHED_UPLOAD_TTL_HOURS: bad });
      } catch (err) {
        expect((err as ConfigError).problems.join('\n')).toMatch(/UNATTACHED_UPLOAD_TTL_HOURS/);
      }
    }
  });
});
