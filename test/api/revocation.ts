import { DEFAULT_EVERYONE_PERMISSIONS, P } from '@parley/protocol';
import { expect, it } from 'vitest';
import { call, createBot, createServer, createWebhook, joinServer, registerUser, world } from '../factories.js';

/**
 * Revocations that must hold at once even though identity and channel access are cached
 * (`AccessCache`): each case first has `b` serve (and cache) a request, then revokes
 * through `a`, then expects `b` to refuse the very next request. On one instance a and b
 * are the same URL; in the cluster suite they are two processes.
 */
export function revocationCases(urls: () => { a: string; b: string }): void {
  const send = (base: string, auth: string, channelId: string, content = 'hello') =>
    call(base, 'POST', `/channels/${channelId}/messages`, { auth, body: { content } });

  /** A server whose owner invited a person; both can post in `general`. */
  async function withMember() {
    const { a } = urls();
    const owner = await registerUser(a);
    const person = await registerUser(a);
    const { server, general } = await createServer(a, owner);
    await joinServer(a, owner, person, server.id);
    return { owner, person, server, channel: general };
  }

  it('a deleted bot is refused at once (401)', async () => {
    const { a, b } = urls();
    const w = await world(a);
    expect((await send(b, w.bot.auth, w.channel.id)).status).toBe(201);
    expect((await call(a, 'DELETE', `/bots/${w.bot.id}`, { auth: w.owner.auth })).status).toBe(204);
    expect((await send(b, w.bot.auth, w.channel.id)).status).toBe(401);
  });

  it('a bot removed from the server is refused at once (403)', async () => {
    const { a, b } = urls();
    const w = await world(a);
    expect((await send(b, w.bot.auth, w.channel.id)).status).toBe(201);
    expect((await call(a, 'DELETE', `/servers/${w.server.id}/bots/${w.bot.id}`, { auth: w.owner.auth })).status).toBe(204);
    const r = await send(b, w.bot.auth, w.channel.id);
    expect(r.status).toBe(403);
    expect(r.body.code).toBe('not_a_member');
  });

  it('a kicked member is refused at once (403)', async () => {
    const { a, b } = urls();
    const s = await withMember();
    expect((await send(b, s.person.auth, s.channel.id)).status).toBe(201);
    expect((await call(a, 'DELETE', `/servers/${s.server.id}/members/${s.person.id}`, { auth: s.owner.auth })).status).toBe(204);
    const r = await send(b, s.person.auth, s.channel.id);
    expect(r.status).toBe(403);
    expect(r.body.code).toBe('not_a_member');
  });

  it('a role that loses SEND_MESSAGES refuses at once (403 missing_permission)', async () => {
    const { a, b } = urls();
    const s = await withMember();
    expect((await send(b, s.person.auth, s.channel.id)).status).toBe(201);
    const without = (DEFAULT_EVERYONE_PERMISSIONS & ~P.SEND_MESSAGES).toString();
    const p = await call(a, 'PATCH', `/servers/${s.server.id}/roles/${s.server.id}`, {
      auth: s.owner.auth,
      body: { permissions: without },
    });
    expect(p.status).toBe(200);
    const r = await send(b, s.person.auth, s.channel.id);
    expect(r.status).toBe(403);
    expect(r.body.code).toBe('missing_permission');
  });

  it('a channel overwrite that denies the member refuses at once, and lifting it allows again', async () => {
    const { a, b } = urls();
    const s = await withMember();
    expect((await send(b, s.person.auth, s.channel.id)).status).toBe(201);
    const path = `/channels/${s.channel.id}/permissions/${s.person.id}`;
    const deny = { type: 'member', deny: P.SEND_MESSAGES.toString() };
    expect((await call(a, 'PUT', path, { auth: s.owner.auth, body: deny })).status).toBe(204);
    expect((await send(b, s.person.auth, s.channel.id)).status).toBe(403);
    expect((await call(a, 'DELETE', path, { auth: s.owner.auth })).status).toBe(204);
    expect((await send(b, s.person.auth, s.channel.id)).status).toBe(201);
  });

  it('a deleted channel answers 404 at once', async () => {
    const { a, b } = urls();
    const w = await world(a);
    const c = await call(a, 'POST', `/servers/${w.server.id}/channels`, { auth: w.owner.auth, body: { name: 'doomed' } });
    expect((await send(b, w.bot.auth, c.body.id)).status).toBe(201);
    expect((await call(a, 'DELETE', `/channels/${c.body.id}`, { auth: w.owner.auth })).status).toBe(204);
    expect((await send(b, w.bot.auth, c.body.id)).status).toBe(404);
  });

  it('a logged-out session is refused at once (401)', async () => {
    const { a, b } = urls();
    const s = await withMember();
    expect((await send(b, s.person.auth, s.channel.id)).status).toBe(201);
    expect((await call(a, 'POST', '/auth/logout', { auth: s.person.auth })).status).toBe(204);
    expect((await send(b, s.person.auth, s.channel.id)).status).toBe(401);
  });

  it('a deleted webhook fails at once (404)', async () => {
    const { a, b } = urls();
    const w = await world(a);
    const hook = await createWebhook(a, w.owner, w.server.id, w.channel.id);
    const path = new URL(hook.url).pathname;
    expect((await call(b, 'POST', path, { body: { content: 'before' } })).status).toBe(200);
    expect((await call(a, 'DELETE', `/webhooks/${hook.id}`, { auth: w.owner.auth })).status).toBe(204);
    expect((await call(b, 'POST', path, { body: { content: 'after' } })).status).toBe(404);
  });

  it("a bot's new name is on its very next message", async () => {
    const { a, b } = urls();
    const w = await world(a);
    expect((await send(b, w.bot.auth, w.channel.id)).body.author.name).toBe(w.bot.name);
    expect((await call(a, 'PATCH', `/bots/${w.bot.id}`, { auth: w.owner.auth, body: { name: 'renamed-bot' } })).status).toBe(200);
    expect((await send(b, w.bot.auth, w.channel.id)).body.author.name).toBe('renamed-bot');
  });

  it('a second bot of the same owner keeps working when the first is deleted', async () => {
    const { a, b } = urls();
    const w = await world(a);
    const other = await createBot(a, w.owner);
    await call(a, 'POST', `/servers/${w.server.id}/bots`, { auth: w.owner.auth, body: { botId: other.id } });
    expect((await send(b, other.auth, w.channel.id)).status).toBe(201);
    expect((await call(a, 'DELETE', `/bots/${w.bot.id}`, { auth: w.owner.auth })).status).toBe(204);
    expect((await send(b, other.auth, w.channel.id)).status).toBe(201);
  });
}
