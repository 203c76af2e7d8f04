import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { addBot, call, createBot, joinServer, registerUser, world } from '../factories.js';
import { type TestServer, startServer } from '../harness.js';
import { ClientPool } from './client.js';

/**
 * Interaction events on the gateway (docs/commands.md): INTERACTION_CREATE reaches the
 * bot it is for and no one else; INTERACTION_SUCCESS and INTERACTION_FAILED reach the
 * invoker's own sessions; COMMANDS_UPDATE reaches the server's members. "No event" is
 * checked after a marker event that was published later, never by waiting.
 */

let srv: TestServer;
const pool = new ClientPool();

// A short window, so the failure of an unanswered interaction arrives quickly.
beforeAll(async () => {
  srv = await startServer({ env: { RATE_LIMITS: 'off', INTERACTION_CALLBACK_MS: '400' } });
});
afterEach(() => pool.closeAll());
afterAll(() => srv?.close());

async function setup() {
  const w = await world(srv.url);
  const member = await registerUser(srv.url);
  await joinServer(srv.url, w.owner, member, w.server.id);
  const otherBot = await createBot(srv.url, w.owner);
  await addBot(srv.url, w.owner, w.server.id, otherBot.id);
  const put = await call(srv.url, 'PUT', `/bots/${w.bot.id}/commands`, { auth: w.bot.auth, body: [{ name: 'ping', description: 'Ping' }] });
  expect(put.status).toBe(200);
  return { ...w, member, otherBot };
}

const marker = (auth: string, channelId: string, content: string) =>
  call(srv.url, 'POST', `/channels/${channelId}/messages`, { auth, body: { content } });

describe('INTERACTION_CREATE', () => {
  it('reaches every session of the bot it is for, and no other bot, member or the invoker', async () => {
    const w = await setup();
    const [bot1, bot2, other, owner, member] = await Promise.all([
      pool.identify(srv.gatewayUrl, w.bot.auth),
      pool.identify(srv.gatewayUrl, w.bot.auth),
      pool.identify(srv.gatewayUrl, w.otherBot.auth),
      pool.identify(srv.gatewayUrl, w.owner.auth),
      pool.identify(srv.gatewayUrl, w.member.auth),
    ]);
    const r = await call(srv.url, 'POST', `/channels/${w.channel.id}/interactions`, {
      auth: w.member.auth,
      body: { type: 'command', botId: w.bot.id, name: 'ping' },
    });
    expect(r.status, r.text).toBe(202);
    for (const c of [bot1, bot2]) {
      const ev = await c.waitForEvent('INTERACTION_CREATE', (d) => d.id === r.body.id);
      expect(ev.d).toMatchObject({ name: 'ping', botId: w.bot.id, user: { id: w.member.id } });
    }
    // Answer, so the window does not end in a failure notice meanwhile.
    const i = bot1.events('INTERACTION_CREATE')[0]!.d;
    expect((await call(srv.url, 'POST', `/interactions/${i.id}/${i.token}/callback`, { body: { type: 'deferred' } })).status).toBe(204);
    await marker(w.owner.auth, w.channel.id, 'marker');
    for (const c of [other, owner, member]) {
      await c.waitForEvent('MESSAGE_CREATE', (d) => d.content === 'marker');
      expect(c.events('INTERACTION_CREATE')).toEqual([]);
    }
  });

  it('a click reaches the bot whose message it is', async () => {
    const w = await setup();
    const [bot, other] = await Promise.all([pool.identify(srv.gatewayUrl, w.bot.auth), pool.identify(srv.gatewayUrl, w.otherBot.auth)]);
    const m = await call(srv.url, 'POST', `/channels/${w.channel.id}/messages`, {
      auth: w.bot.auth,
      body: {
        content: 'press',
        components: [{ type: 'row', components: [{ type: 'button', style: 'success', label: 'Go', customId: 'go' }] }],
      },
    });
    const r = await call(srv.url, 'POST', `/channels/${w.channel.id}/interactions`, {
      auth: w.member.auth,
      body: { type: 'component', messageId: m.body.id, customId: 'go' },
    });
    expect(r.status, r.text).toBe(202);
    await bot.waitForEvent('INTERACTION_CREATE', (d) => d.id === r.body.id && d.customId === 'go');
    await marker(w.owner.auth, w.channel.id, 'marker');
    await other.waitForEvent('MESSAGE_CREATE', (d) => d.content === 'marker');
    expect(other.events('INTERACTION_CREATE')).toEqual([]);
  });
});

describe('INTERACTION_SUCCESS and INTERACTION_FAILED', () => {
  it("tell the invoker's sessions alone what became of the interaction", async () => {
    const w = await setup();
    const [bot, member1, member2, owner] = await Promise.all([
      pool.identify(srv.gatewayUrl, w.bot.auth),
      pool.identify(srv.gatewayUrl, w.member.auth),
      pool.identify(srv.gatewayUrl, w.member.auth),
      pool.identify(srv.gatewayUrl, w.owner.auth),
    ]);
    const answered = await call(srv.url, 'POST', `/channels/${w.channel.id}/interactions`, {
      auth: w.member.auth,
      body: { type: 'command', botId: w.bot.id, name: 'ping' },
    });
    const i = (await bot.waitForEvent('INTERACTION_CREATE', (d) => d.id === answered.body.id)).d;
    expect(
      (await call(srv.url, 'POST', `/interactions/${i.id}/${i.token}/callback`, { body: { type: 'message', data: { content: 'pong' } } }))
        .status,
    ).toBe(204);
    for (const c of [member1, member2]) await c.waitForEvent('INTERACTION_SUCCESS', (d) => d.id === i.id);

    // Unanswered: the window ends, the invoker hears it failed, and a late answer is refused.
    const ignored = await call(srv.url, 'POST', `/channels/${w.channel.id}/interactions`, {
      auth: w.member.auth,
      body: { type: 'command', botId: w.bot.id, name: 'ping' },
    });
    const late = (await bot.waitForEvent('INTERACTION_CREATE', (d) => d.id === ignored.body.id)).d;
    for (const c of [member1, member2]) {
      const failed = await c.waitForEvent('INTERACTION_FAILED', (d) => d.id === ignored.body.id);
      expect(failed.d).toMatchObject({ channelId: w.channel.id, serverId: w.server.id, reason: 'timeout' });
    }
    const r = await call(srv.url, 'POST', `/interactions/${late.id}/${late.token}/callback`, {
      body: { type: 'message', data: { content: 'late' } },
    });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('interaction_expired');

    await marker(w.owner.auth, w.channel.id, 'marker');
    await owner.waitForEvent('MESSAGE_CREATE', (d) => d.content === 'marker');
    await bot.waitForEvent('MESSAGE_CREATE', (d) => d.content === 'marker');
    for (const c of [owner, bot]) {
      expect(c.events('INTERACTION_SUCCESS')).toEqual([]);
      expect(c.events('INTERACTION_FAILED')).toEqual([]);
    }
  });
});

describe('COMMANDS_UPDATE', () => {
  it("reaches the server's members when a bot's commands change", async () => {
    const w = await setup();
    const member = await pool.identify(srv.gatewayUrl, w.member.auth);
    const r = await call(srv.url, 'PUT', `/bots/${w.bot.id}/commands?serverId=${w.server.id}`, {
      auth: w.bot.auth,
      body: [{ name: 'local', description: 'Here only' }],
    });
    expect(r.status).toBe(200);
    const ev = await member.waitForEvent('COMMANDS_UPDATE');
    expect(ev.d).toEqual({ botId: w.bot.id, serverId: w.server.id });
  });
});
