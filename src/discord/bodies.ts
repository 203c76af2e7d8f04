/**
 * Discord's request bodies as the domain takes them: the inbound half of the translation
 * (objects.ts is the outbound one). Message bodies come from bots' REST calls, interaction
 * callbacks and follow-ups alike, so all of them read `content`, `embeds`,
 * `allowed_mentions`, `message_reference` and `components` here, through the converters
 * the webhook dialect already uses (src/webhooks/discord.ts) where they overlap.
 */
import type { ActionRow, AllowedMentions, Component, MessageReferenceBody } from '@parley/protocol';
import { Compile, type Validator } from 'typebox/compile';
import { badRequest } from '../errors.js';
import { parseDiscordPayload } from '../webhooks/discord.js';
import { isPlainObject } from '../webhooks/text.js';
import type { Embed } from '../webhooks/types.js';
import type { ForumSettingsBody } from '../domain/forums.js';
import type { Static } from 'typebox';
import { type DiscordOverwriteBody, DiscordMessageTop, DiscordStartThreadBody } from './schemas.js';

let topShape: Validator | undefined;
/**
 * Checks a message body's top-level fields against `DiscordMessageTop` (numbers in range,
 * at most 10 attachments), as a route's schema would: a 400 naming the first broken field.
 */
function checkMessageTop(body: Record<string, unknown>): void {
  topShape ??= Compile(DiscordMessageTop);
  if (topShape.Check(body)) return;
  const first = topShape.Errors(body)[0];
  const where = (first?.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.');
  throw badRequest(`${where || 'body'} ${first?.message ?? 'is invalid'}`);
}

/** A message to create, from Discord's create-message (or execute, or callback `data`) body. */
export interface DiscordMessageInput {
  content: string;
  embeds: Embed[];
  allowedMentions?: AllowedMentions;
  messageReference?: MessageReferenceBody;
  components?: ActionRow[];
  /** `attachments: [{id, filename?}]`: which uploaded `files[n]` (by `id` = n) the message keeps, under what name. */
  attachments?: Array<{ id: string; filename?: string }>;
  /** Discord echoes it back on the created message. */
  nonce?: string | number;
  /** `flags`: only EPHEMERAL (64) means anything here (interaction answers); SUPPRESS_EMBEDS and the rest are ignored. */
  flags: number;
}

/** A message edit: each part absent keeps it, null or [] clears it. */
export interface DiscordMessageEdit {
  content?: string;
  embeds?: Embed[];
  components?: ActionRow[];
  attachments?: Array<{ id: string; filename?: string }>;
}

const STYLE = { 1: 'primary', 2: 'secondary', 3: 'success', 4: 'danger', 5: 'link' } as const;

const badComponents = (where: string, why: string) => badRequest(`components${where}: ${why}`, 'invalid_components');

/** An emoji as Discord sends it (`{name}` or, from Parley's own shape, a string); custom emoji have no Parley equivalent. */
function emojiOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (isPlainObject(value) && typeof value.name === 'string' && (value.id === undefined || value.id === null)) return value.name;
  return undefined;
}

function componentOf(c: unknown, where: string): Component {
  if (!isPlainObject(c)) throw badComponents(where, 'must be an object');
  if (c.type === 2) {
    const style = STYLE[c.style as keyof typeof STYLE];
    if (!style) throw badComponents(where, 'style must be 1 to 5 (premium buttons are not supported)');
    const emoji = emojiOf(c.emoji);
    const label = typeof c.label === 'string' && c.label !== '' ? c.label : (emoji ?? '');
    return {
      type: 'button',
      style,
      label,
      ...(style === 'link'
        ? { url: typeof c.url === 'string' ? c.url : '' }
        : { customId: typeof c.custom_id === 'string' ? c.custom_id : '' }),
      ...(emoji !== undefined ? { emoji } : {}),
      ...(c.disabled === true ? { disabled: true } : {}),
    } as Component;
  }
  if (c.type === 3) {
    if (!Array.isArray(c.options)) throw badComponents(where, 'a string select needs options');
    return {
      type: 'select',
      customId: typeof c.custom_id === 'string' ? c.custom_id : '',
      options: c.options.map((o: unknown, i) => {
        if (!isPlainObject(o) || typeof o.label !== 'string' || typeof o.value !== 'string')
          throw badComponents(`${where}.options[${i}]`, 'needs a label and a value');
        return {
          label: o.label,
          value: o.value,
          ...(typeof o.description === 'string' ? { description: o.description } : {}),
          ...(o.default === true ? { default: true } : {}),
        };
      }),
      ...(typeof c.placeholder === 'string' ? { placeholder: c.placeholder } : {}),
      ...(typeof c.min_values === 'number' ? { minValues: c.min_values } : {}),
      ...(typeof c.max_values === 'number' ? { maxValues: c.max_values } : {}),
      ...(c.disabled === true ? { disabled: true } : {}),
    };
  }
  throw badComponents(where, 'only buttons (type 2) and string selects (type 3) are supported');
}

/**
 * Discord's `components` (rows of type 1 holding buttons and string selects) in Parley's
 * shape; the domain then checks them as every message's (`checkComponents`). Null and
 * absent are "no change" for an edit and "none" for a new message; `[]` removes them.
 */
export function componentsFromDiscord(value: unknown): ActionRow[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) throw badComponents('', 'must be an array');
  return value.map((row: unknown, r) => {
    if (!isPlainObject(row) || row.type !== 1 || !Array.isArray(row.components))
      throw badComponents(`[${r}]`, 'must be an action row (type 1)');
    return { type: 'row' as const, components: row.components.map((c, i) => componentOf(c, `[${r}].components[${i}]`)) };
  });
}

/** `message_reference: {message_id, channel_id?, guild_id?, fail_if_not_exists?}` (type 0, a reply; forwards are not supported). */
export function referenceFromDiscord(value: unknown): MessageReferenceBody | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isPlainObject(value) || typeof value.message_id !== 'string') throw badRequest('message_reference.message_id is required');
  if (value.type !== undefined && value.type !== 0) throw badRequest('message_reference.type: only replies (0) are supported');
  return {
    messageId: value.message_id,
    ...(typeof value.channel_id === 'string' ? { channelId: value.channel_id } : {}),
    ...(typeof value.fail_if_not_exists === 'boolean' ? { failIfNotExists: value.fail_if_not_exists } : {}),
  };
}

function attachmentsFromDiscord(value: unknown): Array<{ id: string; filename?: string }> | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) throw badRequest('attachments must be an array');
  return value.map((a: unknown, i) => {
    if (!isPlainObject(a) || (typeof a.id !== 'string' && typeof a.id !== 'number')) throw badRequest(`attachments[${i}].id is required`);
    return { id: String(a.id), ...(typeof a.filename === 'string' ? { filename: a.filename } : {}) };
  });
}

/**
 * Discord's create-message body. `hasFiles`: the multipart request carried `files[n]`,
 * so content and embeds may both be empty. Stickers, polls, TTS and forwards are not
 * Parley's and are ignored, as other unknown keys are.
 */
export function messageFromDiscord(body: unknown, opts: { hasFiles?: boolean } = {}): DiscordMessageInput {
  if (!isPlainObject(body)) throw badRequest('body must be a JSON object');
  checkMessageTop(body);
  const components = componentsFromDiscord(body.components);
  // Content, embeds and allowed_mentions are read as an executed webhook's are.
  const base = parseDiscordPayload(
    { content: body.content, embeds: body.embeds, allowed_mentions: body.allowed_mentions },
    { hasFiles: opts.hasFiles === true || (components !== undefined && components.length > 0) },
  );
  const nonce = typeof body.nonce === 'string' || typeof body.nonce === 'number' ? body.nonce : undefined;
  const reference = referenceFromDiscord(body.message_reference);
  const attachments = attachmentsFromDiscord(body.attachments);
  return {
    content: base.content,
    embeds: base.embeds,
    ...(base.allowedMentions ? { allowedMentions: base.allowedMentions } : {}),
    ...(reference ? { messageReference: reference } : {}),
    ...(components ? { components } : {}),
    ...(attachments ? { attachments } : {}),
    ...(nonce !== undefined ? { nonce } : {}),
    flags: typeof body.flags === 'number' ? body.flags : 0,
  };
}

/** Discord's edit-message body: `content`, `embeds`, `components`, `attachments` (the files to keep). */
export function editFromDiscord(body: unknown): DiscordMessageEdit {
  if (!isPlainObject(body)) throw badRequest('body must be a JSON object');
  checkMessageTop(body);
  const parsed = parseDiscordPayload({ content: body.content ?? '', embeds: body.embeds }, { hasFiles: true });
  const components = body.components === null ? [] : componentsFromDiscord(body.components);
  const attachments = attachmentsFromDiscord(body.attachments);
  return {
    ...(body.content !== undefined ? { content: body.content === null ? '' : parsed.content } : {}),
    ...(body.embeds !== undefined ? { embeds: body.embeds === null ? [] : parsed.embeds } : {}),
    ...(components !== undefined ? { components } : {}),
    ...(attachments !== undefined ? { attachments } : {}),
  };
}

/** An overwrite as Discord's routes take it (schema-checked: `DiscordOverwriteBody`). */
type DiscordOverwrite = Static<typeof DiscordOverwriteBody>;

/** Parley's overwrite from Discord's: `type` 0/"0"/"role" a role, else a member; bitfields as decimal strings. */
export function overwriteFromDiscord(body: DiscordOverwrite): { type: 'role' | 'member'; allow?: string; deny?: string } {
  const type = body.type === 0 || body.type === '0' || body.type === 'role' ? 'role' : 'member';
  return {
    type,
    ...(body.allow != null ? { allow: String(body.allow) } : {}),
    ...(body.deny != null ? { deny: String(body.deny) } : {}),
  };
}

/** A channel's `permission_overwrites` (create and edit) as Parley's list; absent or null stays absent (no change). */
export function overwritesFromDiscord(
  value: Array<DiscordOverwrite & { id: string }> | null | undefined,
): Array<{ id: string; type: 'role' | 'member'; allow?: string; deny?: string }> | undefined {
  if (value == null) return undefined;
  return value.map((o) => ({ id: o.id, ...overwriteFromDiscord(o) }));
}

/** A forum's fields as Discord's channel create and PATCH carry them (null or absent: no change). */
interface DiscordForumFields {
  available_tags?: Array<{
    id?: string | null;
    name: string;
    moderated?: boolean | null;
    emoji_id?: string | null;
    emoji_name?: string | null;
  }> | null;
  default_auto_archive_duration?: number | null;
  default_sort_order?: number | null;
  default_forum_layout?: number | null;
  default_reaction_emoji?: { emoji_id?: string | null; emoji_name?: string | null } | null;
}

/**
 * A forum's settings from Discord's fields (docs/threads.md#forum-channels): tags with their
 * `emoji_name` (a custom emoji's `emoji_id` is refused: Parley has none), sort order 0/1,
 * layout 0/1/2. `default_reaction_emoji: null` clears it.
 */
export function forumFromDiscord(body: DiscordForumFields): ForumSettingsBody {
  const custom = (e: { emoji_id?: string | null } | null | undefined, what: string) => {
    if (e?.emoji_id != null) throw badRequest(`${what}.emoji_id: custom emoji are not supported, give emoji_name`);
  };
  const tags = body.available_tags?.map((t, i) => {
    custom(t, `available_tags[${i}]`);
    return {
      ...(t.id != null ? { id: t.id } : {}),
      name: t.name,
      moderated: t.moderated === true,
      emoji: t.emoji_name ?? null,
    };
  });
  custom(body.default_reaction_emoji, 'default_reaction_emoji');
  const SORT = ['latest_activity', 'creation_date'] as const;
  const LAYOUT = ['not_set', 'list', 'gallery'] as const;
  return {
    ...(tags ? { availableTags: tags } : {}),
    ...(body.default_auto_archive_duration != null ? { defaultAutoArchiveDuration: body.default_auto_archive_duration } : {}),
    ...(body.default_sort_order != null ? { defaultSortOrder: SORT[body.default_sort_order]! } : {}),
    ...(body.default_forum_layout != null ? { defaultForumLayout: LAYOUT[body.default_forum_layout]! } : {}),
    ...(body.default_reaction_emoji !== undefined ? { defaultReactionEmoji: body.default_reaction_emoji?.emoji_name ?? null } : {}),
  };
}

let threadShape: Validator | undefined;

/** A thread start as Discord's `POST /channels/{id}/threads` carries it: its fields, and a forum post's first message. */
export interface DiscordThreadStart {
  body: Static<typeof DiscordStartThreadBody>;
  message?: DiscordMessageInput;
}

/** Reads a thread start (JSON, or multipart's `payload_json`: `hasFiles`), checked as a route's schema would. */
export function threadStartFromDiscord(json: unknown, hasFiles: boolean): DiscordThreadStart {
  if (!isPlainObject(json)) throw badRequest('body must be a JSON object');
  threadShape ??= Compile(DiscordStartThreadBody);
  if (!threadShape.Check(json)) {
    const first = threadShape.Errors(json)[0];
    const missing = (first?.params as { requiredProperties?: string[] } | undefined)?.requiredProperties?.[0];
    if (missing !== undefined) throw badRequest(`${missing} is required`, 'invalid_body');
    const where = (first?.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.');
    throw badRequest(`${where || 'body'} ${first?.message ?? 'is invalid'}`, 'invalid_body');
  }
  const body = json as Static<typeof DiscordStartThreadBody>;
  const message = body.message == null ? undefined : messageFromDiscord(body.message, { hasFiles });
  return { body, ...(message ? { message } : {}) };
}
