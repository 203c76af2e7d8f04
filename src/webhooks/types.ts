/**
 * The normalized shape every incoming-webhook dialect converts to, and the validation
 * of Discord-style embeds (the one rich format Parley stores).
 */
import { CONTENT_MAX, EMBED_LIMITS, type Embed } from '@parley/protocol';
import { badRequest } from '../errors.js';
import { codePointLength, isHttpUrl, isPlainObject, optionalString } from './text.js';

/** A rich embed, in Discord's shape and with Discord's limits: the wire schema's type. */
export type { Embed };
import type { ActionRow, AllowedMentions } from '@parley/protocol';
export type EmbedField = NonNullable<Embed['fields']>[number];
export type EmbedMedia = NonNullable<Embed['image']>;

/** What a dialect converter hands to the route: one message to create. */
export interface WebhookPost {
  /** Markdown; may be "" when embeds (or, for Discord, files) carry the message. */
  content: string;
  /** Per-message override of the webhook's display name. */
  username?: string;
  /** Per-message override of the webhook's avatar. */
  avatarUrl?: string;
  embeds: Embed[];
  /** Link buttons (Discord's dialect); the domain checks them as it checks every message's components. */
  components?: ActionRow[];
  /**
   * Which mentions ping (docs/api.md#messages). Discord's dialect passes `allowed_mentions`
   * on (absent: all, as on Discord); Slack's and GitHub's carry text written elsewhere (an
   * issue title, an alert), so they ping no one.
   */
  allowedMentions?: AllowedMentions;
  /** Where in a thread it goes, when the dialect says (docs/webhooks.md#threads). */
  thread?: WebhookThreadRef;
}

/**
 * A thread a dialect names: Slack's `thread_ts`, a message (or thread) id of the webhook's
 * channel whose thread the post goes to; or the GitHub dialect's topic (an issue or pull
 * request, `owner/repo#123`), whose thread, named `name`, a webhook may keep.
 */
export type WebhookThreadRef = { kind: 'message'; id: string } | { kind: 'topic'; key: string; name: string };

// The limits are the wire schema's too (the Embed and Message schemas use them).
export { CONTENT_MAX, EMBED_LIMITS };

/** Longest accepted username override. */
export const USERNAME_MAX = 80;

const ISO_8601 = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * Parse an ISO 8601 timestamp into a normalized UTC string, or undefined if it is not
 * one. A missing zone means UTC (Uptime Kuma sends "2024-05-01 12:00:00.000").
 */
export function normalizeTimestamp(s: string): string | undefined {
  const m = ISO_8601.exec(s.trim());
  if (!m) return undefined;
  const [, y, mo, d, h = '00', mi = '00', sec = '00', frac = '', zone = 'Z'] = m;
  const ms = frac === '' ? '000' : frac.slice(0, 3).padEnd(3, '0');
  const z = zone.toUpperCase() === 'Z' ? 'Z' : zone.length === 5 ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone;
  const date = new Date(`${y}-${mo}-${d}T${h}:${mi}:${sec}.${ms}${z}`);
  if (Number.isNaN(date.getTime())) return undefined;
  // Reject dates JS silently rolls over (2024-02-31 → March 2).
  if (z === 'Z' && date.getUTCDate() !== Number(d)) return undefined;
  return date.toISOString();
}

function limitedString(value: unknown, path: string, max: number): string | undefined {
  const s = optionalString(value, path);
  if (s !== undefined && codePointLength(s) > max) {
    throw badRequest(`${path} must be at most ${max} characters`);
  }
  return s;
}

function embedUrl(value: unknown, path: string, allowAttachment: boolean): string | undefined {
  const s = optionalString(value, path);
  if (s === undefined) return undefined;
  const url = s.trim();
  if (url === '') return undefined;
  // attachment://name points at a file part of the same multipart request (Grafana
  // uses it for alert images); the route swaps it for the uploaded file's URL.
  if (allowAttachment && /^attachment:\/\/[^/\s]+$/.test(url)) return url;
  if (!isHttpUrl(url)) throw badRequest(`${path} must be an http(s) URL`);
  return url;
}

function optionalObject(value: unknown, path: string): Record<string, unknown> | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isPlainObject(value)) throw badRequest(`${path} must be an object`);
  return value;
}

function media(value: unknown, path: string): EmbedMedia | undefined {
  const o = optionalObject(value, path);
  if (!o) return undefined;
  const url = embedUrl(o.url, `${path}.url`, true);
  return url === undefined ? undefined : { url };
}

function fields(value: unknown, path: string): EmbedField[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) throw badRequest(`${path} must be an array`);
  if (value.length > EMBED_LIMITS.fields) {
    throw badRequest(`${path} must have at most ${EMBED_LIMITS.fields} fields`);
  }
  const out: EmbedField[] = value.map((raw: unknown, i) => {
    const p = `${path}[${i}]`;
    if (!isPlainObject(raw)) throw badRequest(`${p} must be an object`);
    const name = limitedString(raw.name, `${p}.name`, EMBED_LIMITS.fieldName);
    const val = limitedString(raw.value, `${p}.value`, EMBED_LIMITS.fieldValue);
    if (name === undefined || name.trim() === '') throw badRequest(`${p}.name must be a non-empty string`);
    if (val === undefined || val.trim() === '') throw badRequest(`${p}.value must be a non-empty string`);
    const field: EmbedField = { name, value: val };
    if (raw.inline !== undefined && raw.inline !== null) {
      if (typeof raw.inline !== 'boolean') throw badRequest(`${p}.inline must be a boolean`);
      field.inline = raw.inline;
    }
    return field;
  });
  return out.length > 0 ? out : undefined;
}

function embedLength(e: Embed): number {
  let n = 0;
  if (e.title) n += codePointLength(e.title);
  if (e.description) n += codePointLength(e.description);
  if (e.footer) n += codePointLength(e.footer.text);
  if (e.author) n += codePointLength(e.author.name);
  for (const f of e.fields ?? []) n += codePointLength(f.name) + codePointLength(f.value);
  return n;
}

function hasVisiblePart(e: Embed): boolean {
  return (
    e.title !== undefined ||
    e.description !== undefined ||
    e.fields !== undefined ||
    e.author !== undefined ||
    e.footer !== undefined ||
    e.image !== undefined ||
    e.thumbnail !== undefined
  );
}

function validateEmbed(raw: unknown, path: string): Embed {
  if (!isPlainObject(raw)) throw badRequest(`${path} must be an object`);
  const e: Embed = {};

  const title = limitedString(raw.title, `${path}.title`, EMBED_LIMITS.title);
  if (title !== undefined) e.title = title;
  const description = limitedString(raw.description, `${path}.description`, EMBED_LIMITS.description);
  if (description !== undefined) e.description = description;
  const url = embedUrl(raw.url, `${path}.url`, false);
  if (url !== undefined) e.url = url;

  if (raw.color !== undefined && raw.color !== null) {
    const c = raw.color;
    if (typeof c !== 'number' || !Number.isInteger(c) || c < 0 || c > 0xffffff) {
      throw badRequest(`${path}.color must be an integer between 0 and 16777215`);
    }
    e.color = c;
  }

  const f = fields(raw.fields, `${path}.fields`);
  if (f) e.fields = f;

  const author = optionalObject(raw.author, `${path}.author`);
  if (author) {
    const name = limitedString(author.name, `${path}.author.name`, EMBED_LIMITS.authorName);
    const authorUrl = embedUrl(author.url, `${path}.author.url`, false);
    const icon = embedUrl(author.icon_url, `${path}.author.icon_url`, true);
    // An author without a name shows nothing on Discord; senders such as Gitea
    // serialise unset structs as {"name": ""}, so it is dropped rather than refused.
    if (name !== undefined && name.trim() !== '') {
      e.author = { name };
      if (authorUrl !== undefined) e.author.url = authorUrl;
      if (icon !== undefined) e.author.icon_url = icon;
    }
  }

  const footer = optionalObject(raw.footer, `${path}.footer`);
  if (footer) {
    const text = limitedString(footer.text, `${path}.footer.text`, EMBED_LIMITS.footerText);
    const icon = embedUrl(footer.icon_url, `${path}.footer.icon_url`, true);
    if (text !== undefined && text.trim() !== '') {
      e.footer = { text };
      if (icon !== undefined) e.footer.icon_url = icon;
    }
  }

  const ts = optionalString(raw.timestamp, `${path}.timestamp`);
  if (ts !== undefined) {
    const iso = normalizeTimestamp(ts);
    if (iso === undefined) throw badRequest(`${path}.timestamp must be an ISO 8601 timestamp`);
    e.timestamp = iso;
  }

  const image = media(raw.image, `${path}.image`);
  if (image) e.image = image;
  const thumbnail = media(raw.thumbnail, `${path}.thumbnail`);
  if (thumbnail) e.thumbnail = thumbnail;

  return e;
}

/**
 * Validate untrusted embeds against Discord's limits and return a cleaned copy holding
 * only known keys. Absent/null means none; empty strings count as absent; embeds with
 * nothing visible are dropped. Every violation is a 400 naming the field.
 */
export function validateEmbeds(x: unknown, path = 'embeds'): Embed[] {
  if (x === undefined || x === null) return [];
  if (!Array.isArray(x)) throw badRequest(`${path} must be an array`);
  if (x.length > EMBED_LIMITS.embeds) {
    throw badRequest(`${path} must have at most ${EMBED_LIMITS.embeds} items`);
  }
  const embeds = x.map((raw: unknown, i) => validateEmbed(raw, `${path}[${i}]`));
  const total = embeds.reduce((n, e) => n + embedLength(e), 0);
  if (total > EMBED_LIMITS.total) {
    throw badRequest(
      `${path} must have at most ${EMBED_LIMITS.total} characters in total across titles, descriptions, fields, footers and authors`,
    );
  }
  return embeds.filter(hasVisiblePart);
}
