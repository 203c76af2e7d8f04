/**
 * Permissions (docs/permissions.md): a bitfield at Discord's bit positions, sent as a
 * decimal string and held as a bigint. `computePermissions` is the one rule of what a
 * member may do; the server's routes, its gateway filter and the web client all call it.
 * Schema-free, so a browser bundle that needs only this carries no TypeBox.
 */

/** Each permission's bit position (Discord's). */
export const PERMISSION_BITS = {
  CREATE_INVITE: 0,
  KICK_MEMBERS: 1,
  BAN_MEMBERS: 2,
  ADMINISTRATOR: 3,
  MANAGE_CHANNELS: 4,
  MANAGE_SERVER: 5,
  ADD_REACTIONS: 6,
  VIEW_AUDIT_LOG: 7,
  VIEW_CHANNEL: 10,
  SEND_MESSAGES: 11,
  MANAGE_MESSAGES: 13,
  EMBED_LINKS: 14,
  ATTACH_FILES: 15,
  READ_MESSAGE_HISTORY: 16,
  MENTION_EVERYONE: 17,
  CHANGE_NICKNAME: 26,
  MANAGE_NICKNAMES: 27,
  MANAGE_ROLES: 28,
  USE_APPLICATION_COMMANDS: 31,
  MANAGE_THREADS: 34,
  CREATE_PUBLIC_THREADS: 35,
  CREATE_PRIVATE_THREADS: 36,
  SEND_MESSAGES_IN_THREADS: 38,
} as const;

export type Permission = keyof typeof PERMISSION_BITS;
export const PERMISSION_LIST = Object.keys(PERMISSION_BITS) as Permission[];

/** The flag of each permission. */
export const P = Object.fromEntries(PERMISSION_LIST.map((p) => [p, 1n << BigInt(PERMISSION_BITS[p])])) as Record<Permission, bigint>;

/** Every permission this service knows: what ownership and ADMINISTRATOR grant. */
export const ALL_PERMISSION_BITS: bigint = PERMISSION_LIST.reduce((bits, p) => bits | P[p], 0n);

/** What a new server's `@everyone` role holds. */
export const DEFAULT_EVERYONE_PERMISSIONS: bigint =
  P.CREATE_INVITE |
  P.ADD_REACTIONS |
  P.VIEW_CHANNEL |
  P.SEND_MESSAGES |
  P.EMBED_LINKS |
  P.ATTACH_FILES |
  P.READ_MESSAGE_HISTORY |
  P.CHANGE_NICKNAME |
  P.USE_APPLICATION_COMMANDS |
  P.CREATE_PUBLIC_THREADS |
  P.CREATE_PRIVATE_THREADS |
  P.SEND_MESSAGES_IN_THREADS;

/**
 * The four legacy names for a bot's permissions (docs/permissions.md#bots), still accepted: each stands for these
 * bits. READ_MESSAGES is seeing the channel and its history; each of the others includes
 * seeing the channel (VIEW_CHANNEL), without which a channel grants nothing, so a bot
 * granted only SEND_MESSAGES can post but not read, as the original bot permissions had it.
 */
export const LEGACY_PERMISSIONS = {
  READ_MESSAGES: P.VIEW_CHANNEL | P.READ_MESSAGE_HISTORY,
  SEND_MESSAGES: P.VIEW_CHANNEL | P.SEND_MESSAGES,
  ADD_REACTIONS: P.VIEW_CHANNEL | P.ADD_REACTIONS,
  ATTACH_FILES: P.VIEW_CHANNEL | P.ATTACH_FILES,
} as const;
export type LegacyPermission = keyof typeof LEGACY_PERMISSIONS;
export const ALL_LEGACY_BITS: bigint = Object.values(LEGACY_PERMISSIONS).reduce((a, b) => a | b, 0n);

/**
 * What a bot added without `permissions` holds (docs/permissions.md#bots): the four
 * legacy names' bits and EMBED_LINKS, so it can read, keep up with history, reply with embeds and files,
 * and react, as a Discord bot expects to in a normal channel; and SEND_MESSAGES_IN_THREADS and
 * CREATE_PUBLIC_THREADS, so it does the same in the channel's threads and can start one, as a
 * Discord bot does with `@everyone`'s bits (docs/threads.md#permissions).
 */
export const BOT_DEFAULT_PERMISSIONS: bigint = ALL_LEGACY_BITS | P.EMBED_LINKS | P.SEND_MESSAGES_IN_THREADS | P.CREATE_PUBLIC_THREADS;

/** Permissions that only make sense server-wide: a channel overwrite of them changes nothing. */
export const SERVER_ONLY_PERMISSIONS: bigint =
  P.KICK_MEMBERS | P.BAN_MEMBERS | P.ADMINISTRATOR | P.MANAGE_SERVER | P.VIEW_AUDIT_LOG | P.CHANGE_NICKNAME | P.MANAGE_NICKNAMES;

/** Parses a permission bitfield as the wire sends it (a decimal string); null when it is not one. */
export function parsePermissions(s: string): bigint | null {
  if (!/^(0|[1-9][0-9]{0,19})$/.test(s)) return null;
  const bits = BigInt(s);
  return bits < 1n << 64n ? bits : null;
}

export function hasAll(bits: bigint, needed: bigint): boolean {
  return (bits & needed) === needed;
}

/** The names of the permissions set in `bits`, in bit order. */
export function permissionNamesOf(bits: bigint): Permission[] {
  return PERMISSION_LIST.filter((p) => (bits & P[p]) !== 0n);
}

/** The bits of a list of names: those of docs/permissions.md#the-bits or the four legacy ones. */
export function bitsOfNames(names: readonly (Permission | LegacyPermission)[]): bigint {
  let bits = 0n;
  for (const n of names) bits |= n in LEGACY_PERMISSIONS ? LEGACY_PERMISSIONS[n as LegacyPermission] : P[n as Permission];
  return bits;
}

/** The legacy names (docs/permissions.md#bots) whose bits are all in `bits`. */
export function legacyNamesOf(bits: bigint): LegacyPermission[] {
  return (Object.keys(LEGACY_PERMISSIONS) as LegacyPermission[]).filter((n) => hasAll(bits, LEGACY_PERMISSIONS[n]));
}

export interface RoleBits {
  id: string;
  permissions: bigint;
  position: number;
}

export interface OverwriteBits {
  /** A role id (the server's id for `@everyone`) or a member's user id. */
  id: string;
  type: 'role' | 'member';
  allow: bigint;
  deny: bigint;
}

/** Everything that decides one member's permissions, in one server and optionally one channel. */
export interface PermissionInput {
  serverId: string;
  ownerId: string;
  userId: string;
  /**
   * Bots hold what they were granted: their own roles, not `@everyone`'s base permissions
   * nor an `@everyone` overwrite's allows (its denies still apply). This keeps the promise
   * of docs/permissions.md#bots that a bot added with only READ_MESSAGES cannot send.
   */
  bot: boolean;
  /** The server's roles, `@everyone` (id = serverId) included. */
  roles: ReadonlyMap<string, RoleBits>;
  /** The member's roles, `@everyone` not included. */
  memberRoles: readonly string[];
  /** The channel's overwrites; absent for server-wide permissions. */
  overwrites?: readonly OverwriteBits[];
}

/**
 * A member's permissions, in Discord's order of evaluation:
 * 1. the owner has every permission;
 * 2. base = `@everyone`'s permissions | each of the member's roles' (bots: their roles only);
 * 3. ADMINISTRATOR in the base grants every permission, overwrites notwithstanding;
 * 4. in a channel: the `@everyone` overwrite (deny, then allow), then the member's roles'
 *    overwrites together (all their denies, then all their allows), then the member's own
 *    overwrite (deny, then allow);
 * 5. without VIEW_CHANNEL a channel grants nothing; without SEND_MESSAGES (nor
 *    SEND_MESSAGES_IN_THREADS, for its threads: `threadPermissions`), nothing that only
 *    sending uses (links, files, mentioning everyone).
 */
export function computePermissions(input: PermissionInput): bigint {
  if (input.userId === input.ownerId) return ALL_PERMISSION_BITS;
  let bits = input.bot ? 0n : (input.roles.get(input.serverId)?.permissions ?? 0n);
  for (const id of input.memberRoles) bits |= input.roles.get(id)?.permissions ?? 0n;
  if ((bits & P.ADMINISTRATOR) !== 0n) return ALL_PERMISSION_BITS;
  if (!input.overwrites) return bits;
  const own = new Set(input.memberRoles);
  let everyone: OverwriteBits | undefined;
  let member: OverwriteBits | undefined;
  let roleAllow = 0n;
  let roleDeny = 0n;
  for (const o of input.overwrites) {
    if (o.type === 'member') {
      if (o.id === input.userId) member = o;
    } else if (o.id === input.serverId) everyone = o;
    else if (own.has(o.id)) {
      roleAllow |= o.allow;
      roleDeny |= o.deny;
    }
  }
  const channelOnly = ~SERVER_ONLY_PERMISSIONS;
  if (everyone) {
    bits &= ~(everyone.deny & channelOnly);
    if (!input.bot) bits |= everyone.allow & channelOnly;
  }
  bits = (bits & ~(roleDeny & channelOnly)) | (roleAllow & channelOnly);
  if (member) bits = (bits & ~(member.deny & channelOnly)) | (member.allow & channelOnly);
  if ((bits & P.VIEW_CHANNEL) === 0n) return 0n;
  if ((bits & (P.SEND_MESSAGES | P.SEND_MESSAGES_IN_THREADS)) === 0n) bits &= ~SENDING_ONLY;
  return bits;
}

/** What only sending uses: nothing without the right to send. */
const SENDING_ONLY = P.EMBED_LINKS | P.ATTACH_FILES | P.MENTION_EVERYONE;

/** What decides a member's permissions in a thread beyond its parent's (docs/threads.md#permissions). */
export interface ThreadAccess {
  /** A private thread (type 12): seen only by its members and MANAGE_THREADS. */
  private: boolean;
  /** Takes posts only from MANAGE_THREADS. */
  locked: boolean;
  /** Whether the member joined the thread. */
  member: boolean;
}

/**
 * A member's permissions in a thread, from theirs in its parent channel (`computePermissions`
 * with the parent's overwrites; a thread has none of its own), as Discord decides them:
 * 1. without VIEW_CHANNEL in the parent, nothing;
 * 2. a private thread grants nothing to someone who neither joined it nor holds MANAGE_THREADS;
 * 3. posting (SEND_MESSAGES in the thread, so the message routes need nothing else) is
 *    SEND_MESSAGES_IN_THREADS in the parent, whatever its SEND_MESSAGES; a locked thread
 *    takes posts only from MANAGE_THREADS;
 * 4. no thread starts inside a thread;
 * 5. without the right to post, nothing that only sending uses.
 */
export function threadPermissions(parent: bigint, thread: ThreadAccess): bigint {
  if ((parent & P.VIEW_CHANNEL) === 0n) return 0n;
  const manages = (parent & P.MANAGE_THREADS) !== 0n;
  if (thread.private && !thread.member && !manages) return 0n;
  let bits = parent & ~(P.SEND_MESSAGES | P.CREATE_PUBLIC_THREADS | P.CREATE_PRIVATE_THREADS);
  if ((parent & P.SEND_MESSAGES_IN_THREADS) !== 0n && (!thread.locked || manages)) bits |= P.SEND_MESSAGES;
  else bits &= ~(P.SEND_MESSAGES_IN_THREADS | SENDING_ONLY);
  return bits;
}

/** The position of a member's highest role (`@everyone` is 0); the owner is above every role. */
export function highestPosition(input: Pick<PermissionInput, 'userId' | 'ownerId' | 'roles' | 'memberRoles'>): number {
  if (input.userId === input.ownerId) return Number.POSITIVE_INFINITY;
  let top = 0;
  for (const id of input.memberRoles) top = Math.max(top, input.roles.get(id)?.position ?? 0);
  return top;
}
