// The SDK's REST client against a real Parley: every bot endpoint round-trips, errors
// arrive as typed exceptions, and rate limits are waited out instead of failing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BadRequestError,
  ForbiddenError,
  NotFoundError,
  ParleyApiError,
  PayloadTooLargeError,
  RestClient,
  UnauthorizedError,
  type Message,
  type RateLimitInfo,
} from '@parley/sdk';
import { addBot, createBot, createChannel, createServer, postMessage, world } from '../factories.js';
import { startServer, type TestServer } from '../harness.js';

let srv: TestServer;
let w: Awaited<ReturnType<typeof world>>;
let rest: RestClient;

beforeAll(async () => {
  srv = await startServer({ env: { RATE_LIMITS: 'on' } });
  w = await world(srv.url);
  rest = new RestClient({ baseUrl: srv.url, token: w.bot.token });
});

afterAll(async () => {
  await srv?.close();
});

/** The fields every message must carry (docs/api.md#messages). */
function expectMessageShape(m: Message): void {
  expect(m).toMatchObject({
    id: expect.any(String),
    channelId: expect.any(String),
    serverId: expect.any(String),
    author: { id: expect.any(String), name: expect.any(String), bot: expect.any(Boolean) },
    content: expect.any(String),
    attachments: expect.any(Array),
    reactions: expect.any(Array),
    createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/),
  });
  expect(m.author).toHaveProperty('avatar');
  expect(m).toHaveProperty('editedAt');
}

describe('RestClient against a real server', () => {
  it('reads the bot, its servers, channels and members', async () => {
    const me = await rest.me();
    expect(me).toMatchObject({ id: w.bot.id, name: w.bot.name, bot: true });

    const servers = await rest.servers();
    expect(servers.map((s) => s.id)).toContain(w.server.id);
    const server = await rest.server(w.server.id);
    expect(server).toMatchObject({ id: w.server.id, name: w.server.name, ownerId: w.owner.id });

    const channels = await rest.channels(w.server.id);
    expect(channels).toContainEqual(expect.objectContaining({ id: w.channel.id, serverId: w.server.id, name: w.channel.name }));

    const members = await rest.members(w.server.id);
    expect(members).toContainEqual(expect.objectContaining({ id: w.bot.id, bot: true }));
    expect(members).toContainEqual(expect.objectContaining({ id: w.owner.id, bot: false }));
  });

  it('sends, reads, pages, edits and deletes messages', async () => {
    const channel = await createChannel(srv.url, w.owner, w.server.id);
    const first = await rest.sendMessage(channel.id, { content: 'first **bold**' });
    expectMessageShape(first);
    expect(first).toMatchObject({
      channelId: channel.id,
      serverId: w.server.id,
      author: { id: w.bot.id, name: w.bot.name, bot: true },
      content: 'first **bold**',
      attachments: [],
      reactions: [],
      editedAt: null,
    });
    expect(first.webhookId ?? null).toBeNull();
    const second = await rest.sendMessage(channel.id, 'second'); // string shorthand
    const third = await rest.sendMessage(channel.id, 'third');

    expect(await rest.getMessage(channel.id, second.id)).toEqual(second);

    const newestFirst = await rest.getMessages(channel.id);
    expect(newestFirst.map((m) => m.content)).toEqual(['third', 'second', 'first **bold**']);
    expect((await rest.getMessages(channel.id, { limit: 1 })).map((m) => m.id)).toEqual([third.id]);
    expect((await rest.getMessages(channel.id, { before: third.id })).map((m) => m.id)).toEqual([second.id, first.id]);
    expect((await rest.getMessages(channel.id, { after: first.id })).map((m) => m.id)).toEqual([third.id, second.id]);

    const edited = await rest.editMessage(channel.id, first.id, 'first, edited');
    expect(edited).toMatchObject({ id: first.id, content: 'first, edited' });
    expect(edited.editedAt).toEqual(expect.any(String));

    await expect(rest.deleteMessage(channel.id, second.id)).resolves.toBeUndefined();
    await expect(rest.getMessage(channel.id, second.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('starts, lists, changes and leaves threads; their messages are the channel methods on the thread id', async () => {
    const channel = await createChannel(srv.url, w.owner, w.server.id);
    // The default bot holds CREATE_PUBLIC_THREADS and SEND_MESSAGES_IN_THREADS (docs/permissions.md#bots).
    const thread = await rest.createThread(channel.id, { name: 'bot thread', autoArchiveDuration: 60 });
    expect(thread).toMatchObject({
      parentId: channel.id,
      serverId: w.server.id,
      type: 'public_thread',
      ownerId: w.bot.id,
      metadata: { archived: false, autoArchiveDuration: 60 },
      member: { userId: w.bot.id },
    });
    const posted = await rest.sendMessage(thread.id, 'in the thread');
    expect(posted.channelId).toBe(thread.id);
    const started = await rest.startThreadFromMessage(channel.id, (await rest.sendMessage(channel.id, 'start here')).id, {
      name: 'from it',
    });
    expect(started.type).toBe('public_thread');

    expect((await rest.activeThreads(channel.id)).map((t) => t.id)).toEqual([thread.id, started.id]);
    expect((await rest.serverThreads(w.server.id)).map((t) => t.id)).toEqual(expect.arrayContaining([thread.id, started.id]));
    expect(await rest.getThread(thread.id)).toMatchObject({ id: thread.id, messageCount: 1, lastMessageId: posted.id });

    expect((await rest.editThread(thread.id, { name: 'renamed' })).name).toBe('renamed');
    expect((await rest.editThread(started.id, { archived: true })).metadata.archived).toBe(true);
    const page = await rest.archivedThreads(channel.id, { limit: 1 });
    expect(page).toMatchObject({ hasMore: false, threads: [{ id: started.id }] });
    expect((await rest.archivedThreads(channel.id, { type: 'private_thread', joined: true })).threads).toEqual([]);

    await rest.addThreadMember(thread.id, w.owner.id);
    expect((await rest.threadMembers(thread.id)).map((m) => m.userId).sort()).toEqual([w.bot.id, w.owner.id].sort());
    expect((await rest.threadMembers(thread.id, { limit: 1 })).length).toBe(1);
    expect(await rest.threadMember(thread.id)).toMatchObject({ threadId: thread.id, userId: w.bot.id });
    await rest.removeThreadMember(thread.id);
    await expect(rest.threadMember(thread.id)).rejects.toMatchObject({ status: 404, code: 'unknown_member' });
    await rest.addThreadMember(thread.id);

    // Deleting is MANAGE_THREADS, which the bot does not hold.
    await expect(rest.deleteThread(thread.id)).rejects.toMatchObject({ status: 403, code: 'missing_permission' });
    await expect(rest.getThread(channel.id)).rejects.toMatchObject({ status: 404, code: 'unknown_channel' });
  });

  it('does not post twice when a send is retried with the same idempotency key', async () => {
    const channel = await createChannel(srv.url, w.owner, w.server.id);
    const a = await rest.sendMessage(channel.id, 'once', { idempotencyKey: 'sdk-key-1' });
    const b = await rest.sendMessage(channel.id, 'once', { idempotencyKey: 'sdk-key-1' });
    expect(b.id).toBe(a.id);
    expect(await rest.getMessages(channel.id)).toHaveLength(1);
  });

  it('toggles reactions with URL-encoded emoji', async () => {
    const message = await postMessage(srv.url, w.owner.auth, w.channel.id, 'react to me');
    for (const emoji of ['👍', '❤️', '🏳️‍🌈']) {
      expect(await rest.toggleReaction(w.channel.id, message.id, emoji)).toEqual({ emoji, count: 1, me: true });
    }
    const seen = await rest.getMessage(w.channel.id, message.id);
    expect(seen.reactions.map((r) => r.emoji)).toEqual(expect.arrayContaining(['👍', '❤️', '🏳️‍🌈']));
    expect(await rest.toggleReaction(w.channel.id, message.id, '👍')).toEqual({ emoji: '👍', count: 0, me: false });
  });

  it('sends a typing indicator (204)', async () => {
    await expect(rest.typing(w.channel.id)).resolves.toBeUndefined();
  });

  it('uploads a file and attaches it to a message', async () => {
    const text = 'hello from the sdk\n';
    const uploaded = await rest.upload(Buffer.from(text), 'hello.txt', 'text/plain');
    expect(uploaded).toMatchObject({ filename: 'hello.txt', size: Buffer.byteLength(text) });
    expect(uploaded.contentType).toMatch(/^text\/plain/);
    expect(uploaded.url.startsWith(`${srv.url}/uploads/`)).toBe(true);

    const fromBlob = await rest.upload(new Blob([new Uint8Array([1, 2, 3])]), 'bytes.bin');
    expect(fromBlob.size).toBe(3);

    const message = await rest.sendMessage(w.channel.id, {
      content: 'with a file',
      attachments: [{ url: uploaded.url, filename: uploaded.filename }],
    });
    expect(message.attachments).toEqual([expect.objectContaining({ url: uploaded.url, filename: 'hello.txt', size: uploaded.size })]);

    const served = await fetch(uploaded.url);
    expect(served.status).toBe(200);
    expect(await served.text()).toBe(text);
  });

  it('raises UnauthorizedError (401) for a bad or missing token', async () => {
    const stranger = new RestClient({ baseUrl: srv.url, token: 'not-a-real-token' });
    const error = await stranger.me().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnauthorizedError);
    expect(error).toBeInstanceOf(ParleyApiError);
    expect(error).toMatchObject({ status: 401, code: 'unauthorized', request: { method: 'GET', path: '/users/@me' } });
    expect((error as Error).message).not.toBe('');
    await expect(stranger.sendMessage(w.channel.id, 'hi')).rejects.toBeInstanceOf(UnauthorizedError);
  });

  it('raises ForbiddenError (403) outside the bot’s servers and without a permission', async () => {
    const { general: elsewhere } = await createServer(srv.url, w.owner, 'Not the bot’s');
    const error = await rest.sendMessage(elsewhere.id, 'hi').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ForbiddenError);
    expect(error).toMatchObject({ status: 403, code: 'not_a_member' });
    await expect(rest.getMessages(elsewhere.id)).rejects.toBeInstanceOf(ForbiddenError);

    const readOnly = await createBot(srv.url, w.owner);
    await addBot(srv.url, w.owner, w.server.id, readOnly.id, ['READ_MESSAGES']);
    const reader = new RestClient({ baseUrl: srv.url, token: readOnly.token });
    await expect(reader.getMessages(w.channel.id, { limit: 1 })).resolves.toEqual(expect.any(Array));
    await expect(reader.sendMessage(w.channel.id, 'hi')).rejects.toBeInstanceOf(ForbiddenError);
    await expect(reader.sendMessage(w.channel.id, 'hi')).rejects.toMatchObject({ status: 403, code: 'missing_permission' });
    await expect(reader.typing(w.channel.id)).rejects.toBeInstanceOf(ForbiddenError);
  });

  it('raises NotFoundError (404) for unknown channels and messages', async () => {
    const unknownChannel = '01ZZZZZZZZZZZZZZZZZZZZZZZZ';
    await expect(rest.sendMessage(unknownChannel, 'hi')).rejects.toMatchObject({ status: 404, code: 'unknown_channel' });
    await expect(rest.getMessage(w.channel.id, unknownChannel)).rejects.toBeInstanceOf(NotFoundError);
    await expect(rest.toggleReaction(w.channel.id, unknownChannel, '👍')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('raises BadRequestError (400) for invalid input', async () => {
    const blank = await rest.sendMessage(w.channel.id, '   ').catch((e: unknown) => e);
    expect(blank).toBeInstanceOf(BadRequestError);
    expect(blank).toMatchObject({ status: 400, code: 'invalid_body' });
    await expect(rest.sendMessage(w.channel.id, {})).rejects.toBeInstanceOf(BadRequestError);
    await expect(rest.sendMessage(w.channel.id, 'x'.repeat(4001))).rejects.toBeInstanceOf(BadRequestError);
    await expect(
      rest.sendMessage(w.channel.id, { attachments: [{ url: 'https://example.com/evil.png', filename: 'evil.png' }] }),
    ).rejects.toBeInstanceOf(BadRequestError);
    const message = await postMessage(srv.url, w.owner.auth, w.channel.id, 'emoji target');
    await expect(rest.toggleReaction(w.channel.id, message.id, 'not-an-emoji')).rejects.toBeInstanceOf(BadRequestError);
    await expect(rest.getMessages(w.channel.id, { limit: 0 })).rejects.toBeInstanceOf(BadRequestError);
  });

  it('accepts exactly 4000 code points', async () => {
    const content = '😀'.repeat(4000); // 8000 UTF-16 units, 4000 characters
    const message = await rest.sendMessage(w.channel.id, content);
    expect([...message.content]).toHaveLength(4000);
  });

  it('raises PayloadTooLargeError (413) over the upload limit', async () => {
    const small = await startServer({ env: { MAX_UPLOAD_BYTES: '1024' } });
    try {
      const sw = await world(small.url);
      const client = new RestClient({ baseUrl: small.url, token: sw.bot.token });
      const error = await client.upload(Buffer.alloc(4096, 1), 'big.bin').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PayloadTooLargeError);
      expect(error).toMatchObject({ status: 413, code: 'payload_too_large' });
    } finally {
      await small.close();
    }
  });

  it('waits out the typing limit (15 per 5 s): 17 quick calls all succeed', async () => {
    const channel = await createChannel(srv.url, w.owner, w.server.id);
    const waits: RateLimitInfo[] = [];
    const client = new RestClient({ baseUrl: srv.url, token: w.bot.token, onRateLimit: (info) => waits.push(info) });
    const started = Date.now();
    const results = await Promise.allSettled(Array.from({ length: 17 }, () => client.typing(channel.id)));
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    expect(waits.length).toBeGreaterThanOrEqual(1); // the client waited for the window to reset
    expect(Date.now() - started).toBeGreaterThan(1000);
  }, 30_000);

  it('retries a 429 after Retry-After when another client used up the limit', async () => {
    const channel = await createChannel(srv.url, w.owner, w.server.id);
    const other = new RestClient({ baseUrl: srv.url, token: w.bot.token });
    for (let i = 0; i < 15; i++) await other.typing(channel.id);

    // A fresh client knows nothing of the exhausted window: the server answers 429.
    const waits: RateLimitInfo[] = [];
    const client = new RestClient({ baseUrl: srv.url, token: w.bot.token, onRateLimit: (info) => waits.push(info) });
    await expect(Promise.all([client.typing(channel.id), client.typing(channel.id)])).resolves.toEqual([undefined, undefined]);
    expect(waits[0]).toMatchObject({ reason: '429', retry: 1, bucket: `typing ${channel.id}` });
    expect(waits[0]!.waitMs).toBeGreaterThan(0);
    expect(waits[0]!.waitMs).toBeLessThanOrEqual(5000);
  }, 30_000);
});
