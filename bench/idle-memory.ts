/**
 * Idle memory of the production build: what an instance nobody uses keeps resident.
 *
 *   npm run build && npx tsx bench/idle-memory.ts [--samples 12] [--interval 5000] [--settle 2000] [--rss-only]
 *
 * Starts the service as `npm start` does (the `start` script of package.json, so the same
 * `node` flags, on the built `dist/server/main.js`) on a fresh SQLite data directory with
 * PORT=0, plus a preloaded probe (bench/memory-probe.mjs) that answers process.memoryUsage()
 * over IPC. Once it listens it makes a first request of each kind an idle instance sees
 * (GET /healthz, GET / for the web client), waits `--settle` ms, then takes `--samples`
 * samples `--interval` ms apart: RSS (VmRSS from /proc, the figure `ps` shows), V8 heap
 * used and total, external memory and array buffers. Prints each sample, the first one
 * (just after start) and the median of the last three (idle, once V8 has collected and
 * given back what start-up left: it does so at its first garbage collection after
 * start, which an idle process reaches only as its few timers allocate).
 * Environment variables given to this script (DATABASE_URL, REDIS_URL, ...) pass through.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { PARLEY_LISTENING, announced } from '../test/harness.js';

const ROOT = path.resolve(import.meta.dirname, '..');

const { values } = parseArgs({
  options: {
    samples: { type: 'string', default: '12' },
    interval: { type: 'string', default: '5000' },
    settle: { type: 'string', default: '2000' },
    'rss-only': { type: 'boolean', default: false },
  },
});
const samples = Number(values.samples);
const interval = Number(values.interval);
const settle = Number(values.settle);

const main = path.join(ROOT, 'dist', 'server', 'main.js');
if (!fs.existsSync(main)) {
  console.error('dist/server/main.js is missing: run `npm run build` first');
  process.exit(2);
}

/** `node <flags> dist/server/main.js` from package.json's start script: the flags npm start uses. */
function startFlags(): string[] {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const words = pkg.scripts.start!.trim().split(/\s+/);
  if (words[0] !== 'node' || words.at(-1) !== 'dist/server/main.js') throw new Error(`unexpected start script: ${pkg.scripts.start}`);
  return words.slice(1, -1);
}

interface Usage {
  rss: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const mb = (n: number) => (n / 1024 / 1024).toFixed(1);

function vmRss(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /VmRSS:\s+(\d+) kB/.exec(status);
  if (!kb) throw new Error('no VmRSS');
  return Number(kb[1]) * 1024;
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-idle-'));
const flags = startFlags();
// The probe's IPC channel costs memory of its own: --rss-only leaves it out and reads RSS alone.
const rssOnly = values['rss-only'];
const probe = rssOnly ? [] : ['--import', path.join(ROOT, 'bench', 'memory-probe.mjs')];
const child = spawn(process.execPath, [...flags, ...probe, main], {
  cwd: ROOT,
  env: { ...process.env, PORT: '0', HOST: '127.0.0.1', PUBLIC_URL: 'http://127.0.0.1:0', DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
  stdio: rssOnly ? ['ignore', 'pipe', 'pipe'] : ['ignore', 'pipe', 'pipe', 'ipc'],
});
child.stderr!.on('data', (d: Buffer) => process.stderr.write(d));

const usage = () =>
  new Promise<Usage>((resolve) => {
    if (rssOnly) return resolve({ rss: 0, heapTotal: 0, heapUsed: 0, external: 0, arrayBuffers: 0 });
    child.once('message', (m) => resolve(m as Usage));
    child.send('usage');
  });

try {
  const [, base] = await announced(child, PARLEY_LISTENING);
  console.log(`node ${[...flags, 'dist/server/main.js'].join(' ')} (Node ${process.version}, SQLite in ${dataDir})`);
  for (const url of [`${base}/healthz`, `${base}/`]) {
    const res = await fetch(url, { headers: { accept: url.endsWith('/') ? 'text/html' : 'application/json' } });
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`${url}: ${res.status}`);
  }
  await sleep(settle);
  const rows: Usage[] = [];
  console.log('     s   rss MB  heapUsed  heapTotal  external  arrayBuffers');
  const started = Date.now();
  for (let i = 0; i < samples; i++) {
    if (i > 0) await sleep(interval);
    const u = await usage();
    u.rss = vmRss(child.pid!);
    rows.push(u);
    console.log(
      `${String(Math.round((Date.now() - started + settle) / 1000)).padStart(6)} ${mb(u.rss).padStart(8)} ${mb(u.heapUsed).padStart(9)} ${mb(u.heapTotal).padStart(10)} ${mb(u.external).padStart(9)} ${mb(u.arrayBuffers).padStart(13)}`,
    );
  }
  const line = (label: string, rs: Usage[]) => {
    const median = (key: keyof Usage) => rs.map((r) => r[key]).sort((a, b) => a - b)[Math.floor(rs.length / 2)]!;
    console.log(
      `${label} rss ${mb(median('rss'))} MB, heap used ${mb(median('heapUsed'))} of ${mb(median('heapTotal'))} MB, external ${mb(median('external'))} MB, array buffers ${mb(median('arrayBuffers'))} MB`,
    );
  };
  line('after start:', rows.slice(0, 1));
  line('idle (median of the last 3):', rows.slice(-3));
} finally {
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  fs.rmSync(dataDir, { recursive: true, force: true });
}
