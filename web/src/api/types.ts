/** Shapes of the Parley API, as the web client reads them (see docs/api.md). */

export interface User {
  id: string;
  name: string;
  /** Some servers answer with `username`; `displayName()` reads either. */
  username?: string;
  bot?: boolean;
  avatar?: string | null;
  createdAt?: string;
}

export interface Server {
  id: string;
  name: string;
  ownerId?: string;
  createdAt?: string;
  channels?: Channel[];
}

export interface Channel {
  id: string;
  serverId: string;
  name: string;
  createdAt?: string;
}

export type Permission = 'READ_MESSAGES' | 'SEND_MESSAGES' | 'ADD_REACTIONS' | 'ATTACH_FILES';
export const ALL_PERMISSIONS: readonly Permission[] = [
  'READ_MESSAGES',
  'SEND_MESSAGES',
  'ADD_REACTIONS',
  'ATTACH_FILES',
];

export interface Member {
  id: string;
  name: string;
  username?: string;
  bot: boolean;
  avatar?: string | null;
  permissions?: Permission[];
}

export interface Author {
  id: string;
  name: string;
  bot: boolean;
  avatar?: string | null;
}

export interface Attachment {
  url: string;
  filename: string;
  size?: number;
  contentType?: string;
}

export interface EmbedField {
  name?: string;
  value?: string;
  inline?: boolean;
}

export interface Embed {
  title?: string;
  description?: string;
  url?: string;
  color?: number;
  fields?: EmbedField[];
  author?: { name?: string; url?: string; icon_url?: string };
  footer?: { text?: string; icon_url?: string };
  timestamp?: string;
  image?: { url?: string };
  thumbnail?: { url?: string };
}

export interface Reaction {
  emoji: string;
  count: number;
  me?: boolean;
}

export interface Message {
  id: string;
  channelId: string;
  serverId?: string;
  author: Author;
  content: string;
  attachments?: Attachment[];
  embeds?: Embed[];
  reactions?: Reaction[];
  webhookId?: string | null;
  createdAt: string;
  editedAt?: string | null;
}

export interface Webhook {
  id: string;
  serverId: string;
  channelId: string;
  name: string;
  avatar?: string | null;
  createdBy: string;
  createdAt: string;
  /** Only in the response that creates the webhook. */
  token?: string;
  url?: string;
}

export interface Bot {
  id: string;
  name: string;
  ownerId: string;
  /** Anyone may add the bot to their server; otherwise only its owner may. */
  public: boolean;
  createdAt: string;
  /** Only in the response that creates the bot. */
  token?: string;
}

export interface UploadResult {
  url: string;
  filename: string;
  size: number;
  contentType: string;
}

export interface AuthResult {
  token: string;
  user: User;
}

export interface ReadyPayload {
  sessionId: string;
  user: User;
  servers: Server[];
}

export interface TypingPayload {
  channelId: string;
  serverId: string;
  userId: string;
  name: string;
  bot?: boolean;
}

export interface ReactionEventPayload {
  channelId: string;
  serverId?: string;
  messageId: string;
  emoji: string;
  userId: string;
  count: number;
}

export interface MemberEventPayload {
  serverId: string;
  user: Member;
}

/** Every gateway event the client understands. */
export type GatewayEvent =
  | { t: 'MESSAGE_CREATE'; d: Message }
  | { t: 'MESSAGE_UPDATE'; d: Message }
  | { t: 'MESSAGE_DELETE'; d: { id: string; channelId: string; serverId?: string } }
  | { t: 'REACTION_ADD'; d: ReactionEventPayload }
  | { t: 'REACTION_REMOVE'; d: ReactionEventPayload }
  | { t: 'TYPING_START'; d: TypingPayload }
  | { t: 'CHANNEL_CREATE'; d: Channel }
  | { t: 'CHANNEL_UPDATE'; d: Channel }
  | { t: 'CHANNEL_DELETE'; d: Channel }
  | { t: 'MEMBER_ADD'; d: MemberEventPayload }
  | { t: 'MEMBER_REMOVE'; d: MemberEventPayload }
  | { t: 'SERVER_UPDATE'; d: Server };

/** A user's or member's name, whichever field the server used. */
export function displayName(u: { name?: string; username?: string } | null | undefined): string {
  return u?.name ?? u?.username ?? 'Unknown';
}
