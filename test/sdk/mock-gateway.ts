import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

/** A frame as the mock saw it from a client. */
export interface ReceivedFrame {
  op: string;
  d?: unknown;
  connection: number;
}

/** Knobs of the scripted gateway. */
export interface MockGatewayOptions {
  heartbeatInterval?: number;
  /** Tokens accepted by identify/resume (default: `Bot good`). */
  validTokens?: string[];
  /** When false the mock never answers heartbeats (to provoke zombie detection). */
  ackHeartbeats?: boolean;
  /** When true, resume is answered with invalid_session. */
  rejectResume?: boolean;
}

interface Session {
  id: string;
  events: Array<{ t: string; s: number; d: unknown }>;
  socket: WebSocket | undefined;
}

/**
 * A scripted, in-memory implementation of the Parley gateway protocol
 * (docs/gateway.md), for exercising the SDK's edge cases a real server rarely produces on cue:
 * zombie connections, invalid sessions, 4001, server-requested reconnects.
 */
export class MockGateway {
  readonly received: ReceivedFrame[] = [];
  readonly sessions = new Map<string, Session>();
  connections = 0;
  readonly options: Required<MockGatewayOptions>;
  #http: HttpServer;
  #wss: WebSocketServer;
  #sockets = new Set<WebSocket>();
  url = '';

  constructor(options: MockGatewayOptions = {}) {
    this.options = {
      heartbeatInterval: options.heartbeatInterval ?? 1000,
      validTokens: options.validTokens ?? ['Bot good'],
      ackHeartbeats: options.ackHeartbeats ?? true,
      rejectResume: options.rejectResume ?? false,
    };
    this.#http = createServer();
    this.#wss = new WebSocketServer({ server: this.#http, path: '/gateway' });
    this.#wss.on('connection', (socket) => this.#onConnection(socket));
  }

  /** Starts listening on `port` (default: any free one); resolves with the base URL. */
  async listen(port = 0): Promise<string> {
    await new Promise<void>((resolve) => this.#http.listen(port, '127.0.0.1', resolve));
    const { port: bound } = this.#http.address() as AddressInfo;
    this.url = `http://127.0.0.1:${bound}`;
    return this.url;
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.terminate();
    await new Promise<void>((resolve) => this.#wss.close(() => resolve()));
    await new Promise<void>((resolve) => this.#http.close(() => resolve()));
  }

  /** The only session (most tests have one). */
  get session(): Session {
    const [session] = this.sessions.values();
    if (!session) throw new Error('no session yet');
    return session;
  }

  /** Records an event in every session and delivers it to those connected. */
  publish(t: string, d: unknown): void {
    for (const session of this.sessions.values()) {
      const event = { t, s: session.events.length + 1, d };
      session.events.push(event);
      session.socket?.send(JSON.stringify({ op: 'event', ...event }));
    }
  }

  /** Drops every client socket without a close frame (like a network failure). */
  dropAll(): void {
    for (const socket of this.#sockets) socket.terminate();
  }

  /** Closes every client socket with `code`. */
  closeAll(code: number, reason = ''): void {
    for (const socket of this.#sockets) socket.close(code, reason);
  }

  framesOf(op: string): ReceivedFrame[] {
    return this.received.filter((frame) => frame.op === op);
  }

  #onConnection(socket: WebSocket): void {
    const connection = ++this.connections;
    this.#sockets.add(socket);
    let session: Session | undefined;
    socket.on('close', () => {
      this.#sockets.delete(socket);
      if (session && session.socket === socket) session.socket = undefined;
    });
    socket.on('message', (raw) => {
      let frame: { op: string; d?: Record<string, unknown> };
      try {
        frame = JSON.parse(String(raw)) as { op: string; d?: Record<string, unknown> };
      } catch {
        socket.close(4002, 'malformed frame');
        return;
      }
      this.received.push({ op: frame.op, d: frame.d, connection });
      const d = frame.d ?? {};
      switch (frame.op) {
        case 'identify': {
          if (!this.options.validTokens.includes(String(d.token))) {
            socket.close(4001, 'bad token');
            return;
          }
          session = { id: `session-${this.sessions.size + 1}`, events: [], socket };
          this.sessions.set(session.id, session);
          socket.send(
            JSON.stringify({
              op: 'ready',
              d: {
                sessionId: session.id,
                user: { id: 'bot-1', name: 'Testbot', bot: true },
                servers: [
                  {
                    id: 'srv-1',
                    name: 'Test',
                    channels: [{ id: 'ch-1', serverId: 'srv-1', name: 'general', createdAt: '2025-01-01T00:00:00.000Z' }],
                  },
                ],
              },
            }),
          );
          return;
        }
        case 'resume': {
          const existing = this.sessions.get(String(d.sessionId));
          if (!this.options.validTokens.includes(String(d.token))) {
            socket.close(4001, 'bad token');
            return;
          }
          if (!existing || this.options.rejectResume) {
            socket.send(JSON.stringify({ op: 'invalid_session', d: null }));
            return;
          }
          session = existing;
          existing.socket = socket;
          const after = Number(d.s);
          for (const event of existing.events.filter((e) => e.s > after)) {
            socket.send(JSON.stringify({ op: 'event', ...event }));
          }
          socket.send(JSON.stringify({ op: 'resumed', d: null }));
          return;
        }
        case 'heartbeat':
          if (this.options.ackHeartbeats) socket.send(JSON.stringify({ op: 'heartbeat_ack' }));
          return;
        default:
          socket.close(4002, 'unknown op');
      }
    });
    socket.send(JSON.stringify({ op: 'hello', d: { heartbeatInterval: this.options.heartbeatInterval } }));
  }
}

/** Polls `check` until it is truthy or `timeoutMs` passes. */
export async function until(check: () => boolean, timeoutMs = 5000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
