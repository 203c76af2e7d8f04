import { NotReady, Readiness, ref } from '@parley/protocol';
import type { ReadinessChecks } from '@parley/protocol';
import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { hashToken, tokenMatches } from '../../crypto.js';
import { errorBody, errorStatus } from '../../errors.js';
import type { EventBus } from '../../events/bus.js';
import type { Metrics } from '../../metrics.js';
import type { Store } from '../../store/index.js';
import { errors } from '../schemas/wire.js';

/** How long /readyz waits for each dependency: a load balancer's probe times out soon after. */
export const READY_TIMEOUT_MS = 2_000;

/** Resolves when `check` does within `ms`, rejects otherwise (its late outcome is ignored). */
function within(check: () => Promise<unknown>, ms: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('timed out')), ms);
    check().then(
      () => {
        clearTimeout(timer);
        resolve();
      },
      (err) => {
        clearTimeout(timer);
        reject(err);
      },
    );
  });
}

export interface OperationsDeps {
  store: Store;
  bus: EventBus;
  /** Whether REDIS_URL is set: then /readyz checks Redis too. */
  redis: boolean;
  metricsToken: string | undefined;
  metrics: Metrics | null;
}

/**
 * The operational routes (docs/deploy.md#monitoring) beside /healthz (liveness): /readyz, whether this
 * instance's dependencies answer (for a load balancer or a Kubernetes readiness probe),
 * and /metrics, the Prometheus exposition, only with METRICS_TOKEN.
 */
export function operationsRoutes(app: FastifyInstance, deps: OperationsDeps): void {
  app.get(
    '/readyz',
    {
      schema: {
        tags: ['health'],
        summary: 'Whether this instance can take traffic: the database, and Redis when configured, answer',
        security: [],
        response: { 200: ref(Readiness), 503: ref(NotReady), ...errors },
      },
    },
    async (_req, reply) => {
      const checks: ReadinessChecks = { database: 'ok' };
      const pending: Array<Promise<void>> = [
        within(() => deps.store.ping(), READY_TIMEOUT_MS).catch(() => {
          checks.database = 'unreachable';
        }),
      ];
      if (deps.redis) {
        checks.redis = 'ok';
        pending.push(
          within(() => deps.bus.ping?.() ?? Promise.resolve(), READY_TIMEOUT_MS).catch(() => {
            checks.redis = 'unreachable';
          }),
        );
      }
      await Promise.all(pending);
      const failed = Object.entries(checks)
        .filter(([, v]) => v !== 'ok')
        .map(([k]) => k);
      if (failed.length === 0) return { status: 'ready', checks };
      return reply
        .status(errorStatus('not_ready'))
        .header('Cache-Control', 'no-store')
        .send(errorBody('not_ready', `not ready: ${failed.join(' and ')} did not answer`, { checks }));
    },
  );

  const expected = deps.metricsToken === undefined ? undefined : hashToken(deps.metricsToken);
  app.get(
    '/metrics',
    {
      schema: {
        tags: ['health'],
        summary: 'Prometheus metrics (only when METRICS_TOKEN is set; `Authorization: Bearer <METRICS_TOKEN>`)',
        description:
          'The Prometheus text exposition format: requests by route template and status, latency histograms, gateway connections and events, group commits, rate-limit refusals, the database pool, process figures. 404 when METRICS_TOKEN is not set. The metrics are listed in docs/deploy.md.',
        security: [{ bearer: [] }],
        response: {
          200: { description: 'the metrics', content: { 'text/plain': { schema: Type.String() } } },
          ...errors,
        },
      },
    },
    async (req, reply) => {
      // Not configured: exactly what any unknown path answers (registerNotFound).
      if (expected === undefined || !deps.metrics) {
        return reply.status(errorStatus('unknown_route')).header('Vary', 'Accept').send(errorBody('unknown_route', 'no such route'));
      }
      const header = req.headers.authorization ?? '';
      const presented = header.startsWith('Bearer ') ? header.slice(7) : '';
      if (!tokenMatches(presented, expected)) {
        return reply
          .status(errorStatus('unauthorized'))
          .header('WWW-Authenticate', 'Bearer realm="metrics"')
          .send(errorBody('unauthorized', 'metrics need Authorization: Bearer <METRICS_TOKEN>'));
      }
      const { contentType, body } = await deps.metrics.scrape();
      return reply.type(contentType).header('Cache-Control', 'no-store').send(body);
    },
  );
}
