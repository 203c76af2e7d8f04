/**
 * The search box's text as the search API's parameters. Filters are written as in other
 * chat apps: `from:name`, `mentions:name`, `in:channel`, `has:link|image|file|embed`,
 * `before:YYYY-MM-DD`, `after:YYYY-MM-DD`; everything else is words. Names and channels are
 * looked up in what the client already holds; an unknown one is reported, not sent.
 */
export type FilterKey = 'from' | 'mentions' | 'in' | 'has' | 'before' | 'after';

export const FILTER_KEYS: readonly FilterKey[] = ['from', 'mentions', 'in', 'has', 'before', 'after'];
export const HAS_VALUES = ['link', 'image', 'file', 'embed'] as const;

export interface Filter {
  key: FilterKey;
  /** As typed (without the `key:`). */
  value: string;
  /** The id or value sent; null when it names nothing known. */
  resolved: string | null;
  /** How a chip shows it. */
  label: string;
}

export interface ParsedSearch {
  words: string;
  filters: Filter[];
}

export interface Lookup {
  user(name: string): { id: string; name: string } | null;
  channel(name: string): { id: string; name: string } | null;
}

const TOKEN = /(\S+)/g;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

export function parseSearch(text: string, lookup: Lookup): ParsedSearch {
  const words: string[] = [];
  const filters: Filter[] = [];
  for (const [token] of text.matchAll(TOKEN)) {
    const colon = token.indexOf(':');
    const key = colon > 0 ? (token.slice(0, colon).toLowerCase() as FilterKey) : null;
    const value = colon > 0 ? token.slice(colon + 1) : '';
    if (!key || !FILTER_KEYS.includes(key) || value === '') {
      words.push(token);
      continue;
    }
    filters.push(resolve(key, value, lookup));
  }
  return { words: words.join(' '), filters };
}

function resolve(key: FilterKey, value: string, lookup: Lookup): Filter {
  const bare = value.replace(/^[@#]/, '');
  switch (key) {
    case 'from':
    case 'mentions': {
      const u = lookup.user(bare);
      return { key, value, resolved: u?.id ?? null, label: `${key}: ${u ? u.name : bare}` };
    }
    case 'in': {
      const c = lookup.channel(bare);
      return { key, value, resolved: c?.id ?? null, label: `in: #${c ? c.name : bare}` };
    }
    case 'has': {
      const v = bare.toLowerCase();
      return { key, value, resolved: (HAS_VALUES as readonly string[]).includes(v) ? v : null, label: `has: ${v}` };
    }
    case 'before':
    case 'after':
      return { key, value, resolved: DATE.test(bare) && !Number.isNaN(Date.parse(bare)) ? bare : null, label: `${key}: ${bare}` };
  }
}

/** The query string for `GET /search/messages`, or the first filter that names nothing known. */
export function toQuery(
  parsed: ParsedSearch,
  serverId: string | null,
  offset: number,
  limit: number,
): { query: string } | { invalid: Filter } {
  const bad = parsed.filters.find((f) => f.resolved === null);
  if (bad) return { invalid: bad };
  const p = new URLSearchParams();
  if (parsed.words) p.set('q', parsed.words);
  if (serverId) p.set('serverId', serverId);
  const names: Record<FilterKey, string> = {
    from: 'authorId',
    mentions: 'mentions',
    in: 'channelId',
    has: 'has',
    before: 'before',
    after: 'after',
  };
  for (const f of parsed.filters) {
    if (f.key === 'has') p.append('has', f.resolved!);
    else p.set(names[f.key], f.resolved!);
  }
  p.set('limit', String(limit));
  if (offset > 0) p.set('offset', String(offset));
  return { query: p.toString() };
}

/** The text without the `index`th filter: a chip's × removes it. */
export function withoutFilter(text: string, filter: Filter): string {
  const token = `${filter.key}:${filter.value}`;
  const parts = text.split(/\s+/).filter(Boolean);
  const at = parts.findIndex((t) => t.toLowerCase() === token.toLowerCase());
  if (at >= 0) parts.splice(at, 1);
  return parts.join(' ');
}
