/**
 * The Prometheus metrics of one app instance (`GET /metrics`, docs/deploy.md#monitoring). Loaded only
 * when METRICS_TOKEN is set (`buildApp` imports this module dynamically), so an instance
 * that is not scraped neither loads prom-client nor pays for a request hook.
 *
 * Each instance has a registry of its own, never prom-client's global one: tests start
 * several apps in one process, and each must report only its own figures.
 *
 * Requests are counted on the hot path with plain arithmetic on a per-series tally (no
 * prom-client call: each of its inc/observe builds its label key anew, about 1.5 µs per
 * request for the two); the tallies become samples at scrape time. Rate-limit refusals
 * and commits (far rarer) use prom-client directly. Levels (connections, pool, queue)
 * are read at scrape time.
 */
import { Counter, Gauge, Histogram, type Metric, Registry, collectDefaultMetrics } from 'prom-client';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** Seconds; from 1 ms to 10 s, for HTTP answers and commits alike. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Writes per group commit: one alone up to the committer's maximum of 256. */
const BATCH_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256];

/** The `route` label of requests no route took (unknown paths, the web client's files). */
export const UNMATCHED_ROUTE = 'unmatched';

/** Live figures read at scrape time; each is set by the part that owns it. */
export interface MetricSources {
  /** Gateway connections: identified sessions, and connections that have not identified yet. */
  gateway?: () => { live: number; pending: number };
  /** Events sent to gateway clients since start, by event type. */
  eventsSent?: () => ReadonlyMap<string, { n: number }>;
  /** The database connection pool (PostgreSQL). */
  pool?: () => { total: number; idle: number; waiting: number } | undefined;
  /** Writes waiting for a group commit, and batches being committed. */
  writes?: () => { queued: number; committing: number };
}

type OnResponse = (request: FastifyRequest, reply: FastifyReply, done: () => void) => void;

/** One (method, route, status) series: answers and their durations, by bucket. */
class Tally {
  count = 0;
  sum = 0;
  /** Observations per bucket of LATENCY_BUCKETS (not cumulative), the last one past them all. */
  readonly buckets = new Array<number>(LATENCY_BUCKETS.length + 1).fill(0);
  constructor(readonly labels: Readonly<Record<'method' | 'route' | 'status', string>>) {}

  observe(seconds: number): void {
    this.count++;
    this.sum += seconds;
    let i = 0;
    while (i < LATENCY_BUCKETS.length && seconds > LATENCY_BUCKETS[i]!) i++;
    this.buckets[i]!++;
  }
}

/** One route's series: method → status → tally. */
type SeriesByMethod = Map<string, Map<number, Tally>>;

interface Sample {
  labels: Record<string, string | number>;
  value: number;
  metricName: string;
}

/**
 * `parley_http_request_duration_seconds` as prom-client's registry expects a metric
 * (`get()` answering name, help, type and samples), made from the tallies at scrape
 * time: the same samples a prom-client Histogram would give.
 */
class TallyHistogram {
  readonly name = 'parley_http_request_duration_seconds';
  readonly help = 'Time from a request arriving to its answer being sent, by method, route template and status';
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  constructor(private readonly tallies: () => Iterable<Tally>) {}

  get(): { name: string; help: string; type: string; aggregator: string; values: Sample[] } {
    const values: Sample[] = [];
    for (const t of this.tallies()) {
      let cumulative = 0;
      LATENCY_BUCKETS.forEach((le, i) => {
        cumulative += t.buckets[i]!;
        values.push({ labels: { ...t.labels, le }, value: cumulative, metricName: `${this.name}_bucket` });
      });
      values.push({ labels: { ...t.labels, le: '+Inf' }, value: t.count, metricName: `${this.name}_bucket` });
      values.push({ labels: t.labels, value: t.sum, metricName: `${this.name}_sum` });
      values.push({ labels: t.labels, value: t.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }
}

export class Metrics {
  readonly registry = new Registry();
  readonly sources: MetricSources = {};
  /** Every request series, for the scrape. */
  private readonly tallies: Tally[] = [];
  private readonly batchSize: Histogram;
  private readonly commitSeconds: Histogram;
  private readonly rejections: Counter<'rule'>;

  constructor() {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    const tallies = this.tallies;
    new Counter({
      name: 'parley_http_requests_total',
      help: 'HTTP requests answered, by method, route template and status',
      labelNames: ['method', 'route', 'status'],
      registers,
      collect() {
        this.reset();
        for (const t of tallies) this.inc(t.labels, t.count);
      },
    });
    this.registry.registerMetric(new TallyHistogram(() => tallies) as unknown as Metric);
    const sources = this.sources;
    new Gauge({
      name: 'parley_gateway_connections',
      help: 'Open gateway WebSocket connections: live (identified) sessions and pending ones (not identified yet)',
      labelNames: ['state'],
      registers,
      collect() {
        const g = sources.gateway?.();
        this.set({ state: 'live' }, g?.live ?? 0);
        this.set({ state: 'pending' }, g?.pending ?? 0);
      },
    });
    new Counter({
      name: 'parley_gateway_events_sent_total',
      help: 'Events sent to gateway clients, by event type (one per client reached)',
      labelNames: ['type'],
      registers,
      collect() {
        // The gateway counts in plain numbers on its hot path; copied here at scrape time.
        this.reset();
        for (const [type, c] of sources.eventsSent?.() ?? []) this.inc({ type }, c.n);
      },
    });
    this.batchSize = new Histogram({
      name: 'parley_db_commit_batch_size',
      help: 'Writes per group-commit transaction',
      buckets: BATCH_BUCKETS,
      registers,
    });
    this.commitSeconds = new Histogram({
      name: 'parley_db_commit_duration_seconds',
      help: 'Time to run and commit one group-commit transaction',
      buckets: LATENCY_BUCKETS,
      registers,
    });
    new Gauge({
      name: 'parley_db_write_queue',
      help: 'Writes waiting for the next group commit (state="queued") and batches being committed (state="committing")',
      labelNames: ['state'],
      registers,
      collect() {
        const w = sources.writes?.();
        this.set({ state: 'queued' }, w?.queued ?? 0);
        this.set({ state: 'committing' }, w?.committing ?? 0);
      },
    });
    new Gauge({
      name: 'parley_db_pool_connections',
      help: 'PostgreSQL pool connections: total open, idle, and requests waiting for one (absent on SQLite)',
      labelNames: ['state'],
      registers,
      collect() {
        const p = sources.pool?.();
        if (!p) return;
        this.set({ state: 'total' }, p.total);
        this.set({ state: 'idle' }, p.idle);
        this.set({ state: 'waiting' }, p.waiting);
      },
    });
    this.rejections = new Counter({
      name: 'parley_rate_limit_rejections_total',
      help: 'Requests refused with 429 by a rate limit, by rule (docs/api.md lists the rules)',
      labelNames: ['rule'],
      registers,
    });
  }

  /**
   * An onResponse hook for the route `template` (`/channels/:channelId/messages`), added
   * to each route as it is registered: the label is known then, so nothing per request
   * asks Fastify for it (`request.routeOptions` builds an object on every read).
   */
  hookFor(template: string): OnResponse {
    const byMethod: SeriesByMethod = new Map();
    return (request, reply, done) => {
      this.record(byMethod, template, request.method, reply);
      done();
    };
  }

  /** Application-wide onResponse hook: requests no route took (404s, the web client's files), under one label. */
  readonly onUnmatched: OnResponse = (request, reply, done) => {
    if (request.is404) this.record(this.unmatched, UNMATCHED_ROUTE, request.method, reply);
    done();
  };

  private readonly unmatched: SeriesByMethod = new Map();

  /** Counts and times one answer: two map lookups and a few additions once the series exists. */
  private record(byMethod: SeriesByMethod, route: string, method: string, reply: FastifyReply): void {
    const status = reply.statusCode;
    let byStatus = byMethod.get(method);
    if (!byStatus) byMethod.set(method, (byStatus = new Map()));
    let t = byStatus.get(status);
    if (!t) {
      t = new Tally({ method, route, status: String(status) });
      byStatus.set(status, t);
      this.tallies.push(t);
    }
    t.observe(reply.elapsedTime / 1000);
  }

  /** One group commit of `size` writes that took `seconds`. */
  readonly onCommit = (size: number, seconds: number): void => {
    this.batchSize.observe(size);
    this.commitSeconds.observe(seconds);
  };

  /** A request refused by rate limit `rule`. */
  rateLimited(rule: string): void {
    this.rejections.inc({ rule });
  }

  /** The exposition text and its content type. */
  async scrape(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** This app's metrics; null unless METRICS_TOKEN is set. */
    metrics: Metrics | null;
  }
}
