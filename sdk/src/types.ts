/**
 * Wire types of the Parley API (docs/api.md and docs/gateway.md). The objects the service sends,
 * and the bodies the SDK sends it, are the types of @parley/protocol's schemas, the ones
 * the service serializes and validates with, so the SDK cannot drift from it; this module
 * names them as the SDK always has. Ids are opaque strings that sort by creation time,
 * timestamps ISO 8601 UTC strings.
 */
import type {
  Attachment,
  AttachmentRef,
  BotSelf,
  Channel,
  GatewayEventPayloads,
  GatewayOp,
  HelloFrame,
  MessagePageQuery,
  PermissionName,
  PublicUser,
  ReadyFrame,
  SendMessageBody as WireSendMessageBody,
  Thread,
  ArchivedThreadsQuery as WireArchivedThreadsQuery,
  ThreadMembersQuery as WireThreadMembersQuery,
} from '@parley/protocol';

export type {
  Attachment,
  BanEvent,
  Role,
  RoleDeleteEvent,
  RoleEvent,
  Channel,
  Embed,
  GatewayEventPayloads,
  GatewayOp,
  Message,
  MessageDeleteEvent,
  MessageDeleteBulkEvent,
  ChannelPinsEvent,
  ReadState,
  AllowedMentions,
  MemberEvent,
  MemberUpdateEvent,
  Reaction,
  ReactionEvent,
  ReadyServer,
  Server,
  TypingStartEvent,
  Thread,
  ThreadMember,
  ThreadDeleteEvent,
  ThreadMemberUpdateEvent,
  ThreadMembersUpdateEvent,
  ThreadListSyncEvent,
  ForumTag,
  UserUpdateEvent,
  DmChannel,
  PresenceEvent,
  ActionRow,
  Button,
  Select,
  SelectOption,
  Component,
  Command,
  CommandOption,
  CommandChoice,
  CommandBody,
  CommandOptionBody,
  CommandOptionValues,
  Interaction,
  InteractionStateEvent,
  CommandsUpdateEvent,
  InteractionCallbackBody,
  InteractionCallbackData,
  InteractionMessageBody,
  MessageInteraction,
  Modal,
  ModalField,
  TextInput,
  InteractionModalEvent,
  InteractionMember,
  InteractionResolved,
} from '@parley/protocol';

/** An id: opaque, sortable by creation time. */
export type Snowflake = string;

/** The permissions a server owner can grant a bot (docs/permissions.md#bots). */
export type BotPermission = PermissionName;

/**
 * A user or a bot, as `GET /users/@me`, member lists and `ready` return it: the public
 * fields, plus a bot's owner and creation time where the answer carries them.
 */
export type User = PublicUser & Partial<Pick<BotSelf, 'ownerId' | 'createdAt'>>;

/** A message's author. `bot` is true for bots and webhooks (the BOT badge). */
export type MessageAuthor = PublicUser;

/**
 * What a send-message request may carry per attachment: the wire's `url` and `filename`
 * (the rest is looked up). An `UploadResult` may be passed as it is.
 */
export type AttachmentInput = AttachmentRef & Partial<Pick<Attachment, 'size' | 'contentType'>>;

/** The state of a reaction after `PUT .../reactions/{emoji}` toggled it (`me`: whether the caller's reaction is present). */
export type { Reaction as ReactionState } from '@parley/protocol';

/** The result of `POST /upload`. */
export type UploadResult = Attachment;

/** Body of `POST /channels/{channelId}/messages`: the wire's, attachments as `AttachmentInput`. */
export type SendMessageBody = Omit<WireSendMessageBody, 'attachments'> & { attachments?: AttachmentInput[] };

/** Body of `PATCH /channels/{channelId}/messages/{messageId}`. */
export type { EditMessageBody } from '@parley/protocol';

/**
 * Bodies of the thread routes (docs/api.md#threads): `POST /channels/{channelId}/threads`,
 * `POST /channels/{channelId}/messages/{messageId}/threads` and `PATCH /threads/{threadId}`.
 */
export type { CreateThreadBody, StartThreadFromMessageBody, UpdateThreadBody } from '@parley/protocol';

/**
 * Paging for `GET /channels/{channelId}/threads/archived` (newest archive first): the wire's
 * query with `joined` a boolean and `limit` a number.
 */
export type ArchivedThreadsQuery = Omit<WireArchivedThreadsQuery, 'joined' | 'limit'> & {
  /** Only the threads the caller joined (no MANAGE_THREADS needed for private ones). */
  joined?: boolean;
  /** 1..100, server default 50. */
  limit?: number;
};

/** A page of archived threads, newest archive first. */
export interface ArchivedThreadsPage {
  threads: Thread[];
  /** Whether an older page follows (ask again with `before` the last one's `metadata.archiveTimestamp`). */
  hasMore: boolean;
}

/** Paging for `GET /threads/{threadId}/members`, by user id. */
export type ThreadMembersQuery = Omit<WireThreadMembersQuery, 'limit'> & {
  /** 1..100, server default 100. */
  limit?: number;
};

/**
 * Paging for `GET /channels/{channelId}/messages` (newest first): the wire's query
 * (`before`: only messages older than this id; `after`: only newer), `limit` as a number.
 */
export type GetMessagesQuery = Omit<MessagePageQuery, 'limit'> & {
  /** 1..100, server default 50. */
  limit?: number;
};

// ---------------------------------------------------------------------------------
// Gateway (docs/gateway.md)

/** One gateway frame: every WebSocket message is exactly one of these as JSON. */
export interface GatewayFrame<D = unknown> {
  op: GatewayOp | (string & {});
  d?: D;
  t?: string;
  s?: number;
}

/** `hello`: sent by the server on connect (`heartbeatInterval` in ms). */
export type HelloData = HelloFrame['d'];

/** `ready`: the answer to `identify`. */
export type ReadyData = ReadyFrame['d'];

/** `CHANNEL_DELETE` payload: the deleted channel. */
export type ChannelDeleteEvent = Channel;

/** The event types the contract defines. */
export type GatewayEventType = keyof GatewayEventPayloads;

/** An `event` frame as the SDK hands it to `dispatch` listeners. */
export interface DispatchEvent {
  /** Event type, e.g. `MESSAGE_CREATE` (unknown future types pass through too). */
  t: string;
  /** Per-session sequence number, from 1. */
  s: number;
  d: unknown;
}
