/**
 * The routes of a running app, read from the app itself so that a route added later is
 * fuzzed without anyone touching this suite.
 */
import type { App } from '../../src/app.js';

export interface Route {
  method: string;
  /** Fastify's pattern, e.g. `/channels/:channelId/messages`. */
  path: string;
  /** Parameter names in order of appearance. */
  params: string[];
  /** `METHOD path`, the key coverage is counted under. */
  key: string;
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'SEARCH', 'PROPFIND', 'TRACE']);

/** `:name`, `:name(regex)` and the wildcard `*`. */
export function paramsOf(path: string): string[] {
  const out: string[] = [];
  for (const m of path.matchAll(/:([A-Za-z0-9_$]+)(\([^)]*\))?|\*/g)) out.push(m[1] ?? '*');
  return out;
}

function route(method: string, path: string): Route {
  const m = method.toUpperCase();
  return { method: m, path, params: paramsOf(path), key: `${m} ${path}` };
}

/**
 * Parses `printRoutes({ commonPrefix: false })`: a tree whose lines are
 * `<indent>├── <segment> (METHODS)`, four columns per level, where a child's segment
 * continues its parent's path (`/upload` then `s/:id/:filename`).
 */
export function parsePrintedRoutes(printed: string): Route[] {
  const out: Route[] = [];
  const stack: string[] = [];
  for (const line of printed.split('\n')) {
    const m = /^(.*?)(?:├── |└── )(.*)$/u.exec(line);
    if (!m) continue;
    const depth = [...m[1]!].length / 4;
    const rest = m[2]!.trimEnd();
    const withMethods = /^(.*) \(([A-Z, ]+)\)$/.exec(rest);
    const segment = withMethods ? withMethods[1]! : rest;
    const full = (depth > 0 ? (stack[depth - 1] ?? '') : '') + segment;
    stack[depth] = full;
    stack.length = depth + 1;
    if (!withMethods) continue;
    for (const method of withMethods[2]!.split(',').map((s) => s.trim())) {
      if (METHODS.has(method)) out.push(route(method, full));
    }
  }
  return out;
}

/** Reads an optional `routes` list that the App may expose, whatever its exact shape. */
function exposedRoutes(app: App): Route[] {
  const list = (app as unknown as { routes?: unknown }).routes;
  if (!Array.isArray(list)) return [];
  const out: Route[] = [];
  for (const item of list) {
    if (typeof item === 'string') {
      const [method, path] = item.split(' ');
      if (method && path) out.push(route(method, path));
      continue;
    }
    if (!item || typeof item !== 'object') continue;
    const r = item as { method?: unknown; methods?: unknown; url?: unknown; path?: unknown };
    const path = typeof r.url === 'string' ? r.url : typeof r.path === 'string' ? r.path : undefined;
    const methods = [r.method, r.methods].flat().filter((m): m is string => typeof m === 'string');
    if (path) for (const m of methods) out.push(route(m, path));
  }
  return out;
}

/** Every route of the app: the union of the printed tree and `app.routes` if present. */
export function discoverRoutes(app: App): Route[] {
  const all = [...parsePrintedRoutes(app.app.printRoutes({ commonPrefix: false })), ...exposedRoutes(app)];
  const byKey = new Map<string, Route>();
  for (const r of all) if (!byKey.has(r.key)) byKey.set(r.key, r);
  return [...byKey.values()].sort((a, b) => a.key.localeCompare(b.key));
}
