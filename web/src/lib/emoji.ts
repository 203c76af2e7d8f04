/**
 * Emoji in text: finding them, and the bundled Twemoji image for each (issue 13). Pure
 * and small, as it is in the first load; the picker's data (names, shortcodes, groups)
 * is a chunk of its own (`loadEmojiData`).
 */
import { EMOJI_BASE } from 'virtual:parley-emoji-base';
import type { PickerEmoji } from 'virtual:parley-emoji-data';
import { twemojiName } from './emoji-text';

export type { PickerEmoji };
export { splitEmoji } from './emoji-text';

/** The URL of the emoji's SVG (which may not exist: emoji newer than the set fall back to text). */
export function emojiUrl(emoji: string): string {
  return `${EMOJI_BASE}${twemojiName(emoji)}.svg`;
}

/** URLs that failed to load (emoji newer than the set): drawn as text from then on. */
export const missingEmoji = new Set<string>();

let data: Promise<typeof import('virtual:parley-emoji-data').default> | null = null;

/** The picker's data (about 60 kB compressed), fetched once, on first use. */
export function loadEmojiData() {
  data ??= import('virtual:parley-emoji-data').then((m) => m.default);
  return data;
}

const RECENT_KEY = 'parley.emoji.recent';
const TONE_KEY = 'parley.emoji.tone';

/** The person's most recently picked emoji, newest first. */
export function recentEmoji(): string[] {
  try {
    const list = JSON.parse(localStorage.getItem(RECENT_KEY) ?? '[]');
    return Array.isArray(list) ? list.filter((e): e is string => typeof e === 'string').slice(0, 24) : [];
  } catch {
    return [];
  }
}

export function rememberEmoji(emoji: string): void {
  try {
    localStorage.setItem(RECENT_KEY, JSON.stringify([emoji, ...recentEmoji().filter((e) => e !== emoji)].slice(0, 24)));
  } catch {
    // Storage full or blocked: the list just does not grow.
  }
}

/** The chosen skin tone: 0 (none, the default yellow) to 5 (dark). */
export function skinTone(): number {
  const n = Number(localStorage.getItem(TONE_KEY) ?? 0);
  return Number.isInteger(n) && n >= 0 && n <= 5 ? n : 0;
}

export function setSkinTone(tone: number): void {
  try {
    localStorage.setItem(TONE_KEY, String(tone));
  } catch {
    // Not kept, then.
  }
}

/** The emoji in the chosen tone, when it has tones. */
export function withTone(e: PickerEmoji, tone: number): string {
  return (tone > 0 && e.k?.[tone - 1]) || e.c;
}
