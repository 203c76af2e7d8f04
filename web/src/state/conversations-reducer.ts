/**
 * The store's conversation slices (docs/api.md#messages, docs/api.md#direct-messages): read states, direct messages and
 * notification settings. `reduce` in store.ts hands it every action it does not handle.
 */
import { compareIds } from '@parley/protocol/ids';
import type { DmChannel, ReadState, Thread } from '../api/types';
import type { Action, State } from './store';

/** The read state of a channel never read: before every message. */
export const NEVER_READ = '0';

const newer = (a: string | null | undefined, b: string): boolean => !a || compareIds(a, b) < 0;

/** The channel's or DM's newest message moves on to `id` (never back). */
function withLastMessage(state: State, serverId: string | null, channelId: string, id: string): State {
  const thread = state.threads[channelId];
  if (thread) {
    if (!newer(thread.lastMessageId, id)) return state;
    const next = { ...thread, lastMessageId: id, messageCount: thread.messageCount + 1 };
    return { ...state, threads: { ...state.threads, [channelId]: next } };
  }
  if (serverId) {
    const list = state.channels[serverId];
    const idx = list?.findIndex((c) => c.id === channelId) ?? -1;
    const channel = list?.[idx];
    if (!list || !channel || !newer(channel.lastMessageId, id)) return state;
    const next = list.slice();
    next[idx] = { ...channel, lastMessageId: id };
    return { ...state, channels: { ...state.channels, [serverId]: next } };
  }
  const dm = state.dms[channelId];
  if (!dm || !newer(dm.lastMessageId, id)) return state;
  return { ...state, dms: { ...state.dms, [channelId]: { ...dm, lastMessageId: id } } };
}

function sameState(a: ReadState | undefined, b: ReadState): boolean {
  return !!a && a.lastReadId === b.lastReadId && a.mentionCount === b.mentionCount;
}

export function reduceConversations(state: State, action: Action): State {
  switch (action.type) {
    case 'read/set': {
      const readStates: Record<string, ReadState> = {};
      for (const r of action.states) readStates[r.channelId] = r;
      return { ...state, readStates };
    }
    case 'read/update': {
      if (sameState(state.readStates[action.state.channelId], action.state)) return state;
      return { ...state, readStates: { ...state.readStates, [action.state.channelId]: action.state } };
    }
    case 'read/message': {
      const m = action.message;
      let next = withLastMessage(state, m.serverId ?? null, m.channelId, m.id);
      const current = next.readStates[m.channelId] ?? { channelId: m.channelId, lastReadId: NEVER_READ, mentionCount: 0 };
      if (!newer(current.lastReadId, m.id)) return next;
      let updated: ReadState | null = null;
      // Writing in a channel means having read it, as on Discord.
      if (action.mine || action.reading) updated = { channelId: m.channelId, lastReadId: m.id, mentionCount: 0 };
      else if (action.pings) updated = { ...current, mentionCount: current.mentionCount + 1 };
      if (updated) next = { ...next, readStates: { ...next.readStates, [m.channelId]: updated } };
      return next;
    }
    case 'dms/set': {
      const dms: Record<string, DmChannel> = {};
      for (const dm of action.dms) dms[dm.id] = mergeDm(state.dms[dm.id], dm);
      return { ...state, dms, dmsLoaded: true };
    }
    case 'dm/upsert':
      return { ...state, dms: { ...state.dms, [action.dm.id]: mergeDm(state.dms[action.dm.id], action.dm) } };
    case 'dm/remove': {
      if (!(action.dmId in state.dms)) return state;
      const dms = { ...state.dms };
      delete dms[action.dmId];
      const messages = { ...state.messages };
      delete messages[action.dmId];
      const readStates = { ...state.readStates };
      delete readStates[action.dmId];
      return { ...state, dms, messages, readStates };
    }
    case 'settings/set':
      return { ...state, settings: action.settings };
    case 'blocks/set':
      return { ...state, blocked: Object.fromEntries(action.users.map((u) => [u.id, u])) };
    case 'block/add':
      return { ...state, blocked: { ...state.blocked, [action.user.id]: action.user } };
    case 'block/remove': {
      if (!state.blocked?.[action.userId]) return state;
      const blocked = { ...state.blocked };
      delete blocked[action.userId];
      return { ...state, blocked };
    }
    default:
      return reduceThreads(state, action);
  }
}

/** A thread's newest message and count never move back when an older copy of it arrives. */
function mergeThread(held: Thread | undefined, incoming: Thread): Thread {
  if (!held) return incoming;
  const merged = { ...held, ...incoming };
  // A list without the caller's membership says nothing of it; THREAD_MEMBER_UPDATE does.
  if (!('member' in incoming) && held.member) merged.member = held.member;
  if (held.lastMessageId && newer(incoming.lastMessageId, held.lastMessageId)) {
    merged.lastMessageId = held.lastMessageId;
    merged.messageCount = Math.max(held.messageCount, incoming.messageCount);
  }
  return merged;
}

/** Threads (docs/threads.md): their list by id, and the person's own memberships. */
function reduceThreads(state: State, action: Action): State {
  switch (action.type) {
    case 'threads/upsert': {
      if (action.threads.length === 0) return state;
      const threads = { ...state.threads };
      for (const th of action.threads) threads[th.id] = mergeThread(threads[th.id], th);
      return { ...state, threads };
    }
    case 'threads/sync': {
      const parents = action.parentIds ? new Set(action.parentIds) : null;
      const listed = new Set(action.threads.map((th) => th.id));
      const threads: Record<string, Thread> = {};
      for (const [id, th] of Object.entries(state.threads)) {
        const covered = th.serverId === action.serverId && (!parents || parents.has(th.parentId));
        // Archived ones stay (an archived list, an open panel); active ones not listed went.
        if (covered && !th.metadata.archived && !listed.has(id)) continue;
        threads[id] = th;
      }
      for (const th of action.threads) threads[th.id] = mergeThread(threads[th.id], th);
      return { ...state, threads };
    }
    case 'thread/remove': {
      if (!(action.threadId in state.threads)) return state;
      const threads = { ...state.threads };
      delete threads[action.threadId];
      return { ...state, threads };
    }
    case 'thread/member': {
      const th = state.threads[action.threadId];
      if (!th) return state;
      const next: Thread = { ...th };
      if (action.member) next.member = action.member;
      else delete next.member;
      return { ...state, threads: { ...state.threads, [th.id]: next } };
    }
    case 'thread/count': {
      const th = state.threads[action.threadId];
      if (!th || th.memberCount === action.memberCount) return state;
      return { ...state, threads: { ...state.threads, [th.id]: { ...th, memberCount: action.memberCount } } };
    }
    default:
      return state;
  }
}

/** A DM's newest message never moves back when an older copy of it arrives. */
function mergeDm(held: DmChannel | undefined, incoming: DmChannel): DmChannel {
  if (!held?.lastMessageId || !newer(incoming.lastMessageId, held.lastMessageId)) return incoming;
  return { ...incoming, lastMessageId: held.lastMessageId };
}
