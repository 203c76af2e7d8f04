/**
 * A client that stops reading, under load: what it costs the others and the server.
 *
 * `npx tsx bench/slow-consumer.ts [--messages 900] [--workers 4]`
 *
 * Starts Parley as a child process (PORT=0, fresh SQLite, RATE_LIMITS=off), identifies a
 * bot whose client then stops reading its socket and a member who keeps reading, and
 * posts `--messages` messages of the largest allowed content (4000 four-byte code points,
 * about 16 KB of JSON) from `--workers` concurrent posters. It prints the healthy
 * client's delivery latency (from each POST's start to its MESSAGE_CREATE) and the
 * server's resident memory (VmRSS before the load, VmHWM peak after), against the
 * targets below; exits 1 if a target is missed.
 *
 * These were assertions of test/gateway/slow-consumer.test.ts; there they made a
 * correctness test fail on a busy machine. The test keeps the correctness properties
 * (the slow client is dropped part-way, its queue stays under the configured bound, the
 * healthy client gets every message in order, the session resumes).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { joinServer, postMessage, registerUser, world } from '../test/factories.js';
import { TestGatewayClient } from '../test/gateway/client.js';
import { PARLEY_LISTENING, announced } from '../test/harness.js';

const ROOT = path.resolve(import.meta.dirname, '..');

/** What the service should manage on the reference machine (bench/README.md). */
const TARGETS = {
  /** p99 from POST start to MESSAGE_CREATE at the client that keeps reading. */
  p99LatencyMs: 1500,
  /** Peak server RSS above its level before the load: the slow client must not balloon it. */
  rssGrowthBytes: 200e6,
};

const BIG = '🦜'.repeat(4000);

/** VmRSS and VmHWM (peak) of `pid`, in bytes. */
function memoryOf(pid: number): { rss: number; peak: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kib('VmRSS'), peak: kib('VmHWM') };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { messages: { type: 'string', default: '900' }, workers: { type: 'string', default: '4' } } });
  const messages = Number(values.messages);
  const workers = Number(values.workers);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-slow-'));
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      PORT: '0',
      HOST: '127.0.0.1',
      PUBLIC_URL: 'http://127.0.0.1:0',
      DATA_DIR: dataDir,
      RATE_LIMITS: 'off',
      LOG_LEVEL: 'warn',
      GATEWAY_HEARTBEAT_MS: '5000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const clients: TestGatewayClient[] = [];
  try {
    const base = (await announced(child, PARLEY_LISTENING, 60_000))[1]!;
    const gatewayUrl = `${base.replace(/^http:/, 'ws:')}/gateway`;
    const w = await world(base);
    const member = await registerUser(base);
    await joinServer(base, w.owner, member, w.server.id);
    const slow = await TestGatewayClient.identify(gatewayUrl, w.bot.auth);
    const healthy = await TestGatewayClient.identify(gatewayUrl, member.auth);
    clients.push(slow, healthy);
    (slow.ws as unknown as { _socket: { pause(): void } })._socket.pause();

    const started = new Map<string, number>();
    const latency: number[] = [];
    healthy.ws.on('message', (data) => {
      const f = JSON.parse(data.toString());
      if (f.t === 'MESSAGE_CREATE') latency.push(Date.now() - (started.get(f.d.content.slice(-12)) ?? Date.now()));
    });
    const before = memoryOf(child.pid!);
    const t0 = Date.now();
    let next = 0;
    const worker = async () => {
      while (next < messages) {
        const tag = String(next++).padStart(12, '0');
        started.set(tag, Date.now());
        await postMessage(base, w.owner.auth, w.channel.id, BIG.slice(0, -12 * 2) + tag);
      }
    };
    await Promise.all(Array.from({ length: workers }, worker));
    await healthy.collect(messages, (f) => f.t === 'MESSAGE_CREATE', 60_000);
    const elapsed = Date.now() - t0;
    const after = memoryOf(child.pid!);
    (slow.ws as unknown as { _socket: { resume(): void } })._socket.resume();
    const closed = await slow.waitForClose(5000).catch(() => null);

    latency.sort((a, b) => a - b);
    const p99 = percentile(latency, 99);
    const growth = after.peak - before.rss;
    const mb = (b: number) => `${(b / 1e6).toFixed(1)} MB`;
    const verdict = (ok: boolean) => (ok ? 'within target' : 'MISSED');
    console.log(
      `${messages} messages of ~16 KB from ${workers} posters in ${elapsed} ms; slow client closed with ${closed?.code ?? 'nothing (still open)'}`,
    );
    console.log(
      `healthy client latency: p50 ${percentile(latency, 50)} ms, p99 ${p99} ms, max ${latency.at(-1)} ms (target p99 < ${TARGETS.p99LatencyMs} ms: ${verdict(p99 < TARGETS.p99LatencyMs)})`,
    );
    console.log(
      `server memory: VmRSS ${mb(before.rss)} before, VmHWM ${mb(after.peak)} peak; growth ${mb(growth)} (target < ${mb(TARGETS.rssGrowthBytes)}: ${verdict(growth < TARGETS.rssGrowthBytes)})`,
    );
    if (p99 >= TARGETS.p99LatencyMs || growth >= TARGETS.rssGrowthBytes) process.exitCode = 1;
  } finally {
    await Promise.all(clients.map((c) => c.terminate()));
    child.kill('SIGTERM');
    if (child.exitCode === null) await new Promise((r) => child.once('exit', r));
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
