import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { conversations } from '../../domain/conversations.js';
import { messages } from '../../domain/messages.js';
import { idempotencyOf } from '../idempotency.js';
import { authenticate } from '../plugins/auth.js';
import { refuseOtherMethods } from '../plugins/not-found.js';
import { RULES, enforce } from '../plugins/rate-limit.js';
import { SECURITY } from '../openapi.js';
import {
  BulkDeleteBody,
  ChannelParams,
  EditMessageBody,
  IdempotencyHeaders,
  Message,
  MessagePageQuery,
  MessageParams,
  Reaction,
  ReactionParams,
  SendMessageBody,
  ref,
} from '@parley/protocol';
import { NoContent, errors } from '../schemas/wire.js';
import type { RouteDeps } from './deps.js';

/** Messages, reactions and typing (docs/api.md#messages). */
export function messageRoutes(fastify: FastifyInstance, { ctx, limiter }: RouteDeps): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const doc = { tags: ['messages'], security: SECURITY.any };

  app.post(
    '/channels/:channelId/messages',
    {
      schema: {
        ...doc,
        summary: 'Send a message',
        params: ChannelParams,
        headers: IdempotencyHeaders,
        body: SendMessageBody,
        response: { 201: ref(Message), ...errors },
      },
    },
    async (req, reply) => {
      const caller = await authenticate(ctx, req, 'any');
      await enforce(limiter, RULES.messages, `${caller.id}:${req.params.channelId}`, reply);
      const idem = idempotencyOf(
        req,
        () => `user:${caller.id}`,
        () => ({ channelId: req.params.channelId, ...req.body }),
      );
      const { message } = await messages.send(ctx, caller, req.params.channelId, req.body, idem);
      return reply.status(201).send(message);
    },
  );

  app.get(
    '/channels/:channelId/messages',
    {
      schema: {
        ...doc,
        summary: 'A page of messages, newest first',
        params: ChannelParams,
        querystring: MessagePageQuery,
        response: { 200: Type.Array(ref(Message), { description: 'the messages, newest first' }), ...errors },
      },
    },
    async (req) => {
      const caller = await authenticate(ctx, req, 'any');
      const limit = req.query.limit === undefined ? undefined : Number(req.query.limit);
      return messages.list(ctx, caller, req.params.channelId, { limit, before: req.query.before, after: req.query.after });
    },
  );

  app.get(
    '/channels/:channelId/messages/:messageId',
    { schema: { ...doc, summary: 'One message', params: MessageParams, response: { 200: ref(Message), ...errors } } },
    async (req) => messages.get(ctx, await authenticate(ctx, req, 'any'), req.params.channelId, req.params.messageId),
  );

  app.patch(
    '/channels/:channelId/messages/:messageId',
    {
      schema: {
        ...doc,
        summary: "Edit the caller's own message",
        params: MessageParams,
        body: EditMessageBody,
        response: { 200: ref(Message), ...errors },
      },
    },
    async (req, reply) => {
      const caller = await authenticate(ctx, req, 'any');
      await enforce(limiter, RULES.messages, `${caller.id}:${req.params.channelId}`, reply);
      return messages.edit(ctx, caller, req.params.channelId, req.params.messageId, { content: req.body.content });
    },
  );

  app.delete(
    '/channels/:channelId/messages/:messageId',
    {
      schema: {
        ...doc,
        summary: 'Delete a message (its author or the server owner)',
        params: MessageParams,
        response: { 204: NoContent, ...errors },
      },
    },
    async (req, reply) => {
      await messages.delete(ctx, await authenticate(ctx, req, 'any'), req.params.channelId, req.params.messageId);
      return reply.status(204).send();
    },
  );

  app.put(
    '/channels/:channelId/messages/:messageId/reactions/:emoji',
    { schema: { ...doc, summary: "Toggle the caller's reaction", params: ReactionParams, response: { 200: ref(Reaction), ...errors } } },
    async (req, reply) => {
      const caller = await authenticate(ctx, req, 'any');
      await enforce(limiter, RULES.reactions, `${caller.id}:${req.params.channelId}`, reply);
      return messages.toggleReaction(ctx, caller, req.params.channelId, req.params.messageId, req.params.emoji);
    },
  );

  app.post(
    '/channels/:channelId/typing',
    { schema: { ...doc, summary: 'Show that the caller is typing', params: ChannelParams, response: { 204: NoContent, ...errors } } },
    async (req, reply) => {
      const caller = await authenticate(ctx, req, 'any');
      await enforce(limiter, RULES.typing, `${caller.id}:${req.params.channelId}`, reply);
      await messages.typing(ctx, caller, req.params.channelId);
      return reply.status(204).send();
    },
  );

  app.post(
    '/channels/:channelId/messages/:messageId/ack',
    {
      schema: {
        ...doc,
        summary: 'Mark the channel read up to this message',
        description: "204; the caller's other sessions get `READ_STATE_UPDATE` with the mention count after it",
        params: MessageParams,
        response: { 204: NoContent, ...errors },
      },
    },
    async (req, reply) => {
      const caller = await authenticate(ctx, req, 'any');
      await enforce(limiter, RULES.ack, caller.id, reply);
      await conversations.ack(ctx, caller, req.params.channelId, req.params.messageId);
      return reply.status(204).send();
    },
  );

  app.get(
    '/channels/:channelId/pins',
    {
      schema: {
        ...doc,
        summary: 'The pinned messages, most recently pinned first (50 at most)',
        params: ChannelParams,
        response: { 200: Type.Array(ref(Message)), ...errors },
      },
    },
    async (req) => conversations.pins(ctx, await authenticate(ctx, req, 'any'), req.params.channelId),
  );

  for (const [method, pinned] of [
    ['PUT', true],
    ['DELETE', false],
  ] as const) {
    app.route({
      method,
      url: '/channels/:channelId/pins/:messageId',
      schema: {
        ...doc,
        summary: pinned ? 'Pin a message (MANAGE_MESSAGES)' : 'Unpin a message (MANAGE_MESSAGES)',
        params: MessageParams,
        response: { 204: NoContent, ...errors },
      },
      handler: async (req, reply) => {
        const caller = await authenticate(ctx, req, 'any');
        await enforce(limiter, RULES.manage, caller.id, reply);
        await conversations.setPinned(ctx, caller, req.params.channelId, req.params.messageId, pinned);
        return reply.status(204).send();
      },
    });
  }

  app.post(
    '/channels/:channelId/messages/bulk-delete',
    {
      schema: {
        ...doc,
        summary: 'Delete 2 to 100 messages younger than 14 days (MANAGE_MESSAGES)',
        params: ChannelParams,
        body: BulkDeleteBody,
        response: { 204: NoContent, ...errors },
      },
    },
    async (req, reply) => {
      const caller = await authenticate(ctx, req, 'any');
      await enforce(limiter, RULES.manage, caller.id, reply);
      await conversations.bulkDelete(ctx, caller, req.params.channelId, req.body.messages);
      return reply.status(204).send();
    },
  );
  // GET, PATCH and DELETE of the path would otherwise reach /messages/:messageId.
  refuseOtherMethods(app, '/channels/:channelId/messages/bulk-delete', ['POST'], ['GET', 'PATCH', 'DELETE']);
}
