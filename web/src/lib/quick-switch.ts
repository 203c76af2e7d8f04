/**
 * What the quick switcher (components/quick-switcher.tsx) lists and in which order: a
 * forgiving match of names (whole, start, word start, anywhere, then letters in order),
 * a leading `#`, `@` or `*` for channels, DMs or servers only, and recent places first
 * while nothing is typed.
 */

export type SwitcherKind = 'channel' | 'dm' | 'server';

export interface SwitcherItem {
  kind: SwitcherKind;
  /** The channel, DM or server id (unique across kinds: all are snowflakes). */
  id: string;
  name: string;
  /** A channel's server, shown beside it. */
  where?: string;
  path: string;
  unread: boolean;
  mentions: number;
  /** A DM's other person, for the avatar; a server's icon. */
  avatar?: { id: string; name: string; src?: string | null };
}

/** How many visited places are remembered. */
export const RECENT_MAX = 20;
/** The most rows shown at once. */
const LIMIT = 50;

/**
 * How well `name` matches `query` (lower case, non-empty): 0 the whole name, 1 its start,
 * 2 the start of a word, 3 anywhere, 4 its letters in order (fuzzy); -1 not at all.
 */
export function matchScore(name: string, query: string): number {
  const n = name.toLowerCase();
  if (n === query) return 0;
  if (n.startsWith(query)) return 1;
  const at = n.indexOf(query);
  if (at > 0) return /[\s\-_.]/.test(n[at - 1] ?? '') || n.split(/[\s\-_.]+/).some((w) => w.startsWith(query)) ? 2 : 3;
  let i = 0;
  for (const ch of n) if (ch === query[i]) i++;
  return i === query.length ? 4 : -1;
}

const KIND_PREFIX: Record<string, SwitcherKind> = { '#': 'channel', '@': 'dm', '*': 'server' };

/** The items for `query`, best first (on equal terms: mentions, unread, recent, then listed order). */
export function rankItems(items: SwitcherItem[], rawQuery: string, recent: string[], currentIds: string[] = []): SwitcherItem[] {
  let query = rawQuery.trim().toLowerCase();
  const kind = KIND_PREFIX[query[0] ?? ''];
  if (kind) query = query.slice(1).trim();
  const recency = (id: string) => {
    const i = recent.indexOf(id);
    return i < 0 ? RECENT_MAX + 1 : i;
  };
  const scored: { item: SwitcherItem; score: number; i: number }[] = [];
  items.forEach((item, i) => {
    if (kind && item.kind !== kind) return;
    if (!query) {
      // The empty box: where the person was lately (not where they are), then what waits for them.
      if (currentIds.includes(item.id)) return;
      const r = recency(item.id);
      if (r > RECENT_MAX && !item.unread && !item.mentions && !kind) return;
      scored.push({ item, score: r, i });
      return;
    }
    const s = matchScore(item.name, query);
    if (s >= 0) scored.push({ item, score: s, i });
  });
  scored.sort(
    (a, b) =>
      a.score - b.score ||
      Number(b.item.mentions > 0) - Number(a.item.mentions > 0) ||
      Number(b.item.unread) - Number(a.item.unread) ||
      recency(a.item.id) - recency(b.item.id) ||
      a.i - b.i,
  );
  return scored.slice(0, LIMIT).map((s) => s.item);
}
