/**
 * Discord's execute-webhook body (https://discord.com/developers/docs/resources/webhook#execute-webhook),
 * a superset of the seed format's `{ content }` (docs/webhooks.md#1-the-seed-format). Grafana, Uptime Kuma, Gitea/Forgejo and many
 * scripts send exactly this when given a Discord webhook URL.
 */
import { badRequest } from '../errors.js';
import { codePointLength, isPlainObject, optionalHttpUrl, optionalString, parseJsonField, truncate } from './text.js';
import type { ActionRow, AllowedMentions } from '@parley/protocol';
import { CONTENT_MAX, EMBED_LIMITS, USERNAME_MAX, validateEmbeds } from './types.js';
import type { Embed, WebhookPost } from './types.js';

export interface DiscordParseOptions {
  /** The multipart request carried file parts, so content and embeds may both be empty. */
  hasFiles?: boolean;
}

const DISCORD_TIMESTAMP = /<t:(-?\d{1,13})(?::([tTdDfFR]))?>/g;

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

/**
 * Replace Discord's `<t:unix:style>` timestamp markup (Uptime Kuma uses it) with a
 * readable UTC time, since Parley's Markdown has no such token. Relative (`R`) becomes
 * absolute: the message is stored, not re-rendered.
 */
export function renderDiscordTimestamps(s: string): string {
  return s.replace(DISCORD_TIMESTAMP, (token, secs: string, style: string | undefined) => {
    const d = new Date(Number(secs) * 1000);
    if (Number.isNaN(d.getTime())) return token;
    const date = `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
    const hm = `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}`;
    switch (style) {
      case 'd':
      case 'D':
        return date;
      case 't':
        return `${hm} UTC`;
      case 'T':
        return `${hm}:${pad(d.getUTCSeconds())} UTC`;
      default:
        return `${date} ${hm} UTC`;
    }
  });
}

function renderEmbedTimestamps(e: Embed): Embed {
  const out: Embed = { ...e };
  if (out.description !== undefined) {
    out.description = truncate(renderDiscordTimestamps(out.description), EMBED_LIMITS.description);
  }
  if (out.fields) {
    out.fields = out.fields.map((f) => ({ ...f, value: truncate(renderDiscordTimestamps(f.value), EMBED_LIMITS.fieldValue) }));
  }
  return out;
}

/**
 * Convert a Discord (or seed) webhook body. `content` may be absent or empty only when
 * there are embeds or (`opts.hasFiles`) file parts. `allowed_mentions` narrows what
 * pings; other unknown keys (tts, flags, thread_name, components...) are ignored.
 */
export function parseDiscordPayload(body: unknown, opts: DiscordParseOptions = {}): WebhookPost {
  if (!isPlainObject(body)) throw badRequest('body must be a JSON object');

  const rawContent = optionalString(body.content, 'content') ?? '';
  if (codePointLength(rawContent) > CONTENT_MAX) {
    throw badRequest(`content must be at most ${CONTENT_MAX} characters`);
  }
  const embeds = validateEmbeds(body.embeds).map(renderEmbedTimestamps);

  const hasText = rawContent.trim() !== '';
  if (!hasText && embeds.length === 0 && !opts.hasFiles) {
    throw badRequest('content must not be empty unless embeds or files are sent');
  }

  const post: WebhookPost = {
    content: hasText ? truncate(renderDiscordTimestamps(rawContent), CONTENT_MAX) : '',
    embeds,
  };

  // Gitea sends "username": "" when none is configured: empty means "use the webhook's name".
  const username = optionalString(body.username, 'username')?.trim();
  if (username !== undefined && username !== '') {
    if (codePointLength(username) > USERNAME_MAX) {
      throw badRequest(`username must be at most ${USERNAME_MAX} characters`);
    }
    post.username = username;
  }

  const avatarUrl = optionalHttpUrl(body.avatar_url, 'avatar_url');
  if (avatarUrl !== undefined) post.avatarUrl = avatarUrl;

  const allowed = parseAllowedMentions(body.allowed_mentions);
  if (allowed) post.allowedMentions = allowed;

  const components = parseDiscordComponents(body.components);
  if (components) post.components = components;

  return post;
}

/**
 * Discord's `components` on a webhook message: rows (type 1) of link buttons (type 2,
 * style 5), as Discord allows on webhooks no application owns; Parley's own shape (`row`,
 * `button`, `link`) is taken too. Anything interactive is refused: no bot would answer it.
 * The domain then checks them as every message's components (counts, labels, URLs).
 */
export function parseDiscordComponents(value: unknown): ActionRow[] | undefined {
  if (value === undefined || value === null) return undefined;
  const bad = (where: string, why: string) => badRequest(`components${where}: ${why}`, 'invalid_components');
  if (!Array.isArray(value)) throw bad('', 'must be an array');
  return value.map((row: unknown, r) => {
    if (!isPlainObject(row) || (row.type !== 1 && row.type !== 'row') || !Array.isArray(row.components))
      throw bad(`[${r}]`, 'must be a row of components');
    return {
      type: 'row' as const,
      components: row.components.map((c: unknown, i) => {
        const where = `[${r}].components[${i}]`;
        if (!isPlainObject(c)) throw bad(where, 'must be an object');
        const link = (c.type === 2 && c.style === 5) || (c.type === 'button' && c.style === 'link');
        if (!link) throw bad(where, 'webhook messages carry link buttons only (no bot answers their clicks)');
        if (typeof c.label !== 'string' || typeof c.url !== 'string') throw bad(where, 'a link button needs a label and a url');
        const emoji =
          typeof c.emoji === 'string' ? c.emoji : isPlainObject(c.emoji) && typeof c.emoji.name === 'string' ? c.emoji.name : undefined;
        return {
          type: 'button' as const,
          style: 'link' as const,
          label: c.label,
          url: c.url,
          ...(emoji ? { emoji } : {}),
          ...(c.disabled === true ? { disabled: true } : {}),
        };
      }),
    };
  });
}

const MENTION_KINDS = new Set(['users', 'roles', 'everyone']);

/** Discord's `allowed_mentions` (snake_case), checked as Discord checks it; null and absent are "all". */
export function parseAllowedMentions(value: unknown): AllowedMentions | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isPlainObject(value)) throw badRequest('allowed_mentions must be an object');
  const ids = (v: unknown, name: string): string[] | undefined => {
    if (v === undefined) return undefined;
    if (!Array.isArray(v) || v.length > 100 || !v.every((x) => typeof x === 'string' && x.length <= 32)) {
      throw badRequest(`allowed_mentions.${name} must be a list of at most 100 ids`);
    }
    return v as string[];
  };
  const out: AllowedMentions = {};
  if (value.parse !== undefined) {
    if (!Array.isArray(value.parse) || !value.parse.every((k) => typeof k === 'string' && MENTION_KINDS.has(k))) {
      throw badRequest('allowed_mentions.parse may hold "users", "roles" and "everyone"');
    }
    out.parse = [...new Set(value.parse as Array<'users' | 'roles' | 'everyone'>)];
  }
  const users = ids(value.users, 'users');
  if (users) out.users = users;
  const roles = ids(value.roles, 'roles');
  if (roles) out.roles = roles;
  if (value.replied_user !== undefined) {
    if (typeof value.replied_user !== 'boolean') throw badRequest('allowed_mentions.replied_user must be a boolean');
    out.repliedUser = value.replied_user;
  }
  // Discord's defaults: listing nothing at all means "parse nothing".
  if (out.parse === undefined && !users && !roles) out.parse = [];
  return out;
}

/**
 * Convert the non-file fields of a Discord `multipart/form-data` (or urlencoded) body:
 * either `payload_json` holding the whole JSON body, or plain `content`, `username`
 * and `avatar_url` fields, as Discord accepts both.
 */
export function parseDiscordForm(fields: Record<string, string | undefined>, opts: DiscordParseOptions = {}): WebhookPost {
  const payloadJson = fields.payload_json;
  if (payloadJson !== undefined) {
    return parseDiscordPayload(parseJsonField(payloadJson, 'payload_json'), opts);
  }
  const body: Record<string, unknown> = {};
  for (const key of ['content', 'username', 'avatar_url'] as const) {
    if (fields[key] !== undefined) body[key] = fields[key];
  }
  if (fields.embeds !== undefined) body.embeds = parseJsonField(fields.embeds, 'embeds');
  return parseDiscordPayload(body, opts);
}

/**
 * Discord's edit-webhook-message body: `content` and `embeds`, each optional (absent keeps
 * it) and nullable (null clears it); other keys are ignored. Both are checked as executing
 * checks them, by the same converter; whether the edited message is still not empty
 * depends on what it keeps, so the domain judges that.
 */
export function parseDiscordEdit(body: unknown): { content?: string; embeds?: Embed[] } {
  if (!isPlainObject(body)) throw badRequest('body must be a JSON object');
  const parsed = parseDiscordPayload({ content: body.content, embeds: body.embeds }, { hasFiles: true });
  return {
    ...(body.content !== undefined ? { content: parsed.content } : {}),
    ...(body.embeds !== undefined ? { embeds: parsed.embeds } : {}),
  };
}

/** The file names an embed refers to with `attachment://name`. */
export function attachmentRefs(embeds: Embed[]): string[] {
  const names = new Set<string>();
  const add = (url: string | undefined) => {
    if (url?.startsWith('attachment://')) names.add(url.slice('attachment://'.length));
  };
  for (const e of embeds) {
    add(e.image?.url);
    add(e.thumbnail?.url);
    add(e.author?.icon_url);
    add(e.footer?.icon_url);
  }
  return [...names];
}

/**
 * Swap `attachment://name` references for the URLs the uploaded file parts got.
 * A reference to a file that was not uploaded is dropped, as Discord does.
 */
export function resolveAttachmentRefs(embeds: Embed[], urlByFilename: ReadonlyMap<string, string>): Embed[] {
  const resolve = (url: string): string | undefined =>
    url.startsWith('attachment://') ? urlByFilename.get(url.slice('attachment://'.length)) : url;
  return embeds.map((e) => {
    const out: Embed = { ...e };
    if (e.image) {
      const url = resolve(e.image.url);
      if (url === undefined) delete out.image;
      else out.image = { url };
    }
    if (e.thumbnail) {
      const url = resolve(e.thumbnail.url);
      if (url === undefined) delete out.thumbnail;
      else out.thumbnail = { url };
    }
    if (e.author?.icon_url !== undefined) {
      const { icon_url, ...rest } = e.author;
      const url = resolve(icon_url);
      out.author = url === undefined ? rest : { ...rest, icon_url: url };
    }
    if (e.footer?.icon_url !== undefined) {
      const { icon_url, ...rest } = e.footer;
      const url = resolve(icon_url);
      out.footer = url === undefined ? rest : { ...rest, icon_url: url };
    }
    return out;
  });
}
