import { publicUser } from '../domain/accounts.js';
import type { RawData, WebSocket } from 'ws';
import { frame, parseClientFrame } from './frames.js';
import type { Incoming, Prepared, ReadyInfo, SeqFrame, Wire } from './wire.js';
import { CLOSE_CODES as CLOSE } from '@parley/protocol';

/** Parley's own gateway protocol (docs/gateway.md): JSON text frames `{op, d, t, s}`. */
export class NativeWire implements Wire {
  readonly kind = 'native';

  constructor(readonly ws: WebSocket) {}

  hello(heartbeatMs: number): void {
    this.ws.send(frame('hello', { heartbeatInterval: heartbeatMs }));
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
    }
  }

  heartbeatAck(): void {
    this.ws.send(frame('heartbeat_ack'));
  }

  invalidSession(resumable: boolean): void {
    this.ws.send(frame('invalid_session', { resumable: resumable as false }));
  }

  resumed(sessionId: string, s: number): void {
    this.ws.send(frame('resumed', { sessionId, s }));
  }

  async ready(r: ReadyInfo): Promise<string[]> {
    return [
      frame('ready', {
        sessionId: r.sessionId,
        user: { ...publicUser({ ...r.caller, bot: r.caller.bot ? 1 : 0 }) },
        servers: r.servers.map((s) => ({
          id: s.server.id,
          name: s.server.name,
          ownerId: s.server.ownerId,
          createdAt: s.server.createdAt,
          icon: s.server.icon ?? null,
          description: s.server.description ?? null,
          channels: s.channels,
          roles: s.roles,
          memberRoles: s.memberRoles ? s.memberRoles.split(',') : [],
          permissions: s.permissions,
        })),
        readStates: r.readStates,
        privateChannels: r.privateChannels,
      } as Parameters<typeof frame<'ready'>>[1]),
    ];
  }

  encode(p: Prepared): SeqFrame {
    return p.native;
  }

  send(data: string | Buffer): void {
    this.ws.send(data, { binary: false });
  }

  close(code: number, reason: string): void {
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
