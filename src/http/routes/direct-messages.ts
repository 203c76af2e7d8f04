import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { BlockParams, Contact, ContactsQuery, DmChannel, OpenDmBody, PublicUser, ref } from '@parley/protocol';
import { directMessages } from '../../domain/direct-messages.js';
import { authenticate } from '../plugins/auth.js';
import { RULES, enforce } from '../plugins/rate-limit.js';
import { SECURITY } from '../openapi.js';
import { NoContent, errors } from '../schemas/wire.js';
import type { RouteDeps } from './deps.js';

/**
 * Direct messages and blocks (docs/api.md#direct-messages). A DM's messages, reactions, typing,
 * pins and uploads go through the channel routes like any channel's; leaving a group is
 * `DELETE /channels/{id}`.
 */
export function directMessageRoutes(fastify: FastifyInstance, { ctx, limiter }: RouteDeps): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const doc = { tags: ['direct messages'], security: SECURITY.any };

  app.get(
    '/users/@me/channels',
    { schema: { ...doc, summary: "The caller's DMs and groups, newest first", response: { 200: Type.Array(ref(DmChannel)), ...errors } } },
    async (req) => directMessages.list(ctx, (await authenticate(ctx, req, 'any')).id),
  );

  app.post(
    '/users/@me/channels',
    {
      schema: {
        ...doc,
        summary: 'Open a DM with one person (200 with the existing one) or a group with up to nine (201)',
        body: OpenDmBody,
        response: { 200: ref(DmChannel), 201: ref(DmChannel), ...errors },
      },
    },
    async (req, reply) => {
      const caller = await authenticate(ctx, req, 'any');
      await enforce(limiter, RULES.manage, caller.id, reply);
      const { channel, created } = await directMessages.open(ctx, caller, req.body);
      return reply.status(created ? 201 : 200).send(channel);
    },
  );

  app.get(
    '/users/@me/contacts',
    {
      schema: {
        ...doc,
        summary: 'The people the caller shares a server with (whom a DM could name), by id, with their presence',
        querystring: ContactsQuery,
        response: { 200: Type.Array(ref(Contact)), ...errors },
      },
    },
    async (req, reply) => {
      const caller = await authenticate(ctx, req, 'any');
      await enforce(limiter, RULES.contacts, caller.id, reply);
      return directMessages.contacts(ctx, caller, req.query);
    },
  );

  app.get(
    '/users/@me/blocks',
    { schema: { ...doc, summary: 'The people the caller blocked', response: { 200: Type.Array(ref(PublicUser)), ...errors } } },
    async (req) => directMessages.blocked(ctx, await authenticate(ctx, req, 'any')),
  );

  for (const [method, blocking] of [
    ['PUT', true],
    ['DELETE', false],
  ] as const) {
    app.route({
      method,
      url: '/users/@me/blocks/:userId',
      schema: {
        ...doc,
        summary: blocking ? 'Block someone: no DM can be opened or written between you' : 'Unblock someone (404 if not blocked)',
        params: BlockParams,
        response: { 204: NoContent, ...errors },
      },
      handler: async (req, reply) => {
        const caller = await authenticate(ctx, req, 'any');
        await enforce(limiter, RULES.manage, caller.id, reply);
        if (blocking) await directMessages.block(ctx, caller, req.params.userId);
        else await directMessages.unblock(ctx, caller, req.params.userId);
        return reply.status(204).send();
      },
    });
  }
}
