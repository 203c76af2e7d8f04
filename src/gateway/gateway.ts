import type { IncomingMessage, Server as HttpServer } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import { accounts } from '../domain/accounts.js';
import type { DomainContext } from '../domain/context.js';
import { servers as serverActions } from '../domain/servers.js';
import { P } from '@parley/protocol';
import { type ModelSnapshot, ServerModel, roleSet, sameRoles, visibilityOf } from '../domain/permissions.js';
import { readyState } from '../domain/ready.js';
import { snapshotIn } from '../domain/roles.js';
import type { Caller } from '../domain/types.js';
import { AppError } from '../errors.js';
import { answerIgnoringUpgrade, answerRaw } from '../http/raw-answer.js';
import type { EventBus, LogPosition, SessionCheckpoint } from '../events/bus.js';
import type { BusEntry, GatewayEvent, JoinSnapshot, Signal } from '../events/types.js';
import { CLOSE_CODES as CLOSE } from '@parley/protocol';
import { NativeWire } from './native-wire.js';
import { LAZY_EVENTS } from './outbox.js';
import { type Incoming, LiveBatch, Prepared, type SeqFrame, type Wire } from './wire-interface.js';
import type { PresenceTracker } from '../presence/tracker.js';

export interface GatewayOptions {
  heartbeatMs: number;
  /** How long a dropped session can be resumed. */
  resumeWindowMs: number;
  /** Bytes queued to one client before it counts as a slow consumer. */
  maxBufferedBytes?: number;
  /** Connections from one address that have not identified yet; more are refused with 429. */
  maxPendingPerAddress?: number;
  /** Live sessions of one credential (a bot token, a login session) on this instance. */
  maxSessionsPerToken?: number;
  /**
   * Typing that comes less than this long after the last typing sent waits for the window
   * to end and goes out with the rest (`takeSignal`); 0 sends each at once. Default 250 ms.
   */
  signalWindowMs?: number;
  /** Take the client address from X-Forwarded-For (behind a trusted reverse proxy). */
  trustProxy?: boolean;
  report: (err: unknown, what: string) => void;
  /** Where sessions' connections count towards presence (docs/gateway.md#presence). */
  presence?: PresenceTracker;
  /**
   * Other protocols on other paths (Discord's gateway at `/api/gateway/ws`): for an upgrade
   * request, the wire to use, or a string saying why the request cannot have one. The same
   * sessions, fan-out, filter and resume serve them all; only frames differ.
   */
  wires?: Record<string, (ws: WebSocket, req: IncomingMessage) => Wire>;
}

/** A session's view of one server: the server's model (roles, overwrites, channels) and its own roles. */
interface View {
  model: ServerModel;
  /** The member's role ids, ascending. */
  roles: readonly string[];
}

/** A point where the session's numbering, membership and permissions are known; resume starts from one. */
interface Mark {
  s: number;
  pos: LogPosition;
  servers: Array<[string, View]>;
}

/**
 * Models made from an entry's snapshot, per snapshot: the sessions a live entry reaches
 * share one. Held weakly: the log keeps its entries (and so their snapshots) long after
 * any session holds the model made from one.
 */
const fromSnapshots = new WeakMap<ModelSnapshot, WeakRef<ServerModel>>();
function modelOf(snapshot: ModelSnapshot, join?: JoinSnapshot): ServerModel {
  let m = fromSnapshots.get(snapshot)?.deref();
  if (!m) {
    // A bot's MEMBER_ADD carries the roles once, in its join snapshot (`BusEntry`).
    const whole =
      join && snapshot.roles.length === 0
        ? { ...snapshot, roles: join.roles.map((r): [string, string, number] => [r.id, r.permissions, r.position]) }
        : snapshot;
    m = ServerModel.fromSnapshot(whole);
    fromSnapshots.set(snapshot, new WeakRef(m));
  }
  return m;
}

/** The snapshot of a model, made once per model (sessions dropping together share it). */
const snapshots = new WeakMap<ServerModel, ModelSnapshot>();
function snapshotOf(model: ServerModel): ModelSnapshot {
  let s = snapshots.get(model);
  if (!s) snapshots.set(model, (s = model.snapshot()));
  return s;
}

/**
 * A model from a checkpoint (`SessionCheckpoint.models`): in one process the checkpoint holds
 * the snapshot itself, so sessions resuming from the same one share the model made from it.
 */
function keptModel(snapshot: ModelSnapshot): ServerModel {
  let m = fromSnapshots.get(snapshot)?.deref();
  if (!m) {
    m = ServerModel.fromSnapshot(snapshot);
    fromSnapshots.set(snapshot, new WeakRef(m));
  }
  return m;
}

/**
 * The model last loaded from the store per server, while some session holds it: sessions
 * that identify or resume onto the same state share one model rather than each building
 * its own. A model is as large as the server's roles (one per bot), so a model per session
 * made memory grow with sessions × members.
 */
const loaded = new Map<string, WeakRef<ServerModel>>();
function loadedModel(snapshot: ModelSnapshot): ServerModel {
  const held = loaded.get(snapshot.serverId)?.deref();
  if (held?.matches(snapshot)) return held;
  const m = ServerModel.fromSnapshot(snapshot);
  loaded.set(snapshot.serverId, new WeakRef(m));
  return m;
}

/**
 * One client's view of the event log: the servers it belongs to with its view of each (the
 * server's permission model and its own roles), the sequence number of the last event it
 * was sent, and the log position that event came from. Views change only through log
 * entries (those that carry a model, channel events, its own MEMBER_ADD/MEMBER_UPDATE). A
 * resume rebuilds them as they stood at its checkpoint (the models the checkpoint carries)
 * and replays the missed entries through them, permission changes included; only when it
 * must read them from the store is it refused if the missed entries changed them in a way
 * the store cannot show as it was (`replayable`).
 */
class Session {
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

/** A revocation dispatched recently: starts that authenticated before it must not go live. */
interface Revocation {
  pos: LogPosition;
  reason: string;
  at: number;
}

/** How long a revocation is remembered; an identify or resume takes far less. */
const REVOCATION_MEMORY_MS = 60_000;

/** A connection: pending until it identifies (or after its session was invalidated). */
interface Connection {
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

const MARK_EVERY = 64;
/** Members per GUILD_MEMBERS_CHUNK, as on Discord. */
const MEMBERS_PER_CHUNK = 1000;
/** The longest a view waits for a missing permission version (`checkHeartbeats`); less with a short heartbeat. */
const MISSING_VERSION_MAX_MS = 10_000;

/**
 * The WebSocket gateway: identify/resume, heartbeats, and fan-out of bus entries to
 * the sessions of each server's members, in log order.
 */
export class Gateway {
  private readonly wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: 64 * 1024 });
  private readonly pending = new Set<Connection>();
  /** Connections not identified yet, per client address. */
  private readonly pendingByAddress = new Map<string, number>();
  private readonly byServer = new Map<string, Set<Session>>();
  private readonly byUser = new Map<string, Set<Session>>();
  private readonly byId = new Map<string, Session>();
  private readonly catchingUp = new Set<Session>();
  /** Keyed by user id (every session) or `userId/sessionId` (one login session). */
  private readonly revocations = new Map<string, Revocation>();
  private readonly unsubscribe: () => void;
  private readonly unsubscribeSignals: () => void;
  private readonly sweep: NodeJS.Timeout;
  private readonly maxBuffered: number;
  private readonly maxPendingPerAddress: number;
  private readonly maxSessionsPerToken: number;
  private readonly signalWindowMs: number;
  private closing = false;
  /** Signals waiting for the window to end; the timer runs while a window is open. */
  private heldSignals: Signal[] = [];
  private signalWindow: NodeJS.Timeout | null = null;

  constructor(
    private readonly ctx: DomainContext,
    private readonly bus: EventBus,
    private readonly opts: GatewayOptions,
  ) {
    this.maxBuffered = opts.maxBufferedBytes ?? 1024 * 1024;
    this.maxPendingPerAddress = opts.maxPendingPerAddress ?? 64;
    this.maxSessionsPerToken = opts.maxSessionsPerToken ?? 32;
    this.signalWindowMs = opts.signalWindowMs ?? 250;
    this.unsubscribe = bus.subscribe((pos, entry) => this.dispatch(pos, entry));
    this.unsubscribeSignals = bus.subscribeSignals((signal) => this.takeSignal(signal));
    // One timer for every connection, so an idle connection costs no timer of its own.
    // The sweep judges after this turn's I/O (setImmediate runs once the poll phase has read
    // what arrived): when the server has been busy (a long turn, a GC pause, a starved core),
    // a heartbeat that came meanwhile is read before the overdue sweep can hold its silence
    // against its sender. Otherwise a stall closes every connection at once, and they all
    // come back to resume on a server that was already behind.
    this.sweep = setInterval(
      () => setImmediate(() => this.closing || this.checkHeartbeats()),
      Math.min(1000, Math.max(50, opts.heartbeatMs / 4)),
    );
    this.sweep.unref();
  }

  /** Takes over `GET /gateway` upgrades on the HTTP server. */
  attach(server: HttpServer): void {
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      const path = (req.url ?? '').split('?')[0] ?? '';
      // Another protocol's path is also taken with a trailing slash: Eris and Oceanic.js
      // append `/?v=10` to the URL Discord's `GET /gateway` names (docs/discord.md, "Gateway").
      const makeWire =
        path === '/gateway' ? (ws: WebSocket) => new NativeWire(ws) : this.opts.wires?.[path.length > 1 ? path.replace(/\/$/, '') : path];
      if (!makeWire) return answerIgnoringUpgrade(server, req, socket);
      if (this.closing) return answerRaw(socket, 'service_unavailable', 'server is shutting down');
      // ws answers a bad handshake with an HTML page; check it first so every answer is JSON.
      const problem = handshakeProblem(req);
      if (problem) return answerRaw(socket, 'invalid_handshake', problem);
      const address = clientAddress(req, this.opts.trustProxy ?? false);
      if ((this.pendingByAddress.get(address) ?? 0) >= this.maxPendingPerAddress) {
        return answerRaw(socket, 'rate_limited', 'too many gateway connections waiting to identify from this address', {
          'Retry-After': '5',
        });
      }
      this.wss.handleUpgrade(req, socket, head, (ws) => {
        // An upgrade that completed while the gateway was closing: told to come back, like the rest.
        if (this.closing) return ws.close(CLOSE.RESTARTING, 'server restarting');
        this.open(makeWire(ws, req), address);
      });
    });
  }

  /** Connected sessions (for tests and metrics). */
  get sessionCount(): number {
    return this.byId.size;
  }

  /** Open connections: identified sessions, and connections that have not identified yet (metrics). */
  get connections(): { live: number; pending: number } {
    return { live: this.byId.size, pending: this.pending.size };
  }

  /** Event frames sent since start, by event type (metrics read it at scrape time). */
  readonly eventsSent = new Map<string, { n: number }>();

  /** Connection figures for tests and metrics; walks every session, so not for hot paths. */
  stats(): { sessions: number; pending: number; queuedBytes: number; maxQueuedBytes: number } {
    let queued = 0;
    let max = 0;
    for (const s of this.byId.values()) {
      const b = s.ws.bufferedAmount;
      queued += b;
      if (b > max) max = b;
    }
    return { sessions: this.byId.size, pending: this.pending.size, queuedBytes: queued, maxQueuedBytes: max };
  }

  private open(wire: Wire, address: string): void {
    const ws = wire.ws;
    const conn: Connection = { ws, wire, opened: Date.now(), address, session: null, busy: false, focus: null };
    this.addPending(conn);
    if (ws.readyState !== WebSocket.OPEN) return;
    wire.hello(this.opts.heartbeatMs);
    ws.on('message', (data, isBinary) => {
      const f = wire.parse(data, isBinary);
      if (f.op === 'refuse') return ws.close(f.code, f.reason);
      if (f.op === 'none') return;
      if (f.op === 'heartbeat') {
        // Before identify a heartbeat is answered but does not extend the identify deadline,
        // so a connection cannot stay unauthenticated forever.
        if (conn.session) this.heartbeat(conn.session, f.s);
        return wire.heartbeatAck();
      }
      if (f.op === 'presence_update') {
        if (!conn.session) return wire.close(CLOSE.MALFORMED, 'identify first');
        this.opts.presence?.update(conn.session.caller.id, conn.session.id, f.status);
        return;
      }
      if (f.op === 'request_members') {
        if (!conn.session) return wire.close(CLOSE.MALFORMED, 'identify first');
        void this.requestMembers(conn.session, f);
        return;
      }
      if (f.op === 'focus') {
        // The connection's, not the session's: a client says it again after a resume.
        conn.focus = f.channelId;
        return;
      }
      if (conn.session || conn.busy) return wire.close(CLOSE.MALFORMED, 'already identified');
      conn.busy = true;
      this.start(conn, f)
        .then((s) => {
          conn.busy = false;
          conn.session = s;
          this.removePending(conn);
          // A resume keeps the status the session had; an identify may name one.
          if (!s.closed) this.opts.presence?.connect(s.caller.id, s.id, f.op === 'identify' ? f.status : undefined);
        })
        .catch((err) => {
          conn.busy = false;
          if (err instanceof AppError && err.status === 401) wire.close(CLOSE.BAD_TOKEN, 'invalid token');
          else if (err instanceof TooManySessions) wire.close(CLOSE.TOO_MANY_SESSIONS, err.message);
          else if (err instanceof InvalidSession) wire.invalidSession(false);
          else if (!(err instanceof ClosedDuringStart)) {
            this.opts.report(err, 'gateway start failed');
            wire.close(1011, 'internal error');
          }
        });
    });
    ws.on('close', () => {
      this.removePending(conn);
      if (conn.session) this.detach(conn.session);
    });
    ws.on('error', () => ws.terminate());
  }

  /**
   * Answers Discord's Request Guild Members (op 8): for each server asked for that the
   * session is in (others get nothing, as on Discord), the members found through the domain
   * (`servers.findMembers`, membership is all it needs), in chunks of at most 1000. Intents
   * were checked by the wire (`DiscordWire.parse`).
   */
  private async requestMembers(session: Session, f: Extract<Incoming, { op: 'request_members' }>): Promise<void> {
    const wire = session.conn.wire;
    if (!wire.membersChunk) return;
    for (const guildId of f.guildIds) {
      if (!session.servers.has(guildId)) continue;
      let found: Awaited<ReturnType<typeof serverActions.findMembers>>;
      try {
        found = await serverActions.findMembers(this.ctx, session.caller, guildId, {
          limit: f.limit,
          ...(f.query !== undefined ? { query: f.query } : {}),
          ...(f.userIds ? { userIds: f.userIds } : {}),
        });
      } catch (err) {
        // Removed from the server meanwhile: nothing, as for a server it is not in.
        if (!(err instanceof AppError)) this.opts.report(err, 'request guild members failed');
        continue;
      }
      if (session.closed || session.ws.readyState !== WebSocket.OPEN) return;
      const count = Math.max(1, Math.ceil(found.members.length / MEMBERS_PER_CHUNK));
      for (let i = 0; i < count; i++) {
        wire.membersChunk(
          {
            guildId,
            members: found.members.slice(i * MEMBERS_PER_CHUNK, (i + 1) * MEMBERS_PER_CHUNK),
            chunkIndex: i,
            chunkCount: count,
            notFound: i === 0 ? found.notFound : [],
            presences: f.presences,
            ...(f.nonce !== undefined ? { nonce: f.nonce } : {}),
          },
          session.s,
        );
      }
    }
  }

  private addPending(conn: Connection): void {
    if (this.pending.has(conn)) return;
    this.pending.add(conn);
    this.pendingByAddress.set(conn.address, (this.pendingByAddress.get(conn.address) ?? 0) + 1);
  }

  private removePending(conn: Connection): void {
    if (!this.pending.delete(conn)) return;
    const n = (this.pendingByAddress.get(conn.address) ?? 1) - 1;
    if (n <= 0) this.pendingByAddress.delete(conn.address);
    else this.pendingByAddress.set(conn.address, n);
  }

  private async start(conn: Connection, f: Extract<Incoming, { op: 'identify' | 'resume' }>): Promise<Session> {
    // Revocations dispatched from here on were not seen by the authentication below.
    const since = this.bus.position();
    const caller = await accounts.authenticate(this.ctx, f.token);
    if (f.op === 'identify') return this.identify(conn, caller, since);
    return this.resume(conn, caller, f.sessionId, f.s, since);
  }

  /** Live sessions on this instance opened with the same credential as `caller`. */
  private sessionsOfToken(caller: Caller): number {
    let n = 0;
    for (const s of this.byUser.get(caller.id) ?? []) if (s.caller.sessionId === caller.sessionId) n++;
    return n;
  }

  private async identify(conn: Connection, caller: Caller, since: LogPosition): Promise<Session> {
    if (this.sessionsOfToken(caller) >= this.maxSessionsPerToken) {
      throw new TooManySessions(`at most ${this.maxSessionsPerToken} gateway sessions per token`);
    }
    const ws = conn.ws;
    // Register first (catching up) so nothing published from here on is missed.
    const session = new Session(this.ctx.store.ids.next(), caller, this.bus.position(), [], ws, conn);
    this.catchingUp.add(session);
    try {
      const state = await readyState(this.ctx, caller, { ...conn.wire.readyWants(), model: loadedModel });
      for (const s of state.servers) session.servers.set(s.server.id, { model: s.model, roles: s.memberRoles });
      const readyFrames = conn.wire.ready(session.id, caller, state);
      session.marks = [];
      session.mark();
      if (ws.readyState !== WebSocket.OPEN) throw new ClosedDuringStart();
      for (const f of readyFrames) conn.wire.send(f);
      this.goLive(session, [], since);
      // Not awaited: between going live and returning, no close event may slip in.
      void this.saveCheckpoint(session, session.marks[0]!);
      return session;
    } finally {
      this.catchingUp.delete(session);
    }
  }

  private async resume(conn: Connection, caller: Caller, sessionId: string, acked: number, since: LogPosition): Promise<Session> {
    const ws = conn.ws;
    const cp = await this.bus.loadCheckpoint(sessionId);
    if (!cp || cp.userId !== caller.id || !conn.wire.restore(cp.wire, cp.wireState)) throw new InvalidSession();
    // The client counts in its protocol's numbering (Discord's includes READY and GUILD_CREATE).
    acked = conn.wire.fromClientSeq(acked);
    if (acked < cp.s) throw new InvalidSession();
    // A connection of the same session still open (a zombie) must not receive twice.
    const old = this.byId.get(sessionId);
    if (old) {
      this.detach(old, false);
      old.ws.terminate();
    }
    // A zombie's checkpoint was written before it dropped (a heartbeat's, without models): its
    // mark in memory holds the models as they stood there.
    const held = old?.saved && old.saved.s === cp.s && old.saved.pos === cp.pos ? new Map(old.saved.servers) : undefined;
    // Resumes replay with the permission model the session had at its checkpoint: the one
    // the checkpoint carries (written when the connection dropped), so the missed entries
    // (role and permission changes among them) apply at their place in the log, exactly as
    // live. Without it (an instance that died), the store's model will do only while it is
    // still at the checkpoint's version; otherwise the client identifies again.
    const kept = new Map((cp.models ?? []).map((m) => [m.serverId, m]));
    const exact = new Set<string>();
    const views = await Promise.all(
      cp.servers.map(async ([id, version, joined]): Promise<[string, View] | null> => {
        const roles = joined ? joined.split(',') : [];
        const own = kept.get(id);
        if (own && own.version === version) {
          exact.add(id);
          return [id, { model: keptModel(own), roles }];
        }
        const mine = held?.get(id);
        if (mine && mine.model.version === version && mine.model.ahead.size === 0) {
          exact.add(id);
          return [id, { model: mine.model, roles }];
        }
        const snapshot = await snapshotIn(this.ctx, this.ctx.store.db, id).catch(() => null);
        return snapshot && snapshot.version === version ? [id, { model: loadedModel(snapshot), roles }] : null;
      }),
    );
    if (views.some((v) => v === null)) throw new InvalidSession();
    const session = new Session(sessionId, caller, cp.pos, views as Array<[string, View]>, ws, conn);
    session.s = cp.s;
    session.acked = cp.s;
    session.saved = { s: cp.s, pos: cp.pos, servers: [...session.servers] };
    this.catchingUp.add(session);
    try {
      const missed = await this.bus.readAfter(cp.pos);
      if (!missed || !replayable(missed, caller.id, session.servers, exact)) throw new InvalidSession();
      if (ws.readyState !== WebSocket.OPEN) throw new ClosedDuringStart();
      this.goLive(session, missed, since, acked);
      if (session.s < acked) {
        // The client claims events this session never had.
        this.detach(session, false);
        throw new InvalidSession();
      }
      // The client has every event up to `acked`: that is where it would resume next.
      session.acked = acked;
      conn.wire.resumed(sessionId, session.s);
      return session;
    } finally {
      this.catchingUp.delete(session);
    }
  }

  /**
   * Applies `entries` (from the log) then the backlog collected meanwhile, then registers
   * the session live. Refuses (closing the socket) if the identity was revoked after `since`.
   */
  private goLive(session: Session, entries: Array<[LogPosition, BusEntry]>, since: LogPosition, skipThrough = 0): void {
    const revoked = this.revokedSince(session.caller, since);
    if (revoked) {
      session.closed = true;
      void this.bus.deleteCheckpoint(session.id).catch(() => {});
      session.conn.wire.close(CLOSE.BAD_TOKEN, revoked);
      throw new ClosedDuringStart();
    }
    session.replaying = true;
    for (const [pos, entry] of entries) this.apply(session, pos, entry, skipThrough);
    const backlog = session.backlog ?? [];
    session.backlog = null;
    for (const [pos, entry] of backlog) {
      if (this.bus.compare(pos, session.pos) > 0) this.apply(session, pos, entry, skipThrough);
    }
    session.replaying = false;
    // What the kernel does not take of the replay now is the slack (not what is only held for this turn).
    session.conn.wire.flush();
    session.slack = session.ws.bufferedAmount;
    // Two resumes of one session may race (each awaits the store): the last one wins.
    const other = this.byId.get(session.id);
    if (other && other !== session) {
      this.detach(other, false);
      other.ws.terminate();
    }
    this.byId.set(session.id, session);
    addTo(this.byUser, session.caller.id, session);
    for (const id of session.servers.keys()) addTo(this.byServer, id, session);
  }

  /** Live fan-out of one log entry, in log order. */
  private dispatch(pos: LogPosition, entry: BusEntry): void {
    for (const s of this.catchingUp) s.backlog?.push([pos, entry]);
    if (this.heldSignals.length > 0 && (entry.kind === 'event' || entry.kind === 'direct') && entry.event.t === 'MESSAGE_CREATE') {
      this.dropHeldTyping(entry.event.d.channelId, entry.event.d.author.id);
    }
    if (entry.kind === 'revoke') {
      const key = entry.sessionId ? `${entry.userId}/${entry.sessionId}` : entry.userId;
      this.revocations.set(key, { pos, reason: entry.reason, at: Date.now() });
      for (const s of [...(this.byUser.get(entry.userId) ?? [])]) {
        if (entry.sessionId && s.caller.sessionId !== entry.sessionId) continue;
        this.detach(s, false);
        void this.bus.deleteCheckpoint(s.id).catch(() => {});
        s.conn.wire.close(CLOSE.BAD_TOKEN, entry.reason);
      }
      return;
    }
    if (entry.kind === 'gap') {
      this.resynchronise(entry.serverIds);
      return;
    }
    if (entry.kind === 'user') {
      // Each session once, whether it is the user's own or shares one or many servers with it.
      const audience = new Set(entry.toSelf === false ? [] : this.byUser.get(entry.userId));
      for (const id of entry.serverIds) for (const s of this.byServer.get(id) ?? []) audience.add(s);
      const prepared = new Prepared(entry.event, entry.serverIds);
      for (const s of audience) this.apply(s, pos, entry, 0, prepared);
      return;
    }
    if (entry.kind === 'direct') {
      // A DM's events reach the sessions of its recipients, and no one else.
      const prepared = new Prepared(entry.event);
      for (const id of entry.recipients) for (const s of this.byUser.get(id) ?? []) this.apply(s, pos, entry, 0, prepared);
      return;
    }
    if (entry.kind !== 'event') return;
    const { event, serverId } = entry;
    const members = this.byServer.get(serverId);
    const joining = event.t === 'MEMBER_ADD' ? this.byUser.get(event.d.user.id) : undefined;
    if (!members && !joining) return;
    // Membership events change the indexes while they are applied: iterate a copy then.
    // Otherwise iterate the index itself (a slow consumer dropped mid-way is only deleted).
    const membership = event.t === 'MEMBER_ADD' || event.t === 'MEMBER_REMOVE' || event.t === 'SERVER_DELETE';
    const audience = membership ? new Set([...(members ?? []), ...(joining ?? [])]) : members!;
    const prepared = new Prepared(event, undefined, entry.join, entry.author);
    for (const s of audience) this.apply(s, pos, entry, 0, prepared);
  }

  /**
   * A signal from the bus. Signals (typing) that come less than `signalWindowMs` after the
   * last one sent wait until the window ends and go out together, in one turn: a typing
   * storm then costs each connection one write per window instead of one per typist. A
   * lone signal goes out at once.
   */
  private takeSignal(signal: Signal): void {
    if (this.signalWindowMs === 0) {
      this.signal([signal]);
      return;
    }
    if (this.signalWindow !== null) {
      this.heldSignals.push(signal);
      return;
    }
    this.signal([signal]);
    this.openSignalWindow();
  }

  /**
   * A message ends its author's typing there (clients clear the indicator when it arrives):
   * typing of theirs still held for the window would show them typing again after it.
   */
  private dropHeldTyping(channelId: string, userId: string): void {
    this.heldSignals = this.heldSignals.filter((s) => s.event.d.channelId !== channelId || s.event.d.userId !== userId);
  }

  private openSignalWindow(): void {
    this.signalWindow = setTimeout(() => {
      const held = this.heldSignals;
      this.heldSignals = [];
      this.signalWindow = null;
      if (held.length === 0 || this.closing) return;
      this.signal(held);
      this.openSignalWindow();
    }, this.signalWindowMs);
    this.signalWindow.unref();
  }

  /**
   * Live-only events (typing, `Signal`): sent to the sessions that may see them and want
   * them, with no sequence number of their own (`Wire.sendLive`), and never replayed. In a
   * server, a person's native connection hears typing only in the channel it looks at
   * (`focus`), so a typing storm in a big server costs the connections looking at that
   * channel, not every member's; bots, and Discord's wire (whose intents choose), hear it
   * in every channel they may see. In a DM, every session of its recipients hears it.
   *
   * The signals of one audience (a server's channel, or a DM) go out as one `LiveBatch`: one
   * permission check and, on the native wire, one write of the same bytes per session,
   * whatever the number of typists.
   */
  private signal(signals: readonly Signal[]): void {
    const audiences = new Map<string, { signal: Signal; prepared: Prepared[] }>();
    for (const signal of signals) {
      const channelId = signal.event.d.channelId;
      const key = signal.recipients ? `${channelId}:${signal.recipients.join(',')}` : `${signal.serverId}:${channelId}`;
      const audience = audiences.get(key);
      if (audience) audience.prepared.push(new Prepared(signal.event));
      else audiences.set(key, { signal, prepared: [new Prepared(signal.event)] });
    }
    for (const { signal, prepared } of audiences.values()) {
      const batch = new LiveBatch(prepared);
      if (signal.recipients) {
        for (const id of signal.recipients) for (const s of this.byUser.get(id) ?? []) this.deliverLive(s, batch, null);
        continue;
      }
      const channelId = signal.event.d.channelId;
      for (const s of this.byServer.get(signal.serverId) ?? []) {
        if (s.conn.focus !== channelId && !s.caller.bot && s.conn.wire.kind === 'native') continue;
        this.deliverLive(s, batch, signal.serverId);
      }
    }
  }

  /**
   * Sends a batch of live-only events of one channel to one session, judged by its view of
   * `serverId` (null: a DM's, judged by its audience). The events share their channel, so
   * they share what they need there: one check judges them all.
   */
  private deliverLive(session: Session, batch: LiveBatch, serverId: string | null): void {
    // A session still catching up or replaying hears only what the log holds.
    if (session.closed || session.backlog !== null || session.replaying) return;
    if (serverId !== null) {
      const view = session.servers.get(serverId);
      if (!view || !mayReceive(view, session.caller, batch.prepared[0]!.event)) return;
    }
    if (!this.admits(session)) return;
    const sent = session.conn.wire.sendLive(batch, session, session.s);
    if (sent > 0) this.countSent(batch.t, sent);
  }

  /**
   * The one rule of who gets what, used live and in replay alike so numbering agrees.
   * First the entry updates the session's view of its server: a MEMBER_ADD of its own user
   * joins it (with the entry's model); an entry carrying a newer model replaces the model;
   * channel events add, change or remove the channel; a MEMBER_UPDATE of its own user sets
   * its roles. Then the event is sent if the session may see it (`permissions.visibilityOf`:
   * VIEW_CHANNEL in the event's channel, a server-wide permission, or membership), and the
   * channels a change of permissions showed or hid arrive as CHANNEL_CREATE or
   * CHANNEL_DELETE. A MEMBER_REMOVE of its own user, or SERVER_DELETE, leaves the server
   * after delivering the notice.
   */
  private apply(session: Session, pos: LogPosition, entry: BusEntry, skipThrough: number, prepared?: Prepared): void {
    if ((entry.kind !== 'event' && entry.kind !== 'user' && entry.kind !== 'direct') || session.closed) return;
    // A resume may have replayed entries this instance has not dispatched yet; never twice.
    if (this.bus.compare(pos, session.pos) <= 0) return;
    if (entry.kind === 'direct') {
      if (!entry.recipients.includes(session.caller.id)) return;
      this.deliver(session, pos, skipThrough, prepared ?? new Prepared(entry.event));
      if (session.s % MARK_EVERY === 0) session.mark();
      return;
    }
    if (entry.kind === 'user') {
      if (!concerns(session, entry)) return;
      this.deliver(session, pos, skipThrough, prepared ?? new Prepared(entry.event, entry.serverIds));
      if (session.s % MARK_EVERY === 0) session.mark();
      return;
    }
    const { event, serverId } = entry;
    const me = session.caller;
    const self = (event.t === 'MEMBER_ADD' || event.t === 'MEMBER_UPDATE' || event.t === 'MEMBER_REMOVE') && event.d.user.id === me.id;
    let before = session.servers.get(serverId);
    let joined = false;
    if (!before) {
      if (!(self && event.t === 'MEMBER_ADD' && entry.model)) return;
      // Joining: the entry carries the server's model.
      joined = true;
      before = { model: modelOf(entry.model, entry.join), roles: [] };
      if (session.backlog === null) addTo(this.byServer, serverId, session);
    }
    const after = nextView(before, entry, self);
    session.servers.set(serverId, after);
    // A deleted channel's notice goes to those who could see it; everything else is judged by the view after.
    const judge = event.t === 'CHANNEL_DELETE' ? before : after;
    const channelEvent = event.t === 'CHANNEL_CREATE' || event.t === 'CHANNEL_UPDATE' || event.t === 'CHANNEL_DELETE';
    // Leaving the server ends the view: what the change behind it would show or hide is moot.
    const leaving = (self && event.t === 'MEMBER_REMOVE') || event.t === 'SERVER_DELETE';
    const permissionsChanged =
      !joined && !leaving && !channelEvent && (after.model !== before.model || !sameRoles(after.roles, before.roles));
    const shown = joined || !permissionsChanged ? null : visibilityChanges(before, after, me);
    const overwritten = event.t === 'CHANNEL_UPDATE' && before.model !== after.model ? visibilityChanges(before, after, me) : null;
    const changes = shown ?? overwritten;
    const skipEvent =
      event.t === 'CHANNEL_UPDATE' && changes !== null && (changes.gained.includes(event.d.id) || changes.lost.includes(event.d.id));
    if (!skipEvent && mayReceive(judge, me, event))
      this.deliver(session, pos, skipThrough, prepared ?? new Prepared(event, undefined, entry.join, entry.author));
    if (changes) {
      for (const id of changes.lost) {
        const c = before.model.channels.get(id);
        if (c) this.deliver(session, pos, skipThrough, new Prepared({ t: 'CHANNEL_DELETE', d: channelOf(before.model, id)! }));
      }
      for (const id of changes.gained) {
        const c = after.model.channels.get(id);
        if (c) this.deliver(session, pos, skipThrough, new Prepared({ t: 'CHANNEL_CREATE', d: channelOf(after.model, id)! }));
      }
    }
    if (leaving) {
      session.servers.delete(serverId);
      if (session.backlog === null) removeFrom(this.byServer, serverId, session);
    }
    // A mark is taken only after an event is counted, so (s, pos, servers) always agree.
    if (self || permissionsChanged || session.s % MARK_EVERY === 0) session.mark();
  }

  /** Counts and sends one event frame to the session (unless a resume's client already has it). */
  private deliver(session: Session, pos: LogPosition, skipThrough: number, p: Prepared): void {
    // What the connection's protocol does not carry takes no number, live and in replay alike.
    const f = session.conn.wire.encode(p, session);
    if (!f) return;
    session.s++;
    session.pos = pos;
    if (session.s > skipThrough && this.send(session, f, session.s, !LAZY_EVENTS.has(p.event.t))) this.countSent(f.t);
  }

  /** A plain increment on the fan-out path (the set of event types is fixed). */
  private countSent(t: string, n = 1): void {
    const sent = this.eventsSent.get(t);
    if (sent) sent.n += n;
    else this.eventsSent.set(t, { n });
  }

  /**
   * Events of `serverIds` (every server, when null) were lost before they reached the log:
   * the sessions that belong to them cannot be brought up to date by replay. Each is told
   * `invalid_session` (not resumable) on its open connection and identifies again, which
   * gives it the current state in `ready`.
   */
  private resynchronise(serverIds: string[] | null): void {
    const affected = new Set<Session>();
    if (serverIds === null) for (const s of this.byId.values()) affected.add(s);
    else for (const id of serverIds) for (const s of this.byServer.get(id) ?? []) affected.add(s);
    for (const s of affected) {
      this.detach(s, false);
      void this.bus.deleteCheckpoint(s.id).catch(() => {});
      if (s.ws.readyState !== WebSocket.OPEN) continue;
      s.conn.session = null;
      s.conn.opened = Date.now();
      this.addPending(s.conn);
      s.conn.wire.invalidSession(false);
    }
  }

  /**
   * Sends event frame `f` numbered `s` (coalesced with the connection's other frames of this
   * turn, `outbox.ts`), unless the client has stopped reading; true when sent. `urgent`
   * false (typing, presence) lets it wait for the lazy flush.
   */
  private send(session: Session, f: SeqFrame, s: number | null, urgent: boolean): boolean {
    if (session.replaying) {
      if (session.ws.readyState !== WebSocket.OPEN) return false;
      session.conn.wire.sendEvent(f, s, true);
      return true;
    }
    if (!this.admits(session)) return false;
    session.conn.wire.sendEvent(f, s, urgent);
    return true;
  }

  /**
   * Whether the session's connection takes another frame: open, and its client still
   * reading. A client that stopped reading is dropped (it can resume) instead of buffered
   * without bound.
   */
  private admits(session: Session): boolean {
    const ws = session.ws;
    if (ws.readyState !== WebSocket.OPEN) return false;
    const wire = session.conn.wire;
    let buffered = ws.bufferedAmount;
    if (buffered > this.maxBuffered + session.slack) {
      // Part of it may only be held for this turn: hand it to the kernel, then judge what is left.
      wire.flush();
      buffered = ws.bufferedAmount;
    }
    if (session.slack > 0 && buffered <= this.maxBuffered) session.slack = 0;
    if (buffered > this.maxBuffered + session.slack) {
      this.detach(session);
      wire.close(CLOSE.SLOW_CONSUMER, 'slow consumer');
      setTimeout(() => ws.terminate(), 1000).unref();
      return false;
    }
    return true;
  }

  private heartbeat(session: Session, acked: number | null): void {
    session.lastHeartbeat = Date.now();
    // A detached session (its connection closing) no longer moves the resume point.
    if (acked === null || acked > session.s || session.closed) return;
    session.acked = acked;
    this.catchUp(session);
    const m = session.markFor(acked);
    if (m) void this.saveCheckpoint(session, m);
  }

  /**
   * Moves a live session's position to the log's: it has been dispatched every entry up
   * to there, and those it was not sent changed nothing for it. Without this, a session
   * of a quiet server would keep the position of its last event, which a busy log soon
   * drops, and could not resume even though it missed nothing.
   */
  private catchUp(session: Session): void {
    if (session.closed || session.backlog !== null) return;
    const pos = this.bus.position();
    if (this.bus.compare(pos, session.pos) > 0) session.pos = pos;
  }

  /** Where a dropped session resumes: the latest mark the client acknowledged, else the last checkpoint. */
  private resumePoint(session: Session): Mark | undefined {
    return session.markFor(session.acked) ?? session.saved;
  }

  /**
   * Writes `m` as the session's checkpoint. `models`: with each server's model as it stood
   * at `m` (when the connection drops, once, rather than on every heartbeat), so that a
   * resume can replay permission changes made while it was away (`resume`). A model still
   * waiting for a missing version (`ahead`) is left out: its snapshot would not say which
   * deltas it holds.
   */
  private saveCheckpoint(session: Session, m: Mark, models = false): Promise<void> {
    session.saved = m;
    const cp: SessionCheckpoint = {
      userId: session.caller.id,
      s: m.s,
      pos: m.pos,
      servers: m.servers.map(([id, v]) => [id, v.model.version, v.roles.join(',')]),
      ...(models ? { models: m.servers.filter(([, v]) => v.model.ahead.size === 0).map(([, v]) => snapshotOf(v.model)) } : {}),
      ...(session.conn.wire.kind === 'native' ? {} : { wire: session.conn.wire.kind, wireState: session.conn.wire.state() }),
    };
    return this.bus
      .saveCheckpoint(session.id, cp, this.opts.resumeWindowMs)
      .catch((err) => this.opts.report(err, 'checkpoint save failed'));
  }

  /** Unregisters a session; by default leaves a checkpoint so the client can resume. */
  private detach(session: Session, resumable = true): void {
    if (session.closed) return;
    this.catchUp(session);
    session.closed = true;
    this.opts.presence?.disconnect(session.caller.id, session.id);
    if (this.byId.get(session.id) === session) this.byId.delete(session.id);
    removeFrom(this.byUser, session.caller.id, session);
    for (const id of session.servers.keys()) removeFrom(this.byServer, id, session);
    if (resumable) {
      // Saved again even if unchanged, so the resume window runs from the disconnect.
      const m = this.resumePoint(session);
      if (m) void this.saveCheckpoint(session, m, true);
    }
  }

  /** The reason, if `caller` (or its login session) was revoked at a position after `since`. */
  private revokedSince(caller: Caller, since: LogPosition): string | null {
    for (const key of [caller.id, `${caller.id}/${caller.sessionId ?? ''}`]) {
      const r = this.revocations.get(key);
      if (r && this.bus.compare(r.pos, since) > 0) return r.reason;
    }
    return null;
  }

  private checkHeartbeats(): void {
    const now = Date.now();
    for (const [key, r] of this.revocations) if (r.at < now - REVOCATION_MEMORY_MS) this.revocations.delete(key);
    const deadline = now - this.opts.heartbeatMs * 1.5;
    for (const p of this.pending) if (p.opened < deadline) p.wire.close(CLOSE.HEARTBEAT_TIMEOUT, 'identify timeout');
    // A view still waiting for a permission version that should long have come (its writer
    // died between commit and publish): the server's sessions identify again, from the store.
    const waited = now - Math.min(MISSING_VERSION_MAX_MS, 2 * this.opts.heartbeatMs);
    let stuck: Set<string> | undefined;
    for (const s of this.byId.values()) {
      if (s.lastHeartbeat < deadline) {
        this.detach(s);
        s.conn.wire.close(CLOSE.HEARTBEAT_TIMEOUT, 'missed heartbeats');
        setTimeout(() => s.ws.terminate(), 1000).unref();
        continue;
      }
      for (const [id, view] of s.servers) if (view.model.aheadSince !== 0 && view.model.aheadSince < waited) (stuck ??= new Set()).add(id);
    }
    if (stuck) {
      this.opts.report(new Error(`a permission change never reached the log for servers ${[...stuck].join(', ')}`), 'gateway resync');
      this.resynchronise([...stuck]);
    }
  }

  /** Asks every client to reconnect (they resume elsewhere), leaving checkpoints behind. */
  async close(): Promise<void> {
    this.closing = true;
    clearInterval(this.sweep);
    if (this.signalWindow !== null) clearTimeout(this.signalWindow);
    this.heldSignals = [];
    this.unsubscribe();
    this.unsubscribeSignals();
    const saves: Promise<void>[] = [];
    for (const s of [...this.byId.values()]) {
      this.detach(s, false);
      const m = this.resumePoint(s);
      if (m) saves.push(this.saveCheckpoint(s, m, true));
      s.conn.wire.close(CLOSE.RESTARTING, 'server restarting, resume');
    }
    for (const p of this.pending) p.wire.close(CLOSE.RESTARTING, 'server restarting');
    await Promise.all(saves);
    // ws calls back once every client is gone. Clients answer a close frame at once; one
    // that does not is cut after a second instead of holding the shutdown for ws's 30 s.
    const gone = new Promise<void>((resolve) => this.wss.close(() => resolve()));
    const cut = setTimeout(() => {
      for (const c of this.wss.clients) c.terminate();
    }, 1000);
    await gone;
    clearTimeout(cut);
  }
}

/** Whether a `user` entry is for `session`: the user's own, or a member of one of its servers who may see it. */
function concerns(session: Session, entry: Extract<BusEntry, { kind: 'user' }>): boolean {
  if (session.caller.id === entry.userId) return entry.toSelf !== false;
  // A name and avatar are what the member list shows: membership is enough (`visibilityOf`).
  return entry.serverIds.some((id) => session.servers.has(id));
}

class InvalidSession extends Error {}
class ClosedDuringStart extends Error {}
class TooManySessions extends Error {}

/** What ws would refuse in this handshake (RFC 6455 section 4.2.1), or null when it is acceptable. */
function handshakeProblem(req: IncomingMessage): string | null {
  if (req.method !== 'GET') return 'the gateway handshake must be a GET request';
  if ((req.headers.upgrade ?? '').toLowerCase() !== 'websocket') return 'Upgrade: websocket is required';
  const key = req.headers['sec-websocket-key'];
  if (typeof key !== 'string' || !/^[+/0-9A-Za-z]{22}==$/.test(key.trim())) return 'Sec-WebSocket-Key is missing or invalid';
  const version = req.headers['sec-websocket-version'];
  if (version !== '13' && version !== '8') return 'Sec-WebSocket-Version must be 13';
  const protocols = req.headers['sec-websocket-protocol'];
  if (protocols !== undefined && !/^\s*[!#$%&'*+\-.^_`|~0-9A-Za-z]+(\s*,\s*[!#$%&'*+\-.^_`|~0-9A-Za-z]+)*\s*$/.test(protocols)) {
    return 'Sec-WebSocket-Protocol is malformed';
  }
  return null;
}

/** The client's address for per-address limits: the socket's, or the first X-Forwarded-For hop behind a trusted proxy. */
function clientAddress(req: IncomingMessage, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = req.headers['x-forwarded-for'];
    const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim();
    if (first) return first;
  }
  return req.socket.remoteAddress ?? 'unknown';
}

/**
 * The view after `entry`: a delta applied (`ServerModel.withDelta`), a newer whole model,
 * a channel added, changed or removed, or the member's new roles. A MEMBER_ADD's model is
 * for the joining member alone (`apply`): it changes nothing the members have not had from
 * the entries before it (a bot's managed role comes as its own ROLE_CREATE).
 */
function nextView(view: View, entry: Extract<BusEntry, { kind: 'event' }>, self: boolean): View {
  const { event } = entry;
  let model = view.model;
  if (entry.delta) {
    let next = model.next.get(entry);
    if (!next) model.next.set(entry, (next = model.withDelta(entry.delta)));
    model = next;
  }
  if (entry.model && event.t !== 'MEMBER_ADD' && entry.model.version > model.version) {
    let next = model.next.get(entry);
    if (!next) model.next.set(entry, (next = model.followedBy(modelOf(entry.model))));
    model = next;
  } else if (event.t === 'CHANNEL_CREATE' || event.t === 'CHANNEL_UPDATE' || event.t === 'CHANNEL_DELETE') {
    let next = model.next.get(entry);
    if (!next) {
      const d = event.d;
      const info = {
        id: d.id,
        serverId: d.serverId,
        name: d.name,
        createdAt: d.createdAt,
        topic: d.topic ?? null,
        position: d.position ?? 0,
      };
      model.next.set(entry, (next = model.withChannel(d.id, event.t === 'CHANNEL_DELETE' ? null : info)));
    }
    model = next;
  }
  let roles = view.roles;
  if (self && (event.t === 'MEMBER_UPDATE' || event.t === 'MEMBER_ADD')) {
    const given = entry.roles ?? (event.t === 'MEMBER_UPDATE' ? event.d.roles : undefined);
    if (given) roles = roleSet(given);
  }
  return model === view.model && sameRoles(roles, view.roles) ? view : { model, roles };
}

/** The channels of a server the caller may see in `view`. */
function visibleChannels(model: ServerModel, caller: Caller, roles: readonly string[]) {
  return [...model.channels.values()]
    .filter((c) => (model.permissions(caller.id, caller.bot, roles, c.id) & P.VIEW_CHANNEL) !== 0n)
    .sort((a, b) => a.position - b.position || a.id.length - b.id.length || (a.id < b.id ? -1 : 1));
}

/** A channel as events show it, with its overwrites from the model. */
function channelOf(model: ServerModel, id: string) {
  const c = model.channels.get(id);
  if (!c) return undefined;
  return {
    ...c,
    permissionOverwrites: (model.overwrites.get(id) ?? []).map((o) => ({
      id: o.id,
      type: o.type,
      allow: o.allow.toString(),
      deny: o.deny.toString(),
    })),
  };
}

/** Channels that became visible or hidden between two views. */
function visibilityChanges(before: View, after: View, caller: Caller): { gained: string[]; lost: string[] } | null {
  const was = new Set(visibleChannels(before.model, caller, before.roles).map((c) => c.id));
  const now = new Set(visibleChannels(after.model, caller, after.roles).map((c) => c.id));
  const gained = [...now].filter((id) => !was.has(id));
  const lost = [...was].filter((id) => !now.has(id) && after.model.channels.has(id));
  return gained.length + lost.length === 0 ? null : { gained, lost };
}

/** Whether a session with `view` may receive `event` (`permissions.visibilityOf`). */
function mayReceive(view: View, caller: Caller, event: GatewayEvent): boolean {
  const needed = visibilityOf(event);
  if (needed === null) return true;
  if ('channel' in needed) {
    return (view.model.permissions(caller.id, caller.bot, view.roles, needed.channel) & needed.needs) === needed.needs;
  }
  return (view.model.permissions(caller.id, caller.bot, view.roles) & needed.server) === needed.server;
}

/**
 * Whether a resume can replay `missed` with the views it rebuilt. Those of `exact` are the
 * models the checkpoint carried, as they stood at its position: every missed entry applies
 * to them as it did live, so they replay whatever changed. The others were read from the
 * store (at the checkpoint's version): not when an entry changed the permissions `userId`
 * has in one of them, nor when a channel that existed at the checkpoint was deleted since.
 * Its overwrites went with it, and no permission version records that, so the model read
 * now cannot judge the missed events of that channel (they would be judged as if it had no
 * overwrites).
 */
function replayable(missed: Array<[LogPosition, BusEntry]>, userId: string, servers: Map<string, View>, exact: Set<string>): boolean {
  const created = new Set<string>();
  for (const [, e] of missed) {
    if (e.kind === 'event' && exact.has(e.serverId)) continue;
    if (changesPermissionsOf(e, userId, servers)) return false;
    if (e.kind !== 'event' || !servers.has(e.serverId)) continue;
    if (e.event.t === 'CHANNEL_CREATE') created.add(e.event.d.id);
    else if (e.event.t === 'CHANNEL_DELETE' && !created.has(e.event.d.id)) return false;
  }
  return true;
}

/** Whether a missed entry changed the permissions `userId` has in the servers of `servers`. */
function changesPermissionsOf(entry: BusEntry, userId: string, servers: Map<string, View>): boolean {
  if (entry.kind !== 'event' || !servers.has(entry.serverId)) return false;
  const version = servers.get(entry.serverId)!.model.version;
  if (entry.model && entry.model.version !== version) return true;
  if (entry.delta && entry.delta.version !== version) return true;
  const e = entry.event;
  return e.t === 'MEMBER_UPDATE' && e.d.user.id === userId;
}

function addTo<K, V>(map: Map<K, Set<V>>, key: K, value: V): void {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  set.add(value);
}

function removeFrom<K, V>(map: Map<K, Set<V>>, key: K, value: V): void {
  const set = map.get(key);
  if (!set) return;
  set.delete(value);
  if (set.size === 0) map.delete(key);
}
