/**
 * Threads and forum posts in the web client (docs/threads.md): loading them through the
 * native routes (docs/api.md#threads), starting, following, archiving and locking them, and
 * keeping the store's `threads` current from `ready` and the THREAD_* events.
 */
import { compareIds } from '@parley/protocol/ids';
import { useSyncExternalStore } from 'react';
import { api, seg } from '../api/client';
import type { Channel, ForumTag, GatewayEvent, Message, SendMessageBody, Thread, ThreadMember } from '../api/types';
import { type State, store } from './store';

const { dispatch, getState } = store;

/** A forum channel (Discord's type 15): its posts are threads, each with a first message. */
export function isForum(channel: Pick<Channel, 'type'> | undefined): boolean {
  return (channel?.type as string | undefined) === 'forum';
}

/** A forum's tags, which its posts may carry. */
export function forumTags(channel: Channel | undefined): ForumTag[] {
  const tags = (channel as (Channel & { availableTags?: ForumTag[] }) | undefined)?.availableTags;
  return Array.isArray(tags) ? tags : [];
}

/**
 * A thread as the message list, composer and typing indicator take a channel: its messages,
 * read state and typing are the channel routes on its id (docs/threads.md).
 */
export function threadChannel(thread: Thread): Channel {
  return {
    id: thread.id,
    serverId: thread.serverId,
    name: thread.name,
    createdAt: thread.createdAt,
    type: 'text',
    lastMessageId: thread.lastMessageId,
  };
}

/** Threads of one parent, newest activity first. */
export function threadsOf(state: Pick<State, 'threads'>, parentId: string, opts: { archived?: boolean } = {}): Thread[] {
  return Object.values(state.threads)
    .filter((th) => th.parentId === parentId && (opts.archived === undefined || th.metadata.archived === opts.archived))
    .sort((a, b) => compareIds(lastActivity(b), lastActivity(a)));
}

/** The id that stands for a thread's latest activity: its newest message, else itself. */
export function lastActivity(thread: Thread): string {
  return thread.lastMessageId && compareIds(thread.lastMessageId, thread.id) > 0 ? thread.lastMessageId : thread.id;
}

// ---------------------------------------------------------------- loading

/** The channel's active threads the person may see (`GET /channels/{id}/threads`). */
export async function loadActiveThreads(channelId: string): Promise<Thread[]> {
  const { threads } = await api.get<{ threads: Thread[] }>(`/channels/${seg(channelId)}/threads`);
  const channel = Object.values(getState().channels)
    .flat()
    .find((c) => c.id === channelId);
  if (channel) dispatch({ type: 'threads/sync', serverId: channel.serverId, parentIds: [channelId], threads });
  else dispatch({ type: 'threads/upsert', threads });
  return threads;
}

export interface ArchivedPage {
  threads: Thread[];
  hasMore: boolean;
}

/** One page of a channel's archived threads, newest archive first (`before`: the last page's oldest archive time). */
export async function loadArchivedThreads(
  channelId: string,
  opts: { before?: string; type?: Thread['type']; limit?: number } = {},
): Promise<ArchivedPage> {
  const q = new URLSearchParams();
  if (opts.type) q.set('type', opts.type);
  if (opts.before) q.set('before', opts.before);
  q.set('limit', String(opts.limit ?? 25));
  const page = await api.get<ArchivedPage>(`/channels/${seg(channelId)}/threads/archived?${q}`);
  dispatch({ type: 'threads/upsert', threads: page.threads });
  return page;
}

const fetching = new Map<string, Promise<Thread>>();

/** One thread (`GET /threads/{id}`): a link to a thread the client did not know, or an archived one. */
export function fetchThread(threadId: string): Promise<Thread> {
  let p = fetching.get(threadId);
  if (!p) {
    p = api.get<Thread>(`/threads/${seg(threadId)}`).then((thread) => {
      dispatch({ type: 'threads/upsert', threads: [thread] });
      return thread;
    });
    p.finally(() => fetching.delete(threadId)).catch(() => undefined);
    fetching.set(threadId, p);
  }
  return p;
}

/** The message a thread was started from, in its parent (its id is the thread's), or null. */
export async function fetchStarter(thread: Pick<Thread, 'id' | 'parentId'>): Promise<Message | null> {
  const held = getState().messages[thread.parentId]?.items.find((m) => m.id === thread.id);
  if (held) return held;
  try {
    return await api.get<Message>(`/channels/${seg(thread.parentId)}/messages/${seg(thread.id)}`);
  } catch {
    return null;
  }
}

// ---------------------------------------------------------------- changes

export interface NewThread {
  name: string;
  type?: Thread['type'];
  autoArchiveDuration?: number;
  /** Forum posts: the first message, and the tags it carries. */
  message?: SendMessageBody;
  appliedTags?: string[];
}

/** Starts a thread in a channel, or a post in a forum (`POST /channels/{id}/threads`). */
export async function createThread(channelId: string, body: NewThread): Promise<Thread> {
  const thread = await api.post<Thread>(`/channels/${seg(channelId)}/threads`, body);
  dispatch({ type: 'threads/upsert', threads: [thread] });
  return thread;
}

/** Starts a thread from a message (`POST /channels/{id}/messages/{messageId}/threads`): the thread takes the message's id. */
export async function createThreadFromMessage(
  channelId: string,
  messageId: string,
  body: { name: string; autoArchiveDuration?: number },
): Promise<Thread> {
  const thread = await api.post<Thread>(`/channels/${seg(channelId)}/messages/${seg(messageId)}/threads`, body);
  dispatch({ type: 'threads/upsert', threads: [thread] });
  return thread;
}

export type ThreadPatch = Partial<{
  name: string;
  archived: boolean;
  locked: boolean;
  autoArchiveDuration: number;
  invitable: boolean;
  appliedTags: string[];
}>;

/** Renames, archives, locks... a thread (`PATCH /threads/{id}`). */
export async function updateThread(thread: Thread, patch: ThreadPatch): Promise<Thread> {
  const updated = await api.patch<Thread>(`/threads/${seg(thread.id)}`, patch);
  dispatch({ type: 'threads/upsert', threads: [updated] });
  return updated;
}

export async function deleteThread(thread: Thread): Promise<void> {
  await api.delete(`/threads/${seg(thread.id)}`);
  dispatch({ type: 'thread/remove', threadId: thread.id });
}

/** Follows a thread (`PUT /threads/{id}/members/@me`): it lists under its parent, and its unread state counts. */
export async function joinThread(thread: Thread): Promise<void> {
  await api.put(`/threads/${seg(thread.id)}/members/@me`);
  const me = getState().me?.id;
  if (me && !getState().threads[thread.id]?.member) {
    const member: ThreadMember = { threadId: thread.id, userId: me, joinTimestamp: new Date().toISOString(), flags: 0 };
    dispatch({ type: 'thread/member', threadId: thread.id, member });
    dispatch({ type: 'thread/count', threadId: thread.id, memberCount: thread.memberCount + 1 });
  }
}

export async function leaveThread(thread: Thread): Promise<void> {
  await api.delete(`/threads/${seg(thread.id)}/members/@me`);
  if (getState().threads[thread.id]?.member) {
    dispatch({ type: 'thread/member', threadId: thread.id, member: null });
    dispatch({ type: 'thread/count', threadId: thread.id, memberCount: Math.max(0, thread.memberCount - 1) });
  }
}

// ---------------------------------------------------------------- gateway

/** `ready`'s active threads per server (each with the session's own membership). */
export function applyReadyThreads(servers: unknown): void {
  if (!Array.isArray(servers)) return;
  for (const s of servers as { id: string; threads?: Thread[] }[]) {
    if (Array.isArray(s.threads)) dispatch({ type: 'threads/sync', serverId: s.id, threads: s.threads });
  }
}

/** The THREAD_* events (docs/gateway.md). */
export function applyThreadEvent(event: GatewayEvent): void {
  switch (event.t) {
    case 'THREAD_CREATE':
    case 'THREAD_UPDATE':
      dispatch({ type: 'threads/upsert', threads: [event.d] });
      break;
    case 'THREAD_DELETE':
      dispatch({ type: 'thread/remove', threadId: event.d.id });
      break;
    case 'THREAD_MEMBER_UPDATE': {
      const { serverId: _server, ...member } = event.d;
      dispatch({ type: 'thread/member', threadId: member.threadId, member });
      break;
    }
    case 'THREAD_MEMBERS_UPDATE': {
      const d = event.d;
      dispatch({ type: 'thread/count', threadId: d.id, memberCount: d.memberCount });
      const me = getState().me?.id;
      if (me && d.removedMemberIds?.includes(me)) dispatch({ type: 'thread/member', threadId: d.id, member: null });
      const mine = d.addedMembers?.find((m) => m.userId === me);
      if (mine) dispatch({ type: 'thread/member', threadId: d.id, member: mine });
      break;
    }
    case 'THREAD_LIST_SYNC': {
      const d = event.d;
      const members = new Map(d.members.map((m) => [m.threadId, m]));
      const threads = d.threads.map((th) => {
        const member = th.member ?? members.get(th.id);
        return member ? { ...th, member } : th;
      });
      dispatch({ type: 'threads/sync', serverId: d.serverId, parentIds: d.channelIds, threads });
      break;
    }
    default:
      break;
  }
}

// ---------------------------------------------------------------- starting a thread

/** What the "new thread" form starts from: a channel, and maybe one of its messages. */
export interface ThreadDraft {
  parentId: string;
  serverId: string;
  message?: Message;
}

let draft: ThreadDraft | null = null;
const draftListeners = new Set<() => void>();

/** Opens the "new thread" form beside the channel (the message menu's "Create thread", the threads list's "New thread"). */
export function startThreadDraft(next: ThreadDraft | null): void {
  draft = next;
  for (const l of draftListeners) l();
}

export function useThreadDraft(): ThreadDraft | null {
  return useSyncExternalStore(
    (l) => {
      draftListeners.add(l);
      return () => draftListeners.delete(l);
    },
    () => draft,
  );
}

/** A thread's name from its starter message, as Discord and Slack prefill it. */
export function nameFrom(message: Pick<Message, 'content' | 'attachments'> | undefined): string {
  const text = (message?.content ?? '')
    .replace(/<@[!&]?\d+>|<#\d+>/g, '')
    .replace(/[*_~`>|]+/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  if (text) return text.length > 100 ? `${text.slice(0, 99).trimEnd()}…` : text;
  return message?.attachments?.[0]?.filename ?? '';
}

// ---------------------------------------------------------------- forum previews

const previews = new Map<string, Promise<Message | null>>();
const waiting: Array<() => void> = [];
let running = 0;
/** At most this many first messages asked for at once (a forum opens with many posts). */
const PREVIEW_CONCURRENCY = 4;

function slot<T>(work: () => Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const start = () => {
      running++;
      work()
        .then(resolve, reject)
        .finally(() => {
          running--;
          waiting.shift()?.();
        });
    };
    if (running < PREVIEW_CONCURRENCY) start();
    else waiting.push(start);
  });
}

/**
 * A forum post's first message, for its card: the message that takes the post's id, inside
 * it (docs/threads.md#forum-posts); held messages first, else one `GET`, once per post.
 */
export function postPreview(post: Pick<Thread, 'id'>): Promise<Message | null> {
  const held = getState().messages[post.id]?.items.find((m) => m.id === post.id);
  if (held) return Promise.resolve(held);
  let p = previews.get(post.id);
  if (!p) {
    p = slot(() => api.get<Message>(`/channels/${seg(post.id)}/messages/${seg(post.id)}`)).catch(() => null);
    previews.set(post.id, p);
  }
  return p;
}
