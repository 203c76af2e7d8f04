/**
 * Runtime shape checks for Discord objects, typed against `discord-api-types`: each spec
 * names keys of the library type (a misspelt or removed key is a compile error) and says
 * at run time what the value must be. They hold the fields libraries read (discord.js,
 * @discordjs/core, Oceanic.js, Eris, discord.py), not every optional one.
 */
import type {
  APIApplication,
  APIApplicationCommand,
  APIBan,
  APIChannel,
  APIDMChannel,
  APIGatewayBotInfo,
  APIGatewayInfo,
  APIGuild,
  APIGuildMember,
  APIGuildTextChannel,
  APIMessage,
  APIMessagePin,
  APIOverwrite,
  APIRole,
  APIThreadChannel,
  APIThreadMember,
  APIThreadMetadata,
  APIUser,
  APIWebhook,
  ChannelType,
  RESTAPIPartialCurrentUserGuild,
  RESTGetAPIChannelMessagesPinsResult,
} from 'discord-api-types/v10';

type Kind = 'string' | 'number' | 'boolean' | 'null' | 'snowflake' | 'timestamp' | 'array' | 'object' | 'absent';
/** A kind, several allowed kinds, or a check of its own (throws with the path when wrong). */
export type Check = Kind | readonly Kind[] | ((value: unknown, at: string) => void);
/** A spec of `T`: only `T`'s keys. A key left out is not checked. */
export type Spec<T> = { readonly [K in keyof T]?: Check };

const SNOWFLAKE = /^\d{1,20}$/;

function kindOf(v: unknown): Kind[] {
  if (v === undefined) return ['absent'];
  if (v === null) return ['null'];
  if (Array.isArray(v)) return ['array'];
  const t = typeof v;
  if (t === 'string') {
    const out: Kind[] = ['string'];
    if (SNOWFLAKE.test(v as string)) out.push('snowflake');
    if (!Number.isNaN(Date.parse(v as string)) && /^\d{4}-\d\d-\d\dT/.test(v as string)) out.push('timestamp');
    return out;
  }
  if (t === 'number' || t === 'boolean' || t === 'object') return [t as Kind];
  return [];
}

function check(value: unknown, c: Check, at: string): void {
  if (typeof c === 'function') {
    c(value, at);
    return;
  }
  const allowed = (typeof c === 'string' ? [c] : c) as readonly Kind[];
  const is = kindOf(value);
  if (!allowed.some((k) => is.includes(k))) throw new Error(`${at}: expected ${allowed.join(' | ')}, got ${JSON.stringify(value)}`);
}

/** Throws unless `value` is an object whose keys satisfy `spec`. */
export function assertShape<T>(value: unknown, spec: Spec<T>, at = 'body'): asserts value is T {
  check(value, 'object', at);
  for (const [key, c] of Object.entries(spec) as Array<[string, Check]>) check((value as Record<string, unknown>)[key], c, `${at}.${key}`);
}

/** A check: an object of `spec`. */
export const obj =
  <T>(spec: Spec<T>): Check =>
  (v, at) =>
    assertShape<T>(v, spec, at);
/** A check: an array whose every item passes `item`. */
export const arrayOf =
  (item: Check, opts: { min?: number } = {}): ((value: unknown, at: string) => void) =>
  (v, at) => {
    check(v, 'array', at);
    const list = v as unknown[];
    if (list.length < (opts.min ?? 0)) throw new Error(`${at}: expected at least ${opts.min} items, got ${list.length}`);
    list.forEach((x, i) => {
      check(x, item, `${at}[${i}]`);
    });
  };
/** A check: exactly `expected`. */
export const eq =
  (expected: unknown): Check =>
  (v, at) => {
    if (v !== expected) throw new Error(`${at}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(v)}`);
  };
/** A check: a permission bitfield, a string of decimal digits (as Discord sends it). */
export const bitfield: Check = (v, at) => {
  if (typeof v !== 'string' || !/^\d+$/.test(v)) throw new Error(`${at}: expected a bitfield string, got ${JSON.stringify(v)}`);
};

export const USER: Spec<APIUser> = {
  id: 'snowflake',
  username: 'string',
  discriminator: 'string',
  global_name: ['string', 'null'],
  avatar: ['string', 'null'],
  bot: ['boolean', 'absent'],
};
export const ROLE: Spec<APIRole> = {
  id: 'snowflake',
  name: 'string',
  color: 'number',
  colors: obj<APIRole['colors']>({ primary_color: 'number', secondary_color: ['number', 'null'], tertiary_color: ['number', 'null'] }),
  hoist: 'boolean',
  position: 'number',
  permissions: bitfield,
  managed: 'boolean',
  mentionable: 'boolean',
  flags: 'number',
};
export const OVERWRITE: Spec<APIOverwrite> = { id: 'snowflake', type: ['number'], allow: bitfield, deny: bitfield };
export const GUILD_CHANNEL: Spec<APIGuildTextChannel<ChannelType.GuildText>> = {
  id: 'snowflake',
  type: eq(0),
  guild_id: 'snowflake',
  name: 'string',
  position: 'number',
  permission_overwrites: arrayOf(obj(OVERWRITE)),
  topic: ['string', 'null', 'absent'],
  last_message_id: ['snowflake', 'null', 'absent'],
  nsfw: ['boolean', 'absent'],
  parent_id: ['snowflake', 'null', 'absent'],
};
/** Any channel: what every kind has. */
export const CHANNEL: Spec<APIChannel> = { id: 'snowflake', type: 'number' };
export const DM_CHANNEL: Spec<APIDMChannel> = {
  id: 'snowflake',
  type: eq(1),
  recipients: arrayOf(obj(USER), { min: 1 }),
  last_message_id: ['snowflake', 'null', 'absent'],
};
export const GUILD: Spec<APIGuild> = {
  id: 'snowflake',
  name: 'string',
  owner_id: 'snowflake',
  icon: ['string', 'null'],
  roles: arrayOf(obj(ROLE), { min: 1 }),
  emojis: 'array',
  features: 'array',
  verification_level: 'number',
  default_message_notifications: 'number',
  explicit_content_filter: 'number',
  mfa_level: 'number',
  premium_tier: 'number',
  preferred_locale: 'string',
  system_channel_id: ['snowflake', 'null'],
  afk_channel_id: ['snowflake', 'null'],
  description: ['string', 'null'],
  nsfw_level: 'number',
};
export const PARTIAL_GUILD: Spec<RESTAPIPartialCurrentUserGuild> = {
  id: 'snowflake',
  name: 'string',
  icon: ['string', 'null'],
  owner: 'boolean',
  permissions: bitfield,
  features: 'array',
};
export const MEMBER: Spec<APIGuildMember> = {
  user: obj(USER),
  roles: arrayOf('snowflake'),
  joined_at: 'timestamp',
  nick: ['string', 'null', 'absent'],
  deaf: 'boolean',
  mute: 'boolean',
  flags: 'number',
  communication_disabled_until: ['timestamp', 'null', 'absent'],
};
export const BAN: Spec<APIBan> = { user: obj(USER), reason: ['string', 'null'] };
export const MESSAGE: Spec<APIMessage> = {
  id: 'snowflake',
  channel_id: 'snowflake',
  author: obj(USER),
  content: 'string',
  timestamp: 'timestamp',
  edited_timestamp: ['timestamp', 'null'],
  tts: 'boolean',
  mention_everyone: 'boolean',
  mentions: arrayOf(obj(USER)),
  mention_roles: arrayOf('snowflake'),
  attachments: 'array',
  embeds: 'array',
  pinned: 'boolean',
  type: 'number',
  flags: ['number', 'absent'],
  components: ['array', 'absent'],
};
export const PINS: Spec<RESTGetAPIChannelMessagesPinsResult> = {
  items: arrayOf(obj<APIMessagePin>({ pinned_at: 'timestamp', message: obj(MESSAGE) })),
  has_more: 'boolean',
};
export const WEBHOOK: Spec<APIWebhook> = {
  id: 'snowflake',
  type: eq(1),
  channel_id: 'snowflake',
  guild_id: ['snowflake', 'absent'],
  name: ['string', 'null'],
  avatar: ['string', 'null'],
  application_id: ['snowflake', 'null'],
};
export const COMMAND: Spec<APIApplicationCommand> = {
  id: 'snowflake',
  application_id: 'snowflake',
  name: 'string',
  description: 'string',
  type: 'number',
  version: 'snowflake',
  default_member_permissions: ['string', 'null'],
  options: ['array', 'absent'],
  guild_id: ['snowflake', 'absent'],
};
export const APPLICATION: Spec<APIApplication> = {
  id: 'snowflake',
  name: 'string',
  description: 'string',
  icon: ['string', 'null'],
  bot_public: 'boolean',
  bot_require_code_grant: 'boolean',
  verify_key: 'string',
  flags: 'number',
};
export const GATEWAY: Spec<APIGatewayInfo> = { url: 'string' };
export const GATEWAY_BOT: Spec<APIGatewayBotInfo> = {
  url: 'string',
  shards: 'number',
  session_start_limit: obj<APIGatewayBotInfo['session_start_limit']>({
    total: 'number',
    remaining: 'number',
    reset_after: 'number',
    max_concurrency: 'number',
  }),
};

export const THREAD_MEMBER: Spec<APIThreadMember> = {
  id: 'snowflake',
  user_id: 'snowflake',
  join_timestamp: 'timestamp',
  flags: 'number',
};
const THREAD_METADATA: Spec<APIThreadMetadata> = {
  archived: 'boolean',
  auto_archive_duration: 'number',
  archive_timestamp: 'timestamp',
  locked: 'boolean',
  create_timestamp: ['timestamp', 'absent'],
  invitable: ['boolean', 'absent'],
};
/** A thread (type 11 or 12). */
export const THREAD: Spec<APIThreadChannel> = {
  id: 'snowflake',
  type: (v, at) => {
    if (v !== 11 && v !== 12) throw new Error(`${at}: expected 11 or 12, got ${JSON.stringify(v)}`);
  },
  guild_id: 'snowflake',
  parent_id: 'snowflake',
  owner_id: 'snowflake',
  name: 'string',
  last_message_id: ['snowflake', 'null'],
  message_count: 'number',
  member_count: 'number',
  thread_metadata: obj(THREAD_METADATA),
  member: (v, at) => {
    if (v !== undefined) assertShape(v, THREAD_MEMBER, at);
  },
};
/** A list of threads (active, archived): the threads and the caller's memberships. */
export const THREAD_LIST: Spec<{ threads: unknown; members: unknown }> = {
  threads: arrayOf(obj(THREAD)),
  members: arrayOf(obj(THREAD_MEMBER)),
};
