// discord.js command bots against Parley: follow-ups read, edited and deleted by id
// through the interaction's webhook, typed options with `resolved` data, and the invoking
// member's real permissions.
import { type ChatInputCommandInteraction, type Client, Events, type Interaction } from 'discord.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call, createChannel, joinServer, registerUser, upload, world } from '../factories.js';
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

describe('typed options and the invoking member', () => {
  const VIEW_CHANNEL = 1n << 10n;
  const KICK_MEMBERS = 1n << 1n;
  const MANAGE_MESSAGES = 1n << 13n;

  /** A server with a member holding a Helpers role, a channel the bot may not see, one the member may not, and a bot with /inspect. */
  async function setup() {
    const w = await world(srv.url);
    const member = await registerUser(srv.url);
    await joinServer(srv.url, w.owner, member, w.server.id);
    const role = (
      await call(srv.url, 'POST', `/servers/${w.server.id}/roles`, {
        auth: w.owner.auth,
        body: { name: 'Helpers', permissions: KICK_MEMBERS.toString() },
      })
    ).body;
    expect(
      (await call(srv.url, 'PUT', `/servers/${w.server.id}/members/${member.id}/roles/${role.id}`, { auth: w.owner.auth })).status,
    ).toBe(204);
    // In general, Helpers may also manage messages: the member's permissions there are the channel's.
    const put = (channelId: string, target: string, type: string, allow: bigint, deny: bigint) =>
      call(srv.url, 'PUT', `/channels/${channelId}/permissions/${target}`, {
        auth: w.owner.auth,
        body: { type, allow: allow.toString(), deny: deny.toString() },
      });
    expect((await put(w.channel.id, role.id, 'role', MANAGE_MESSAGES, 0n)).status).toBe(204);
    const botless = await createChannel(srv.url, w.owner, w.server.id, 'botless');
    expect((await put(botless.id, w.bot.id, 'member', 0n, VIEW_CHANNEL)).status).toBe(204);
    const memberless = await createChannel(srv.url, w.owner, w.server.id, 'memberless');
    expect((await put(memberless.id, member.id, 'member', 0n, VIEW_CHANNEL)).status).toBe(204);
    const client = await login(srv, clients, w.bot.token);
    await client.application!.commands.create(
      {
        name: 'inspect',
        description: 'Inspect',
        options: [
          { type: 6, name: 'who', description: 'who', required: true },
          { type: 7, name: 'where', description: 'where' },
          { type: 8, name: 'role', description: 'role' },
          { type: 4, name: 'count', description: 'count' },
          { type: 10, name: 'ratio', description: 'ratio' },
          { type: 11, name: 'file', description: 'file' },
        ],
      },
      w.server.id,
    );
    return { ...w, member, role, botless, memberless, client };
  }

  const run = (w: Awaited<ReturnType<typeof setup>>, options: Record<string, unknown>) =>
    call(srv.url, 'POST', `/channels/${w.channel.id}/interactions`, {
      auth: w.member.auth,
      body: { type: 'command', botId: w.bot.id, name: 'inspect', options },
    });

  it("gives users, members, channels, roles and attachments through resolved, numbers by their declared type, and the member's real permissions", async () => {
    const w = await setup();
    const file = (await upload(srv.url, w.member.auth, 'some notes', 'notes.txt', 'text/plain')).body;
    const seen = onCommand(w.client, 'inspect', async (i) => {
      const out = {
        user: i.options.getUser('who', true).id,
        memberRoles:
          i.options.getMember('who') && 'roles' in i.options.getMember('who')!
            ? [...(i.options.getMember('who') as any).roles.cache.keys()]
            : null,
        channel: i.options.getChannel('where')?.name ?? null,
        role: i.options.getRole('role')?.name ?? null,
        count: i.options.getInteger('count'),
        ratio: i.options.getNumber('ratio'),
        file: i.options.getAttachment('file')?.name ?? null,
        invokerRoles: i.member && 'cache' in i.member.roles ? [...i.member.roles.cache.keys()] : null,
        kick: i.memberPermissions?.has(KICK_MEMBERS) ?? null,
        manageMessages: i.memberPermissions?.has(MANAGE_MESSAGES) ?? null,
        admin: i.memberPermissions?.has(8n) ?? null,
        joinedAt: i.inGuild() ? (i.member as any).joinedTimestamp : null,
      };
      await i.reply({ content: 'seen', ephemeral: true });
      return out;
    });
    const r = await run(w, { who: w.member.id, where: w.channel.id, role: w.role.id, count: 3, ratio: 2, file: file.url });
    expect(r.status, r.text).toBe(202);
    const got = await seen;
    expect(got).toMatchObject({
      user: w.member.id,
      channel: w.channel.name,
      role: 'Helpers',
      count: 3,
      ratio: 2,
      file: 'notes.txt',
      kick: true,
      manageMessages: true,
      admin: false,
    });
    expect(got.invokerRoles).toContain(w.role.id);
    expect(got.memberRoles).toContain(w.role.id);
    expect(typeof got.joinedAt).toBe('number');
  });

  it('leaves out a channel the bot cannot see, and refuses one the invoker cannot see', async () => {
    const w = await setup();
    const seen = onCommand(w.client, 'inspect', async (i) => {
      const where = i.options.get('where');
      await i.reply({ content: 'seen', ephemeral: true });
      return { value: where?.value, type: where?.type, channel: i.options.getChannel('where') };
    });
    expect((await run(w, { who: w.owner.id, where: w.botless.id })).status).toBe(202);
    expect(await seen).toEqual({ value: w.botless.id, type: 7, channel: null });
    const refused = await run(w, { who: w.owner.id, where: w.memberless.id });
    expect([refused.status, refused.body.code]).toEqual([400, 'invalid_option']);
    const unknown = await run(w, { who: w.owner.id, where: '123456789' });
    expect(refused.body.message).toBe(unknown.body.message);
  });
});
