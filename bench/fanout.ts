/**
 * Gateway fan-out: how long one message takes to reach every connected client, and
 * what an idle gateway connection costs the server.
 *
 *   npx tsx bench/fanout.ts [N] [--messages 20] [--workers 2] [--size 120] [--instances 1] [--discord-half]
 *                           [--storm typing|presence] [--storm-bots 20] [--storm-rate 200] [--clients bots|people]
 *                           [--watching 100]
 *
 * Starts Parley as a child process (`node --import tsx src/main.ts`, RATE_LIMITS=off,
 * LOG_LEVEL=warn, a fresh SQLite database), creates one owner, one server and N bot
 * members over HTTP (bots: no scrypt, unlike registering users), reads the server's
 * VmRSS, connects and identifies N gateway clients spread over worker processes (so the
 * clients do not share the server's process or a single core), reads VmRSS again, then
 * posts `messages` messages one at a time and records, for every client, the time from
 * the POST being sent to the MESSAGE_CREATE arriving. Clients heartbeat as real ones do
 * (every half interval, spread over the interval).
 *
 * Then the same clients and messages against a bare `ws` server (same frame bytes, no
 * storage, no HTTP, no sessions), as the yardstick of what one Node process can do on
 * this machine: on loopback the kernel's work for both ends of every socket write is
 * charged to the sender, so the floor here is far above what a real network shows.
 * `--discord-half` connects every other client to Discord's gateway v10 (`/api/gateway/ws`,
 * identify with GUILDS, GUILD_MESSAGES and MESSAGE_CONTENT) and prints p50/p99 per protocol.
 * `--skip-baseline` leaves it out; `--profile FILE` writes Parley's CPU profile of the
 * message phase (summarize with bench/profile-summary.ts). Server CPU per delivered message
 * is the message phase's CPU / (messages × clients), for Parley and the bare server, with
 * their ratio (issue 17's target: at most 1.5).
 *
 * `--storm typing|presence [--storm-bots 20] [--storm-rate 200]` (single instance): while
 * the messages are measured, `storm-bots` other bots (members, not among the N clients)
 * cause `storm-rate` TYPING_START (POST /channels/{id}/typing, in turn) or PRESENCE_UPDATE
 * (each bot's gateway connection flipping online/idle; Parley then runs with
 * PRESENCE_INTERVAL_MS=0 and PRESENCE_FANOUT_MAX above N, unless the environment sets
 * them, e.g. to the shipped 2000 and 1000) events per second, each reaching
 * every client (with the bounds lifted). The message latencies are then those under the storm; the bare server
 * runs without one. Typing reaches a person's connection only in the channel it looks at:
 * `--watching P` (default 100) makes P% of the clients look at the storm's channel (the
 * rest at none); with `--clients bots` every client hears it whatever it looks at.
 *
 * `--instances K` (K > 1) starts K Parley processes instead, sharing a fresh PostgreSQL
 * schema (DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test, schema made by
 * test/harness.ts freshPostgresSchema) and one Redis namespace (REDIS_URL, default
 * redis://127.0.0.1:6379, a unique REDIS_PREFIX per run). Clients are split evenly over
 * the instances (each worker serves all of them), every message is posted through
 * instance A, and latency is reported for all clients and per instance; memory per idle
 * connection and CPU per message per instance, plus the CPU of the workers, PostgreSQL
 * and Redis. No bare baseline. At the end the schema is dropped and the run's Redis keys
 * (`<prefix>events`, `<prefix>gw:*`, ...) are deleted.
 *
 * Needs N + a few hundred file descriptors in the server and N / workers in each
 * worker: the children are started under `ulimit -n <hard limit>`; raise the hard limit
 * (e.g. `ulimit -Hn 65536` as root) for N beyond what it allows. See bench/README.md
 * ("Gateway fan-out") for figures.
 */
import { type ChildProcess, fork, spawn } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import type net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { WebSocket, WebSocketServer } from 'ws';
import { hashToken } from '../src/crypto.js';
import { addBot, call, createBot, createServer, registerUser } from '../test/factories.js';
import { PARLEY_LISTENING, announced, freshPostgresSchema } from '../test/harness.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const SELF = import.meta.filename;

/** Wall-clock milliseconds with sub-millisecond resolution, comparable across processes. */
const now = () => performance.timeOrigin + performance.now();

// ---------------------------------------------------------------- worker side

type ToWorker =
  /** Token i connects to gatewayUrls[groups[i] ?? 0]; the group (instance) is reported with its latencies. */
  /** `discord[i]`: token i speaks Discord's gateway v10 (at /api/gateway/ws on the same server) instead of Parley's. */
  /** `focus[i]`: the channel client i says it looks at once ready (native only; `--watching`). */
  | {
      type: 'connect';
      gatewayUrls: string[];
      tokens: string[];
      groups?: number[];
      discord?: boolean[];
      focus?: Array<string | null>;
      concurrency: number;
    }
  | { type: 'expect'; index: number; sentAt: number }
  | { type: 'stop' };

type FromWorker =
  | { type: 'connected'; ready: number; failed: number; readyByGroup: number[]; ms: number }
  | { type: 'delivered'; index: number; latencies: number[]; groups: number[]; discord: boolean[] }
  /** `stormFrames`: typing and presence frames the worker's clients received (`--storm`). */
  | { type: 'closed'; count: number; stormFrames: number }
  /** A client's connection closed while the run still needed it (the server's close code and reason). */
  | { type: 'lost'; code: number; reason: string };

async function worker(): Promise<void> {
  const send = (m: FromWorker) => process.send!(m);
  const clients: WebSocket[] = [];
  let heartbeatMs = 30_000;
  /** Per message index: arrival latencies (and the group of each client), filled as frames come in. */
  const arrivals = new Map<number, number[]>();
  const arrivalGroups = new Map<number, number[]>();
  const arrivalKinds = new Map<number, boolean[]>();
  const discordClients = new Set<WebSocket>();
  const sentAt = new Map<number, number>();
  let expected = 0;
  let unexpectedCloses = 0;

  const MARK = '"content":"fanout ';
  let stormFrames = 0;
  const onFrame = (data: WebSocket.RawData, group: number, discord: boolean) => {
    const at = now();
    // Only the bench's own messages matter: find them in the bytes, parse nothing else.
    const buf = data as Buffer;
    const k = buf.indexOf(MARK);
    if (k < 0) {
      if (buf.indexOf('"t":"TYPING_START"') >= 0 || buf.indexOf('"t":"PRESENCE_UPDATE"') >= 0) stormFrames++;
      return;
    }
    const start = k + MARK.length;
    const index = Number(buf.toString('latin1', start, buf.indexOf(32, start)));
    const t0 = sentAt.get(index);
    if (t0 === undefined) {
      // The frame beat the orchestrator's `expect` (its IPC message waits behind a storm's
      // frames in this busy process): kept with its arrival time until `expect` comes.
      if (index >= nextExpected) (early.get(index) ?? early.set(index, []).get(index)!).push({ at, group, discord });
      return;
    }
    arrived(index, at - t0, group, discord);
  };
  /** Frames of messages not `expect`ed yet, by message index. */
  const early = new Map<number, Array<{ at: number; group: number; discord: boolean }>>();
  let nextExpected = 0;
  const arrived = (index: number, latency: number, group: number, discord: boolean) => {
    const list = arrivals.get(index);
    if (!list) return;
    list.push(latency);
    arrivalGroups.get(index)!.push(group);
    arrivalKinds.get(index)!.push(discord);
    if (list.length === expected)
      send({ type: 'delivered', index, latencies: list, groups: arrivalGroups.get(index)!, discord: arrivalKinds.get(index)! });
  };

  function open(url: string, token: string, group: number, discord: boolean, focus: string | null): Promise<WebSocket | null> {
    return new Promise((resolve) => {
      // Discord's gateway as a Discord library opens it: its path on the same server, JSON.
      const target = discord ? url.replace(/\/gateway$/, '/api/gateway/ws?v=10&encoding=json') : url;
      const ws = new WebSocket(target, { perMessageDeflate: false });
      let done = false;
      const finish = (ok: boolean) => {
        if (done) return;
        done = true;
        resolve(ok ? ws : null);
      };
      const handshake = (data: WebSocket.RawData) => {
        const f = JSON.parse(data.toString());
        if (f.op === 'hello') {
          heartbeatMs = f.d.heartbeatInterval;
          ws.send(JSON.stringify({ op: 'identify', d: { token } }));
        } else if (f.op === 10) {
          // Discord: a bare token; GUILDS, GUILD_MESSAGES and MESSAGE_CONTENT.
          heartbeatMs = f.d.heartbeat_interval;
          const intents = (1 << 0) | (1 << 9) | (1 << 15);
          ws.send(
            JSON.stringify({
              op: 2,
              d: { token: token.replace(/^Bot /, ''), intents, properties: { os: 'linux', browser: 'fanout', device: 'fanout' } },
            }),
          );
        } else if (f.op === 'ready' || (f.op === 0 && f.t === 'READY')) {
          if (focus !== null && !discord) ws.send(JSON.stringify({ op: 'focus', d: { channelId: focus } }));
          ws.off('message', handshake);
          ws.on('message', (d: WebSocket.RawData) => onFrame(d, group, discord));
          if (discord) discordClients.add(ws);
          finish(true);
        }
      };
      ws.on('message', handshake);
      ws.on('error', () => finish(false));
      ws.on('close', (code: number, reason: Buffer) => {
        if (done) {
          unexpectedCloses++;
          // The first few say why, as they happen: a message that never reaches everyone is then explained.
          if (unexpectedCloses <= 5) send({ type: 'lost', code, reason: reason.toString() });
        }
        finish(false);
      });
    });
  }

  process.on('message', async (m: ToWorker) => {
    if (m.type === 'connect') {
      const t0 = now();
      let failed = 0;
      let next = 0;
      const readyByGroup = m.gatewayUrls.map(() => 0);
      const run = async () => {
        while (next < m.tokens.length) {
          const i = next++;
          const group = m.groups?.[i] ?? 0;
          const ws = await open(m.gatewayUrls[group]!, m.tokens[i]!, group, m.discord?.[i] ?? false, m.focus?.[i] ?? null);
          if (ws) {
            clients.push(ws);
            readyByGroup[group]!++;
          } else failed++;
        }
      };
      await Promise.all(Array.from({ length: m.concurrency }, run));
      expected = clients.length;
      // Heartbeats spread over the interval: every 100 ms, the next slice of clients.
      const slices = Math.max(1, Math.floor(heartbeatMs / 2 / 100));
      let slice = 0;
      setInterval(() => {
        for (let i = slice; i < clients.length; i += slices) {
          const ws = clients[i]!;
          ws.send(discordClients.has(ws) ? '{"op":1,"d":null}' : '{"op":"heartbeat","d":null}');
        }
        slice = (slice + 1) % slices;
      }, 100);
      send({ type: 'connected', ready: clients.length, failed, readyByGroup, ms: now() - t0 });
    } else if (m.type === 'expect') {
      // Counted over the message phase only (the clients' own connecting is presence too).
      if (m.index === 0) stormFrames = 0;
      arrivals.set(m.index, []);
      arrivalGroups.set(m.index, []);
      arrivalKinds.set(m.index, []);
      sentAt.set(m.index, m.sentAt);
      nextExpected = Math.max(nextExpected, m.index + 1);
      for (const e of early.get(m.index) ?? []) arrived(m.index, e.at - m.sentAt, e.group, e.discord);
      early.delete(m.index);
      // Shortly before the orchestrator gives up on it: how far the message got here.
      const index = m.index;
      setTimeout(() => {
        const got = arrivals.get(index)?.length ?? expected;
        if (got < expected)
          console.error(`worker ${process.pid}: message ${index} reached ${got} of ${expected} clients; ${unexpectedCloses} closed`);
      }, 29_000).unref();
    } else if (m.type === 'stop') {
      send({ type: 'closed', count: unexpectedCloses, stormFrames });
      for (const ws of clients) ws.terminate();
      process.exit(0);
    }
  });
}

// ---------------------------------------------------------------- orchestrator side

/** The hard limit on open files, which a child may raise its soft limit to. */
function hardFileLimit(): number {
  try {
    return Number(execFileSync('sh', ['-c', 'ulimit -Hn'], { encoding: 'utf8' }).trim()) || 1024;
  } catch {
    return 1024;
  }
}

/** Resident set size of a process, in bytes (Linux). */
function rssOf(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)\s+kB/.exec(status)?.[1] ?? NaN);
  return kb * 1024;
}

/** CPU time (user + system) a process has used, in milliseconds (Linux). */
function cpuMsOf(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1000) / 100; // USER_HZ is 100 on Linux
}

/** CPU time of every process whose name (comm) is one of `names`, by pid (Linux). */
function cpuMsByName(names: string[]): Map<number, number> {
  const out = new Map<number, number>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      if (names.includes(comm)) out.set(Number(entry), cpuMsOf(Number(entry)));
    } catch {
      /* gone meanwhile */
    }
  }
  return out;
}

/** CPU time used since `before` by the processes of `cpuMsByName` (new ones count from 0). */
function cpuMsSince(names: string[], before: Map<number, number>): number {
  let total = 0;
  for (const [pid, t] of cpuMsByName(names)) total += t - (before.get(pid) ?? 0);
  return total;
}

/** The whole machine's busy and total CPU time so far, in milliseconds (Linux /proc/stat). */
function machineCpuMs(): { busy: number; total: number } {
  const f = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
  const total = f.reduce((a, b) => a + b, 0);
  const idle = f[3]! + f[4]!; // idle + iowait
  return { busy: ((total - idle) * 1000) / 100, total: (total * 1000) / 100 };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Memory {
  rss: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
}

/**
 * A session on the server's inspector (the child runs with --inspect on loopback; the
 * service itself exposes nothing): for a full GC before reading memory, and profiling.
 */
async function inspector(inspectPort: number): Promise<{ rpc: (method: string, params?: object) => Promise<any>; close: () => void }> {
  const [target] = (await (await fetch(`http://127.0.0.1:${inspectPort}/json/list`)).json()) as Array<{ webSocketDebuggerUrl: string }>;
  const ws = new WebSocket(target!.webSocketDebuggerUrl, { perMessageDeflate: false, maxPayload: 2 ** 30 });
  await new Promise((resolve, reject) => (ws.once('open', resolve), ws.once('error', reject)));
  let id = 0;
  const rpc = (method: string, params: object = {}) =>
    new Promise<any>((resolve) => {
      const mine = ++id;
      const on = (data: WebSocket.RawData) => {
        const m = JSON.parse(data.toString());
        if (m.id === mine) {
          ws.off('message', on);
          resolve(m.result);
        }
      };
      ws.on('message', on);
      ws.send(JSON.stringify({ id: mine, method, params }));
    });
  return { rpc, close: () => ws.close() };
}

/** The server's memory after a full garbage collection; VmRSS as the kernel sees it. */
async function settledMemory(inspectPort: number, pid: number): Promise<Memory> {
  const { rpc, close } = await inspector(inspectPort);
  try {
    for (let i = 0; i < 3; i++) await rpc('HeapProfiler.collectGarbage');
    await sleep(500);
    const r = await rpc('Runtime.evaluate', { expression: 'JSON.stringify(process.memoryUsage())', returnByValue: true });
    const m = JSON.parse(r.result.value) as Memory;
    return { ...m, rss: rssOf(pid) };
  } finally {
    close();
  }
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** What node prints on stderr once `--inspect=host:0` has bound; group 1 is the port. */
const INSPECTOR_LISTENING = /Debugger listening on ws:\/\/127\.0\.0\.1:(\d+)\//;

const ms = (x: number) => `${x.toFixed(1)} ms`;
const kib = (x: number) => `${(x / 1024).toFixed(1)} KiB`;
const mib = (x: number) => `${(x / 1024 / 1024).toFixed(1)} MiB`;
const us = (x: number) => `${x.toFixed(1)} µs`;

async function startParley(
  limit: number,
  extraEnv: Record<string, string> = {},
): Promise<{ child: ChildProcess; url: string; log: () => string; dataDir: string; inspectPort: number }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-fanout-'));
  // Port 0 for both the server and its inspector: each is bound by the system and printed,
  // so no number is picked first that another process could take.
  // `exec` so the pid is the server's own (its VmRSS is what we read).
  const child = spawn('sh', ['-c', `ulimit -n ${limit} && exec "${process.execPath}" --inspect=127.0.0.1:0 --import tsx src/main.ts`], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      PUBLIC_URL: 'http://127.0.0.1:0',
      DATA_DIR: dataDir,
      RATE_LIMITS: 'off',
      LOG_LEVEL: 'warn',
      // Every client comes from 127.0.0.1, thousands at once: lift the per-address caps.
      MAX_CONNECTIONS_PER_IP: '0',
      GATEWAY_MAX_PENDING_PER_IP: '1000000',
      ...extraEnv,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const [inspecting, listening] = await Promise.all([
    announced(child, INSPECTOR_LISTENING, 60_000),
    announced(child, PARLEY_LISTENING, 60_000),
  ]);
  const inspectPort = Number(inspecting[1]);
  const url = listening[1]!;
  return { child, url, log: () => out, dataDir, inspectPort };
}

/**
 * Writes `n` people into the running service's SQLite database (one transaction: SQLite
 * lets a second writer in between the service's own), each a member of `serverId` with a
 * session, and returns their `Bearer` credentials. No password (nobody logs in); ids far
 * above any the service issues in this run. Only new rows: the service's caches need no
 * telling (inserts of users, members and sessions cannot take access away).
 */
function addPeople(file: string, serverId: string, n: number): string[] {
  const db = new Database(file);
  try {
    db.pragma('busy_timeout = 10000');
    const at = new Date().toISOString();
    const user = db.prepare(
      `insert into users (id, username, username_key, name, bot, owner_id, password_hash, token_hash, avatar, created_at, is_public)
       values (?, ?, ?, ?, 0, null, null, null, null, ?, 0)`,
    );
    const member = db.prepare('insert into members (server_id, user_id, roles, legacy_permissions, joined_at) values (?, ?, ?, -1, ?)');
    const session = db.prepare('insert into sessions (id, user_id, token_hash, created_at, last_used_at) values (?, ?, ?, ?, ?)');
    const tokens: string[] = [];
    db.transaction(() => {
      for (let i = 0; i < n; i++) {
        const id = (1n << 62n) + BigInt(i);
        const sessionId = (1n << 62n) + 1_000_000n + BigInt(i);
        const secret = `fanout-${i}-${Math.random().toString(36).slice(2)}`;
        user.run(id, `person${i}`, `person${i}`, `Person ${i}`, at);
        member.run(BigInt(serverId), id, '', at);
        session.run(sessionId, id, hashToken(secret), at, at);
        tokens.push(`Bearer ${sessionId}.${secret}`);
      }
    })();
    return tokens;
  } finally {
    db.close();
  }
}

/** Runs `fn` over `items` with at most `limit` in flight. */
async function pooled<T, R>(items: T[], limit: number, fn: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!, i);
      }
    }),
  );
  return out;
}

/** One server process clients connect to: where, and the process to watch. */
interface Gateway {
  label: string;
  gatewayUrl: string;
  pid: number;
  inspectPort: number;
}

/**
 * What is under test: one gateway, or several instances sharing the connections (client
 * i goes to gateway floor(i / workers) % gateways, so each worker serves every instance
 * and each instance gets N / gateways clients), and how to send message `i`.
 */
interface Target {
  label: string;
  gateways: Gateway[];
  /** Causes message `i` (whose content starts with "fanout i "); resolves once it was sent. */
  send(i: number): Promise<void>;
  /** Names (comm) of service processes whose CPU time the message phase also costs: postgres, redis-server. */
  services?: string[];
  /** `--storm`: started before the first message, stopped after the last. */
  storm?: Storm;
}

/** The share of the clients on one gateway. */
interface GroupFigures {
  label: string;
  clients: number;
  all: number[];
  lastArrival: number[];
  cpuPerMessage: number;
  before: Memory;
  after: Memory;
}

interface Figures {
  clients: number;
  failed: number;
  connectMs: number;
  all: number[];
  firstArrival: number[];
  lastArrival: number[];
  sendRtt: number[];
  cpuPerMessage: number;
  before: Memory;
  after: Memory;
  dropped: number;
  groups: GroupFigures[];
  /** CPU time per message of the client workers, and of each service (by process name). */
  workerCpuPerMessage: number;
  serviceCpuPerMessage: Record<string, number>;
  /** Busy share of all cores over the message phase (including the pauses between messages). */
  machineBusy: number;
  /** Busy CPU time of the whole machine per message, in ms. */
  machineCpuPerMessage: number;
  /** `--storm`: typing or presence events caused during the message phase (each reaches every client). */
  stormEvents: number;
  /** `--storm`: typing and presence frames the clients received. */
  stormFrames: number;
}

const sumMemory = (ms: Memory[]): Memory =>
  ms.reduce(
    (a, m) => ({
      rss: a.rss + m.rss,
      heapUsed: a.heapUsed + m.heapUsed,
      external: a.external + m.external,
      arrayBuffers: a.arrayBuffers + m.arrayBuffers,
    }),
    {
      rss: 0,
      heapUsed: 0,
      external: 0,
      arrayBuffers: 0,
    },
  );

/** Connects `tokens.length` clients to `target` over fresh workers, then sends and times `messages` messages. */
async function measure(
  target: Target,
  tokens: string[],
  opts: { workers: number; messages: number; profile?: string; discordHalf?: boolean; focus?: (i: number) => string | null },
): Promise<Figures> {
  const gateways = target.gateways;
  const primary = gateways[0]!;
  const before = await Promise.all(gateways.map((g) => settledMemory(g.inspectPort, g.pid)));
  const workers: ChildProcess[] = [];
  try {
    for (let w = 0; w < opts.workers; w++) {
      const wk = fork(SELF, ['--worker'], { cwd: ROOT, execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
      wk.on('message', (m: FromWorker) => {
        if (m.type === 'lost') console.error(`a client's connection closed during the run: ${m.code} ${m.reason}`);
      });
      workers.push(wk);
    }
    const groupOf = (i: number) => Math.floor(i / opts.workers) % gateways.length;
    const connectedAt = now();
    const connected = await Promise.all(
      workers.map(
        (wk, w) =>
          new Promise<{ ready: number; failed: number; readyByGroup: number[] }>((resolve) => {
            wk.once('message', (m: FromWorker) => m.type === 'connected' && resolve(m));
            const mine = tokens.map((_, i) => i).filter((i) => i % opts.workers === w);
            wk.send({
              type: 'connect',
              gatewayUrls: gateways.map((g) => g.gatewayUrl),
              tokens: mine.map((i) => tokens[i]!),
              groups: mine.map(groupOf),
              // --discord-half: every other client speaks Discord's gateway.
              discord: mine.map((i) => opts.discordHalf === true && i % 2 === 1),
              focus: mine.map((i) => opts.focus?.(i) ?? null),
              concurrency: 64,
            } satisfies ToWorker);
          }),
      ),
    );
    const connectMs = now() - connectedAt;
    const clients = connected.reduce((a, c) => a + c.ready, 0);
    const failed = connected.reduce((a, c) => a + c.failed, 0);
    const clientsByGroup = gateways.map((_, g) => connected.reduce((a, c) => a + (c.readyByGroup[g] ?? 0), 0));
    console.log(
      `${target.label}: ${clients} clients connected and identified (${failed} failed) in ${ms(connectMs)}` +
        (gateways.length > 1 ? ` (${gateways.map((g, k) => `${clientsByGroup[k]} on ${g.label}`).join(', ')})` : ''),
    );
    if (clients === 0) throw new Error('no client could identify');

    // Idle memory with every connection open, after things settle.
    await sleep(2000);
    const after = await Promise.all(gateways.map((g) => settledMemory(g.inspectPort, g.pid)));

    const profiler = opts.profile ? await inspector(primary.inspectPort) : undefined;
    if (profiler) {
      await profiler.rpc('Profiler.enable');
      await profiler.rpc('Profiler.setSamplingInterval', { interval: 200 });
      await profiler.rpc('Profiler.start');
    }
    // One message at a time; the next once every client has the previous.
    const all: number[] = [];
    const firstArrival: number[] = [];
    const lastArrival: number[] = [];
    const sendRtt: number[] = [];
    const byGroup = gateways.map(() => ({ all: [] as number[], lastArrival: [] as number[] }));
    const byProtocol = { parley: [] as number[], discord: [] as number[] };
    const cpuBefore = gateways.map((g) => cpuMsOf(g.pid));
    const workerCpuBefore = workers.map((wk) => cpuMsOf(wk.pid!));
    const services = target.services ?? [];
    const serviceCpuBefore = services.map((name) => cpuMsByName([name]));
    const machineBefore = machineCpuMs();
    target.storm?.start();
    for (let i = 0; i < opts.messages; i++) {
      const sentAt = now();
      for (const wk of workers) wk.send({ type: 'expect', index: i, sentAt } satisfies ToWorker);
      const done = Promise.all(
        workers.map(
          (wk) =>
            new Promise<{ latencies: number[]; groups: number[]; discord: boolean[] }>((resolve, reject) => {
              const t = setTimeout(() => reject(new Error(`message ${i} did not reach every client within 30 s`)), 30_000);
              const on = (m: FromWorker) => {
                if (m.type === 'delivered' && m.index === i) {
                  clearTimeout(t);
                  wk.off('message', on);
                  resolve(m);
                }
              };
              wk.on('message', on);
            }),
        ),
      );
      await target.send(i);
      sendRtt.push(now() - sentAt);
      const delivered = await done;
      const latencies = delivered.flatMap((d) => d.latencies);
      for (const x of latencies) all.push(x);
      firstArrival.push(latencies.reduce((a, b) => Math.min(a, b), Infinity));
      lastArrival.push(latencies.reduce((a, b) => Math.max(a, b), 0));
      const lastInGroup = gateways.map(() => 0);
      for (const d of delivered) {
        d.latencies.forEach((x, j) => {
          byProtocol[d.discord[j] ? 'discord' : 'parley'].push(x);
          const g = d.groups[j]!;
          byGroup[g]!.all.push(x);
          if (x > lastInGroup[g]!) lastInGroup[g] = x;
        });
      }
      lastInGroup.forEach((x, g) => byGroup[g]!.lastArrival.push(x));
      await sleep(250);
    }
    if (opts.discordHalf) {
      for (const [name, xs] of Object.entries(byProtocol)) {
        const sorted = [...xs].sort((x, y) => x - y);
        console.log(
          `${target.label}, clients on ${name === 'discord' ? "Discord's gateway" : "Parley's gateway"}: ${sorted.length / opts.messages} clients, p50 ${ms(percentile(sorted, 50))}, p99 ${ms(percentile(sorted, 99))}`,
        );
      }
    }
    const stormEvents = (await target.storm?.stop()) ?? 0;
    const cpuPerMessage = gateways.map((g, k) => (cpuMsOf(g.pid) - cpuBefore[k]!) / opts.messages);
    const workerCpuPerMessage = workers.reduce((a, wk, w) => a + cpuMsOf(wk.pid!) - workerCpuBefore[w]!, 0) / opts.messages;
    const serviceCpuPerMessage = Object.fromEntries(
      services.map((name, k) => [name, cpuMsSince([name], serviceCpuBefore[k]!) / opts.messages]),
    );
    const machineAfter = machineCpuMs();
    const machineBusy = (machineAfter.busy - machineBefore.busy) / (machineAfter.total - machineBefore.total);
    const machineCpuPerMessage = (machineAfter.busy - machineBefore.busy) / opts.messages;
    if (profiler) {
      const { profile } = await profiler.rpc('Profiler.stop');
      fs.writeFileSync(opts.profile!, JSON.stringify(profile));
      profiler.close();
      console.log(
        `${target.label}: CPU profile of the message phase in ${opts.profile} (npx tsx bench/profile-summary.ts ${opts.profile})`,
      );
    }
    const closed = await Promise.all(
      workers.map(
        (wk) =>
          new Promise<{ count: number; stormFrames: number }>((resolve) => {
            wk.once('message', (m: FromWorker) => resolve(m.type === 'closed' ? m : { count: 0, stormFrames: 0 }));
            wk.send({ type: 'stop' } satisfies ToWorker);
          }),
      ),
    );
    const dropped = closed.map((c) => c.count);
    const stormFrames = closed.reduce((a, c) => a + c.stormFrames, 0);
    return {
      clients,
      failed,
      connectMs,
      all,
      firstArrival,
      lastArrival,
      sendRtt,
      cpuPerMessage: cpuPerMessage.reduce((a, b) => a + b, 0),
      before: sumMemory(before),
      after: sumMemory(after),
      dropped: dropped.reduce((a, b) => a + b, 0),
      groups: gateways.map((g, k) => ({
        label: g.label,
        clients: clientsByGroup[k]!,
        all: byGroup[k]!.all,
        lastArrival: byGroup[k]!.lastArrival,
        cpuPerMessage: cpuPerMessage[k]!,
        before: before[k]!,
        after: after[k]!,
      })),
      workerCpuPerMessage,
      serviceCpuPerMessage,
      machineBusy,
      machineCpuPerMessage,
      stormEvents,
      stormFrames,
    };
  } finally {
    for (const wk of workers) if (wk.exitCode === null) wk.kill();
  }
}

/** The figures of one target, as the table rows print them. */
function summarize(f: Figures) {
  const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
  const all = sorted(f.all);
  const spread = sorted(f.lastArrival.map((last, i) => last - f.firstArrival[i]!));
  return {
    clients: f.clients,
    p50: percentile(all, 50),
    p99: percentile(all, 99),
    max: all[all.length - 1]!,
    everyClientMedian: percentile(sorted(f.lastArrival), 50),
    firstClientMedian: percentile(sorted(f.firstArrival), 50),
    spreadMedian: percentile(spread, 50),
    spreadMax: spread[spread.length - 1]!,
    sendMedian: percentile(sorted(f.sendRtt), 50),
    cpuPerMessage: f.cpuPerMessage,
    /** Server CPU of the message phase per delivered message (messages × clients), in µs; with a storm it includes the storm's cost. */
    cpuPerDelivery: (f.cpuPerMessage * 1000) / f.clients,
    stormEvents: f.stormEvents,
    stormFramesPerClient: f.stormFrames / f.clients,
    rssPerConnection: (f.after.rss - f.before.rss) / f.clients,
    heapPerConnection: (f.after.heapUsed + f.after.external - f.before.heapUsed - f.before.external) / f.clients,
    rssBefore: f.before.rss,
    rssAfter: f.after.rss,
    dropped: f.dropped,
    groups: f.groups.map((g) => {
      const gall = sorted(g.all);
      return {
        label: g.label,
        clients: g.clients,
        p50: percentile(gall, 50),
        p99: percentile(gall, 99),
        max: gall[gall.length - 1]!,
        everyClientMedian: percentile(sorted(g.lastArrival), 50),
        cpuPerMessage: g.cpuPerMessage,
        rssPerConnection: (g.after.rss - g.before.rss) / g.clients,
        heapPerConnection: (g.after.heapUsed + g.after.external - g.before.heapUsed - g.before.external) / g.clients,
        rssBefore: g.before.rss,
        rssAfter: g.after.rss,
      };
    }),
    workerCpuPerMessage: f.workerCpuPerMessage,
    serviceCpuPerMessage: f.serviceCpuPerMessage,
    machineBusy: f.machineBusy,
    machineCpuPerMessage: f.machineCpuPerMessage,
  };
}

// ---------------------------------------------------------------- bare baseline

/**
 * The yardstick: a bare `ws` server in a process of its own that speaks just enough of
 * the protocol (hello, identify → ready, heartbeat_ack) and, on request, sends the same
 * event frame to every client with the same serialization (EventFrame). No storage, no
 * HTTP, no sessions, no audience: what one Node process can do here with the same clients.
 */
async function bareServer(): Promise<void> {
  const { EventFrame } = await import('../src/gateway/frames.js');
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false, clientTracking: false });
  const clients = new Map<WebSocket, number>();
  wss.on('connection', (ws) => {
    ws.send(JSON.stringify({ op: 'hello', d: { heartbeatInterval: 30_000 } }));
    ws.on('message', (data) => {
      const f = JSON.parse(data.toString());
      if (f.op === 'identify') {
        ws.send(JSON.stringify({ op: 'ready', d: { sessionId: 'bare', user: {}, servers: [] } }));
        clients.set(ws, 0);
      } else if (f.op === 'heartbeat') ws.send('{"op":"heartbeat_ack"}');
    });
    ws.on('close', () => clients.delete(ws));
  });
  await new Promise((r) => wss.once('listening', r));
  process.on('message', (m: { type: 'send'; message: unknown }) => {
    const prepared = new EventFrame('MESSAGE_CREATE', m.message);
    for (const [ws, s] of clients) {
      clients.set(ws, s + 1);
      ws.send(prepared.withSeq(s + 1), { binary: false });
    }
    process.send!({ type: 'sent' });
  });
  process.send!({ type: 'listening', port: (wss.address() as net.AddressInfo).port });
}

async function startBare(limit: number): Promise<{ child: ChildProcess; gatewayUrl: string; inspectPort: number }> {
  const child = spawn(
    'sh',
    ['-c', `ulimit -n ${limit} && exec "${process.execPath}" --inspect=127.0.0.1:0 --import tsx "${SELF}" --bare-server`],
    {
      cwd: ROOT,
      // stderr carries the inspector's "Debugger listening on" line with its port.
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    },
  );
  const inspecting = announced(child, INSPECTOR_LISTENING, 60_000);
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m: { port: number }) => resolve(m.port));
    child.once('exit', (code) => reject(new Error(`bare server exited (${code})`)));
  });
  const inspectPort = Number((await inspecting)[1]);
  return { child, gatewayUrl: `ws://127.0.0.1:${port}/`, inspectPort };
}

// ---------------------------------------------------------------- main

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      messages: { type: 'string', default: '20' },
      workers: { type: 'string', default: '2' },
      size: { type: 'string', default: '120' },
      /** Skip the bare `ws` baseline. */
      'skip-baseline': { type: 'boolean', default: false },
      /** Write a CPU profile of Parley (instance A with --instances) during the message phase to this file. */
      profile: { type: 'string' },
      /** Every other client connects to Discord's gateway v10 (/api/gateway/ws) instead of Parley's (single instance). */
      'discord-half': { type: 'boolean', default: false },
      /** Parley processes sharing PostgreSQL (DATABASE_URL) and Redis (REDIS_URL); 1 is the single-instance SQLite mode. */
      instances: { type: 'string', default: '1' },
      /** During the message phase, other bots cause TYPING_START (`typing`) or PRESENCE_UPDATE (`presence`) events (single instance). */
      storm: { type: 'string' },
      /** How many bots cause the storm (they are members, but not among the N measured clients). */
      'storm-bots': { type: 'string', default: '20' },
      /** Percent of the clients that look at the channel (`focus`): people hear typing only there (bots everywhere). */
      watching: { type: 'string', default: '100' },
      /** Storm events per second, all bots together (each reaches every member). */
      'storm-rate': { type: 'string', default: '200' },
      /**
       * Who the N clients are: `bots` (created and added over HTTP, each with its managed
       * role) or `people` (written straight into the database with a session each: members
       * with no role of their own, as most of a big server's are; they identify with
       * `Bearer`, so READY carries read states, settings and presence).
       */
      clients: { type: 'string', default: 'bots' },
    },
  });
  const n = Number(positionals[0] ?? 1000);
  const messages = Number(values.messages);
  const workerCount = Number(values.workers);
  const size = Number(values.size);
  const limit = hardFileLimit();
  if (n + 256 > limit)
    throw new Error(`N=${n} needs about ${n + 256} open files; the hard limit here is ${limit} (raise it with ulimit -Hn)`);

  console.log(`gateway fan-out: ${n} clients in ${workerCount} worker process(es), ${messages} messages of ${size} characters`);
  console.log(
    `machine: ${os.cpus().length} cores (${os.cpus()[0]?.model ?? '?'}), Node ${process.version}, load average ${os.loadavg()[0]!.toFixed(2)}`,
  );

  const instances = Number(values.instances);
  if (!Number.isInteger(instances) || instances < 1) throw new Error(`--instances must be a positive integer, got ${values.instances}`);
  if (instances > 1) {
    await multiInstance({ n, instances, messages, workers: workerCount, size, limit, profile: values.profile });
    return;
  }

  const stormKind = values.storm;
  if (stormKind !== undefined && stormKind !== 'typing' && stormKind !== 'presence')
    throw new Error(`--storm must be typing or presence, got ${stormKind}`);
  const stormBots = stormKind ? Number(values['storm-bots']) : 0;
  const stormRate = Number(values['storm-rate']);
  const watching = Number(values.watching);
  if (!Number.isInteger(watching) || watching < 0 || watching > 100) throw new Error('--watching must be a percentage from 0 to 100');
  if (stormKind) console.log(`storm: ${stormKind}, ${stormBots} bots, ${stormRate} events/s during the message phase`);

  let template: Record<string, unknown> = {};
  let parleyFigures: ReturnType<typeof summarize>;
  // A presence storm needs every change announced, in a server past the default
  // PRESENCE_FANOUT_MAX, unless the environment sets them (the shipped bounds, say).
  const parley = await startParley(
    limit,
    stormKind === 'presence'
      ? {
          PRESENCE_INTERVAL_MS: process.env.PRESENCE_INTERVAL_MS ?? '0',
          PRESENCE_FANOUT_MAX: process.env.PRESENCE_FANOUT_MAX ?? String(n + stormBots + 10),
        }
      : {},
  );
  let storm: Storm | undefined;
  try {
    // Set-up over HTTP: one owner and server, N bots added to it.
    const t0 = now();
    const owner = await registerUser(parley.url, `owner${Date.now().toString(36)}`);
    const { server, general } = await createServer(parley.url, owner, 'Fan-out');
    const people = values.clients === 'people';
    if (!people && values.clients !== 'bots') throw new Error(`--clients must be bots or people, got ${values.clients}`);
    const tokens = people
      ? addPeople(path.join(parley.dataDir, 'parley.db'), server.id, n)
      : await pooled(
          Array.from({ length: n }, (_, i) => i),
          16,
          async (i) => {
            const bot = await createBot(parley.url, owner, `fan${i}`);
            await addBot(parley.url, owner, server.id, bot.id, ['READ_MESSAGES']);
            return bot.auth;
          },
        );
    console.log(`set-up: ${n} ${people ? 'people' : 'bots'} added to one server in ${ms(now() - t0)}`);
    if (stormKind) {
      const stormTokens = await pooled(
        Array.from({ length: stormBots }, (_, i) => i),
        16,
        async (i) => {
          const bot = await createBot(parley.url, owner, `storm${i}`);
          await addBot(parley.url, owner, server.id, bot.id, ['READ_MESSAGES', 'SEND_MESSAGES']);
          return bot.auth;
        },
      );
      const gatewayUrl = `${parley.url.replace('http:', 'ws:')}/gateway`;
      storm =
        stormKind === 'typing'
          ? typingStorm(parley.url, general.id, stormTokens, stormRate)
          : await presenceStorm(gatewayUrl, stormTokens, stormRate);
    }
    const figures = await measure(
      {
        label: 'Parley',
        gateways: [
          {
            label: 'Parley',
            gatewayUrl: `${parley.url.replace('http:', 'ws:')}/gateway`,
            pid: parley.child.pid!,
            inspectPort: parley.inspectPort,
          },
        ],
        ...(storm ? { storm } : {}),
        async send(i) {
          const content = `fanout ${i} `.padEnd(size, 'x');
          const r = await call(parley.url, 'POST', `/channels/${general.id}/messages`, { auth: owner.auth, body: { content } });
          if (r.status !== 201) throw new Error(`post failed: ${r.status} ${r.text}`);
          template = r.body;
        },
      },
      tokens,
      {
        workers: workerCount,
        messages,
        profile: values.profile,
        discordHalf: values['discord-half'],
        // --watching: that share of the clients looks at the channel (the rest at none).
        focus: (i) => (i % 100 < watching ? general.id : null),
      },
    );
    parleyFigures = summarize(figures);
  } catch (err) {
    console.error(parley.log());
    throw err;
  } finally {
    storm?.close();
    parley.child.kill('SIGTERM');
    await new Promise((r) => parley.child.once('exit', r));
    fs.rmSync(parley.dataDir, { recursive: true, force: true });
  }

  let bareFigures: ReturnType<typeof summarize> | undefined;
  if (!values['skip-baseline']) {
    const bare = await startBare(limit);
    try {
      const figures = await measure(
        {
          label: 'bare ws',
          gateways: [{ label: 'bare ws', gatewayUrl: bare.gatewayUrl, pid: bare.child.pid!, inspectPort: bare.inspectPort }],
          async send(i) {
            const message = { ...template, content: `fanout ${i} `.padEnd(size, 'x') };
            await new Promise<void>((resolve) => {
              bare.child.once('message', () => resolve());
              bare.child.send({ type: 'send', message });
            });
          },
        },
        Array.from({ length: n }, () => 'Bot bare'),
        { workers: workerCount, messages },
      );
      bareFigures = summarize(figures);
    } finally {
      bare.child.kill('SIGTERM');
      await new Promise((r) => bare.child.once('exit', r));
    }
  }

  type Row = [string, (f: ReturnType<typeof summarize>) => string];
  const rows: Row[] = [
    ['clients', (f) => String(f.clients)],
    ['latency per delivery p50', (f) => ms(f.p50)],
    ['latency per delivery p99', (f) => ms(f.p99)],
    ['latency per delivery max', (f) => ms(f.max)],
    ['every client has it (median over messages)', (f) => ms(f.everyClientMedian)],
    ['first client has it (median)', (f) => ms(f.firstClientMedian)],
    ['first to last client (median)', (f) => ms(f.spreadMedian)],
    ['first to last client (max)', (f) => ms(f.spreadMax)],
    ['sender answered (median; Parley: POST 201)', (f) => ms(f.sendMedian)],
    ['server CPU per message', (f) => ms(f.cpuPerMessage)],
    [stormKind ? 'server CPU per delivered message (incl. storm)' : 'server CPU per delivered message', (f) => us(f.cpuPerDelivery)],
    ...(stormKind
      ? [
          [`${stormKind} events during the message phase`, (f) => String(f.stormEvents)] as Row,
          [`${stormKind} frames received per client`, (f) => f.stormFramesPerClient.toFixed(1)] as Row,
        ]
      : []),
    ['server RSS before / after connecting', (f) => `${mib(f.rssBefore)} / ${mib(f.rssAfter)}`],
    ['server RSS per idle connection', (f) => kib(f.rssPerConnection)],
    ['server heap + external per idle connection', (f) => kib(f.heapPerConnection)],
    ['connections dropped during the run', (f) => String(f.dropped)],
  ];
  console.log('');
  console.log(`${''.padEnd(46)}${'Parley'.padStart(24)}${bareFigures ? 'bare ws'.padStart(24) : ''}`);
  for (const [name, fmt] of rows) {
    console.log(`${name.padEnd(46)}${fmt(parleyFigures).padStart(24)}${bareFigures ? fmt(bareFigures).padStart(24) : ''}`);
  }
  if (bareFigures && bareFigures.cpuPerDelivery > 0) {
    // Issue 17's target: at most 1.5x a bare ws broadcast of the same bytes. (CPU time is read in
    // clock ticks, 10 ms: a tiny run may measure none.)
    console.log(
      `server CPU per delivered message, Parley / bare ws: ${(parleyFigures.cpuPerDelivery / bareFigures.cpuPerDelivery).toFixed(2)}x` +
        (stormKind ? ' (Parley with the storm, bare ws without)' : ''),
    );
  }
  console.log(`RESULT ${JSON.stringify({ parley: parleyFigures, bare: bareFigures })}`);
}

// ---------------------------------------------------------------- storms

/** Events caused by other bots while messages are measured (`--storm`). */
interface Storm {
  start(): void;
  /** Stops causing events; resolves with how many were caused. */
  stop(): Promise<number>;
  /** Releases connections (presence). */
  close(): void;
}

/** Calls `tick(k)` every 10 ms with how many events are due, so that `rate` per second are caused. */
function paced(rate: number, tick: (k: number) => void): { start(): void; stop(): void } {
  let timer: NodeJS.Timeout | undefined;
  let started = 0;
  let caused = 0;
  return {
    start() {
      started = now();
      timer = setInterval(() => {
        const due = Math.floor(((now() - started) / 1000) * rate) - caused;
        if (due > 0) {
          caused += due;
          tick(due);
        }
      }, 10);
    },
    stop() {
      clearInterval(timer);
    },
  };
}

/** `POST /channels/{id}/typing` by `tokens` in turn, `rate` per second, at most 64 in flight (RATE_LIMITS=off). */
function typingStorm(base: string, channelId: string, tokens: string[], rate: number): Storm {
  let next = 0;
  let inFlight = 0;
  let sent = 0;
  const idle: Array<() => void> = [];
  const pace = paced(rate, (k) => {
    for (let j = 0; j < k && inFlight < 64; j++) {
      const auth = tokens[next++ % tokens.length]!;
      inFlight++;
      void call(base, 'POST', `/channels/${channelId}/typing`, { auth })
        .then((r) => {
          if (r.status === 204) sent++;
        })
        .catch(() => {})
        .finally(() => {
          inFlight--;
          if (inFlight === 0) for (const f of idle.splice(0)) f();
        });
    }
  });
  return {
    start: pace.start,
    async stop() {
      pace.stop();
      if (inFlight > 0) await new Promise<void>((r) => idle.push(r));
      return sent;
    },
    close() {},
  };
}

/** Gateway connections of `tokens`, each flipping its status (online/idle) in turn, `rate` changes per second. */
async function presenceStorm(gatewayUrl: string, tokens: string[], rate: number): Promise<Storm> {
  const sockets = await Promise.all(
    tokens.map(
      (token) =>
        new Promise<WebSocket>((resolve, reject) => {
          const ws = new WebSocket(gatewayUrl, { perMessageDeflate: false });
          ws.on('error', reject);
          ws.on('message', (data) => {
            const f = JSON.parse(data.toString());
            if (f.op === 'hello') {
              ws.send(JSON.stringify({ op: 'identify', d: { token } }));
              // Heartbeats, so the storm's own connections stay up for the whole phase.
              setInterval(
                () => ws.readyState === WebSocket.OPEN && ws.send('{"op":"heartbeat","d":null}'),
                f.d.heartbeatInterval / 2,
              ).unref();
            } else if (f.op === 'ready') resolve(ws);
          });
        }),
    ),
  );
  let next = 0;
  let sent = 0;
  const pace = paced(rate, (k) => {
    for (let j = 0; j < k; j++) {
      const i = next++;
      const ws = sockets[i % sockets.length]!;
      // Each bot alternates, so every update is a change (and, with PRESENCE_INTERVAL_MS=0, announced).
      const status = Math.floor(i / sockets.length) % 2 === 0 ? 'idle' : 'online';
      if (ws.readyState === WebSocket.OPEN) {
        ws.send(JSON.stringify({ op: 'presence_update', d: { status } }));
        sent++;
      }
    }
  });
  return {
    start: pace.start,
    async stop() {
      pace.stop();
      return sent;
    },
    close() {
      for (const ws of sockets) ws.terminate();
    },
  };
}

// ---------------------------------------------------------------- several instances

/**
 * `--instances K`: K Parley processes sharing one fresh PostgreSQL schema and one Redis
 * namespace (a unique REDIS_PREFIX), as docs/deploy.md describes. The bots are set up
 * and every message is posted through instance A; the clients are split evenly over
 * the instances, so a message reaches A's clients and B's alike through the Redis
 * stream. No bare baseline (it is one process; see the single-instance mode).
 */
async function multiInstance(opts: {
  n: number;
  instances: number;
  messages: number;
  workers: number;
  size: number;
  limit: number;
  profile?: string;
}): Promise<void> {
  const { n, size } = opts;
  process.env.DATABASE_URL ||= 'postgres://postgres@127.0.0.1:5432/test';
  const redisUrl = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
  const { Redis } = await import('ioredis');
  const schema = await freshPostgresSchema();
  const prefix = `parley-fanout-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}:`;
  console.log(`${opts.instances} instances: PostgreSQL ${schema.url.replace(/\/\/[^@/]*@/, '//…@')}, Redis ${redisUrl} prefix ${prefix}`);
  const names = Array.from({ length: opts.instances }, (_, k) => String.fromCharCode(65 + k)); // A, B, ...
  const started: Array<Awaited<ReturnType<typeof startParley>>> = [];
  let figures: ReturnType<typeof summarize>;
  try {
    // One after the other: the first runs the migrations.
    for (let k = 0; k < opts.instances; k++) {
      started.push(await startParley(opts.limit, { DATABASE_URL: schema.url, REDIS_URL: redisUrl, REDIS_PREFIX: prefix }));
    }
    const a = started[0]!;
    const t0 = now();
    const owner = await registerUser(a.url, `owner${Date.now().toString(36)}`);
    const { server, general } = await createServer(a.url, owner, 'Fan-out');
    const tokens = await pooled(
      Array.from({ length: n }, (_, i) => i),
      16,
      async (i) => {
        const bot = await createBot(a.url, owner, `fan${i}`);
        await addBot(a.url, owner, server.id, bot.id, ['READ_MESSAGES']);
        return bot.auth;
      },
    );
    console.log(`set-up: ${n} bots created and added to one server through instance A in ${ms(now() - t0)}`);
    const raw = await measure(
      {
        label: `Parley × ${opts.instances}`,
        gateways: started.map((p, k) => ({
          label: `instance ${names[k]}`,
          gatewayUrl: `${p.url.replace('http:', 'ws:')}/gateway`,
          pid: p.child.pid!,
          inspectPort: p.inspectPort,
        })),
        async send(i) {
          const content = `fanout ${i} `.padEnd(size, 'x');
          const r = await call(a.url, 'POST', `/channels/${general.id}/messages`, { auth: owner.auth, body: { content } });
          if (r.status !== 201) throw new Error(`post failed: ${r.status} ${r.text}`);
        },
        services: ['postgres', 'redis-server'],
      },
      tokens,
      { workers: opts.workers, messages: opts.messages, profile: opts.profile },
    );
    figures = summarize(raw);
  } catch (err) {
    for (const [k, p] of started.entries()) console.error(`--- instance ${names[k]}:\n${p.log()}`);
    throw err;
  } finally {
    for (const p of started) if (p.child.exitCode === null) p.child.kill('SIGTERM');
    await Promise.all(started.map((p) => (p.child.exitCode === null ? new Promise((r) => p.child.once('exit', r)) : undefined)));
    for (const p of started) fs.rmSync(p.dataDir, { recursive: true, force: true });
    await schema.drop().catch((err) => console.error(`could not drop the schema: ${err}`));
    // The stream (<prefix>events), gateway checkpoints (<prefix>gw:*) and anything else of this run.
    const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 3 });
    try {
      await redis.connect();
      let deleted = 0;
      let cursor = '0';
      do {
        const [nextCursor, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
        cursor = nextCursor;
        if (keys.length > 0) deleted += await redis.del(...keys);
      } while (cursor !== '0');
      console.log(`clean-up: schema dropped, ${deleted} Redis keys under ${prefix} deleted`);
    } catch (err) {
      console.error(`could not delete the Redis keys under ${prefix}: ${err}`);
    } finally {
      redis.disconnect();
    }
  }

  const groups = figures.groups;
  const col = (s: string) => s.padStart(24);
  const latencyRows: Array<[string, (f: { p50: number; p99: number; max: number; everyClientMedian: number }) => string]> = [
    ['latency per delivery p50', (f) => ms(f.p50)],
    ['latency per delivery p99', (f) => ms(f.p99)],
    ['latency per delivery max', (f) => ms(f.max)],
    ['every client has it (median over messages)', (f) => ms(f.everyClientMedian)],
  ];
  console.log('');
  console.log(`${''.padEnd(46)}${col('all clients')}${groups.map((g) => col(`on ${g.label}`)).join('')}`);
  console.log(`${'clients'.padEnd(46)}${col(String(figures.clients))}${groups.map((g) => col(String(g.clients))).join('')}`);
  for (const [name, fmt] of latencyRows) console.log(`${name.padEnd(46)}${col(fmt(figures))}${groups.map((g) => col(fmt(g))).join('')}`);
  const perInstance: Array<[string, (g: (typeof groups)[number]) => string]> = [
    ['server CPU per message', (g) => ms(g.cpuPerMessage)],
    ['server RSS before / after connecting', (g) => `${mib(g.rssBefore)} / ${mib(g.rssAfter)}`],
    ['server RSS per idle connection', (g) => kib(g.rssPerConnection)],
    ['server heap + external per idle connection', (g) => kib(g.heapPerConnection)],
  ];
  for (const [name, fmt] of perInstance) console.log(`${name.padEnd(46)}${col('')}${groups.map((g) => col(fmt(g))).join('')}`);
  const single: Array<[string, string]> = [
    ['first client has it (median)', ms(figures.firstClientMedian)],
    ['first to last client (median)', ms(figures.spreadMedian)],
    ['first to last client (max)', ms(figures.spreadMax)],
    ['POST answered by A (median)', ms(figures.sendMedian)],
    ['CPU per message: instances together', ms(figures.cpuPerMessage)],
    ['CPU per message: client workers', ms(figures.workerCpuPerMessage)],
    ...Object.entries(figures.serviceCpuPerMessage).map(([name, x]): [string, string] => [`CPU per message: ${name}`, ms(x)]),
    ['CPU per message: whole machine (busy)', ms(figures.machineCpuPerMessage)],
    [`machine busy over the message phase (${os.cpus().length} cores)`, `${(figures.machineBusy * 100).toFixed(0)}%`],
    ['connections dropped during the run', String(figures.dropped)],
  ];
  for (const [name, value] of single) console.log(`${name.padEnd(46)}${col(value)}`);
  console.log(`RESULT ${JSON.stringify({ parley: figures })}`);
}

if (process.argv.includes('--worker')) {
  void worker();
} else if (process.argv.includes('--bare-server')) {
  void bareServer();
} else {
  main().catch((err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
