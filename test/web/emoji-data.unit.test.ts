/**
 * The bundled emoji set's plumbing, in Node: every emoji of emojibase up to Emoji 15.0
 * (what Twemoji 15.0 draws) is found in text as one piece and named as its SVG file is,
 * text symbols stay text, and the picker's data holds only emoji the set draws.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { pickerData, qualified, TWEMOJI_DIR, twemojiNames } from '../../web/build/emoji.js';
import { splitEmoji, twemojiName } from '../../web/src/lib/emoji-text.js';

const require = createRequire(import.meta.url);
interface Entry {
  emoji: string;
  label: string;
  version: number;
  skins?: Entry[];
}
const data: Entry[] = JSON.parse(fs.readFileSync(require.resolve('emojibase-data/en/data.json'), 'utf8'));
const all = data.flatMap((e) => [e, ...(e.skins ?? [])]);

describe('emoji set', () => {
  it('names an SVG of the set for every emoji up to 15.0, and finds each in text as one piece', () => {
    const files = twemojiNames();
    const old = all.filter((e) => e.version <= 15);
    expect(old.length).toBeGreaterThan(3600);
    const unnamed = old.filter((e) => !files.has(twemojiName(e.emoji))).map((e) => `${e.emoji} ${e.label}`);
    expect(unnamed).toEqual([]);
    const split = old
      .filter((e) => {
        const parts = splitEmoji(`a ${e.emoji} b`);
        return !(parts.length === 3 && typeof parts[1] === 'object' && parts[1].emoji === e.emoji);
      })
      .map((e) => `${e.emoji} ${e.label}`);
    expect(split).toEqual([]);
    expect(fs.existsSync(path.join(TWEMOJI_DIR, `${twemojiName('👍')}.svg`))).toBe(true);
  });

  it('leaves text symbols, digits and plain text alone', () => {
    for (const text of ['© 2026 ™', '1 # *', 'a -> b', '↔ ok', 'plain']) expect(splitEmoji(text)).toEqual([text]);
    expect(splitEmoji('I ❤️ it 👍🏽!')).toEqual(['I ', { emoji: '❤️' }, ' it ', { emoji: '👍🏽' }, '!']);
    expect(splitEmoji('🇫🇷🏳️‍🌈1️⃣')).toEqual([{ emoji: '🇫🇷' }, { emoji: '🏳️‍🌈' }, { emoji: '1️⃣' }]);
    expect(twemojiName('❤️')).toBe('2764');
    expect(twemojiName('🏳️‍🌈')).toBe('1f3f3-fe0f-200d-1f308');
    expect(qualified('👍\uFE0F')).toBe('👍');
    expect(qualified('❤\uFE0F')).toBe('❤\uFE0F');
  });

  it('gives the picker groups, names, shortcodes and skin tones of drawable emoji only', () => {
    const { groups } = pickerData();
    expect(groups.map((g) => g.key)).not.toContain('component');
    const files = twemojiNames();
    const emoji = groups.flatMap((g) => g.emoji);
    expect(emoji.length).toBeGreaterThan(1800);
    expect(emoji.filter((e) => !files.has(twemojiName(e.c)) || (e.k ?? []).some((k) => !files.has(twemojiName(k))))).toEqual([]);
    const thumbs = emoji.find((e) => e.c === '👍');
    expect(thumbs?.n).toBe('thumbs up');
    expect(thumbs?.s).toEqual(expect.arrayContaining(['thumbsup', '+1']));
    expect(thumbs?.k).toHaveLength(5);
    // As typed: no U+FE0F after an emoji shown as one anyway, where it is needed kept.
    expect(emoji.find((e) => e.c === '❤️')).toBeDefined();
    expect(emoji.filter((e) => /\p{Emoji_Presentation}\uFE0F/u.test(e.c))).toEqual([]);
    // 🫩 (Emoji 16.0) is newer than the set: not offered.
    expect(emoji.some((e) => e.c === '🫩')).toBe(false);
  });
});
