/**
 * The Discord compatibility layer (docs/discord.md): Discord's REST paths under `/api`
 * and `/api/v6` … `/api/v10`, translated onto the same domain actions as the native
 * routes. One Fastify plugin, registered once under `/api`: Fastify's `rewriteUrl` (app.ts,
 * `stripDiscordVersion`) drops the version segment before routing, so every version
 * reaches the same handlers and the router holds each route once.
 *
 * Inside the plugin, errors and unknown paths answer Discord's `{message, code}`
 * (errors.ts), the limiter's headers are completed as Discord's, and JSON is sent as
 * Discord sends it, `Content-Type: application/json` without a charset (`discordJsonType`). Authentication is the
 * native one (`authenticate`: `Bot <token>` for bots, `Bearer <token>` for people).
 */
import type { FastifyInstance, HTTPMethods } from 'fastify';
import { authenticate } from '../http/plugins/auth.js';
import { acceptMultipart } from '../http/plugins/multipart.js';
import type { RouteDeps } from '../http/routes/deps.js';
import { DISCORD, completeRateLimitHeaders, discordErrorHandler, discordJsonType } from './errors.js';
import { discordChannelRoutes } from './rest/channels.js';
import { discordThreadRoutes } from './rest/threads.js';
import { hidden } from './rest/common.js';
import { discordGuildRoutes } from './rest/guilds.js';
import { discordInteractionRoutes } from './rest/commands-and-callbacks.js';
import { discordUserRoutes } from './rest/users.js';
import { discordWebhookRoutes } from './rest/webhooks.js';

/** The API versions served; all of them alike (Parley's objects do not differ between them). */
const DISCORD_API_VERSIONS = [6, 7, 8, 9, 10] as const;

/** Where the Discord layer lives. */
export const DISCORD_PREFIX = '/api';

/** The Discord gateway's WebSocket path (served by src/discord/gateway, beside the native `/gateway`). */
export const DISCORD_GATEWAY_PATH = '/api/gateway/ws';

const VERSIONED = new RegExp(`^/api/v(?:${DISCORD_API_VERSIONS.join('|')})(?=[/?]|$)`);

/** `/api/v10/channels/1` → `/api/channels/1`; every other URL unchanged (Fastify's `rewriteUrl`). */
export function stripDiscordVersion(url: string): string {
  return url.startsWith('/api/v') ? url.replace(VERSIONED, DISCORD_PREFIX) : url;
}

/** The gateway's URL as `GET /gateway` names it: the public URL with a WebSocket scheme. */
export function discordGatewayUrl(publicUrl: string): string {
  return `${publicUrl.replace(/^http/, 'ws')}${DISCORD_GATEWAY_PATH}`;
}

/** Registers the layer under `/api`. `deps` are the native routes' own. */
export async function registerDiscord(app: FastifyInstance, deps: RouteDeps): Promise<void> {
  await app.register(
    async (api) => {
      // Messages, webhooks and interaction answers may carry files.
      await acceptMultipart(api, deps.config);
      api.setErrorHandler(discordErrorHandler);
      api.addHook('onSend', completeRateLimitHeaders);
      api.addHook('onSend', discordJsonType);
      discordNotFound(api);
      gatewayRoutes(api, deps);
      discordUserRoutes(api, deps);
      discordGuildRoutes(api, deps);
      discordChannelRoutes(api, deps);
      discordThreadRoutes(api, deps);
      discordWebhookRoutes(api, deps);
      discordInteractionRoutes(api, deps);
    },
    { prefix: DISCORD_PREFIX },
  );
}

function gatewayRoutes(api: FastifyInstance, { ctx }: RouteDeps): void {
  const info = () => ({
    url: discordGatewayUrl(ctx.publicUrl),
    shards: 1,
    session_start_limit: { total: 1000, remaining: 1000, reset_after: 86_400_000, max_concurrency: 1 },
  });
  // Discord answers /gateway to anyone and /gateway/bot to bots; both name the same socket.
  api.get('/gateway', hidden, async () => info());
  api.get('/gateway/bot', hidden, async (req) => {
    await authenticate(ctx, req, 'any');
    return info();
  });
  // A bot's invite link as discord.js's generateInvite() and discord-api-types build it
  // (`<api base>/oauth2/authorize?…`): the web client's page has it (docs/discord.md,
  // "Adding a bot"). Only this path, with the query as it came.
  api.get('/oauth2/authorize', hidden, async (req, reply) => {
    const q = req.url.indexOf('?');
    return reply.redirect(`/oauth2/authorize${q === -1 ? '' : req.url.slice(q)}`, 302);
  });
}

const METHODS: HTTPMethods[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * A path under `/api` no route takes: 405 with `Allow` when it exists for other methods
 * (as the native API answers), else Discord's `404: Not Found` (code 0). Neither echoes
 * the URL, which may hold a webhook token.
 */
function discordNotFound(api: FastifyInstance): void {
  api.setNotFoundHandler(async (request, reply) => {
    const path = stripDiscordVersion(request.url).split('?')[0] ?? '/';
    const allowed = METHODS.filter((method) => {
      try {
        return method !== request.method && api.findRoute({ method, url: path }) !== null;
      } catch {
        return false;
      }
    });
    if (allowed.length > 0) {
      if (allowed.includes('GET')) allowed.push('HEAD');
      return reply
        .status(405)
        .header('Allow', allowed.sort().join(', '))
        .send({ message: '405: Method Not Allowed', code: DISCORD.GENERAL });
    }
    return reply.status(404).send({ message: '404: Not Found', code: DISCORD.GENERAL });
  });
}
