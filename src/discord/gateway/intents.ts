import type { GatewayEvent } from '../../events/types.js';

/** Discord's gateway intents (bit flags in identify's `intents`). */
export const INTENTS = {
  GUILDS: 1 << 0,
  GUILD_MEMBERS: 1 << 1,
  GUILD_MODERATION: 1 << 2,
  GUILD_EXPRESSIONS: 1 << 3,
  GUILD_INTEGRATIONS: 1 << 4,
  GUILD_WEBHOOKS: 1 << 5,
  GUILD_INVITES: 1 << 6,
  GUILD_VOICE_STATES: 1 << 7,
  GUILD_PRESENCES: 1 << 8,
  GUILD_MESSAGES: 1 << 9,
  GUILD_MESSAGE_REACTIONS: 1 << 10,
  GUILD_MESSAGE_TYPING: 1 << 11,
  DIRECT_MESSAGES: 1 << 12,
  DIRECT_MESSAGE_REACTIONS: 1 << 13,
  DIRECT_MESSAGE_TYPING: 1 << 14,
  MESSAGE_CONTENT: 1 << 15,
  GUILD_SCHEDULED_EVENTS: 1 << 16,
  AUTO_MODERATION_CONFIGURATION: 1 << 20,
  AUTO_MODERATION_EXECUTION: 1 << 21,
  GUILD_MESSAGE_POLLS: 1 << 24,
  DIRECT_MESSAGE_POLLS: 1 << 25,
  /** Every bit Discord defines: any other bit is an invalid intent (close 4013). */
  ALL: 0,
};
INTENTS.ALL = Object.values(INTENTS).reduce((a, b) => a | b, 0);

/** A channel event's server: null in a DM. */
function serverOf(event: GatewayEvent): string | null {
  const d = event.d as { serverId?: string | null };
  return d.serverId ?? null;
}

/**
 * The intent a native event needs on Discord's gateway: 0 when every session gets it
 * (INTERACTION_CREATE, the identity's own USER_UPDATE), null when Discord's gateway has no
 * such event for this identity (read states, DM channel notices, Parley's command lists).
 */
export function intentOf(event: GatewayEvent, self: string): number | null {
  switch (event.t) {
    case 'MESSAGE_CREATE':
    case 'MESSAGE_UPDATE':
    case 'MESSAGE_DELETE':
      if ((event.d as { ephemeral?: boolean }).ephemeral) return null;
      return serverOf(event) === null ? INTENTS.DIRECT_MESSAGES : INTENTS.GUILD_MESSAGES;
    case 'MESSAGE_DELETE_BULK':
      return serverOf(event) === null ? null : INTENTS.GUILD_MESSAGES;
    case 'REACTION_ADD':
    case 'REACTION_REMOVE':
      return serverOf(event) === null ? INTENTS.DIRECT_MESSAGE_REACTIONS : INTENTS.GUILD_MESSAGE_REACTIONS;
    case 'TYPING_START':
      return serverOf(event) === null ? INTENTS.DIRECT_MESSAGE_TYPING : INTENTS.GUILD_MESSAGE_TYPING;
    case 'CHANNEL_PINS_UPDATE':
      return serverOf(event) === null ? INTENTS.DIRECT_MESSAGES : INTENTS.GUILDS;
    case 'CHANNEL_CREATE':
    case 'CHANNEL_UPDATE':
    case 'CHANNEL_DELETE':
    case 'SERVER_UPDATE':
    case 'SERVER_DELETE':
    case 'ROLE_CREATE':
    case 'ROLE_UPDATE':
    case 'ROLE_DELETE':
      return INTENTS.GUILDS;
    case 'MEMBER_ADD':
    case 'MEMBER_UPDATE':
    case 'MEMBER_REMOVE':
      // The identity's own membership changes reach it whatever its intents, as on Discord.
      return event.d.user.id === self ? INTENTS.GUILDS : INTENTS.GUILD_MEMBERS;
    case 'THREAD_CREATE':
    case 'THREAD_UPDATE':
    case 'THREAD_DELETE':
    case 'THREAD_LIST_SYNC':
    case 'THREAD_MEMBER_UPDATE':
      return INTENTS.GUILDS;
    case 'THREAD_MEMBERS_UPDATE':
      // Others joining or leaving need GUILD_MEMBERS; the identity's own, GUILDS (Discord's rule).
      return event.d.addedMembers?.some((m) => m.userId === self) || event.d.removedMemberIds?.includes(self)
        ? INTENTS.GUILDS
        : INTENTS.GUILD_MEMBERS;
    case 'BAN_ADD':
    case 'BAN_REMOVE':
      return INTENTS.GUILD_MODERATION;
    case 'PRESENCE_UPDATE':
      return INTENTS.GUILD_PRESENCES;
    case 'USER_UPDATE':
      return event.d.user.id === self ? 0 : null;
    case 'INTERACTION_CREATE':
      return 0;
    default:
      return null;
  }
}

/**
 * Discord's MESSAGE_CONTENT rule: without the intent, a message's content, embeds,
 * attachments and components arrive empty, except in DMs, in messages the identity sent,
 * and in messages that mention it.
 */
export function needsContentStripped(event: GatewayEvent, self: string, intents: number): boolean {
  if ((intents & INTENTS.MESSAGE_CONTENT) !== 0) return false;
  if (event.t !== 'MESSAGE_CREATE' && event.t !== 'MESSAGE_UPDATE') return false;
  const m = event.d as { serverId?: string | null; author?: { id: string }; mentions?: Array<string | { id: string }> };
  if (m.serverId === null || m.serverId === undefined) return false;
  if (m.author?.id === self) return false;
  return !(m.mentions ?? []).some((x) => (typeof x === 'string' ? x : x.id) === self);
}
