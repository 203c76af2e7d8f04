import type { ChosenStatus, Member } from '@parley/protocol';
import type { RawData, WebSocket } from 'ws';
import type { ServerModel } from '../domain/permissions.js';
import type { ReadyOptions, ReadyState } from '../domain/ready.js';
import type { Caller } from '../domain/types.js';
import type { AuthorMember, GatewayEvent, JoinSnapshot } from '../events/types.js';
import { EventFrame } from './frames.js';

/**
 * A gateway connection's protocol: how frames look on the wire (Parley's native frames,
 * or Discord's gateway v10). The gateway (`gateway.ts`) owns everything else, shared by
 * every protocol: sessions, the event log and its fan-out, the permission filter, the
 * sequence numbering, heartbeat deadlines, limits, checkpoints and resume. A wire only
 * parses what the client sends into `Incoming`, and writes what the gateway decided to send.
 */
export interface Wire {
  readonly ws: WebSocket;
  /** Names the protocol in checkpoints: a session resumes only over the protocol it began on. */
  readonly kind: 'native' | 'discord';
  hello(heartbeatMs: number): void;
  /** A client frame in the gateway's terms. */
  parse(data: RawData, isBinary: boolean): Incoming;
  heartbeatAck(): void;
  invalidSession(resumable: boolean): void;
  resumed(sessionId: string, s: number): void;
  /** What this protocol's ready snapshot needs beyond the common part (Discord's: members, bounded). */
  readyWants(): Omit<ReadyOptions, 'model'>;
  /** The frames that open a new session: the snapshot (`domain/ready.ts`) in this protocol's terms, written before the session goes live. */
  ready(sessionId: string, caller: Caller, state: ReadyState): Array<string | Buffer>;
  /**
   * This event as this connection receives it, or null when the protocol does not carry it
   * (or the connection's options, such as Discord's intents, leave it out). Deterministic for
   * a given session and event, so a resume numbers events exactly as the live session did;
   * an event left out takes no sequence number.
   */
  encode(p: Prepared, view: SessionView): SeqFrame | null;
  /** Writes one frame (a ready frame, a replayed event). */
  send(data: string | Buffer): void;
  /**
   * Writes event `f` with sequence number `s`. Frames to one connection in one turn of the
   * event loop leave in one write (`outbox.ts`); `urgent` false lets a typing or presence
   * frame wait for the lazy flush (or the connection's next urgent frame).
   */
  sendEvent(f: SeqFrame, s: number | null, urgent: boolean): void;
  /**
   * Writes the live-only events of `batch` (typing: not numbered, not replayed) that this
   * connection receives (`encode`), for the lazy flush, when the session has delivered `s`
   * events; returns how many it wrote. Their sequence number is null where the protocol
   * allows it (native), else the last number again (Discord's clients keep the highest
   * they saw).
   */
  sendLive(batch: LiveBatch, view: SessionView, s: number): number;
  /** Hands what `sendEvent` queued for this connection to the kernel now (before measuring `bufferedAmount`). */
  flush(): void;
  /** Closes with the native close code `code` (`CLOSE_CODES`, 1011, 1012), in this protocol's terms. */
  close(code: number, reason: string): void;
  /** A sequence number the client sent (heartbeat, resume) in the session's numbering. */
  fromClientSeq(s: number): number;
  /** Settings the session keeps across a resume (Discord's intents); saved in its checkpoint. */
  state(): string | undefined;
  /** Takes a checkpoint's settings on a resume; false when the checkpoint is not this protocol's. */
  restore(kind: string | undefined, state: string | undefined): boolean;
  /**
   * Writes one chunk of members answering `request_members` (Discord's GUILD_MEMBERS_CHUNK),
   * numbered `s` (the session's last: a chunk is not in the log, so never replayed).
   */
  membersChunk?(chunk: MembersChunk, s: number): void;
}

/** One chunk of an answer to `request_members`. */
export interface MembersChunk {
  guildId: string;
  members: Array<Pick<Member, 'user' | 'roles' | 'joinedAt'> & { presence?: string }>;
  chunkIndex: number;
  chunkCount: number;
  notFound: string[];
  presences: boolean;
  nonce?: string;
}

/** What a client asked for, whatever protocol carried it. */
export type Incoming =
  | { op: 'identify'; token: string; status?: ChosenStatus }
  | { op: 'resume'; token: string; sessionId: string; s: number }
  | { op: 'heartbeat'; s: number | null }
  | { op: 'presence_update'; status: ChosenStatus }
  /** The channel the connection looks at (typing reaches a person's connection only there). */
  | { op: 'focus'; channelId: string | null }
  /**
   * Discord's Request Guild Members (op 8): members of `guildIds` by name prefix (`query`,
   * at most `limit`, 0 for all) or by id (`userIds`), answered with `Wire.membersChunk`.
   */
  | {
      op: 'request_members';
      guildIds: string[];
      query?: string;
      limit: number;
      userIds?: string[];
      presences: boolean;
      nonce?: string;
    }
  /** A frame the protocol accepts that asks nothing of the gateway. */
  | { op: 'none' }
  /** Close the connection with `code` (in the protocol's own terms) and `reason`. */
  | { op: 'refuse'; code: number; reason: string };

/** What a session looks like to a wire encoding an event for it. */
export interface SessionView {
  readonly caller: Caller;
  /** The servers the session belongs to, with its view of each (the permission model and its roles). */
  readonly servers: ReadonlyMap<string, { model: ServerModel; roles: readonly string[] }>;
}

/** An event frame with its sequence number still to be written. */
export interface SeqFrame {
  /** The event type sent, for metrics. */
  readonly t: string;
  withSeq(s: number | null): Buffer;
  /** The WebSocket text frame of `withSeq(s)`: header and shared bytes (one Buffer per length), then the tail. */
  wsFrame(s: number | null): [Buffer, string];
}

/**
 * One event on its way to many sessions: each protocol's encoding is made at most once per
 * event (and per variant, such as Discord's message without content), on first use, and
 * shared by every session that receives it.
 */
export class Prepared {
  private nativeFrame: EventFrame | undefined;
  /** Encodings by protocol and variant; null when a variant sends nothing. */
  readonly cache = new Map<string, SeqFrame | null>();

  constructor(
    readonly event: GatewayEvent,
    /** For an event about a person: the servers it concerns. */
    readonly serverIds?: readonly string[],
    /** For a bot's MEMBER_ADD: the server it joined (`BusEntry.join`). */
    readonly join?: JoinSnapshot,
    /** For a server message's MESSAGE_CREATE / MESSAGE_UPDATE: its author as a member (`BusEntry.author`). */
    readonly author?: AuthorMember,
  ) {}

  get native(): EventFrame {
    if (!this.nativeFrame) this.nativeFrame = new EventFrame(this.event.t, this.event.d);
    return this.nativeFrame;
  }

  /** The encoding `key`, made by `make` the first time. */
  variant(key: string, make: () => SeqFrame | null): SeqFrame | null {
    let f = this.cache.get(key);
    if (f === undefined) {
      f = make();
      this.cache.set(key, f);
    }
    return f;
  }
}

/**
 * Live-only events of one audience (the typing of one channel in a window), sent to each of
 * its sessions together. A native frame of a live-only event carries `"s":null`, so every
 * native recipient gets the same bytes: the batch's frames are made once, as one buffer of
 * WebSocket frames, and each recipient gets one write of it instead of two per event.
 */
export class LiveBatch {
  private frames: Buffer | undefined;

  constructor(readonly prepared: readonly Prepared[]) {}

  /** The type of the batch's events (for metrics): they share one. */
  get t(): string {
    return this.prepared[0]!.event.t;
  }

  /** Every event's native WebSocket frame with `s` null, in order, in one buffer. */
  get nativeFrames(): Buffer {
    if (!this.frames) {
      const parts: Buffer[] = [];
      for (const p of this.prepared) {
        const [shared, tail] = p.native.wsFrame(null);
        parts.push(shared, Buffer.from(tail, 'latin1'));
      }
      this.frames = Buffer.concat(parts);
    }
    return this.frames;
  }
}
