import type { CommandChoice } from '@parley/protocol';
import type { Background } from '../background.js';

/** Interactions' windows and settings (docs/commands.md), from the configuration. */
export interface InteractionSettings {
  /** A callback must arrive within this long of the interaction (INTERACTION_CALLBACK_MS). */
  callbackMs: number;
  /** Follow-ups and edits of the original answer, this long (INTERACTION_TOKEN_TTL_SECONDS). */
  tokenTtlMs: number;
  /** Outgoing requests may reach private addresses (OUTGOING_ALLOW_PRIVATE). */
  allowPrivate: boolean;
  /** Several instances share the database: an autocomplete answer may land on another one. */
  shared: boolean;
}

/** How often an autocomplete waiting on this instance looks for choices stored by another one. */
const POLL_MS = 200;
/** The window's timer fires this long after the window, so a callback just in time has settled first. */
const WINDOW_MARGIN_MS = 50;

/**
 * What this instance keeps of the interactions in flight: the windows (a callback within
 * `callbackMs`, follow-ups and edits within `tokenTtlMs`, both read on `clock`), the timer
 * that fails an interaction whose callback never came, and the autocomplete requests
 * waiting for their bot's choices. `app.ts` makes one (`ctx.interactions`) and stops it on
 * close: the waiters are answered with no choices and no timer is left behind.
 */
export class InteractionBroker implements InteractionSettings {
  readonly callbackMs: number;
  readonly tokenTtlMs: number;
  readonly allowPrivate: boolean;
  readonly shared: boolean;
  private readonly waiters = new Map<string, (choices: CommandChoice[]) => void>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private stopped = false;

  constructor(
    settings: InteractionSettings,
    /** The service's time (`ctx.clock`). */
    private readonly clock: () => number,
    private readonly background: Background,
    private readonly report: (err: unknown, what: string) => void,
  ) {
    this.callbackMs = settings.callbackMs;
    this.tokenTtlMs = settings.tokenTtlMs;
    this.allowPrivate = settings.allowPrivate;
    this.shared = settings.shared;
  }

  /** Whether the callback window of an interaction made at `createdAt` (ISO) has passed. */
  callbackExpired(createdAt: string): boolean {
    return this.clock() - Date.parse(createdAt) > this.callbackMs;
  }

  /** Whether the token of an interaction made at `createdAt` (ISO) no longer serves follow-ups and edits. */
  tokenExpired(createdAt: string): boolean {
    return this.clock() - Date.parse(createdAt) > this.tokenTtlMs;
  }

  /** Timers armed and autocomplete requests waiting, on this instance. */
  get pending(): number {
    return this.timers.size + this.waiters.size;
  }

  /**
   * Runs `onExpiry` (owned by `ctx.background`, a failure reported as `what`) once an
   * interaction's callback window has passed; its task decides whether a callback came.
   */
  armWindow(what: string, onExpiry: () => Promise<unknown>): void {
    if (this.stopped) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.background.run(what, onExpiry);
    }, this.callbackMs + WINDOW_MARGIN_MS);
    timer.unref();
    this.timers.add(timer);
  }

  /**
   * Resolves with the choices `answer` hands over for interaction `id`, or none once the
   * window ends (or the broker stops). With several instances the callback may land on
   * another one, which stores the choices: `stored` reads them, polled meanwhile.
   */
  waitForChoices(id: string, stored: () => Promise<CommandChoice[] | undefined>): Promise<CommandChoice[]> {
    if (this.stopped) return Promise.resolve([]);
    return new Promise((resolve) => {
      let poll: NodeJS.Timeout | undefined;
      const finish = (choices: CommandChoice[]) => {
        clearTimeout(deadline);
        this.timers.delete(deadline);
        if (poll) {
          clearInterval(poll);
          this.timers.delete(poll);
        }
        this.waiters.delete(id);
        resolve(choices);
      };
      const deadline = setTimeout(() => finish([]), this.callbackMs);
      this.timers.add(deadline);
      this.waiters.set(id, finish);
      if (this.shared) {
        poll = setInterval(() => {
          stored().then(
            (choices) => {
              if (choices) finish(choices);
            },
            // A failed read is one missed poll; the window's end answers at the latest.
            (err: unknown) => this.report(err, 'autocomplete poll failed'),
          );
        }, POLL_MS);
        this.timers.add(poll);
      }
    });
  }

  /** Hands an autocomplete's choices to its request, if it waits on this instance. */
  answer(id: string, choices: CommandChoice[]): void {
    this.waiters.get(id)?.(choices);
  }

  /** Arms nothing more, answers every waiting autocomplete with no choices, and clears the timers. */
  stop(): void {
    this.stopped = true;
    for (const finish of [...this.waiters.values()]) finish([]);
    for (const t of this.timers) {
      clearTimeout(t);
      clearInterval(t);
    }
    this.timers.clear();
  }
}
