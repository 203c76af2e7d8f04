import type { Channel, Message, PermissionName, PublicUser, Server } from '../domain/types.js';

/** The gateway's event types; `d` is what clients receive. */
export type GatewayEvent =
  | { t: 'MESSAGE_CREATE'; d: Message }
  | { t: 'MESSAGE_UPDATE'; d: Message }
  | { t: 'MESSAGE_DELETE'; d: { id: string; channelId: string; serverId: string } }
  | { t: 'REACTION_ADD' | 'REACTION_REMOVE'; d: ReactionEventData }
  | { t: 'TYPING_START'; d: { channelId: string; serverId: string; userId: string; name: string; bot: boolean } }
  | { t: 'CHANNEL_CREATE' | 'CHANNEL_UPDATE' | 'CHANNEL_DELETE'; d: Channel }
  | { t: 'MEMBER_ADD'; d: { serverId: string; user: PublicUser } }
  | { t: 'MEMBER_REMOVE'; d: { serverId: string; user: PublicUser } }
  | { t: 'MEMBER_UPDATE'; d: { serverId: string; user: PublicUser; permissions: PermissionName[] } }
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

/** Events that change what the member concerned may see: they carry the member's new permission bits. */
export type GrantEvent = Extract<GatewayEvent, { t: 'MEMBER_ADD' | 'MEMBER_UPDATE' }>;

/**
 * What travels on the bus. Every event names its audience explicitly: the members of
 * `serverId` (for MEMBER_ADD/REMOVE, the member concerned too) who may see it
 * (`permissions.ts`). An event that grants or changes a member's permissions carries the
 * bits, so every gateway session keeps its view current from the log itself.
 *
 * Control entries: `revoke` closes connections of a revoked identity; `gap` says events of
 * `serverIds` (every server, when null) were lost (the log was unreachable), so sessions
 * that belong to them must resynchronise; `mark` is an empty entry a log may append so that
 * positions always name an entry that exists.
 */
export type BusEntry =
  | { kind: 'event'; serverId: string; event: Exclude<GatewayEvent, GrantEvent> }
  | { kind: 'event'; serverId: string; event: GrantEvent; permissions: number }
  | { kind: 'revoke'; userId: string; sessionId?: string; reason: string }
  | { kind: 'gap'; serverIds: string[] | null }
  | { kind: 'mark' };
