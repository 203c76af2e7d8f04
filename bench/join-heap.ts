/**
 * Heap after adding N bots to one server (single instance, in-process log): what the
 * replay ring and the gateway keep per bot join. Each bot join appends a ROLE_CREATE (its
 * managed role) and a MEMBER_ADD (with the join snapshot Discord's GUILD_CREATE needs).
 *
 *   node --expose-gc --import tsx bench/join-heap.ts [--bots 2000]
 *
 * Prints the heap used after a full GC, and the log's retained entries as JSON bytes.
 */
import { parseArgs } from 'node:util';
import { addBot, createBot, createServer, registerUser } from '../test/factories.js';
import { startServer } from '../test/harness.js';

const { values } = parseArgs({ options: { bots: { type: 'string', default: '2000' } } });
const n = Number(values.bots);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');
const heap = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};
const mib = (b: number) => `${(b / 1024 / 1024).toFixed(1)} MiB`;

const srv = await startServer({ env: { RATE_LIMITS: 'off' } });
try {
  const owner = await registerUser(srv.url, `owner${Date.now().toString(36)}`);
  const { server } = await createServer(srv.url, owner, 'Heap');
  const before = heap();
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < n) {
        const i = next++;
        const bot = await createBot(srv.url, owner, `heap${i}`);
        await addBot(srv.url, owner, server.id, bot.id, ['READ_MESSAGES']);
      }
    }),
  );
  const setup = performance.now() - t0;
  const after = heap();
  const entries = (await srv.app.ctx.bus.readAfter('0')) ?? [];
  let bytes = 0;
  for (const [, e] of entries) bytes += JSON.stringify(e).length;
  console.log(
    `${n} bots: set-up ${(setup / 1000).toFixed(1)} s, heap ${mib(before)} -> ${mib(after)} (+${mib(after - before)}), ` +
      `log ${entries.length} entries, ${mib(bytes)} as JSON`,
  );
} finally {
  await srv.close();
}
