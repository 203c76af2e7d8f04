import multipart from '@fastify/multipart';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Config } from './config.js';
import type { DomainContext } from './domain/context.js';
import { expireIdempotencyKeys } from './domain/messages.js';
import { type EventBus, InProcessBus } from './events/bus.js';
import { LocalUploadStore, type UploadStore } from './files/upload-store.js';
import { Gateway } from './gateway/gateway.js';
import { registerErrorHandler } from './http/plugins/errors.js';
import { accountRoutes } from './http/routes/accounts.js';
import type { RouteDeps } from './http/routes/deps.js';
import { messageRoutes } from './http/routes/messages.js';
import { serverRoutes } from './http/routes/servers.js';
import { uploadRoutes } from './http/routes/uploads.js';
import { webClient } from './http/routes/web-client.js';
import { webhookExecuteRoutes } from './http/routes/webhook-execute.js';
import { webhookRoutes } from './http/routes/webhooks.js';
import { MemoryRateLimiter, type RateLimiter } from './ratelimit/limiter.js';
import { Store } from './store/index.js';
import path from 'node:path';

/** Parts a caller may supply instead of the defaults (tests, several instances). */
export interface AppDeps {
  store?: Store;
  bus?: EventBus;
  limiter?: RateLimiter;
  files?: UploadStore;
}

export interface App {
  app: FastifyInstance;
  gateway: Gateway;
  ctx: DomainContext;
  /** Stops the gateway (clients told to resume), drains requests, then closes storage. */
  close(): Promise<void>;
}

/** Webhook URLs carry their secret in the path: never log it. */
export function redactUrl(url: string): string {
  return url.replace(/^(\/webhooks\/[^/?#]+\/)[^/?#]+/, '$1[redacted]');
}

/** Builds the whole service without listening: tests and main.ts both use it. */
export async function buildApp(config: Config, deps: AppDeps = {}): Promise<App> {
  const app = Fastify({
    logger:
      config.logLevel === 'silent'
        ? false
        : {
            level: config.logLevel,
            redact: ['req.headers.authorization', 'req.headers.cookie'],
            serializers: {
              req: (req) => ({ method: req.method, url: redactUrl(req.url), remoteAddress: req.ip }),
            },
          },
    trustProxy: config.trustProxy,
    bodyLimit: 1024 * 1024,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, allErrors: false } },
  });

  const store = deps.store ?? (await Store.open({ databaseUrl: config.databaseUrl, dataDir: config.dataDir }));
  const bus = deps.bus ?? new InProcessBus(config.gatewayReplayBuffer);
  const limiter = config.rateLimits ? (deps.limiter ?? new MemoryRateLimiter()) : null;
  const files = deps.files ?? new LocalUploadStore(path.join(config.dataDir, 'uploads'));
  const ctx: DomainContext = {
    store,
    bus,
    files,
    publicUrl: config.publicUrl,
    report: (err, what) => app.log.error({ err }, what),
  };

  registerErrorHandler(app);
  await app.register(multipart, { limits: { fileSize: config.maxUploadBytes, files: 10, fields: 20, fieldSize: 1024 * 1024 } });
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });

  app.get('/healthz', async (_req, reply) => {
    try {
      await store.ping();
      return { status: 'ok', database: store.adapter.name.split(' ')[0] };
    } catch {
      return reply.status(503).send({ error: 'database unavailable' });
    }
  });

  const routeDeps: RouteDeps = { ctx, limiter, config };
  accountRoutes(app, routeDeps);
  serverRoutes(app, routeDeps);
  messageRoutes(app, routeDeps);
  uploadRoutes(app, routeDeps);
  webhookRoutes(app, routeDeps);
  webhookExecuteRoutes(app, routeDeps);

  const serveWeb = webClient(config.webDir);
  app.setNotFoundHandler(async (request, reply) => {
    if (await serveWeb(request, reply)) return reply;
    return reply.status(404).send({ error: `no route for ${request.method} ${redactUrl(request.url.split('?')[0] ?? '')}` });
  });

  const gateway = new Gateway(ctx, bus, {
    heartbeatMs: config.gatewayHeartbeatMs,
    resumeWindowMs: config.gatewayResumeWindowMs,
    report: ctx.report,
  });
  gateway.attach(app.server);

  const expiry = setInterval(() => void expireIdempotencyKeys(ctx).catch((err) => ctx.report(err, 'idempotency expiry failed')), 3600_000);
  expiry.unref();

  let closed: Promise<void> | undefined;
  const close = () =>
    (closed ??= (async () => {
      clearInterval(expiry);
      await gateway.close();
      await app.close();
      await bus.close();
      await limiter?.close();
      await store.close();
    })());

  return { app, gateway, ctx, close };
}
