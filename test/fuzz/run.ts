/**
 * Runs generated requests against a server with a bounded number in flight, checks
 * every answer, and keeps what is needed for a report: counts per route and status,
 * and the first example of each distinct violation.
 */
import { type OracleContext, type Violation, check } from './check.js';
import { type FuzzRequest, type FuzzResponse, type Outcome, describe as describeRequest, send } from './transport.js';

export interface Example {
  rule: string;
  target: string;
  count: number;
  detail: string;
  request: Record<string, unknown>;
  response?: { status: number; contentType?: string; body: string };
  /** How often each generator note came with this violation: hints at the cause. */
  notes: Map<string, number>;
}

/** A note without its variable part where that part is noise (the query, the depth). */
function noteKind(n: string): string {
  if (n.startsWith('query:')) return 'query';
  if (n.startsWith('ws:')) return 'ws';
  if (n.startsWith('deep:')) return n.split(':').slice(0, 2).join(':');
  return n.slice(0, 48);
}

export interface RunResult {
  sent: number;
  raw: number;
  /** Requests that certainly reached each route (`METHOD /pattern`). */
  reached: Map<string, number>;
  statuses: Map<number, number>;
  /** One entry per (rule, target): the first example and how often it happened. */
  violations: Map<string, Example>;
  /** The 429s seen, all checked like any other answer. */
  rateLimited: number;
  ms: number;
}

export function emptyResult(): RunResult {
  return { sent: 0, raw: 0, reached: new Map(), statuses: new Map(), violations: new Map(), rateLimited: 0, ms: 0 };
}

function record(result: RunResult, req: FuzzRequest, out: Outcome, found: Violation[]): void {
  result.sent++;
  if (req.raw) result.raw++;
  if (out.ok) {
    result.statuses.set(out.res.status, (result.statuses.get(out.res.status) ?? 0) + 1);
    if (out.res.status === 429) result.rateLimited++;
    if (req.reaches) result.reached.set(req.reaches, (result.reached.get(req.reaches) ?? 0) + 1);
  }
  for (const v of found) {
    const key = `${v.rule} | ${req.target}`;
    const seen = result.violations.get(key);
    if (seen) {
      seen.count++;
      for (const n of new Set(req.notes.map(noteKind))) seen.notes.set(n, (seen.notes.get(n) ?? 0) + 1);
      continue;
    }
    const res: FuzzResponse | undefined = out.ok ? out.res : undefined;
    result.violations.set(key, {
      rule: v.rule,
      target: req.target,
      count: 1,
      detail: v.detail,
      request: describeRequest(req),
      notes: new Map([...new Set(req.notes.map(noteKind))].map((n) => [n, 1])),
      ...(res
        ? { response: { status: res.status, contentType: res.headers['content-type'], body: res.body.toString('utf8').slice(0, 300) } }
        : {}),
    });
  }
}

/** Sends requests `0 .. count-1` made by `make`, `concurrency` at a time. */
export async function runRequests(
  base: string,
  count: number,
  make: (index: number) => FuzzRequest,
  ctx: OracleContext,
  opts: { concurrency: number; timeoutMs?: number; into?: RunResult },
): Promise<RunResult> {
  const result = opts.into ?? emptyResult();
  const t0 = performance.now();
  let next = 0;
  // Requests that stall on purpose wait for the server's request timeout: they run
  // beside the workers instead of holding one up for seconds.
  const stalled: Promise<void>[] = [];
  const one = async (req: FuzzRequest) => {
    const out = await send(base, req, opts.timeoutMs);
    record(result, req, out, check(req, out, ctx));
  };
  const worker = async () => {
    for (;;) {
      const i = next++;
      if (i >= count) return;
      const req = make(i);
      if (req.notes.includes('stalls')) stalled.push(one(req));
      else await one(req);
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, worker));
  await Promise.all(stalled);
  result.ms += performance.now() - t0;
  return result;
}

/** A readable report of the violations, grouped by rule, with one reproducible example each. */
export function report(seed: string, results: Array<[string, RunResult]>): string {
  const lines: string[] = [];
  for (const [name, r] of results) {
    if (r.violations.size === 0) continue;
    lines.push(`== ${name}: ${r.violations.size} distinct violation(s) in ${r.sent} requests ==`);
    const byRule = new Map<string, Example[]>();
    for (const e of r.violations.values()) byRule.set(e.rule, [...(byRule.get(e.rule) ?? []), e]);
    for (const [rule, examples] of [...byRule].sort()) {
      const total = examples.reduce((s, e) => s + e.count, 0);
      lines.push(`-- ${rule}: ${total} answer(s) on ${examples.length} target(s)`);
      // What the failing requests had in common: the likeliest cause.
      const tally = new Map<string, number>();
      for (const e of examples) for (const [n, c] of e.notes) tally.set(n, (tally.get(n) ?? 0) + c);
      const common = [...tally]
        .filter(([, c]) => c / total >= 0.5)
        .sort((a, b) => b[1] - a[1])
        .slice(0, 5);
      if (common.length > 0) lines.push(`   common to most: ${common.map(([n, c]) => `${n} (${c}/${total})`).join(', ')}`);
      for (const e of examples.slice(0, 6)) {
        lines.push(`   ${e.target} ×${e.count}: ${e.detail.slice(0, 200)}`);
        lines.push(`     request:  ${JSON.stringify(e.request).slice(0, 900)}`);
        if (e.response) lines.push(`     response: ${JSON.stringify(e.response).slice(0, 400)}`);
      }
      if (examples.length > 6)
        lines.push(
          `   … and ${examples.length - 6} more target(s): ${examples
            .slice(6)
            .map((e) => e.target)
            .join(', ')}`,
        );
    }
  }
  if (lines.length === 0) return '';
  return [
    `fuzz seed ${JSON.stringify(seed)}: reproduce with FUZZ_SEED=${JSON.stringify(seed)} (request ids are <phase>#<index>)`,
    ...lines,
  ].join('\n');
}

/** One line of numbers for the log: what was sent and what came back. */
export function summary(name: string, r: RunResult): string {
  const statuses = [...r.statuses]
    .sort((a, b) => a[0] - b[0])
    .map(([s, n]) => `${s}:${n}`)
    .join(' ');
  const least = [...r.reached].sort((a, b) => a[1] - b[1])[0];
  const coverage = least ? `; ${r.reached.size} routes reached, the least ${least[1]}× (${least[0]})` : '';
  return `${name}: ${r.sent} requests (${r.raw} raw) in ${(r.ms / 1000).toFixed(1)} s; statuses ${statuses}${coverage}`;
}
