/**
 * Interaction follow-ups on Discord's webhook paths: `/webhooks/{applicationId}/{interactionToken}`
 * (execute: a follow-up message) and `.../messages/@original` or `.../messages/{messageId}`
 * (get, edit, delete). Discord shares these paths between webhooks and interactions; the
 * webhook routes (webhooks.ts) handle a path whose id is a webhook's and hand every other
 * one here, `@original` always.
 *
 * PLACEHOLDER: every function answers Discord's 10015 "Unknown Webhook" (404). The real
 * implementation is owned by the gateway and interactions work (branch `discord-gateway`);
 * the signatures are the contract between the two: each gets the request and reply and
 * answers as a route handler does (return the body, or send through `reply`).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { notFound } from '../../errors.js';
import type { RouteDeps } from '../../http/routes/deps.js';

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

export const interactionWebhooks = {
  /** `POST /webhooks/{applicationId}/{token}` (JSON or multipart): a follow-up; `?wait=true` answers the message, else 204. */
  async execute(_call: InteractionWebhookCall & { wait: boolean }): Promise<unknown> {
    throw unknown();
  },
  /** `GET /webhooks/{applicationId}/{token}`: Discord answers the application's webhook object; not supported. */
  async get(_call: InteractionWebhookCall): Promise<unknown> {
    throw unknown();
  },
  /** `GET .../messages/{messageId|@original}`. */
  async getMessage(_call: InteractionMessageCall): Promise<unknown> {
    throw unknown();
  },
  /** `PATCH .../messages/{messageId|@original}` (JSON or multipart). */
  async editMessage(_call: InteractionMessageCall): Promise<unknown> {
    throw unknown();
  },
  /** `DELETE .../messages/{messageId|@original}`: 204. */
  async deleteMessage(_call: InteractionMessageCall): Promise<unknown> {
    throw unknown();
  },
};
