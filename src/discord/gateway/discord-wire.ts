import zlib from 'node:zlib';
import type { ChosenStatus, Interaction } from '@parley/protocol';
import { CLOSE_CODES as CLOSE } from '@parley/protocol';
import type { RawData, WebSocket } from 'ws';
import { Outlet } from '../../gateway/outbox.js';
import type { ReadyState } from '../../domain/ready.js';
import type { Caller } from '../../domain/types.js';
import type { Incoming, LiveBatch, MembersChunk, Prepared, SeqFrame, SessionView, Wire } from '../../gateway/wire-interface.js';
import { discordMember } from '../objects.js';
import { INTENTS, intentOf, needsContentStripped } from './intents.js';
import { LARGE_THRESHOLD, dispatchFrame, joinedGuild, readyFrames, translate } from './translate.js';

/** Discord's gateway opcodes. */
export const OP = {
  DISPATCH: 0,
  HEARTBEAT: 1,
  IDENTIFY: 2,
  PRESENCE_UPDATE: 3,
  VOICE_STATE_UPDATE: 4,
  RESUME: 6,
  RECONNECT: 7,
  REQUEST_GUILD_MEMBERS: 8,
  INVALID_SESSION: 9,
  HELLO: 10,
  HEARTBEAT_ACK: 11,
  REQUEST_SOUNDBOARD_SOUNDS: 31,
} as const;

/** Discord's gateway close codes. */
export const DISCORD_CLOSE = {
  UNKNOWN_ERROR: 4000,
  UNKNOWN_OPCODE: 4001,
  DECODE_ERROR: 4002,
  NOT_AUTHENTICATED: 4003,
  AUTHENTICATION_FAILED: 4004,
  ALREADY_AUTHENTICATED: 4005,
  INVALID_SEQ: 4007,
  RATE_LIMITED: 4008,
  SESSION_TIMED_OUT: 4009,
  INVALID_SHARD: 4010,
  INVALID_API_VERSION: 4012,
  INVALID_INTENTS: 4013,
  DISALLOWED_INTENTS: 4014,
} as const;

/** Options taken from the upgrade request's query (`?v=10&encoding=json&compress=zlib-stream`). */
export interface DiscordWireOptions {
  compress: boolean;
  /** The service's public URL (attachment links). */
  publicUrl: string;
  /** Where a dropped session resumes (READY's `resume_gateway_url`). */
  resumeUrl: string;
  /** Why the connection cannot be served (an unsupported encoding or version): closed after hello. */
  refusal?: { code: number; reason: string };
}

/** The query of an upgrade to Discord's gateway, read as Discord does. */
export function discordWireOptions(url: string, publicUrl: string, resumeUrl: string): DiscordWireOptions {
  const q = new URL(url, 'http://x').searchParams;
  const v = q.get('v');
  const encoding = q.get('encoding') ?? 'json';
  const compress = q.get('compress');
  let refusal: DiscordWireOptions['refusal'];
  if (v !== null && v !== '10' && v !== '9') {
    refusal = { code: DISCORD_CLOSE.INVALID_API_VERSION, reason: `gateway version ${v} is not supported; use v=10` };
  } else if (encoding !== 'json') {
    refusal = { code: DISCORD_CLOSE.DECODE_ERROR, reason: `encoding=${encoding} is not supported: Parley speaks encoding=json only` };
  } else if (compress !== null && compress !== 'zlib-stream' && compress !== 'zstd-stream') {
    refusal = { code: DISCORD_CLOSE.DECODE_ERROR, reason: `compress=${compress} is not supported: use zlib-stream or none` };
  }
  // zstd-stream is served uncompressed, as text frames (Node 20 has no zstd): discord.py asks
  // for it whenever Python has zstd (3.14, or the `zstandard` package of discord.py[speed])
  // and reads text frames as they are, as @discordjs/ws does (docs/discord.md, "Gateway").
  return { compress: compress === 'zlib-stream', publicUrl, resumeUrl, ...(refusal ? { refusal } : {}) };
}

/** The native status a Discord presence names (`offline` is how Discord says invisible). */
const STATUSES: Record<string, ChosenStatus> = { online: 'online', idle: 'idle', dnd: 'dnd', invisible: 'invisible', offline: 'invisible' };

/**
 * Discord's gateway v10 over the native gateway's sessions: JSON payloads `{op, d, s, t}`,
 * optionally through one zlib context per connection flushed with Z_SYNC_FLUSH after each
 * payload (`compress=zlib-stream`). READY counts as sequence 1 and each GUILD_CREATE after
 * it as one more; the session's own numbering starts after them (`offset`), so Discord's
 * `s` has no gaps and heartbeats and resumes translate back by subtraction.
 */
export class DiscordWire implements Wire {
  readonly kind = 'discord';
  private intents = 0;
  /** Identify's `large_threshold`: servers with more members list only the bot's own in GUILD_CREATE. */
  private largeThreshold: number = LARGE_THRESHOLD.default;
  /** Payloads the client sent in the current minute (Discord's send limit). */
  private sentInWindow = 0;
  private windowStart = 0;
  /** Sequence numbers READY and the GUILD_CREATEs took before the session's first event. */
  private offset = 0;
  private readonly deflate: zlib.Deflate | null;
  /** Compressed output of the payload being flushed. */
  private chunks: Buffer[] = [];
  /** Payloads written to the compressor and not yet sent. */
  private inFlight = 0;
  /** A close asked for while payloads were still being compressed: done once they are sent. */
  private closeAfter: [number, string] | null = null;
  /** Where uncompressed events are written, coalesced per turn (null: through `send`). */
  private readonly out: Outlet | null;

  constructor(
    readonly ws: WebSocket,
    private readonly opts: DiscordWireOptions,
  ) {
    this.deflate = opts.compress ? zlib.createDeflate({ chunkSize: 64 * 1024 }) : null;
    // Compressed payloads leave from zlib's callbacks through ws.send, in their own order.
    this.out = this.deflate ? null : Outlet.of(ws);
    this.deflate?.on('data', (c: Buffer) => this.chunks.push(c));
    this.deflate?.on('error', () => ws.terminate());
    ws.once('close', () => this.deflate?.close());
  }

  hello(heartbeatMs: number): void {
    this.write({ op: OP.HELLO, d: { heartbeat_interval: heartbeatMs }, s: null, t: null });
    if (this.opts.refusal) this.closeWhenSent(this.opts.refusal.code, this.opts.refusal.reason);
  }

  parse(data: RawData, isBinary: boolean): Incoming {
    if (isBinary) return { op: 'refuse', code: DISCORD_CLOSE.DECODE_ERROR, reason: 'send JSON text frames (encoding=json)' };
    let f: unknown;
    try {
      f = JSON.parse(data.toString());
    } catch {
      return { op: 'refuse', code: DISCORD_CLOSE.DECODE_ERROR, reason: 'invalid JSON' };
    }
    if (typeof f !== 'object' || f === null || Array.isArray(f))
      return { op: 'refuse', code: DISCORD_CLOSE.DECODE_ERROR, reason: 'invalid payload' };
    const { op, d } = f as { op?: unknown; d?: unknown };
    // Discord's send limit: 120 payloads a minute per connection. Heartbeats are not
    // counted: their pace is the server's to set (GATEWAY_HEARTBEAT_MS may be short), and
    // a client keeping to it must never be closed for it (docs/gateway.md).
    if (op !== OP.HEARTBEAT) {
      const now = Date.now();
      if (now - this.windowStart >= SEND_WINDOW_MS) {
        this.windowStart = now;
        this.sentInWindow = 0;
      }
      if (++this.sentInWindow > SEND_LIMIT) return { op: 'refuse', code: DISCORD_CLOSE.RATE_LIMITED, reason: 'you are sending too fast' };
    }
    const obj = typeof d === 'object' && d !== null && !Array.isArray(d) ? (d as Record<string, unknown>) : null;
    switch (op) {
      case OP.HEARTBEAT:
        if (d !== null && d !== undefined && !Number.isInteger(d))
          return { op: 'refuse', code: DISCORD_CLOSE.DECODE_ERROR, reason: 'd must be the last sequence number or null' };
        return { op: 'heartbeat', s: typeof d === 'number' ? Math.max(0, d - this.offset) : null };
      case OP.IDENTIFY: {
        if (!obj || typeof obj.token !== 'string' || obj.token.length > 512) {
          return { op: 'refuse', code: DISCORD_CLOSE.DECODE_ERROR, reason: 'identify needs a token' };
        }
        const intents = obj.intents;
        if (typeof intents !== 'number' || !Number.isInteger(intents) || intents < 0 || (intents & ~INTENTS.ALL) !== 0) {
          return { op: 'refuse', code: DISCORD_CLOSE.INVALID_INTENTS, reason: 'invalid intents' };
        }
        if (Array.isArray(obj.shard) && (obj.shard[0] !== 0 || obj.shard[1] !== 1)) {
          return { op: 'refuse', code: DISCORD_CLOSE.INVALID_SHARD, reason: 'Parley serves one shard: use shard [0, 1]' };
        }
        this.intents = intents;
        this.largeThreshold = largeThreshold(obj.large_threshold);
        const presence = obj.presence as { status?: unknown } | undefined;
        const status = typeof presence?.status === 'string' ? STATUSES[presence.status] : undefined;
        return { op: 'identify', token: botToken(obj.token), ...(status ? { status } : {}) };
      }
      case OP.RESUME:
        if (
          !obj ||
          typeof obj.token !== 'string' ||
          typeof obj.session_id !== 'string' ||
          !Number.isInteger(obj.seq) ||
          (obj.seq as number) < 0
        ) {
          return { op: 'refuse', code: DISCORD_CLOSE.DECODE_ERROR, reason: 'resume needs token, session_id and seq' };
        }
        // `seq` is still in Discord's numbering; `fromClientSeq` translates it once the checkpoint is known.
        return { op: 'resume', token: botToken(obj.token), sessionId: obj.session_id, s: obj.seq as number };
      case OP.PRESENCE_UPDATE: {
        const status = typeof obj?.status === 'string' ? STATUSES[obj.status] : undefined;
        if (!status) return { op: 'refuse', code: DISCORD_CLOSE.DECODE_ERROR, reason: 'unknown status' };
        return { op: 'presence_update', status };
      }
      case OP.REQUEST_GUILD_MEMBERS:
        return this.requestMembers(obj);
      case OP.VOICE_STATE_UPDATE:
      case OP.REQUEST_SOUNDBOARD_SOUNDS:
        // Accepted and answered with nothing: Parley has no voice nor soundboard.
        return { op: 'none' };
      default:
        return { op: 'refuse', code: DISCORD_CLOSE.UNKNOWN_OPCODE, reason: `unknown opcode ${String(op)}` };
    }
  }

  /**
   * Request Guild Members (op 8), read as Discord reads it: `guild_id` (one or an array),
   * then `user_ids` (one or an array, at most 100) or `query` with `limit`; `presences`
   * and `nonce` (at most 32 bytes) optional. The whole list (`query` "" and `limit` 0)
   * needs GUILD_MEMBERS and presences GUILD_PRESENCES: without the first Discord answers
   * nothing, without the second `presences` is false.
   */
  private requestMembers(d: Record<string, unknown> | null): Incoming {
    const bad = (why: string): Incoming => ({ op: 'refuse', code: DISCORD_CLOSE.DECODE_ERROR, reason: why });
    if (!d) return bad('request guild members needs d');
    const guildIds = idList(d.guild_id, 100);
    if (!guildIds || guildIds.length === 0) return bad('guild_id must be an id or an array of ids');
    const nonce = typeof d.nonce === 'string' && Buffer.byteLength(d.nonce) <= 32 ? d.nonce : undefined;
    if (d.nonce !== undefined && d.nonce !== null && typeof d.nonce !== 'string') return bad('nonce must be a string');
    if (d.presences !== undefined && d.presences !== null && typeof d.presences !== 'boolean') return bad('presences must be a boolean');
    const presences = d.presences === true && (this.intents & INTENTS.GUILD_PRESENCES) !== 0;
    const common = { guildIds, presences, ...(nonce !== undefined ? { nonce } : {}) };
    if (d.user_ids !== undefined && d.user_ids !== null) {
      const userIds = idList(d.user_ids, 100);
      if (!userIds) return bad('user_ids must be an id or an array of at most 100 ids');
      return { op: 'request_members', ...common, userIds, limit: 0 };
    }
    if (typeof d.query !== 'string' || d.query.length > 100) return bad('query (a string) or user_ids is required');
    const limit = d.limit ?? 0;
    if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 0) return bad('limit must be a whole number from 0');
    if (d.query === '' && limit === 0 && (this.intents & INTENTS.GUILD_MEMBERS) === 0) return { op: 'none' };
    return { op: 'request_members', ...common, query: d.query, limit };
  }

  membersChunk(chunk: MembersChunk, s: number): void {
    const members = chunk.members.map((m) => discordMember(m));
    const d = {
      guild_id: chunk.guildId,
      members,
      chunk_index: chunk.chunkIndex,
      chunk_count: chunk.chunkCount,
      ...(chunk.notFound.length > 0 ? { not_found: chunk.notFound } : {}),
      ...(chunk.presences
        ? {
            presences: chunk.members.map((m) => {
              const status = m.presence ?? 'offline';
              return { user: { id: m.user.id }, guild_id: chunk.guildId, status, activities: [], client_status: {} };
            }),
          }
        : {}),
      ...(chunk.nonce !== undefined ? { nonce: chunk.nonce } : {}),
    };
    this.write({ op: OP.DISPATCH, d, s: s + this.offset, t: 'GUILD_MEMBERS_CHUNK' });
  }

  fromClientSeq(s: number): number {
    return Math.max(0, s - this.offset);
  }

  heartbeatAck(): void {
    this.write({ op: OP.HEARTBEAT_ACK, d: null, s: null, t: null });
  }

  invalidSession(resumable: boolean): void {
    this.write({ op: OP.INVALID_SESSION, d: resumable, s: null, t: null });
  }

  resumed(): void {
    this.write({ op: OP.DISPATCH, d: {}, s: null, t: 'RESUMED' });
  }

  /** Members in GUILD_CREATE, bounded by identify's `large_threshold` (docs/discord.md#gateway). */
  readyWants(): { members: { largeThreshold: number; lists: boolean } } {
    // Lists only for what GUILD_CREATE shows of them: members (GUILD_MEMBERS) or presences (GUILD_PRESENCES).
    const lists = (this.intents & (INTENTS.GUILD_MEMBERS | INTENTS.GUILD_PRESENCES)) !== 0;
    return { members: { largeThreshold: this.largeThreshold, lists } };
  }

  ready(sessionId: string, caller: Caller, state: ReadyState): Buffer[] {
    const frames = readyFrames(sessionId, caller, state, { resumeUrl: this.opts.resumeUrl, intents: this.intents });
    this.offset = frames.length;
    return frames.map((f, i) => f.withSeq(i + 1));
  }

  encode(p: Prepared, view: SessionView): SeqFrame | null {
    const event = p.event;
    const intent = intentOf(event, view.caller.id);
    if (intent === null || (intent !== 0 && (this.intents & intent) === 0)) return null;
    const offset = this.offset;
    const numbered = (f: SeqFrame): SeqFrame =>
      offset === 0
        ? f
        : {
            t: f.t,
            withSeq: (s: number | null) => f.withSeq(s === null ? null : s + offset),
            wsFrame: (s: number | null) => f.wsFrame(s === null ? null : s + offset),
          };
    // The bot joined a server: Discord's GUILD_CREATE, from the entry's snapshot and the session's new view of it.
    if (event.t === 'MEMBER_ADD' && event.d.user.id === view.caller.id && p.join) {
      const v = view.servers.get(event.d.serverId);
      if (v) {
        const members = (this.intents & INTENTS.GUILD_MEMBERS) !== 0 ? 1 : 0;
        const join = p.join;
        const threshold = this.largeThreshold;
        const frame = p.variant(`discord:join:${members}:${threshold}:${v.model.version}:${v.roles.join(',')}`, () =>
          joinedGuild(join, v.model, view.caller, v.roles, { intents: this.intents, largeThreshold: threshold }),
        );
        return frame && numbered(frame);
      }
    }
    const stripped = needsContentStripped(event, view.caller.id, this.intents);
    // Presence names a guild the session shares with the person: a variant per guild.
    const guild = event.t === 'PRESENCE_UPDATE' ? sharedGuild(view, p.serverIds) : '';
    // An interaction carries the bot's permissions in its channel: the one permission function, on the session's view.
    const perms = event.t === 'INTERACTION_CREATE' ? appPermissions(view, event.d) : '';
    const self = event.t === 'MEMBER_REMOVE' && event.d.user.id === view.caller.id ? 'self' : '';
    const base = p.variant(`discord:${stripped ? 'stripped' : 'full'}:${guild}:${perms}:${self}`, () => {
      const t = translate(event, {
        stripped,
        self: view.caller.id,
        guild,
        appPermissions: perms,
        publicUrl: this.opts.publicUrl,
        author: p.author,
      });
      return t ? dispatchFrame(t.t, t.d) : null;
    });
    if (!base) return null;
    return numbered(base);
  }

  sendEvent(f: SeqFrame, s: number | null, urgent: boolean): void {
    if (!this.out) {
      this.send(f.withSeq(s));
      return;
    }
    const [shared, tail] = f.wsFrame(s);
    this.out.write(shared, tail, urgent);
  }

  /**
   * Each event as this session receives it (intents). Discord's dispatches always carry a
   * number: the last one again (discord.js keeps the highest it saw).
   */
  sendLive(batch: LiveBatch, view: SessionView, s: number): number {
    let sent = 0;
    for (const p of batch.prepared) {
      const f = this.encode(p, view);
      if (!f) continue;
      this.sendEvent(f, s, false);
      sent++;
    }
    return sent;
  }

  flush(): void {
    this.out?.flush();
  }

  send(data: string | Buffer): void {
    if (!this.deflate) {
      // Joins what this turn already queued for the connection (in order), and leaves with it.
      this.out?.hold();
      this.ws.send(data, { binary: false });
      return;
    }
    // One context for the connection; each payload ends with a sync flush (00 00 ff ff), as Discord's do.
    // Flushes complete in order, so each callback sends exactly its payload's output.
    this.inFlight++;
    this.deflate.write(data);
    this.deflate.flush(zlib.constants.Z_SYNC_FLUSH, () => {
      const out = Buffer.concat(this.chunks);
      this.chunks = [];
      this.inFlight--;
      if (this.ws.readyState === this.ws.OPEN) this.ws.send(out, { binary: true });
      if (this.inFlight === 0 && this.closeAfter) this.ws.close(...this.closeAfter);
    });
  }

  private closeWhenSent(code: number, reason: string): void {
    this.out?.urge();
    if (this.inFlight > 0) this.closeAfter = [code, reason];
    else this.ws.close(code, reason);
  }

  close(code: number, reason: string): void {
    if (code === CLOSE.RESTARTING) {
      // Discord's way: op 7, and the client reconnects and resumes.
      this.write({ op: OP.RECONNECT, d: null, s: null, t: null });
      this.closeWhenSent(DISCORD_CLOSE.UNKNOWN_ERROR, reason);
      return;
    }
    this.closeWhenSent(discordCloseCode(code, reason), reason);
  }

  state(): string {
    return `${this.intents}:${this.offset}:${this.largeThreshold}`;
  }

  restore(kind: string | undefined, state: string | undefined): boolean {
    if (kind !== 'discord' || !state) return false;
    // A checkpoint written before `large_threshold` was read keeps the bound it was served with.
    const [intents, offset, threshold = LARGE_THRESHOLD.max] = state.split(':').map(Number);
    if (!Number.isInteger(intents) || !Number.isInteger(offset) || !Number.isInteger(threshold)) return false;
    this.intents = intents!;
    this.offset = offset!;
    this.largeThreshold = threshold;
    return true;
  }

  private write(payload: { op: number; d: unknown; s: number | null; t: string | null }): void {
    this.send(JSON.stringify(payload));
  }
}

/** Discord's limit on what a client sends: 120 payloads per 60 s (heartbeats aside), then close 4008. */
const SEND_LIMIT = 120;
const SEND_WINDOW_MS = 60_000;

/** An id or an array of at most `max` ids (strings, or numbers as some libraries send), or null. */
function idList(v: unknown, max: number): string[] | null {
  const list = Array.isArray(v) ? v : [v];
  if (list.length > max) return null;
  const out: string[] = [];
  for (const x of list) {
    if (typeof x === 'string' && x.length > 0 && x.length <= 64) out.push(x);
    else if (typeof x === 'number' && Number.isSafeInteger(x)) out.push(String(x));
    else return null;
  }
  return out;
}

/** Identify's `large_threshold` as Discord takes it: 50 to 250, 50 when absent (or not a number). */
function largeThreshold(v: unknown): number {
  if (typeof v !== 'number' || !Number.isFinite(v)) return LARGE_THRESHOLD.default;
  return Math.min(LARGE_THRESHOLD.max, Math.max(LARGE_THRESHOLD.min, Math.floor(v)));
}

/** Discord libraries send the bare token; the gateway authenticates `Bot <token>`. */
function botToken(token: string): string {
  return token.startsWith('Bot ') ? token : `Bot ${token}`;
}

/** A guild the session shares with the person an event is about (Discord names one per event). */
function sharedGuild(view: SessionView, serverIds: readonly string[] | undefined): string {
  return serverIds?.find((id) => view.servers.has(id)) ?? '';
}

/**
 * The bot's permissions in an interaction's channel (all of them in a DM, as Discord reports);
 * in a thread, its parent's as the thread leaves them (`threadPermissions`, docs/threads.md#permissions).
 */
function appPermissions(view: SessionView, i: Pick<Interaction, 'serverId' | 'channelId' | 'thread'>): string {
  if (i.serverId === null) return ALL_PERMISSIONS;
  const v = view.servers.get(i.serverId);
  if (!v) return '0';
  const { id, bot } = view.caller;
  if (i.thread)
    return v.model
      .threadPermissions(id, bot, v.roles, i.thread.parentId, {
        private: i.thread.type === 'private_thread',
        locked: i.thread.locked,
        member: i.thread.joined,
      })
      .toString();
  return v.model.permissions(id, bot, v.roles, i.channelId).toString();
}

const ALL_PERMISSIONS = ((1n << 53n) - 1n).toString();

/** The Discord close code for a native one. */
function discordCloseCode(code: number, reason: string): number {
  switch (code) {
    case CLOSE.BAD_TOKEN:
      return DISCORD_CLOSE.AUTHENTICATION_FAILED;
    case CLOSE.MALFORMED:
      if (reason === 'already identified') return DISCORD_CLOSE.ALREADY_AUTHENTICATED;
      if (reason === 'identify first') return DISCORD_CLOSE.NOT_AUTHENTICATED;
      return DISCORD_CLOSE.DECODE_ERROR;
    case CLOSE.HEARTBEAT_TIMEOUT:
      return DISCORD_CLOSE.SESSION_TIMED_OUT;
    case CLOSE.TOO_MANY_SESSIONS:
      return DISCORD_CLOSE.RATE_LIMITED;
    default:
      // A slow consumer, an internal error: Discord's "unknown error", after which clients resume.
      return DISCORD_CLOSE.UNKNOWN_ERROR;
  }
}
