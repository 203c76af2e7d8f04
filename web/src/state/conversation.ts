/**
 * State for reading and answering messages (docs/api.md#messages) that is not part of the shared
 * store: the reply being written in each channel, the message a jump is heading for, and
 * each channel's pinned messages. A small external store of its own, read with
 * `useConversation(selector)`; gateway events reach it through `applyConversationEvent`.
 */
import { useSyncExternalStore } from 'react';
import { api, seg } from '../api/client';
import type { GatewayEvent, Message } from '../api/types';
import { store } from './store';
import { toast, toastError } from './toasts';
import { t } from '../i18n';

export interface ReplyDraft {
  messageId: string;
  authorId: string;
  authorName: string;
  /** Ping the author (`allowedMentions.repliedUser`); on by default, as on Discord. */
  ping: boolean;
  /** The author is the one replying, or a webhook: there is no one to ping. */
  noPing: boolean;
}

export interface Jump {
  channelId: string;
  messageId: string;
  /** Each jump is new, even to the same message twice. */
  seq: number;
}

export interface Pins {
  /** Most recently pinned first, as the API lists them; null until loaded. */
  items: Message[] | null;
  loading: boolean;
  error: string | null;
}

interface ConversationState {
  replies: Record<string, ReplyDraft>;
  jump: Jump | null;
  pins: Record<string, Pins>;
}

let state: ConversationState = { replies: {}, jump: null, pins: {} };
const listeners = new Set<() => void>();

function set(next: Partial<ConversationState>): void {
  state = { ...state, ...next };
  for (const l of listeners) l();
}

function subscribe(l: () => void): () => void {
  listeners.add(l);
  return () => listeners.delete(l);
}

export function useConversation<T>(selector: (s: ConversationState) => T): T {
  return useSyncExternalStore(subscribe, () => selector(state));
}

// ---------------------------------------------------------------------------
// Replies

/** Listeners that put the cursor in the composer (the chat page registers one). */
const focusComposer = new Set<() => void>();

export function onReplyStarted(fn: () => void): () => void {
  focusComposer.add(fn);
  return () => focusComposer.delete(fn);
}

export function startReply(message: Message): void {
  const meId = store.getState().me?.id;
  const author = message.author;
  const noPing = !author || !!message.webhookId || author.id === meId;
  set({
    replies: {
      ...state.replies,
      [message.channelId]: {
        messageId: message.id,
        authorId: author?.id ?? '',
        authorName: author?.name || t('common.unknown'),
        ping: !noPing,
        noPing,
      },
    },
  });
  for (const fn of focusComposer) fn();
}

/** Puts back a reply whose message could not be sent. */
export function startReplyAgain(channelId: string, reply: ReplyDraft): void {
  if (!state.replies[channelId]) set({ replies: { ...state.replies, [channelId]: reply } });
}

export function cancelReply(channelId: string): void {
  if (!state.replies[channelId]) return;
  const replies = { ...state.replies };
  delete replies[channelId];
  set({ replies });
}

export function setReplyPing(channelId: string, ping: boolean): void {
  const r = state.replies[channelId];
  if (r && !r.noPing) set({ replies: { ...state.replies, [channelId]: { ...r, ping } } });
}

// ---------------------------------------------------------------------------
// Jumping to a message

const AROUND = 50;
let jumpSeq = 0;

/** The id just above `id` (so `before=` it includes `id`): ids are decimal snowflakes. */
export function nextId(id: string): string {
  return (BigInt(id) + 1n).toString();
}

/**
 * Scroll to a message of a channel and flash it (the message list does both once the
 * message is drawn). When it is not loaded, the pages around it are fetched first.
 */
export async function jumpToMessage(channelId: string, messageId: string): Promise<void> {
  const seq = ++jumpSeq;
  set({ jump: { channelId, messageId, seq } });
  const held = store.getState().messages[channelId]?.items.some((m) => m.id === messageId);
  if (held) return;
  try {
    const base = `/channels/${seg(channelId)}/messages?limit=${AROUND}`;
    const [before, after] = await Promise.all([
      api.get<Message[]>(`${base}&before=${encodeURIComponent(nextId(messageId))}`),
      api.get<Message[]>(`${base}&after=${encodeURIComponent(messageId)}`),
    ]);
    if (state.jump?.seq !== seq) return;
    if (!before.some((m) => m.id === messageId)) {
      set({ jump: null });
      toast(t('conversation.thatMessageNoLonger'), 'error');
      return;
    }
    store.dispatch({ type: 'messages/around', channelId, before, after, limit: AROUND });
  } catch (err) {
    if (state.jump?.seq === seq) set({ jump: null });
    toastError(err);
  }
}

/** The message list drew the message and flashed it. */
export function jumpDone(seq: number): void {
  if (state.jump?.seq === seq) set({ jump: null });
}

const newerInflight = new Set<string>();

/** While looking at older history (`hasNewer`): the next page towards the present. */
export async function loadNewer(channelId: string): Promise<void> {
  const ch = store.getState().messages[channelId];
  const after = ch?.items[ch.items.length - 1]?.id;
  if (!ch?.hasNewer || ch.loading || !after || newerInflight.has(channelId)) return;
  newerInflight.add(channelId);
  store.dispatch({ type: 'messages/loading', channelId });
  try {
    const page = await api.get<Message[]>(`/channels/${seg(channelId)}/messages?limit=${AROUND}&after=${encodeURIComponent(after)}`);
    store.dispatch({ type: 'messages/newer', channelId, newestFirst: page, limit: AROUND });
  } catch (err) {
    store.dispatch({ type: 'messages/error', channelId, error: err instanceof Error ? err.message : String(err) });
  } finally {
    newerInflight.delete(channelId);
  }
}

// ---------------------------------------------------------------------------
// Pins

const emptyPins: Pins = { items: null, loading: false, error: null };

function setPins(channelId: string, fn: (p: Pins) => Pins): void {
  set({ pins: { ...state.pins, [channelId]: fn(state.pins[channelId] ?? emptyPins) } });
}

const pinsInflight = new Map<string, Promise<void>>();

/** (Re)load a channel's pins; what is shown stays until the answer comes. */
export function loadPins(channelId: string): Promise<void> {
  const existing = pinsInflight.get(channelId);
  if (existing) return existing;
  setPins(channelId, (p) => ({ ...p, loading: true, error: null }));
  const p = api
    .get<Message[]>(`/channels/${seg(channelId)}/pins`)
    .then((items) => setPins(channelId, () => ({ items, loading: false, error: null })))
    .catch((err) => setPins(channelId, (prev) => ({ ...prev, loading: false, error: err instanceof Error ? err.message : String(err) })))
    .finally(() => pinsInflight.delete(channelId));
  pinsInflight.set(channelId, p);
  return p;
}

/** Pin or unpin; the store's copy follows at once, and the gateway's events confirm it. */
export async function setPinned(message: Message, pinned: boolean): Promise<void> {
  const path = `/channels/${seg(message.channelId)}/pins/${seg(message.id)}`;
  if (pinned) await api.put(path);
  else await api.delete(path);
  const updated = { ...message, pinned };
  if (store.getState().messages[message.channelId]?.items.some((m) => m.id === message.id)) {
    store.dispatch({ type: 'message/upsert', message: updated });
  }
  pinsFollow(updated);
}

/** A message changed: the pins list drops it when unpinned, and holds the new copy when pinned. */
function pinsFollow(message: Message): void {
  const p = state.pins[message.channelId];
  if (!p?.items) return;
  const idx = p.items.findIndex((m) => m.id === message.id);
  if (!message.pinned) {
    if (idx >= 0) setPins(message.channelId, (prev) => ({ ...prev, items: (prev.items ?? []).filter((m) => m.id !== message.id) }));
    return;
  }
  if (idx >= 0) {
    setPins(message.channelId, (prev) => ({
      ...prev,
      items: (prev.items ?? []).map((m) => (m.id === message.id ? { ...m, ...message } : m)),
    }));
  } else {
    // Newly pinned: it goes on top (the list is most recently pinned first).
    setPins(message.channelId, (prev) => ({ ...prev, items: [message, ...(prev.items ?? [])] }));
  }
}

/** Gateway events that change replies being written or pins on screen. */
export function applyConversationEvent(event: GatewayEvent): void {
  switch (event.t) {
    case 'CHANNEL_PINS_UPDATE':
      // The order of pins is the service's to say: reload a list that is held.
      if (state.pins[event.d.channelId]?.items) void loadPins(event.d.channelId);
      break;
    case 'MESSAGE_UPDATE':
      pinsFollow(event.d);
      break;
    case 'MESSAGE_DELETE':
      removed(event.d.channelId, [event.d.id]);
      break;
    case 'MESSAGE_DELETE_BULK':
      removed(event.d.channelId, event.d.ids);
      break;
    case 'CHANNEL_DELETE': {
      cancelReply(event.d.id);
      if (state.pins[event.d.id]) {
        const pins = { ...state.pins };
        delete pins[event.d.id];
        set({ pins });
      }
      break;
    }
    default:
      break;
  }
}

function removed(channelId: string, ids: string[]): void {
  const gone = new Set(ids);
  // Replies to a deleted message say so at once, as they will when next loaded.
  for (const m of store.getState().messages[channelId]?.items ?? []) {
    if (m.messageReference && m.referencedMessage && gone.has(m.messageReference.messageId)) {
      store.dispatch({ type: 'message/upsert', message: { ...m, referencedMessage: null } });
    }
  }
  const reply = state.replies[channelId];
  if (reply && gone.has(reply.messageId)) {
    cancelReply(channelId);
    toast(t('conversation.theMessageYouWere'));
  }
  const p = state.pins[channelId];
  if (p?.items?.some((m) => gone.has(m.id))) {
    setPins(channelId, (prev) => ({ ...prev, items: (prev.items ?? []).filter((m) => !gone.has(m.id)) }));
  }
}
