import type { ChosenStatus, ClientFrame, ServerFrame } from '@parley/protocol';

const CHOSEN: readonly ChosenStatus[] = ['online', 'idle', 'dnd', 'invisible'];
const isChosenStatus = (v: unknown): v is ChosenStatus => typeof v === 'string' && (CHOSEN as readonly string[]).includes(v);

const SNOWFLAKE = /^[0-9]{1,19}$/;

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
    case 'focus':
      return obj && (obj.channelId === null || (typeof obj.channelId === 'string' && SNOWFLAKE.test(obj.channelId)))
        ? { op, d: { channelId: obj.channelId } }
        : null;
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

/** The header (RFC 6455, section 5.2) of an unmasked, final text frame of `length` bytes. */
export function textFrameHeader(length: number): Buffer {
  if (length < 126) return Buffer.from([0x81, length]);
  if (length < 65536) return Buffer.from([0x81, 126, length >> 8, length & 0xff]);
  const h = Buffer.alloc(10);
  h[0] = 0x81;
  h[1] = 127;
  h.writeUIntBE(length, 4, 6);
  return h;
}

/**
 * A JSON frame serialized once for all its recipients, whose only difference is a number
 * at the end (`"s":N}`): each recipient's frame is the shared bytes plus a few digits, with
 * no per-recipient JSON or UTF-8 encoding (which, for a long non-ASCII message sent to
 * thousands, would cost more than the socket writes).
 *
 * For the outbox (`outbox.ts`) it is also a WebSocket frame made once per length: the
 * header depends only on the payload's length, i.e. on how many digits `s` has, so the
 * header and the shared bytes are one Buffer per digit count, written as is to every
 * recipient, followed by its own tail. Nothing shared is copied per recipient.
 */
export class SharedFrame {
  private readonly head: Buffer;
  /** Header + head, by the number of digits of `s`. */
  private readonly framed: Array<Buffer | undefined> = [];

  constructor(
    /** The event type (`MESSAGE_CREATE`, ...), for metrics. */
    readonly t: string,
    head: string,
  ) {
    this.head = Buffer.from(head);
  }

  /** The frame with sequence number `s` (null: a live-only event's), as UTF-8 bytes (to be sent as a text frame). */
  withSeq(s: number | null): Buffer {
    const tail = `${s}}`;
    const out = Buffer.allocUnsafe(this.head.length + tail.length);
    this.head.copy(out, 0);
    out.write(tail, this.head.length, 'latin1');
    return out;
  }

  /**
   * The WebSocket text frame with sequence number `s` in two parts: the header and shared
   * bytes (the same Buffer for every `s` of as many digits), then the recipient's tail.
   */
  wsFrame(s: number | null): [Buffer, string] {
    const tail = `${s}}`;
    let shared = this.framed[tail.length];
    if (!shared) {
      const header = textFrameHeader(this.head.length + tail.length);
      shared = Buffer.concat([header, this.head]);
      this.framed[tail.length] = shared;
    }
    return [shared, tail];
  }
}

/** A native event frame (`{"op":"event","t":...,"d":...,"s":N}`). */
export class EventFrame extends SharedFrame {
  constructor(t: string, d: unknown) {
    super(t, `{"op":"event","t":${JSON.stringify(t)},"d":${JSON.stringify(d)},"s":`);
  }
}
