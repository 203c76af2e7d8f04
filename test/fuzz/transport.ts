/**
 * Sends one fuzz request: over fetch (undici, keep-alive) when fetch can say it exactly,
 * else as raw bytes over a fresh TCP connection, for what fetch would refuse or
 * normalise (invalid UTF-8 or dot segments in the path, bad header bytes, odd methods,
 * a GET with a body, framing headers).
 */
import net from 'node:net';

export interface FuzzRequest {
  /** Which run and which request of it: with the seed, enough to regenerate it. */
  phase: string;
  index: number;
  /** The route aimed at (`METHOD /pattern`), or a label such as `unrouted`, `gateway`. */
  target: string;
  /**
   * The route the request certainly reaches (method and a plainly filled path), for the
   * coverage count; undefined when a mutation may have sent it elsewhere.
   */
  reaches?: string;
  method: string;
  /** The request target as sent (raw bytes when it holds non-ASCII). */
  path: string | Buffer;
  headers: Array<[string, string | Buffer]>;
  body?: Buffer;
  /** Send as raw bytes rather than through fetch. */
  raw: boolean;
  /** Raw only: the HTTP version token of the request line. */
  version?: string;
  /** Raw only: frame the body with chunked transfer encoding (valid unless `badChunks`). */
  chunked?: boolean;
  badChunks?: boolean;
  /** Raw only: a Content-Length that differs from the body's size (smaller). */
  contentLength?: number;
  /** Short labels of what was done to the request, for the report. */
  notes: string[];
}

export interface FuzzResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /**
   * The connection was reset before the whole body arrived: a server that answers without
   * reading a large request body closes the connection, and the reset drops what the
   * client had not read yet. The status and headers stand; the body is a prefix.
   */
  truncated?: boolean;
}

export type Outcome = { ok: true; res: FuzzResponse; ms: number } | { ok: false; error: string; ms: number };

const FETCH_FORBIDDEN_METHODS = new Set(['CONNECT', 'TRACE', 'TRACK']);
const FETCH_CONTROLLED_HEADERS = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'expect',
  'te',
  'trailer',
  'proxy-connection',
]);
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Whether fetch would send exactly these bytes (no normalisation, no refusal). */
export function fetchCanSend(req: FuzzRequest): boolean {
  if (req.version || req.chunked || req.contentLength !== undefined) return false;
  if (!TOKEN.test(req.method) || FETCH_FORBIDDEN_METHODS.has(req.method.toUpperCase())) return false;
  if (req.method !== req.method.toUpperCase()) return false;
  if ((req.method === 'GET' || req.method === 'HEAD') && req.body !== undefined) return false;
  if (typeof req.path !== 'string') return false;
  // Only printable ASCII that the URL parser keeps as it is: no backslash, no fragment,
  // no dot segments (literal or percent-encoded), and an absolute path.
  if (!/^\/[\x21-\x7e]*$/.test(req.path) || /[\\#]/.test(req.path)) return false;
  const pathOnly = req.path.split('?')[0]!;
  if (pathOnly.split('/').some((s) => /^(\.|%2e){1,2}$/i.test(s))) return false;
  // The URL parser re-encodes some characters in the path and query.
  if (/[<>"`{}|^]/.test(req.path)) return false;
  if (/%(?![0-9A-Fa-f]{2})/.test(req.path)) return false;
  const seen = new Set<string>();
  for (const [name, value] of req.headers) {
    const lower = name.toLowerCase();
    if (!TOKEN.test(name) || FETCH_CONTROLLED_HEADERS.has(lower) || seen.has(lower)) return false;
    seen.add(lower);
    if (typeof value !== 'string') return false;
    // fetch trims values and refuses CR, LF, NUL and anything beyond Latin-1.
    if (value !== value.trim() || /[\r\n\0]/.test(value) || /[^\x00-\xff]/.test(value)) return false;
  }
  return true;
}

async function viaFetch(base: string, req: FuzzRequest, timeoutMs: number): Promise<FuzzResponse> {
  const headers = new Headers();
  for (const [name, value] of req.headers) headers.append(name, value as string);
  const r = await fetch(base + (req.path as string), {
    method: req.method,
    headers,
    body: req.body && req.body.length > 0 ? req.body : req.body ? '' : undefined,
    redirect: 'manual',
    signal: AbortSignal.timeout(timeoutMs),
  });
  const body = Buffer.from(await r.arrayBuffer());
  const out: Record<string, string> = {};
  r.headers.forEach((v, k) => {
    out[k] = v;
  });
  return { status: r.status, headers: out, body };
}

/** The request's bytes as they go on the wire in raw mode. */
export function rawBytes(req: FuzzRequest, hostHeader: string): Buffer {
  const lines: Buffer[] = [];
  const crlf = Buffer.from('\r\n');
  const path = typeof req.path === 'string' ? Buffer.from(req.path, 'latin1') : req.path;
  lines.push(Buffer.concat([Buffer.from(`${req.method} `, 'latin1'), path, Buffer.from(` ${req.version ?? 'HTTP/1.1'}`)]));
  const names = new Set(req.headers.map(([n]) => n.toLowerCase()));
  if (!names.has('host') && !req.notes.includes('raw:no-host')) lines.push(Buffer.from(`Host: ${hostHeader}`));
  for (const [name, value] of req.headers) {
    lines.push(Buffer.concat([Buffer.from(`${name}: `, 'latin1'), typeof value === 'string' ? Buffer.from(value, 'utf8') : value]));
  }
  // One request per connection: the answer ends with the connection, whatever its framing.
  if (!names.has('connection')) lines.push(Buffer.from('Connection: close'));
  let body = req.body ?? Buffer.alloc(0);
  if (req.chunked) {
    lines.push(Buffer.from('Transfer-Encoding: chunked'));
    if (req.badChunks) {
      body = Buffer.concat([Buffer.from(`zz\r\n`), body, Buffer.from('\r\n0\r\n\r\n')]);
    } else {
      const parts: Buffer[] = [];
      for (let i = 0; i < body.length; i += 1000) {
        const chunk = body.subarray(i, i + 1000);
        parts.push(Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, crlf);
      }
      parts.push(Buffer.from('0\r\n\r\n'));
      body = Buffer.concat(parts);
    }
  } else if (req.contentLength !== undefined) {
    lines.push(Buffer.from(`Content-Length: ${req.contentLength}`));
  } else if (!names.has('content-length') && (req.body !== undefined || !['GET', 'HEAD'].includes(req.method))) {
    lines.push(Buffer.from(`Content-Length: ${body.length}`));
  }
  const head: Buffer[] = [];
  for (const l of lines) head.push(l, crlf);
  head.push(crlf);
  return Buffer.concat([...head, body]);
}

interface Parsed {
  res: FuzzResponse;
  /** Everything needed has arrived. */
  complete: boolean;
}

function decodeChunked(data: Buffer): { body: Buffer; complete: boolean } {
  const parts: Buffer[] = [];
  let pos = 0;
  for (;;) {
    const eol = data.indexOf('\r\n', pos);
    if (eol < 0) return { body: Buffer.concat(parts), complete: false };
    const size = Number.parseInt(data.subarray(pos, eol).toString('latin1').split(';')[0]!, 16);
    if (!Number.isFinite(size)) return { body: Buffer.concat(parts), complete: true };
    if (size === 0) return { body: Buffer.concat(parts), complete: true };
    if (data.length < eol + 2 + size) return { body: Buffer.concat(parts), complete: false };
    parts.push(data.subarray(eol + 2, eol + 2 + size));
    pos = eol + 2 + size + 2;
  }
}

/** Parses the first final response in `data` (skipping 100 Continue and friends). */
function parseResponse(data: Buffer, method: string): Parsed | undefined {
  let start = 0;
  for (;;) {
    const end = data.indexOf('\r\n\r\n', start);
    if (end < 0) return undefined;
    const head = data.subarray(start, end).toString('latin1').split('\r\n');
    const status = Number(/^HTTP\/\d(?:\.\d)? (\d{3})/.exec(head[0] ?? '')?.[1]);
    if (!Number.isFinite(status)) return { res: { status: 0, headers: {}, body: data }, complete: true };
    const headers: Record<string, string> = {};
    for (const line of head.slice(1)) {
      const i = line.indexOf(':');
      if (i > 0) {
        const k = line.slice(0, i).trim().toLowerCase();
        const v = line.slice(i + 1).trim();
        headers[k] = headers[k] === undefined ? v : `${headers[k]}, ${v}`;
      }
    }
    const rest = data.subarray(end + 4);
    if (status >= 100 && status < 200 && status !== 101) {
      start = end + 4;
      continue;
    }
    if (status === 101 || status === 204 || status === 304 || method === 'HEAD') {
      return { res: { status, headers, body: Buffer.alloc(0) }, complete: true };
    }
    if ((headers['transfer-encoding'] ?? '').toLowerCase().includes('chunked')) {
      const { body, complete } = decodeChunked(rest);
      return { res: { status, headers, body }, complete };
    }
    if (headers['content-length'] !== undefined) {
      const n = Number(headers['content-length']);
      return { res: { status, headers, body: rest.subarray(0, n) }, complete: rest.length >= n };
    }
    return { res: { status, headers, body: rest }, complete: false };
  }
}

function viaSocket(host: string, port: number, req: FuzzRequest, timeoutMs: number): Promise<FuzzResponse> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let done = false;
    const socket = net.connect({ host, port });
    const finish = (err?: string) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const parsed = parseResponse(Buffer.concat(chunks), req.method);
      if (parsed && (parsed.complete || err !== 'timeout')) resolve(parsed.complete ? parsed.res : { ...parsed.res, truncated: true });
      else reject(new Error(err ?? 'connection closed without a response'));
    };
    const timer = setTimeout(() => finish('timeout'), timeoutMs);
    socket.on('data', (d: Buffer) => {
      chunks.push(d);
      const parsed = parseResponse(Buffer.concat(chunks), req.method);
      if (parsed?.complete) finish();
    });
    // A server that answers early (413) may reset before it has read all we wrote; what
    // it answered still counts.
    socket.on('error', (e) => finish(`socket error: ${(e as NodeJS.ErrnoException).code ?? e.message}`));
    socket.on('close', () => finish('connection closed without a response'));
    socket.on('connect', () => socket.write(rawBytes(req, `${host}:${port}`)));
  });
}

/** Sends `req` to the server at `base` and returns what came back, or why nothing did. */
export async function send(base: string, req: FuzzRequest, timeoutMs = 8000): Promise<Outcome> {
  const t0 = performance.now();
  try {
    if (!req.raw) {
      try {
        return { ok: true, res: await viaFetch(base, req, timeoutMs), ms: performance.now() - t0 };
      } catch (err) {
        // fetch refusing its arguments (not a network failure): say it in bytes instead.
        if (!(err instanceof TypeError) || (err as { cause?: unknown }).cause !== undefined) throw err;
        req.raw = true;
        req.notes.push('fetch-refused');
      }
    }
    const u = new URL(base);
    return { ok: true, res: await viaSocket(u.hostname, Number(u.port), req, timeoutMs), ms: performance.now() - t0 };
  } catch (err) {
    const e = err as Error & { cause?: { code?: string; message?: string } };
    const cause = e.cause ? ` (${e.cause.code ?? e.cause.message})` : '';
    return { ok: false, error: `${e.name === 'TimeoutError' ? 'timeout' : e.message}${cause}`, ms: performance.now() - t0 };
  }
}

/** A compact, replayable description of a request, for failure reports. */
export function describe(req: FuzzRequest): Record<string, unknown> {
  const text = (b: Buffer | string, max: number) => {
    const buf = typeof b === 'string' ? Buffer.from(b, 'latin1') : b;
    const utf8 = buf.toString('utf8');
    const clean = Buffer.from(utf8, 'utf8').equals(buf) && !/[\0-\x08\x0e-\x1f]/.test(utf8);
    if (clean) return buf.length > max ? `${utf8.slice(0, max)}… (${buf.length} bytes)` : utf8;
    return buf.length > max
      ? `base64:${buf.subarray(0, max).toString('base64')}… (${buf.length} bytes)`
      : `base64:${buf.toString('base64')}`;
  };
  return {
    request: `${req.phase}#${req.index}`,
    transport: req.raw ? 'raw' : 'fetch',
    method: req.method,
    path:
      typeof req.path === 'string'
        ? req.path.length > 300
          ? `${req.path.slice(0, 300)}… (${req.path.length} chars)`
          : req.path
        : text(req.path, 300),
    ...(req.version ? { version: req.version } : {}),
    headers: req.headers.map(([n, v]) => `${n}: ${text(v, 200)}`),
    ...(req.body !== undefined ? { body: text(req.body, 600) } : {}),
    ...(req.chunked ? { chunked: req.badChunks ? 'malformed' : true } : {}),
    ...(req.contentLength !== undefined ? { contentLength: req.contentLength } : {}),
    notes: req.notes,
  };
}
