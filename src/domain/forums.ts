import type { ForumTag } from '@parley/protocol';
import { badRequest, forbidden } from '../errors.js';
import { isId } from '../ids.js';
import type { ChannelTable, ForumTagTable } from '../store/schema.js';
import type { DomainContext } from './context.js';
import { cleanName, isSingleEmoji } from './names.js';

/** At most this many tags on a forum, and on a post (Discord's limits). */
export const MAX_FORUM_TAGS = 20;
export const MAX_APPLIED_TAGS = 5;

export type ForumSortOrder = 'latest_activity' | 'creation_date';
export type ForumLayout = 'not_set' | 'list' | 'gallery';

/** What only a forum channel shows (docs/threads.md#forum-channels). */
export interface ForumFields {
  availableTags: ForumTag[];
  defaultAutoArchiveDuration: number | null;
  defaultSortOrder: ForumSortOrder | null;
  defaultForumLayout: ForumLayout;
  defaultReactionEmoji: string | null;
}

/** What a forum's create or PATCH may set besides a channel's. */
export interface ForumSettingsBody {
  availableTags?: ReadonlyArray<{ id?: string; name: string; moderated?: boolean; emoji?: string | null }>;
  defaultAutoArchiveDuration?: number | null;
  defaultSortOrder?: ForumSortOrder | null;
  defaultForumLayout?: ForumLayout;
  defaultReactionEmoji?: string | null;
}

export const tagView = (t: ForumTagTable): ForumTag => ({
  id: String(t.id),
  name: t.name,
  moderated: t.moderated === 1,
  emoji: t.emojiName ?? null,
});

/** A forum's own fields from its channel row and its tags (`tags` may hold other channels' too). */
export function forumFields(c: ChannelTable, tags: readonly ForumTagTable[]): ForumFields {
  return {
    availableTags: tags.filter((t) => String(t.channelId) === c.id).map(tagView),
    defaultAutoArchiveDuration: c.defaultAutoArchiveDuration ?? null,
    defaultSortOrder: (c.defaultSortOrder as ForumSortOrder | null | undefined) ?? null,
    defaultForumLayout: (c.defaultForumLayout as ForumLayout | null | undefined) ?? 'not_set',
    defaultReactionEmoji: c.defaultReactionEmoji ?? null,
  };
}

const DURATIONS = [60, 1440, 4320, 10080];

function cleanEmoji(emoji: string | null | undefined, what: string): string | null {
  if (emoji === undefined || emoji === null || emoji === '') return null;
  if (!isSingleEmoji(emoji)) throw badRequest(`${what} must be a single Unicode emoji`);
  return emoji;
}

/**
 * The columns a forum's settings set, checked; `isForum` false refuses any of them (they
 * mean nothing on another channel), but for `defaultAutoArchiveDuration`, which Discord's
 * text channels take too and which is ignored there. Tags are apart (`checkForumTags`).
 */
export function forumColumns(
  body: ForumSettingsBody,
  isForum: boolean,
): Partial<Pick<ChannelTable, 'defaultAutoArchiveDuration' | 'defaultSortOrder' | 'defaultForumLayout' | 'defaultReactionEmoji'>> {
  const out: ReturnType<typeof forumColumns> = {};
  const given =
    body.availableTags !== undefined ||
    (body.defaultAutoArchiveDuration !== undefined && isForum) ||
    body.defaultSortOrder !== undefined ||
    body.defaultForumLayout !== undefined ||
    body.defaultReactionEmoji !== undefined;
  if (!given) return out;
  if (!isForum) throw badRequest('available tags and forum defaults belong to forum channels only');
  if (body.defaultAutoArchiveDuration !== undefined) {
    const d = body.defaultAutoArchiveDuration;
    if (d !== null && !DURATIONS.includes(d)) throw badRequest('defaultAutoArchiveDuration must be 60, 1440, 4320 or 10080');
    out.defaultAutoArchiveDuration = d;
  }
  if (body.defaultSortOrder !== undefined) out.defaultSortOrder = body.defaultSortOrder;
  if (body.defaultForumLayout !== undefined)
    out.defaultForumLayout = body.defaultForumLayout === 'not_set' ? null : body.defaultForumLayout;
  if (body.defaultReactionEmoji !== undefined) out.defaultReactionEmoji = cleanEmoji(body.defaultReactionEmoji, 'defaultReactionEmoji');
  return out;
}

/**
 * A forum's new list of tags, as Discord's channel PATCH takes `available_tags`: the whole
 * list, in order; an item with an `id` keeps (and changes) that tag of this forum, one
 * without is a new tag; tags left out are removed. At most 20, names 1 to 20 characters and
 * distinct. A removed tag stays in the `appliedTags` of posts that carried it (as on
 * Discord), where clients no longer find it among the forum's tags.
 */
export function checkForumTags(
  ctx: DomainContext,
  channelId: string,
  wanted: NonNullable<ForumSettingsBody['availableTags']>,
  existing: readonly ForumTagTable[],
): ForumTagTable[] {
  if (wanted.length > MAX_FORUM_TAGS) throw badRequest(`a forum has at most ${MAX_FORUM_TAGS} tags`);
  const mine = new Set(existing.map((t) => String(t.id)));
  const names = new Set<string>();
  const ids = new Set<string>();
  return wanted.map((t, i) => {
    const name = cleanName(t.name, `availableTags[${i}].name`, 20);
    const key = name.toLowerCase();
    if (names.has(key)) throw badRequest(`availableTags[${i}].name is used twice`);
    names.add(key);
    let id: string;
    if (t.id !== undefined && t.id !== null) {
      if (!isId(t.id) || !mine.has(t.id)) throw badRequest(`availableTags[${i}].id names no tag of this forum`);
      if (ids.has(t.id)) throw badRequest(`availableTags[${i}].id is named twice`);
      id = t.id;
    } else id = ctx.store.ids.next();
    ids.add(id);
    return {
      id,
      channelId,
      name,
      moderated: t.moderated ? 1 : 0,
      emojiId: null,
      emojiName: cleanEmoji(t.emoji, `availableTags[${i}].emoji`),
      position: i,
    };
  });
}

/**
 * A post's new `appliedTags`, checked against its forum's tags: at most 5, each a tag of
 * the forum, none twice (400 `invalid_body`); putting on or taking off a moderated tag takes
 * MANAGE_THREADS (403 `missing_permission`). `before`: the post's tags until now.
 */
export function checkAppliedTags(
  wanted: readonly string[],
  tags: readonly ForumTagTable[],
  before: readonly string[],
  managesThreads: boolean,
): string[] {
  if (wanted.length > MAX_APPLIED_TAGS) throw badRequest(`a post carries at most ${MAX_APPLIED_TAGS} tags`);
  const byId = new Map(tags.map((t) => [String(t.id), t]));
  const out: string[] = [];
  for (const [i, id] of wanted.entries()) {
    if (!byId.has(id)) throw badRequest(`appliedTags[${i}] names no tag of this forum`);
    if (out.includes(id)) throw badRequest(`appliedTags[${i}] is named twice`);
    out.push(id);
  }
  if (!managesThreads) {
    const changed = [...out.filter((id) => !before.includes(id)), ...before.filter((id) => !out.includes(id))];
    if (changed.some((id) => byId.get(id)?.moderated === 1))
      throw forbidden('missing_permission', 'a moderated tag is put on or taken off by MANAGE_THREADS only');
  }
  return out;
}
