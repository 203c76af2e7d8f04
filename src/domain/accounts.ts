import { hashPassword, hashToken, newSecret, passwordNeedsRehash, splitToken, tokenMatches, verifyPassword } from '../crypto.js';
import { AppError, badRequest, conflict, forbidden, notFound, unauthorized } from '../errors.js';
import { isId } from '../ids.js';
import type { Tx } from '../store/index.js';
import type { UserTable } from '../store/schema.js';
import { isCommonPassword } from './common-passwords.js';
import type { ModelSnapshot } from './permissions.js';
import { snapshotIn } from './roles.js';
import { type DomainContext, notify, nowIso } from './context.js';
import { cleanAvatar, cleanName } from './names.js';
import type { Caller, PublicUser } from './types.js';

/** The public face of a person or bot. */
export function publicUser(u: Pick<UserTable, 'id' | 'name' | 'bot' | 'avatar'>): PublicUser {
  return { id: u.id, name: u.name, bot: u.bot === 1, avatar: u.avatar };
}

function callerOf(u: UserTable, sessionId?: string): Caller {
  return { id: u.id, name: u.name, bot: u.bot === 1, avatar: u.avatar, ...(sessionId ? { sessionId } : {}) };
}

/** The user as they see themselves. */
export function selfView(u: UserTable) {
  return { ...publicUser(u), username: u.username, createdAt: u.createdAt };
}

const USERNAME = /^[A-Za-z0-9_.-]{2,32}$/;
const PASSWORD_MIN = 8;
const PASSWORD_MAX = 256;

/** The password rule of contract section 10: 8 to 256 characters, not one of the 10,000 most common. */
async function checkNewPassword(password: string): Promise<void> {
  const length = [...password].length;
  if (length < PASSWORD_MIN) throw badRequest(`password must be at least ${PASSWORD_MIN} characters`);
  if (length > PASSWORD_MAX) throw badRequest(`password must be at most ${PASSWORD_MAX} characters`);
  if (await isCommonPassword(password)) throw badRequest('password is too common; choose another');
}

/** A precomputed hash so a login for an unknown name costs the same as a wrong password. */
let dummyHash: Promise<string> | undefined;

export const accounts = {
  async register(ctx: DomainContext, username: string, password: string) {
    if (!USERNAME.test(username)) {
      throw badRequest('username must be 2 to 32 characters: letters, digits, "_", "." or "-"');
    }
    await checkNewPassword(password);
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
      createdAt: nowIso(),
      isPublic: 0,
    };
    const token = await ctx.store
      .write(async (tx) => {
        await ctx.store.users.insert(tx, user);
        return newSession(ctx, tx, user.id);
      })
      .catch((err: unknown) => {
        // Two registrations raced for the same name: the unique index decided.
        if (err instanceof AppError && err.code === 'already_exists') throw conflict('username_taken', 'username is taken');
        throw err;
      });
    return { token, user: selfView(user) };
  },

  async login(ctx: DomainContext, username: string, password: string) {
    // A name that could never have been registered is not looked up (PostgreSQL refuses NUL).
    const user = USERNAME.test(username) ? await ctx.store.users.byUsername(ctx.store.db, username) : undefined;
    if (!user || !user.passwordHash) {
      dummyHash ??= hashPassword('not a real password');
      await verifyPassword(password, await dummyHash);
      throw unauthorized('wrong username or password', 'invalid_credentials');
    }
    const stored = user.passwordHash;
    if (!(await verifyPassword(password, stored))) throw unauthorized('wrong username or password', 'invalid_credentials');
    // A hash made with older scrypt parameters is remade with today's while the password is at hand.
    const rehashed = passwordNeedsRehash(stored) ? await hashPassword(password) : null;
    const token = await ctx.store.write(async (tx) => {
      if (rehashed) await ctx.store.users.replacePasswordHash(tx, user.id, stored, rehashed);
      return newSession(ctx, tx, user.id);
    });
    return { token, user: selfView(user) };
  },

  async logout(ctx: DomainContext, caller: Caller) {
    if (!caller.sessionId) throw badRequest('only a session can log out', 'session_required');
    const sessionId = caller.sessionId;
    await ctx.store.write((tx) => ctx.store.sessions.delete(tx, sessionId));
    await notify(ctx, { kind: 'revoke', userId: caller.id, sessionId, reason: 'logged out' });
  },

  /** `Bearer <sessionId>.<secret>` → the person, or 401. */
  async authenticateSession(ctx: DomainContext, token: string): Promise<Caller> {
    const parts = await tokenParts(ctx, token);
    if (!parts) throw unauthorized();
    const session = await ctx.store.sessions.byId(ctx.store.db, parts.id);
    if (!session || !tokenMatches(parts.secret, session.tokenHash)) throw unauthorized();
    const user = await ctx.store.users.byId(ctx.store.db, session.userId);
    if (!user) throw unauthorized();
    return callerOf(user, session.id);
  },

  /**
   * A credential as the REST API's Authorization header and the gateway's identify carry
   * it: `Bot <token>` for a bot, `Bearer <token>` for a person's session; else 401.
   */
  async authenticate(ctx: DomainContext, credential: string): Promise<Caller> {
    const space = credential.indexOf(' ');
    const scheme = space > 0 ? credential.slice(0, space) : '';
    const token = credential.slice(space + 1).trim();
    if (scheme === 'Bot' && token) return accounts.authenticateBot(ctx, token);
    if (scheme === 'Bearer' && token) return accounts.authenticateSession(ctx, token);
    throw unauthorized('credentials must be "Bot <token>" or "Bearer <token>"');
  },

  /** `Bot <botId>.<secret>` → the bot, or 401. */
  async authenticateBot(ctx: DomainContext, token: string): Promise<Caller> {
    const parts = await tokenParts(ctx, token);
    if (!parts) throw unauthorized();
    const bot = await ctx.store.users.byId(ctx.store.db, parts.id);
    if (!bot || bot.bot !== 1 || !bot.tokenHash || !tokenMatches(parts.secret, bot.tokenHash)) throw unauthorized();
    return callerOf(bot);
  },

  async me(ctx: DomainContext, caller: Caller) {
    const u = await ctx.store.users.byId(ctx.store.db, caller.id);
    if (!u) throw unauthorized();
    return u.bot === 1 ? { ...publicUser(u), ownerId: u.ownerId, createdAt: u.createdAt } : selfView(u);
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
      avatar: cleanAvatar(avatar),
      createdAt: nowIso(),
      isPublic: 0,
    };
    await ctx.store.write((tx) => ctx.store.users.insert(tx, row));
    // The token is shown once, here; `botView` never carries it.
    return { ...botView(row), token: `${id}.${secret}` };
  },

  /** The owner changes a bot's name, avatar or whether anyone may add it to their server. */
  async updateBot(ctx: DomainContext, caller: Caller, botId: string, patch: { name?: string; avatar?: string | null; public?: boolean }) {
    if (caller.bot) throw forbidden('users_only', 'bots cannot edit bots');
    const bot = await ownBot(ctx, caller, botId, "only the bot's owner can edit it");
    const changes: Partial<Pick<UserTable, 'name' | 'avatar' | 'isPublic'>> = {};
    if (patch.name !== undefined) changes.name = cleanName(patch.name, 'name', 80);
    if (patch.avatar !== undefined) changes.avatar = cleanAvatar(patch.avatar);
    if (patch.public !== undefined) changes.isPublic = patch.public ? 1 : 0;
    if (Object.keys(changes).length > 0) {
      const r = await ctx.store.write((tx) => ctx.store.users.updateBot(tx, botId, changes));
      // Deleted between the read and the write.
      if (Number(r.numUpdatedRows) === 0) throw notFound('bot');
    }
    return botView({ ...bot, ...changes });
  },

  async listBots(ctx: DomainContext, caller: Caller) {
    if (caller.bot) throw forbidden('users_only', 'bots cannot own bots');
    return (await ctx.store.users.botsOf(ctx.store.db, caller.id)).map((b) => botView(b));
  },

  async deleteBot(ctx: DomainContext, caller: Caller, botId: string) {
    const bot = await ownBot(ctx, caller, botId, "only the bot's owner can delete it");
    // Read the memberships in the deleting transaction, so a server the bot joins
    // meanwhile still hears of its removal.
    // Its managed roles and the overwrites naming it or them go in the same transaction.
    const left = await ctx.store.write(async (tx) => {
      const ids = await ctx.store.members.serverIdsOf(tx, botId);
      const out: Array<{ serverId: string; roleId: string | null; model: ModelSnapshot | null }> = [];
      for (const serverId of ids) {
        const role = await ctx.store.roles.managedOf(tx, serverId, botId);
        const own = await ctx.store.overwrites.deleteTarget(tx, serverId, botId);
        if (role) {
          await ctx.store.overwrites.deleteTarget(tx, serverId, role.id);
          await ctx.store.roles.delete(tx, serverId, role.id);
        }
        const changed = role !== undefined || own.some((r) => Number(r.numDeletedRows) > 0);
        if (changed) await ctx.store.bumpPermVersion(tx, serverId);
        out.push({ serverId, roleId: role?.id ?? null, model: changed ? await snapshotIn(ctx, tx, serverId) : null });
      }
      await ctx.store.users.delete(tx, botId);
      return out;
    });
    for (const { serverId, roleId, model } of left) {
      await notify(ctx, { kind: 'event', serverId, event: { t: 'MEMBER_REMOVE', d: { serverId, user: publicUser(bot) } } });
      if (roleId)
        await notify(ctx, { kind: 'event', serverId, event: { t: 'ROLE_DELETE', d: { serverId, roleId } }, ...(model ? { model } : {}) });
    }
    await notify(ctx, { kind: 'revoke', userId: botId, reason: 'bot deleted' });
  },
};

/** The bot `botId` if the caller owns it: 404 when there is no such bot, 403 when it is someone else's. */
async function ownBot(ctx: DomainContext, caller: Caller, botId: string, refusal: string): Promise<UserTable> {
  const bot = isId(botId) ? await ctx.store.users.byId(ctx.store.db, botId) : undefined;
  if (!bot || bot.bot !== 1) throw notFound('bot');
  if (bot.ownerId !== caller.id) throw forbidden('bot_owner_only', refusal);
  return bot;
}

/** A bot as its owner sees it (only its owner: `public` is the owner's setting). */
function botView(b: UserTable) {
  return {
    id: b.id,
    name: b.name,
    avatar: b.avatar,
    ownerId: b.ownerId,
    bot: true,
    public: b.isPublic === 1,
    createdAt: b.createdAt,
  };
}

async function newSession(ctx: DomainContext, tx: Tx, userId: string) {
  const id = ctx.store.ids.next();
  const secret = newSecret();
  await ctx.store.sessions.insert(tx, { id, userId, tokenHash: hashToken(secret), createdAt: nowIso() });
  return `${id}.${secret}`;
}

/**
 * A token's id and secret, the id as it is now: tokens issued before snowflakes carry
 * the ULID their session or bot had, which `legacy_ids` maps. Null for anything else.
 */
async function tokenParts(ctx: DomainContext, token: string): Promise<{ id: string; secret: string } | null> {
  const parts = splitToken(token);
  if (!parts) return null;
  const id = isId(parts.id) ? parts.id : await ctx.store.currentId(parts.id);
  return id && isId(id) ? { id, secret: parts.secret } : null;
}
