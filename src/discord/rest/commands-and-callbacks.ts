/**
 * Discord's `/applications/{appId}/[guilds/{guildId}/]commands` (application commands)
 * and `/interactions/{id}/{token}/callback` routes, over the commands domain (docs/commands.md)
 * (src/domain/interactions/): a bot's application id is its user id, Discord's command
 * objects and callback types are translated (`../interaction-objects.ts`) and nothing else
 * is decided here.
 */
import type { InteractionCallbackBody, InteractionMessageBody } from '@parley/protocol';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { DomainContext } from '../../domain/context.js';
import { type AnswerBody, type CallbackBody, answers } from '../../domain/interactions/answers.js';
import { commands } from '../../domain/interactions/commands.js';
import { AppError, badRequest } from '../../errors.js';
import { resolveAttachmentRefs } from '../../webhooks/discord.js';
import type { Embed } from '../../webhooks/types.js';
import { authenticate } from '../../http/plugins/auth.js';
import type { RouteDeps } from '../../http/routes/deps.js';
import { RULES, enforce } from '../../http/plugins/rate-limit.js';
import { editFromDiscord, messageFromDiscord } from '../bodies.js';
import { CALLBACK_TYPE, commandFromDiscord, commandPatchFromDiscord, discordCommand, modalFromDiscord } from '../interaction-objects.js';
import { INTERACTION_TYPE, MESSAGE_FLAGS, discordMessage } from '../objects.js';
import { type AttachmentItem, type DiscordForm, editedFiles, hidden, newMessageFiles, queryBool, readDiscordForm } from './common.js';

type Params = { appId: string; guildId?: string; cmdId?: string };

/** A message body of a callback or follow-up (`flags` 64: ephemeral), with the `attachments` list naming its files. */
export function answerFromDiscord(data: unknown): { body: InteractionMessageBody; list?: AttachmentItem[] } {
  const m = messageFromDiscord(data ?? {}, { hasFiles: true });
  const body: InteractionMessageBody = {
    content: m.content,
    ...(m.embeds.length ? { embeds: m.embeds as InteractionMessageBody['embeds'] } : {}),
    ...(m.components ? { components: m.components } : {}),
    ...(m.allowedMentions ? { allowedMentions: m.allowedMentions } : {}),
    ...((m.flags & MESSAGE_FLAGS.ephemeral) !== 0 ? { ephemeral: true } : {}),
  };
  return { body, ...(m.attachments ? { list: m.attachments } : {}) };
}

/** An edit of an answer (update callback, PATCH @original): parts left out stay as they are. */
export function editAnswerFromDiscord(data: unknown): { body: InteractionMessageBody; list?: AttachmentItem[] } {
  const e = editFromDiscord(data ?? {});
  const body: InteractionMessageBody = {
    ...(e.content !== undefined ? { content: e.content } : {}),
    ...(e.embeds !== undefined ? { embeds: e.embeds as InteractionMessageBody['embeds'] } : {}),
    ...(e.components !== undefined ? { components: e.components } : {}),
  };
  return { body, ...(e.attachments ? { list: e.attachments } : {}) };
}

/** A new answer with the request's files: the kept ones by upload URL, `attachment://name` in embeds resolved. */
export async function answerWithFiles(
  ctx: DomainContext,
  form: DiscordForm<unknown>,
  read: { body: InteractionMessageBody; list?: AttachmentItem[] },
): Promise<InteractionMessageBody> {
  const files = await newMessageFiles(ctx, form, read.list);
  if (files.attachments.length === 0) return read.body;
  const embeds = read.body.embeds && resolveAttachmentRefs(read.body.embeds as Embed[], files.urls);
  return { ...read.body, attachments: files.attachments, ...(embeds ? { embeds: embeds as InteractionMessageBody['embeds'] } : {}) };
}

/** An edit with the request's files (Discord's `attachments` semantics, see `editedFiles`). */
export async function editWithFiles(
  ctx: DomainContext,
  form: DiscordForm<unknown>,
  read: { body: InteractionMessageBody; list?: AttachmentItem[] },
): Promise<AnswerBody> {
  const files = await editedFiles(ctx, form, read.list);
  if (files === undefined) return read.body;
  // `attachment://name` shows one of the files this request added (the others are gone).
  const urls = new Map(files.items.flatMap((i) => ('url' in i ? [[i.filename, i.url] as const] : [])));
  const embeds = read.body.embeds && resolveAttachmentRefs(read.body.embeds as Embed[], urls);
  return { ...read.body, files, ...(embeds ? { embeds: embeds as InteractionMessageBody['embeds'] } : {}) };
}

/** Discord's callback body, its message part still to be joined with the request's files. */
type DiscordCallback =
  | { type: 'message'; read: { body: InteractionMessageBody; list?: AttachmentItem[] } }
  | { type: 'update'; read: { body: InteractionMessageBody; list?: AttachmentItem[] } }
  | { type: 'other'; body: InteractionCallbackBody };

/** Discord's callback body as the domain's. */
function callbackFromDiscord(body: unknown): DiscordCallback {
  const b = (typeof body === 'object' && body !== null ? body : {}) as { type?: unknown; data?: Record<string, unknown> };
  const type = typeof b.type === 'number' ? CALLBACK_TYPE[b.type] : undefined;
  if (!type) {
    const given = typeof b.type === 'number' ? `callback type ${b.type} is not supported` : 'callback type is missing';
    throw new AppError('invalid_callback', `${given}; the supported types are 4, 5, 6, 7, 8 and 9`);
  }
  switch (type) {
    case 'message':
      return { type, read: answerFromDiscord(b.data) };
    case 'update':
      return { type, read: editAnswerFromDiscord(b.data) };
    case 'deferred':
      return { type: 'other', body: { type, data: { ephemeral: (Number(b.data?.flags ?? 0) & MESSAGE_FLAGS.ephemeral) !== 0 } } };
    case 'autocomplete': {
      const choices = Array.isArray(b.data?.choices) ? (b.data.choices as Array<{ name: string; value: string | number }>) : [];
      return { type: 'other', body: { type, data: { choices: choices.map((c) => ({ name: c.name, value: c.value })) } } };
    }
    case 'modal':
      return { type: 'other', body: { type, data: { modal: modalFromDiscord(b.data) } } };
    default:
      return { type: 'other', body: { type: type as 'deferredUpdate' } };
  }
}

/** The callback with the request's files: a message's (type 4) and an update's (7); the other types carry none. */
async function callbackWithFiles(ctx: DomainContext, form: DiscordForm<DiscordCallback>): Promise<CallbackBody> {
  const c = form.json;
  if (c.type === 'message') return { type: 'message', data: await answerWithFiles(ctx, form, c.read) };
  if (c.type === 'update') return { type: 'update', data: await editWithFiles(ctx, form, c.read) };
  if (form.stored.length > 0) throw badRequest(`a ${c.body.type} callback carries no files`, 'invalid_callback');
  return c.body;
}

export function discordInteractionRoutes(api: FastifyInstance, deps: RouteDeps): void {
  const { ctx, limiter } = deps;
  const view = () => ({ publicUrl: ctx.publicUrl });

  /**
   * The caller, once allowed to manage the scope's commands and let through by the manage
   * limit: decided before a body is read, as on Discord (a stranger's bad body is a 403).
   */
  async function manager(req: FastifyRequest<{ Params: Params }>, reply: FastifyReply) {
    const caller = await authenticate(ctx, req, 'any');
    await commands.requireManager(ctx, caller, req.params.appId, req.params.guildId);
    await enforce(limiter, RULES.manage, caller.id, reply);
    return caller;
  }

  // Each route is one domain action: a create or edit touches its one command in one
  // transaction, so concurrent ones never undo each other; PUT is the bulk overwrite.
  for (const base of ['/applications/:appId/commands', '/applications/:appId/guilds/:guildId/commands']) {
    api.get<{ Params: Params }>(base, hidden, async (req) =>
      (await commands.list(ctx, await authenticate(ctx, req, 'any'), req.params.appId, req.params.guildId)).map(discordCommand),
    );

    api.put<{ Params: Params }>(base, hidden, async (req, reply) => {
      const caller = await manager(req, reply);
      if (!Array.isArray(req.body)) throw new AppError('invalid_body', 'expected an array of application commands');
      const next = req.body.map((b) => commandFromDiscord(b));
      return (await commands.overwrite(ctx, caller, req.params.appId, req.params.guildId, next)).map(discordCommand);
    });

    // Discord's create is an upsert by name: a command of that name is replaced (200), else added (201).
    api.post<{ Params: Params }>(base, hidden, async (req, reply) => {
      const caller = await manager(req, reply);
      const { command, created } = await commands.create(ctx, caller, req.params.appId, req.params.guildId, commandFromDiscord(req.body));
      reply.code(created ? 201 : 200);
      return discordCommand(command);
    });

    api.get<{ Params: Params }>(`${base}/:cmdId`, hidden, async (req) =>
      discordCommand(await commands.get(ctx, await authenticate(ctx, req, 'any'), req.params.appId, req.params.guildId, req.params.cmdId!)),
    );

    api.patch<{ Params: Params }>(`${base}/:cmdId`, hidden, async (req, reply) => {
      const caller = await manager(req, reply);
      const patch = commandPatchFromDiscord(req.body);
      return discordCommand(await commands.edit(ctx, caller, req.params.appId, req.params.guildId, req.params.cmdId!, patch));
    });

    api.delete<{ Params: Params }>(`${base}/:cmdId`, hidden, async (req, reply) => {
      const caller = await manager(req, reply);
      await commands.remove(ctx, caller, req.params.appId, req.params.guildId, req.params.cmdId!);
      return reply.code(204).send();
    });
  }

  // The token is the credential (no Authorization), as on Discord.
  api.post<{ Params: { id: string; token: string }; Querystring: { with_response?: string } }>(
    '/interactions/:id/:token/callback',
    hidden,
    async (req, reply) => {
      // The token is checked before a file is stored; the files are the bot's uploads, and
      // go again if the callback is refused (its window passed, a bad body): nothing stays.
      const bot = await answers.botOf(ctx, req.params.token, req.params.id);
      const form = await readDiscordForm(
        ctx,
        deps,
        req,
        bot,
        () => enforce(limiter, RULES.uploads, bot, reply),
        (json) => callbackFromDiscord(json),
      );
      let body: CallbackBody;
      let kind: Awaited<ReturnType<typeof answers.callback>>;
      try {
        body = await callbackWithFiles(ctx, form);
        kind = await answers.callback(ctx, req.params.id, req.params.token, body);
      } catch (err) {
        await form.discard();
        throw err;
      }
      if (!queryBool(req.query.with_response)) return reply.code(204).send();
      // discord.js's `withResponse`: the interaction and, for a message, the answer.
      // An update's message is the clicked one, edited (what `messages/@original` names then).
      const withMessage = body.type === 'message' || body.type === 'deferred' || body.type === 'update';
      const message = withMessage ? await answers.getOriginal(ctx, req.params.token) : null;
      return {
        interaction: {
          id: req.params.id,
          type: INTERACTION_TYPE[kind],
          activity_instance_id: null,
          response_message_id: message?.id ?? null,
          response_message_loading: body.type === 'deferred',
          response_message_ephemeral: message?.ephemeral === true,
        },
        resource: {
          type: Number(Object.entries(CALLBACK_TYPE).find(([, t]) => t === body.type)?.[0]),
          ...(message ? { message: discordMessage(message, view()) } : {}),
        },
      };
    },
  );
}
