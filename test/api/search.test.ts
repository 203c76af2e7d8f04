// Search (docs/api.md#search), over real HTTP: `GET /search/messages` finds messages by
// their words (and prefixes) and filters, newest first, with `total`, and only among the
// messages the caller can read. Runs on PostgreSQL too (TEST_DATABASE=postgres).
import { P } from '@parley/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addBot,
  call,
  createBot,
  createChannel,
  createServer,
  createWebhook,
  joinServer,
  postMessage,
  registerUser,
  type TestUser,
  upload,
} from '../factories.js';
import { startServer, type TestServer } from '../harness.js';
import { expectError, expectRateLimited, UNKNOWN_ID } from './assert.js';

let srv: TestServer;

beforeAll(async () => {
  srv = await startServer({ env: { RATE_LIMITS: 'off' } });
});
afterAll(() => srv?.close());

interface Found {
  total: number;
  messages: Array<{ id: string; content: string; channelId: string; [k: string]: unknown }>;
}

/** GET /search/messages with `params`, expecting 200. */
async function search(auth: string, params: Record<string, string | string[]>): Promise<Found> {
  const r = await call<Found>(srv.url, 'GET', `/search/messages?${query(params)}`, { auth });
  expect(r.status, r.text).toBe(200);
  expect(Object.keys(r.body).sort()).toEqual(['messages', 'total']);
  return r.body;
}

function query(params: Record<string, string | string[]>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) for (const one of Array.isArray(v) ? v : [v]) q.append(k, one);
  return q.toString();
}

const contents = (f: Found) => f.messages.map((m) => m.content);

/** An owner, a server with #general, and two members who joined. */
async function setup() {
  const owner = await registerUser(srv.url);
  const { server, general } = await createServer(srv.url, owner);
  const alice = await registerUser(srv.url);
  const bob = await registerUser(srv.url);
  await joinServer(srv.url, owner, alice, server.id);
  await joinServer(srv.url, owner, bob, server.id);
  return { owner, server, general, alice, bob };
}

async function send(auth: string, channelId: string, body: Record<string, unknown>) {
  const r = await call(srv.url, 'POST', `/channels/${channelId}/messages`, { auth, body });
  expect(r.status, r.text).toBe(201);
  return r.body as { id: string; content: string };
}

async function overwrite(owner: TestUser, channelId: string, targetId: string, body: Record<string, unknown>) {
  const r = await call(srv.url, 'PUT', `/channels/${channelId}/permissions/${targetId}`, { auth: owner.auth, body });
  expect(r.status, r.text).toBe(204);
}

describe('words and prefixes', () => {
  it('every word must occur, as a word or the start of one; case does not matter; newest first', async () => {
    const w = await setup();
    const fox = await postMessage(srv.url, w.alice.auth, w.general.id, 'The quick brown fox');
    const thinking = await postMessage(srv.url, w.bob.auth, w.general.id, 'Quick thinking, as ever!');
    await postMessage(srv.url, w.alice.auth, w.general.id, 'a slow turtle');

    const quick = await search(w.alice.auth, { q: 'quick' });
    expect(quick.total).toBe(2);
    expect(quick.messages.map((m) => m.id)).toEqual([thinking.id, fox.id]);
    expect(contents(await search(w.alice.auth, { q: 'QUI' }))).toEqual(['Quick thinking, as ever!', 'The quick brown fox']);
    expect(contents(await search(w.alice.auth, { q: 'quick fox' }))).toEqual(['The quick brown fox']);
    expect(contents(await search(w.alice.auth, { q: 'fox quick' }))).toEqual(['The quick brown fox']);
    expect(contents(await search(w.alice.auth, { q: 'turt' }))).toEqual(['a slow turtle']);
    // A prefix of a word, not a piece from its middle or a longer word.
    expect((await search(w.alice.auth, { q: 'own' })).total).toBe(0);
    expect((await search(w.alice.auth, { q: 'turtles' })).total).toBe(0);
    expect((await search(w.alice.auth, { q: 'quick turtle' })).total).toBe(0);
    // Punctuation separates words.
    expect(contents(await search(w.alice.auth, { q: 'ever' }))).toEqual(['Quick thinking, as ever!']);
    // One character matches only itself, not every word it begins.
    expect(contents(await search(w.alice.auth, { q: 'a' }))).toEqual(['a slow turtle']);
    expect(contents(await search(w.alice.auth, { q: 'as' }))).toEqual(['Quick thinking, as ever!']);
    expect((await search(w.alice.auth, { q: 'q' })).total).toBe(0);
  });

  it('splits content on punctuation the same way on every database: links, addresses, hyphens, numbers', async () => {
    const w = await setup();
    await postMessage(srv.url, w.alice.auth, w.general.id, 'see https://docs.example.com/guide/setup?x=1 or mail ops@example.org');
    await postMessage(srv.url, w.alice.auth, w.general.id, 'a well-known fact: pi is 3.14159');
    await postMessage(srv.url, w.alice.auth, w.general.id, 'Ünïcödé naïve café 日本語 emoji🎉party');
    for (const [q, n] of [
      ['docs', 1],
      ['guide setup', 1],
      ['example', 1],
      ['ops org', 1],
      ['known', 1],
      ['well', 1],
      ['14159', 1],
      ['3', 1],
      ['naïve', 1],
      ['ünïc', 1],
      ['CAFÉ', 1],
      ['日本', 1],
      ['party', 1],
      ['emoji', 1],
      ['naive', 0],
    ] as const) {
      expect((await search(w.alice.auth, { q })).total, q).toBe(n);
    }
  });

  it('answers `total` with a page: limit and offset', async () => {
    const w = await setup();
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push((await postMessage(srv.url, w.alice.auth, w.general.id, `zebra number ${i}`)).id);
    await postMessage(srv.url, w.alice.auth, w.general.id, 'unrelated');
    const newest = [...ids].reverse();
    const first = await search(w.alice.auth, { q: 'zebra', limit: '3' });
    expect(first.total).toBe(7);
    expect(first.messages.map((m) => m.id)).toEqual(newest.slice(0, 3));
    expect((await search(w.alice.auth, { q: 'zebra', limit: '3', offset: '3' })).messages.map((m) => m.id)).toEqual(newest.slice(3, 6));
    const last = await search(w.alice.auth, { q: 'zebra', limit: '3', offset: '6' });
    expect([last.total, last.messages.map((m) => m.id)]).toEqual([7, newest.slice(6)]);
    const past = await search(w.alice.auth, { q: 'zebra', offset: '100' });
    expect([past.total, past.messages]).toEqual([7, []]);
    // The default page is 25.
    for (let i = 0; i < 20; i++) await postMessage(srv.url, w.alice.auth, w.general.id, `zebra more ${i}`);
    const page = await search(w.alice.auth, { q: 'zebra' });
    expect([page.total, page.messages.length]).toEqual([27, 25]);
    expect((await search(w.alice.auth, { q: 'zebra', limit: '100' })).messages).toHaveLength(27);
  });

  it('results are the messages as every other route shows them to the caller (reactions, replies)', async () => {
    const w = await setup();
    const asked = await postMessage(srv.url, w.bob.auth, w.general.id, 'when is the walrus meeting?');
    const reply = await send(w.alice.auth, w.general.id, { content: 'walrus at noon', messageReference: { messageId: asked.id } });
    const react = await call(srv.url, 'PUT', `/channels/${w.general.id}/messages/${reply.id}/reactions/${encodeURIComponent('👍')}`, {
      auth: w.alice.auth,
    });
    expect(react.status, react.text).toBe(200);
    const found = await search(w.alice.auth, { q: 'walrus' });
    const one = async (id: string) => (await call(srv.url, 'GET', `/channels/${w.general.id}/messages/${id}`, { auth: w.alice.auth })).body;
    expect(found.messages).toEqual([await one(reply.id), await one(asked.id)]);
    expect(found.messages[0]).toMatchObject({ reactions: [{ emoji: '👍', count: 1, me: true }], referencedMessage: { id: asked.id } });
    // `me` is the caller's.
    expect((await search(w.bob.auth, { q: 'walrus noon' })).messages[0]!.reactions).toEqual([{ emoji: '👍', count: 1, me: false }]);
  });
});

describe('filters', () => {
  it('serverId and channelId narrow to one server or channel; with no q, filters alone search', async () => {
    const w = await setup();
    const other = await createServer(srv.url, w.alice, 'other');
    const random = await createChannel(srv.url, w.owner, w.server.id, 'random');
    await postMessage(srv.url, w.alice.auth, w.general.id, 'otter in general');
    await postMessage(srv.url, w.alice.auth, random.id, 'otter in random');
    await postMessage(srv.url, w.alice.auth, other.general.id, 'otter elsewhere');

    expect((await search(w.alice.auth, { q: 'otter' })).total).toBe(3);
    expect(contents(await search(w.alice.auth, { q: 'otter', serverId: w.server.id }))).toEqual(['otter in random', 'otter in general']);
    expect(contents(await search(w.alice.auth, { q: 'otter', serverId: other.server.id }))).toEqual(['otter elsewhere']);
    expect(contents(await search(w.alice.auth, { q: 'otter', channelId: random.id }))).toEqual(['otter in random']);
    expect(contents(await search(w.alice.auth, { channelId: random.id }))).toEqual(['otter in random']);
    expect((await search(w.alice.auth, { serverId: w.server.id })).total).toBe(2);
    expect((await search(w.alice.auth, { q: '', serverId: other.server.id })).total).toBe(1);
    // A channel of another server than the one named.
    expectError(
      await call(srv.url, 'GET', `/search/messages?${query({ q: 'otter', serverId: other.server.id, channelId: random.id })}`, {
        auth: w.alice.auth,
      }),
      400,
      'invalid_query',
    );
  });

  it('authorId and mentions', async () => {
    const w = await setup();
    await postMessage(srv.url, w.alice.auth, w.general.id, `badger hello <@${w.bob.id}>`);
    await postMessage(srv.url, w.bob.auth, w.general.id, 'badger from bob');
    await send(w.owner.auth, w.general.id, { content: `badger quiet <@${w.bob.id}>`, allowedMentions: { parse: [] } });
    await postMessage(srv.url, w.owner.auth, w.general.id, `badger <@${w.alice.id}>`);

    expect(contents(await search(w.alice.auth, { q: 'badger', authorId: w.bob.id }))).toEqual(['badger from bob']);
    expect(contents(await search(w.alice.auth, { authorId: w.alice.id }))).toEqual([`badger hello <@${w.bob.id}>`]);
    expect((await search(w.alice.auth, { q: 'badger', authorId: UNKNOWN_ID })).total).toBe(0);
    // Mentions that pinged: the one suppressed by allowedMentions did not.
    expect(contents(await search(w.alice.auth, { q: 'badger', mentions: w.bob.id }))).toEqual([`badger hello <@${w.bob.id}>`]);
    expect(contents(await search(w.bob.auth, { mentions: w.alice.id }))).toEqual([`badger <@${w.alice.id}>`]);
    expect((await search(w.bob.auth, { mentions: w.alice.id, authorId: w.bob.id })).total).toBe(0);
  });

  it('has=file|image|link|embed, repeated or comma-separated, all of them must hold', async () => {
    const w = await setup();
    const png = await upload(srv.url, w.alice.auth, new Uint8Array([0x89, 0x50, 0x4e, 0x47, 13, 10, 26, 10]), 'pic.png', 'image/png');
    const txt = await upload(srv.url, w.alice.auth, 'notes', 'image.txt', 'text/plain');
    expect([png.status, txt.status]).toEqual([200, 200]);
    const attach = (u: { url: string; filename: string }) => ({ url: u.url, filename: u.filename });
    await send(w.alice.auth, w.general.id, { content: 'heron picture', attachments: [attach(png.body)] });
    await send(w.alice.auth, w.general.id, { content: 'heron notes https://example.com', attachments: [attach(txt.body)] });
    await send(w.alice.auth, w.general.id, { content: 'heron link HTTP://EXAMPLE.ORG/x' });
    await send(w.alice.auth, w.general.id, { content: 'heron http:/not-a-link or https:// alone' });
    await send(w.alice.auth, w.general.id, { content: 'heron plain' });
    const hook = await createWebhook(srv.url, w.owner, w.server.id, w.general.id);
    const r = await call(srv.url, 'POST', `/webhooks/${hook.id}/${hook.token}`, {
      body: { content: 'heron embedded', embeds: [{ title: 'Build', description: 'passed' }] },
    });
    expect(r.status, r.text).toBe(200);

    const has = async (v: string | string[]) => contents(await search(w.alice.auth, { q: 'heron', has: v }));
    expect(await has('file')).toEqual(['heron notes https://example.com', 'heron picture']);
    expect(await has('image')).toEqual(['heron picture']);
    expect(await has('link')).toEqual([
      'heron http:/not-a-link or https:// alone',
      'heron link HTTP://EXAMPLE.ORG/x',
      'heron notes https://example.com',
    ]);
    expect(await has('embed')).toEqual(['heron embedded']);
    expect(await has('file,link')).toEqual(['heron notes https://example.com']);
    expect(await has(['file', 'link'])).toEqual(['heron notes https://example.com']);
    expect(await has(['image', 'link'])).toEqual([]);
    expect(await has('file,file')).toEqual(['heron notes https://example.com', 'heron picture']);
    // Without q.
    expect((await search(w.alice.auth, { has: 'embed', serverId: w.server.id })).total).toBe(1);
  });

  it('before and after: message ids or ISO dates, exclusive', async () => {
    const w = await setup();
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push((await postMessage(srv.url, w.alice.auth, w.general.id, `lemur ${i}`)).id);
    const page = async (p: Record<string, string>) => contents(await search(w.alice.auth, { q: 'lemur', ...p }));
    expect(await page({ before: ids[2]! })).toEqual(['lemur 1', 'lemur 0']);
    expect(await page({ after: ids[1]! })).toEqual(['lemur 3', 'lemur 2']);
    expect(await page({ after: ids[0]!, before: ids[3]! })).toEqual(['lemur 2', 'lemur 1']);
    const hour = 3600_000;
    expect(await page({ before: new Date(Date.now() + hour).toISOString() })).toHaveLength(4);
    expect(await page({ after: new Date(Date.now() + hour).toISOString() })).toEqual([]);
    expect(await page({ after: new Date(Date.now() - hour).toISOString().replace('Z', '+00:00') })).toHaveLength(4);
    expect(await page({ before: '2015-06-01' })).toEqual([]);
    expect(await page({ after: '2015-06-01' })).toHaveLength(4);
    // A date and no words: the filter alone.
    expect((await search(w.alice.auth, { after: '2015-06-01' })).total).toBe(4);
  });
});

describe('query text is words, never syntax', () => {
  it('operators, quotes, stars, parentheses and column filters are plain text', async () => {
    const w = await setup();
    await postMessage(srv.url, w.alice.auth, w.general.id, 'alpha beta');
    await postMessage(srv.url, w.alice.auth, w.general.id, 'gamma');
    await postMessage(srv.url, w.alice.auth, w.general.id, 'not and or near content');
    const n = async (q: string) => (await search(w.alice.auth, { q })).total;
    // As FTS5 or tsquery syntax these would exclude beta, match either, or fail.
    expect(await n('alpha -beta')).toBe(1);
    expect(await n('alpha !beta')).toBe(1);
    expect(await n('alpha OR gamma')).toBe(0);
    expect(await n('alpha | gamma')).toBe(0);
    expect(await n('NOT beta')).toBe(0);
    expect(await n('NEAR(alpha beta)')).toBe(0);
    expect(await n('alpha AND')).toBe(0);
    expect(await n('AND')).toBe(1);
    expect(await n('near')).toBe(1);
    expect(await n('"alpha beta"')).toBe(1);
    expect(await n('"beta alpha"')).toBe(1);
    expect(await n('"alpha')).toBe(1);
    expect(await n('gam*')).toBe(1);
    expect(await n("'gamma':*")).toBe(1);
    expect(await n('content:alpha')).toBe(0);
    expect(await n('content: alpha')).toBe(0);
    expect(await n('alpha & beta')).toBe(1);
    expect(await n('^alpha')).toBe(1);
    expect(await n('alpha\\')).toBe(1);
    expect(await n('{alpha beta}')).toBe(1);
    expect(await n('alpha + beta')).toBe(1);
    expect(await n('alpha <-> beta')).toBe(1);
  });

  it('a q with no words is 400 without filters; odd input is never a 500', async () => {
    const w = await setup();
    for (const q of ['', '"', '*', '(', ')', '-', '""', "'", '\\', ':*', '&&', '   ', '🎉', '—', '<>']) {
      expectError(await call(srv.url, 'GET', `/search/messages?${query({ q })}`, { auth: w.alice.auth }), 400, 'invalid_query');
      expect((await search(w.alice.auth, { q, serverId: w.server.id })).total).toBe(0);
    }
    expectError(await call(srv.url, 'GET', '/search/messages', { auth: w.alice.auth }), 400, 'invalid_query');
    for (const q of ['\u0000x', 'a\u0301', '\u0301', '\uE000', 'x\uD800', 'NEAR/3', 'a*b*c', '"a" "b', 'x'.repeat(512), '٣ ١', 'ǅ ß İ']) {
      const r = await call(srv.url, 'GET', `/search/messages?${query({ q })}`, { auth: w.alice.auth });
      expect([200, 400], `${JSON.stringify(q)}: ${r.text}`).toContain(r.status);
    }
  });
});

describe('refusals', () => {
  it('400 invalid_query for bad parameters', async () => {
    const w = await setup();
    const bad = async (params: Record<string, string | string[]>, message?: RegExp) =>
      expectError(
        await call(srv.url, 'GET', `/search/messages?${query(params)}`, { auth: w.alice.auth }),
        400,
        'invalid_query',
        ...(message ? [message] : []),
      );
    await bad({ q: 'x', limit: '0' });
    await bad({ q: 'x', limit: '101' });
    await bad({ q: 'x', limit: 'ten' });
    await bad({ q: 'x', limit: '-1' });
    await bad({ q: 'x', offset: '5001' });
    await bad({ q: 'x', offset: '-1' });
    await bad({ q: 'x', has: 'video' });
    await bad({ q: 'x', has: ['file', 'video'] });
    await bad({ q: 'x', has: 'file,' });
    await bad({ q: 'x', authorId: 'bob' });
    await bad({ q: 'x', mentions: '12a' });
    await bad({ q: 'x', serverId: '99999999999999999999' });
    await bad({ q: 'x', channelId: '9223372036854775808' });
    await bad({ q: 'x', before: 'yesterday' });
    await bad({ q: 'x', after: '2025-13-45' });
    await bad({ q: 'x', before: '2025-01-01T10:00' });
    await bad({ q: 'x'.repeat(513) });
    await bad({ q: Array.from({ length: 17 }, (_, i) => `w${i}`).join(' ') }, /at most 16 words/);
    // 16 words are fine.
    expect((await search(w.alice.auth, { q: Array.from({ length: 16 }, (_, i) => `w${i}`).join(' ') })).total).toBe(0);
    expect((await search(w.alice.auth, { q: 'x', offset: '5000', limit: '100' })).total).toBe(0);
  });

  it('401 without credentials; 404 for an unknown server or channel', async () => {
    const w = await setup();
    expectError(await call(srv.url, 'GET', '/search/messages?q=x'), 401, 'unauthorized');
    expectError(await call(srv.url, 'GET', `/search/messages?q=x&serverId=${UNKNOWN_ID}`, { auth: w.alice.auth }), 404, 'unknown_server');
    expectError(await call(srv.url, 'GET', `/search/messages?q=x&channelId=${UNKNOWN_ID}`, { auth: w.alice.auth }), 404, 'unknown_channel');
  });
});

describe('only what the caller can read', () => {
  it('a channel hidden from @everyone (VIEW_CHANNEL denied): not found, not counted, 403 by channelId', async () => {
    const w = await setup();
    const secret = await createChannel(srv.url, w.owner, w.server.id, 'secret');
    await overwrite(w.owner, secret.id, w.server.id, { type: 'role', deny: P.VIEW_CHANNEL.toString() });
    await postMessage(srv.url, w.owner.auth, secret.id, 'narwhal plans');
    await postMessage(srv.url, w.owner.auth, secret.id, 'narwhal budget');
    await postMessage(srv.url, w.owner.auth, w.general.id, 'narwhal lunch');

    expect(await search(w.owner.auth, { q: 'narwhal' })).toMatchObject({ total: 3 });
    const seen = await search(w.alice.auth, { q: 'narwhal' });
    expect([seen.total, contents(seen)]).toEqual([1, ['narwhal lunch']]);
    expect((await search(w.alice.auth, { q: 'narwhal', serverId: w.server.id })).total).toBe(1);
    expect((await search(w.alice.auth, { authorId: w.owner.id })).total).toBe(1);
    expectError(
      await call(srv.url, 'GET', `/search/messages?q=narwhal&channelId=${secret.id}`, { auth: w.alice.auth }),
      403,
      'missing_permission',
    );
    // A role that sees it restores it, through the same permission function.
    const seers = await call(srv.url, 'POST', `/servers/${w.server.id}/roles`, { auth: w.owner.auth, body: { name: 'seers' } });
    await overwrite(w.owner, secret.id, seers.body.id, { type: 'role', allow: P.VIEW_CHANNEL.toString() });
    const give = await call(srv.url, 'PUT', `/servers/${w.server.id}/members/${w.alice.id}/roles/${seers.body.id}`, { auth: w.owner.auth });
    expect(give.status, give.text).toBe(204);
    expect((await search(w.alice.auth, { q: 'narwhal' })).total).toBe(3);
    expect((await search(w.bob.auth, { q: 'narwhal' })).total).toBe(1);
    // A member overwrite denying it beats the role.
    await overwrite(w.owner, secret.id, w.alice.id, { type: 'member', deny: P.VIEW_CHANNEL.toString() });
    expect((await search(w.alice.auth, { q: 'narwhal' })).total).toBe(1);
  });

  it('authorId and has, alone, together or with words, count and find only readable channels', async () => {
    const w = await setup();
    const secret = await createChannel(srv.url, w.owner, w.server.id, 'secret');
    await overwrite(w.owner, secret.id, w.server.id, { type: 'role', deny: P.VIEW_CHANNEL.toString() });
    await postMessage(srv.url, w.owner.auth, secret.id, 'walrus hidden https://secret.example');
    await postMessage(srv.url, w.owner.auth, w.general.id, 'walrus shown https://lunch.example');
    await postMessage(srv.url, w.bob.auth, w.general.id, 'walrus by bob https://bob.example');
    const searches: Array<Record<string, string>> = [
      { authorId: w.owner.id },
      { has: 'link', authorId: w.owner.id },
      { q: 'walrus', authorId: w.owner.id },
      { q: 'wal', has: 'link', authorId: w.owner.id },
      { serverId: w.server.id, authorId: w.owner.id, has: 'link' },
    ];
    for (const params of searches) {
      const seen = await search(w.alice.auth, params);
      expect([seen.total, contents(seen)], JSON.stringify(params)).toEqual([1, ['walrus shown https://lunch.example']]);
      expect((await search(w.owner.auth, params)).total, JSON.stringify(params)).toBe(2);
    }
    const links = await search(w.alice.auth, { has: 'link' });
    expect([links.total, contents(links)]).toEqual([2, ['walrus by bob https://bob.example', 'walrus shown https://lunch.example']]);
    expect((await search(w.owner.auth, { has: 'link' })).total).toBe(3);
  });

  it('a member who sees the channel but is denied READ_MESSAGE_HISTORY finds nothing in it', async () => {
    const w = await setup();
    const news = await createChannel(srv.url, w.owner, w.server.id, 'news');
    await overwrite(w.owner, news.id, w.server.id, { type: 'role', deny: P.READ_MESSAGE_HISTORY.toString() });
    await postMessage(srv.url, w.owner.auth, news.id, 'pangolin announcement');
    const channels = await call(srv.url, 'GET', `/servers/${w.server.id}/channels`, { auth: w.alice.auth });
    expect(channels.body.map((c: { id: string }) => c.id)).toContain(news.id);
    expect(await search(w.alice.auth, { q: 'pangolin' })).toEqual({ total: 0, messages: [] });
    expect((await search(w.alice.auth, { serverId: w.server.id })).total).toBe(0);
    expectError(await call(srv.url, 'GET', `/search/messages?channelId=${news.id}`, { auth: w.alice.auth }), 403, 'missing_permission');
    expect((await search(w.owner.auth, { q: 'pangolin' })).total).toBe(1);
  });

  it('a stranger finds nothing, and is 403 not_a_member for the server or its channel', async () => {
    const w = await setup();
    await postMessage(srv.url, w.alice.auth, w.general.id, 'capybara secret');
    const stranger = await registerUser(srv.url);
    expect(await search(stranger.auth, { q: 'capybara' })).toEqual({ total: 0, messages: [] });
    expect(await search(stranger.auth, { authorId: w.alice.id })).toEqual({ total: 0, messages: [] });
    expectError(
      await call(srv.url, 'GET', `/search/messages?q=capybara&serverId=${w.server.id}`, { auth: stranger.auth }),
      403,
      'not_a_member',
    );
    expectError(
      await call(srv.url, 'GET', `/search/messages?q=capybara&channelId=${w.general.id}`, { auth: stranger.auth }),
      403,
      'not_a_member',
    );
  });

  it('a kicked member no longer finds anything of the server', async () => {
    const w = await setup();
    await postMessage(srv.url, w.alice.auth, w.general.id, 'wombat notes');
    expect((await search(w.bob.auth, { q: 'wombat' })).total).toBe(1);
    const kick = await call(srv.url, 'DELETE', `/servers/${w.server.id}/members/${w.bob.id}`, { auth: w.owner.auth });
    expect(kick.status, kick.text).toBe(204);
    expect(await search(w.bob.auth, { q: 'wombat' })).toEqual({ total: 0, messages: [] });
    expectError(await call(srv.url, 'GET', `/search/messages?q=wombat&serverId=${w.server.id}`, { auth: w.bob.auth }), 403, 'not_a_member');
  });

  it('bots search what they may read', async () => {
    const w = await setup();
    const secret = await createChannel(srv.url, w.owner, w.server.id, 'secret');
    await overwrite(w.owner, secret.id, w.server.id, { type: 'role', deny: P.VIEW_CHANNEL.toString() });
    await postMessage(srv.url, w.owner.auth, w.general.id, 'koala public');
    await postMessage(srv.url, w.owner.auth, secret.id, 'koala private');
    const reader = await createBot(srv.url, w.owner);
    await addBot(srv.url, w.owner, w.server.id, reader.id, ['READ_MESSAGES']);
    const writer = await createBot(srv.url, w.owner);
    await addBot(srv.url, w.owner, w.server.id, writer.id, ['SEND_MESSAGES']);
    expect(contents(await search(reader.auth, { q: 'koala' }))).toEqual(['koala public']);
    expect((await search(writer.auth, { q: 'koala' })).total).toBe(0);
  });
});

describe('the index follows the messages', () => {
  it('deleted messages disappear; edited ones are found by their new words, not the old', async () => {
    const w = await setup();
    const a = await postMessage(srv.url, w.alice.auth, w.general.id, 'giraffe original wording');
    const b = await postMessage(srv.url, w.alice.auth, w.general.id, 'giraffe to delete');
    const c = await postMessage(srv.url, w.alice.auth, w.general.id, 'giraffe bulk one');
    const d = await postMessage(srv.url, w.alice.auth, w.general.id, 'giraffe bulk two');
    expect((await search(w.alice.auth, { q: 'giraffe' })).total).toBe(4);

    const edit = await call(srv.url, 'PATCH', `/channels/${w.general.id}/messages/${a.id}`, {
      auth: w.alice.auth,
      body: { content: 'giraffe rewritten entirely' },
    });
    expect(edit.status, edit.text).toBe(200);
    expect((await search(w.alice.auth, { q: 'original' })).total).toBe(0);
    expect(contents(await search(w.alice.auth, { q: 'rewritten' }))).toEqual(['giraffe rewritten entirely']);
    expect((await search(w.alice.auth, { q: 'rewritten' })).messages[0]!.editedAt).toBeTypeOf('string');

    const del = await call(srv.url, 'DELETE', `/channels/${w.general.id}/messages/${b.id}`, { auth: w.alice.auth });
    expect(del.status).toBe(204);
    const bulk = await call(srv.url, 'POST', `/channels/${w.general.id}/messages/bulk-delete`, {
      auth: w.owner.auth,
      body: { messages: [c.id, d.id] },
    });
    expect(bulk.status, bulk.text).toBe(204);
    const left = await search(w.alice.auth, { q: 'giraffe' });
    expect([left.total, left.messages.map((m) => m.id)]).toEqual([1, [a.id]]);
    expect((await search(w.alice.auth, { q: 'delete' })).total).toBe(0);
    expect((await search(w.alice.auth, { q: 'bulk' })).total).toBe(0);
  });

  it("a deleted channel's and a deleted server's messages disappear", async () => {
    const w = await setup();
    const doomed = await createChannel(srv.url, w.owner, w.server.id, 'doomed');
    await postMessage(srv.url, w.owner.auth, doomed.id, 'quokka farewell');
    await postMessage(srv.url, w.owner.auth, w.general.id, 'quokka stays');
    expect((await search(w.owner.auth, { q: 'quokka' })).total).toBe(2);
    expect((await call(srv.url, 'DELETE', `/channels/${doomed.id}`, { auth: w.owner.auth })).status).toBe(204);
    expect(contents(await search(w.owner.auth, { q: 'quokka' }))).toEqual(['quokka stays']);
    // Another server's message with the same word survives the first server's deletion.
    const other = await createServer(srv.url, w.owner, 'other');
    await postMessage(srv.url, w.owner.auth, other.general.id, 'quokka elsewhere');
    expect((await call(srv.url, 'DELETE', `/servers/${w.server.id}`, { auth: w.owner.auth })).status).toBe(204);
    expect(contents(await search(w.owner.auth, { q: 'quokka' }))).toEqual(['quokka elsewhere']);
  });
});

describe('rate limit', () => {
  it('20 searches per 10 s per caller, then 429', async () => {
    const limited = await startServer({ env: { RATE_LIMITS: 'on' } });
    try {
      const user = await registerUser(limited.url);
      for (let i = 0; i < 20; i++) {
        const r = await call(limited.url, 'GET', '/search/messages?q=x', { auth: user.auth });
        expect(r.status, r.text).toBe(200);
      }
      expectRateLimited(await call(limited.url, 'GET', '/search/messages?q=x', { auth: user.auth }), 20, 10);
    } finally {
      await limited.close();
    }
  });
});
