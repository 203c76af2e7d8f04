/**
 * Discord's `/applications/{appId}/[guilds/{guildId}/]commands` (application commands)
 * and `/interactions/{id}/{token}/callback` routes, over section 12's domain
 * (src/domain/interactions.ts): a bot's application id is its user id, Discord's command
 * objects and callback types are translated (`../interactions.ts`) and nothing else is
 * decided here.
 */
import type { InteractionCallbackBody, InteractionMessageBody } from '@parley/protocol';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { commands, interactions } from '../../domain/interactions.js';
import { AppError } from '../../errors.js';
import { authenticate } from '../../http/plugins/auth.js';
import type { RouteDeps } from '../../http/routes/deps.js';
import { RULES, enforce } from '../../http/plugins/rate-limit.js';
import { editFromDiscord, messageFromDiscord } from '../bodies.js';
import { CALLBACK_TYPE, commandFromDiscord, commandPatchFromDiscord, discordCommand } from '../interactions.js';
import { MESSAGE_FLAGS, discordMessage } from '../objects.js';
import { hidden } from './common.js';

type Params = { appId: string; guildId?: string; cmdId?: string };

/** A message body of a callback or follow-up, from Discord's (`flags` 64: ephemeral). */
export function answerFromDiscord(data: unknown): InteractionMessageBody {
  const m = messageFromDiscord(data ?? {}, { hasFiles: true });
  return {
    content: m.content,
    ...(m.embeds.length ? { embeds: m.embeds as InteractionMessageBody['embeds'] } : {}),
    ...(m.components ? { components: m.components } : {}),
    ...(m.allowedMentions ? { allowedMentions: m.allowedMentions } : {}),
    ...((m.flags & MESSAGE_FLAGS.ephemeral) !== 0 ? { ephemeral: true } : {}),
  };
}

/** An edit of an answer (update callback, PATCH @original): parts left out stay as they are. */
export function editAnswerFromDiscord(data: unknown): InteractionMessageBody {
  const e = editFromDiscord(data ?? {});
  return {
    ...(e.content !== undefined ? { content: e.content } : {}),
    ...(e.embeds !== undefined ? { embeds: e.embeds as InteractionMessageBody['embeds'] } : {}),
    ...(e.components !== undefined ? { components: e.components } : {}),
  };
}

/** Discord's callback body as the domain's. */
function callbackFromDiscord(body: unknown): InteractionCallbackBody {
  const b = (typeof body === 'object' && body !== null ? body : {}) as { type?: unknown; data?: Record<string, unknown> };
  const type = typeof b.type === 'number' ? CALLBACK_TYPE[b.type] : undefined;
  if (!type) {
    const given = typeof b.type === 'number' ? `callback type ${b.type} is not supported` : 'callback type is missing';
    throw new AppError('invalid_callback', `${given}; the supported types are 4, 5, 6, 7 and 8`);
  }
  switch (type) {
    case 'message':
      return { type, data: answerFromDiscord(b.data) };
    case 'update':
      return { type, data: editAnswerFromDiscord(b.data) };
    case 'deferred':
      return { type, data: { ephemeral: (Number(b.data?.flags ?? 0) & MESSAGE_FLAGS.ephemeral) !== 0 } };
    case 'autocomplete': {
      const choices = Array.isArray(b.data?.choices) ? (b.data.choices as Array<{ name: string; value: string | number }>) : [];
      return { type, data: { choices: choices.map((c) => ({ name: c.name, value: c.value })) } };
    }
    default:
      return { type: type as 'deferredUpdate' };
  }
}

export function discordInteractionRoutes(api: FastifyInstance, { ctx, limiter }: RouteDeps): void {
  const view = () => ({ publicUrl: ctx.publicUrl });

  const list = async (req: FastifyRequest<{ Params: Params }>) =>
    commands.list(ctx, await authenticate(ctx, req, 'any'), req.params.appId, req.params.guildId);

  /** The caller, once the manage limit let the request through. */
  async function manager(req: FastifyRequest<{ Params: Params }>, reply: FastifyReply) {
    const c = await authenticate(ctx, req, 'any');
    await enforce(limiter, RULES.manage, c.id, reply);
    return c;
  }

  // Each route is one domain action: a create or edit touches its one command in one
  // transaction, so concurrent ones never undo each other; PUT is the bulk overwrite.
  for (const base of ['/applications/:appId/commands', '/applications/:appId/guilds/:guildId/commands']) {
    api.get<{ Params: Params }>(base, hidden, async (req) => (await list(req)).map(discordCommand));

    // Who may manage them is decided before a body is read, as on Discord (`list` checks it).
    api.put<{ Params: Params }>(base, hidden, async (req, reply) => {
      await list(req);
      if (!Array.isArray(req.body)) throw new AppError('invalid_body', 'expected an array of application commands');
      const next = req.body.map((b) => commandFromDiscord(b));
      const saved = await commands.overwrite(ctx, await manager(req, reply), req.params.appId, req.params.guildId, next);
      return saved.map(discordCommand);
    });

    // Discord's create is an upsert by name: a command of that name is replaced (200), else added (201).
    api.post<{ Params: Params }>(base, hidden, async (req, reply) => {
      await list(req);
      const caller = await manager(req, reply);
      const { command, created } = await commands.create(ctx, caller, req.params.appId, req.params.guildId, commandFromDiscord(req.body));
      reply.code(created ? 201 : 200);
      return discordCommand(command);
    });

    api.get<{ Params: Params }>(`${base}/:cmdId`, hidden, async (req) =>
      discordCommand(await commands.get(ctx, await authenticate(ctx, req, 'any'), req.params.appId, req.params.guildId, req.params.cmdId!)),
    );

    api.patch<{ Params: Params }>(`${base}/:cmdId`, hidden, async (req, reply) => {
      await list(req);
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
      const body = callbackFromDiscord(req.body);
      await interactions.callback(ctx, req.params.id, req.params.token, body);
      if (req.query.with_response !== 'true') return reply.code(204).send();
      // discord.js's `withResponse`: the interaction and, for a message, the answer.
      const message = body.type === 'message' || body.type === 'deferred' ? await interactions.getOriginal(ctx, req.params.token) : null;
      return {
        interaction: {
          id: req.params.id,
          type: 2,
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
