/**
 * Discord's `/applications/...` (application commands) and `/interactions/...` (callbacks)
 * routes. PLACEHOLDER: owned by the gateway and interactions work (branch
 * `discord-gateway`), which fills it in; the REST layer registers it in plugin.ts.
 */
import type { FastifyInstance } from 'fastify';
import type { RouteDeps } from '../../http/routes/deps.js';

export function discordInteractionRoutes(_api: FastifyInstance, _deps: RouteDeps): void {
  // Filled in by the discord-gateway branch.
}
