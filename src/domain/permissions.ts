import {
  ALL_PERMISSION_BITS,
  computePermissions,
  highestPosition,
  type OverwriteBits,
  P,
  type Permission,
  type RoleBits,
  parsePermissions,
  type ThreadAccess,
  threadPermissions,
} from '@parley/protocol';
import type { GatewayEvent } from '../events/types.js';
import type { ForumFields } from './forums.js';
import { compareIds } from '../ids.js';
import type { ChannelOverwriteTable, RoleTable } from '../store/schema.js';
import type { Db } from '../store/index.js';
import { overwrites as overwritesRepo, roles as rolesRepo } from '../store/repos/roles.js';

/**
 * Who may see or do what, in one place. `computePermissions` (in @parley/protocol, so the
 * web client shows the same answer) is the rule; this module holds a server's inputs to it
 * (`ServerModel`), caches results per permission version, and says which permission each
 * gateway event needs. Routes (through `access.ts`), the gateway's event filter and
 * anything that lists or searches content ask here; nothing else compares permission bits.
 */

/** A member's role ids as the store answers them: each once, ascending. */
export const roleSet = (ids: Iterable<string>): string[] => [...new Set(ids)].sort(compareIds);

/** Whether two role sets (`roleSet`) are the same. */
export const sameRoles = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((id, i) => id === b[i]);

/** A channel as the gateway model keeps it (its overwrites are in the model). */
export interface ChannelInfo {
  id: string;
  serverId: string;
  name: string;
  createdAt: string;
  topic: string | null;
  position: number;
  /** A category groups channels and holds no messages (docs/api.md#categories); a forum holds posts (docs/threads.md#forum-channels). */
  type: 'text' | 'category' | 'forum';
  /** The category the channel sits in (null: none, always for a category). */
  parentId: string | null;
  /** A forum's tags and defaults (forums only). */
  availableTags?: ForumFields['availableTags'];
  defaultAutoArchiveDuration?: ForumFields['defaultAutoArchiveDuration'];
  defaultSortOrder?: ForumFields['defaultSortOrder'];
  defaultForumLayout?: ForumFields['defaultForumLayout'];
  defaultReactionEmoji?: ForumFields['defaultReactionEmoji'];
}

/** What the gateway carries so every instance can rebuild a server's model: JSON-safe. */
export interface ModelSnapshot {
  serverId: string;
  ownerId: string;
  version: number;
  /** The server's channels (the gateway announces those a change lets a member see). */
  channels?: ChannelInfo[];
  roles: Array<[id: string, permissions: string, position: number]>;
  overwrites: Array<[channelId: string, targetId: string, type: 'role' | 'member', allow: string, deny: string]>;
}

const NO_DELTAS: ReadonlyMap<number, ModelDelta> = new Map();

/**
 * One change of what decides a server's permissions, made at permission version `version`:
 * what a log entry carries instead of the whole model (`ServerModel.withDelta`). Every
 * permission change travels so (a joiner's MEMBER_ADD alone carries a whole model, for a
 * session with no view of the server yet). Without any field it only says that `version`
 * was made (a deleted channel's overwrites went with it, which the channel event itself says).
 */
export interface ModelDelta {
  version: number;
  /** A role created or changed, as it is now. */
  role?: [id: string, permissions: string, position: number];
  /** Roles and members that went: the role of that id, if any, and every overwrite naming it. */
  gone?: string[];
  /** One channel's overwrites, all of them as they are now (an empty list: it has none left). */
  overwrites?: [channelId: string, list: Array<[targetId: string, type: 'role' | 'member', allow: string, deny: string]>];
  /** The server's new owner. */
  owner?: string;
}

/** Deltas a gateway view holds past its version before it gives up waiting for the missing one (`withDelta`). */
const AHEAD_MAX = 64;

/**
 * One server's roles, owner and channel overwrites at one permission version: immutable,
 * so gateway sessions at the same version share it, with its computed results.
 *
 * In the gateway, `version` is the version every change up to which the model holds.
 * Entries reach the log in publish order, which is not always commit order (two requests
 * of one server, each publishing after its commit), so a delta may come before one of an
 * earlier version: it is applied at once (`ahead`), and the version moves past it only when
 * the ones before it have come too. A checkpoint records `version`, so a resume rebuilds
 * from the store only a view that holds exactly that version.
 */
export class ServerModel {
  readonly roles: ReadonlyMap<string, RoleBits>;
  readonly overwrites: ReadonlyMap<string, readonly OverwriteBits[]>;
  /** The server's channels, when the model was loaded with them (the gateway's models are). */
  readonly channels: ReadonlyMap<string, ChannelInfo>;
  /** The models that channel events turned this one into, per bus entry: sessions share them. */
  readonly next = new WeakMap<object, ServerModel>();
  /** Computed permissions by (bot, roles key, channel or ''): members with the same roles share them. */
  private readonly results = new Map<string, bigint>();

  constructor(
    readonly serverId: string,
    readonly ownerId: string,
    readonly version: number,
    roles: Iterable<RoleBits>,
    overwrites: Iterable<[string, OverwriteBits]>,
    channels: Iterable<ChannelInfo> = [],
    /** Deltas of versions past `version` already applied, while one before them is missing (gateway views only). */
    readonly ahead: ReadonlyMap<number, ModelDelta> = NO_DELTAS,
    /** Since when (ms) `ahead` has waited for a missing version; 0 when it holds none. */
    readonly aheadSince = 0,
  ) {
    this.channels = new Map([...channels].map((c) => [c.id, c]));
    this.roles = new Map([...roles].map((r) => [r.id, r]));
    const byChannel = new Map<string, OverwriteBits[]>();
    for (const [channelId, o] of overwrites) {
      let list = byChannel.get(channelId);
      if (!list) byChannel.set(channelId, (list = []));
      list.push(o);
    }
    this.overwrites = byChannel;
  }

  static fromRows(serverId: string, ownerId: string, version: number, roles: RoleTable[], overwrites: ChannelOverwriteTable[]) {
    return new ServerModel(
      serverId,
      ownerId,
      version,
      roles.map((r) => ({ id: r.id, permissions: parsePermissions(r.permissions) ?? 0n, position: r.position })),
      overwrites.map((o) => [
        o.channelId,
        { id: o.targetId, type: o.type, allow: parsePermissions(o.allow) ?? 0n, deny: parsePermissions(o.deny) ?? 0n },
      ]),
    );
  }

  static fromSnapshot(s: ModelSnapshot): ServerModel {
    return new ServerModel(
      s.serverId,
      s.ownerId,
      s.version,
      s.roles.map(([id, permissions, position]) => ({ id, permissions: BigInt(permissions), position })),
      s.overwrites.map(([channelId, id, type, allow, deny]) => [channelId, { id, type, allow: BigInt(allow), deny: BigInt(deny) }]),
      s.channels ?? [],
    );
  }

  /** The same model with one channel added, changed (`info`) or removed (`null`): for channel events. */
  withChannel(id: string, info: ChannelInfo | null): ServerModel {
    const channels = new Map(this.channels);
    if (info) channels.set(id, info);
    else channels.delete(id);
    const overwrites: Array<[string, OverwriteBits]> = [];
    for (const [channelId, list] of this.overwrites) if (info || channelId !== id) for (const o of list) overwrites.push([channelId, o]);
    return new ServerModel(
      this.serverId,
      this.ownerId,
      this.version,
      this.roles.values(),
      overwrites,
      channels.values(),
      this.ahead,
      this.aheadSince,
    );
  }

  private overwriteList(): Array<[string, OverwriteBits]> {
    const out: Array<[string, OverwriteBits]> = [];
    for (const [channelId, list] of this.overwrites) for (const o of list) out.push([channelId, o]);
    return out;
  }

  /**
   * The model after `d`: this one when it already holds it (`d.version` at or below its
   * version, or among `ahead`). A delta of the next version moves the version on (past any
   * held `ahead` that follow it); one further on is applied at once and held in `ahead`.
   * A delta coming after a later one that changed the same role (or the same channel's
   * overwrites, or the owner) leaves it as the later one made it. Role positions are the ones deltas carry: the gateway's views decide
   * visibility, which positions do not change (`computePermissions`), so the renumbering a
   * new or deleted role causes is not replayed here.
   */
  withDelta(d: ModelDelta): ServerModel {
    if (d.version <= this.version || this.ahead.has(d.version)) return this;
    /** What deltas past `d` already changed: roles (changed or gone), members gone, channels' overwrites, the owner. */
    const later = new Set<string>();
    const laterGone = new Set<string>();
    const laterChannels = new Set<string>();
    let laterOwner = false;
    for (const a of this.ahead.values()) {
      if (a.version < d.version) continue;
      if (a.role) later.add(a.role[0]);
      for (const id of a.gone ?? []) {
        later.add(id);
        laterGone.add(id);
      }
      if (a.overwrites) laterChannels.add(a.overwrites[0]);
      if (a.owner !== undefined) laterOwner = true;
    }
    const roles = new Map(this.roles);
    let overwrites = this.overwriteList();
    if (d.role && !later.has(d.role[0])) {
      const [id, permissions, position] = d.role;
      roles.set(id, { id, permissions: BigInt(permissions), position });
    }
    const gone = (d.gone ?? []).filter((id) => !later.has(id));
    if (gone.length > 0) {
      for (const id of gone) roles.delete(id);
      // A channel whose overwrites a later delta set holds them as that delta left them.
      overwrites = overwrites.filter(([channelId, o]) => !gone.includes(o.id) || laterChannels.has(channelId));
    }
    if (d.overwrites && !laterChannels.has(d.overwrites[0])) {
      const [channelId, list] = d.overwrites;
      overwrites = overwrites.filter(([c]) => c !== channelId);
      for (const [id, type, allow, deny] of list)
        if (!laterGone.has(id)) overwrites.push([channelId, { id, type, allow: BigInt(allow), deny: BigInt(deny) }]);
    }
    const ownerId = d.owner !== undefined && !laterOwner ? d.owner : this.ownerId;
    const ahead = new Map(this.ahead);
    ahead.set(d.version, d);
    let version = this.version;
    while (ahead.delete(version + 1)) version++;
    // A version that never comes (its writer died between commit and publish, with no gap
    // entry) must not hold the rest back forever, nor grow `ahead` without bound. The
    // gateway does not wait for it either: once `aheadSince` is old, the server's sessions
    // identify again (`Gateway.checkHeartbeats`), from the store, which has the change.
    if (ahead.size > AHEAD_MAX) {
      version = Math.max(...ahead.keys());
      ahead.clear();
    }
    return new ServerModel(
      this.serverId,
      ownerId,
      version,
      roles.values(),
      overwrites,
      this.channels.values(),
      ahead.size === 0 ? NO_DELTAS : ahead,
      ahead.size === 0 ? 0 : this.aheadSince || Date.now(),
    );
  }

  snapshot(): ModelSnapshot {
    const overwrites: ModelSnapshot['overwrites'] = [];
    for (const [channelId, list] of this.overwrites)
      for (const o of list) overwrites.push([channelId, o.id, o.type, o.allow.toString(), o.deny.toString()]);
    return {
      serverId: this.serverId,
      ownerId: this.ownerId,
      version: this.version,
      roles: [...this.roles.values()].map((r) => [r.id, r.permissions.toString(), r.position]),
      overwrites,
      channels: [...this.channels.values()],
    };
  }

  /**
   * Whether this model says exactly what `s` says (owner, version, roles, overwrites and
   * channels), so that a session loading `s` may share this model instead of building its
   * own. Compared field by field: channel events change a model without moving the version.
   */
  matches(s: ModelSnapshot): boolean {
    if (s.serverId !== this.serverId || s.ownerId !== this.ownerId || s.version !== this.version) return false;
    if (s.roles.length !== this.roles.size || (s.channels?.length ?? 0) !== this.channels.size) return false;
    for (const [id, permissions, position] of s.roles) {
      const r = this.roles.get(id);
      if (!r || r.position !== position || r.permissions.toString() !== permissions) return false;
    }
    for (const c of s.channels ?? []) {
      const m = this.channels.get(c.id);
      if (
        !m ||
        m.name !== c.name ||
        m.topic !== c.topic ||
        m.position !== c.position ||
        m.type !== c.type ||
        m.parentId !== c.parentId ||
        m.createdAt !== c.createdAt ||
        m.serverId !== c.serverId
      )
        return false;
    }
    let overwrites = 0;
    for (const list of this.overwrites.values()) overwrites += list.length;
    if (overwrites !== s.overwrites.length) return false;
    for (const [channelId, id, type, allow, deny] of s.overwrites) {
      const o = this.overwrites.get(channelId)?.find((x) => x.id === id && x.type === type);
      if (!o || o.allow.toString() !== allow || o.deny.toString() !== deny) return false;
    }
    return true;
  }

  /** A member's permissions server-wide (`channelId` omitted) or in a channel. */
  permissions(userId: string, bot: boolean, memberRoles: readonly string[], channelId?: string): bigint {
    if (userId === this.ownerId) return ALL_PERMISSION_BITS;
    const overwrites = channelId === undefined ? undefined : (this.overwrites.get(channelId) ?? []);
    // Member overwrites name one person: results that depend on one are never shared.
    if (overwrites?.some((o) => o.type === 'member' && o.id === userId)) {
      return computePermissions(this.input(userId, bot, memberRoles, overwrites));
    }
    const key = `${bot ? 'b' : 'p'}${memberRoles.join(',')}/${channelId ?? ''}`;
    let bits = this.results.get(key);
    if (bits === undefined) {
      bits = computePermissions(this.input(userId, bot, memberRoles, overwrites));
      if (this.results.size > 10_000) this.results.clear();
      this.results.set(key, bits);
    }
    return bits;
  }

  /**
   * A member's permissions in a thread: theirs in its parent, as the thread's kind, lock and
   * their membership leave them (`threadPermissions`, docs/threads.md#permissions).
   */
  threadPermissions(userId: string, bot: boolean, memberRoles: readonly string[], parentId: string, thread: ThreadAccess): bigint {
    return threadPermissions(this.permissions(userId, bot, memberRoles, parentId), thread);
  }

  private input(userId: string, bot: boolean, memberRoles: readonly string[], overwrites: readonly OverwriteBits[] | undefined) {
    return {
      serverId: this.serverId,
      ownerId: this.ownerId,
      userId,
      bot,
      roles: this.roles,
      memberRoles,
      ...(overwrites ? { overwrites } : {}),
    };
  }

  /** The position of a member's highest role; the owner is above all (`highestPosition`, the web client's rule too). */
  highest(userId: string, memberRoles: readonly string[]): number {
    return highestPosition({ userId, ownerId: this.ownerId, roles: this.roles, memberRoles });
  }
}

/**
 * Server models per permission version, read from the store on a miss. A request reads
 * the server's current version with the membership (one query, `members.forChannel`), so
 * a change made on any instance takes effect on the next request everywhere.
 */
export class PermissionCache {
  private readonly models = new Map<string, ServerModel>();
  private readonly loading = new Map<string, Promise<ServerModel>>();

  /** The model at `version` when it is at hand: the hot path then awaits nothing. */
  cached(serverId: string, ownerId: string, version: number): ServerModel | undefined {
    const cached = this.models.get(serverId);
    return cached && cached.version === version && cached.ownerId === ownerId ? cached : undefined;
  }

  async model(db: Db, serverId: string, ownerId: string, version: number): Promise<ServerModel> {
    const cached = this.cached(serverId, ownerId, version);
    if (cached) return cached;
    const key = `${serverId}/${version}`;
    let pending = this.loading.get(key);
    if (!pending) {
      pending = (async () => {
        const [roles, overwrites] = await Promise.all([rolesRepo.ofServer(db, serverId), overwritesRepo.ofServer(db, serverId)]);
        return ServerModel.fromRows(serverId, ownerId, version, roles, overwrites);
      })().finally(() => this.loading.delete(key));
      this.loading.set(key, pending);
    }
    const model = await pending;
    const current = this.models.get(serverId);
    if (!current || current.version <= version) {
      if (this.models.size >= 10_000 && !current) this.models.clear();
      this.models.set(serverId, model);
    }
    return model;
  }
}

/**
 * What each route needs, as bits. The legacy READ_MESSAGES (docs/permissions.md#bots) is seeing the channel and its
 * history; receiving live events of a channel needs only VIEW_CHANNEL (as Discord).
 */
export const NEEDS = {
  read: P.VIEW_CHANNEL | P.READ_MESSAGE_HISTORY,
  send: P.VIEW_CHANNEL | P.SEND_MESSAGES,
  react: P.VIEW_CHANNEL | P.ADD_REACTIONS,
  view: P.VIEW_CHANNEL,
} as const;

/**
 * What a recipient may do in a direct message: read, write, react, attach and embed;
 * never delete others' messages (no MANAGE_MESSAGES). In a DM between two people who can
 * no longer reach each other (a block, no shared server, DMs turned off) the history stays
 * readable but nothing new can be sent.
 */
export function dmPermissions(dm: { type: 'dm' | 'group_dm'; reachable: boolean }): bigint {
  const read = P.VIEW_CHANNEL | P.READ_MESSAGE_HISTORY;
  if (dm.type === 'dm' && !dm.reachable) return read;
  // Commands: a DM with a bot offers its global commands (docs/commands.md).
  return read | P.SEND_MESSAGES | P.ADD_REACTIONS | P.ATTACH_FILES | P.EMBED_LINKS | P.USE_APPLICATION_COMMANDS;
}

/**
 * Whether permissions `bits` in a channel let their holder read its messages: the history
 * routes, and everything that shows a message of the channel beside another one (the
 * message a reply quotes, `referencedMessage`) or says where its history ends (a channel's
 * `lastMessageId`, read states). A reply quotes a message of its own channel only, so this
 * answers for the quoted message too (docs/permissions.md, "Replies").
 */
export function mayReadHistory(bits: bigint): boolean {
  return has(bits, NEEDS.read);
}

/** Whether a grant lets its holder pin: MANAGE_MESSAGES in a server's channel; any recipient of a DM (as on Discord). */
export function mayPin(grant: { serverId: string | null; permissions: bigint }): boolean {
  return grant.serverId === null || (grant.permissions & P.MANAGE_MESSAGES) !== 0n;
}

export function has(bits: bigint, needed: bigint): boolean {
  return (bits & needed) === needed;
}

export function hasPermission(bits: bigint, permission: Permission): boolean {
  return (bits & P[permission]) !== 0n;
}

/**
 * How an event of a server is filtered, per session: by the permissions it needs in the
 * channel it belongs to, by a server-wide permission, or membership alone. Content
 * (messages, reactions, typing) needs what reading history needs, as REST does: VIEW_CHANNEL
 * and READ_MESSAGE_HISTORY; the channel itself needs VIEW_CHANNEL.
 */
export type Visibility = { channel: string; needs: bigint } | { server: bigint } | null;

export function visibilityOf(event: GatewayEvent): Visibility {
  switch (event.t) {
    case 'MESSAGE_CREATE':
    case 'MESSAGE_UPDATE':
    case 'MESSAGE_DELETE':
    case 'MESSAGE_DELETE_BULK':
    case 'CHANNEL_PINS_UPDATE':
    case 'REACTION_ADD':
    case 'REACTION_REMOVE':
    case 'TYPING_START':
      return { channel: event.d.channelId, needs: NEEDS.read };
    case 'CHANNEL_CREATE':
    case 'CHANNEL_UPDATE':
    case 'CHANNEL_DELETE':
      return { channel: event.d.id, needs: NEEDS.view };
    // A thread's own events: seeing the thread (a private one: its members; docs/threads.md#events).
    case 'THREAD_CREATE':
    case 'THREAD_UPDATE':
    case 'THREAD_DELETE':
    case 'THREAD_MEMBERS_UPDATE':
      return { channel: event.d.id, needs: NEEDS.view };
    case 'THREAD_MEMBER_UPDATE':
      return { channel: event.d.threadId, needs: NEEDS.view };
    case 'BAN_ADD':
    case 'BAN_REMOVE':
      return { server: P.BAN_MEMBERS };
    case 'MEMBER_ADD':
    case 'MEMBER_UPDATE':
    case 'MEMBER_REMOVE':
    case 'SERVER_UPDATE':
    case 'SERVER_DELETE':
    case 'ROLE_CREATE':
    case 'ROLE_UPDATE':
    case 'ROLE_DELETE':
    // A member's name and avatar, as the member list shows them.
    case 'USER_UPDATE':
    // Only ever addressed to the identity's own sessions (a `user` entry with no servers).
    case 'READ_STATE_UPDATE':
    // Someone's status: membership is enough, as for the member list (bounded in the gateway).
    case 'PRESENCE_UPDATE':
    // Direct messages travel as `direct` entries, addressed to their recipients only.
    case 'DM_CREATE':
    case 'DM_UPDATE':
    case 'DM_DELETE':
    // Interactions go to one identity's own sessions (a bot, or the person who invoked).
    case 'INTERACTION_CREATE':
    case 'INTERACTION_SUCCESS':
    case 'INTERACTION_FAILED':
    case 'INTERACTION_MODAL':
    // Which commands a channel offers: membership is enough (the list is filtered on GET).
    case 'COMMANDS_UPDATE':
    // Built per session from what it may see, and addressed to it alone.
    case 'THREAD_LIST_SYNC':
      return null;
  }
}
