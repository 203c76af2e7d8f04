import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import zlib from 'node:zlib';
import type { Plugin } from 'vite';
// The client's own rule for file names, so the picker offers exactly what messages draw.
import { twemojiName } from '../src/lib/emoji-text.js';

const require = createRequire(import.meta.url);

/** Where @twemoji/svg keeps its files (one `<codepoints>.svg` each, at the package's top). */
export const TWEMOJI_DIR = path.dirname(require.resolve('@twemoji/svg/package.json'));
export const TWEMOJI_VERSION: string = JSON.parse(fs.readFileSync(path.join(TWEMOJI_DIR, 'package.json'), 'utf8')).version;
/** The URL path the SVGs are served under: versioned, so they can be cached for good. */
export const EMOJI_BASE = `/assets/emoji/${TWEMOJI_VERSION}/`;

const DATA_ID = 'virtual:parley-emoji-data';
const BASE_ID = 'virtual:parley-emoji-base';

/** The SVG names (without `.svg`) the set has. */
export function twemojiNames(): Set<string> {
  return new Set(
    fs
      .readdirSync(TWEMOJI_DIR)
      .filter((f) => f.endsWith('.svg'))
      .map((f) => f.slice(0, -4)),
  );
}

interface Compact {
  unicode: string;
  label: string;
  hexcode: string;
  group?: number;
  order?: number;
  tags?: string[];
  skins?: Compact[];
}

/** One emoji as the picker reads it (short keys: the module is ~1,900 of them). */
export interface PickerEmoji {
  /** The emoji. */
  c: string;
  /** Its name. */
  n: string;
  /** Shortcodes: emojibase's, then GitHub's, which Slack and Discord mostly share (`thumbsup`, `+1`, `joy`). */
  s: string[];
  /** Search words. */
  t?: string[];
  /** Skin tone variants: light, medium-light, medium, medium-dark, dark. */
  k?: string[];
}

export interface PickerData {
  groups: { key: string; name: string; emoji: PickerEmoji[] }[];
}

/**
 * The fully-qualified form Unicode (and every keyboard) uses: emojibase writes U+FE0F
 * after every emoji, also after those shown as emoji anyway (👍 as 1F44D FE0F), which
 * would make the picker's 👍 a different reaction from a typed one.
 */
export function qualified(emoji: string): string {
  return emoji.replace(/(\p{Emoji_Presentation})\uFE0F/gu, '$1');
}

function readJson<T>(spec: string): T {
  return JSON.parse(fs.readFileSync(require.resolve(spec), 'utf8')) as T;
}

/**
 * The picker's data: emojibase's English names, groups and skin tones, with GitHub's and
 * emojibase's shortcodes, limited to emoji the Twemoji set draws (newer ones would show
 * as the system font's glyph, or a box). The skin tone components group is left out.
 */
export function pickerData(): PickerData {
  const names = twemojiNames();
  const has = (e: Compact) => names.has(twemojiName(e.unicode));
  const compact = readJson<Compact[]>('emojibase-data/en/compact.json');
  const messages = readJson<{ groups: { key: string; message: string; order: number }[] }>('emojibase-data/en/messages.json');
  const github = readJson<Record<string, string | string[]>>('emojibase-data/en/shortcodes/github.json');
  const base = readJson<Record<string, string | string[]>>('emojibase-data/en/shortcodes/emojibase.json');
  const codes = (hex: string) => {
    const list = [base[hex] ?? [], github[hex] ?? []].flat();
    return [...new Set(list)];
  };
  const groups = messages.groups
    .filter((g) => g.key !== 'component')
    .sort((a, b) => a.order - b.order)
    .map((g) => ({ key: g.key, order: g.order, name: g.message.charAt(0).toUpperCase() + g.message.slice(1), emoji: [] as PickerEmoji[] }));
  const byOrder = new Map(groups.map((g) => [g.order, g]));
  for (const e of [...compact].sort((a, b) => (a.order ?? 0) - (b.order ?? 0))) {
    const group = e.group === undefined ? undefined : byOrder.get(e.group);
    if (!group || !has(e)) continue;
    const item: PickerEmoji = { c: qualified(e.unicode), n: e.label, s: codes(e.hexcode) };
    if (e.tags?.length) item.t = e.tags;
    // The five variants with one tone throughout (people emoji also have mixed tones), light to dark.
    const tones = (s: Compact) => new Set(s.unicode.match(/[\u{1F3FB}-\u{1F3FF}]/gu) ?? []);
    const single = (e.skins ?? []).filter((s) => has(s) && tones(s).size === 1);
    const tone = (s: Compact) => [...tones(s)][0]?.codePointAt(0) ?? 0;
    if (single.length === 5) item.k = single.sort((a, b) => tone(a) - tone(b)).map((s) => qualified(s.unicode));
    group.emoji.push(item);
  }
  return { groups: groups.map(({ key, name, emoji }) => ({ key, name, emoji })) };
}

function* svgFiles(): Generator<string> {
  for (const f of fs.readdirSync(TWEMOJI_DIR)) if (f.endsWith('.svg')) yield f;
}

/**
 * The bundled emoji set (issue 13): Twemoji's SVGs copied into the build under
 * `assets/emoji/<version>/` (each fetched only when an emoji is drawn; `/assets/` is
 * served with a year's cache, and the version in the path keeps names stable), with a
 * gzip twin each (brotli at the highest level would take seconds per build for ~3,700
 * files; web/build/precompress.ts skips this folder). Two virtual modules: the base URL,
 * and the picker's data, which the client imports lazily (its own chunk). `vite dev`
 * serves the SVGs from the package.
 */
export function emojiAssets(): Plugin {
  let outDir = '';
  return {
    name: 'parley-emoji',
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
    },
    resolveId(id) {
      if (id === DATA_ID || id === BASE_ID) return `\0${id}`;
      return null;
    },
    load(id) {
      if (id === `\0${BASE_ID}`) return `export const EMOJI_BASE = ${JSON.stringify(EMOJI_BASE)};`;
      if (id === `\0${DATA_ID}`) return `export default JSON.parse(${JSON.stringify(JSON.stringify(pickerData()))});`;
      return null;
    },
    configureServer(server) {
      server.middlewares.use((req, res, next) => {
        const url = req.url?.split('?')[0] ?? '';
        if (!url.startsWith(EMOJI_BASE)) return next();
        const file = path.join(TWEMOJI_DIR, path.basename(url));
        if (!file.endsWith('.svg') || !fs.existsSync(file)) return next();
        res.setHeader('Content-Type', 'image/svg+xml');
        res.end(fs.readFileSync(file));
      });
    },
    writeBundle() {
      const dest = path.join(outDir, EMOJI_BASE);
      fs.mkdirSync(dest, { recursive: true });
      for (const f of svgFiles()) {
        const body = fs.readFileSync(path.join(TWEMOJI_DIR, f));
        fs.writeFileSync(path.join(dest, f), body);
        if (body.length >= 1024) fs.writeFileSync(path.join(dest, `${f}.gz`), zlib.gzipSync(body, { level: 9 }));
      }
    },
  };
}
