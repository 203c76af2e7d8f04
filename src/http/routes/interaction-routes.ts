import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import {
  BotCommandParams,
  BotParams,
  CommandBody,
  ChannelParams,
  Command,
  CommandsQuery,
  CreateInteractionBody,
  InteractionAccepted,
  InteractionCallbackBody,
  InteractionCallbackParams,
  InteractionMessageBody,
  InteractionMessageParams,
  InteractionTokenParams,
  Message,
  PatchCommandBody,
  PutCommandsBody,
  ref,
} from '@parley/protocol';
import { answers } from '../../domain/interactions/answers.js';
import { commands } from '../../domain/interactions/commands.js';
import { invoke } from '../../domain/interactions/invoke.js';
import { deliverInteraction } from '../../outgoing/interaction-delivery.js';
import { authenticate } from '../plugins/auth.js';
import { RULES, enforce } from '../plugins/rate-limit.js';
import { SECURITY } from '../openapi.js';
import { NoContent, errors } from '../schemas/wire.js';
import type { RouteDeps } from './deps.js';

/** Commands and interactions (docs/commands.md). */
export function interactionRoutes(fastify: FastifyInstance, { ctx, limiter }: RouteDeps): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const doc = { tags: ['interactions'] };
  const commandList = Type.Array(ref(Command));

  app.put(
    '/bots/:botId/commands',
    {
      schema: {
        ...doc,
        security: SECURITY.any,
        summary: "Replace a bot's commands (global, or one server's with ?serverId=)",
        description: 'By the bot or its owner. Commands not in the list are deleted; a name that stays keeps its id.',
        params: BotParams,
        querystring: CommandsQuery,
        body: PutCommandsBody,
        response: { 200: commandList, ...errors },
      },
    },
    async (req, reply) => {
      const caller = await authenticate(ctx, req, 'any');
      await enforce(limiter, RULES.manage, caller.id, reply);
      return commands.overwrite(ctx, caller, req.params.botId, req.query.serverId, req.body);
    },
  );

  app.get(
    '/bots/:botId/commands',
    {
      schema: {
        ...doc,
        security: SECURITY.any,
        summary: "A bot's commands (global, or one server's with ?serverId=)",
        params: BotParams,
        querystring: CommandsQuery,
        response: { 200: commandList, ...errors },
      },
    },
    async (req) => commands.list(ctx, await authenticate(ctx, req, 'any'), req.params.botId, req.query.serverId),
  );

  app.post(
    '/bots/:botId/commands',
    {
      schema: {
        ...doc,
        security: SECURITY.any,
        summary: "Add one command, or replace the one of the same name (global, or one server's with ?serverId=)",
        description:
          'By the bot or its owner. 201 when added, 200 when a command of that name was replaced (its id kept). Other commands are untouched.',
        params: BotParams,
        querystring: CommandsQuery,
        body: CommandBody,
        response: { 200: ref(Command), 201: ref(Command), ...errors },
      },
    },
    async (req, reply) => {
      const caller = await authenticate(ctx, req, 'any');
      await enforce(limiter, RULES.manage, caller.id, reply);
      const { command, created } = await commands.create(ctx, caller, req.params.botId, req.query.serverId, req.body);
      return reply.status(created ? 201 : 200).send(command);
    },
  );

  app.get(
    '/bots/:botId/commands/:commandId',
    {
      schema: {
        ...doc,
        security: SECURITY.any,
        summary: "One of a bot's commands (in the scope ?serverId= names)",
        params: BotCommandParams,
        querystring: CommandsQuery,
        response: { 200: ref(Command), ...errors },
      },
    },
    async (req) => commands.get(ctx, await authenticate(ctx, req, 'any'), req.params.botId, req.query.serverId, req.params.commandId),
  );

  app.patch(
    '/bots/:botId/commands/:commandId',
    {
      schema: {
        ...doc,
        security: SECURITY.any,
        summary: 'Edit one command; fields left out stay',
        params: BotCommandParams,
        querystring: CommandsQuery,
        body: PatchCommandBody,
        response: { 200: ref(Command), ...errors },
      },
    },
    async (req, reply) => {
      const caller = await authenticate(ctx, req, 'any');
      await enforce(limiter, RULES.manage, caller.id, reply);
      return commands.edit(ctx, caller, req.params.botId, req.query.serverId, req.params.commandId, req.body);
    },
  );

  app.delete(
    '/bots/:botId/commands/:commandId',
    {
      schema: {
        ...doc,
        security: SECURITY.any,
        summary: 'Delete one command',
        params: BotCommandParams,
        querystring: CommandsQuery,
        response: { 204: NoContent, ...errors },
      },
    },
    async (req, reply) => {
      const caller = await authenticate(ctx, req, 'any');
      await enforce(limiter, RULES.manage, caller.id, reply);
      await commands.remove(ctx, caller, req.params.botId, req.query.serverId, req.params.commandId);
      return reply.status(204).send();
    },
  );

  app.get(
    '/channels/:channelId/commands',
    {
      schema: {
        ...doc,
        security: SECURITY.any,
        summary: 'The commands the caller may use in the channel',
        description:
          "Of the server's bots (USE_APPLICATION_COMMANDS and each command's defaultMemberPermissions), or a DM's bot's global ones",
        params: ChannelParams,
        response: { 200: commandList, ...errors },
      },
    },
    async (req) => commands.ofChannel(ctx, await authenticate(ctx, req, 'any'), req.params.channelId),
  );

  app.post(
    '/channels/:channelId/interactions',
    {
      schema: {
        ...doc,
        security: SECURITY.user,
        summary: 'Run a command, click a component, or ask for autocomplete choices',
        description:
          '`command` and `component`: 202 at once, the bot answers in the channel. `autocomplete`: 200 with the choices the bot gave within 3 s (none if it gave none).',
        params: ChannelParams,
        body: CreateInteractionBody,
        response: { 200: ref(InteractionAccepted), 202: ref(InteractionAccepted), ...errors },
      },
    },
    async (req, reply) => {
      const caller = await authenticate(ctx, req, 'user');
      await enforce(limiter, RULES.interactions, `${caller.id}:${req.params.channelId}`, reply);
      const accepted = await invoke.create(ctx, caller, req.params.channelId, req.body, deliverInteraction);
      return reply.status(req.body.type === 'autocomplete' ? 200 : 202).send(accepted);
    },
  );

  const byToken = { ...doc, security: SECURITY.none };
  const EDIT_FILES =
    '`attachments`, when given, is the whole new list of files (upload URLs: one the message has keeps it, one from `POST /upload` adds it); files left out are removed, `[]` removes all; absent, the files stay.';

  app.post(
    '/interactions/:interactionId/:token/callback',
    {
      schema: {
        ...byToken,
        summary: "The bot's answer to an interaction: once, within 3 s",
        params: InteractionCallbackParams,
        body: InteractionCallbackBody,
        response: { 204: NoContent, ...errors },
      },
    },
    async (req, reply) => {
      await enforce(limiter, RULES.interactionReplies, req.params.interactionId, reply);
      await answers.callback(ctx, req.params.interactionId, req.params.token, req.body);
      return reply.status(204).send();
    },
  );

  app.post(
    '/interactions/:token/followups',
    {
      schema: {
        ...byToken,
        summary: 'Another message answering the interaction (15 minutes after it)',
        params: InteractionTokenParams,
        body: InteractionMessageBody,
        response: { 200: ref(Message), ...errors },
      },
    },
    async (req, reply) => {
      await enforce(limiter, RULES.interactionReplies, tokenKey(req.params.token), reply);
      return answers.followUp(ctx, req.params.token, req.body);
    },
  );

  app.get(
    '/interactions/:token/messages/original',
    {
      schema: {
        ...byToken,
        summary: "The interaction's original answer",
        params: InteractionTokenParams,
        response: { 200: ref(Message), ...errors },
      },
    },
    async (req) => answers.getOriginal(ctx, req.params.token),
  );

  app.patch(
    '/interactions/:token/messages/original',
    {
      schema: {
        ...byToken,
        summary: "Edit the interaction's original answer (a deferred answer's placeholder becomes it)",
        description: EDIT_FILES,
        params: InteractionTokenParams,
        body: InteractionMessageBody,
        response: { 200: ref(Message), ...errors },
      },
    },
    async (req, reply) => {
      await enforce(limiter, RULES.interactionReplies, tokenKey(req.params.token), reply);
      return answers.editOriginal(ctx, req.params.token, req.body);
    },
  );

  app.delete(
    '/interactions/:token/messages/original',
    {
      schema: {
        ...byToken,
        summary: "Delete the interaction's original answer",
        params: InteractionTokenParams,
        response: { 204: NoContent, ...errors },
      },
    },
    async (req, reply) => {
      await enforce(limiter, RULES.interactionReplies, tokenKey(req.params.token), reply);
      await answers.deleteOriginal(ctx, req.params.token);
      return reply.status(204).send();
    },
  );

  app.get(
    '/interactions/:token/messages/:messageId',
    {
      schema: {
        ...byToken,
        summary: "One of the interaction's messages: its original answer or a follow-up",
        description: "Any other message (another interaction's among them) is 404 `unknown_message`.",
        params: InteractionMessageParams,
        response: { 200: ref(Message), ...errors },
      },
    },
    async (req) => answers.getMessage(ctx, req.params.token, req.params.messageId),
  );

  app.patch(
    '/interactions/:token/messages/:messageId',
    {
      schema: {
        ...byToken,
        summary: "Edit the interaction's original answer or one of its follow-ups",
        description: EDIT_FILES,
        params: InteractionMessageParams,
        body: InteractionMessageBody,
        response: { 200: ref(Message), ...errors },
      },
    },
    async (req, reply) => {
      await enforce(limiter, RULES.interactionReplies, tokenKey(req.params.token), reply);
      return answers.editMessage(ctx, req.params.token, req.params.messageId, req.body);
    },
  );

  app.delete(
    '/interactions/:token/messages/:messageId',
    {
      schema: {
        ...byToken,
        summary: "Delete the interaction's original answer or one of its follow-ups",
        params: InteractionMessageParams,
        response: { 204: NoContent, ...errors },
      },
    },
    async (req, reply) => {
      await enforce(limiter, RULES.interactionReplies, tokenKey(req.params.token), reply);
      await answers.deleteMessage(ctx, req.params.token, req.params.messageId);
      return reply.status(204).send();
    },
  );
}

/** The limiter key of a token: its interaction's id (the part before the dot), never the secret. */
const tokenKey = (token: string) => token.split('.', 1)[0]!.slice(0, 32);
