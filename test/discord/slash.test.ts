// discord.js command bots against Parley: follow-ups read, edited and deleted by id
// through the interaction's webhook, typed options with `resolved` data, and the invoking
// member's real permissions.
import { type ChatInputCommandInteraction, type Client, Events, type Interaction } from 'discord.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call, world } from '../factories.js';
import { ClientPool } from '../gateway/client.js';
import { startServer, type TestServer } from '../harness.js';
import { login } from './djs.js';

let srv: TestServer;
const clients: Client[] = [];
const pool = new ClientPool();

beforeAll(async () => {
  srv = await startServer({ env: { GATEWAY_HEARTBEAT_MS: '5000', RATE_LIMITS: 'off' } });
});
afterEach(async () => {
  await Promise.all([...clients.splice(0).map((c) => c.destroy()), pool.closeAll()]);
});
afterAll(() => srv?.close());

/** Runs `handler` on the next chat input command `name` the client receives; resolves with what it returns. */
function onCommand<T>(client: Client, name: string, handler: (i: ChatInputCommandInteraction) => Promise<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    const on = (i: Interaction) => {
      if (!i.isChatInputCommand() || i.commandName !== name) return;
      client.off(Events.InteractionCreate, on);
      handler(i).then(resolve, reject);
    };
    client.on(Events.InteractionCreate, on);
  });
}

const invoke = (w: Awaited<ReturnType<typeof world>>, channelId: string, name: string, options: Record<string, unknown> = {}) =>
  call(srv.url, 'POST', `/channels/${channelId}/interactions`, {
    auth: w.owner.auth,
    body: { type: 'command', botId: w.bot.id, name, options },
  });

describe('follow-ups by id', () => {
  it('edits, fetches and deletes a follow-up through the interaction webhook, and nothing else', async () => {
    const w = await world(srv.url);
    const client = await login(srv, clients, w.bot.token);
    await client.application!.commands.create({ name: 'multi', description: 'Several answers' }, w.server.id);
    const other = await call(srv.url, 'POST', `/channels/${w.channel.id}/messages`, { auth: w.owner.auth, body: { content: 'not yours' } });
    const done = onCommand(client, 'multi', async (i) => {
      await i.reply('first');
      const follow = await i.followUp({ content: 'second' });
      const edited = await i.editReply({ message: follow.id, content: 'second, edited' });
      const viaWebhook = await i.webhook.editMessage(follow.id, { content: 'second, again' });
      const fetched = await i.fetchReply(follow.id);
      const original = await i.fetchReply();
      // Another message of the channel is not this interaction's: Unknown Message.
      const refused = await i.webhook.editMessage(other.body.id, { content: 'hijacked' }).then(
        () => null,
        (err: { code?: number; status?: number }) => [err.status, err.code],
      );
      await i.deleteReply(follow.id);
      return {
        follow: follow.id,
        edited: edited.content,
        viaWebhook: viaWebhook.content,
        fetched: fetched.content,
        original: original.content,
        refused,
      };
    });
    expect((await invoke(w, w.channel.id, 'multi')).status).toBe(202);
    const r = await done;
    expect(r).toMatchObject({
      edited: 'second, edited',
      viaWebhook: 'second, again',
      fetched: 'second, again',
      original: 'first',
      refused: [404, 10008],
    });
    const history = (await call(srv.url, 'GET', `/channels/${w.channel.id}/messages`, { auth: w.owner.auth })).body as Array<{
      id: string;
      content: string;
    }>;
    expect(history.some((m) => m.id === r.follow)).toBe(false);
    expect(history.find((m) => m.id === other.body.id)?.content).toBe('not yours');
  });

  it("refuses another interaction's token on a follow-up, on Discord's path and the native one", async () => {
    const w = await world(srv.url);
    const client = await login(srv, clients, w.bot.token);
    await client.application!.commands.create({ name: 'one', description: 'One' }, w.server.id);
    const tokens: string[] = [];
    const follows: string[] = [];
    client.on(Events.InteractionCreate, async (i) => {
      if (!i.isChatInputCommand()) return;
      await i.reply('ok');
      const f = await i.followUp('follow');
      tokens.push(i.token);
      follows.push(f.id);
    });
    await invoke(w, w.channel.id, 'one');
    await invoke(w, w.channel.id, 'one');
    await expect.poll(() => follows.length, { timeout: 5000 }).toBe(2);
    const api = `/api/v10/webhooks/${w.bot.id}`;
    // The second token cannot touch the first interaction's follow-up.
    const cross = await call(srv.url, 'PATCH', `${api}/${tokens[1]}/messages/${follows[0]}`, { body: { content: 'x' } });
    expect([cross.status, cross.body.code]).toEqual([404, 10008]);
    expect((await call(srv.url, 'DELETE', `/interactions/${tokens[1]}/messages/${follows[0]}`)).status).toBe(404);
    // Its own token can, natively too.
    const own = await call(srv.url, 'PATCH', `/interactions/${tokens[0]}/messages/${follows[0]}`, { body: { content: 'mine' } });
    expect([own.status, own.body.content]).toEqual([200, 'mine']);
    expect((await call(srv.url, 'GET', `/interactions/${tokens[0]}/messages/${follows[0]}`)).body.content).toBe('mine');
    expect((await call(srv.url, 'DELETE', `/interactions/${tokens[0]}/messages/${follows[0]}`)).status).toBe(204);
    expect((await call(srv.url, 'GET', `/interactions/${tokens[0]}/messages/${follows[0]}`)).status).toBe(404);
  });
});
