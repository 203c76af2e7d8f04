import type { IncomingMessage, Server as HttpServer } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import { CLOSE_CODES as CLOSE, P } from '@parley/protocol';
import { accounts } from '../domain/accounts.js';
import type { DomainContext } from '../domain/context.js';
import { readyState } from '../domain/ready.js';
import { type ActiveThread, activeThreadsOf, threadListSync } from '../domain/thread-events.js';
import { snapshotIn } from '../domain/roles.js';
import { servers as serverActions } from '../domain/servers.js';
import type { Caller } from '../domain/types.js';
import { AppError } from '../errors.js';
import type { EventBus, LogPosition, SessionCheckpoint } from '../events/bus.js';
import type { BusEntry, Signal } from '../events/types.js';
import { answerIgnoringUpgrade, answerRaw } from '../http/raw-answer.js';
import type { PresenceTracker } from '../presence/tracker.js';
import {
  ClosedDuringStart,
  InvalidSession,
  PendingConnections,
  Revocations,
  TooManySessions,
  clientAddress,
  handshakeProblem,
} from './admission.js';
import { Delivery } from './delivery.js';
import { NativeWire } from './native-wire.js';
import { LAZY_EVENTS } from './outbox.js';
import { type Connection, type Mark, Session } from './session.js';
import { SignalWindow, audiences } from './signals.js';
import { type View, concerns, keptModel, loadedModel, replayable, snapshotOf, step } from './view.js';
import { type Incoming, LiveBatch, Prepared, type Wire } from './wire-interface.js';

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
   * to end and goes out with the rest (`SignalWindow`); 0 sends each at once. Default 250 ms.
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
  /** Connections not identified yet, per client address. */
  private readonly pending: PendingConnections;
  private readonly byServer = new Map<string, Set<Session>>();
  private readonly byUser = new Map<string, Set<Session>>();
  private readonly byId = new Map<string, Session>();
  private readonly catchingUp = new Set<Session>();
  private readonly revocations: Revocations;
  private readonly signals: SignalWindow;
  private readonly delivery: Delivery;
  private readonly unsubscribe: () => void;
  private readonly unsubscribeSignals: () => void;
  private readonly sweep: NodeJS.Timeout;
  private readonly maxSessionsPerToken: number;
  private closing = false;
  /** Active threads being read for THREAD_LIST_SYNC, by parents: one read for every session a change showed them to. */
  private readonly threadReads = new Map<string, Promise<ActiveThread[]>>();

  constructor(
    private readonly ctx: DomainContext,
    private readonly bus: EventBus,
    private readonly opts: GatewayOptions,
  ) {
    this.pending = new PendingConnections(opts.maxPendingPerAddress ?? 64);
    this.maxSessionsPerToken = opts.maxSessionsPerToken ?? 32;
    this.revocations = new Revocations(bus);
    this.signals = new SignalWindow(opts.signalWindowMs ?? 250, (signals) => this.signal(signals));
    this.delivery = new Delivery(opts.maxBufferedBytes ?? 1024 * 1024, (session) => this.detach(session));
    this.unsubscribe = bus.subscribe((pos, entry) => this.dispatch(pos, entry));
    this.unsubscribeSignals = bus.subscribeSignals((signal) => this.signals.take(signal));
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
      if (!this.pending.admits(address)) {
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
  get eventsSent(): ReadonlyMap<string, { n: number }> {
    return this.delivery.eventsSent;
  }

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
    this.pending.add(conn);
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
          this.pending.remove(conn);
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
      this.pending.remove(conn);
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
    const revoked = this.revocations.since(session.caller, since);
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
    if ((entry.kind === 'event' || entry.kind === 'direct') && entry.event.t === 'MESSAGE_CREATE') {
      this.signals.dropTyping(entry.event.d.channelId, entry.event.d.author.id);
    }
    if (entry.kind === 'revoke') {
      this.revocations.remember(entry.userId, entry.sessionId, pos, entry.reason);
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
    const narrowed = entry.thread?.to ?? (entry.thread?.private && !entry.thread.moderators ? entry.thread.members : undefined);
    if (narrowed) {
      // A private thread's content goes to its members' sessions alone (an event for some people, to
      // theirs): nothing is done per other member of the server.
      const prepared = new Prepared(event, undefined, undefined, entry.author);
      for (const id of narrowed)
        for (const s of this.byUser.get(id) ?? []) if (s.servers.has(serverId)) this.apply(s, pos, entry, 0, prepared);
      return;
    }
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
    for (const { signal, batch } of audiences(signals)) {
      if (signal.recipients) {
        for (const id of signal.recipients) for (const s of this.byUser.get(id) ?? []) this.delivery.live(s, batch, null);
        continue;
      }
      const channelId = signal.event.d.channelId;
      const thread = signal.thread;
      const audience = thread?.private
        ? (thread.members ?? []).flatMap((id) => [...(this.byUser.get(id) ?? [])].filter((s) => s.servers.has(signal.serverId)))
        : (this.byServer.get(signal.serverId) ?? []);
      for (const s of audience) {
        if (s.conn.focus !== channelId && !s.caller.bot && s.conn.wire.kind === 'native') continue;
        this.delivery.live(s, batch, signal.serverId, thread);
      }
    }
  }

  /**
   * Applies one log entry to a session, live and in replay alike, so numbering agrees: what
   * it sees and what it is sent is the pure view's rule (`view.ts`, `step`); here the
   * session's indexes follow its membership, and what is sent is numbered (`deliver`).
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
      if (!concerns(session.caller, session.servers, entry)) return;
      this.deliver(session, pos, skipThrough, prepared ?? new Prepared(entry.event, entry.serverIds));
      if (session.s % MARK_EVERY === 0) session.mark();
      return;
    }
    const { event, serverId } = entry;
    const st = step(session.servers, session.caller, entry);
    if (!st) return;
    if (st.joined && session.backlog === null) addTo(this.byServer, serverId, session);
    session.servers.set(serverId, st.after);
    if (st.sendsEvent) this.deliver(session, pos, skipThrough, prepared ?? new Prepared(event, undefined, entry.join, entry.author));
    for (const notice of st.notices) this.deliver(session, pos, skipThrough, new Prepared(notice));
    // Channels whose threads a change opened to it: their active threads follow (docs/threads.md#events).
    if (st.threadsOpened.length > 0) void this.syncThreads(session, serverId, [...st.threadsOpened]);
    if (st.leaving) {
      session.servers.delete(serverId);
      if (session.backlog === null) removeFrom(this.byServer, serverId, session);
    }
    // A mark is taken only after an event is counted, so (s, pos, servers) always agree.
    if (st.marks || session.s % MARK_EVERY === 0) session.mark();
  }

  /**
   * THREAD_LIST_SYNC for channels a permission change showed the session: their active
   * threads it may see, read after the change and judged by its view as it is then. Like a
   * typing signal it is outside the log (not numbered, not replayed): what it lists is read
   * from the store, and every later change of those threads is an event of the log.
   */
  private async syncThreads(session: Session, serverId: string, parentIds: string[]): Promise<void> {
    try {
      const view = session.servers.get(serverId);
      if (!view) return;
      const key = parentIds.join(',');
      let read = this.threadReads.get(key);
      if (!read) {
        read = activeThreadsOf(this.ctx, parentIds);
        this.threadReads.set(key, read);
        const forget = () => this.threadReads.delete(key);
        read.then(forget, forget);
      }
      const { d } = await threadListSync(this.ctx, session.caller, serverId, view, parentIds, await read);
      // Judged again by the view it has now: a change meanwhile may have hidden some.
      const now = session.servers.get(serverId);
      if (session.closed || !now) return;
      const threads =
        now === view
          ? d.threads
          : d.threads.filter(
              (t) =>
                (now.model.threadPermissions(session.caller.id, session.caller.bot, now.roles, t.parentId, {
                  private: t.type === 'private_thread',
                  locked: t.metadata.locked,
                  member: t.member !== undefined,
                }) &
                  P.VIEW_CHANNEL) !==
                0n,
            );
      // Nothing to sync: the session had no threads of channels it could not see to clear.
      if (threads.length === 0) return;
      const sync = { ...d, threads, members: threads.flatMap((t) => (t.member ? [t.member] : [])) };
      this.delivery.live(session, new LiveBatch([new Prepared({ t: 'THREAD_LIST_SYNC', d: sync })]), serverId);
    } catch (err) {
      this.opts.report(err, 'thread list sync failed');
    }
  }

  /** Counts and sends one event frame to the session (unless a resume's client already has it). */
  private deliver(session: Session, pos: LogPosition, skipThrough: number, p: Prepared): void {
    // What the connection's protocol does not carry takes no number, live and in replay alike.
    const f = session.conn.wire.encode(p, session);
    if (!f) return;
    session.s++;
    session.pos = pos;
    if (session.s > skipThrough && this.delivery.send(session, f, session.s, !LAZY_EVENTS.has(p.event.t))) this.delivery.count(f.t);
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
      this.pending.add(s.conn);
      s.conn.wire.invalidSession(false);
    }
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

  private checkHeartbeats(): void {
    const now = Date.now();
    this.revocations.sweep(now);
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
    this.signals.close();
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
