/**
 * A small chat-flavoured Markdown parser producing a plain tree (no HTML strings).
 * Supported: **bold**, *italic* or _italic_, __underline__, ~~strike~~, ||spoiler||,
 * `code`, fenced code blocks, [links](url), bare and <autolinks>, > quotes (and >>>),
 * - / 1. lists, # headings, --- rules and backslash escapes. Single newlines are line
 * breaks, as people expect in chat. Raw HTML is never interpreted: it stays text.
 *
 * Pure TypeScript with no DOM or React dependency so it can be unit tested in Node.
 */

export type Inline =
  | { type: 'text'; value: string }
  | { type: 'br' }
  | { type: 'code'; value: string }
  | { type: 'strong' | 'em' | 'u' | 'del' | 'spoiler'; children: Inline[] }
  | { type: 'link'; href: string; children: Inline[] };

export type Block =
  | { type: 'paragraph'; children: Inline[] }
  | { type: 'heading'; level: 1 | 2 | 3; children: Inline[] }
  | { type: 'codeblock'; lang: string; value: string }
  | { type: 'quote'; children: Block[] }
  | { type: 'list'; ordered: boolean; start: number; items: Block[][] }
  | { type: 'hr' };

const MAX_DEPTH = 8;

/** Only these URL schemes become links or image sources. */
const LINK_PROTOCOLS = new Set(['http:', 'https:', 'mailto:']);

/** Returns a normalised absolute URL if it is http(s) or mailto, else null. */
export function safeHref(raw: string | null | undefined, allowMailto = true): string | null {
  if (typeof raw !== 'string') return null;
  const text = raw.trim();
  // Reject control characters and whitespace inside; browsers strip some of them
  // before parsing, which is how "java\tscript:" tricks work.
  if (!text || /[\u0000-\u0020\u007f-\u009f]/.test(text)) return null;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  if (!LINK_PROTOCOLS.has(url.protocol)) return null;
  if (url.protocol === 'mailto:' && !allowMailto) return null;
  return url.href;
}

/** A URL fit for an <img src>: http(s) only. */
export function safeImageSrc(raw: string | null | undefined): string | null {
  return safeHref(raw, false);
}

// ---------------------------------------------------------------------------
// Blocks

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})\s*([\w+#.-]*)\s*$/;
const HEADING = /^ {0,3}(#{1,3})\s+(.+?)\s*#*\s*$/;
const QUOTE = /^ {0,3}> ?(.*)$/;
const QUOTE_REST = /^ {0,3}>>> ?(.*)$/;
const BULLET = /^( *)([-*+•])\s+(.*)$/;
const ORDERED = /^( *)(\d{1,9})[.)]\s+(.*)$/;
const RULE = /^ {0,3}([-*_])( *\1){2,}\s*$/;

/** Parse Markdown source into blocks. */
export function parseMarkdown(source: string): Block[] {
  const lines = String(source ?? '').replace(/\r\n?/g, '\n').split('\n');
  return parseBlocks(lines, 0);
}

function parseBlocks(lines: string[], depth: number): Block[] {
  const blocks: Block[] = [];
  let para: string[] = [];
  const flush = () => {
    if (para.length) {
      blocks.push({ type: 'paragraph', children: parseInline(para.join('\n'), depth) });
      para = [];
    }
  };

  let i = 0;
  while (i < lines.length) {
    const line = lines[i] ?? '';

    const fence = FENCE_OPEN.exec(line);
    if (fence) {
      const marker = fence[1] ?? '```';
      const markerChar = marker.charAt(0);
      let end = -1;
      for (let j = i + 1; j < lines.length; j++) {
        const trimmed = (lines[j] ?? '').trim();
        if (/^(`{3,}|~{3,})$/.test(trimmed) && trimmed.charAt(0) === markerChar && trimmed.length >= marker.length) {
          end = j;
          break;
        }
      }
      if (end >= 0) {
        flush();
        blocks.push({ type: 'codeblock', lang: fence[2] ?? '', value: lines.slice(i + 1, end).join('\n') });
        i = end + 1;
        continue;
      }
      // Unclosed fence: plain text.
    }

    if (!line.trim()) {
      flush();
      i++;
      continue;
    }

    if (depth < MAX_DEPTH) {
      const rest = QUOTE_REST.exec(line);
      if (rest) {
        flush();
        const inner = [rest[1] ?? '', ...lines.slice(i + 1)];
        blocks.push({ type: 'quote', children: parseBlocks(inner, depth + 1) });
        return blocks;
      }
      if (QUOTE.test(line)) {
        flush();
        const inner: string[] = [];
        while (i < lines.length) {
          const m = QUOTE.exec(lines[i] ?? '');
          if (!m) break;
          inner.push(m[1] ?? '');
          i++;
        }
        blocks.push({ type: 'quote', children: parseBlocks(inner, depth + 1) });
        continue;
      }
    }

    const heading = HEADING.exec(line);
    if (heading) {
      flush();
      blocks.push({
        type: 'heading',
        level: (heading[1] ?? '#').length as 1 | 2 | 3,
        children: parseInline(heading[2] ?? '', depth),
      });
      i++;
      continue;
    }

    if (RULE.test(line) && !para.length) {
      blocks.push({ type: 'hr' });
      i++;
      continue;
    }

    if (depth < MAX_DEPTH && (BULLET.test(line) || ORDERED.test(line))) {
      flush();
      const { block, next } = parseList(lines, i, depth);
      blocks.push(block);
      i = next;
      continue;
    }

    para.push(line);
    i++;
  }
  flush();
  return blocks;
}

function listMarker(line: string): { indent: number; ordered: boolean; num: number; text: string } | null {
  const b = BULLET.exec(line);
  if (b) return { indent: (b[1] ?? '').length, ordered: false, num: 1, text: b[3] ?? '' };
  const o = ORDERED.exec(line);
  if (o) return { indent: (o[1] ?? '').length, ordered: true, num: Number(o[2]), text: o[3] ?? '' };
  return null;
}

/** A list starting at `start`; nested lists are lines indented further than the marker. */
function parseList(lines: string[], start: number, depth: number): { block: Block; next: number } {
  const first = listMarker(lines[start] ?? '')!;
  const items: string[][] = [];
  let i = start;
  while (i < lines.length) {
    const line = lines[i] ?? '';
    const m = listMarker(line);
    if (m && m.indent <= first.indent + 1 && m.ordered === first.ordered) {
      items.push([m.text]);
      i++;
      continue;
    }
    if (m && m.indent <= first.indent + 1) break; // a list of the other kind starts
    const indented = /^( +)(.*)$/.exec(line);
    const indent = indented?.[1]?.length ?? 0;
    const current = items[items.length - 1];
    if (current && line.trim() && indent > first.indent) {
      // Nested list or continuation line: belongs to the current item (dedented).
      current.push(line.slice(Math.min(indent, first.indent + 2)));
      i++;
      continue;
    }
    break;
  }
  return {
    block: {
      type: 'list',
      ordered: first.ordered,
      start: first.num,
      items: items.map((itemLines) => parseBlocks(itemLines, depth + 1)),
    },
    next: i,
  };
}

// ---------------------------------------------------------------------------
// Inlines

const PUNCT = /[!-/:-@[-`{-~]/;
const BARE_URL = /^(?:https?:\/\/|mailto:)[^\s<>"]+/i;

interface Delim {
  token: string;
  type: 'strong' | 'em' | 'u' | 'del' | 'spoiler';
}

// Longest first so `**` wins over `*`.
const DELIMS: Delim[] = [
  { token: '||', type: 'spoiler' },
  { token: '**', type: 'strong' },
  { token: '__', type: 'u' },
  { token: '~~', type: 'del' },
  { token: '*', type: 'em' },
  { token: '_', type: 'em' },
];

const isSpace = (c: string | undefined) => c === undefined || /\s/.test(c);
const isWord = (c: string | undefined) => c !== undefined && /[\p{L}\p{N}]/u.test(c);

/** Parse inline Markdown into nodes. */
export function parseInline(text: string, depth = 0): Inline[] {
  const out: Inline[] = [];
  let buf = '';
  const pushText = (s: string) => {
    buf += s;
  };
  const flush = () => {
    if (!buf) return;
    const parts = buf.split('\n');
    parts.forEach((p, idx) => {
      if (idx > 0) out.push({ type: 'br' });
      if (p) out.push({ type: 'text', value: p });
    });
    buf = '';
  };
  const push = (node: Inline) => {
    flush();
    out.push(node);
  };

  let i = 0;
  while (i < text.length) {
    const c = text.charAt(i);

    // Backslash escape of ASCII punctuation.
    if (c === '\\' && i + 1 < text.length && PUNCT.test(text.charAt(i + 1))) {
      pushText(text.charAt(i + 1));
      i += 2;
      continue;
    }

    // Code span: a run of backticks closed by a run of the same length.
    if (c === '`') {
      let run = 1;
      while (text[i + run] === '`') run++;
      const fence = '`'.repeat(run);
      let close = text.indexOf(fence, i + run);
      while (close >= 0 && text[close + run] === '`') {
        let r = run;
        while (text[close + r] === '`') r++;
        close = text.indexOf(fence, close + r);
      }
      if (close >= 0) {
        let value = text.slice(i + run, close);
        if (value.length > 2 && value.startsWith(' ') && value.endsWith(' ') && value.trim()) value = value.slice(1, -1);
        if (run >= 3) value = value.replace(/^[\w+#.-]*\n/, ''); // ```lang\n on one line
        push({ type: 'code', value });
        i = close + run;
        continue;
      }
      pushText(fence);
      i += run;
      continue;
    }

    // Autolink <https://...>
    if (c === '<') {
      const close = text.indexOf('>', i + 1);
      if (close > i + 1) {
        const inner = text.slice(i + 1, close);
        const href = /\s/.test(inner) ? null : safeHref(inner);
        if (href) {
          push({ type: 'link', href, children: [{ type: 'text', value: inner }] });
          i = close + 1;
          continue;
        }
      }
    }

    // [text](url)
    if (c === '[' && depth < MAX_DEPTH) {
      const link = parseLink(text, i, depth);
      if (link) {
        if (link.node) push(link.node);
        else pushText(link.literal);
        i = link.end;
        continue;
      }
    }

    // Bare URL, not in the middle of a word.
    if ((c === 'h' || c === 'H' || c === 'm' || c === 'M') && !isWord(text[i - 1])) {
      const m = BARE_URL.exec(text.slice(i, i + 2048));
      if (m) {
        let url = m[0];
        // Trailing punctuation belongs to the sentence, not the URL (keep balanced parens).
        while (/[.,:;!?'")\]*_~]$/.test(url)) {
          if (url.endsWith(')') && count(url, '(') >= count(url, ')')) break;
          url = url.slice(0, -1);
        }
        const href = safeHref(url);
        if (href && url.length > 8) {
          push({ type: 'link', href, children: [{ type: 'text', value: url }] });
          i += url.length;
          continue;
        }
      }
    }

    // Emphasis-like delimiters.
    if (depth < MAX_DEPTH && (c === '*' || c === '_' || c === '~' || c === '|')) {
      const span = parseDelimited(text, i, depth);
      if (span) {
        push(span.node);
        i = span.end;
        continue;
      }
      // Not an opener: emit the whole run literally so `**` is not re-tried as `*`.
      let run = 1;
      while (text[i + run] === c) run++;
      pushText(text.slice(i, i + run));
      i += run;
      continue;
    }

    pushText(c);
    i++;
  }
  flush();
  return out;
}

function count(s: string, ch: string): number {
  let n = 0;
  for (const c of s) if (c === ch) n++;
  return n;
}

function parseDelimited(text: string, i: number, depth: number): { node: Inline; end: number } | null {
  for (const d of DELIMS) {
    if (!text.startsWith(d.token, i)) continue;
    const after = text[i + d.token.length];
    if (isSpace(after)) continue;
    if (d.token === '_' && isWord(text[i - 1])) continue; // snake_case stays as is
    if (d.token.length === 1 && after === d.token) continue; // `**` is not `*` + `*`
    const close = findClose(text, i + d.token.length, d.token);
    if (close < 0) continue;
    let end = close;
    // `***x***` closes bold at the last `**` of the run.
    if (d.token === '**') while (text[end + 2] === '*') end++;
    const inner = text.slice(i + d.token.length, end);
    if (!inner) continue;
    return { node: { type: d.type, children: parseInline(inner, depth + 1) }, end: end + d.token.length };
  }
  return null;
}

/** Index of the closing delimiter, skipping escapes, code spans and doubled runs. */
function findClose(text: string, from: number, token: string): number {
  const single = token.length === 1;
  for (let k = from; k < text.length; k++) {
    const c = text[k];
    if (c === '\\') {
      k++;
      continue;
    }
    if (c === '`') {
      let run = 1;
      while (text[k + run] === '`') run++;
      const close = text.indexOf('`'.repeat(run), k + run);
      if (close >= 0) {
        k = close + run - 1;
        continue;
      }
      k += run - 1;
      continue;
    }
    if (!text.startsWith(token, k)) continue;
    if (single && text[k + 1] === token) {
      // Skip a doubled run (it is a different delimiter) as a unit.
      let run = 1;
      while (text[k + run] === token) run++;
      if (run % 2 === 0) {
        k += run - 1;
        continue;
      }
      // An odd run like `***` can close `*` at its last character.
      k += run - 1;
    }
    if (isSpace(text[k - 1]) || k === from) continue;
    if (token === '_' && isWord(text[k + 1])) continue;
    return k;
  }
  return -1;
}

function parseLink(
  text: string,
  i: number,
  depth: number,
): { node: Inline | null; literal: string; end: number } | null {
  // Find the matching ] with nesting.
  let level = 0;
  let close = -1;
  for (let k = i; k < text.length; k++) {
    const c = text[k];
    if (c === '\\') {
      k++;
      continue;
    }
    if (c === '\n' && text[k + 1] === '\n') break;
    if (c === '[') level++;
    else if (c === ']') {
      level--;
      if (level === 0) {
        close = k;
        break;
      }
    }
  }
  if (close < 0 || text[close + 1] !== '(') return null;
  // URL up to the matching ), allowing one level of balanced parens inside.
  let k = close + 2;
  let parens = 0;
  let urlEnd = -1;
  for (; k < text.length; k++) {
    const c = text[k];
    if (c === '\n') break;
    if (c === '(') parens++;
    else if (c === ')') {
      if (parens === 0) {
        urlEnd = k;
        break;
      }
      parens--;
    }
  }
  if (urlEnd < 0) return null;
  let target = text.slice(close + 2, urlEnd).trim();
  // Optional title: [x](url "title") — ignored.
  const titled = /^(\S+)\s+"[^"]*"$/.exec(target);
  if (titled?.[1]) target = titled[1];
  if (target.startsWith('<') && target.endsWith('>')) target = target.slice(1, -1);
  const label = text.slice(i + 1, close);
  const href = safeHref(target);
  const end = urlEnd + 1;
  if (!href || !label.trim()) {
    // Unsafe or empty: show what was written, as text.
    return { node: null, literal: text.slice(i, end), end };
  }
  const children = parseInline(label, depth + 1).filter((n) => n.type !== 'link');
  return { node: { type: 'link', href, children }, literal: '', end };
}

/** True when the text is only emoji (and whitespace): shown larger, as chat apps do. */
export function isEmojiOnly(text: string): boolean {
  const t = text.trim();
  if (!t || t.length > 64) return false;
  return /^(?:\p{Extended_Pictographic}|\p{Emoji_Component}|\u200d|\ufe0f|\s)+$/u.test(t) && !/^[\d#*\s]+$/.test(t);
}
