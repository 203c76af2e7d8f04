/**
 * The owner of work that outlives the request that started it (an interaction's delivery
 * to an HTTP endpoint, the end of its window, an expired session's removal): every task is
 * tracked while it runs, a failure is reported (never an unhandled rejection that could end
 * the process), and `stop` waits for what is in flight on shutdown (docs/ARCHITECTURE.md,
 * "Background work has an owner"). Periodic sweeps are app.ts's `periodic`, which reports the
 * same way; the timers of interactions' windows are the `InteractionBroker`'s.
 */
export class Background {
  private readonly running = new Set<Promise<void>>();
  private stopped = false;

  constructor(private readonly report: (err: unknown, what: string) => void) {}

  /** How many tasks are running now. */
  get inFlight(): number {
    return this.running.size;
  }

  /** Runs `task` now, owned: a failure is reported under `what`. After `stop` nothing new starts. */
  run(what: string, task: () => Promise<unknown>): void {
    if (this.stopped) return;
    const done: Promise<void> = Promise.resolve()
      .then(task)
      .then(
        () => undefined,
        (err: unknown) => this.fail(err, what),
      )
      .finally(() => this.running.delete(done));
    this.running.add(done);
  }

  /** Starts nothing more, and resolves once every running task has settled. */
  async stop(): Promise<void> {
    this.stopped = true;
    while (this.running.size > 0) await Promise.all([...this.running]);
  }

  private fail(err: unknown, what: string): void {
    try {
      this.report(err, what);
    } catch {
      // A reporter that throws must not turn a reported failure into an unhandled one.
    }
  }
}
