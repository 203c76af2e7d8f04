import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { SearchQuery, SearchResults, ref } from '@parley/protocol';
import { search } from '../../domain/search.js';
import { SECURITY } from '../openapi.js';
import { authenticate } from '../plugins/auth.js';
import { RULES, enforce } from '../plugins/rate-limit.js';
import { errors } from '../schemas/wire.js';
import type { RouteDeps } from './deps.js';

/** Message search (docs/api.md#search). People and bots alike: it finds only what they could page to. */
export function searchRoutes(fastify: FastifyInstance, { ctx, limiter }: RouteDeps): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/search/messages',
    {
      schema: {
        tags: ['search'],
        security: SECURITY.any,
        summary: 'Search the messages the caller can read',
        description:
          'Full-text: every word of `q` must occur, as a word or the start of one; the filters narrow further. Newest first. `total` counts only messages the caller can read.',
        querystring: SearchQuery,
        response: { 200: ref(SearchResults), ...errors },
      },
    },
    async (req, reply) => {
      const caller = await authenticate(ctx, req, 'any');
      await enforce(limiter, RULES.search, caller.id, reply);
      return search.messages(ctx, caller, req.query);
    },
  );
}
