import type { FastifyInstance } from 'fastify';
import type { RouteDeps } from '../../http/routes/deps.js';

export function discordGuildRoutes(_api: FastifyInstance, _deps: RouteDeps): void {}
