/**
 * How the web client talks to the REST API: through the SDK's `RestClient` (bundled from
 * `sdk/src`), with the session token from localStorage, `{error}` bodies turned into
 * readable ApiErrors, and 429s retried after the server's Retry-After.
 */
import { NetworkError, ParleyApiError, RestClient, type RequestInfo } from '@parley/sdk';
import { t } from '../i18n';

const TOKEN_KEY = 'parley.token';

/**
 * An API failure with a message fit to show to a person (status 0: no answer came). `code`
 * is the SDK's: the API's (`cannot_dm`, `unknown_channel`...), else one from the status.
 */
export class ApiError extends ParleyApiError {
  override name = 'ApiError';
  constructor(status: number, message: string, request: RequestInfo, body: unknown) {
    super(status, message, request, body);
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
  /** Told before each wait for a retry: how long, and why (a rate limit, or no connection). */
  onRetry?: (waitMs: number, reason: 'rate-limited' | 'offline') => void;
  /** Retry this many times, with growing pauses, when the server cannot be reached (default 0). */
  offlineRetries?: number;
}

/**
 * The SDK's client, as bots use it: a session token read before each request, no timeout
 * (uploads on slow lines), 429s retried up to 4 times for a wait of up to 30 s, and requests
 * to one rate-limit bucket sent in order.
 */
const rest = new RestClient({
  baseUrl: globalThis.location?.origin ?? 'http://localhost',
  token: getToken,
  tokenType: 'Bearer',
  maxRetries: 4,
  maxRateLimitWaitMs: 30_000,
  timeoutMs: 0,
  userAgent: false,
});

/** Statuses with a message of their own in the catalog (`errors.http.<status>`). */
const FRIENDLY = [400, 401, 403, 404, 409, 413, 429, 500, 502, 503] as const;
type Friendly = (typeof FRIENDLY)[number];
const isFriendly = (status: number): status is Friendly => (FRIENDLY as readonly number[]).includes(status);

function errorMessage(status: number, body: unknown): string {
  if (body && typeof body === 'object' && 'error' in body) {
    const e = (body as { error: unknown }).error;
    if (typeof e === 'string' && e.trim()) return capitalise(e.trim());
  }
  return isFriendly(status) ? t(`errors.http.${status}`) : t('errors.httpFailed', { status });
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** Make one API call; resolves to the parsed body (undefined for 204). */
export async function request<T>(method: string, path: string, body?: unknown, options: RequestOptions = {}): Promise<T> {
  const authenticated = !!getToken();
  try {
    return await rest.request<T>(method, path, {
      ...(body instanceof FormData ? { form: body } : { body }),
      headers: { ...options.headers, Accept: 'application/json' },
      signal: options.signal,
      maxRetries: options.noRetry ? 0 : undefined,
      offlineRetries: options.offlineRetries,
      onWait: options.onRetry && ((waitMs, reason) => options.onRetry?.(waitMs, reason === 'offline' ? 'offline' : 'rate-limited')),
    });
  } catch (err) {
    if (err instanceof NetworkError) throw new ApiError(0, t('errors.unreachable'), err.request, undefined);
    if (!(err instanceof ParleyApiError)) throw err;
    if (err.status === 401 && authenticated && !path.startsWith('/auth/')) unauthorizedHandler?.();
    throw new ApiError(err.status, errorMessage(err.status, err.body), err.request, err.body);
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
