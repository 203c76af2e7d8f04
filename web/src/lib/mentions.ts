/**
 * Mentions in text, both ways: finding `<@id>`, `<@&id>`, `<#id>`, `@everyone` and
 * `@here` in a message's text (to draw them as chips), and turning the readable names the
 * composer shows (`@alice`, `#general`) back into that syntax when a draft is sent.
 *
 * Pure TypeScript, no DOM or React, so it can be unit tested in Node.
 */

export type MentionToken =
  | { kind: 'user'; id: string }
  | { kind: 'role'; id: string }
  | { kind: 'channel'; id: string }
  | { kind: 'everyone' }
  | { kind: 'here' };

/**
 * The service's patterns (src/domain/mentions.ts), in one alternation. No part can
 * backtrack over more than 20 digits, so a scan is linear in the text.
 */
const TOKEN = /<@!?(\d{1,20})>|<@&(\d{1,20})>|<#(\d{1,20})>|@(everyone|here)\b/g;
const WORDISH = /[\w`]/;

/**
 * Splits text into plain strings and mention tokens. `@everyone`/`@here` count only where
 * the service pings them: not right after a letter, digit, `_` or backtick. (Code is
 * never passed here: the Markdown renderer calls this on text nodes only.)
 */
export function splitMentions(text: string): (string | MentionToken)[] {
  if (!text.includes('<') && !text.includes('@')) return [text];
  const out: (string | MentionToken)[] = [];
  let last = 0;
  for (const m of text.matchAll(TOKEN)) {
    const at = m.index ?? 0;
    let token: MentionToken;
    if (m[1]) token = { kind: 'user', id: m[1] };
    else if (m[2]) token = { kind: 'role', id: m[2] };
    else if (m[3]) token = { kind: 'channel', id: m[3] };
    else {
      if (at > 0 && WORDISH.test(text.charAt(at - 1))) continue;
      token = { kind: m[4] === 'here' ? 'here' : 'everyone' };
    }
    if (at > last) out.push(text.slice(last, at));
    out.push(token);
    last = at + m[0].length;
  }
  if (last === 0) return [text];
  if (last < text.length) out.push(text.slice(last));
  return out;
}

/** A name the composer inserted, and the syntax it stands for. */
export interface DraftMention {
  /** What the textarea shows: `@alice`, `@Moderators`, `#general`. */
  display: string;
  /** What is sent: `<@123>`, `<@&456>`, `<#789>`. */
  syntax: string;
}

/**
 * The ranges of `text` that are code (fenced blocks and inline spans), as the service
 * reads them: ```` ``` ```` to the next ```` ``` ````, and `` ` `` to the next `` ` `` on
 * the same line. Each scan starts where the previous one ended, so this is linear.
 */
export function codeRanges(text: string): [number, number][] {
  const ranges: [number, number][] = [];
  let noFence = false;
  let i = 0;
  while (i < text.length) {
    const tick = text.indexOf('`', i);
    if (tick < 0) break;
    if (!noFence && text.startsWith('```', tick)) {
      const close = text.indexOf('```', tick + 3);
      if (close >= 0) {
        ranges.push([tick, close + 3]);
        i = close + 3;
        continue;
      }
      noFence = true; // no closing fence anywhere after: none after later openers either
    }
    const nl = text.indexOf('\n', tick + 1);
    const close = text.indexOf('`', tick + 1);
    if (close >= 0 && (nl < 0 || close < nl)) {
      ranges.push([tick, close + 1]);
      i = close + 1;
    } else {
      i = tick + 1;
    }
  }
  return ranges;
}

/** Whether a caret at `pos` sits inside code (so no autocomplete opens there). */
export function inCode(text: string, pos: number): boolean {
  // An opened span or fence with no closer yet still counts: the person is typing code.
  const before = text.slice(0, pos);
  const closed = codeRanges(before);
  const end = closed.length ? closed[closed.length - 1]![1] : 0;
  return before.indexOf('`', end) >= 0;
}

const WORD_CHAR = /[\p{L}\p{N}_]/u;

/**
 * The draft as it is sent: each inserted name (`@alice`) becomes its syntax (`<@123>`),
 * outside code only, and only as a whole name (`@al` does not eat the start of `@alice`,
 * and `me@alice` is an address, not a mention). Longer names are tried first, so
 * `@Ann Lee` wins over `@Ann`.
 */
export function encodeDraft(text: string, picks: readonly DraftMention[]): string {
  if (!picks.length) return text;
  const sorted = [...picks].sort((a, b) => b.display.length - a.display.length);
  const code = codeRanges(text);
  let out = '';
  let last = 0;
  let r = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charAt(i);
    if (c !== '@' && c !== '#') continue;
    while (r < code.length && code[r]![1] <= i) r++;
    const range = code[r];
    if (range && range[0] <= i) {
      i = range[1] - 1;
      continue;
    }
    if (i > 0 && WORD_CHAR.test(text.charAt(i - 1))) continue;
    const pick = sorted.find((p) => text.startsWith(p.display, i) && !WORD_CHAR.test(text.charAt(i + p.display.length)));
    if (!pick) continue;
    out += text.slice(last, i) + pick.syntax;
    last = i + pick.display.length;
    i = last - 1;
  }
  return out + text.slice(last);
}

/** What the composer's autocomplete is completing: a trigger and what follows it. */
export interface Trigger {
  char: '@' | '#' | ':';
  query: string;
  /** Where the trigger character is. */
  start: number;
}

const QUERY: Record<Trigger['char'], RegExp> = {
  // Names may hold most characters, but not spaces (the list narrows as you type a word).
  '@': /^[^\s@#<>`]{0,32}$/u,
  '#': /^[\p{L}\p{N}_-]{0,32}$/u,
  ':': /^[\p{L}\p{N}_+-]{2,32}$/u,
};

/**
 * The trigger the caret is completing, if any: `@`, `#` or `:` at the start of a word,
 * followed by a query up to the caret, outside code.
 */
export function findTrigger(text: string, caret: number): Trigger | null {
  const from = Math.max(0, caret - 34);
  for (let i = caret - 1; i >= from; i--) {
    const c = text.charAt(i);
    if (c === '@' || c === '#' || c === ':') {
      if (i > 0 && !/[\s([{"'>]/u.test(text.charAt(i - 1))) return null;
      const query = text.slice(i + 1, caret);
      if (!QUERY[c].test(query)) return null;
      if (inCode(text, i)) return null;
      return { char: c, query, start: i };
    }
    if (/\s/u.test(c)) return null;
  }
  return null;
}

/** Mention syntax a draft can hold as a name: users, roles and channels (not `@everyone`, which is written as is). */
const SYNTAX = /<@!?(\d{1,20})>|<@&(\d{1,20})>|<#(\d{1,20})>/g;

/**
 * The other way from `encodeDraft`, for editing a sent message in the form the composer
 * writes: each `<@123>`, `<@&456>` and `<#789>` outside code that `name` can name becomes
 * that name (`@alice`), and the picks say what it stands for. Saving encodes it back to
 * exactly the text sent: a name is left as its syntax when it would not be (two people of
 * one name, or the name already written out as plain text, which encoding would turn into a
 * mention).
 */
export function decodeDraft(content: string, name: (token: MentionToken) => string | null): { text: string; picks: DraftMention[] } {
  const code = codeRanges(content);
  const found: { at: number; syntax: string; display: string }[] = [];
  for (const m of content.matchAll(SYNTAX)) {
    const at = m.index ?? 0;
    if (code.some(([a, b]) => a <= at && at < b)) continue;
    const token: MentionToken = m[1] ? { kind: 'user', id: m[1] } : m[2] ? { kind: 'role', id: m[2] } : { kind: 'channel', id: m[3] ?? '' };
    const label = name(token);
    if (!label) continue;
    found.push({ at, syntax: m[0], display: `${token.kind === 'channel' ? '#' : '@'}${label}` });
  }
  // A display that stands for two different things, or is already in the text, stays as syntax.
  const bySyntax = new Map<string, string>();
  const clash = new Set<string>();
  for (const f of found) {
    const other = [...bySyntax].find(([s, d]) => d === f.display && s !== f.syntax);
    if (other || encodeDraft(content, [{ display: f.display, syntax: '\u0000' }]) !== content) clash.add(f.display);
    bySyntax.set(f.syntax, f.display);
  }
  let text = '';
  let last = 0;
  const picks = new Map<string, DraftMention>();
  for (const f of found) {
    if (clash.has(f.display)) continue;
    text += content.slice(last, f.at) + f.display;
    last = f.at + f.syntax.length;
    picks.set(f.display, { display: f.display, syntax: f.syntax });
  }
  text += content.slice(last);
  const list = [...picks.values()];
  // Whatever else could make the two differ (a name followed by a letter, say): edit the text as it is.
  if (encodeDraft(text, list) !== content) return { text: content, picks: [] };
  return { text, picks: list };
}
