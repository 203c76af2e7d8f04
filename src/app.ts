import Fastify, { type FastifyInstance } from 'fastify';
import { type Config, withListeningPort } from './config.js';
import { errorBody, errorStatus } from './errors.js';
import { isLegacyId } from './ids.js';
import { PermissionCache } from './domain/permissions.js';
import { AccessCache } from './domain/access-cache.js';
import { ThreadFacts } from './domain/thread-facts.js';
import { Background } from './domain/background.js';
import { sweepExpiredSessions } from './domain/accounts.js';
import { RevocationWatch } from './domain/admin.js';
import type { DomainContext } from './domain/context.js';
import { expireIdempotencyKeys } from './domain/messages.js';
import { archiveDueThreads } from './domain/threads.js';
import { sweepUnattachedUploads } from './domain/uploads.js';
import { type EventBus, InProcessBus } from './events/bus.js';
import { openPdfPages } from './files/pdf-pages.js';
import { LocalUploadStore, type UploadStore } from './files/upload-store.js';
import { discordWires } from './discord/gateway/index.js';
import { Gateway } from './gateway/gateway.js';
import { limitConnectionsPerClient } from './http/connection-limit.js';
import { continueWhenRead } from './http/expect-continue.js';
import { lazySerializers } from './http/lazy-serializers.js';
import { RequestLog } from './http/request-log.js';
import { type LogDestination, redactSecrets, redactingDestination } from './http/log-redaction.js';
import { ignoreEmptyBody } from './http/plugins/empty-body.js';
import { acceptMultipart } from './http/plugins/multipart.js';
import { clientErrorHandler, frameworkErrorHandler, registerErrorHandler } from './http/plugins/errors.js';
import { answerWhatNodeWouldAnswerBare } from './http/raw-answer.js';
import { registerDocs, registerOpenApi } from './http/openapi.js';
import { Health, ref } from '@parley/protocol';
import { errors } from './http/schemas/wire.js';
import { registerJsonBodyParser } from './http/plugins/json-body.js';
import { type RouteInfo, recordRoutes, registerNotFound } from './http/plugins/not-found.js';
import { accountRoutes } from './http/routes/accounts.js';
import type { RouteDeps } from './http/routes/deps.js';
import { messageRoutes } from './http/routes/messages.js';
import { directMessageRoutes } from './http/routes/direct-messages.js';
import { moderationRoutes } from './http/routes/moderation.js';
import { searchRoutes } from './http/routes/search.js';
import { interactionRoutes } from './http/routes/interaction-routes.js';
import { answers } from './domain/interactions/answers.js';
import { InteractionBroker } from './domain/interactions/broker.js';
import { serverRoutes } from './http/routes/servers.js';
import { threadRoutes } from './http/routes/threads.js';
import { uploadRoutes } from './http/routes/uploads.js';
import { webClient } from './http/routes/web-client.js';
import { webhookExecuteRoutes } from './http/routes/webhook-execute.js';
import { webhookRoutes } from './http/routes/webhooks.js';
import { MemoryPresenceStore, type PresenceStore } from './presence/store.js';
import { PresenceTracker } from './presence/tracker.js';
import { announcePresence } from './domain/presence.js';
import { MemoryRateLimiter, type RateLimiter } from './ratelimit/limiter.js';
import { lockDataDir } from './store/data-dir-lock.js';
import type { Metrics } from './metrics.js';
import { operationsRoutes } from './http/routes/operations.js';
import { Store } from './store/index.js';
import { registerDiscord, stripDiscordVersion } from './discord/plugin.js';

/** Parts a caller may supply instead of the defaults (tests, several instances). */
export interface AppDeps {
  store?: Store;
  bus?: EventBus;
  limiter?: RateLimiter;
  files?: UploadStore;
  /** Where log lines go (default stdout); they are scrubbed of secrets on the way. */
  logDestination?: LogDestination;
  /** The time, in ms since the epoch (default `Date.now`): a test moves it on instead of waiting. */
  clock?: () => number;
}

export interface App {
  app: FastifyInstance;
  gateway: Gateway;
  ctx: DomainContext;
  /** Every registered route, HEAD included, in registration order. */
  routes: readonly RouteInfo[];
  /** Stops the gateway (clients told to resume), drains requests, then closes storage. */
  close(): Promise<void>;
}

type Report = (err: unknown, what: string) => void;

/** Runs `fn` at most once every 10 s; for warnings an attacker could repeat at will. */
function throttled<A extends unknown[]>(fn: (...args: A) => void): (...args: A) => void {
  let last = 0;
  return (...args) => {
    const now = Date.now();
    if (now - last < 10_000) return;
    last = now;
    fn(...args);
  };
}

/** Logs failures that must not fail a request; the same failure at most every 10 s. */
function throttledReporter(app: FastifyInstance): Report {
  const last = new Map<string, number>();
  return (err, what) => {
    const now = Date.now();
    if ((last.get(what) ?? 0) > now - 10_000) return;
    last.set(what, now);
    app.log.error({ err }, what);
  };
}

// The Redis implementations (and ioredis with them) are imported only when REDIS_URL is
// set, and prom-client only when METRICS_TOKEN is: a single instance never has them resident.

/** REDIS_URL set: the shared Redis stream; otherwise the in-process log (its session checkpoints expire on `clock`). */
async function openBus(config: Config, report: Report, clock: () => number): Promise<EventBus> {
  if (!config.redisUrl) return new InProcessBus(config.gatewayReplayBuffer, report, clock);
  const { RedisBus } = await import('./events/redis-bus.js');
  return RedisBus.connect({ url: config.redisUrl, prefix: config.redisPrefix, maxLength: config.gatewayReplayBuffer, report });
}

/** REDIS_URL set: presence shared by every instance; otherwise this instance's alone. */
async function openPresence(config: Config, report: Report, instance: string): Promise<PresenceStore> {
  if (!config.redisUrl) return new MemoryPresenceStore();
  const { RedisPresenceStore } = await import('./presence/redis-store.js');
  const store = new RedisPresenceStore(config.redisUrl, config.redisPrefix, instance, report, 3 * config.presenceSweepMs);
  await store.connect();
  return store;
}

async function openLimiter(config: Config, report: Report, clock: () => number): Promise<RateLimiter> {
  if (!config.redisUrl) return new MemoryRateLimiter(clock);
  const { RedisRateLimiter } = await import('./ratelimit/redis-limiter.js');
  const limiter = new RedisRateLimiter(config.redisUrl, config.redisPrefix, report, clock);
  await limiter.connect();
  return limiter;
}

/** Builds the whole service without listening: tests and main.ts both use it. */
export async function buildApp(config: Config, deps: AppDeps = {}): Promise<App> {
  const app = Fastify({
    logger:
      config.logLevel === 'silent'
        ? false
        : {
            level: config.logLevel,
            stream: redactingDestination(deps.logDestination),
            serializers: {
              req: (req) => ({ method: req.method, url: redactSecrets(req.url), remoteAddress: req.ip }),
            },
          },
    // One line per request, at its end, not Fastify's two (src/http/request-log.ts).
    logController: new RequestLog(),
    trustProxy: config.trustProxy,
    bodyLimit: 1024 * 1024,
    // Fastify's defaults never time out a request; these bound how long a client that
    // stalls (or sends nothing at all) can hold a connection.
    requestTimeout: config.requestTimeoutMs,
    keepAliveTimeout: config.keepAliveTimeoutMs,
    // A response the client stops reading is dropped once nothing has moved for twice the
    // request timeout (longer, so a stalled request still gets its 408 first).
    connectionTimeout: 2 * config.requestTimeoutMs,
    http: {
      // Node answers a missing Host itself, with an empty 400; let it reach our handlers.
      requireHostHeader: false,
      requestTimeout: config.requestTimeoutMs,
      headersTimeout: config.headersTimeoutMs,
      // Node enforces both deadlines by a periodic check: five times per headers timeout,
      // at most once a second. Each check is a cheap walk of the open connections.
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(config.headersTimeoutMs / 5))),
    },
    // Long enough for any RGI emoji percent-encoded (up to about 120 characters); longer
    // segments get a 400 from frameworkErrorHandler.
    routerOptions: { maxParamLength: 256 },
    // Discord's /api/v6 … /api/v10 reach the one /api layer (src/discord/plugin.ts).
    rewriteUrl: (req) => stripDiscordVersion(req.url ?? '/'),
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, allErrors: false } },
    // Response serializers are compiled on first use, not at start (idle memory, bench/README.md).
    schemaController: { compilersFactory: { buildSerializer: lazySerializers() } },
    // Errors raised before routing (a malformed URL) bypass the error handler; same shape here.
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler,
  });
  const routes = recordRoutes(app);
  const metrics: Metrics | null = config.metricsToken ? new (await import('./metrics.js')).Metrics() : null;
  app.decorate('metrics', metrics);
  // Only with metrics on (an unscraped instance pays nothing): each route gets an
  // onResponse hook that knows its template; requests no route took are counted apart.
  if (metrics) {
    app.addHook('onRoute', (route) => {
      const hook = metrics.hookFor(route.url);
      route.onResponse = route.onResponse === undefined ? [hook] : [...[route.onResponse].flat(), hook];
    });
    app.addHook('onResponse', metrics.onUnmatched);
  }
  const refused = throttled((client: string) => app.log.warn({ client }, 'too many connections from one client; refused'));
  limitConnectionsPerClient(app.server, config.maxConnectionsPerIp, refused);
  answerWhatNodeWouldAnswerBare(app.server);
  continueWhenRead(app.server);

  const report = throttledReporter(app);
  // On SQLite the data directory is this process's alone (`parley restore` checks it too).
  const unlock = !deps.store && !config.databaseUrl ? lockDataDir(config.dataDir) : undefined;
  let store: Store;
  try {
    store =
      deps.store ??
      (await Store.open({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, sqliteWriter: { thread: config.sqliteWriterThread } }));
  } catch (err) {
    unlock?.();
    throw err;
  }
  const clock = deps.clock ?? Date.now;
  const bus = deps.bus ?? (await openBus(config, report, clock));
  const limiter = config.rateLimits ? (deps.limiter ?? (await openLimiter(config, report, clock))) : null;
  const files = deps.files ?? new LocalUploadStore(config.uploadsDir);
  const pdfPages = await openPdfPages(config.pdfPreviewCommand, config.previewsDir, report);
  if (metrics) {
    store.observeCommits(metrics.onCommit);
    metrics.sources.writes = () => store.writeLoad;
    metrics.sources.pool = () => store.poolStats();
  }
  const background = new Background(report);
  // Interactions' windows and waiting autocompletes: stopped first on close.
  const interactions = new InteractionBroker(
    {
      callbackMs: config.interactionCallbackMs,
      tokenTtlMs: config.interactionTokenTtlMs,
      allowPrivate: config.outgoingAllowPrivate,
      shared: config.redisUrl !== undefined,
    },
    // Read through ctx: a test may move the service's clock on (`ctx.clock`).
    () => ctx.clock(),
    background,
    report,
  );
  const ctx: DomainContext = {
    store,
    bus,
    files,
    pdfPages,
    publicUrl: config.publicUrl,
    accounts: { sessionTtlMs: config.sessionTtlMs, registration: config.registration },
    uploadLimits: { quotaBytes: config.uploadQuotaBytes, maxStorageBytes: config.maxUploadStorage },
    clock,
    report,
    perms: new PermissionCache(),
    access: new AccessCache(),
    threadFacts: new ThreadFacts(),
    interactions,
    background,
  };
  // Presence: each instance names itself by an id of its own (its sessions' ids come from the same generator).
  const presenceStore = await openPresence(config, report, store.ids.next());
  const presence = new PresenceTracker(
    presenceStore,
    (userId, status) => announcePresence(ctx, userId, status, config.presenceFanoutMax),
    { graceMs: config.presenceGraceMs, minIntervalMs: config.presenceIntervalMs },
    report,
    config.presenceSweepMs,
  );
  ctx.presence = presence;
  // With PORT=0 the port is known only once bound. This listener is registered before
  // Fastify's own, so links carry the real port before listen() resolves or a request lands.
  app.server.on('listening', () => {
    const address = app.server.address();
    if (address !== null && typeof address === 'object') ctx.publicUrl = withListeningPort(config.publicUrl, address.port);
  });

  registerErrorHandler(app, (err) => store.adapter.isUnavailable(err));
  registerJsonBodyParser(app);
  // Bots send Content-Type: application/json on every call (docs/api.md#authentication), body or not.
  app.addHook('onRequest', ignoreEmptyBody);
  // Ids in paths may be ULIDs from before snowflakes (old webhook URLs, upload links,
  // a bot's configuration): each names what its snowflake names now.
  // A callback hook: an async one would cost every request a promise and a turn.
  app.addHook('preValidation', (req, _reply, done) => {
    const params = req.params as Record<string, string> | undefined;
    let pending: Array<Promise<void>> | undefined;
    for (const key in params) {
      // Only id parameters (`id`, `channelId`, …): a file name or invite code is left as sent.
      const value = params[key]!;
      if ((key === 'id' || key.endsWith('Id')) && isLegacyId(value))
        (pending ??= []).push(
          store.currentId(value).then((id) => {
            params![key] = id ?? value;
          }),
        );
    }
    if (!pending) return done();
    Promise.all(pending).then(() => done(), done);
  });
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });

  // Before any route: the document records routes as they are registered.
  await registerOpenApi(app, () => ctx.publicUrl);

  app.get(
    '/healthz',
    {
      schema: {
        tags: ['health'],
        summary: 'Whether the service and its database answer',
        security: [],
        response: { 200: ref(Health), ...errors },
      },
    },
    async (_req, reply) => {
      try {
        await store.ping();
        return { status: 'ok', database: store.adapter.name.split(' ')[0] };
      } catch {
        return reply.status(errorStatus('service_unavailable')).send(errorBody('service_unavailable', 'database unavailable'));
      }
    },
  );

  operationsRoutes(app, { store, bus, redis: config.redisUrl !== undefined, metricsToken: config.metricsToken, metrics });

  const routeDeps: RouteDeps = { ctx, limiter, config };
  accountRoutes(app, routeDeps);
  serverRoutes(app, routeDeps);
  moderationRoutes(app, routeDeps);
  messageRoutes(app, routeDeps);
  threadRoutes(app, routeDeps);
  directMessageRoutes(app, routeDeps);
  searchRoutes(app, routeDeps);
  interactionRoutes(app, routeDeps);
  webhookRoutes(app, routeDeps);
  // The routes that take multipart bodies, in a scope of their own (acceptMultipart).
  await app.register(async (scope) => {
    await acceptMultipart(scope, config);
    uploadRoutes(scope, routeDeps);
    webhookExecuteRoutes(scope, routeDeps);
  });
  await registerDiscord(app, routeDeps);
  await registerDocs(app);

  registerNotFound(
    app,
    routes,
    webClient(config.webDir, () => ctx.publicUrl),
  );

  const gateway = new Gateway(ctx, bus, {
    heartbeatMs: config.gatewayHeartbeatMs,
    resumeWindowMs: config.gatewayResumeWindowMs,
    maxBufferedBytes: config.gatewayMaxBufferBytes,
    maxPendingPerAddress: config.gatewayMaxPendingPerIp,
    maxSessionsPerToken: config.gatewayMaxSessionsPerToken,
    signalWindowMs: config.gatewayTypingWindowMs,
    trustProxy: config.trustProxy,
    report,
    presence,
    wires: discordWires(ctx),
  });
  gateway.attach(app.server);
  if (metrics) {
    metrics.sources.gateway = () => gateway.connections;
    metrics.sources.eventsSent = () => gateway.eventsSent;
  }

  // Background tasks: each runs every `ms`, never overlapping itself, owned by
  // `ctx.background`: a failure is reported under its name and the next round goes ahead;
  // `close` stops the timers and waits for a round that is running.
  const tasks: NodeJS.Timeout[] = [];
  const periodic = (name: string, ms: number, run: () => Promise<unknown>) => {
    let running = false;
    const timer = setInterval(() => {
      if (running) return;
      running = true;
      ctx.background.run(`${name} failed`, async () => {
        try {
          await run();
        } finally {
          running = false;
        }
      });
    }, ms);
    timer.unref();
    tasks.push(timer);
  };
  periodic('idempotency expiry', 3600_000, () => expireIdempotencyKeys(ctx));
  // Hourly, so an unattached upload lives at most UNATTACHED_UPLOAD_TTL_HOURS plus an hour.
  periodic('unattached upload sweep', 3600_000, () => sweepUnattachedUploads(ctx, new Date(Date.now() - config.unattachedUploadTtlMs)));
  // Expired sessions are refused when used; this removes the ones nobody comes back with.
  periodic('expired session sweep', 3600_000, () => sweepExpiredSessions(ctx));
  // `parley users disable|reset-password` run in another process: this is how the
  // gateway connections of those accounts close here (REST refuses them at once).
  const revocations = new RevocationWatch(ctx);
  periodic('revocation poll', config.revocationPollMs, () => revocations.poll());
  // Interactions past their token's life are of no use to anyone.
  periodic('interaction sweep', 3600_000, () => answers.sweep(ctx));
  // Threads archive themselves after their duration without messages (at least an hour): a minute late at most.
  periodic('thread auto-archive', 60_000, () => archiveDueThreads(ctx));

  // While draining, answers close their connection, so keep-alive sockets of requests
  // that were in flight do not hold the shutdown open.
  let draining = false;
  app.addHook('onSend', (_req, reply, payload, done) => {
    if (draining) reply.header('connection', 'close');
    done(null, payload);
  });

  let closed: Promise<void> | undefined;
  const close = () =>
    (closed ??= (async () => {
      draining = true;
      for (const t of tasks) clearInterval(t);
      interactions.stop();
      await gateway.close();
      presence.close();
      await presenceStore.close();
      await app.close();
      // Requests are done: what they started in the background settles before storage closes.
      await ctx.background.stop();
      await bus.close();
      await limiter?.close();
      store.observeCommits(undefined);
      metrics?.registry.clear();
      await store.close();
      unlock?.();
    })());

  return { app, gateway, ctx, routes, close };
}
