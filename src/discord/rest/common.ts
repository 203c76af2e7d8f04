/**
 * What the Discord routes share: reading a Discord multipart message body into stored
 * uploads, and small helpers. Handlers stay thin: authenticate, limit, call the domain
 * action the native route calls, serialize with objects.ts.
 */
import type { FastifyRequest } from 'fastify';
import { badRequest } from '../../errors.js';
import { readUploadParts } from '../../domain/webhook-execution.js';
import { type StoredUpload, attachmentOf, uploads } from '../../domain/uploads.js';
import type { DomainContext } from '../../domain/context.js';
import { malformedMultipart } from '../../http/plugins/multipart.js';
import { partsOf } from '../../http/routes/webhook-execute.js';
import type { RouteDeps } from '../../http/routes/deps.js';
import { parseJsonField } from '../../webhooks/text.js';
import { resolveAttachmentRefs } from '../../webhooks/discord.js';
import { type DiscordMessageInput, messageFromDiscord } from '../bodies.js';

/** Discord's routes are documented in docs/discord.md, not in the native OpenAPI document. */
export const hidden = { schema: { hide: true } } as const;

/** A Discord query-string number (`limit`): absent stays absent; anything but digits is a 50035. */
export function queryInt(value: unknown, name: string): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string' || !/^\d{1,4}$/.test(value)) throw badRequest(`${name} must be an integer`, 'invalid_query');
  return Number(value);
}

/** A query-string value as one string (the last, when repeated). */
export function queryString(value: unknown): string | undefined {
  if (Array.isArray(value)) return queryString(value[value.length - 1]);
  return typeof value === 'string' ? value : undefined;
}

/** A message body with its files stored as uploads (none for JSON); `discard` removes them after a failure. */
export interface ReadMessage {
  input: DiscordMessageInput;
  stored: StoredUpload[];
  /** `{url, filename}` per kept file, as `messages.send` takes attachments. */
  attachments: Array<{ url: string; filename: string }>;
  discard(): Promise<void>;
}

/**
 * Discord's create-message body: JSON, or multipart with `payload_json` (or plain
 * `content`) and `files[n]`. Files are stored as the caller's uploads, then listed
 * as the message's attachments: those `attachments: [{id: n, filename?}]` names (by n,
 * with an optional new name), or every file when the payload lists none. Embeds may show
 * a file with `attachment://<filename>`.
 */
export async function readMessageBody(ctx: DomainContext, deps: RouteDeps, req: FastifyRequest, uploaderId: string): Promise<ReadMessage> {
  if (!req.isMultipart()) {
    const input = messageFromDiscord(req.body);
    if (input.attachments?.length) throw badRequest('attachments name files[n] parts: send them as multipart/form-data');
    return { input, stored: [], attachments: [], discard: async () => {} };
  }
  const source = { parts: partsOf(req), maxFileBytes: deps.config.maxUploadBytes, explain: malformedMultipart };
  const form = await readUploadParts(ctx, { id: uploaderId }, source, {
    store: true,
    digest: false,
    check: (fields) => void formInput(fields, true),
  });
  const discard = () => uploads.discard(ctx, form.stored);
  try {
    const input = formInput(form.fields, form.files > 0);
    const byIndex = new Map<string, StoredUpload>();
    form.stored.forEach((u, i) => {
      // `files[3]` is attachment id 3; a part with another name keeps its position.
      const m = /^files\[(\d+)\]$/.exec(form.storedFields[i] ?? '');
      byIndex.set(m ? m[1]! : String(i), u);
    });
    const kept = input.attachments
      ? input.attachments.map((a) => {
          const upload = byIndex.get(a.id);
          if (!upload) throw badRequest(`attachments: no files[${a.id}] part was sent`);
          return { upload, filename: a.filename ?? upload.filename };
        })
      : form.stored.map((upload) => ({ upload, filename: upload.filename }));
    const attachments = kept.map((k) => ({ url: attachmentOf(ctx.publicUrl, k.upload).url, filename: k.filename }));
    const urls = new Map(kept.map((k) => [k.filename, attachmentOf(ctx.publicUrl, k.upload).url]));
    for (const k of kept) urls.set(k.upload.filename, attachmentOf(ctx.publicUrl, k.upload).url);
    // Files the payload did not keep are not the message's: drop them now.
    const unused = form.stored.filter((u) => !kept.some((k) => k.upload.id === u.id));
    if (unused.length > 0) await uploads.discard(ctx, unused);
    return { input: { ...input, embeds: resolveAttachmentRefs(input.embeds, urls) }, stored: form.stored, attachments, discard };
  } catch (err) {
    await discard();
    throw err;
  }
}

/** The non-file fields of a multipart message: `payload_json`, or plain `content` (and `nonce`, `flags`). */
function formInput(fields: Record<string, string>, hasFiles: boolean): DiscordMessageInput {
  if (fields.payload_json !== undefined) return messageFromDiscord(parseJsonField(fields.payload_json, 'payload_json'), { hasFiles });
  const body: Record<string, unknown> = {};
  for (const key of ['content', 'nonce'] as const) if (fields[key] !== undefined) body[key] = fields[key];
  if (fields.embeds !== undefined) body.embeds = parseJsonField(fields.embeds, 'embeds');
  return messageFromDiscord(body, { hasFiles });
}
