/**
 * Slack / Mattermost incoming-webhook bodies (https://api.slack.com/messaging/webhooks,
 * legacy attachments and simple Block Kit), as sent by Alertmanager's slack_configs,
 * Grafana's Slack contact point, Uptime Kuma, Gitea/Forgejo and Jenkins. Slack mrkdwn is
 * rewritten to Parley Markdown; attachments become embeds.
 */
import { badRequest } from '../errors.js';
import { isPlainObject, optionalHttpUrl, optionalString, parseJsonField, truncate } from './text.js';
import { CONTENT_MAX, EMBED_LIMITS, USERNAME_MAX, validateEmbeds } from './types.js';
import type { Embed, EmbedField, WebhookPost } from './types.js';

/** Slack's named attachment colors. */
export const SLACK_COLORS: Readonly<Record<string, number>> = {
  good: 0x2eb67d,
  warning: 0xecb22e,
  danger: 0xe01e5a,
};

/** "good" | "warning" | "danger" | "#rrggbb" | "rrggbb" | "#rgb" → 24-bit color; anything else → undefined. */
export function slackColor(c: string): number | undefined {
  const named = SLACK_COLORS[c.trim().toLowerCase()];
  if (named !== undefined) return named;
  const m = /^#?([0-9a-f]{6}|[0-9a-f]{3})$/i.exec(c.trim());
  if (!m?.[1]) return undefined;
  const hex = m[1].length === 3 ? [...m[1]].map((ch) => ch + ch).join('') : m[1];
  return parseInt(hex, 16);
}

function decodeEntities(s: string): string {
  return s.replace(/&(amp|lt|gt);/g, (_, e: string) => (e === 'amp' ? '&' : e === 'lt' ? '<' : '>'));
}

function escapeLinkLabel(label: string): string {
  return label.replace(/[\\[\]]/g, (c) => `\\${c}`);
}

function linkDestination(url: string): string {
  return url.replace(/[ ()]/g, (c) => encodeURIComponent(c));
}

type Mode = 'markdown' | 'plain';

/** One `<...>` token: a link, a user/channel mention or a special command. */
function slackToken(inner: string, mode: Mode): string {
  const bar = inner.indexOf('|');
  const target = bar === -1 ? inner : inner.slice(0, bar);
  const label = bar === -1 ? undefined : decodeEntities(inner.slice(bar + 1));

  if (target.startsWith('!')) {
    const command = target.slice(1);
    if (command === 'channel' || command === 'here' || command === 'everyone') return `@${command}`;
    if (command.startsWith('subteam^')) return label ?? `@${command.slice('subteam^'.length)}`;
    // <!date^...|fallback> and anything unknown: the fallback text is what Slack shows old clients.
    return label ?? '';
  }
  if (target.startsWith('@')) return label ? (label.startsWith('@') ? label : `@${label}`) : target;
  if (target.startsWith('#')) return label ? (label.startsWith('#') ? label : `#${label}`) : target;

  const url = decodeEntities(target);
  if (mode === 'plain') return label ?? url.replace(/^mailto:/, '');
  if (label === undefined) return url.replace(/^mailto:/, '');
  return `[${escapeLinkLabel(label)}](${linkDestination(url)})`;
}

const BOLD = /(^|[^\w*\\])\*(?!\s)([^*\n]*?[^\s*\\])\*(?![\w*])/g;
const ITALIC = /(^|[^\w\\])_(?!\s)([^_\n]*?[^\s_\\])_(?!\w)/g;
const STRIKE = /(^|[^\w~\\])~(?!\s)([^~\n]*?[^\s~\\])~(?![\w~])/g;

function convert(s: string, mode: Mode): string {
  const held: string[] = [];
  const hold = (x: string) => `\u0000${held.push(x) - 1}\u0000`;
  let t = s.replace(/\u0000/g, '');

  if (mode === 'markdown') {
    // Code keeps its characters, only Slack's escaping is undone.
    t = t.replace(/```[\s\S]*?```/g, (m) => hold(decodeEntities(m)));
    t = t.replace(/`[^`\n]+`/g, (m) => hold(decodeEntities(m)));
  }
  t = t.replace(/<([^<>\s|][^<>]*)>/g, (_, inner: string) => hold(slackToken(inner, mode)));
  if (mode === 'markdown') {
    // Bare URLs are held so underscores or tildes inside them are not read as formatting.
    t = t.replace(/https?:\/\/[^\s<>\u0000]+/g, (m) => hold(decodeEntities(m)));
    t = t.replace(BOLD, '$1**$2**').replace(ITALIC, '$1*$2*').replace(STRIKE, '$1~~$2~~');
  }
  t = decodeEntities(t);
  return t.replace(/\u0000(\d+)\u0000/g, (_, i: string) => held[Number(i)] ?? '');
}

/**
 * Slack mrkdwn → Parley Markdown: `<url|label>` → `[label](url)`, `<url>` → url,
 * `<!channel>`/`<!here>` → `@channel`/`@here`, `*b*` → `**b**`, `_i_` → `*i*`,
 * `~s~` → `~~s~~`, `&amp; &lt; &gt;` decoded. Already-Markdown input (Mattermost,
 * Grafana's `**Firing**`) passes through unchanged.
 */
export function slackToMarkdown(s: string): string {
  return convert(s, 'markdown');
}

/** Slack text → plain text (for titles, names, footers): links become their labels. */
export function slackToPlain(s: string): string {
  return convert(s, 'plain');
}

/** Text of a Block Kit text object ({type: "plain_text" | "mrkdwn", text}). */
function textObject(o: unknown, path: string): string | undefined {
  if (o === undefined || o === null) return undefined;
  if (!isPlainObject(o)) throw badRequest(`${path} must be an object`);
  const text = optionalString(o.text, `${path}.text`);
  if (text === undefined) return undefined;
  return o.type === 'mrkdwn' ? slackToMarkdown(text) : text;
}

interface BlockParts {
  header?: string;
  lines: string[];
  fields: EmbedField[];
  images: string[];
  /**
   * Every displayable block as a message's lines, in the blocks' order (a header as bold
   * text, a section's fields right after its text): how top-level blocks are shown. The
   * parts above are how an attachment's blocks fill its embed.
   */
  sequence: string[];
}

/** A `text` element's style as Markdown markers, whitespace kept outside them (Markdown needs it so). */
function styled(text: string, style: unknown): string {
  if (!isPlainObject(style) || text.trim() === '') return text;
  const [, lead = '', core = '', trail = ''] = /^(\s*)([\s\S]*?)(\s*)$/.exec(text) ?? [];
  if (style.code === true) return `${lead}\`${core}\`${trail}`;
  let out = core;
  if (style.strike === true) out = `~~${out}~~`;
  if (style.italic === true) out = `*${out}*`;
  if (style.bold === true) out = `**${out}**`;
  return `${lead}${out}${trail}`;
}

/** An emoji element: its Unicode code points when Slack sends them (`unicode: "1f600"`), else `:name:`. */
function emojiElement(el: Record<string, unknown>): string {
  if (typeof el.unicode === 'string' && /^[0-9a-f]{1,6}(?:-[0-9a-f]{1,6})*$/i.test(el.unicode)) {
    try {
      return String.fromCodePoint(...el.unicode.split('-').map((h) => Number.parseInt(h, 16)));
    } catch {
      // Not a code point: fall back to the name.
    }
  }
  return typeof el.name === 'string' ? `:${el.name}:` : '';
}

/** The inline elements of a rich-text section, preformatted block or quote, as Markdown (or as they are, in code). */
function richInline(elements: unknown, path: string, code = false): string {
  if (!Array.isArray(elements)) throw badRequest(`${path}.elements must be an array`);
  return elements
    .map((el: unknown, i) => {
      const p = `${path}.elements[${i}]`;
      if (!isPlainObject(el)) throw badRequest(`${p} must be an object`);
      switch (el.type) {
        case 'text': {
          const text = optionalString(el.text, `${p}.text`) ?? '';
          return code ? text : styled(text, el.style);
        }
        case 'link': {
          const url = optionalHttpUrl(el.url, `${p}.url`);
          const label = optionalString(el.text, `${p}.text`);
          if (url === undefined) return label ?? '';
          if (code || label === undefined || label === '') return url;
          return styled(`[${escapeLinkLabel(label)}](${linkDestination(url)})`, el.style);
        }
        case 'emoji':
          return emojiElement(el);
        case 'user':
          return typeof el.user_id === 'string' ? `@${el.user_id}` : '';
        case 'usergroup':
          return typeof el.usergroup_id === 'string' ? `@${el.usergroup_id}` : '';
        case 'channel':
          return typeof el.channel_id === 'string' ? `#${el.channel_id}` : '';
        case 'broadcast':
          return typeof el.range === 'string' ? `@${el.range}` : '';
        case 'date': {
          if (typeof el.fallback === 'string') return el.fallback;
          const iso = unixToIso(el.timestamp, `${p}.timestamp`);
          return iso ?? '';
        }
        case 'color':
          return typeof el.value === 'string' ? el.value : '';
        default:
          return '';
      }
    })
    .join('');
}

/**
 * A Block Kit `rich_text` block as Markdown: sections as text, lists as `-` / `1.` items
 * (indented by their `indent`), quotes as `>` lines, preformatted text as a code block.
 */
function richTextToMarkdown(block: Record<string, unknown>, path: string): string {
  if (!Array.isArray(block.elements)) throw badRequest(`${path}.elements must be an array`);
  const out: string[] = [];
  block.elements.forEach((el: unknown, i) => {
    const p = `${path}.elements[${i}]`;
    if (!isPlainObject(el)) throw badRequest(`${p} must be an object`);
    // Lists, quotes and code blocks start on a line of their own, as Slack shows them.
    if (el.type !== 'rich_text_section' && out.length > 0 && !out[out.length - 1]!.endsWith('\n')) out.push('\n');
    switch (el.type) {
      case 'rich_text_section':
        out.push(richInline(el.elements, p));
        break;
      case 'rich_text_list': {
        if (!Array.isArray(el.elements)) throw badRequest(`${p}.elements must be an array`);
        const indent = '  '.repeat(typeof el.indent === 'number' && el.indent > 0 ? Math.min(el.indent, 8) : 0);
        const ordered = el.style === 'ordered';
        const start = typeof el.offset === 'number' ? el.offset : 0;
        const items = el.elements.map((item: unknown, j) => {
          const ip = `${p}.elements[${j}]`;
          if (!isPlainObject(item)) throw badRequest(`${ip} must be an object`);
          const text = richInline(item.elements, ip).replace(/\n/g, `\n${indent}   `);
          return `${indent}${ordered ? `${start + j + 1}.` : '-'} ${text}`;
        });
        out.push(`${items.join('\n')}\n`);
        break;
      }
      case 'rich_text_quote':
        out.push(
          `${richInline(el.elements, p)
            .split('\n')
            .map((line) => `> ${line}`)
            .join('\n')}\n`,
        );
        break;
      case 'rich_text_preformatted':
        out.push(`\`\`\`\n${richInline(el.elements, p, true).replace(/\n$/, '')}\n\`\`\`\n`);
        break;
      default:
        break;
    }
  });
  // Sections end their own lines ("…\n"); lists, quotes and code blocks need one after them.
  return out.join('').replace(/\n+$/, '');
}

/** A section field written as "*Name*\nvalue" (the usual Block Kit idiom) → embed field. */
function fieldFromMrkdwn(raw: string): EmbedField | undefined {
  const m = /^\*([^*\n]+)\*\s*\n([\s\S]+)$/.exec(raw.trim());
  if (!m?.[1] || !m[2]) return undefined;
  return {
    name: truncate(slackToPlain(m[1]), EMBED_LIMITS.fieldName),
    value: truncate(slackToMarkdown(m[2]), EMBED_LIMITS.fieldValue),
  };
}

/** The simple, displayable parts of Block Kit blocks; interactive-only blocks are skipped. */
function blocksToParts(blocks: unknown, path: string): BlockParts {
  const parts: BlockParts = { lines: [], fields: [], images: [], sequence: [] };
  if (blocks === undefined || blocks === null) return parts;
  if (!Array.isArray(blocks)) throw badRequest(`${path} must be an array`);
  blocks.forEach((block: unknown, i) => {
    const p = `${path}[${i}]`;
    if (!isPlainObject(block)) throw badRequest(`${p} must be an object`);
    switch (block.type) {
      case 'header': {
        const text = textObject(block.text, `${p}.text`);
        if (text === undefined) break;
        if (parts.header === undefined) parts.header = text;
        else parts.lines.push(`**${text}**`);
        parts.sequence.push(`**${text}**`);
        break;
      }
      case 'section': {
        const text = textObject(block.text, `${p}.text`);
        if (text !== undefined) {
          parts.lines.push(text);
          parts.sequence.push(text);
        }
        if (Array.isArray(block.fields)) {
          block.fields.forEach((f: unknown, j) => {
            const fp = `${p}.fields[${j}]`;
            if (!isPlainObject(f)) throw badRequest(`${fp} must be an object`);
            const raw = optionalString(f.text, `${fp}.text`);
            if (raw === undefined) return;
            const field = f.type === 'mrkdwn' ? fieldFromMrkdwn(raw) : undefined;
            if (field) {
              parts.fields.push(field);
              parts.sequence.push(`**${field.name}**\n${field.value}`);
            } else {
              const line = f.type === 'mrkdwn' ? slackToMarkdown(raw) : raw;
              parts.lines.push(line);
              parts.sequence.push(line);
            }
          });
        }
        break;
      }
      case 'context': {
        if (!Array.isArray(block.elements)) break;
        const texts = block.elements
          .map((el: unknown, j) => (isPlainObject(el) && el.type !== 'image' ? textObject(el, `${p}.elements[${j}]`) : undefined))
          .filter((x): x is string => x !== undefined && x !== '');
        if (texts.length > 0) {
          parts.lines.push(texts.join(' · '));
          parts.sequence.push(texts.join(' · '));
        }
        break;
      }
      case 'actions': {
        if (!Array.isArray(block.elements)) break;
        const links = block.elements.flatMap((el: unknown, j) => {
          if (!isPlainObject(el) || el.type !== 'button') return [];
          const url = optionalHttpUrl(el.url, `${p}.elements[${j}].url`);
          const label = textObject(el.text, `${p}.elements[${j}].text`);
          return url === undefined ? [] : [`[${escapeLinkLabel(label ?? url)}](${linkDestination(url)})`];
        });
        if (links.length > 0) {
          parts.lines.push(links.join(' · '));
          parts.sequence.push(links.join(' · '));
        }
        break;
      }
      case 'image': {
        const url = optionalHttpUrl(block.image_url, `${p}.image_url`);
        if (url !== undefined) parts.images.push(url);
        break;
      }
      case 'rich_text': {
        const text = richTextToMarkdown(block, p);
        if (text.trim() !== '') {
          parts.lines.push(text);
          parts.sequence.push(text);
        }
        break;
      }
      default:
        // divider, input, video, ...: nothing simple to show.
        break;
    }
  });
  return parts;
}

function unixToIso(value: unknown, path: string): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const n = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : NaN;
  const d = new Date(n * 1000);
  if (!Number.isFinite(n) || Number.isNaN(d.getTime())) {
    throw badRequest(`${path} must be a Unix timestamp`);
  }
  return d.toISOString();
}

function fieldValue(value: unknown, path: string): string | undefined {
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return optionalString(value, path);
}

interface ConvertedAttachment {
  embed: Embed;
  pretext?: string;
}

function attachmentToEmbed(a: unknown, path: string): ConvertedAttachment {
  if (!isPlainObject(a)) throw badRequest(`${path} must be an object`);
  const embed: Embed = {};
  const description: string[] = [];

  const title = optionalString(a.title, `${path}.title`);
  if (title !== undefined) embed.title = truncate(slackToPlain(title), EMBED_LIMITS.title);
  const titleLink = optionalHttpUrl(a.title_link, `${path}.title_link`);
  if (titleLink !== undefined) embed.url = titleLink;

  const authorName = optionalString(a.author_name, `${path}.author_name`);
  const authorLink = optionalHttpUrl(a.author_link, `${path}.author_link`);
  const authorIcon = optionalHttpUrl(a.author_icon, `${path}.author_icon`);
  if (authorName !== undefined && authorName.trim() !== '') {
    embed.author = { name: truncate(slackToPlain(authorName), EMBED_LIMITS.authorName) };
    if (authorLink !== undefined) embed.author.url = authorLink;
    if (authorIcon !== undefined) embed.author.icon_url = authorIcon;
  }

  const text = optionalString(a.text, `${path}.text`);
  if (text !== undefined && text.trim() !== '') description.push(slackToMarkdown(text));

  const fields: EmbedField[] = [];
  if (a.fields !== undefined && a.fields !== null) {
    if (!Array.isArray(a.fields)) throw badRequest(`${path}.fields must be an array`);
    a.fields.forEach((f: unknown, i) => {
      const p = `${path}.fields[${i}]`;
      if (!isPlainObject(f)) throw badRequest(`${p} must be an object`);
      const name = optionalString(f.title, `${p}.title`);
      const value = fieldValue(f.value, `${p}.value`);
      if (f.short !== undefined && f.short !== null && typeof f.short !== 'boolean') {
        throw badRequest(`${p}.short must be a boolean`);
      }
      if (name === undefined || name.trim() === '') {
        // Slack shows an untitled field as bare text (Jenkins sends its whole message so).
        if (value !== undefined && value.trim() !== '') description.push(slackToMarkdown(value));
        return;
      }
      const field: EmbedField = {
        name: truncate(slackToPlain(name), EMBED_LIMITS.fieldName),
        value: value !== undefined && value.trim() !== '' ? truncate(slackToMarkdown(value), EMBED_LIMITS.fieldValue) : '—',
      };
      if (f.short === true) field.inline = true;
      fields.push(field);
    });
  }

  const blocks = blocksToParts(a.blocks, `${path}.blocks`);
  if (blocks.header !== undefined) {
    if (embed.title === undefined) embed.title = truncate(blocks.header, EMBED_LIMITS.title);
    else description.push(`**${blocks.header}**`);
  }
  description.push(...blocks.lines);
  fields.push(...blocks.fields);
  if (fields.length > EMBED_LIMITS.fields) {
    throw badRequest(`${path}.fields must have at most ${EMBED_LIMITS.fields} fields`);
  }
  if (fields.length > 0) embed.fields = fields;

  const image = optionalHttpUrl(a.image_url, `${path}.image_url`) ?? blocks.images[0];
  if (image !== undefined) embed.image = { url: image };
  const thumb = optionalHttpUrl(a.thumb_url, `${path}.thumb_url`);
  if (thumb !== undefined) embed.thumbnail = { url: thumb };

  const footer = optionalString(a.footer, `${path}.footer`);
  const footerIcon = optionalHttpUrl(a.footer_icon, `${path}.footer_icon`);
  if (footer !== undefined && footer.trim() !== '') {
    embed.footer = { text: truncate(slackToPlain(footer), EMBED_LIMITS.footerText) };
    if (footerIcon !== undefined) embed.footer.icon_url = footerIcon;
  }

  const ts = unixToIso(a.ts, `${path}.ts`);
  if (ts !== undefined) embed.timestamp = ts;

  if (a.color !== undefined && a.color !== null) {
    if (typeof a.color !== 'string') throw badRequest(`${path}.color must be a string`);
    // Slack ignores colors it cannot read; so do we.
    const color = slackColor(a.color);
    if (color !== undefined) embed.color = color;
  }

  // fallback is the plain-text summary; show it only when nothing richer is there.
  const fallback = optionalString(a.fallback, `${path}.fallback`);
  const rich = embed.title !== undefined || description.length > 0 || embed.fields !== undefined || embed.image !== undefined;
  if (!rich && fallback !== undefined && fallback.trim() !== '') description.push(slackToMarkdown(fallback));

  if (description.length > 0) embed.description = truncate(description.join('\n'), EMBED_LIMITS.description);

  const converted: ConvertedAttachment = { embed };
  const pretext = optionalString(a.pretext, `${path}.pretext`);
  if (pretext !== undefined && pretext.trim() !== '') converted.pretext = slackToMarkdown(pretext);
  return converted;
}

/**
 * Convert a Slack/Mattermost incoming-webhook JSON body. `text` may be absent when
 * `blocks` or `attachments` carry the message. `channel`, `icon_emoji`, `link_names`,
 * `unfurl_links`, `mrkdwn_in` and Mattermost's `props` are ignored: a Parley webhook
 * always posts to its own channel.
 */
export function parseSlackPayload(body: unknown): WebhookPost {
  if (!isPlainObject(body)) throw badRequest('body must be a JSON object');

  const text = optionalString(body.text, 'text');
  const blocks = blocksToParts(body.blocks, 'blocks');

  if (body.attachments !== undefined && body.attachments !== null && !Array.isArray(body.attachments)) {
    throw badRequest('attachments must be an array');
  }
  const attachments = Array.isArray(body.attachments) ? body.attachments : [];
  if (attachments.length > EMBED_LIMITS.embeds) {
    throw badRequest(`attachments must have at most ${EMBED_LIMITS.embeds} items`);
  }
  const converted = attachments.map((a: unknown, i) => attachmentToEmbed(a, `attachments[${i}]`));

  // With blocks, Slack shows the blocks (in their order) and uses text only for notifications.
  const lines: string[] = [];
  if (blocks.sequence.length > 0) lines.push(...blocks.sequence);
  else if (text !== undefined && text.trim() !== '') lines.push(slackToMarkdown(text));
  for (const c of converted) if (c.pretext !== undefined) lines.push(c.pretext);

  const imageEmbeds: Embed[] = blocks.images.map((url) => ({ image: { url } }));
  const embeds = validateEmbeds([...converted.map((c) => c.embed), ...imageEmbeds], 'attachments');
  const content = truncate(lines.join('\n'), CONTENT_MAX);

  if (content.trim() === '' && embeds.length === 0) {
    throw badRequest('text must not be empty unless attachments or blocks are sent');
  }

  // Alert text written elsewhere: `<!everyone>` stays text, and nothing in it pings.
  const post: WebhookPost = { content: content.trim() === '' ? '' : content, embeds, allowedMentions: { parse: [] } };
  const username = optionalString(body.username, 'username')?.trim();
  if (username !== undefined && username !== '') post.username = truncate(username, USERNAME_MAX);
  const icon = optionalHttpUrl(body.icon_url, 'icon_url');
  if (icon !== undefined) post.avatarUrl = icon;
  const threadTs = threadOf(body.thread_ts);
  if (threadTs !== undefined) post.thread = { kind: 'message', id: threadTs };
  return post;
}

/**
 * Slack's `thread_ts`: here the id of a message of the webhook's channel (or of one of its
 * threads), whose thread the post goes to (docs/webhooks.md#threads). Parley's messages have
 * no Slack timestamps: one (`1700000000.123456`) is refused rather than posted elsewhere.
 */
function threadOf(value: unknown): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const id = typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : value;
  if (typeof id !== 'string' || !/^[0-9]{1,20}$/.test(id.trim()))
    throw badRequest("thread_ts must be the id of a message in the webhook's channel (a Parley message id, not a Slack timestamp)");
  return id.trim();
}

/** Convert a form-encoded Slack body (`payload=<json>`, as Jenkins and old scripts send). */
export function parseSlackForm(formBody: Record<string, string | undefined>): WebhookPost {
  const payload = formBody.payload;
  if (payload === undefined || payload.trim() === '') {
    throw badRequest('form body must have a "payload" field holding the JSON message');
  }
  return parseSlackPayload(parseJsonField(payload, 'payload'));
}
