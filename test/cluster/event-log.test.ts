// The event log's edge cases, on both implementations: positions given at publish, a
// listener that throws, a bounded queue while Redis is away (with a gap entry instead of
// unbounded memory), and trimmed-log detection without XINFO.
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { InProcessBus, type LogPosition } from '../../src/events/bus.js';
import { RedisBus } from '../../src/events/redis-bus.js';
import type { BusEntry } from '../../src/events/types.js';
import { clusterServicesAvailable } from './instances.js';
import { redisProxy } from './redis-proxy.js';

const event = (serverId: string, n: number): BusEntry => ({
  kind: 'event',
  serverId,
  event: { t: 'CHANNEL_PINS_UPDATE', d: { channelId: `c${n}`, serverId, lastPinTimestamp: null } },
});

/** Collects what a listener receives; `until` resolves once `pred` holds. */
function recorder() {
  const got: Array<[LogPosition, BusEntry]> = [];
  const waiters: Array<{ pred: () => boolean; resolve: () => void }> = [];
  return {
    got,
    listener: (pos: LogPosition, entry: BusEntry) => {
      got.push([pos, entry]);
      for (const w of [...waiters]) if (w.pred()) waiters.splice(waiters.indexOf(w), 1), w.resolve();
    },
    until: (pred: () => boolean, ms = 10_000) =>
      pred()
        ? Promise.resolve()
        : new Promise<void>((resolve, reject) => {
            const t = setTimeout(() => reject(new Error(`timed out; got ${JSON.stringify(got.map(([, e]) => e.kind))}`)), ms);
            waiters.push({ pred, resolve: () => (clearTimeout(t), resolve()) });
          }),
  };
}

describe('in-process log', () => {
  it('replays every entry at the position it was dispatched with, and a throwing listener hurts no one', async () => {
    const reports: string[] = [];
    const bus = new InProcessBus(100, (_err, what) => reports.push(what));
    const rec = recorder();
    bus.subscribe(() => {
      throw new Error('listener bug');
    });
    bus.subscribe(rec.listener);
    for (let i = 0; i < 5; i++) await bus.publish(event('s', i));
    await rec.until(() => rec.got.length === 5);
    const replay = await bus.readAfter('0');
    expect(replay).toEqual(rec.got);
    expect(reports).toEqual(Array(5).fill('event listener failed'));
    expect(bus.position()).toBe(rec.got[4]![0]);
    await bus.close();
  });
});

const redisUrl = process.env.REDIS_URL;
const run = clusterServicesAvailable();

describe.runIf(run)('Redis stream log', () => {
  const admin = run ? new Redis(redisUrl!) : undefined;
  const prefixes: string[] = [];
  const prefix = () => {
    const p = `parley-test-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}:`;
    prefixes.push(p);
    return p;
  };
  const report = () => {};
  afterAll(async () => {
    for (const p of prefixes) await admin!.del(`${p}events`);
    admin?.disconnect();
  });

  it('positions always name an entry: an empty stream gets a mark, so a fresh session can resume', async () => {
    const bus = await RedisBus.connect({ url: redisUrl!, prefix: prefix(), maxLength: 100, report });
    try {
      expect(await bus.readAfter(bus.position())).toEqual([]);
    } finally {
      await bus.close();
    }
  });

  it('replays across pages, and detects a trim of the entries after a position', async () => {
    const p = prefix();
    const bus = await RedisBus.connect({ url: redisUrl!, prefix: p, maxLength: 1000, pageSize: 2, report });
    const rec = recorder();
    bus.subscribe(rec.listener);
    try {
      for (let i = 0; i < 10; i++) await bus.publish(event('s', i));
      await rec.until(() => rec.got.length === 10);
      expect(await bus.readAfter(rec.got[2]![0])).toEqual(rec.got.slice(3));
      // Keep the newest five entries only: the third is gone, the sixth is not.
      await admin!.xtrim(`${p}events`, 'MAXLEN', 5);
      expect(await bus.readAfter(rec.got[2]![0])).toBeNull();
      expect(await bus.readAfter(rec.got[5]![0])).toEqual(rec.got.slice(6));
      expect(await bus.readAfter('not-a-position')).toBeNull();
    } finally {
      await bus.close();
    }
  });

  it('bounds what it queues while Redis is away, and appends a gap naming the servers whose events it dropped', async () => {
    const p = prefix();
    const proxy = await redisProxy(new URL(redisUrl!));
    const cut = await RedisBus.connect({ url: proxy.url, prefix: p, maxLength: 1000, maxQueued: 3, report });
    const watcher = await RedisBus.connect({ url: redisUrl!, prefix: p, maxLength: 1000, report });
    const rec = recorder();
    watcher.subscribe(rec.listener);
    try {
      await proxy.cut();
      for (let i = 0; i < 3; i++) await cut.publish(event('kept', i));
      for (let i = 0; i < 20; i++) await cut.publish(event(i % 2 ? 'lost-a' : 'lost-b', i));
      expect(cut.queueLength).toBe(3);
      await proxy.restore();
      // The gap goes out as soon as Redis answers, without waiting for another event.
      await rec.until(() => rec.got.some(([, e]) => e.kind === 'gap'), 20_000);
      await cut.publish(event('after', 99));
      await rec.until(() => rec.got.some(([, e]) => e.kind === 'event' && e.serverId === 'after'), 20_000);
      const seen = rec.got.map(([, e]) =>
        e.kind === 'event' ? e.serverId : e.kind === 'gap' ? `gap:${[...(e.serverIds ?? ['*'])].sort()}` : e.kind,
      );
      expect(seen).toEqual(['kept', 'kept', 'kept', 'gap:lost-a,lost-b', 'after']);
    } finally {
      proxy.close();
      await cut.close();
      await watcher.close();
    }
  }, 30_000);

  it('closes at once while Redis is away, with a read stranded and appends queued, and reports the appends as lost', async () => {
    const proxy = await redisProxy(new URL(redisUrl!));
    const reports: string[] = [];
    const bus = await RedisBus.connect({ url: proxy.url, prefix: prefix(), maxLength: 1000, report: (_e, what) => reports.push(what) });
    // The state ioredis cannot leave by disconnect() (redis/ioredis#2197): every connection
    // dropped and waiting to reconnect, the tail's blocking read among the commands it holds.
    const conns = bus as unknown as Record<'reader' | 'writer' | 'subscriber', Redis>;
    const waiting = (['reader', 'writer', 'subscriber'] as const).map(
      (name) => new Promise<void>((resolve) => conns[name].once('reconnecting', () => resolve())),
    );
    try {
      await proxy.cut();
      await Promise.all(waiting);
      for (let i = 0; i < 3; i++) await bus.publish(event('queued', i));
      expect(bus.queueLength).toBe(3);
      let timer: NodeJS.Timeout | undefined;
      const closed = await Promise.race([
        bus.close().then(() => 'closed'),
        new Promise((resolve) => {
          timer = setTimeout(() => resolve('still closing after 5 s'), 5000);
        }),
      ]);
      clearTimeout(timer);
      expect(closed).toBe('closed');
      expect(reports).toContain('events dropped at close');
    } finally {
      proxy.close();
    }
  });
});
