/**
 * Messages on their way out. Sending clears the composer at once; until the service has the
 * message it is listed here (greyed, with a spinner), one channel's sends go out in order,
 * and the waits are visible: "Slow down — sending in 3 s" after a 429 (sent by itself once
 * allowed), "No connection — retrying in 2 s" when the server cannot be reached.
 */
import { useSyncExternalStore } from 'react';
import type { Message } from '../api/types';
import { sendMessage } from './actions';

export interface Outgoing {
  id: number;
  channelId: string;
  /** What the person typed (names, not ids), as shown while it waits. */
  text: string;
  files: number;
  state: 'sending' | 'rate-limited' | 'offline';
  /** When the next attempt goes out (ms since the epoch), while waiting. */
  retryAt?: number;
}

let items: Outgoing[] = [];
let nextId = 1;
const listeners = new Set<() => void>();
/** The last send of each channel: the next one starts after it, so messages keep their order. */
const tails = new Map<string, Promise<unknown>>();

function set(next: Outgoing[]) {
  items = next;
  for (const l of listeners) l();
}

function update(id: number, patch: Partial<Outgoing>) {
  set(items.map((i) => (i.id === id ? { ...i, ...patch } : i)));
}

/** How many times a send is retried when the server cannot be reached. */
const OFFLINE_RETRIES = 3;

/** Sends through the outbox; resolves with the message, rejects when it finally failed. */
export function queueSend(
  channelId: string,
  display: { text: string; files: number },
  ...args: Parameters<typeof sendMessage> extends [string, ...infer Rest] ? Rest : never
): Promise<Message> {
  const [content, attachments, extra] = args;
  const id = nextId++;
  set([...items, { id, channelId, text: display.text, files: display.files, state: 'sending' }]);
  const previous = tails.get(channelId) ?? Promise.resolve();
  const run = previous
    .catch(() => undefined)
    .then(() =>
      sendMessage(channelId, content, attachments, extra, {
        offlineRetries: OFFLINE_RETRIES,
        onRetry: (waitMs, reason) => update(id, { state: reason, retryAt: Date.now() + waitMs }),
      }),
    )
    .finally(() => {
      set(items.filter((i) => i.id !== id));
      if (tails.get(channelId) === run) tails.delete(channelId);
    });
  tails.set(channelId, run);
  return run;
}

const EMPTY: Outgoing[] = [];
let lastAll: Outgoing[] = [];
const byChannel = new Map<string, Outgoing[]>();

/** The channel's messages still on their way out, oldest first. */
export function useOutbox(channelId: string): Outgoing[] {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => {
      if (lastAll !== items) {
        lastAll = items;
        byChannel.clear();
      }
      let mine = byChannel.get(channelId);
      if (!mine) {
        const found = items.filter((i) => i.channelId === channelId);
        mine = found.length ? found : EMPTY;
        byChannel.set(channelId, mine);
      }
      return mine;
    },
  );
}
