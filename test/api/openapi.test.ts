/** The OpenAPI document (/openapi.json) and the docs page (/docs): generated from the routes, valid, complete and true. */
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createWebhook, registerUser, upload, world } from '../factories.js';
import { type TestServer, startServer } from '../harness.js';
import { UNKNOWN_ID } from './assert.js';
import { exchange } from './raw-http.js';

interface Operation {
  responses?: Record<string, { content?: Record<string, { schema?: object }> }>;
}
// A type alias, not an interface: the validator takes any plain object (an index signature).
type Document = {
  openapi: string;
  servers: Array<{ url: string }>;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, object>; securitySchemes: Record<string, object> };
};

let srv: TestServer;
let doc: Document;

beforeAll(async () => {
  srv = await startServer({ env: { RATE_LIMITS: 'off' } });
  const r = await call<Document>(srv.url, 'GET', '/openapi.json');
  expect(r.status, r.text).toBe(200);
  expect(r.headers.get('content-type')).toMatch(/^application\/json/);
  doc = r.body;
});
afterAll(() => srv?.close());

/** `/channels/:channelId` as OpenAPI writes it: `/channels/{channelId}`. */
const openapiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

/**
 * The API's own routes: HEAD is Fastify's automatic twin of GET; the document and docs
 * page describe the API, not themselves; Discord's routes under /api are Discord's API,
 * documented in docs/discord.md.
 */
function apiRoutes() {
  return srv.app.routes.filter(
    (r) => r.method !== 'HEAD' && r.url !== '/openapi.json' && !r.url.startsWith('/docs') && !r.url.startsWith('/api/'),
  );
}

function operation(method: string, url: string): Operation {
  const op = doc.paths[openapiPath(url)]?.[method.toLowerCase()];
  if (!op) throw new Error(`${method} ${url} is not in the document`);
  return op;
}

/** A validator of one response (status, content type) of one operation, resolving the document's components. */
function responseValidator(method: string, url: string, status: string, type = 'application/json') {
  const schema = operation(method, url).responses?.[status]?.content?.[type]?.schema;
  if (!schema) throw new Error(`${method} ${url} declares no ${type} schema for ${status}`);
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  const validate = ajv.compile({ ...schema, components: doc.components });
  return (body: unknown) => {
    const ok = validate(body);
    return { ok, errors: JSON.stringify(validate.errors, null, 1) };
  };
}

function expectValid(method: string, url: string, status: string, body: unknown) {
  const { ok, errors } = responseValidator(method, url, status)(body);
  expect(ok, `${method} ${url} ${status}: ${errors}\n${JSON.stringify(body)}`).toBe(true);
}

describe('the document', () => {
  it('is valid OpenAPI 3.1', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const result = await new Validator().validate(structuredClone(doc));
    expect(result.valid, JSON.stringify(result.errors, null, 1)).toBe(true);
  });

  it('names the service by PUBLIC_URL and both credentials as security schemes', () => {
    expect(doc.servers).toEqual([{ url: srv.url }]);
    expect(doc.components.securitySchemes.bot).toMatchObject({ type: 'apiKey', in: 'header', name: 'Authorization' });
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('lists every registered route with its method', () => {
    const routes = apiRoutes();
    expect(routes.length).toBeGreaterThan(30);
    const missing = routes.filter((r) => !doc.paths[openapiPath(r.url)]?.[r.method.toLowerCase()]).map((r) => `${r.method} ${r.url}`);
    expect(missing).toEqual([]);
  });

  it('gives every operation a summary, a tag and at least one response schema, and errors the shared ErrorResponse', () => {
    for (const r of apiRoutes()) {
      const op = operation(r.method, r.url) as Operation & { summary?: string; tags?: string[] };
      const where = `${r.method} ${r.url}`;
      expect(op.summary, where).toBeTruthy();
      expect(op.tags?.length, where).toBeGreaterThan(0);
      const schemas = Object.values(op.responses ?? {}).flatMap((res) => Object.values(res.content ?? {}).filter((m) => m.schema));
      expect(schemas.length, where).toBeGreaterThan(0);
      expect(op.responses?.['4XX']?.content?.['application/json']?.schema, where).toEqual({ $ref: '#/components/schemas/ErrorResponse' });
    }
  });

  it('names the wire objects as components', () => {
    for (const name of [
      'Message',
      'Embed',
      'Attachment',
      'Server',
      'Channel',
      'Member',
      'Invite',
      'Bot',
      'CreatedBot',
      'Webhook',
      'CreatedWebhook',
      'ErrorResponse',
    ]) {
      expect(doc.components.schemas[name], name).toBeDefined();
    }
  });

  it('describes the bodies Fastify does not parse: multipart upload, the dialects, non-JSON answers', () => {
    const body = (method: string, url: string) =>
      Object.keys((operation(method, url) as { requestBody?: { content: object } }).requestBody?.content ?? {});
    expect(body('POST', '/upload')).toEqual(['multipart/form-data']);
    expect(body('POST', '/webhooks/:webhookId/:token').sort()).toEqual([
      'application/json',
      'application/x-www-form-urlencoded',
      'multipart/form-data',
    ]);
    expect(body('POST', '/webhooks/:webhookId/:token/slack').sort()).toEqual(['application/json', 'application/x-www-form-urlencoded']);
    expect(Object.keys(operation('POST', '/webhooks/:webhookId/:token/slack').responses?.['200']?.content ?? {})).toEqual(['text/plain']);
    expect(Object.keys(operation('GET', '/uploads/:id/:secret/:filename').responses?.['200']?.content ?? {})).toContain(
      'application/octet-stream',
    );
  });
});

describe('real responses match their declared schemas', () => {
  it('POST /servers, POST /bots, GET /channels/{id}/messages (with files, embeds, reactions, a webhook message), search, members, errors', async () => {
    const w = await world(srv.url);
    const created = await call(srv.url, 'POST', '/servers', { auth: w.owner.auth, body: { name: 'Schema check' } });
    expect(created.status, created.text).toBe(201);
    expectValid('POST', '/servers', '201', created.body);

    const bot = await call(srv.url, 'POST', '/bots', { auth: w.owner.auth, body: { name: 'Schema bot' } });
    expect(bot.status, bot.text).toBe(201);
    expectValid('POST', '/bots', '201', bot.body);
    expect(bot.body.token).toBeTypeOf('string');

    const file = await upload(srv.url, w.bot.auth, 'some bytes', 'notes.txt', 'text/plain');
    expect(file.status, file.text).toBe(200);
    expectValid('POST', '/upload', '200', file.body);
    const sent = await call(srv.url, 'POST', `/channels/${w.channel.id}/messages`, {
      auth: w.bot.auth,
      body: { content: 'with a file', attachments: [{ url: file.body.url, filename: 'notes.txt' }] },
    });
    expect(sent.status, sent.text).toBe(201);
    const reacted = await call(srv.url, 'PUT', `/channels/${w.channel.id}/messages/${sent.body.id}/reactions/${encodeURIComponent('👍')}`, {
      auth: w.owner.auth,
    });
    expect(reacted.status, reacted.text).toBe(200);
    expectValid('PUT', '/channels/:channelId/messages/:messageId/reactions/:emoji', '200', reacted.body);

    const hook = await createWebhook(srv.url, w.owner, w.server.id, w.channel.id);
    const posted = await call(srv.url, 'POST', new URL(hook.url).pathname, {
      body: {
        content: 'from a hook',
        embeds: [{ title: 'T', color: 255, fields: [{ name: 'a', value: 'b', inline: true }], footer: { text: 'f' } }],
      },
    });
    expect(posted.status, posted.text).toBe(200);

    const page = await call(srv.url, 'GET', `/channels/${w.channel.id}/messages`, { auth: w.owner.auth });
    expect(page.status, page.text).toBe(200);
    expect(page.body).toHaveLength(2);
    expectValid('GET', '/channels/:channelId/messages', '200', page.body);
    // What the schemas must not drop: the webhook's id, the embed, the file and the caller's reaction.
    expect(page.body[0].webhookId).toBe(hook.id);
    expect(page.body[0].embeds[0]).toEqual({
      title: 'T',
      color: 255,
      fields: [{ name: 'a', value: 'b', inline: true }],
      footer: { text: 'f' },
    });
    expect(page.body[1].attachments[0]).toEqual(file.body);
    expect(page.body[1].reactions).toEqual([{ emoji: '👍', count: 1, me: true }]);
    expect(page.body[1]).not.toHaveProperty('webhookId');
    // Search answers the same messages, inside {total, messages}.
    const found = await call(srv.url, 'GET', `/search/messages?channelId=${w.channel.id}`, { auth: w.owner.auth });
    expect(found.status, found.text).toBe(200);
    expectValid('GET', '/search/messages', '200', found.body);
    expect(found.body).toEqual({ total: 2, messages: page.body });

    const members = await call(srv.url, 'GET', `/servers/${w.server.id}/members`, { auth: w.owner.auth });
    expectValid('GET', '/servers/:serverId/members', '200', members.body);
    const botMember = members.body.find((m: { id: string }) => m.id === w.bot.id);
    expect(botMember).toMatchObject({ ownerId: w.owner.id, permissions: expect.any(Array) });
    expect(members.body.find((m: { id: string }) => m.id === w.owner.id)).not.toHaveProperty('permissions');

    const me = await call(srv.url, 'GET', '/users/@me', { auth: w.bot.auth });
    expectValid('GET', '/users/@me', '200', me.body);
    expect(me.body.ownerId).toBe(w.owner.id);
    const person = await registerUser(srv.url);
    const self = await call(srv.url, 'GET', '/users/@me', { auth: person.auth });
    expectValid('GET', '/users/@me', '200', self.body);
    expect(self.body.username).toBeTypeOf('string');

    const missing = await call(srv.url, 'GET', `/servers/${UNKNOWN_ID}`, { auth: w.owner.auth });
    expect(missing.status).toBe(404);
    expectValid('GET', '/servers/:serverId', '4XX', missing.body);
  });

  it('the thread routes: a thread, the lists, an archived page and the members (docs/threads.md#native-routes)', async () => {
    const w = await world(srv.url);
    const as = (method: string, path: string, body?: unknown) => call(srv.url, method, path, { auth: w.owner.auth, body });
    const created = await as('POST', `/channels/${w.channel.id}/threads`, { name: 'schema', type: 'private_thread' });
    expect(created.status, created.text).toBe(201);
    expectValid('POST', '/channels/:channelId/threads', '201', created.body);
    const id = created.body.id as string;
    const m = await call(srv.url, 'POST', `/channels/${w.channel.id}/messages`, { auth: w.owner.auth, body: { content: 'start' } });
    const fromMessage = await as('POST', `/channels/${w.channel.id}/messages/${m.body.id}/threads`, { name: 'from it' });
    expectValid('POST', '/channels/:channelId/messages/:messageId/threads', '201', fromMessage.body);
    expectValid('GET', '/threads/:threadId', '200', (await as('GET', `/threads/${id}`)).body);
    expectValid('GET', '/channels/:channelId/threads', '200', (await as('GET', `/channels/${w.channel.id}/threads`)).body);
    expectValid('GET', '/servers/:serverId/threads', '200', (await as('GET', `/servers/${w.server.id}/threads`)).body);
    expectValid('PATCH', '/threads/:threadId', '200', (await as('PATCH', `/threads/${id}`, { archived: true })).body);
    const archived = await as('GET', `/channels/${w.channel.id}/threads/archived?type=private_thread`);
    expect(archived.body.threads).toHaveLength(1);
    expectValid('GET', '/channels/:channelId/threads/archived', '200', archived.body);
    expectValid('GET', '/threads/:threadId/members', '200', (await as('GET', `/threads/${id}/members`)).body);
    expectValid('GET', '/threads/:threadId/members/:userId', '200', (await as('GET', `/threads/${id}/members/@me`)).body);
    // The document refuses a thread without its metadata.
    expect(responseValidator('GET', '/threads/:threadId', '200')({ ...created.body, metadata: undefined }).ok).toBe(false);
  });

  it('a validator built from the document refuses a body that breaks it (the check can fail)', () => {
    const check = responseValidator('POST', '/servers', '201');
    const server = { id: '1315520512234881024', name: 'n', ownerId: '1315520512234881025', createdAt: 't' };
    expect(check(server).ok).toBe(true);
    expect(check({ ...server, ownerId: undefined }).ok).toBe(false);
    expect(check({ ...server, name: 7 }).ok).toBe(false);
    // Ids are snowflakes: decimal strings, not ULIDs.
    expect(check({ ...server, id: '01ARZ3NDEKTSV4RRFFQ69G5FAV' }).ok).toBe(false);
  });
});

describe('the docs page', () => {
  it('GET /docs answers swagger-ui HTML with its own CSP, and its assets load', async () => {
    const page = await fetch(`${srv.url}/docs`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await page.text();
    expect(html).toMatch(/swagger-ui/i);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('upgrade-insecure-requests');

    const spec = await call(srv.url, 'GET', '/docs/json');
    expect(spec.status).toBe(200);
    expect(spec.body.paths).toEqual(doc.paths);
    const asset = await fetch(`${srv.url}/docs/static/swagger-ui-bundle.js`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toMatch(/javascript/);
    // Read to the end: an unread response keeps its connection busy, and closing waits for it.
    expect((await asset.arrayBuffer()).byteLength).toBeGreaterThan(0);
  });

  it("Swagger UI's index.html redirect names the docs page, never the host of an absolute-form request", async () => {
    const raw = await exchange(
      srv.url,
      'GET http://evil.example/docs/static/index.html HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n',
      3000,
    );
    expect(raw.text).toMatch(/^HTTP\/1\.1 302/);
    expect(raw.text).toMatch(/\r\nlocation: \/docs\/\r\n/i);
    expect(raw.text).not.toContain('evil.example');
  });

  it('the web client never answers under /docs or /openapi.json', async () => {
    const r = await fetch(`${srv.url}/docs/no-such-page`, { headers: { accept: 'text/html' } });
    expect(r.status).toBe(404);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await r.json()).toMatchObject({ error: expect.any(String) });
  });
});
