/**
 * Toggling a reaction and the typing indicator (docs/api.md#messages) over HTTP, with rate limits on:
 * typing is 15 per 5 s per bot per channel. Each test uses its own channel so the
 * per-channel limits of one test never touch another.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addBot, call, createBot, createChannel, postMessage, registerUser, world } from '../factories.js';
import { TestClock } from '../clock.js';
import { type TestServer, startServer } from '../harness.js';
import { UNKNOWN_ID, expectError, expectRateHeaders, expectRateLimited } from './assert.js';

let srv: TestServer;
const clock = new TestClock();
let w: Awaited<ReturnType<typeof world>>;
let stranger: Awaited<ReturnType<typeof registerUser>>;

beforeAll(async () => {
  srv = await startServer({ clock: clock.now });
  w = await world(srv.url);
  stranger = await registerUser(srv.url);
});
afterAll(() => srv?.close());

const react = (auth: string | undefined, channelId: string, messageId: string, emoji: string) =>
  call(srv.url, 'PUT', `/channels/${channelId}/messages/${messageId}/reactions/${encodeURIComponent(emoji)}`, auth ? { auth } : {});
const typing = (auth: string | undefined, channelId: string) =>
  call(srv.url, 'POST', `/channels/${channelId}/typing`, auth ? { auth } : {});

async function freshMessage(content = 'react to me') {
  const channel = await createChannel(srv.url, w.owner, w.server.id);
  const message = await postMessage(srv.url, w.owner.auth, channel.id, content);
  return { channel, message };
}

describe('seed 4.2: PUT /channels/{channelId}/messages/{messageId}/reactions/{emoji}', () => {
  it('toggles on: 200 {emoji, count: 1, me: true}; toggles off: {count: 0, me: false}', async () => {
    const { channel, message } = await freshMessage();
    const on = await react(w.bot.auth, channel.id, message.id, '👍');
    expect(on.status, on.text).toBe(200);
    expect(on.body).toEqual({ emoji: '👍', count: 1, me: true });
    let got = await call(srv.url, 'GET', `/channels/${channel.id}/messages/${message.id}`, { auth: w.bot.auth });
    expect(got.body.reactions).toEqual([{ emoji: '👍', count: 1, me: true }]);

    const off = await react(w.bot.auth, channel.id, message.id, '👍');
    expect(off.status).toBe(200);
    expect(off.body).toEqual({ emoji: '👍', count: 0, me: false });
    got = await call(srv.url, 'GET', `/channels/${channel.id}/messages/${message.id}`, { auth: w.bot.auth });
    expect(got.body.reactions).toEqual([]);

    const again = await react(w.bot.auth, channel.id, message.id, '👍');
    expect(again.body).toEqual({ emoji: '👍', count: 1, me: true });
  });

  it('two callers are counted separately; `me` is per caller', async () => {
    const { channel, message } = await freshMessage();
    expect((await react(w.bot.auth, channel.id, message.id, '🎉')).body).toEqual({ emoji: '🎉', count: 1, me: true });
    expect((await react(w.owner.auth, channel.id, message.id, '🎉')).body).toEqual({ emoji: '🎉', count: 2, me: true });
    expect((await react(w.bot.auth, channel.id, message.id, '🎉')).body).toEqual({ emoji: '🎉', count: 1, me: false });
    const asOwner = await call(srv.url, 'GET', `/channels/${channel.id}/messages/${message.id}`, { auth: w.owner.auth });
    expect(asOwner.body.reactions).toEqual([{ emoji: '🎉', count: 1, me: true }]);
    const asBot = await call(srv.url, 'GET', `/channels/${channel.id}/messages/${message.id}`, { auth: w.bot.auth });
    expect(asBot.body.reactions).toEqual([{ emoji: '🎉', count: 1, me: false }]);
    // Different emoji are different reactions.
    expect((await react(w.bot.auth, channel.id, message.id, '🔥')).body).toEqual({ emoji: '🔥', count: 1, me: true });
    const both = await call(srv.url, 'GET', `/channels/${channel.id}/messages`, { auth: w.owner.auth });
    expect(both.body[0].reactions).toEqual([
      { emoji: '🎉', count: 1, me: true },
      { emoji: '🔥', count: 1, me: false },
    ]);
  });

  it('URL-encoded emoji: skin tones, ZWJ sequences, flags, keycaps, with or without VS16', async () => {
    const { channel, message } = await freshMessage();
    const emoji = ['👍🏽', '👨‍👩‍👧', '🇫🇷', '❤️', '❤', '🏳️‍🌈', '1️⃣', '🧑🏿‍💻'];
    for (const e of emoji) {
      const r = await react(w.bot.auth, channel.id, message.id, e);
      expect(r.status, `${e}: ${r.text}`).toBe(200);
      expect(r.body).toEqual({ emoji: e, count: 1, me: true });
    }
    const got = await call(srv.url, 'GET', `/channels/${channel.id}/messages/${message.id}`, { auth: w.bot.auth });
    expect(got.body.reactions.map((r: { emoji: string }) => r.emoji)).toEqual(emoji);
  });

  it('invalid emoji: 400 (text, two emoji, emoji plus text, shortcodes)', async () => {
    const { channel, message } = await freshMessage();
    for (const e of ['abc', '👍👍', '👍a', ':thumbsup:', ' ', 'a', '1', '🇫', '<script>']) {
      expectError(await react(w.bot.auth, channel.id, message.id, e), 400, /emoji/);
    }
    const got = await call(srv.url, 'GET', `/channels/${channel.id}/messages/${message.id}`, { auth: w.bot.auth });
    expect(got.body.reactions).toEqual([]);
  });

  it('unknown message or channel: 404', async () => {
    const { channel, message } = await freshMessage();
    expectError(await react(w.bot.auth, channel.id, UNKNOWN_ID, '👍'), 404);
    expectError(await react(w.bot.auth, channel.id, 'garbage', '👍'), 404);
    expectError(await react(w.bot.auth, UNKNOWN_ID, message.id, '👍'), 404);
    // A real message addressed through another channel of the same server.
    const other = await createChannel(srv.url, w.owner, w.server.id);
    expectError(await react(w.bot.auth, other.id, message.id, '👍'), 404);
  });

  it('no ADD_REACTIONS: 403; not a member: 403; no token: 401', async () => {
    const { channel, message } = await freshMessage();
    const bot = await createBot(srv.url, w.owner);
    await addBot(srv.url, w.owner, w.server.id, bot.id, ['READ_MESSAGES', 'SEND_MESSAGES']);
    expectError(await react(bot.auth, channel.id, message.id, '👍'), 403, /ADD_REACTIONS/);
    const outsider = await createBot(srv.url, stranger);
    expectError(await react(outsider.auth, channel.id, message.id, '👍'), 403);
    expectError(await react(stranger.auth, channel.id, message.id, '👍'), 403);
    expectError(await react(undefined, channel.id, message.id, '👍'), 401);
    expectError(await react('Bot nope', channel.id, message.id, '👍'), 401);
    const got = await call(srv.url, 'GET', `/channels/${channel.id}/messages/${message.id}`, { auth: w.owner.auth });
    expect(got.body.reactions).toEqual([]);
  });

  it('accepts the seed’s headers: Content-Type: application/json with no body', async () => {
    const { channel, message } = await freshMessage();
    const r = await call(srv.url, 'PUT', `/channels/${channel.id}/messages/${message.id}/reactions/${encodeURIComponent('👌')}`, {
      headers: { authorization: w.bot.auth, 'content-type': 'application/json' },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({ emoji: '👌', count: 1, me: true });
  });

  it('is rate limited per caller and channel, with X-RateLimit-* headers', async () => {
    const { channel, message } = await freshMessage();
    const first = await react(w.bot.auth, channel.id, message.id, '👍');
    expect(first.status).toBe(200);
    expectRateHeaders(first, 20, 19, 5);
  });
});

describe('seed 4.3: POST /channels/{channelId}/typing', () => {
  it('204 with an empty body', async () => {
    const channel = await createChannel(srv.url, w.owner, w.server.id);
    const r = await typing(w.bot.auth, channel.id);
    expect(r.status, r.text).toBe(204);
    expect(r.text).toBe('');
    expectRateHeaders(r, 15, 14, 5);
  });

  it('accepts the seed’s headers: Content-Type: application/json with no body', async () => {
    const channel = await createChannel(srv.url, w.owner, w.server.id);
    const r = await call(srv.url, 'POST', `/channels/${channel.id}/typing`, {
      headers: { authorization: w.bot.auth, 'content-type': 'application/json' },
    });
    expect(r.status, r.text).toBe(204);
    expect(r.text).toBe('');
  });

  it('15 per 5 seconds, then 429 with Retry-After, {error, retryAfter} and X-RateLimit-*; allowed again after the window', async () => {
    const channel = await createChannel(srv.url, w.owner, w.server.id);
    for (let i = 1; i <= 15; i++) {
      const r = await typing(w.bot.auth, channel.id);
      expect(r.status, `request ${i}: ${r.text}`).toBe(204);
      expect(r.headers.get('x-ratelimit-remaining')).toBe(String(15 - i));
    }
    const limited = await typing(w.bot.auth, channel.id);
    expectRateLimited(limited, 15, 5);
    expect(limited.text).not.toMatch(/^\s*at\s/m);
    // Still limited on the next try.
    expect((await typing(w.bot.auth, channel.id)).status).toBe(429);
    // Once the advertised wait has passed (on the server's clock), the window has reset.
    clock.advance(limited.body.retryAfter * 1000 + 1);
    const after = await typing(w.bot.auth, channel.id);
    expect(after.status, after.text).toBe(204);
    expectRateHeaders(after, 15, 14, 5);
  });

  it('the limit is per bot per channel: another channel, or another bot, is still fine', async () => {
    const a = await createChannel(srv.url, w.owner, w.server.id);
    const b = await createChannel(srv.url, w.owner, w.server.id);
    const other = await createBot(srv.url, w.owner);
    await addBot(srv.url, w.owner, w.server.id, other.id);
    for (let i = 0; i < 15; i++) expect((await typing(w.bot.auth, a.id)).status).toBe(204);
    expect((await typing(w.bot.auth, a.id)).status).toBe(429);
    const otherChannel = await typing(w.bot.auth, b.id);
    expect(otherChannel.status).toBe(204);
    expectRateHeaders(otherChannel, 15, 14, 5);
    const otherBot = await typing(other.auth, a.id);
    expect(otherBot.status).toBe(204);
    expectRateHeaders(otherBot, 15, 14, 5);
    // Sending messages is a separate limit: the typing-limited bot can still post there.
    expect((await call(srv.url, 'POST', `/channels/${a.id}/messages`, { auth: w.bot.auth, body: { content: 'done typing' } })).status).toBe(
      201,
    );
  });

  it('no SEND_MESSAGES: 403; not a member: 403; unknown channel: 404; no token: 401', async () => {
    const channel = await createChannel(srv.url, w.owner, w.server.id);
    const mute = await createBot(srv.url, w.owner);
    await addBot(srv.url, w.owner, w.server.id, mute.id, ['READ_MESSAGES']);
    expectError(await typing(mute.auth, channel.id), 403, /SEND_MESSAGES/);
    const outsider = await createBot(srv.url, stranger);
    expectError(await typing(outsider.auth, channel.id), 403);
    expectError(await typing(w.bot.auth, UNKNOWN_ID), 404);
    expectError(await typing(w.bot.auth, 'garbage'), 404);
    expectError(await typing(undefined, channel.id), 401);
    expectError(await typing('Bot invalid.token', channel.id), 401);
  });

  it('people may send typing too (the web client uses the same API)', async () => {
    const channel = await createChannel(srv.url, w.owner, w.server.id);
    const r = await typing(w.owner.auth, channel.id);
    expect(r.status).toBe(204);
  });
});
