import { t } from '../i18n';
/**
 * The one way the web client talks to the REST API: bearer auth from localStorage,
 * JSON in and out, `{error}` bodies turned into readable ApiErrors, and 429s retried
 * after the server's Retry-After.
 */

const TOKEN_KEY = 'parley.token';

/** An API failure with a message fit to show to a person. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** The API's error code (`cannot_dm`, `unknown_channel`...), when the body named one. */
    readonly code?: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export function getToken(): string | null {
  try {
    return localStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

export function setToken(token: string | null): void {
  try {
    if (token) localStorage.setItem(TOKEN_KEY, token);
    else localStorage.removeItem(TOKEN_KEY);
  } catch {
    /* storage may be disabled; the session then lasts as long as the tab */
  }
}

let unauthorizedHandler: (() => void) | null = null;

/** Called when the API says our session token is no longer valid. */
export function onUnauthorized(handler: (() => void) | null): void {
  unauthorizedHandler = handler;
}

export interface RequestOptions {
  /** Give up on 429 instead of waiting (typing indicators are not worth a retry). */
  noRetry?: boolean;
  signal?: AbortSignal;
  /** Extra request headers (`X-Audit-Log-Reason`). */
  headers?: Record<string, string>;
  /** Told before each wait for a retry: how long, and why (a 429, or no connection). */
  onRetry?: (waitMs: number, reason: 'rate-limited' | 'offline') => void;
  /** Retry this many times, with growing pauses, when the server cannot be reached (default 0). */
  offlineRetries?: number;
}

const MAX_RETRIES = 4;
const MAX_RETRY_WAIT_MS = 30_000;

/** Statuses with a message of their own in the catalog (`errors.http.<status>`). */
const FRIENDLY = [400, 401, 403, 404, 409, 413, 429, 500, 502, 503] as const;
type Friendly = (typeof FRIENDLY)[number];
const isFriendly = (status: number): status is Friendly => (FRIENDLY as readonly number[]).includes(status);

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(t);
      reject(new DOMException('Aborted', 'AbortError'));
    });
  });
}

function retryAfterMs(res: Response, body: unknown): number {
  const header = res.headers.get('Retry-After');
  let seconds = header !== null ? Number(header) : NaN;
  if (!Number.isFinite(seconds) && body && typeof body === 'object' && 'retryAfter' in body) {
    seconds = Number((body as { retryAfter: unknown }).retryAfter);
  }
  if (!Number.isFinite(seconds) || seconds < 0) seconds = 1;
  return Math.min(seconds * 1000 + 50, MAX_RETRY_WAIT_MS);
}

async function readBody(res: Response): Promise<unknown> {
  const text = await res.text();
  if (!text) return undefined;
  const type = res.headers.get('Content-Type') ?? '';
  if (type.includes('json')) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

function errorMessage(status: number, body: unknown): string {
  if (body && typeof body === 'object' && 'error' in body) {
    const e = (body as { error: unknown }).error;
    if (typeof e === 'string' && e.trim()) return capitalise(e.trim());
  }
  return isFriendly(status) ? t(`errors.http.${status}`) : t('errors.httpFailed', { status });
}

function errorCode(body: unknown): string | undefined {
  if (body && typeof body === 'object' && 'code' in body) {
    const c = (body as { code: unknown }).code;
    if (typeof c === 'string') return c;
  }
  return undefined;
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** Make one API call; resolves to the parsed body (undefined for 204). */
export async function request<T>(method: string, path: string, body?: unknown, options: RequestOptions = {}): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const headers: Record<string, string> = { ...options.headers, Accept: 'application/json' };
    const token = getToken();
    if (token) headers.Authorization = `Bearer ${token}`;
    let payload: BodyInit | undefined;
    if (body instanceof FormData) {
      payload = body;
    } else if (body !== undefined) {
      headers['Content-Type'] = 'application/json';
      payload = JSON.stringify(body);
    }
    let res: Response;
    try {
      res = await fetch(path, { method, headers, body: payload, signal: options.signal });
    } catch (err) {
      if (err instanceof DOMException && err.name === 'AbortError') throw err;
      if (attempt < (options.offlineRetries ?? 0)) {
        const wait = Math.min(1000 * 2 ** attempt, MAX_RETRY_WAIT_MS);
        options.onRetry?.(wait, 'offline');
        await sleep(wait, options.signal);
        continue;
      }
      throw new ApiError(0, t('errors.unreachable'));
    }
    const data = await readBody(res);
    if (res.ok) return data as T;
    if (res.status === 429 && !options.noRetry && attempt < MAX_RETRIES) {
      const wait = retryAfterMs(res, data);
      options.onRetry?.(wait, 'rate-limited');
      await sleep(wait, options.signal);
      continue;
    }
    if (res.status === 401 && token && !path.startsWith('/auth/')) unauthorizedHandler?.();
    throw new ApiError(res.status, errorMessage(res.status, data), errorCode(data));
  }
}

export const api = {
  request,
  get: <T>(path: string, options?: RequestOptions) => request<T>('GET', path, undefined, options),
  post: <T>(path: string, body?: unknown, options?: RequestOptions) => request<T>('POST', path, body, options),
  put: <T>(path: string, body?: unknown, options?: RequestOptions) => request<T>('PUT', path, body, options),
  patch: <T>(path: string, body?: unknown, options?: RequestOptions) => request<T>('PATCH', path, body, options),
  /** A DELETE, with a JSON body when the route asks for one (`DELETE /users/@me` takes the password). */
  delete: <T = void>(path: string, body?: unknown, options?: RequestOptions) => request<T>('DELETE', path, body, options),
};

/** Encode one path segment (ids are opaque; emoji need it). */
export const seg = (s: string) => encodeURIComponent(s);

/** A readable message for anything thrown. */
export function describeError(err: unknown): string {
  if (err instanceof ApiError) return err.message;
  if (err instanceof Error && err.message) return err.message;
  return t('errors.somethingWentWrong');
}
