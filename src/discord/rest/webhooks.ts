/**
 * Discord's webhook routes. Executing (`POST /webhooks/{id}/{token}`) is the native
 * execution (the Discord dialect, its rate limit, files and idempotency) with Discord's
 * answer: 204 unless `wait=true` or files were sent, then the message. A webhook's messages are read, edited
 * and deleted through the native webhook actions. The token alone may not rename or
 * delete the webhook (that is the owner's: docs/api.md#webhooks-management-server-owner-only): 403, code 50013.
 *
 * Discord shares these paths with interaction follow-ups (`/webhooks/{applicationId}/
 * {interactionToken}`): a path whose id is no webhook's, and every `messages/@original`,
 * goes to interaction-webhooks.ts.
 *
 * With a bot's or person's credentials, the webhooks of a channel or guild and a webhook
 * by id are managed as natively: people who own the server (bots are refused, 20001).
 */
import type { Static } from 'typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { channels } from '../../domain/channels.js';
import { executeWebhook } from '../../domain/webhook-execution.js';
import { webhookView, webhooks } from '../../domain/webhooks.js';
import { badRequest, forbidden } from '../../errors.js';
import { retryIdentityOf } from '../../http/idempotency.js';
import { authenticate } from '../../http/plugins/auth.js';
import { RULES, enforce } from '../../http/plugins/rate-limit.js';
import type { RouteDeps } from '../../http/routes/deps.js';
import { discordDialectBody } from '../../http/routes/webhook-execute.js';
import { editFromDiscord } from '../bodies.js';
import { discordMessage, discordWebhook } from '../objects.js';
import { DiscordCreateWebhookBody, DiscordUpdateWebhookBody, withBody } from '../schemas.js';
import { hidden, queryBool, queryString } from './common.js';
import { interactionWebhooks } from './interaction-webhooks.js';

type HookReq = FastifyRequest<{ Params: { webhookId: string; token: string } }>;
type HookMessageReq = FastifyRequest<{ Params: { webhookId: string; token: string; messageId: string } }>;

/** Discord's webhook management body (schema-checked): `name`, `channel_id`; `avatar` is ignored (Parley's avatars are URLs). */
function webhookPatch(body: Static<typeof DiscordUpdateWebhookBody>): { name?: string; channelId?: string } {
  return {
    ...(body.name !== undefined ? { name: body.name } : {}),
    ...(body.channel_id !== undefined ? { channelId: body.channel_id } : {}),
  };
}

export function discordWebhookRoutes(api: FastifyInstance, deps: RouteDeps): void {
  const { ctx, limiter } = deps;
  const view = () => ({ publicUrl: ctx.publicUrl });

  /** The webhook a URL names, under its execution limit; 10015 for a wrong token, as for an unknown id. */
  async function admit(params: { webhookId: string; token: string }, reply: FastifyReply) {
    const hook = await webhooks.authenticate(ctx, params.webhookId, params.token);
    await enforce(limiter, RULES.webhook, hook.id, reply);
    return hook;
  }

  /** Whether a path is an interaction's rather than a webhook's. */
  const forInteraction = async (params: { webhookId: string; messageId?: string }) =>
    params.messageId === '@original' || !(await webhooks.exists(ctx, params.webhookId));

  const call = (req: FastifyRequest, reply: FastifyReply, p: { webhookId: string; token: string }) => ({
    deps,
    request: req,
    reply,
    applicationId: p.webhookId,
    token: p.token,
  });

  api.post('/webhooks/:webhookId/:token', hidden, async (req: HookReq, reply) => {
    const wait = queryBool((req.query as Record<string, unknown>).wait);
    if (await forInteraction(req.params)) return interactionWebhooks.execute({ ...call(req, reply, req.params), wait });
    const hook = await admit(req.params, reply);
    const body = discordDialectBody(req, reply, deps, hook.id);
    // Discord's `thread_id`: a thread of the webhook's channel (docs/webhooks.md#threads).
    const threadId = queryString((req.query as Record<string, unknown>).thread_id);
    const { message } = await executeWebhook(
      ctx,
      hook,
      { dialect: 'discord', body, ...(threadId !== undefined ? { threadId } : {}) },
      retryIdentityOf(req),
    );
    // Discord answers 204 unless the caller waits for the message, or sent files: then it
    // answers the message whatever `wait` says (docs/discord.md, "Webhooks").
    if (!wait && !(req.isMultipart() && message.attachments.length > 0)) return reply.status(204).send();
    return discordMessage(message, view());
  });

  api.get('/webhooks/:webhookId/:token', hidden, async (req: HookReq, reply) => {
    if (await forInteraction(req.params)) return interactionWebhooks.get(call(req, reply, req.params));
    // Without its token, unlike Discord: a secret is shown once, when created (as the native GET).
    const hook = await webhooks.authenticate(ctx, req.params.webhookId, req.params.token);
    return discordWebhook(webhookView(hook));
  });

  // The token proves the URL, not ownership: renaming, re-pointing and deleting stay the owner's (docs/api.md#webhooks-management-server-owner-only).
  for (const method of ['PATCH', 'DELETE'] as const) {
    api.route({
      method,
      url: '/webhooks/:webhookId/:token',
      ...hidden,
      handler: async (req: HookReq) => {
        await webhooks.authenticate(ctx, req.params.webhookId, req.params.token);
        throw forbidden('owner_only', 'only the server owner can change or delete a webhook, in the server settings');
      },
    });
  }

  api.get('/webhooks/:webhookId/:token/messages/:messageId', hidden, async (req: HookMessageReq, reply) => {
    if (await forInteraction(req.params))
      return interactionWebhooks.getMessage({ ...call(req, reply, req.params), messageId: req.params.messageId });
    const hook = await webhooks.authenticate(ctx, req.params.webhookId, req.params.token);
    return discordMessage(await webhooks.getMessage(ctx, hook, req.params.messageId), view());
  });

  api.patch('/webhooks/:webhookId/:token/messages/:messageId', hidden, async (req: HookMessageReq, reply) => {
    if (await forInteraction(req.params))
      return interactionWebhooks.editMessage({ ...call(req, reply, req.params), messageId: req.params.messageId });
    const hook = await admit(req.params, reply);
    if (req.isMultipart()) throw badRequest('editing with files is not supported: send JSON');
    const { content, embeds } = editFromDiscord(req.body);
    const change = { ...(content !== undefined ? { content } : {}), ...(embeds !== undefined ? { embeds } : {}) };
    return discordMessage(await webhooks.editMessage(ctx, hook, req.params.messageId, change), view());
  });

  api.delete('/webhooks/:webhookId/:token/messages/:messageId', hidden, async (req: HookMessageReq, reply) => {
    if (await forInteraction(req.params))
      return interactionWebhooks.deleteMessage({ ...call(req, reply, req.params), messageId: req.params.messageId });
    const hook = await admit(req.params, reply);
    await webhooks.deleteMessage(ctx, hook, req.params.messageId);
    return reply.status(204).send();
  });

  // ---------------------------------------------------------------- management with credentials (owner only)

  type ChannelReq = FastifyRequest<{ Params: { channelId: string } }>;
  type GuildReq = FastifyRequest<{ Params: { guildId: string } }>;
  type IdReq = FastifyRequest<{ Params: { webhookId: string } }>;
  const owner = (req: FastifyRequest) => authenticate(ctx, req, 'user');

  api.post('/channels/:channelId/webhooks', withBody(DiscordCreateWebhookBody), async (req: ChannelReq, reply) => {
    const caller = await owner(req);
    await enforce(limiter, RULES.manage, caller.id, reply);
    const body = req.body as Static<typeof DiscordCreateWebhookBody>;
    const channel = await channels.get(ctx, caller, req.params.channelId);
    if (!('serverId' in channel)) throw badRequest('webhooks post into a server channel');
    const created = await webhooks.create(ctx, caller, channel.serverId, { name: body.name, channelId: channel.id });
    return discordWebhook(created, { token: created.token, creator: caller, publicUrl: ctx.publicUrl });
  });

  api.get('/channels/:channelId/webhooks', hidden, async (req: ChannelReq) => {
    const caller = await owner(req);
    const channel = await channels.get(ctx, caller, req.params.channelId);
    if (!('serverId' in channel)) return [];
    const list = await webhooks.list(ctx, caller, channel.serverId);
    return list.filter((w) => w.channelId === channel.id).map((w) => discordWebhook(w));
  });

  api.get('/guilds/:guildId/webhooks', hidden, async (req: GuildReq) => {
    const caller = await owner(req);
    return (await webhooks.list(ctx, caller, req.params.guildId)).map((w) => discordWebhook(w));
  });

  api.get('/webhooks/:webhookId', hidden, async (req: IdReq) => {
    const caller = await owner(req);
    return discordWebhook(await webhooks.get(ctx, caller, req.params.webhookId));
  });

  api.patch('/webhooks/:webhookId', withBody(DiscordUpdateWebhookBody), async (req: IdReq, reply) => {
    const caller = await owner(req);
    await enforce(limiter, RULES.manage, caller.id, reply);
    const patch = webhookPatch(req.body as Static<typeof DiscordUpdateWebhookBody>);
    return discordWebhook(await webhooks.update(ctx, caller, req.params.webhookId, patch));
  });

  api.delete('/webhooks/:webhookId', hidden, async (req: IdReq, reply) => {
    const caller = await owner(req);
    await enforce(limiter, RULES.manage, caller.id, reply);
    await webhooks.delete(ctx, caller, req.params.webhookId);
    return reply.status(204).send();
  });
}
