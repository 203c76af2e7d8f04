/** Sending a message, history, get, edit and delete (docs/api.md#messages) over HTTP. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addBot, call, createBot, createChannel, joinServer, postMessage, registerUser, upload, world } from '../factories.js';
import { type TestServer, startServer } from '../harness.js';
import { ISO_UTC, UNKNOWN_ID, expectError, history } from './assert.js';

let srv: TestServer;
let w: Awaited<ReturnType<typeof world>>;

beforeAll(async () => {
  srv = await startServer({ env: { RATE_LIMITS: 'off' } });
  w = await world(srv.url);
});
afterAll(() => srv?.close());

const send = (auth: string | undefined, channelId: string, body: unknown) =>
  call(srv.url, 'POST', `/channels/${channelId}/messages`, { ...(auth ? { auth } : {}), body });

describe('seed 4.1: POST /channels/{channelId}/messages', () => {
  it('201 with the created message; author.bot is true for a bot; no webhookId', async () => {
    const r = await send(w.bot.auth, w.channel.id, { content: '**hello** from a bot' });
    expect(r.status, r.text).toBe(201);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(r.body).toMatchObject({
      channelId: w.channel.id,
      serverId: w.server.id,
      content: '**hello** from a bot',
      attachments: [],
      reactions: [],
      editedAt: null,
      author: { id: w.bot.id, name: w.bot.name, bot: true, avatar: null },
    });
    expect(r.body.id).toMatch(/^[1-9][0-9]{15,18}$/);
    expect(r.body.createdAt).toMatch(ISO_UTC);
    expect(r.body).not.toHaveProperty('webhookId');
    const latest = (await history(srv.url, w.owner.auth, w.channel.id, 'limit=1'))[0];
    expect(latest).toEqual(r.body);
  });

  it('201 for a member person: author.bot is false', async () => {
    const r = await send(w.owner.auth, w.channel.id, { content: 'from a person' });
    expect(r.status).toBe(201);
    expect(r.body.author).toEqual({ id: w.owner.id, name: w.owner.name, bot: false, avatar: null });
  });

  it('content: exactly 4000 characters is 201; 4001 is 400 (counted in code points)', async () => {
    const ok = await send(w.bot.auth, w.channel.id, { content: 'a'.repeat(4000) });
    expect(ok.status, ok.text).toBe(201);
    expect(ok.body.content).toHaveLength(4000);
    expectError(await send(w.bot.auth, w.channel.id, { content: 'a'.repeat(4001) }), 400, /4000/);
    // 😀 is two UTF-16 units but one code point: 4000 of them is within the limit.
    const emoji = '😀'.repeat(4000);
    const okEmoji = await send(w.bot.auth, w.channel.id, { content: emoji });
    expect(okEmoji.status, okEmoji.text).toBe(201);
    expect(okEmoji.body.content).toBe(emoji);
    expectError(await send(w.bot.auth, w.channel.id, { content: `${emoji}😀` }), 400);
    expectError(await send(w.bot.auth, w.channel.id, { content: `${emoji}a` }), 400);
  });

  it('whitespace-only or empty content without attachments: 400', async () => {
    const before = (await history(srv.url, w.owner.auth, w.channel.id, 'limit=1'))[0]?.id;
    for (const content of ['', ' ', '   \n\t  ', '\u00a0\u2003']) {
      expectError(await send(w.bot.auth, w.channel.id, { content }), 400);
    }
    expect((await history(srv.url, w.owner.auth, w.channel.id, 'limit=1'))[0]?.id).toBe(before);
  });

  it('content with a NUL character: 400 on every database (PostgreSQL cannot store it)', async () => {
    expectError(await send(w.bot.auth, w.channel.id, { content: 'a\u0000b' }), 400, /NUL/);
    expectError(await send(w.bot.auth, w.channel.id, { content: '\u0000' }), 400);
    // Other control characters are text like any other.
    const tab = await send(w.bot.auth, w.channel.id, { content: 'col1\tcol2\r\n\u0007' });
    expect(tab.status).toBe(201);
    expect(tab.body.content).toBe('col1\tcol2\r\n\u0007');
  });

  it('missing content and attachments: 400', async () => {
    expectError(await send(w.bot.auth, w.channel.id, {}), 400);
    expectError(await send(w.bot.auth, w.channel.id, { attachments: [] }), 400);
    expectError(await send(w.bot.auth, w.channel.id, { content: '  ', attachments: [] }), 400);
  });

  it('wrong types: 400', async () => {
    const bad: unknown[] = [
      { content: 42 },
      { content: null },
      { content: ['hi'] },
      { content: { text: 'hi' } },
      { attachments: 'file.png' },
      { content: 'x', attachments: [{ url: 5, filename: 'a' }] },
      { content: 'x', attachments: [{ url: 'http://x/uploads/a/b' }] },
      { content: 'x', attachments: [null] },
      [],
      'hello',
      42,
    ];
    for (const body of bad) expectError(await send(w.bot.auth, w.channel.id, body), 400);
  });

  it('attachments only: 201 with the attachment resolved (url, filename, size, contentType)', async () => {
    const up = await upload(srv.url, w.bot.auth, 'attached bytes', 'notes.txt', 'text/plain');
    expect(up.status, up.text).toBe(200);
    const r = await send(w.bot.auth, w.channel.id, { attachments: [{ url: up.body.url, filename: 'notes.txt' }] });
    expect(r.status, r.text).toBe(201);
    expect(r.body.content).toBe('');
    expect(r.body.attachments).toEqual([{ url: up.body.url, filename: 'notes.txt', size: 14, contentType: 'text/plain' }]);
    const both = await send(w.bot.auth, w.channel.id, { content: 'see file', attachments: [{ url: up.body.url, filename: 'notes.txt' }] });
    expect(both.status).toBe(201);
    expect(both.body.content).toBe('see file');
    expect(both.body.attachments).toHaveLength(1);
  });

  it('an attachment URL this service did not hand out: 400', async () => {
    const up = await upload(srv.url, w.bot.auth, 'x', 'x.txt', 'text/plain');
    const id = new URL(up.body.url).pathname.split('/')[2];
    const foreign = [
      'https://evil.example/uploads/x.png',
      `https://evil.example/uploads/${id}/x.txt`,
      `${srv.url}/uploads/${UNKNOWN_ID}/x.txt`,
      `${srv.url}/uploads/not-an-id/x.txt`,
      `${srv.url}/elsewhere/${id}/x.txt`,
      'javascript:alert(1)',
    ];
    for (const url of foreign) {
      expectError(await send(w.bot.auth, w.channel.id, { content: 'x', attachments: [{ url, filename: 'x.txt' }] }), 400, /url/);
    }
    // One good and one bad: still refused as a whole.
    expectError(
      await send(w.bot.auth, w.channel.id, {
        attachments: [
          { url: up.body.url, filename: 'x.txt' },
          { url: foreign[0], filename: 'x.png' },
        ],
      }),
      400,
    );
  });

  it('attachments without ATTACH_FILES: 403; text alone still works', async () => {
    const bot = await createBot(srv.url, w.owner);
    await addBot(srv.url, w.owner, w.server.id, bot.id, ['READ_MESSAGES', 'SEND_MESSAGES']);
    const up = await upload(srv.url, w.bot.auth, 'x', 'x.txt', 'text/plain');
    expectError(
      await send(bot.auth, w.channel.id, { content: 'x', attachments: [{ url: up.body.url, filename: 'x.txt' }] }),
      403,
      /ATTACH_FILES/,
    );
    expectError(await send(bot.auth, w.channel.id, { attachments: [{ url: up.body.url, filename: 'x.txt' }] }), 403);
    expect((await send(bot.auth, w.channel.id, { content: 'text is fine' })).status).toBe(201);
  });

  it('unknown channel: 404', async () => {
    expectError(await send(w.bot.auth, UNKNOWN_ID, { content: 'x' }), 404);
    expectError(await send(w.bot.auth, 'not-a-channel', { content: 'x' }), 404);
    expectError(await send(w.owner.auth, UNKNOWN_ID, { content: 'x' }), 404);
  });

  it('a bot that is not in the server: 403', async () => {
    const stranger = await registerUser(srv.url);
    const outsider = await createBot(srv.url, stranger);
    expectError(await send(outsider.auth, w.channel.id, { content: 'let me in' }), 403, /not a member/);
    // Its own owner creating it does not make it a member either.
    const mine = await createBot(srv.url, w.owner);
    expectError(await send(mine.auth, w.channel.id, { content: 'x' }), 403);
    // Nor can a person who is not a member post.
    expectError(await send(stranger.auth, w.channel.id, { content: 'x' }), 403);
  });

  it('a bot without SEND_MESSAGES: 403', async () => {
    const bot = await createBot(srv.url, w.owner);
    await addBot(srv.url, w.owner, w.server.id, bot.id, ['READ_MESSAGES', 'ADD_REACTIONS', 'ATTACH_FILES']);
    expectError(await send(bot.auth, w.channel.id, { content: 'x' }), 403, /SEND_MESSAGES/);
  });

  it('missing or invalid token: 401', async () => {
    expectError(await send(undefined, w.channel.id, { content: 'x' }), 401);
    for (const auth of [
      'Bot',
      'Bot ',
      'Bot nope',
      `Bot ${w.bot.id}.wrong`,
      `Bot ${UNKNOWN_ID}.${w.bot.token.split('.')[1]}`,
      `Token ${w.bot.token}`,
    ]) {
      expectError(
        await call(srv.url, 'POST', `/channels/${w.channel.id}/messages`, { headers: { authorization: auth }, body: { content: 'x' } }),
        401,
      );
    }
    // 401 wins over 404: an unauthenticated caller learns nothing about channels.
    expectError(await send(undefined, UNKNOWN_ID, { content: 'x' }), 401);
  });

  it('malformed JSON: 400 with a JSON {error, code}', async () => {
    for (const raw of ['{"content":', '{content: "x"}', "{'content':'x'}", 'null,']) {
      const r = await call(srv.url, 'POST', `/channels/${w.channel.id}/messages`, {
        auth: w.bot.auth,
        raw,
        headers: { 'content-type': 'application/json' },
      });
      expectError(r, 400, /JSON/);
    }
  });
});

describe('contract 4: history', () => {
  let channelId: string;
  let ids: string[]; // oldest first

  beforeAll(async () => {
    channelId = (await createChannel(srv.url, w.owner, w.server.id, 'paging')).id;
    ids = [];
    for (let i = 1; i <= 5; i++) ids.push((await postMessage(srv.url, w.bot.auth, channelId, `m${i}`)).id);
  });
  const page = async (query: string) => (await history(srv.url, w.owner.auth, channelId, query)).map((m) => m.content);

  it('newest first; ids sort by creation', async () => {
    expect(await page('')).toEqual(['m5', 'm4', 'm3', 'm2', 'm1']);
    expect([...ids].sort()).toEqual(ids);
    const full = await history(srv.url, w.bot.auth, channelId, '');
    expect(full.map((m) => m.id)).toEqual([...ids].reverse());
  });

  it('limit, before and after page through it', async () => {
    const [m1, m2, , m4, m5] = ids as [string, string, string, string, string];
    expect(await page('limit=2')).toEqual(['m5', 'm4']);
    expect(await page(`limit=2&before=${m4}`)).toEqual(['m3', 'm2']);
    expect(await page(`limit=2&before=${m2}`)).toEqual(['m1']);
    expect(await page(`before=${m1}`)).toEqual([]);
    expect(await page(`after=${m2}`)).toEqual(['m5', 'm4', 'm3']);
    // With only `after`, the page is the oldest ones after it (so paging forward does not skip).
    expect(await page(`limit=2&after=${m1}`)).toEqual(['m3', 'm2']);
    expect(await page(`after=${m5}`)).toEqual([]);
    expect(await page(`after=${m1}&before=${m5}`)).toEqual(['m4', 'm3', 'm2']);
    expect(await page('limit=100')).toHaveLength(5);
    expect(await page('limit=1')).toEqual(['m5']);
  });

  it('default limit is 50', async () => {
    const c = await createChannel(srv.url, w.owner, w.server.id, 'busy');
    for (let i = 0; i < 55; i++) await postMessage(srv.url, w.owner.auth, c.id, `n${i}`);
    const all = await history(srv.url, w.owner.auth, c.id, '');
    expect(all).toHaveLength(50);
    expect(all[0].content).toBe('n54');
    expect(all[49].content).toBe('n5');
  });

  it('before/after that cannot be ids: 400', async () => {
    for (const q of ['before=%00', 'after=a%00b', 'before=x%20y', `before=${'A'.repeat(65)}`, 'after=%F0%9F%98%80']) {
      expectError(await call(srv.url, 'GET', `/channels/${channelId}/messages?${q}`, { auth: w.owner.auth }), 400);
    }
  });

  it('limit 0, 101, abc, -1, 1.5 and empty: 400', async () => {
    for (const limit of ['0', '101', 'abc', '-1', '1.5', '', '1000']) {
      expectError(await call(srv.url, 'GET', `/channels/${channelId}/messages?limit=${limit}`, { auth: w.owner.auth }), 400);
    }
  });

  it('401 without token, 404 unknown channel, 403 non-member', async () => {
    expectError(await call(srv.url, 'GET', `/channels/${channelId}/messages`), 401);
    expectError(await call(srv.url, 'GET', `/channels/${UNKNOWN_ID}/messages`, { auth: w.owner.auth }), 404);
    const stranger = await registerUser(srv.url);
    expectError(await call(srv.url, 'GET', `/channels/${channelId}/messages`, { auth: stranger.auth }), 403);
  });

  it('READ_MESSAGES missing: 403 on history and on a single message', async () => {
    const bot = await createBot(srv.url, w.owner);
    await addBot(srv.url, w.owner, w.server.id, bot.id, ['SEND_MESSAGES']);
    expectError(await call(srv.url, 'GET', `/channels/${channelId}/messages`, { auth: bot.auth }), 403, /READ_MESSAGES/);
    expectError(await call(srv.url, 'GET', `/channels/${channelId}/messages/${ids[0]}`, { auth: bot.auth }), 403, /READ_MESSAGES/);
    // It can still send: the permissions are independent.
    expect((await send(bot.auth, channelId, { content: 'write-only' })).status).toBe(201);
  });
});

describe('contract 4: get, edit, delete one message', () => {
  it('GET one: 200 the message; 404 unknown id or wrong channel', async () => {
    const m = await postMessage(srv.url, w.bot.auth, w.channel.id, 'find me');
    const r = await call(srv.url, 'GET', `/channels/${w.channel.id}/messages/${m.id}`, { auth: w.owner.auth });
    expect(r.status).toBe(200);
    expect(r.body).toEqual(m);
    expectError(await call(srv.url, 'GET', `/channels/${w.channel.id}/messages/${UNKNOWN_ID}`, { auth: w.owner.auth }), 404);
    expectError(await call(srv.url, 'GET', `/channels/${w.channel.id}/messages/garbage`, { auth: w.owner.auth }), 404);
    const other = await createChannel(srv.url, w.owner, w.server.id);
    expectError(await call(srv.url, 'GET', `/channels/${other.id}/messages/${m.id}`, { auth: w.owner.auth }), 404);
    expectError(await call(srv.url, 'GET', `/channels/${w.channel.id}/messages/${m.id}`), 401);
  });

  it('PATCH own: 200 with the new content and editedAt set; visible afterwards', async () => {
    const m = await postMessage(srv.url, w.bot.auth, w.channel.id, 'tpyo');
    expect(m.editedAt).toBeNull();
    const r = await call(srv.url, 'PATCH', `/channels/${w.channel.id}/messages/${m.id}`, { auth: w.bot.auth, body: { content: 'typo' } });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ id: m.id, content: 'typo', createdAt: m.createdAt, author: m.author });
    expect(r.body.editedAt).toMatch(ISO_UTC);
    expect(Date.parse(r.body.editedAt)).toBeGreaterThanOrEqual(Date.parse(m.createdAt));
    const got = await call(srv.url, 'GET', `/channels/${w.channel.id}/messages/${m.id}`, { auth: w.owner.auth });
    expect(got.body.content).toBe('typo');
    expect(got.body.editedAt).toBe(r.body.editedAt);
  });

  it('PATCH: 403 for someone else’s message (even the owner); 400 bad content; 404 unknown', async () => {
    const m = await postMessage(srv.url, w.bot.auth, w.channel.id, 'mine');
    expectError(
      await call(srv.url, 'PATCH', `/channels/${w.channel.id}/messages/${m.id}`, { auth: w.owner.auth, body: { content: 'yours now' } }),
      403,
    );
    const other = await createBot(srv.url, w.owner);
    await addBot(srv.url, w.owner, w.server.id, other.id);
    expectError(
      await call(srv.url, 'PATCH', `/channels/${w.channel.id}/messages/${m.id}`, { auth: other.auth, body: { content: 'yours now' } }),
      403,
    );
    for (const body of [{ content: '' }, { content: '   ' }, { content: 'a'.repeat(4001) }, { content: 'a\u0000' }, {}, { content: 1 }]) {
      expectError(await call(srv.url, 'PATCH', `/channels/${w.channel.id}/messages/${m.id}`, { auth: w.bot.auth, body }), 400);
    }
    expectError(
      await call(srv.url, 'PATCH', `/channels/${w.channel.id}/messages/${UNKNOWN_ID}`, { auth: w.bot.auth, body: { content: 'x' } }),
      404,
    );
    const got = await call(srv.url, 'GET', `/channels/${w.channel.id}/messages/${m.id}`, { auth: w.owner.auth });
    expect(got.body.content).toBe('mine');
    expect(got.body.editedAt).toBeNull();
  });

  it('DELETE own: 204 and gone', async () => {
    const m = await postMessage(srv.url, w.bot.auth, w.channel.id, 'bye');
    const r = await call(srv.url, 'DELETE', `/channels/${w.channel.id}/messages/${m.id}`, { auth: w.bot.auth });
    expect(r.status).toBe(204);
    expect(r.text).toBe('');
    expectError(await call(srv.url, 'GET', `/channels/${w.channel.id}/messages/${m.id}`, { auth: w.owner.auth }), 404);
    expect((await history(srv.url, w.owner.auth, w.channel.id)).map((x) => x.id)).not.toContain(m.id);
    expectError(await call(srv.url, 'DELETE', `/channels/${w.channel.id}/messages/${m.id}`, { auth: w.bot.auth }), 404);
  });

  it('DELETE: the server owner may delete others’ messages (204); a member may not (403)', async () => {
    const member = await registerUser(srv.url);
    await joinServer(srv.url, w.owner, member, w.server.id);
    const byBot = await postMessage(srv.url, w.bot.auth, w.channel.id, 'moderate me');
    const byOwner = await postMessage(srv.url, w.owner.auth, w.channel.id, 'the rules');
    expectError(await call(srv.url, 'DELETE', `/channels/${w.channel.id}/messages/${byOwner.id}`, { auth: member.auth }), 403);
    expectError(await call(srv.url, 'DELETE', `/channels/${w.channel.id}/messages/${byBot.id}`, { auth: member.auth }), 403);
    expectError(await call(srv.url, 'DELETE', `/channels/${w.channel.id}/messages/${byOwner.id}`, { auth: w.bot.auth }), 403);
    expect((await call(srv.url, 'GET', `/channels/${w.channel.id}/messages/${byOwner.id}`, { auth: w.owner.auth })).status).toBe(200);
    const r = await call(srv.url, 'DELETE', `/channels/${w.channel.id}/messages/${byBot.id}`, { auth: w.owner.auth });
    expect(r.status).toBe(204);
    expectError(await call(srv.url, 'GET', `/channels/${w.channel.id}/messages/${byBot.id}`, { auth: w.owner.auth }), 404);
    const own = await postMessage(srv.url, member.auth, w.channel.id, 'my own');
    expect((await call(srv.url, 'DELETE', `/channels/${w.channel.id}/messages/${own.id}`, { auth: member.auth })).status).toBe(204);
  });

  it('DELETE with the bot headers (Content-Type: application/json, no body): 204', async () => {
    const m = await postMessage(srv.url, w.bot.auth, w.channel.id, 'bye');
    const r = await call(srv.url, 'DELETE', `/channels/${w.channel.id}/messages/${m.id}`, {
      headers: { authorization: w.bot.auth, 'content-type': 'application/json' },
    });
    expect(r.status, r.text).toBe(204);
  });

  it('DELETE: 401 without token, 404 unknown message', async () => {
    const m = await postMessage(srv.url, w.bot.auth, w.channel.id, 'x');
    expectError(await call(srv.url, 'DELETE', `/channels/${w.channel.id}/messages/${m.id}`), 401);
    expectError(await call(srv.url, 'DELETE', `/channels/${w.channel.id}/messages/${UNKNOWN_ID}`, { auth: w.owner.auth }), 404);
  });
});

describe('attachment URLs are canonical (security review, finding 2)', () => {
  it('anything but exactly an upload URL of ours is 400 and stores nothing', async () => {
    const up = await upload(srv.url, w.bot.auth, 'x', 'x.txt', 'text/plain');
    expect(up.status, up.text).toBe(200);
    const url: string = up.body.url;
    const id = new URL(url).pathname.split('/')[2]!;
    const port = new URL(srv.url).port;
    const base = `${srv.url}/uploads/${id}`;
    const rejected = [
      `${url}/../../servers/${w.server.id}/invites`, // resolves to another page of ours
      `${url}/extra`,
      `${url}?download=1`,
      `${url}#fragment`,
      `${url}/`,
      `${base}/..`,
      `${base}/.`,
      `${base}/%2e%2e`,
      `${base}/x.txt%2F..%2F..%2Fservers`,
      `${base}\\..\\..\\servers`,
      `${base}/`,
      base,
      `${base}/other-name.txt`,
      `${srv.url}/uploads/0${id}/x.txt`, // the same number, another spelling
      `${srv.url}/uploads/9999999999999999999/x.txt`, // past the largest 64-bit id
      `${srv.url}//uploads/${id}/x.txt`,
      `${srv.url}/uploads/./${id}/x.txt`,
      `http://localhost:${port}/uploads/${id}/x.txt`, // the same server under another host
      `${srv.url}/uploads/${id}/x.txt%`,
    ];
    const c = await createChannel(srv.url, w.owner, w.server.id);
    for (const bad of rejected) {
      expectError(await send(w.bot.auth, c.id, { content: 'x', attachments: [{ url: bad, filename: 'x.txt' }] }), 400, /url/);
    }
    expect(await history(srv.url, w.owner.auth, c.id)).toEqual([]);
  });

  it('the message stores the canonical URL and the stored name, built from the upload', async () => {
    const up = await upload(srv.url, w.bot.auth, 'report', 'q3 report (final).txt', 'text/plain');
    expect(up.status, up.text).toBe(200);
    const canonical: string = up.body.url;
    expect(canonical).toMatch(/\/q3%20report%20\(final\)\.txt$/);
    // Another encoding of the same name names the same file; what is stored is the canonical form.
    const variant = canonical.replace('(final)', '%28final%29').replace('.txt', '%2Etxt');
    expect(variant).not.toBe(canonical);
    const c = await createChannel(srv.url, w.owner, w.server.id);
    const r = await send(w.bot.auth, c.id, { content: 'see', attachments: [{ url: variant, filename: 'invoice.pdf' }] });
    expect(r.status, r.text).toBe(201);
    const expected = [{ url: canonical, filename: 'q3 report (final).txt', size: 6, contentType: 'text/plain' }];
    expect(r.body.attachments).toEqual(expected);
    expect((await history(srv.url, w.owner.auth, c.id))[0].attachments).toEqual(expected);
  });
});
