/**
 * What the Discord routes share: reading a Discord multipart message body into stored
 * uploads, and small helpers. Handlers stay thin: authenticate, limit, call the domain
 * action the native route calls, serialize with objects.ts.
 */
import type { FastifyRequest } from 'fastify';
import type { Static, TSchema } from 'typebox';
import { Compile, type Validator } from 'typebox/compile';
import { badRequest } from '../../errors.js';
import { isId } from '../../ids.js';
import { readUploadParts } from '../../domain/webhook-execution.js';
import { type StoredUpload, attachmentOf, uploads } from '../../domain/uploads.js';
import type { DomainContext } from '../../domain/context.js';
import { malformedMultipart } from '../../http/plugins/multipart.js';
import { partsOf } from '../../http/routes/webhook-execute.js';
import type { RouteDeps } from '../../http/routes/deps.js';
import { parseJsonField } from '../../webhooks/text.js';
import { resolveAttachmentRefs } from '../../webhooks/discord.js';
import { type DiscordMessageInput, messageFromDiscord } from '../bodies.js';
import type { FilesEdit } from '../../domain/interactions/answers.js';

/** Discord's routes are documented in docs/discord.md, not in the native OpenAPI document. */
export const hidden = { schema: { hide: true } } as const;

/** A Discord query-string number (`limit`): absent stays absent; anything but digits is a 50035. */
export function queryInt(value: unknown, name: string): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string' || !/^\d{1,4}$/.test(value)) throw badRequest(`${name} must be an integer`, 'invalid_query');
  return Number(value);
}

/**
 * A user id in a path (`members/{userId}`): a snowflake, or `@me` where `me` is given.
 * Anything else (`members/search`, a typo) is Discord's 400 50035 naming `user_id`, never a
 * lookup that would answer Unknown Member for a route name.
 */
export function pathUserId(value: string, me?: string): string {
  if (value === '@me' && me !== undefined) return me;
  if (!isId(value)) throw badRequest(`user_id must be a snowflake${me !== undefined ? ' or @me' : ''}`, 'invalid_params');
  return value;
}

/** A snowflake in a query string (`after`, `before`): one the store can compare, else 400 50035 naming the parameter. */
export function snowflakeQuery(value: string, name: string): string {
  if (!isId(value)) throw badRequest(`${name} must be a snowflake`, 'invalid_query');
  return value;
}

const queryValidators = new Map<TSchema, Validator>();
/**
 * A query string checked against a route's TypeBox schema inside the handler, where the
 * check must come after another (membership first, so a stranger learns nothing): 400
 * 50035 naming the first broken parameter, as a route's `querystring` schema answers.
 */
export function checkQuery<T extends TSchema>(schema: T, query: unknown): Static<T> {
  let v = queryValidators.get(schema);
  if (!v) {
    v = Compile(schema) as Validator;
    queryValidators.set(schema, v);
  }
  if (v.Check(query)) return query as Static<T>;
  const first = v.Errors(query)[0];
  const missing = (first?.params as { requiredProperties?: string[] } | undefined)?.requiredProperties?.[0];
  if (missing !== undefined) throw badRequest(`${missing} is required`, 'invalid_query');
  const where = (first?.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.');
  throw badRequest(`${where || 'query'} ${first?.message ?? 'is invalid'}`, 'invalid_query');
}

/** A query-string value as one string (the last, when repeated). */
export function queryString(value: unknown): string | undefined {
  if (Array.isArray(value)) return queryString(value[value.length - 1]);
  return typeof value === 'string' ? value : undefined;
}

/**
 * A boolean query parameter as Discord reads it: `true`, `True` and `1` are true (discord.py
 * sends `wait=1` and `with_response=1`, discord.js `true`); anything else, or none, is false.
 */
export function queryBool(value: unknown): boolean {
  const v = queryString(value);
  return v === 'true' || v === 'True' || v === '1';
}

/** One item of Discord's `attachments`: a `files[n]` part of this request (`id` n) or, on an edit, a file the message has. */
export type AttachmentItem = { id: string; filename?: string };

/**
 * A Discord request body with its file parts stored as uploads: `json` is the body (JSON,
 * or multipart's `payload_json`, or plain fields), `byId` the files by attachment id
 * (`files[3]` is 3; a part with another name is its position). `discard` removes every
 * stored file: the route calls it when the request fails after reading, so a refused
 * request leaves no upload behind.
 */
export interface DiscordForm<T> {
  json: T;
  stored: StoredUpload[];
  byId: Map<string, StoredUpload>;
  discard(): Promise<void>;
}

/**
 * Reads a Discord body, JSON or multipart (`payload_json` + `files[n]`), the one way every
 * Discord route that takes files reads it: channel messages, interaction callbacks,
 * follow-ups and edits. Files are stored as `uploaderId`'s uploads under the service's
 * limits (size per file and number of files: the multipart parser's; a file over the size
 * is 413, Discord's 40005). `parse` reads the JSON (`hasFiles`: the request carried files);
 * given the fields read before the first file, it refuses a bad payload before a byte is
 * stored. `plain` reads a multipart body without `payload_json` (channel messages take
 * plain `content`). `admitFile` runs before each file is stored: the caller's upload limit
 * (and whatever else must hold before a byte is written). On any failure while reading,
 * whatever was stored is removed.
 */
export async function readDiscordForm<T>(
  ctx: DomainContext,
  deps: RouteDeps,
  req: FastifyRequest,
  uploaderId: string,
  admitFile: () => Promise<void>,
  parse: (json: unknown, hasFiles: boolean) => T,
  plain?: (fields: Record<string, string>) => unknown,
): Promise<DiscordForm<T>> {
  if (!req.isMultipart()) return { json: parse(req.body, false), stored: [], byId: new Map(), discard: async () => {} };
  const fromFields = (fields: Record<string, string>, hasFiles: boolean) => {
    if (fields.payload_json !== undefined) return parse(parseJsonField(fields.payload_json, 'payload_json'), hasFiles);
    if (!plain) throw badRequest('payload_json is required');
    return parse(plain(fields), hasFiles);
  };
  const source = {
    parts: partsOf(req, deps.config.maxUploadBytes),
    maxFileBytes: deps.config.maxUploadBytes,
    explain: malformedMultipart,
    admitFile,
  };
  const form = await readUploadParts(ctx, { id: uploaderId }, source, {
    store: true,
    digest: false,
    check: (fields) => {
      if (fields.payload_json !== undefined || plain) void fromFields(fields, true);
    },
  });
  const discard = () => uploads.discard(ctx, form.stored);
  try {
    const byId = new Map<string, StoredUpload>();
    form.stored.forEach((u, i) => {
      const m = /^files\[(\d+)\]$/.exec(form.storedFields[i] ?? '');
      byId.set(m ? m[1]! : String(i), u);
    });
    return { json: fromFields(form.fields, form.files > 0), stored: form.stored, byId, discard };
  } catch (err) {
    await discard();
    throw err;
  }
}

/** Files of a new message, as the domain takes them, and the URLs `attachment://name` resolves to. */
export interface NewFiles {
  attachments: Array<{ url: string; filename: string }>;
  urls: Map<string, string>;
}

/**
 * The files a new message gets: those `attachments: [{id: n, filename?}]` names, in its
 * order, or every file when it names none. Files it leaves out are removed now. A JSON
 * body may not name files (it has none).
 */
export async function newMessageFiles(
  ctx: DomainContext,
  form: DiscordForm<unknown>,
  list: AttachmentItem[] | undefined,
): Promise<NewFiles> {
  if (list?.length && form.stored.length === 0) throw badRequest('attachments name files[n] parts: send them as multipart/form-data');
  const kept = list
    ? list.map((a, i) => {
        const upload = form.byId.get(a.id);
        if (!upload) throw badRequest(`attachments[${i}]: no files[${a.id}] part was sent`);
        return { upload, filename: a.filename ?? upload.filename };
      })
    : form.stored.map((upload) => ({ upload, filename: upload.filename }));
  const urls = new Map(kept.map((k) => [k.filename, attachmentOf(ctx.publicUrl, k.upload).url]));
  for (const k of kept) urls.set(k.upload.filename, attachmentOf(ctx.publicUrl, k.upload).url);
  await dropUnused(ctx, form, new Set(kept.map((k) => k.upload.id)));
  return { attachments: kept.map((k) => ({ url: attachmentOf(ctx.publicUrl, k.upload).url, filename: k.filename })), urls };
}

/**
 * The files an edit leaves, Discord's way (API v10): no `attachments` and no files keeps
 * them as they are (undefined); files without a list are added to the ones kept; a list
 * is the whole new set, each item a `files[n]` of this request or one of the message's
 * own (by its attachment id, the upload's). Files the list leaves out are removed now.
 */
export async function editedFiles(
  ctx: DomainContext,
  form: DiscordForm<unknown>,
  list: AttachmentItem[] | undefined,
): Promise<FilesEdit | undefined> {
  const ref = (u: StoredUpload) => ({ url: attachmentOf(ctx.publicUrl, u).url, filename: u.filename });
  if (list === undefined) return form.stored.length === 0 ? undefined : { keepAll: true, items: form.stored.map(ref) };
  const items = list.map((a) => {
    const upload = form.byId.get(a.id);
    return upload ? ref(upload) : { keep: a.id };
  });
  await dropUnused(ctx, form, new Set(list.flatMap((a) => form.byId.get(a.id)?.id ?? [])));
  return { keepAll: false, items };
}

/** Removes the stored files not among `used`: they are no message's. */
async function dropUnused(ctx: DomainContext, form: DiscordForm<unknown>, used: Set<string>): Promise<void> {
  const unused = form.stored.filter((u) => !used.has(u.id));
  if (unused.length > 0) await uploads.discard(ctx, unused);
}

/** Discord's create-message body as a multipart form without `payload_json`: plain `content`, `nonce`, `embeds`. */
export function plainMessageFields(fields: Record<string, string>): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const key of ['content', 'nonce'] as const) if (fields[key] !== undefined) body[key] = fields[key];
  if (fields.embeds !== undefined) body.embeds = parseJsonField(fields.embeds, 'embeds');
  return body;
}

/** A channel message's body and files (see `readDiscordForm`, `newMessageFiles`); embeds' `attachment://name` resolved. */
export async function readMessageBody(
  ctx: DomainContext,
  deps: RouteDeps,
  req: FastifyRequest,
  uploaderId: string,
  admitFile: () => Promise<void>,
) {
  const form = await readDiscordForm(
    ctx,
    deps,
    req,
    uploaderId,
    admitFile,
    (json, hasFiles) => messageFromDiscord(json, { hasFiles }),
    plainMessageFields,
  );
  try {
    const files = await newMessageFiles(ctx, form, form.json.attachments);
    const input: DiscordMessageInput = { ...form.json, embeds: resolveAttachmentRefs(form.json.embeds, files.urls) };
    return { input, attachments: files.attachments, discard: form.discard };
  } catch (err) {
    await form.discard();
    throw err;
  }
}
