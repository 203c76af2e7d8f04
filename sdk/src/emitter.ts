/** Maps each event name of `E` to the argument list its listeners receive. */
export type EventMap<E> = { [K in keyof E]: unknown[] };

/** A listener of event `K` of map `E`; it may be async. */
export type Listener<E extends EventMap<E>, K extends keyof E> = (...args: E[K]) => unknown;

/**
 * A small typed event emitter. Unlike Node's, a listener that throws (or returns a
 * rejected promise) does not crash the caller: the failure is passed to `onListenerError`,
 * so one buggy handler cannot take a bot's connection down.
 */
export class TypedEmitter<E extends EventMap<E>> {
  readonly #listeners = new Map<keyof E, Array<{ fn: Listener<E, keyof E>; once: boolean }>>();

  /** Called when a listener throws or rejects; subclasses route it to their `error` event. */
  protected onListenerError(error: unknown, event: keyof E): void {
    console.error(`[parley] listener of '${String(event)}' failed:`, error);
  }

  /** Adds a listener; returns a function that removes it. */
  on<K extends keyof E>(event: K, listener: Listener<E, K>): () => void {
    this.#add(event, listener, false);
    return () => this.off(event, listener);
  }

  /** Adds a listener that runs at most once. */
  once<K extends keyof E>(event: K, listener: Listener<E, K>): () => void {
    this.#add(event, listener, true);
    return () => this.off(event, listener);
  }

  /** Removes a listener added with `on` or `once`. */
  off<K extends keyof E>(event: K, listener: Listener<E, K>): void {
    const list = this.#listeners.get(event);
    if (!list) return;
    const index = list.findIndex((entry) => entry.fn === listener);
    if (index !== -1) list.splice(index, 1);
  }

  /** Number of listeners currently registered for `event`. */
  listenerCount(event: keyof E): number {
    return this.#listeners.get(event)?.length ?? 0;
  }

  /**
   * Resolves with the arguments of the next `event` that satisfies `filter`; rejects
   * after `timeoutMs` (default 10 s) or when `signal` aborts.
   */
  waitFor<K extends keyof E>(
    event: K,
    options: { filter?: (...args: E[K]) => boolean; timeoutMs?: number; signal?: AbortSignal } = {},
  ): Promise<E[K]> {
    const { filter, timeoutMs = 10_000, signal } = options;
    return new Promise<E[K]>((resolve, reject) => {
      const cleanup = () => {
        clearTimeout(timer);
        this.off(event, listener);
        signal?.removeEventListener('abort', onAbort);
      };
      const listener = ((...args: E[K]) => {
        if (filter && !filter(...args)) return;
        cleanup();
        resolve(args);
      }) as Listener<E, K>;
      const onAbort = () => {
        cleanup();
        reject(signal?.reason ?? new Error('aborted'));
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`timed out after ${timeoutMs} ms waiting for '${String(event)}'`));
      }, timeoutMs);
      this.on(event, listener);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Calls every listener of `event`; returns whether there was any. */
  protected emit<K extends keyof E>(event: K, ...args: E[K]): boolean {
    const list = this.#listeners.get(event);
    if (!list || list.length === 0) return false;
    for (const entry of [...list]) {
      if (entry.once) {
        const index = list.indexOf(entry);
        if (index === -1) continue; // already removed by an earlier listener
        list.splice(index, 1);
      }
      try {
        const result = (entry.fn as Listener<E, K>)(...args);
        if (isPromiseLike(result)) result.then(undefined, (error: unknown) => this.onListenerError(error, event));
      } catch (error) {
        this.onListenerError(error, event);
      }
    }
    return true;
  }

  #add<K extends keyof E>(event: K, fn: Listener<E, K>, once: boolean): void {
    let list = this.#listeners.get(event);
    if (!list) {
      list = [];
      this.#listeners.set(event, list);
    }
    list.push({ fn: fn as Listener<E, keyof E>, once });
  }
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}
