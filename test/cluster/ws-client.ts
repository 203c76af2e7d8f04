import { WebSocket } from 'ws';

export interface Frame {
  op: string;
  d?: any;
  t?: string;
  s?: number;
}

/** A bare gateway client that records every frame and heartbeats with the last `s`. */
export class GatewayClient {
  readonly frames: Frame[] = [];
  readonly ws: WebSocket;
  lastSeq = 0;
  closeCode: number | null = null;
  private timer: NodeJS.Timeout | undefined;
  readonly opened: Promise<void>;
  readonly closed: Promise<number>;

  constructor(url: string) {
    this.ws = new WebSocket(url);
    this.opened = new Promise((resolve, reject) => {
      this.ws.once('open', () => resolve());
      this.ws.once('error', reject);
    });
    this.closed = new Promise((resolve) =>
      this.ws.on('close', (code) => {
        this.closeCode = code;
        clearInterval(this.timer);
        resolve(code);
      }),
    );
    this.ws.on('error', () => {});
    this.ws.on('message', (data) => {
      const f = JSON.parse(data.toString()) as Frame;
      this.frames.push(f);
      if (typeof f.s === 'number') this.lastSeq = f.s;
      if (f.op === 'hello') {
        this.timer = setInterval(() => this.send({ op: 'heartbeat', d: { s: this.lastSeq } }), f.d.heartbeatInterval / 2);
      }
    });
  }

  send(f: Frame): void {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(f));
  }

  events(t?: string): Frame[] {
    return this.frames.filter((f) => f.op === 'event' && (!t || f.t === t));
  }

  async waitFor(pred: (f: Frame) => boolean, timeoutMs = 5000): Promise<Frame> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const hit = this.frames.find(pred);
      if (hit) return hit;
      if (Date.now() > deadline) throw new Error(`timed out; frames: ${JSON.stringify(this.frames.map((f) => f.t ?? f.op))}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** Connects and identifies; resolves with the `ready` payload. */
  static async identify(url: string, token: string): Promise<GatewayClient> {
    const c = new GatewayClient(url);
    await c.opened;
    await c.waitFor((f) => f.op === 'hello');
    c.send({ op: 'identify', d: { token } });
    await c.waitFor((f) => f.op === 'ready');
    return c;
  }

  close(): void {
    clearInterval(this.timer);
    this.ws.terminate();
  }
}
