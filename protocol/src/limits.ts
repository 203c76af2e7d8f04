/**
 * Constants of the wire contract that carry no schema machinery. They sit apart from the
 * schemas (and `package.json` says `sideEffects: false`) so that a bundle which only needs
 * these, such as the web client's, does not pull in TypeBox and every schema.
 */

/** The permissions a server owner can grant a bot, in the order the API lists them. */
export const PERMISSION_NAMES = ['READ_MESSAGES', 'SEND_MESSAGES', 'ADD_REACTIONS', 'ATTACH_FILES'] as const;

/** Discord's embed limits (https://discord.com/developers/docs/resources/message#embed-object-embed-limits). */
export const EMBED_LIMITS = {
  embeds: 10,
  title: 256,
  description: 4096,
  fields: 25,
  fieldName: 256,
  fieldValue: 1024,
  footerText: 2048,
  authorName: 256,
  total: 6000,
} as const;

/** Parley's message content limit, in code points (same for every dialect). */
export const CONTENT_MAX = 4000;

/** The most attachments one message may carry. */
export const ATTACHMENTS_MAX = 10;

/** People one can message (`GET /users/@me/contacts`): page size and the length of `q`. */
export const CONTACT_LIMITS = {
  limitDefault: 25,
  limitMax: 100,
  queryLength: 100,
} as const;

/** Message search (`GET /search/messages`): page size, deepest offset, length of `q` and its words, the most `total` counts. */
export const SEARCH_LIMITS = {
  limitDefault: 25,
  limitMax: 100,
  offsetMax: 5000,
  queryLength: 512,
  terms: 16,
  /** `total` counts at most this many matches: 10,000 means 10,000 or more. */
  totalMax: 10_000,
} as const;

/** What a searched message may be required to have (`has=`). */
export const SEARCH_HAS = ['file', 'image', 'link', 'embed'] as const;

/** Close codes of the gateway protocol (docs/gateway.md). */
export const CLOSE_CODES = {
  /** The token is missing, wrong or revoked. */
  BAD_TOKEN: 4001,
  /** A frame that is not JSON, or not a valid frame for the connection's state. */
  MALFORMED: 4002,
  /** The client stopped reading: its send buffer passed the bound. Resumable. */
  SLOW_CONSUMER: 4008,
  /** No heartbeat (or identify) within 1.5 intervals. Resumable. */
  HEARTBEAT_TIMEOUT: 4009,
  /** The credential already has the most gateway sessions allowed on this instance. */
  TOO_MANY_SESSIONS: 4010,
  /** This instance is shutting down; reconnect and resume (here or elsewhere). */
  RESTARTING: 1012,
} as const;

/**
 * The audit log's actions (docs/permissions.md#the-audit-log says what each
 * records). The service writes them; clients filter and describe them.
 */
export const AUDIT_ACTIONS = [
  'server_update',
  'channel_create',
  'channel_update',
  'channel_delete',
  'overwrite_update',
  'overwrite_delete',
  'role_create',
  'role_update',
  'role_delete',
  'member_role_add',
  'member_role_remove',
  'member_nick',
  'member_kick',
  'member_ban',
  'member_unban',
  'bot_add',
  'bot_update',
  'bot_remove',
  'invite_create',
  'invite_delete',
  'webhook_create',
  'webhook_update',
  'webhook_delete',
  'message_delete',
  'message_bulk_delete',
  'message_pin',
  'message_unpin',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/**
 * Commands (docs/commands.md), with Discord's limits: a name is 1 to 32 lower-case
 * letters, digits, `-` or `_` (any script's letters); a description 1 to 100 characters;
 * 25 options per command, 25 choices per option; 100 commands per bot per scope (global,
 * or one server).
 */
export const COMMAND_LIMITS = {
  commandsPerScope: 100,
  name: 32,
  description: 100,
  options: 25,
  choices: 25,
  choiceName: 100,
  choiceValue: 100,
  /** A string option's value, in characters (also the most `minLength`/`maxLength` can say). */
  stringValue: 6000,
  /** Autocomplete answers: at most this many choices. */
  autocompleteChoices: 25,
  /** User commands, and message commands, per bot per scope (each type apart; Discord's 5). */
  contextMenusPerType: 5,
} as const;

/**
 * What a command is (Discord's application command types 1, 2, 3): `chat` runs from the
 * message box with options; `user` and `message` run from a member's or a message's "Apps"
 * menu, with no description or options. Names are unique per bot, scope and type.
 */
export const COMMAND_TYPES = ['chat', 'user', 'message'] as const;

/** A user or message command's name: 1 to 32 characters, any case, spaces inside (Discord's rule). */
export const CONTEXT_MENU_NAME_PATTERN = "^(?! )[-_ '.\\p{L}\\p{M}\\p{N}]{1,32}(?<! )$";

/** A command's or option's name: Discord's rule (lower case where the script has case). */
export const COMMAND_NAME_PATTERN = '^[-_\\p{Ll}\\p{Lo}\\p{Lm}\\p{N}]{1,32}$';

/** The types a value-carrying option can have; a value's JSON type follows (ids are strings). */
export const COMMAND_VALUE_TYPES = ['string', 'integer', 'number', 'boolean', 'user', 'channel', 'role', 'attachment'] as const;

/**
 * Every option type: the value types, and Discord's subcommands (1) and subcommand groups
 * (2), which carry no value but options of their own (docs/commands.md#subcommands).
 */
export const COMMAND_OPTION_TYPES = [...COMMAND_VALUE_TYPES, 'subcommand', 'subcommandGroup'] as const;

/** Components on messages: 5 rows of 5 (a select fills its row), Discord's lengths. */
export const COMPONENT_LIMITS = {
  rows: 5,
  perRow: 5,
  customId: 100,
  label: 80,
  url: 512,
  placeholder: 150,
  selectOptions: 25,
  optionLabel: 100,
  optionValue: 100,
  optionDescription: 100,
} as const;

/** Button styles; `link` opens its `url` (http or https) and makes no interaction. */
export const BUTTON_STYLES = ['primary', 'secondary', 'success', 'danger', 'link'] as const;

/** What a person can invoke (`POST /channels/{channelId}/interactions`). */
export const INTERACTION_TYPES = ['command', 'component', 'autocomplete', 'modalSubmit'] as const;

/** Modals (a bot's form answering a command or click), with Discord's limits (docs/commands.md#modals). */
export const MODAL_LIMITS = {
  title: 45,
  rows: 5,
  customId: 100,
  label: 45,
  /** A text input's value, and the most `minLength`/`maxLength` can say. */
  value: 4000,
  placeholder: 100,
} as const;

/** A text input's look: one line, or several. */
export const TEXT_INPUT_STYLES = ['short', 'paragraph'] as const;

/** How a bot answers an interaction (`POST /interactions/{id}/{token}/callback`). */
export const INTERACTION_CALLBACK_TYPES = ['message', 'deferred', 'update', 'deferredUpdate', 'autocomplete', 'modal'] as const;

/**
 * How many of a thing one object may hold, Discord's numbers. Both APIs read them from here:
 * the native request schemas (requests.ts), the Discord layer's (src/discord/schemas.ts) and
 * the domain's checks, so a cap cannot be skipped on one path.
 */
export const OBJECT_LIMITS = {
  /** Roles in one server, `@everyone` not counted (Discord's 250, its code 30005). */
  rolesPerServer: 250,
  /** Distinct emoji on one message (Discord's 20, its code 30010); more people may add one already there. */
  reactionsPerMessage: 20,
  /** People in a group DM, the creator included (docs/api.md#direct-messages; Discord's 10). */
  groupDmMembers: 10,
  /** The highest `position` a channel or role may be given. */
  position: 10_000,
  /** The most channels one `PATCH /servers/{serverId}/channels` moves. */
  channelsPerReorder: 500,
  /** A channel's or role's name, in characters. */
  name: 100,
  /** A channel's topic, in characters. */
  topic: 4096,
  /** How far back a ban may delete the member's messages, in seconds (7 days). */
  banDeleteSeconds: 604_800,
  /** A webhook's name, in characters. */
  webhookName: 80,
  /** Messages one bulk delete takes. */
  bulkDeleteMin: 2,
  bulkDeleteMax: 100,
} as const;
