/**
 * The oracle: what every answer to a bad request must look like (docs/api.md#errors
 * and the error catalog of src/errors.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ERROR_CATALOG, type ErrorCode } from '../../src/errors.js';
import type { FuzzRequest, Outcome } from './transport.js';

export interface Violation {
  /** A short, stable name of the rule broken: groups the report. */
  rule: string;
  detail: string;
}

export interface OracleContext {
  /** URL paths of the files the web client is built into (served to anyone). */
  webFiles: Set<string>;
  /** Secrets of the world: an answer may only contain one the request itself carried. */
  secrets: string[];
  /** Directories whose names must never appear in an answer. */
  privatePaths: string[];
}

/** Every file under `dir` as a URL path (`/assets/x.js`). */
export function webFilesOf(dir: string): Set<string> {
  const out = new Set<string>();
  const walk = (d: string, prefix: string) => {
    if (!fs.existsSync(d)) return;
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(path.join(d, e.name), `${prefix}/${e.name}`);
      else out.add(`${prefix}/${e.name}`);
    }
  };
  walk(dir, '');
  return out;
}

export function privatePaths(dataDir: string): string[] {
  return [process.cwd(), dataDir, os.tmpdir() + path.sep].filter((p) => p.length > 4);
}

/** Stack frames, source locations, error class names, driver and framework internals. */
const LEAKS: Array<[RegExp, string]> = [
  [/\n\s+at [^\n]+/, 'stack frame'],
  [/ {4}at /, 'stack frame'],
  [/\bat [\w.<>]+ \((?:file:|node:|\/)/, 'stack frame'],
  [/\/src\/|\bsrc\/\w+\.ts\b/, 'source path'],
  [/node_modules/, 'node_modules path'],
  [/\.(?:ts|js|mjs|cjs):\d+/, 'source location'],
  [/node:internal/, 'node internals'],
  [/SqliteError|SQLITE_[A-Z]|better-sqlite3|Kysely|kysely|\bpg_\w|[Pp]ostgre(?:SQL|s) error|\bselect .+ from \w/, 'database internals'],
  [/\b(?:TypeError|ReferenceError|RangeError|SyntaxError|EvalError|AggregateError|InternalError)\b/, 'error class name'],
  [/Maximum call stack|Cannot read propert|is not a function|is not defined|undefined is not|Cannot convert/, 'runtime error text'],
  [/\bE(?:CONNRESET|PIPE|NOENT|ACCES|ISDIR|MFILE|CONNREFUSED)\b/, 'system error code'],
  [/FST_[A-Z_]+|ERR_[A-Z_]{4,}/, 'internal error code'],
  [/Unexpected token|in JSON at position|Unexpected end of JSON|JSON\.parse/, 'parser internals'],
  [/scrypt\$|password_?hash|token_?hash/i, 'credential internals'],
];

const isJsonType = (ct: string | undefined) => /^application\/(?:[\w.+-]+\+)?json\b/i.test(ct ?? '');

/** The request's path without query, and without the scheme and host of an absolute-form target. */
function pathOf(req: FuzzRequest): string | undefined {
  if (typeof req.path !== 'string') return undefined;
  // The router ends the path at `?` or `#` (a raw request may carry a fragment).
  return req.path.split(/[?#]/)[0]!.replace(/^https?:\/\/[^/]*/i, '');
}

function decodedPath(req: FuzzRequest): string | undefined {
  try {
    const p = pathOf(req);
    return p === undefined ? undefined : decodeURIComponent(p);
  } catch {
    return undefined;
  }
}

function header(req: FuzzRequest, name: string): string | undefined {
  const h = req.headers.find(([n]) => n.toLowerCase() === name);
  return h === undefined ? undefined : typeof h[1] === 'string' ? h[1] : h[1].toString('latin1');
}

/** The API docs page (Swagger UI: HTML, scripts, styles, the document as YAML); not API answers. */
const isDocsPage = (req: FuzzRequest) => /^\/docs(\/|$)/.test(decodedPath(req) ?? '');

/**
 * A bot's invite link on the Discord API's base (`/api[/vN]/oauth2/authorize?…`, as
 * discord.js builds it) is sent to the web client's page with its query, unchanged.
 */
function isInviteRedirect(req: FuzzRequest, location: string | undefined): boolean {
  // A fragment never reaches the route (and so is not carried over).
  let target = (typeof req.path === 'string' ? req.path : req.path.toString('latin1')).split('#')[0] ?? '';
  // An absolute-form request line (`GET http://host/api/...`) names the same route.
  const absolute = /^https?:\/\/[^/?]*/i.exec(target);
  if (absolute) target = target.slice(absolute[0].length) || '/';
  const q = target.indexOf('?');
  const path = q === -1 ? target : target.slice(0, q);
  return /^\/api(\/v\d+)?\/oauth2\/authorize$/.test(path) && location === `/oauth2/authorize${q === -1 ? '' : target.slice(q)}`;
}

/**
 * A 2xx that is not JSON is allowed only where the contract says so: 204, the Slack
 * route's `ok`, uploaded files, the web client's files, its HTML to a browser, and the
 * docs page.
 */
function nonJsonSuccessAllowed(req: FuzzRequest, status: number, contentType: string, text: string, ctx: OracleContext): boolean {
  if (status === 101) return true;
  if (text.length === 0) return true;
  if (req.method === 'POST' && req.target.endsWith('/slack') && text === 'ok' && /^text\/plain/.test(contentType)) return true;
  if (req.method === 'GET' || req.method === 'HEAD') {
    // Files are found by id, secret and name (docs/security.md#files-are-for-those-who-may-see-them).
    if (/^\/uploads\/[^/]+\/[^/]+/.test(pathOf(req) ?? '')) return true;
    const p = decodedPath(req);
    if (p !== undefined && ctx.webFiles.has(p)) return true;
    if (isDocsPage(req)) return true;
    // A browser navigation (any Accept naming text/html) may get the web client.
    if (/^text\/html/.test(contentType) && /text\/html/i.test(header(req, 'accept') ?? '')) return true;
  }
  return false;
}

/** What is wrong with the answer `out` to `req` (empty when nothing is). */
export function check(req: FuzzRequest, out: Outcome, ctx: OracleContext): Violation[] {
  if (!out.ok) return [{ rule: out.error.includes('timeout') ? 'no answer (timeout)' : 'no answer', detail: out.error }];
  const v: Violation[] = [];
  const { status, headers, body } = out.res;
  const contentType = headers['content-type'] ?? '';
  const text = body.toString('utf8');
  const isFile = (req.method === 'GET' || req.method === 'HEAD') && status >= 200 && status < 300 && !isJsonType(contentType);

  if (status === 0) return [{ rule: 'unparseable answer', detail: text.slice(0, 200) }];
  if (status >= 500) v.push({ rule: `${status}`, detail: text.slice(0, 300) });

  if (status >= 400) {
    if (req.method === 'HEAD') {
      if (!isJsonType(contentType)) v.push({ rule: `${status} not JSON`, detail: `HEAD answered with content-type "${contentType}"` });
    } else if (!isJsonType(contentType)) {
      v.push({ rule: `${status} not JSON`, detail: `content-type "${contentType}", body ${JSON.stringify(text.slice(0, 200))}` });
    } else {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        v.push({ rule: `${status} body is not JSON`, detail: JSON.stringify(text.slice(0, 200)) });
      }
      // Under /api the Discord layer answers Discord's `{message, code}` (a numeric code; a
      // 429 `retry_after`): test/discord/ checks the codes themselves.
      const discord =
        /^\/api(?:\/|$)/.test(pathOf(req) ?? '') &&
        typeof (parsed as { message?: unknown } | null | undefined)?.message === 'string' &&
        typeof (parsed as { code?: unknown }).code === 'number';
      if (discord) {
        if (status === 429 && typeof (parsed as { retry_after?: unknown }).retry_after !== 'number')
          v.push({ rule: '429 without retry_after', detail: text.slice(0, 200) });
      } else if (
        parsed !== undefined &&
        (parsed === null || typeof parsed !== 'object' || typeof (parsed as { error?: unknown }).error !== 'string')
      ) {
        v.push({ rule: `${status} without a string error`, detail: text.slice(0, 200) });
      }
      // Every error names its cause with a catalog code, and the catalog gives that code this status.
      const code = (parsed as { code?: unknown } | null | undefined)?.code;
      if (discord) {
        // checked above
      } else if (parsed !== undefined && typeof code !== 'string') {
        v.push({ rule: `${status} without a string code`, detail: text.slice(0, 200) });
      } else if (typeof code === 'string' && !Object.hasOwn(ERROR_CATALOG, code)) {
        v.push({ rule: `${status} with a code outside the catalog`, detail: code });
      } else if (typeof code === 'string' && ERROR_CATALOG[code as ErrorCode].status !== status) {
        v.push({ rule: `${status} with code ${code} of status ${ERROR_CATALOG[code as ErrorCode].status}`, detail: text.slice(0, 200) });
      }
      if (!discord && status === 429 && typeof (parsed as { retryAfter?: unknown } | undefined)?.retryAfter !== 'number') {
        v.push({ rule: '429 without retryAfter', detail: text.slice(0, 200) });
      }
    }
    if (status === 429 && !/^\d+$/.test(headers['retry-after'] ?? ''))
      v.push({ rule: '429 without Retry-After', detail: JSON.stringify(headers) });
    if (status === 405 && !headers.allow) v.push({ rule: '405 without Allow', detail: JSON.stringify(headers) });
  } else if (status >= 300) {
    // No API route redirects but the bot invite link's (Swagger UI sends its static index.html to /docs/); 304 only
    // answers a conditional request.
    const conditional = header(req, 'if-none-match') !== undefined || header(req, 'if-modified-since') !== undefined;
    const docsRedirect = status === 302 && isDocsPage(req) && headers.location === '/docs/';
    const inviteRedirect = status === 302 && isInviteRedirect(req, headers.location);
    if (!(status === 304 && conditional) && !docsRedirect && !inviteRedirect)
      v.push({ rule: `unexpected ${status}`, detail: JSON.stringify(headers) });
  } else if (status < 200) {
    if (status !== 101) v.push({ rule: `unexpected ${status}`, detail: JSON.stringify(headers) });
  } else if (req.method !== 'HEAD') {
    if (isJsonType(contentType)) {
      // A body cut short by a reset (transport.ts) cannot be judged.
      if (!out.res.truncated)
        try {
          JSON.parse(text);
        } catch {
          v.push({ rule: `${status} JSON type with a body that is not JSON`, detail: JSON.stringify(text.slice(0, 200)) });
        }
    } else if (!nonJsonSuccessAllowed(req, status, contentType, text, ctx)) {
      v.push({
        rule: `${status} not JSON where the contract wants JSON`,
        detail: `content-type "${contentType}", body ${JSON.stringify(text.slice(0, 120))}`,
      });
    }
  }

  // Files and the web client's bundles are content, not messages from the server.
  if (!isFile) {
    for (const [re, what] of LEAKS) {
      const m = re.exec(text);
      if (m)
        v.push({
          rule: `leaks ${what}`,
          detail: `${JSON.stringify(m[0])} in ${JSON.stringify(text.slice(Math.max(0, m.index - 80), m.index + 80))}`,
        });
    }
    for (const p of ctx.privatePaths) {
      if (text.includes(p)) v.push({ rule: 'leaks a server path', detail: p });
    }
    const sent = Buffer.concat([
      typeof req.path === 'string' ? Buffer.from(req.path) : req.path,
      ...req.headers.map(([, val]) => (typeof val === 'string' ? Buffer.from(val) : val)),
      req.body ?? Buffer.alloc(0),
    ]).toString('latin1');
    // No success answer returns an existing secret (tokens are shown once, when made);
    // an error may at most quote what the request itself sent.
    for (const s of ctx.secrets) {
      if (!text.includes(s)) continue;
      if (status < 400) v.push({ rule: 'returns an existing secret', detail: `${s.slice(0, 6)}…` });
      else if (!sent.includes(s)) v.push({ rule: 'echoes a secret the request did not carry', detail: `${s.slice(0, 6)}…` });
    }
  }
  return v;
}
