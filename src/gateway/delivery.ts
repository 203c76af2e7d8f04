import { CLOSE_CODES as CLOSE } from '@parley/protocol';
import { WebSocket } from 'ws';
import type { ThreadAudience } from '../events/types.js';
import type { Session } from './session.js';
import { mayReceive } from './view.js';
import type { LiveBatch, SeqFrame } from './wire-interface.js';

/**
 * How frames leave for a session's connection (docs/gateway.md#slow-consumers,
 * docs/gateway.md#delivery): written through its wire (coalesced per turn, `outbox.ts`),
 * unless its client stopped reading, which detaches the session (it can resume) instead
 * of buffering without bound. Counts what was sent, by event type, for metrics.
 */
export class Delivery {
  /** Event frames sent since start, by event type (metrics read it at scrape time). */
  readonly eventsSent = new Map<string, { n: number }>();

  constructor(
    /** Bytes queued to one connection before it counts as a slow consumer. */
    private readonly maxBuffered: number,
    /** Unregisters a slow consumer's session, leaving its checkpoint (`Gateway.detach`). */
    private readonly detach: (session: Session) => void,
  ) {}

  /**
   * Sends event frame `f` numbered `s`, unless the client has stopped reading; true when
   * sent. `urgent` false (typing, presence) lets it wait for the lazy flush. A resume's
   * replay is sent whole.
   */
  send(session: Session, f: SeqFrame, s: number | null, urgent: boolean): boolean {
    if (session.replaying) {
      if (session.ws.readyState !== WebSocket.OPEN) return false;
      session.conn.wire.sendEvent(f, s, true);
      return true;
    }
    if (!this.admits(session)) return false;
    session.conn.wire.sendEvent(f, s, urgent);
    return true;
  }

  /**
   * Sends a batch of live-only events of one channel to one session, judged by its view of
   * `serverId` (null: a DM's, judged by its audience). The events share their channel, so
   * they share what they need there: one check judges them all.
   */
  live(session: Session, batch: LiveBatch, serverId: string | null, thread?: ThreadAudience): void {
    // A session still catching up or replaying hears only what the log holds.
    if (session.closed || session.backlog !== null || session.replaying) return;
    if (serverId !== null) {
      const view = session.servers.get(serverId);
      if (!view || !mayReceive(view, session.caller, batch.prepared[0]!.event, thread)) return;
    }
    if (!this.admits(session)) return;
    const sent = session.conn.wire.sendLive(batch, session, session.s);
    if (sent > 0) this.count(batch.t, sent);
  }

  /**
   * Whether the session's connection takes another frame: open, and its client still
   * reading. A client that stopped reading is dropped (it can resume) instead of buffered
   * without bound.
   */
  private admits(session: Session): boolean {
    const ws = session.ws;
    if (ws.readyState !== WebSocket.OPEN) return false;
    const wire = session.conn.wire;
    let buffered = ws.bufferedAmount;
    if (buffered > this.maxBuffered + session.slack) {
      // Part of it may only be held for this turn: hand it to the kernel, then judge what is left.
      wire.flush();
      buffered = ws.bufferedAmount;
    }
    if (session.slack > 0 && buffered <= this.maxBuffered) session.slack = 0;
    if (buffered > this.maxBuffered + session.slack) {
      this.detach(session);
      wire.close(CLOSE.SLOW_CONSUMER, 'slow consumer');
      setTimeout(() => ws.terminate(), 1000).unref();
      return false;
    }
    return true;
  }

  /** A plain increment on the fan-out path (the set of event types is fixed). */
  count(t: string, n = 1): void {
    const sent = this.eventsSent.get(t);
    if (sent) sent.n += n;
    else this.eventsSent.set(t, { n });
  }
}
