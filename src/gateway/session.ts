import type { WebSocket } from 'ws';
import type { Caller } from '../domain/types.js';
import type { LogPosition } from '../events/bus.js';
import type { BusEntry } from '../events/types.js';
import type { View } from './view.js';
import type { Wire } from './wire-interface.js';

/** A point where the session's numbering, membership and permissions are known; resume starts from one. */
export interface Mark {
  s: number;
  pos: LogPosition;
  servers: Array<[string, View]>;
}

/** A connection: pending until it identifies (or after its session was invalidated). */
export interface Connection {
  ws: WebSocket;
  /** The connection's protocol: how its frames look (native, or Discord's). */
  wire: Wire;
  opened: number;
  address: string;
  session: Session | null;
  /** An identify or resume is in progress. */
  busy: boolean;
  /** The channel the client says it looks at (`focus`): where a person's connection hears typing. */
  focus: string | null;
}

/**
 * One client's view of the event log: the servers it belongs to with its view of each (the
 * server's permission model and its own roles, `view.ts`), the sequence number of the last
 * event it was sent, and the log position that event came from. Views change only through
 * log entries (those that carry a model, channel events, its own MEMBER_ADD/MEMBER_UPDATE).
 * A resume rebuilds them as they stood at its checkpoint (the models the checkpoint
 * carries) and replays the missed entries through them, permission changes included; only
 * when it must read them from the store is it refused if the missed entries changed them in
 * a way the store cannot show as it was (`replayable`).
 */
export class Session {
  s = 0;
  servers: Map<string, View>;
  /** Entries that arrived while the session was catching up; applied after. */
  backlog: Array<[LogPosition, BusEntry]> | null = [];
  marks: Mark[] = [];
  /** The last sequence number the client acknowledged in a heartbeat. */
  acked = 0;
  /** The mark last written as this session's checkpoint. */
  saved: Mark | undefined;
  /** True while a resume replays the log: the replay is sent whole, whatever it buffers. */
  replaying = false;
  /** Bytes a resume's replay left queued; tolerated above the bound until the client drains below it. */
  slack = 0;
  closed = false;
  lastHeartbeat = Date.now();

  constructor(
    readonly id: string,
    readonly caller: Caller,
    public pos: LogPosition,
    servers: Iterable<[string, View]>,
    readonly ws: WebSocket,
    /** The connection's state in `Gateway.open`, so the gateway can send it back to identify. */
    readonly conn: Connection,
  ) {
    this.servers = new Map(servers);
    this.mark();
  }

  mark(): void {
    this.marks.push({ s: this.s, pos: this.pos, servers: [...this.servers] });
    if (this.marks.length > 8) this.marks.shift();
  }

  /**
   * The latest mark at or before `acked`: a resume point for a client that has seen at
   * least `acked` events. A later mark would not do: the client may have lost the
   * events in flight between `acked` and it.
   */
  markFor(acked: number): Mark | undefined {
    if (acked === this.s) return { s: this.s, pos: this.pos, servers: [...this.servers] };
    for (let i = this.marks.length - 1; i >= 0; i--) if (this.marks[i]!.s <= acked) return this.marks[i];
    return undefined;
  }
}
