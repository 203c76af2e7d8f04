import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import { webhooks } from '../../domain/webhooks.js';
import { authenticate } from '../plugins/auth.js';
import { RULES, enforce } from '../plugins/rate-limit.js';
import type { RouteDeps } from './deps.js';

const ServerParams = Type.Object({ serverId: Type.String() });
const WebhookParams = Type.Object({ webhookId: Type.String() });
const Avatar = Type.Optional(Type.Union([Type.String({ maxLength: 2048 }), Type.Null()]));
const CreateBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 80 }),
  channelId: Type.String({ minLength: 1, maxLength: 64 }),
  avatar: Avatar,
});
const PatchBody = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 80 })),
  channelId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  avatar: Avatar,
});

/** Owner-only webhook management (contract section 5). Execution lives in webhook-execute.ts. */
export function webhookRoutes(app: FastifyInstance, { ctx, limiter }: RouteDeps): void {
  app.post<{ Params: Static<typeof ServerParams>; Body: Static<typeof CreateBody> }>(
    '/servers/:serverId/webhooks',
    { schema: { params: ServerParams, body: CreateBody } },
    async (req, reply) => {
      const caller = await authenticate(ctx, req, 'user');
      await enforce(limiter, RULES.manage, caller.id, reply);
      return reply.status(201).send(await webhooks.create(ctx, caller, req.params.serverId, req.body));
    },
  );

  app.get<{ Params: Static<typeof ServerParams> }>('/servers/:serverId/webhooks', { schema: { params: ServerParams } }, async (req) =>
    webhooks.list(ctx, await authenticate(ctx, req, 'user'), req.params.serverId),
  );

  app.patch<{ Params: Static<typeof WebhookParams>; Body: Static<typeof PatchBody> }>(
    '/webhooks/:webhookId',
    { schema: { params: WebhookParams, body: PatchBody } },
    async (req) => webhooks.update(ctx, await authenticate(ctx, req, 'user'), req.params.webhookId, req.body),
  );

  app.delete<{ Params: Static<typeof WebhookParams> }>('/webhooks/:webhookId', { schema: { params: WebhookParams } }, async (req, reply) => {
    await webhooks.delete(ctx, await authenticate(ctx, req, 'user'), req.params.webhookId);
    return reply.status(204).send();
  });
}
