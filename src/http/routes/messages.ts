import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import { MAX_ATTACHMENTS, MAX_CONTENT, messages } from '../../domain/messages.js';
import { badRequest } from '../../errors.js';
import { idempotencyOf } from '../idempotency.js';
import { authenticate } from '../plugins/auth.js';
import { RULES, enforce } from '../plugins/rate-limit.js';
import type { RouteDeps } from './deps.js';

const ChannelParams = Type.Object({ channelId: Type.String() });
const MessageParams = Type.Object({ channelId: Type.String(), messageId: Type.String() });
const ReactionParams = Type.Object({ channelId: Type.String(), messageId: Type.String(), emoji: Type.String({ maxLength: 64 }) });
const AttachmentRef = Type.Object({
  url: Type.String({ minLength: 1, maxLength: 2048 }),
  filename: Type.String({ minLength: 1, maxLength: 255 }),
});
const SendBody = Type.Object({
  content: Type.Optional(Type.String({ maxLength: MAX_CONTENT })),
  attachments: Type.Optional(Type.Array(AttachmentRef, { maxItems: MAX_ATTACHMENTS })),
});
const EditBody = Type.Object({ content: Type.String({ maxLength: MAX_CONTENT }) });
const PageQuery = Type.Object({
  limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,3}$' })),
  before: Type.Optional(Type.String({ pattern: '^[0-9A-Za-z]{1,64}$' })),
  after: Type.Optional(Type.String({ pattern: '^[0-9A-Za-z]{1,64}$' })),
});

/** Messages, reactions and typing (seed 4.1 to 4.3, contract section 4). */
export function messageRoutes(app: FastifyInstance, { ctx, limiter }: RouteDeps): void {
  app.post<{ Params: Static<typeof ChannelParams>; Body: Static<typeof SendBody> }>(
    '/channels/:channelId/messages',
    { schema: { params: ChannelParams, body: SendBody } },
    async (req, reply) => {
      const caller = await authenticate(ctx, req, 'any');
      if (req.body.content === undefined && !req.body.attachments?.length) throw badRequest('content is required unless attachments are given');
      await enforce(limiter, RULES.messages, `${caller.id}:${req.params.channelId}`, reply);
      const idem = idempotencyOf(req, `user:${caller.id}`, { channelId: req.params.channelId, ...req.body });
      const { message } = await messages.send(ctx, caller, req.params.channelId, req.body, idem);
      return reply.status(201).send(message);
    },
  );

  app.get<{ Params: Static<typeof ChannelParams>; Querystring: Static<typeof PageQuery> }>(
    '/channels/:channelId/messages',
    { schema: { params: ChannelParams, querystring: PageQuery } },
    async (req) => {
      const caller = await authenticate(ctx, req, 'any');
      const limit = req.query.limit === undefined ? 50 : Number(req.query.limit);
      if (limit < 1 || limit > 100) throw badRequest('limit must be from 1 to 100');
      return messages.list(ctx, caller, req.params.channelId, { limit, before: req.query.before, after: req.query.after });
    },
  );

  app.get<{ Params: Static<typeof MessageParams> }>(
    '/channels/:channelId/messages/:messageId',
    { schema: { params: MessageParams } },
    async (req) => messages.get(ctx, await authenticate(ctx, req, 'any'), req.params.channelId, req.params.messageId),
  );

  app.patch<{ Params: Static<typeof MessageParams>; Body: Static<typeof EditBody> }>(
    '/channels/:channelId/messages/:messageId',
    { schema: { params: MessageParams, body: EditBody } },
    async (req, reply) => {
      const caller = await authenticate(ctx, req, 'any');
      await enforce(limiter, RULES.messages, `${caller.id}:${req.params.channelId}`, reply);
      return messages.edit(ctx, caller, req.params.channelId, req.params.messageId, req.body.content);
    },
  );

  app.delete<{ Params: Static<typeof MessageParams> }>(
    '/channels/:channelId/messages/:messageId',
    { schema: { params: MessageParams } },
    async (req, reply) => {
      await messages.delete(ctx, await authenticate(ctx, req, 'any'), req.params.channelId, req.params.messageId);
      return reply.status(204).send();
    },
  );

  app.put<{ Params: Static<typeof ReactionParams> }>(
    '/channels/:channelId/messages/:messageId/reactions/:emoji',
    { schema: { params: ReactionParams } },
    async (req, reply) => {
      const caller = await authenticate(ctx, req, 'any');
      await enforce(limiter, RULES.reactions, `${caller.id}:${req.params.channelId}`, reply);
      return messages.toggleReaction(ctx, caller, req.params.channelId, req.params.messageId, req.params.emoji);
    },
  );

  app.post<{ Params: Static<typeof ChannelParams> }>(
    '/channels/:channelId/typing',
    { schema: { params: ChannelParams } },
    async (req, reply) => {
      const caller = await authenticate(ctx, req, 'any');
      await enforce(limiter, RULES.typing, `${caller.id}:${req.params.channelId}`, reply);
      await messages.typing(ctx, caller, req.params.channelId);
      return reply.status(204).send();
    },
  );
}
