/** Formatting helpers for times, sizes, colours and initials. */
import { t } from '../i18n';

const timeFmt = new Intl.DateTimeFormat(undefined, { hour: 'numeric', minute: '2-digit' });
const dateFmt = new Intl.DateTimeFormat(undefined, { year: 'numeric', month: 'short', day: 'numeric' });
const fullFmt = new Intl.DateTimeFormat(undefined, { dateStyle: 'full', timeStyle: 'short' });
const dayFmt = new Intl.DateTimeFormat(undefined, { weekday: 'long', year: 'numeric', month: 'long', day: 'numeric' });

function parse(iso: string | null | undefined): Date | null {
  if (!iso) return null;
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? null : d;
}

function sameDay(a: Date, b: Date): boolean {
  return a.getFullYear() === b.getFullYear() && a.getMonth() === b.getMonth() && a.getDate() === b.getDate();
}

/** "Today at 14:02", "Yesterday at 09:15" or "3 Mar 2025, 14:02". */
export function formatMessageTime(iso: string): string {
  const d = parse(iso);
  if (!d) return '';
  const now = new Date();
  const yesterday = new Date(now);
  yesterday.setDate(now.getDate() - 1);
  if (sameDay(d, now)) return t('format.todayAt', { time: timeFmt.format(d) });
  if (sameDay(d, yesterday)) return t('format.yesterdayAt', { time: timeFmt.format(d) });
  return `${dateFmt.format(d)}, ${timeFmt.format(d)}`;
}

export function formatClock(iso: string): string {
  const d = parse(iso);
  return d ? timeFmt.format(d) : '';
}

export function formatFull(iso: string | null | undefined): string {
  const d = parse(iso);
  return d ? fullFmt.format(d) : '';
}

export function formatDate(iso: string | null | undefined): string {
  const d = parse(iso);
  return d ? dateFmt.format(d) : '';
}

export function formatDay(iso: string): string {
  const d = parse(iso);
  return d ? dayFmt.format(d) : '';
}

export function isSameDay(a: string, b: string): boolean {
  const x = parse(a);
  const y = parse(b);
  return !!x && !!y && sameDay(x, y);
}

export function minutesBetween(a: string, b: string): number {
  const x = parse(a);
  const y = parse(b);
  if (!x || !y) return Infinity;
  return Math.abs(y.getTime() - x.getTime()) / 60_000;
}

export function formatSize(bytes: number | undefined): string {
  if (typeof bytes !== 'number' || !Number.isFinite(bytes) || bytes < 0) return '';
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB'];
  let v = bytes / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[u]}`;
}

/** An embed colour integer as a CSS hex colour, or null when not a valid 24-bit value. */
export function colorToCss(color: unknown): string | null {
  if (typeof color !== 'number' || !Number.isInteger(color) || color < 0 || color > 0xffffff) return null;
  return `#${color.toString(16).padStart(6, '0')}`;
}

/** Up to two letters for an avatar placeholder. */
export function initials(name: string): string {
  const words = name
    .trim()
    .split(/[\s_-]+/)
    .filter(Boolean);
  const letters = words.length > 1 ? words.slice(0, 2).map((w) => [...w][0] ?? '') : [...(words[0] ?? '?')].slice(0, 2);
  return letters.join('').toUpperCase() || '?';
}

/** A stable hue for a name, so avatars are recognisable. */
export function hueFor(id: string): number {
  let h = 0;
  for (let i = 0; i < id.length; i++) h = (h * 31 + id.charCodeAt(i)) >>> 0;
  return h % 360;
}

/** Length in Unicode code points, as the server counts it. */
export function codePoints(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

const relativeFmt = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto', style: 'short' });

/** "5 min. ago", "yesterday", "3 days ago": how long since a moment, for lists of threads and posts. */
export function formatAgo(ms: number, now = Date.now()): string {
  const s = Math.round((ms - now) / 1000);
  const abs = Math.abs(s);
  if (abs < 45) return relativeFmt.format(0, 'second');
  if (abs < 3600) return relativeFmt.format(Math.round(s / 60), 'minute');
  if (abs < 86_400) return relativeFmt.format(Math.round(s / 3600), 'hour');
  if (abs < 30 * 86_400) return relativeFmt.format(Math.round(s / 86_400), 'day');
  return dateFmt.format(new Date(ms));
}
