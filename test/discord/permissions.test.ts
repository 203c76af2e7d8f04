/**
 * The Discord layer's permission matrix: every route under /api with a path parameter,
 * read from the running app, is tried with no credentials, by a bot of another server
 * on the real objects of this one, and (token routes) with a wrong token. None may
 * succeed or change anything, and each refusal is Discord-shaped with a Discord code.
 * Unknown methods answer 405 with `Allow`, Discord's way.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createBot, createServer, createWebhook, postMessage, registerUser, type TestUser } from '../factories.js';
import { type TestServer, startServer } from '../harness.js';

let srv: TestServer;
let owner: TestUser;
let outsider: { auth: string };
let ids: Record<string, string>;

beforeAll(async () => {
  srv = await startServer({ env: { RATE_LIMITS: 'off' } });
  owner = await registerUser(srv.url);
  const { server, general } = await createServer(srv.url, owner, 'Fortress');
  const m = await postMessage(srv.url, owner.auth, general.id, 'keep out');
  await call(srv.url, 'PUT', `/channels/${general.id}/messages/${m.id}/reactions/${encodeURIComponent('👍')}`, { auth: owner.auth });
  const hook = await createWebhook(srv.url, owner, server.id, general.id);
  const roles = await call(srv.url, 'POST', `/servers/${server.id}/roles`, { auth: owner.auth, body: { name: 'guards' } });
  // A bot whose owner has a server of their own, so it is a member somewhere, just not here.
  const stranger = await registerUser(srv.url);
  const elsewhere = await createServer(srv.url, stranger, 'Elsewhere');
  const bot = await createBot(srv.url, stranger);
  await call(srv.url, 'POST', `/servers/${elsewhere.server.id}/bots`, { auth: stranger.auth, body: { botId: bot.id } });
  outsider = bot;
  ids = {
    guildId: server.id,
    channelId: general.id,
    messageId: m.id,
    userId: owner.id,
    roleId: roles.body.id,
    overwriteId: server.id,
    webhookId: hook.id,
    token: hook.token,
    emoji: encodeURIComponent('👍'),
  };
});
afterAll(() => srv?.close());

/** The /api routes with a path parameter, as "METHOD /path". */
function discordRoutes(): Array<{ method: string; url: string }> {
  return srv.app.routes.filter((r) => r.method !== 'HEAD' && r.url.startsWith('/api/') && r.url.includes(':'));
}

const concrete = (url: string, values: Record<string, string>) => url.replace(/:([A-Za-z]+)/g, (_, name: string) => values[name] ?? '1');

/** What the server holds that a refused request must not have changed. */
async function snapshot() {
  const [messages, server, roles, hooks, channels] = await Promise.all([
    call(srv.url, 'GET', `/channels/${ids.channelId}/messages`, { auth: owner.auth }),
    call(srv.url, 'GET', `/servers/${ids.guildId}`, { auth: owner.auth }),
    call(srv.url, 'GET', `/servers/${ids.guildId}/roles`, { auth: owner.auth }),
    call(srv.url, 'GET', `/servers/${ids.guildId}/webhooks`, { auth: owner.auth }),
    call(srv.url, 'GET', `/servers/${ids.guildId}/channels`, { auth: owner.auth }),
  ]);
  return JSON.stringify([messages.body, server.body, roles.body, hooks.body, channels.body]);
}

const BODY = { content: 'x', name: 'x', messages: ['1', '2'], type: 0 };
/** The body a route would accept, so the refusal is about the caller (the bulk channel move takes a list). */
const bodyOf = (method: string, url: string) =>
  method === 'PATCH' && url === '/api/guilds/:guildId/channels' ? [{ id: ids.channelId, position: 5 }] : BODY;

function expectDiscordError(r: { status: number; body: unknown; text: string }, where: string) {
  const b = r.body as { message?: unknown; code?: unknown };
  expect(typeof b.message, `${where}: ${r.text}`).toBe('string');
  expect(typeof b.code, `${where}: ${r.text}`).toBe('number');
}

describe('Discord permission matrix', () => {
  it('covers the routes', () => {
    const routes = discordRoutes().map((r) => `${r.method} ${r.url}`);
    expect(routes).toContain('POST /api/channels/:channelId/messages');
    expect(routes).toContain('GET /api/guilds/:guildId/members/:userId');
    expect(routes).toContain('GET /api/guilds/:guildId/members/search');
    expect(routes.length).toBeGreaterThan(35);
  });

  it('without credentials: 401 / 40001 (webhook token routes: 10015 for a wrong token)', async () => {
    const before = await snapshot();
    for (const { method, url } of discordRoutes()) {
      const tokenRoute = url.includes(':token');
      const path = concrete(url, tokenRoute ? { ...ids, token: 'w'.repeat(43) } : ids);
      const r = await call(srv.url, method, path, method === 'GET' || method === 'DELETE' ? {} : { body: bodyOf(method, url) });
      const where = `${method} ${url}`;
      expectDiscordError(r, where);
      const code = (r.body as { code: number }).code;
      // A webhook path with a wrong token is Unknown Webhook; an interaction's token path
      // (the discord-gateway work's) refuses in its own order, never with success.
      if (url.startsWith('/api/webhooks/') && tokenRoute) expect([r.status, code], where).toEqual([404, 10015]);
      else if (tokenRoute) expect([400, 401, 404], `${where}: ${r.text}`).toContain(r.status);
      else expect([r.status, code], where).toEqual([401, 40001]);
    }
    expect(await snapshot()).toBe(before);
  });

  it('a bot of another server: 403 (50001, 50013, 20001) or 404 with a Discord unknown code; nothing changes', async () => {
    const before = await snapshot();
    for (const { method, url } of discordRoutes()) {
      if (url.includes(':token')) continue; // the token is the credential there (tried above)
      const r = await call(srv.url, method, concrete(url, ids), {
        auth: outsider.auth,
        ...(method === 'GET' || method === 'DELETE' ? {} : { body: bodyOf(method, url) }),
      });
      const where = `${method} ${url}`;
      expectDiscordError(r, where);
      const code = (r.body as { code: number }).code;
      if (r.status === 403) expect([50001, 50013, 20001], `${where}: ${r.text}`).toContain(code);
      else {
        expect(r.status, `${where}: ${r.text}`).toBe(404);
        expect([10003, 10004, 10008, 10013, 10015], `${where}: ${r.text}`).toContain(code);
      }
    }
    expect(await snapshot()).toBe(before);
  });

  it('a method a path lacks is 405 with Allow, in Discord shape', async () => {
    const r = await call(srv.url, 'PUT', `/api/v10/channels/${ids.channelId}/messages`, { auth: owner.auth, body: {} });
    expect(r.status).toBe(405);
    expect(r.body).toEqual({ message: '405: Method Not Allowed', code: 0 });
    expect((r.headers.get('allow') ?? '').split(', ').sort()).toEqual(['GET', 'HEAD', 'POST']);
  });
});
