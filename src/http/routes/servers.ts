import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { servers } from '../../domain/servers.js';
import { authenticate } from '../plugins/auth.js';
import { RULES, clientKey, enforce } from '../plugins/rate-limit.js';
import { SECURITY } from '../openapi.js';
import {
  AddBotBody,
  BotMember,
  Channel,
  ChannelParams,
  Invite,
  InviteParams,
  Member,
  MemberParams,
  NameBody,
  Server,
  ServerBotParams,
  ServerParams,
  SetBotPermissionsBody,
  ref,
} from '@parley/protocol';
import { NoContent, errors } from '../schemas/wire.js';
import type { RouteDeps } from './deps.js';

/** Servers, channels, invites, members and bot membership (contract section 3). */
export function serverRoutes(fastify: FastifyInstance, { ctx, limiter }: RouteDeps): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const any = { tags: ['servers'], security: SECURITY.any };
  const user = { tags: ['servers'], security: SECURITY.user };

  const create = { ...user, summary: 'Create a server (with a `general` channel)' };
  app.post('/servers', { schema: { ...create, body: NameBody, response: { 201: ref(Server), ...errors } } }, async (req, reply) => {
    const caller = await authenticate(ctx, req, 'user');
    await enforce(limiter, RULES.manage, caller.id, reply);
    return reply.status(201).send(await servers.create(ctx, caller, req.body.name));
  });

  const list = {
    ...any,
    summary: 'Servers the caller belongs to',
    response: { 200: Type.Array(ref(Server), { description: 'the servers' }), ...errors },
  };
  app.get('/servers', { schema: list }, async (req) => servers.list(ctx, await authenticate(ctx, req, 'any')));

  const get = { ...any, summary: 'A server the caller belongs to' };
  app.get('/servers/:serverId', { schema: { ...get, params: ServerParams, response: { 200: ref(Server), ...errors } } }, async (req) =>
    servers.get(ctx, await authenticate(ctx, req, 'any'), req.params.serverId),
  );

  app.patch(
    '/servers/:serverId',
    {
      schema: {
        ...user,
        summary: 'Rename a server (owner)',
        params: ServerParams,
        body: NameBody,
        response: { 200: ref(Server), ...errors },
      },
    },
    async (req) => servers.rename(ctx, await authenticate(ctx, req, 'user'), req.params.serverId, req.body.name),
  );

  const channels = {
    ...any,
    summary: "A server's channels",
    params: ServerParams,
    response: { 200: Type.Array(ref(Channel), { description: 'the channels' }), ...errors },
  };
  app.get('/servers/:serverId/channels', { schema: channels }, async (req) =>
    servers.channels(ctx, await authenticate(ctx, req, 'any'), req.params.serverId),
  );

  app.post(
    '/servers/:serverId/channels',
    {
      schema: {
        ...user,
        summary: 'Create a channel (owner)',
        params: ServerParams,
        body: NameBody,
        response: { 201: ref(Channel), ...errors },
      },
    },
    async (req, reply) => {
      const caller = await authenticate(ctx, req, 'user');
      await enforce(limiter, RULES.manage, caller.id, reply);
      return reply.status(201).send(await servers.createChannel(ctx, caller, req.params.serverId, req.body.name));
    },
  );

  app.patch(
    '/channels/:channelId',
    {
      schema: {
        ...user,
        summary: 'Rename a channel (owner)',
        params: ChannelParams,
        body: NameBody,
        response: { 200: ref(Channel), ...errors },
      },
    },
    async (req) => servers.renameChannel(ctx, await authenticate(ctx, req, 'user'), req.params.channelId, req.body.name),
  );

  const deleteChannel = {
    ...user,
    summary: 'Delete a channel with its messages and webhooks (owner)',
    params: ChannelParams,
    response: { 204: NoContent, ...errors },
  };
  app.delete('/channels/:channelId', { schema: deleteChannel }, async (req, reply) => {
    await servers.deleteChannel(ctx, await authenticate(ctx, req, 'user'), req.params.channelId);
    return reply.status(204).send();
  });

  const createInvite = {
    ...user,
    summary: 'Create an invite (owner)',
    params: ServerParams,
    response: { 201: ref(Invite), ...errors },
  };
  app.post('/servers/:serverId/invites', { schema: createInvite }, async (req, reply) => {
    const caller = await authenticate(ctx, req, 'user');
    await enforce(limiter, RULES.manage, caller.id, reply);
    return reply.status(201).send(await servers.createInvite(ctx, caller, req.params.serverId));
  });

  const invites = {
    ...user,
    summary: "A server's invites (owner)",
    params: ServerParams,
    response: { 200: Type.Array(ref(Invite), { description: 'the invites' }), ...errors },
  };
  app.get('/servers/:serverId/invites', { schema: invites }, async (req) =>
    servers.listInvites(ctx, await authenticate(ctx, req, 'user'), req.params.serverId),
  );

  const deleteInvite = {
    ...user,
    summary: 'Delete an invite (owner)',
    params: InviteParams,
    response: { 204: NoContent, ...errors },
  };
  app.delete('/invites/:code', { schema: deleteInvite }, async (req, reply) => {
    await servers.deleteInvite(ctx, await authenticate(ctx, req, 'user'), req.params.code);
    return reply.status(204).send();
  });

  const join = { ...any, summary: 'Join the server of an invite', params: InviteParams };
  app.post('/invites/:code', { schema: { ...join, response: { 200: ref(Server), ...errors } } }, async (req, reply) => {
    // Invite codes are bearer secrets: limit how fast anyone can try them, by address
    // first (before spending a lookup on the token), then by account.
    await enforce(limiter, RULES.joinByAddress, clientKey(req), reply);
    const caller = await authenticate(ctx, req, 'any');
    await enforce(limiter, RULES.joinByCaller, caller.id, reply);
    return servers.join(ctx, caller, req.params.code);
  });

  const members = {
    ...any,
    summary: "A server's members",
    params: ServerParams,
    response: { 200: Type.Array(ref(Member), { description: 'the members' }), ...errors },
  };
  app.get('/servers/:serverId/members', { schema: members }, async (req) =>
    servers.members(ctx, await authenticate(ctx, req, 'any'), req.params.serverId),
  );

  app.delete(
    '/servers/:serverId/members/:userId',
    {
      schema: {
        ...user,
        summary: 'Remove a member (owner), or leave (`@me`)',
        params: MemberParams,
        response: { 204: NoContent, ...errors },
      },
    },
    async (req, reply) => {
      const caller = await authenticate(ctx, req, 'user');
      const userId = req.params.userId === '@me' ? caller.id : req.params.userId;
      await servers.removeMember(ctx, caller, req.params.serverId, userId);
      return reply.status(204).send();
    },
  );

  app.post(
    '/servers/:serverId/bots',
    {
      schema: {
        ...user,
        summary: 'Add a bot (owner; their own bot or a public one)',
        params: ServerParams,
        body: AddBotBody,
        response: { 201: ref(BotMember), ...errors },
      },
    },
    async (req, reply) => {
      const caller = await authenticate(ctx, req, 'user');
      await enforce(limiter, RULES.manage, caller.id, reply);
      return reply.status(201).send(await servers.addBot(ctx, caller, req.params.serverId, req.body.botId, req.body.permissions));
    },
  );

  app.patch(
    '/servers/:serverId/bots/:botId',
    {
      schema: {
        ...user,
        summary: "Set a bot's permissions (owner)",
        params: ServerBotParams,
        body: SetBotPermissionsBody,
        response: { 200: ref(BotMember), ...errors },
      },
    },
    async (req) =>
      servers.setBotPermissions(ctx, await authenticate(ctx, req, 'user'), req.params.serverId, req.params.botId, req.body.permissions),
  );

  const removeBot = {
    ...user,
    summary: 'Remove a bot from the server (owner)',
    params: ServerBotParams,
    response: { 204: NoContent, ...errors },
  };
  app.delete('/servers/:serverId/bots/:botId', { schema: removeBot }, async (req, reply) => {
    await servers.removeBot(ctx, await authenticate(ctx, req, 'user'), req.params.serverId, req.params.botId);
    return reply.status(204).send();
  });
}
