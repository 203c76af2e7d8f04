import type { ModelSnapshot } from '../domain/permissions.js';
import type { BusEntry, Signal } from './types.js';

/** A position in the event log; opaque, ordered by the log. */
export type LogPosition = string;

export type LogListener = (pos: LogPosition, entry: BusEntry) => void;

export type SignalListener = (signal: Signal) => void;

/**
 * Where a gateway session's numbering can be picked up again: after delivering event
 * `s`, the session stood at log position `pos` and belonged to `servers`, with its
 * permission bits in each.
 */
export interface SessionCheckpoint {
  userId: string;
  s: number;
  pos: LogPosition;
  /** Each server's permission version and the member's roles there (ids joined by commas), at `pos`. */
  servers: Array<[serverId: string, version: number, roles: string]>;
  /**
   * Each server's permission model as it stood at `pos`, written when the session drops
   * (not on every heartbeat): a resume replays the missed entries from exactly these, so a
   * role or permission change made meanwhile is applied at its place in the log, as live
   * (docs/gateway.md, "Sequence numbers and resume"). Absent: the resume needs the store's
   * model to be still at `version`.
   */
  models?: ModelSnapshot[];
  /** The protocol the session speaks when not the native one (`Wire.kind`), and its settings (`Wire.state`). */
  wire?: string;
  wireState?: string;
}

/**
 * The event bus is an ordered log: every instance appends after commit and tails it,
 * so all instances see every entry in one order. Gateway sessions replay from it to
 * resume, so one log serves fan-out and resume alike.
 */
export interface EventBus {
  /** Appends an entry; call only after the write it announces has committed. */
  publish(entry: BusEntry): Promise<void>;
  /** Calls `listener` for every entry appended from now on, in log order. */
  subscribe(listener: LogListener): () => void;
  /**
   * Sends a live-only event (typing) to every instance, outside the log: best effort, with
   * no order against the log's entries, dropped rather than queued while the bus's
   * backing service is away.
   */
  signal(signal: Signal): void;
  /** Calls `listener` for every signal sent from now on (by any instance). */
  subscribeSignals(listener: SignalListener): () => void;
  /** The position of the last entry this instance has dispatched. */
  position(): LogPosition;
  /** Orders two positions: negative, zero or positive. */
  compare(a: LogPosition, b: LogPosition): number;
  /** Entries after `pos`, in order; null when `pos` is no longer in the retained log. */
  readAfter(pos: LogPosition): Promise<Array<[LogPosition, BusEntry]> | null>;
  saveCheckpoint(sessionId: string, cp: SessionCheckpoint, ttlMs: number): Promise<void>;
  loadCheckpoint(sessionId: string): Promise<SessionCheckpoint | null>;
  deleteCheckpoint(sessionId: string): Promise<void>;
  /** Resolves when the bus's backing service (Redis) answers; absent for the in-process log. */
  ping?(): Promise<void>;
  close(): Promise<void>;
}

/** Calls every listener with one entry; a listener that throws is reported and the others still run. */
export function dispatchTo(
  listeners: Iterable<LogListener>,
  pos: LogPosition,
  entry: BusEntry,
  report: (err: unknown, what: string) => void,
): void {
  for (const l of listeners) {
    try {
      l(pos, entry);
    } catch (err) {
      report(err, 'event listener failed');
    }
  }
}

/** Calls every signal listener; one that throws is reported and the others still run. */
export function dispatchSignal(listeners: Iterable<SignalListener>, signal: Signal, report: (err: unknown, what: string) => void): void {
  for (const l of listeners) {
    try {
      l(signal);
    } catch (err) {
      report(err, 'signal listener failed');
    }
  }
}

/**
 * The single-node bus: a bounded in-memory ring of the last `capacity` entries.
 * Positions are decimal counters, given at publish: the position an entry is replayed
 * from is the one it was dispatched with. Like the Redis stream, appending and
 * dispatching are apart: `publish` appends and returns, and listeners run on a later turn
 * of the event loop, in order, so the request that caused an event is not held up by
 * fanning it out to thousands of connections.
 */
export class InProcessBus implements EventBus {
  private readonly ring: Array<BusEntry | undefined>;
  private next = 1; // position of the next entry
  private dispatched = 0; // position of the last entry handed to the listeners
  private undispatched: Array<[number, BusEntry]> = [];
  private scheduled = false;
  private readonly listeners = new Set<LogListener>();
  private readonly signalListeners = new Set<SignalListener>();
  private signals: Signal[] = [];
  private readonly checkpoints = new Map<string, { cp: SessionCheckpoint; expires: number }>();

  constructor(
    private readonly capacity: number,
    private readonly report: (err: unknown, what: string) => void = () => {},
    /** What session checkpoints expire by (the service's clock). */
    private readonly clock: () => number = Date.now,
  ) {
    this.ring = new Array(capacity);
  }

  async publish(entry: BusEntry): Promise<void> {
    const pos = this.next++;
    this.ring[pos % this.capacity] = entry;
    this.undispatched.push([pos, entry]);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.dispatch());
    }
  }

  private dispatch(): void {
    this.scheduled = false;
    const entries = this.undispatched;
    this.undispatched = [];
    for (const [pos, entry] of entries) {
      this.dispatched = pos;
      dispatchTo(this.listeners, String(pos), entry, this.report);
    }
  }

  subscribe(listener: LogListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  signal(signal: Signal): void {
    // Like entries, handed to the listeners on a later turn, not inside the request.
    if (this.signals.push(signal) === 1) setImmediate(() => this.dispatchSignals());
  }

  private dispatchSignals(): void {
    const signals = this.signals;
    this.signals = [];
    for (const s of signals) dispatchSignal(this.signalListeners, s, this.report);
  }

  subscribeSignals(listener: SignalListener): () => void {
    this.signalListeners.add(listener);
    return () => this.signalListeners.delete(listener);
  }

  position(): LogPosition {
    return String(this.dispatched);
  }

  compare(a: LogPosition, b: LogPosition): number {
    return Number(a) - Number(b);
  }

  async readAfter(pos: LogPosition): Promise<Array<[LogPosition, BusEntry]> | null> {
    const from = Number(pos) + 1;
    if (!Number.isInteger(from) || from < 1 || from > this.next) return null;
    if (this.next - from > this.capacity) return null; // evicted
    const out: Array<[LogPosition, BusEntry]> = [];
    for (let p = from; p < this.next; p++) out.push([String(p), this.ring[p % this.capacity]!]);
    return out;
  }

  async saveCheckpoint(sessionId: string, cp: SessionCheckpoint, ttlMs: number): Promise<void> {
    this.checkpoints.set(sessionId, { cp, expires: this.clock() + ttlMs });
    if (this.checkpoints.size % 1024 === 0) this.sweep();
  }

  async loadCheckpoint(sessionId: string): Promise<SessionCheckpoint | null> {
    const e = this.checkpoints.get(sessionId);
    if (!e) return null;
    if (e.expires < this.clock()) {
      this.checkpoints.delete(sessionId);
      return null;
    }
    return e.cp;
  }

  async deleteCheckpoint(sessionId: string): Promise<void> {
    this.checkpoints.delete(sessionId);
  }

  private sweep(): void {
    const now = this.clock();
    for (const [id, e] of this.checkpoints) if (e.expires < now) this.checkpoints.delete(id);
  }

  async close(): Promise<void> {
    this.listeners.clear();
    this.signalListeners.clear();
  }
}
