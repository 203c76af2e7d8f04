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

  async function sendFile(reply: FastifyReply, file: string, cache: string) {
    const body = await fs.promises.readFile(file);
    return (
      reply
        .header('Content-Type', TYPES[path.extname(file)] ?? 'application/octet-stream')
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
      await sendFile(reply, file, immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
      return true;
    }
    if (!wantsHtml(request) || !fs.existsSync(index) || path.extname(url) !== '') return false;
    reply.header('Vary', 'Accept');
    await sendFile(reply, index, 'no-cache');
    return true;
  };
}

export type WebClient = ReturnType<typeof webClient>;
