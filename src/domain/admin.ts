import { hashPassword } from '../crypto.js';
import { AppError, conflict, notFound } from '../errors.js';
import type { Store } from '../store/index.js';
import type { UserTable } from '../store/schema.js';
import { checkNewPassword, checkUsername } from './accounts.js';
import { type DomainContext, SYSTEM_CLOCK, notify, nowIso } from './context.js';

/**
 * What an administrator does from the `parley` command, beside the HTTP API. These run
 * in another process than the service, on the same database: they take the store only,
 * and tell running instances through the `revoked_at` column (`RevocationWatch`), not
 * through the event bus, which may be an in-process one they cannot reach.
 */
export const admin = {
  /** Creates a person with the rules registration applies (username, password); REGISTRATION does not apply. */
  async createUser(store: Store, username: string, password: string): Promise<UserTable> {
    checkUsername(username);
    await checkNewPassword(password, username);
    if (await store.users.byUsername(store.db, username)) throw conflict('username_taken', 'username is taken');
    const user: UserTable = {
      id: store.ids.next(),
      username,
      usernameKey: username.toLowerCase(),
      name: username,
      bot: 0,
      ownerId: null,
      passwordHash: await hashPassword(password),
      tokenHash: null,
      avatar: null,
      createdAt: nowIso(SYSTEM_CLOCK),
      isPublic: 0,
      displayName: null,
    };
    await store
      .write((tx) => store.users.insert(tx, user))
      .catch((err: unknown) => {
        if (err instanceof AppError && err.code === 'already_exists') throw conflict('username_taken', 'username is taken');
        throw err;
      });
    return user;
  },

  /** Sets a new password and ends every session of the person; resolves with how many ended. */
  async resetPassword(store: Store, username: string, password: string): Promise<{ user: UserTable; sessionsEnded: number }> {
    const user = await person(store, username);
    await checkNewPassword(password, user.username ?? undefined);
    const hash = await hashPassword(password);
    const ended = await store.write(async (tx) => {
      await store.users.resetPasswordHash(tx, user.id, hash, nowIso(SYSTEM_CLOCK));
      return store.sessions.deleteAllBut(tx, user.id, null);
    });
    return { user, sessionsEnded: ended.length };
  },

  /**
   * Disables a person: no login, every session ended, and their bots stop too (their
   * tokens are refused with `account_disabled` until the owner is enabled again). Nothing
   * is deleted: servers, messages and memberships stay.
   */
  async disable(store: Store, username: string): Promise<{ user: UserTable; already: boolean; bots: number; sessionsEnded: number }> {
    const user = await person(store, username);
    if (user.disabledAt) return { user, already: true, bots: 0, sessionsEnded: 0 };
    const at = nowIso(SYSTEM_CLOCK);
    const done = await store.write(async (tx) => {
      const bots = await store.users.disable(tx, user.id, at);
      const ended = await store.sessions.deleteAllBut(tx, user.id, null);
      return { bots, sessionsEnded: ended.length };
    });
    return { user, already: false, ...done };
  },

  /** Enables a disabled person, and the bots that were disabled with them. */
  async enable(store: Store, username: string): Promise<{ user: UserTable; already: boolean; bots: number }> {
    const user = await person(store, username);
    const disabledAt = user.disabledAt;
    if (!disabledAt) return { user, already: true, bots: 0 };
    const bots = await store.write((tx) => store.users.enable(tx, user.id, disabledAt));
    return { user, already: false, bots };
  },
};

/** The person with this login name (case-insensitive), or `unknown_user`. */
async function person(store: Store, username: string): Promise<UserTable> {
  const user = await store.users.byUsername(store.db, username);
  if (!user) throw notFound('user', `no account named "${username}"`);
  return user;
}

/**
 * How a running instance learns of `admin` actions taken by another process: it polls
 * `users.revoked_at` and publishes a `revoke` for each account revoked since, which closes
 * that account's gateway connections (HTTP requests are refused at once anyway: every
 * request reads the session and the account). Timestamps come from the clocks of the
 * command and of the service, so the window looks back `marginMs` and remembers what it
 * announced, rather than trusting the clocks to agree.
 */
export class RevocationWatch {
  private readonly announced = new Map<string, string>();

  constructor(
    private readonly ctx: DomainContext,
    private readonly marginMs = 60_000,
  ) {}

  /** One poll; resolves with how many revocations it announced. */
  async poll(): Promise<number> {
    const cutoff = new Date(this.ctx.clock() - this.marginMs).toISOString();
    const rows = await this.ctx.store.users.revokedAfter(this.ctx.store.db, cutoff);
    let count = 0;
    for (const r of rows) {
      const key = `${r.id}@${r.revokedAt}`;
      if (this.announced.has(key)) continue;
      this.announced.set(key, r.revokedAt ?? '');
      count++;
      const reason = r.disabledAt ? 'account disabled' : 'password reset by an administrator';
      await notify(this.ctx, { kind: 'revoke', userId: r.id, reason });
    }
    for (const [key, at] of this.announced) if (at <= cutoff) this.announced.delete(key);
    return count;
  }
}
