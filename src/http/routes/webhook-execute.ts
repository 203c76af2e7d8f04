import '@fastify/multipart';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { type BodyPart, type FlatBody, type PartStream, executeWebhook } from '../../domain/webhook-execution.js';
import { webhookView, webhooks } from '../../domain/webhooks.js';
import { parseDiscordEdit } from '../../webhooks/discord.js';
import { retryIdentityOf } from '../idempotency.js';
import { malformedMultipart, partBytes } from '../plugins/multipart.js';
import { RULES, enforce } from '../plugins/rate-limit.js';
import { SECURITY, documentedBody } from '../openapi.js';
import {
  DiscordEditBody,
  DiscordExecuteForm,
  DiscordExecuteJson,
  DiscordExecuteMultipart,
  GithubDeliveryForm,
  GithubDeliveryJson,
  GithubHeaders,
  IdempotencyHeaders,
  Message,
  SlackExecuteForm,
  SlackExecuteJson,
  Webhook,
  WebhookExecParams,
  WebhookExecQuery,
  WebhookMessageParams,
  ref,
} from '@parley/protocol';
import { NoContent, errors } from '../schemas/wire.js';
import type { RouteDeps } from './deps.js';

/** The body as Fastify parsed it: urlencoded fields, or JSON (anything else reaches the converters as it is). */
function flatBody(req: FastifyRequest): FlatBody {
  const form = (req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');
  return form ? { kind: 'form', fields: req.body as Record<string, string | undefined> | undefined } : { kind: 'json', value: req.body };
}

/** The request's multipart parts as the domain reads them: text fields, and files whose bytes open on demand (refused past `maxBytes`). */
export async function* partsOf(req: FastifyRequest, maxBytes: number): AsyncGenerator<BodyPart> {
  for await (const part of req.parts()) {
    if (part.type === 'file') {
      yield {
        type: 'file',
        field: part.fieldname,
        filename: part.filename,
        contentType: part.mimetype,
        open: () => partBytes(part.file, maxBytes),
        truncated: () => part.file.truncated,
      };
    } else if (typeof part.value === 'string') {
      yield { type: 'field', name: part.fieldname, value: part.value };
    }
  }
}

/**
 * The Discord dialect's body, for the native and the `/api` execute routes: the parts of a
 * multipart request, each file admitted against the webhook's upload limit before it is
 * stored (docs/security.md, "Nothing is written before the request is allowed"), or the
 * parsed body.
 */
export function discordDialectBody(
  req: FastifyRequest,
  reply: FastifyReply,
  { limiter, config }: Pick<RouteDeps, 'limiter' | 'config'>,
  hookId: string,
): FlatBody | { kind: 'multipart'; stream: PartStream } {
  if (!req.isMultipart()) return flatBody(req);
  return {
    kind: 'multipart',
    stream: {
      parts: partsOf(req, config.maxUploadBytes),
      maxFileBytes: config.maxUploadBytes,
      explain: malformedMultipart,
      admitFile: () => enforce(limiter, RULES.uploads, hookId, reply),
    },
  };
}

/**
 * Executing a webhook (docs/webhooks.md#1-the-seed-format) and its compatible dialects (docs/webhooks.md). The
 * token in the URL is the only credential; every dialect shares the webhook's rate
 * limit and ends in the same domain action.
 */
export function webhookExecuteRoutes(fastify: FastifyInstance, { ctx, limiter, config }: RouteDeps): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const doc = { tags: ['webhook execution'], security: SECURITY.none };
  // The dialects' bodies are in the document only (documentedBody): the converters in
  // src/webhooks/ check them, JSON, form or multipart, each dialect its own way.

  /** Authenticates the URL, then applies the webhook's limit (unknown hooks get 404, not 429). */
  async function admit(params: WebhookExecParams, reply: FastifyReply) {
    const hook = await webhooks.authenticate(ctx, params.webhookId, params.token);
    await enforce(limiter, RULES.webhook, hook.id, reply);
    return hook;
  }

  app.post(
    '/webhooks/:webhookId/:token',
    {
      schema: {
        ...doc,
        summary: 'Execute a webhook (Discord-compatible): post a message',
        params: WebhookExecParams,
        querystring: WebhookExecQuery,
        headers: IdempotencyHeaders,
        response: { 200: ref(Message), 204: { ...NoContent, description: 'with `wait=false` and no files' }, ...errors },
      },
      config: {
        swaggerTransform: documentedBody({
          'application/json': DiscordExecuteJson,
          'application/x-www-form-urlencoded': DiscordExecuteForm,
          'multipart/form-data': DiscordExecuteMultipart,
        }),
      },
    },
    async (req, reply) => {
      const hook = await admit(req.params, reply);
      const body = discordDialectBody(req, reply, { limiter, config }, hook.id);
      const threadId = req.query.thread_id;
      const result = await executeWebhook(
        ctx,
        hook,
        { dialect: 'discord', body, ...(threadId !== undefined ? { threadId } : {}) },
        retryIdentityOf(req),
      );
      // The seed format's default is 200 with the message (docs/webhooks.md#1-the-seed-format); Discord clients may ask for 204, except
      // with files, where Discord answers the message whatever `wait` says.
      if (req.query.wait === 'false' && !(req.isMultipart() && result.message.attachments.length > 0)) return reply.status(204).send();
      return reply.status(200).send(result.message);
    },
  );

  const view = {
    ...doc,
    summary: 'The webhook its URL names (without its token)',
    params: WebhookExecParams,
    response: { 200: ref(Webhook), ...errors },
  };
  app.get('/webhooks/:webhookId/:token', { schema: view }, async (req) =>
    webhookView(await webhooks.authenticate(ctx, req.params.webhookId, req.params.token)),
  );

  // A webhook's own messages (docs/webhooks.md#a-webhooks-own-messages-read-edit-delete), as Discord's fetch/edit/delete-webhook-message.
  // Edits and deletes share the execution limit: they are the webhook acting.
  const own = { ...doc, params: WebhookMessageParams };
  app.get(
    '/webhooks/:webhookId/:token/messages/:messageId',
    { schema: { ...own, summary: 'A message this webhook posted', response: { 200: ref(Message), ...errors } } },
    async (req) => {
      const hook = await webhooks.authenticate(ctx, req.params.webhookId, req.params.token);
      return webhooks.getMessage(ctx, hook, req.params.messageId);
    },
  );

  app.patch(
    '/webhooks/:webhookId/:token/messages/:messageId',
    {
      schema: { ...own, summary: 'Edit a message this webhook posted', response: { 200: ref(Message), ...errors } },
      config: { swaggerTransform: documentedBody({ 'application/json': DiscordEditBody }) },
    },
    async (req, reply) => {
      const hook = await admit(req.params, reply);
      return webhooks.editMessage(ctx, hook, req.params.messageId, parseDiscordEdit(req.body));
    },
  );

  app.delete(
    '/webhooks/:webhookId/:token/messages/:messageId',
    { schema: { ...own, summary: 'Delete a message this webhook posted', response: { 204: NoContent, ...errors } } },
    async (req, reply) => {
      const hook = await admit(req.params, reply);
      await webhooks.deleteMessage(ctx, hook, req.params.messageId);
      return reply.status(204).send();
    },
  );

  const slack = {
    ...doc,
    summary: 'Execute a webhook with a Slack incoming-webhook body',
    params: WebhookExecParams,
    headers: IdempotencyHeaders,
    response: { 200: { description: 'Slack\'s plain "ok"', content: { 'text/plain': { schema: Type.Literal('ok') } } }, ...errors },
  };
  const slackBody = documentedBody({ 'application/json': SlackExecuteJson, 'application/x-www-form-urlencoded': SlackExecuteForm });
  app.post('/webhooks/:webhookId/:token/slack', { schema: slack, config: { swaggerTransform: slackBody } }, async (req, reply) => {
    const hook = await admit(req.params, reply);
    await executeWebhook(ctx, hook, { dialect: 'slack', body: flatBody(req) }, retryIdentityOf(req));
    // Slack answers a plain "ok"; tools check for it.
    return reply.status(200).type('text/plain; charset=utf-8').send('ok');
  });

  const github = {
    ...doc,
    summary: 'Execute a webhook with a GitHub delivery',
    params: WebhookExecParams,
    headers: GithubHeaders,
    response: { 200: ref(Message), 204: { ...NoContent, description: 'an event Parley does not render (acknowledged)' }, ...errors },
  };
  const githubBody = documentedBody({ 'application/json': GithubDeliveryJson, 'application/x-www-form-urlencoded': GithubDeliveryForm });
  app.post('/webhooks/:webhookId/:token/github', { schema: github, config: { swaggerTransform: githubBody } }, async (req, reply) => {
    const hook = await admit(req.params, reply);
    const raw = req.headers['x-github-event'];
    const event = Array.isArray(raw) ? raw[0] : raw;
    const result = await executeWebhook(ctx, hook, { dialect: 'github', event, body: flatBody(req) }, retryIdentityOf(req));
    // Null is an event Parley does not render, acknowledged so GitHub marks the delivery successful.
    if (!result) return reply.status(204).send();
    return reply.status(200).send(result.message);
  });
}
