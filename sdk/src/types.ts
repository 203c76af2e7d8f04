/**
 * Wire types of the Parley API (contract sections 2-7). Field names match the JSON the
 * service sends; ids are opaque strings that sort by creation time, timestamps are
 * ISO 8601 UTC strings.
 */

/** An id: opaque, sortable by creation time. */
export type Snowflake = string;

/** The permissions a server owner can grant a bot (contract section 3). */
export type BotPermission = 'READ_MESSAGES' | 'SEND_MESSAGES' | 'ADD_REACTIONS' | 'ATTACH_FILES';

/** A user or a bot, as `GET /users/@me` and member lists return it. */
export interface User {
  id: Snowflake;
  name: string;
  /** True for bot accounts. */
  bot: boolean;
  avatar?: string | null;
  /** For bots: the user who created the bot. */
  ownerId?: Snowflake;
  createdAt?: string;
}

/** A message's author. `bot` is true for bots and webhooks (the BOT badge). */
export interface MessageAuthor {
  id: Snowflake;
  name: string;
  bot: boolean;
  avatar: string | null;
}

/** A file attached to a message; `url` is one that `POST /upload` returned. */
export interface Attachment {
  url: string;
  filename: string;
  size: number;
  contentType: string;
}

/** What a send-message request may carry per attachment (the rest is looked up). */
export interface AttachmentInput {
  url: string;
  filename: string;
  size?: number;
  contentType?: string;
}

/** A rich embed (webhook dialects may produce them); every field is optional. */
export interface Embed {
  title?: string;
  description?: string;
  url?: string;
  color?: number;
  timestamp?: string;
  author?: { name: string; url?: string; iconUrl?: string };
  footer?: { text: string; iconUrl?: string };
  fields?: Array<{ name: string; value: string; inline?: boolean }>;
  image?: { url: string };
  thumbnail?: { url: string };
  [extra: string]: unknown;
}

/** One emoji's reactions on a message; `me` (when present) says whether the caller is among them. */
export interface Reaction {
  emoji: string;
  count: number;
  me?: boolean;
}

/** A message (contract section 4). */
export interface Message {
  id: Snowflake;
  channelId: Snowflake;
  serverId: Snowflake;
  author: MessageAuthor;
  content: string;
  attachments: Attachment[];
  /** Rich embeds (from webhook dialects); empty for plain messages. */
  embeds: Embed[];
  reactions: Reaction[];
  /** Only on messages posted through a webhook. */
  webhookId?: Snowflake;
  createdAt: string;
  editedAt: string | null;
}

/** A channel of a server. */
export interface Channel {
  id: Snowflake;
  serverId: Snowflake;
  name: string;
  createdAt: string;
}

/** A server (a community of channels). */
export interface Server {
  id: Snowflake;
  name: string;
  ownerId: Snowflake;
  createdAt: string;
}

/** The state of a reaction after `PUT .../reactions/{emoji}` toggled it. */
export interface ReactionState {
  emoji: string;
  count: number;
  /** Whether the caller's reaction is present after the toggle. */
  me: boolean;
}

/** The result of `POST /upload`. */
export interface UploadResult {
  url: string;
  filename: string;
  size: number;
  contentType: string;
}

/** Body of `POST /channels/{channelId}/messages`. */
export interface SendMessageBody {
  content?: string;
  attachments?: AttachmentInput[];
}

/** Body of `PATCH /channels/{channelId}/messages/{messageId}`. */
export interface EditMessageBody {
  content: string;
}

/** Paging for `GET /channels/{channelId}/messages` (newest first). */
export interface GetMessagesQuery {
  /** 1..100, server default 50. */
  limit?: number;
  /** Only messages older than this id. */
  before?: Snowflake;
  /** Only messages newer than this id. */
  after?: Snowflake;
}

// ---------------------------------------------------------------------------------
// Gateway (contract section 7)

/** `op` values of gateway frames. */
export type GatewayOp =
  | 'hello'
  | 'identify'
  | 'ready'
  | 'heartbeat'
  | 'heartbeat_ack'
  | 'event'
  | 'resume'
  | 'resumed'
  | 'invalid_session';

/** One gateway frame: every WebSocket message is exactly one of these as JSON. */
export interface GatewayFrame<D = unknown> {
  op: GatewayOp | (string & {});
  d?: D;
  t?: string;
  s?: number;
}

/** `hello`: sent by the server on connect. */
export interface HelloData {
  /** Milliseconds between the client's heartbeats. */
  heartbeatInterval: number;
}

/** A server as listed in `ready`, with its channels. */
export interface ReadyServer {
  id: Snowflake;
  name: string;
  channels: Channel[];
  ownerId?: Snowflake;
  createdAt?: string;
}

/** `ready`: the answer to `identify`. */
export interface ReadyData {
  sessionId: string;
  user: User;
  servers: ReadyServer[];
}

/** `MESSAGE_DELETE` payload. */
export interface MessageDeleteEvent {
  id: Snowflake;
  channelId: Snowflake;
  serverId: Snowflake;
}

/** `REACTION_ADD` / `REACTION_REMOVE` payload; `count` is the emoji's count afterwards. */
export interface ReactionEvent {
  channelId: Snowflake;
  serverId: Snowflake;
  messageId: Snowflake;
  emoji: string;
  userId: Snowflake;
  count: number;
}

/** `TYPING_START` payload. */
export interface TypingStartEvent {
  channelId: Snowflake;
  serverId: Snowflake;
  userId: Snowflake;
  name: string;
  bot: boolean;
}

/** `CHANNEL_DELETE` payload: at least the ids (servers may send the whole channel). */
export interface ChannelDeleteEvent extends Partial<Channel> {
  id: Snowflake;
  serverId: Snowflake;
}

/** `MEMBER_ADD` / `MEMBER_REMOVE` payload. */
export interface MemberEvent {
  serverId: Snowflake;
  user: User;
}

/** `MEMBER_UPDATE` payload: a bot's permissions in the server changed. */
export interface MemberUpdateEvent extends MemberEvent {
  permissions: BotPermission[];
}

/** Event type (`t`) → its payload (`d`). */
export interface GatewayEventPayloads {
  MESSAGE_CREATE: Message;
  MESSAGE_UPDATE: Message;
  MESSAGE_DELETE: MessageDeleteEvent;
  REACTION_ADD: ReactionEvent;
  REACTION_REMOVE: ReactionEvent;
  TYPING_START: TypingStartEvent;
  CHANNEL_CREATE: Channel;
  CHANNEL_UPDATE: Channel;
  CHANNEL_DELETE: ChannelDeleteEvent;
  MEMBER_ADD: MemberEvent;
  MEMBER_UPDATE: MemberUpdateEvent;
  MEMBER_REMOVE: MemberEvent;
  SERVER_UPDATE: Server;
}

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
