import type { ZxcvbnFactory } from '@zxcvbn-ts/core';

/** How many of the most common passwords are refused outright (docs/security.md#passwords). */
export const COMMON_PASSWORD_COUNT = 10_000;

/**
 * The lowest zxcvbn score accepted: 2 means more than 10^6 guesses (docs/security.md,
 * "Passwords"). It refuses repeats, sequences, keyboard walks and common words with small
 * changes, and accepts a few unrelated words ("correct horse" scores 3).
 */
export const MIN_PASSWORD_SCORE = 2;

/**
 * Only this many code points are scored: the estimate grows faster than linearly with the
 * length (a 256-character walk takes a third of a second), and a password whose first 64
 * characters are guessable is refused whatever follows.
 */
export const SCORED_LENGTH = 64;

interface Judge {
  common: ReadonlySet<string>;
  zxcvbn: ZxcvbnFactory;
}

let loaded: Promise<Judge> | undefined;

/**
 * zxcvbn-ts with its common dictionaries and keyboard graphs, and the 10,000 most common
 * passwords lower-cased. Loaded on first use, not at import: the language package
 * decompresses its whole dictionary (several MB) when imported, which a process that
 * never sets a password need not pay.
 */
function judge(): Promise<Judge> {
  if (!loaded) {
    const loading = Promise.all([import('@zxcvbn-ts/core'), import('@zxcvbn-ts/language-common')]).then(([core, language]) => ({
      common: new Set(language.dictionary['passwords-common'].slice(0, COMMON_PASSWORD_COUNT).map((p) => p.toLowerCase())),
      zxcvbn: new core.ZxcvbnFactory({ dictionary: { ...language.dictionary }, graphs: language.adjacencyGraphs }),
    }));
    // A failed load must not stick: the next attempt tries again.
    loading.catch(() => {
      if (loaded === loading) loaded = undefined;
    });
    loaded = loading;
  }
  return loaded;
}

/** What each of zxcvbn's warnings means, said to the person choosing the password. */
const REASONS: Record<string, string> = {
  straightRow: 'it is a row of keys on the keyboard',
  keyPattern: 'it is a pattern of keys on the keyboard',
  simpleRepeat: 'it repeats a character',
  extendedRepeat: 'it repeats a short pattern',
  sequences: 'it is a sequence such as "abcd" or "1234"',
  recentYears: 'it is built on a recent year',
  dates: 'it is built on a date',
  topTen: 'it is one of the most used passwords',
  topHundred: 'it is one of the most used passwords',
  common: 'it is a common password',
  similarToCommon: 'it is a common password with small changes',
  wordByItself: 'it is a single word',
  namesByThemselves: 'it is a name',
  commonNames: 'it is a common name',
  userInputs: 'it contains your username',
  pwned: 'it has appeared in a data breach',
};

/**
 * Why `password` is too easy to guess, or undefined when it is strong enough: one of the
 * 10,000 most common (compared lower-cased), or a zxcvbn score below MIN_PASSWORD_SCORE
 * over its first SCORED_LENGTH code points, `userInputs` (the username) counting as known.
 */
export async function passwordWeakness(password: string, userInputs: string[] = []): Promise<string | undefined> {
  const { common, zxcvbn } = await judge();
  if (common.has(password.toLowerCase())) return REASONS.common;
  const result = zxcvbn.check([...password].slice(0, SCORED_LENGTH).join(''), userInputs);
  if (result.score >= MIN_PASSWORD_SCORE) return undefined;
  return REASONS[result.feedback.warning ?? ''] ?? 'it is too easy to guess';
}
