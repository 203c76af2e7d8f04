/**
 * Ids of rows this process has issued and is still writing, oldest first. Ids are issued
 * in increasing order, but with several batches in flight (PostgreSQL) a row can commit
 * after one with a larger id. A reader that stops below the oldest id still in flight
 * never sees a later id before an earlier one, so `after=` paging skips nothing.
 */
export class WriteHorizon {
  // A Set iterates in insertion order, and ids are inserted in increasing order.
  private readonly ids = new Set<string>();

  begin(id: string): void {
    this.ids.add(id);
  }

  end(id: string): void {
    this.ids.delete(id);
  }

  /** The smallest id still being written, if any. */
  oldest(): string | undefined {
    for (const id of this.ids) return id;
    return undefined;
  }
}
