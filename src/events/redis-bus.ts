import { Redis } from 'ioredis';
import {
  type EventBus,
  type LogListener,
  type LogPosition,
  type SessionCheckpoint,
  type SignalListener,
  dispatchSignal,
  dispatchTo,
} from './bus.js';
import type { BusEntry, Signal } from './types.js';

export interface RedisBusOptions {
  url: string;
  /** Key namespace, so several deployments can share one Redis. */
  prefix: string;
  /** Entries the stream keeps (approximately): the resume horizon across instances. */
  maxLength: number;
  /**
   * Entries this instance may have waiting for Redis (while it is unreachable) before it
   * drops new ones and records a gap instead. Default `maxLength`: more could not all be
   * replayed anyway, since the stream keeps no more than that.
   */
  maxQueued?: number;
  /** Entries read per XRANGE when replaying (tests use a small page). */
  pageSize?: number;
  report: (err: unknown, what: string) => void;
}

/** What XREAD answers for one stream: its entries as `[id, [field, value, ...]]`, or null. */
type StreamReply = Array<[string, Array<[string, string[]]>]> | null;

/** Beyond this many servers with lost events, a gap names every server. */
const MAX_GAP_SERVERS = 1000;

/** Stream ids are `<ms>-<seq>`; this orders two of them. */
export function compareStreamIds(a: string, b: string): number {
  const [am = 0, as = 0] = a.split('-').map(Number);
  const [bm = 0, bs = 0] = b.split('-').map(Number);
  return am !== bm ? am - bm : as - bs;
}

/**
 * The multi-instance bus: one Redis stream is the log. Every instance appends with
 * XADD and tails it with a blocking XREAD, so all instances dispatch every entry once,
 * in the same order. Checkpoints live in Redis with a TTL, so a session resumes on any
 * instance.
 */
export class RedisBus implements EventBus {
  private readonly writer: Redis;
  private readonly reader: Redis;
  /** Subscribed to the signal channel (a subscribed connection can do nothing else). */
  private readonly subscriber: Redis;
  private readonly stream: string;
  private readonly signalChannel: string;
  private readonly listeners = new Set<LogListener>();
  private readonly signalListeners = new Set<SignalListener>();
  private last: LogPosition = '0-0';
  private closed = false;
  /** Ends the tail loop's wait for its current read (close() calls it). */
  private wake: (() => void) | undefined;
  private loop: Promise<void> | undefined;
  /** Appends sent to Redis and not yet answered: the offline queue while Redis is away. */
  private queued = 0;
  /** Servers whose events were dropped since the last gap entry; null: every server. */
  private lost: Set<string> | null | undefined;

  private constructor(private readonly opts: RedisBusOptions) {
    // Commands queue while Redis is away and go out in order when it is back.
    this.writer = new Redis(opts.url, { maxRetriesPerRequest: null, lazyConnect: true });
    this.reader = new Redis(opts.url, { maxRetriesPerRequest: null, lazyConnect: true });
    // Subscribed again on every (re)connect by us, not by ioredis: its own resubscribe's
    // promise rejects unhandled when the connection is closed meanwhile.
    this.subscriber = new Redis(opts.url, { maxRetriesPerRequest: null, lazyConnect: true, autoResubscribe: false });
    this.writer.on('error', (err) => opts.report(err, 'redis (bus writer)'));
    this.reader.on('error', (err) => opts.report(err, 'redis (bus reader)'));
    this.subscriber.on('error', (err) => opts.report(err, 'redis (bus signals)'));
    this.stream = `${opts.prefix}events`;
    this.signalChannel = `${opts.prefix}signals`;
    this.subscriber.on('ready', () => {
      this.subscriber.subscribe(this.signalChannel).catch((err) => {
        if (!this.closed) opts.report(err, 'signal subscribe failed');
      });
    });
    this.subscriber.on('message', (channel: string, raw: string) => {
      if (channel !== this.signalChannel) return;
      let signal: Signal;
      try {
        signal = JSON.parse(raw) as Signal;
      } catch (err) {
        return opts.report(err, 'malformed signal');
      }
      dispatchSignal(this.signalListeners, signal, opts.report);
    });
  }

  /** Connects and starts tailing from the stream's current end. */
  static async connect(opts: RedisBusOptions): Promise<RedisBus> {
    const bus = new RedisBus(opts);
    await Promise.all([bus.writer.connect(), bus.reader.connect(), bus.subscriber.connect()]);
    // Subscribed before the bus is handed out (the 'ready' handler subscribes on reconnects too).
    await bus.subscriber.subscribe(bus.signalChannel);
    const lastEntry = await bus.writer.xrevrange(bus.stream, '+', '-', 'COUNT', 1);
    // Every position handed out must name an entry that exists (readAfter checks it), so
    // an empty stream gets an empty entry first.
    bus.last = lastEntry[0]?.[0] ?? (await bus.writer.xadd(bus.stream, '*', 'e', JSON.stringify({ kind: 'mark' })))!;
    bus.loop = bus.tail();
    return bus;
  }

  async publish(entry: BusEntry): Promise<void> {
    // Not awaited past queueing: a Redis outage delays events, it does not hold up
    // responses for writes that are already durable. One connection keeps the order.
    // The queue is bounded: past it, entries are dropped and a gap entry, appended once
    // Redis answers again, tells every instance which sessions must resynchronise.
    if (this.queued >= this.limit) return this.recordLoss(entry);
    this.appendGap();
    this.append(entry);
  }

  private get limit(): number {
    return this.opts.maxQueued ?? this.opts.maxLength;
  }

  private append(entry: BusEntry): void {
    this.queued++;
    this.writer.xadd(this.stream, 'MAXLEN', '~', String(this.opts.maxLength), '*', 'e', JSON.stringify(entry)).then(
      () => {
        this.queued--;
        // Redis answers again: announce what was lost without waiting for the next event.
        if (this.queued < this.limit) this.appendGap();
      },
      (err) => {
        this.queued--;
        this.opts.report(err, 'event publish failed');
        this.recordLoss(entry);
      },
    );
  }

  /** Appends the gap entry for the events lost so far, if any. */
  private appendGap(): void {
    if (this.lost === undefined) return;
    const gap: BusEntry = { kind: 'gap', serverIds: this.lost === null ? null : [...this.lost] };
    this.lost = undefined;
    this.append(gap);
  }

  /** Remembers whose events were lost, so the next gap entry can name them. */
  private recordLoss(entry: BusEntry): void {
    this.opts.report(new Error('event log unreachable and its queue is full'), 'event dropped');
    // A lost revocation or gap concerns sessions of any server.
    if (entry.kind !== 'event' || this.lost === null) {
      this.lost = null;
      return;
    }
    this.lost ??= new Set();
    this.lost.add(entry.serverId);
    if (this.lost.size > MAX_GAP_SERVERS) this.lost = null;
  }

  /** Entries waiting for Redis on this instance (for tests and metrics). */
  get queueLength(): number {
    return this.queued;
  }

  subscribe(listener: LogListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  signal(signal: Signal): void {
    // Live only: while Redis is away a typing indicator is dropped, not queued behind the log.
    if (this.writer.status !== 'ready') return;
    this.writer.publish(this.signalChannel, JSON.stringify(signal)).catch((err) => this.opts.report(err, 'signal publish failed'));
  }

  subscribeSignals(listener: SignalListener): () => void {
    this.signalListeners.add(listener);
    return () => this.signalListeners.delete(listener);
  }

  position(): LogPosition {
    return this.last;
  }

  compare(a: LogPosition, b: LogPosition): number {
    return compareStreamIds(a, b);
  }

  private async tail(): Promise<void> {
    while (!this.closed) {
      try {
        // Awaited until it settles or close() wakes the loop: a read stranded by a
        // disconnect while ioredis waits to reconnect is never settled by it (see close()).
        // A promise per read, not a race with one that lives as long as the bus: each
        // race would leave a reaction on that promise until it settled.
        const read = this.reader.xread('COUNT', 1000, 'BLOCK', 1000, 'STREAMS', this.stream, this.last) as Promise<StreamReply>;
        const res = await new Promise<StreamReply | undefined>((resolve, reject) => {
          this.wake = () => resolve(undefined);
          read.then(resolve, reject);
        });
        this.wake = undefined;
        if (this.closed) return;
        for (const [id, fields] of res?.[0]?.[1] ?? []) {
          this.last = id;
          const entry = JSON.parse(fields[1] ?? 'null') as BusEntry | null;
          if (entry) dispatchTo(this.listeners, id, entry, this.opts.report);
        }
      } catch (err) {
        if (this.closed) return;
        this.opts.report(err, 'event stream read failed; retrying');
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  }

  /**
   * The stream trims from its head, oldest first, so entries after `pos` are all still
   * there exactly when `pos` itself is. Each page is read from its first entry inclusive
   * and must begin with it: a trim that races the replay is seen on the next page, on any
   * Redis version, without XINFO.
   */
  async readAfter(pos: LogPosition): Promise<Array<[LogPosition, BusEntry]> | null> {
    if (!/^\d+-\d+$/.test(pos)) return null;
    const size = this.opts.pageSize ?? 5000;
    const out: Array<[LogPosition, BusEntry]> = [];
    let from = pos;
    for (;;) {
      const page = await this.writer.xrange(this.stream, from, '+', 'COUNT', size + 1);
      if (page[0]?.[0] !== from) return null;
      for (let i = 1; i < page.length; i++) {
        const [id, fields] = page[i]!;
        out.push([id, JSON.parse(fields[1] ?? 'null') as BusEntry]);
      }
      if (page.length <= size) return out;
      from = page[page.length - 1]![0];
    }
  }

  async saveCheckpoint(sessionId: string, cp: SessionCheckpoint, ttlMs: number): Promise<void> {
    await this.writer.set(`${this.opts.prefix}gw:${sessionId}`, JSON.stringify(cp), 'PX', ttlMs);
  }

  async loadCheckpoint(sessionId: string): Promise<SessionCheckpoint | null> {
    const raw = await this.writer.get(`${this.opts.prefix}gw:${sessionId}`);
    const cp = raw ? (JSON.parse(raw) as Partial<SessionCheckpoint>) : null;
    // A checkpoint written by an older version (no permissions) cannot be resumed safely.
    return cp && Array.isArray(cp.servers) ? (cp as SessionCheckpoint) : null;
  }

  async deleteCheckpoint(sessionId: string): Promise<void> {
    await this.writer.del(`${this.opts.prefix}gw:${sessionId}`);
  }

  async ping(): Promise<void> {
    await this.writer.ping();
  }

  /**
   * Closes at once whether Redis answers or not. ioredis 5 never settles a command that
   * was in flight when a connection dropped, or queued while it waits to reconnect, if it
   * is disconnected before it reconnects (redis/ioredis#2197). So nothing here waits for
   * such a command: close() wakes the tail loop from its read, and QUIT, which waits
   * for the appends before it, goes only to a connection that is up. Appends still
   * waiting for an unreachable Redis are reported as lost.
   */
  async close(): Promise<void> {
    this.closed = true;
    this.wake?.();
    this.listeners.clear();
    this.signalListeners.clear();
    this.reader.disconnect();
    this.subscriber.disconnect();
    await this.loop;
    if (this.writer.status === 'ready') await this.writer.quit().catch(() => {});
    else if (this.queued > 0) {
      this.opts.report(new Error(`${this.queued} event(s) not appended: Redis unreachable at shutdown`), 'events dropped at close');
    }
    this.writer.disconnect();
  }
}
