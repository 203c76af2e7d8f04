import type { ChosenStatus, ClientFrame, ServerFrame } from '@parley/protocol';

const CHOSEN: readonly ChosenStatus[] = ['online', 'idle', 'dnd', 'invisible'];
const isChosenStatus = (v: unknown): v is ChosenStatus => typeof v === 'string' && (CHOSEN as readonly string[]).includes(v);

/** Parses a client frame; null when it is not one of the protocol's frames. */
export function parseClientFrame(raw: string): ClientFrame | null {
  let f: unknown;
  try {
    f = JSON.parse(raw);
  } catch {
    return null;
  }
  if (typeof f !== 'object' || f === null || Array.isArray(f)) return null;
  const { op, d } = f as { op?: unknown; d?: unknown };
  const obj = typeof d === 'object' && d !== null && !Array.isArray(d) ? (d as Record<string, unknown>) : null;
  switch (op) {
    case 'identify': {
      if (!obj || typeof obj.token !== 'string' || obj.token.length > 512) return null;
      if (obj.status === undefined) return { op, d: { token: obj.token } };
      return isChosenStatus(obj.status) ? { op, d: { token: obj.token, status: obj.status } } : null;
    }
    case 'presence_update':
      return obj && isChosenStatus(obj.status) ? { op, d: { status: obj.status } } : null;
    case 'resume':
      return obj &&
        typeof obj.token === 'string' &&
        obj.token.length <= 512 &&
        typeof obj.sessionId === 'string' &&
        Number.isInteger(obj.s) &&
        (obj.s as number) >= 0
        ? { op, d: { token: obj.token, sessionId: obj.sessionId, s: obj.s as number } }
        : null;
    case 'heartbeat':
      if (d === undefined || d === null) return { op };
      return obj && (obj.s === undefined || obj.s === null || Number.isInteger(obj.s)) ? { op, d: { s: obj.s as number | null } } : null;
    default:
      return null;
  }
}

/** The server's frames other than events (those go through `EventFrame`). */
type ControlFrame = Exclude<ServerFrame, { op: 'event' }>;
/** The `d` argument of `frame(op, ...)`: what the protocol says `op` carries, or nothing. */
type FrameData<O extends ControlFrame['op']> = Extract<ControlFrame, { op: O }> extends { d: infer D } ? [d: D] : [];

/** Serializes a server frame; the protocol's schemas type what each `op` carries. */
export function frame<O extends ControlFrame['op']>(op: O, ...args: FrameData<O>): string {
  const [d] = args as [unknown?];
  return JSON.stringify(d === undefined ? { op } : { op, d });
}

/**
 * An event frame serialized once for all its recipients. Only the sequence number differs
 * between them, so it goes last: each recipient's frame is one copy of the shared bytes
 * plus a few digits, with no per-recipient JSON or UTF-8 encoding (which, for a long
 * non-ASCII message sent to thousands, would cost more than the socket writes).
 */
export class EventFrame {
  private readonly head: Buffer;

  constructor(
    /** The event type (`MESSAGE_CREATE`, ...), for metrics. */
    readonly t: string,
    d: unknown,
  ) {
    this.head = Buffer.from(`{"op":"event","t":${JSON.stringify(t)},"d":${JSON.stringify(d)},"s":`);
  }

  /** The frame with sequence number `s`, as UTF-8 bytes (to be sent as a text frame). */
  withSeq(s: number): Buffer {
    const tail = `${s}}`;
    const out = Buffer.allocUnsafe(this.head.length + tail.length);
    this.head.copy(out, 0);
    out.write(tail, this.head.length, 'latin1');
    return out;
  }
}
