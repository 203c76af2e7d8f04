import '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type Static, Type } from 'typebox';
import type { Attachment } from '../../domain/types.js';
import { uploads } from '../../domain/uploads.js';
import { webhookView, webhooks } from '../../domain/webhooks.js';
import { AppError, badRequest } from '../../errors.js';
import type { WebhookTable } from '../../store/schema.js';
import { parseDiscordForm, parseDiscordPayload, resolveAttachmentRefs } from '../../webhooks/discord.js';
import { parseGithubEvent, parseGithubForm } from '../../webhooks/github.js';
import { parseSlackForm, parseSlackPayload } from '../../webhooks/slack.js';
import type { WebhookPost } from '../../webhooks/types.js';
import { idempotencyOf } from '../idempotency.js';
import { malformedMultipart, partBytes } from '../plugins/multipart.js';
import { RULES, enforce } from '../plugins/rate-limit.js';
import type { RouteDeps } from './deps.js';

const ExecParams = Type.Object({ webhookId: Type.String({ maxLength: 64 }), token: Type.String({ maxLength: 256 }) });
const ExecQuery = Type.Object({
  wait: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')])),
  thread_id: Type.Optional(Type.String()),
});
type Params = Static<typeof ExecParams>;

const isForm = (req: FastifyRequest) => (req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');
const asForm = (body: unknown) => (body ?? {}) as Record<string, string | undefined>;

/**
 * Executing a webhook (seed 4.5) and its compatible dialects (contract section 8). The
 * token in the URL is the only credential; every dialect shares the webhook's rate
 * limit and ends in the same domain action.
 */
export function webhookExecuteRoutes(app: FastifyInstance, { ctx, limiter, config }: RouteDeps): void {
  /** Authenticates the URL, then applies the webhook's limit (unknown hooks get 404, not 429). */
  async function admit(req: FastifyRequest<{ Params: Params }>, reply: FastifyReply) {
    const hook = await webhooks.authenticate(ctx, req.params.webhookId, req.params.token);
    await enforce(limiter, RULES.webhook, hook.id, reply);
    return hook;
  }

  async function post(req: FastifyRequest, hook: WebhookTable, dialect: string, p: WebhookPost, attachments: Attachment[], fingerprintBody: unknown) {
    const idem = idempotencyOf(req, `webhook:${hook.id}`, { dialect, body: fingerprintBody });
    const { message } = await webhooks.execute(
      ctx,
      hook,
      { content: p.content, embeds: p.embeds, attachments, username: p.username, avatarUrl: p.avatarUrl },
      idem,
    );
    return message;
  }

  /** Reads a Discord multipart body: `payload_json` (or plain fields) and any file parts. */
  async function readMultipart(req: FastifyRequest, hook: WebhookTable) {
    const fields: Record<string, string> = {};
    const files: Attachment[] = [];
    try {
      for await (const part of req.parts()) {
        if (part.type === 'file') {
          files.push(
            await uploads.store(ctx, { id: hook.id }, {
              filename: part.filename,
              contentType: part.mimetype,
              data: partBytes(part.file),
              maxBytes: config.maxUploadBytes,
              truncated: () => part.file.truncated,
            }),
          );
        } else if (typeof part.value === 'string') {
          fields[part.fieldname] = part.value;
        }
      }
    } catch (err) {
      await uploads.discard(ctx, files);
      throw err instanceof AppError ? err : malformedMultipart(err);
    }
    return { fields, files };
  }

  app.post<{ Params: Params; Querystring: Static<typeof ExecQuery> }>(
    '/webhooks/:webhookId/:token',
    { schema: { params: ExecParams, querystring: ExecQuery } },
    async (req, reply) => {
      const hook = await admit(req, reply);
      let parsed: WebhookPost;
      let files: Attachment[] = [];
      let fingerprint: unknown = req.body;
      if (req.isMultipart()) {
        const form = await readMultipart(req, hook);
        files = form.files;
        try {
          parsed = parseDiscordForm(form.fields, { hasFiles: files.length > 0 });
        } catch (err) {
          await uploads.discard(ctx, files);
          throw err;
        }
        // Embeds may show an uploaded file with attachment://<filename>.
        parsed.embeds = resolveAttachmentRefs(parsed.embeds, new Map(files.map((f) => [f.filename, f.url])));
        fingerprint = { fields: form.fields, files: files.map((f) => [f.filename, f.size]) };
      } else if (isForm(req)) {
        parsed = parseDiscordForm(asForm(req.body));
      } else {
        parsed = parseDiscordPayload(req.body);
      }
      const message = await post(req, hook, 'discord', parsed, files, fingerprint);
      // The seed's default is 200 with the message; Discord clients may ask for 204.
      if (req.query.wait === 'false') return reply.status(204).send();
      return reply.status(200).send(message);
    },
  );

  app.get<{ Params: Params }>('/webhooks/:webhookId/:token', { schema: { params: ExecParams } }, async (req) =>
    webhookView(await webhooks.authenticate(ctx, req.params.webhookId, req.params.token)),
  );

  app.post<{ Params: Params }>('/webhooks/:webhookId/:token/slack', { schema: { params: ExecParams } }, async (req, reply) => {
    const hook = await admit(req, reply);
    const parsed = isForm(req) ? parseSlackForm(asForm(req.body)) : parseSlackPayload(req.body);
    await post(req, hook, 'slack', parsed, [], req.body);
    // Slack answers a plain "ok"; tools check for it.
    return reply.status(200).type('text/plain; charset=utf-8').send('ok');
  });

  app.post<{ Params: Params }>('/webhooks/:webhookId/:token/github', { schema: { params: ExecParams } }, async (req, reply) => {
    const hook = await admit(req, reply);
    const raw = req.headers['x-github-event'];
    const event = Array.isArray(raw) ? raw[0] : raw;
    if (req.body === undefined) throw badRequest('request body is required');
    const parsed = isForm(req) ? parseGithubForm(event, asForm(req.body)) : parseGithubEvent(event, req.body);
    // Events Parley does not render are acknowledged so GitHub marks the delivery successful.
    if (!parsed) return reply.status(204).send();
    return reply.status(200).send(await post(req, hook, 'github', parsed, [], { event, body: req.body }));
  });
}
