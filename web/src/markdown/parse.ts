/**
 * A small chat-flavoured Markdown parser producing a plain tree (no HTML strings).
 * Supported: **bold**, *italic* or _italic_, __underline__, ~~strike~~, ||spoiler||,
 * `code`, fenced code blocks, [links](url), bare and <autolinks>, > quotes (and >>>),
 * - / 1. lists, # headings, --- rules and backslash escapes. Single newlines are line
 * breaks, as people expect in chat. Raw HTML is never interpreted: it stays text.
 *
 * Anyone can post text that every reader's client parses, so parsing takes time
 * linear in the input: no regular expression here can backtrack over unbounded input,
 * and every look-ahead ("is there a closing `*`?", "where does this `[` end?", "is
 * this URL valid?") is answered from tables built in one pass, from a bounded part
 * of the text, or by a scan that stops where an earlier, failed scan already looked
 * (see `findClose`). The output is the same as that of the original, simpler parser,
 * which re-scanned the text instead, except that an autolink cannot contain `<`.
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
  // The scheme must be one of these anyway; checking first spares a failed parse.
  if (!/^(?:https?|mailto):/i.test(text)) return null;
  const url = parseUrl(text);
  if (!url || !LINK_PROTOCOLS.has(url.protocol)) return null;
  if (url.protocol === 'mailto:' && !allowMailto) return null;
  return url.href;
}

/**
 * `new URL(text)`, or null where that throws. Anyone can make the parser try many
 * URLs, and a thrown error costs about ten times a parse, so `URL.parse` (which
 * returns null instead) is used where the platform has it. (Not `URL.canParse`:
 * Node 20 and 22's starts answering false for non-ASCII text once optimised.)
 */
function parseUrl(text: string): URL | null {
  if (typeof URL.parse === 'function') return URL.parse(text);
  try {
    return new URL(text);
  } catch {
    return null;
  }
}

/** A URL fit for an <img src>: http(s) only. */
export function safeImageSrc(raw: string | null | undefined): string | null {
  return safeHref(raw, false);
}

// ---------------------------------------------------------------------------
// Characters

const TAB = 9;
const NL = 10;
const SPACE = 32;
const QUOTE_MARK = 34; // "
const HASH = 35;
const LPAREN = 40;
const RPAREN = 41;
const STAR = 42;
const PLUS = 43;
const DASH = 45;
const DOT = 46;
const SLASH = 47;
const ZERO = 48;
const NINE = 57;
const LT = 60;
const GT = 62;
const LBRACKET = 91;
const BACKSLASH = 92;
const RBRACKET = 93;
const UNDERSCORE = 95;
const TICK = 96;
const PIPE = 124;
const TILDE = 126;
const BULLET_DOT = 0x2022; // •
const LINE_SEP = 0x2028;
const PARA_SEP = 0x2029;

const WS = /\s/;
const WORD = /[\p{L}\p{N}]/u;

// Both take a UTF-16 code unit, as the original regexes saw one; NaN (charCodeAt past
// the end) becomes U+0000, which is neither.

/** JavaScript's `\s`. */
function isWs(c: number): boolean {
  if (c < 128) return c === SPACE || (c >= TAB && c <= 13);
  return WS.test(String.fromCharCode(c));
}

/** `[\p{L}\p{N}]`: a letter or digit. */
function isWordCode(c: number): boolean {
  if (c < 128) return (c >= ZERO && c <= NINE) || ((c | 32) >= 97 && (c | 32) <= 122);
  return WORD.test(String.fromCharCode(c));
}

/** ASCII punctuation: what a backslash can escape. */
function isAsciiPunct(c: number): boolean {
  return (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126);
}

/** `.` in a regex without the s flag stops at these (\n and \r never reach a line). */
function isLineSep(c: number): boolean {
  return c === LINE_SEP || c === PARA_SEP;
}

function hasLineSep(s: string, from: number, to: number): boolean {
  for (let k = from; k < to; k++) if (isLineSep(s.charCodeAt(k))) return true;
  return false;
}

function leadingSpaces(s: string, max: number): number {
  let p = 0;
  while (p < max && s.charCodeAt(p) === SPACE) p++;
  return p;
}

// ---------------------------------------------------------------------------
// Block lines. Each matcher is a hand-written, linear equivalent of the regular
// expression named in its comment (those backtrack quadratically or worse: the
// heading one took over a minute on "# a" + 4000 spaces + "b").

interface Fence {
  marker: string;
  lang: string;
}

/** /^ {0,3}(`{3,}|~{3,})\s*([\w+#.-]*)\s*$/ */
function matchFenceOpen(line: string): Fence | null {
  const len = line.length;
  const p = leadingSpaces(line, 3);
  const ch = line.charCodeAt(p);
  if (ch !== TICK && ch !== TILDE) return null;
  let q = p;
  while (line.charCodeAt(q) === ch) q++;
  if (q - p < 3) return null;
  const marker = line.slice(p, q);
  while (q < len && isWs(line.charCodeAt(q))) q++;
  const langStart = q;
  while (q < len && isLangChar(line.charCodeAt(q))) q++;
  const lang = line.slice(langStart, q);
  while (q < len && isWs(line.charCodeAt(q))) q++;
  return q === len ? { marker, lang } : null;
}

/** [\w+#.-] */
function isLangChar(c: number): boolean {
  return (c < 128 && isWordCode(c)) || c === UNDERSCORE || c === PLUS || c === HASH || c === DOT || c === DASH;
}

/** The trimmed line is /^(`{3,}|~{3,})$/: returns its length, else 0. */
function fenceCloseLength(line: string, ch: number): number {
  const t = line.trim();
  if (t.length < 3) return 0;
  for (let k = 0; k < t.length; k++) if (t.charCodeAt(k) !== ch) return 0;
  return t.length;
}

/**
 * Where fences close, so an unclosed opener is known in O(1): for each fence
 * character, the longest closing fence at or after each line.
 */
class FenceClosers {
  private readonly longest = new Map<number, Int32Array>();

  constructor(private readonly lines: string[]) {}

  /** Index of the first line from `from` closing a fence of `marker`, or -1. */
  find(from: number, marker: string): number {
    const ch = marker.charCodeAt(0);
    const longest = this.longestFrom(ch);
    if ((longest[from] ?? 0) < marker.length) return -1;
    // A closer exists, so this walk ends at it and the caller resumes after it:
    // lines are walked once in all.
    for (let j = from; j < this.lines.length; j++) {
      if (fenceCloseLength(this.lines[j] ?? '', ch) >= marker.length) return j;
    }
    return -1;
  }

  private longestFrom(ch: number): Int32Array {
    let table = this.longest.get(ch);
    if (!table) {
      table = new Int32Array(this.lines.length + 1);
      for (let j = this.lines.length - 1; j >= 0; j--) {
        table[j] = Math.max(table[j + 1] ?? 0, fenceCloseLength(this.lines[j] ?? '', ch));
      }
      this.longest.set(ch, table);
    }
    return table;
  }
}

/** /^ {0,3}(#{1,3})\s+(.+?)\s*#*\s*$/ giving [level, content], with the regex's choices. */
function matchHeading(line: string): { level: 1 | 2 | 3; content: string } | null {
  const len = line.length;
  const p = leadingSpaces(line, 3);
  let h = p;
  while (line.charCodeAt(h) === HASH) h++;
  const level = h - p;
  if (level < 1 || level > 3) return null;
  let w = h;
  while (w < len && isWs(line.charCodeAt(w))) w++;
  if (w === h) return null;
  const lvl = level as 1 | 2 | 3;
  if (w < len) {
    // Greedy \s+ takes all the whitespace; lazy (.+?) then stops where the rest is
    // only whitespace, closing #s and whitespace (but takes at least one character).
    let tail = len;
    while (tail > w && isWs(line.charCodeAt(tail - 1))) tail--;
    while (tail > w && line.charCodeAt(tail - 1) === HASH) tail--;
    while (tail > w && isWs(line.charCodeAt(tail - 1))) tail--;
    const end = Math.max(w + 1, tail);
    // `.` cannot cross U+2028/9, and giving \s+ back only lengthens the content.
    return hasLineSep(line, w, end) ? null : { level: lvl, content: line.slice(w, end) };
  }
  // Only whitespace after the #s: \s+ gives back its last character that `.` accepts.
  for (let j = len - 1; j > h; j--) {
    if (!isLineSep(line.charCodeAt(j))) return { level: lvl, content: line.charAt(j) };
  }
  return null;
}

/** /^ {0,3}> ?(.*)$/ (or with `>>>`), giving the quoted text. */
function matchQuote(line: string, marks: number): string | null {
  const p = leadingSpaces(line, 3);
  for (let k = 0; k < marks; k++) if (line.charCodeAt(p + k) !== GT) return null;
  let q = p + marks;
  if (hasLineSep(line, q, line.length)) return null;
  if (line.charCodeAt(q) === SPACE) q++;
  return line.slice(q);
}

/** /^ {0,3}([-*_])( *\1){2,}\s*$/ */
function isRule(line: string): boolean {
  const p = leadingSpaces(line, 3);
  const ch = line.charCodeAt(p);
  if (ch !== DASH && ch !== STAR && ch !== UNDERSCORE) return false;
  let count = 1;
  let end = p + 1;
  for (let q = end; ; q++) {
    while (line.charCodeAt(q) === SPACE) q++;
    if (line.charCodeAt(q) !== ch) break;
    count++;
    end = q + 1;
  }
  if (count < 3) return false;
  for (let k = end; k < line.length; k++) if (!isWs(line.charCodeAt(k))) return false;
  return true;
}

interface ListMarker {
  indent: number;
  ordered: boolean;
  num: number;
  text: string;
}

/** /^( *)([-*+•])\s+(.*)$/, else /^( *)(\d{1,9})[.)]\s+(.*)$/ */
function listMarker(line: string): ListMarker | null {
  const len = line.length;
  const indent = leadingSpaces(line, len);
  const c = line.charCodeAt(indent);
  let q: number;
  let ordered = false;
  let num = 1;
  if (c === DASH || c === STAR || c === PLUS || c === BULLET_DOT) {
    q = indent + 1;
  } else {
    q = indent;
    while (q - indent < 10 && line.charCodeAt(q) >= ZERO && line.charCodeAt(q) <= NINE) q++;
    const digits = q - indent;
    const after = line.charCodeAt(q);
    if (digits < 1 || digits > 9 || (after !== DOT && after !== RPAREN)) return null;
    ordered = true;
    num = Number(line.slice(indent, q));
    q++;
  }
  const wsStart = q;
  while (q < len && isWs(line.charCodeAt(q))) q++;
  if (q === wsStart) return null;
  // `.*$` must reach the end; U+2028/9 inside the \s+ run are fine, later ones are not.
  if (hasLineSep(line, q, len)) return null;
  return { indent, ordered, num, text: line.slice(q) };
}

/** Length of /^( +)(.*)$/'s first group, or 0 when it does not match. */
function indentOf(line: string): number {
  return hasLineSep(line, 0, line.length) ? 0 : leadingSpaces(line, line.length);
}

// ---------------------------------------------------------------------------
// Blocks

/** Parse Markdown source into blocks. */
export function parseMarkdown(source: string): Block[] {
  const lines = String(source ?? '')
    .replace(/\r\n?/g, '\n')
    .split('\n');
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
  let closers: FenceClosers | null = null;

  let i = 0;
  while (i < lines.length) {
    const line = lines[i] ?? '';

    const fence = matchFenceOpen(line);
    if (fence) {
      closers ??= new FenceClosers(lines);
      const end = closers.find(i + 1, fence.marker);
      if (end >= 0) {
        flush();
        blocks.push({ type: 'codeblock', lang: fence.lang, value: lines.slice(i + 1, end).join('\n') });
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
      const rest = matchQuote(line, 3);
      if (rest !== null) {
        flush();
        const inner = [rest, ...lines.slice(i + 1)];
        blocks.push({ type: 'quote', children: parseBlocks(inner, depth + 1) });
        return blocks;
      }
      let quoted = matchQuote(line, 1);
      if (quoted !== null) {
        flush();
        const inner: string[] = [];
        while (quoted !== null) {
          inner.push(quoted);
          i++;
          quoted = i < lines.length ? matchQuote(lines[i] ?? '', 1) : null;
        }
        blocks.push({ type: 'quote', children: parseBlocks(inner, depth + 1) });
        continue;
      }
    }

    const heading = matchHeading(line);
    if (heading) {
      flush();
      blocks.push({ type: 'heading', level: heading.level, children: parseInline(heading.content, depth) });
      i++;
      continue;
    }

    if (!para.length && isRule(line)) {
      blocks.push({ type: 'hr' });
      i++;
      continue;
    }

    if (depth < MAX_DEPTH) {
      const first = listMarker(line);
      if (first) {
        flush();
        const { block, next } = parseList(lines, i, first, depth);
        blocks.push(block);
        i = next;
        continue;
      }
    }

    para.push(line);
    i++;
  }
  flush();
  return blocks;
}

/** A list starting at `start`; nested lists are lines indented further than the marker. */
function parseList(lines: string[], start: number, first: ListMarker, depth: number): { block: Block; next: number } {
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
    const indent = indentOf(line);
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
//
// The inline grammar is greedy and leftmost: at each position the first construct
// that fits wins, an emphasis opener takes the first acceptable closer after it, and
// the text between is parsed again on its own, as a "segment" [lo, hi) of the string
// at whose ends look-behind and look-ahead stop. Segments nest at most MAX_DEPTH deep
// and each position is visited by one segment's main loop. Every look-ahead is a table
// lookup or a closer search, and closer searches share their work (see `findClose`).

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

/** How much text after a possible bare URL's start is looked at. */
const MAX_BARE_URL = 2048;

/** Per-string tables, each built in one pass the first time it is needed. */
class InlineScanner {
  readonly text: string;
  private ticks: TickTables | null = null;
  private bracketClose: Int32Array | null = null;
  private parenClose: Int32Array | null = null;
  private urls: UrlTables | null = null;
  /** Per delimiter: the positions closer searches visited, stamped with their segment. */
  private readonly visited: (Int32Array | null)[] = DELIMS.map(() => null);

  constructor(text: string) {
    this.text = text;
  }

  /** Backtick runs; see `TickTables`. */
  tick(): TickTables {
    this.ticks ??= buildTickTables(this.text);
    return this.ticks;
  }

  /** End of the backtick run through `p`, capped at the segment end `hi`. */
  tickRunEnd(p: number, hi: number): number {
    return Math.min(this.tick().end[p] ?? p + 1, hi);
  }

  /**
   * The `]` matching the `[` at `p`, counting nested brackets, skipping backslash
   * escapes and stopping at a blank line; -1 if none. One stack pass answers every
   * `[` at once, and agrees with scanning forward from each: whether a character is
   * escaped depends only on the backslashes right before it, and a `[` only pairs
   * with brackets after it.
   */
  bracketMatch(p: number): number {
    if (!this.bracketClose) {
      const t = this.text;
      const close = new Int32Array(t.length).fill(-1);
      const open: number[] = [];
      for (let k = 0; k < t.length; k++) {
        const c = t.charCodeAt(k);
        if (c === BACKSLASH) k++;
        else if (c === NL && t.charCodeAt(k + 1) === NL) open.length = 0;
        else if (c === LBRACKET) open.push(k);
        else if (c === RBRACKET) {
          const o = open.pop();
          if (o !== undefined) close[o] = k;
        }
      }
      this.bracketClose = close;
    }
    return this.bracketClose[p] ?? -1;
  }

  /** The `)` matching the `(` at `p` on the same line (no escapes), or -1. */
  parenMatch(p: number): number {
    if (!this.parenClose) {
      const t = this.text;
      const close = new Int32Array(t.length).fill(-1);
      const open: number[] = [];
      for (let k = 0; k < t.length; k++) {
        const c = t.charCodeAt(k);
        if (c === NL) open.length = 0;
        else if (c === LPAREN) open.push(k);
        else if (c === RPAREN) {
          const o = open.pop();
          if (o !== undefined) close[o] = k;
        }
      }
      this.parenClose = close;
    }
    return this.parenClose[p] ?? -1;
  }

  /** Tables for bare URLs; see `UrlTables`. */
  url(): UrlTables {
    this.urls ??= buildUrlTables(this.text);
    return this.urls;
  }

  /**
   * Index of the closer for `DELIMS[d]` opened just before `from`, in the segment
   * ending at `hi`, or -1. Skips escapes, code spans and (for `*` and `_`) doubled runs.
   *
   * Openers without a closer would each rescan the rest of the segment, so every
   * position a search visits is stamped with the segment. A search's path from a
   * position depends only on that position, the delimiter and the segment, so a search
   * reaching a stamped position would retrace an earlier one: if that one failed, so
   * does this. Had it succeeded, the segment's main loop would already be past its
   * closer, beyond every position it visited. A segment ends where its closer or `]`
   * starts, inside its parent, so no two share an end: `hi` identifies the segment,
   * and each position is visited once per delimiter and enclosing segment.
   */
  findClose(from: number, hi: number, d: number): number {
    const delim = DELIMS[d];
    if (!delim) return -1;
    const t = this.text;
    const ch = delim.token.charCodeAt(0);
    const single = delim.token.length === 1;
    let seen = this.visited[d];
    if (!seen) {
      seen = new Int32Array(t.length);
      this.visited[d] = seen;
    }
    const stamp = hi + 1;
    for (let k = from; k < hi; k++) {
      if (seen[k] === stamp) return -1;
      seen[k] = stamp;
      const c = t.charCodeAt(k);
      if (c === BACKSLASH) {
        k++;
        continue;
      }
      if (c === TICK) {
        // Skip to after the first later run at least as long (part of it may be
        // left over, and is then a run of its own); an unmatched run is skipped.
        const runEnd = this.tickRunEnd(k, hi);
        const run = runEnd - k;
        const close = this.tick().atLeast[k] ?? -1;
        k = (close >= 0 && close + run <= hi ? close + run : runEnd) - 1;
        continue;
      }
      if (c !== ch) continue;
      if (single) {
        if (k + 1 < hi && t.charCodeAt(k + 1) === ch) {
          // Skip a doubled run (it is a different delimiter) as a unit; an odd run
          // like `***` can close `*` at its last character.
          let run = 1;
          while (k + run < hi && t.charCodeAt(k + run) === ch) run++;
          k += run - 1;
          if (run % 2 === 0) continue;
        }
      } else if (k + 1 >= hi || t.charCodeAt(k + 1) !== ch) {
        continue;
      }
      if (k === from || isWs(t.charCodeAt(k - 1))) continue;
      if (single && ch === UNDERSCORE && k + 1 < hi && isWordCode(t.charCodeAt(k + 1))) continue;
      return k;
    }
    return -1;
  }
}

/**
 * For each backtick p, with r = backticks from p to the end of its run: `end` is that
 * run's end, `exact` the start of the nearest later run of exactly r backticks (it
 * closes a code span opened at p), `atLeast` the nearest later run of r or more
 * (where `r` backticks first occur again). -1 for none.
 */
interface TickTables {
  end: Int32Array;
  exact: Int32Array;
  atLeast: Int32Array;
}

function buildTickTables(t: string): TickTables {
  const n = t.length;
  const end = new Int32Array(n);
  const exact = new Int32Array(n).fill(-1);
  const atLeast = new Int32Array(n).fill(-1);
  // Runs are visited right to left; these hold, per length, the nearest run seen so
  // far (to the right of the current one) of that length, or of at least that length.
  const nearestExact = new Int32Array(n + 1).fill(-1);
  const nearestAtLeast = new Int32Array(n + 1).fill(-1);
  let p = n - 1;
  while (p >= 0) {
    if (t.charCodeAt(p) !== TICK) {
      p--;
      continue;
    }
    const e = p + 1;
    let s = p;
    while (s > 0 && t.charCodeAt(s - 1) === TICK) s--;
    // A scan can enter a run part-way (after an escape, or what is left of a longer
    // run after a shorter one matched it), so each suffix gets its own answer. The
    // suffixes, like the updates below, add up to the run's length: O(n) in all.
    for (let k = s; k < e; k++) {
      end[k] = e;
      exact[k] = nearestExact[e - k] ?? -1;
      atLeast[k] = nearestAtLeast[e - k] ?? -1;
    }
    nearestExact[e - s] = s;
    for (let r = 1; r <= e - s; r++) nearestAtLeast[r] = s;
    p = s - 1;
  }
  return { end, exact, atLeast };
}

/**
 * Prefix tables that let a bare URL be found and trimmed in O(1): where the URL-like
 * text from each position stops, how many `(`, `)` and characters `safeHref` refuses
 * come before each position, where each `)` is, and where the run of trailing
 * punctuation ending at each position starts.
 */
interface UrlTables {
  stop: Int32Array;
  opens: Int32Array;
  closes: Int32Array;
  closeAt: Int32Array;
  controls: Int32Array;
  trailStart: Int32Array;
}

function buildUrlTables(t: string): UrlTables {
  const n = t.length;
  const stop = new Int32Array(n + 1);
  stop[n] = n;
  for (let k = n - 1; k >= 0; k--) stop[k] = endsUrl(t.charCodeAt(k)) ? k : (stop[k + 1] ?? n);
  const opens = new Int32Array(n + 1);
  const closes = new Int32Array(n + 1);
  const controls = new Int32Array(n + 1);
  const trailStart = new Int32Array(n + 1);
  const closeAt: number[] = [];
  for (let k = 0; k < n; k++) {
    const c = t.charCodeAt(k);
    if (c === RPAREN) closeAt.push(k);
    opens[k + 1] = (opens[k] ?? 0) + (c === LPAREN ? 1 : 0);
    closes[k + 1] = closeAt.length;
    controls[k + 1] = (controls[k] ?? 0) + (c <= 0x20 || (c >= 0x7f && c <= 0x9f) ? 1 : 0);
    trailStart[k + 1] = isTrailingPunct(c) ? (trailStart[k] ?? 0) : k + 1;
  }
  return { stop, opens, closes, closeAt: Int32Array.from(closeAt), controls, trailStart };
}

/** Parse inline Markdown into nodes. */
export function parseInline(text: string, depth = 0): Inline[] {
  const s = String(text ?? '');
  return parseSegment(new InlineScanner(s), 0, s.length, depth);
}

function parseSegment(sc: InlineScanner, lo: number, hi: number, depth: number): Inline[] {
  const t = sc.text;
  const out: Inline[] = [];
  // Pending text: `escaped` (what escapes left behind), then the source from `plain`.
  let escaped = '';
  let plain = lo;
  // Set if a bare URL failed in a way the cheap checks in `bareUrl` did not foresee:
  // URLs inside it are then not tried, so that cannot repeat for each of them.
  let bareUrlsFrom = lo;

  let i = lo;
  while (i < hi) {
    const c = t.charCodeAt(i);

    if (c === BACKSLASH) {
      // Backslash escape of ASCII punctuation.
      if (i + 1 < hi && isAsciiPunct(t.charCodeAt(i + 1))) {
        escaped += t.slice(plain, i) + t.charAt(i + 1);
        i += 2;
        plain = i;
        continue;
      }
    } else if (c === TICK) {
      // Code span: a run of backticks closed by a run of the same length.
      const runEnd = sc.tickRunEnd(i, hi);
      const run = runEnd - i;
      const close = sc.tick().exact[i] ?? -1;
      if (close >= 0 && close + run <= hi) {
        let value = t.slice(runEnd, close);
        if (value.length > 2 && value.startsWith(' ') && value.endsWith(' ') && value.trim()) value = value.slice(1, -1);
        if (run >= 3) value = value.replace(/^[\w+#.-]*\n/, ''); // ```lang\n on one line
        escaped = pushNode(out, escaped, t.slice(plain, i), { type: 'code', value });
        i = plain = close + run;
      } else {
        i = runEnd; // stays text
      }
      continue;
    } else if (c === LT) {
      // Autolink <https://...>: no whitespace and, as in CommonMark, no `<` inside.
      const close = autolinkEnd(t, i, hi);
      if (close > i + 1) {
        const inner = t.slice(i + 1, close);
        const href = safeHref(inner);
        if (href) {
          escaped = pushNode(out, escaped, t.slice(plain, i), { type: 'link', href, children: [{ type: 'text', value: inner }] });
          i = plain = close + 1;
          continue;
        }
      }
    } else if (c === LBRACKET) {
      // [text](url)
      if (depth < MAX_DEPTH) {
        const link = parseLink(sc, i, hi, depth);
        if (link) {
          // An unsafe or empty link stays as written: it is left as pending text.
          if (link.node) {
            escaped = pushNode(out, escaped, t.slice(plain, i), link.node);
            plain = link.end;
          }
          i = link.end;
          continue;
        }
      }
    } else if (c === 104 || c === 72 || c === 109 || c === 77) {
      // Bare URL at h/H/m/M, not in the middle of a word.
      if (i >= bareUrlsFrom && !(i > lo && isWordCode(t.charCodeAt(i - 1)))) {
        const url = bareUrl(sc, i, Math.min(hi, i + MAX_BARE_URL));
        if (url) {
          const href = url.plausible ? safeHref(t.slice(i, url.end)) : null;
          if (href) {
            const node: Inline = { type: 'link', href, children: [{ type: 'text', value: t.slice(i, url.end) }] };
            escaped = pushNode(out, escaped, t.slice(plain, i), node);
            i = plain = url.end;
            continue;
          }
          if (url.plausible) bareUrlsFrom = url.end;
        }
      }
    } else if (c === STAR || c === UNDERSCORE || c === TILDE || c === PIPE) {
      // Emphasis-like delimiters.
      if (depth < MAX_DEPTH) {
        const span = parseDelimited(sc, i, lo, hi, depth);
        if (span) {
          escaped = pushNode(out, escaped, t.slice(plain, i), span.node);
          i = plain = span.end;
          continue;
        }
        // Not an opener: the whole run stays text, so `**` is not re-tried as `*`.
        let run = 1;
        while (i + run < hi && t.charCodeAt(i + run) === c) run++;
        i += run;
        continue;
      }
    }

    i++;
  }
  pushText(out, escaped + t.slice(plain, hi));
  return out;
}

/** Appends pending text and then `node`; returns the new (empty) escaped text. */
function pushNode(out: Inline[], escaped: string, source: string, node: Inline): string {
  pushText(out, escaped + source);
  out.push(node);
  return '';
}

/** Appends text, a line break for each newline. */
function pushText(out: Inline[], text: string): void {
  let from = 0;
  for (;;) {
    const nl = text.indexOf('\n', from);
    if (nl < 0) break;
    if (nl > from) out.push({ type: 'text', value: text.slice(from, nl) });
    out.push({ type: 'br' });
    from = nl + 1;
  }
  if (from < text.length) out.push({ type: 'text', value: from ? text.slice(from) : text });
}

/** The `>` ending an autolink opened at `i`, or -1 at whitespace, `<` or the end. */
function autolinkEnd(t: string, i: number, hi: number): number {
  for (let k = i + 1; k < hi; k++) {
    const c = t.charCodeAt(k);
    if (c === GT) return k;
    if (c === LT || isWs(c)) return -1;
  }
  return -1;
}

/** Does `t` have `word` (lower case ASCII) at `i`, in any case, before `lim`? */
function hasWordAt(t: string, i: number, word: string, lim: number): boolean {
  if (i + word.length > lim) return false;
  for (let k = 0; k < word.length; k++) {
    const c = t.charCodeAt(i + k);
    const w = word.charCodeAt(k);
    if (c !== w && !(w >= 97 && w <= 122 && c === w - 32)) return false;
  }
  return true;
}

/** Stops a bare URL: whitespace, `<`, `>` or `"`. */
function endsUrl(c: number): boolean {
  return c === LT || c === GT || c === QUOTE_MARK || isWs(c);
}

/** Punctuation that ends a sentence rather than a URL: [.,:;!?'")\]*_~] */
function isTrailingPunct(c: number): boolean {
  switch (c) {
    case DOT:
    case 44: // ,
    case 58: // :
    case 59: // ;
    case 33: // !
    case 63: // ?
    case 39: // '
    case QUOTE_MARK:
    case RPAREN:
    case RBRACKET:
    case STAR:
    case UNDERSCORE:
    case TILDE:
      return true;
    default:
      return false;
  }
}

/**
 * The bare URL at `i`: /^(?:https?:\/\/|mailto:)[^\s<>"]+/i within `lim`, less
 * trailing punctuation that is not a balanced `)`. Null if there is none; `plausible`
 * is false when `safeHref` would certainly refuse it.
 *
 * Text like "http://%/http://%/…" holds a URL candidate at each "http", all running
 * to the same end, so each must be judged without reading to its end: the trimming
 * comes from prefix counts, and of what makes `new URL` fail, everything but control
 * characters (counted) lies before the end of the authority (the host and port; the
 * path, query and fragment are percent-encoded, never refused). The authorities of
 * distinct candidates do not overlap: a candidate inside another's authority either
 * has none (mailto:x, which then always parses) or brings the `//` that ends it.
 */
function bareUrl(sc: InlineScanner, i: number, lim: number): { end: number; plausible: boolean } | null {
  const t = sc.text;
  let body: number;
  let special = true;
  if (hasWordAt(t, i, 'https://', lim)) body = i + 8;
  else if (hasWordAt(t, i, 'http://', lim)) body = i + 7;
  else if (hasWordAt(t, i, 'mailto:', lim)) {
    body = i + 7;
    special = false;
  } else return null;
  const u = sc.url();
  const scanned = Math.min(u.stop[body] ?? lim, lim);
  if (scanned <= body) return null;

  // Trailing punctuation belongs to the sentence, not the URL, except a `)` that
  // leaves as many `(` as `)` in the URL. The trailing run holds no `(`, so going
  // right to left the j-th `)` of the run is kept when j >= 1 - (opens - closes).
  const opens = (u.opens[scanned] ?? 0) - (u.opens[i] ?? 0);
  const closesBefore = u.closes[scanned] ?? 0;
  const closes = closesBefore - (u.closes[i] ?? 0);
  const runStart = Math.max(u.trailStart[scanned] ?? scanned, i);
  const closesInRun = closesBefore - (u.closes[runStart] ?? 0);
  const keep = Math.max(1, 1 - (opens - closes));
  const end = keep <= closesInRun ? (u.closeAt[closesBefore - keep] ?? runStart) + 1 : runStart;

  const plausible =
    end - i > 8 && (u.controls[end] ?? 0) === (u.controls[i] ?? 0) && authorityParses(t, i, special ? body - 2 : body, end, special);
  return { end, plausible };
}

/**
 * Whether the URL `t[i, end)` gets past its authority: `new URL` of the text up to
 * the end of the authority. `after` is just past the scheme's colon.
 */
function authorityParses(t: string, i: number, after: number, end: number, special: boolean): boolean {
  let k = after;
  if (special) {
    // http(s) skips any number of slashes (and backslashes) before the host.
    while (k < end && (t.charCodeAt(k) === SLASH || t.charCodeAt(k) === BACKSLASH)) k++;
  } else if (k + 1 < end && t.charCodeAt(k) === SLASH && t.charCodeAt(k + 1) === SLASH) {
    k += 2;
  } else {
    return true; // an opaque path, as in mailto:a@example.com, never fails
  }
  while (k < end) {
    const c = t.charCodeAt(k);
    if (c === SLASH || c === 63 /* ? */ || c === HASH || (special && c === BACKSLASH)) break;
    k++;
  }
  return parseUrl(t.slice(i, k)) !== null;
}

function parseDelimited(sc: InlineScanner, i: number, lo: number, hi: number, depth: number): { node: Inline; end: number } | null {
  const t = sc.text;
  for (let d = 0; d < DELIMS.length; d++) {
    const delim = DELIMS[d];
    if (!delim || i + delim.token.length > hi || !t.startsWith(delim.token, i)) continue;
    const from = i + delim.token.length;
    if (from >= hi || isWs(t.charCodeAt(from))) continue;
    const ch = delim.token.charCodeAt(0);
    const single = delim.token.length === 1;
    if (single && ch === UNDERSCORE && i > lo && isWordCode(t.charCodeAt(i - 1))) continue; // snake_case stays as is
    if (single && t.charCodeAt(from) === ch) continue; // `**` is not `*` + `*`
    const close = sc.findClose(from, hi, d);
    if (close < 0) continue;
    let end = close;
    // `***x***` closes bold at the last `**` of the run.
    if (delim.token === '**') while (end + 2 < hi && t.charCodeAt(end + 2) === STAR) end++;
    return { node: { type: delim.type, children: parseSegment(sc, from, end, depth + 1) }, end: end + delim.token.length };
  }
  return null;
}

const TITLED = /^(\S+)\s+"[^"]*"$/;

function parseLink(sc: InlineScanner, i: number, hi: number, depth: number): { node: Inline | null; end: number } | null {
  const t = sc.text;
  const close = sc.bracketMatch(i);
  if (close < 0 || close + 1 >= hi || t.charCodeAt(close + 1) !== LPAREN) return null;
  // URL up to the matching ), allowing balanced parens inside.
  const urlEnd = sc.parenMatch(close + 1);
  if (urlEnd < 0 || urlEnd >= hi) return null;
  let target = t.slice(close + 2, urlEnd).trim();
  // Optional title: [x](url "title") — ignored.
  const titled = TITLED.exec(target);
  if (titled?.[1]) target = titled[1];
  if (target.startsWith('<') && target.endsWith('>')) target = target.slice(1, -1);
  const href = safeHref(target);
  const end = urlEnd + 1;
  // Unsafe or empty: show what was written, as text.
  if (!href || !t.slice(i + 1, close).trim()) return { node: null, end };
  const children = parseSegment(sc, i + 1, close, depth + 1).filter((n) => n.type !== 'link');
  return { node: { type: 'link', href, children }, end };
}

/** True when the text is only emoji (and whitespace): shown larger, as chat apps do. */
export function isEmojiOnly(text: string): boolean {
  const t = text.trim();
  if (!t || t.length > 64) return false;
  return /^(?:\p{Extended_Pictographic}|\p{Emoji_Component}|\u200d|\ufe0f|\s)+$/u.test(t) && !/^[\d#*\s]+$/.test(t);
}
