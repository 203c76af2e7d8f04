/**
 * What libraries other than discord.js need from the wire (issue 36): the exact
 * `Content-Type: application/json` under /api (Eris, Oceanic.js and discord.py parse
 * nothing else), the gateway URL with the trailing slash Eris and Oceanic.js add, route
 * names that are no user ids, image sizes on attachments, and commands' localizations
 * and contexts kept.
 */
import zlib from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call, createWebhook, upload, world } from '../factories.js';
import { type TestServer, startServer } from '../harness.js';
import { ClientPool } from '../gateway/client.js';
import { ALL_MESSAGES, I, identifyDiscord } from './helpers.js';

let srv: TestServer;
let limited: TestServer;
const pool = new ClientPool();

beforeAll(async () => {
  [srv, limited] = await Promise.all([startServer({ env: { RATE_LIMITS: 'off' } }), startServer()]);
});
afterEach(() => pool.closeAll());
afterAll(async () => {
  await srv?.close();
  await limited?.close();
});

/** A raw request: status, Content-Type as sent, and the body. */
async function raw(s: TestServer, method: string, path: string, opts: { auth?: string; body?: unknown } = {}) {
  const headers: Record<string, string> = {};
  if (opts.auth) headers.authorization = opts.auth;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const r = await fetch(s.url + path, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  const text = await r.text();
  return { status: r.status, type: r.headers.get('content-type'), text, body: text ? JSON.parse(text) : undefined };
}

/** A real PNG of `width` × `height` pixels (grey), made here: signature, IHDR, IDAT, IEND. */
function png(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(body));
    return Buffer.concat([len, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 0; // greyscale
  const rows = Buffer.alloc((width + 1) * height, 0x80);
  for (let y = 0; y < height; y++) rows[y * (width + 1)] = 0; // filter: none
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', zlib.deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

describe('Content-Type under /api is exactly application/json', () => {
  it('on successes, errors, unknown routes, 405s and 429s; a 204 has no type; the native API keeps its charset', async () => {
    const w = await world(limited.url);
    const hook = await createWebhook(limited.url, w.owner, w.server.id, w.channel.id);
    const answers = [
      await raw(limited, 'GET', '/api/v10/gateway'),
      await raw(limited, 'GET', '/api/gateway/bot', { auth: w.bot.auth }),
      await raw(limited, 'GET', '/api/v10/users/@me', { auth: w.bot.auth }),
      await raw(limited, 'GET', `/api/v10/channels/${w.channel.id}`, { auth: w.bot.auth }),
      await raw(limited, 'POST', `/api/v10/channels/${w.channel.id}/messages`, { auth: w.bot.auth, body: { content: 'typed' } }),
      await raw(limited, 'GET', '/api/v10/users/@me'), // 401
      await raw(limited, 'GET', '/api/v10/channels/123456789', { auth: w.bot.auth }), // 404, 10003
      await raw(limited, 'POST', `/api/v10/channels/${w.channel.id}/messages`, { auth: w.bot.auth, body: { content: 'x'.repeat(5000) } }), // 400
      await raw(limited, 'GET', '/api/v10/no/such/route', { auth: w.bot.auth }), // 404, code 0
      await raw(limited, 'DELETE', '/api/v10/gateway'), // 405
    ];
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 401, 404, 400, 404, 405]);
    for (const a of answers) expect([a.status, a.type]).toEqual([a.status, 'application/json']);

    // The webhook's limit is 5 per 5 s: the sixth is a 429, the first five 204s without a body or a type.
    const posts = [];
    for (let i = 0; i < 6; i++)
      posts.push(await raw(limited, 'POST', `/api/webhooks/${hook.id}/${hook.token}`, { body: { content: `n${i}` } }));
    expect(posts.map((p) => p.status)).toEqual([204, 204, 204, 204, 204, 429]);
    for (const p of posts.slice(0, 5)) expect([p.type, p.text]).toEqual([null, '']);
    expect(posts[5]!.type).toBe('application/json');
    expect(posts[5]!.body).toMatchObject({ message: 'You are being rate limited.', global: false });

    // Native answers are unchanged.
    expect((await raw(limited, 'GET', '/users/@me', { auth: w.bot.auth })).type).toBe('application/json; charset=utf-8');
    expect((await raw(limited, 'GET', '/channels/123456789', { auth: w.bot.auth })).type).toBe('application/json; charset=utf-8');
  });
});

describe('the Discord gateway URL with a trailing slash (Eris, Oceanic.js)', () => {
  it('connects to GET /gateway\'s URL + "/?v=10&encoding=json", identifies, and resumes on resume_gateway_url + "/"', async () => {
    const w = await world(srv.url);
    const { url } = (await raw(srv, 'GET', '/api/v10/gateway')).body as { url: string };
    const c = await pool.connect(`${url}/?v=10&encoding=json`, { discord: {} });
    expect(c.frames[0]).toMatchObject({ op: 10 });
    c.send({
      op: 2,
      d: { token: w.bot.token, intents: I.GUILDS | I.GUILD_MESSAGES, properties: { os: 'linux', browser: 'eris', device: 'eris' } },
    });
    const ready = await c.waitForEvent('READY');
    await c.waitForEvent('GUILD_CREATE');
    const { session_id: sessionId, resume_gateway_url: resumeUrl } = ready.d;
    const seq = c.lastSeq;
    await c.terminate();

    const missed = (await call(srv.url, 'POST', `/channels/${w.channel.id}/messages`, { auth: w.owner.auth, body: { content: 'missed' } }))
      .body;
    const r = await pool.connect(`${resumeUrl}/?v=10&encoding=json`, { discord: {} });
    r.send({ op: 6, d: { token: w.bot.token, session_id: sessionId, seq } });
    await r.waitForEvent('RESUMED');
    expect(r.events('MESSAGE_CREATE').map((f) => f.d.id)).toEqual([missed.id]);
  });

  it('the bare path with a trailing slash and no query identifies too', async () => {
    const w = await world(srv.url);
    const c = await pool.connect(`${srv.url.replace('http', 'ws')}/api/gateway/ws/`, { discord: {} });
    c.send({ op: 2, d: { token: w.bot.token, intents: I.GUILDS } });
    await c.waitForEvent('READY');
  });
});

describe('route names in a member path are not user ids', () => {
  it('members/search and other non-ids are never Unknown Member (10007); a bad id is 400 50035 naming user_id', async () => {
    const w = await world(srv.url);
    const search = await raw(srv, 'GET', `/api/v10/guilds/${w.server.id}/members/search?query=a&limit=5`, { auth: w.bot.auth });
    // Another route may answer it (the members search); never the member lookup.
    expect(search.body?.code).not.toBe(10007);
    const bad = await raw(srv, 'GET', `/api/v10/guilds/${w.server.id}/members/not-an-id`, { auth: w.bot.auth });
    expect([bad.status, bad.body.code, Object.keys(bad.body.errors)]).toEqual([400, 50035, ['user_id']]);
    const kick = await raw(srv, 'DELETE', `/api/v10/guilds/${w.server.id}/members/nobody`, { auth: w.owner.auth });
    expect([kick.status, kick.body.code]).toEqual([400, 50035]);
    const role = await raw(srv, 'PUT', `/api/v10/guilds/${w.server.id}/members/nobody/roles/${w.server.id}`, { auth: w.owner.auth });
    expect([role.status, role.body.code]).toEqual([400, 50035]);
    // Real ids and @me are looked up as before.
    const me = await raw(srv, 'GET', `/api/v10/guilds/${w.server.id}/members/@me`, { auth: w.bot.auth });
    expect([me.status, me.body.user.id]).toEqual([200, w.bot.id]);
    const unknown = await raw(srv, 'GET', `/api/v10/guilds/${w.server.id}/members/123456789`, { auth: w.bot.auth });
    expect([unknown.status, unknown.body.code]).toEqual([404, 10007]);
  });
});

describe('image attachments carry width and height', () => {
  it('a PNG uploaded natively, attached, read through both APIs; a text file has none', async () => {
    const w = await world(srv.url);
    const image = (await upload(srv.url, w.owner.auth, png(3, 2), 'dot.png', 'image/png')).body;
    expect(image).toMatchObject({ filename: 'dot.png', contentType: 'image/png', width: 3, height: 2 });
    const text = (await upload(srv.url, w.owner.auth, 'plain words', 'notes.txt', 'text/plain')).body;
    expect(text.width).toBeUndefined();
    const posted = await call(srv.url, 'POST', `/channels/${w.channel.id}/messages`, {
      auth: w.owner.auth,
      body: { content: 'files', attachments: [image, text].map((a) => ({ url: a.url, filename: a.filename })) },
    });
    expect(posted.status).toBe(201);
    expect(posted.body.attachments.map((a: any) => [a.filename, a.width, a.height])).toEqual([
      ['dot.png', 3, 2],
      ['notes.txt', undefined, undefined],
    ]);
    const native = await call(srv.url, 'GET', `/channels/${w.channel.id}/messages?limit=1`, { auth: w.owner.auth });
    expect(native.body[0].attachments[0]).toMatchObject({ width: 3, height: 2 });
    const discord = await raw(srv, 'GET', `/api/v10/channels/${w.channel.id}/messages/${posted.body.id}`, { auth: w.bot.auth });
    expect(discord.body.attachments.map((a: any) => [a.filename, a.width, a.height])).toEqual([
      ['dot.png', 3, 2],
      ['notes.txt', undefined, undefined],
    ]);
  });

  it('a PNG sent with a Discord multipart message is measured too', async () => {
    const w = await world(srv.url);
    const form = new FormData();
    form.append('payload_json', JSON.stringify({ content: 'chart' }));
    form.append('files[0]', new Blob([png(40, 30)], { type: 'image/png' }), 'chart.png');
    const r = await fetch(`${srv.url}/api/v10/channels/${w.channel.id}/messages`, {
      method: 'POST',
      headers: { authorization: w.bot.auth },
      body: form,
    });
    const m = (await r.json()) as { attachments: Array<{ width?: number; height?: number }> };
    expect([r.status, m.attachments[0]?.width, m.attachments[0]?.height]).toEqual([200, 40, 30]);
  });
});

describe('command localizations, contexts and integration types are kept', () => {
  it('registered through /api, read back through /api and natively; an edit that leaves them out keeps them', async () => {
    const w = await world(srv.url);
    const command = {
      name: 'ping',
      description: 'Replies with pong',
      name_localizations: { fr: 'salut', 'pt-BR': 'oi' },
      description_localizations: { fr: 'Répond pong' },
      contexts: [0, 1],
      integration_types: [0],
      type: 1,
    };
    const put = await raw(srv, 'PUT', `/api/v10/applications/${w.bot.id}/commands`, { auth: w.bot.auth, body: [command] });
    expect(put.status).toBe(200);
    const expected = {
      name_localizations: command.name_localizations,
      description_localizations: command.description_localizations,
      contexts: [0, 1],
      integration_types: [0],
    };
    expect(put.body[0]).toMatchObject(expected);
    const listed = await raw(srv, 'GET', `/api/v10/applications/${w.bot.id}/commands`, { auth: w.bot.auth });
    expect(listed.body[0]).toMatchObject(expected);
    const native = await call(srv.url, 'GET', `/bots/${w.bot.id}/commands`, { auth: w.bot.auth });
    expect(native.body[0]).toMatchObject({ nameLocalizations: { fr: 'salut', 'pt-BR': 'oi' }, contexts: [0, 1], integrationTypes: [0] });
    const id = put.body[0].id;
    const edited = await raw(srv, 'PATCH', `/api/v10/applications/${w.bot.id}/commands/${id}`, {
      auth: w.bot.auth,
      body: { description: 'Pong!' },
    });
    expect(edited.body).toMatchObject({ description: 'Pong!', ...expected });
    const cleared = await raw(srv, 'PATCH', `/api/v10/applications/${w.bot.id}/commands/${id}`, {
      auth: w.bot.auth,
      body: { name_localizations: null, contexts: null },
    });
    expect(cleared.body).toMatchObject({ name_localizations: null, contexts: null, description_localizations: { fr: 'Répond pong' } });
    // A command without them reads as before.
    const plain = await raw(srv, 'POST', `/api/v10/applications/${w.bot.id}/commands`, {
      auth: w.bot.auth,
      body: { name: 'plain', description: 'x' },
    });
    expect(plain.body).toMatchObject({ name_localizations: null, description_localizations: null, contexts: null, integration_types: [0] });
  });

  it('refuses a localized name that breaks the name rule, and contexts Discord does not have', async () => {
    const w = await world(srv.url);
    const bad = await raw(srv, 'POST', `/api/v10/applications/${w.bot.id}/commands`, {
      auth: w.bot.auth,
      body: { name: 'ping', description: 'x', name_localizations: { fr: 'Has Spaces' } },
    });
    expect([bad.status, bad.body.code]).toEqual([400, 50035]);
    const ctx = await raw(srv, 'POST', `/api/v10/applications/${w.bot.id}/commands`, {
      auth: w.bot.auth,
      body: { name: 'ping', description: 'x', contexts: [7] },
    });
    expect([ctx.status, ctx.body.code]).toEqual([400, 50035]);
  });
});

describe('boolean query values as discord.py sends them (wait=1, with_response=1)', () => {
  it('a webhook post with wait=1 or wait=True answers the message, wait=0 a 204', async () => {
    const w = await world(srv.url);
    const hook = await createWebhook(srv.url, w.owner, w.server.id, w.channel.id);
    const url = `/api/v10/webhooks/${hook.id}/${hook.token}`;
    const answers = [];
    for (const wait of ['1', 'True', 'true', '0', 'false'])
      answers.push(await raw(srv, 'POST', `${url}?wait=${wait}`, { body: { content: `wait ${wait}` } }));
    expect(answers.map((a) => [a.status, a.body?.content])).toEqual([
      [200, 'wait 1'],
      [200, 'wait True'],
      [200, 'wait true'],
      [204, undefined],
      [204, undefined],
    ]);
  });

  it("an interaction callback with with_response=1 answers the interaction and its message (discord.py reads it), an update's too; the follow-up with wait=1 its message", async () => {
    const w = await world(srv.url);
    const put = await raw(srv, 'PUT', `/api/v10/applications/${w.bot.id}/commands`, {
      auth: w.bot.auth,
      body: [{ name: 'ping', description: 'Ping' }],
    });
    expect(put.status).toBe(200);
    const gw = await identifyDiscord(pool, srv, w.bot.token, ALL_MESSAGES);
    const run = await call(srv.url, 'POST', `/channels/${w.channel.id}/interactions`, {
      auth: w.owner.auth,
      body: { type: 'command', botId: w.bot.id, name: 'ping' },
    });
    expect(run.status, run.text).toBe(202);
    const i = (await gw.waitForEvent('INTERACTION_CREATE')).d;
    const button = { type: 1, components: [{ type: 2, style: 1, label: 'Go', custom_id: 'go' }] };
    const cb = await raw(srv, 'POST', `/api/v10/interactions/${i.id}/${i.token}/callback?with_response=1`, {
      body: { type: 4, data: { content: 'pong', components: [button] } },
    });
    expect([cb.status, cb.type]).toEqual([200, 'application/json']);
    expect(cb.body).toMatchObject({
      interaction: { id: i.id, type: 2, response_message_loading: false, response_message_ephemeral: false },
      resource: { type: 4, message: { content: 'pong' } },
    });
    const answer = cb.body.resource.message.id;
    expect(cb.body.interaction.response_message_id).toBe(answer);
    const follow = await raw(srv, 'POST', `/api/v10/webhooks/${w.bot.id}/${i.token}?wait=1`, { body: { content: 'more' } });
    expect([follow.status, follow.body?.content]).toEqual([200, 'more']);

    // A click answered with an update: the interaction is a component's (3), the message the clicked one, edited.
    const click = await call(srv.url, 'POST', `/channels/${w.channel.id}/interactions`, {
      auth: w.owner.auth,
      body: { type: 'component', messageId: answer, customId: 'go' },
    });
    expect(click.status, click.text).toBe(202);
    const c = (await gw.waitForEvent('INTERACTION_CREATE', (d) => d.type === 3)).d;
    const upd = await raw(srv, 'POST', `/api/v10/interactions/${c.id}/${c.token}/callback?with_response=true`, {
      body: { type: 7, data: { content: 'went', components: [] } },
    });
    expect([upd.status, upd.body?.interaction?.type, upd.body?.resource?.type]).toEqual([200, 3, 7]);
    expect(upd.body.resource.message).toMatchObject({ id: answer, content: 'went' });
  });
});
