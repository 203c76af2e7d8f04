import fs from 'node:fs';
import path from 'node:path';
import type { FastifyReply, FastifyRequest } from 'fastify';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.webmanifest': 'application/manifest+json',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

/**
 * First path segments that belong to the API (and its OpenAPI document and docs page);
 * never answered with the web client.
 */
const API_PREFIXES = new Set([
  'auth',
  'users',
  'bots',
  'servers',
  'channels',
  'invites',
  'webhooks',
  'api',
  'upload',
  'uploads',
  'gateway',
  'healthz',
  'readyz',
  'metrics',
  'openapi.json',
  'docs',
]);

/**
 * The page may connect to its own origin only: 'self' for the API, and the ws(s):// form
 * of PUBLIC_URL for the gateway (browsers before CSP Level 3 do not let 'self' match
 * WebSocket URLs).
 */
export function contentSecurityPolicy(publicUrl: string): string {
  const origin = new URL(publicUrl);
  const gateway = `${origin.protocol === 'https:' ? 'wss:' : 'ws:'}//${origin.host}`;
  return [
    "default-src 'self'",
    "img-src 'self' https: data: blob:",
    "style-src 'self' 'unsafe-inline'",
    `connect-src 'self' ${gateway}`,
    "object-src 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** The build's text files have `.br` and `.gz` twins (web/build/precompress.ts). */
const COMPRESSIBLE = new Set(['.html', '.js', '.css', '.svg', '.json', '.txt', '.webmanifest']);

/**
 * The encodings `Accept-Encoding` takes, by name: absent (or `q=0`) means refused. `*`
 * stands for any encoding not named. No header at all means identity only.
 */
function acceptedEncodings(header: string | undefined): (name: string) => boolean {
  const q = new Map<string, number>();
  for (const part of (header ?? '').split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const weight = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const value = weight ? Number(weight.slice(2)) : 1;
    q.set(name, Number.isFinite(value) ? value : 0);
  }
  return (name) => (q.get(name) ?? q.get('*') ?? 0) > 0;
}

/** A browser navigating to a page, as opposed to a bot or script calling the API. */
function wantsHtml(request: FastifyRequest): boolean {
  return /\btext\/html\b/i.test(request.headers.accept ?? '');
}

/**
 * Serves the built web client from `webDir`: its files to anyone, and index.html for
 * client-side routes to browser navigations only. Returns the not-found handler's
 * fallback, so anything else (a bot's unknown path) stays a JSON 404.
 */
export function webClient(webDir: string, publicUrl: () => string) {
  const root = path.resolve(webDir);
  const index = path.join(root, 'index.html');

  /**
   * Sends `file`, or its brotli or gzip twin when the client takes that encoding (brotli
   * first: about a fifth smaller than gzip on the bundle). Answers for a compressible file
   * vary by `Accept-Encoding`, whichever was sent, so caches keep them apart.
   */
  async function sendFile(request: FastifyRequest, reply: FastifyReply, file: string, cache: string) {
    const ext = path.extname(file);
    let body: Buffer | undefined;
    if (COMPRESSIBLE.has(ext)) {
      reply.header('Vary', reply.getHeader('Vary') ? `${reply.getHeader('Vary')}, Accept-Encoding` : 'Accept-Encoding');
      const accepts = acceptedEncodings(request.headers['accept-encoding']);
      for (const [encoding, suffix] of [
        ['br', '.br'],
        ['gzip', '.gz'],
      ] as const) {
        if (!accepts(encoding)) continue;
        body = await fs.promises.readFile(`${file}${suffix}`).catch(() => undefined);
        if (body) {
          reply.header('Content-Encoding', encoding);
          break;
        }
      }
    }
    body ??= await fs.promises.readFile(file);
    return (
      reply
        .header('Content-Type', TYPES[ext] ?? 'application/octet-stream')
        .header('Cache-Control', cache)
        .header('X-Content-Type-Options', 'nosniff')
        // Read per answer: with PORT=0 the public URL's port is settled only after listen.
        .header('Content-Security-Policy', contentSecurityPolicy(publicUrl()))
        .header('Referrer-Policy', 'no-referrer')
        .send(body)
    );
  }

  /** Answers a GET the API did not route, or returns false. */
  return async function serve(request: FastifyRequest, reply: FastifyReply): Promise<boolean> {
    if (request.method !== 'GET' && request.method !== 'HEAD') return false;
    let url: string;
    try {
      url = decodeURIComponent(request.url.split('?')[0] ?? '/');
    } catch {
      return false;
    }
    const first = url.split('/')[1] ?? '';
    if (API_PREFIXES.has(first)) return false;
    const file = path.resolve(root, `.${url}`);
    if (file.startsWith(root + path.sep) && fs.existsSync(file) && fs.statSync(file).isFile()) {
      const immutable = url.startsWith('/assets/');
      await sendFile(request, reply, file, immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
      return true;
    }
    if (!wantsHtml(request) || !fs.existsSync(index) || path.extname(url) !== '') return false;
    reply.header('Vary', 'Accept');
    await sendFile(request, reply, index, 'no-cache');
    return true;
  };
}
