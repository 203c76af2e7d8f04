import type { Tx } from '../store/index.js';
import type { ChannelGrant } from './access.js';
import type { DomainContext } from './context.js';
import type { Caller } from './types.js';

/** When a thread last active at `from` (ms) archives itself after `minutes` without activity. */
export const archiveDue = (from: number, minutes: number): string => new Date(from + minutes * 60_000).toISOString();

/**
 * What a post in a thread does to it, in the post's transaction (docs/threads.md#activity):
 * the thread counts the message and its auto-archive time starts again; an archived thread
 * unarchives (the permission check let the poster post, so it is not locked to them); the
 * poster joins it, as on Discord. Whether it unarchived and whether the poster joined.
 */
export async function recordThreadPost(
  ctx: DomainContext,
  tx: Tx,
  grant: Pick<ChannelGrant, 'id' | 'thread'>,
  poster: Pick<Caller, 'id'>,
): Promise<{ unarchived: boolean; joined: boolean }> {
  const thread = await ctx.store.threads.byId(tx, grant.id);
  if (!thread) return { unarchived: false, joined: false };
  const now = ctx.clock();
  const at = new Date(now).toISOString();
  const unarchived = thread.archived === 1;
  if (unarchived) await ctx.store.threads.update(tx, grant.id, { archived: 0, archiveTimestamp: at });
  await ctx.store.threads.countMessage(tx, grant.id, archiveDue(now, thread.autoArchiveDuration));
  const joined = await ctx.store.threadMembers.add(tx, { threadId: grant.id, userId: poster.id, joinTimestamp: at, flags: 0 });
  return { unarchived, joined };
}
