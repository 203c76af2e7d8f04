/**
 * Deterministic interleavings for race tests. A race between two requests depends on
 * timing over HTTP; here the other party's action runs exactly in the window under test
 * (after the action read, before it writes), against the real store of a real server.
 */
import type { DomainContext } from '../../src/domain/context.js';
import type { Store } from '../../src/store/index.js';

/** `ctx` whose store runs `before` once, just before the first write the action makes. */
export function beforeFirstWrite(ctx: DomainContext, before: () => Promise<unknown>): DomainContext {
  let pending = true;
  const first = async () => {
    if (pending) {
      pending = false;
      await before();
    }
  };
  // A new message is written through `writeMessage` (on PostgreSQL, batched), the rest through `write`.
  const store: Store = Object.create(ctx.store, {
    write: {
      value: async (work: Parameters<Store['write']>[0]) => {
        await first();
        return ctx.store.write(work);
      },
    },
    writeMessage: {
      value: async (...args: Parameters<Store['writeMessage']>) => {
        await first();
        return ctx.store.writeMessage(...args);
      },
    },
  });
  return { ...ctx, store };
}
