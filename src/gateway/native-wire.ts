import { publicUser } from '../domain/accounts.js';
import type { RawData, WebSocket } from 'ws';
import { frame, parseClientFrame } from './frames.js';
import { Outlet } from './outbox.js';
import type { ReadyState } from '../domain/ready.js';
import type { Caller } from '../domain/types.js';
import type { Incoming, LiveBatch, Prepared, SeqFrame, Wire } from './wire-interface.js';
import { CLOSE_CODES as CLOSE } from '@parley/protocol';

/** Parley's own gateway protocol (docs/gateway.md): JSON text frames `{op, d, t, s}`. */
export class NativeWire implements Wire {
  readonly kind = 'native';
  /** Where events are written, coalesced per turn (null: through `ws.send`). */
  private readonly out: Outlet | null;

  constructor(readonly ws: WebSocket) {
    this.out = Outlet.of(ws);
  }

  hello(heartbeatMs: number): void {
    this.send(frame('hello', { heartbeatInterval: heartbeatMs }));
  }

  parse(data: RawData, isBinary: boolean): Incoming {
    const f = isBinary ? null : parseClientFrame(data.toString());
    if (!f) return { op: 'refuse', code: CLOSE.MALFORMED, reason: 'malformed frame' };
    switch (f.op) {
      case 'heartbeat':
        return { op: 'heartbeat', s: f.d?.s ?? null };
      case 'presence_update':
        return { op: 'presence_update', status: f.d.status };
      case 'identify':
        return { op: 'identify', token: f.d.token, ...(f.d.status ? { status: f.d.status } : {}) };
      case 'resume':
        return { op: 'resume', token: f.d.token, sessionId: f.d.sessionId, s: f.d.s };
      case 'focus':
        return { op: 'focus', channelId: f.d.channelId };
    }
  }

  heartbeatAck(): void {
    this.send(frame('heartbeat_ack'));
  }

  invalidSession(resumable: boolean): void {
    this.send(frame('invalid_session', { resumable: resumable as false }));
  }

  resumed(sessionId: string, s: number): void {
    this.send(frame('resumed', { sessionId, s }));
  }

  /** The native snapshot has no members: clients read them with `GET /servers/{id}/members`. */
  readyWants(): Record<string, never> {
    return {};
  }

  ready(sessionId: string, caller: Caller, r: ReadyState): string[] {
    return [
      frame('ready', {
        sessionId,
        user: publicUser({ ...caller, bot: caller.bot ? 1 : 0 }),
        servers: r.servers.map((s) => ({
          ...s.server,
          channels: s.channels,
          threads: s.threads,
          roles: s.roles,
          memberRoles: [...s.memberRoles],
          permissions: s.permissions,
        })),
        readStates: r.readStates,
        privateChannels: r.privateChannels,
      }),
    ];
  }

  encode(p: Prepared): SeqFrame {
    return p.native;
  }

  send(data: string | Buffer): void {
    // Joins what this turn already queued for the connection (in order), and leaves with it.
    this.out?.hold();
    this.ws.send(data, { binary: false });
  }

  sendEvent(f: SeqFrame, s: number | null, urgent: boolean): void {
    if (!this.out) {
      this.ws.send(f.withSeq(s), { binary: false });
      return;
    }
    const [shared, tail] = f.wsFrame(s);
    this.out.write(shared, tail, urgent);
  }

  sendLive(batch: LiveBatch): number {
    if (!this.out) {
      for (const p of batch.prepared) this.ws.send(p.native.withSeq(null), { binary: false });
    } else {
      this.out.writeFrames(batch.nativeFrames, batch.prepared.length, false);
    }
    return batch.prepared.length;
  }

  flush(): void {
    this.out?.flush();
  }

  close(code: number, reason: string): void {
    this.out?.urge();
    this.ws.close(code, reason);
  }

  fromClientSeq(s: number): number {
    return s;
  }

  state(): undefined {
    return undefined;
  }

  restore(kind: string | undefined): boolean {
    return kind === undefined || kind === 'native';
  }
}
