/**
 * The owner of work that outlives the request that started it (an interaction's window,
 * its delivery to an HTTP endpoint, an expired session's removal): every task is tracked
 * while it runs, a failure is reported (never an unhandled rejection that could end the
 * process), and `drain` waits for what is in flight on shutdown (docs/ARCHITECTURE.md,
 * "Background work"). Periodic sweeps are app.ts's `periodic`, which reports the same way.
 */
export class Background {
  private readonly running = new Set<Promise<void>>();
  private readonly timers = new Set<NodeJS.Timeout>();
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

  /** Runs `task` after `ms`, owned as `run`'s; cleared by `stop`. Returns a cancel. */
  after(what: string, ms: number, task: () => Promise<unknown>): () => void {
    if (this.stopped) return () => {};
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.run(what, task);
    }, ms);
    timer.unref();
    this.timers.add(timer);
    return () => {
      clearTimeout(timer);
      this.timers.delete(timer);
    };
  }

  /** Starts nothing more, drops the timers not yet due, and resolves once every running task has settled. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
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
