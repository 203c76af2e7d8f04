/** The first of the browser's languages there is a catalog for ("de-AT" finds de.ts), else English. */
export function pickLanguage(wanted: readonly string[], available: readonly string[]): string {
  for (const tag of wanted) {
    const lower = tag.toLowerCase();
    for (const candidate of [lower, lower.split('-')[0]!]) {
      if (candidate === 'en') return 'en';
      const found = available.find((a) => a.toLowerCase() === candidate);
      if (found) return found;
    }
  }
  return 'en';
}
