import type { ChosenStatus, PresenceStatus } from '@parley/protocol';

/** online outranks dnd, dnd idle, idle invisible: a person is shown as their most present connection. */
const RANK: Record<ChosenStatus, number> = { online: 3, dnd: 2, idle: 1, invisible: 0 };

/** The most present of `statuses`, or null when there are none. */
export function mostPresent(statuses: Iterable<ChosenStatus>): ChosenStatus | null {
  let best: ChosenStatus | null = null;
  for (const s of statuses) if (best === null || RANK[s] > RANK[best]) best = s;
  return best;
}

/** What others see: `invisible` and no connection at all are both `offline`. */
export const shownAs = (s: ChosenStatus | null): PresenceStatus => (s === null || s === 'invisible' ? 'offline' : s);

/**
 * Where every instance's view of a person's connections meets. Each instance says what
 * its own connections of a person amount to; the store keeps what others are shown (the
 * most present over all instances) and says when that changes, so exactly one instance
 * announces each change.
 */
export interface PresenceStore {
  /** This instance's status for `userId` (null: no connection here). Resolves to what others now see, if that changed. */
  set(userId: string, status: ChosenStatus | null): Promise<PresenceStatus | null>;
  /** What others see of each of `userIds` (absent: offline). */
  get(userIds: readonly string[]): Promise<Map<string, PresenceStatus>>;
  /** Forgets instances that stopped without saying so; resolves to the changes that makes. */
  sweep(): Promise<Array<[string, PresenceStatus]>>;
  close(): Promise<void>;
}

/** One instance: its own connections are all there is. */
export class MemoryPresenceStore implements PresenceStore {
  private readonly shown = new Map<string, PresenceStatus>();

  async set(userId: string, status: ChosenStatus | null): Promise<PresenceStatus | null> {
    const next = shownAs(status);
    if ((this.shown.get(userId) ?? 'offline') === next) return null;
    if (next === 'offline') this.shown.delete(userId);
    else this.shown.set(userId, next);
    return next;
  }

  async get(userIds: readonly string[]): Promise<Map<string, PresenceStatus>> {
    return new Map(userIds.map((id) => [id, this.shown.get(id) ?? 'offline']));
  }

  async sweep(): Promise<Array<[string, PresenceStatus]>> {
    return [];
  }

  async close(): Promise<void> {}
}
