import type { ThreadAudience } from '../events/types.js';
import type { Store } from '../store/index.js';

/** What never changes about a channel as a thread: its parent and kind; null for a channel that is not a thread. */
type Fact = Pick<ThreadAudience, 'parentId' | 'private'> | null;

/**
 * Which channels are threads, per instance, for the events of a channel's content
 * (`notifyChannel`): a thread's parent and kind never change, and a channel never becomes a
 * thread, so an answer about an existing channel is kept for good (a bounded map that
 * starts over when full). An id that names no channel is not kept: a thread started from a
 * message takes the message's id. A channel's first
 * event on an instance costs one indexed read; every later one, none.
 */
export class ThreadFacts {
  private readonly facts = new Map<string, Fact>();

  constructor(private readonly max = 100_000) {}

  /** The thread's parent and kind, or null when `channelId` is not a thread. */
  async of(store: Store, channelId: string): Promise<Fact> {
    const known = this.facts.get(channelId);
    if (known !== undefined) return known;
    const row = await store.threads.kindOf(store.db, channelId);
    // An id that names no channel yet may become a thread's (a message's, started from): nothing is kept for it.
    if (!row) return null;
    const fact: Fact =
      typeof row.parentId === 'string' && (row.type === 'public_thread' || row.type === 'private_thread')
        ? { parentId: row.parentId, private: row.type === 'private_thread' }
        : null;
    this.keep(channelId, fact);
    return fact;
  }

  /** What a caller already knows (a new thread, a permission check's grant). */
  keep(channelId: string, fact: Fact): void {
    if (this.facts.size >= this.max) this.facts.clear();
    this.facts.set(channelId, fact);
  }
}
