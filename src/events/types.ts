import type { Channel, Message, PublicUser, Server } from '../domain/types.js';

/** The gateway's event types; `d` is what clients receive. */
export type GatewayEvent =
  | { t: 'MESSAGE_CREATE'; d: Message }
  | { t: 'MESSAGE_UPDATE'; d: Message }
  | { t: 'MESSAGE_DELETE'; d: { id: string; channelId: string; serverId: string } }
  | { t: 'REACTION_ADD' | 'REACTION_REMOVE'; d: ReactionEventData }
  | { t: 'TYPING_START'; d: { channelId: string; serverId: string; userId: string; name: string; bot: boolean } }
  | { t: 'CHANNEL_CREATE' | 'CHANNEL_UPDATE' | 'CHANNEL_DELETE'; d: Channel }
  | { t: 'MEMBER_ADD' | 'MEMBER_REMOVE'; d: { serverId: string; user: PublicUser } }
  | { t: 'SERVER_UPDATE'; d: Server };

export type EventType = GatewayEvent['t'];

export interface ReactionEventData {
  channelId: string;
  serverId: string;
  messageId: string;
  emoji: string;
  userId: string;
  /** The emoji's count on the message after the change. */
  count: number;
}

/**
 * What travels on the bus. Every event names its audience explicitly: the members of
 * `serverId` (for MEMBER_ADD/REMOVE, the member concerned too). Control entries close
 * connections of a revoked identity.
 */
export type BusEntry =
  | { kind: 'event'; serverId: string; event: GatewayEvent }
  | { kind: 'revoke'; userId: string; sessionId?: string; reason: string };
