/**
 * Finding emoji in text and naming their Twemoji files: pure, with no build-time
 * modules, so test/web/emoji-data.unit.test.ts checks it against the whole data set in Node.
 */

/**
 * One emoji as people write it: a keycap, a flag (two regional indicators, or a tag
 * sequence such as England's), or a pictograph drawn as an emoji (one with emoji
 * presentation, or any with U+FE0F or a skin tone after it), with skin tone, and joined
 * to more by zero-width joiners. Text-style symbols (©, ™, ↔ without U+FE0F) stay text.
 */
const ONE =
  '(?:\\p{Emoji_Presentation}|\\p{Extended_Pictographic}(?=\\uFE0F|\\p{Emoji_Modifier}))\\uFE0F?\\p{Emoji_Modifier}?(?:[\\u{E0020}-\\u{E007E}]+\\u{E007F})?';
const EMOJI_SOURCE = `[#*0-9]\\uFE0F?\\u20E3|\\p{Regional_Indicator}{2}|${ONE}(?:\\u200D(?:${ONE}|\\p{Extended_Pictographic}\\uFE0F?))*`;

/** A fresh global matcher (the `g` flag keeps state, so none is shared). */
export function emojiPattern(): RegExp {
  return new RegExp(EMOJI_SOURCE, 'gu');
}

/**
 * Twemoji's file name for an emoji: code points in lower-case hex joined by `-`, without
 * U+FE0F unless the sequence has a zero-width joiner (as web/build/emoji.ts names them).
 */
export function twemojiName(emoji: string): string {
  const points = [...emoji].map((c) => (c.codePointAt(0) ?? 0).toString(16));
  const name = (emoji.includes('\u200d') ? points : points.filter((p) => p !== 'fe0f')).join('-');
  // The one file that breaks the rule: 👁️‍🗨️ is named without its U+FE0Fs.
  return name === '1f441-fe0f-200d-1f5e8-fe0f' ? '1f441-200d-1f5e8' : name;
}

/** Text split into strings and emoji (`{ emoji }`), in order. */
export function splitEmoji(text: string): (string | { emoji: string })[] {
  const out: (string | { emoji: string })[] = [];
  let last = 0;
  for (const m of text.matchAll(emojiPattern())) {
    const at = m.index ?? 0;
    if (at > last) out.push(text.slice(last, at));
    out.push({ emoji: m[0] });
    last = at + m[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}
