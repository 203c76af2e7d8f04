import type { GatewayEvent, Member, Role, Server, Thread } from '@parley/protocol';
import type { ModelDelta, ModelSnapshot } from '../domain/permissions.js';

/** The gateway's events (`d` is what clients receive): the protocol's event union. */
export type { GatewayEvent };

/** Events about a person or bot rather than about one server (READ_STATE_UPDATE: only to their own sessions). */
export type UserEvent = Extract<GatewayEvent, { t: 'USER_UPDATE' | 'READ_STATE_UPDATE' | 'PRESENCE_UPDATE' }>;

/** Events of a channel's content (typing aside: a `Signal`): in a DM they reach its recipients only. */
export type ChannelEvent = Extract<
  GatewayEvent,
  {
    t:
      | 'MESSAGE_CREATE'
      | 'MESSAGE_UPDATE'
      | 'MESSAGE_DELETE'
      | 'MESSAGE_DELETE_BULK'
      | 'CHANNEL_PINS_UPDATE'
      | 'REACTION_ADD'
      | 'REACTION_REMOVE';
  }
>;

/**
 * Events for one identity alone (docs/commands.md): an interaction for its bot, what became of
 * a person's interaction. They travel as `user` entries with no servers, as do ephemeral
 * messages (MESSAGE_CREATE/UPDATE/DELETE with `ephemeral: true`) for their one reader.
 */
export type SelfEvent = Extract<
  GatewayEvent,
  { t: 'INTERACTION_CREATE' | 'INTERACTION_SUCCESS' | 'INTERACTION_FAILED' | 'INTERACTION_MODAL' }
>;

/** Events about a DM itself. */
export type DmEvent = Extract<GatewayEvent, { t: 'DM_CREATE' | 'DM_UPDATE' | 'DM_DELETE' }>;

/**
 * What travels on the bus. Every event names its audience explicitly: the members of
 * `serverId` (for MEMBER_ADD/REMOVE, the member concerned too) who may see it
 * (`permissions.ts`). An event that changes what decides permissions carries that change
 * with the permission version it made (`delta`: one role created or changed, roles and
 * members whose overwrites went, one channel's overwrites, a new owner), and each gateway
 * session applies it to its view (`ServerModel.withDelta`). A delta is as large as the
 * change, not the server: a server with thousands of bots has thousands of roles, and an
 * entry per bot join carrying all of them made the log grow with the square of the bots.
 * Only MEMBER_ADD carries the whole model (`model`), for the joining member alone, who has
 * no view yet. MEMBER_ADD and MEMBER_UPDATE carry the member's roles. So every gateway
 * session keeps its view current from the log itself.
 *
 * A `direct` entry belongs to a DM: its audience is the sessions of `recipients`, no one
 * else (a DM_DELETE's recipients include the person who left, so they hear of it).
 *
 * A `user` entry is about one person or bot: its audience is that identity's own sessions
 * and the members of `serverIds` (the servers it belongs to) who may see it, each session
 * once however many of those servers it shares.
 *
 * A server message's MESSAGE_CREATE and MESSAGE_UPDATE carry `author`: the author's roles and
 * join date, read once when the event is published, so Discord's gateway can send the
 * message's `member` to every session without a query per recipient. The native wire does
 * not send it.
 *
 * A bot's MEMBER_ADD also carries `join`: what Discord's gateway sends a bot that joins a
 * server (GUILD_CREATE) and the model does not hold (the server, its roles, its members).
 * Its `model` then has no roles of its own (`roles: []`): they are the join's, read in the
 * same transaction, so the every-role list travels once per bot join, not twice.
 *
 * Control entries: `revoke` closes connections of a revoked identity; `gap` says events of
 * `serverIds` (every server, when null) were lost (the log was unreachable), so sessions
 * that belong to them must resynchronise; `mark` is an empty entry a log may append so that
 * positions always name an entry that exists.
 */
export type BusEntry =
  | {
      kind: 'event';
      serverId: string;
      /** Typing never enters the log: it travels as a `Signal`. */
      event: Exclude<GatewayEvent, UserEvent | DmEvent | SelfEvent | TypingEvent>;
      model?: ModelSnapshot;
      delta?: ModelDelta;
      roles?: string[];
      join?: JoinSnapshot;
      /** For a server message's MESSAGE_CREATE / MESSAGE_UPDATE: its author as a member (none for a webhook's). */
      author?: AuthorMember;
      /** An event of a thread's content: who may receive it is the thread's rule, not its channel id's. */
      thread?: ThreadAudience;
    }
  | { kind: 'direct'; channelId: string; recipients: string[]; event: ChannelEvent | DmEvent }
  | {
      kind: 'user';
      userId: string;
      serverIds: string[];
      event: UserEvent | SelfEvent | ChannelEvent /** false: not to the identity's own sessions. */;
      toSelf?: false;
    }
  | { kind: 'revoke'; userId: string; sessionId?: string; reason: string }
  | { kind: 'gap'; serverIds: string[] | null }
  | { kind: 'mark' };

/**
 * What the gateway needs to judge an event of a thread's content (docs/threads.md#events):
 * its parent, whose permissions the thread's are (`threadPermissions`), and for a private
 * thread its members, the only sessions it is sent to.
 */
export interface ThreadAudience {
  parentId: string;
  private: boolean;
  /** A private thread's members' ids, read when the event is published. */
  members?: string[];
  /**
   * A private thread's own events (THREAD_CREATE, _UPDATE, _DELETE, _MEMBERS_UPDATE) also reach
   * those who hold MANAGE_THREADS in the parent, as on Discord: they may open it unjoined.
   */
  moderators?: boolean;
  /** Only these people's sessions (someone's own membership, the THREAD_CREATE of someone added), if they may see the thread. */
  to?: string[];
}

/** A typing indicator: the one live-only event. */
export type TypingEvent = Extract<GatewayEvent, { t: 'TYPING_START' }>;

/**
 * A live-only event (`EventBus.signal`): typing. It is not part of the log: it has no
 * position, is never replayed and takes no sequence number, because an indicator is worth
 * nothing seconds later and a storm of them would crowd out the log's resume horizon.
 * In a server (`serverId`) it reaches the sessions that may see the channel and either
 * look at it (a person's connection, `focus`) or are bots'; in a DM (`recipients`) the
 * recipients' sessions.
 */
export type Signal =
  | { serverId: string; recipients?: undefined; event: TypingEvent; thread?: ThreadAudience }
  | { serverId?: undefined; recipients: string[]; event: TypingEvent };

/** The server a bot just joined, as it was at the join: for Discord's GUILD_CREATE (channels come from the model). */
export interface JoinSnapshot {
  server: Server;
  roles: Role[];
  /** Every member, or (more than `JOIN_MEMBERS_MAX`) only the bot. */
  members: Array<Pick<Member, 'user' | 'roles' | 'joinedAt' | 'nick'>>;
  memberCount: number;
  joinedAt: string;
  /**
   * The server's active threads (at most `JOIN_THREADS_MAX`), read after the join: each of the
   * bot's sessions keeps those it may see (docs/threads.md#events). It has joined none.
   */
  threads?: Thread[];
}

/** A message author's membership, as Discord's `member` of MESSAGE_CREATE / MESSAGE_UPDATE shows it. */
export interface AuthorMember {
  /** Role ids, `@everyone` left out (as on Discord). */
  roles: string[];
  joinedAt: string;
  /** Their nickname in the server, if any. */
  nick?: string | null;
}

/** Servers with more members than this send only the joining bot's own (Discord's largest `large_threshold`). */
export const JOIN_MEMBERS_MAX = 250;

/** The most active threads a bot's join carries: Discord's limit of active threads in a guild. */
export const JOIN_THREADS_MAX = 1000;
