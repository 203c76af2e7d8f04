/**
 * Member names in their role's colour, as Discord shows them, kept readable in both themes.
 *
 * A role colour is whatever the server's managers picked: a navy that reads well on the
 * light theme all but disappears on the dark one, a pale yellow the other way round. Each
 * colour therefore gets two variants, one per theme, each the role colour made darker
 * (light theme) or lighter (dark theme), hue and saturation kept, just enough to reach 4.5:1 contrast against
 * that theme's darkest/lightest surface a name sits on (the sidebars and the hover tint).
 * Colours that already read well are used as they are. The CSS picks the variant with
 * `prefers-color-scheme`, as the rest of the theme does (see role-name.module.css).
 */
import type { Member, Role } from '../api/types';

type Rgb = [number, number, number];

/** The surfaces names are drawn on, at their least favourable (a hovered row on --bg-2). */
const LIGHT_SURFACE: Rgb = [0xec, 0xec, 0xf1];
const DARK_SURFACE: Rgb = [0x2a, 0x2b, 0x31];
const TARGET = 4.5;

function channel(c: number): number {
  const s = c / 255;
  return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
}

function luminance([r, g, b]: Rgb): number {
  return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
}

export function contrast(a: Rgb, b: Rgb): number {
  const la = luminance(a);
  const lb = luminance(b);
  return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
}

const hex = (rgb: Rgb) => `#${rgb.map((c) => Math.round(c).toString(16).padStart(2, '0')).join('')}`;

function toHsl([r, g, b]: Rgb): [number, number, number] {
  const [R, G, B] = [r / 255, g / 255, b / 255];
  const max = Math.max(R, G, B);
  const min = Math.min(R, G, B);
  const l = (max + min) / 2;
  if (max === min) return [0, 0, l];
  const d = max - min;
  const sat = l > 0.5 ? d / (2 - max - min) : d / (max + min);
  const h = max === R ? (G - B) / d + (G < B ? 6 : 0) : max === G ? (B - R) / d + 2 : (R - G) / d + 4;
  return [h / 6, sat, l];
}

function fromHsl([h, sat, l]: [number, number, number]): Rgb {
  if (sat === 0) return [l * 255, l * 255, l * 255];
  const q = l < 0.5 ? l * (1 + sat) : l + sat - l * sat;
  const p = 2 * l - q;
  const hue = (t: number) => {
    const x = t < 0 ? t + 1 : t > 1 ? t - 1 : t;
    if (x < 1 / 6) return p + (q - p) * 6 * x;
    if (x < 1 / 2) return q;
    if (x < 2 / 3) return p + (q - p) * (2 / 3 - x) * 6;
    return p;
  };
  return [hue(h + 1 / 3) * 255, hue(h) * 255, hue(h - 1 / 3) * 255];
}

/**
 * `rgb` made lighter (`up`) or darker in small steps of HSL lightness, hue and saturation
 * kept, until it reads on `surface`.
 */
function readable(rgb: Rgb, surface: Rgb, up: boolean): Rgb {
  if (contrast(rgb, surface) >= TARGET) return rgb;
  const [h, sat, l] = toHsl(rgb);
  for (let step = 1; step <= 50; step++) {
    const next = up ? l + ((1 - l) * step) / 50 : l - (l * step) / 50;
    const c = fromHsl([h, sat, next]);
    if (contrast(c, surface) >= TARGET) return c;
  }
  return up ? [255, 255, 255] : [0, 0, 0];
}

export interface NameColor {
  /** The role colour as set, `#rrggbb`. */
  raw: string;
  light: string;
  dark: string;
}

const cache = new Map<number, NameColor>();

/** A role colour (RGB integer) as its two readable variants; undefined for 0 (no colour). */
export function nameColor(color: number | undefined | null): NameColor | undefined {
  if (!color) return undefined;
  let c = cache.get(color);
  if (!c) {
    const rgb: Rgb = [(color >> 16) & 0xff, (color >> 8) & 0xff, color & 0xff];
    c = { raw: hex(rgb), light: hex(readable(rgb, LIGHT_SURFACE, false)), dark: hex(readable(rgb, DARK_SURFACE, true)) };
    cache.set(color, c);
  }
  return c;
}

/** The CSS custom properties role-name.module.css's `.colored` reads. */
export function nameColorStyle(c: NameColor | undefined): Record<string, string> | undefined {
  return c ? { '--name-light': c.light, '--name-dark': c.dark } : undefined;
}

/** The member's highest role that has a colour (roles: the server's, highest first). */
export function topColoredRole(roles: readonly Role[] | undefined, memberRoles: readonly string[] | undefined): Role | undefined {
  if (!roles || !memberRoles?.length) return undefined;
  return roles.find((r) => r.color !== 0 && memberRoles.includes(r.id));
}

const colorMaps = new WeakMap<Member[], { roles: Role[] | undefined; map: Map<string, number> }>();

/**
 * Each member's name colour (RGB integer, 0 for none) by user id (absent: not a member), memoized per members and
 * roles arrays, so every message of a channel can look its author up cheaply.
 */
export function memberColors(members: Member[] | undefined, roles: Role[] | undefined): ReadonlyMap<string, number> {
  if (!members) return new Map();
  const cached = colorMaps.get(members);
  if (cached && cached.roles === roles) return cached.map;
  const map = new Map<string, number>();
  for (const m of members) {
    map.set(m.id, topColoredRole(roles, m.roles)?.color ?? 0);
  }
  colorMaps.set(members, { roles, map });
  return map;
}
