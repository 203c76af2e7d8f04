import { afterAll, describe, expect, it } from 'vitest';
import { call, joinServer, registerUser, world } from '../factories.js';
import { ClientPool } from '../gateway/client.js';
import { type TestServer, startServer } from '../harness.js';

/**
 * The `InteractionBroker` (`ctx.interactions`) belongs to the app: closing it answers the
 * autocompletes that wait and leaves no window timer behind (docs/ARCHITECTURE.md).
 */

const pool = new ClientPool();
let srv: TestServer | undefined;
afterAll(async () => {
  await pool.closeAll();
  await srv?.close();
});

describe('closing the app', () => {
  it('stops the interaction broker: waiting autocompletes are answered and no timer is left', async () => {
    // A long window, so nothing ends by itself while the test runs.
    srv = await startServer({ env: { RATE_LIMITS: 'off', INTERACTION_CALLBACK_MS: '60000' } });
    const { url } = srv;
    const w = await world(url);
    const member = await registerUser(url);
    await joinServer(url, w.owner, member, w.server.id);
    const put = await call(url, 'PUT', `/bots/${w.bot.id}/commands`, {
      auth: w.bot.auth,
      body: [{ name: 'play', description: 'Play', options: [{ type: 'string', name: 'game', description: 'Which', autocomplete: true }] }],
    });
    expect(put.status, put.text).toBe(200);
    const botGw = await pool.identify(srv.gatewayUrl, w.bot.auth);
    const broker = srv.app.ctx.interactions;
    expect(broker.pending).toBe(0);

    // A command the bot never answers: its window's timer is armed.
    const run = await call(url, 'POST', `/channels/${w.channel.id}/interactions`, {
      auth: member.auth,
      body: { type: 'command', botId: w.bot.id, name: 'play' },
    });
    expect(run.status, run.text).toBe(202);
    await botGw.waitForEvent('INTERACTION_CREATE', (d) => d.id === run.body.id);
    expect(broker.pending).toBe(1);

    // An autocomplete the bot never answers: its request waits on the broker.
    const delivered = botGw.waitForEvent('INTERACTION_CREATE', (d) => d.type === 'autocomplete');
    const typing = call(url, 'POST', `/channels/${w.channel.id}/interactions`, {
      auth: member.auth,
      body: { type: 'autocomplete', botId: w.bot.id, name: 'play', options: { game: 'ch' }, focused: 'game' },
    });
    await delivered;
    expect(broker.pending).toBeGreaterThan(1);

    await srv.app.close();
    const answered = await typing;
    expect(answered.status, answered.text).toBe(200);
    expect(answered.body.choices).toEqual([]);
    expect(broker.pending).toBe(0);
    // Stopped: nothing new is armed or waited on.
    broker.armWindow('never', async () => {});
    expect(broker.pending).toBe(0);
    await expect(broker.waitForChoices('1', async () => undefined)).resolves.toEqual([]);
    expect(broker.pending).toBe(0);
  });
});
