import type { Signal } from '../events/types.js';
import { LiveBatch, Prepared } from './wire-interface.js';

/**
 * Typing, the gateway's live-only signal (docs/gateway.md#events, docs/decisions/0009-typing-is-a-signal.md):
 * signals that come less than `windowMs` after the last one sent wait until the window ends
 * and go out together, in one turn. A typing storm then costs each connection one write per
 * window instead of one per typist. A lone signal goes out at once.
 */
export class SignalWindow {
  /** Signals waiting for the window to end; the timer runs while a window is open. */
  private held: Signal[] = [];
  private timer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    private readonly windowMs: number,
    /** Sends signals (`Gateway.signal`). */
    private readonly send: (signals: readonly Signal[]) => void,
  ) {}

  take(signal: Signal): void {
    if (this.windowMs === 0) {
      this.send([signal]);
      return;
    }
    if (this.timer !== null) {
      this.held.push(signal);
      return;
    }
    this.send([signal]);
    this.open();
  }

  /**
   * A message ends its author's typing there (clients clear the indicator when it arrives):
   * typing of theirs still held for the window would show them typing again after it.
   */
  dropTyping(channelId: string, userId: string): void {
    if (this.held.length === 0) return;
    this.held = this.held.filter((s) => s.event.d.channelId !== channelId || s.event.d.userId !== userId);
  }

  close(): void {
    this.closed = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.held = [];
  }

  private open(): void {
    this.timer = setTimeout(() => {
      const held = this.held;
      this.held = [];
      this.timer = null;
      if (held.length === 0 || this.closed) return;
      this.send(held);
      this.open();
    }, this.windowMs);
    this.timer.unref();
  }
}

/**
 * Signals grouped by audience (a server's channel, or a DM's recipients), each group as one
 * `LiveBatch`: one permission check and, on the native wire, one write of the same bytes
 * per session, whatever the number of typists.
 */
export function audiences(signals: readonly Signal[]): Array<{ signal: Signal; batch: LiveBatch }> {
  const groups = new Map<string, { signal: Signal; prepared: Prepared[] }>();
  for (const signal of signals) {
    const channelId = signal.event.d.channelId;
    const key = signal.recipients ? `${channelId}:${signal.recipients.join(',')}` : `${signal.serverId}:${channelId}`;
    const group = groups.get(key);
    if (group) group.prepared.push(new Prepared(signal.event));
    else groups.set(key, { signal, prepared: [new Prepared(signal.event)] });
  }
  return [...groups.values()].map(({ signal, prepared }) => ({ signal, batch: new LiveBatch(prepared) }));
}
