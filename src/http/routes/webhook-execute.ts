import '@fastify/multipart';
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
import type { RouteDeps } from './deps.js';

const ExecParams = Type.Object({ webhookId: Type.String({ maxLength: 64 }), token: Type.String({ maxLength: 256 }) });
const ExecQuery = Type.Object({
  wait: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')])),
  thread_id: Type.Optional(Type.String()),
});
type Params = Static<typeof ExecParams>;
// No length limit on messageId: a malformed id is a 404 (as on Discord), not a 400.
const MessageParams = Type.Object({ ...ExecParams.properties, messageId: Type.String() });
type MessageParams = Static<typeof MessageParams>;

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
export function webhookExecuteRoutes(app: FastifyInstance, { ctx, limiter, config }: RouteDeps): void {
  /** Authenticates the URL, then applies the webhook's limit (unknown hooks get 404, not 429). */
  async function admit(req: FastifyRequest<{ Params: Params | MessageParams }>, reply: FastifyReply) {
    const hook = await webhooks.authenticate(ctx, req.params.webhookId, req.params.token);
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

  app.post<{ Params: Params; Querystring: Static<typeof ExecQuery> }>(
    '/webhooks/:webhookId/:token',
    { schema: { params: ExecParams, querystring: ExecQuery } },
    async (req, reply) => {
      const hook = await admit(req, reply);
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

  app.get<{ Params: Params }>('/webhooks/:webhookId/:token', { schema: { params: ExecParams } }, async (req) =>
    webhookView(await webhooks.authenticate(ctx, req.params.webhookId, req.params.token)),
  );

  // A webhook's own messages (contract 8), as Discord's fetch/edit/delete-webhook-message.
  // Edits and deletes share the execution limit: they are the webhook acting.
  app.get<{ Params: MessageParams }>('/webhooks/:webhookId/:token/messages/:messageId', { schema: { params: MessageParams } }, async (req) => {
    const hook = await webhooks.authenticate(ctx, req.params.webhookId, req.params.token);
    return webhooks.getMessage(ctx, hook, req.params.messageId);
  });

  app.patch<{ Params: MessageParams }>(
    '/webhooks/:webhookId/:token/messages/:messageId',
    { schema: { params: MessageParams } },
    async (req, reply) => {
      const hook = await admit(req, reply);
      return webhooks.editMessage(ctx, hook, req.params.messageId, parseDiscordEdit(req.body));
    },
  );

  app.delete<{ Params: MessageParams }>(
    '/webhooks/:webhookId/:token/messages/:messageId',
    { schema: { params: MessageParams } },
    async (req, reply) => {
      const hook = await admit(req, reply);
      await webhooks.deleteMessage(ctx, hook, req.params.messageId);
      return reply.status(204).send();
    },
  );

  app.post<{ Params: Params }>('/webhooks/:webhookId/:token/slack', { schema: { params: ExecParams } }, async (req, reply) => {
    const hook = await admit(req, reply);
    const parsed = isForm(req) ? parseSlackForm(asForm(req.body)) : parseSlackPayload(req.body);
    await post(req, hook, 'slack', parsed, req.body);
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
    return reply.status(200).send((await post(req, hook, 'github', parsed, { event, body: req.body })).message);
  });
}
