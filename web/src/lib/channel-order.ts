/**
 * How a server's channels are ordered and grouped (docs/api.md#categories): uncategorised
 * text channels first, then each category, by position, with its channels by position;
 * ties by creation (ids). And the moves a reorder sends (`PATCH /servers/{id}/channels`):
 * the new positions of the channels of one parent, numbered 0, 1, 2… in their new order.
 */
import { compareIds } from '@parley/protocol/ids';
import type { Channel, Overwrite } from '@parley/protocol';

const byPosition = (a: Channel, b: Channel) => (a.position ?? 0) - (b.position ?? 0) || compareIds(a.id, b.id);

/** Categories by position. */
export function sortCategories(categories: readonly Channel[]): Channel[] {
  return [...categories].sort(byPosition);
}

/** Text channels in the order the sidebar lists them; a parent that is not among `categories` counts as none. */
export function sidebarOrder(channels: readonly Channel[], categories: readonly Channel[]): Channel[] {
  return channelGroups(channels, categories).flatMap((g) => g.channels);
}

export interface ChannelGroup {
  /** Null: the channels in no category (listed first, without a header). */
  category: Channel | null;
  channels: Channel[];
}

/** The sidebar's groups: the uncategorised channels, then each category (even an empty one) with its channels. */
export function channelGroups(channels: readonly Channel[], categories: readonly Channel[]): ChannelGroup[] {
  const cats = sortCategories(categories);
  const known = new Set(cats.map((c) => c.id));
  const parentOf = (c: Channel) => (c.parentId && known.has(c.parentId) ? c.parentId : null);
  const sorted = [...channels].sort(byPosition);
  return [
    { category: null, channels: sorted.filter((c) => parentOf(c) === null) },
    ...cats.map((cat) => ({ category: cat, channels: sorted.filter((c) => parentOf(c) === cat.id) })),
  ];
}

const overwriteKey = (o: Overwrite) => `${o.type}:${o.id}:${o.allow}:${o.deny}`;

/** Whether a channel's overwrites equal its category's: it is "synced" (Discord's `permissionsLocked`). */
export function isSynced(channel: Channel, category: Channel | undefined): boolean {
  if (!category) return false;
  const a = (channel.permissionOverwrites ?? []).map(overwriteKey).sort();
  const b = (category.permissionOverwrites ?? []).map(overwriteKey).sort();
  return a.length === b.length && a.every((k, i) => k === b[i]);
}

export interface ChannelMove {
  id: string;
  position: number;
  parentId?: string | null;
  syncPermissions?: boolean;
}

/** The moves that number `ordered` 0, 1, 2… (and give each `parentId`, when set), leaving out those already there. */
export function renumber(ordered: readonly Channel[], parentId?: string | null): ChannelMove[] {
  const moves: ChannelMove[] = [];
  ordered.forEach((c, position) => {
    const reparent = parentId !== undefined && (c.parentId ?? null) !== parentId;
    if (c.position === position && !reparent) return;
    moves.push({ id: c.id, position, ...(reparent ? { parentId } : {}) });
  });
  return moves;
}

/**
 * The moves that put `id` (a channel or a category) at `index` among the channels of
 * `parentId` (null: uncategorised; ignored for a category, which moves among categories).
 */
export function moveTo(
  channels: readonly Channel[],
  categories: readonly Channel[],
  id: string,
  parentId: string | null,
  index: number,
): ChannelMove[] {
  const category = categories.find((c) => c.id === id);
  if (category) {
    const rest = sortCategories(categories).filter((c) => c.id !== id);
    rest.splice(Math.max(0, Math.min(index, rest.length)), 0, category);
    return renumber(rest);
  }
  const channel = channels.find((c) => c.id === id);
  if (!channel) return [];
  const group = channelGroups(channels, categories).find((g) => (g.category?.id ?? null) === parentId);
  const rest = (group?.channels ?? []).filter((c) => c.id !== id);
  rest.splice(Math.max(0, Math.min(index, rest.length)), 0, channel);
  return renumber(rest, parentId);
}

/**
 * One step up or down in the sidebar, as "Move up" / "Move down" and Ctrl+↑/↓ do: within
 * its group, and across a group's edge into the neighbouring group (its last or first
 * place). A category steps among categories. Empty when it cannot move further.
 */
export function stepMove(channels: readonly Channel[], categories: readonly Channel[], id: string, delta: -1 | 1): ChannelMove[] {
  const cats = sortCategories(categories);
  const catIndex = cats.findIndex((c) => c.id === id);
  if (catIndex >= 0) {
    const to = catIndex + delta;
    return to < 0 || to >= cats.length ? [] : moveTo(channels, categories, id, null, to);
  }
  const groups = channelGroups(channels, categories);
  const g = groups.findIndex((x) => x.channels.some((c) => c.id === id));
  const group = groups[g];
  if (!group) return [];
  const at = group.channels.findIndex((c) => c.id === id);
  const to = at + delta;
  if (to >= 0 && to < group.channels.length) return moveTo(channels, categories, id, group.category?.id ?? null, to);
  // Across the edge: into the previous group's end or the next group's start.
  const next = groups[g + delta];
  if (!next) return [];
  return moveTo(channels, categories, id, next.category?.id ?? null, delta < 0 ? next.channels.length : 0);
}
