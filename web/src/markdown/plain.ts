/**
 * A message's text as one plain line, for previews (the line above a reply): Markdown
 * marks dropped, code kept as its text, spoilers hidden, blocks and line breaks joined by
 * spaces. Mention syntax stays as written, for the caller to name.
 */
import { parseMarkdown, type Block, type Inline } from './parse.js'; // .js: the service's tsconfig compiles this file for the unit tests too

/** What a spoiler shows in a preview: the text stays hidden there too. */
export const SPOILER_MARK = '▒▒▒▒▒';

function inlineText(nodes: Inline[], out: string[]): void {
  for (const n of nodes) {
    switch (n.type) {
      case 'text':
      case 'code':
        out.push(n.value);
        break;
      case 'br':
        out.push(' ');
        break;
      case 'spoiler':
        out.push(SPOILER_MARK);
        break;
      default:
        inlineText(n.children, out);
    }
  }
}

function blockText(blocks: Block[], out: string[]): void {
  for (const b of blocks) {
    if (out.length) out.push(' ');
    switch (b.type) {
      case 'paragraph':
      case 'heading':
        inlineText(b.children, out);
        break;
      case 'codeblock':
        out.push(b.value);
        break;
      case 'quote':
        blockText(b.children, out);
        break;
      case 'list':
        for (const item of b.items) blockText(item, out);
        break;
      default:
        break;
    }
  }
}

/** At most `max` characters of the text (previews are one line; longer input is cut first). */
export function toPlainText(source: string, max = 300): string {
  // Parsing is linear, but a preview needs only the start: cut well past what shows.
  const head = source.length > max * 4 ? source.slice(0, max * 4) : source;
  const out: string[] = [];
  blockText(parseMarkdown(head), out);
  return out.join('').replace(/\s+/g, ' ').trim().slice(0, max);
}
