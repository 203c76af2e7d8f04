import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, joinServer, registerUser, world } from '../factories.js';
import { TestGatewayClient } from '../gateway/client.js';
import { type Cluster, clusterServicesAvailable, startCluster } from './instances.js';

const run = clusterServicesAvailable();

/**
 * Interactions across instances (docs/commands.md): invoked on one, delivered to the bot's
 * session on the other, answered there, and the answer back on the first; an
 * autocomplete whose answer lands on the other instance still reaches the waiting POST.
 */
describe.runIf(run)('interactions on two instances', () => {
  let cluster: Cluster;
  let a: string;
  let b: string;

  beforeAll(async () => {
    cluster = await startCluster(2);
    a = cluster.instances[0]!.url;
    b = cluster.instances[1]!.url;
  }, 90_000);
  afterAll(() => cluster?.close());

  it('a command invoked through A reaches the bot on B; its answer through B reaches the member on A', async () => {
    const w = await world(a);
    const member = await registerUser(a);
    await joinServer(a, w.owner, member, w.server.id);
    const put = await call(a, 'PUT', `/bots/${w.bot.id}/commands`, {
      auth: w.bot.auth,
      body: [
        { name: 'hello', description: 'Hello' },
        { name: 'pick', description: 'Pick', options: [{ type: 'string', name: 'x', description: 'x', autocomplete: true }] },
      ],
    });
    expect(put.status, put.text).toBe(200);
    const bot = await TestGatewayClient.identify(cluster.instances[1]!.gatewayUrl, w.bot.auth);
    const memberGw = await TestGatewayClient.identify(cluster.instances[0]!.gatewayUrl, member.auth);
    try {
      const r = await call(a, 'POST', `/channels/${w.channel.id}/interactions`, {
        auth: member.auth,
        body: { type: 'command', botId: w.bot.id, name: 'hello' },
      });
      expect(r.status, r.text).toBe(202);
      const i = (await bot.waitForEvent('INTERACTION_CREATE', (d) => d.id === r.body.id)).d;
      const cb = await call(b, 'POST', `/interactions/${i.id}/${i.token}/callback`, {
        body: { type: 'message', data: { content: 'hi from B' } },
      });
      expect(cb.status, cb.text).toBe(204);
      await memberGw.waitForEvent('MESSAGE_CREATE', (d) => d.content === 'hi from B' && d.interaction?.id === i.id);
      await memberGw.waitForEvent('INTERACTION_SUCCESS', (d) => d.id === i.id);

      // Autocomplete: the POST waits on A, the answer lands on B.
      bot
        .waitForEvent('INTERACTION_CREATE', (d) => d.type === 'autocomplete')
        .then((ev) =>
          call(b, 'POST', `/interactions/${ev.d.id}/${ev.d.token}/callback`, {
            body: { type: 'autocomplete', data: { choices: [{ name: 'from B', value: 'b' }] } },
          }),
        );
      const ac = await call(a, 'POST', `/channels/${w.channel.id}/interactions`, {
        auth: member.auth,
        body: { type: 'autocomplete', botId: w.bot.id, name: 'pick', options: { x: 'f' }, focused: 'x' },
      });
      expect(ac.status, ac.text).toBe(200);
      expect(ac.body.choices).toEqual([{ name: 'from B', value: 'b' }]);
    } finally {
      await bot.close();
      await memberGw.close();
    }
  });
});
