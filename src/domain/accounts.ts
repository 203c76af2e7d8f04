import {
  hashPassword,
  hashToken,
  newBotKeys,
  newSecret,
  passwordNeedsRehash,
  splitToken,
  tokenMatches,
  verifyPassword,
} from '../crypto.js';
import { AppError, badRequest, conflict, forbidden, notFound, unauthorized } from '../errors.js';
import { isId } from '../ids.js';
import type { Tx } from '../store/index.js';
import type { BotChanges, ProfileChanges } from '../store/repos/users.js';
import type { SessionTable, UserTable } from '../store/schema.js';
import { passwordWeakness } from './password-strength.js';
import { type Departure, announceDeparture, clearDeparture } from './roles.js';
import { type AccountSettings, type DomainContext, notify, nowIso } from './context.js';
import { cleanAvatar, cleanName, rejectNul, stripUnsafeCharacters } from './names.js';
import { INLINE_IMAGE_TYPES, attachmentOf, namesUpload, releaseUploads, uploadIdOf } from './uploads.js';
import type { Caller, PublicUser } from './types.js';

/** The public face of a person or bot. */
export function publicUser(u: Pick<UserTable, 'id' | 'name' | 'bot' | 'avatar'>): PublicUser {
  return { id: u.id, name: u.name, bot: u.bot === 1, avatar: u.avatar };
}

function callerOf(u: UserTable, sessionId?: string): Caller {
  return {
    id: u.id,
    name: u.name,
    bot: u.bot === 1,
    avatar: u.avatar,
    username: u.username,
    ...(sessionId ? { sessionId } : {}),
  };
}

/** The user as they see themselves. */
export function selfView(u: UserTable) {
  return { ...publicUser(u), username: u.username, displayName: u.displayName ?? null, createdAt: u.createdAt };
}

/** A bot as it sees itself: its display name is its name. */
function botSelfView(u: UserTable) {
  return { ...publicUser(u), displayName: u.name, ownerId: u.ownerId, createdAt: u.createdAt };
}

/** The person or bot as `USER_UPDATE` shows them to others. */
function updatedUser(u: UserTable) {
  return { ...publicUser(u), displayName: u.bot === 1 ? u.name : (u.displayName ?? null) };
}

const USERNAME = /^[A-Za-z0-9_.-]{2,32}$/;
const PASSWORD_MIN = 8;
const PASSWORD_MAX = 256;
/** A person's display name, in code points (as Discord's). */
const DISPLAY_NAME_MAX = 32;
/** What a deleted account's messages show as their author. */
export const DELETED_USER_NAME = 'Deleted user';
/**
 * A session's `lastUsedAt` is written when it is older than this, not on every request:
 * expiry counts in days, so an hour's precision costs nothing and spares a write per call.
 */
export const SESSION_TOUCH_MS = 3600_000;
/** The longest User-Agent kept with a session, in code points. */
const USER_AGENT_MAX = 256;

/** Refuses a username registration would refuse (the same rule for `parley users create`). */
export function checkUsername(username: string): void {
  if (!USERNAME.test(username)) {
    throw badRequest('username must be 2 to 32 characters: letters, digits, "_", "." or "-"');
  }
}

/** Refuses a login to an account an administrator disabled; asked only once the password is known right. */
function refuseDisabled(user: Pick<UserTable, 'disabledAt'>): void {
  if (user.disabledAt) throw forbidden('account_disabled', 'this account was disabled by an administrator');
}

/**
 * The password rule of docs/security.md#passwords, for every way a password is set (register,
 * change, `parley users create|reset-password`): 8 to 256 characters, not one of the
 * 10,000 most common, and not easy to guess (repeats, sequences, keyboard walks, common
 * words: `password-strength.ts`). `username` is the account's, which the password must
 * not lean on.
 */
export async function checkNewPassword(password: string, username?: string): Promise<void> {
  const length = [...password].length;
  if (length < PASSWORD_MIN) throw badRequest(`password must be at least ${PASSWORD_MIN} characters`);
  if (length > PASSWORD_MAX) throw badRequest(`password must be at most ${PASSWORD_MAX} characters`);
  const why = await passwordWeakness(password, username ? [username] : []);
  if (why) throw badRequest(`password is too easy to guess: ${why}; a few unrelated words make a strong one`);
}

/** A precomputed hash so a login for an unknown name costs the same as a wrong password. */
let dummyHash: Promise<string> | undefined;

/**
 * Whether `code` lets someone register while REGISTRATION=invite: for now, any invite of
 * a server that still exists. Registering does not use the invite up; the new person
 * joins with it afterwards. Later rules for invites (expiry, a number of uses) belong here.
 */
export async function registrationInviteValid(ctx: DomainContext, code: string): Promise<boolean> {
  // Codes are base64url; anything else (a NUL, which PostgreSQL refuses) names no invite.
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(code)) return false;
  const invite = await ctx.store.invites.byCode(ctx.store.db, code);
  return invite !== undefined;
}

/** Stores in which a person's account exists; once true it stays so (a deleted account's row stays). */
const peopled = new WeakSet<object>();

/**
 * REGISTRATION as it applies now: `open` until the first person registers, whatever the
 * setting, so a new instance can be set up without changing it back and forth.
 */
async function registrationMode(ctx: DomainContext): Promise<AccountSettings['registration']> {
  if (ctx.accounts.registration === 'open' || peopled.has(ctx.store)) return ctx.accounts.registration;
  if (await ctx.store.users.anyPerson(ctx.store.db)) peopled.add(ctx.store);
  return peopled.has(ctx.store) ? ctx.accounts.registration : 'open';
}

/** Refuses a registration the instance's REGISTRATION setting does not allow. */
async function checkRegistrationAllowed(ctx: DomainContext, invite: string | undefined): Promise<void> {
  const mode = await registrationMode(ctx);
  if (mode === 'closed') throw forbidden('registration_closed', 'this Parley does not take new accounts');
  if (mode === 'invite' && !(invite !== undefined && (await registrationInviteValid(ctx, invite.trim())))) {
    throw forbidden('invite_required', 'creating an account here needs a valid invite code');
  }
}

/** The User-Agent kept with a session: disguising and control characters removed, shortened; null when empty. */
export function cleanUserAgent(userAgent: string | undefined): string | null {
  if (!userAgent) return null;
  // Tabs and other white space become one space before control characters are removed.
  const clean = [...stripUnsafeCharacters(userAgent.replace(/\s+/g, ' ')).trim()].slice(0, USER_AGENT_MAX).join('');
  return clean || null;
}

/** When a session was last used (ms since 1970): sessions from before 0006 count from their creation. */
const lastUse = (s: Pick<SessionTable, 'lastUsedAt' | 'createdAt'>) => Date.parse(s.lastUsedAt ?? s.createdAt);

/** Whether a session has gone unused for longer than SESSION_TTL_DAYS. */
const expired = (ctx: DomainContext, s: Pick<SessionTable, 'lastUsedAt' | 'createdAt'>) =>
  ctx.clock() - lastUse(s) > ctx.accounts.sessionTtlMs;

/** Closes the gateway connections of ended sessions (after the commit that ended them). */
async function announceEnded(ctx: DomainContext, userId: string, sessionIds: string[], reason: string): Promise<void> {
  for (const sessionId of sessionIds) await notify(ctx, { kind: 'revoke', userId, sessionId, reason });
}

/** Tells the user's own sessions and the members of their servers about a new name or avatar. */
async function announceUpdate(ctx: DomainContext, u: UserTable): Promise<void> {
  const serverIds = await ctx.store.members.serverIdsOf(ctx.store.db, u.id);
  await notify(ctx, { kind: 'user', userId: u.id, serverIds, event: { t: 'USER_UPDATE', d: { user: updatedUser(u) } } });
}

/** An image upload of this service that `url` names exactly, or undefined. */
async function imageUpload(ctx: DomainContext, url: string) {
  const id = uploadIdOf(ctx.publicUrl, url);
  const upload = id ? await ctx.store.uploads.byId(ctx.store.db, id) : undefined;
  return upload && namesUpload(ctx.publicUrl, url, upload) && INLINE_IMAGE_TYPES.has(upload.contentType) ? upload : undefined;
}

interface AvatarChange {
  avatar: string | null;
  avatarUploadId: string | null;
}

const notYourImage = (what: string) =>
  badRequest(`${what} must be the URL of a PNG, JPEG, GIF, WebP or AVIF image you uploaded with POST /upload`, 'invalid_attachment');

/** An avatar someone sets on themselves: an image they uploaded (`POST /upload`), or null / "" for none. */
async function ownAvatar(ctx: DomainContext, uploaderId: string, url: string | null): Promise<AvatarChange> {
  if (url === null || url === '') return { avatar: null, avatarUploadId: null };
  rejectNul(url, 'avatar');
  const upload = await imageUpload(ctx, url);
  if (!upload || upload.uploaderId !== uploaderId) throw notYourImage('avatar');
  return { avatar: attachmentOf(ctx.publicUrl, upload).url, avatarUploadId: upload.id };
}

/**
 * A bot's avatar as its owner sets it: any http(s) URL elsewhere, as before; a URL under
 * this service's uploads must be an image the owner (or the bot) uploaded
 * (docs/security.md#files-are-for-those-who-may-see-them), and is linked so it stays served while it is the avatar.
 */
async function botAvatar(ctx: DomainContext, url: string | null | undefined, uploaderIds: readonly string[]): Promise<AvatarChange> {
  const avatar = cleanAvatar(url);
  if (!avatar || !isUploadsUrl(ctx, avatar)) return { avatar, avatarUploadId: null };
  const upload = await imageUpload(ctx, avatar);
  if (!upload || !uploaderIds.includes(String(upload.uploaderId))) throw notYourImage('avatar');
  return { avatar: attachmentOf(ctx.publicUrl, upload).url, avatarUploadId: upload.id };
}

/** Whether `url` points under this service's uploads (so it must name an upload the caller may use). */
export function isUploadsUrl(ctx: DomainContext, url: string): boolean {
  return url.startsWith(`${ctx.publicUrl}/uploads/`);
}

/**
 * A server icon as someone with MANAGE_SERVER sets it: any http(s) URL elsewhere; under
 * this service's uploads, an image the caller uploaded, linked so it stays served while it
 * is the icon (docs/security.md#files-are-for-those-who-may-see-them).
 */
export async function serverIcon(
  ctx: DomainContext,
  callerId: string,
  url: string | null | undefined,
): Promise<{ icon: string | null; iconUploadId: string | null }> {
  const icon = cleanAvatar(url);
  if (!icon || !isUploadsUrl(ctx, icon)) return { icon, iconUploadId: null };
  const upload = await imageUpload(ctx, icon);
  if (!upload || String(upload.uploaderId) !== callerId) throw notYourImage('icon');
  return { icon: attachmentOf(ctx.publicUrl, upload).url, iconUploadId: upload.id };
}

/** Where a bot's interactions will be delivered: an http(s) URL of at most 2048 characters, or null. */
function cleanInteractionsUrl(url: string | null): string | null {
  if (url === null || url === '') return null;
  const problem = 'interactionsUrl must be an http(s) URL of at most 2048 characters';
  if (url.length > 2048 || /[\u0000-\u0020\u007f-\u009f]/.test(url)) throw badRequest(problem);
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw badRequest(problem);
  }
  if ((u.protocol !== 'http:' && u.protocol !== 'https:') || !u.hostname) throw badRequest(problem);
  return url;
}

/** Releases uploads an avatar no longer uses (after the commit that unlinked them). */
async function releaseAvatars(ctx: DomainContext, ids: Array<string | null | undefined>): Promise<void> {
  const gone = ids.filter((id): id is string => !!id);
  if (gone.length > 0) await releaseUploads(ctx, gone);
}

export const accounts = {
  /** What a visitor needs to know before logging in or registering. */
  async instance(ctx: DomainContext, maxUploadBytes: number) {
    return {
      registration: await registrationMode(ctx),
      sessionTtlDays: Math.round(ctx.accounts.sessionTtlMs / 86_400_000),
      maxUploadBytes,
      pdfPreviews: ctx.pdfPages?.available ?? false,
    };
  },

  async register(ctx: DomainContext, body: { username: string; password: string; invite?: string }, userAgent?: string) {
    const { username, password } = body;
    await checkRegistrationAllowed(ctx, body.invite);
    checkUsername(username);
    await checkNewPassword(password, username);
    if (await ctx.store.users.byUsername(ctx.store.db, username)) throw conflict('username_taken', 'username is taken');
    const passwordHash = await hashPassword(password);
    const user: UserTable = {
      id: ctx.store.ids.next(),
      username,
      usernameKey: username.toLowerCase(),
      name: username,
      bot: 0,
      ownerId: null,
      passwordHash,
      tokenHash: null,
      avatar: null,
      createdAt: nowIso(ctx),
      isPublic: 0,
      displayName: null,
    };
    const token = await ctx.store
      .write(async (tx) => {
        await ctx.store.users.insert(tx, user);
        return newSession(ctx, tx, user.id, userAgent);
      })
      .catch((err: unknown) => {
        // Two registrations raced for the same name: the unique index decided.
        if (err instanceof AppError && err.code === 'already_exists') throw conflict('username_taken', 'username is taken');
        throw err;
      });
    return { token, user: selfView(user) };
  },

  async login(ctx: DomainContext, username: string, password: string, userAgent?: string) {
    // A name that could never have been registered is not looked up (PostgreSQL refuses NUL).
    const user = USERNAME.test(username) ? await ctx.store.users.byUsername(ctx.store.db, username) : undefined;
    if (!user?.passwordHash) {
      dummyHash ??= hashPassword('not a real password');
      await verifyPassword(password, await dummyHash);
      throw unauthorized('wrong username or password', 'invalid_credentials');
    }
    const stored = user.passwordHash;
    if (!(await verifyPassword(password, stored))) throw unauthorized('wrong username or password', 'invalid_credentials');
    refuseDisabled(user);
    // A hash made with older scrypt parameters is remade with today's while the password is at hand.
    const rehashed = passwordNeedsRehash(stored) ? await hashPassword(password) : null;
    const token = await ctx.store.write(async (tx) => {
      // The password was changed (or the account deleted) since it was checked: a login
      // with the old password must not open a session the change did not end.
      const now = await ctx.store.users.byId(tx, user.id);
      if (!now || now.passwordHash !== stored) throw unauthorized('wrong username or password', 'invalid_credentials');
      refuseDisabled(now); // disabled meanwhile
      if (rehashed) await ctx.store.users.replacePasswordHash(tx, user.id, stored, rehashed);
      return newSession(ctx, tx, user.id, userAgent);
    });
    return { token, user: selfView(user) };
  },

  async logout(ctx: DomainContext, caller: Caller) {
    if (!caller.sessionId) throw badRequest('only a session can log out', 'session_required');
    const sessionId = caller.sessionId;
    await ctx.store.write((tx) => ctx.store.sessions.delete(tx, sessionId));
    await notify(ctx, { kind: 'revoke', userId: caller.id, sessionId, reason: 'logged out' });
  },

  /**
   * `Bearer <sessionId>.<secret>` → the person, or 401; also 401 once the session has gone
   * unused for SESSION_TTL_DAYS. Records the use at most once an hour (`SESSION_TOUCH_MS`).
   */
  async authenticateSession(ctx: DomainContext, token: string, epoch?: number): Promise<Caller> {
    const parts = await tokenParts(ctx, token);
    if (!parts) throw unauthorized();
    const at = epoch ?? (await ctx.store.accessEpoch());
    const cached = ctx.access.observe(at);
    let session = cached ? ctx.access.session(at, parts.id) : undefined;
    if (!session) {
      session = await ctx.store.sessions.byId(ctx.store.db, parts.id);
      if (session && cached) ctx.access.keepSession(at, session);
    }
    if (!session || !tokenMatches(parts.secret, session.tokenHash)) throw unauthorized();
    if (expired(ctx, session)) {
      const gone = session;
      // Gone now rather than at the next sweep; its gateway connections close too.
      ctx.background.run('expired session removal failed', async () => {
        await ctx.store.write((tx) => ctx.store.sessions.delete(tx, gone.id));
        await announceEnded(ctx, gone.userId, [gone.id], 'session expired');
      });
      throw unauthorized('the session has expired; log in again');
    }
    const user = await userAt(ctx, at, cached, session.userId);
    if (!user) throw unauthorized();
    // Disabling deletes the sessions too; this covers one opened while the disable ran.
    refuseDisabled(user);
    const now = ctx.clock();
    if (now - lastUse(session) >= SESSION_TOUCH_MS) {
      // Once an hour per session: the wait is short, and a failure only loses bookkeeping.
      const lastUsedAt = new Date(now).toISOString();
      const touched = session;
      await ctx.store
        .write((tx) => ctx.store.sessions.touch(tx, touched.id, lastUsedAt))
        .then(() => ctx.access.keepSession(at, { ...touched, lastUsedAt }))
        .catch((err: unknown) => ctx.report(err, 'session touch failed'));
    }
    return callerOf(user, session.id);
  },

  /**
   * A credential as the REST API's Authorization header and the gateway's identify carry
   * it: `Bot <token>` for a bot, `Bearer <token>` for a person's session; else 401.
   */
  async authenticate(ctx: DomainContext, credential: string, epoch?: number): Promise<Caller> {
    const space = credential.indexOf(' ');
    const scheme = space > 0 ? credential.slice(0, space) : '';
    const token = credential.slice(space + 1).trim();
    if (scheme === 'Bot' && token) return accounts.authenticateBot(ctx, token, epoch);
    if (scheme === 'Bearer' && token) return accounts.authenticateSession(ctx, token, epoch);
    throw unauthorized('credentials must be "Bot <token>" or "Bearer <token>"');
  },

  /**
   * `Bot <botId>.<secret>` → the bot, or 401. With `epoch` (the access epoch the request
   * read), the bot's row may come from `AccessCache`; without, the epoch is read here.
   */
  async authenticateBot(ctx: DomainContext, token: string, epoch?: number): Promise<Caller> {
    const parts = await tokenParts(ctx, token);
    if (!parts) throw unauthorized();
    const at = epoch ?? (await ctx.store.accessEpoch());
    const cached = ctx.access.observe(at);
    const bot = await userAt(ctx, at, cached, parts.id);
    if (bot?.bot !== 1 || !bot.tokenHash || !tokenMatches(parts.secret, bot.tokenHash)) throw unauthorized();
    // A bot stops with its owner's account (as Mattermost's deactivation does) and comes back with it.
    if (bot.disabledAt) throw forbidden('account_disabled', "the bot's owner's account was disabled by an administrator");
    return callerOf(bot);
  },

  async me(ctx: DomainContext, caller: Caller) {
    const u = await ctx.store.users.byId(ctx.store.db, caller.id);
    if (!u) throw unauthorized();
    return u.bot === 1 ? botSelfView(u) : selfView(u);
  },

  /**
   * Someone's public face, for a caller who can already see them: themselves, someone who
   * shares a server or a DM with them. Anyone else is 404 `unknown_user`, as an id nobody
   * has: a caller learns nothing about accounts they have no way to meet.
   */
  async user(
    ctx: DomainContext,
    caller: Caller,
    userId: string,
  ): Promise<PublicUser & { username: string | null; displayName: string | null }> {
    const u = isId(userId) ? await ctx.store.users.byId(ctx.store.db, userId) : undefined;
    if (!u || u.deletedAt) throw notFound('user');
    if (u.id !== caller.id) {
      const [sharing, dms] = await Promise.all([
        ctx.store.dms.sharingServer(ctx.store.db, caller.id, [u.id]),
        ctx.store.dms.ofUser(ctx.store.db, caller.id),
      ]);
      const inDm =
        !sharing.has(u.id) && dms.length > 0
          ? (
              await ctx.store.dms.recipients(
                ctx.store.db,
                dms.map((d) => d.id),
              )
            ).some((r) => r.id === u.id)
          : false;
      if (!sharing.has(u.id) && !inDm) throw notFound('user');
    }
    return { ...publicUser(u), username: u.bot === 1 ? null : u.username, displayName: u.bot === 1 ? u.name : (u.displayName ?? null) };
  },

  /**
   * A bot's public face, for the invite page (`/oauth2/authorize?client_id=`): a public
   * bot's to any signed-in person, a private one's to its owner only. A private bot is
   * unknown to everyone else (404, as an unknown id), since only its owner may add it.
   * Never its token, key or interactions URL.
   */
  async botProfile(ctx: DomainContext, caller: Caller, botId: string) {
    const b = isId(botId) ? await ctx.store.users.byId(ctx.store.db, botId) : undefined;
    if (b?.bot !== 1 || (b.isPublic !== 1 && b.ownerId !== caller.id)) throw notFound('bot');
    const owner = b.ownerId ? await ctx.store.users.byId(ctx.store.db, b.ownerId) : undefined;
    return { ...publicUser(b), public: b.isPublic === 1, owner: owner ? publicUser(owner) : null, createdAt: b.createdAt };
  },

  /** A bot as its own application (Discord's `/applications/@me`): its settings, key and owner. Bots only. */
  async application(ctx: DomainContext, caller: Caller) {
    if (!caller.bot) throw notFound('bot', 'only a bot has an application');
    const b = await ctx.store.users.byId(ctx.store.db, caller.id);
    if (!b) throw unauthorized();
    const owner = b.ownerId ? await ctx.store.users.byId(ctx.store.db, b.ownerId) : undefined;
    return { ...botView(b, await publicKeyOf(ctx, b.id)), owner: owner ? publicUser(owner) : null };
  },

  /**
   * A person changes their display name (null or blank: none, so their username shows)
   * or avatar (an image they uploaded, or null); a bot its name or avatar. Messages
   * already sent keep the name they were sent with. `USER_UPDATE` tells the others.
   */
  async updateMe(ctx: DomainContext, caller: Caller, patch: { displayName?: string | null; avatar?: string | null }) {
    const user = await ctx.store.users.byId(ctx.store.db, caller.id);
    if (!user) throw unauthorized();
    const changes: ProfileChanges = {};
    if (patch.displayName !== undefined) {
      if (user.bot === 1) {
        if (patch.displayName === null) throw badRequest("displayName: a bot's name cannot be removed");
        changes.name = cleanName(patch.displayName, 'displayName', 80);
      } else {
        const chosen =
          patch.displayName === null || patch.displayName.trim() === ''
            ? null
            : cleanName(patch.displayName, 'displayName', DISPLAY_NAME_MAX);
        changes.displayName = chosen;
        changes.name = chosen ?? user.username ?? user.name;
      }
    }
    if (patch.avatar !== undefined) Object.assign(changes, await ownAvatar(ctx, user.id, patch.avatar));
    const updated: UserTable = { ...user, ...changes };
    const visible = updated.name !== user.name || updated.avatar !== user.avatar || updated.displayName !== user.displayName;
    if (visible || updated.avatarUploadId !== user.avatarUploadId) {
      const r = await ctx.store.write((tx) => ctx.store.users.updateProfile(tx, user.id, changes));
      if (Number(r.numUpdatedRows) === 0) throw unauthorized(); // deleted meanwhile
      if (user.avatarUploadId !== updated.avatarUploadId) await releaseAvatars(ctx, [user.avatarUploadId]);
      if (visible) await announceUpdate(ctx, updated);
    }
    return updated.bot === 1 ? botSelfView(updated) : selfView(updated);
  },

  /**
   * A person changes their password, proving the current one. Every other session of
   * theirs ends at once (its token stops working, its gateway connections close); the
   * one making the change stays.
   */
  async changePassword(ctx: DomainContext, caller: Caller, currentPassword: string, newPassword: string) {
    if (caller.bot || !caller.sessionId) throw forbidden('users_only', 'only a person has a password');
    const keep = caller.sessionId;
    await checkNewPassword(newPassword, caller.username ?? caller.name);
    const user = await ctx.store.users.byId(ctx.store.db, caller.id);
    if (!user?.passwordHash) throw unauthorized();
    const stored = user.passwordHash;
    if (!(await verifyPassword(currentPassword, stored))) throw forbidden('wrong_password', 'the current password is wrong');
    const next = await hashPassword(newPassword);
    const ended = await ctx.store.write(async (tx) => {
      // Only over the password just checked: of two changes at once, the second fails.
      const r = await ctx.store.users.replacePasswordHash(tx, user.id, stored, next);
      if (Number(r.numUpdatedRows) === 0) throw forbidden('wrong_password', 'the password was changed meanwhile');
      return ctx.store.sessions.deleteAllBut(tx, user.id, keep);
    });
    await announceEnded(ctx, user.id, ended, 'password changed');
  },

  /** The caller's login sessions that have not expired, newest first. */
  async listSessions(ctx: DomainContext, caller: Caller) {
    const rows = await ctx.store.sessions.ofUser(ctx.store.db, caller.id);
    return rows
      .filter((s) => !expired(ctx, s))
      .map((s) => ({
        id: s.id,
        createdAt: s.createdAt,
        lastUsedAt: s.lastUsedAt ?? s.createdAt,
        userAgent: s.userAgent ?? null,
        current: s.id === caller.sessionId,
      }));
  },

  /** Ends one of the caller's sessions (the current one too: that is a logout); 404 for any other. */
  async endSession(ctx: DomainContext, caller: Caller, sessionId: string) {
    const gone = isId(sessionId) && (await ctx.store.write((tx) => ctx.store.sessions.deleteOf(tx, caller.id, sessionId)));
    if (!gone) throw new AppError('unknown_session', 'session not found');
    await announceEnded(ctx, caller.id, [sessionId], 'session ended');
  },

  /** Ends every session of the caller's but the one making the request ("log out everywhere else"). */
  async endOtherSessions(ctx: DomainContext, caller: Caller) {
    if (!caller.sessionId) throw badRequest('only a session can do this', 'session_required');
    const keep = caller.sessionId;
    const ended = await ctx.store.write((tx) => ctx.store.sessions.deleteAllBut(tx, caller.id, keep));
    await announceEnded(ctx, caller.id, ended, 'logged out elsewhere');
  },

  /**
   * A person deletes their account, proving their password; refused (409) while they own
   * a server. Their messages stay, by "Deleted user": the row is kept as their author,
   * anonymised (no login name, which is free again, no credentials, no avatar), and the
   * messages' author snapshots are rewritten in the same transaction. Their sessions,
   * memberships and bots go; every connection of theirs and of their bots closes.
   */
  async deleteAccount(ctx: DomainContext, caller: Caller, password: string) {
    if (caller.bot) throw forbidden('users_only', 'a bot is deleted by its owner');
    const user = await ctx.store.users.byId(ctx.store.db, caller.id);
    if (!user?.passwordHash) throw unauthorized();
    if (!(await verifyPassword(password, user.passwordHash))) throw forbidden('wrong_password', 'the password is wrong');
    const done = await ctx.store.write(async (tx) => {
      // Read in the transaction, so a server created meanwhile is seen (or the write fails).
      const owned = await ctx.store.servers.ownedBy(tx, user.id);
      if (owned.length > 0) {
        const names = owned.map((s) => `"${s.name}"`).join(', ');
        throw conflict(
          'owns_servers',
          `you still own ${owned.length === 1 ? 'a server' : `${owned.length} servers`} (${names}); an account that owns servers cannot be deleted`,
        );
      }
      const bots: Array<{ bot: UserTable; left: Departure[] }> = [];
      for (const bot of await ctx.store.users.botsOf(tx, user.id)) {
        bots.push({ bot, left: await leaveAllServers(ctx, tx, bot.id) });
        await ctx.store.users.delete(tx, bot.id);
      }
      const left = await leaveAllServers(ctx, tx, user.id);
      await ctx.store.members.deleteAllOf(tx, user.id);
      await ctx.store.sessions.deleteAllBut(tx, user.id, null);
      await ctx.store.messages.renameAuthor(tx, user.id, DELETED_USER_NAME);
      const r = await ctx.store.users.anonymise(tx, user.id, DELETED_USER_NAME, nowIso(ctx));
      if (Number(r.numUpdatedRows) === 0) throw unauthorized(); // deleted meanwhile
      return { bots, left };
    });
    await notify(ctx, { kind: 'revoke', userId: user.id, reason: 'account deleted' });
    const gone = publicUser({ ...user, name: DELETED_USER_NAME, avatar: null });
    for (const d of done.left) await announceDeparture(ctx, d, gone);
    for (const { bot, left } of done.bots) await announceBotGone(ctx, bot, left);
    await releaseAvatars(ctx, [user.avatarUploadId, ...done.bots.map((b) => b.bot.avatarUploadId)]);
  },

  async createBot(ctx: DomainContext, caller: Caller, name: string, avatar?: string | null) {
    if (caller.bot) throw forbidden('users_only', 'bots cannot create bots');
    const id = ctx.store.ids.next();
    const secret = newSecret();
    const row: UserTable = {
      id,
      username: null,
      usernameKey: null,
      name: cleanName(name, 'name', 80),
      bot: 1,
      ownerId: caller.id,
      passwordHash: null,
      tokenHash: hashToken(secret),
      ...(await botAvatar(ctx, avatar, [caller.id])),
      createdAt: nowIso(ctx),
      isPublic: 0,
    };
    const keys = newBotKeys();
    await ctx.store.write(async (tx) => {
      await ctx.store.users.insert(tx, row);
      await ctx.store.botKeys.insert(tx, { botId: id, publicKey: keys.public_key, privateKey: keys.private_key, createdAt: row.createdAt });
    });
    // The token is shown once, here; `botView` never carries it.
    return { ...botView(row, keys.public_key), token: `${id}.${secret}` };
  },

  /**
   * The owner changes a bot's name, avatar, whether anyone may add it to their server, or
   * the URL its interactions are delivered to: a new URL must answer `verifyUrl`'s signed
   * ping first (the HTTP adapter's check), or nothing changes.
   */
  async updateBot(
    ctx: DomainContext,
    caller: Caller,
    botId: string,
    patch: { name?: string; avatar?: string | null; public?: boolean; interactionsUrl?: string | null },
    verifyUrl?: (botId: string, url: string) => Promise<void>,
  ) {
    if (caller.bot) throw forbidden('users_only', 'bots cannot edit bots');
    const bot = await ownBot(ctx, caller, botId, "only the bot's owner can edit it");
    const changes: BotChanges = {};
    if (patch.name !== undefined) changes.name = cleanName(patch.name, 'name', 80);
    if (patch.avatar !== undefined) Object.assign(changes, await botAvatar(ctx, patch.avatar, [caller.id, bot.id]));
    if (patch.public !== undefined) changes.isPublic = patch.public ? 1 : 0;
    if (patch.interactionsUrl !== undefined) changes.interactionsUrl = cleanInteractionsUrl(patch.interactionsUrl);
    if (changes.interactionsUrl && changes.interactionsUrl !== bot.interactionsUrl && verifyUrl)
      await verifyUrl(bot.id, changes.interactionsUrl);
    const updated: UserTable = { ...bot, ...changes };
    if (Object.keys(changes).length > 0) {
      const r = await ctx.store.write((tx) => ctx.store.users.updateBot(tx, botId, changes));
      // Deleted between the read and the write.
      if (Number(r.numUpdatedRows) === 0) throw notFound('bot');
      if (bot.avatarUploadId && bot.avatarUploadId !== updated.avatarUploadId) await releaseAvatars(ctx, [bot.avatarUploadId]);
      if (updated.name !== bot.name || updated.avatar !== bot.avatar) await announceUpdate(ctx, updated);
    }
    return botView(updated, await publicKeyOf(ctx, updated.id));
  },

  async listBots(ctx: DomainContext, caller: Caller) {
    if (caller.bot) throw forbidden('users_only', 'bots cannot own bots');
    const bots = await ctx.store.users.botsOf(ctx.store.db, caller.id);
    const keys = new Map(
      (
        await ctx.store.botKeys.publicKeys(
          ctx.store.db,
          bots.map((b) => b.id),
        )
      ).map((k) => [k.botId, k.publicKey]),
    );
    return bots.map((b) => botView(b, keys.get(b.id)));
  },

  async deleteBot(ctx: DomainContext, caller: Caller, botId: string) {
    const bot = await ownBot(ctx, caller, botId, "only the bot's owner can delete it");
    // Read the memberships in the deleting transaction, so a server the bot joins
    // meanwhile still hears of its removal. Its managed roles and the overwrites naming it or them go in the same transaction.
    const left = await ctx.store.write(async (tx) => {
      const left = await leaveAllServers(ctx, tx, botId);
      await ctx.store.users.delete(tx, botId);
      return left;
    });
    await announceBotGone(ctx, bot, left);
    await releaseAvatars(ctx, [bot.avatarUploadId]);
  },
};

/** Inside `tx`, before an account's memberships go (with the account, or `deleteAllOf`): what each server loses with it. */
async function leaveAllServers(ctx: DomainContext, tx: Tx, userId: string): Promise<Departure[]> {
  const out: Departure[] = [];
  for (const serverId of await ctx.store.members.serverIdsOf(tx, userId)) out.push(await clearDeparture(ctx, tx, serverId, userId));
  return out;
}

/** After a bot's deletion: its servers hear it left (and its managed role went), and its connections close. */
async function announceBotGone(ctx: DomainContext, bot: UserTable, left: Departure[]): Promise<void> {
  for (const d of left) await announceDeparture(ctx, d, publicUser(bot));
  await notify(ctx, { kind: 'revoke', userId: bot.id, reason: 'bot deleted' });
}

/**
 * Deletes sessions unused for longer than SESSION_TTL_DAYS (they are refused anyway; this
 * keeps the table small and closes their gateway connections). Resolves with how many.
 */
export async function sweepExpiredSessions(ctx: DomainContext): Promise<number> {
  const cutoff = new Date(ctx.clock() - ctx.accounts.sessionTtlMs).toISOString();
  let total = 0;
  for (;;) {
    const gone = await ctx.store.write((tx) => ctx.store.sessions.deleteUnusedSince(tx, cutoff, 500));
    for (const s of gone) await announceEnded(ctx, s.userId, [s.id], 'session expired');
    total += gone.length;
    if (gone.length < 500) return total;
  }
}

/** The bot `botId` if the caller owns it: 404 when there is no such bot, 403 when it is someone else's. */
async function ownBot(ctx: DomainContext, caller: Caller, botId: string, refusal: string): Promise<UserTable> {
  const bot = isId(botId) ? await ctx.store.users.byId(ctx.store.db, botId) : undefined;
  if (bot?.bot !== 1) throw notFound('bot');
  if (bot.ownerId !== caller.id) throw forbidden('bot_owner_only', refusal);
  return bot;
}

/** The bot's Ed25519 public key (hex), which its HTTP interactions are signed with. */
async function publicKeyOf(ctx: DomainContext, botId: string): Promise<string | undefined> {
  return (await ctx.store.botKeys.publicKeys(ctx.store.db, [botId]))[0]?.publicKey;
}

/** A bot as its owner sees it (only its owner: `public` and `interactionsUrl` are the owner's settings). */
function botView(b: UserTable, publicKey?: string) {
  return {
    id: b.id,
    name: b.name,
    avatar: b.avatar,
    ownerId: b.ownerId,
    bot: true,
    public: b.isPublic === 1,
    interactionsUrl: b.interactionsUrl ?? null,
    ...(publicKey ? { publicKey } : {}),
    createdAt: b.createdAt,
  };
}

async function newSession(ctx: DomainContext, tx: Tx, userId: string, userAgent: string | undefined) {
  const id = ctx.store.ids.next();
  const secret = newSecret();
  await ctx.store.sessions.insert(tx, {
    id,
    userId,
    tokenHash: hashToken(secret),
    createdAt: nowIso(ctx),
    // By the clock expiry reads (tests move it forward).
    lastUsedAt: new Date(ctx.clock()).toISOString(),
    userAgent: cleanUserAgent(userAgent),
  });
  return `${id}.${secret}`;
}

/**
 * A token's id and secret, the id as it is now: tokens issued before snowflakes carry
 * the ULID their session or bot had, which `legacy_ids` maps. Null for anything else.
 */
/** A user's row as of access epoch `at`: from `AccessCache` when `cached` allows, else read (and kept). */
async function userAt(ctx: DomainContext, at: number, cached: boolean, id: string): Promise<UserTable | undefined> {
  const hit = cached ? ctx.access.user(at, id) : undefined;
  if (hit) return hit;
  const user = await ctx.store.users.byId(ctx.store.db, id);
  if (user && cached) ctx.access.keepUser(at, user);
  return user;
}

async function tokenParts(ctx: DomainContext, token: string): Promise<{ id: string; secret: string } | null> {
  const parts = splitToken(token);
  if (!parts) return null;
  const id = isId(parts.id) ? parts.id : await ctx.store.currentId(parts.id);
  return id && isId(id) ? { id, secret: parts.secret } : null;
}
