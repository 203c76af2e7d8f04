/**
 * Plain-Markdown rendering of embeds, for clients (or storage) that only know a
 * message's `content`: each embed becomes a quoted block under the content.
 */
import { escapeMarkdown, truncate } from './text.js';
import { CONTENT_MAX } from './types.js';
import type { Embed, WebhookPost } from './types.js';

function formatTimestamp(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

/** One embed as Markdown lines (not yet quoted). */
function embedLines(e: Embed): string[] {
  const lines: string[] = [];
  if (e.author) lines.push(e.author.url ? `[${escapeMarkdown(e.author.name)}](${e.author.url})` : escapeMarkdown(e.author.name));
  if (e.title) lines.push(e.url ? `**[${escapeMarkdown(e.title)}](${e.url})**` : `**${escapeMarkdown(e.title)}**`);
  else if (e.url) lines.push(e.url);
  if (e.description) lines.push(...e.description.split('\n'));
  for (const f of e.fields ?? []) {
    const [first = '', ...rest] = f.value.split('\n');
    lines.push(`**${escapeMarkdown(f.name)}**: ${first}`, ...rest);
  }
  if (e.image) lines.push(e.image.url);
  const footer = [e.footer ? escapeMarkdown(e.footer.text) : undefined, e.timestamp ? formatTimestamp(e.timestamp) : undefined]
    .filter((x): x is string => x !== undefined)
    .join(' · ');
  if (footer) lines.push(`*${footer}*`);
  return lines;
}

/** Embeds as Markdown blockquotes separated by blank lines. */
export function renderEmbedsMarkdown(embeds: Embed[]): string {
  return embeds
    .map((e) =>
      embedLines(e)
        .map((l) => (l === '' ? '>' : `> ${l}`))
        .join('\n'),
    )
    .filter((block) => block !== '')
    .join('\n\n');
}

/** The post's content followed by its rendered embeds, cut to `max` code points. */
export function flattenPost(post: WebhookPost, max: number = CONTENT_MAX): string {
  const parts = [post.content.trim() === '' ? '' : post.content, renderEmbedsMarkdown(post.embeds)].filter((p) => p !== '');
  return truncate(parts.join('\n\n'), max);
}
