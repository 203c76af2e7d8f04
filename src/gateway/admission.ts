import type { IncomingMessage } from 'node:http';
import type { Caller } from '../domain/types.js';
import type { EventBus, LogPosition } from '../events/bus.js';
import type { Connection } from './session.js';

/**
 * Who may open a connection and start a session (docs/gateway.md#connecting-hello-identify-ready,
 * docs/gateway.md#close-codes): the handshake, connections waiting to identify per address,
 * and the revocations a session starting must not slip past. The gateway asks; nothing
 * here sends a frame.
 */

/** What ws would refuse in this handshake (RFC 6455 section 4.2.1), or null when it is acceptable. */
export function handshakeProblem(req: IncomingMessage): string | null {
  if (req.method !== 'GET') return 'the gateway handshake must be a GET request';
  if ((req.headers.upgrade ?? '').toLowerCase() !== 'websocket') return 'Upgrade: websocket is required';
  const key = req.headers['sec-websocket-key'];
  if (typeof key !== 'string' || !/^[+/0-9A-Za-z]{22}==$/.test(key.trim())) return 'Sec-WebSocket-Key is missing or invalid';
  const version = req.headers['sec-websocket-version'];
  if (version !== '13' && version !== '8') return 'Sec-WebSocket-Version must be 13';
  const protocols = req.headers['sec-websocket-protocol'];
  if (protocols !== undefined && !/^\s*[!#$%&'*+\-.^_`|~0-9A-Za-z]+(\s*,\s*[!#$%&'*+\-.^_`|~0-9A-Za-z]+)*\s*$/.test(protocols)) {
    return 'Sec-WebSocket-Protocol is malformed';
  }
  return null;
}

/** The client's address for per-address limits: the socket's, or the first X-Forwarded-For hop behind a trusted proxy. */
export function clientAddress(req: IncomingMessage, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = req.headers['x-forwarded-for'];
    const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim();
    if (first) return first;
  }
  return req.socket.remoteAddress ?? 'unknown';
}

/** Connections that have not identified yet (or whose session was invalidated), counted per address. */
export class PendingConnections implements Iterable<Connection> {
  private readonly all = new Set<Connection>();
  private readonly byAddress = new Map<string, number>();

  constructor(private readonly maxPerAddress: number) {}

  get size(): number {
    return this.all.size;
  }

  [Symbol.iterator](): Iterator<Connection> {
    return this.all[Symbol.iterator]();
  }

  /** Whether `address` may open another connection (else 429). */
  admits(address: string): boolean {
    return (this.byAddress.get(address) ?? 0) < this.maxPerAddress;
  }

  add(conn: Connection): void {
    if (this.all.has(conn)) return;
    this.all.add(conn);
    this.byAddress.set(conn.address, (this.byAddress.get(conn.address) ?? 0) + 1);
  }

  remove(conn: Connection): void {
    if (!this.all.delete(conn)) return;
    const n = (this.byAddress.get(conn.address) ?? 1) - 1;
    if (n <= 0) this.byAddress.delete(conn.address);
    else this.byAddress.set(conn.address, n);
  }
}

/** A revocation dispatched recently: starts that authenticated before it must not go live. */
interface Revocation {
  pos: LogPosition;
  reason: string;
  at: number;
}

/** How long a revocation is remembered; an identify or resume takes far less. */
const REVOCATION_MEMORY_MS = 60_000;

/**
 * Revocations seen in the log, remembered for a minute: an identify or resume that
 * authenticated before one was dispatched must not go live after it.
 */
export class Revocations {
  /** Keyed by user id (every session) or `userId/sessionId` (one login session). */
  private readonly recent = new Map<string, Revocation>();

  constructor(private readonly bus: EventBus) {}

  remember(userId: string, sessionId: string | undefined, pos: LogPosition, reason: string): void {
    this.recent.set(sessionId ? `${userId}/${sessionId}` : userId, { pos, reason, at: Date.now() });
  }

  /** The reason, if `caller` (or its login session) was revoked at a position after `since`. */
  since(caller: Caller, since: LogPosition): string | null {
    for (const key of [caller.id, `${caller.id}/${caller.sessionId ?? ''}`]) {
      const r = this.recent.get(key);
      if (r && this.bus.compare(r.pos, since) > 0) return r.reason;
    }
    return null;
  }

  /** Forgets revocations older than any start still in progress. */
  sweep(now: number): void {
    for (const [key, r] of this.recent) if (r.at < now - REVOCATION_MEMORY_MS) this.recent.delete(key);
  }
}

/** The session cannot be resumed: the client is told `invalid_session` and identifies. */
export class InvalidSession extends Error {}
/** The connection closed while the session was starting: nothing to tell anyone. */
export class ClosedDuringStart extends Error {}
/** The credential has `maxSessionsPerToken` live sessions on this instance (4010). */
export class TooManySessions extends Error {}
