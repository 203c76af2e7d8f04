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
import { interactions } from '../../domain/interactions.js';
import { discordMessage } from '../objects.js';
import { answerFromDiscord, editAnswerFromDiscord } from './interactions.js';

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
  /** `POST /webhooks/{applicationId}/{token}` (JSON): a follow-up; `?wait=true` answers the message, else 204. */
  async execute(call: InteractionWebhookCall & { wait: boolean }): Promise<unknown> {
    const m = await asWebhook(interactions.followUp(call.deps.ctx, call.token, answerFromDiscord(call.request.body)));
    if (!call.wait) return call.reply.code(204).send();
    return discordMessage(m, view(call));
  },
  /** `GET /webhooks/{applicationId}/{token}`: Discord answers the application's webhook object; not supported. */
  async get(_call: InteractionWebhookCall): Promise<unknown> {
    throw unknown();
  },
  /** `GET .../messages/@original` or `.../messages/{id}` of a follow-up. */
  async getMessage(call: InteractionMessageCall): Promise<unknown> {
    return discordMessage(await asWebhook(interactions.getMessage(call.deps.ctx, call.token, call.messageId)), view(call));
  },
  /** `PATCH .../messages/@original` or a follow-up's (JSON). */
  async editMessage(call: InteractionMessageCall): Promise<unknown> {
    const data = editAnswerFromDiscord(call.request.body);
    const m = await asWebhook(interactions.editMessage(call.deps.ctx, call.token, call.messageId, data));
    return discordMessage(m, view(call));
  },
  /** `DELETE .../messages/@original` or a follow-up's: 204. */
  async deleteMessage(call: InteractionMessageCall): Promise<unknown> {
    await asWebhook(interactions.deleteMessage(call.deps.ctx, call.token, call.messageId));
    return call.reply.code(204).send();
  },
};
