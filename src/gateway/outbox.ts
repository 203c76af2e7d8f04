import type { Socket } from 'node:net';
import type { WebSocket } from 'ws';

/**
 * Coalesced writes to gateway connections (issue 17). Frames for one connection are
 * written to its TCP socket while the socket is corked, and the socket is uncorked once:
 * everything one turn of the event loop sends to a connection leaves in one `writev`
 * system call (on loopback, the write is most of what a fan-out costs).
 *
 * Two lanes:
 * - **urgent** (messages and everything else): the socket is uncorked at the end of the
 *   current turn (`process.nextTick`), so the event leaves as soon as the fan-out that
 *   produced it is done;
 * - **lazy** (typing and presence, `LAZY_EVENTS`): the socket stays corked up to `LAZY_MS`
 *   (or until an urgent frame for the same connection ends the turn, which takes the
 *   lazy frames with it, ahead of it and in order). Lazy sockets are uncorked in slices of
 *   `LAZY_SLICE` per turn, so a storm's writes interleave with messages' fan-outs instead
 *   of holding them up.
 *
 * Frames never change order: both lanes write into the same socket in the order the
 * gateway numbered them; only the moment the kernel gets them differs.
 *
 * What is queued (corked or not) counts in `ws.bufferedAmount` (it is the socket's
 * writable length), so the slow-consumer check sees it; the gateway `flush`es before
 * judging a connection, so bytes held for the turn never count as unread.
 */

/** Events that may wait for the lazy flush: hints whose delay by a few tens of ms nobody sees. */
export const LAZY_EVENTS: ReadonlySet<string> = new Set(['TYPING_START', 'PRESENCE_UPDATE']);

/** How long a lazy frame may wait for its socket to be uncorked. */
export const LAZY_MS = 25;
/** Lazy sockets uncorked per turn. */
const LAZY_SLICE = 256;

const IDLE = 0;
const LAZY = 1;
const URGENT = 2;

/** Counters for tests and the micro-benchmark: uncorks that wrote something, frames queued. */
export const outboxStats = { flushes: 0, frames: 0 };

/** One connection's socket, as the outbox writes to it. */
export class Outlet {
  /** IDLE (not corked by us), LAZY (corked, in the lazy list), URGENT (corked, flushed at the end of the turn). */
  private state = IDLE;

  constructor(private readonly socket: Socket) {}

  /** The outlet of a `ws` connection, or null if its socket is not reachable (then write through `ws.send`). */
  static of(ws: WebSocket): Outlet | null {
    // With an extension (permessage-deflate) ws may queue frames of its own: keep to ws.send then.
    if (ws.extensions !== '') return null;
    const socket = (ws as unknown as { _socket?: Socket })._socket;
    return socket && typeof socket.cork === 'function' ? new Outlet(socket) : null;
  }

  /**
   * Queues one WebSocket frame given as its shared part (header and shared bytes, the same
   * Buffer for every recipient) and this recipient's tail (a few ASCII characters).
   */
  write(shared: Buffer, tail: string, urgent: boolean): void {
    this.hold(urgent);
    this.socket.write(shared);
    this.socket.write(tail, 'latin1');
    outboxStats.frames++;
  }

  /** Queues `count` whole WebSocket frames in one Buffer, the same for every recipient (`LiveBatch`). */
  writeFrames(frames: Buffer, count: number, urgent: boolean): void {
    this.hold(urgent);
    this.socket.write(frames);
    outboxStats.frames += count;
  }

  /**
   * Corks the socket for this turn if it is not yet, so what `ws.send` writes next joins
   * the same write. `urgent` (the default) makes it leave at the end of this turn.
   */
  hold(urgent = true): void {
    if (this.state === IDLE) {
      this.socket.cork();
      if (urgent) {
        this.state = URGENT;
        urgentList.push(this);
        if (!urgentScheduled) {
          urgentScheduled = true;
          process.nextTick(flushUrgent);
        }
      } else {
        this.state = LAZY;
        lazyList.push(this);
        if (!lazyTimer) lazyTimer = setTimeout(flushLazy, LAZY_MS);
      }
    } else if (urgent && this.state === LAZY) {
      // Lazy frames already queued go out with this one, before it.
      this.state = URGENT;
      urgentList.push(this);
      if (!urgentScheduled) {
        urgentScheduled = true;
        process.nextTick(flushUrgent);
      }
    }
  }

  /** Lets a held frame leave at the end of this turn (after `ws.send` of a control frame, a close). */
  urge(): void {
    if (this.state === LAZY) this.hold(true);
  }

  /** The lazy flush: uncorks unless an urgent frame has taken the socket over (or it was flushed). */
  flushIfLazy(): void {
    if (this.state === LAZY) this.flush();
  }

  /** Hands everything queued to the kernel now. */
  flush(): void {
    if (this.state === IDLE) return;
    this.state = IDLE;
    if (this.socket.writableLength > 0) outboxStats.flushes++;
    this.socket.uncork();
  }
}

let urgentList: Outlet[] = [];
let urgentScheduled = false;
let lazyList: Outlet[] = [];
let lazyTimer: NodeJS.Timeout | null = null;

function flushUrgent(): void {
  urgentScheduled = false;
  const list = urgentList;
  urgentList = [];
  for (const o of list) o.flush();
}

function flushLazy(): void {
  lazyTimer = null;
  const list = lazyList;
  lazyList = [];
  drain(list, 0);
}

/** Uncorks `list` from `from`, a slice per turn; outlets flushed meanwhile (or held again) are skipped. */
function drain(list: Outlet[], from: number): void {
  const end = Math.min(list.length, from + LAZY_SLICE);
  for (let i = from; i < end; i++) list[i]!.flushIfLazy();
  if (end < list.length) setImmediate(drain, list, end);
}
