import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import { errorBody, errorStatus } from '../../errors.js';

/** One registered route: what `App.routes` lists for suites that enumerate the API. */
export interface RouteInfo {
  method: string;
  url: string;
}

/**
 * Records every route registered from now on (call it before the routes). Fastify's
 * automatic HEAD route for each GET route goes through the same hook, so it is listed.
 */
export function recordRoutes(app: FastifyInstance): RouteInfo[] {
  const routes: RouteInfo[] = [];
  app.addHook('onRoute', (route) => {
    if (refusals.has(route.handler)) return;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) routes.push({ method, url: route.url });
  });
  return routes;
}

/** Handlers of {@link refuseOtherMethods}: they hold a path, not a route of the API. */
const refusals = new WeakSet<object>();

/**
 * A static path beside a parametric one (`messages/bulk-delete` beside
 * `messages/:messageId`) would hand the methods it lacks to the parametric route, which
 * would answer about a message called "bulk-delete". These methods answer 405 instead,
 * naming the ones the path has; they are not listed as routes nor documented.
 */
export function refuseOtherMethods(app: FastifyInstance, url: string, allowed: readonly HTTPMethods[], refused: HTTPMethods[]): void {
  const handler = async (_request: FastifyRequest, reply: FastifyReply) =>
    reply
      .status(errorStatus('method_not_allowed'))
      .header('Allow', allowed.join(', '))
      .send(errorBody('method_not_allowed', 'this method is not allowed here'));
  refusals.add(handler);
  app.route({ method: refused, url, schema: { hide: true }, handler });
}

/** Answers a GET the API did not route (the web client), or returns false. */
export type Fallback = (request: FastifyRequest, reply: FastifyReply) => Promise<boolean>;

/**
 * What a request no route took gets: 405 with `Allow` when the path exists for other
 * methods, else the web client's answer if it has one, else 404. Neither body repeats
 * the URL: it may hold a secret (a webhook token), and answers must not echo it.
 */
export function registerNotFound(app: FastifyInstance, routes: readonly RouteInfo[], fallback: Fallback): void {
  let methods: string[] | undefined;

  const allowedMethods = (path: string): string[] => {
    // Routes are all registered by the first request, so the method set is fixed by then.
    methods ??= [...new Set(routes.map((r) => r.method))].sort();
    return methods.filter((method) => {
      try {
        const found = app.findRoute({ method: method as HTTPMethods, url: path });
        return found !== null && !refusals.has(found.handler);
      } catch {
        return false; // a path the router cannot decode exists for no method
      }
    });
  };

  app.setNotFoundHandler(async (request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allowed = allowedMethods(path);
    if (allowed.length > 0) {
      return reply
        .status(errorStatus('method_not_allowed'))
        .header('Allow', allowed.join(', '))
        .send(errorBody('method_not_allowed', `method ${request.method} is not allowed here`));
    }
    if (await fallback(request, reply)) return reply;
    // A browser and a bot get different answers at one URL; shared caches must keep both.
    if (request.method === 'GET' || request.method === 'HEAD') reply.header('Vary', 'Accept');
    return reply.status(errorStatus('unknown_route')).send(errorBody('unknown_route', 'no such route'));
  });
}
