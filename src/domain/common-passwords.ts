/** How many of the most common passwords are refused (contract section 10). */
export const COMMON_PASSWORD_COUNT = 10_000;

let common: Promise<ReadonlySet<string>> | undefined;

/**
 * The most common passwords, lower-cased, from zxcvbn-ts's list ranked by frequency.
 * Loaded on first use, not at import: the package decompresses its whole dictionary
 * (several MB) when imported, which a process that never registers anyone need not pay.
 */
function commonPasswords(): Promise<ReadonlySet<string>> {
  if (!common) {
    const loading = import('@zxcvbn-ts/language-common').then(
      ({ dictionary }) => new Set(dictionary['passwords-common'].slice(0, COMMON_PASSWORD_COUNT).map((p) => p.toLowerCase())),
    );
    // A failed load must not stick: the next registration tries again.
    loading.catch(() => {
      if (common === loading) common = undefined;
    });
    common = loading;
  }
  return common;
}

/** True when `password` is one of the 10,000 most common passwords, compared case-insensitively. */
export async function isCommonPassword(password: string): Promise<boolean> {
  return (await commonPasswords()).has(password.toLowerCase());
}
