import { P } from '@parley/protocol';
import type { GatewayEvent, ThreadAudience } from '../events/types.js';
import type { Db, Tx } from '../store/index.js';
import type { ThreadRow } from '../store/repos/threads.js';
import { type DomainContext, notify } from './context.js';
import type { ServerModel } from './permissions.js';
import { type ThreadMemberView, type ThreadView, threadView } from './threads.js';

/**
 * The events of a thread itself (docs/threads.md#events), published after the commit that
 * made the change, each with the thread's audience: a public thread's go to those who may
 * see its parent; a private thread's to its members and to those holding MANAGE_THREADS in
 * the parent (`moderators`), as on Discord; someone's own membership to their sessions alone
 * (`to`). The gateway judges each session by the one permission function (`threadPermissions`,
 * through `mayReceive`).
 */

/** What names a thread and decides its audience. */
type ThreadKey = Pick<ThreadRow, 'id' | 'serverId' | 'parentId' | 'type'>;

/** A thread's audience for its own events; a private thread's members read now unless given. */
async function audienceOf(ctx: DomainContext, t: ThreadKey, o: { members?: string[]; to?: string[] } = {}): Promise<ThreadAudience> {
  const to = o.to ? { to: o.to } : {};
  if (t.type !== 'private_thread') return { parentId: t.parentId, private: false, ...to };
  const members = o.members ?? (await ctx.store.threadMembers.ids(ctx.store.db, t.id));
  return { parentId: t.parentId, private: true, members, moderators: true, ...to };
}

/**
 * Runs an announcement after its commit: a failure to read what it announces (or to publish)
 * is reported, not thrown, since the write it follows is durable (as `notify`).
 */
async function afterCommit(ctx: DomainContext, what: string, announce: () => Promise<void>): Promise<void> {
  try {
    await announce();
  } catch (err) {
    ctx.report(err, `thread event failed: ${what}`);
  }
}

/** A thread's own events (THREAD_LIST_SYNC aside: the gateway makes it per session). */
type ThreadEvent = Extract<
  GatewayEvent,
  { t: 'THREAD_CREATE' | 'THREAD_UPDATE' | 'THREAD_DELETE' | 'THREAD_MEMBERS_UPDATE' | 'THREAD_MEMBER_UPDATE' }
>;

async function publish(ctx: DomainContext, t: ThreadKey, event: ThreadEvent, thread: ThreadAudience) {
  await notify(ctx, { kind: 'event', serverId: t.serverId, event, thread });
}

/** The thread as its events show it: as stored now, with its newest message, without anyone's membership. */
async function currentView(ctx: DomainContext, id: string): Promise<ThreadView | undefined> {
  const row = await ctx.store.threads.byId(ctx.store.db, id);
  if (!row) return undefined;
  const last = await ctx.store.messages.lastIds(ctx.store.db, [id]);
  return threadView(row, last.get(id) ?? null);
}

/** THREAD_CREATE (a thread started) or THREAD_UPDATE (renamed, archived or unarchived, locked, a new duration, `invitable`). */
export function announceThread(ctx: DomainContext, t: 'THREAD_CREATE' | 'THREAD_UPDATE', threadId: string): Promise<void> {
  return afterCommit(ctx, t, async () => {
    const view = await currentView(ctx, threadId);
    if (!view) return;
    await publish(ctx, view, { t, d: view }, await audienceOf(ctx, view));
  });
}

/**
 * THREAD_DELETE, to those who could see the thread before it went (`members`: a private
 * thread's, read before the delete took them). A parent's deletion sends no THREAD_DELETE
 * per thread, as on Discord: its CHANNEL_DELETE says its threads went with it.
 */
export function announceThreadDeleted(ctx: DomainContext, t: ThreadKey, members: string[]): Promise<void> {
  return afterCommit(ctx, 'THREAD_DELETE', async () =>
    publish(
      ctx,
      t,
      { t: 'THREAD_DELETE', d: { id: t.id, serverId: t.serverId, parentId: t.parentId, type: t.type } },
      await audienceOf(ctx, t, { members }),
    ),
  );
}

/**
 * People joined (`added`) or left (`removed`) a thread: THREAD_MEMBERS_UPDATE to those who
 * may see it, the people who left a private thread included (they hear they left, then
 * nothing more of it); and to each who joined, their own THREAD_MEMBER_UPDATE. `created`:
 * someone was added, who first gets the thread itself (THREAD_CREATE with their membership),
 * as on Discord, since they may not have had it.
 */
export function announceMembers(
  ctx: DomainContext,
  threadId: string,
  change: { added?: ThreadMemberView[]; removed?: string[]; created?: boolean },
): Promise<void> {
  return afterCommit(ctx, 'THREAD_MEMBERS_UPDATE', () => membersChanged(ctx, threadId, change));
}

async function membersChanged(
  ctx: DomainContext,
  threadId: string,
  change: { added?: ThreadMemberView[]; removed?: string[]; created?: boolean },
): Promise<void> {
  const view = await currentView(ctx, threadId);
  if (!view) return;
  const audience = await audienceOf(ctx, view);
  const removed = change.removed ?? [];
  const added = change.added ?? [];
  // The thread first, so that the one added has it when the change naming them arrives.
  if (change.created)
    for (const m of added) await publish(ctx, view, { t: 'THREAD_CREATE', d: { ...view, member: m } }, { ...audience, to: [m.userId] });
  await publish(
    ctx,
    view,
    {
      t: 'THREAD_MEMBERS_UPDATE',
      d: {
        id: view.id,
        serverId: view.serverId,
        memberCount: view.memberCount,
        ...(added.length > 0 ? { addedMembers: added } : {}),
        ...(removed.length > 0 ? { removedMemberIds: removed } : {}),
      },
    },
    audience.private ? { ...audience, members: [...(audience.members ?? []), ...removed] } : audience,
  );
  for (const m of added)
    await publish(ctx, view, { t: 'THREAD_MEMBER_UPDATE', d: { ...m, serverId: view.serverId } }, { ...audience, to: [m.userId] });
}

/** A server's active threads (at most `max`, oldest first), as their events show them: for a bot joining it (`JoinSnapshot.threads`). */
export async function activeThreadsOfServer(ctx: DomainContext, db: Db | Tx, serverId: string, max: number): Promise<ThreadView[]> {
  const rows = (await ctx.store.threads.activeOfServer(db, serverId)).slice(0, max);
  if (rows.length === 0) return [];
  const last = await ctx.store.messages.lastIds(
    db,
    rows.map((r) => r.id),
  );
  return rows.map((row) => threadView(row, last.get(row.id) ?? null));
}

/** A parent's active threads with their newest message: what a THREAD_LIST_SYNC lists before it is filtered per session. */
export type ActiveThread = { row: ThreadRow; lastMessageId: string | null };

/** The active threads of `parentIds` (two reads), shared by every session a change showed them to. */
export async function activeThreadsOf(ctx: DomainContext, parentIds: readonly string[]): Promise<ActiveThread[]> {
  const db = ctx.store.db;
  const rows = (await Promise.all(parentIds.map((id) => ctx.store.threads.activeOfParent(db, id)))).flat();
  if (rows.length === 0) return [];
  const last = await ctx.store.messages.lastIds(
    db,
    rows.map((r) => r.id),
  );
  return rows.map((row) => ({ row, lastMessageId: last.get(row.id) ?? null }));
}

/**
 * THREAD_LIST_SYNC's payload for a session that just gained access to `parentIds` in a server
 * (a role, an overwrite: docs/threads.md#events): of their active threads (`activeThreadsOf`),
 * those it may see by its permissions there (`view`: the session's model and roles), with its
 * memberships of them (one read, only when there is a thread to list).
 */
export async function threadListSync(
  ctx: DomainContext,
  caller: { id: string; bot: boolean },
  serverId: string,
  view: { model: ServerModel; roles: readonly string[] },
  parentIds: string[],
  active: readonly ActiveThread[],
): Promise<Extract<GatewayEvent, { t: 'THREAD_LIST_SYNC' }>> {
  const mine =
    active.length === 0
      ? []
      : await ctx.store.threadMembers.ofUser(
          ctx.store.db,
          caller.id,
          active.map((t) => t.row.id),
        );
  const joined = new Map(mine.map((m) => [m.threadId, m]));
  const threads: ThreadView[] = [];
  for (const { row, lastMessageId } of active) {
    const member = joined.get(row.id);
    const bits = view.model.threadPermissions(caller.id, caller.bot, view.roles, row.parentId, {
      private: row.type === 'private_thread',
      locked: row.locked === 1,
      member: member !== undefined,
    });
    if ((bits & P.VIEW_CHANNEL) !== 0n) threads.push(threadView(row, lastMessageId, member));
  }
  return {
    t: 'THREAD_LIST_SYNC',
    d: { serverId, channelIds: parentIds, threads, members: threads.flatMap((t) => (t.member ? [t.member] : [])) },
  };
}
