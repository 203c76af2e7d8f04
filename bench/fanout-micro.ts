/**
 * Per-recipient CPU of the gateway's write path, in one process (issue 17):
 *
 *   npx tsx bench/fanout-micro.ts [--clients 2000] [--rounds 20] [--size 120] [--events 1]
 *
 * N WebSocket connections over loopback (server and client ends in this process, no
 * compression, as the gateway). Each round sends `--events` events to every connection in
 * one turn, each way below, and measures the process's CPU time (user + system) from the
 * first send to the end of the turn, when the last write has been handed to the kernel;
 * then waits, unmeasured, until every client has read the round. Ways:
 *
 * - `bare ws`: `ws.send(sameBytes)` to each connection, the yardstick of issue 17 (the
 *   same bytes to everyone, no sequence number);
 * - `before`: what the gateway did before the outbox: a copy of the shared bytes plus the
 *   sequence number per recipient (`withSeq`), then `ws.send`;
 * - `outbox`: header + shared bytes made once per length (`wsFrame`), the recipient's tail,
 *   written to the corked socket and flushed once at the end of the turn (`Outlet`);
 * - `outbox, lazy`: the same as a typing or presence frame, held for the lazy flush, which
 *   comes after the measured turn: the JavaScript a storm's event costs per recipient.
 *
 * Prints µs of CPU per delivered frame (median of the rounds) and writes per round.
 */
import { parseArgs } from 'node:util';
import { WebSocket, WebSocketServer } from 'ws';
import { EventFrame } from '../src/gateway/frames.js';
import { Outlet, outboxStats } from '../src/gateway/outbox.js';

const { values } = parseArgs({
  options: {
    clients: { type: 'string', default: '2000' },
    rounds: { type: 'string', default: '20' },
    size: { type: 'string', default: '120' },
    events: { type: 'string', default: '1' },
  },
});
const N = Number(values.clients);
const ROUNDS = Number(values.rounds);
const SIZE = Number(values.size);
const EVENTS = Number(values.events);

const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate: false });
await new Promise<void>((r) => wss.once('listening', () => r()));
const port = (wss.address() as { port: number }).port;
const servers: WebSocket[] = [];
wss.on('connection', (ws) => servers.push(ws));

let received = 0;
let expected = 0;
let onAll: (() => void) | null = null;
const clients: WebSocket[] = [];
for (let i = 0; i < N; i++) {
  const c = new WebSocket(`ws://127.0.0.1:${port}`, { perMessageDeflate: false });
  c.on('message', () => {
    if (++received === expected) onAll?.();
  });
  clients.push(c);
  await new Promise<void>((r, j) => (c.once('open', () => r()), c.once('error', j)));
}
while (servers.length < N) await new Promise((r) => setImmediate(r));
const outlets = servers.map((ws) => Outlet.of(ws)!);
const seqs = new Array<number>(N).fill(0);

const content = 'x'.repeat(SIZE);
const event = (i: number) => ({ id: String(1e17 + i), channelId: '1', content, author: { id: '2', name: 'bot' } });

type Way = (round: number) => void;
const ways: Record<string, Way> = {
  'bare ws': (round) => {
    for (let e = 0; e < EVENTS; e++) {
      const bytes = new EventFrame('MESSAGE_CREATE', event(round * EVENTS + e)).withSeq(1);
      for (const ws of servers) ws.send(bytes, { binary: false });
    }
  },
  before: (round) => {
    for (let e = 0; e < EVENTS; e++) {
      const f = new EventFrame('MESSAGE_CREATE', event(round * EVENTS + e));
      for (let i = 0; i < N; i++) servers[i]!.send(f.withSeq(++seqs[i]!), { binary: false });
    }
  },
  outbox: (round) => {
    for (let e = 0; e < EVENTS; e++) {
      const f = new EventFrame('MESSAGE_CREATE', event(round * EVENTS + e));
      for (let i = 0; i < N; i++) {
        const [shared, tail] = f.wsFrame(++seqs[i]!);
        outlets[i]!.write(shared, tail, true);
      }
    }
  },
  // A storm's frames (typing, presence): held for the lazy flush, so the turn pays no write.
  'outbox, lazy': (round) => {
    for (let e = 0; e < EVENTS; e++) {
      const f = new EventFrame('TYPING_START', event(round * EVENTS + e));
      for (let i = 0; i < N; i++) {
        const [shared, tail] = f.wsFrame(++seqs[i]!);
        outlets[i]!.write(shared, tail, false);
      }
    }
  },
};

async function run(name: string, way: Way): Promise<{ us: number; writes: number }> {
  const samples: number[] = [];
  let writes = 0;
  for (let r = 0; r < ROUNDS; r++) {
    expected = received + N * EVENTS;
    const all = new Promise<void>((res) => (onAll = res));
    const flushesBefore = outboxStats.flushes;
    const start = process.cpuUsage();
    way(r);
    // The end of the turn: the outbox's flush (a nextTick queued before this one) has run.
    await new Promise<void>((res) => process.nextTick(res));
    const used = process.cpuUsage(start);
    samples.push((used.user + used.system) / (N * EVENTS));
    writes = name.startsWith('outbox') ? outboxStats.flushes - flushesBefore : N * EVENTS;
    await all;
  }
  samples.sort((a, b) => a - b);
  return { us: samples[Math.floor(samples.length / 2)]!, writes };
}

console.log(`${N} connections, ${EVENTS} event(s) of ~${SIZE + 100} bytes per connection per turn, ${ROUNDS} rounds`);
for (const name of ['bare ws', 'before', 'outbox', 'outbox, lazy', 'bare ws', 'before', 'outbox', 'outbox, lazy']) {
  const { us, writes } = await run(name, ways[name]!);
  console.log(`${name.padEnd(12)} ${us.toFixed(2).padStart(6)} µs CPU per delivered frame   writes per round: ${writes}`);
}
for (const c of clients) c.terminate();
wss.close();
