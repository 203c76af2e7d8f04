/**
 * Message search (docs/api.md#search): the words of `q` and filters, over the messages
 * the caller can read and nothing else. Which channels those are is decided by one
 * function, `readableChannels` (access.ts); the store is given that set and nothing else
 * about the caller, so neither the page nor `total` can count a message they may not see.
 */
import { SEARCH_HAS, SEARCH_LIMITS, type SearchQuery, type SearchResults, snowflakeAt } from '@parley/protocol';
import { badRequest } from '../errors.js';
import { isId } from '../ids.js';
import type { SearchTerm } from '../store/dialects/types.js';
import type { HasKind } from '../store/repos/search.js';
import { readableChannels, requireChannelPermission } from './access.js';
import type { DomainContext } from './context.js';
import { messageViews } from './messages.js';
import { NEEDS } from './permissions.js';
import { threads } from './threads.js';
import type { Caller } from './types.js';

const invalid = (message: string) => badRequest(message, 'invalid_query');

/**
 * The words of a query: runs of letters, digits and combining marks, in lower case,
 * without repeats. Everything else separates words, so no character of `q` can be query
 * syntax in either database (quotes, `*`, `-`, `(`, `:`, `&`, `|`, `!`), and words such
 * as AND, OR, NOT or NEAR are just words. Both indexes split text the same way.
 */
export function words(q: string): string[] {
  return [
    ...new Set(
      q
        .normalize('NFC')
        .toLowerCase()
        .match(/[\p{L}\p{N}\p{M}]+/gu) ?? [],
    ),
  ];
}

/**
 * What each word matches: itself, or any word it begins. A single character matches only
 * itself: as a prefix it would match a large part of every history (and read all of it).
 */
export function searchTerms(q: string): SearchTerm[] {
  return words(q).map((word) => ({ word, prefix: [...word].length > 1 }));
}

/** `YYYY-MM-DD`, or a date-time with seconds optional and its offset (`Z` or `±hh:mm`). */
const ISO_DATE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/;

/** A `before`/`after` bound as an id: a snowflake as it is, a date as the first snowflake of its millisecond. */
function bound(name: string, value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (isId(value)) return value;
  const ms = ISO_DATE.test(value) ? Date.parse(value) : Number.NaN;
  if (!Number.isFinite(ms)) throw invalid(`${name} must be a snowflake or an ISO 8601 date`);
  return snowflakeAt(ms);
}

function id(name: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!isId(value)) throw invalid(`${name} must be an id`);
  return value;
}

function integer(name: string, value: string | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  const n = /^[0-9]{1,6}$/.test(value) ? Number(value) : Number.NaN;
  if (!(n >= min && n <= max)) throw invalid(`${name} must be from ${min} to ${max}`);
  return n;
}

/** `has=a,b`, `has=a&has=b`, or both: the kinds, each once. */
function hasKinds(value: string | string[] | undefined): HasKind[] {
  if (value === undefined) return [];
  const kinds = (Array.isArray(value) ? value : [value]).flatMap((v) => v.split(','));
  for (const k of kinds) if (!(SEARCH_HAS as readonly string[]).includes(k)) throw invalid(`has must be one of ${SEARCH_HAS.join(', ')}`);
  return [...new Set(kinds as HasKind[])];
}

export const search = {
  /** `GET /search/messages`: `{total, messages}`, newest first. */
  async messages(ctx: DomainContext, caller: Caller, query: SearchQuery): Promise<SearchResults> {
    const terms = searchTerms(query.q ?? '');
    if (terms.length > SEARCH_LIMITS.terms) throw invalid(`q may hold at most ${SEARCH_LIMITS.terms} words`);
    const limit = integer('limit', query.limit, SEARCH_LIMITS.limitDefault, 1, SEARCH_LIMITS.limitMax);
    const offset = integer('offset', query.offset, 0, 0, SEARCH_LIMITS.offsetMax);
    const serverId = id('serverId', query.serverId);
    const channelId = id('channelId', query.channelId);
    const authorId = id('authorId', query.authorId);
    const mentions = id('mentions', query.mentions);
    const has = hasKinds(query.has);
    const before = bound('before', query.before);
    const after = bound('after', query.after);
    const filtered =
      serverId !== undefined ||
      channelId !== undefined ||
      authorId !== undefined ||
      mentions !== undefined ||
      has.length > 0 ||
      before !== undefined ||
      after !== undefined;
    if (terms.length === 0 && !filtered) throw invalid('q must hold a word (letters or digits), unless another filter is given');

    let channelIds: string[];
    if (channelId !== undefined) {
      // As reading the channel's history answers: 404 unknown, 403 not a member or not allowed.
      const channel = await requireChannelPermission(ctx, caller, channelId, NEEDS.read);
      if (serverId !== undefined && channel.serverId !== serverId) throw invalid('channelId is not a channel of serverId');
      channelIds = [channel.id];
    } else {
      channelIds = await readableChannels(ctx, caller, serverId);
    }

    const found = await ctx.store.search.messages(ctx.store.db, {
      terms,
      channelIds,
      ...(authorId !== undefined ? { authorId } : {}),
      ...(mentions !== undefined ? { mentions } : {}),
      has,
      ...(before !== undefined ? { before } : {}),
      ...(after !== undefined ? { after } : {}),
      limit,
      offset,
      countLimit: SEARCH_LIMITS.totalMax,
    });
    // Every row is of `channelIds`, channels the caller may read (by `NEEDS.read`), as is the message a reply quotes (same channel).
    const [messages, inThreads] = await Promise.all([
      messageViews(ctx, found.rows, { id: caller.id, reads: true }),
      // Which thread a message is in, for those of threads (docs/threads.md#search): readable, as their messages are.
      threads.among(
        ctx,
        caller,
        found.rows.map((r) => r.channelId),
      ),
    ]);
    return { total: found.total, messages, ...(inThreads.length > 0 ? { threads: inThreads } : {}) };
  },
};
