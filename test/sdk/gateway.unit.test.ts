// The SDK's gateway client against a scripted gateway (mock-gateway.ts): the protocol
// edge cases a real server rarely produces on cue. gateway.test.ts covers the real one.
import { afterEach, describe, expect, it } from 'vitest';
import { GatewayError, ParleyBot, gatewayUrlFor, type Message } from '@parley/sdk';
import { MockGateway, until } from './mock-gateway.js';

const fast = { initialDelayMs: 20, maxDelayMs: 100 };

function message(id: string, content: string): Message {
  return {
    id,
    channelId: 'ch-1',
    serverId: 'srv-1',
    author: { id: 'user-1', name: 'alice', bot: false, avatar: null },
    content,
    attachments: [],
    embeds: [],
    reactions: [],
    createdAt: '2025-01-01T00:00:00.000Z',
    editedAt: null,
    mentions: [],
    mentionRoles: [],
    mentionEveryone: false,
    pinned: false,
  };
}

let gateway: MockGateway | undefined;
let bot: ParleyBot | undefined;

afterEach(async () => {
  await bot?.close();
  await gateway?.close();
  bot = undefined;
  gateway = undefined;
});

async function start(options: ConstructorParameters<typeof MockGateway>[0] = {}, token = 'good') {
  gateway = new MockGateway(options);
  const baseUrl = await gateway.listen();
  bot = new ParleyBot({ baseUrl, token, reconnect: fast });
  return { gateway, bot };
}

describe('gateway client (scripted server)', () => {
  it('derives the gateway URL from the base URL', () => {
    expect(gatewayUrlFor('http://localhost:8080')).toBe('ws://localhost:8080/gateway');
    expect(gatewayUrlFor('https://chat.example.com/parley/')).toBe('wss://chat.example.com/parley/gateway');
  });

  it('identifies with "Bot <token>", becomes ready and routes typed events', async () => {
    const { gateway, bot } = await start({ heartbeatInterval: 50 });
    const contents: string[] = [];
    const deletes: string[] = [];
    const seen: string[] = [];
    bot.on('messageCreate', (m) => {
      contents.push(m.content);
    });
    bot.on('messageDelete', (d) => {
      deletes.push(d.id);
    });
    bot.on('dispatch', (e) => {
      seen.push(`${e.s}:${e.t}`);
    });

    const ready = await bot.connect();
    expect(ready.sessionId).toBe('session-1');
    expect(bot.user?.name).toBe('Testbot');
    expect(bot.servers[0]?.channels[0]?.name).toBe('general');
    expect(gateway.framesOf('identify')[0]?.d).toEqual({ token: 'Bot good' });

    gateway.publish('MESSAGE_CREATE', message('m1', 'hello'));
    gateway.publish('MESSAGE_DELETE', { id: 'm1', channelId: 'ch-1', serverId: 'srv-1' });
    gateway.publish('SOMETHING_NEW', { x: 1 });
    await until(() => seen.length === 3, 2000, 'three events');
    expect(contents).toEqual(['hello']);
    expect(deletes).toEqual(['m1']);
    expect(seen).toEqual(['1:MESSAGE_CREATE', '2:MESSAGE_DELETE', '3:SOMETHING_NEW']);

    // Heartbeats carry the last sequence seen, and acks measure the ping.
    await until(() => gateway.framesOf('heartbeat').some((f) => (f.d as { s: number }).s === 3), 2000, 'heartbeat with s=3');
    await until(() => bot.gateway.ping !== undefined, 2000, 'ping');
  });

  it('reconnects after a dropped socket, resumes, and delivers missed events once, in order', async () => {
    const { gateway, bot } = await start();
    const got: string[] = [];
    bot.on('messageCreate', (m) => {
      got.push(m.content);
    });
    let resumed = 0;
    bot.on('resumed', () => {
      resumed++;
    });
    await bot.connect();
    gateway.publish('MESSAGE_CREATE', message('m1', 'one'));
    await until(() => got.length === 1);

    gateway.dropAll();
    await until(() => bot.gateway.status === 'reconnecting', 2000, 'reconnecting');
    gateway.publish('MESSAGE_CREATE', message('m2', 'two')); // while the client is away
    gateway.publish('MESSAGE_CREATE', message('m3', 'three'));
    await until(() => resumed === 1, 3000, 'resumed');
    gateway.publish('MESSAGE_CREATE', message('m4', 'four'));
    await until(() => got.length === 4, 2000, 'four messages');

    expect(got).toEqual(['one', 'two', 'three', 'four']);
    expect(gateway.framesOf('resume')[0]?.d).toEqual({ token: 'Bot good', sessionId: 'session-1', s: 1 });
    expect(gateway.framesOf('identify')).toHaveLength(1);
    expect(bot.gateway.sequence).toBe(4);
  });

  it('reconnects and resumes when the server asks to (4000, 1012)', async () => {
    const { gateway, bot } = await start();
    await bot.connect();
    for (const code of [4000, 1012]) {
      const resumed = bot.waitFor('resumed', { timeoutMs: 3000 });
      const closed = bot.waitFor('close', { timeoutMs: 3000 });
      gateway.closeAll(code, 'please reconnect');
      const [info] = await closed;
      expect(info).toMatchObject({ code, reconnecting: true });
      await resumed;
    }
    expect(gateway.framesOf('resume')).toHaveLength(2);
  });

  it('rejects connect() with a GatewayError on a bad token (4001) and does not reconnect', async () => {
    const { gateway, bot } = await start({}, 'wrong');
    const closes: boolean[] = [];
    bot.on('close', ({ reconnecting }) => {
      closes.push(reconnecting);
    });
    const error = await bot.connect().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).closeCode).toBe(4001);
    // The client decides at the close, and says so: a reconnect is only ever scheduled
    // with reconnecting: true, so no pause is needed to see that none is coming.
    expect(closes).toEqual([false]);
    expect(gateway.connections).toBe(1);
    expect(bot.gateway.status).toBe('closed');
  });

  it('emits error and stops when the token is revoked while connected', async () => {
    const { gateway, bot } = await start();
    await bot.connect();
    gateway.options.validTokens = [];
    const errored = bot.waitFor('error', { timeoutMs: 3000 });
    gateway.dropAll(); // the resume will be refused with 4001
    const [error] = await errored;
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).closeCode).toBe(4001);
    expect(bot.gateway.status).toBe('closed');
  });

  it('treats a missing heartbeat_ack as a zombie connection: drops it and resumes', async () => {
    const { gateway, bot } = await start({ heartbeatInterval: 40, ackHeartbeats: false });
    await bot.connect();
    const [info] = await bot.waitFor('close', { timeoutMs: 2000 });
    expect(info.reconnecting).toBe(true);
    gateway.options.ackHeartbeats = true;
    await until(() => gateway.framesOf('resume').length >= 1, 2000, 'resume');
    await until(() => bot.gateway.status === 'ready', 2000, 'ready again');
  });

  it('identifies afresh when the session cannot be resumed (invalid_session)', async () => {
    const { gateway, bot } = await start({ rejectResume: true });
    const ready: string[] = [];
    bot.on('ready', (r) => {
      ready.push(r.sessionId);
    });
    await bot.connect();
    gateway.dropAll();
    await until(() => ready.length === 2, 3000, 'second ready');
    expect(ready).toEqual(['session-1', 'session-2']);
    expect(gateway.framesOf('resume')).toHaveLength(1);
    // Events of the new session start from 1 again and are not mistaken for duplicates.
    const got: string[] = [];
    bot.on('messageCreate', (m) => {
      got.push(m.content);
    });
    gateway.sessions.delete('session-1');
    gateway.publish('MESSAGE_CREATE', message('m9', 'fresh'));
    await until(() => got.length === 1, 2000, 'event of the new session');
  });

  it('reports a throwing handler as an error event without dropping the connection', async () => {
    const { gateway, bot } = await start();
    bot.on('messageCreate', () => {
      throw new Error('handler bug');
    });
    await bot.connect();
    const errored = bot.waitFor('error', { timeoutMs: 2000 });
    gateway.publish('MESSAGE_CREATE', message('m1', 'boom'));
    const [error] = await errored;
    expect(error.message).toBe('handler bug');
    expect(bot.gateway.status).toBe('ready');
  });

  it('close() ends the session for good', async () => {
    const { gateway, bot } = await start();
    const closes: boolean[] = [];
    bot.on('close', ({ reconnecting }) => {
      closes.push(reconnecting);
    });
    await bot.connect();
    await bot.close();
    // close() resolves after the client handled the socket's close, where it decides (and
    // reports) whether to reconnect; so no pause is needed to see that it will not.
    expect(closes).toEqual([false]);
    expect(bot.gateway.status).toBe('closed');
    expect(gateway.connections).toBe(1);
  });

  it('rejects connect() when nothing listens', async () => {
    const lonely = new ParleyBot({ baseUrl: 'http://127.0.0.1:9', token: 'x', reconnect: fast });
    await expect(lonely.connect()).rejects.toBeInstanceOf(GatewayError);
  });
});
