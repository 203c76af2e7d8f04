import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import { servers } from '../../domain/servers.js';
import { PERMISSION_NAMES, type PermissionName } from '../../domain/types.js';
import { authenticate } from '../plugins/auth.js';
import { RULES, clientKey, enforce } from '../plugins/rate-limit.js';
import type { RouteDeps } from './deps.js';

const Name = Type.Object({ name: Type.String({ minLength: 1, maxLength: 100 }) });
const ServerParams = Type.Object({ serverId: Type.String() });
const ChannelParams = Type.Object({ channelId: Type.String() });
const CodeParams = Type.Object({ code: Type.String({ maxLength: 64 }) });
const MemberParams = Type.Object({ serverId: Type.String(), userId: Type.String() });
const BotParams = Type.Object({ serverId: Type.String(), botId: Type.String() });
const Permissions = Type.Array(Type.Union(PERMISSION_NAMES.map((p) => Type.Literal(p))), { uniqueItems: true, maxItems: 4 });
const AddBot = Type.Object({ botId: Type.String({ minLength: 1, maxLength: 64 }), permissions: Type.Optional(Permissions) });
const SetPermissions = Type.Object({ permissions: Permissions });

/** Servers, channels, invites, members and bot membership (contract section 3). */
export function serverRoutes(app: FastifyInstance, { ctx, limiter }: RouteDeps): void {
  app.post<{ Body: Static<typeof Name> }>('/servers', { schema: { body: Name } }, async (req, reply) => {
    const caller = await authenticate(ctx, req, 'user');
    await enforce(limiter, RULES.manage, caller.id, reply);
    return reply.status(201).send(await servers.create(ctx, caller, req.body.name));
  });

  app.get('/servers', async (req) => servers.list(ctx, await authenticate(ctx, req, 'any')));

  app.get<{ Params: Static<typeof ServerParams> }>('/servers/:serverId', { schema: { params: ServerParams } }, async (req) =>
    servers.get(ctx, await authenticate(ctx, req, 'any'), req.params.serverId),
  );

  app.patch<{ Params: Static<typeof ServerParams>; Body: Static<typeof Name> }>(
    '/servers/:serverId',
    { schema: { params: ServerParams, body: Name } },
    async (req) => servers.rename(ctx, await authenticate(ctx, req, 'user'), req.params.serverId, req.body.name),
  );

  app.get<{ Params: Static<typeof ServerParams> }>('/servers/:serverId/channels', { schema: { params: ServerParams } }, async (req) =>
    servers.channels(ctx, await authenticate(ctx, req, 'any'), req.params.serverId),
  );

  app.post<{ Params: Static<typeof ServerParams>; Body: Static<typeof Name> }>(
    '/servers/:serverId/channels',
    { schema: { params: ServerParams, body: Name } },
    async (req, reply) => {
      const caller = await authenticate(ctx, req, 'user');
      await enforce(limiter, RULES.manage, caller.id, reply);
      return reply.status(201).send(await servers.createChannel(ctx, caller, req.params.serverId, req.body.name));
    },
  );

  app.patch<{ Params: Static<typeof ChannelParams>; Body: Static<typeof Name> }>(
    '/channels/:channelId',
    { schema: { params: ChannelParams, body: Name } },
    async (req) => servers.renameChannel(ctx, await authenticate(ctx, req, 'user'), req.params.channelId, req.body.name),
  );

  app.delete<{ Params: Static<typeof ChannelParams> }>('/channels/:channelId', { schema: { params: ChannelParams } }, async (req, reply) => {
    await servers.deleteChannel(ctx, await authenticate(ctx, req, 'user'), req.params.channelId);
    return reply.status(204).send();
  });

  app.post<{ Params: Static<typeof ServerParams> }>('/servers/:serverId/invites', { schema: { params: ServerParams } }, async (req, reply) => {
    const caller = await authenticate(ctx, req, 'user');
    await enforce(limiter, RULES.manage, caller.id, reply);
    return reply.status(201).send(await servers.createInvite(ctx, caller, req.params.serverId));
  });

  app.get<{ Params: Static<typeof ServerParams> }>('/servers/:serverId/invites', { schema: { params: ServerParams } }, async (req) =>
    servers.listInvites(ctx, await authenticate(ctx, req, 'user'), req.params.serverId),
  );

  app.delete<{ Params: Static<typeof CodeParams> }>('/invites/:code', { schema: { params: CodeParams } }, async (req, reply) => {
    await servers.deleteInvite(ctx, await authenticate(ctx, req, 'user'), req.params.code);
    return reply.status(204).send();
  });

  app.post<{ Params: Static<typeof CodeParams> }>('/invites/:code', { schema: { params: CodeParams } }, async (req, reply) => {
    // Invite codes are bearer secrets: limit how fast anyone can try them, by address
    // first (before spending a lookup on the token), then by account.
    await enforce(limiter, RULES.joinByAddress, clientKey(req), reply);
    const caller = await authenticate(ctx, req, 'any');
    await enforce(limiter, RULES.joinByCaller, caller.id, reply);
    return servers.join(ctx, caller, req.params.code);
  });

  app.get<{ Params: Static<typeof ServerParams> }>('/servers/:serverId/members', { schema: { params: ServerParams } }, async (req) =>
    servers.members(ctx, await authenticate(ctx, req, 'any'), req.params.serverId),
  );

  app.delete<{ Params: Static<typeof MemberParams> }>(
    '/servers/:serverId/members/:userId',
    { schema: { params: MemberParams } },
    async (req, reply) => {
      const caller = await authenticate(ctx, req, 'user');
      const userId = req.params.userId === '@me' ? caller.id : req.params.userId;
      await servers.removeMember(ctx, caller, req.params.serverId, userId);
      return reply.status(204).send();
    },
  );

  app.post<{ Params: Static<typeof ServerParams>; Body: Static<typeof AddBot> }>(
    '/servers/:serverId/bots',
    { schema: { params: ServerParams, body: AddBot } },
    async (req, reply) => {
      const caller = await authenticate(ctx, req, 'user');
      await enforce(limiter, RULES.manage, caller.id, reply);
      const perms = req.body.permissions as PermissionName[] | undefined;
      return reply.status(201).send(await servers.addBot(ctx, caller, req.params.serverId, req.body.botId, perms));
    },
  );

  app.patch<{ Params: Static<typeof BotParams>; Body: Static<typeof SetPermissions> }>(
    '/servers/:serverId/bots/:botId',
    { schema: { params: BotParams, body: SetPermissions } },
    async (req) =>
      servers.setBotPermissions(
        ctx,
        await authenticate(ctx, req, 'user'),
        req.params.serverId,
        req.params.botId,
        req.body.permissions as PermissionName[],
      ),
  );

  app.delete<{ Params: Static<typeof BotParams> }>('/servers/:serverId/bots/:botId', { schema: { params: BotParams } }, async (req, reply) => {
    await servers.removeBot(ctx, await authenticate(ctx, req, 'user'), req.params.serverId, req.params.botId);
    return reply.status(204).send();
  });
}
