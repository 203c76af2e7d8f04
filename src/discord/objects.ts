/**
 * Parley's objects as Discord's REST API and gateway show them (snake_case, numeric
 * types). Pure functions of the domain's views: the REST routes (src/discord/rest/) and the
 * Discord gateway both serialize through these, so an object looks the same on either.
 *
 * Field names follow discord-api-types (v10), whose types check them here; those imports
 * are types only, so nothing of it is loaded at run time. Ids are our snowflakes, already
 * decimal strings. What Parley does not have is sent as Discord's neutral value (no
 * discriminator: "0"; no avatar hash: null; no flags: 0).
 */
import type {
  APIActionRowComponent,
  APIApplication,
  APIAttachment,
  APIButtonComponent,
  APIChannel,
  APIComponentInMessageActionRow,
  APIDMChannel,
  APIEmbed,
  APIGroupDMChannel,
  APIGuild,
  APIGuildMember,
  APIGuildMemberNoUser,
  APIMessage,
  APIMessageInteraction,
  APIOverwrite,
  APIReaction,
  APIRole,
  APIStringSelectComponent,
  APIGuildCategoryChannel,
  APIGuildForumChannel,
  APIGuildForumTag,
  APITextChannel,
  APIThreadChannel,
  APIThreadMember,
  APIUser,
  APIWebhook,
} from 'discord-api-types/v10';
import type {
  ActionRow,
  Channel,
  Component,
  DmChannel,
  Embed,
  ForumTag,
  Member,
  Message,
  MessageInteraction,
  PublicUser,
  Role,
  Server,
  Webhook,
} from '@parley/protocol';
import type { ThreadMemberView, ThreadView } from '../domain/threads.js';
import { uploadIdOf } from '../domain/uploads.js';

/** Discord's "no flags" (0): its flag enums have no member for it. */
const NO_FLAGS = 0 as never;

/** What serializers need beyond the object: the public URL (attachment ids live in upload URLs). */
export interface DiscordView {
  publicUrl: string;
}

/** Anything with a public face: a person, a bot, a webhook as a message author. */
export type UserLike = Pick<PublicUser, 'id' | 'name' | 'bot' | 'avatar'> & { username?: string | null; displayName?: string | null };

/**
 * A user. `username` is the login name where we know it (else the shown name),
 * `global_name` the shown name. Parley's avatars are URLs, not Discord CDN hashes, so
 * `avatar` is null and the URL travels in `avatar_url` (an extension libraries ignore).
 */
export function discordUser(u: UserLike): APIUser & { avatar_url: string | null } {
  return {
    id: u.id,
    username: u.username ?? u.name,
    global_name: u.displayName ?? u.name,
    discriminator: '0',
    avatar: null,
    avatar_url: u.avatar,
    ...(u.bot ? { bot: true } : {}),
    public_flags: NO_FLAGS,
    flags: NO_FLAGS,
  };
}

/** A role; a bot's managed role names its bot in `tags.bot_id` when the caller knows it. */
export function discordRole(r: Role, botId?: string | null): APIRole {
  return {
    id: r.id,
    name: r.name,
    color: r.color,
    colors: { primary_color: r.color, secondary_color: null, tertiary_color: null },
    hoist: r.hoist,
    icon: null,
    unicode_emoji: null,
    position: r.position,
    permissions: r.permissions,
    managed: r.managed,
    mentionable: r.mentionable,
    flags: NO_FLAGS,
    ...(r.managed && botId ? { tags: { bot_id: botId } } : {}),
  };
}

/** A server as a guild; `roles` are its roles (`@everyone`'s id is the guild's). */
export function discordGuild(s: Server, roles: Role[], extra: { botRoles?: ReadonlyMap<string, string> } = {}): APIGuild {
  return {
    id: s.id,
    name: s.name,
    icon: null,
    icon_hash: null,
    splash: null,
    discovery_splash: null,
    owner_id: s.ownerId,
    region: '',
    afk_channel_id: null,
    afk_timeout: 300,
    widget_enabled: false,
    widget_channel_id: null,
    verification_level: 0,
    default_message_notifications: 1,
    explicit_content_filter: 0,
    roles: roles.map((r) => discordRole(r, extra.botRoles?.get(r.id))),
    emojis: [],
    features: [],
    mfa_level: 0,
    application_id: null,
    system_channel_id: s.systemChannelId ?? null,
    // Bit 0: SUPPRESS_JOIN_NOTIFICATIONS, the welcome lines turned off.
    system_channel_flags: (s.welcomeMessages === false ? 1 : 0) as never,
    rules_channel_id: null,
    max_presences: null,
    max_members: 250_000,
    vanity_url_code: null,
    description: s.description ?? null,
    banner: null,
    premium_tier: 0,
    premium_subscription_count: 0,
    preferred_locale: 'en-US',
    public_updates_channel_id: null,
    max_video_channel_users: 0,
    max_stage_video_channel_users: 0,
    nsfw_level: 0,
    stickers: [],
    premium_progress_bar_enabled: false,
    hub_type: null,
    safety_alerts_channel_id: null,
    incidents_data: null,
  } as APIGuild;
}

/** A guild in `GET /users/@me/guilds`: the partial object, with the caller's ownership and permissions there. */
export function discordPartialGuild(s: Server, callerId: string, permissions: bigint) {
  return {
    id: s.id,
    name: s.name,
    icon: null,
    banner: null,
    owner: s.ownerId === callerId,
    permissions: permissions.toString(),
    features: [],
  };
}

/** An overwrite: Discord's type is 0 for a role, 1 for a member. */
export function discordOverwrite(o: { id: string; type: 'role' | 'member'; allow: string; deny: string }): APIOverwrite {
  return { id: o.id, type: o.type === 'role' ? 0 : 1, allow: o.allow, deny: o.deny };
}

/** Discord's channel type of ours: 0 guild text, 4 category, 15 forum, 1 DM, 3 group DM. */
export function discordChannelType(type: string | undefined): 0 | 1 | 3 | 4 | 15 {
  if (type === 'category') return 4;
  if (type === 'forum') return 15;
  if (type === 'dm') return 1;
  if (type === 'group_dm') return 3;
  return 0;
}

/** A forum tag (Discord's `APIGuildForumTag`): Parley's tags have Unicode emoji only. */
export const discordForumTag = (t: ForumTag): APIGuildForumTag => ({
  id: t.id,
  name: t.name,
  moderated: t.moderated,
  emoji_id: null,
  emoji_name: t.emoji,
});

const SORT_ORDER = { latest_activity: 0, creation_date: 1 } as const;
const FORUM_LAYOUT = { not_set: 0, list: 1, gallery: 2 } as const;

/**
 * A server's channel: a guild text channel (type 0), a category (type 4, with no topic nor
 * messages) or a forum (type 15, with its tags and defaults; docs/threads.md#forum-channels).
 */
export function discordChannel(c: Channel): APITextChannel | APIGuildCategoryChannel | APIGuildForumChannel {
  if (c.type === 'forum')
    return {
      id: c.id,
      type: 15,
      guild_id: c.serverId,
      name: c.name,
      topic: c.topic ?? null,
      position: c.position ?? 0,
      permission_overwrites: (c.permissionOverwrites ?? []).map(discordOverwrite),
      last_message_id: c.lastMessageId ?? null,
      nsfw: false,
      rate_limit_per_user: 0,
      parent_id: c.parentId ?? null,
      flags: NO_FLAGS,
      available_tags: (c.availableTags ?? []).map(discordForumTag),
      default_auto_archive_duration: (c.defaultAutoArchiveDuration ?? 1440) as never,
      default_thread_rate_limit_per_user: 0,
      default_reaction_emoji: c.defaultReactionEmoji ? { emoji_id: null, emoji_name: c.defaultReactionEmoji } : null,
      default_sort_order: c.defaultSortOrder ? (SORT_ORDER[c.defaultSortOrder] as never) : null,
      default_forum_layout: FORUM_LAYOUT[c.defaultForumLayout ?? 'not_set'] as never,
    } as APIGuildForumChannel;
  if (c.type === 'category')
    return {
      id: c.id,
      type: 4,
      guild_id: c.serverId,
      name: c.name,
      position: c.position ?? 0,
      permission_overwrites: (c.permissionOverwrites ?? []).map(discordOverwrite),
      nsfw: false,
      parent_id: null,
      flags: NO_FLAGS,
    } as APIGuildCategoryChannel;
  return {
    id: c.id,
    type: 0,
    guild_id: c.serverId,
    name: c.name,
    topic: c.topic ?? null,
    position: c.position ?? 0,
    permission_overwrites: (c.permissionOverwrites ?? []).map(discordOverwrite),
    last_message_id: c.lastMessageId ?? null,
    nsfw: false,
    rate_limit_per_user: 0,
    parent_id: c.parentId ?? null,
    flags: NO_FLAGS,
  } as APITextChannel;
}

/** A DM (type 1) or group DM (type 3), as `viewerId` sees it: Discord lists the others only. */
export function discordDmChannel(d: DmChannel, viewerId: string): APIDMChannel | APIGroupDMChannel {
  const recipients = d.recipients.filter((r) => r.id !== viewerId).map(discordUser);
  if (d.type === 'dm') return { id: d.id, type: 1, name: null, recipients, last_message_id: d.lastMessageId, flags: NO_FLAGS };
  return {
    id: d.id,
    type: 3,
    name: d.name,
    owner_id: d.ownerId ?? undefined,
    icon: null,
    recipients,
    last_message_id: d.lastMessageId,
    flags: NO_FLAGS,
  } as APIGroupDMChannel;
}

/** Either kind of channel. */
export function discordAnyChannel(c: Channel | DmChannel, viewerId: string): APIChannel {
  return 'serverId' in c ? discordChannel(c) : discordDmChannel(c, viewerId);
}

/**
 * A member without its user (Discord's `APIGuildMemberNoUser`): the `member` of a guild
 * message's MESSAGE_CREATE / MESSAGE_UPDATE. `roles` never lists `@everyone`, as on Discord.
 */
export function discordMemberNoUser(m: Pick<Member, 'roles' | 'joinedAt'> & { nick?: string | null }): APIGuildMemberNoUser {
  return {
    nick: m.nick ?? null,
    avatar: null,
    banner: null,
    roles: m.roles,
    joined_at: m.joinedAt,
    premium_since: null,
    deaf: false,
    mute: false,
    flags: NO_FLAGS,
    pending: false,
    communication_disabled_until: null,
  };
}

/** A member; `roles` never lists `@everyone`, as on Discord. */
export function discordMember(m: Pick<Member, 'user' | 'roles' | 'joinedAt' | 'nick'> & { displayName?: string | null }): APIGuildMember {
  return { user: discordUser(m.user), ...discordMemberNoUser(m) };
}

const BUTTON_STYLE = { primary: 1, secondary: 2, success: 3, danger: 4, link: 5 } as const;

/** One component (a button, type 2; a string select, type 3). */
export function discordComponent(c: Component): APIComponentInMessageActionRow {
  if (c.type === 'button') {
    const emoji = c.emoji ? { emoji: { name: c.emoji } } : {};
    if (c.style === 'link')
      return { type: 2, style: 5, label: c.label, url: c.url ?? '', ...emoji, disabled: c.disabled ?? false } as APIButtonComponent;
    return {
      type: 2,
      style: BUTTON_STYLE[c.style],
      label: c.label,
      custom_id: c.customId ?? '',
      ...emoji,
      disabled: c.disabled ?? false,
    } as APIButtonComponent;
  }
  const select: APIStringSelectComponent = {
    type: 3,
    custom_id: c.customId,
    options: c.options.map((o) => ({
      label: o.label,
      value: o.value,
      ...(o.description !== undefined ? { description: o.description } : {}),
      ...(o.default ? { default: true } : {}),
    })),
    min_values: c.minValues ?? 1,
    max_values: c.maxValues ?? 1,
    disabled: c.disabled ?? false,
    ...(c.placeholder !== undefined ? { placeholder: c.placeholder } : {}),
  };
  return select;
}

/** Rows of components (type 1). */
export function discordComponents(rows: ActionRow[]): APIActionRowComponent<APIComponentInMessageActionRow>[] {
  return rows.map((row) => ({ type: 1, components: row.components.map(discordComponent) }));
}

/** An embed: Parley's embeds already have Discord's shape; `type` is always rich. */
export function discordEmbed(e: Embed): APIEmbed {
  return { type: 'rich' as APIEmbed['type'], ...e };
}

/** An attachment; its id is the upload's (in its URL), its proxy URL the same URL. */
export function discordAttachment(a: Message['attachments'][number], view: DiscordView): APIAttachment {
  const id = uploadIdOf(view.publicUrl, a.url) ?? '0';
  return {
    id,
    filename: a.filename,
    size: a.size,
    url: a.url,
    proxy_url: a.url,
    content_type: a.contentType,
    ...(a.width != null && a.height != null ? { width: a.width, height: a.height } : {}),
  };
}

/** A reaction: Parley's emoji are Unicode, so `emoji.id` is null. */
export function discordReaction(r: Message['reactions'][number]): APIReaction {
  return {
    count: r.count,
    count_details: { burst: 0, normal: r.count },
    me: r.me,
    me_burst: false,
    emoji: { id: null, name: r.emoji },
    burst_colors: [],
  };
}

/** Discord's interaction type of each of Parley's: 1 ping, 2 application command, 3 component, 4 autocomplete, 5 modal submit. */
export const INTERACTION_TYPE = { ping: 1, command: 2, component: 3, autocomplete: 4, modalSubmit: 5 } as const;

export function discordMessageInteraction(i: MessageInteraction): APIMessageInteraction {
  return { id: i.id, type: INTERACTION_TYPE[i.type], name: i.name, user: discordUser(i.user) };
}

/** Message flags: HAS_THREAD (32, a thread was started from it), EPHEMERAL (64), LOADING (128, a deferred answer's placeholder). */
export const MESSAGE_FLAGS = { hasThread: 1 << 5, ephemeral: 1 << 6, loading: 1 << 7 } as const;

/** Discord's message type: a slash command's answer is 20, a user or message command's 23, a reply 19, anything else 0. */
function messageType(m: Pick<Message, 'interaction' | 'messageReference' | 'type'>): 0 | 7 | 19 | 20 | 23 {
  // A welcome line: Discord's USER_JOIN.
  if (m.type === 'join') return 7;
  if (m.interaction?.type === 'command') return m.interaction.commandType ? 23 : 20;
  if (m.messageReference) return 19;
  return 0;
}

type ReferencedMessage = Exclude<Message['referencedMessage'], null | undefined>;

export interface MessageExtras {
  /**
   * The author as a member of the guild: Discord sends it on a guild message's MESSAGE_CREATE
   * and MESSAGE_UPDATE only, never on REST message objects (nor a webhook's or an ephemeral
   * message).
   */
  member?: APIGuildMemberNoUser;
  /** Echoed back from the create request, as Discord does. */
  nonce?: string | number;
}

/**
 * A message. `guild_id` is present on a server's message (the gateway always sends it;
 * REST leaves it out on Discord, and libraries accept either). `application_id` names the
 * bot on messages answering an interaction (a bot's application id is its user id).
 */
export function discordMessage(m: Message | ReferencedMessage, view: DiscordView, extras: MessageExtras = {}): APIMessage {
  let flags = 0;
  if (m.ephemeral) flags |= MESSAGE_FLAGS.ephemeral;
  if (m.loading) flags |= MESSAGE_FLAGS.loading;
  if (m.thread) flags |= MESSAGE_FLAGS.hasThread;
  const out: APIMessage & { guild_id?: string; member?: MessageExtras['member'] } = {
    id: m.id,
    type: messageType(m),
    channel_id: m.channelId,
    ...(m.serverId !== null ? { guild_id: m.serverId } : {}),
    author: discordUser(m.author),
    ...(extras.member ? { member: extras.member } : {}),
    content: m.content,
    timestamp: m.createdAt,
    edited_timestamp: m.editedAt,
    tts: false,
    mention_everyone: m.mentionEveryone,
    mentions: m.mentions.map(discordUser),
    mention_roles: m.mentionRoles,
    attachments: m.attachments.map((a) => discordAttachment(a, view)),
    embeds: m.embeds.map(discordEmbed),
    ...(m.reactions.length > 0 ? { reactions: m.reactions.map(discordReaction) } : {}),
    pinned: m.pinned,
    ...(m.webhookId ? { webhook_id: m.webhookId } : {}),
    flags,
    components: m.components ? discordComponents(m.components) : [],
    ...(extras.nonce !== undefined ? { nonce: extras.nonce } : {}),
  };
  if (m.messageReference) {
    out.message_reference = {
      type: 0,
      message_id: m.messageReference.messageId,
      channel_id: m.messageReference.channelId,
      ...(m.messageReference.serverId !== null ? { guild_id: m.messageReference.serverId } : {}),
    };
  }
  // The thread started from it (docs/threads.md#the-starter-message), as Discord's `thread`.
  if (m.thread) out.thread = discordThread(m.thread);
  if ('referencedMessage' in m && m.referencedMessage !== undefined) {
    out.referenced_message = m.referencedMessage === null ? null : discordMessage(m.referencedMessage, view);
  }
  if (m.interaction) {
    // The bot that answered is the author; its application id is its user id.
    out.application_id = m.author.id;
    out.interaction = discordMessageInteraction(m.interaction);
    out.interaction_metadata = {
      id: m.interaction.id,
      type: INTERACTION_TYPE[m.interaction.type],
      user: discordUser(m.interaction.user),
      authorizing_integration_owners: {},
      ...(m.interaction.type === 'component' && m.messageReference ? { interacted_message_id: m.messageReference.messageId } : {}),
    } as APIMessage['interaction_metadata'];
  }
  return out;
}

/**
 * A webhook (type 1, incoming). The token and URL are shown only where Discord shows
 * them: to whoever holds the token already, or on creation.
 */
export function discordWebhook(w: Webhook, opts: { token?: string; creator?: UserLike; publicUrl?: string } = {}): APIWebhook {
  return {
    id: w.id,
    type: 1,
    guild_id: w.serverId,
    channel_id: w.channelId,
    name: w.name,
    avatar: null,
    application_id: null,
    ...(opts.creator ? { user: discordUser(opts.creator) } : {}),
    ...(opts.token !== undefined ? { token: opts.token } : {}),
    ...(opts.token !== undefined && opts.publicUrl ? { url: `${opts.publicUrl}/api/webhooks/${w.id}/${opts.token}` } : {}),
  } as APIWebhook;
}

/** A bot as its application: the application id is the bot's user id. */
export function discordApplication(bot: {
  id: string;
  name: string;
  avatar: string | null;
  public?: boolean;
  publicKey?: string;
  interactionsUrl?: string | null;
  owner?: UserLike | null;
}): APIApplication {
  return {
    id: bot.id,
    name: bot.name,
    icon: null,
    description: '',
    bot_public: bot.public ?? false,
    bot_require_code_grant: false,
    verify_key: bot.publicKey ?? '',
    flags: NO_FLAGS,
    flags_new: '0',
    summary: '',
    team: null,
    ...(bot.owner ? { owner: discordUser(bot.owner) } : {}),
    ...(bot.interactionsUrl ? { interactions_endpoint_url: bot.interactionsUrl } : {}),
    bot: discordUser({ id: bot.id, name: bot.name, bot: true, avatar: bot.avatar }),
  } as APIApplication;
}

/** A thread member (Discord's `APIThreadMember`). */
export function discordThreadMember(m: ThreadMemberView): APIThreadMember {
  return { id: m.threadId, user_id: m.userId, join_timestamp: m.joinTimestamp, flags: m.flags as never };
}

/** A thread (Discord's type 11 or 12 channel, with `thread_metadata`), as the caller sees it. */
export function discordThread(t: ThreadView): APIThreadChannel {
  return {
    id: t.id,
    type: t.type === 'public_thread' ? 11 : 12,
    guild_id: t.serverId,
    parent_id: t.parentId,
    owner_id: t.ownerId,
    name: t.name,
    last_message_id: t.lastMessageId,
    message_count: t.messageCount,
    total_message_sent: t.messageCount,
    member_count: t.memberCount,
    rate_limit_per_user: 0,
    flags: NO_FLAGS,
    applied_tags: t.appliedTags,
    thread_metadata: {
      archived: t.metadata.archived,
      auto_archive_duration: t.metadata.autoArchiveDuration as never,
      archive_timestamp: t.metadata.archiveTimestamp,
      locked: t.metadata.locked,
      create_timestamp: t.metadata.createTimestamp,
      ...(t.metadata.invitable !== undefined ? { invitable: t.metadata.invitable } : {}),
    },
    ...(t.member ? { member: discordThreadMember(t.member) } : {}),
  } as APIThreadChannel;
}
