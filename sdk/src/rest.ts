import { NetworkError, ParleyApiError, RateLimitError } from './errors.js';
import type {
  ArchivedThreadsPage,
  ArchivedThreadsQuery,
  Channel,
  CreateThreadBody,
  StartThreadFromMessageBody,
  Thread,
  ThreadMember,
  ThreadMembersQuery,
  UpdateThreadBody,
  Command,
  CommandBody,
  InteractionCallbackBody,
  InteractionMessageBody,
  EditMessageBody,
  GetMessagesQuery,
  Message,
  ReactionState,
  SendMessageBody,
  Server,
  UploadResult,
  User,
} from './types.js';

/** SDK version, sent in the User-Agent. */
export const SDK_VERSION = '0.1.0';

/** Options of `new RestClient(...)`. */
export interface RestClientOptions {
  /** The service's base URL, e.g. `http://localhost:8080` (no trailing path needed). */
  baseUrl: string;
  /**
   * The bot token (or a user session token with `tokenType: 'Bearer'`); or a function read
   * before each request, answering null while there is none (a web client before its login).
   */
  token: string | (() => string | null | undefined);
  /** Authorization scheme; bots use `Bot` (default), the web client's sessions `Bearer`. */
  tokenType?: 'Bot' | 'Bearer';
  /** How many times a request answered 429 is retried before `RateLimitError` (default 3). */
  maxRetries?: number;
  /** A 429 asking to wait longer than this (ms) is thrown at once instead (default 60 000). */
  maxRateLimitWaitMs?: number;
  /** Per-attempt timeout in ms (default 30 000); 0 for none (a large upload on a slow line). */
  timeoutMs?: number;
  /** Called whenever the client waits because of a rate limit (logging, metrics, tests). */
  onRateLimit?: (info: RateLimitInfo) => void;
  /** A `fetch` implementation (default: the global one). */
  fetch?: typeof fetch;
  /** Whether to send the SDK's `User-Agent` (default true; a browser sends its own). */
  userAgent?: boolean;
}

/** Describes one wait caused by a rate limit. */
export interface RateLimitInfo {
  method: string;
  path: string;
  /** The client-side bucket key, e.g. `typing <channelId>` (a route plus the channel or server it counts against). */
  bucket: string;
  /** How long the client waits before sending (again), in ms. */
  waitMs: number;
  /** `429`: the server refused the request; `bucket`: the client held it back pre-emptively. */
  reason: '429' | 'bucket';
  /** 1-based retry number for `429`, 0 for `bucket`. */
  retry: number;
}

/** Options of a raw `request()`. */
export interface RequestOptions {
  /** JSON body (sent with `Content-Type: application/json`). */
  body?: unknown;
  /** A multipart body; takes precedence over `body`. */
  form?: FormData;
  query?: Record<string, string | number | undefined>;
  headers?: Record<string, string>;
  /** Rate-limit bucket key; defaults to method plus path. */
  bucket?: string;
  signal?: AbortSignal;
  /** How many times a 429 is retried for this request (default: the client's `maxRetries`). */
  maxRetries?: number;
  /**
   * How many times to try again, after 1 s, 2 s, 4 s... (at most 30 s), when the service
   * cannot be reached at all (default 0: a `NetworkError` at once).
   */
  offlineRetries?: number;
  /** Told before each wait of this request: a rate limit (`429`, `bucket`) or no connection (`offline`). */
  onWait?: (waitMs: number, reason: RateLimitInfo['reason'] | 'offline') => void;
}

/** Options of `sendMessage`. */
export interface SendMessageOptions {
  /** Sent as `Idempotency-Key`: a retry with the same key creates nothing new. */
  idempotencyKey?: string;
}

/** Binary input accepted by `upload`. */
export type UploadInput = Blob | Uint8Array | ArrayBuffer;

/** Per-bucket rate-limit state, learned from `X-RateLimit-*` headers. */
class Bucket {
  /** Requests left in the current window, or undefined when unknown. */
  remaining: number | undefined;
  /** Epoch ms when the window resets (meaningful when `remaining` is 0). */
  resetAt = 0;
  /** Tail of this bucket's queue: requests in one bucket run one after another. */
  tail: Promise<unknown> = Promise.resolve();
  pending = 0;

  /** How long to hold the next request back, in ms (0 = go). */
  delay(now: number): number {
    if (this.remaining === 0 && this.resetAt > now) return this.resetAt - now;
    return 0;
  }

  update(headers: Headers, now: number): void {
    const remaining = parseNumber(headers.get('x-ratelimit-remaining'));
    const resetAfter = parseNumber(headers.get('x-ratelimit-reset-after'));
    if (remaining !== undefined) this.remaining = remaining;
    if (resetAfter !== undefined) this.resetAt = now + resetAfter * 1000;
  }
}

/**
 * Typed client of Parley's bot REST API. Requests in the same rate-limit bucket (route
 * plus channel or server) are sent in order, one at a time, so a bot's messages to a
 * channel arrive in the order it sent them; a bucket whose `X-RateLimit-Remaining` hit 0
 * waits for `X-RateLimit-Reset-After` before sending, and 429 answers are retried after
 * `Retry-After`.
 */
export class RestClient {
  readonly baseUrl: string;
  readonly #scheme: string;
  readonly #token: () => string | null | undefined;
  readonly #maxRetries: number;
  readonly #maxWaitMs: number;
  readonly #timeoutMs: number;
  readonly #onRateLimit: ((info: RateLimitInfo) => void) | undefined;
  readonly #fetch: typeof fetch;
  readonly #userAgent: boolean;
  readonly #buckets = new Map<string, Bucket>();

  constructor(options: RestClientOptions) {
    if (!options.baseUrl) throw new TypeError('RestClient: baseUrl is required');
    if (!options.token) throw new TypeError('RestClient: token is required');
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.#scheme = options.tokenType ?? 'Bot';
    const token = options.token;
    this.#token = typeof token === 'function' ? token : () => token;
    this.#maxRetries = options.maxRetries ?? 3;
    this.#maxWaitMs = options.maxRateLimitWaitMs ?? 60_000;
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    this.#onRateLimit = options.onRateLimit;
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.#userAgent = options.userAgent ?? true;
  }

  /** The `Authorization` header value this client sends (also the gateway's identify token); '' while there is no token. */
  get authorization(): string {
    const token = this.#token();
    return token ? `${this.#scheme} ${token}` : '';
  }

  // ---------------------------------------------------------------- identity & servers

  /** `GET /users/@me`: the caller. */
  me(): Promise<User> {
    return this.request('GET', '/users/@me');
  }

  /** `GET /servers`: the servers the caller belongs to. */
  servers(): Promise<Server[]> {
    return this.request('GET', '/servers');
  }

  /** `GET /servers/{serverId}`. */
  server(serverId: string): Promise<Server> {
    return this.request('GET', path`/servers/${serverId}`);
  }

  /** `GET /servers/{serverId}/channels`. */
  channels(serverId: string): Promise<Channel[]> {
    return this.request('GET', path`/servers/${serverId}/channels`);
  }

  /** `GET /servers/{serverId}/members`: users and bots (`bot: true/false`). */
  members(serverId: string): Promise<User[]> {
    return this.request('GET', path`/servers/${serverId}/members`);
  }

  // ---------------------------------------------------------------- messages

  /**
   * `POST /channels/{channelId}/messages`. `message` is the content string or
   * `{ content?, attachments? }`.
   */
  sendMessage(channelId: string, message: string | SendMessageBody, options: SendMessageOptions = {}): Promise<Message> {
    const body: SendMessageBody = typeof message === 'string' ? { content: message } : message;
    const headers: Record<string, string> = {};
    if (options.idempotencyKey) headers['Idempotency-Key'] = options.idempotencyKey;
    return this.request('POST', path`/channels/${channelId}/messages`, { body, headers, bucket: `messages ${channelId}` });
  }

  /** `GET /channels/{channelId}/messages`: newest first. */
  getMessages(channelId: string, query: GetMessagesQuery = {}): Promise<Message[]> {
    return this.request('GET', path`/channels/${channelId}/messages`, {
      query: { limit: query.limit, before: query.before, after: query.after },
    });
  }

  /** `GET /channels/{channelId}/messages/{messageId}`. */
  getMessage(channelId: string, messageId: string): Promise<Message> {
    return this.request('GET', path`/channels/${channelId}/messages/${messageId}`);
  }

  /** `PATCH /channels/{channelId}/messages/{messageId}`: only the author may edit. */
  editMessage(channelId: string, messageId: string, edit: string | EditMessageBody): Promise<Message> {
    const body: EditMessageBody = typeof edit === 'string' ? { content: edit } : edit;
    // Edits count against the same per-channel message limit as sends.
    return this.request('PATCH', path`/channels/${channelId}/messages/${messageId}`, { body, bucket: `messages ${channelId}` });
  }

  /** `DELETE /channels/{channelId}/messages/{messageId}`: the author or the server owner. */
  async deleteMessage(channelId: string, messageId: string): Promise<void> {
    await this.request('DELETE', path`/channels/${channelId}/messages/${messageId}`);
  }

  /**
   * `PUT /channels/{channelId}/messages/{messageId}/reactions/{emoji}`: adds the caller's
   * reaction if absent, removes it if present; resolves with the state afterwards.
   */
  toggleReaction(channelId: string, messageId: string, emoji: string): Promise<ReactionState> {
    return this.request('PUT', path`/channels/${channelId}/messages/${messageId}/reactions/${emoji}`, {
      bucket: `reactions ${channelId}`,
    });
  }

  /** `POST /channels/{channelId}/typing`: shows "typing..." for a few seconds (15 per 5 s). */
  async typing(channelId: string): Promise<void> {
    await this.request('POST', path`/channels/${channelId}/typing`, { bucket: `typing ${channelId}` });
  }

  /**
   * `POST /upload` (multipart field `file`). Put the result's `url` and `filename` in a
   * message's `attachments`.
   */
  upload(file: UploadInput, filename: string, contentType?: string): Promise<UploadResult> {
    let blob: Blob;
    if (file instanceof Blob) {
      blob = contentType && contentType !== file.type ? file.slice(0, file.size, contentType) : file;
    } else {
      // Copy into a fresh ArrayBuffer-backed view: Blob parts must not be shared memory.
      const bytes = file instanceof ArrayBuffer ? new Uint8Array(file) : Uint8Array.from(file);
      blob = new Blob([bytes], { type: contentType ?? 'application/octet-stream' });
    }
    const form = new FormData();
    form.append('file', blob, filename);
    return this.request('POST', '/upload', { form, bucket: 'upload' });
  }

  // ---------------------------------------------------------------- threads (docs/threads.md)
  //
  // A thread is a channel with a parent: its messages, reactions, pins and typing are the
  // message methods above, on the thread's id.

  /** `POST /channels/{channelId}/threads`: a public thread unless `type` is `private_thread`; the caller joins it. */
  createThread(channelId: string, body: CreateThreadBody): Promise<Thread> {
    return this.request('POST', path`/channels/${channelId}/threads`, { body, bucket: 'manage' });
  }

  /** `POST /channels/{channelId}/messages/{messageId}/threads`: a public thread from a message, with the message's id. */
  startThreadFromMessage(channelId: string, messageId: string, body: StartThreadFromMessageBody): Promise<Thread> {
    return this.request('POST', path`/channels/${channelId}/messages/${messageId}/threads`, { body, bucket: 'manage' });
  }

  /** `GET /channels/{channelId}/threads`: the channel's active threads the caller may see. */
  async activeThreads(channelId: string): Promise<Thread[]> {
    return (await this.request<{ threads: Thread[] }>('GET', path`/channels/${channelId}/threads`)).threads;
  }

  /** `GET /servers/{serverId}/threads`: the server's active threads the caller may see. */
  async serverThreads(serverId: string): Promise<Thread[]> {
    return (await this.request<{ threads: Thread[] }>('GET', path`/servers/${serverId}/threads`)).threads;
  }

  /** `GET /channels/{channelId}/threads/archived`: a page of archived threads, newest archive first. */
  archivedThreads(channelId: string, query: ArchivedThreadsQuery = {}): Promise<ArchivedThreadsPage> {
    return this.request('GET', path`/channels/${channelId}/threads/archived`, {
      query: {
        type: query.type,
        joined: query.joined === undefined ? undefined : String(query.joined),
        before: query.before,
        limit: query.limit,
      },
    });
  }

  /** `GET /threads/{threadId}`: with `member`, the caller's membership, when they joined. */
  getThread(threadId: string): Promise<Thread> {
    return this.request('GET', path`/threads/${threadId}`);
  }

  /** `PATCH /threads/{threadId}`: rename, archive, lock (MANAGE_THREADS), set the duration or `invitable`. */
  editThread(threadId: string, body: UpdateThreadBody): Promise<Thread> {
    return this.request('PATCH', path`/threads/${threadId}`, { body, bucket: 'manage' });
  }

  /** `DELETE /threads/{threadId}`: the thread and its messages (MANAGE_THREADS). */
  async deleteThread(threadId: string): Promise<void> {
    await this.request('DELETE', path`/threads/${threadId}`, { bucket: 'manage' });
  }

  /** `GET /threads/{threadId}/members`: a page by user id. */
  threadMembers(threadId: string, query: ThreadMembersQuery = {}): Promise<ThreadMember[]> {
    return this.request('GET', path`/threads/${threadId}/members`, { query: { after: query.after, limit: query.limit } });
  }

  /** `GET /threads/{threadId}/members/{userId}` (`@me`, the default: the caller). */
  threadMember(threadId: string, userId = '@me'): Promise<ThreadMember> {
    return this.request('GET', path`/threads/${threadId}/members/${userId}`);
  }

  /** `PUT /threads/{threadId}/members/{userId}`: join (`@me`, the default) or add someone who sees the thread's channel. */
  async addThreadMember(threadId: string, userId = '@me'): Promise<void> {
    await this.request('PUT', path`/threads/${threadId}/members/${userId}`, { bucket: 'manage' });
  }

  /** `DELETE /threads/{threadId}/members/{userId}`: leave (`@me`, the default) or remove someone (MANAGE_THREADS). */
  async removeThreadMember(threadId: string, userId = '@me'): Promise<void> {
    await this.request('DELETE', path`/threads/${threadId}/members/${userId}`, { bucket: 'manage' });
  }

  // ---------------------------------------------------------------- commands and interactions

  /** `PUT /bots/{botId}/commands`: replaces the global list, or one server's (`serverId`). */
  putCommands(botId: string, commands: CommandBody[], serverId?: string): Promise<Command[]> {
    return this.request('PUT', path`/bots/${botId}/commands`, { body: commands, query: { serverId } });
  }

  /** `GET /bots/{botId}/commands`: the global list, or one server's. */
  getCommands(botId: string, serverId?: string): Promise<Command[]> {
    return this.request('GET', path`/bots/${botId}/commands`, { query: { serverId } });
  }

  /** `POST /interactions/{id}/{token}/callback`: the one answer, within 3 s. */
  async interactionCallback(interactionId: string, token: string, body: InteractionCallbackBody): Promise<void> {
    await this.request('POST', path`/interactions/${interactionId}/${token}/callback`, { body, bucket: `interaction ${interactionId}` });
  }

  /** `POST /interactions/{token}/followups`: another message, for 15 minutes. */
  followUp(token: string, body: InteractionMessageBody): Promise<Message> {
    return this.request('POST', path`/interactions/${token}/followups`, { body, bucket: interactionBucket(token) });
  }

  /** `GET /interactions/{token}/messages/original`. */
  getOriginal(token: string): Promise<Message> {
    return this.request('GET', path`/interactions/${token}/messages/original`, { bucket: interactionBucket(token) });
  }

  /** `PATCH /interactions/{token}/messages/original`: edits the answer (a deferred one's placeholder becomes it). */
  editOriginal(token: string, body: InteractionMessageBody): Promise<Message> {
    return this.request('PATCH', path`/interactions/${token}/messages/original`, { body, bucket: interactionBucket(token) });
  }

  /** `DELETE /interactions/{token}/messages/original`. */
  async deleteOriginal(token: string): Promise<void> {
    await this.request('DELETE', path`/interactions/${token}/messages/original`, { bucket: interactionBucket(token) });
  }

  // ---------------------------------------------------------------- transport

  /**
   * Sends one request and parses the answer (JSON, or undefined for 204). Non-2xx
   * answers throw a `ParleyApiError` subclass; 429 is retried first (see the class doc).
   */
  request<T = unknown>(method: string, urlPath: string, options: RequestOptions = {}): Promise<T> {
    const key = options.bucket ?? bucketKey(method, urlPath);
    if (this.#buckets.size > 1000) this.#sweepBuckets();
    let bucket = this.#buckets.get(key);
    if (!bucket) {
      bucket = new Bucket();
      this.#buckets.set(key, bucket);
    }
    const owner = bucket;
    owner.pending++;
    const run = owner.tail.then(() => this.#send<T>(owner, key, method, urlPath, options));
    owner.tail = run.catch(() => undefined);
    return run.finally(() => {
      owner.pending--;
      // Forget idle buckets that hold nothing worth remembering, so the map stays small.
      if (owner.pending === 0 && owner.delay(Date.now()) === 0 && this.#buckets.get(key) === owner) {
        this.#buckets.delete(key);
      }
    });
  }

  /** Drops buckets with nothing queued and no window to wait for (a bot in many channels). */
  #sweepBuckets(): void {
    const now = Date.now();
    for (const [key, bucket] of this.#buckets) {
      if (bucket.pending === 0 && bucket.delay(now) === 0) this.#buckets.delete(key);
    }
  }

  async #send<T>(bucket: Bucket, key: string, method: string, urlPath: string, options: RequestOptions): Promise<T> {
    const url = new URL(this.baseUrl + urlPath);
    for (const [name, value] of Object.entries(options.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    const headers: Record<string, string> = {};
    const authorization = this.authorization;
    if (authorization) headers.Authorization = authorization;
    if (this.#userAgent) headers['User-Agent'] = `ParleyBot (@parley/sdk ${SDK_VERSION})`;
    Object.assign(headers, options.headers);
    let body: string | FormData | undefined;
    if (options.form) {
      body = options.form; // fetch sets the multipart Content-Type with its boundary
    } else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['Content-Type'] = 'application/json';
    }
    // Errors carry the path; an interaction's token in it is a secret, so it is left out.
    const request = { method, path: urlPath.replace(/(\d+)\.[A-Za-z0-9_-]{16,}/g, '$1.[token]') };

    const maxRetries = options.maxRetries ?? this.#maxRetries;
    for (let retry = 0, offline = 0; ; ) {
      const hold = bucket.delay(Date.now());
      if (hold > 0) {
        this.#onRateLimit?.({ method, path: urlPath, bucket: key, waitMs: hold, reason: 'bucket', retry: 0 });
        options.onWait?.(hold, 'bucket');
        await sleep(hold, options.signal);
        bucket.remaining = undefined; // a new window: unknown until the next answer
      }

      const signals = this.#timeoutMs > 0 ? [AbortSignal.timeout(this.#timeoutMs)] : [];
      if (options.signal) signals.push(options.signal);
      let response: Response;
      try {
        response = await this.#fetch(url, {
          method,
          headers,
          ...(body === undefined ? {} : { body }),
          ...(signals.length ? { signal: AbortSignal.any(signals) } : {}),
        });
      } catch (err) {
        // An abort or a timeout is the caller's; anything else from fetch means no answer came.
        if (!(err instanceof TypeError)) throw err;
        if (offline < (options.offlineRetries ?? 0)) {
          const waitMs = Math.min(1000 * 2 ** offline++, 30_000);
          options.onWait?.(waitMs, 'offline');
          await sleep(waitMs, options.signal);
          continue;
        }
        throw new NetworkError(err, request);
      }
      const now = Date.now();
      bucket.update(response.headers, now);
      const payload = await readBody(response);

      if (response.ok) return payload as T;

      const message = errorMessage(payload, response);
      if (response.status === 429) {
        const retryAfter = retryAfterSeconds(response.headers, payload);
        const waitMs = Math.ceil(retryAfter * 1000);
        // Make later requests in this bucket wait too, even if headers were missing.
        bucket.remaining = 0;
        bucket.resetAt = Math.max(bucket.resetAt, now + waitMs);
        if (retry < maxRetries && waitMs <= this.#maxWaitMs) {
          retry++;
          this.#onRateLimit?.({ method, path: urlPath, bucket: key, waitMs, reason: '429', retry });
          options.onWait?.(waitMs, '429');
          await sleep(waitMs, options.signal);
          bucket.remaining = undefined;
          continue;
        }
        throw new RateLimitError(message, request, payload, retryAfter);
      }
      throw ParleyApiError.from(response.status, message, request, payload);
    }
  }
}

/** Builds a path, URL-encoding every interpolated segment (ids, emoji). */
/** An interaction's token as a bucket: by its interaction id, never the secret. */
function interactionBucket(token: string): string {
  return `interaction ${token.split('.', 1)[0]}`;
}

function path(strings: TemplateStringsArray, ...params: string[]): string {
  let out = strings[0] ?? '';
  params.forEach((param, i) => {
    out += encodeURIComponent(param) + (strings[i + 1] ?? '');
  });
  return out;
}

/**
 * The bucket of a request: its method and route, keeping the first id (the channel or
 * server the limit is counted against) and replacing later ids (message, emoji).
 */
function bucketKey(method: string, urlPath: string): string {
  const segments = urlPath.split('/');
  // Segments after a collection name are ids: /channels/{id}/messages/{id}/reactions/{emoji}
  const collections = new Set(['channels', 'servers', 'messages', 'reactions', 'bots', 'webhooks', 'invites', 'members']);
  let seenId = false;
  const key = segments.map((segment, i) => {
    const previous = segments[i - 1];
    if (i > 0 && previous !== undefined && collections.has(previous) && segment !== '') {
      if (!seenId) {
        seenId = true;
        return segment;
      }
      return ':id';
    }
    return segment;
  });
  return `${method} ${key.join('/')}`;
}

async function readBody(response: Response): Promise<unknown> {
  if (response.status === 204) return undefined;
  const text = await response.text();
  if (text === '') return undefined;
  const type = response.headers.get('content-type') ?? '';
  if (type.includes('json')) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

function errorMessage(payload: unknown, response: Response): string {
  if (typeof payload === 'object' && payload !== null) {
    const error = (payload as { error?: unknown }).error;
    if (typeof error === 'string' && error) return error;
    const message = (payload as { message?: unknown }).message;
    if (typeof message === 'string' && message) return message;
  }
  if (typeof payload === 'string' && payload.trim() && payload.length < 500) return payload.trim();
  return `${response.status} ${response.statusText || 'request failed'}`;
}

/** Seconds to wait after a 429: `Retry-After`, else the body's `retryAfter`, else the reset header, else 1. */
function retryAfterSeconds(headers: Headers, payload: unknown): number {
  const header = parseNumber(headers.get('retry-after'));
  if (header !== undefined) return header;
  if (typeof payload === 'object' && payload !== null) {
    const fromBody = (payload as { retryAfter?: unknown }).retryAfter;
    if (typeof fromBody === 'number' && Number.isFinite(fromBody) && fromBody >= 0) return fromBody;
  }
  return parseNumber(headers.get('x-ratelimit-reset-after')) ?? 1;
}

function parseNumber(value: string | null): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const n = Number(value);
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
