/**
 * Heap after adding N bots to one server (single instance, in-process log): what the
 * replay ring and the gateway keep per bot join. Each bot join appends a ROLE_CREATE (its
 * managed role) and a MEMBER_ADD (with the join snapshot Discord's GUILD_CREATE needs).
 *
 *   node --expose-gc --import tsx bench/join-heap.ts [--bots 2000] [--people 0]
 *
 * `--people K` then has K people join through invites (each MEMBER_ADD carries the model,
 * every role, for the joiner), and prints what those joins added.
 *
 * Prints the heap used after a full GC, and the log's retained entries as JSON bytes.
 */
import { parseArgs } from 'node:util';
import { addBot, createBot, createServer, joinServer, registerUser } from '../test/factories.js';
import { startServer } from '../test/harness.js';

const { values } = parseArgs({ options: { bots: { type: 'string', default: '2000' }, people: { type: 'string', default: '0' } } });
const n = Number(values.bots);
const k = Number(values.people);
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
  if (k > 0) {
    const t1 = performance.now();
    let joined = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (joined < k) {
          joined++;
          await joinServer(srv.url, owner, await registerUser(srv.url), server.id);
        }
      }),
    );
    const people = heap();
    console.log(`${k} people joined: ${((performance.now() - t1) / 1000).toFixed(1)} s, heap +${mib(people - after)}`);
  }
} finally {
  await srv.close();
}
