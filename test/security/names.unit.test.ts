/** `stripUnsafeCharacters` and `cleanName`: nothing that disguises a name survives, and nothing else is lost. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.js';
import { cleanName, stripUnsafeCharacters } from '../../src/domain/names.js';
import { cleanFilename } from '../../src/domain/uploads.js';

/** Every character the finding names, plus the other invisible ones we chose to remove. */
const DANGEROUS = [
  ...range(0x00, 0x1f),
  0x7f,
  ...range(0x80, 0x9f),
  ...range(0x202a, 0x202e),
  ...range(0x2066, 0x2069),
  0x200e,
  0x200f,
  0x061c,
  0x200b,
  0x2060,
  0xfeff,
  0x00ad,
  0x2028,
  0x2029,
  0x180e,
  0x3164,
  0xe0001,
].map((c) => String.fromCodePoint(c));

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

const dangerous = fc.constantFrom(...DANGEROUS);
const ordinary = fc.string({ unit: 'grapheme', maxLength: 8 });
/** Ordinary text with dangerous characters mixed in anywhere. */
const mixed = fc.array(fc.oneof(ordinary, dangerous), { maxLength: 12 }).map((parts) => parts.join(''));

describe('stripUnsafeCharacters', () => {
  it('the reported file name no longer reverses', () => {
    expect(stripUnsafeCharacters('invoice\u202Efdp.exe')).toBe('invoicefdp.exe');
  });

  it('removes every dangerous character, wherever it is', () => {
    for (const c of DANGEROUS) expect(stripUnsafeCharacters(`a${c}b`), `U+${c.codePointAt(0)!.toString(16)}`).toBe('ab');
    fc.assert(
      fc.property(mixed, (text) => {
        const out = stripUnsafeCharacters(text);
        for (const c of DANGEROUS) expect(out.includes(c)).toBe(false);
        expect(out).not.toMatch(/\p{Cc}/u);
      }),
    );
  });

  it('is idempotent and only ever removes characters', () => {
    fc.assert(
      fc.property(mixed, (text) => {
        const once = stripUnsafeCharacters(text);
        expect(stripUnsafeCharacters(once)).toBe(once);
        // What is left is a subsequence of the input.
        let i = 0;
        for (const c of once) {
          i = text.indexOf(c, i);
          expect(i).toBeGreaterThanOrEqual(0);
          i += c.length;
        }
      }),
    );
  });

  it('keeps emoji sequences: ZWJ families, skin tones, keycaps, flags (regional and subdivision)', () => {
    for (const e of [
      '👨\u200D👩\u200D👧',
      '👍🏽',
      '1\uFE0F\u20E3',
      '🇫🇷',
      '🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}',
      '❤️',
    ]) {
      expect(stripUnsafeCharacters(`x${e}y`)).toBe(`x${e}y`);
    }
    // Tag characters outside a flag sequence are hidden text: removed.
    expect(stripUnsafeCharacters('hi\u{E0068}\u{E0069}\u{E007F}')).toBe('hi');
  });

  it('keeps ordinary text of any script, and ZWNJ that Persian and Indic scripts need', () => {
    for (const t of ['Zoë', 'Ünïcödé', 'می\u200Cخواهم', 'क्‌ष', '日本語', 'שלום', 'مرحبا', 'a b']) expect(stripUnsafeCharacters(t)).toBe(t);
  });

  it('drops unpaired surrogates, keeps paired ones', () => {
    expect(stripUnsafeCharacters('a\uD800b\uDC00c')).toBe('abc');
    expect(stripUnsafeCharacters('a😀b')).toBe('a😀b');
  });
});

describe('cleanName', () => {
  it('strips, then trims, then checks', () => {
    expect(cleanName(' \u202E Robo \u2069 ', 'name')).toBe('Robo');
    expect(() => cleanName('\u202E\u200B', 'name')).toThrowError(/must not be empty/);
    expect(cleanName(`${'\u200B'.repeat(50)}${'x'.repeat(10)}`, 'name', 10)).toBe('x'.repeat(10));
    expect(() => cleanName('x'.repeat(11), 'name', 10)).toThrowError(/at most 10/);
  });

  it('NUL stays a 400, as everywhere in the API', () => {
    expect(() => cleanName('a\u0000b', 'name')).toThrowError(AppError);
  });
});

describe('cleanFilename uses the same rule', () => {
  it('no reversed extensions, no controls, no path', () => {
    expect(cleanFilename('invoice\u202Efdp.exe')).toBe('invoicefdp.exe');
    expect(cleanFilename('../x/\u2067re\u0007port\u2069.pdf')).toBe('report.pdf');
    expect(cleanFilename('\u202E')).toBe('file');
  });
});
