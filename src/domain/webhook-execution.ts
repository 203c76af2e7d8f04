/**
 * Executing a webhook in one of its dialects (Discord, Slack, GitHub): converting the
 * body, idempotency, files and posting. The route hands over the body as it parsed it
 * (JSON, form fields, or multipart parts still streaming); everything that decides what
 * happens is here.
 */
import { createHash } from 'node:crypto';
import { type Readable, Transform, pipeline } from 'node:stream';
import { AppError, badRequest } from '../errors.js';
import type { WebhookTable } from '../store/schema.js';
import { parseDiscordForm, parseDiscordPayload, resolveAttachmentRefs } from '../webhooks/discord.js';
import { parseGithubEvent, parseGithubForm } from '../webhooks/github.js';
import { parseSlackForm, parseSlackPayload } from '../webhooks/slack.js';
import type { WebhookPost } from '../webhooks/types.js';
import type { DomainContext } from './context.js';
import { type CreateResult, type IdempotencyRequest, earlierResponse, replayEarlier } from './messages.js';
import { type StoredUpload, attachmentOf, fileTooLarge, uploads } from './uploads.js';
import { webhooks } from './webhooks.js';

/** One part of a multipart body: a text field, or a file whose bytes are still to be read. */
export type BodyPart =
  | { type: 'field'; name: string; value: string }
  | {
      type: 'file';
      /** The form field's name (Discord's `files[n]`). */
      field?: string;
      filename: string;
      contentType: string;
      /** The bytes, read once; opened only when the part is consumed, so an early refusal reads nothing. */
      open(): Readable;
      /** True once the parser has cut the file at its per-file limit. */
      truncated(): boolean;
    };

/** A multipart body as a stream of parts, with what the parser that reads it knows. */
export interface PartStream {
  parts: AsyncIterable<BodyPart>;
  /** The parser's per-file limit: it truncates a file there. */
  maxFileBytes: number;
  /** The error to answer for a failure while reading that is not an `AppError` (e.g. a body the parser could not read). */
  explain(err: unknown): unknown;
  /**
   * Called before each file is stored: counts it against the caller's upload limit (and,
   * where the caller needs it, checks they may attach files), throwing to refuse it
   * before a byte is written (docs/security.md#files-are-for-those-who-may-see-them).
   */
  admitFile?: () => Promise<void>;
}

/** A body without files: JSON, or urlencoded fields (undefined when there was no body). */
export type FlatBody = { kind: 'json'; value: unknown } | { kind: 'form'; fields: Record<string, string | undefined> | undefined };

/** One execution as the route parsed it; only Discord's dialect accepts multipart. */
export type Execution =
  | {
      dialect: 'discord';
      body: FlatBody | { kind: 'multipart'; stream: PartStream };
      /** Discord's `?thread_id=`: a thread of the webhook's channel to post in (docs/webhooks.md#threads). */
      threadId?: string;
    }
  | { dialect: 'slack'; body: FlatBody }
  | { dialect: 'github'; event: string | undefined; body: FlatBody };

/**
 * How the edge identifies a retried request: its `Idempotency-Key`, validated when read
 * (so a malformed key is refused at the same point as ever), and the fingerprint of a
 * body under the route and method the request came to.
 */
export interface RetryIdentity {
  key(): string | undefined;
  fingerprint(body: unknown): string;
}

/** A file part as a request fingerprint sees it: name as sent, size, SHA-256 of the bytes. */
type FileDigest = [filename: string, size: number, sha256: string];

/** Idempotency keys of a webhook are its own: no other caller can replay them. */
const callerOf = (hook: WebhookTable) => `webhook:${hook.id}`;

/** The body as it came, for the fingerprint: a retry must send the same one. */
const rawOf = (body: FlatBody): unknown => (body.kind === 'form' ? body.fields : body.value);

/**
 * Executes `hook` with a body in one of its dialects and posts the message. Resolves to
 * null for a GitHub event Parley does not render (acknowledged, nothing posted). A retry
 * with the same `Idempotency-Key` replays the first response and creates nothing.
 */
export function executeWebhook(
  ctx: DomainContext,
  hook: WebhookTable,
  exec: Exclude<Execution, { dialect: 'github' }>,
  retry: RetryIdentity,
): Promise<CreateResult>;
export function executeWebhook(ctx: DomainContext, hook: WebhookTable, exec: Execution, retry: RetryIdentity): Promise<CreateResult | null>;
export async function executeWebhook(
  ctx: DomainContext,
  hook: WebhookTable,
  exec: Execution,
  retry: RetryIdentity,
): Promise<CreateResult | null> {
  switch (exec.dialect) {
    case 'discord': {
      const { body, threadId } = exec;
      if (body.kind === 'multipart') return postMultipart(ctx, hook, body.stream, retry, threadId);
      const post = body.kind === 'form' ? parseDiscordForm(body.fields ?? {}) : parseDiscordPayload(body.value);
      // Another thread is another request: the thread counts in the fingerprint (only when given, so others' stay as they were).
      return postOne(
        ctx,
        hook,
        retry,
        post,
        { dialect: 'discord', body: rawOf(body), ...(threadId !== undefined ? { threadId } : {}) },
        threadId,
      );
    }
    case 'slack': {
      const { body } = exec;
      const post = body.kind === 'form' ? parseSlackForm(body.fields ?? {}) : parseSlackPayload(body.value);
      return postOne(ctx, hook, retry, post, { dialect: 'slack', body: rawOf(body) });
    }
    case 'github': {
      const { body, event } = exec;
      const raw = rawOf(body);
      if (raw === undefined) throw badRequest('request body is required');
      const post = body.kind === 'form' ? parseGithubForm(event, body.fields ?? {}) : parseGithubEvent(event, body.value);
      // Events Parley does not render are acknowledged so GitHub marks the delivery successful.
      if (!post) return null;
      return postOne(ctx, hook, retry, post, { dialect: 'github', body: { event, body: raw } });
    }
  }
}

/** Posts a converted body without files; the key is read after the body converted, as it always was. */
function postOne(
  ctx: DomainContext,
  hook: WebhookTable,
  retry: RetryIdentity,
  p: WebhookPost,
  fingerprintBody: unknown,
  threadId?: string,
): Promise<CreateResult> {
  const key = retry.key();
  const idem: IdempotencyRequest | undefined =
    key === undefined ? undefined : { caller: callerOf(hook), key, fingerprint: retry.fingerprint(fingerprintBody) };
  return webhooks.execute(
    ctx,
    hook,
    {
      content: p.content,
      embeds: p.embeds,
      uploads: [],
      username: p.username,
      avatarUrl: p.avatarUrl,
      allowedMentions: p.allowedMentions,
      ...(p.components ? { components: p.components } : {}),
      ...(threadId !== undefined ? { threadId } : {}),
      ...(p.thread ? { thread: p.thread } : {}),
    },
    idem,
  );
}

/**
 * A Discord multipart post. The key is looked up before any file is stored: a replay
 * stores nothing. Stored files are removed on every failure, and when a concurrent
 * request with the same key won (its message stands; these files were never used).
 */
async function postMultipart(
  ctx: DomainContext,
  hook: WebhookTable,
  source: PartStream,
  retry: RetryIdentity,
  threadId?: string,
): Promise<CreateResult> {
  const caller = callerOf(hook);
  const key = retry.key();
  const earlier = key === undefined ? null : await earlierResponse(ctx, caller, key);
  const form = await readUploadParts(ctx, hook, source, {
    store: earlier === null,
    digest: key !== undefined,
    // Refuse a bad payload before storing a byte, when it comes first (as Discord's own clients send it).
    check: (fields) => {
      if (fields.payload_json !== undefined) parseDiscordForm(fields, { hasFiles: true });
    },
  });
  try {
    const parsed = parseDiscordForm(form.fields, { hasFiles: form.files > 0 });
    // Files count by name, size and SHA-256, so other bytes under the same name are another request.
    const fingerprintBody = {
      dialect: 'discord',
      body: { fields: form.fields, files: form.digests },
      ...(threadId !== undefined ? { threadId } : {}),
    };
    const idem = key === undefined ? undefined : { caller, key, fingerprint: retry.fingerprint(fingerprintBody) };
    if (earlier && idem) return replayEarlier(earlier, idem.fingerprint);
    // Embeds may show an uploaded file with attachment://<filename>.
    const urls = new Map(form.stored.map((u) => [u.filename, attachmentOf(ctx.publicUrl, u).url]));
    const input = {
      ...parsed,
      embeds: resolveAttachmentRefs(parsed.embeds, urls),
      uploads: form.stored,
      ...(threadId !== undefined ? { threadId } : {}),
    };
    const result = await webhooks.execute(ctx, hook, input, idem);
    if (result.replayed) await uploads.discard(ctx, form.stored);
    return result;
  } catch (err) {
    await uploads.discard(ctx, form.stored);
    throw err;
  }
}

/**
 * Reads a Discord multipart body: `payload_json` (or plain fields) and file parts, stored
 * as uploads of `uploader` (a webhook, or the bot or person sending through the Discord
 * layer). With `store` false (a replay) the files are only hashed; with `digest` each
 * file's digest is taken for the fingerprint; `check` sees the fields read before the
 * first file, to refuse a bad payload before a byte is stored. `fields` lists each stored
 * file's form field (Discord's `files[n]`). On failure, whatever was stored is removed.
 */
export async function readUploadParts(
  ctx: DomainContext,
  uploader: { id: string },
  source: PartStream,
  opts: { store: boolean; digest: boolean; check?: (fields: Record<string, string>) => void },
) {
  const fields: Record<string, string> = {};
  const stored: StoredUpload[] = [];
  const storedFields: string[] = [];
  const digests: FileDigest[] = [];
  let files = 0;
  try {
    for await (const part of source.parts) {
      if (part.type === 'field') {
        fields[part.name] = part.value;
        continue;
      }
      if (files === 0) opts.check?.(fields);
      files++;
      const bytes = part.open();
      const truncated = () => part.truncated();
      if (!opts.store) {
        const { size, sha256 } = await digestWithoutStoring(bytes, source.maxFileBytes, truncated);
        digests.push([part.filename, size, sha256]);
        continue;
      }
      await source.admitFile?.();
      const tapped = opts.digest ? digesting(bytes) : undefined;
      const upload = await uploads.store(
        ctx,
        { id: uploader.id },
        {
          filename: part.filename,
          contentType: part.contentType,
          data: tapped?.stream ?? bytes,
          maxBytes: source.maxFileBytes,
          truncated,
        },
      );
      stored.push(upload);
      storedFields.push(part.field ?? '');
      if (tapped) digests.push([part.filename, upload.size, tapped.sha256()]);
    }
  } catch (err) {
    await uploads.discard(ctx, stored);
    throw err instanceof AppError ? err : source.explain(err);
  }
  return { fields, stored, storedFields, digests, files };
}

/**
 * Passes `data` through unchanged while hashing it, so a stored file part can be
 * fingerprinted without reading it twice. `sha256()` is valid once the stream has ended.
 * Errors and early closes travel both ways, as in a pipeline.
 */
function digesting(data: Readable): { stream: Readable; sha256(): string } {
  const hash = createHash('sha256');
  const tap = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      done(null, chunk);
    },
  });
  // Failures reach the consumer through `tap`; nothing to do here.
  const stream = pipeline(data, tap, () => {});
  return { stream, sha256: () => hash.digest('base64url') };
}

/**
 * Reads a file part to its end without keeping it, for a request that is a replay: its
 * size and SHA-256. Over `maxBytes` (the parser truncates there) is a 413, as storing
 * it would have been.
 */
async function digestWithoutStoring(data: Readable, maxBytes: number, truncated: () => boolean): Promise<{ size: number; sha256: string }> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of data as AsyncIterable<Buffer>) {
    hash.update(chunk);
    size += chunk.length;
  }
  if (truncated() || size > maxBytes) throw fileTooLarge(maxBytes);
  return { size, sha256: hash.digest('base64url') };
}
