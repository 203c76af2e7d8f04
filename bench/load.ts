/**
 * The load generator of bench/messages.ts, in a process of its own so its CPU is not the
 * server's: autocannon posting messages as many bots into many channels.
 *
 * Driven over IPC by the orchestrator (`fork('bench/load.ts')`): it receives a LoadJob,
 * runs it and sends back a LoadResult. Connections are spread round-robin over the job's
 * URLs (one per server instance), and every request takes the next (bot, channel) pair,
 * so each connection keeps rotating over all bots and channels.
 */
import { createRequire } from 'node:module';

/** One kind of request: the path and the Authorization value (one bot into one channel). */
export interface Combo {
  path: string;
  auth: string;
  botName: string;
  /** Put before each message's text (mentions: `@everyone `, `<@id> `); JSON-escaped already. */
  prefix?: string;
}

export interface LoadJob {
  phase: string;
  urls: string[];
  combos: Combo[];
  connections: number;
  durationSec: number;
  /** Keep the id of every 201 response (bytes 7 to 33 of Parley's message JSON). */
  collectIds: boolean;
  /** Requests a second in all (autocannon's overallRate); absent: as many as are answered. */
  rate?: number;
}

export interface LoadResult {
  phase: string;
  elapsedSec: number;
  /** Responses received, whatever their status. */
  responses: number;
  ok2xx: number;
  non2xx: number;
  /** Connection errors and timeouts (timeouts are counted in both). */
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
  rps: number;
  latencyMs: { p50: number; p90: number; p99: number; mean: number; max: number };
  ids: string[];
  /** A few non-2xx bodies, to say why requests failed. */
  sampleFailures: string[];
}

interface AutocannonRequest {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  setupRequest?: (req: AutocannonRequest, context: object) => AutocannonRequest;
  onResponse?: (status: number, body: string, context: object) => void;
}

interface Histogram {
  p50: number;
  p90: number;
  p99: number;
  mean: number;
  max: number;
}

interface AutocannonResult {
  duration: number;
  latency: Histogram;
  errors: number;
  timeouts: number;
  non2xx: number;
  '2xx': number;
  statusCodeStats: Record<string, { count: number }>;
}

type Autocannon = (
  opts: {
    url: string | string[];
    connections: number;
    duration: number;
    headers?: Record<string, string>;
    requests: AutocannonRequest[];
  },
  cb: (err: Error | null, result: AutocannonResult) => void,
) => NodeJS.EventEmitter;

// autocannon ships no type declarations; this file types the part it uses.
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

const FILLER = 'the quick brown fox jumps over the lazy dog';

/** Runs one job to completion. */
export function runLoad(job: LoadJob): Promise<LoadResult> {
  let n = 0;
  const ids: string[] = [];
  const sampleFailures: string[] = [];
  const request: AutocannonRequest = {
    method: 'POST',
    setupRequest(req) {
      const i = n++;
      const combo = job.combos[i % job.combos.length]!;
      req.path = combo.path;
      req.headers = { ...req.headers, authorization: combo.auth };
      req.body = `{"content":"${combo.prefix ?? ''}load test message ${job.phase} ${i} from ${combo.botName}: ${FILLER}"}`;
      return req;
    },
    onResponse(status, body) {
      if (status === 201) {
        if (!job.collectIds) return;
        // Parley serializes the message with `id` first: {"id":"<snowflake>",...
        const end = body.startsWith('{"id":"') ? body.indexOf('"', 7) : -1;
        ids.push(end > 7 ? body.slice(7, end) : (JSON.parse(body) as { id: string }).id);
      } else if (sampleFailures.length < 5) {
        sampleFailures.push(`${status} ${body.slice(0, 200)}`);
      }
    },
  };
  const started = performance.now();
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: job.urls.length === 1 ? job.urls[0]! : job.urls,
        connections: job.connections,
        duration: job.durationSec,
        ...(job.rate ? { overallRate: job.rate } : {}),
        headers: { 'content-type': 'application/json' },
        requests: [request],
      },
      (err, r) => {
        if (err) return reject(err);
        const elapsedSec = (performance.now() - started) / 1000;
        const statusCodes = Object.fromEntries(Object.entries(r.statusCodeStats).map(([code, s]) => [code, s.count]));
        const responses = Object.values(statusCodes).reduce((a, b) => a + b, 0);
        resolve({
          phase: job.phase,
          elapsedSec,
          responses,
          ok2xx: r['2xx'],
          non2xx: r.non2xx,
          errors: r.errors,
          timeouts: r.timeouts,
          statusCodes,
          rps: r['2xx'] / r.duration,
          latencyMs: { p50: r.latency.p50, p90: r.latency.p90, p99: r.latency.p99, mean: r.latency.mean, max: r.latency.max },
          ids,
          sampleFailures,
        });
      },
    );
  });
}

// As a forked child: one job per message, one result back.
if (process.send) {
  process.on('message', (job: LoadJob) => {
    runLoad(job).then(
      (result) => process.send!({ ok: true, result }),
      (err: unknown) => process.send!({ ok: false, error: err instanceof Error ? err.stack : String(err) }),
    );
  });
  process.on('disconnect', () => process.exit(0));
}
