import { type Channel, type Member, type Message, P, type Role, type Server, type Thread } from '@parley/protocol';
import type { ServerModel } from '../../domain/permissions.js';
import type { Caller } from '../../domain/types.js';
import type { ReadyState } from '../../domain/ready.js';
import { channelOf, visibleChannels } from '../../domain/visible-channels.js';
import type { AuthorMember, GatewayEvent, JoinSnapshot } from '../../events/types.js';
import { SharedFrame } from '../../gateway/frames.js';
import { discordInteraction } from '../interaction-objects.js';
import {
  discordChannel,
  discordGuild,
  discordMember,
  discordMemberNoUser,
  discordMessage,
  discordRole,
  discordThread,
  discordThreadMember,
  discordUser,
} from '../objects.js';
import { INTENTS } from './intents.js';

/**
 * A dispatch payload (op 0) serialized once for every session that receives it; only `s`
 * differs, so it goes last and each copy is the shared bytes plus a few digits.
 */
export class DispatchFrame extends SharedFrame {
  constructor(t: string, d: unknown) {
    super(t, `{"op":0,"t":${JSON.stringify(t)},"d":${JSON.stringify(d)},"s":`);
  }
}

export function dispatchFrame(t: string, d: unknown): DispatchFrame {
  return new DispatchFrame(t, d);
}

/** How one variant of an event is translated. */
export interface Variant {
  /** The message's content, embeds, attachments and components are left out (no MESSAGE_CONTENT). */
  stripped: boolean;
  /** The identity receiving it (its own membership changes read as guild changes). */
  self: string;
  /** For a person's events: the guild named. */
  guild: string;
  /** For an interaction: the bot's permissions in its channel. */
  appPermissions: string;
  publicUrl: string;
  /** For a server message's MESSAGE_CREATE / MESSAGE_UPDATE: its author as a member (the event's, not the session's). */
  author?: AuthorMember;
}

const guildOf = (serverId: string | null | undefined) => (serverId ? { guild_id: serverId } : {});

/**
 * A message as the gateway sends it, with its author's `member` in a server (none for a
 * webhook's message), emptied as MESSAGE_CONTENT requires when `stripped`.
 */
function message(m: Message, v: Variant) {
  const member = v.author && m.serverId !== null && !m.webhookId ? discordMemberNoUser(v.author) : undefined;
  const out = discordMessage(m, { publicUrl: v.publicUrl }, member ? { member } : {}) as unknown as Record<string, unknown>;
  if (v.stripped) {
    out.content = '';
    out.embeds = [];
    out.attachments = [];
    out.components = [];
  }
  return out;
}

/** Discord's event for a native one, or null when Discord's gateway has none. */
export function translate(event: GatewayEvent, v: Variant): { t: string; d: unknown } | null {
  switch (event.t) {
    case 'MESSAGE_CREATE':
    case 'MESSAGE_UPDATE':
      return { t: event.t, d: message(event.d as Message, v) };
    case 'MESSAGE_DELETE':
      return { t: 'MESSAGE_DELETE', d: { id: event.d.id, channel_id: event.d.channelId, ...guildOf(event.d.serverId) } };
    case 'MESSAGE_DELETE_BULK':
      return { t: 'MESSAGE_DELETE_BULK', d: { ids: event.d.ids, channel_id: event.d.channelId, ...guildOf(event.d.serverId) } };
    case 'CHANNEL_PINS_UPDATE':
      return {
        t: 'CHANNEL_PINS_UPDATE',
        d: { channel_id: event.d.channelId, last_pin_timestamp: event.d.lastPinTimestamp, ...guildOf(event.d.serverId) },
      };
    case 'REACTION_ADD':
    case 'REACTION_REMOVE': {
      const d = event.d;
      return {
        t: event.t === 'REACTION_ADD' ? 'MESSAGE_REACTION_ADD' : 'MESSAGE_REACTION_REMOVE',
        d: {
          user_id: d.userId,
          channel_id: d.channelId,
          message_id: d.messageId,
          ...guildOf(d.serverId),
          emoji: { id: null, name: d.emoji },
          burst: false,
          type: 0,
        },
      };
    }
    case 'TYPING_START':
      return {
        t: 'TYPING_START',
        d: {
          channel_id: event.d.channelId,
          ...guildOf(event.d.serverId),
          user_id: event.d.userId,
          timestamp: Math.floor(Date.now() / 1000),
        },
      };
    case 'CHANNEL_CREATE':
    case 'CHANNEL_UPDATE':
    case 'CHANNEL_DELETE':
      return { t: event.t, d: discordChannel(event.d as Channel) };
    // Threads (docs/discord.md#gateway): Discord's channel object of a thread. A THREAD_CREATE
    // that carries a membership is the one someone gets when added to a thread; every other
    // announces a thread just started (`newly_created`).
    case 'THREAD_CREATE':
      return { t: 'THREAD_CREATE', d: { ...discordThread(event.d as Thread), ...(event.d.member ? {} : { newly_created: true }) } };
    case 'THREAD_UPDATE':
      return { t: 'THREAD_UPDATE', d: discordThread(event.d as Thread) };
    case 'THREAD_DELETE':
      return {
        t: 'THREAD_DELETE',
        d: { id: event.d.id, guild_id: event.d.serverId, parent_id: event.d.parentId, type: event.d.type === 'public_thread' ? 11 : 12 },
      };
    case 'THREAD_MEMBER_UPDATE': {
      const { serverId, ...m } = event.d;
      return { t: 'THREAD_MEMBER_UPDATE', d: { ...discordThreadMember(m), guild_id: serverId } };
    }
    case 'THREAD_MEMBERS_UPDATE': {
      const d = event.d;
      return {
        t: 'THREAD_MEMBERS_UPDATE',
        d: {
          id: d.id,
          guild_id: d.serverId,
          member_count: d.memberCount,
          ...(d.addedMembers ? { added_members: d.addedMembers.map(discordThreadMember) } : {}),
          ...(d.removedMemberIds ? { removed_member_ids: d.removedMemberIds } : {}),
        },
      };
    }
    case 'THREAD_LIST_SYNC': {
      const d = event.d;
      return {
        t: 'THREAD_LIST_SYNC',
        d: {
          guild_id: d.serverId,
          ...(d.channelIds ? { channel_ids: d.channelIds } : {}),
          threads: d.threads.map((t) => discordThread(t as Thread)),
          members: d.members.map(discordThreadMember),
        },
      };
    }
    case 'MEMBER_ADD':
      return {
        t: 'GUILD_MEMBER_ADD',
        d: { ...discordMember({ user: event.d.user, roles: [], joinedAt: new Date().toISOString() }), guild_id: event.d.serverId },
      };
    case 'MEMBER_UPDATE': {
      const d = event.d;
      // Without `roles` the change was not to roles: the member's list is left as the client has it.
      return {
        t: 'GUILD_MEMBER_UPDATE',
        d: {
          guild_id: d.serverId,
          user: discordUser(d.user),
          ...(d.roles ? { roles: d.roles } : {}),
          ...(d.nick !== undefined ? { nick: d.nick } : {}),
        },
      };
    }
    case 'MEMBER_REMOVE':
      // Removed itself: Discord says the guild is gone for it.
      if (event.d.user.id === v.self) return { t: 'GUILD_DELETE', d: { id: event.d.serverId } };
      return { t: 'GUILD_MEMBER_REMOVE', d: { guild_id: event.d.serverId, user: discordUser(event.d.user) } };
    case 'SERVER_UPDATE': {
      // No roles: a guild update with roles replaces the client's whole role list.
      const { roles: _roles, ...guild } = discordGuild(event.d as Server, []);
      return { t: 'GUILD_UPDATE', d: guild };
    }
    case 'SERVER_DELETE':
      return { t: 'GUILD_DELETE', d: { id: event.d.id } };
    case 'ROLE_CREATE':
    case 'ROLE_UPDATE':
      return {
        t: event.t === 'ROLE_CREATE' ? 'GUILD_ROLE_CREATE' : 'GUILD_ROLE_UPDATE',
        d: { guild_id: event.d.serverId, role: discordRole(event.d.role as Role) },
      };
    case 'ROLE_DELETE':
      return { t: 'GUILD_ROLE_DELETE', d: { guild_id: event.d.serverId, role_id: event.d.roleId } };
    case 'BAN_ADD':
    case 'BAN_REMOVE':
      return {
        t: event.t === 'BAN_ADD' ? 'GUILD_BAN_ADD' : 'GUILD_BAN_REMOVE',
        d: { guild_id: event.d.serverId, user: discordUser(event.d.user) },
      };
    case 'PRESENCE_UPDATE':
      if (!v.guild) return null;
      return { t: 'PRESENCE_UPDATE', d: presence(event.d.userId, event.d.status, v.guild) };
    case 'USER_UPDATE':
      return { t: 'USER_UPDATE', d: discordUser(event.d.user) };
    case 'INTERACTION_CREATE':
      return { t: 'INTERACTION_CREATE', d: discordInteraction(event.d, { publicUrl: v.publicUrl, appPermissions: v.appPermissions }) };
    default:
      return null;
  }
}

function presence(userId: string, status: string, guildId: string) {
  const s = status === 'invisible' ? 'offline' : status;
  return { user: { id: userId }, guild_id: guildId, status: s, activities: [], client_status: s === 'offline' ? {} : { web: s } };
}

/** Discord's `large_threshold` (identify): its default, and the range it takes. */
export const LARGE_THRESHOLD = { default: 50, min: 50, max: 250 } as const;

/**
 * READY, then a GUILD_CREATE per server, from the session's snapshot (`domain/ready.ts`):
 * visible channels, roles, and members as Discord bounds them. A server over
 * `largeThreshold` members is `large` and lists only the identity's own member (the rest
 * come on request: op 8, GUILD_MEMBERS_CHUNK); a smaller one lists every member with
 * GUILD_MEMBERS, and their presences with GUILD_PRESENCES.
 */
export function readyFrames(
  sessionId: string,
  caller: Caller,
  state: ReadyState,
  o: { resumeUrl: string; intents: number },
): DispatchFrame[] {
  const { intents } = o;
  const ready = dispatchFrame('READY', {
    v: 10,
    user: { ...discordUser({ ...caller, bot: caller.bot }), verified: true, mfa_enabled: false },
    guilds: state.servers.map((s) => ({ id: s.server.id, unavailable: true })),
    session_id: sessionId,
    resume_gateway_url: o.resumeUrl,
    session_type: 'normal',
    private_channels: [],
    relationships: [],
    presences: [],
    guild_join_requests: [],
    geo_ordered_rtc_regions: [],
    shard: [0, 1],
    application: { id: caller.id, flags: 0 },
  });
  const guilds = state.servers.map((s) => {
    // The wire asks for members (`DiscordWire.readyWants`).
    const members = s.members!;
    const listed =
      members.large || (intents & INTENTS.GUILD_MEMBERS) === 0 ? members.list.filter((m) => m.user.id === caller.id) : members.list;
    const withPresence = (intents & INTENTS.GUILD_PRESENCES) !== 0 && !members.large;
    return guildCreate({
      server: s.server,
      roles: s.roles,
      joinedAt: members.joinedAt,
      memberCount: members.count,
      large: members.large,
      members: listed,
      channels: s.channels,
      threads: s.threads.map((t) => discordThread(t)),
      presences: withPresence
        ? members.list.filter((m) => m.presence !== 'offline').map((m) => presence(m.user.id, m.presence, s.server.id))
        : [],
    });
  });
  return [ready, ...guilds];
}

/** A GUILD_CREATE: the whole guild as a session sees it (its visible channels), at READY or when the bot joins. */
function guildCreate(g: {
  server: Server;
  roles: Role[];
  joinedAt: string;
  memberCount: number;
  large: boolean;
  members: Array<Pick<Member, 'user' | 'roles' | 'joinedAt' | 'nick'>>;
  channels: Channel[];
  /** Active threads it may see (Discord's `threads`, each with `member` where it joined). */
  threads?: unknown[];
  presences: unknown[];
}): DispatchFrame {
  return dispatchFrame('GUILD_CREATE', {
    ...discordGuild(g.server, g.roles),
    joined_at: g.joinedAt,
    large: g.large,
    unavailable: false,
    member_count: g.memberCount,
    members: g.members.map((m) => discordMember(m)),
    channels: g.channels.map((c) => discordChannel(c)),
    threads: g.threads ?? [],
    presences: g.presences,
    voice_states: [],
    stage_instances: [],
    guild_scheduled_events: [],
    soundboard_sounds: [],
  });
}

/**
 * The GUILD_CREATE of a server the bot just joined (its own MEMBER_ADD): the server, roles
 * and members its entry carries (`JoinSnapshot`), and the channels the session's view of
 * it, already joined, lets it see (the one filter, `visibleChannels`). Members other than
 * the bot only with GUILD_MEMBERS and up to `largeThreshold`, as at READY; no presences
 * (they follow as they change).
 */
export function joinedGuild(
  join: JoinSnapshot,
  model: ServerModel,
  self: Caller,
  roles: readonly string[],
  o: { intents: number; largeThreshold: number },
): DispatchFrame {
  const channels = visibleChannels(model, self, roles).map((c) => ({ ...channelOf(model, c.id)!, lastMessageId: null }));
  // The active threads it may see by the one permission function; it has joined none.
  const threads = (join.threads ?? []).filter(
    (t) =>
      (model.threadPermissions(self.id, self.bot, roles, t.parentId, {
        private: t.type === 'private_thread',
        locked: t.metadata.locked,
        member: false,
      }) &
        P.VIEW_CHANNEL) !==
      0n,
  );
  const large = join.memberCount > o.largeThreshold;
  const members = large || (o.intents & INTENTS.GUILD_MEMBERS) === 0 ? join.members.filter((m) => m.user.id === self.id) : join.members;
  return guildCreate({
    server: join.server,
    roles: join.roles,
    joinedAt: join.joinedAt,
    memberCount: join.memberCount,
    large,
    members,
    channels,
    threads: threads.map((t) => discordThread(t as Thread)),
    presences: [],
  });
}
