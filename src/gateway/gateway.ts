import type { IncomingMessage, Server as HttpServer } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import { accounts, publicUser } from '../domain/accounts.js';
import type { DomainContext } from '../domain/context.js';
import { maySee } from '../domain/permissions.js';
import type { Caller } from '../domain/types.js';
import { AppError } from '../errors.js';
import { answerIgnoringUpgrade, answerRaw } from '../http/raw-answer.js';
import type { EventBus, LogPosition, SessionCheckpoint } from '../events/bus.js';
import type { BusEntry } from '../events/types.js';
import { CLOSE_CODES as CLOSE, type ClientFrame } from '@parley/protocol';
import { EventFrame, frame, parseClientFrame } from './frames.js';

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
  /** Take the client address from X-Forwarded-For (behind a trusted reverse proxy). */
  trustProxy?: boolean;
  report: (err: unknown, what: string) => void;
}

/** A point where the session's numbering, membership and permissions are known; resume starts from one. */
interface Mark {
  s: number;
  pos: LogPosition;
  servers: Array<[string, number]>;
}

/**
 * One client's view of the event log: the servers it belongs to with its permission bits
 * in each, the sequence number of the last event it was sent, and the log position that
 * event came from. The permissions change only through log entries (MEMBER_ADD,
 * MEMBER_UPDATE), so live delivery and a resume's replay filter alike.
 */
class Session {
  s = 0;
  servers: Map<string, number>;
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
    servers: Iterable<[string, number]>,
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
  opened: number;
  address: string;
  session: Session | null;
  /** An identify or resume is in progress. */
  busy: boolean;
}

const MARK_EVERY = 64;

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
  private readonly sweep: NodeJS.Timeout;
  private readonly maxBuffered: number;
  private readonly maxPendingPerAddress: number;
  private readonly maxSessionsPerToken: number;
  private closing = false;

  constructor(
    private readonly ctx: DomainContext,
    private readonly bus: EventBus,
    private readonly opts: GatewayOptions,
  ) {
    this.maxBuffered = opts.maxBufferedBytes ?? 1024 * 1024;
    this.maxPendingPerAddress = opts.maxPendingPerAddress ?? 64;
    this.maxSessionsPerToken = opts.maxSessionsPerToken ?? 32;
    this.unsubscribe = bus.subscribe((pos, entry) => this.dispatch(pos, entry));
    // One timer for every connection, so an idle connection costs no timer of its own.
    this.sweep = setInterval(() => this.checkHeartbeats(), Math.min(1000, Math.max(50, opts.heartbeatMs / 4)));
    this.sweep.unref();
  }

  /** Takes over `GET /gateway` upgrades on the HTTP server. */
  attach(server: HttpServer): void {
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      const path = (req.url ?? '').split('?')[0];
      if (path !== '/gateway') return answerIgnoringUpgrade(server, req, socket);
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
      this.wss.handleUpgrade(req, socket, head, (ws) => this.open(ws, address));
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

  private open(ws: WebSocket, address: string): void {
    const conn: Connection = { ws, opened: Date.now(), address, session: null, busy: false };
    this.addPending(conn);
    ws.send(frame('hello', { heartbeatInterval: this.opts.heartbeatMs }));
    ws.on('message', (data, isBinary) => {
      const f = isBinary ? null : parseClientFrame(data.toString());
      if (!f) return ws.close(CLOSE.MALFORMED, 'malformed frame');
      if (f.op === 'heartbeat') {
        // Before identify a heartbeat is answered but does not extend the identify deadline,
        // so a connection cannot stay unauthenticated forever.
        if (conn.session) this.heartbeat(conn.session, f.d?.s ?? null);
        return ws.send(frame('heartbeat_ack'));
      }
      if (conn.session || conn.busy) return ws.close(CLOSE.MALFORMED, 'already identified');
      conn.busy = true;
      this.start(conn, f)
        .then((s) => {
          conn.busy = false;
          conn.session = s;
          this.removePending(conn);
        })
        .catch((err) => {
          conn.busy = false;
          if (err instanceof AppError && err.status === 401) ws.close(CLOSE.BAD_TOKEN, 'invalid token');
          else if (err instanceof TooManySessions) ws.close(CLOSE.TOO_MANY_SESSIONS, err.message);
          else if (err instanceof InvalidSession) ws.send(frame('invalid_session', { resumable: false }));
          else if (!(err instanceof ClosedDuringStart)) {
            this.opts.report(err, 'gateway start failed');
            ws.close(1011, 'internal error');
          }
        });
    });
    ws.on('close', () => {
      this.removePending(conn);
      if (conn.session) this.detach(conn.session);
    });
    ws.on('error', () => ws.terminate());
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

  private async start(conn: Connection, f: Exclude<ClientFrame, { op: 'heartbeat' }>): Promise<Session> {
    // Revocations dispatched from here on were not seen by the authentication below.
    const since = this.bus.position();
    const caller = await accounts.authenticate(this.ctx, f.d.token);
    if (f.op === 'identify') return this.identify(conn, caller, since);
    return this.resume(conn, caller, f.d.sessionId, f.d.s, since);
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
      const servers = await this.ctx.store.servers.ofMember(this.ctx.store.db, caller.id);
      const channels = await this.ctx.store.channels.ofServers(
        this.ctx.store.db,
        servers.map((s) => s.id),
      );
      for (const s of servers) session.servers.set(s.id, s.permissions);
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
            channels: channels
              .filter((c) => c.serverId === s.id)
              .map((c) => ({ id: c.id, serverId: c.serverId, name: c.name, createdAt: c.createdAt })),
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

  private async resume(conn: Connection, caller: Caller, sessionId: string, acked: number, since: LogPosition): Promise<Session> {
    const ws = conn.ws;
    const cp = await this.bus.loadCheckpoint(sessionId);
    if (!cp || cp.userId !== caller.id || acked < cp.s) throw new InvalidSession();
    // A connection of the same session still open (a zombie) must not receive twice.
    const old = this.byId.get(sessionId);
    if (old) {
      this.detach(old, false);
      old.ws.terminate();
    }
    const session = new Session(sessionId, caller, cp.pos, cp.servers, ws, conn);
    session.s = cp.s;
    session.acked = cp.s;
    session.saved = { s: cp.s, pos: cp.pos, servers: cp.servers };
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
    for (const id of session.servers.keys()) addTo(this.byServer, id, session);
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
    if (entry.kind === 'gap') {
      this.resynchronise(entry.serverIds);
      return;
    }
    if (entry.kind === 'user') {
      // Each session once, whether it is the user's own or shares one or many servers with it.
      const audience = new Set(this.byUser.get(entry.userId));
      for (const id of entry.serverIds) for (const s of this.byServer.get(id) ?? []) audience.add(s);
      const prepared = new EventFrame(entry.event.t, entry.event.d);
      for (const s of audience) this.apply(s, pos, entry, 0, prepared);
      return;
    }
    if (entry.kind !== 'event') return;
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
   * events of the session's servers that its permissions there let it see
   * (`permissions.maySee`, the rule REST reads follow too); a MEMBER_ADD or MEMBER_UPDATE
   * of the session's own user sets its permissions first (joining the server on ADD); a
   * MEMBER_REMOVE of it leaves the server after delivering the notice.
   */
  private apply(session: Session, pos: LogPosition, entry: BusEntry, skipThrough: number, prepared?: EventFrame): void {
    if ((entry.kind !== 'event' && entry.kind !== 'user') || session.closed) return;
    // A resume may have replayed entries this instance has not dispatched yet; never twice.
    if (this.bus.compare(pos, session.pos) <= 0) return;
    if (entry.kind === 'user') {
      if (!concerns(session, entry)) return;
      session.s++;
      session.pos = pos;
      if (session.s > skipThrough) this.send(session, (prepared ?? new EventFrame(entry.event.t, entry.event.d)).withSeq(session.s));
      if (session.s % MARK_EVERY === 0) session.mark();
      return;
    }
    const { event, serverId } = entry;
    const self =
      (event.t === 'MEMBER_ADD' || event.t === 'MEMBER_UPDATE' || event.t === 'MEMBER_REMOVE') && event.d.user.id === session.caller.id;
    if (self && 'permissions' in entry) {
      if (event.t === 'MEMBER_ADD' && !session.servers.has(serverId) && session.backlog === null) addTo(this.byServer, serverId, session);
      // An update for a server the session has left (or never joined) grants nothing.
      if (event.t === 'MEMBER_ADD' || session.servers.has(serverId)) session.servers.set(serverId, entry.permissions);
    }
    const bits = session.servers.get(serverId);
    if (bits === undefined || !maySee(bits, event)) return;
    session.s++;
    session.pos = pos;
    if (session.s > skipThrough) this.send(session, (prepared ?? new EventFrame(event.t, event.d)).withSeq(session.s));
    if (self && event.t === 'MEMBER_REMOVE') {
      session.servers.delete(serverId);
      if (session.backlog === null) removeFrom(this.byServer, serverId, session);
    }
    // A mark is taken only after an event is counted, so (s, pos, servers) always agree.
    if (self || session.s % MARK_EVERY === 0) session.mark();
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
      s.ws.send(frame('invalid_session', { resumable: false }));
    }
  }

  /** Sends an event frame (UTF-8 bytes of JSON, as a text frame), unless the client has stopped reading. */
  private send(session: Session, data: Buffer): void {
    const ws = session.ws;
    if (ws.readyState !== WebSocket.OPEN) return;
    if (session.replaying) {
      ws.send(data, { binary: false });
      return;
    }
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
    const cp: SessionCheckpoint = { userId: session.caller.id, s: m.s, pos: m.pos, servers: m.servers };
    return this.bus
      .saveCheckpoint(session.id, cp, this.opts.resumeWindowMs)
      .catch((err) => this.opts.report(err, 'checkpoint save failed'));
  }

  /** Unregisters a session; by default leaves a checkpoint so the client can resume. */
  private detach(session: Session, resumable = true): void {
    if (session.closed) return;
    this.catchUp(session);
    session.closed = true;
    if (this.byId.get(session.id) === session) this.byId.delete(session.id);
    removeFrom(this.byUser, session.caller.id, session);
    for (const id of session.servers.keys()) removeFrom(this.byServer, id, session);
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

/** Whether a `user` entry is for `session`: the user's own, or a member of one of its servers who may see it. */
function concerns(session: Session, entry: Extract<BusEntry, { kind: 'user' }>): boolean {
  if (session.caller.id === entry.userId) return true;
  return entry.serverIds.some((id) => {
    const bits = session.servers.get(id);
    return bits !== undefined && maySee(bits, entry.event);
  });
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
