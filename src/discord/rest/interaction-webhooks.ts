/**
 * Interaction follow-ups on Discord's webhook paths: `/webhooks/{applicationId}/{interactionToken}`
 * (execute: a follow-up message) and `.../messages/@original` or `.../messages/{messageId}`
 * (get, edit, delete). Discord shares these paths between webhooks and interactions; the
 * webhook routes (webhooks.ts) handle a path whose id is a webhook's and hand every other
 * one here, `@original` always.
 *
 * Each gets the request and reply and answers as a route handler does (return the body,
 * or send through `reply`); the domain's interaction rules (windows, acknowledgement,
 * ephemeral answers) apply unchanged.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, notFound } from '../../errors.js';
import type { RouteDeps } from '../../http/routes/deps.js';
import { answers } from '../../domain/interactions/answers.js';
import { discordMessage } from '../objects.js';
import type { Message } from '@parley/protocol';
import { readDiscordForm } from './common.js';
import { RULES, enforce } from '../../http/plugins/rate-limit.js';
import { answerFromDiscord, answerWithFiles, editAnswerFromDiscord, editWithFiles } from './commands-and-callbacks.js';

/** One call on an interaction's webhook path. */
export interface InteractionWebhookCall {
  deps: RouteDeps;
  request: FastifyRequest;
  reply: FastifyReply;
  /** The bot's user id (a bot's application id is its user id). */
  applicationId: string;
  /** The interaction's token, as sent (unverified). */
  token: string;
}

/** A call on one message: `@original` (the interaction's answer) or a follow-up's id. */
export interface InteractionMessageCall extends InteractionWebhookCall {
  messageId: string;
}

const unknown = () => notFound('webhook', 'Unknown Webhook');

const view = (call: InteractionWebhookCall) => ({ publicUrl: call.deps.ctx.publicUrl });

/** A token that names no interaction is, on these paths, Discord's Unknown Webhook (10015). */
async function asWebhook<T>(p: Promise<T>): Promise<T> {
  try {
    return await p;
  } catch (err) {
    if (err instanceof AppError && err.code === 'unknown_interaction') throw unknown();
    throw err;
  }
}

/**
 * The interaction's token is the credential (`<interaction id>.<secret>`), as the native
 * `/interactions/{token}/...` routes take it; the application id in the path is Discord's
 * and is not checked beyond the token.
 */
export const interactionWebhooks = {
  /**
   * `POST /webhooks/{applicationId}/{token}` (JSON, or multipart with `files[n]`): a
   * follow-up; `?wait=true` answers the message, else 204. Files are the bot's uploads,
   * removed again if the follow-up is refused.
   */
  async execute(call: InteractionWebhookCall & { wait: boolean }): Promise<unknown> {
    const { ctx } = call.deps;
    const form = await readForm(call, answerFromDiscord);
    let m: Message;
    try {
      m = await asWebhook(answers.followUp(ctx, call.token, await answerWithFiles(ctx, form, form.json)));
    } catch (err) {
      await form.discard();
      throw err;
    }
    if (!call.wait) return call.reply.code(204).send();
    return discordMessage(m, view(call));
  },
  /** `GET /webhooks/{applicationId}/{token}`: Discord answers the application's webhook object; not supported. */
  async get(_call: InteractionWebhookCall): Promise<unknown> {
    throw unknown();
  },
  /** `GET .../messages/@original` or `.../messages/{id}` of a follow-up. */
  async getMessage(call: InteractionMessageCall): Promise<unknown> {
    return discordMessage(await asWebhook(answers.getMessage(call.deps.ctx, call.token, call.messageId)), view(call));
  },
  /**
   * `PATCH .../messages/@original` or a follow-up's (JSON, or multipart with `files[n]`):
   * `attachments` lists the files to keep and the new ones (Discord's v10 semantics).
   */
  async editMessage(call: InteractionMessageCall): Promise<unknown> {
    const { ctx } = call.deps;
    const form = await readForm(call, editAnswerFromDiscord);
    let m: Message;
    try {
      m = await asWebhook(answers.editMessage(ctx, call.token, call.messageId, await editWithFiles(ctx, form, form.json)));
    } catch (err) {
      await form.discard();
      throw err;
    }
    return discordMessage(m, view(call));
  },
  /** `DELETE .../messages/@original` or a follow-up's: 204. */
  async deleteMessage(call: InteractionMessageCall): Promise<unknown> {
    await asWebhook(answers.deleteMessage(call.deps.ctx, call.token, call.messageId));
    return call.reply.code(204).send();
  },
};

/** The body, its files stored as the bot's uploads once the token is known to be an interaction's. */
async function readForm<T>(call: InteractionWebhookCall, parse: (json: unknown) => T) {
  const bot = await asWebhook(answers.botOf(call.deps.ctx, call.token));
  const { limiter } = call.deps;
  return readDiscordForm(call.deps.ctx, call.deps, call.request, bot, () => enforce(limiter, RULES.uploads, bot, call.reply), parse);
}
