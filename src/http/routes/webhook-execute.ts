import '@fastify/multipart';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type Static, Type } from 'typebox';
import { type BodyPart, type FlatBody, executeWebhook } from '../../domain/webhook-execution.js';
import { webhookView, webhooks } from '../../domain/webhooks.js';
import { parseDiscordEdit } from '../../webhooks/discord.js';
import { retryIdentityOf } from '../idempotency.js';
import { malformedMultipart, partBytes } from '../plugins/multipart.js';
import { RULES, enforce } from '../plugins/rate-limit.js';
import { SECURITY, documentedBody } from '../openapi.js';
import { Embed, Message, Webhook, ref } from '@parley/protocol';
import { NoContent, errors } from '../schemas/wire.js';
import type { RouteDeps } from './deps.js';

const ExecParams = Type.Object({ webhookId: Type.String({ maxLength: 64 }), token: Type.String({ maxLength: 256 }) });
const ExecQuery = Type.Object({
  wait: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')])),
  thread_id: Type.Optional(Type.String()),
});
type Params = Static<typeof ExecParams>;
// No length limit on messageId: a malformed id is a 404 (as on Discord), not a 400.
const MessageParams = Type.Object({ ...ExecParams.properties, messageId: Type.String() });

/*
 * Request bodies of the dialect routes, for the OpenAPI document only. The converters in
 * src/webhooks/ check these bodies (JSON, form or multipart, each dialect its own way),
 * so Fastify validates none of them; a body schema on the route would refuse forms and
 * multipart.
 */
const DiscordJson = Type.Object(
  {
    content: Type.Optional(Type.String({ description: 'Markdown; may be empty when embeds or files carry the message' })),
    username: Type.Optional(Type.String({ description: "overrides the webhook's name for this message" })),
    avatar_url: Type.Optional(Type.String({ description: "overrides the webhook's avatar for this message" })),
    embeds: Type.Optional(Type.Array(ref(Embed), { maxItems: 10 })),
  },
  { description: "Discord's execute-webhook body; unknown keys (tts, flags, allowed_mentions, ...) are ignored" },
);
const DiscordForm = Type.Object({
  content: Type.Optional(Type.String()),
  username: Type.Optional(Type.String()),
  avatar_url: Type.Optional(Type.String()),
  embeds: Type.Optional(Type.String({ description: 'JSON array of embeds' })),
});
const DiscordMultipart = Type.Object({
  payload_json: Type.Optional(Type.String({ description: 'the whole JSON body (instead of the plain fields)' })),
  content: Type.Optional(Type.String()),
  username: Type.Optional(Type.String()),
  avatar_url: Type.Optional(Type.String()),
  'files[0]': Type.Optional(
    Type.String({ format: 'binary', description: 'file parts, any field name; embeds may show one as attachment://<filename>' }),
  ),
});
const DiscordEdit = Type.Object(
  {
    content: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'absent keeps it, null clears it' })),
    embeds: Type.Optional(Type.Union([Type.Array(ref(Embed)), Type.Null()], { description: 'absent keeps them, null clears them' })),
  },
  { description: "Discord's edit-webhook-message body; other keys are ignored" },
);
const SlackJson = Type.Object(
  {
    text: Type.Optional(Type.String({ description: 'mrkdwn' })),
    username: Type.Optional(Type.String()),
    icon_url: Type.Optional(Type.String()),
    attachments: Type.Optional(
      Type.Array(Type.Object({}, { additionalProperties: true }), { description: 'legacy attachments (become embeds)' }),
    ),
    blocks: Type.Optional(Type.Array(Type.Object({}, { additionalProperties: true }), { description: 'simple Block Kit blocks' })),
  },
  { description: "Slack's incoming-webhook body" },
);
const SlackForm = Type.Object({ payload: Type.String({ description: 'the JSON body as a form field' }) });
const GithubJson = Type.Object(
  {},
  { additionalProperties: true, description: 'a GitHub webhook delivery; the event is named by X-GitHub-Event' },
);
const GithubForm = Type.Object({ payload: Type.String({ description: "the delivery as a form field (GitHub's form content type)" }) });

/** The body as Fastify parsed it: urlencoded fields, or JSON (anything else reaches the converters as it is). */
function flatBody(req: FastifyRequest): FlatBody {
  const form = (req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');
  return form ? { kind: 'form', fields: req.body as Record<string, string | undefined> | undefined } : { kind: 'json', value: req.body };
}

/** The request's multipart parts as the domain reads them: text fields, and files whose bytes open on demand. */
async function* partsOf(req: FastifyRequest): AsyncGenerator<BodyPart> {
  for await (const part of req.parts()) {
    if (part.type === 'file') {
      yield {
        type: 'file',
        filename: part.filename,
        contentType: part.mimetype,
        open: () => partBytes(part.file),
        truncated: () => part.file.truncated,
      };
    } else if (typeof part.value === 'string') {
      yield { type: 'field', name: part.fieldname, value: part.value };
    }
  }
}

/**
 * Executing a webhook (seed 4.5) and its compatible dialects (contract section 8). The
 * token in the URL is the only credential; every dialect shares the webhook's rate
 * limit and ends in the same domain action.
 */
export function webhookExecuteRoutes(fastify: FastifyInstance, { ctx, limiter, config }: RouteDeps): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const doc = { tags: ['webhook execution'], security: SECURITY.none };
  const idempotencyKey = Type.Object({
    'idempotency-key': Type.Optional(
      Type.String({ description: 'a retry with the same key within 24 h returns the first response and creates nothing' }),
    ),
  });

  /** Authenticates the URL, then applies the webhook's limit (unknown hooks get 404, not 429). */
  async function admit(params: Params, reply: FastifyReply) {
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
        params: ExecParams,
        querystring: ExecQuery,
        headers: idempotencyKey,
        response: { 200: ref(Message), 204: { ...NoContent, description: 'with `wait=false`' }, ...errors },
      },
      config: {
        swaggerTransform: documentedBody({
          'application/json': DiscordJson,
          'application/x-www-form-urlencoded': DiscordForm,
          'multipart/form-data': DiscordMultipart,
        }),
      },
    },
    async (req, reply) => {
      const hook = await admit(req.params, reply);
      const body = req.isMultipart()
        ? { kind: 'multipart' as const, stream: { parts: partsOf(req), maxFileBytes: config.maxUploadBytes, explain: malformedMultipart } }
        : flatBody(req);
      const result = await executeWebhook(ctx, hook, { dialect: 'discord', body }, retryIdentityOf(req));
      // The seed's default is 200 with the message; Discord clients may ask for 204.
      if (req.query.wait === 'false') return reply.status(204).send();
      return reply.status(200).send(result.message);
    },
  );

  const view = {
    ...doc,
    summary: 'The webhook its URL names (without its token)',
    params: ExecParams,
    response: { 200: ref(Webhook), ...errors },
  };
  app.get('/webhooks/:webhookId/:token', { schema: view }, async (req) =>
    webhookView(await webhooks.authenticate(ctx, req.params.webhookId, req.params.token)),
  );

  // A webhook's own messages (contract 8), as Discord's fetch/edit/delete-webhook-message.
  // Edits and deletes share the execution limit: they are the webhook acting.
  const getMessage = { ...doc, summary: 'A message this webhook posted' };
  app.get(
    '/webhooks/:webhookId/:token/messages/:messageId',
    { schema: { ...getMessage, params: MessageParams, response: { 200: ref(Message), ...errors } } },
    async (req) => {
      const hook = await webhooks.authenticate(ctx, req.params.webhookId, req.params.token);
      return webhooks.getMessage(ctx, hook, req.params.messageId);
    },
  );

  app.patch(
    '/webhooks/:webhookId/:token/messages/:messageId',
    {
      schema: { ...doc, summary: 'Edit a message this webhook posted', params: MessageParams, response: { 200: ref(Message), ...errors } },
      config: { swaggerTransform: documentedBody({ 'application/json': DiscordEdit }) },
    },
    async (req, reply) => {
      const hook = await admit(req.params, reply);
      return webhooks.editMessage(ctx, hook, req.params.messageId, parseDiscordEdit(req.body));
    },
  );

  app.delete(
    '/webhooks/:webhookId/:token/messages/:messageId',
    { schema: { ...doc, summary: 'Delete a message this webhook posted', params: MessageParams, response: { 204: NoContent, ...errors } } },
    async (req, reply) => {
      const hook = await admit(req.params, reply);
      await webhooks.deleteMessage(ctx, hook, req.params.messageId);
      return reply.status(204).send();
    },
  );

  const slack = {
    ...doc,
    summary: 'Execute a webhook with a Slack incoming-webhook body',
    params: ExecParams,
    headers: idempotencyKey,
    response: { 200: { description: 'Slack\'s plain "ok"', content: { 'text/plain': { schema: Type.Literal('ok') } } }, ...errors },
  };
  const slackBody = documentedBody({ 'application/json': SlackJson, 'application/x-www-form-urlencoded': SlackForm });
  app.post('/webhooks/:webhookId/:token/slack', { schema: slack, config: { swaggerTransform: slackBody } }, async (req, reply) => {
    const hook = await admit(req.params, reply);
    await executeWebhook(ctx, hook, { dialect: 'slack', body: flatBody(req) }, retryIdentityOf(req));
    // Slack answers a plain "ok"; tools check for it.
    return reply.status(200).type('text/plain; charset=utf-8').send('ok');
  });

  const github = {
    ...doc,
    summary: 'Execute a webhook with a GitHub delivery',
    params: ExecParams,
    headers: Type.Object({
      'x-github-event': Type.Optional(Type.String({ description: 'the event name, as GitHub sends it' })),
      'idempotency-key': idempotencyKey.properties['idempotency-key'],
    }),
    response: { 200: ref(Message), 204: { ...NoContent, description: 'an event Parley does not render (acknowledged)' }, ...errors },
  };
  const githubBody = documentedBody({ 'application/json': GithubJson, 'application/x-www-form-urlencoded': GithubForm });
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
