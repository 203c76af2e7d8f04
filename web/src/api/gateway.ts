/**
 * Gateway connection: identify, heartbeat, resume after a drop, identify again when the
 * session cannot be resumed, and reconnect with backoff. The UI only sees ready/event
 * callbacks and a connection status.
 */
import type { GatewayEvent, ReadyPayload } from './types';

export type GatewayStatus = 'connecting' | 'connected' | 'reconnecting' | 'offline';

export interface GatewayHandlers {
  /** A fresh session: state may have been missed, so callers refetch. */
  onReady(payload: ReadyPayload, isReconnect: boolean): void;
  onEvent(event: GatewayEvent): void;
  onStatus(status: GatewayStatus): void;
  /** The token was refused (close code 4001). */
  onAuthFailed(): void;
}

interface Frame {
  op: string;
  d?: unknown;
  t?: string;
  s?: number;
}

const MAX_BACKOFF_MS = 15_000;

export class GatewayClient {
  private ws: WebSocket | null = null;
  private sessionId: string | null = null;
  private seq = 0;
  private heartbeatTimer: ReturnType<typeof setTimeout> | null = null;
  private reconnectTimer: ReturnType<typeof setTimeout> | null = null;
  private acked = true;
  private attempts = 0;
  private everReady = false;
  private stopped = false;

  constructor(
    private readonly token: string,
    private readonly handlers: GatewayHandlers,
    private readonly url = defaultGatewayUrl(),
  ) {}

  start(): void {
    this.stopped = false;
    window.addEventListener('online', this.onOnline);
    // Open on the next tick: a start() immediately undone by stop() (React's StrictMode
    // double effects, fast navigation) then never opens a socket at all.
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      this.open();
    }, 0);
  }

  stop(): void {
    this.stopped = true;
    window.removeEventListener('online', this.onOnline);
    this.clearTimers();
    const ws = this.ws;
    this.ws = null;
    if (ws && ws.readyState <= WebSocket.OPEN) ws.close(1000, 'bye');
  }

  private onOnline = () => {
    if (this.stopped) return;
    if (!this.ws || this.ws.readyState > WebSocket.OPEN) {
      if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
      this.reconnectTimer = null;
      this.open();
    }
  };

  private open(): void {
    if (this.stopped) return;
    this.handlers.onStatus(this.everReady ? 'reconnecting' : 'connecting');
    let ws: WebSocket;
    try {
      ws = new WebSocket(this.url);
    } catch {
      this.scheduleReconnect();
      return;
    }
    this.ws = ws;
    ws.onmessage = (ev) => {
      if (this.ws !== ws) return;
      let frame: Frame;
      try {
        frame = JSON.parse(String(ev.data)) as Frame;
      } catch {
        return;
      }
      this.handle(frame);
    };
    ws.onclose = (ev) => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.clearTimers();
      if (this.stopped) return;
      if (ev.code === 4001) {
        this.handlers.onStatus('offline');
        this.handlers.onAuthFailed();
        return;
      }
      this.scheduleReconnect();
    };
    ws.onerror = () => {
      /* onclose follows and schedules the reconnect */
    };
  }

  private send(frame: Frame): void {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(frame));
  }

  private identify(): void {
    this.send({ op: 'identify', d: { token: `Bearer ${this.token}` } });
  }

  private handle(frame: Frame): void {
    switch (frame.op) {
      case 'hello': {
        const interval = Number((frame.d as { heartbeatInterval?: number } | undefined)?.heartbeatInterval) || 30_000;
        this.startHeartbeat(interval);
        if (this.sessionId) {
          this.send({ op: 'resume', d: { token: `Bearer ${this.token}`, sessionId: this.sessionId, s: this.seq } });
        } else {
          this.identify();
        }
        break;
      }
      case 'ready': {
        const d = frame.d as ReadyPayload;
        const isReconnect = this.everReady;
        this.sessionId = d.sessionId;
        this.seq = typeof frame.s === 'number' ? frame.s : 0;
        this.everReady = true;
        this.attempts = 0;
        this.handlers.onStatus('connected');
        this.handlers.onReady(d, isReconnect);
        break;
      }
      case 'resumed':
        this.attempts = 0;
        this.handlers.onStatus('connected');
        break;
      case 'invalid_session':
        this.sessionId = null;
        this.seq = 0;
        this.identify();
        break;
      case 'heartbeat_ack':
        this.acked = true;
        break;
      case 'heartbeat':
        // The server asked for one now.
        this.send({ op: 'heartbeat', d: { s: this.seq } });
        break;
      case 'event': {
        if (typeof frame.s === 'number' && frame.s > this.seq) this.seq = frame.s;
        if (typeof frame.t === 'string') {
          try {
            this.handlers.onEvent({ t: frame.t, d: frame.d } as GatewayEvent);
          } catch (err) {
            console.error('gateway event handler failed', err);
          }
        }
        break;
      }
      default:
        break;
    }
  }

  private startHeartbeat(interval: number): void {
    this.acked = true;
    const beat = () => {
      if (!this.acked) {
        // No ack since the last beat: the connection is a zombie. Drop it and resume.
        const ws = this.ws;
        this.ws = null;
        this.clearTimers();
        ws?.close(4000, 'heartbeat timeout');
        this.scheduleReconnect();
        return;
      }
      this.acked = false;
      this.send({ op: 'heartbeat', d: { s: this.seq } });
      this.heartbeatTimer = setTimeout(beat, interval);
    };
    // First beat a little early so a slow tab never misses the 1.5 interval deadline.
    this.heartbeatTimer = setTimeout(beat, Math.max(500, interval * (0.5 + Math.random() * 0.4)));
  }

  private scheduleReconnect(): void {
    if (this.stopped) return;
    this.handlers.onStatus('reconnecting');
    const base = Math.min(MAX_BACKOFF_MS, 500 * 2 ** this.attempts);
    this.attempts++;
    const delay = base / 2 + Math.random() * (base / 2);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      this.open();
    }, delay);
  }

  private clearTimers(): void {
    if (this.heartbeatTimer) clearTimeout(this.heartbeatTimer);
    this.heartbeatTimer = null;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
  }
}

function defaultGatewayUrl(): string {
  const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${proto}//${location.host}/gateway`;
}
