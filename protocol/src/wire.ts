import { type Static, type TLiteral, type TSchema, Type } from 'typebox';
import { ERROR_CODES } from './errors.js';
import {
  BUTTON_STYLES,
  COMMAND_LIMITS,
  COMMAND_OPTION_TYPES,
  COMMAND_TYPES,
  COMMAND_VALUE_TYPES,
  COMPONENT_LIMITS,
  CONTENT_MAX,
  EMBED_LIMITS,
  INTERACTION_TYPES,
  MODAL_LIMITS,
  PERMISSION_NAMES,
  SEARCH_LIMITS,
  TEXT_INPUT_STYLES,
} from './limits.js';

/**
 * 10000 → "10,000". Not `toLocaleString`: that loads ICU's number-format data (about 5 MB
 * resident for the life of a server) to describe one schema field.
 */
function groupThousands(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/**
 * The objects the API answers with, as JSON Schema. Each has an `$id`: the server's app.ts
 * adds them with `addSchema`, so responses are serialized through them and the OpenAPI
 * document lists them once under components. Routes point at them with `ref()`. The type
 * of the same name beside each schema is its `Static<>`, which the server, the SDK and the
 * web client use.
 *
 * fast-json-stringify drops what a schema does not declare and fails on a missing
 * required property, so every field the domain returns is here, with its nullability,
 * and fields that only some objects carry are optional.
 */

/** An id in the API's JSON and URLs: a snowflake (see ids.ts). */
export const Id = Type.String({ pattern: '^[0-9]{1,19}$', description: 'snowflake: a 64-bit integer as a decimal string' });
const Timestamp = Type.String({ description: 'ISO 8601 UTC' });
const Nullable = <T extends TSchema>(t: T, options?: { description?: string }) => Type.Union([t, Type.Null()], options);

/** One literal per string of a const list, typed as the tuple it is (so the union's static type is the strings). */
export function literals<const T extends readonly string[]>(list: T): { -readonly [K in keyof T]: TLiteral<T[K]> } {
  return list.map((x) => Type.Literal(x)) as unknown as { -readonly [K in keyof T]: TLiteral<T[K]> };
}

/** A `$ref` to a shared schema, typed as the schema it names. */
export function ref<T extends TSchema & { $id?: string }>(schema: T) {
  if (!schema.$id) throw new Error('ref() needs a schema with an $id');
  return Type.Unsafe<Static<T>>({ $ref: `${schema.$id}#` });
}

// A JSON Schema `enum` (what the OpenAPI document has always shown), typed by the const list.
export const PermissionName = Type.Unsafe<(typeof PERMISSION_NAMES)[number]>({
  $id: 'PermissionName',
  title: 'PermissionName',
  type: 'string',
  enum: [...PERMISSION_NAMES],
});

export const ErrorResponse = Type.Object(
  {
    error: Type.String({ description: 'human-readable message' }),
    code: Type.Union(
      ERROR_CODES.map((c) => Type.Literal(c)),
      { description: 'machine-readable error code from the catalog in docs/api.md; stable, unlike `error`' },
    ),
    retryAfter: Type.Optional(Type.Number({ description: 'seconds until the rate limit window ends (429 only)' })),
  },
  { $id: 'ErrorResponse', title: 'ErrorResponse', description: 'an error; the status says its class, `code` its cause' },
);

export const PublicUser = Type.Object(
  { id: Id, name: Type.String(), bot: Type.Boolean(), avatar: Nullable(Type.String()) },
  { $id: 'PublicUser', title: 'PublicUser', description: 'the public face of a person or bot' },
);

const DisplayName = Nullable(
  Type.String({ description: 'the name the person chose to be shown by; null shows their username (a bot: its name)' }),
);

export const SelfUser = Type.Object(
  {
    ...PublicUser.properties,
    username: Nullable(Type.String()),
    displayName: DisplayName,
    createdAt: Timestamp,
  },
  {
    $id: 'SelfUser',
    title: 'SelfUser',
    description: 'a person as they see themselves; `name` is what others see: `displayName` if set, else `username`',
  },
);

export const BotSelf = Type.Object(
  {
    ...PublicUser.properties,
    displayName: DisplayName,
    ownerId: Nullable(Id),
    createdAt: Timestamp,
  },
  { $id: 'BotSelf', title: 'BotSelf', description: 'a bot as it sees itself; its `displayName` is its `name`' },
);

/** A person's or bot's public face with the display name they chose, as `USER_UPDATE` carries it. */
export const UpdatedUser = Type.Object(
  { ...PublicUser.properties, displayName: DisplayName },
  { $id: 'UpdatedUser', title: 'UpdatedUser', description: 'a person or bot after a change of name or avatar' },
);

export const AuthSession = Type.Object(
  {
    id: Id,
    createdAt: Timestamp,
    lastUsedAt: Timestamp,
    userAgent: Nullable(Type.String({ description: 'the User-Agent of the login or registration that opened it, shortened' })),
    current: Type.Boolean({ description: 'whether this is the session making the request' }),
  },
  {
    $id: 'AuthSession',
    title: 'AuthSession',
    description: "one of the caller's login sessions (`lastUsedAt` is updated at most once an hour)",
  },
);

export const Instance = Type.Object(
  {
    registration: Type.Union([Type.Literal('open'), Type.Literal('invite'), Type.Literal('closed')], {
      description: 'who may create an account: anyone, only with an invite code, or no one',
    }),
    sessionTtlDays: Type.Integer({ minimum: 1, description: 'a login session unused for this many days ends' }),
    maxUploadBytes: Type.Integer({ minimum: 1, description: 'the largest file an upload may be, in bytes (`MAX_UPLOAD_BYTES`)' }),
    pdfPreviews: Type.Boolean({
      description: "whether this instance draws PDFs' first pages (`/uploads/{id}/{secret}/{filename}/page-1.png`; needs `pdftoppm`)",
    }),
  },
  { $id: 'Instance', title: 'Instance', description: 'what a visitor needs to know about this Parley before logging in' },
);

export const Session = Type.Object(
  { token: Type.String({ description: 'session token for `Authorization: Bearer <token>`' }), user: ref(SelfUser) },
  { $id: 'Session', title: 'Session', description: 'a new session and its person' },
);

const botProperties = {
  id: Id,
  name: Type.String(),
  avatar: Nullable(Type.String()),
  ownerId: Nullable(Id),
  bot: Type.Boolean(),
  public: Type.Boolean({ description: 'whether any server owner may add the bot' }),
  interactionsUrl: Nullable(
    Type.String({ description: 'where interactions are delivered over HTTP (signed); null: over the gateway as INTERACTION_CREATE' }),
  ),
  publicKey: Type.Optional(
    Type.String({
      description: "the Ed25519 public key (hex, 32 bytes) that signs the bot's HTTP interactions (X-Signature-Ed25519); docs/commands.md",
    }),
  ),
  createdAt: Timestamp,
};

export const Bot = Type.Object(botProperties, { $id: 'Bot', title: 'Bot', description: 'a bot as its owner sees it' });

/** `GET /bots/{botId}/profile`: what the invite page shows of a bot before it is added (no token, key or URL). */
export const BotProfile = Type.Object(
  {
    ...PublicUser.properties,
    public: Type.Boolean({ description: 'whether any server owner may add the bot (otherwise only its owner, the caller)' }),
    owner: Nullable(ref(PublicUser), { description: "the bot's owner, as anyone sees them" }),
    createdAt: Timestamp,
  },
  { $id: 'BotProfile', title: 'BotProfile', description: 'a bot\'s public face, for adding it to a server (docs/api.md, "Adding a bot")' },
);

export const CreatedBot = Type.Object(
  { ...botProperties, token: Type.String({ description: 'bot token for `Authorization: Bot <token>`; shown only here' }) },
  { $id: 'CreatedBot', title: 'CreatedBot', description: 'a new bot, with its token (shown only once)' },
);

/** A permission bitfield (docs/permissions.md): a decimal string of Discord's bits. */
export const PermissionBits = Type.String({ pattern: '^[0-9]{1,20}$', description: 'permission bitfield, decimal (docs/permissions.md)' });

export const Server = Type.Object(
  {
    id: Id,
    name: Type.String(),
    ownerId: Id,
    createdAt: Timestamp,
    icon: Type.Optional(Nullable(Type.String({ description: 'an upload URL' }))),
    description: Type.Optional(Nullable(Type.String())),
    systemChannelId: Type.Optional(Nullable(Id, { description: 'where welcome lines are posted; null: nowhere (the default)' })),
    welcomeMessages: Type.Optional(
      Type.Boolean({ description: 'whether someone joining by invite gets a welcome line in `systemChannelId` (default true)' }),
    ),
  },
  { $id: 'Server', title: 'Server', description: 'a server' },
);

export const Overwrite = Type.Object(
  {
    id: Id,
    type: Type.Union([Type.Literal('role'), Type.Literal('member')]),
    allow: PermissionBits,
    deny: PermissionBits,
  },
  {
    $id: 'Overwrite',
    title: 'Overwrite',
    description: "a channel's permission overwrite for a role (the server's id: `@everyone`) or a member",
  },
);

/** A tag of a forum, which its posts may carry. */
export const ForumTag = Type.Object(
  {
    id: Id,
    name: Type.String({ minLength: 1, maxLength: 20 }),
    moderated: Type.Boolean({ description: 'only MANAGE_THREADS may put it on a post or take it off' }),
    emoji: Nullable(Type.String(), { description: 'a Unicode emoji shown before the name, or null' }),
  },
  { $id: 'ForumTag', title: 'ForumTag', description: "a forum channel's tag" },
);

/** How a forum lists its posts by default: newest activity first, or newest post first (Discord's 0 and 1). */
export const ForumSortOrder = Type.Union([Type.Literal('latest_activity'), Type.Literal('creation_date')]);
/** How a forum shows its posts (Discord's 0, 1, 2). */
export const ForumLayout = Type.Union([Type.Literal('not_set'), Type.Literal('list'), Type.Literal('gallery')]);

/** What only a forum channel has (present on forums only). */
const forumFields = {
  availableTags: Type.Optional(
    Type.Array(ref(ForumTag), { maxItems: 20, description: 'forums only: the tags its posts may carry (`appliedTags`), at most 20' }),
  ),
  defaultAutoArchiveDuration: Type.Optional(
    Nullable(Type.Integer(), { description: 'forums only: the auto-archive duration of new posts that name none (minutes); null: 1440' }),
  ),
  defaultSortOrder: Type.Optional(Nullable(ForumSortOrder, { description: 'forums only: how clients sort its posts; null: not set' })),
  defaultForumLayout: Type.Optional(ForumLayout),
  defaultReactionEmoji: Type.Optional(
    Nullable(Type.String(), { description: 'forums only: the emoji clients offer to react to a post with, or null' }),
  ),
};

export const Channel = Type.Object(
  {
    id: Id,
    serverId: Id,
    name: Type.String(),
    createdAt: Timestamp,
    topic: Type.Optional(Nullable(Type.String())),
    position: Type.Optional(
      Type.Integer({ description: 'the order among the channels of the same parent (categories: among categories)' }),
    ),
    type: Type.Optional(
      Type.Union([Type.Literal('text'), Type.Literal('category'), Type.Literal('forum')], {
        description:
          "`text` (the default), `category` (Discord's type 4): a collapsible group of channels that holds no messages, or `forum` (Discord's type 15): a channel of posts, each a thread started with a message (docs/threads.md#forum-channels)",
      }),
    ),
    parentId: Type.Optional(
      Nullable(Id, { description: 'the category the channel sits in; null when uncategorised, always for a category' }),
    ),
    permissionOverwrites: Type.Optional(Type.Array(ref(Overwrite))),
    lastMessageId: Type.Optional(Nullable(Id, { description: 'the newest message (unread state compares it with the read state)' })),
    ...forumFields,
  },
  { $id: 'Channel', title: 'Channel', description: 'a channel of a server; a forum carries its tags and defaults' },
);

const NotifyLevel = Type.Union([Type.Literal('all'), Type.Literal('mentions'), Type.Literal('none')]);

/** A person's membership of a thread (docs/threads.md#thread-members). */
export const ThreadMember = Type.Object(
  {
    threadId: Id,
    userId: Id,
    joinTimestamp: Timestamp,
    flags: Type.Integer({ minimum: 0, description: "Discord's thread member flags" }),
    notify: Type.Optional(
      Type.Union([Type.Literal('all'), Type.Literal('mentions'), Type.Literal('none')], {
        description: "on the caller's own membership: which of the thread's messages notify them (`all`, `mentions`, `none`)",
      }),
    ),
  },
  { $id: 'ThreadMember', title: 'ThreadMember', description: 'someone who joined (follows) a thread' },
);

/** A thread: a channel with a parent (docs/threads.md). */
export const Thread = Type.Object(
  {
    id: Id,
    serverId: Id,
    parentId: Id,
    type: Type.Union([Type.Literal('public_thread'), Type.Literal('private_thread')], {
      description: "`public_thread` (Discord's type 11; forum posts too) or `private_thread` (type 12)",
    }),
    name: Type.String(),
    ownerId: Id,
    createdAt: Timestamp,
    messageCount: Type.Integer({ minimum: 0 }),
    memberCount: Type.Integer({ minimum: 0 }),
    lastMessageId: Nullable(Id),
    appliedTags: Type.Array(Id, { description: "forum posts: the ids of the forum's tags it carries" }),
    metadata: Type.Object({
      archived: Type.Boolean(),
      locked: Type.Boolean({ description: 'only MANAGE_THREADS may post or change it' }),
      autoArchiveDuration: Type.Integer({ description: 'minutes without a message before it archives itself: 60, 1440, 4320 or 10080' }),
      archiveTimestamp: Timestamp,
      createTimestamp: Timestamp,
      invitable: Type.Optional(Type.Boolean({ description: 'private threads: whether members who do not manage threads may add people' })),
    }),
    member: Type.Optional(ref(ThreadMember)),
  },
  { $id: 'Thread', title: 'Thread', description: "a thread or forum post; `member` is the caller's own membership, when they joined it" },
);

export const Role = Type.Object(
  {
    id: Id,
    serverId: Id,
    name: Type.String(),
    color: Type.Integer({ minimum: 0, maximum: 0xffffff, description: 'RGB; 0 is no colour' }),
    position: Type.Integer({ minimum: 0, description: '`@everyone` is 0; higher is above' }),
    permissions: PermissionBits,
    hoist: Type.Boolean({ description: 'shown as its own group in the member list' }),
    mentionable: Type.Boolean(),
    managed: Type.Boolean({ description: "a bot's own role: created and deleted with its membership" }),
  },
  { $id: 'Role', title: 'Role', description: "a server's role; the one whose id is the server's is `@everyone`" },
);

export const Invite = Type.Object(
  {
    code: Type.String(),
    serverId: Id,
    inviterId: Id,
    /** @deprecated the inviter; `inviterId` */
    createdBy: Id,
    uses: Type.Integer({ minimum: 0 }),
    maxUses: Type.Integer({ minimum: 0, description: '0 is unlimited' }),
    maxAge: Type.Integer({ minimum: 0, description: 'seconds; 0 is never expires' }),
    expiresAt: Nullable(Timestamp),
    createdAt: Timestamp,
  },
  { $id: 'Invite', title: 'Invite', description: 'an invite; `code` is a bearer secret' },
);

export const InvitePreview = Type.Object(
  {
    code: Type.String(),
    server: Type.Object({ id: Id, name: Type.String(), icon: Nullable(Type.String()), memberCount: Type.Integer({ minimum: 0 }) }),
    expiresAt: Nullable(Timestamp),
    banned: Type.Optional(
      Type.Boolean({
        description: 'present when the request is authenticated: whether the caller is banned from the server (then joining is refused)',
      }),
    ),
  },
  { $id: 'InvitePreview', title: 'InvitePreview', description: 'what an invite leads to, for anyone holding its code' },
);

export const Ban = Type.Object(
  { user: ref(PublicUser), reason: Nullable(Type.String()), createdAt: Timestamp },
  { $id: 'Ban', title: 'Ban', description: 'a ban: the user cannot rejoin' },
);

export const AuditLogEntry = Type.Object(
  {
    id: Id,
    action: Type.String({ description: 'e.g. role_update, member_ban; docs/permissions.md lists them' }),
    actorId: Id,
    targetId: Nullable(Type.String()),
    changes: Type.Record(Type.String(), Type.Unknown(), { description: 'what changed: `{field: {old, new}}` or the object' }),
    reason: Nullable(Type.String()),
    createdAt: Timestamp,
  },
  { $id: 'AuditLogEntry', title: 'AuditLogEntry', description: 'one moderation or configuration change' },
);

/** What others see of someone's connections: `invisible` shows as `offline`. */
export const PresenceStatus = Type.Union([Type.Literal('online'), Type.Literal('idle'), Type.Literal('dnd'), Type.Literal('offline')], {
  description: 'from gateway connections; `offline` also for someone invisible',
});

export const Member = Type.Object(
  {
    ...PublicUser.properties,
    user: ref(PublicUser),
    presence: Type.Optional(PresenceStatus),
    roles: Type.Array(Id, { description: "the member's role ids, `@everyone` not included" }),
    nick: Type.Optional(Nullable(Type.String({ description: 'their nickname in this server, shown instead of `name`' }))),
    ownerId: Type.Optional(Nullable(Id)),
    permissions: Type.Optional(Type.Array(ref(PermissionName), { description: 'bots only' })),
    joinedAt: Timestamp,
  },
  { $id: 'Member', title: 'Member', description: '`ownerId` and `permissions` are present on bots only' },
);

/** `GET /users/@me/contacts`: someone the caller shares a server with, and their presence. */
export const Contact = Type.Object(
  { user: ref(PublicUser), presence: PresenceStatus },
  { $id: 'Contact', title: 'Contact', description: 'a person or bot who shares a server with the caller' },
);

export const BotMember = Type.Object(
  {
    ...PublicUser.properties,
    ownerId: Nullable(Id),
    permissions: Type.Array(ref(PermissionName)),
    joinedAt: Type.Optional(Timestamp),
    role: Type.Optional(ref(Role)),
  },
  { $id: 'BotMember', title: 'BotMember', description: 'a bot in a server; `joinedAt` when it was just added' },
);

export const Attachment = Type.Object(
  {
    url: Type.String({ description: `absolute, under PUBLIC_URL/uploads/` }),
    filename: Type.String(),
    size: Type.Integer({ minimum: 0 }),
    contentType: Type.String(),
    width: Type.Optional(
      Nullable(Type.Integer({ minimum: 1 }), {
        description: "an image's width in pixels (PNG, JPEG, GIF, WebP, AVIF); absent for other files",
      }),
    ),
    height: Type.Optional(Nullable(Type.Integer({ minimum: 1 }), { description: "an image's height in pixels; absent for other files" })),
  },
  { $id: 'Attachment', title: 'Attachment', description: 'an uploaded file, as POST /upload returns it and messages carry it' },
);

const EmbedMedia = Type.Object({ url: Type.String() });

export const Embed = Type.Object(
  {
    title: Type.Optional(Type.String({ maxLength: EMBED_LIMITS.title })),
    description: Type.Optional(Type.String({ maxLength: EMBED_LIMITS.description })),
    url: Type.Optional(Type.String()),
    color: Type.Optional(Type.Integer({ minimum: 0, maximum: 0xffffff, description: '24-bit RGB' })),
    fields: Type.Optional(
      Type.Array(
        Type.Object({
          name: Type.String({ maxLength: EMBED_LIMITS.fieldName }),
          value: Type.String({ maxLength: EMBED_LIMITS.fieldValue }),
          inline: Type.Optional(Type.Boolean()),
        }),
        { maxItems: EMBED_LIMITS.fields },
      ),
    ),
    author: Type.Optional(
      Type.Object({
        name: Type.String({ maxLength: EMBED_LIMITS.authorName }),
        url: Type.Optional(Type.String()),
        icon_url: Type.Optional(Type.String()),
      }),
    ),
    footer: Type.Optional(
      Type.Object({ text: Type.String({ maxLength: EMBED_LIMITS.footerText }), icon_url: Type.Optional(Type.String()) }),
    ),
    timestamp: Type.Optional(Timestamp),
    image: Type.Optional(EmbedMedia),
    thumbnail: Type.Optional(EmbedMedia),
  },
  {
    $id: 'Embed',
    title: 'Embed',
    description: `a Discord-style rich embed, with Discord's limits (${EMBED_LIMITS.total} characters in all)`,
  },
);

export const Reaction = Type.Object(
  { emoji: Type.String(), count: Type.Integer({ minimum: 0 }), me: Type.Boolean({ description: 'whether the caller reacted' }) },
  { $id: 'Reaction', title: 'Reaction', description: "an emoji's reactions on a message" },
);

// ---------------------------------------------------------------- components (docs/commands.md#components)

/** A button: `customId` makes a component interaction when clicked; a `link` button has a `url` instead. */
export const Button = Type.Object(
  {
    type: Type.Literal('button'),
    style: Type.Union(literals(BUTTON_STYLES), { description: '`link` opens `url` and makes no interaction' }),
    label: Type.String({ minLength: 1, maxLength: COMPONENT_LIMITS.label }),
    customId: Type.Optional(
      Type.String({ minLength: 1, maxLength: COMPONENT_LIMITS.customId, description: 'every style but `link`; unique on the message' }),
    ),
    url: Type.Optional(Type.String({ maxLength: COMPONENT_LIMITS.url, description: '`link` only: an http(s) URL' })),
    emoji: Type.Optional(Type.String({ maxLength: 64, description: 'one Unicode emoji shown before the label' })),
    disabled: Type.Optional(Type.Boolean()),
  },
  { $id: 'Button', title: 'Button', description: 'a button on a message' },
);

export const SelectOption = Type.Object(
  {
    label: Type.String({ minLength: 1, maxLength: COMPONENT_LIMITS.optionLabel }),
    value: Type.String({ minLength: 1, maxLength: COMPONENT_LIMITS.optionValue, description: 'unique in its select' }),
    description: Type.Optional(Type.String({ maxLength: COMPONENT_LIMITS.optionDescription })),
    default: Type.Optional(Type.Boolean({ description: 'shown selected at first' })),
  },
  { $id: 'SelectOption', title: 'SelectOption', description: 'one choice of a select' },
);

/** A select menu: choosing makes a component interaction with the chosen `values`. It fills its row. */
export const Select = Type.Object(
  {
    type: Type.Literal('select'),
    customId: Type.String({ minLength: 1, maxLength: COMPONENT_LIMITS.customId, description: 'unique on the message' }),
    options: Type.Array(ref(SelectOption), { minItems: 1, maxItems: COMPONENT_LIMITS.selectOptions }),
    placeholder: Type.Optional(Type.String({ maxLength: COMPONENT_LIMITS.placeholder })),
    minValues: Type.Optional(Type.Integer({ minimum: 0, maximum: COMPONENT_LIMITS.selectOptions, description: 'default 1' })),
    maxValues: Type.Optional(Type.Integer({ minimum: 1, maximum: COMPONENT_LIMITS.selectOptions, description: 'default 1' })),
    disabled: Type.Optional(Type.Boolean()),
  },
  { $id: 'Select', title: 'Select', description: 'a Select menu on a message (a dropdown of options)' },
);

/** A row of components: up to 5 buttons, or one select. */
export const ActionRow = Type.Object(
  {
    type: Type.Literal('row'),
    components: Type.Array(Type.Union([ref(Button), ref(Select)]), { minItems: 1, maxItems: COMPONENT_LIMITS.perRow }),
  },
  { $id: 'ActionRow', title: 'ActionRow', description: 'a row of up to 5 buttons, or one select' },
);

/** A text input of a modal: what the person types, checked against its rules when submitted. */
export const TextInput = Type.Object(
  {
    type: Type.Literal('textInput'),
    customId: Type.String({
      minLength: 1,
      maxLength: MODAL_LIMITS.customId,
      description: 'unique in the modal; names the value submitted',
    }),
    style: Type.Union(literals(TEXT_INPUT_STYLES), { description: '`short`: one line; `paragraph`: several' }),
    label: Type.String({ minLength: 1, maxLength: MODAL_LIMITS.label }),
    minLength: Type.Optional(Type.Integer({ minimum: 0, maximum: MODAL_LIMITS.value })),
    maxLength: Type.Optional(Type.Integer({ minimum: 1, maximum: MODAL_LIMITS.value, description: `default ${MODAL_LIMITS.value}` })),
    required: Type.Optional(Type.Boolean({ description: "default true (Discord's)" })),
    value: Type.Optional(Type.String({ maxLength: MODAL_LIMITS.value, description: 'filled in at first' })),
    placeholder: Type.Optional(Type.String({ maxLength: MODAL_LIMITS.placeholder })),
  },
  { $id: 'TextInput', title: 'TextInput', description: 'a text field of a modal' },
);

/** A bot's form: its answer to a command or a click, shown to the invoker alone, whose submit is a `modalSubmit` interaction. */
export const Modal = Type.Object(
  {
    customId: Type.String({ minLength: 1, maxLength: MODAL_LIMITS.customId, description: "the submit interaction's `customId`" }),
    title: Type.String({ minLength: 1, maxLength: MODAL_LIMITS.title }),
    components: Type.Array(
      Type.Object({
        type: Type.Literal('row'),
        components: Type.Array(ref(TextInput), { minItems: 1, maxItems: 1 }),
      }),
      { minItems: 1, maxItems: MODAL_LIMITS.rows, description: 'rows of one text input each' },
    ),
  },
  { $id: 'Modal', title: 'Modal', description: 'a form of up to 5 text inputs' },
);

/** One submitted text input. */
export const ModalField = Type.Object(
  {
    customId: Type.String({ minLength: 1, maxLength: MODAL_LIMITS.customId }),
    value: Type.String({ maxLength: MODAL_LIMITS.value }),
  },
  { $id: 'ModalField', title: 'ModalField', description: "a text input's submitted value" },
);

/** What a message carries about the interaction that made it. */
export const MessageInteraction = Type.Object(
  {
    id: Id,
    type: Type.Union(literals(INTERACTION_TYPES), {
      description: 'what the person did: a command, a click on a component, or a modal submitted',
    }),
    name: Type.String({ description: "the command's name; for a component, its customId" }),
    commandType: Type.Optional(
      Type.Union([Type.Literal('user'), Type.Literal('message')], {
        description: 'a user or message command (or a modal shown for one): clients show its name without a slash',
      }),
    ),
    user: ref(PublicUser),
  },
  { $id: 'MessageInteraction', title: 'MessageInteraction', description: 'the interaction a message answers, and who made it' },
);

// ---------------------------------------------------------------- commands (docs/commands.md)

export const CommandOptionType = Type.Union(literals(COMMAND_OPTION_TYPES), {
  description: "the value's type: a string, an integer, a number, a boolean, or the id (a string) of a user, channel, role or upload URL",
});

export const CommandChoice = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: COMMAND_LIMITS.choiceName, description: 'what the person sees' }),
    value: Type.Union([Type.String({ maxLength: COMMAND_LIMITS.choiceValue }), Type.Number()], {
      description: "what the bot receives; of the option's type",
    }),
  },
  { $id: 'CommandChoice', title: 'CommandChoice', description: 'a fixed choice of an option, or an autocomplete suggestion' },
);

/** The value types alone: what an interaction's `optionTypes` can say. */
export const CommandValueType = Type.Union(literals(COMMAND_VALUE_TYPES));

/** An option as TypeScript sees it: `options` only on a subcommand or group (nested as Discord nests them). */
export type CommandOptionShape = {
  type: Static<typeof CommandOptionType>;
  name: string;
  description: string;
  required?: boolean;
  choices?: Static<typeof CommandChoice>[];
  autocomplete?: boolean;
  minValue?: number;
  maxValue?: number;
  minLength?: number;
  maxLength?: number;
  options?: CommandOptionShape[];
};

export const CommandOption = Type.Object(
  {
    type: CommandOptionType,
    name: Type.String({ minLength: 1, maxLength: COMMAND_LIMITS.name, description: 'lower case, 1 to 32 letters, digits, - or _' }),
    description: Type.String({ minLength: 1, maxLength: COMMAND_LIMITS.description }),
    required: Type.Optional(Type.Boolean({ description: 'default false; required options come first' })),
    choices: Type.Optional(
      Type.Array(ref(CommandChoice), {
        maxItems: COMMAND_LIMITS.choices,
        description: 'string, integer and number options: the only values accepted',
      }),
    ),
    autocomplete: Type.Optional(
      Type.Boolean({ description: 'string, integer and number options without choices: the bot suggests values as the person types' }),
    ),
    minValue: Type.Optional(Type.Number({ description: 'integer and number options' })),
    maxValue: Type.Optional(Type.Number({ description: 'integer and number options' })),
    minLength: Type.Optional(Type.Integer({ minimum: 0, maximum: COMMAND_LIMITS.stringValue, description: 'string options' })),
    maxLength: Type.Optional(Type.Integer({ minimum: 1, maximum: COMMAND_LIMITS.stringValue, description: 'string options' })),
    options: Type.Optional(
      Type.Unsafe<CommandOptionShape[]>({
        type: 'array',
        items: { $ref: 'CommandOption#' },
        maxItems: COMMAND_LIMITS.options,
        description: "a subcommand's options (value types), or a group's subcommands",
      }),
    ),
  },
  { $id: 'CommandOption', title: 'CommandOption', description: "one of a command's options, a subcommand or a subcommand group" },
);

/** Discord's per-locale texts of a command's name or description (locale → text), kept and returned as given. */
export const CommandLocalizations = Type.Record(
  Type.String({ pattern: '^[a-z]{2,3}(-[A-Za-z0-9]{2,3})?$' }),
  Type.String({ minLength: 1, maxLength: COMMAND_LIMITS.description }),
  { maxProperties: 50, description: 'by locale (en-US, fr, pt-BR, ...): the text shown to people using that locale' },
);

/** Discord's interaction contexts (0 a server, 1 a DM with the bot, 2 another DM) a command is for; kept and returned, null: not said. */
export const CommandContexts = Type.Array(Type.Integer({ minimum: 0, maximum: 2 }), { maxItems: 3 });

/** Discord's installation contexts (0 server install, 1 user install); kept and returned, null: not said. */
export const CommandIntegrationTypes = Type.Array(Type.Integer({ minimum: 0, maximum: 1 }), { maxItems: 2 });

export const Command = Type.Object(
  {
    id: Id,
    botId: Id,
    serverId: Nullable(Id, { description: 'the server it is registered for; null: global (every server of the bot, and DMs with it)' }),
    type: Type.Union(literals(COMMAND_TYPES), {
      description: '`chat`: from the message box; `user` / `message`: from the "Apps" menu of a member or a message',
    }),
    name: Type.String({
      description:
        '`chat`: lower case, 1 to 32 letters, digits, - or _; `user` / `message`: 1 to 32 characters, any case, spaces allowed. Unique per bot, scope and type',
    }),
    description: Type.String({ description: 'empty for `user` and `message` commands' }),
    options: Type.Array(ref(CommandOption)),
    defaultMemberPermissions: Nullable(PermissionBits, {
      description: 'members need all of these permissions (besides USE_APPLICATION_COMMANDS) to see and use it; null: everyone',
    }),
    nameLocalizations: Type.Optional(Nullable(CommandLocalizations)),
    descriptionLocalizations: Type.Optional(Nullable(CommandLocalizations)),
    contexts: Type.Optional(
      Nullable(CommandContexts, { description: "Discord's contexts, kept as registered; Parley offers a command where its scope says" }),
    ),
    integrationTypes: Type.Optional(Nullable(CommandIntegrationTypes, { description: "Discord's integration types, kept as registered" })),
    bot: Type.Optional(ref(PublicUser)),
    createdAt: Timestamp,
  },
  {
    $id: 'Command',
    title: 'Command',
    description: "a bot's command; `bot` is present where commands of several bots are listed (GET /channels/{channelId}/commands)",
  },
);

/** Option values as an interaction carries them: by option name. */
export const CommandOptionValues = Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean()]), {
  description: 'option name → value (users, channels, roles: their id; attachments: the upload URL)',
});

/** The server of a channel's content: null in a direct message. */
export const ServerRef = Nullable(Id, { description: "the channel's server; null in a direct message" });

const messageProperties = {
  id: Id,
  channelId: Id,
  serverId: ServerRef,
  author: ref(PublicUser),
  content: Type.String({ maxLength: CONTENT_MAX }),
  attachments: Type.Array(ref(Attachment)),
  embeds: Type.Array(ref(Embed)),
  reactions: Type.Array(ref(Reaction)),
  webhookId: Type.Optional(Type.String({ description: 'present only on webhook messages' })),
  type: Type.Optional(
    Type.Literal('join', { description: 'present only on system messages: `join`, a welcome line for its author, who just joined' }),
  ),
  createdAt: Timestamp,
  editedAt: Nullable(Timestamp),
  mentions: Type.Array(ref(PublicUser), { description: 'the users it mentions (and pings)' }),
  mentionRoles: Type.Array(Id, { description: 'the roles it pings' }),
  mentionEveryone: Type.Boolean({ description: '`@everyone` or `@here` pings' }),
  pinned: Type.Boolean(),
  messageReference: Type.Optional(
    Type.Object({ messageId: Id, channelId: Id, serverId: ServerRef }, { description: 'present on replies: the message replied to' }),
  ),
  components: Type.Optional(
    Type.Array(ref(ActionRow), {
      maxItems: COMPONENT_LIMITS.rows,
      description: 'rows of buttons and selects (bot, webhook and interaction messages); absent when it has none',
    }),
  ),
  interaction: Type.Optional(ref(MessageInteraction)),
  loading: Type.Optional(
    Type.Literal(true, {
      description: 'a deferred answer\'s placeholder ("the bot is thinking"): its content is empty until the bot edits the original',
    }),
  ),
  ephemeral: Type.Optional(
    Type.Literal(true, {
      description: 'seen only by the person who made the interaction; never in history, search or read state',
    }),
  ),
  /** Present on a message a thread was started from: the thread (its id is the message's). */
  thread: Type.Optional(ref(Thread)),
};

/** A message replied to, as a reply carries it (without its own `referencedMessage`). */
export const ReferencedMessage = Type.Object(messageProperties, {
  $id: 'ReferencedMessage',
  title: 'ReferencedMessage',
  description: 'the message a reply answers',
});

export const Message = Type.Object(
  {
    ...messageProperties,
    referencedMessage: Type.Optional(
      Nullable(ref(ReferencedMessage), { description: 'on replies: the message replied to; null once deleted' }),
    ),
  },
  { $id: 'Message', title: 'Message', description: "a message; a webhook's carries `webhookId` and the webhook as `author`" },
);

/** A new thread as `POST /channels/{id}/threads` answers it: a forum post with its first message. */
export const CreatedThread = Type.Object(
  {
    ...Thread.properties,
    /** A forum post's first message (its id is the post's). */
    message: Type.Optional(ref(Message)),
  },
  { $id: 'CreatedThread', title: 'CreatedThread', description: 'a thread just started; a forum post carries its first `message`' },
);

/** A member as an interaction shows them: their roles, when they joined, and their permissions in the interaction's channel. */
export const InteractionMember = Type.Object(
  {
    roles: Type.Array(Id, { description: 'role ids, `@everyone` not included' }),
    joinedAt: Timestamp,
    permissions: Type.Optional(PermissionBits),
  },
  {
    $id: 'InteractionMember',
    title: 'InteractionMember',
    description: "a server member in an interaction; `permissions`: theirs in the interaction's channel (the one permission function)",
  },
);

/** The objects a command's user, channel, role and attachment options name, by id (attachments: by upload URL). */
export const InteractionResolved = Type.Object(
  {
    users: Type.Optional(Type.Record(Type.String(), ref(PublicUser))),
    members: Type.Optional(Type.Record(Type.String(), ref(InteractionMember), { description: 'in a server: the users as members' })),
    channels: Type.Optional(
      Type.Record(
        Type.String(),
        Type.Object({
          id: Id,
          serverId: ServerRef,
          name: Type.String(),
          type: Type.Optional(Type.String({ description: '`text`, `category`, `dm` or `group_dm`' })),
          parentId: Type.Optional(Nullable(Id)),
          permissions: PermissionBits,
        }),
        { description: "channels both the invoker and the bot may see; `permissions`: the invoker's there" },
      ),
    ),
    roles: Type.Optional(Type.Record(Type.String(), ref(Role))),
    attachments: Type.Optional(Type.Record(Type.String(), ref(Attachment), { description: 'by upload URL, the option value' })),
    messages: Type.Optional(Type.Record(Type.String(), ref(Message), { description: "a message command's target" })),
  },
  { $id: 'InteractionResolved', title: 'InteractionResolved', description: 'what the options name, as the bot may see it' },
);

/** What a bot receives for each interaction: over the gateway (`INTERACTION_CREATE`) or as the body of a signed HTTP POST. */
export const Interaction = Type.Object(
  {
    id: Id,
    token: Type.String({ description: 'secret: answers the interaction (callback within 3 s), then follow-ups and edits for 15 min' }),
    type: Type.Union(literals(INTERACTION_TYPES)),
    botId: Id,
    channelId: Id,
    serverId: Nullable(Id, { description: 'null in a DM with the bot' }),
    thread: Type.Optional(
      Type.Object(
        {
          parentId: Id,
          type: Type.Union([Type.Literal('public_thread'), Type.Literal('private_thread')]),
          locked: Type.Boolean(),
          joined: Type.Boolean({ description: 'whether the bot joined the thread' }),
        },
        {
          description:
            "when `channelId` is a thread: its parent and kind, whether it is locked and whether the bot joined it, from which the bot's permissions there follow (docs/threads.md#permissions)",
        },
      ),
    ),
    user: ref(PublicUser),
    name: Type.Optional(Type.String({ description: 'command and autocomplete: the command' })),
    commandId: Type.Optional(Id),
    commandType: Type.Optional(Type.Union(literals(COMMAND_TYPES), { description: "command: the command's type" })),
    targetId: Type.Optional(Id),
    subcommandGroup: Type.Optional(Type.String({ description: 'command and autocomplete: the subcommand group run, if any' })),
    subcommand: Type.Optional(Type.String({ description: 'command and autocomplete: the subcommand run, if the command has subcommands' })),
    options: Type.Optional(CommandOptionValues),
    optionTypes: Type.Optional(
      Type.Record(Type.String(), CommandValueType, { description: "command and autocomplete: each given option's declared type" }),
    ),
    resolved: Type.Optional(ref(InteractionResolved)),
    member: Type.Optional(ref(InteractionMember)),
    focused: Type.Optional(Type.String({ description: 'autocomplete: the option being typed (its partial value is in `options`)' })),
    messageId: Type.Optional(Id),
    customId: Type.Optional(Type.String({ description: "component: the clicked button or the select; modalSubmit: the modal's" })),
    fields: Type.Optional(Type.Array(ref(ModalField), { description: "modalSubmit: the text inputs, in the modal's order" })),
    values: Type.Optional(Type.Array(Type.String(), { description: 'select: the chosen values' })),
    message: Type.Optional(ref(Message)),
    createdAt: Timestamp,
  },
  {
    $id: 'Interaction',
    title: 'Interaction',
    description:
      'a command, a click, an autocomplete request or a modal submitted, for its bot. `user` and `message` commands carry `targetId` (in `resolved`); a modal submitted from a click carries the clicked `message`',
  },
);

/** `POST /channels/{channelId}/interactions`: the interaction was created and sent to its bot. */
export const InteractionAccepted = Type.Object(
  {
    id: Id,
    choices: Type.Optional(
      Type.Array(ref(CommandChoice), {
        description: "autocomplete only: the bot's suggestions (empty when it gave none within 3 s)",
      }),
    ),
  },
  { $id: 'InteractionAccepted', title: 'InteractionAccepted', description: 'an interaction on its way to its bot' },
);

export const SearchResults = Type.Object(
  {
    total: Type.Integer({
      minimum: 0,
      maximum: SEARCH_LIMITS.totalMax,
      description: `how many messages match, of those the caller can read; counted up to ${groupThousands(SEARCH_LIMITS.totalMax)} (that figure means as many or more)`,
    }),
    messages: Type.Array(ref(Message), { description: 'this page of them, newest first' }),
  },
  { $id: 'SearchResults', title: 'SearchResults', description: 'a page of the messages a search found' },
);

const webhookProperties = {
  id: Id,
  serverId: Id,
  channelId: Id,
  name: Type.String(),
  avatar: Nullable(Type.String()),
  createdBy: Id,
  createdAt: Timestamp,
};

export const Webhook = Type.Object(webhookProperties, { $id: 'Webhook', title: 'Webhook', description: 'a webhook, without its token' });

export const CreatedWebhook = Type.Object(
  {
    ...webhookProperties,
    token: Type.String({ description: 'shown only here' }),
    url: Type.String({ description: 'the execution URL, token included; shown only here' }),
  },
  { $id: 'CreatedWebhook', title: 'CreatedWebhook', description: 'a new webhook, with its token and URL (shown only once)' },
);

/** A channel's notification setting; absent fields follow the server's. */
const ChannelNotify = Type.Object({ level: Type.Optional(NotifyLevel), muted: Type.Optional(Type.Boolean()) });

/** A server's notification setting, with per-channel ones. */
const ServerNotify = Type.Object({
  level: Type.Optional(NotifyLevel),
  muted: Type.Optional(Type.Boolean()),
  channels: Type.Optional(Type.Record(Type.String(), ChannelNotify)),
});

export const UserSettings = Type.Object(
  {
    allowDmsFromServerMembers: Type.Boolean({ description: 'people who share a server may open a DM (default true)' }),
    servers: Type.Record(Type.String(), ServerNotify, {
      description: 'per server id: `level` (`all`, `mentions` (the default), `none`), `muted`, and per channel id the same',
    }),
  },
  { $id: 'UserSettings', title: 'UserSettings', description: "a person's notification and privacy settings" },
);

export const DmChannel = Type.Object(
  {
    id: Id,
    type: Type.Union([Type.Literal('dm'), Type.Literal('group_dm')]),
    name: Nullable(Type.String(), { description: "a group's name; null for a DM between two" }),
    ownerId: Nullable(Id, { description: 'who created a group; null for a DM between two' }),
    recipients: Type.Array(ref(PublicUser), { description: 'everyone in it, the reader included, in the order they joined' }),
    createdAt: Timestamp,
    lastMessageId: Nullable(Id),
  },
  { $id: 'DmChannel', title: 'DmChannel', description: 'a direct message between two people, or a group of up to ten' },
);

export const Health = Type.Object(
  { status: Type.Literal('ok'), database: Type.String({ description: '"sqlite" or "postgresql"' }) },
  { $id: 'Health', title: 'Health', description: 'the service and its database answer' },
);

const CheckResult = Type.Union([Type.Literal('ok'), Type.Literal('unreachable')], {
  description: '"ok", or "unreachable" when it did not answer in time',
});

/** What /readyz checked: the database always, Redis only when REDIS_URL is set. */
export const ReadinessChecks = Type.Object(
  { database: CheckResult, redis: Type.Optional(CheckResult) },
  { $id: 'ReadinessChecks', title: 'ReadinessChecks', description: 'each dependency /readyz checked and how it answered' },
);

export const Readiness = Type.Object(
  { status: Type.Literal('ready'), checks: ref(ReadinessChecks) },
  { $id: 'Readiness', title: 'Readiness', description: 'every dependency answered: this instance can take traffic' },
);

/** The 503 of /readyz: an error body that also says which dependency failed. */
export const NotReady = Type.Object(
  { error: Type.String({ description: 'human-readable message' }), code: Type.Literal('not_ready'), checks: ref(ReadinessChecks) },
  { $id: 'NotReady', title: 'NotReady', description: 'a dependency did not answer: take this instance out of rotation' },
);

/** Every shared schema, in an order where each comes after those it references. */
export const WIRE_SCHEMAS: readonly TSchema[] = [
  PermissionName,
  ErrorResponse,
  PublicUser,
  SelfUser,
  BotSelf,
  UpdatedUser,
  AuthSession,
  Instance,
  Session,
  Bot,
  BotProfile,
  CreatedBot,
  Server,
  Overwrite,
  Role,
  ForumTag,
  Channel,
  ThreadMember,
  Thread,
  Invite,
  Member,
  Contact,
  BotMember,
  Attachment,
  Embed,
  Reaction,
  Button,
  SelectOption,
  Select,
  ActionRow,
  TextInput,
  Modal,
  ModalField,
  MessageInteraction,
  CommandChoice,
  CommandOption,
  Command,
  ReferencedMessage,
  Message,
  CreatedThread,
  InteractionMember,
  InteractionResolved,
  Interaction,
  InteractionAccepted,
  SearchResults,
  Webhook,
  CreatedWebhook,
  Health,
  ReadinessChecks,
  Readiness,
  NotReady,
  UserSettings,
  DmChannel,
  InvitePreview,
  Ban,
  AuditLogEntry,
];

// The wire types: each is its schema's static type, never written out by hand.
export type PermissionName = Static<typeof PermissionName>;
export type ErrorResponse = Static<typeof ErrorResponse>;
export type PublicUser = Static<typeof PublicUser>;
export type Contact = Static<typeof Contact>;
export type SelfUser = Static<typeof SelfUser>;
export type BotSelf = Static<typeof BotSelf>;
export type UpdatedUser = Static<typeof UpdatedUser>;
export type AuthSession = Static<typeof AuthSession>;
export type Instance = Static<typeof Instance>;
export type Session = Static<typeof Session>;
export type Bot = Static<typeof Bot>;
export type CreatedBot = Static<typeof CreatedBot>;
export type BotProfile = Static<typeof BotProfile>;
export type Server = Static<typeof Server>;
export type Channel = Static<typeof Channel>;
export type ForumTag = Static<typeof ForumTag>;
export type Thread = Static<typeof Thread>;
export type CreatedThread = Static<typeof CreatedThread>;
export type ThreadMember = Static<typeof ThreadMember>;
export type Invite = Static<typeof Invite>;
export type Member = Static<typeof Member>;
export type BotMember = Static<typeof BotMember>;
export type Attachment = Static<typeof Attachment>;
export type Embed = Static<typeof Embed>;
export type Reaction = Static<typeof Reaction>;
export type Message = Static<typeof Message>;
export type ReferencedMessage = Static<typeof ReferencedMessage>;
export type SearchResults = Static<typeof SearchResults>;
export type Webhook = Static<typeof Webhook>;
export type CreatedWebhook = Static<typeof CreatedWebhook>;
export type Health = Static<typeof Health>;
export type ReadinessChecks = Static<typeof ReadinessChecks>;
export type Readiness = Static<typeof Readiness>;
export type NotReady = Static<typeof NotReady>;
export type UserSettings = Static<typeof UserSettings>;
export type DmChannel = Static<typeof DmChannel>;
export type PresenceStatus = Static<typeof PresenceStatus>;
export type Overwrite = Static<typeof Overwrite>;
export type Role = Static<typeof Role>;
export type InvitePreview = Static<typeof InvitePreview>;
export type Ban = Static<typeof Ban>;
export type AuditLogEntry = Static<typeof AuditLogEntry>;
export type Button = Static<typeof Button>;
export type SelectOption = Static<typeof SelectOption>;
export type Select = Static<typeof Select>;
export type ActionRow = Static<typeof ActionRow>;
export type TextInput = Static<typeof TextInput>;
export type Modal = Static<typeof Modal>;
export type ModalField = Static<typeof ModalField>;
export type Component = Button | Select;
export type MessageInteraction = Static<typeof MessageInteraction>;
export type CommandOptionType = Static<typeof CommandOptionType>;
export type CommandValueType = Static<typeof CommandValueType>;
export type CommandChoice = Static<typeof CommandChoice>;
export type CommandOption = CommandOptionShape;
export type Command = Static<typeof Command>;
export type CommandOptionValues = Static<typeof CommandOptionValues>;
export type Interaction = Static<typeof Interaction>;
export type InteractionMember = Static<typeof InteractionMember>;
export type InteractionResolved = Static<typeof InteractionResolved>;
export type InteractionAccepted = Static<typeof InteractionAccepted>;
