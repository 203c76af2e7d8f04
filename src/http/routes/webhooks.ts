import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { webhooks } from '../../domain/webhooks.js';
import { authenticate } from '../plugins/auth.js';
import { RULES, enforce } from '../plugins/rate-limit.js';
import { SECURITY } from '../openapi.js';
import { CreateWebhookBody, CreatedWebhook, ServerParams, UpdateWebhookBody, Webhook, WebhookParams, ref } from '@parley/protocol';
import { NoContent, errors } from '../schemas/wire.js';
import type { RouteDeps } from './deps.js';

/** Owner-only webhook management (docs/api.md#webhooks-management-server-owner-only). Execution lives in webhook-execute.ts. */
export function webhookRoutes(fastify: FastifyInstance, { ctx, limiter }: RouteDeps): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const doc = { tags: ['webhooks'], security: SECURITY.user };

  app.post(
    '/servers/:serverId/webhooks',
    {
      schema: {
        ...doc,
        summary: 'Create a webhook (owner; its token and URL are shown only here)',
        params: ServerParams,
        body: CreateWebhookBody,
        response: { 201: ref(CreatedWebhook), ...errors },
      },
    },
    async (req, reply) => {
      const caller = await authenticate(ctx, req, 'user');
      await enforce(limiter, RULES.manage, caller.id, reply);
      return reply.status(201).send(await webhooks.create(ctx, caller, req.params.serverId, req.body));
    },
  );

  const list = {
    ...doc,
    summary: "A server's webhooks (owner)",
    params: ServerParams,
    response: { 200: Type.Array(ref(Webhook), { description: 'the webhooks, without tokens' }), ...errors },
  };
  app.get('/servers/:serverId/webhooks', { schema: list }, async (req) =>
    webhooks.list(ctx, await authenticate(ctx, req, 'user'), req.params.serverId),
  );

  app.patch(
    '/webhooks/:webhookId',
    {
      schema: {
        ...doc,
        summary: 'Change a webhook (owner)',
        params: WebhookParams,
        body: UpdateWebhookBody,
        response: { 200: ref(Webhook), ...errors },
      },
    },
    async (req) => webhooks.update(ctx, await authenticate(ctx, req, 'user'), req.params.webhookId, req.body),
  );

  const remove = {
    ...doc,
    summary: 'Delete a webhook (owner)',
    params: WebhookParams,
    response: { 204: NoContent, ...errors },
  };
  app.delete('/webhooks/:webhookId', { schema: remove }, async (req, reply) => {
    await webhooks.delete(ctx, await authenticate(ctx, req, 'user'), req.params.webhookId);
    return reply.status(204).send();
  });
}
