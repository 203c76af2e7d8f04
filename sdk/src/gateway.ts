import { CLOSE_CODES } from '@parley/protocol';
import type { ChosenStatus } from '@parley/protocol';
import { TypedEmitter } from './emitter.js';
import { GatewayError } from './errors.js';
import type { DispatchEvent, GatewayFrame, HelloData, ReadyData } from './types.js';

/** Close codes of the Parley gateway (docs/gateway.md#close-codes), by the SDK's names for them. */
export const GatewayCloseCodes = {
  /** The server asks the client to reconnect and resume. */
  ReconnectRequested: 4000,
  /** Bad token: reconnecting cannot help. */
  AuthenticationFailed: CLOSE_CODES.BAD_TOKEN,
  /** The server could not parse a frame the client sent. */
  MalformedFrame: CLOSE_CODES.MALFORMED,
  /** The client stopped reading and its buffer passed the server's bound. */
  SlowConsumer: CLOSE_CODES.SLOW_CONSUMER,
  /** The client missed its heartbeats. */
  HeartbeatTimeout: CLOSE_CODES.HEARTBEAT_TIMEOUT,
  /** The token already has the most sessions the server allows; reconnecting backs off. */
  TooManySessions: CLOSE_CODES.TOO_MANY_SESSIONS,
} as const;

/** Close codes after which the client must not reconnect. */
const FATAL_CLOSE_CODES = new Set<number>([GatewayCloseCodes.AuthenticationFailed]);

/** Reconnect policy: exponential backoff with jitter, capped. */
export interface ReconnectOptions {
  /** First delay in ms (default 1000). */
  initialDelayMs?: number;
  /** Largest delay in ms (default 30 000). */
  maxDelayMs?: number;
  /** Give up (emit `error`, stay closed) after this many failed attempts in a row (default: never). */
  maxAttempts?: number;
  /**
   * Also retry when the first connection fails (server unreachable, socket closed before
   * `ready`) instead of rejecting `connect()` (default false). `connect()` then resolves with
   * the first `ready`, and rejects only on a fatal close, on `close()` or after `maxAttempts`.
   * For a long-lived client such as a web page that should come up whenever the server does.
   */
  retryFirstConnection?: boolean;
}

/**
 * The part of a WebSocket the client uses. Browsers' `WebSocket`, Node 22+'s global one and
 * the `ws` package all have it.
 */
export interface WebSocketLike {
  readonly readyState: number;
  binaryType: string;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: 'message', listener: (event: { data: unknown }) => void): void;
  addEventListener(type: 'close', listener: (event: { code: number; reason: string }) => void): void;
  addEventListener(type: 'error', listener: (event: unknown) => void): void;
}

/** A WebSocket class: `new WebSocket(url)`, as in browsers (the `ws` package's fits too). */
export type WebSocketConstructor = new (url: string) => WebSocketLike;

/** Options of `new GatewayClient(...)`. */
export interface GatewayClientOptions {
  /** `ws(s)://host/gateway`. */
  url: string;
  /** The identify token with its scheme: `"Bot <token>"` or `"Bearer <token>"`. */
  token: string;
  /** Reconnect policy, or `false` to never reconnect (default: reconnect). */
  reconnect?: ReconnectOptions | false;
  /** How long to wait for `hello` after opening the socket, in ms (default 15 000). */
  helloTimeoutMs?: number;
  /**
   * The WebSocket class to connect with. Default: on Node (the package's `node` entry) the
   * `ws` package, elsewhere the platform's `globalThis.WebSocket` (browsers, Deno, Bun).
   */
  WebSocket?: WebSocketConstructor;
}

/** What the `close` event reports about one closed socket. */
export interface GatewayCloseInfo {
  code: number;
  reason: string;
  /** True when the client will reconnect (and try to resume) on its own. */
  reconnecting: boolean;
}

/** Events of a `GatewayClient`. */
export interface GatewayClientEvents {
  /** A new session: after `identify`. */
  ready: [ReadyData];
  /** A resumed session: missed events have been replayed (as `dispatch`) before this. */
  resumed: [];
  /** Every `event` frame, in sequence order, without duplicates. */
  dispatch: [DispatchEvent];
  /** A fatal close (4001), a protocol problem, or a listener that threw. */
  error: [Error];
  /** A socket closed; see `reconnecting`. */
  close: [GatewayCloseInfo];
  /** Human-readable trace of what the client does (connects, resumes, heartbeats). */
  debug: [string];
  /** `status` changed, e.g. to show the connection's state in a UI. */
  status: [GatewayStatus];
}

/** Connection lifecycle of a `GatewayClient`. */
export type GatewayStatus = 'idle' | 'connecting' | 'ready' | 'reconnecting' | 'closed';

/**
 * A client of the Parley gateway protocol: hello → identify/resume → ready/resumed,
 * heartbeats with zombie detection, and reconnection with backoff that resumes the
 * session so no event is lost while the connection was down.
 */
export class GatewayClient extends TypedEmitter<GatewayClientEvents> {
  readonly url: string;
  #token: string;
  readonly #reconnect: Required<ReconnectOptions> | false;
  readonly #helloTimeoutMs: number;
  readonly #createSocket: SocketFactory;

  #ws: SocketAdapter | undefined;
  #status: GatewayStatus = 'idle';
  #sessionId: string | undefined;
  #seq = 0;
  #everReady = false;
  #closedByUser = false;
  #attempts = 0;
  #lastSocketError: Error | undefined;

  #heartbeatIntervalMs = 0;
  #heartbeatTimer: Timer | undefined;
  #awaitingAck = false;
  #lastHeartbeatAt = 0;
  #ping: number | undefined;
  #helloTimer: Timer | undefined;
  #reconnectTimer: Timer | undefined;

  #pendingConnect: { resolve: (ready: ReadyData) => void; reject: (error: Error) => void } | undefined;
  #connecting: Promise<ReadyData> | undefined;
  #lastReady: ReadyData | undefined;

  constructor(options: GatewayClientOptions) {
    super();
    this.url = options.url;
    this.#token = options.token;
    this.#reconnect =
      options.reconnect === false
        ? false
        : {
            initialDelayMs: options.reconnect?.initialDelayMs ?? 1000,
            maxDelayMs: options.reconnect?.maxDelayMs ?? 30_000,
            maxAttempts: options.reconnect?.maxAttempts ?? Number.POSITIVE_INFINITY,
            retryFirstConnection: options.reconnect?.retryFirstConnection ?? false,
          };
    this.#helloTimeoutMs = options.helloTimeoutMs ?? 15_000;
    this.#createSocket = socketFactory(options.WebSocket);
  }

  protected override onListenerError(error: unknown, event: keyof GatewayClientEvents): void {
    // A failing 'error' listener must not loop back into 'error'.
    if (event === 'error') super.onListenerError(error, event);
    else this.#reportError(error);
  }

  /** Where the connection stands. */
  get status(): GatewayStatus {
    return this.#status;
  }

  /** The current session's id (kept across resumes), if any. */
  get sessionId(): string | undefined {
    return this.#sessionId;
  }

  /** The last event sequence number received in this session (0 before any). */
  get sequence(): number {
    return this.#seq;
  }

  /** Round trip of the last heartbeat in ms, once one has been acknowledged. */
  get ping(): number | undefined {
    return this.#ping;
  }

  /**
   * The underlying socket, as the WebSocket class made it (on Node a `ws` WebSocket), for
   * diagnostics and tests; do not send on it.
   */
  get socket(): WebSocketLike | undefined {
    return this.#ws?.raw;
  }

  /**
   * Opens the connection and identifies. Resolves with `ready`; rejects if the first
   * connection fails (bad token, unreachable server). After the first `ready`, dropped
   * connections are re-established and resumed automatically.
   */
  connect(): Promise<ReadyData> {
    if (this.#connecting) return this.#connecting;
    if (this.#status === 'ready' && this.#lastReady) return Promise.resolve(this.#lastReady);
    if (this.#status === 'reconnecting') {
      // Already coming back on its own: answer when the session is live again.
      return new Promise<ReadyData>((resolve) => {
        const done = () => {
          offReady();
          offResumed();
          if (this.#lastReady) resolve(this.#lastReady);
        };
        const offReady = this.once('ready', done);
        const offResumed = this.once('resumed', done);
      });
    }
    this.#closedByUser = false;
    this.#everReady = false;
    this.#attempts = 0;
    this.#connecting = new Promise<ReadyData>((resolve, reject) => {
      this.#pendingConnect = { resolve, reject };
    });
    this.#connecting.catch(() => undefined); // the caller handles it; never an unhandled rejection
    this.#open();
    return this.#connecting;
  }

  /** Closes the connection for good (code 1000): no reconnect, the session ends. */
  close(code = 1000, reason = 'client closing'): Promise<void> {
    this.#closedByUser = true;
    clearTimeout(this.#reconnectTimer);
    this.#reconnectTimer = undefined;
    this.#settleConnect(new GatewayError('gateway closed by the client'));
    const ws = this.#ws;
    this.#sessionId = undefined;
    this.#seq = 0;
    if (!ws || ws.readyState === CLOSED) {
      this.#stopTimers();
      this.#ws = undefined;
      this.#setStatus('closed');
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      const force = setTimeout(() => ws.terminate(), 2000);
      ws.afterClose(() => {
        clearTimeout(force);
        resolve();
      });
      if (ws.readyState === CONNECTING) ws.terminate();
      else ws.close(code, reason);
    });
  }

  /**
   * Reconnects, resuming the session: drops the current socket (the next one opens after
   * the backoff delay), or, while a reconnect is waiting out its delay, opens it now (e.g.
   * when a browser comes back online). Does nothing before `connect()` or after `close()`.
   */
  reconnect(): void {
    if (this.#closedByUser) return;
    if (this.#ws) {
      this.#debug('reconnect requested by the client');
      this.#attempts = 0;
      this.#ws.terminate();
    } else if (this.#reconnectTimer !== undefined) {
      this.#debug('reconnect requested by the client; not waiting any longer');
      clearTimeout(this.#reconnectTimer);
      this.#reconnectTimer = undefined;
      this.#open();
    }
  }

  // ---------------------------------------------------------------- socket lifecycle

  #open(): void {
    this.#setStatus(this.#everReady ? 'reconnecting' : 'connecting');
    this.#lastSocketError = undefined;
    this.#debug(`connecting to ${this.url}${this.#sessionId ? ` (will resume ${this.#sessionId} at ${this.#seq})` : ''}`);
    const ws: SocketAdapter = new SocketAdapter(this.#createSocket(this.url, { handshakeTimeoutMs: this.#helloTimeoutMs }), {
      message: (text, binary) => {
        if (ws === this.#ws) this.#onMessage(ws, text, binary);
      },
      error: (error) => {
        if (ws !== this.#ws) return;
        this.#lastSocketError = error;
        this.#debug(`socket error: ${error.message}`);
      },
      close: (code, reason) => {
        if (ws === this.#ws) this.#onClose(code, reason);
      },
    });
    this.#ws = ws;
    this.#helloTimer = setTimeout(() => {
      if (ws !== this.#ws) return;
      this.#debug(`no hello within ${this.#helloTimeoutMs} ms; dropping the socket`);
      ws.terminate();
    }, this.#helloTimeoutMs);
  }

  #onClose(code: number, reason: string): void {
    this.#stopTimers();
    this.#ws = undefined;
    const fatal = FATAL_CLOSE_CODES.has(code);
    const canReconnect =
      !this.#closedByUser &&
      !fatal &&
      this.#reconnect !== false &&
      (this.#everReady || this.#reconnect.retryFirstConnection) &&
      this.#attempts < this.#reconnect.maxAttempts;
    this.#debug(`socket closed: ${code}${reason ? ` ${reason}` : ''}`);
    this.emit('close', { code, reason, reconnecting: canReconnect });

    if (this.#closedByUser) {
      this.#setStatus('closed');
      return;
    }
    if (fatal) {
      this.#setStatus('closed');
      this.#sessionId = undefined;
      const error = new GatewayError(`gateway refused the token (close ${code}${reason ? `: ${reason}` : ''})`, code);
      if (!this.#settleConnect(error)) this.#reportError(error);
      return;
    }
    if (code === GatewayCloseCodes.MalformedFrame) {
      this.#reportError(new GatewayError(`gateway rejected a frame as malformed (close ${code})`, code));
    }
    if (!canReconnect) {
      this.#setStatus('closed');
      const cause = this.#lastSocketError ? `: ${this.#lastSocketError.message}` : reason ? `: ${reason}` : '';
      const error = new GatewayError(
        this.#everReady
          ? `gateway connection lost and not reconnecting (close ${code}${cause})`
          : `gateway connection failed (close ${code}${cause})`,
        code,
      );
      if (!this.#settleConnect(error)) this.#reportError(error);
      return;
    }
    this.#setStatus('reconnecting');
    const delay = this.#backoffDelay();
    this.#attempts++;
    this.#debug(`reconnecting in ${delay} ms (attempt ${this.#attempts})`);
    this.#reconnectTimer = setTimeout(() => {
      this.#reconnectTimer = undefined;
      if (!this.#closedByUser) this.#open();
    }, delay);
  }

  #backoffDelay(): number {
    if (this.#reconnect === false) return 0;
    const base = Math.min(this.#reconnect.maxDelayMs, this.#reconnect.initialDelayMs * 2 ** this.#attempts);
    // Half fixed, half random: spreads a crowd of bots reconnecting after a restart.
    return Math.round(base / 2 + (Math.random() * base) / 2);
  }

  #stopTimers(): void {
    clearInterval(this.#heartbeatTimer);
    clearTimeout(this.#heartbeatTimer);
    clearTimeout(this.#helloTimer);
    this.#heartbeatTimer = undefined;
    this.#helloTimer = undefined;
  }

  // ---------------------------------------------------------------- protocol

  #onMessage(ws: SocketAdapter, text: string | undefined, isBinary: boolean): void {
    let frame: GatewayFrame;
    try {
      if (text === undefined) throw new Error('not text');
      frame = JSON.parse(text) as GatewayFrame;
      if (typeof frame !== 'object' || frame === null || typeof frame.op !== 'string') throw new Error('no op');
    } catch {
      this.#debug(`ignoring an unparsable ${isBinary ? 'binary' : 'text'} frame`);
      return;
    }

    switch (frame.op) {
      case 'hello':
        this.#onHello(ws, frame.d as HelloData | undefined);
        break;
      case 'ready':
        this.#onReady(frame.d as ReadyData);
        break;
      case 'resumed':
        this.#attempts = 0;
        this.#sendFocus();
        this.#setStatus('ready');
        this.#debug(`resumed session ${this.#sessionId} at ${this.#seq}`);
        this.emit('resumed');
        break;
      case 'heartbeat_ack':
        this.#awaitingAck = false;
        this.#ping = Date.now() - this.#lastHeartbeatAt;
        break;
      case 'heartbeat':
        // The server may ask for a heartbeat right away.
        this.#sendHeartbeat(ws);
        break;
      case 'event':
        this.#onEvent(frame);
        break;
      case 'invalid_session':
        this.#debug('session cannot be resumed; identifying afresh');
        this.#sessionId = undefined;
        this.#identify(ws);
        break;
      default:
        this.#debug(`ignoring unknown op '${frame.op}'`);
    }
  }

  #onHello(ws: SocketAdapter, hello: HelloData | undefined): void {
    clearTimeout(this.#helloTimer);
    const interval = hello?.heartbeatInterval;
    this.#heartbeatIntervalMs = typeof interval === 'number' && interval > 0 ? interval : 30_000;
    this.#startHeartbeat(ws);
    if (this.#sessionId) {
      this.#debug(`resuming session ${this.#sessionId} after ${this.#seq}`);
      this.#send(ws, { op: 'resume', d: { token: this.#token, sessionId: this.#sessionId, s: this.#seq } });
    } else {
      this.#identify(ws);
    }
  }

  #identify(ws: SocketAdapter): void {
    this.#seq = 0; // a new session numbers its events from 1
    this.#send(ws, { op: 'identify', d: { token: this.#token, ...(this.#presence ? { status: this.#presence } : {}) } });
  }

  #presence: ChosenStatus | undefined;

  /**
   * Sets the status others see (`invisible` shows offline): sent now if connected, and
   * with every later identify. A resumed session keeps its status on the server.
   */
  setStatus(status: ChosenStatus): void {
    this.#presence = status;
    if (this.#ws && this.#sessionId) this.#send(this.#ws, { op: 'presence_update', d: { status } });
  }

  #focus: string | null = null;

  /**
   * Says which channel the user is looking at (null: none). A person's connection hears
   * typing in a server's channel only while it looks at it (bots hear every channel they
   * may see). Sent now if connected, and again after every identify and resume, since the
   * server keeps it per connection.
   */
  focus(channelId: string | null): void {
    this.#focus = channelId;
    if (this.#ws && this.#sessionId) this.#send(this.#ws, { op: 'focus', d: { channelId } });
  }

  #sendFocus(): void {
    if (this.#focus !== null && this.#ws) this.#send(this.#ws, { op: 'focus', d: { channelId: this.#focus } });
  }

  #onReady(ready: ReadyData): void {
    this.#sessionId = ready.sessionId;
    this.#attempts = 0;
    this.#sendFocus();
    this.#everReady = true;
    this.#setStatus('ready');
    this.#lastReady = ready;
    this.#debug(`ready: session ${ready.sessionId} as ${ready.user?.name ?? '?'}`);
    this.emit('ready', ready);
    this.#settleConnect(undefined, ready);
  }

  #onEvent(frame: GatewayFrame): void {
    const s = frame.s;
    if (typeof s === 'number') {
      // Replays after a resume can overlap what already arrived: deliver each event once.
      if (s <= this.#seq) {
        this.#debug(`skipping duplicate event ${s}`);
        return;
      }
      if (this.#seq > 0 && s !== this.#seq + 1) this.#debug(`sequence gap: ${this.#seq} → ${s}`);
      this.#seq = s;
    }
    if (typeof frame.t !== 'string') {
      this.#debug('ignoring an event frame without t');
      return;
    }
    this.emit('dispatch', { t: frame.t, s: s ?? this.#seq, d: frame.d });
  }

  #startHeartbeat(ws: SocketAdapter): void {
    clearInterval(this.#heartbeatTimer);
    clearTimeout(this.#heartbeatTimer);
    this.#awaitingAck = false;
    const interval = this.#heartbeatIntervalMs;
    const beat = () => {
      if (ws !== this.#ws) return;
      if (this.#awaitingAck) {
        // No ack since the last beat: the connection is a zombie. Drop it and resume.
        this.#debug('heartbeat not acknowledged; dropping the connection to resume');
        ws.terminate();
        return;
      }
      this.#sendHeartbeat(ws);
    };
    // First beat after a random share of the interval, so many clients do not beat in step.
    this.#heartbeatTimer = setTimeout(
      () => {
        beat();
        if (ws === this.#ws) this.#heartbeatTimer = setInterval(beat, interval);
      },
      Math.floor(interval * Math.random()),
    );
  }

  #sendHeartbeat(ws: SocketAdapter): void {
    this.#awaitingAck = true;
    this.#lastHeartbeatAt = Date.now();
    this.#send(ws, { op: 'heartbeat', d: { s: this.#seq } });
  }

  #send(ws: SocketAdapter, frame: GatewayFrame): void {
    if (ws.readyState !== OPEN) return;
    ws.send(JSON.stringify(frame), (error) => this.#debug(`send failed: ${error.message}`));
  }

  // ---------------------------------------------------------------- helpers

  #setStatus(status: GatewayStatus): void {
    if (status === this.#status) return;
    this.#status = status;
    this.emit('status', status);
  }

  /** Resolves or rejects a pending `connect()`; returns whether there was one. */
  #settleConnect(error: Error | undefined, ready?: ReadyData): boolean {
    const pending = this.#pendingConnect;
    this.#pendingConnect = undefined;
    this.#connecting = undefined;
    if (!pending) return false;
    if (error) pending.reject(error);
    else if (ready) pending.resolve(ready);
    return true;
  }

  #reportError(error: unknown): void {
    const err = error instanceof Error ? error : new Error(String(error));
    if (this.listenerCount('error') > 0) this.emit('error', err);
    else console.error('[parley gateway]', err);
  }

  #debug(message: string): void {
    if (this.listenerCount('debug') > 0) this.emit('debug', message);
  }
}

// ---------------------------------------------------------------- the socket

type Timer = ReturnType<typeof setTimeout>;

// WebSocket ready states (the same numbers everywhere).
const CONNECTING = 0;
const OPEN = 1;
const CLOSED = 3;

/** Opens a socket; `handshakeTimeoutMs` is for implementations that take it (`ws`). */
export type SocketFactory = (url: string, options: { handshakeTimeoutMs: number }) => WebSocketLike;

let platformSocketFactory: SocketFactory | undefined;

/**
 * @internal Sets how clients without a `WebSocket` option open sockets. The package's Node
 * entry (`node.ts`) installs the `ws` package here; no other module imports `ws`.
 */
export function setPlatformWebSocket(factory: SocketFactory): void {
  platformSocketFactory = factory;
}

function socketFactory(WebSocketClass: WebSocketConstructor | undefined): SocketFactory {
  if (WebSocketClass) return (url) => new WebSocketClass(url);
  if (platformSocketFactory) return platformSocketFactory;
  const global = (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
  if (global) return (url) => new global(url);
  throw new TypeError('no WebSocket implementation here: pass the GatewayClient option `WebSocket` (e.g. the `ws` package)');
}

/**
 * One socket behind the few calls the client makes, whatever made it. The differences it
 * hides: only `ws` can `terminate()` (drop the connection without a closing handshake);
 * elsewhere that is `close()` plus a close reported at once, since a dead connection's
 * closing handshake can take minutes. Binary frames arrive as `ArrayBuffer`s everywhere
 * (a browser's default is a `Blob`) and are decoded as UTF-8 like text frames. Only `ws`
 * reports send failures; browsers ignore the callback.
 */
class SocketAdapter {
  readonly raw: WebSocketLike;
  readonly #onClose: (code: number, reason: string) => void;
  readonly #afterClose: Array<() => void> = [];
  #closed = false;

  constructor(
    raw: WebSocketLike,
    on: {
      /** A frame's text, or undefined when it could not be decoded. */
      message(text: string | undefined, isBinary: boolean): void;
      error(error: Error): void;
      close(code: number, reason: string): void;
    },
  ) {
    this.raw = raw;
    this.#onClose = on.close;
    raw.binaryType = 'arraybuffer';
    raw.addEventListener('message', ({ data }) => {
      if (typeof data === 'string') on.message(data, false);
      else on.message(decodeUtf8(data), true);
    });
    raw.addEventListener('error', (event) => on.error(socketError(event)));
    raw.addEventListener('close', ({ code, reason }) => this.#closedWith(code, reason));
  }

  get readyState(): number {
    return this.raw.readyState;
  }

  send(text: string, onError: (error: Error) => void): void {
    // `ws` calls back once the frame is written (with an error if it could not be); the
    // WebSocket standard's send() takes no callback and ignores the extra argument.
    (this.raw.send as (data: string, callback: (error?: Error | null) => void) => void)(text, (error) => {
      if (error) onError(error);
    });
  }

  close(code: number, reason: string): void {
    this.raw.close(code, reason);
  }

  /** Drops the connection now; the close is reported as 1006, like `ws` does. */
  terminate(): void {
    const raw = this.raw as WebSocketLike & { terminate?: () => void };
    if (typeof raw.terminate === 'function') {
      raw.terminate();
      return;
    }
    try {
      raw.close();
    } catch {
      // already closing
    }
    this.#closedWith(1006, '');
  }

  /** Runs `fn` once the close has been reported (after the client's own close handling). */
  afterClose(fn: () => void): void {
    if (this.#closed) fn();
    else this.#afterClose.push(fn);
  }

  #closedWith(code: number, reason: string): void {
    if (this.#closed) return; // a terminated browser socket's late close event
    this.#closed = true;
    this.#onClose(code, reason);
    for (const fn of this.#afterClose.splice(0)) fn();
  }
}

function decodeUtf8(data: unknown): string | undefined {
  if (data instanceof ArrayBuffer) return new TextDecoder().decode(data);
  if (ArrayBuffer.isView(data)) return new TextDecoder().decode(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
  return undefined;
}

/** `ws` reports the error itself; a browser's error event says nothing (its close follows). */
function socketError(event: unknown): Error {
  const { error, message } = (event ?? {}) as { error?: unknown; message?: unknown };
  if (error instanceof Error) return error;
  return new Error(typeof message === 'string' && message ? message : 'WebSocket error');
}
