import { type Static, type TLiteral, Type } from 'typebox';
import {
  ATTACHMENTS_MAX,
  COMMAND_LIMITS,
  COMMAND_OPTION_TYPES,
  COMMAND_TYPES,
  COMPONENT_LIMITS,
  CONTACT_LIMITS,
  CONTENT_MAX,
  EMBED_LIMITS,
  INTERACTION_CALLBACK_TYPES,
  MODAL_LIMITS,
  OBJECT_LIMITS,
  PERMISSION_NAMES,
  SEARCH_HAS,
  SEARCH_LIMITS,
} from './limits.js';
import {
  ActionRow,
  CommandChoice,
  CommandContexts,
  CommandIntegrationTypes,
  CommandLocalizations,
  Embed,
  Modal,
  ModalField,
  literals,
  ref,
} from './wire.js';

/**
 * What clients send: the path parameters, query strings, headers and bodies of the API's
 * requests, as JSON Schema. The server's routes validate requests with these (and the
 * OpenAPI document shows them inline, so they carry no `$id`); the SDK and the web client
 * type what they send with the `Static<>` type of the same name beside each schema.
 *
 * A change here changes what the service accepts: the limits and shapes are the contract.
 */

// ---------------------------------------------------------------- path parameters
//
// Ids in paths are plain strings: an id of the wrong shape is answered like an unknown
// one (404), so no pattern here.

export const ServerParams = Type.Object({ serverId: Type.String() });
export const ChannelParams = Type.Object({ channelId: Type.String() });
export const MessageParams = Type.Object({ channelId: Type.String(), messageId: Type.String() });
export const ReactionParams = Type.Object({ channelId: Type.String(), messageId: Type.String(), emoji: Type.String({ maxLength: 64 }) });
/** `/invites/{code}`. */
export const InviteParams = Type.Object({ code: Type.String({ maxLength: 64 }) });
/** `/servers/{serverId}/members/{userId}`; `userId` may be `@me`. */
export const MemberParams = Type.Object({ serverId: Type.String(), userId: Type.String() });
/** `/servers/{serverId}/roles/{roleId}`. */
export const RoleParams = Type.Object({ serverId: Type.String(), roleId: Type.String() });
/** `/servers/{serverId}/members/{userId}/roles/{roleId}`. */
export const MemberRoleParams = Type.Object({ serverId: Type.String(), userId: Type.String(), roleId: Type.String() });
/** `/channels/{channelId}/permissions/{targetId}`: a role's or a member's overwrite. */
export const OverwriteParams = Type.Object({ channelId: Type.String(), targetId: Type.String() });
/** `/servers/{serverId}/bans/{userId}`. */
export const BanParams = Type.Object({ serverId: Type.String(), userId: Type.String() });
/** `/auth/sessions/{sessionId}`: one of the caller's login sessions. */
export const SessionParams = Type.Object({ sessionId: Type.String() });
/** `/bots/{botId}`: one of the caller's bots. */
export const BotParams = Type.Object({ botId: Type.String() });
/** `/servers/{serverId}/bots/{botId}`: a bot in a server. */
export const ServerBotParams = Type.Object({ serverId: Type.String(), botId: Type.String() });
/** `/webhooks/{webhookId}` (management, with a session). */
export const WebhookParams = Type.Object({ webhookId: Type.String() });
/** `/webhooks/{webhookId}/{token}`: the execution URL, whose token is the credential. */
export const WebhookExecParams = Type.Object({ webhookId: Type.String({ maxLength: 64 }), token: Type.String({ maxLength: 256 }) });
// No length limit on messageId: a malformed id is a 404 (as on Discord), not a 400.
export const WebhookMessageParams = Type.Object({ ...WebhookExecParams.properties, messageId: Type.String() });
/** `/uploads/{id}/{filename}`. */
/** `GET /uploads/{id}/{secret}/{filename}`: all three must be the upload's (docs/security.md#files-are-for-those-who-may-see-them). */
export const UploadParams = Type.Object({ id: Type.String(), secret: Type.String(), filename: Type.String() });
/** The shape upload URLs had before they carried a secret: always 404 now. */
export const SecretlessUploadParams = Type.Object({ id: Type.String(), filename: Type.String() });

// ---------------------------------------------------------------- query strings and headers

/** `GET /channels/{channelId}/messages`: a page, newest first (`limit` 1 to 100, default 50). */
export const MessagePageQuery = Type.Object({
  limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,3}$' })),
  before: Type.Optional(Type.String({ pattern: '^[0-9A-Za-z]{1,64}$' })),
  after: Type.Optional(Type.String({ pattern: '^[0-9A-Za-z]{1,64}$' })),
});

const QueryId = (description: string) => Type.Optional(Type.String({ pattern: '^[0-9]{1,19}$', description }));
const SearchBound = (description: string) =>
  Type.Optional(
    Type.String({
      pattern: '^([0-9]{1,19}|[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}(:[0-9]{2}(\\.[0-9]{1,9})?)?(Z|[+-][0-9]{2}:[0-9]{2}))?)$',
      description: `${description}: a snowflake (a message id), or an ISO 8601 date or date-time with its offset (a date is its midnight UTC)`,
    }),
  );
const HasList = Type.String({
  pattern: `^(${SEARCH_HAS.join('|')})(,(${SEARCH_HAS.join('|')}))*$`,
  description: `${SEARCH_HAS.join(', ')}: comma-separated or repeated; every one listed must hold`,
});

/**
 * `GET /search/messages`: the words of `q` (each matched as a word or the start of one),
 * narrowed by the other filters; at least one of them, or a word in `q`. Only messages the
 * caller can read are searched.
 */
export const SearchQuery = Type.Object({
  q: Type.Optional(
    Type.String({ maxLength: SEARCH_LIMITS.queryLength, description: 'plain words, never query syntax; all must match (as prefixes)' }),
  ),
  serverId: QueryId('only this server'),
  channelId: QueryId('only this channel'),
  authorId: QueryId('only messages by this user, bot or webhook'),
  mentions: QueryId('only messages that mention this user'),
  has: Type.Optional(Type.Union([HasList, Type.Array(HasList, { maxItems: SEARCH_HAS.length })])),
  before: SearchBound('only messages before this (exclusive)'),
  after: SearchBound('only messages after this (exclusive)'),
  limit: Type.Optional(
    Type.String({ pattern: '^[0-9]{1,3}$', description: `1 to ${SEARCH_LIMITS.limitMax}, default ${SEARCH_LIMITS.limitDefault}` }),
  ),
  offset: Type.Optional(Type.String({ pattern: '^[0-9]{1,4}$', description: `0 to ${SEARCH_LIMITS.offsetMax}` })),
});

/** Executing a webhook: `wait=false` answers 204 instead of the message. */
export const WebhookExecQuery = Type.Object({
  wait: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')])),
  thread_id: Type.Optional(Type.String()),
});

const IdempotencyKey = Type.Optional(
  Type.String({ description: 'a retry with the same key within 24 h returns the first response and creates nothing' }),
);

/** The `Idempotency-Key` header of the writes that honour it (its shape is checked by the service). */
export const IdempotencyHeaders = Type.Object({ 'idempotency-key': IdempotencyKey });

/** A GitHub delivery's headers. */
export const GithubHeaders = Type.Object({
  'x-github-event': Type.Optional(Type.String({ description: 'the event name, as GitHub sends it' })),
  'idempotency-key': IdempotencyKey,
});

// ---------------------------------------------------------------- accounts and bots

/** `POST /auth/register` and `POST /auth/login`. */
export const CredentialsBody = Type.Object({
  username: Type.String({ minLength: 1, maxLength: 64 }),
  password: Type.String({ minLength: 1, maxLength: 1024 }),
});

/** `POST /auth/register`: `invite` is needed when the instance registers by invite only (`GET /instance`). */
export const RegisterBody = Type.Object({
  ...CredentialsBody.properties,
  invite: Type.Optional(Type.String({ maxLength: 64, description: 'an invite code of this instance' })),
});

/** `POST /auth/password`: the new password follows the registration rules. */
export const ChangePasswordBody = Type.Object({
  currentPassword: Type.String({ minLength: 1, maxLength: 1024 }),
  newPassword: Type.String({ minLength: 1, maxLength: 1024 }),
});

/** `DELETE /users/@me`: the password confirms it. */
export const DeleteAccountBody = Type.Object({ password: Type.String({ minLength: 1, maxLength: 1024 }) });

const Avatar = Type.Optional(Type.Union([Type.String({ maxLength: 2048 }), Type.Null()]));

/** `PATCH /users/@me`: only the fields to change; null or "" clears a person's display name. */
export const UpdateMeBody = Type.Object(
  {
    displayName: Type.Optional(Type.Union([Type.String({ maxLength: 128 }), Type.Null()])),
    avatar: Type.Optional(
      Type.Union([Type.String({ maxLength: 2048, description: 'the URL of an image the caller uploaded with POST /upload' }), Type.Null()]),
    ),
  },
  { additionalProperties: false },
);

/** `POST /bots`. */
export const CreateBotBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 80 }),
  avatar: Avatar,
});

/** `PATCH /bots/{botId}`: only the fields to change. */
export const UpdateBotBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 80 })),
    avatar: Avatar,
    public: Type.Optional(Type.Boolean()),
    interactionsUrl: Type.Optional(
      Type.Union([
        Type.String({
          maxLength: 2048,
          description:
            'an http(s) URL that interactions are POSTed to, signed; it must answer a `{type: "ping"}` with `{type: "pong"}` first. null: back to the gateway',
        }),
        Type.Null(),
      ]),
    ),
  },
  { additionalProperties: false },
);

// ---------------------------------------------------------------- servers, channels and bot membership

/** `POST /servers`, `PATCH /servers/{serverId}`, `POST /servers/{serverId}/channels`, `PATCH /channels/{channelId}`. */
export const NameBody = Type.Object({ name: Type.String({ minLength: 1, maxLength: 100 }) });

// One literal per permission name, typed as the tuple it is (so the union's type is the names).
type Literals<T extends readonly string[]> = { -readonly [K in keyof T]: TLiteral<T[K]> };
const permissionLiterals = PERMISSION_NAMES.map((p) => Type.Literal(p)) as Literals<typeof PERMISSION_NAMES>;

/** A permission bitfield in a request: a decimal string (checked for known bits by the service). */
export const PermissionBitsBody = Type.String({ maxLength: 20, description: 'permission bitfield, decimal (docs/permissions.md)' });

/**
 * A bot's permissions in a server: the four legacy names of docs/permissions.md#bots
 * (each at most once), or a bitfield string (docs/permissions.md#the-bits) for its managed role.
 */
export const BotPermissions = Type.Union([
  Type.Array(Type.Union(permissionLiterals), { uniqueItems: true, maxItems: PERMISSION_NAMES.length }),
  PermissionBitsBody,
]);

const NotifyLevelBody = Type.Union([Type.Literal('all'), Type.Literal('mentions'), Type.Literal('none')]);
const ChannelNotifyBody = Type.Object(
  { level: Type.Optional(NotifyLevelBody), muted: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
);
const ServerNotifyBody = Type.Object(
  {
    level: Type.Optional(NotifyLevelBody),
    muted: Type.Optional(Type.Boolean()),
    channels: Type.Optional(
      Type.Record(Type.String({ pattern: '^[0-9]{1,20}$' }), Type.Union([ChannelNotifyBody, Type.Null()]), {
        description: "null removes the channel's own setting",
      }),
    ),
  },
  { additionalProperties: false },
);

/**
 * `PATCH /users/@me/settings`: merged into the stored settings. A server's or a channel's
 * entry merges field by field; `null` removes it (back to the defaults).
 */
export const UpdateSettingsBody = Type.Object(
  {
    allowDmsFromServerMembers: Type.Optional(Type.Boolean()),
    servers: Type.Optional(
      Type.Record(Type.String({ pattern: '^[0-9]{1,20}$' }), Type.Union([ServerNotifyBody, Type.Null()]), {
        description: "per server id; null removes the server's settings",
      }),
    ),
  },
  { minProperties: 1, additionalProperties: false },
);

/** `POST /users/@me/channels`: a DM with one person (the existing one if any), or a new group. */
export const OpenDmBody = Type.Object(
  {
    recipientIds: Type.Array(Type.String({ maxLength: 32 }), {
      minItems: 1,
      maxItems: OBJECT_LIMITS.groupDmMembers - 1,
      description: 'one person for a DM, or up to nine for a group (with the caller, ten)',
    }),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: "a group's name" })),
  },
  { additionalProperties: false },
);

/** `PUT/DELETE /users/@me/blocks/{userId}`. */
export const BlockParams = Type.Object({ userId: Type.String() });

/**
 * `GET /users/@me/contacts`: the people the caller shares a server with, by id, `after` one
 * (exclusive); `q` keeps those whose name or username holds it (any case); `ids` (comma-separated,
 * at most CONTACT_LIMITS.limitMax) keeps those among them.
 */
export const ContactsQuery = Type.Object({
  q: Type.Optional(Type.String({ maxLength: CONTACT_LIMITS.queryLength, description: 'part of a name or username, any case' })),
  ids: Type.Optional(
    Type.String({
      pattern: `^[0-9]{1,19}(,[0-9]{1,19}){0,${CONTACT_LIMITS.limitMax - 1}}$`,
      description: `only these people (comma-separated ids, at most ${CONTACT_LIMITS.limitMax})`,
    }),
  ),
  after: Type.Optional(Type.String({ pattern: '^[0-9]{1,19}$', description: 'the page after this user id (exclusive)' })),
  limit: Type.Optional(
    Type.String({ pattern: '^[0-9]{1,3}$', description: `1 to ${CONTACT_LIMITS.limitMax}, default ${CONTACT_LIMITS.limitDefault}` }),
  ),
});

/** `PATCH /servers/{serverId}`. */
export const UpdateServerBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    icon: Type.Optional(Type.Union([Type.String({ maxLength: 2048 }), Type.Null()])),
    description: Type.Optional(Type.Union([Type.String({ maxLength: 4000 }), Type.Null()])),
    ownerId: Type.Optional(Type.String({ maxLength: 32 })),
    systemChannelId: Type.Optional(
      Type.Union([Type.String({ maxLength: 32 }), Type.Null()], { description: "one of the server's text channels; null: none" }),
    ),
    welcomeMessages: Type.Optional(Type.Boolean()),
  },
  { minProperties: 1, additionalProperties: false },
);

/** `PATCH /servers/{serverId}/members/{userId}`: a member's nickname in the server (null or "" clears it). */
export const UpdateMemberBody = Type.Object(
  {
    nick: Type.Union([Type.String({ maxLength: 100 }), Type.Null()], {
      description: 'at most 32 characters once cleaned; null or "" clears it',
    }),
  },
  { additionalProperties: false },
);

const ParentId = Type.Union([Type.String({ maxLength: 32 }), Type.Null()], {
  description: 'the category to put the channel in; null: uncategorised',
});
const SyncPermissions = Type.Boolean({
  description: "true: the channel's overwrites become a copy of its category's (Discord's `lock_permissions`)",
});

/** A forum tag to keep (with its `id`) or make (without one): the whole list replaces the forum's (docs/threads.md#forum-channels). */
export const ForumTagBody = Type.Object(
  {
    id: Type.Optional(Type.String({ maxLength: 32, description: 'an existing tag of this forum; absent: a new tag' })),
    name: Type.String({ minLength: 1, maxLength: 20 }),
    moderated: Type.Optional(Type.Boolean({ description: 'only MANAGE_THREADS may put it on a post or take it off (default false)' })),
    emoji: Type.Optional(Type.Union([Type.String({ maxLength: 64 }), Type.Null()], { description: 'a Unicode emoji, or null' })),
  },
  { additionalProperties: false },
);

/** What a forum's create and PATCH take besides a channel's (forums only). */
const forumBodyFields = {
  availableTags: Type.Optional(
    Type.Array(ForumTagBody, { maxItems: 20, description: 'forums only: the whole list of tags (at most 20); tags left out are removed' }),
  ),
  defaultAutoArchiveDuration: Type.Optional(
    Type.Union([Type.Literal(60), Type.Literal(1440), Type.Literal(4320), Type.Literal(10080), Type.Null()]),
  ),
  defaultSortOrder: Type.Optional(Type.Union([Type.Literal('latest_activity'), Type.Literal('creation_date'), Type.Null()])),
  defaultForumLayout: Type.Optional(Type.Union([Type.Literal('not_set'), Type.Literal('list'), Type.Literal('gallery')])),
  defaultReactionEmoji: Type.Optional(Type.Union([Type.String({ maxLength: 64 }), Type.Null()])),
};

/** `POST /servers/{serverId}/channels`. */
export const CreateChannelBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100 }),
  topic: Type.Optional(Type.Union([Type.String({ maxLength: 4096 }), Type.Null()])),
  position: Type.Optional(Type.Integer({ minimum: 0, maximum: OBJECT_LIMITS.position })),
  type: Type.Optional(Type.Union([Type.Literal('text'), Type.Literal('category'), Type.Literal('forum')])),
  parentId: Type.Optional(ParentId),
  ...forumBodyFields,
});

/** `PATCH /channels/{channelId}`. */
export const UpdateChannelBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    topic: Type.Optional(Type.Union([Type.String({ maxLength: 4096 }), Type.Null()])),
    position: Type.Optional(Type.Integer({ minimum: 0, maximum: OBJECT_LIMITS.position })),
    parentId: Type.Optional(ParentId),
    syncPermissions: Type.Optional(SyncPermissions),
    ...forumBodyFields,
  },
  { minProperties: 1, additionalProperties: false },
);

/** `PATCH /servers/{serverId}/channels`: moves channels and categories at once (Discord's `PATCH /guilds/{id}/channels`). */
export const ReorderChannelsBody = Type.Array(
  Type.Object(
    {
      id: Type.String({ maxLength: 32 }),
      position: Type.Optional(Type.Integer({ minimum: 0, maximum: OBJECT_LIMITS.position })),
      parentId: Type.Optional(ParentId),
      syncPermissions: Type.Optional(SyncPermissions),
    },
    { additionalProperties: false },
  ),
  { minItems: 1, maxItems: OBJECT_LIMITS.channelsPerReorder },
);

const roleFields = {
  permissions: Type.Optional(PermissionBitsBody),
  color: Type.Optional(Type.Integer({ minimum: 0, maximum: 0xffffff })),
  hoist: Type.Optional(Type.Boolean()),
  mentionable: Type.Optional(Type.Boolean()),
};

/** `POST /servers/{serverId}/roles`. */
export const CreateRoleBody = Type.Object({ name: Type.String({ minLength: 1, maxLength: 100 }), ...roleFields });

/** `PATCH /servers/{serverId}/roles/{roleId}`. */
export const UpdateRoleBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    ...roleFields,
    position: Type.Optional(Type.Integer({ minimum: 1, maximum: OBJECT_LIMITS.position, description: '1 is just above `@everyone`' })),
  },
  { minProperties: 1, additionalProperties: false },
);

/** `PUT /channels/{channelId}/permissions/{targetId}`. */
export const OverwriteBody = Type.Object({
  type: Type.Union([Type.Literal('role'), Type.Literal('member')]),
  allow: Type.Optional(PermissionBitsBody),
  deny: Type.Optional(PermissionBitsBody),
});

/** `PUT /servers/{serverId}/bans/{userId}`. */
export const BanBody = Type.Object({
  reason: Type.Optional(Type.String({ maxLength: 512 })),
  deleteMessageSeconds: Type.Optional(Type.Integer({ minimum: 0, maximum: OBJECT_LIMITS.banDeleteSeconds })),
});

/** `POST /servers/{serverId}/invites`. */
export const CreateInviteBody = Type.Object({
  maxAge: Type.Optional(Type.Integer({ minimum: 0, maximum: 604_800 * 4, description: 'seconds; 0 never expires; default 604800' })),
  maxUses: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000, description: '0 is unlimited' })),
});

/** `GET /servers/{serverId}/audit-log`. */
export const AuditLogQuery = Type.Object({
  limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,3}$', description: '1 to 100, default 50' })),
  before: Type.Optional(Type.String({ maxLength: 32 })),
  action: Type.Optional(Type.String({ maxLength: 64 })),
  actorId: Type.Optional(Type.String({ maxLength: 32 })),
});

/** `POST /servers/{serverId}/bots`. */
export const AddBotBody = Type.Object({ botId: Type.String({ minLength: 1, maxLength: 64 }), permissions: Type.Optional(BotPermissions) });

/** `PATCH /servers/{serverId}/bots/{botId}`. */
export const SetBotPermissionsBody = Type.Object({ permissions: BotPermissions });

// ---------------------------------------------------------------- messages

/** An attachment of a message to send: a file `POST /upload` stored (the rest is looked up). */
export const AttachmentRef = Type.Object({
  url: Type.String({ minLength: 1, maxLength: 2048 }),
  filename: Type.String({ minLength: 1, maxLength: 255 }),
});

/**
 * Which mentions in the content ping (Discord's `allowed_mentions`). Absent: every kind
 * does, and the author of the message replied to. Present: only the kinds in `parse`, or
 * the ids listed in `users` / `roles` (a kind may not be in both); `repliedUser` defaults
 * to false.
 */
export const AllowedMentions = Type.Object(
  {
    parse: Type.Optional(
      Type.Array(Type.Union([Type.Literal('users'), Type.Literal('roles'), Type.Literal('everyone')]), { uniqueItems: true, maxItems: 3 }),
    ),
    users: Type.Optional(Type.Array(Type.String({ maxLength: 32 }), { maxItems: 100 })),
    roles: Type.Optional(Type.Array(Type.String({ maxLength: 32 }), { maxItems: 100 })),
    repliedUser: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

/** A reply's target: a message in the same channel. */
export const MessageReferenceBody = Type.Object({
  messageId: Type.String({ minLength: 1, maxLength: 32 }),
  channelId: Type.Optional(Type.String({ maxLength: 32 })),
  serverId: Type.Optional(Type.String({ maxLength: 32 })),
  failIfNotExists: Type.Optional(Type.Boolean({ description: 'default true: a reply to a missing message is refused (400)' })),
});

/** Rows of buttons and selects on a message (bots, webhooks and interaction answers only): 5 rows of 5. */
export const ComponentsBody = Type.Array(ref(ActionRow), { maxItems: COMPONENT_LIMITS.rows });

/** `POST /channels/{channelId}/messages`: content, attachments or both (the service refuses an empty message). */
export const SendMessageBody = Type.Object({
  content: Type.Optional(Type.String({ maxLength: CONTENT_MAX })),
  attachments: Type.Optional(Type.Array(AttachmentRef, { maxItems: ATTACHMENTS_MAX })),
  allowedMentions: Type.Optional(AllowedMentions),
  messageReference: Type.Optional(MessageReferenceBody),
  components: Type.Optional(ComponentsBody),
});

/** `POST /channels/{channelId}/messages/bulk-delete`. */
export const BulkDeleteBody = Type.Object({
  messages: Type.Array(Type.String({ maxLength: 32 }), { minItems: 2, maxItems: 100, uniqueItems: true }),
});

/** `PATCH /channels/{channelId}/messages/{messageId}`. */
export const EditMessageBody = Type.Object({ content: Type.String({ maxLength: CONTENT_MAX }) });

// ---------------------------------------------------------------- threads (docs/threads.md)

/** `/threads/{threadId}`. */
export const ThreadParams = Type.Object({ threadId: Type.String() });
/** `/threads/{threadId}/members/{userId}`; `userId` may be `@me`. */
export const ThreadMemberParams = Type.Object({ threadId: Type.String(), userId: Type.String() });

const ThreadName = Type.String({ minLength: 1, maxLength: 100 });
const ThreadKindBody = Type.Union([Type.Literal('public_thread'), Type.Literal('private_thread')]);
const AutoArchiveDuration = Type.Union([Type.Literal(60), Type.Literal(1440), Type.Literal(4320), Type.Literal(10080)], {
  description: 'minutes without a message before the thread archives itself; default 1440',
});
const Invitable = Type.Boolean({ description: 'private threads: whether members who do not manage threads may add people (default true)' });

/** `POST /channels/{channelId}/threads`: a thread of its own, public unless `type` says private. */
export const CreateThreadBody = Type.Object({
  name: ThreadName,
  type: Type.Optional(ThreadKindBody),
  autoArchiveDuration: Type.Optional(AutoArchiveDuration),
  invitable: Type.Optional(Invitable),
  message: Type.Optional(
    Type.Object(
      {
        content: Type.Optional(Type.String({ maxLength: CONTENT_MAX })),
        attachments: Type.Optional(Type.Array(AttachmentRef, { maxItems: ATTACHMENTS_MAX })),
        allowedMentions: Type.Optional(AllowedMentions),
        components: Type.Optional(ComponentsBody),
      },
      { description: "forums only, and required there: the post's first message (the body of `POST /channels/{id}/messages`, no reply)" },
    ),
  ),
  appliedTags: Type.Optional(
    Type.Array(Type.String({ maxLength: 32 }), { maxItems: 5, description: "forums only: ids of the forum's tags the post carries" }),
  ),
});

/** `POST /channels/{channelId}/messages/{messageId}/threads`: a public thread from a message, which takes the message's id. */
export const StartThreadFromMessageBody = Type.Object({
  name: ThreadName,
  autoArchiveDuration: Type.Optional(AutoArchiveDuration),
});

/** `PATCH /threads/{threadId}`. */
export const UpdateThreadBody = Type.Object(
  {
    name: Type.Optional(ThreadName),
    archived: Type.Optional(Type.Boolean()),
    locked: Type.Optional(Type.Boolean({ description: 'MANAGE_THREADS only' })),
    autoArchiveDuration: Type.Optional(AutoArchiveDuration),
    invitable: Type.Optional(Invitable),
    appliedTags: Type.Optional(
      Type.Array(Type.String({ maxLength: 32 }), {
        maxItems: 5,
        description: "forum posts: the whole list of the forum's tags it carries (a moderated tag: MANAGE_THREADS)",
      }),
    ),
  },
  { minProperties: 1, additionalProperties: false },
);

/** `GET /channels/{channelId}/threads/archived`: a page, newest archive first. */
export const ArchivedThreadsQuery = Type.Object({
  type: Type.Optional(
    Type.Union([Type.Literal('public_thread'), Type.Literal('private_thread')], { description: 'default public_thread' }),
  ),
  joined: Type.Optional(
    Type.Union([Type.Literal('true'), Type.Literal('false')], { description: 'true: only the threads the caller joined' }),
  ),
  before: Type.Optional(Type.String({ maxLength: 64, description: 'an archive timestamp (ISO 8601): only threads archived before it' })),
  limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,3}$', description: '1 to 100, default 50' })),
});

/** `GET /threads/{threadId}/members`: a page by user id. */
export const ThreadMembersQuery = Type.Object({
  after: Type.Optional(Type.String({ pattern: '^[0-9]{1,20}$', description: 'only members with a user id after this one' })),
  limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,3}$', description: '1 to 100, default 100' })),
});

// ---------------------------------------------------------------- commands and interactions (docs/commands.md)

/** `/interactions/{interactionId}/{token}/callback`. */
export const InteractionCallbackParams = Type.Object({
  interactionId: Type.String({ maxLength: 32 }),
  token: Type.String({ maxLength: 256 }),
});
/** `/interactions/{token}/...`: follow-ups and the original answer, for 15 minutes. */
export const InteractionTokenParams = Type.Object({ token: Type.String({ maxLength: 256 }) });
/** `/interactions/{token}/messages/{messageId}`: a follow-up of the interaction (no length limit: a malformed id is a 404). */
export const InteractionMessageParams = Type.Object({ token: Type.String({ maxLength: 256 }), messageId: Type.String() });
/** `/bots/{botId}/commands/{commandId}`: one command. */
export const BotCommandParams = Type.Object({ botId: Type.String(), commandId: Type.String() });

/** `GET/PUT /bots/{botId}/commands`: `serverId` for one server's commands; absent: the global ones. */
export const CommandsQuery = Type.Object({ serverId: Type.Optional(Type.String({ pattern: '^[0-9]{1,19}$' })) });

const optionFields = {
  type: Type.Union(literals(COMMAND_OPTION_TYPES)),
  name: Type.String({ minLength: 1, maxLength: COMMAND_LIMITS.name }),
  description: Type.String({ minLength: 1, maxLength: COMMAND_LIMITS.description }),
  required: Type.Optional(Type.Boolean()),
  choices: Type.Optional(Type.Array(ref(CommandChoice), { maxItems: COMMAND_LIMITS.choices })),
  autocomplete: Type.Optional(Type.Boolean()),
  minValue: Type.Optional(Type.Number()),
  maxValue: Type.Optional(Type.Number()),
  minLength: Type.Optional(Type.Integer({ minimum: 0, maximum: COMMAND_LIMITS.stringValue })),
  maxLength: Type.Optional(Type.Integer({ minimum: 1, maximum: COMMAND_LIMITS.stringValue })),
};

/** An option at the deepest level (a subcommand's in a group): options of its own are refused. */
const LeafOptionBody = Type.Object(optionFields, { additionalProperties: false });
/** An option one level down (a group's subcommand, or a subcommand's option). */
const MidOptionBody = Type.Object(
  { ...optionFields, options: Type.Optional(Type.Array(LeafOptionBody, { maxItems: COMMAND_LIMITS.options })) },
  { additionalProperties: false },
);

/**
 * An option to register (the service checks names, order, choices, ranges and how
 * subcommands nest; docs/commands.md). The schema bounds the depth: a command, a group, a
 * subcommand, its options.
 */
export const CommandOptionBody = Type.Object(
  { ...optionFields, options: Type.Optional(Type.Array(MidOptionBody, { maxItems: COMMAND_LIMITS.options })) },
  { additionalProperties: false },
);

/** A command to register: a `chat` command (the default) has a description; `user` and `message` commands have neither description nor options. */
export const CommandBody = Type.Object(
  {
    type: Type.Optional(Type.Union(literals(COMMAND_TYPES), { description: 'default `chat`; cannot be changed by an edit' })),
    name: Type.String({ minLength: 1, maxLength: COMMAND_LIMITS.name }),
    description: Type.Optional(
      Type.String({ minLength: 1, maxLength: COMMAND_LIMITS.description, description: '`chat` commands only, and needed there' }),
    ),
    options: Type.Optional(Type.Array(CommandOptionBody, { maxItems: COMMAND_LIMITS.options })),
    defaultMemberPermissions: Type.Optional(Type.Union([PermissionBitsBody, Type.Null()])),
    nameLocalizations: Type.Optional(Type.Union([CommandLocalizations, Type.Null()])),
    descriptionLocalizations: Type.Optional(Type.Union([CommandLocalizations, Type.Null()])),
    contexts: Type.Optional(Type.Union([CommandContexts, Type.Null()])),
    integrationTypes: Type.Optional(Type.Union([CommandIntegrationTypes, Type.Null()])),
  },
  { additionalProperties: false },
);

/** `PATCH /bots/{botId}/commands/{commandId}`: the fields to change; the rest stay. */
export const PatchCommandBody = Type.Partial(CommandBody, { additionalProperties: false });

/** `PUT /bots/{botId}/commands`: the whole list for the scope; commands not in it are deleted. */
export const PutCommandsBody = Type.Array(CommandBody, {
  maxItems: COMMAND_LIMITS.commandsPerScope + 2 * COMMAND_LIMITS.contextMenusPerType,
});

const OptionValuesBody = Type.Record(
  Type.String({ maxLength: COMMAND_LIMITS.name }),
  Type.Union([Type.String(), Type.Number(), Type.Boolean()]),
  {
    maxProperties: COMMAND_LIMITS.options,
    description: 'option name → value: string, integer, number, boolean, or the id of a user, channel or role (a string)',
  },
);

/** A person runs a command of a bot in the channel (a `user` or `message` command on its `targetId`). */
export const CommandInteractionBody = Type.Object(
  {
    type: Type.Literal('command'),
    botId: Type.String({ maxLength: 32 }),
    name: Type.String({ minLength: 1, maxLength: COMMAND_LIMITS.name }),
    commandType: Type.Optional(Type.Union(literals(COMMAND_TYPES), { description: 'default `chat`' })),
    targetId: Type.Optional(
      Type.String({ maxLength: 32, description: '`user` commands: the member; `message` commands: a message of this channel' }),
    ),
    subcommandGroup: Type.Optional(
      Type.String({ minLength: 1, maxLength: COMMAND_LIMITS.name, description: 'the subcommand group, if the subcommand is in one' }),
    ),
    subcommand: Type.Optional(
      Type.String({ minLength: 1, maxLength: COMMAND_LIMITS.name, description: 'the subcommand, for a command that has them' }),
    ),
    options: Type.Optional(OptionValuesBody),
  },
  { additionalProperties: false },
);

/** A person clicks a button or chooses in a select of a message of the channel. */
export const ComponentInteractionBody = Type.Object(
  {
    type: Type.Literal('component'),
    messageId: Type.String({ maxLength: 32 }),
    customId: Type.String({ minLength: 1, maxLength: COMPONENT_LIMITS.customId }),
    values: Type.Optional(
      Type.Array(Type.String({ maxLength: COMPONENT_LIMITS.optionValue }), {
        maxItems: COMPONENT_LIMITS.selectOptions,
        description: 'for a Select: the chosen values',
      }),
    ),
  },
  { additionalProperties: false },
);

/** A person types in an autocomplete option: the answer carries the bot's suggestions. */
export const AutocompleteInteractionBody = Type.Object(
  {
    type: Type.Literal('autocomplete'),
    botId: Type.String({ maxLength: 32 }),
    name: Type.String({ minLength: 1, maxLength: COMMAND_LIMITS.name }),
    subcommandGroup: Type.Optional(
      Type.String({ minLength: 1, maxLength: COMMAND_LIMITS.name, description: 'the subcommand group, if the subcommand is in one' }),
    ),
    subcommand: Type.Optional(
      Type.String({ minLength: 1, maxLength: COMMAND_LIMITS.name, description: 'the subcommand, for a command that has them' }),
    ),
    options: Type.Optional(OptionValuesBody),
    focused: Type.String({ minLength: 1, maxLength: COMMAND_LIMITS.name, description: 'the option being typed' }),
  },
  { additionalProperties: false },
);

/** A person submits the modal a bot showed them in answer to their interaction `interactionId`. */
export const ModalSubmitInteractionBody = Type.Object(
  {
    type: Type.Literal('modalSubmit'),
    interactionId: Type.String({ maxLength: 32, description: 'the interaction the modal answered' }),
    customId: Type.String({ minLength: 1, maxLength: MODAL_LIMITS.customId, description: "the modal's" }),
    fields: Type.Array(ref(ModalField), { maxItems: MODAL_LIMITS.rows, description: 'the text inputs by customId' }),
  },
  { additionalProperties: false },
);

/**
 * `POST /channels/{channelId}/interactions`. `command`, `component` and `modalSubmit` answer 202
 * `{id}` at once; `autocomplete` waits (up to the 3 s window) for the bot's suggestions
 * and answers 200 `{id, choices}`.
 */
export const CreateInteractionBody = Type.Union([
  CommandInteractionBody,
  ComponentInteractionBody,
  AutocompleteInteractionBody,
  ModalSubmitInteractionBody,
]);

/** A message an interaction answer makes or edits (`ephemeral`: seen by the invoker only). */
export const InteractionMessageBody = Type.Object(
  {
    content: Type.Optional(Type.String({ maxLength: CONTENT_MAX })),
    embeds: Type.Optional(Type.Array(ref(Embed), { maxItems: EMBED_LIMITS.embeds })),
    attachments: Type.Optional(Type.Array(AttachmentRef, { maxItems: ATTACHMENTS_MAX })),
    components: Type.Optional(ComponentsBody),
    allowedMentions: Type.Optional(AllowedMentions),
    ephemeral: Type.Optional(Type.Boolean({ description: 'seen only by the person who invoked it; never in history' })),
  },
  { additionalProperties: false },
);

/** `data` of a callback: a message (`message`, `update`), `{ephemeral}` (`deferred`) `{choices}` (`autocomplete`) or `{modal}` (`modal`). */
export const InteractionCallbackData = Type.Object(
  {
    ...InteractionMessageBody.properties,
    choices: Type.Optional(Type.Array(ref(CommandChoice), { maxItems: COMMAND_LIMITS.autocompleteChoices })),
    modal: Type.Optional(ref(Modal)),
  },
  { additionalProperties: false },
);

/**
 * `POST /interactions/{interactionId}/{token}/callback`, once, within 3 s of the
 * interaction (for HTTP delivery, the bot's response body instead):
 * - `message`: post `data` in the channel (ephemeral: to the invoker only);
 * - `deferred`: post a "thinking" placeholder now (`data.ephemeral` decides who sees it),
 *   replaced later with `PATCH /interactions/{token}/messages/original`;
 * - `update` (components only): edit the message the component is on to `data`;
 * - `deferredUpdate` (components only): acknowledge now, edit later (or not);
 * - `autocomplete` (autocomplete only): `data.choices`, at most 25;
 * - `modal` (commands and clicks): show `data.modal` to the invoker; their submit is a
 *   `modalSubmit` interaction.
 */
export const InteractionCallbackBody = Type.Object(
  {
    type: Type.Union(literals(INTERACTION_CALLBACK_TYPES)),
    data: Type.Optional(InteractionCallbackData),
  },
  { additionalProperties: false },
);

/** What an HTTP interactions endpoint answers: a callback, or `{type: "pong"}` to the ping. */
export const InteractionHttpResponse = Type.Union([InteractionCallbackBody, Type.Object({ type: Type.Literal('pong') })]);

/** The ping an HTTP interactions endpoint receives when its URL is set (signed like every delivery). */
export const InteractionPing = Type.Object({ type: Type.Literal('ping'), botId: Type.String() });

// ---------------------------------------------------------------- webhooks

/** `POST /servers/{serverId}/webhooks`. */
export const CreateWebhookBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: OBJECT_LIMITS.webhookName }),
  channelId: Type.String({ minLength: 1, maxLength: 64 }),
  avatar: Avatar,
});

/** `PATCH /webhooks/{webhookId}`: only the fields to change. */
export const UpdateWebhookBody = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: OBJECT_LIMITS.webhookName })),
  channelId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  avatar: Avatar,
});

/*
 * The bodies of webhook execution and of uploads, for the OpenAPI document only. The
 * service's converters check these bodies (JSON, form or multipart, each dialect its own
 * way), so the server validates none of them with these schemas: a body schema on the
 * route would refuse forms and multipart.
 */

/** Discord's execute-webhook body (`POST /webhooks/{webhookId}/{token}`, JSON). */
export const DiscordExecuteJson = Type.Object(
  {
    content: Type.Optional(Type.String({ description: 'Markdown; may be empty when embeds or files carry the message' })),
    username: Type.Optional(Type.String({ description: "overrides the webhook's name for this message" })),
    avatar_url: Type.Optional(Type.String({ description: "overrides the webhook's avatar for this message" })),
    embeds: Type.Optional(Type.Array(ref(Embed), { maxItems: EMBED_LIMITS.embeds })),
    components: Type.Optional(
      Type.Array(Type.Object({}, { additionalProperties: true }), {
        description: "rows (type 1) of link buttons (type 2, style 5), Discord's shape or Parley's; nothing interactive",
      }),
    ),
  },
  { description: "Discord's execute-webhook body; unknown keys (tts, flags, allowed_mentions, ...) are ignored" },
);

/** The same as a form (`application/x-www-form-urlencoded`). */
export const DiscordExecuteForm = Type.Object({
  content: Type.Optional(Type.String()),
  username: Type.Optional(Type.String()),
  avatar_url: Type.Optional(Type.String()),
  embeds: Type.Optional(Type.String({ description: 'JSON array of embeds' })),
});

/** The same with files (`multipart/form-data`). */
export const DiscordExecuteMultipart = Type.Object({
  payload_json: Type.Optional(Type.String({ description: 'the whole JSON body (instead of the plain fields)' })),
  content: Type.Optional(Type.String()),
  username: Type.Optional(Type.String()),
  avatar_url: Type.Optional(Type.String()),
  'files[0]': Type.Optional(
    Type.String({ format: 'binary', description: 'file parts, any field name; embeds may show one as attachment://<filename>' }),
  ),
});

/** Discord's edit-webhook-message body (`PATCH /webhooks/{webhookId}/{token}/messages/{messageId}`). */
export const DiscordEditBody = Type.Object(
  {
    content: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'absent keeps it, null clears it' })),
    embeds: Type.Optional(Type.Union([Type.Array(ref(Embed)), Type.Null()], { description: 'absent keeps them, null clears them' })),
  },
  { description: "Discord's edit-webhook-message body; other keys are ignored" },
);

/** Slack's incoming-webhook body (`POST /webhooks/{webhookId}/{token}/slack`, JSON). */
export const SlackExecuteJson = Type.Object(
  {
    text: Type.Optional(Type.String({ description: 'mrkdwn' })),
    username: Type.Optional(Type.String()),
    icon_url: Type.Optional(Type.String()),
    attachments: Type.Optional(
      Type.Array(Type.Object({}, { additionalProperties: true }), { description: 'legacy attachments (become embeds)' }),
    ),
    blocks: Type.Optional(Type.Array(Type.Object({}, { additionalProperties: true }), { description: 'simple Block Kit blocks' })),
  },
  { description: "Slack's incoming-webhook body" },
);

/** The same as a form. */
export const SlackExecuteForm = Type.Object({ payload: Type.String({ description: 'the JSON body as a form field' }) });

/** A GitHub delivery (`POST /webhooks/{webhookId}/{token}/github`, JSON). */
export const GithubDeliveryJson = Type.Object(
  {},
  { additionalProperties: true, description: 'a GitHub webhook delivery; the event is named by X-GitHub-Event' },
);

/** The same as a form. */
export const GithubDeliveryForm = Type.Object({
  payload: Type.String({ description: "the delivery as a form field (GitHub's form content type)" }),
});

/** `POST /upload` (`multipart/form-data`). */
export const UploadForm = Type.Object({
  file: Type.String({ format: 'binary', description: 'the file; its part names the filename and type' }),
});

// The request types: each is its schema's static type, never written out by hand.
export type ServerParams = Static<typeof ServerParams>;
export type ChannelParams = Static<typeof ChannelParams>;
export type MessageParams = Static<typeof MessageParams>;
export type OpenDmBody = Static<typeof OpenDmBody>;
export type ReactionParams = Static<typeof ReactionParams>;
export type InviteParams = Static<typeof InviteParams>;
export type MemberParams = Static<typeof MemberParams>;
export type RoleParams = Static<typeof RoleParams>;
export type MemberRoleParams = Static<typeof MemberRoleParams>;
export type OverwriteParams = Static<typeof OverwriteParams>;
export type BanParams = Static<typeof BanParams>;
export type UpdateServerBody = Static<typeof UpdateServerBody>;
export type UpdateMemberBody = Static<typeof UpdateMemberBody>;
export type CreateRoleBody = Static<typeof CreateRoleBody>;
export type UpdateRoleBody = Static<typeof UpdateRoleBody>;
export type OverwriteBody = Static<typeof OverwriteBody>;
export type BanBody = Static<typeof BanBody>;
export type UpdateSettingsBody = Static<typeof UpdateSettingsBody>;
export type CreateInviteBody = Static<typeof CreateInviteBody>;
export type CreateChannelBody = Static<typeof CreateChannelBody>;
export type UpdateChannelBody = Static<typeof UpdateChannelBody>;
export type ForumTagBody = Static<typeof ForumTagBody>;
export type ReorderChannelsBody = Static<typeof ReorderChannelsBody>;
export type AuditLogQuery = Static<typeof AuditLogQuery>;
export type BotParams = Static<typeof BotParams>;
export type SessionParams = Static<typeof SessionParams>;
export type ServerBotParams = Static<typeof ServerBotParams>;
export type WebhookParams = Static<typeof WebhookParams>;
export type WebhookExecParams = Static<typeof WebhookExecParams>;
export type WebhookMessageParams = Static<typeof WebhookMessageParams>;
export type UploadParams = Static<typeof UploadParams>;
export type SecretlessUploadParams = Static<typeof SecretlessUploadParams>;
export type MessagePageQuery = Static<typeof MessagePageQuery>;
export type SearchQuery = Static<typeof SearchQuery>;
export type ContactsQuery = Static<typeof ContactsQuery>;
export type WebhookExecQuery = Static<typeof WebhookExecQuery>;
export type IdempotencyHeaders = Static<typeof IdempotencyHeaders>;
export type GithubHeaders = Static<typeof GithubHeaders>;
export type CredentialsBody = Static<typeof CredentialsBody>;
export type RegisterBody = Static<typeof RegisterBody>;
export type ChangePasswordBody = Static<typeof ChangePasswordBody>;
export type DeleteAccountBody = Static<typeof DeleteAccountBody>;
export type UpdateMeBody = Static<typeof UpdateMeBody>;
export type CreateBotBody = Static<typeof CreateBotBody>;
export type UpdateBotBody = Static<typeof UpdateBotBody>;
export type NameBody = Static<typeof NameBody>;
export type BotPermissions = Static<typeof BotPermissions>;
export type AddBotBody = Static<typeof AddBotBody>;
export type SetBotPermissionsBody = Static<typeof SetBotPermissionsBody>;
export type AttachmentRef = Static<typeof AttachmentRef>;
export type SendMessageBody = Static<typeof SendMessageBody>;
export type AllowedMentions = Static<typeof AllowedMentions>;
export type MessageReferenceBody = Static<typeof MessageReferenceBody>;
export type BulkDeleteBody = Static<typeof BulkDeleteBody>;
export type EditMessageBody = Static<typeof EditMessageBody>;
export type ThreadParams = Static<typeof ThreadParams>;
export type ThreadMemberParams = Static<typeof ThreadMemberParams>;
export type CreateThreadBody = Static<typeof CreateThreadBody>;
export type StartThreadFromMessageBody = Static<typeof StartThreadFromMessageBody>;
export type UpdateThreadBody = Static<typeof UpdateThreadBody>;
export type ArchivedThreadsQuery = Static<typeof ArchivedThreadsQuery>;
export type ThreadMembersQuery = Static<typeof ThreadMembersQuery>;
export type ComponentsBody = Static<typeof ComponentsBody>;
export type InteractionCallbackParams = Static<typeof InteractionCallbackParams>;
export type InteractionTokenParams = Static<typeof InteractionTokenParams>;
export type CommandsQuery = Static<typeof CommandsQuery>;
export type CommandOptionBody = Static<typeof CommandOptionBody>;
export type CommandBody = Static<typeof CommandBody>;
export type PutCommandsBody = Static<typeof PutCommandsBody>;
export type PatchCommandBody = Static<typeof PatchCommandBody>;
export type BotCommandParams = Static<typeof BotCommandParams>;
export type InteractionMessageParams = Static<typeof InteractionMessageParams>;
export type CommandInteractionBody = Static<typeof CommandInteractionBody>;
export type ComponentInteractionBody = Static<typeof ComponentInteractionBody>;
export type AutocompleteInteractionBody = Static<typeof AutocompleteInteractionBody>;
export type ModalSubmitInteractionBody = Static<typeof ModalSubmitInteractionBody>;
export type CreateInteractionBody = Static<typeof CreateInteractionBody>;
export type InteractionMessageBody = Static<typeof InteractionMessageBody>;
export type InteractionCallbackData = Static<typeof InteractionCallbackData>;
export type InteractionCallbackBody = Static<typeof InteractionCallbackBody>;
export type InteractionHttpResponse = Static<typeof InteractionHttpResponse>;
export type InteractionPing = Static<typeof InteractionPing>;
export type CreateWebhookBody = Static<typeof CreateWebhookBody>;
export type UpdateWebhookBody = Static<typeof UpdateWebhookBody>;
export type DiscordExecuteJson = Static<typeof DiscordExecuteJson>;
export type DiscordExecuteForm = Static<typeof DiscordExecuteForm>;
export type DiscordExecuteMultipart = Static<typeof DiscordExecuteMultipart>;
export type DiscordEditBody = Static<typeof DiscordEditBody>;
export type SlackExecuteJson = Static<typeof SlackExecuteJson>;
export type SlackExecuteForm = Static<typeof SlackExecuteForm>;
export type GithubDeliveryJson = Static<typeof GithubDeliveryJson>;
export type GithubDeliveryForm = Static<typeof GithubDeliveryForm>;
export type UploadForm = Static<typeof UploadForm>;
