import type { IncomingMessage, Server as HttpServer } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import { accounts, publicUser } from '../domain/accounts.js';
import type { DomainContext } from '../domain/context.js';
import type { Caller } from '../domain/types.js';
import { AppError } from '../errors.js';
import type { EventBus, LogPosition, SessionCheckpoint } from '../events/bus.js';
import type { BusEntry } from '../events/types.js';
import { newId } from '../ids.js';
import { CLOSE, type ClientFrame, EventFrame, frame, parseClientFrame } from './frames.js';

export interface GatewayOptions {
  heartbeatMs: number;
  /** How long a dropped session can be resumed. */
  resumeWindowMs: number;
  /** Bytes queued to one client before it counts as a slow consumer. */
  maxBufferedBytes?: number;
  report: (err: unknown, what: string) => void;
}

/** A point where the session's numbering and membership are known; resume starts from one. */
interface Mark {
  s: number;
  pos: LogPosition;
  serverIds: string[];
}

/**
 * One client's view of the event log: which servers it belongs to, the sequence number
 * of the last event it was sent, and the log position that event came from.
 */
class Session {
  s = 0;
  serverIds: Set<string>;
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
    serverIds: Iterable<string>,
    readonly ws: WebSocket,
  ) {
    this.serverIds = new Set(serverIds);
    this.mark();
  }

  mark(): void {
    this.marks.push({ s: this.s, pos: this.pos, serverIds: [...this.serverIds] });
    if (this.marks.length > 8) this.marks.shift();
  }

  /**
   * The latest mark at or before `acked`: a resume point for a client that has seen at
   * least `acked` events. A later mark would not do: the client may have lost the
   * events in flight between `acked` and it.
   */
  markFor(acked: number): Mark | undefined {
    if (acked === this.s) return { s: this.s, pos: this.pos, serverIds: [...this.serverIds] };
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

/** A connection that has not identified yet. */
interface Pending {
  ws: WebSocket;
  opened: number;
}

const MARK_EVERY = 64;

/**
 * The WebSocket gateway: identify/resume, heartbeats, and fan-out of bus entries to
 * the sessions of each server's members, in log order.
 */
export class Gateway {
  private readonly wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: 64 * 1024 });
  private readonly pending = new Set<Pending>();
  private readonly byServer = new Map<string, Set<Session>>();
  private readonly byUser = new Map<string, Set<Session>>();
  private readonly byId = new Map<string, Session>();
  private readonly catchingUp = new Set<Session>();
  /** Keyed by user id (every session) or `userId/sessionId` (one login session). */
  private readonly revocations = new Map<string, Revocation>();
  private readonly unsubscribe: () => void;
  private readonly sweep: NodeJS.Timeout;
  private readonly maxBuffered: number;
  private closing = false;

  constructor(
    private readonly ctx: DomainContext,
    private readonly bus: EventBus,
    private readonly opts: GatewayOptions,
  ) {
    this.maxBuffered = opts.maxBufferedBytes ?? 1024 * 1024;
    this.unsubscribe = bus.subscribe((pos, entry) => this.dispatch(pos, entry));
    // One timer for every connection, so an idle connection costs no timer of its own.
    this.sweep = setInterval(() => this.checkHeartbeats(), Math.min(1000, Math.max(50, opts.heartbeatMs / 4)));
    this.sweep.unref();
  }

  /** Takes over `GET /gateway` upgrades on the HTTP server. */
  attach(server: HttpServer): void {
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      const path = (req.url ?? '').split('?')[0];
      if (path !== '/gateway' || this.closing) {
        socket.end('HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n{"error":"not found"}');
        return;
      }
      this.wss.handleUpgrade(req, socket, head, (ws) => this.open(ws));
    });
  }

  /** Connected sessions (for tests and metrics). */
  get sessionCount(): number {
    return this.byId.size;
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

  private open(ws: WebSocket): void {
    const p: Pending = { ws, opened: Date.now() };
    this.pending.add(p);
    ws.send(frame('hello', { heartbeatInterval: this.opts.heartbeatMs }));
    let session: Session | null = null;
    let busy = false;
    ws.on('message', (data, isBinary) => {
      const f = isBinary ? null : parseClientFrame(data.toString());
      if (!f) return ws.close(CLOSE.MALFORMED, 'malformed frame');
      if (f.op === 'heartbeat') {
        // Before identify a heartbeat is answered but does not extend the identify deadline,
        // so a connection cannot stay unauthenticated forever.
        if (session) this.heartbeat(session, f.d?.s ?? null);
        return ws.send(frame('heartbeat_ack'));
      }
      if (session || busy) return ws.close(CLOSE.MALFORMED, 'already identified');
      busy = true;
      this.start(ws, f)
        .then((s) => {
          session = s;
          this.pending.delete(p);
        })
        .catch((err) => {
          busy = false;
          if (err instanceof AppError && err.status === 401) ws.close(CLOSE.BAD_TOKEN, 'invalid token');
          else if (err instanceof InvalidSession) ws.send(frame('invalid_session', { resumable: false }));
          else if (!(err instanceof ClosedDuringStart)) {
            this.opts.report(err, 'gateway start failed');
            ws.close(1011, 'internal error');
          }
        });
    });
    ws.on('close', () => {
      this.pending.delete(p);
      if (session) this.detach(session);
    });
    ws.on('error', () => ws.terminate());
  }

  private async start(ws: WebSocket, f: Exclude<ClientFrame, { op: 'heartbeat' }>): Promise<Session> {
    // Revocations dispatched from here on were not seen by the authentication below.
    const since = this.bus.position();
    const caller = await accounts.authenticate(this.ctx, f.d.token);
    if (f.op === 'identify') return this.identify(ws, caller, since);
    return this.resume(ws, caller, f.d.sessionId, f.d.s, since);
  }

  private async identify(ws: WebSocket, caller: Caller, since: LogPosition): Promise<Session> {
    // Register first (catching up) so nothing published from here on is missed.
    const session = new Session(newId(), caller, this.bus.position(), [], ws);
    this.catchingUp.add(session);
    try {
      const servers = await this.ctx.store.servers.ofMember(this.ctx.store.db, caller.id);
      const channels = await this.ctx.store.channels.ofServers(this.ctx.store.db, servers.map((s) => s.id));
      for (const s of servers) session.serverIds.add(s.id);
      session.marks = [];
      session.mark();
      if (ws.readyState !== WebSocket.OPEN) throw new ClosedDuringStart();
      ws.send(
        frame('ready', {
          sessionId: session.id,
          user: { ...publicUser({ ...caller, bot: caller.bot ? 1 : 0 }) },
          servers: servers.map((s) => ({
            id: s.id,
            name: s.name,
            ownerId: s.ownerId,
            createdAt: s.createdAt,
            channels: channels.filter((c) => c.serverId === s.id).map((c) => ({ id: c.id, serverId: c.serverId, name: c.name, createdAt: c.createdAt })),
          })),
        }),
      );
      this.goLive(session, [], since);
      // Not awaited: between going live and returning, no close event may slip in.
      void this.saveCheckpoint(session, session.marks[0]!);
      return session;
    } finally {
      this.catchingUp.delete(session);
    }
  }

  private async resume(ws: WebSocket, caller: Caller, sessionId: string, acked: number, since: LogPosition): Promise<Session> {
    const cp = await this.bus.loadCheckpoint(sessionId);
    if (!cp || cp.userId !== caller.id || acked < cp.s) throw new InvalidSession();
    // A connection of the same session still open (a zombie) must not receive twice.
    const old = this.byId.get(sessionId);
    if (old) {
      this.detach(old, false);
      old.ws.terminate();
    }
    const session = new Session(sessionId, caller, cp.pos, cp.serverIds, ws);
    session.s = cp.s;
    session.acked = cp.s;
    session.saved = { s: cp.s, pos: cp.pos, serverIds: cp.serverIds };
    this.catchingUp.add(session);
    try {
      const missed = await this.bus.readAfter(cp.pos);
      if (!missed) throw new InvalidSession();
      if (ws.readyState !== WebSocket.OPEN) throw new ClosedDuringStart();
      this.goLive(session, missed, since, acked);
      if (session.s < acked) {
        // The client claims events this session never had.
        this.detach(session, false);
        throw new InvalidSession();
      }
      // The client has every event up to `acked`: that is where it would resume next.
      session.acked = acked;
      ws.send(frame('resumed', { sessionId, s: session.s }));
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
      session.ws.close(CLOSE.BAD_TOKEN, revoked);
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
    session.slack = session.ws.bufferedAmount;
    // Two resumes of one session may race (each awaits the store): the last one wins.
    const other = this.byId.get(session.id);
    if (other && other !== session) {
      this.detach(other, false);
      other.ws.terminate();
    }
    this.byId.set(session.id, session);
    addTo(this.byUser, session.caller.id, session);
    for (const id of session.serverIds) addTo(this.byServer, id, session);
  }

  /** Live fan-out of one log entry, in log order. */
  private dispatch(pos: LogPosition, entry: BusEntry): void {
    for (const s of this.catchingUp) s.backlog?.push([pos, entry]);
    if (entry.kind === 'revoke') {
      const key = entry.sessionId ? `${entry.userId}/${entry.sessionId}` : entry.userId;
      this.revocations.set(key, { pos, reason: entry.reason, at: Date.now() });
      for (const s of [...(this.byUser.get(entry.userId) ?? [])]) {
        if (entry.sessionId && s.caller.sessionId !== entry.sessionId) continue;
        this.detach(s, false);
        void this.bus.deleteCheckpoint(s.id).catch(() => {});
        s.ws.close(CLOSE.BAD_TOKEN, entry.reason);
      }
      return;
    }
    const { event, serverId } = entry;
    const members = this.byServer.get(serverId);
    const joining = event.t === 'MEMBER_ADD' ? this.byUser.get(event.d.user.id) : undefined;
    if (!members && !joining) return;
    // Membership events change the indexes while they are applied: iterate a copy then.
    // Otherwise iterate the index itself (a slow consumer dropped mid-way is only deleted).
    const membership = event.t === 'MEMBER_ADD' || event.t === 'MEMBER_REMOVE';
    const audience = membership ? new Set([...(members ?? []), ...(joining ?? [])]) : members!;
    const prepared = new EventFrame(event.t, event.d);
    for (const s of audience) this.apply(s, pos, entry, 0, prepared);
  }

  /**
   * The one rule of who gets what, used live and in replay alike so numbering agrees:
   * events of the session's servers; a MEMBER_ADD of the session's own user joins the
   * server first; a MEMBER_REMOVE of it leaves the server after delivering the notice.
   */
  private apply(session: Session, pos: LogPosition, entry: BusEntry, skipThrough: number, prepared?: EventFrame): void {
    if (entry.kind !== 'event' || session.closed) return;
    // A resume may have replayed entries this instance has not dispatched yet; never twice.
    if (this.bus.compare(pos, session.pos) <= 0) return;
    const { event, serverId } = entry;
    const self = (event.t === 'MEMBER_ADD' || event.t === 'MEMBER_REMOVE') && event.d.user.id === session.caller.id;
    if (self && event.t === 'MEMBER_ADD' && !session.serverIds.has(serverId)) {
      session.serverIds.add(serverId);
      if (session.backlog === null) addTo(this.byServer, serverId, session);
    }
    if (!session.serverIds.has(serverId)) return;
    session.s++;
    session.pos = pos;
    if (session.s > skipThrough) this.send(session, (prepared ?? new EventFrame(event.t, event.d)).withSeq(session.s));
    if (self && event.t === 'MEMBER_REMOVE') {
      session.serverIds.delete(serverId);
      if (session.backlog === null) removeFrom(this.byServer, serverId, session);
    }
    // A mark is taken only after an event is counted, so (s, pos, servers) always agree.
    if (self || session.s % MARK_EVERY === 0) session.mark();
  }

  /** Sends an event frame (UTF-8 bytes of JSON, as a text frame), unless the client has stopped reading. */
  private send(session: Session, data: Buffer): void {
    const ws = session.ws;
    if (ws.readyState !== WebSocket.OPEN) return;
    if (session.replaying) return ws.send(data, { binary: false });
    const buffered = ws.bufferedAmount;
    if (session.slack > 0 && buffered <= this.maxBuffered) session.slack = 0;
    if (buffered > this.maxBuffered + session.slack) {
      // A client that stopped reading: drop it (it can resume) instead of buffering without bound.
      this.detach(session);
      ws.close(CLOSE.SLOW_CONSUMER, 'slow consumer');
      setTimeout(() => ws.terminate(), 1000).unref();
      return;
    }
    ws.send(data, { binary: false });
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

  private saveCheckpoint(session: Session, m: Mark): Promise<void> {
    session.saved = m;
    const cp: SessionCheckpoint = { userId: session.caller.id, s: m.s, pos: m.pos, serverIds: m.serverIds };
    return this.bus.saveCheckpoint(session.id, cp, this.opts.resumeWindowMs).catch((err) => this.opts.report(err, 'checkpoint save failed'));
  }

  /** Unregisters a session; by default leaves a checkpoint so the client can resume. */
  private detach(session: Session, resumable = true): void {
    if (session.closed) return;
    this.catchUp(session);
    session.closed = true;
    if (this.byId.get(session.id) === session) this.byId.delete(session.id);
    removeFrom(this.byUser, session.caller.id, session);
    for (const id of session.serverIds) removeFrom(this.byServer, id, session);
    if (resumable) {
      // Saved again even if unchanged, so the resume window runs from the disconnect.
      const m = this.resumePoint(session);
      if (m) void this.saveCheckpoint(session, m);
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
    for (const p of this.pending) if (p.opened < deadline) p.ws.close(CLOSE.HEARTBEAT_TIMEOUT, 'identify timeout');
    for (const s of this.byId.values()) {
      if (s.lastHeartbeat < deadline) {
        this.detach(s);
        s.ws.close(CLOSE.HEARTBEAT_TIMEOUT, 'missed heartbeats');
        setTimeout(() => s.ws.terminate(), 1000).unref();
      }
    }
  }

  /** Asks every client to reconnect (they resume elsewhere), leaving checkpoints behind. */
  async close(): Promise<void> {
    this.closing = true;
    clearInterval(this.sweep);
    this.unsubscribe();
    const saves: Promise<void>[] = [];
    for (const s of [...this.byId.values()]) {
      this.detach(s, false);
      const m = this.resumePoint(s);
      if (m) saves.push(this.saveCheckpoint(s, m));
      s.ws.close(CLOSE.RESTARTING, 'server restarting, resume');
    }
    for (const p of this.pending) p.ws.close(CLOSE.RESTARTING, 'server restarting');
    await Promise.all(saves);
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
    for (const c of this.wss.clients) c.terminate();
  }
}

class InvalidSession extends Error {}
class ClosedDuringStart extends Error {}

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
