// Issue 39 (docs/threads.md#permissions, docs/commands.md): a command run inside a thread. The
// permissions an interaction carries (the invoker's, the members and channels it names, the
// bot's `app_permissions` on Discord's wire) are the thread's, by `threadPermissions`: its
// parent's as the thread leaves them, never the thread's id taken for a channel without
// overwrites. The interaction's channel is the thread.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call, joinServer, registerUser, type TestUser, world } from '../factories.js';
import { ClientPool } from '../gateway/client.js';
import { startServer, type TestServer } from '../harness.js';
import { I, identifyDiscord } from '../discord/helpers.js';

let srv: TestServer;
const pool = new ClientPool();
const VIEW_CHANNEL = 1n << 10n;
const ADD_REACTIONS = 1n << 6n;
const SEND_MESSAGES = 1n << 11n;

beforeAll(async () => {
  srv = await startServer({ env: { RATE_LIMITS: 'off' } });
});
afterEach(() => pool.closeAll());
afterAll(() => srv?.close());

const LOOK = {
  name: 'look',
  description: 'Look at someone somewhere',
  options: [
    { type: 'user', name: 'who', description: 'Whom' },
    { type: 'channel', name: 'where', description: 'Where' },
  ],
};

/**
 * A server whose #general hides from `outside` (a member overwrite) and takes no reactions
 * from the bot; a public thread `member` started there, and a private one of the owner's.
 */
async function setup() {
  const w = await world(srv.url);
  const [member, outside] = [await registerUser(srv.url), await registerUser(srv.url)];
  await joinServer(srv.url, w.owner, member, w.server.id);
  await joinServer(srv.url, w.owner, outside, w.server.id);
  const put = await call(srv.url, 'PUT', `/bots/${w.bot.id}/commands`, { auth: w.bot.auth, body: [LOOK] });
  expect(put.status, put.text).toBe(200);
  const overwrite = async (targetId: string, deny: bigint) => {
    const r = await call(srv.url, 'PUT', `/channels/${w.channel.id}/permissions/${targetId}`, {
      auth: w.owner.auth,
      body: { type: 'member', allow: '0', deny: deny.toString() },
    });
    expect(r.status, r.text).toBe(204);
  };
  await overwrite(outside.id, VIEW_CHANNEL);
  await overwrite(w.bot.id, ADD_REACTIONS);
  const start = async (who: TestUser, body: object) => {
    const r = await call(srv.url, 'POST', `/channels/${w.channel.id}/threads`, { auth: who.auth, body });
    expect(r.status, r.text).toBe(201);
    return r.body.id as string;
  };
  const thread = await start(member, { name: 'public' });
  const privateThread = await start(w.owner, { name: 'private', type: 'private_thread' });
  return { ...w, member, outside, thread, privateThread };
}

const look = (who: TestUser, channelId: string, botId: string, options: object = {}) =>
  call(srv.url, 'POST', `/channels/${channelId}/interactions`, { auth: who.auth, body: { type: 'command', botId, name: 'look', options } });

describe('a command run in a thread', () => {
  it("carries the thread as its channel, and the thread's permissions for the invoker and the members it names", async () => {
    const w = await setup();
    const gw = await pool.identify(srv.gatewayUrl, w.bot.auth);
    const r = await look(w.member, w.thread, w.bot.id, { who: w.outside.id });
    expect(r.status, r.text).toBe(202);
    const i = (await gw.waitForEvent('INTERACTION_CREATE', (d) => d.id === r.body.id)).d;
    expect(i.channelId).toBe(w.thread);
    expect(i.thread).toEqual({ parentId: w.channel.id, type: 'public_thread', locked: false, joined: false });
    // The invoker posts in the thread through SEND_MESSAGES_IN_THREADS.
    expect(BigInt(i.member.permissions) & SEND_MESSAGES).toBe(SEND_MESSAGES);
    // Someone who cannot see the parent holds nothing in its thread.
    expect(i.resolved.members[w.outside.id].permissions).toBe('0');
  });

  it('a channel option naming a private thread the invoker may not see is refused, as a channel they cannot see', async () => {
    const w = await setup();
    const refused = await look(w.member, w.thread, w.bot.id, { where: w.privateThread });
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body.code).toBe('invalid_option');
    // The owner (MANAGE_THREADS) sees it; the bot, not in it, is not told of it.
    const gw = await pool.identify(srv.gatewayUrl, w.bot.auth);
    const r = await look(w.owner, w.thread, w.bot.id, { where: w.privateThread });
    expect(r.status, r.text).toBe(202);
    const i = (await gw.waitForEvent('INTERACTION_CREATE', (d) => d.id === r.body.id)).d;
    expect(i.resolved?.channels?.[w.privateThread]).toBeUndefined();
  });

  it("on Discord's wire: channel is the thread (type 11 with parent_id), app_permissions the bot's there", async () => {
    const w = await setup();
    const bot = await identifyDiscord(pool, srv, w.bot.token, I.GUILDS);
    const r = await look(w.member, w.thread, w.bot.id);
    expect(r.status, r.text).toBe(202);
    const i = (await bot.waitForEvent('INTERACTION_CREATE', (d) => d.id === r.body.id)).d;
    expect(i.channel_id).toBe(w.thread);
    expect(i.channel).toMatchObject({ id: w.thread, type: 11, parent_id: w.channel.id, guild_id: w.server.id });
    const app = BigInt(i.app_permissions);
    // The parent's overwrite reaches the thread; posting is SEND_MESSAGES_IN_THREADS's.
    expect(app & ADD_REACTIONS).toBe(0n);
    expect(app & (SEND_MESSAGES | VIEW_CHANNEL)).toBe(SEND_MESSAGES | VIEW_CHANNEL);
    expect(BigInt(i.member.permissions) & SEND_MESSAGES).toBe(SEND_MESSAGES);
  });
});
