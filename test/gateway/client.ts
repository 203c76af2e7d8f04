import { expect } from 'vitest';
/**
 * The one gateway test client, over `ws`: records every frame, heartbeats on its own
 * (unless told not to), and lets a test wait for frames, events or the close. Every wait
 * is on the socket's own events (a frame arriving, the close), never a polling loop.
 * It knows the protocol only as far as a test needs; the gateway, API, fuzz and cluster
 * suites all use it.
 */
import zlib from 'node:zlib';
import { WebSocket } from 'ws';

/** One server frame as received. */
export interface Frame {
  op: string | number;
  d?: any;
  t?: string;
  s?: number;
}

export interface ConnectOptions {
  /** Send heartbeats every half interval after `hello` (default true). */
  heartbeat?: boolean;
  /** Milliseconds to wait for the socket to open, and for `ready`/`resumed` (default 5000). */
  timeoutMs?: number;
  /**
   * Discord's gateway (`/api/gateway/ws`): numeric ops, `hello` is op 10, events op 0,
   * heartbeats `{op: 1, d: s}`. With `zlib`, binary frames are inflated through one
   * context for the connection (`compress=zlib-stream`).
   */
  discord?: { zlib?: boolean };
}

export interface Closed {
  code: number;
  reason: string;
}

type Waiter = { pred: (f: Frame) => boolean; resolve: (f: Frame) => void };

/** A recorded WebSocket connection to `/gateway`. */
export class TestGatewayClient {
  /** Every frame received, in order. */
  readonly frames: Frame[] = [];
  /** The `s` of the last event received (what a heartbeat or resume reports). */
  lastSeq = 0;
  /** Set once the socket has closed. */
  closeInfo: Closed | null = null;
  /** Resolves with the close code and reason. */
  readonly closed: Promise<Closed>;
  private waiters: Waiter[] = [];
  private timer: NodeJS.Timeout | undefined;

  /** Binary frames received (compressed ones, with `discord.zlib`). */
  binaryFrames = 0;
  /** One inflate context for the connection, fed synchronously (zlib's *Sync functions keep none). */
  private readonly inflate: zlib.Inflate | null;

  private constructor(
    readonly ws: WebSocket,
    private readonly autoHeartbeat: boolean,
    readonly discord: ConnectOptions['discord'] = undefined,
  ) {
    this.inflate = discord?.zlib ? zlib.createInflate() : null;
    this.closed = new Promise((resolve) => {
      ws.on('close', (code, reason) => {
        clearInterval(this.timer);
        this.closeInfo = { code, reason: reason.toString() };
        resolve(this.closeInfo);
      });
    });
    ws.on('error', () => {});
    let pending: Buffer[] = [];
    this.inflate?.on('data', (c: Buffer) => pending.push(c));
    // Inflated payloads arrive in order: each ends at a sync flush.
    let chain = Promise.resolve();
    ws.on('message', (data: Buffer, isBinary) => {
      if (!isBinary || !this.inflate) return this.receive(JSON.parse(data.toString()) as Frame);
      this.binaryFrames++;
      const inflate = this.inflate;
      chain = chain.then(
        () =>
          new Promise<void>((resolve) => {
            inflate.write(data);
            inflate.flush(zlib.constants.Z_SYNC_FLUSH, () => {
              const text = Buffer.concat(pending).toString();
              pending = [];
              this.receive(JSON.parse(text) as Frame);
              resolve();
            });
          }),
      );
    });
  }

  /** Opens a connection and waits for `hello`. */
  static async connect(url: string, opts: ConnectOptions = {}): Promise<TestGatewayClient> {
    const ws = new WebSocket(url);
    const c = new TestGatewayClient(ws, opts.heartbeat ?? true, opts.discord);
    await new Promise<void>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`gateway did not open within ${opts.timeoutMs ?? 5000} ms`)), opts.timeoutMs ?? 5000);
      ws.once('open', () => (clearTimeout(t), resolve()));
      ws.once('error', (err) => (clearTimeout(t), reject(err)));
    });
    await c.waitFor((f) => f.op === (opts.discord ? 10 : 'hello'), opts.timeoutMs);
    return c;
  }

  /** Connects and identifies with `token` ("Bot x" or "Bearer y"); resolves once `ready` arrived. */
  static async identify(url: string, token: string, opts: ConnectOptions = {}): Promise<TestGatewayClient> {
    const c = await TestGatewayClient.connect(url, opts);
    c.send({ op: 'identify', d: { token } });
    await c.waitFor((f) => f.op === 'ready' || f.op === 'invalid_session', opts.timeoutMs);
    if (!c.ready) throw new Error(`identify failed: ${JSON.stringify(c.frames.at(-1))}`);
    return c;
  }

  /** Connects and resumes; resolves with the client whatever the answer (`resumed` or `invalid_session`). */
  static async resume(url: string, token: string, sessionId: string, s: number, opts: ConnectOptions = {}): Promise<TestGatewayClient> {
    const c = await TestGatewayClient.connect(url, opts);
    c.lastSeq = s;
    c.send({ op: 'resume', d: { token, sessionId, s } });
    await c.waitFor((f) => f.op === 'resumed' || f.op === 'invalid_session', opts.timeoutMs);
    return c;
  }

  /** The `ready` payload, once received. */
  get ready(): { sessionId: string; user: any; servers: any[] } | undefined {
    return this.frames.find((f) => f.op === 'ready')?.d;
  }

  get sessionId(): string {
    const id = this.ready?.sessionId;
    if (!id) throw new Error('not identified');
    return id;
  }

  /** Event frames received so far, optionally of one type. */
  events(t?: string): Frame[] {
    const op = this.discord ? 0 : 'event';
    return this.frames.filter((f) => f.op === op && (t === undefined || f.t === t));
  }

  /** Sends a frame (an object is JSON-encoded; a string goes as it is). */
  send(f: object | string): void {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(typeof f === 'string' ? f : JSON.stringify(f));
  }

  /**
   * Says which channel the client looks at (native only): a person's connection hears
   * typing only there. Resolves once the gateway has it: it handles a connection's frames
   * in order, so once it answers a heartbeat sent after the focus.
   */
  async focus(channelId: string | null): Promise<void> {
    const from = this.frames.length;
    this.send({ op: 'focus', d: { channelId } });
    this.heartbeat();
    await this.waitFor((f) => f.op === 'heartbeat_ack', 5000, from);
  }

  /** Sends one heartbeat with the last sequence number seen. */
  heartbeat(): void {
    if (this.discord) this.send({ op: 1, d: this.lastSeq || null });
    else this.send({ op: 'heartbeat', d: { s: this.lastSeq } });
  }

  /**
   * The first frame (already received or still to come) matching `pred`, from index
   * `from` of `frames` on; rejects after `timeoutMs` with the frames seen so far.
   */
  waitFor(pred: (f: Frame) => boolean, timeoutMs = 5000, from = 0): Promise<Frame> {
    const hit = this.frames.slice(from).find(pred);
    if (hit) return Promise.resolve(hit);
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        pred,
        resolve: (f) => {
          clearTimeout(t);
          resolve(f);
        },
      };
      const t = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        const seen = this.frames.map((f) => f.t ?? f.op).join(', ');
        reject(
          new Error(
            `no matching frame within ${timeoutMs} ms; received: [${seen}]${this.closeInfo ? `; closed ${this.closeInfo.code}` : ''}`,
          ),
        );
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  /** The first event of type `t` (and matching `pred`). */
  waitForEvent(t: string, pred: (d: any) => boolean = () => true, timeoutMs = 5000): Promise<Frame> {
    const op = this.discord ? 0 : 'event';
    return this.waitFor((f) => f.op === op && f.t === t && pred(f.d), timeoutMs);
  }

  /** Waits until `n` events matching `pred` have arrived; returns them in order. */
  async collect(n: number, pred: (f: Frame) => boolean = () => true, timeoutMs = 5000): Promise<Frame[]> {
    const matching = () => this.events().filter(pred);
    if (matching().length < n) {
      await this.waitFor(() => matching().length >= n, timeoutMs);
    }
    return matching().slice(0, n);
  }

  /** Resolves with the close, or rejects if the socket is still open after `timeoutMs`. */
  waitForClose(timeoutMs = 5000): Promise<Closed> {
    return Promise.race([
      this.closed,
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`still open after ${timeoutMs} ms`)), timeoutMs).unref()),
    ]);
  }

  /** Drops the TCP connection without a close handshake (a network failure). */
  terminate(): Promise<Closed> {
    clearInterval(this.timer);
    this.ws.terminate();
    return this.closed;
  }

  /** Closes cleanly. */
  close(): Promise<Closed> {
    clearInterval(this.timer);
    if (this.ws.readyState === WebSocket.OPEN || this.ws.readyState === WebSocket.CONNECTING) this.ws.close(1000);
    return this.closed;
  }

  private receive(f: Frame): void {
    this.frames.push(f);
    if (typeof f.s === 'number') this.lastSeq = f.s;
    if ((this.discord ? f.op === 10 : f.op === 'hello') && this.autoHeartbeat) {
      this.timer = setInterval(() => this.heartbeat(), Math.max(10, (f.d.heartbeatInterval ?? f.d.heartbeat_interval) / 2));
      this.timer.unref();
    }
    // Re-check every waiter: some predicates look at the whole history, not just `f`.
    for (const w of [...this.waiters]) {
      if (w.pred(f)) {
        this.waiters = this.waiters.filter((x) => x !== w);
        w.resolve(f);
      }
    }
  }
}

/** Keeps track of clients so a suite can close them all after each test. */
export class ClientPool {
  private readonly clients = new Set<TestGatewayClient>();

  /** Registers `c` for `closeAll` and returns it. */
  track<T extends TestGatewayClient>(c: T): T {
    this.clients.add(c);
    return c;
  }

  async identify(url: string, token: string, opts?: ConnectOptions): Promise<TestGatewayClient> {
    return this.track(await TestGatewayClient.identify(url, token, opts));
  }

  async connect(url: string, opts?: ConnectOptions): Promise<TestGatewayClient> {
    return this.track(await TestGatewayClient.connect(url, opts));
  }

  async resume(url: string, token: string, sessionId: string, s: number, opts?: ConnectOptions): Promise<TestGatewayClient> {
    return this.track(await TestGatewayClient.resume(url, token, sessionId, s, opts));
  }

  async closeAll(): Promise<void> {
    const all = [...this.clients];
    this.clients.clear();
    await Promise.all(all.map((c) => (c.closeInfo ? undefined : c.terminate())));
  }
}

/**
 * Resolves once `check` holds, checked on every turn of the event loop: for server-side
 * state a test cannot be sent an event about. Rejects after `timeoutMs`.
 */
export async function until(check: () => boolean, what = 'condition', timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`waited ${timeoutMs} ms for ${what}`);
    await new Promise((r) => setImmediate(r));
  }
}

/** Resolves after `ms`. */
export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Sequence numbers of a session's events are 1, 2, 3, ... with no gap; typing (live only) carries none. */
export function expectConsecutive(c: TestGatewayClient): void {
  const s = c
    .events()
    .filter((f) => f.t !== 'TYPING_START')
    .map((f) => f.s);
  expect(s).toEqual(s.map((_, i) => i + 1));
  for (const f of c.events('TYPING_START')) expect(f.s).toBeNull();
}
