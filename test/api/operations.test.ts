/**
 * The operational endpoints (docs/deploy.md#monitoring) over real HTTP: /metrics (guarded by METRICS_TOKEN,
 * Prometheus text, series by route template), /readyz (the database, and Redis when
 * configured) and the Grafana dashboard in docs/ querying only metrics a scrape has.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { call, postMessage, world } from '../factories.js';
import { type TestServer, startServer } from '../harness.js';
import { redisProxy } from '../cluster/redis-proxy.js';
import { TestGatewayClient } from '../gateway/client.js';
import { expectError } from './assert.js';

const TOKEN = 'metrics-token-for-tests-0123456789';
const MESSAGES_ROUTE = '/channels/:channelId/messages';

const scrape = async (srv: TestServer) => {
  const r = await call(srv.url, 'GET', '/metrics', { auth: `Bearer ${TOKEN}` });
  expect(r.status, r.text).toBe(200);
  return r.text;
};

/** The value of one sample (`name{labels} value`), 0 when the series does not exist yet. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const open = line.indexOf('{');
    const body = open === -1 ? '' : line.slice(open + 1, line.lastIndexOf('}'));
    const found = Object.fromEntries([...body.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => found[k] === v)) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return 0;
}

/** Every label value in the exposition. */
const labelValues = (text: string) => [...text.matchAll(/\w+="((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]!);

describe('/metrics without METRICS_TOKEN', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startServer();
  });
  afterAll(() => srv?.close());

  it('answers 404 with the body of any unknown route, token or not', async () => {
    const unknown = await call(srv.url, 'GET', '/no-such-route');
    for (const auth of [undefined, `Bearer ${TOKEN}`]) {
      const r = await call(srv.url, 'GET', '/metrics', { auth });
      expectError(r, 404, 'unknown_route');
      expect(r.body).toEqual(unknown.body);
    }
    // A browser is not handed the web client there either.
    expectError(await call(srv.url, 'GET', '/metrics', { headers: { accept: 'text/html' } }), 404, 'unknown_route');
  });
});

describe('METRICS_TOKEN', () => {
  it('must be at least 16 characters without spaces', () => {
    for (const bad of ['short', 'sixteen chars ok']) expect(() => loadConfig({ METRICS_TOKEN: bad })).toThrow(ConfigError);
    expect(loadConfig({ METRICS_TOKEN: TOKEN }).metricsToken).toBe(TOKEN);
    expect(loadConfig({}).metricsToken).toBeUndefined();
  });
});

describe('/metrics with METRICS_TOKEN', () => {
  let srv: TestServer;
  let w: Awaited<ReturnType<typeof world>>;
  beforeAll(async () => {
    // Rate limits on (the default): a refusal must show in the counter.
    srv = await startServer({ env: { METRICS_TOKEN: TOKEN } });
    w = await world(srv.url, ['SEND_MESSAGES']);
  });
  afterAll(() => srv?.close());

  it('refuses a missing or wrong bearer token with 401 unauthorized', async () => {
    for (const auth of [undefined, 'Bearer wrong-token-wrong-token-00', `Bot ${TOKEN}`, `Bearer ${TOKEN}x`, TOKEN]) {
      const r = await call(srv.url, 'GET', '/metrics', { auth });
      expectError(r, 401, 'unauthorized');
      expect(r.headers.get('www-authenticate')).toMatch(/^Bearer/);
    }
  });

  it('answers the Prometheus text format with process metrics', async () => {
    const r = await call(srv.url, 'GET', '/metrics', { auth: `Bearer ${TOKEN}` });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(r.text).toMatch(/^# HELP /m);
    expect(sample(r.text, 'process_resident_memory_bytes')).toBeGreaterThan(1e6);
    expect(r.text).toMatch(/^nodejs_eventloop_lag_p99_seconds /m);
    expect(r.text).toMatch(/^nodejs_heap_size_used_bytes /m);
  });

  it('counts and times requests by route template and status, never by raw URL', async () => {
    const labels = { method: 'POST', route: MESSAGES_ROUTE, status: '201' };
    const before = await scrape(srv);
    const sent = [];
    for (let i = 0; i < 3; i++) sent.push(await postMessage(srv.url, w.bot.auth, w.channel.id, `counted ${i}`));
    expect((await call(srv.url, 'GET', `/channels/${w.channel.id}/messages?limit=5`, { auth: w.owner.auth })).status).toBe(200);
    await call(srv.url, 'GET', '/no/such/route/987654321');
    expect((await call(srv.url, 'HEAD', '/healthz')).status).toBe(200);
    const after = await scrape(srv);

    expect(sample(after, 'parley_http_requests_total', labels)).toBe(sample(before, 'parley_http_requests_total', labels) + 3);
    expect(sample(after, 'parley_http_request_duration_seconds_count', labels)).toBe(
      sample(before, 'parley_http_request_duration_seconds_count', labels) + 3,
    );
    expect(sample(after, 'parley_http_request_duration_seconds_bucket', { ...labels, le: '+Inf' })).toBe(
      sample(after, 'parley_http_request_duration_seconds_count', labels),
    );
    // Buckets are cumulative: never decreasing with `le`, the last one every answer.
    const buckets = ['0.001', '0.01', '0.1', '1', '10', '+Inf'].map((le) =>
      sample(after, 'parley_http_request_duration_seconds_bucket', { ...labels, le }),
    );
    expect(buckets).toEqual([...buckets].sort((a, b) => a - b));
    expect(sample(after, 'parley_http_request_duration_seconds_sum', labels)).toBeGreaterThan(0);
    expect(sample(after, 'parley_http_requests_total', { method: 'GET', route: MESSAGES_ROUTE, status: '200' })).toBe(1);
    expect(sample(after, 'parley_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' })).toBe(1);
    // A GET route's HEAD twin is counted once, under the same template.
    expect(sample(after, 'parley_http_requests_total', { method: 'HEAD', route: '/healthz', status: '200' })).toBe(1);
    // No id (nor the unknown path) ever becomes a label value.
    const values = labelValues(after);
    for (const id of [w.channel.id, w.server.id, w.bot.id, ...sent.map((m) => m.id), '987654321']) {
      expect(
        values.filter((v) => v.includes(id)),
        id,
      ).toEqual([]);
    }
    for (const v of values.filter((v) => v.startsWith('/'))) expect(v).not.toMatch(/\d{6,}/);
  });

  it('observes group commits: batch sizes and commit time', async () => {
    const before = await scrape(srv);
    // Sent together, so they may share a batch.
    await Promise.all([1, 2, 3, 4].map((i) => postMessage(srv.url, w.owner.auth, w.channel.id, `batched ${i}`)));
    const after = await scrape(srv);
    const commits = sample(after, 'parley_db_commit_batch_size_count') - sample(before, 'parley_db_commit_batch_size_count');
    expect(commits).toBeGreaterThanOrEqual(1);
    expect(sample(after, 'parley_db_commit_duration_seconds_count') - sample(before, 'parley_db_commit_duration_seconds_count')).toBe(
      commits,
    );
    // Each batch holds at least one write.
    expect(sample(after, 'parley_db_commit_batch_size_sum') - sample(before, 'parley_db_commit_batch_size_sum')).toBeGreaterThanOrEqual(
      commits,
    );
    expect(sample(after, 'parley_db_commit_duration_seconds_sum')).toBeGreaterThan(0);
    expect(after).toMatch(/^parley_db_write_queue\{state="queued"\} 0$/m);
    if (process.env.TEST_DATABASE === 'postgres')
      expect(sample(after, 'parley_db_pool_connections', { state: 'total' })).toBeGreaterThan(0);
    else expect(after).not.toMatch(/^parley_db_pool_connections\{/m);
  });

  it('counts rate-limit refusals by rule', async () => {
    const rule = { rule: 'messages' };
    const before = sample(await scrape(srv), 'parley_rate_limit_rejections_total', rule);
    const author = await world(srv.url, ['SEND_MESSAGES']);
    let refused = 0;
    for (let i = 0; i < 20 && refused === 0; i++) {
      const r = await call(srv.url, 'POST', `/channels/${author.channel.id}/messages`, {
        auth: author.bot.auth,
        body: { content: `m${i}` },
      });
      if (r.status === 429) refused++;
      else expect(r.status, r.text).toBe(201);
    }
    expect(refused).toBe(1);
    const after = await scrape(srv);
    expect(sample(after, 'parley_rate_limit_rejections_total', rule)).toBe(before + 1);
    expect(sample(after, 'parley_http_requests_total', { route: MESSAGES_ROUTE, status: '429' })).toBeGreaterThanOrEqual(1);
  });

  it('shows gateway connections and counts the events sent by type', async () => {
    const before = await scrape(srv);
    expect(sample(before, 'parley_gateway_connections', { state: 'live' })).toBe(0);
    expect(before).toMatch(/^parley_gateway_connections\{state="pending"\} 0$/m);
    const client = await TestGatewayClient.identify(srv.gatewayUrl, w.owner.auth);
    try {
      for (const content of ['to the gateway', 'and again']) {
        await postMessage(srv.url, w.owner.auth, w.channel.id, content);
        await client.waitFor((f) => f.t === 'MESSAGE_CREATE' && f.d.content === content);
      }
      const after = await scrape(srv);
      expect(sample(after, 'parley_gateway_connections', { state: 'live' })).toBe(1);
      const type = { type: 'MESSAGE_CREATE' };
      expect(sample(after, 'parley_gateway_events_sent_total', type)).toBe(sample(before, 'parley_gateway_events_sent_total', type) + 2);
    } finally {
      client.ws.close();
      await client.closed;
    }
    await vi.waitFor(async () => expect(sample(await scrape(srv), 'parley_gateway_connections', { state: 'live' })).toBe(0));
  });

  it('the Grafana dashboard is importable JSON and queries only metrics a scrape has', async () => {
    const dashboard = JSON.parse(fs.readFileSync(new URL('../../docs/grafana-dashboard.json', import.meta.url), 'utf8'));
    expect(dashboard.__inputs?.map((i: { name: string; pluginId: string }) => [i.name, i.pluginId])).toEqual([
      ['DS_PROMETHEUS', 'prometheus'],
    ]);
    expect(dashboard.panels.length).toBeGreaterThanOrEqual(8);
    const exprs: string[] = [];
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (node && typeof node === 'object') {
        for (const [k, v] of Object.entries(node)) {
          if (k === 'expr' && typeof v === 'string') exprs.push(v);
          else walk(v);
        }
      }
    };
    walk(dashboard.panels);
    const names = new Set(exprs.flatMap((e) => e.match(/\b(?:parley|process|nodejs)_[a-z0-9_]+/g) ?? []));
    expect([...names].filter((n) => n.startsWith('parley_')).length).toBeGreaterThanOrEqual(8);
    const text = await scrape(srv);
    const missing = [...names].filter((n) => !new RegExp(`^${n}[{ ]`, 'm').test(text) && !new RegExp(`^# TYPE ${n} `, 'm').test(text));
    expect(missing).toEqual([]);
    // Every panel's queries go to the data source chosen at import.
    for (const panel of dashboard.panels.filter((p: { type: string }) => p.type !== 'row')) {
      expect(panel.datasource, panel.title).toEqual({ type: 'prometheus', uid: '${DS_PROMETHEUS}' });
    }
  });
});

describe('/readyz', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startServer({ env: { RATE_LIMITS: 'off' } });
  });
  afterAll(() => srv?.close());

  it('answers 200 ready when the database answers', async () => {
    const r = await call(srv.url, 'GET', '/readyz');
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({ status: 'ready', checks: { database: 'ok' } });
  });

  it('answers 503 not_ready naming the database once it is unreachable', async () => {
    const down = await startServer({ env: { RATE_LIMITS: 'off' } });
    try {
      expect((await call(down.url, 'GET', '/readyz')).status).toBe(200);
      await down.app.ctx.store.close();
      const r = await call(down.url, 'GET', '/readyz');
      expect(r.status, r.text).toBe(503);
      expect(r.body).toEqual({ error: expect.stringMatching(/database/), code: 'not_ready', checks: { database: 'unreachable' } });
      // /healthz stays liveness: it still answers, naming the database as unavailable.
      expectError(await call(down.url, 'GET', '/healthz'), 503, 'service_unavailable');
    } finally {
      await down.close();
    }
  });
});

describe.skipIf(!process.env.REDIS_URL)('/readyz with Redis', () => {
  it('checks Redis: 503 naming it while it is cut off, 200 again once it is back', async () => {
    const proxy = await redisProxy(new URL(process.env.REDIS_URL!));
    const srv = await startServer({ env: { RATE_LIMITS: 'off', REDIS_URL: proxy.url, REDIS_PREFIX: `readyz${Date.now()}:` } });
    try {
      const ok = await call(srv.url, 'GET', '/readyz');
      expect(ok.status, ok.text).toBe(200);
      expect(ok.body).toEqual({ status: 'ready', checks: { database: 'ok', redis: 'ok' } });
      await proxy.cut();
      const r = await call(srv.url, 'GET', '/readyz');
      expect(r.status, r.text).toBe(503);
      expect(r.body).toEqual({
        error: expect.stringMatching(/redis/),
        code: 'not_ready',
        checks: { database: 'ok', redis: 'unreachable' },
      });
      await proxy.restore();
      await vi.waitFor(async () => expect((await call(srv.url, 'GET', '/readyz')).status).toBe(200), { timeout: 15_000, interval: 200 });
    } finally {
      await srv.close();
      proxy.close();
    }
  }, 30_000);
});
