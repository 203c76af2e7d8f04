import { Redis } from 'ioredis';
import type { EventBus, LogListener, LogPosition, SessionCheckpoint } from './bus.js';
import type { BusEntry } from './types.js';

export interface RedisBusOptions {
  url: string;
  /** Key namespace, so several deployments can share one Redis. */
  prefix: string;
  /** Entries the stream keeps (approximately): the resume horizon across instances. */
  maxLength: number;
  report: (err: unknown, what: string) => void;
}

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
  private readonly stream: string;
  private readonly listeners = new Set<LogListener>();
  private last: LogPosition = '0-0';
  private closed = false;
  private loop: Promise<void> | undefined;

  private constructor(private readonly opts: RedisBusOptions) {
    // Commands queue while Redis is away and go out in order when it is back.
    this.writer = new Redis(opts.url, { maxRetriesPerRequest: null, lazyConnect: true });
    this.reader = new Redis(opts.url, { maxRetriesPerRequest: null, lazyConnect: true });
    this.writer.on('error', (err) => opts.report(err, 'redis (bus writer)'));
    this.reader.on('error', (err) => opts.report(err, 'redis (bus reader)'));
    this.stream = `${opts.prefix}events`;
  }

  /** Connects and starts tailing from the stream's current end. */
  static async connect(opts: RedisBusOptions): Promise<RedisBus> {
    const bus = new RedisBus(opts);
    await Promise.all([bus.writer.connect(), bus.reader.connect()]);
    const lastEntry = await bus.writer.xrevrange(bus.stream, '+', '-', 'COUNT', 1);
    bus.last = lastEntry[0]?.[0] ?? '0-0';
    bus.loop = bus.tail();
    return bus;
  }

  async publish(entry: BusEntry): Promise<void> {
    // Not awaited past queueing: a Redis outage delays events, it does not hold up
    // responses for writes that are already durable. One connection keeps the order.
    this.writer
      .xadd(this.stream, 'MAXLEN', '~', String(this.opts.maxLength), '*', 'e', JSON.stringify(entry))
      .catch((err) => this.opts.report(err, 'event publish failed'));
  }

  subscribe(listener: LogListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
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
        const res = (await this.reader.xread('COUNT', 1000, 'BLOCK', 1000, 'STREAMS', this.stream, this.last)) as
          | Array<[string, Array<[string, string[]]>]>
          | null;
        for (const [id, fields] of res?.[0]?.[1] ?? []) {
          this.last = id;
          const entry = JSON.parse(fields[1] ?? 'null') as BusEntry | null;
          if (!entry) continue;
          for (const l of this.listeners) {
            try {
              l(id, entry);
            } catch (err) {
              this.opts.report(err, 'event listener failed');
            }
          }
        }
      } catch (err) {
        if (this.closed) return;
        this.opts.report(err, 'event stream read failed; retrying');
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  }

  async readAfter(pos: LogPosition): Promise<Array<[LogPosition, BusEntry]> | null> {
    if (!/^\d+-\d+$/.test(pos)) return null;
    // Entries after `pos` that the stream trimmed cannot be replayed.
    const info = (await this.writer.call('XINFO', 'STREAM', this.stream).catch(() => null)) as unknown[] | null;
    if (info) {
      const i = info.indexOf('max-deleted-entry-id');
      const maxDeleted = i >= 0 ? String(info[i + 1]) : '0-0';
      if (compareStreamIds(pos, maxDeleted) < 0) return null;
    }
    const out: Array<[LogPosition, BusEntry]> = [];
    let from = `(${pos}`;
    for (;;) {
      const page = await this.writer.xrange(this.stream, from, '+', 'COUNT', 5000);
      for (const [id, fields] of page) out.push([id, JSON.parse(fields[1] ?? 'null') as BusEntry]);
      if (page.length < 5000) break;
      from = `(${page[page.length - 1]![0]}`;
    }
    return out;
  }

  async saveCheckpoint(sessionId: string, cp: SessionCheckpoint, ttlMs: number): Promise<void> {
    await this.writer.set(`${this.opts.prefix}gw:${sessionId}`, JSON.stringify(cp), 'PX', ttlMs);
  }

  async loadCheckpoint(sessionId: string): Promise<SessionCheckpoint | null> {
    const raw = await this.writer.get(`${this.opts.prefix}gw:${sessionId}`);
    return raw ? (JSON.parse(raw) as SessionCheckpoint) : null;
  }

  async deleteCheckpoint(sessionId: string): Promise<void> {
    await this.writer.del(`${this.opts.prefix}gw:${sessionId}`);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.listeners.clear();
    this.reader.disconnect();
    await this.loop;
    await this.writer.quit().catch(() => this.writer.disconnect());
  }
}
