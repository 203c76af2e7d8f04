// Modules web/build/emoji.ts makes at build time.

declare module 'virtual:parley-emoji-base' {
  /** Where the Twemoji SVGs are served, e.g. `/assets/emoji/15.0.0/`. */
  export const EMOJI_BASE: string;
}

declare module 'virtual:parley-emoji-data' {
  /** One emoji: the character, its name, shortcodes, search words, skin tone variants (light to dark). */
  export interface PickerEmoji {
    c: string;
    n: string;
    s: string[];
    t?: string[];
    k?: string[];
  }
  const data: { groups: { key: string; name: string; emoji: PickerEmoji[] }[] };
  export default data;
}
