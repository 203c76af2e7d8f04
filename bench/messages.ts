/**
 * Durable message throughput: bots posting messages over HTTP, against a bare node:http
 * server answering a fixed 201 under the same load generator.
 *
 *   npx tsx bench/messages.ts [--db sqlite|postgres] [--instances 1|2] [--runs 3]
 *                             [--connections 100] [--duration 10] [--warmup 10]
 *                             [--bots 50] [--channels 20] [--settle 30] [--with-fastify]
 *                             [--members 10000] [--mention none|everyone|users]
 *                             [--profile] [--stmt-cache] [--commit-concurrency 4]
 *                             [--node-flags="--max-semi-space-size=32"] [--rate 4000]
 *                             [--interleave 6 --duration 30]
 *
 * Each run starts Parley as child process(es) on a fresh database (RATE_LIMITS=off), sets
 * up one owner, one server, `channels` channels and `bots` bot members over HTTP, then a
 * separate autocannon process posts messages, every request the next (bot, channel)
 * pair. The same autocannon settings then hit a bare node:http server (bench/bare-server.ts).
 * Afterwards every 201's message id is looked up in the database, and the durability
 * settings are read on the server's own connection (bench/instrument.ts).
 *
 * --members n adds n people to the server (written straight into the database once the
 * service has set it up: registering 10,000 accounts over HTTP would take many minutes of
 * password hashing) and --mention makes every message ping: `everyone` starts it with
 * `@everyone` (each bot's role may mention everyone), `users` with five members'
 * `<@id>`. Together they show what a large server and its pings cost a POST.
 *
 * --with-fastify adds a third side, bench/fastify-server.ts: Fastify set up like Parley
 * with the same route schemas, answering a fixed 201, to split framework from Parley.
 *
 * Every side gets the same --warmup seconds of load before its measured phase. Ten: three
 * left V8 compiling Parley's code on its helper threads through the measured phase (~6%
 * of Parley's CPU there, ~1.4% after ten; bench/README.md), which a server that has run
 * for a minute no longer pays; the bare server has nothing of the kind to compile.
 *
 * Before each side's warm-up it waits up to --settle seconds for the machine to be idle
 * for a second (other jobs share it); the CPU used by other processes during each
 * measured phase is printed, so a disturbed run can be recognized.
 *
 * --profile writes a CPU profile of each Parley process's measured phase (summarize it
 * with bench/profile-summary.ts). --stmt-cache is a what-if: it caches better-sqlite3
 * statements inside the Parley process, to measure a change the service does not have.
 * --commit-concurrency n is another: up to n group-commit batches in flight at once.
 * --node-flags passes flags to the Parley processes' node (not to the bare server).
 * --rate n holds both sides at n requests a second in all instead of as many as they can
 * answer: the CPU per request then compares builds without the noise of two saturated
 * cores (the req/s and the ratio then say nothing).
 * --interleave n keeps Parley and the bare server both running through a run and splits
 * the measured --duration into n windows each, alternated (Parley, bare, bare, Parley, …)
 * with a quiet second between windows. The machine's speed drifts over minutes (the bare
 * side alone has moved by half within the hour); adjacent windows see the same machine, so
 * each pair's ratio is less at the mercy of that drift than two phases 30 s apart. The
 * run's ratio is still total 2xx over total time of each side; the pairs are printed too.
 * See bench/README.md for what the figures mean.
 */
import { type ChildProcess, execFileSync, fork, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import pg from 'pg';
import { addBot, call, createBot, createChannel, createServer, registerUser } from '../test/factories.js';
import { PARLEY_LISTENING, announced, freshPostgresSchema } from '../test/harness.js';
import type { CommitStats } from './instrument.js';
import type { Combo, LoadJob, LoadResult } from './load.js';

const ROOT = path.resolve(import.meta.dirname, '..');

// ---------------------------------------------------------------------------- options

interface Options {
  db: 'sqlite' | 'postgres';
  instances: number;
  runs: number;
  connections: number;
  duration: number;
  warmup: number;
  bots: number;
  channels: number;
  profile: boolean;
  stmtCache: boolean;
  settle: number;
  nodeFlags: string[];
  commitConcurrency: number;
  withFastify: boolean;
  members: number;
  mention: 'none' | 'everyone' | 'users';
  /** Requests a second across all connections (autocannon's overallRate); 0: as fast as they go. */
  rate: number;
  /** Pairs of measured windows, Parley's and the bare server's alternated (`--interleave`); 0: one phase each. */
  interleave: number;
}

/** A bad command line: reported as one line, without a stack. */
class UsageError extends Error {}

function parseOptions(): Options {
  const { values } = parseArgs({
    options: {
      db: { type: 'string', default: 'sqlite' },
      instances: { type: 'string', default: '1' },
      runs: { type: 'string', default: '3' },
      connections: { type: 'string', default: '100' },
      duration: { type: 'string', default: '10' },
      warmup: { type: 'string', default: '10' },
      bots: { type: 'string', default: '50' },
      channels: { type: 'string', default: '20' },
      profile: { type: 'boolean', default: false },
      'stmt-cache': { type: 'boolean', default: false },
      settle: { type: 'string', default: '30' },
      'node-flags': { type: 'string', default: '' },
      'commit-concurrency': { type: 'string', default: '0' },
      'with-fastify': { type: 'boolean', default: false },
      members: { type: 'string', default: '0' },
      mention: { type: 'string', default: 'none' },
      rate: { type: 'string', default: '0' },
      interleave: { type: 'string', default: '0' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(fs.readFileSync(new URL(import.meta.url), 'utf8').split('*/')[0]);
    process.exit(0);
  }
  const int = (name: keyof typeof values, min: number, max: number) => {
    const n = Number(values[name]);
    if (!Number.isInteger(n) || n < min || n > max) throw new UsageError(`--${name} must be an integer from ${min} to ${max}`);
    return n;
  };
  if (values.db !== 'sqlite' && values.db !== 'postgres') throw new UsageError('--db must be sqlite or postgres');
  if (values.mention !== 'none' && values.mention !== 'everyone' && values.mention !== 'users') {
    throw new UsageError('--mention must be none, everyone or users');
  }
  const opts: Options = {
    db: values.db,
    instances: int('instances', 1, 2),
    runs: int('runs', 1, 20),
    connections: int('connections', 1, 1000),
    duration: int('duration', 1, 600),
    warmup: int('warmup', 0, 600),
    bots: int('bots', 1, 1000),
    channels: int('channels', 1, 500),
    profile: values.profile ?? false,
    stmtCache: values['stmt-cache'] ?? false,
    settle: int('settle', 0, 600),
    commitConcurrency: int('commit-concurrency', 0, 64),
    withFastify: values['with-fastify'] ?? false,
    members: int('members', 0, 1_000_000),
    mention: values.mention,
    rate: int('rate', 0, 1_000_000),
    interleave: int('interleave', 0, 100),
    nodeFlags: (values['node-flags'] ?? '').split(/\s+/).filter(Boolean),
  };
  if (opts.mention === 'users' && opts.members < 5) throw new UsageError('--mention users needs --members 5 or more');
  if (opts.interleave > 0) {
    if (opts.withFastify || opts.profile)
      throw new UsageError('--interleave compares Parley with the bare server only, without --with-fastify or --profile');
    if (opts.duration % opts.interleave !== 0 || opts.duration / opts.interleave < 2)
      throw new UsageError('--duration must be a multiple of --interleave, in windows of 2 s or more (e.g. --duration 30 --interleave 6)');
  }
  if (opts.db === 'sqlite' && opts.instances > 1) {
    throw new UsageError('--instances 2 needs --db postgres: SQLite is the single-node store (one file, one writer)');
  }
  return opts;
}

// ---------------------------------------------------------------------------- processes

interface Child {
  proc: ChildProcess;
  url: string;
  output: () => string;
  stop(): Promise<void>;
}

/**
 * Starts `node <args>` from the repository root (listening on port 0), learns its address
 * from the first match of `announce` in its output (`toUrl` turns the match into a base
 * URL), then waits until `ready(url)` says so.
 */
async function startNode(
  args: string[],
  env: NodeJS.ProcessEnv,
  announce: RegExp,
  toUrl: (m: RegExpExecArray) => string,
  ready: (url: string) => Promise<boolean>,
): Promise<Child> {
  const proc = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  proc.stdout!.on('data', keep);
  proc.stderr!.on('data', keep);
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const listening = announced(proc, announce, 60_000);
  const child: Child = {
    proc,
    url: '',
    output: () => output,
    async stop() {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(timer);
    },
  };
  try {
    child.url = toUrl(await listening);
  } catch (err) {
    await child.stop();
    throw new Error(`${args.join(' ')}: ${(err as Error).message}`);
  }
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`${args.join(' ')} exited with ${proc.exitCode}:\n${output}`);
    if (await ready(child.url).catch(() => false)) return child;
    if (Date.now() > deadline) {
      await child.stop();
      throw new Error(`${args.join(' ')} did not become ready:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The environment of a Parley child: ours minus settings that would change what is measured. */
function parleyEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of ['DATABASE_URL', 'RATE_LIMITS', 'LOG_LEVEL', 'DATA_DIR', 'UPLOADS_DIR', 'PORT', 'HOST', 'PUBLIC_URL']) delete env[key];
  return { ...env, RATE_LIMITS: 'off', LOG_LEVEL: 'warn', HOST: '127.0.0.1', ...extra };
}

const CLK_TCK = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
  } catch {
    return 100;
  }
})();

/** CPU seconds (user + system) a process has used so far. */
function cpuSeconds(pid: number | undefined): number {
  if (!pid) return 0;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
  } catch {
    return 0;
  }
}

/** CPU seconds used so far by live processes named `name` (e.g. PostgreSQL's backends). */
function cpuSecondsOf(name: string): number {
  let sum = 0;
  for (const pid of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === name) sum += cpuSeconds(Number(pid));
    } catch {
      // exited meanwhile
    }
  }
  return sum;
}

/** A thread's seconds on a core, and waiting in the run queue for one. */
type ThreadTime = { run: number; wait: number };

/**
 * Seconds each thread of the processes `pids` has spent on a core and waiting in the run
 * queue for one so far (Linux `schedstat`, nanoseconds), by `pid/tid`. Empty elsewhere.
 */
function threadSeconds(pids: (number | undefined)[]): Map<string, ThreadTime> {
  const out = new Map<string, ThreadTime>();
  for (const pid of pids) {
    if (!pid) continue;
    let tids: string[];
    try {
      tids = fs.readdirSync(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    for (const tid of tids) {
      try {
        const [run, wait] = fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ').map(Number);
        out.set(`${pid}/${tid}`, { run: run! / 1e9, wait: wait! / 1e9 });
      } catch {
        // ended meanwhile, or no schedstat
      }
    }
  }
  return out;
}

/** Busy CPU seconds of the whole machine so far (all cores). */
function machineBusySeconds(): number {
  try {
    const line = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
    const t = line.split(/\s+/).slice(1).map(Number);
    const idle = (t[3] ?? 0) + (t[4] ?? 0);
    return (t.reduce((a, b) => a + b, 0) - idle) / CLK_TCK;
  } catch {
    return 0;
  }
}

/** The load generator process: one job at a time over IPC. */
class LoadGenerator {
  private readonly proc = fork(path.join(ROOT, 'bench', 'load.ts'), [], { cwd: ROOT, execArgv: ['--import', 'tsx'], stdio: 'inherit' });

  get pid() {
    return this.proc.pid;
  }

  run(job: LoadJob): Promise<LoadResult> {
    return new Promise((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`load generator exited (${code})`));
      this.proc.once('exit', onExit);
      this.proc.once('message', (m: { ok: true; result: LoadResult } | { ok: false; error: string }) => {
        this.proc.off('exit', onExit);
        if (m.ok) resolve(m.result);
        else reject(new Error(`load generator failed: ${m.error}`));
      });
      this.proc.send(job);
    });
  }

  close() {
    this.proc.disconnect();
  }
}

// ---------------------------------------------------------------------------- one side of a run

interface Cpu {
  server: number;
  load: number;
  /** PostgreSQL's processes (0 on SQLite). */
  database: number;
  machine: number;
  /** The server processes' threads: seconds on a core and waiting for one, by `pid/tid`. */
  threads: Map<string, ThreadTime>;
}

interface SideResult {
  warmup: LoadResult;
  measure: LoadResult;
  /** CPU seconds during the measured phase. */
  cpu: Cpu;
}

function snapshot(servers: Child[], load: LoadGenerator, postgres: boolean): Cpu {
  return {
    server: servers.reduce((sum, s) => sum + cpuSeconds(s.proc.pid), 0),
    load: cpuSeconds(load.pid),
    database: postgres ? cpuSecondsOf('postgres') : 0,
    machine: machineBusySeconds(),
    threads: threadSeconds(servers.map((s) => s.proc.pid)),
  };
}

/**
 * Waits (at most `maxSec`) for a second in which the machine is mostly idle, so another
 * job's burst is less likely to land in the measured phase.
 */
async function settle(maxSec: number): Promise<void> {
  const started = Date.now();
  while (Date.now() - started < maxSec * 1000) {
    const before = machineBusySeconds();
    await new Promise((r) => setTimeout(r, 1000));
    if (machineBusySeconds() - before < 0.25) return;
  }
}

async function drive(
  opts: Options,
  load: LoadGenerator,
  servers: Child[],
  combos: Combo[],
  postgres: boolean,
  beforeMeasure?: () => void,
): Promise<SideResult> {
  await settle(opts.settle);
  const warmup = await warmUp(opts, load, servers, combos);
  beforeMeasure?.();
  const before = snapshot(servers, load, postgres);
  const measure = await load.run(loadJob(opts, servers, combos, 'measure', opts.duration));
  return { warmup, measure, cpu: cpuBetween(before, snapshot(servers, load, postgres)) };
}

/** A phase of load on `servers`: `combos` over the options' connections (and rate), every 201's id kept. */
function loadJob(opts: Options, servers: Child[], combos: Combo[], phase: string, durationSec: number): LoadJob {
  return {
    phase,
    urls: servers.map((s) => s.url),
    combos,
    connections: opts.connections,
    durationSec,
    collectIds: true,
    ...(opts.rate ? { rate: opts.rate } : {}),
  };
}

/** A side's `--warmup` seconds of load (none: an empty result). */
async function warmUp(opts: Options, load: LoadGenerator, servers: Child[], combos: Combo[]): Promise<LoadResult> {
  return opts.warmup > 0 ? await load.run(loadJob(opts, servers, combos, 'warmup', opts.warmup)) : emptyResult('warmup');
}

/** The CPU used between two snapshots. */
function cpuBetween(before: Cpu, after: Cpu): Cpu {
  return {
    server: after.server - before.server,
    load: after.load - before.load,
    database: after.database - before.database,
    machine: after.machine - before.machine,
    threads: new Map(
      [...after.threads].map(([id, t]) => {
        const b = before.threads.get(id) ?? { run: 0, wait: 0 };
        return [id, { run: t.run - b.run, wait: t.wait - b.wait }];
      }),
    ),
  };
}

function emptyResult(phase: string): LoadResult {
  return {
    phase,
    elapsedSec: 0,
    responses: 0,
    ok2xx: 0,
    non2xx: 0,
    errors: 0,
    timeouts: 0,
    statusCodes: {},
    rps: 0,
    latencyMs: { p50: 0, p90: 0, p99: 0, mean: 0, max: 0 },
    ids: [],
    sampleFailures: [],
  };
}

interface ParleyResult extends SideResult {
  stats: CommitStats[];
  verify: {
    stored: number;
    acknowledged: number;
    missing: number;
    durable: boolean;
    durability: string;
    everyone: number;
    mentionRows: number;
  };
  profileDir?: string;
}

/** Runs a side's load on its servers: its warm-up and its measured phase (`drive`, or `driveInterleaved`). */
type Measure = (servers: Child[], combos: Combo[], beforeMeasure: () => void) => Promise<SideResult>;

async function benchParley(opts: Options, load: LoadGenerator, run: number, measure?: Measure): Promise<ParleyResult> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-bench-'));
  const pgSchema =
    opts.db === 'postgres' ? await freshPostgresSchema(process.env.DATABASE_URL || 'postgres://127.0.0.1:5432/test', 'bench') : undefined;
  const profileDir = opts.profile ? path.join(os.tmpdir(), 'parley-bench-profiles') : undefined;
  if (profileDir) fs.mkdirSync(profileDir, { recursive: true });
  const stamp = `${new Date().toISOString().replace(/[:.]/g, '-')}-run${run}`;
  const servers: Child[] = [];
  try {
    for (let i = 0; i < opts.instances; i++) {
      const env = parleyEnv({
        // The system assigns the port as it binds; PUBLIC_URL's port 0 follows it.
        PORT: '0',
        DATA_DIR: path.join(tmp, opts.db === 'sqlite' ? 'data' : `data${i}`),
        PUBLIC_URL: 'http://127.0.0.1:0',
        BENCH_STATS_FILE: path.join(tmp, `stats${i}.json`),
        ...(opts.stmtCache ? { BENCH_STMT_CACHE: '1' } : {}),
        ...(opts.commitConcurrency ? { BENCH_COMMIT_CONCURRENCY: String(opts.commitConcurrency) } : {}),
        ...(profileDir ? { BENCH_PROFILE_FILE: path.join(profileDir, `${opts.db}-${stamp}-instance${i + 1}.cpuprofile`) } : {}),
        ...(pgSchema ? { DATABASE_URL: pgSchema.url } : {}),
      });
      const args = [...opts.nodeFlags, '--import', 'tsx', '--import', './bench/instrument.ts', 'src/main.ts'];
      // One at a time: the first one migrates the shared database.
      servers.push(
        await startNode(
          args,
          env,
          PARLEY_LISTENING,
          (m) => m[1]!,
          async (url) => (await fetch(`${url}/healthz`)).ok,
        ),
      );
    }

    const base = servers[0]!.url;
    const owner = await registerUser(base, `bench${Date.now().toString(36)}`);
    const { server, general } = await createServer(base, owner, 'Bench');
    const channels = [general, ...(await inChunks(opts.channels - 1, () => createChannel(base, owner, server.id)))];
    const bots = await inChunks(opts.bots, async (i) => {
      const bot = await createBot(base, owner, `bench-bot-${i}`);
      await addBot(base, owner, server.id, bot.id);
      return bot;
    });
    const people = opts.members > 0 ? await addMembers(opts, server.id, pgSchema?.url, path.join(tmp, 'data', 'parley.db')) : [];
    if (opts.mention === 'everyone') {
      // Bots hold only their own roles' permissions (not @everyone's): each bot's managed
      // role gets MENTION_EVERYONE.
      const roles = await call(base, 'GET', `/servers/${server.id}/roles`, { auth: owner.auth });
      const managed = (roles.body as Array<{ id: string; permissions: string; managed: boolean }>).filter((r) => r.managed);
      await inChunks(managed.length, async (i) => {
        const role = managed[i]!;
        const permissions = String(BigInt(role.permissions) | (1n << 17n));
        const set = await call(base, 'PATCH', `/servers/${server.id}/roles/${role.id}`, { auth: owner.auth, body: { permissions } });
        if (set.status !== 200) throw new Error(`granting MENTION_EVERYONE: ${set.status} ${set.text}`);
      });
    }
    const combos = interleave(bots, channels).map(([bot, channel], i) => ({
      path: `/channels/${channel.id}/messages`,
      auth: bot.auth,
      botName: bot.name,
      prefix:
        opts.mention === 'everyone'
          ? '@everyone '
          : opts.mention === 'users'
            ? Array.from({ length: 5 }, (_, k) => `<@${people[(i * 5 + k) % people.length]}> `).join('')
            : undefined,
    }));

    const side = await (measure ?? ((ss, cs, before) => drive(opts, load, ss, cs, opts.db === 'postgres', before)))(servers, combos, () => {
      for (const s of servers) s.proc.kill('SIGUSR2');
    });

    for (const s of servers) await s.stop();
    const stats = servers.map((_, i) => JSON.parse(fs.readFileSync(path.join(tmp, `stats${i}.json`), 'utf8')) as CommitStats);
    const stored = pgSchema ? await pgMessageIds(pgSchema.url) : sqliteMessageIds(path.join(tmp, 'data', 'parley.db'));
    const storedIds = stored.ids;
    const acknowledged = [...side.warmup.ids, ...side.measure.ids];
    const missing = acknowledged.filter((id) => !storedIds.has(id)).length;
    const d = stats[0]!.durability;
    const durable =
      opts.db === 'sqlite' ? d.synchronous === 2 && d.journal_mode === 'wal' : d.synchronous_commit === 'on' && d.fsync === 'on';
    const durability = Object.entries(d)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ');
    return {
      ...side,
      stats,
      verify: {
        stored: storedIds.size,
        acknowledged: acknowledged.length,
        missing,
        durable,
        durability,
        everyone: stored.everyone,
        mentionRows: stored.mentionRows,
      },
      profileDir,
    };
  } catch (err) {
    for (const s of servers) console.error(`--- ${s.url} output:\n${s.output()}`);
    throw err;
  } finally {
    for (const s of servers) await s.stop();
    await pgSchema?.drop();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * Adds `opts.members` people to the server, straight into the running service's database
 * (SQLite allows a second writer between the service's transactions; PostgreSQL is a
 * server). They never sign in: they are the audience a ping would reach. Returns their ids.
 */
async function addMembers(opts: Options, serverId: string, pgUrl: string | undefined, sqliteFile: string): Promise<string[]> {
  const joinedAt = new Date().toISOString();
  // Far above any id the service issues in this run (its clock's snowflakes), so none collide.
  const ids = Array.from({ length: opts.members }, (_, i) => ((1n << 62n) + BigInt(i)).toString());
  const user = (id: string, i: number) => [id, `member${i}`, `member${i}`, `Member ${i}`, 0, null, 'x', null, null, joinedAt, 0];
  const userColumns = 'id, username, username_key, name, bot, owner_id, password_hash, token_hash, avatar, created_at, is_public';
  if (pgUrl) {
    const client = new pg.Client({ connectionString: pgUrl });
    await client.connect();
    try {
      for (let i = 0; i < ids.length; i += 1000) {
        const chunk = ids.slice(i, i + 1000);
        const rows = chunk.map((id, k) => user(id, i + k));
        const ph = (n: number, width: number) =>
          Array.from({ length: n }, (_, r) => `(${Array.from({ length: width }, (_, c) => `$${r * width + c + 1}`).join(', ')})`).join(
            ', ',
          );
        await client.query(`insert into users (${userColumns}) values ${ph(rows.length, 11)}`, rows.flat());
        await client.query(
          `insert into members (server_id, user_id, roles, legacy_permissions, joined_at) values ${ph(chunk.length, 5)}`,
          chunk.flatMap((id) => [serverId, id, '', -1, joinedAt]),
        );
      }
    } finally {
      await client.end();
    }
    return ids;
  }
  const db = new Database(sqliteFile);
  try {
    db.pragma('busy_timeout = 10000');
    db.defaultSafeIntegers(true);
    const insertUser = db.prepare(`insert into users (${userColumns}) values (${Array(11).fill('?').join(', ')})`);
    const insertMember = db.prepare(
      'insert into members (server_id, user_id, roles, legacy_permissions, joined_at) values (?, ?, ?, -1, ?)',
    );
    db.transaction(() => {
      ids.forEach((id, i) => {
        insertUser.run(user(id, i).map((v) => (typeof v === 'string' && v === id ? BigInt(id) : v)));
        insertMember.run(BigInt(serverId), BigInt(id), '', joinedAt);
      });
    })();
  } finally {
    db.close();
  }
  return ids;
}

/** The yardsticks: same load, no Parley. */
const YARDSTICKS = { bare: 'bench/bare-server.ts', fastify: 'bench/fastify-server.ts' } as const;
type Yardstick = keyof typeof YARDSTICKS;

async function benchYardstick(opts: Options, load: LoadGenerator, combos: Combo[], which: Yardstick): Promise<SideResult> {
  const servers = await startYardsticks(opts, combos, which);
  try {
    return await drive(opts, load, servers, combos, false);
  } finally {
    for (const s of servers) await s.stop();
  }
}

/** One yardstick server per Parley instance, each answering the first combo's request before it counts as ready. */
async function startYardsticks(opts: Options, combos: Combo[], which: Yardstick): Promise<Child[]> {
  const servers: Child[] = [];
  try {
    for (let i = 0; i < opts.instances; i++) {
      const probe = { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"content":"ready?"}' };
      const listening = /^listening (\d+)$/m;
      const child = await startNode(
        ['--import', 'tsx', YARDSTICKS[which], '0'],
        { ...process.env },
        listening,
        (m) => `http://127.0.0.1:${m[1]}`,
        async (url) => {
          return (await fetch(`${url}${combos[0]!.path}`, probe)).status === 201;
        },
      );
      servers.push(child);
    }
    return servers;
  } catch (err) {
    for (const s of servers) await s.stop();
    throw err;
  }
}

/** Between two windows of `driveInterleaved`: Parley's search index catches up every 250 ms, and that belongs to its own window. */
const QUIET_MS = 1000;

/**
 * `--interleave`: both sides warmed up, then `opts.interleave` measured windows each,
 * Parley's and the bare server's alternated (P B B P P B …, so neither always goes first)
 * with a quiet second before each. Each side's result sums its windows (latency: the
 * median of the windows' p50 and p99, the largest max); `pairs` are the windows' rates
 * side by side, Parley's first.
 */
async function driveInterleaved(
  opts: Options,
  load: LoadGenerator,
  parley: { servers: Child[]; combos: Combo[] },
  bareCombos: Combo[],
): Promise<{ parley: SideResult; bare: SideResult; pairs: Array<[number, number]> }> {
  const bareServers = await startYardsticks(opts, bareCombos, 'bare');
  try {
    const sides = {
      parley: { ...parley, postgres: opts.db === 'postgres' },
      bare: { servers: bareServers, combos: bareCombos, postgres: false },
    };
    await settle(opts.settle);
    const warmup = {
      parley: await warmUp(opts, load, sides.parley.servers, sides.parley.combos),
      bare: await warmUp(opts, load, sides.bare.servers, sides.bare.combos),
    };
    const windows: Record<'parley' | 'bare', Array<{ result: LoadResult; cpu: Cpu }>> = { parley: [], bare: [] };
    for (let w = 0; w < 2 * opts.interleave; w++) {
      const which = w % 4 === 0 || w % 4 === 3 ? 'parley' : 'bare';
      const side = sides[which];
      await new Promise((r) => setTimeout(r, QUIET_MS));
      const before = snapshot(side.servers, load, side.postgres);
      const result = await load.run(loadJob(opts, side.servers, side.combos, `measure ${w + 1}`, opts.duration / opts.interleave));
      windows[which].push({ result, cpu: cpuBetween(before, snapshot(side.servers, load, side.postgres)) });
    }
    return {
      parley: merged(warmup.parley, windows.parley),
      bare: merged(warmup.bare, windows.bare),
      pairs: windows.parley.map((p, i) => [p.result.rps, windows.bare[i]!.result.rps]),
    };
  } finally {
    for (const s of bareServers) await s.stop();
  }
}

/** A side's windows as one measured phase. */
function merged(warmup: LoadResult, windows: Array<{ result: LoadResult; cpu: Cpu }>): SideResult {
  const rs = windows.map((w) => w.result);
  const sum = (f: (r: LoadResult) => number) => rs.reduce((a, r) => a + f(r), 0);
  const elapsedSec = sum((r) => r.elapsedSec);
  const statusCodes: Record<string, number> = {};
  for (const r of rs) for (const [code, n] of Object.entries(r.statusCodes)) statusCodes[code] = (statusCodes[code] ?? 0) + n;
  const threads = new Map<string, ThreadTime>();
  for (const w of windows)
    for (const [id, t] of w.cpu.threads) {
      const had = threads.get(id) ?? { run: 0, wait: 0 };
      threads.set(id, { run: had.run + t.run, wait: had.wait + t.wait });
    }
  const cpuSum = (f: (c: Cpu) => number) => windows.reduce((a, w) => a + f(w.cpu), 0);
  return {
    warmup,
    measure: {
      phase: 'measure',
      elapsedSec,
      responses: sum((r) => r.responses),
      ok2xx: sum((r) => r.ok2xx),
      non2xx: sum((r) => r.non2xx),
      errors: sum((r) => r.errors),
      timeouts: sum((r) => r.timeouts),
      statusCodes,
      rps: sum((r) => r.ok2xx) / elapsedSec,
      latencyMs: {
        p50: median(rs.map((r) => r.latencyMs.p50)),
        p90: median(rs.map((r) => r.latencyMs.p90)),
        p99: median(rs.map((r) => r.latencyMs.p99)),
        mean: median(rs.map((r) => r.latencyMs.mean)),
        max: Math.max(...rs.map((r) => r.latencyMs.max)),
      },
      ids: rs.flatMap((r) => r.ids),
      sampleFailures: rs.flatMap((r) => r.sampleFailures).slice(0, 5),
    },
    cpu: {
      server: cpuSum((c) => c.server),
      load: cpuSum((c) => c.load),
      database: cpuSum((c) => c.database),
      machine: cpuSum((c) => c.machine),
      threads,
    },
  };
}

/** Runs `make(i)` for i in [0, n), ten at a time. */
async function inChunks<T>(n: number, make: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < n; i += 10) {
    out.push(...(await Promise.all(Array.from({ length: Math.min(10, n - i) }, (_, j) => make(i + j)))));
  }
  return out;
}

/** Every (a, b) pair once, ordered by diagonals so consecutive pairs differ in both a and b. */
function interleave<A, B>(as: A[], bs: B[]): Array<[A, B]> {
  const out: Array<[A, B]> = [];
  for (let d = 0; d < bs.length; d++) {
    for (let i = 0; i < as.length; i++) out.push([as[i]!, bs[(i + d) % bs.length]!]);
  }
  return out;
}

// ---------------------------------------------------------------------------- storage checks

/** What was stored: every message id, and how many messages pinged `@everyone` and rows name a member. */
interface Stored {
  ids: Set<string>;
  everyone: number;
  mentionRows: number;
}

const COUNT_PINGS =
  'SELECT (SELECT count(*) FROM messages WHERE mention_everyone = 1) AS everyone, (SELECT count(*) FROM message_mentions) AS mention_rows';

async function pgMessageIds(url: string): Promise<Stored> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const { rows } = await c.query<{ id: string }>('SELECT id FROM messages');
    const pings = (await c.query<{ everyone: string; mention_rows: string }>(COUNT_PINGS)).rows[0]!;
    return { ids: new Set(rows.map((r) => r.id)), everyone: Number(pings.everyone), mentionRows: Number(pings.mention_rows) };
  } finally {
    await c.end();
  }
}

/** Read after the server exited: what a crash-free restart would find in the file. */
function sqliteMessageIds(file: string): Stored {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    // Ids are 64-bit integers: read them exactly (BigInt), as decimal strings.
    const ids = new Set((db.prepare('SELECT id FROM messages').pluck().safeIntegers().all() as bigint[]).map(String));
    const pings = db.prepare(COUNT_PINGS).get() as { everyone: number; mention_rows: number };
    return { ids, everyone: pings.everyone, mentionRows: pings.mention_rows };
  } finally {
    db.close();
  }
}

// ---------------------------------------------------------------------------- report

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

function describeSide(name: string, side: SideResult): string {
  const m = side.measure;
  const perReq = (cpu: number) => (m.responses ? `${fmt((cpu / m.responses) * 1e6)} µs/req` : '-');
  const other = Math.max(0, side.cpu.machine - side.cpu.server - side.cpu.load - side.cpu.database);
  const database = side.cpu.database > 0 ? `, PostgreSQL ${fmt(side.cpu.database, 1)} s (${perReq(side.cpu.database)})` : '';
  return [
    `  ${name.padEnd(8)} ${fmt(m.rps).padStart(7)} req/s   latency p50 ${fmt(m.latencyMs.p50, 1)} ms  p99 ${fmt(m.latencyMs.p99, 1)} ms  max ${fmt(m.latencyMs.max)} ms`,
    `           2xx ${fmt(m.ok2xx)}  non-2xx ${m.non2xx}  errors ${m.errors}  timeouts ${m.timeouts}  (warm-up: 2xx ${fmt(side.warmup.ok2xx)}, non-2xx ${side.warmup.non2xx}, errors ${side.warmup.errors})`,
    `           cpu over ${fmt(m.elapsedSec, 1)} s: server ${fmt(side.cpu.server, 1)} s (${perReq(side.cpu.server)}), load generator ${fmt(side.cpu.load, 1)} s (${perReq(side.cpu.load)})${database}, other processes ${fmt(other, 1)} s`,
    ...describeThreads(side.cpu.threads, m.elapsedSec),
    ...[...m.sampleFailures, ...side.warmup.sampleFailures].slice(0, 3).map((f) => `           failure: ${f}`),
  ].join('\n');
}

/**
 * The server's busiest threads in the measured phase, in cores: on a core / waiting in the
 * run queue for one. A process's first thread is its event loop; its others (the SQLite
 * writer's and search index's threads, libuv's pool, V8's helpers) are numbered by CPU.
 */
function describeThreads(threads: Map<string, ThreadTime>, seconds: number): string[] {
  if (threads.size === 0 || seconds <= 0) return [];
  const byProcess = new Map<string, (ThreadTime & { tid: string })[]>();
  for (const [id, t] of threads) {
    const [pid, tid] = id.split('/') as [string, string];
    if (pid !== tid && t.run / seconds < 0.02) continue;
    byProcess.set(pid, [...(byProcess.get(pid) ?? []), { tid, ...t }]);
  }
  return [...byProcess].map(([pid, ts], i) => {
    ts.sort((a, b) => Number(b.tid === pid) - Number(a.tid === pid) || b.run - a.run);
    const parts = ts.map(
      (t, n) => `${n === 0 ? 'event loop' : `thread ${n + 1}`} ${fmt(t.run / seconds, 2)} / ${fmt(t.wait / seconds, 2)}`,
    );
    const instance = byProcess.size > 1 ? ` (instance ${i + 1})` : '';
    return `           threads${instance}, cores on / waiting for one: ${parts.join(', ')}`;
  });
}

function describeCommits(stats: CommitStats[]): string {
  return stats
    .map((s, i) => {
      const sizes = Object.entries(s.sizes)
        .map(([size, count]) => [Number(size), count] as const)
        .sort((a, b) => a[0] - b[0]);
      const weighted = (q: number) => {
        // The batch size the q-quantile write was committed in.
        let seen = 0;
        for (const [size, count] of sizes) {
          seen += size * count;
          if (seen >= q * s.writes) return size;
        }
        return 0;
      };
      return (
        `  commits${stats.length > 1 ? ` (instance ${i + 1})` : ''}: ${fmt(s.batches)} batches for ${fmt(s.writes)} writes, ` +
        `mean ${fmt(s.writes / Math.max(1, s.batches), 1)} per batch (a write's median batch ${weighted(0.5)}, p90 ${weighted(0.9)}, max ${sizes.at(-1)?.[0] ?? 0}); ` +
        `${fmt(s.commitMs / Math.max(1, s.batches), 2)} ms per batch (max ${fmt(s.maxCommitMs, 1)}), committer busy ${fmt(s.commitMs / 1000, 1)} s`
      );
    })
    .join('\n');
}

async function main(): Promise<void> {
  const opts = parseOptions();
  const bus = process.env.REDIS_URL ? 'redis' : 'in-process';
  console.log(
    `Parley message POST vs bare node:http — ${opts.db}, ${opts.instances} instance(s), event bus ${bus}${opts.stmtCache ? ', WHAT-IF statement cache' : ''}${opts.commitConcurrency ? `, WHAT-IF ${opts.commitConcurrency} concurrent batches` : ''}${opts.nodeFlags.length ? `, node ${opts.nodeFlags.join(' ')}` : ''}; ` +
      `${opts.connections} connections, ${opts.bots} bots × ${opts.channels} channels, ${opts.warmup} s warm-up + ${opts.duration} s, ${opts.runs} run(s)${opts.rate ? `, held at ${opts.rate} req/s` : ''}`,
  );
  console.log(
    `machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${fmt(os.totalmem() / 2 ** 30, 1)} GiB, Node ${process.versions.node}, ${os.platform()} ${os.release()}`,
  );
  const load = new LoadGenerator();
  const sides: Array<'parley' | Yardstick> = ['parley', 'bare', ...(opts.withFastify ? (['fastify'] as const) : [])];
  const rows: Array<Record<string, SideResult>> = [];
  let failed = false;
  try {
    for (let run = 1; run <= opts.runs; run++) {
      console.log(
        `\nrun ${run}/${opts.runs}  (load average ${os
          .loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')})`,
      );
      const yardstickCombos = Array.from({ length: opts.bots * opts.channels }, (_, i) => ({
        // Same shape as Parley's: 19-digit snowflakes, a 43-character secret.
        path: `/channels/13155205122348${String(i).padStart(5, '0')}/messages`,
        auth: `Bot 13155205122349${String(i % opts.bots).padStart(5, '0')}.${'x'.repeat(43)}`,
        botName: `bench-bot-${i % opts.bots}`,
      }));
      // Rotate which side goes first, so drift in background load hits all alike.
      const order = sides.map((_, i) => sides[(i + run - 1) % sides.length]!);
      const results: Record<string, SideResult> = {};
      let parley: ParleyResult | undefined;
      let pairs: Array<[number, number]> | undefined;
      if (opts.interleave > 0) {
        results.parley = parley = await benchParley(opts, load, run, async (servers, combos) => {
          const both = await driveInterleaved(opts, load, { servers, combos }, yardstickCombos);
          results.bare = both.bare;
          pairs = both.pairs;
          return both.parley;
        });
      } else
        for (const side of order) {
          if (side === 'parley') results.parley = parley = await benchParley(opts, load, run);
          else results[side] = await benchYardstick(opts, load, yardstickCombos, side);
        }
      rows.push(results);
      console.log(describeSide('parley', parley!));
      console.log(describeCommits(parley!.stats));
      const v = parley!.verify;
      const extra = v.stored - v.acknowledged;
      console.log(
        `  verify: ${fmt(v.acknowledged)} messages acknowledged (201), ${fmt(v.stored)} stored, ${v.missing} acknowledged but missing; ` +
          `${extra} stored without an answer received (in flight when the load stopped); durability ${v.durability}${v.durable ? '' : '  ← NOT DURABLE'}`,
      );
      if (opts.members > 0 || opts.mention !== 'none')
        console.log(
          `  server of ${fmt(opts.members + opts.bots + 1)} members; stored: ${fmt(v.everyone)} messages pinging @everyone, ${fmt(v.mentionRows)} mention rows (one per member named)`,
        );
      if (parley!.profileDir)
        console.log(`  cpu profiles of the measured phase: ${parley!.profileDir} (npx tsx bench/profile-summary.ts <file>)`);
      for (const side of sides.slice(1)) {
        console.log(describeSide(side, results[side]!));
        console.log(`  ratio parley/${side}: ${fmt((parley!.measure.rps / results[side]!.measure.rps) * 100, 1)}%`);
      }
      if (pairs)
        console.log(
          `  windows (parley / bare req/s, ratio): ${pairs.map(([p, b]) => `${fmt(p)} / ${fmt(b)} ${fmt((p / b) * 100, 1)}%`).join(', ')}; ` +
            `median of the pairs' ratios ${fmt(median(pairs.map(([p, b]) => p / b)) * 100, 1)}%`,
        );
      const errors = (r: SideResult) => r.measure.non2xx + r.measure.errors + r.warmup.non2xx + r.warmup.errors;
      // Each phase's end (the warm-up, the measured phase or each window of it) may leave a request per connection in flight.
      const phases = 1 + Math.max(1, opts.interleave);
      if (v.missing > 0 || !v.durable || extra < 0 || extra > opts.connections * phases) failed = true;
      if (Object.values(results).some((r) => errors(r) > 0)) failed = true;
    }
  } finally {
    load.close();
  }
  console.log(`\nsummary (2xx req/s; * = other processes used more than 10% of the machine during that measurement)`);
  const cell = (r: SideResult) => `${fmt(r.measure.rps).padStart(7)}${disturbed(r) ? '*' : ' '}`;
  rows.forEach((r, i) =>
    console.log(
      `  run ${i + 1}: ${sides.map((side) => `${side} ${cell(r[side]!)}`).join('  ')}  ` +
        sides
          .slice(1)
          .map((side) => `parley/${side} ${fmt((r.parley!.measure.rps / r[side]!.measure.rps) * 100, 1)}%`)
          .join('  '),
    ),
  );
  const med = (side: string) => median(rows.map((r) => r[side]!.measure.rps));
  console.log(
    `  median: ${sides.map((side) => `${side} ${fmt(med(side))}`).join('  ')}  ` +
      sides
        .slice(1)
        .map((side) => `parley/${side} ${fmt((med('parley') / med(side)) * 100, 1)}%`)
        .join('  '),
  );
  if (opts.interleave > 0)
    console.log(
      `  median of the runs' ratios (each from windows side by side): ${fmt(median(rows.map((r) => r.parley!.measure.rps / r.bare!.measure.rps)) * 100, 1)}%`,
    );
  if (failed) {
    console.log('\nFAILED: a check above did not hold (errors, missing messages or durability settings).');
    process.exitCode = 1;
  }
}

/** True when other processes took more than a tenth of the machine during the measured phase. */
function disturbed(side: SideResult): boolean {
  const other = side.cpu.machine - side.cpu.server - side.cpu.load - side.cpu.database;
  return other > 0.1 * os.cpus().length * side.measure.elapsedSec;
}

main().catch((err) => {
  console.error(err instanceof UsageError ? err.message : err instanceof Error ? err.stack : err);
  process.exit(1);
});
