import '@fastify/multipart';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type Static, Type } from 'typebox';
import { type CreateResult, type MessageChange, earlierResponse, replayEarlier } from '../../domain/messages.js';
import { type StoredUpload, attachmentOf, uploads } from '../../domain/uploads.js';
import { webhookView, webhooks } from '../../domain/webhooks.js';
import { AppError, badRequest } from '../../errors.js';
import type { WebhookTable } from '../../store/schema.js';
import { parseDiscordForm, parseDiscordPayload, resolveAttachmentRefs } from '../../webhooks/discord.js';
import { parseGithubEvent, parseGithubForm } from '../../webhooks/github.js';
import { parseSlackForm, parseSlackPayload } from '../../webhooks/slack.js';
import { isPlainObject } from '../../webhooks/text.js';
import type { WebhookPost } from '../../webhooks/types.js';
import { type FileDigest, digestWithoutStoring, digesting, fingerprintOf, idempotencyKeyOf, idempotencyOf } from '../idempotency.js';
import { malformedMultipart, partBytes } from '../plugins/multipart.js';
import { RULES, enforce } from '../plugins/rate-limit.js';
import { SECURITY, documentedBody } from '../openapi.js';
import { Embed, Message, NoContent, Webhook, errors, ref } from '../schemas/wire.js';
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
const GithubForm = Type.Object({ payload: Type.String({ description: 'the delivery as a form field (GitHub\'s form content type)' }) });

const isForm = (req: FastifyRequest) => (req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');
const asForm = (body: unknown) => (body ?? {}) as Record<string, string | undefined>;

/**
 * Discord's edit-webhook-message body: `content` and `embeds`, each optional (absent keeps
 * it) and nullable (null clears it); other keys are ignored. Both are checked as executing
 * checks them, by the same converter; whether the edited message is still not empty
 * depends on what it keeps, so the domain judges that.
 */
function parseDiscordEdit(body: unknown): MessageChange {
  if (!isPlainObject(body)) throw badRequest('body must be a JSON object');
  const parsed = parseDiscordPayload({ content: body.content, embeds: body.embeds }, { hasFiles: true });
  return {
    ...(body.content !== undefined ? { content: parsed.content } : {}),
    ...(body.embeds !== undefined ? { embeds: parsed.embeds } : {}),
  };
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

  function post(req: FastifyRequest, hook: WebhookTable, dialect: string, p: WebhookPost, fingerprintBody: unknown): Promise<CreateResult> {
    const idem = idempotencyOf(req, `webhook:${hook.id}`, { dialect, body: fingerprintBody });
    return webhooks.execute(
      ctx,
      hook,
      { content: p.content, embeds: p.embeds, uploads: [], username: p.username, avatarUrl: p.avatarUrl },
      idem,
    );
  }

  /**
   * Reads a Discord multipart body: `payload_json` (or plain fields) and file parts. With
   * `store` false (a replay) the files are only hashed; with `digest` each file's digest
   * is taken for the fingerprint. On failure, whatever was stored is removed.
   */
  async function readMultipart(req: FastifyRequest, hook: WebhookTable, opts: { store: boolean; digest: boolean }) {
    const fields: Record<string, string> = {};
    const stored: StoredUpload[] = [];
    const digests: FileDigest[] = [];
    let files = 0;
    try {
      for await (const part of req.parts()) {
        if (part.type !== 'file') {
          if (typeof part.value === 'string') fields[part.fieldname] = part.value;
          continue;
        }
        // Refuse a bad payload before storing a byte, when it comes first (as Discord's own clients send it).
        if (files === 0 && fields.payload_json !== undefined) parseDiscordForm(fields, { hasFiles: true });
        files++;
        const bytes = partBytes(part.file);
        const truncated = () => part.file.truncated;
        if (!opts.store) {
          const { size, sha256 } = await digestWithoutStoring(bytes, config.maxUploadBytes, truncated);
          digests.push([part.filename, size, sha256]);
          continue;
        }
        const tapped = opts.digest ? digesting(bytes) : undefined;
        const upload = await uploads.store(ctx, { id: hook.id }, {
          filename: part.filename,
          contentType: part.mimetype,
          data: tapped?.stream ?? bytes,
          maxBytes: config.maxUploadBytes,
          truncated,
        });
        stored.push(upload);
        if (tapped) digests.push([part.filename, upload.size, tapped.sha256()]);
      }
    } catch (err) {
      await uploads.discard(ctx, stored);
      throw err instanceof AppError ? err : malformedMultipart(err);
    }
    return { fields, stored, digests, files };
  }

  /**
   * A Discord multipart post. The key is looked up before any file is stored: a replay
   * stores nothing. Stored files are removed on every failure, and when a concurrent
   * request with the same key won (its message stands; these files were never used).
   */
  async function postMultipart(req: FastifyRequest, hook: WebhookTable): Promise<CreateResult> {
    const caller = `webhook:${hook.id}`;
    const key = idempotencyKeyOf(req);
    const earlier = key === undefined ? null : await earlierResponse(ctx, caller, key);
    const form = await readMultipart(req, hook, { store: earlier === null, digest: key !== undefined });
    try {
      const parsed = parseDiscordForm(form.fields, { hasFiles: form.files > 0 });
      // Files count by name, size and SHA-256, so other bytes under the same name are another request.
      const fingerprintBody = { dialect: 'discord', body: { fields: form.fields, files: form.digests } };
      const idem = key === undefined ? undefined : { caller, key, fingerprint: fingerprintOf(req, fingerprintBody) };
      if (earlier && idem) return replayEarlier(earlier, idem.fingerprint);
      // Embeds may show an uploaded file with attachment://<filename>.
      const urls = new Map(form.stored.map((u) => [u.filename, attachmentOf(ctx.publicUrl, u).url]));
      const input = { ...parsed, embeds: resolveAttachmentRefs(parsed.embeds, urls), uploads: form.stored };
      const result = await webhooks.execute(ctx, hook, input, idem);
      if (result.replayed) await uploads.discard(ctx, form.stored);
      return result;
    } catch (err) {
      await uploads.discard(ctx, form.stored);
      throw err;
    }
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
      let result: CreateResult;
      if (req.isMultipart()) {
        result = await postMultipart(req, hook);
      } else {
        const parsed = isForm(req) ? parseDiscordForm(asForm(req.body)) : parseDiscordPayload(req.body);
        result = await post(req, hook, 'discord', parsed, req.body);
      }
      // The seed's default is 200 with the message; Discord clients may ask for 204.
      if (req.query.wait === 'false') return reply.status(204).send();
      return reply.status(200).send(result.message);
    },
  );

  const view = {
    ...doc,
    summary: 'The webhook its URL names (without its token)',
    params: ExecParams, response: { 200: ref(Webhook), ...errors },
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
  });

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
    const parsed = isForm(req) ? parseSlackForm(asForm(req.body)) : parseSlackPayload(req.body);
    await post(req, hook, 'slack', parsed, req.body);
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
    if (req.body === undefined) throw badRequest('request body is required');
    const parsed = isForm(req) ? parseGithubForm(event, asForm(req.body)) : parseGithubEvent(event, req.body);
    // Events Parley does not render are acknowledged so GitHub marks the delivery successful.
    if (!parsed) return reply.status(204).send();
    return reply.status(200).send((await post(req, hook, 'github', parsed, { event, body: req.body })).message);
  });
}
