import type { ChannelAccess } from '../store/repos/servers.js';
import type { SessionTable, UserTable } from '../store/schema.js';

/**
 * What authenticating a request and checking a channel read from the store, kept per
 * instance while nothing that could take access away has changed: the rows of bots and
 * of people's sessions, and a member's access to a server's channel. Every entry belongs
 * to one access epoch (`access_epoch`, migration 0013), which triggers bump in the
 * transaction of any change to users, sessions, servers, channels, members, a member's
 * roles (`member_roles`), roles or overwrites. A request reads the epoch once, first; an entry answers only for that same
 * epoch, and a newer epoch empties the cache. So a revocation (a bot deleted, a member
 * kicked, a role changed) is in force for the next request on every instance, as if
 * nothing were cached, while the hot path reads one row instead of two joins.
 *
 * Only what was allowed is kept, never a refusal: a new row (a member joining) cannot
 * make an entry wrong, which is why inserts mostly do not bump the epoch (a role given
 * does: its overwrites may deny).
 */
export class AccessCache {
  private epoch = 0;
  private readonly users = new Map<string, UserTable>();
  private readonly sessions = new Map<string, SessionTable>();
  /** By channel, then by user: no key string is built per request. */
  private readonly channels = new Map<string, Map<string, ChannelAccess>>();
  private channelEntries = 0;

  /** At most `max` entries of each kind; a full map starts over (simple, and rare). */
  constructor(private readonly max = 50_000) {}

  /**
   * Takes in an epoch just read from the store. True when entries may be used and stored
   * under it; false for a read older than one already seen (pooled connections can
   * answer out of order), which then bypasses the cache.
   */
  observe(epoch: number): boolean {
    if (epoch > this.epoch) {
      this.epoch = epoch;
      this.users.clear();
      this.sessions.clear();
      this.channels.clear();
      this.channelEntries = 0;
    }
    return epoch === this.epoch;
  }

  user(epoch: number, id: string): UserTable | undefined {
    return epoch === this.epoch ? this.users.get(id) : undefined;
  }

  /** Keeps a user row read under `epoch` (after it was observed), unless a newer epoch came since. */
  keepUser(epoch: number, user: UserTable): void {
    if (epoch === this.epoch) put(this.users, user.id, user, this.max);
  }

  session(epoch: number, id: string): SessionTable | undefined {
    return epoch === this.epoch ? this.sessions.get(id) : undefined;
  }

  keepSession(epoch: number, session: SessionTable): void {
    if (epoch === this.epoch) put(this.sessions, session.id, session, this.max);
  }

  channel(epoch: number, channelId: string, userId: string): ChannelAccess | undefined {
    return epoch === this.epoch ? this.channels.get(channelId)?.get(userId) : undefined;
  }

  /** Keeps a member's access to a channel (never a non-member's: `roles` must be set; nor a private thread's outsider's). */
  keepChannel(epoch: number, userId: string, access: ChannelAccess): void {
    if (epoch !== this.epoch || access.roles === null || access.roles === undefined) return;
    // A private thread the member has not joined: joining (an insert) does not bump the epoch, so this would be a kept refusal.
    if (access.threadPrivate === 1 && access.threadMember === 0) return;
    if (this.channelEntries >= this.max) {
      this.channels.clear();
      this.channelEntries = 0;
    }
    let users = this.channels.get(access.channelId);
    if (!users) this.channels.set(access.channelId, (users = new Map()));
    if (!users.has(userId)) this.channelEntries++;
    users.set(userId, access);
  }
}

function put<V>(map: Map<string, V>, key: string, value: V, max: number): void {
  if (map.size >= max && !map.has(key)) map.clear();
  map.set(key, value);
}
