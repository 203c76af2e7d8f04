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
