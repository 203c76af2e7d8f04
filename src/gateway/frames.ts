/** Close codes of the gateway protocol (docs/gateway.md). */
export const CLOSE = {
  /** The token is missing, wrong or revoked. */
  BAD_TOKEN: 4001,
  /** A frame that is not JSON, or not a valid frame for the connection's state. */
  MALFORMED: 4002,
  /** The client stopped reading: its send buffer passed the bound. Resumable. */
  SLOW_CONSUMER: 4008,
  /** No heartbeat (or identify) within 1.5 intervals. Resumable. */
  HEARTBEAT_TIMEOUT: 4009,
  /** The credential already has the most gateway sessions allowed on this instance. */
  TOO_MANY_SESSIONS: 4010,
  /** This instance is shutting down; reconnect and resume (here or elsewhere). */
  RESTARTING: 1012,
} as const;

export type ClientFrame =
  | { op: 'identify'; d: { token: string } }
  | { op: 'resume'; d: { token: string; sessionId: string; s: number } }
  | { op: 'heartbeat'; d?: { s?: number | null } | null };

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
    case 'identify':
      return obj && typeof obj.token === 'string' && obj.token.length <= 512 ? { op, d: { token: obj.token } } : null;
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

/** Serializes a server frame. */
export function frame(op: string, d?: unknown): string {
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

  constructor(t: string, d: unknown) {
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
