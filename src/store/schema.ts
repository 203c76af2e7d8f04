import type { Generated } from 'kysely';

/** Row types, camelCase in TypeScript, snake_case in the database (CamelCasePlugin). */
export interface UserTable {
  id: string;
  /** Login name of a person; null for bots. */
  username: string | null;
  /** Lower-cased username, unique: names are case-insensitive. */
  usernameKey: string | null;
  name: string;
  bot: number;
  ownerId: string | null;
  passwordHash: string | null;
  tokenHash: string | null;
  avatar: string | null;
  createdAt: string;
  /** Bots only: 1 when anyone may add the bot to their server, 0 when only its owner may. */
  isPublic: number;
  /** People only: the name they chose to be shown by; `name` is it, or else the username (0006). */
  displayName?: string | null;
  /** The upload `avatar` names, when it is one of this service's: kept from the unattached-upload sweep (0006). */
  avatarUploadId?: string | null;
  /** Bots only: where interactions are to be delivered over HTTP; stored, not used yet (0006). */
  interactionsUrl?: string | null;
  /** When the person deleted their account: the row stays, anonymised, as the author of their messages (0006). */
  deletedAt?: string | null;
  /** When an administrator disabled the account, or (for a bot) its owner's; null when active (0010). */
  disabledAt?: string | null;
  /** When an administrator last ended the account's credentials from outside the service; instances poll it (0010). */
  revokedAt?: string | null;
}

export interface SessionTable {
  id: string;
  userId: string;
  tokenHash: string;
  createdAt: string;
  /** When the session was last used, to the hour or so: it expires SESSION_TTL_DAYS after (0006). */
  lastUsedAt?: string | null;
  /** The User-Agent of the login or registration that opened it, shortened and cleaned (0006). */
  userAgent?: string | null;
}

export interface ServerTable {
  id: string;
  name: string;
  ownerId: string;
  createdAt: string;
  icon?: string | null;
  /** The upload `icon` names, when it is one of this service's (0016): a reference that keeps it. */
  iconUploadId?: string | null;
  description?: string | null;
  /** Counts changes to what decides permissions (roles, overwrites, owner): caches key on it. */
  permVersion?: number;
  /** Where welcome lines are posted (0024); null: nowhere. */
  systemChannelId?: string | null;
  /** Discord's `system_channel_flags` (0024): bit 0 (SUPPRESS_JOIN_NOTIFICATIONS) turns the welcome lines off. */
  systemChannelFlags?: number;
}

export interface ChannelTable {
  id: string;
  /** Null for a direct message (0009). */
  serverId: string | null;
  name: string;
  createdAt: string;
  topic?: string | null;
  position?: number;
  /**
   * 'text' or 'category' (a server's), 'dm' or 'group_dm' (0009); 'forum', and a thread's
   * 'public_thread' or 'private_thread' (0025, docs/threads.md).
   */
  type?: ChannelKind;
  /** Who created a group DM. */
  ownerId?: string | null;
  /** A DM between two people: their ids, ascending, joined by ':' (unique). */
  dmKey?: string | null;
  /** The category a server channel sits in, or the channel a thread belongs to (0023). */
  parentId?: string | null;
  /** A forum's defaults (0028, docs/threads.md#forum-channels): minutes; null is a day. */
  defaultAutoArchiveDuration?: number | null;
  /** 'latest_activity' or 'creation_date'; null: not set. */
  defaultSortOrder?: string | null;
  /** 'list' or 'gallery'; null: not set. */
  defaultForumLayout?: string | null;
  /** A Unicode emoji clients offer to react to a post with. */
  defaultReactionEmoji?: string | null;
}

/** What a row of `channels` is. */
export type ChannelKind = 'text' | 'category' | 'dm' | 'group_dm' | 'forum' | 'public_thread' | 'private_thread';

/** What a thread is beyond its row of `channels` (0025, docs/threads.md): Discord's `thread_metadata`, owner and counts. */
export interface ThreadTable {
  channelId: string;
  /** Who started it. */
  ownerId: string;
  archived: number;
  locked: number;
  /** A private thread: whether members other than its moderators may add people. */
  invitable: number;
  /** Minutes without activity before it archives itself: 60, 1440, 4320 or 10080. */
  autoArchiveDuration: number;
  /** When it was last archived or unarchived (its creation until then). */
  archiveTimestamp: string;
  createTimestamp: string;
  /** When it archives itself unless something happens in it first (the auto-archive job's key). */
  archiveDueAt: string;
  messageCount: number;
  memberCount: number;
  /** A forum post's tags: a JSON array of tag ids. */
  appliedTags: string;
  /** Its parent, as its channel row says (0028: a thread's parent never changes), for the per-channel lists' index. */
  parentId?: string | null;
}

/** Someone who joined a thread (0025). */
export interface ThreadMemberTable {
  threadId: string;
  userId: string;
  joinTimestamp: string;
  flags: number;
}

/** One of a forum channel's `available_tags` (0025). */
export interface ForumTagTable {
  id: string;
  channelId: string;
  name: string;
  moderated: number;
  emojiId: string | null;
  emojiName: string | null;
  position: number;
}

export interface ChannelRecipientTable {
  channelId: string;
  userId: string;
  addedAt: string;
}

export interface UserBlockTable {
  userId: string;
  blockedId: string;
  createdAt: string;
}

export interface MemberTable {
  serverId: string;
  userId: string;
  /**
   * The legacy bits (docs/permissions.md#bots) of a bot added before roles (0005), until its managed role is made
   * just after the store opens; -1 once there is nothing to carry over.
   */
  legacyPermissions?: number;
  joinedAt: string;
  /** Their nickname in this server (0017); null or absent when they have none. */
  nick?: string | null;
}

/** One role a member holds (0020); `@everyone` is never listed. */
export interface MemberRoleTable {
  serverId: string;
  userId: string;
  roleId: string;
}

export interface RoleTable {
  id: string;
  serverId: string;
  name: string;
  color: number;
  position: number;
  /** Decimal bitfield. */
  permissions: string;
  hoist: number;
  mentionable: number;
  managed: number;
  /** The bot a managed role belongs to. */
  botId: string | null;
}

export interface ChannelOverwriteTable {
  channelId: string;
  serverId: string;
  targetId: string;
  type: 'role' | 'member';
  allow: string;
  deny: string;
}

export interface BanTable {
  serverId: string;
  userId: string;
  reason: string | null;
  createdBy: string;
  createdAt: string;
}

export interface AuditLogTable {
  id: string;
  serverId: string;
  action: string;
  actorId: string;
  targetId: string | null;
  /** JSON object. */
  changes: string;
  reason: string | null;
  createdAt: string;
}

export interface InviteTable {
  code: string;
  serverId: string;
  createdBy: string;
  createdAt: string;
  uses?: number;
  /** 0: unlimited. */
  maxUses?: number;
  /** Seconds; 0: never expires. */
  maxAge?: number;
  expiresAt?: string | null;
}

export interface UploadTable {
  id: string;
  uploaderId: string;
  filename: string;
  contentType: string;
  size: number;
  createdAt: string;
  /** The stored file's name when it is not the id: uploads made before snowflakes (0004). */
  fileKey?: string | null;
  /** The random part of the upload's URL (0016): without it the file is not served. */
  secret: string;
  /** 1 once something referenced the upload (0016): then it is served only while something still does. */
  claimed?: number;
  /** An image's size in pixels, measured when stored (0017); null for other files and older uploads. */
  width?: number | null;
  height?: number | null;
}

/**
 * Which uploads a message references (one row per message and upload). Files are deleted
 * when no row references them; the foreign key to `uploads` makes a row pointing at a
 * deleted upload impossible.
 */
export interface MessageAttachmentTable {
  messageId: string;
  uploadId: string;
}

export interface MessageTable {
  id: string;
  channelId: string;
  serverId: string;
  authorId: string;
  authorName: string;
  authorAvatar: string | null;
  authorBot: number;
  webhookId: string | null;
  content: string;
  /** JSON array of attachments. */
  attachments: string;
  /** JSON array of embeds. */
  embeds: string;
  createdAt: string;
  editedAt: string | null;
  /** JSON array of the users it mentions (`{id, name, bot, avatar}` as sent). */
  mentions: string;
  /** The role ids it pings, comma-joined ('' for none). */
  mentionRoles: string;
  /** 0: none; 1: `@everyone`; 2: `@here`. */
  mentionEveryone: number;
  /** The message it replies to. */
  referenceId: string | null;
  pinnedAt: string | null;
  /** JSON array of component rows; null when it has none (0010). */
  components: string | null;
  /** JSON `{id, type, name, user, loading?}`: the interaction it answers; null otherwise (0010). */
  interaction: string | null;
  /** 0: an ordinary message; 7: a welcome line, someone joined (0024; Discord's message types). */
  type: number;
}

/** A user named in a message one by one (`<@id>`, or the author of the message replied to). */
export interface MessageMentionTable {
  userId: string;
  channelId: string;
  messageId: string;
}

/** A person's settings (`UserSettings` of the wire, as JSON). */
export interface UserSettingsTable {
  userId: string;
  settings: string;
  updatedAt: string;
}

/** How far a person has read a channel. */
export interface ReadStateTable {
  userId: string;
  channelId: string;
  lastReadId: string;
  updatedAt: string;
}

export interface ReactionTable {
  messageId: string;
  emoji: string;
  userId: string;
  createdAt: string;
}

export interface WebhookTable {
  id: string;
  serverId: string;
  channelId: string;
  name: string;
  avatar: string | null;
  tokenHash: string;
  createdBy: string;
  createdAt: string;
}

export interface IdempotencyTable {
  /** Who made the request (e.g. `bot:<id>`, `webhook:<id>`); keys are scoped to their caller. */
  caller: string;
  key: string;
  /** Route + body fingerprint, so a key reused for a different request is refused. */
  fingerprint: string;
  status: number;
  body: string;
  createdAt: string;
}

/** A bot's command (0010); `serverId` 0 for a global one. */
export interface CommandTable {
  id: string;
  botId: string;
  serverId: string;
  /** `chat`, `user` or `message` (0020); names are unique per bot, scope and type. */
  type: 'chat' | 'user' | 'message';
  name: string;
  description: string;
  /** JSON array of options. */
  options: string;
  defaultMemberPermissions: string | null;
  createdAt: string;
  /** Discord's localizations (JSON objects, locale → text) and contexts / integration types (JSON arrays), kept as given (0018). */
  nameLocalizations?: string | null;
  descriptionLocalizations?: string | null;
  contexts?: string | null;
  integrationTypes?: string | null;
}

/** One command, click or autocomplete (0010). `serverId` 0 in a DM. */
export interface InteractionTable {
  id: string;
  tokenHash: string;
  botId: string;
  channelId: string;
  serverId: string;
  userId: string;
  type: 'command' | 'component' | 'autocomplete' | 'modalSubmit';
  /** The command's name, or the component's (or submitted modal's) customId. */
  name: string;
  state: 'pending' | 'acknowledged' | 'failed';
  callbackType: string | null;
  createdAt: string;
  /** A click's message. */
  sourceMessageId: string | null;
  /** The message the answer made (or, for `update`, the clicked one): what `messages/original` edits. */
  originalMessageId: string | null;
  /** An ephemeral original, as JSON (it is in no history). */
  ephemeralMessage: string | null;
  /** An autocomplete's answer, as JSON. */
  choices: string | null;
  /** The modal the bot answered with (0020), as JSON, until it is submitted once. */
  modal?: string | null;
  /** A user or message command's type (0020; and a modal submit's that came from one): what its answers show. */
  commandType?: 'user' | 'message' | null;
}

/** A bot's Ed25519 key pair for signing HTTP interactions (0010). */
export interface BotKeyTable {
  botId: string;
  /** 32 bytes, hex. */
  publicKey: string;
  /** PKCS #8 DER, base64: never leaves the service. */
  privateKey: string;
  createdAt: string;
}

/** ULIDs, the ids before snowflakes, and the snowflakes they became (0004). */
export interface LegacyIdTable {
  oldId: string;
  newId: string;
}

/** Worker numbers of snowflake generators: who holds each, and until when (ms since 1970). */
export interface WorkerLeaseTable {
  worker: number;
  holder: string;
  /** When the lease runs out unless renewed; 0 once released. */
  expiresAt: number;
  /** The last millisecond the holder may have issued ids for: the next holder starts after it. */
  highWater: number;
}

export interface Database {
  users: UserTable;
  sessions: SessionTable;
  servers: ServerTable;
  channels: ChannelTable;
  members: MemberTable;
  memberRoles: MemberRoleTable;
  roles: RoleTable;
  channelOverwrites: ChannelOverwriteTable;
  bans: BanTable;
  auditLog: AuditLogTable;
  invites: InviteTable;
  uploads: UploadTable;
  messages: MessageTable;
  messageAttachments: MessageAttachmentTable;
  reactions: ReactionTable;
  messageMentions: MessageMentionTable;
  readStates: ReadStateTable;
  userSettings: UserSettingsTable;
  channelRecipients: ChannelRecipientTable;
  userBlocks: UserBlockTable;
  webhooks: WebhookTable;
  idempotencyKeys: IdempotencyTable;
  legacyIds: LegacyIdTable;
  workerLeases: WorkerLeaseTable;
  commands: CommandTable;
  interactions: InteractionTable;
  botKeys: BotKeyTable;
  threads: ThreadTable;
  threadMembers: ThreadMemberTable;
  forumTags: ForumTagTable;
  // kysely's own tables are not typed here.
  _unused?: Generated<number>;
}
