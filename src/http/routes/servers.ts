import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { members as memberEdits } from '../../domain/members.js';
import { servers } from '../../domain/servers.js';
import { channels } from '../../domain/channels.js';
import { invites } from '../../domain/invites.js';
import { moderation } from '../../domain/moderation.js';
import { serverBots } from '../../domain/server-bots.js';
import { authenticate, authenticateIfValid } from '../plugins/auth.js';
import { defaultEmptyBody } from '../plugins/empty-body.js';
import { RULES, clientKey, enforce } from '../plugins/rate-limit.js';
import { SECURITY } from '../openapi.js';
import {
  AddBotBody,
  BotMember,
  Channel,
  ChannelParams,
  CreateChannelBody,
  CreateInviteBody,
  Invite,
  InviteParams,
  InvitePreview,
  Member,
  MemberParams,
  NameBody,
  Server,
  ServerBotParams,
  ServerParams,
  SetBotPermissionsBody,
  ReorderChannelsBody,
  UpdateChannelBody,
  UpdateMemberBody,
  UpdateServerBody,
  ref,
} from '@parley/protocol';
import { NoContent, errors } from '../schemas/wire.js';
import type { RouteDeps } from './deps.js';

/** Servers, channels, invites, members and bot membership (docs/api.md#servers-channels-members). */
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
        ...any,
        summary: 'Change a server: name, icon, description (MANAGE_SERVER); transfer it (`ownerId`, the owner)',
        params: ServerParams,
        body: UpdateServerBody,
        response: { 200: ref(Server), ...errors },
      },
    },
    async (req) => servers.update(ctx, await authenticate(ctx, req, 'any'), req.params.serverId, req.body),
  );

  const deleteServer = {
    ...user,
    summary: 'Delete a server with everything in it (owner)',
    params: ServerParams,
    response: { 204: NoContent, ...errors },
  };
  app.delete('/servers/:serverId', { schema: deleteServer }, async (req, reply) => {
    await servers.delete(ctx, await authenticate(ctx, req, 'user'), req.params.serverId);
    return reply.status(204).send();
  });

  const channelList = {
    ...any,
    summary: "A server's channels the caller may see",
    params: ServerParams,
    response: { 200: Type.Array(ref(Channel), { description: 'the channels' }), ...errors },
  };
  app.get('/servers/:serverId/channels', { schema: channelList }, async (req) =>
    channels.list(ctx, await authenticate(ctx, req, 'any'), req.params.serverId),
  );

  app.post(
    '/servers/:serverId/channels',
    {
      schema: {
        ...any,
        summary: 'Create a channel (MANAGE_CHANNELS)',
        params: ServerParams,
        body: CreateChannelBody,
        response: { 201: ref(Channel), ...errors },
      },
    },
    async (req, reply) => {
      const caller = await authenticate(ctx, req, 'any');
      await enforce(limiter, RULES.manage, caller.id, reply);
      return reply.status(201).send(await channels.createChannel(ctx, caller, req.params.serverId, req.body));
    },
  );

  app.patch(
    '/servers/:serverId/channels',
    {
      schema: {
        ...any,
        summary: 'Move channels and categories: positions, categories, permission sync (MANAGE_CHANNELS)',
        params: ServerParams,
        body: ReorderChannelsBody,
        response: { 200: Type.Array(ref(Channel), { description: 'the channels that changed' }), ...errors },
      },
    },
    async (req, reply) => {
      const caller = await authenticate(ctx, req, 'any');
      await enforce(limiter, RULES.manage, caller.id, reply);
      return channels.reorder(ctx, caller, req.params.serverId, req.body);
    },
  );

  app.patch(
    '/channels/:channelId',
    {
      schema: {
        ...any,
        summary: 'Change a channel: name, topic, position, category, permission sync (MANAGE_CHANNELS)',
        params: ChannelParams,
        body: UpdateChannelBody,
        response: { 200: ref(Channel), ...errors },
      },
    },
    async (req) => channels.updateChannel(ctx, await authenticate(ctx, req, 'any'), req.params.channelId, req.body),
  );

  const deleteChannel = {
    ...any,
    summary: 'Delete a channel with its messages and webhooks (MANAGE_CHANNELS)',
    params: ChannelParams,
    response: { 204: NoContent, ...errors },
  };
  app.delete('/channels/:channelId', { schema: deleteChannel }, async (req, reply) => {
    await channels.deleteChannel(ctx, await authenticate(ctx, req, 'any'), req.params.channelId);
    return reply.status(204).send();
  });

  const createInvite = {
    ...any,
    summary: 'Create an invite (CREATE_INVITE); by default it expires in 7 days, with unlimited uses',
    params: ServerParams,
    body: CreateInviteBody,
    response: { 201: ref(Invite), ...errors },
  };
  app.post('/servers/:serverId/invites', { schema: createInvite, preValidation: defaultEmptyBody }, async (req, reply) => {
    const caller = await authenticate(ctx, req, 'any');
    await enforce(limiter, RULES.manage, caller.id, reply);
    return reply.status(201).send(await invites.createInvite(ctx, caller, req.params.serverId, req.body));
  });

  const inviteList = {
    ...any,
    summary: "A server's invites (MANAGE_SERVER)",
    params: ServerParams,
    response: { 200: Type.Array(ref(Invite), { description: 'the invites' }), ...errors },
  };
  app.get('/servers/:serverId/invites', { schema: inviteList }, async (req) =>
    invites.listInvites(ctx, await authenticate(ctx, req, 'any'), req.params.serverId),
  );

  const deleteInvite = {
    ...any,
    summary: 'Delete an invite (MANAGE_SERVER, or its inviter)',
    params: InviteParams,
    response: { 204: NoContent, ...errors },
  };
  app.delete('/invites/:code', { schema: deleteInvite }, async (req, reply) => {
    await invites.deleteInvite(ctx, await authenticate(ctx, req, 'any'), req.params.code);
    return reply.status(204).send();
  });

  const preview = {
    tags: ['servers'],
    summary: 'Where an invite leads (anyone holding the code; with a token, also whether the caller is banned there)',
    params: InviteParams,
    response: { 200: ref(InvitePreview), ...errors },
  };
  app.get('/invites/:code', { schema: preview }, async (req, reply) => {
    await enforce(limiter, RULES.joinByAddress, clientKey(req), reply);
    // Anyone may look, with or without valid credentials (a stale token is no reason to hide
    // where the code leads); a caller whose token is valid also learns whether they are banned there.
    const caller = req.headers.authorization ? await authenticateIfValid(ctx, req) : null;
    return invites.previewInvite(ctx, req.params.code, caller);
  });

  const join = { ...any, summary: 'Join the server of an invite (403 if banned; 404 if expired or used up)', params: InviteParams };
  app.post('/invites/:code', { schema: { ...join, response: { 200: ref(Server), ...errors } } }, async (req, reply) => {
    // Invite codes are bearer secrets: limit how fast anyone can try them, by address
    // first (before spending a lookup on the token), then by account.
    await enforce(limiter, RULES.joinByAddress, clientKey(req), reply);
    const caller = await authenticate(ctx, req, 'any');
    await enforce(limiter, RULES.joinByCaller, caller.id, reply);
    return invites.join(ctx, caller, req.params.code);
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
        ...any,
        summary: 'Kick a member (KICK_MEMBERS, below your highest role), or leave (`@me`)',
        params: MemberParams,
        response: { 204: NoContent, ...errors },
      },
    },
    async (req, reply) => {
      const caller = await authenticate(ctx, req, 'any');
      const userId = req.params.userId === '@me' ? caller.id : req.params.userId;
      await moderation.removeMember(ctx, caller, req.params.serverId, userId);
      return reply.status(204).send();
    },
  );

  app.patch(
    '/servers/:serverId/members/:userId',
    {
      schema: {
        ...any,
        summary: "Set a member's nickname (`@me`: your own, CHANGE_NICKNAME; someone else's: MANAGE_NICKNAMES, below your highest role)",
        params: MemberParams,
        body: UpdateMemberBody,
        response: { 200: ref(Member), ...errors },
      },
    },
    async (req, reply) => {
      const caller = await authenticate(ctx, req, 'any');
      await enforce(limiter, RULES.manage, caller.id, reply);
      return memberEdits.edit(ctx, caller, req.params.serverId, req.params.userId, { nick: req.body.nick });
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
      return reply.status(201).send(await serverBots.addBot(ctx, caller, req.params.serverId, req.body.botId, req.body.permissions));
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
      serverBots.setBotPermissions(ctx, await authenticate(ctx, req, 'user'), req.params.serverId, req.params.botId, req.body.permissions),
  );

  const removeBot = {
    ...user,
    summary: 'Remove a bot from the server (owner)',
    params: ServerBotParams,
    response: { 204: NoContent, ...errors },
  };
  app.delete('/servers/:serverId/bots/:botId', { schema: removeBot }, async (req, reply) => {
    await serverBots.removeBot(ctx, await authenticate(ctx, req, 'user'), req.params.serverId, req.params.botId);
    return reply.status(204).send();
  });
}
