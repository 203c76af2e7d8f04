// Webhooks into threads (docs/webhooks.md#threads), through the real execute routes: Discord's
// `?thread_id=` natively and under /api (discord.js's WebhookClient), Slack's `thread_ts`, and the
// GitHub dialect's thread per issue or pull request (fixtures in src/webhooks/fixtures).
import fs from 'node:fs';
import path from 'node:path';
import { AttachmentBuilder, DiscordAPIError, WebhookClient } from 'discord.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ThreadRow } from '../../src/store/repos/threads.js';
import { call, createChannel, createServer, createWebhook, joinServer, registerUser, type TestUser } from '../factories.js';
import { storeThread } from '../fixtures/threads.js';
import { type TestServer, startServer } from '../harness.js';

const FIXTURES = path.join(import.meta.dirname, '../../src/webhooks/fixtures');
const fixture = (dialect: string, name: string) => JSON.parse(fs.readFileSync(path.join(FIXTURES, dialect, `${name}.json`), 'utf8'));

let srv: TestServer;
let owner: TestUser;
let alice: TestUser;
let serverId: string;
let channelId: string;
let hook: { id: string; token: string; url: string };
let hookPath: string;

beforeAll(async () => {
  srv = await startServer({ env: { RATE_LIMITS: 'off' } });
  owner = await registerUser(srv.url);
  alice = await registerUser(srv.url);
  const made = await createServer(srv.url, owner, 'Hooks');
  serverId = made.server.id;
  channelId = made.general.id;
  await joinServer(srv.url, owner, alice, serverId);
  hook = await createWebhook(srv.url, owner, serverId, channelId, 'Alerts');
  hookPath = new URL(hook.url).pathname;
});
afterAll(() => srv?.close());

const thread = (parentId: string, fields: Partial<ThreadRow> = {}) =>
  storeThread(srv.app.ctx.store, { serverId, parentId, ownerId: owner.id }, fields);
const threadRow = (id: string) => srv.app.ctx.store.threads.byId(srv.app.ctx.store.db, id);
const messagesOf = async (id: string) =>
  (await call(srv.url, 'GET', `/channels/${id}/messages`, { auth: owner.auth })).body as Array<{ id: string; content: string }>;

describe("Discord's thread_id", () => {
  it('natively: posts in a thread of the webhook’s channel, unarchiving it, and those it names follow it', async () => {
    const id = await thread(channelId, { archived: 1 });
    const r = await call(srv.url, 'POST', `${hookPath}?thread_id=${id}`, { body: { content: `build green <@${alice.id}>` } });
    expect(r.status, r.text).toBe(200);
    expect(r.body.channelId).toBe(id);
    expect((await messagesOf(id)).map((m) => m.content)).toEqual([`build green <@${alice.id}>`]);
    const row = await threadRow(id);
    expect([row?.archived, row?.messageCount]).toEqual([0, 1]);
    // The webhook joins nothing; the person it named follows the thread.
    expect(await srv.app.ctx.store.threadMembers.ids(srv.app.ctx.store.db, id)).toEqual([alice.id]);
  });

  it('natively: a thread of another channel, or no thread, is 400; a locked one is 403 thread_locked', async () => {
    const elsewhere = await createChannel(srv.url, owner, serverId);
    const other = await thread(elsewhere.id);
    const wrong = await call(srv.url, 'POST', `${hookPath}?thread_id=${other}`, { body: { content: 'x' } });
    expect([wrong.status, wrong.body.code]).toEqual([400, 'invalid_query']);
    expect((await messagesOf(other)).length).toBe(0);
    const notThread = await call(srv.url, 'POST', `${hookPath}?thread_id=${channelId}`, { body: { content: 'x' } });
    expect(notThread.status).toBe(400);
    const junk = await call(srv.url, 'POST', `${hookPath}?thread_id=abc`, { body: { content: 'x' } });
    expect(junk.status).toBe(400);
    const locked = await thread(channelId, { locked: 1 });
    const refused = await call(srv.url, 'POST', `${hookPath}?thread_id=${locked}`, { body: { content: 'x' } });
    expect([refused.status, refused.body.code]).toEqual([403, 'thread_locked']);
    expect((await messagesOf(locked)).length).toBe(0);
  });

  it('an Idempotency-Key retry must name the same thread', async () => {
    const a = await thread(channelId);
    const b = await thread(channelId);
    const headers = { 'idempotency-key': `thread-${a}` };
    const first = await call(srv.url, 'POST', `${hookPath}?thread_id=${a}`, { body: { content: 'once' }, headers });
    expect(first.status, first.text).toBe(200);
    const replay = await call(srv.url, 'POST', `${hookPath}?thread_id=${a}`, { body: { content: 'once' }, headers });
    expect(replay.body.id).toBe(first.body.id);
    const elsewhere = await call(srv.url, 'POST', `${hookPath}?thread_id=${b}`, { body: { content: 'once' }, headers });
    expect(elsewhere.status).toBe(409);
    expect((await messagesOf(b)).length).toBe(0);
  });

  it("under /api, with discord.js's WebhookClient: threadId posts there; Discord's codes otherwise", async () => {
    const client = new WebhookClient({ id: hook.id, token: hook.token }, { rest: { api: `${srv.url}/api` } });
    try {
      const id = await thread(channelId);
      const sent = await client.send({ content: 'in the thread', threadId: id });
      expect(sent.channel_id).toBe(id);
      expect((await messagesOf(id)).map((m) => m.content)).toEqual(['in the thread']);
      // With files (multipart) too.
      const withFile = await client.send({
        content: 'a report',
        threadId: id,
        files: [new AttachmentBuilder(Buffer.from('ok'), { name: 'report.txt' })],
      });
      expect([withFile.channel_id, withFile.attachments.map((a) => a.filename)]).toEqual([id, ['report.txt']]);
      const elsewhere = await createChannel(srv.url, owner, serverId);
      const other = await thread(elsewhere.id);
      const wrong = (await client.send({ content: 'x', threadId: other }).catch((e: unknown) => e)) as DiscordAPIError;
      expect(wrong).toBeInstanceOf(DiscordAPIError);
      expect([wrong.status, wrong.code]).toEqual([400, 50035]);
      const locked = await thread(channelId, { locked: 1 });
      const refused = (await client.send({ content: 'x', threadId: locked }).catch((e: unknown) => e)) as DiscordAPIError;
      expect([refused.status, refused.code]).toEqual([403, 160005]);
    } finally {
      client.destroy();
    }
  });
});

describe("Slack's thread_ts", () => {
  const slack = (body: Record<string, unknown>) => call(srv.url, 'POST', `${hookPath}/slack`, { body });

  it('names a message of the channel: its thread starts, named after it, and takes this and later replies', async () => {
    const first = await call(srv.url, 'POST', hookPath, { body: { content: 'Deploy 42 started\nsecond line' } });
    expect(first.status).toBe(200);
    const r = await slack({ text: 'step 1 done', thread_ts: first.body.id });
    expect(r.status, r.text).toBe(200);
    const row = await threadRow(first.body.id);
    expect(row).toMatchObject({ parentId: channelId, type: 'public_thread', name: 'Deploy 42 started second line', ownerId: hook.id });
    expect((await slack({ text: 'step 2 done', thread_ts: first.body.id })).status).toBe(200);
    // The thread's own id works too (it is the message's).
    expect((await messagesOf(first.body.id)).map((m) => m.content)).toEqual(['step 2 done', 'step 1 done']);
    // Nothing landed in the channel beside the first message.
    const channel = await messagesOf(channelId);
    expect(channel[0]?.id).toBe(first.body.id);
  });

  it('a ts that names no message of the channel, or a Slack timestamp, is 400 and posts nothing', async () => {
    const elsewhere = await createChannel(srv.url, owner, serverId);
    const foreign = await call(srv.url, 'POST', `/channels/${elsewhere.id}/messages`, { auth: owner.auth, body: { content: 'hi' } });
    expect((await slack({ text: 'x', thread_ts: foreign.body.id })).status).toBe(400);
    expect(await threadRow(foreign.body.id)).toBeUndefined();
    expect((await slack({ text: 'x', thread_ts: '1700000000.123456' })).status).toBe(400);
  });
});

describe('the GitHub dialect’s threads', () => {
  const deliver = (p: string, event: string, name: string) =>
    call(srv.url, 'POST', `${p}/github`, { body: fixture('github', name), headers: { 'x-github-event': event } });

  it('with githubThreads: the first event of an issue starts "#1 title" from its message, later ones post there', async () => {
    const made = await call(srv.url, 'POST', `/servers/${serverId}/webhooks`, {
      auth: owner.auth,
      body: { name: 'GitHub', channelId, githubThreads: true },
    });
    expect(made.status, made.text).toBe(201);
    expect(made.body.githubThreads).toBe(true);
    const p = new URL(made.body.url).pathname;
    const opened = await deliver(p, 'issues', 'issues-opened');
    expect(opened.status, opened.text).toBe(200);
    expect(opened.body.channelId).toBe(channelId);
    const row = await threadRow(opened.body.id);
    expect(row).toMatchObject({ parentId: channelId, name: '#1 Spelling error in the README file' });
    const comment = await deliver(p, 'issue_comment', 'issue_comment-created');
    expect(comment.status).toBe(200);
    expect(comment.body.channelId).toBe(opened.body.id);
    // Another issue or pull request gets its own thread.
    const pr = await deliver(p, 'pull_request', 'pull_request-closed');
    expect(pr.body.channelId).toBe(channelId);
    expect((await threadRow(pr.body.id))?.name).toBe('#2 Update the README with new information.');
    // A deleted thread is started again by the next event.
    await srv.app.ctx.store.write((tx) => srv.app.ctx.store.channels.delete(tx, opened.body.id));
    const again = await deliver(p, 'issue_comment', 'issue_comment-created');
    expect(again.body.channelId).toBe(channelId);
    expect((await threadRow(again.body.id))?.name).toBe('#1 Spelling error in the README file');
  });

  it('without the option (the default), every event posts in the channel and starts nothing', async () => {
    const listed = (await call(srv.url, 'GET', `/servers/${serverId}/webhooks`, { auth: owner.auth })).body as Array<{
      id: string;
      githubThreads: boolean;
    }>;
    expect(listed.find((h) => h.id === hook.id)?.githubThreads).toBeUndefined();
    const opened = await deliver(hookPath, 'issues', 'issues-opened');
    expect(opened.body.channelId).toBe(channelId);
    expect(await threadRow(opened.body.id)).toBeUndefined();
    const comment = await deliver(hookPath, 'issue_comment', 'issue_comment-created');
    expect(comment.body.channelId).toBe(channelId);
  });

  it('the option is set and cleared with PATCH /webhooks/{id}', async () => {
    const r = await call(srv.url, 'PATCH', `/webhooks/${hook.id}`, { auth: owner.auth, body: { githubThreads: true } });
    expect([r.status, r.body.githubThreads]).toEqual([200, true]);
    const back = await call(srv.url, 'PATCH', `/webhooks/${hook.id}`, { auth: owner.auth, body: { githubThreads: false } });
    expect(back.body.githubThreads).toBeUndefined();
  });
});
