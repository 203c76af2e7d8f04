/**
 * The request bodies of Discord's JSON routes, as JSON Schema: Fastify validates them on the
 * route, as the native routes' (protocol/src/requests.ts), and a failure is Discord's 400
 * 50035 "Invalid Form Body" naming the field (errors.ts). Every limit Parley itself has
 * (positions, names, roles, group size, bulk delete) is read from `@parley/protocol`'s
 * `OBJECT_LIMITS`, the same numbers the native schemas and the domain use, so a cap holds on
 * both paths. Fields Discord defines and Parley ignores are still range-checked (Discord's
 * own ranges), so no body passes with a number Discord would refuse. Unknown keys are
 * accepted, as Discord does.
 *
 * Multipart routes (messages, interaction answers) are read by bodies.ts instead.
 */
import { ATTACHMENTS_MAX, OBJECT_LIMITS, PermissionBitsBody } from '@parley/protocol';
import { type TSchema, Type } from 'typebox';

const nullable = <T extends TSchema>(t: T) => Type.Optional(Type.Union([t, Type.Null()]));
const int = (minimum: number, maximum: number) => Type.Integer({ minimum, maximum });
const Snowflake = Type.String({ pattern: '^[0-9]{1,20}$' });

/** A bitfield as Discord libraries send it: a decimal string, or (older ones) a number. */
const Permissions = Type.Union([PermissionBitsBody, int(0, Number.MAX_SAFE_INTEGER)]);

/** `POST /guilds/{id}/roles` and `PATCH /guilds/{id}/roles/{roleId}`. */
export const DiscordRoleBody = Type.Union([
  Type.Object({
    name: nullable(Type.String({ maxLength: OBJECT_LIMITS.name })),
    permissions: nullable(Permissions),
    color: nullable(int(0, 0xffffff)),
    // Discord's role colours object (what discord.js 14.28 sends instead of `color`); Parley
    // keeps the primary colour only: a gradient (secondary, tertiary) is refused by the route.
    colors: nullable(
      Type.Object({
        primary_color: nullable(int(0, 0xffffff)),
        secondary_color: nullable(int(0, 0xffffff)),
        tertiary_color: nullable(int(0, 0xffffff)),
      }),
    ),
    hoist: nullable(Type.Boolean()),
    mentionable: nullable(Type.Boolean()),
    // Discord moves roles through the bulk route, which Parley does not serve; checked, then ignored.
    position: nullable(int(0, OBJECT_LIMITS.position)),
  }),
  Type.Null(),
]);

/**
 * `PATCH /guilds/{id}/members/{userId}`. `nick` and `roles` are applied; voice
 * (`channel_id`, `mute`, `deaf`) and timeouts (`communication_disabled_until`) only as null
 * (guilds.ts refuses any other value, docs/discord.md).
 */
export const DiscordMemberBody = Type.Union([
  Type.Object({
    nick: nullable(Type.String({ maxLength: 100 })),
    roles: nullable(Type.Array(Snowflake, { maxItems: OBJECT_LIMITS.rolesPerServer })),
    channel_id: nullable(Snowflake),
    mute: nullable(Type.Boolean()),
    deaf: nullable(Type.Boolean()),
    communication_disabled_until: nullable(Type.String({ maxLength: 64 })),
    flags: nullable(int(0, Number.MAX_SAFE_INTEGER)),
  }),
  Type.Null(),
]);

/** `PATCH /guilds/{id}/members/@me`: only `nick`. */
export const DiscordMeBody = Type.Union([Type.Object({ nick: nullable(Type.String({ maxLength: 100 })) }), Type.Null()]);

/**
 * `PUT /channels/{id}/permissions/{overwriteId}`: `type` 0 (or "0", "role") a role, 1 (or
 * "1", "member") a member; `allow` and `deny` bitfields (absent or null: none).
 */
export const DiscordOverwriteBody = Type.Object({
  type: Type.Union([0, 1, '0', '1', 'role', 'member'].map((t) => Type.Literal(t))),
  allow: nullable(Permissions),
  deny: nullable(Permissions),
});

/**
 * A channel's `permission_overwrites` on create and edit: the whole list, each item an
 * overwrite with its target's `id`. Absent or null: none on a new channel, no change on an
 * edit. The domain applies them by the overwrite route's rules or refuses the request;
 * nothing in them is ever dropped (docs/discord.md).
 */
const permissionOverwrites = nullable(Type.Array(Type.Object({ id: Snowflake, ...DiscordOverwriteBody.properties })));

/** The fields of a guild channel a create or an edit may carry (Discord's ranges for those Parley ignores). */
const channelFields = {
  topic: nullable(Type.String({ maxLength: OBJECT_LIMITS.topic })),
  position: nullable(int(0, OBJECT_LIMITS.position)),
  rate_limit_per_user: nullable(int(0, 21_600)),
  bitrate: nullable(int(8000, 384_000)),
  user_limit: nullable(int(0, 10_000)),
  nsfw: nullable(Type.Boolean()),
  parent_id: nullable(Snowflake),
  default_auto_archive_duration: nullable(Type.Union([60, 1440, 4320, 10_080].map((n) => Type.Literal(n)))),
  default_thread_rate_limit_per_user: nullable(int(0, 21_600)),
  video_quality_mode: nullable(int(1, 2)),
  permission_overwrites: permissionOverwrites,
  // A forum's (docs/threads.md#forum-channels): refused on other channels.
  available_tags: nullable(
    Type.Array(
      Type.Object({
        id: Type.Optional(Type.Union([Snowflake, Type.Null()])),
        name: Type.String({ minLength: 1, maxLength: 20 }),
        moderated: nullable(Type.Boolean()),
        emoji_id: nullable(Snowflake),
        emoji_name: nullable(Type.String({ maxLength: 64 })),
      }),
      { maxItems: 20 },
    ),
  ),
  default_sort_order: nullable(int(0, 1)),
  default_forum_layout: nullable(int(0, 2)),
  default_reaction_emoji: nullable(Type.Object({ emoji_id: nullable(Snowflake), emoji_name: nullable(Type.String({ maxLength: 64 })) })),
};

/** `POST /guilds/{id}/channels`: text channels (type 0), categories (type 4) and forums (type 15). */
export const DiscordCreateChannelBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: OBJECT_LIMITS.name }),
  type: nullable(Type.Union([Type.Literal(0), Type.Literal(4), Type.Literal(15)])),
  ...channelFields,
});

const ArchiveDuration = Type.Union([60, 1440, 4320, 10_080].map((n) => Type.Literal(n)));

/**
 * `PATCH /channels/{id}`; `lock_permissions` (discord.js sends it with `setParent`) copies the category's overwrites when no
 * list is given; a thread's (docs/threads.md) takes `archived`, `locked`, `auto_archive_duration`, `invitable`.
 */
export const DiscordUpdateChannelBody = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: OBJECT_LIMITS.name })),
  lock_permissions: nullable(Type.Boolean()),
  ...channelFields,
  archived: nullable(Type.Boolean()),
  locked: nullable(Type.Boolean()),
  auto_archive_duration: nullable(ArchiveDuration),
  invitable: nullable(Type.Boolean()),
  applied_tags: nullable(Type.Array(Snowflake, { maxItems: 100 })),
});

/** `POST /channels/{id}/messages/{messageId}/threads`. */
export const DiscordStartThreadFromMessageBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: OBJECT_LIMITS.name }),
  auto_archive_duration: nullable(ArchiveDuration),
  rate_limit_per_user: nullable(int(0, 21_600)),
});

/**
 * `POST /channels/{id}/threads`: a thread without a message (type 11 public, 12 private), or in a
 * forum a post: its first `message` (a create-message body, read by `messageFromDiscord`) and
 * `applied_tags` (docs/threads.md#forum-posts). JSON, or multipart with `payload_json` and files.
 */
export const DiscordStartThreadBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: OBJECT_LIMITS.name }),
  auto_archive_duration: nullable(ArchiveDuration),
  // 11 public, 12 private; any other type is refused after the permission check (as Discord orders it).
  type: nullable(int(0, 15)),
  invitable: nullable(Type.Boolean()),
  rate_limit_per_user: nullable(int(0, 21_600)),
  applied_tags: nullable(Type.Array(Snowflake, { maxItems: 100 })),
  message: Type.Optional(Type.Unknown()),
});

/** `PATCH /guilds/{id}/channels`: channels' positions, categories and permission sync, at once. */
export const DiscordChannelPositionsBody = Type.Array(
  Type.Object({
    id: Snowflake,
    position: nullable(int(0, OBJECT_LIMITS.position)),
    lock_permissions: nullable(Type.Boolean()),
    parent_id: nullable(Snowflake),
  }),
  { minItems: 1, maxItems: OBJECT_LIMITS.channelsPerReorder },
);

/** `PATCH /guilds/{id}`: Parley keeps `name` and `description`; Discord's settings are checked and ignored. */
export const DiscordUpdateGuildBody = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: OBJECT_LIMITS.name })),
  description: nullable(Type.String({ maxLength: 4000 })),
  verification_level: nullable(int(0, 4)),
  default_message_notifications: nullable(int(0, 1)),
  explicit_content_filter: nullable(int(0, 2)),
  afk_timeout: nullable(Type.Union([60, 300, 900, 1800, 3600].map((n) => Type.Literal(n)))),
  system_channel_id: nullable(Snowflake),
  system_channel_flags: nullable(int(0, 2 ** 31 - 1)),
  premium_progress_bar_enabled: nullable(Type.Boolean()),
});

/** `PUT /guilds/{id}/bans/{userId}`. */
export const DiscordBanBody = Type.Union([
  Type.Object({
    delete_message_seconds: Type.Optional(int(0, OBJECT_LIMITS.banDeleteSeconds)),
    delete_message_days: Type.Optional(int(0, OBJECT_LIMITS.banDeleteSeconds / 86_400)),
  }),
  Type.Null(),
]);

/** `POST /channels/{id}/messages/bulk-delete`. */
export const DiscordBulkDeleteBody = Type.Object({
  messages: Type.Array(Snowflake, {
    minItems: OBJECT_LIMITS.bulkDeleteMin,
    maxItems: OBJECT_LIMITS.bulkDeleteMax,
    uniqueItems: true,
  }),
});

/** `POST /users/@me/channels`: `{recipient_id}` (a DM) or `{recipients}` (a group: at most 9 others, 10 people). */
export const DiscordOpenDmBody = Type.Object({
  recipient_id: Type.Optional(Snowflake),
  recipients: Type.Optional(Type.Array(Snowflake, { minItems: 1, maxItems: OBJECT_LIMITS.groupDmMembers - 1 })),
});

/** `POST /channels/{id}/webhooks` and `PATCH /webhooks/{id}`: `avatar` is accepted and ignored (Parley's avatars are URLs). */
const webhookFields = {
  avatar: nullable(Type.String({ maxLength: 10 * 1024 * 1024 })),
  channel_id: Type.Optional(Snowflake),
};
export const DiscordCreateWebhookBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: OBJECT_LIMITS.webhookName }),
  ...webhookFields,
});
export const DiscordUpdateWebhookBody = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: OBJECT_LIMITS.webhookName })),
  ...webhookFields,
});

/**
 * The top level of a message body (create, edit, interaction answers), which may come as
 * multipart's `payload_json` and so is checked in bodies.ts rather than on the route.
 * Content, embeds, mentions and components keep their own readers (the webhook dialect's,
 * `componentsFromDiscord`), whose messages name the broken part.
 */
export const DiscordMessageTop = Type.Object({
  nonce: Type.Optional(Type.Union([int(-(2 ** 63 - 1), Number.MAX_SAFE_INTEGER), Type.String({ maxLength: 25 })])),
  flags: nullable(int(0, 2 ** 31 - 1)),
  tts: nullable(Type.Boolean()),
  attachments: nullable(
    Type.Array(
      Type.Object({
        id: Type.Union([Type.String({ maxLength: 20 }), int(0, Number.MAX_SAFE_INTEGER)]),
        filename: Type.Optional(Type.String({ maxLength: 1024 })),
      }),
      { maxItems: ATTACHMENTS_MAX },
    ),
  ),
  message_reference: nullable(
    Type.Object({
      message_id: Type.Optional(Snowflake),
      channel_id: Type.Optional(Snowflake),
      guild_id: Type.Optional(Snowflake),
      type: Type.Optional(int(0, 1)),
      fail_if_not_exists: Type.Optional(Type.Boolean()),
    }),
  ),
});

/**
 * A page size in a query string, 1 to `max` (Discord's ranges): digits without a leading
 * zero, so `0`, `1001` and `1e3` are refused by the pattern, as a number schema would.
 */
function queryLimit(max: 200 | 1000) {
  const pattern = max === 1000 ? '^(?:[1-9][0-9]{0,2}|1000)$' : '^(?:[1-9][0-9]?|1[0-9]{2}|200)$';
  return Type.String({ pattern, description: `1 to ${max}` });
}

/** `GET /guilds/{id}/members`: `limit` 1 to 1000 (default 1), `after` a user id (exclusive). */
export const DiscordMembersQuery = Type.Object({
  limit: Type.Optional(queryLimit(1000)),
  after: Type.Optional(Snowflake),
});

/** `GET /guilds/{id}/members/search`: `query` (at most 100 characters), `limit` 1 to 1000 (default 1). */
export const DiscordMemberSearchQuery = Type.Object({
  query: Type.String({ maxLength: 100 }),
  limit: Type.Optional(queryLimit(1000)),
});

/** `GET /users/@me/guilds`: `limit` 1 to 200 (default 200), `before` and `after` guild ids (exclusive). */
export const DiscordMyGuildsQuery = Type.Object({
  limit: Type.Optional(queryLimit(200)),
  before: Type.Optional(Snowflake),
  after: Type.Optional(Snowflake),
});

/** A Discord route's options with its body schema (hidden from the native OpenAPI document, as every Discord route). */
export const withBody = (body: TSchema) => ({ schema: { hide: true, body } }) as const;
/** A Discord route's options with its query-string schema (a failure is 400 50035 naming the parameter). */
export const withQuery = (querystring: TSchema) => ({ schema: { hide: true, querystring } }) as const;
