import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addBot, call, createBot, createChannel, createWebhook, postMessage, upload, world } from '../factories.js';
import { RedisBus } from '../../src/events/redis-bus.js';
import { TestGatewayClient } from '../gateway/client.js';
import { type Cluster, clusterServicesAvailable, startCluster } from './instances.js';
import { redisProxy } from './redis-proxy.js';

const run = clusterServicesAvailable();

/** Resolves once the shared checkpoint of `sessionId` records `s`; fails after 5 s. */
async function checkpointReaches(cluster: Cluster, sessionId: string, s: number): Promise<void> {
  const bus = await RedisBus.connect({ url: process.env.REDIS_URL!, prefix: cluster.redisPrefix, maxLength: 1000, report: () => {} });
  try {
    const deadline = Date.now() + 5000;
    let cp = await bus.loadCheckpoint(sessionId);
    while (cp?.s !== s) {
      if (Date.now() > deadline) throw new Error(`checkpoint of ${sessionId} still at ${JSON.stringify(cp)}, want s=${s}`);
      await new Promise((r) => setTimeout(r, 50)); // paces the poll only
      cp = await bus.loadCheckpoint(sessionId);
    }
  } finally {
    await bus.close();
  }
}

describe.runIf(run)('two instances on one PostgreSQL and Redis', () => {
  let cluster: Cluster;
  let a: string;
  let b: string;

  beforeAll(async () => {
    cluster = await startCluster(2);
    a = cluster.instances[0]!.url;
    b = cluster.instances[1]!.url;
  }, 90_000);
  afterAll(() => cluster?.close());

  it('a message posted through A reaches a gateway client on B, in order, exactly once', async () => {
    const w = await world(a);
    const client = await TestGatewayClient.identify(cluster.instances[1]!.gatewayUrl, w.bot.auth);
    const sent: string[] = [];
    // 10 messages: the per-channel message limit (10 per 5 s) is shared by the instances too.
    for (let i = 0; i < 10; i++) {
      const via = i % 2 === 0 ? a : b;
      sent.push((await postMessage(via, w.owner.auth, w.channel.id, `n${i}`)).id);
    }
    await client.waitFor(() => client.events('MESSAGE_CREATE').length >= 10);
    // Sync point instead of a pause: the log is ordered, so a duplicate of any message
    // would reach the client before this later event does.
    const fence = await call(b, 'PATCH', `/servers/${w.server.id}`, { auth: w.owner.auth, body: { name: 'fence' } });
    expect(fence.status).toBe(200);
    await client.waitForEvent('SERVER_UPDATE', (d) => d.name === 'fence');
    const got = client.events('MESSAGE_CREATE').map((f) => f.d.id);
    expect(got).toEqual(sent);
    const seqs = client.events().map((f) => f.s);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    await client.close();
  });

  // The file registers close to the shared limit (auth: 10 a minute per address), so these
  // two tests share one owner and server; typing keeps to channels of its own.
  let shared: Awaited<ReturnType<typeof world>> | undefined;
  const sharedWorld = async () => (shared ??= await world(a));

  it('typing through A reaches, on B, a bot and the connection looking at the channel, live and unnumbered; not one looking elsewhere', async () => {
    // People are one person on two connections; the bot types.
    const w = await sharedWorld();
    const here = await createChannel(a, w.owner, w.server.id, 'here');
    const other = await createChannel(a, w.owner, w.server.id, 'elsewhere');
    const listener = await createBot(a, w.owner);
    await addBot(a, w.owner, w.server.id, listener.id, ['READ_MESSAGES']);
    const gw = cluster.instances[1]!.gatewayUrl;
    const bot = await TestGatewayClient.identify(gw, listener.auth);
    const looking = await TestGatewayClient.identify(gw, w.owner.auth);
    const away = await TestGatewayClient.identify(gw, w.owner.auth);
    await looking.focus(here.id);
    await away.focus(other.id);
    const typeIn = async (channelId: string) =>
      expect((await call(a, 'POST', `/channels/${channelId}/typing`, { auth: w.bot.auth })).status).toBe(204);
    await typeIn(here.id);
    for (const c of [bot, looking]) {
      const f = await c.waitForEvent('TYPING_START');
      expect(f.d).toMatchObject({ channelId: here.id, serverId: w.server.id, userId: w.bot.id, bot: true });
      expect(f.s).toBeNull();
    }
    // Typing in the other channel reaches the one looking there: signals keep their order, so the first would have come before.
    await typeIn(other.id);
    expect((await away.waitForEvent('TYPING_START')).d.channelId).toBe(other.id);
    expect(away.events('TYPING_START')).toHaveLength(1);
    // Typing takes no number: the next logged event is still 1.
    await postMessage(a, w.owner.auth, here.id, 'after typing');
    expect((await looking.waitForEvent('MESSAGE_CREATE')).s).toBe(1);
    for (const c of [bot, looking, away]) await c.close();
  });

  it('role changes through A reach a session on B as deltas; after bot joins it resumes on A at the version the store holds', async () => {
    // The bot itself is the member (registering another person would meet the shared registration limit).
    const w = await sharedWorld();
    const client = await TestGatewayClient.identify(cluster.instances[1]!.gatewayUrl, w.bot.auth);
    const grant = (permissions: string[]) =>
      call(a, 'PATCH', `/servers/${w.server.id}/bots/${w.bot.id}`, { auth: w.owner.auth, body: { permissions } });
    // Its managed role losing every permission hides general from it at once; READ_MESSAGES shows it again.
    expect((await grant([])).status).toBe(200);
    await client.waitForEvent('CHANNEL_DELETE', (d) => d.id === w.channel.id);
    expect((await grant(['READ_MESSAGES'])).status).toBe(200);
    await client.waitForEvent('CHANNEL_CREATE', (d) => d.id === w.channel.id);
    const bots = await Promise.all([0, 1, 2].map(() => createBot(a, w.owner)));
    await Promise.all(bots.map((bot) => addBot(a, w.owner, w.server.id, bot.id, ['READ_MESSAGES'])));
    await Promise.all(bots.map((bot) => client.waitForEvent('MEMBER_ADD', (d) => d.user.id === bot.id)));
    const acked = client.lastSeq;
    client.heartbeat();
    await checkpointReaches(cluster, client.sessionId, acked);
    await client.terminate();
    const resumed = await TestGatewayClient.resume(cluster.instances[0]!.gatewayUrl, w.bot.auth, client.sessionId, acked);
    expect(resumed.frames.at(-1)?.op).toBe('resumed');
    const live = await postMessage(b, w.owner.auth, w.channel.id, 'after the resume');
    await resumed.waitFor((f) => f.op === 'event' && f.d.id === live.id);
    await resumed.close();
  });

  it('a private thread started through A reaches its member on B, and a bot on B only once it is added (docs/threads.md#events)', async () => {
    const w = await sharedWorld();
    const gw = cluster.instances[1]!.gatewayUrl;
    const person = await TestGatewayClient.identify(gw, w.owner.auth);
    const bot = await TestGatewayClient.identify(gw, w.bot.auth);
    const made = await call(a, 'POST', `/api/v10/channels/${w.channel.id}/threads`, {
      auth: w.owner.auth,
      body: { name: 'across', type: 12 },
    });
    expect(made.status).toBe(201);
    const id = made.body.id as string;
    await person.waitForEvent('THREAD_CREATE', (d) => d.id === id && d.type === 'private_thread');
    expect((await call(a, 'PUT', `/api/v10/channels/${id}/thread-members/${w.bot.id}`, { auth: w.owner.auth })).status).toBe(204);
    const added = await bot.waitForEvent('THREAD_CREATE', (d) => d.id === id);
    expect(added.d.member).toMatchObject({ threadId: id, userId: w.bot.id });
    // The bot heard nothing of the thread before it was added.
    expect(bot.events().findIndex((f) => JSON.stringify(f.d).includes(id))).toBe(bot.events().indexOf(added));
    await person.close();
    await bot.close();
  });

  it('webhook rate limit (5 per 5 s) is shared across instances', async () => {
    const w = await world(a);
    const hook = await createWebhook(a, w.owner, w.server.id, w.channel.id);
    const path = new URL(hook.url).pathname;
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      statuses.push((await call(i % 2 ? b : a, 'POST', path, { body: { content: `x${i}` } })).status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
  });

  it('typing rate limit (15 per 5 s) is shared across instances', async () => {
    const w = await world(a);
    const statuses: number[] = [];
    for (let i = 0; i < 16; i++) {
      const r = await call(i % 2 ? b : a, 'POST', `/channels/${w.channel.id}/typing`, { auth: w.bot.auth });
      statuses.push(r.status);
    }
    expect(statuses.filter((s) => s === 204)).toHaveLength(15);
    expect(statuses[15]).toBe(429);
  });

  it('a webhook deleted through A fails on B at once', async () => {
    const w = await world(a);
    const hook = await createWebhook(a, w.owner, w.server.id, w.channel.id);
    const path = new URL(hook.url).pathname;
    expect((await call(b, 'POST', path, { body: { content: 'before' } })).status).toBe(200);
    expect((await call(a, 'DELETE', `/webhooks/${hook.id}`, { auth: w.owner.auth })).status).toBe(204);
    const r = await call(b, 'POST', path, { body: { content: 'after' } });
    expect(r.status).toBe(404);
  });

  it('a logout through A revokes the session on B', async () => {
    const w = await world(a);
    expect((await call(b, 'GET', '/users/@me', { auth: w.owner.auth })).status).toBe(200);
    expect((await call(a, 'POST', '/auth/logout', { auth: w.owner.auth })).status).toBe(204);
    expect((await call(b, 'GET', '/users/@me', { auth: w.owner.auth })).status).toBe(401);
  });

  it('a password change through A closes the other session’s gateway connection on B; USER_UPDATE reaches B', async () => {
    const w = await world(a);
    const other = await call(b, 'POST', '/auth/login', { body: { username: w.owner.name, password: 'correct horse battery' } });
    expect(other.status, other.text).toBe(200);
    const elsewhere = await TestGatewayClient.identify(cluster.instances[1]!.gatewayUrl, `Bearer ${other.body.token}`);
    const bot = await TestGatewayClient.identify(cluster.instances[1]!.gatewayUrl, w.bot.auth);
    try {
      const r = await call(a, 'POST', '/auth/password', {
        auth: w.owner.auth,
        body: { currentPassword: 'correct horse battery', newPassword: 'another long secret 9' },
      });
      expect(r.status, r.text).toBe(204);
      expect((await elsewhere.waitForClose()).code).toBe(4001);
      expect((await call(b, 'GET', '/users/@me', { auth: `Bearer ${other.body.token}` })).status).toBe(401);
      expect((await call(a, 'PATCH', '/users/@me', { auth: w.owner.auth, body: { displayName: 'Owner' } })).status).toBe(200);
      expect((await bot.waitForEvent('USER_UPDATE')).d.user).toMatchObject({ id: w.owner.id, name: 'Owner', displayName: 'Owner' });
    } finally {
      await bot.close();
    }
  });

  it('a file uploaded through A is served by B', async () => {
    const w = await world(a);
    const up = await upload(a, w.bot.auth, 'shared bytes', 'notes.txt', 'text/plain');
    expect(up.status).toBe(200);
    const onB = await fetch(b + new URL(up.body.url).pathname);
    expect(onB.status).toBe(200);
    expect(await onB.text()).toBe('shared bytes');
  });

  it('an Idempotency-Key used on A is honoured on B', async () => {
    const w = await world(a);
    const send = (base: string) =>
      call(base, 'POST', `/channels/${w.channel.id}/messages`, {
        auth: w.bot.auth,
        body: { content: 'once' },
        headers: { 'idempotency-key': 'k1' },
      });
    const [r1, r2] = [await send(a), await send(b)];
    expect(r2.body.id).toBe(r1.body.id);
    const page = await call(b, 'GET', `/channels/${w.channel.id}/messages`, { auth: w.bot.auth });
    expect(page.body).toHaveLength(1);
  });
});

describe.runIf(run)('presence across instances', () => {
  let cluster: Cluster;
  beforeAll(async () => {
    cluster = await startCluster(2, {
      PRESENCE_GRACE_MS: '0',
      PRESENCE_INTERVAL_MS: '0',
      PRESENCE_FANOUT_MAX: '100',
      PRESENCE_SWEEP_MS: '300',
    });
  }, 90_000);
  afterAll(() => cluster?.close());

  it('someone connected to two instances is offline only when both connections are gone; a killed instance is swept', async () => {
    const [ia, ib] = cluster.instances as [(typeof cluster.instances)[0] & {}, (typeof cluster.instances)[0] & {}];
    const w = await world(ia.url);
    const watcher = await TestGatewayClient.identify(ib.gatewayUrl, w.owner.auth);
    const onA = await TestGatewayClient.identify(ia.gatewayUrl, w.bot.auth);
    await watcher.waitForEvent('PRESENCE_UPDATE', (d) => d.userId === w.bot.id && d.status === 'online');
    const onB = await TestGatewayClient.identify(ib.gatewayUrl, w.bot.auth);
    await onA.close();
    // Still connected through B: no offline. The marker is a later entry of the same log.
    const marker = await postMessage(ia.url, w.owner.auth, w.channel.id, 'marker');
    await watcher.waitForEvent('MESSAGE_CREATE', (d) => d.id === marker.id);
    expect(
      watcher
        .events('PRESENCE_UPDATE')
        .filter((f) => f.d.userId === w.bot.id)
        .map((f) => f.d.status),
    ).toEqual(['online']);
    const members = await call(ia.url, 'GET', `/servers/${w.server.id}/members`, { auth: w.owner.auth });
    expect(members.body.find((m: { id: string }) => m.id === w.bot.id).presence).toBe('online');

    // Back on A alone, then A dies without a word: B sweeps it, and the bot shows offline.
    const again = await TestGatewayClient.identify(ia.gatewayUrl, w.bot.auth);
    await onB.close();
    ia.proc.kill('SIGKILL');
    await ia.exited;
    await again.closed;
    expect((await watcher.waitForEvent('PRESENCE_UPDATE', (d) => d.userId === w.bot.id && d.status === 'offline', 10_000)).d).toEqual({
      userId: w.bot.id,
      status: 'offline',
    });
    await watcher.close();
  });
});

describe.runIf(run)('losing an instance', () => {
  let cluster: Cluster;
  beforeAll(async () => {
    cluster = await startCluster(2);
  }, 90_000);
  afterAll(() => cluster?.close());

  it('kill -9 of the instance a client is on: it resumes on the other with no event lost, in order', async () => {
    const [ia, ib] = cluster.instances as [(typeof cluster.instances)[0] & {}, (typeof cluster.instances)[0] & {}];
    const w = await world(ib.url);
    const client = await TestGatewayClient.identify(ia.gatewayUrl, w.bot.auth);
    const sessionId = client.sessionId;
    const before = [];
    for (let i = 0; i < 3; i++) before.push((await postMessage(ib.url, w.owner.auth, w.channel.id, `before${i}`)).id);
    await client.waitFor(() => client.events('MESSAGE_CREATE').length === 3);
    // Wait until a heartbeat has carried the acknowledged sequence number to the checkpoint
    // in Redis (where B will resume from), rather than for a fixed time.
    const acked = client.lastSeq;
    await checkpointReaches(cluster, sessionId, acked);

    ia.proc.kill('SIGKILL');
    await ia.exited;
    await client.closed;
    const missed = [];
    for (let i = 0; i < 4; i++) missed.push((await postMessage(ib.url, w.owner.auth, w.channel.id, `missed${i}`)).id);

    const resumed = await TestGatewayClient.resume(ib.gatewayUrl, w.bot.auth, sessionId, acked);
    expect(resumed.frames.map((f) => f.op)).toContain('resumed');
    expect(resumed.events('MESSAGE_CREATE').map((f) => f.d.id)).toEqual(missed);
    expect(resumed.events().map((f) => f.s)).toEqual([acked + 1, acked + 2, acked + 3, acked + 4]);
    // and it keeps receiving live events on B
    const live = await postMessage(ib.url, w.owner.auth, w.channel.id, 'live');
    await resumed.waitFor((f) => f.op === 'event' && f.d.id === live.id);
    expect(before).toHaveLength(3);
    await resumed.close();
  });

  it('SIGTERM: in-flight work finishes, clients are told to reconnect, and they resume elsewhere', async () => {
    const ic = await cluster.start();
    const ib = cluster.instances[1]!;
    const w = await world(ib.url);
    const client = await TestGatewayClient.identify(ic.gatewayUrl, w.bot.auth);
    const sessionId = client.sessionId;
    const first = await postMessage(ic.url, w.owner.auth, w.channel.id, 'one');
    await client.waitFor((f) => f.op === 'event' && f.d.id === first.id);
    const acked = client.lastSeq;

    // A request in flight when the signal lands still completes.
    const inflight = call(ic.url, 'POST', `/channels/${w.channel.id}/messages`, { auth: w.bot.auth, body: { content: 'in flight' } });
    await new Promise((r) => setTimeout(r, 5));
    ic.proc.kill('SIGTERM');
    const { code } = await client.closed;
    expect(code).toBe(1012);
    expect(await ic.exited).toBe(0);
    const r = await inflight.catch(() => null);
    // Either it was answered 201 (and stored) or it never reached the server; never a lost 201.
    const page = await call(ib.url, 'GET', `/channels/${w.channel.id}/messages`, { auth: w.bot.auth });
    if (r?.status === 201) expect(page.body.some((m: { id: string }) => m.id === r.body.id)).toBe(true);

    const resumed = await TestGatewayClient.resume(ib.gatewayUrl, w.bot.auth, sessionId, acked);
    expect(resumed.frames.map((f) => f.op)).toContain('resumed');
    const stored = page.body.filter((m: { content: string }) => m.content === 'in flight').map((m: { id: string }) => m.id);
    expect(resumed.events('MESSAGE_CREATE').map((f) => f.d.id)).toEqual(stored);
    await resumed.close();
  });
});

describe.runIf(run)('losing Redis for a moment', () => {
  it('writes keep succeeding, and events queued meanwhile are delivered once Redis is back, without a restart', async () => {
    const proxy = await redisProxy(new URL(process.env.REDIS_URL!));
    const cluster = await startCluster(1, { REDIS_URL: proxy.url });
    try {
      const inst = cluster.instances[0]!;
      const w = await world(inst.url);
      const client = await TestGatewayClient.identify(inst.gatewayUrl, w.bot.auth);
      const first = await postMessage(inst.url, w.owner.auth, w.channel.id, 'before outage');
      await client.waitFor((f) => f.op === 'event' && f.d.id === first.id);

      await proxy.cut();
      const during = await call(inst.url, 'POST', `/channels/${w.channel.id}/messages`, {
        auth: w.bot.auth,
        body: { content: 'during outage' },
      });
      expect(during.status).toBe(201);
      // Rate-limited routes still answer (the limiter falls back to per-instance memory).
      expect((await call(inst.url, 'POST', `/channels/${w.channel.id}/typing`, { auth: w.bot.auth })).status).toBe(204);
      const stored = await call(inst.url, 'GET', `/channels/${w.channel.id}/messages/${during.body.id}`, { auth: w.bot.auth });
      expect(stored.status).toBe(200);

      await proxy.restore();
      await client.waitFor((f) => f.op === 'event' && f.d.id === during.body.id, 15_000);
      const after = await postMessage(inst.url, w.owner.auth, w.channel.id, 'after outage');
      await client.waitFor((f) => f.op === 'event' && f.d.id === after.id, 10_000);
      await client.close();
    } finally {
      await cluster.close();
      proxy.close();
    }
  }, 60_000);
});
