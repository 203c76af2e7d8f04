import path from 'node:path';

/** Every setting of the service, typed. `loadConfig` is the only reader of the environment. */
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** Base of the links the service writes; port 0 here means the port it listens on (`withListeningPort`). */
  publicUrl: string;
  databaseUrl: string | undefined;
  /** SQLite: where the writer connection's queries run (`auto`: on a thread of its own while writes are busy). */
  sqliteWriterThread: 'auto' | 'on' | 'off';
  redisUrl: string | undefined;
  /** Namespace of every Redis key, so deployments can share one Redis. */
  redisPrefix: string;
  /** Uploaded files; instances of one deployment must share it (e.g. over NFS). */
  uploadsDir: string;
  rateLimits: boolean;
  maxUploadBytes: number;
  /** Bytes of uploads one account (person, bot or webhook) may keep stored; 0: no quota (UPLOAD_QUOTA_BYTES). */
  uploadQuotaBytes: number;
  /** Bytes of uploads the whole instance keeps stored; 0: no limit (MAX_UPLOAD_STORAGE). */
  maxUploadStorage: number;
  /** Uploads no message references are deleted once older than this (UNATTACHED_UPLOAD_TTL_HOURS). */
  unattachedUploadTtlMs: number;
  /** The program that draws a PDF's first page (Poppler's `pdftoppm`); empty: no PDF previews (PDF_PREVIEW_COMMAND). */
  pdfPreviewCommand: string;
  /** Where the first pages of PDFs are kept (`DATA_DIR/previews`): each instance makes its own. */
  previewsDir: string;
  /** Milliseconds a gateway session stays resumable after its connection drops. */
  gatewayResumeWindowMs: number;
  /**
   * Entries kept in the event log that every gateway session resumes from (one log for
   * the whole instance, or the Redis stream's length): all servers' events count.
   */
  gatewayReplayBuffer: number;
  gatewayHeartbeatMs: number;
  /** Bytes queued to one gateway client before it is dropped as a slow consumer. */
  gatewayMaxBufferBytes: number;
  /** Gateway connections from one address that have not identified yet; more get 429. */
  gatewayMaxPendingPerIp: number;
  /** Live gateway sessions of one token (bot token or login session) on one instance. */
  gatewayMaxSessionsPerToken: number;
  /** Typing within this long of the last typing sent waits for the window's end (0: each at once). */
  gatewayTypingWindowMs: number;
  /** How long someone whose last connection closed still shows connected (a reload, a resume). */
  presenceGraceMs: number;
  /** How often each instance refreshes its liveness and sweeps instances that stopped (with Redis); an instance counts as stopped after three. */
  presenceSweepMs: number;
  /** At most one PRESENCE_UPDATE per person per this long. */
  presenceIntervalMs: number;
  /** Members of a server above which it gets no PRESENCE_UPDATE (its member list asks GET members instead). */
  presenceFanoutMax: number;
  /** Serve the web client from this directory, if it exists. */
  webDir: string;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Seconds to wait for in-flight requests on shutdown. */
  shutdownGraceSeconds: number;
  /** Trust X-Forwarded-* from a reverse proxy (for client addresses in rate limits). */
  trustProxy: boolean;
  /**
   * Milliseconds a client has to send a whole request, headers and body. A connection
   * on which nothing moves either way for twice this long is closed too.
   */
  requestTimeoutMs: number;
  /** Milliseconds a client has to send a request's headers (at most requestTimeoutMs). */
  headersTimeoutMs: number;
  /** Milliseconds an idle keep-alive connection stays open between requests. */
  keepAliveTimeoutMs: number;
  /**
   * Open TCP connections (HTTP and gateway alike) from one client address, an IPv6 /64
   * counting as one; 0 means no cap. Behind a reverse proxy every connection comes from
   * the proxy, so the default is then 0.
   */
  maxConnectionsPerIp: number;
  /** A login session ends once unused for this long (SESSION_TTL_DAYS). */
  sessionTtlMs: number;
  /** Who may create an account (REGISTRATION): anyone, only with an invite code, or no one. */
  registration: RegistrationMode;
  /**
   * How often each instance looks for accounts `parley users disable|reset-password`
   * revoked, to close their gateway connections (REVOCATION_POLL_MS).
   */
  revocationPollMs: number;
  /** The bearer token /metrics wants (METRICS_TOKEN); unset, /metrics answers 404 and nothing is collected. */
  metricsToken: string | undefined;
  /** How long a bot has to answer an interaction, from its creation (INTERACTION_CALLBACK_MS; Discord's 3 s). */
  interactionCallbackMs: number;
  /** How long an interaction's token serves follow-ups and edits (INTERACTION_TOKEN_TTL_SECONDS; 15 min). */
  interactionTokenTtlMs: number;
  /** Outgoing requests (a bot's interactionsUrl) may reach private, loopback and link-local addresses (OUTGOING_ALLOW_PRIVATE). */
  outgoingAllowPrivate: boolean;
}

export const REGISTRATION_MODES = ['open', 'invite', 'closed'] as const;
export type RegistrationMode = (typeof REGISTRATION_MODES)[number];

export type Env = Record<string, string | undefined>;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** Thrown when the environment holds bad settings; lists every bad key at once. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  ${problems.join('\n  ')}`);
    this.name = 'ConfigError';
  }
}

/** Reads and validates the settings from `env`, collecting every problem before failing. */
export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = [];

  const int = (key: string, fallback: number, min: number, max: number): number => {
    const raw = env[key];
    if (raw === undefined || raw === '') return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) {
      problems.push(`${key} must be an integer from ${min} to ${max} (got "${raw}")`);
      return fallback;
    }
    return n;
  };
  const url = (key: string, protocols: string[]): string | undefined => {
    const raw = env[key];
    if (raw === undefined || raw === '') return undefined;
    try {
      const u = new URL(raw);
      if (!protocols.includes(u.protocol)) throw new Error('protocol');
      return raw;
    } catch {
      problems.push(`${key} must be a ${protocols.map((p) => p.replace(':', '://')).join(' or ')} URL`);
      return undefined;
    }
  };

  const bool = (key: string, fallback: boolean): boolean => {
    const raw = env[key]?.toLowerCase();
    if (raw === undefined || raw === '') return fallback;
    if (['1', 'true', 'on', 'yes'].includes(raw)) return true;
    if (['0', 'false', 'off', 'no'].includes(raw)) return false;
    problems.push(`${key} must be true or false (got "${env[key]}")`);
    return fallback;
  };

  const port = int('PORT', 8080, 0, 65535);
  const host = env.HOST || '0.0.0.0';
  const dataDir = path.resolve(env.DATA_DIR || './data');
  const publicUrl = (url('PUBLIC_URL', ['http:', 'https:']) ?? `http://localhost:${port}`).replace(/\/+$/, '');
  const databaseUrl = url('DATABASE_URL', ['postgres:', 'postgresql:']);
  const redisUrl = url('REDIS_URL', ['redis:', 'rediss:']);

  const rateRaw = (env.RATE_LIMITS ?? 'on').toLowerCase();
  if (!['on', 'off'].includes(rateRaw)) problems.push(`RATE_LIMITS must be "on" or "off" (got "${env.RATE_LIMITS}")`);

  const trustProxy = bool('TRUST_PROXY', false);
  // 120 s lets a 25 MiB upload through at about 2 Mbit/s; a stalled request holds its
  // socket no longer than that. Headers are small: 20 s is generous even on bad links.
  const requestTimeoutSeconds = int('REQUEST_TIMEOUT_SECONDS', 120, 1, 3600);
  const headersTimeoutSeconds = int('HEADERS_TIMEOUT_SECONDS', Math.min(20, requestTimeoutSeconds), 1, 3600);
  if (headersTimeoutSeconds > requestTimeoutSeconds) {
    problems.push('HEADERS_TIMEOUT_SECONDS must not be more than REQUEST_TIMEOUT_SECONDS');
  }

  const registration = (env.REGISTRATION || 'open').toLowerCase() as RegistrationMode;
  if (!REGISTRATION_MODES.includes(registration)) {
    problems.push(`REGISTRATION must be one of ${REGISTRATION_MODES.join(', ')} (got "${env.REGISTRATION}")`);
  }

  const metricsToken = env.METRICS_TOKEN || undefined;
  if (metricsToken !== undefined && (metricsToken.length < 16 || /\s/.test(metricsToken))) {
    problems.push('METRICS_TOKEN must be at least 16 characters, without spaces (e.g. openssl rand -hex 32)');
  }

  const sqliteWriterThread = (env.SQLITE_WRITER_THREAD || 'auto').toLowerCase() as Config['sqliteWriterThread'];
  if (!['auto', 'on', 'off'].includes(sqliteWriterThread)) {
    problems.push(`SQLITE_WRITER_THREAD must be one of auto, on, off (got "${env.SQLITE_WRITER_THREAD}")`);
  }
  const logLevel = (env.LOG_LEVEL || 'info') as Config['logLevel'];
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);

  const config: Config = {
    port,
    host,
    dataDir,
    publicUrl,
    databaseUrl,
    sqliteWriterThread,
    redisUrl,
    redisPrefix: env.REDIS_PREFIX || 'parley:',
    uploadsDir: path.resolve(env.UPLOADS_DIR || path.join(dataDir, 'uploads')),
    rateLimits: rateRaw !== 'off',
    maxUploadBytes: int('MAX_UPLOAD_BYTES', 25 * 1024 * 1024, 1, 2 ** 40),
    uploadQuotaBytes: int('UPLOAD_QUOTA_BYTES', 0, 0, 2 ** 50),
    maxUploadStorage: int('MAX_UPLOAD_STORAGE', 0, 0, 2 ** 50),
    // A day leaves a client time to attach what it uploaded; at most a year.
    unattachedUploadTtlMs: int('UNATTACHED_UPLOAD_TTL_HOURS', 24, 1, 8760) * 3600_000,
    pdfPreviewCommand: env.PDF_PREVIEW_COMMAND ?? 'pdftoppm',
    previewsDir: path.join(dataDir, 'previews'),
    gatewayResumeWindowMs: int('GATEWAY_RESUME_SECONDS', 120, 1, 86_400) * 1000,
    // 10,000 entries: about 6-8 MB of typical messages in memory; covers the resume window
    // plus a heartbeat interval at ~60 events/s across the instance (docs/gateway.md).
    gatewayReplayBuffer: int('GATEWAY_REPLAY_BUFFER', 10_000, 1, 1_000_000),
    gatewayHeartbeatMs: int('GATEWAY_HEARTBEAT_MS', 30_000, 100, 600_000),
    gatewayMaxBufferBytes: int('GATEWAY_MAX_BUFFER_BYTES', 1024 * 1024, 64 * 1024, 1024 * 1024 * 1024),
    gatewayMaxPendingPerIp: int('GATEWAY_MAX_PENDING_PER_IP', 64, 1, 1_000_000),
    gatewayMaxSessionsPerToken: int('GATEWAY_MAX_SESSIONS_PER_TOKEN', 32, 1, 1_000_000),
    gatewayTypingWindowMs: int('GATEWAY_TYPING_WINDOW_MS', 250, 0, 5_000),
    presenceGraceMs: int('PRESENCE_GRACE_MS', 10_000, 0, 600_000),
    presenceIntervalMs: int('PRESENCE_INTERVAL_MS', 2_000, 0, 600_000),
    presenceSweepMs: int('PRESENCE_SWEEP_MS', 10_000, 100, 600_000),
    presenceFanoutMax: int('PRESENCE_FANOUT_MAX', 1_000, 0, 10_000_000),
    webDir: path.resolve(env.WEB_DIR || path.join(projectRoot(), 'web', 'dist')),
    logLevel,
    shutdownGraceSeconds: int('SHUTDOWN_GRACE_SECONDS', 10, 0, 3600),
    trustProxy,
    requestTimeoutMs: requestTimeoutSeconds * 1000,
    headersTimeoutMs: headersTimeoutSeconds * 1000,
    keepAliveTimeoutMs: int('KEEP_ALIVE_TIMEOUT_SECONDS', 72, 1, 3600) * 1000,
    maxConnectionsPerIp: int('MAX_CONNECTIONS_PER_IP', trustProxy ? 0 : 256, 0, 1_000_000),
    sessionTtlMs: int('SESSION_TTL_DAYS', 30, 1, 3650) * 86_400_000,
    registration,
    revocationPollMs: int('REVOCATION_POLL_MS', 5_000, 100, 3_600_000),
    metricsToken,
    interactionCallbackMs: int('INTERACTION_CALLBACK_MS', 3000, 50, 60_000),
    interactionTokenTtlMs: int('INTERACTION_TOKEN_TTL_SECONDS', 900, 1, 86_400) * 1000,
    outgoingAllowPrivate: bool('OUTGOING_ALLOW_PRIVATE', false),
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/**
 * The public URL once the server listens on `port`. A PUBLIC_URL whose port is 0 (the
 * default when PORT=0) takes the port the system assigned, as the listener did; any other
 * is returned unchanged.
 */
export function withListeningPort(publicUrl: string, port: number): string {
  const u = new URL(publicUrl);
  if (u.port !== '0') return publicUrl;
  u.port = String(port);
  return u.toString().replace(/\/+$/, '');
}

/** The repository root, whether this file runs from `src/` (tsx) or `dist/src/` (built). */
function projectRoot(): string {
  const here = import.meta.dirname;
  const up = path.resolve(here, '..');
  return path.basename(up) === 'dist' ? path.resolve(up, '..') : up;
}
