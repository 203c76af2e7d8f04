import type { PresenceStatus } from '@parley/protocol';
import { type DomainContext, notify } from './context.js';

/**
 * Announces that what others see of `userId` changed: to their own sessions and to the
 * members of the servers they are in, except servers of more than `fanoutMax` members:
 * there one person's status would go to every member each time it changes, so their
 * member lists read it from `GET /servers/{id}/members` instead. The rule is in the log
 * entry itself, so a resumed session replays exactly what a live one got.
 */
export async function announcePresence(ctx: DomainContext, userId: string, status: PresenceStatus, fanoutMax: number): Promise<void> {
  const servers = (await ctx.store.servers.ofMember(ctx.store.db, userId)).map((s) => s.id);
  const sizes = await ctx.store.members.counts(ctx.store.db, servers);
  const serverIds = servers.filter((id) => (sizes.get(id) ?? 0) <= fanoutMax);
  // Not to their own sessions: each chose its status, and others are who need to know.
  await notify(ctx, { kind: 'user', userId, serverIds, toSelf: false, event: { t: 'PRESENCE_UPDATE', d: { userId, status } } });
}
