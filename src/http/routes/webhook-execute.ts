import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import { checkContent } from '../../domain/messages.js';
import { webhookView, webhooks } from '../../domain/webhooks.js';
import { idempotencyOf } from '../idempotency.js';
import { RULES, enforce } from '../plugins/rate-limit.js';
import type { RouteDeps } from './deps.js';

const ExecParams = Type.Object({ webhookId: Type.String({ maxLength: 64 }), token: Type.String({ maxLength: 256 }) });
const SeedBody = Type.Object({ content: Type.String() });

/** Executing a webhook (seed 4.5): the token in the URL is the only credential. */
export function webhookExecuteRoutes(app: FastifyInstance, { ctx, limiter }: RouteDeps): void {
  app.post<{ Params: Static<typeof ExecParams>; Body: Static<typeof SeedBody> }>(
    '/webhooks/:webhookId/:token',
    { schema: { params: ExecParams, body: SeedBody } },
    async (req, reply) => {
      const hook = await webhooks.authenticate(ctx, req.params.webhookId, req.params.token);
      await enforce(limiter, RULES.webhook, hook.id, reply);
      checkContent(req.body.content, false);
      const idem = idempotencyOf(req, `webhook:${hook.id}`, req.body);
      const { message } = await webhooks.execute(ctx, hook, { content: req.body.content, attachments: [], embeds: [] }, idem);
      return reply.status(200).send(message);
    },
  );

  app.get<{ Params: Static<typeof ExecParams> }>('/webhooks/:webhookId/:token', { schema: { params: ExecParams } }, async (req) =>
    webhookView(await webhooks.authenticate(ctx, req.params.webhookId, req.params.token)),
  );
}
