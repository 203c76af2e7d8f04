/**
 * Summarizes a V8 .cpuprofile (from `bench/messages.ts --profile`, i.e. node --cpu-prof):
 * self time by where the code lives, and inclusive time of the functions that matter.
 *
 *   npx tsx bench/profile-summary.ts <file.cpuprofile | dir> [--top 40] [--match text] [--requests n]
 *
 * It first sorts every sample into a few buckets (SQLite prepare, reads, writes, COMMIT,
 * Kysely, HTTP and Fastify, Parley's code, GC); with --requests (how many requests the
 * profile covers) it prints each bucket's microseconds per request too.
 * Inclusive time counts a sample once for every distinct function on its stack, so
 * `authenticateBot` includes the Kysely and SQLite work it caused synchronously. Work
 * after an `await` shows under whatever resumed it (often a microtask), not its caller.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: 'string', default: '40' }, match: { type: 'string' }, requests: { type: 'string' } },
});
const target = positionals[0];
if (!target) {
  console.error('usage: npx tsx bench/profile-summary.ts <file.cpuprofile | dir> [--top 40] [--match text]');
  process.exit(2);
}
const file = fs.statSync(target).isDirectory()
  ? fs
      .readdirSync(target)
      .filter((f) => f.endsWith('.cpuprofile'))
      .map((f) => path.join(target, f))
      .sort((a, b) => fs.statSync(b).size - fs.statSync(a).size)[0]!
  : target;
const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;

/** Where a function lives: a package, a file of ours, Node internals or a V8 pseudo-frame. */
function area(url: string, name: string): string {
  if (!url) return name.startsWith('(') ? name : '(native)';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  if (url.startsWith('node:'))
    return url
      .replace(/^node:internal\//, 'node:')
      .split('/')
      .slice(0, 2)
      .join('/');
  const src = url.indexOf('/src/');
  if (src >= 0) return url.slice(src + 1);
  const bench = url.indexOf('/bench/');
  if (bench >= 0) return url.slice(bench + 1);
  return url;
}

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
/** A file's short name: `kysely/.../sqlite-driver.js`, `src/domain/access.ts`, `node:events`. */
function where(url: string, name: string): string {
  const nm = url.lastIndexOf('node_modules/');
  if (nm < 0) return area(url, name);
  const parts = url.slice(nm + 'node_modules/'.length).split('/');
  const pkg = parts[0]!.startsWith('@') ? 2 : 1;
  return [...parts.slice(0, pkg), ...(parts.length > pkg + 1 ? ['…'] : []), parts.at(-1)].join('/');
}
const key = (n: ProfileNode) => {
  const f = n.callFrame;
  return `${f.functionName || '(anonymous)'}  ${where(f.url, f.functionName)}:${f.lineNumber + 1}`;
};

/** Buckets in order of precedence: the first that matches a sample's stack takes it. */
const HTTP =
  /^(fastify|find-my-way|avvio|secure-json-parse|pino|toad-cache|ajv|fast-|light-my-request|abstract-logging|@fastify\/)|^node:(_http|http|net|stream|events|buffer|async_hooks|timers|process|diagnostics|util|internal|url|string_decoder)/;
const BUCKETS: Array<[string, (leaf: ProfileNode, stack: ProfileNode[]) => boolean]> = [
  ['GC', (leaf) => leaf.callFrame.functionName === '(garbage collector)'],
  ['SQLite COMMIT (WAL write + fsync, checkpoints)', (_, stack) => stack.some((n) => n.callFrame.functionName === 'commitTransaction')],
  // better-sqlite3's native Statement constructor is prepare(); its JS wrapper is often inlined away.
  [
    'SQLite prepare (compile SQL to a statement)',
    (leaf) => ['Statement', 'prepare'].includes(leaf.callFrame.functionName) && !leaf.callFrame.url,
  ],
  ['SQLite run reads (all)', (leaf) => leaf.callFrame.functionName === 'all' && !leaf.callFrame.url],
  ['SQLite run writes (run)', (leaf) => leaf.callFrame.functionName === 'run' && !leaf.callFrame.url],
  ['Kysely (build, compile, plugins, executor)', (leaf) => leaf.callFrame.url.includes('/kysely/')],
  ['better-sqlite3 JS', (leaf) => leaf.callFrame.url.includes('/better-sqlite3/')],
  ['Parley code (src/)', (leaf) => leaf.callFrame.url.includes('/src/')],
  [
    'HTTP, Fastify, Node core',
    (leaf) =>
      HTTP.test(area(leaf.callFrame.url, leaf.callFrame.functionName)) ||
      ['writev', 'utf8Write', 'utf8Slice', 'runMicrotasks'].includes(leaf.callFrame.functionName),
  ],
  [
    'crypto (token hash, ids)',
    (leaf) =>
      area(leaf.callFrame.url, leaf.callFrame.functionName).startsWith('node:crypto') ||
      ['Hash', 'digest', 'update', 'RandomBytesJob', 'randomFillSync'].includes(leaf.callFrame.functionName),
  ],
  ['other', () => true],
];
const byBucket = new Map<string, number>();

const selfByArea = new Map<string, number>();
const selfByFn = new Map<string, number>();
const inclusive = new Map<string, number>();
let total = 0;
let idle = 0;
profile.samples.forEach((id, i) => {
  const dt = profile.timeDeltas[i] ?? 0;
  const node = byId.get(id)!;
  if (node.callFrame.functionName === '(idle)') {
    idle += dt;
    return;
  }
  total += dt;
  const a = area(node.callFrame.url, node.callFrame.functionName);
  selfByArea.set(a, (selfByArea.get(a) ?? 0) + dt);
  selfByFn.set(key(node), (selfByFn.get(key(node)) ?? 0) + dt);
  const stack: ProfileNode[] = [];
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) stack.push(byId.get(cur)!);
  const bucket = BUCKETS.find(([, test]) => test(node, stack))![0];
  byBucket.set(bucket, (byBucket.get(bucket) ?? 0) + dt);
  const seen = new Set<string>();
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const k = key(byId.get(cur)!);
    if (seen.has(k)) continue;
    seen.add(k);
    inclusive.set(k, (inclusive.get(k) ?? 0) + dt);
  }
});

const top = Number(values.top);
const pct = (us: number) => `${((us / total) * 100).toFixed(1).padStart(5)}%`;
const ms = (us: number) => `${(us / 1000).toFixed(0).padStart(6)} ms`;
const show = (title: string, m: Map<string, number>, filter: (k: string) => boolean = () => true) => {
  console.log(`\n${title}`);
  [...m]
    .filter(([k]) => filter(k))
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .forEach(([k, us]) => console.log(`  ${pct(us)} ${ms(us)}  ${k}`));
};

console.log(`${file}\nbusy ${ms(total)}, idle ${ms(idle)} of ${ms(profile.endTime - profile.startTime)}`);
const requests = Number(values.requests ?? 0);
console.log(`\nwhere the busy time goes${requests ? ` (µs per request over ${requests} requests)` : ''}`);
for (const [name, us] of [...byBucket].sort((a, b) => b[1] - a[1])) {
  console.log(`  ${pct(us)} ${ms(us)}${requests ? `  ${(us / requests).toFixed(0).padStart(5)} µs/req` : ''}  ${name}`);
}
show('self time by area', selfByArea);
show('self time by function', selfByFn);
const match = values.match;
show(
  match ? `inclusive time, functions matching "${match}"` : 'inclusive time (src/ and selected libraries)',
  inclusive,
  match ? (k) => k.includes(match) : (k) => /src\/|kysely|better-sqlite3|fastify|avvio|find-my-way|ajv|\(garbage/.test(k),
);
