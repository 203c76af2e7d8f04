import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, FastifySchema } from 'fastify';
import { WIRE_SCHEMAS } from '@parley/protocol';

/** Who may call an operation, as OpenAPI security requirements (see `securitySchemes` below). */
export const SECURITY = {
  /** A person's session or a bot. */
  any: [{ bot: [] }, { bearer: [] }],
  /** A person's session only. */
  user: [{ bearer: [] }],
  /** No header: anyone, or the token in the URL (webhooks). */
  none: [],
} as const;

/**
 * The gateway is not a Fastify route (the WebSocket server takes the upgrade), so the
 * document describes it by hand.
 */
const GATEWAY = {
  get: {
    tags: ['gateway'],
    summary: 'Real-time events over a WebSocket',
    description:
      'Upgrade to a WebSocket (`ws(s)://<host>/gateway`), then identify with the same credential as the REST API. Protocol: docs/gateway.md.',
    security: [],
    responses: { '101': { description: 'Switching Protocols: the WebSocket is open' } },
  },
};

/**
 * A route's `config.swaggerTransform` that documents a request body Fastify does not
 * parse or validate (multipart, or a body the route's converter checks itself): one
 * schema per content type, in the document only.
 */
export function documentedBody(content: Record<string, unknown>) {
  const body = { content: Object.fromEntries(Object.entries(content).map(([type, schema]) => [type, { schema }])) };
  return ({ schema, url }: { schema: FastifySchema; url: string }) => ({ url, schema: { ...schema, body } });
}

/** Where the document and its rendering are served; the web client must leave these alone. */
export const OPENAPI_PATH = '/openapi.json';
export const DOCS_PREFIX = '/docs';

/**
 * Adds the wire schemas and @fastify/swagger; call before any route, so every route is
 * recorded and its responses can refer to the shared schemas. `publicUrl` is read when
 * the document is first generated (with PORT=0 it is settled only once listening).
 */
export async function registerOpenApi(app: FastifyInstance, publicUrl: () => string): Promise<void> {
  for (const schema of WIRE_SCHEMAS) app.addSchema(schema);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Parley API',
        version: '1',
        description:
          'The REST API of Parley. Errors are `{error, code}` with the status; the real-time gateway is a WebSocket at `/gateway` (see docs/api.md).',
      },
      components: {
        securitySchemes: {
          bot: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'a bot: `Authorization: Bot <token>`' },
          bearer: { type: 'http', scheme: 'bearer', description: "a person's session: `Authorization: Bearer <token>`" },
        },
      },
      tags: [
        { name: 'accounts', description: 'registration, sessions, the caller' },
        { name: 'instance', description: 'what this Parley allows, for visitors' },
        { name: 'bots', description: "a person's bots" },
        { name: 'servers', description: 'servers, channels, invites, members' },
        { name: 'messages', description: 'messages, reactions, typing' },
        { name: 'threads', description: 'threads: a channel with a parent (docs/threads.md)' },
        { name: 'direct messages', description: 'DMs, groups and blocks' },
        { name: 'uploads', description: 'files' },
        { name: 'webhooks', description: 'webhook management (server owner)' },
        { name: 'webhook execution', description: 'through the webhook URL; the token in it is the credential' },
        { name: 'gateway', description: 'real-time events' },
        { name: 'health', description: 'liveness, readiness and metrics' },
      ],
    },
    transformObject: (documents) => {
      if (!('openapiObject' in documents)) return documents.swaggerObject;
      const doc = documents.openapiObject;
      return { ...doc, servers: [{ url: publicUrl() }], paths: { ...doc.paths, '/gateway': GATEWAY } };
    },
    // Components are named by their $id (Message, Server, ...) instead of def-N.
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
  });
}

/**
 * Serves the generated document at /openapi.json and renders it at /docs. The docs page
 * gets its own CSP (swagger-ui's scripts and styles, nothing from elsewhere); the web
 * client's CSP is not applied to it.
 */
export async function registerDocs(app: FastifyInstance): Promise<void> {
  app.get(OPENAPI_PATH, { schema: { hide: true } }, async (_req, reply) => reply.type('application/json').send(app.swagger()));
  await app.register(swaggerUi, {
    routePrefix: DOCS_PREFIX,
    // validatorUrl null: the page never sends the document to swagger.io's validator.
    uiConfig: { docExpansion: 'list', deepLinking: true, validatorUrl: null },
    uiHooks: {
      // Swagger UI redirects its static index.html to the page, building the Location from
      // the request target, which in absolute form names any host. The page's own path instead.
      onRequest: (req, reply, done) => {
        if (req.routeOptions.url === `${DOCS_PREFIX}/static/index.html`) {
          void reply.redirect(`${DOCS_PREFIX}/`);
          return;
        }
        done();
      },
    },
    // The page reads the document from the service itself, never from a third party.
    staticCSP: [
      "default-src 'self'",
      "base-uri 'self'",
      "img-src 'self' data:",
      "object-src 'none'",
      // No inline script (swagger-ui's csp.json lists none); it does inject a <style>, as
      // the web client's React does, so inline styles are allowed (styles run no code).
      "script-src 'self'",
      "script-src-attr 'none'",
      "style-src 'self' 'unsafe-inline'",
      "frame-ancestors 'none'",
    ].join('; '),
  });
}
