import type { ChosenStatus, PresenceStatus } from '@parley/protocol';
import { type PresenceStore, mostPresent } from './store.js';

export interface PresenceOptions {
  /** How long after a person's last connection here closes they still count as connected (a reload, a resume). */
  graceMs: number;
  /** At most one PRESENCE_UPDATE per person per this long; changes in between are merged into the last. */
  minIntervalMs: number;
}

/**
 * This instance's connections, per person and session, and what they amount to. Changes
 * go to the shared store in order per person; when what others see changes, `announce`
 * is called, at most once per `minIntervalMs` per person (the latest status wins), so a
 * person whose connection flaps cannot flood the servers they are in.
 */
export class PresenceTracker {
  private readonly sessions = new Map<string, Map<string, ChosenStatus>>();
  /** Statuses of sessions that closed within the grace period: a resume keeps its status. */
  private readonly recent = new Map<string, ChosenStatus>();
  private readonly leaving = new Map<string, NodeJS.Timeout>();
  private readonly chains = new Map<string, Promise<void>>();
  private readonly lastAnnounced = new Map<
    string,
    { at: number; status: PresenceStatus; pending?: NodeJS.Timeout; next?: PresenceStatus }
  >();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly store: PresenceStore,
    private readonly announce: (userId: string, status: PresenceStatus) => Promise<void>,
    private readonly opts: PresenceOptions,
    private readonly report: (err: unknown, what: string) => void,
    sweepMs = 10_000,
  ) {
    this.timer = setInterval(() => {
      this.store.sweep().then(
        (changes) => {
          for (const [userId, status] of changes) this.changed(userId, status);
        },
        (err: unknown) => this.report(err, 'presence sweep failed'),
      );
    }, sweepMs);
    this.timer.unref();
  }

  /** A session went live (an identify, or a resume: then its earlier status stands unless given). */
  connect(userId: string, sessionId: string, status?: ChosenStatus): void {
    const timer = this.leaving.get(`${userId}/${sessionId}`);
    if (timer) clearTimeout(timer);
    this.leaving.delete(`${userId}/${sessionId}`);
    let mine = this.sessions.get(userId);
    if (!mine) this.sessions.set(userId, (mine = new Map()));
    mine.set(sessionId, status ?? this.recent.get(sessionId) ?? 'online');
    this.recent.delete(sessionId);
    this.sync(userId);
  }

  /** The session chose a status (op `presence_update`). */
  update(userId: string, sessionId: string, status: ChosenStatus): void {
    const mine = this.sessions.get(userId);
    if (!mine?.has(sessionId)) return;
    mine.set(sessionId, status);
    this.sync(userId);
  }

  /** The session's connection closed: it stops counting after the grace period unless it resumes. */
  disconnect(userId: string, sessionId: string): void {
    const mine = this.sessions.get(userId);
    const status = mine?.get(sessionId);
    if (!mine || status === undefined) return;
    const key = `${userId}/${sessionId}`;
    this.recent.set(sessionId, status);
    const leave = () => {
      this.leaving.delete(key);
      this.recent.delete(sessionId);
      const now = this.sessions.get(userId);
      if (!now?.delete(sessionId)) return;
      if (now.size === 0) this.sessions.delete(userId);
      this.sync(userId);
    };
    if (this.opts.graceMs <= 0) {
      leave();
      return;
    }
    const t = setTimeout(leave, this.opts.graceMs);
    t.unref();
    this.leaving.set(key, t);
  }

  /** Tells the store what this instance's sessions of `userId` amount to, in order. */
  private sync(userId: string): void {
    const prev = this.chains.get(userId) ?? Promise.resolve();
    const next = prev.then(async () => {
      const mine = this.sessions.get(userId);
      const changed = await this.store.set(userId, mine ? mostPresent(mine.values()) : null);
      if (changed) this.changed(userId, changed);
    });
    const settled = next.catch((err) => this.report(err, 'presence update failed'));
    this.chains.set(userId, settled);
    void settled.then(() => {
      if (this.chains.get(userId) === settled) this.chains.delete(userId);
    });
  }

  /** What others see of `userId` changed: announce it now, or once the interval since the last announcement is over. */
  private changed(userId: string, status: PresenceStatus): void {
    const last = this.lastAnnounced.get(userId);
    const now = Date.now();
    if (!last || now - last.at >= this.opts.minIntervalMs) {
      if (last?.pending) clearTimeout(last.pending);
      this.lastAnnounced.set(userId, { at: now, status });
      this.send(userId, status);
      return;
    }
    last.next = status;
    if (last.pending) return;
    last.pending = setTimeout(
      () => {
        const entry = this.lastAnnounced.get(userId);
        if (!entry) return;
        entry.pending = undefined;
        const next = entry.next;
        entry.next = undefined;
        if (next === undefined || next === entry.status) return;
        entry.at = Date.now();
        entry.status = next;
        this.send(userId, next);
      },
      this.opts.minIntervalMs - (now - last.at),
    );
    last.pending.unref();
    // Memory stays bounded by the people connected: forget who has been quiet for a while.
    if (this.lastAnnounced.size > 100_000) {
      for (const [id, e] of this.lastAnnounced) if (!e.pending && now - e.at > this.opts.minIntervalMs) this.lastAnnounced.delete(id);
    }
  }

  private send(userId: string, status: PresenceStatus): void {
    this.announce(userId, status).catch((err) => this.report(err, 'presence announcement failed'));
  }

  /** What others see of `userIds` now. */
  statuses(userIds: readonly string[]): Promise<Map<string, PresenceStatus>> {
    return this.store.get(userIds);
  }

  close(): void {
    clearInterval(this.timer);
    for (const t of this.leaving.values()) clearTimeout(t);
    for (const e of this.lastAnnounced.values()) if (e.pending) clearTimeout(e.pending);
  }
}
