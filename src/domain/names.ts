import { badRequest } from '../errors.js';

/**
 * Characters that let a name look like something it is not, or look like nothing:
 * C0/C1 controls and line/paragraph separators; every invisible format character (Cf),
 * which includes the bidi embeddings, overrides and isolates (U+202A–U+202E,
 * U+2066–U+2069), the marks U+200E, U+200F and U+061C, zero-width spaces and the BOM;
 * the Hangul fillers, which render as blanks; and unpaired surrogates, which are not text.
 * The first alternative captures an emoji tag sequence (a subdivision flag such as
 * Scotland's) so it survives; tag characters anywhere else are removed.
 */
const UNSAFE =
  /(\u{1F3F4}[\u{E0020}-\u{E007E}]+\u{E007F})|[\p{Cc}\p{Zl}\p{Zp}\u115F\u1160\u3164\uFFA0]|(?![\u200C\u200D])\p{Cf}|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/gu;

/**
 * Removes the characters that can disguise a name (see `UNSAFE`): `invoice\u202Efdp.exe`
 * becomes `invoicefdp.exe`. Keeps ZWJ and ZWNJ (emoji sequences, Indic and Persian text)
 * and emoji flag tag sequences.
 */
export function stripUnsafeCharacters(text: string): string {
  return text.replace(UNSAFE, (_match, flag: string | undefined) => flag ?? '');
}

/**
 * Display names: disguising characters removed (`stripUnsafeCharacters`), trimmed, then
 * 1..`max` characters. NUL stays a 400, as everywhere in the API.
 */
export function cleanName(name: string, what: string, max = 100): string {
  rejectNul(name, what);
  const n = stripUnsafeCharacters(name).trim();
  if (n.length === 0) throw badRequest(`${what} must not be empty`);
  if ([...n].length > max) throw badRequest(`${what} must be at most ${max} characters`);
  return n;
}

/** PostgreSQL cannot store U+0000 in text, so no dialect accepts it: a 400, never a 500. */
export function rejectNul(value: string, what: string): void {
  if (value.includes('\u0000')) throw badRequest(`${what} must not contain the NUL character`);
}

/** Avatars are http(s) image URLs of at most 2048 characters; empty means none. */
export function cleanAvatar(avatar: string | null | undefined): string | null {
  if (avatar === undefined || avatar === null || avatar === '') return null;
  let u: URL;
  try {
    u = new URL(avatar);
  } catch {
    throw badRequest('avatar must be an http(s) URL');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw badRequest('avatar must be an http(s) URL');
  if (avatar.length > 2048) throw badRequest('avatar must be at most 2048 characters');
  if (/[\u0000-\u001f\u007f]/.test(avatar)) throw badRequest('avatar must not contain control characters');
  return avatar;
}

/**
 * One emoji: a single RGI emoji sequence (flags, skin tones and ZWJ sequences included),
 * or one pictograph without its variation selector (❤ as well as ❤️). Built at runtime:
 * TypeScript's ES2022 target does not know the v flag, which Node 20 has.
 */
const EMOJI = new RegExp('^(?:\\p{RGI_Emoji}|\\p{Extended_Pictographic}\\uFE0F?)$', 'v');

/** Whether `text` is exactly one Unicode emoji (reactions, forum tags). */
export const isSingleEmoji = (text: string): boolean => EMOJI.test(text);
