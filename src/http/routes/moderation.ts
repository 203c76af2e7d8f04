import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { roles } from '../../domain/roles.js';
import { servers } from '../../domain/servers.js';
import { moderation } from '../../domain/moderation.js';
import { authenticate } from '../plugins/auth.js';
import { defaultEmptyBody } from '../plugins/empty-body.js';
import { RULES, enforce } from '../plugins/rate-limit.js';
import { SECURITY } from '../openapi.js';
import {
  AuditLogEntry,
  AuditLogQuery,
  Ban,
  BanBody,
  BanParams,
  CreateRoleBody,
  MemberRoleParams,
  OverwriteBody,
  OverwriteParams,
  Role,
  RoleParams,
  ServerParams,
  UpdateRoleBody,
  ref,
} from '@parley/protocol';
import { NoContent, errors } from '../schemas/wire.js';
import type { RouteDeps } from './deps.js';

/** Roles, member roles, channel overwrites, bans and the audit log (docs/permissions.md). */
export function moderationRoutes(fastify: FastifyInstance, { ctx, limiter }: RouteDeps): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const any = { tags: ['roles and moderation'], security: SECURITY.any };

  app.get(
    '/servers/:serverId/roles',
    {
      schema: {
        ...any,
        summary: "A server's roles, by position",
        params: ServerParams,
        response: { 200: Type.Array(ref(Role)), ...errors },
      },
    },
    async (req) => roles.list(ctx, await authenticate(ctx, req, 'any'), req.params.serverId),
  );

  app.post(
    '/servers/:serverId/roles',
    {
      schema: {
        ...any,
        summary: 'Create a role just above `@everyone` (MANAGE_ROLES; only permissions you hold)',
        params: ServerParams,
        body: CreateRoleBody,
        response: { 201: ref(Role), ...errors },
      },
    },
    async (req, reply) => {
      const caller = await authenticate(ctx, req, 'any');
      await enforce(limiter, RULES.manage, caller.id, reply);
      return reply.status(201).send(await roles.create(ctx, caller, req.params.serverId, req.body));
    },
  );

  app.patch(
    '/servers/:serverId/roles/:roleId',
    {
      schema: {
        ...any,
        summary: 'Change a role below your highest (MANAGE_ROLES): name, permissions, colour, hoist, mentionable, position',
        params: RoleParams,
        body: UpdateRoleBody,
        response: { 200: ref(Role), ...errors },
      },
    },
    async (req, reply) => {
      const caller = await authenticate(ctx, req, 'any');
      await enforce(limiter, RULES.manage, caller.id, reply);
      return roles.update(ctx, caller, req.params.serverId, req.params.roleId, req.body);
    },
  );

  app.delete(
    '/servers/:serverId/roles/:roleId',
    {
      schema: {
        ...any,
        summary: 'Delete a role below your highest (MANAGE_ROLES)',
        params: RoleParams,
        response: { 204: NoContent, ...errors },
      },
    },
    async (req, reply) => {
      await roles.delete(ctx, await authenticate(ctx, req, 'any'), req.params.serverId, req.params.roleId);
      return reply.status(204).send();
    },
  );

  const memberRole = (add: boolean) => ({
    schema: {
      ...any,
      summary: add
        ? 'Give a member a role below your highest whose every permission you hold (MANAGE_ROLES)'
        : 'Take a role below your highest from a member (MANAGE_ROLES)',
      params: MemberRoleParams,
      response: { 204: NoContent, ...errors },
    },
  });
  app.put('/servers/:serverId/members/:userId/roles/:roleId', memberRole(true), async (req, reply) => {
    const p = req.params;
    await roles.setMemberRole(ctx, await authenticate(ctx, req, 'any'), p.serverId, p.userId, p.roleId, true);
    return reply.status(204).send();
  });
  app.delete('/servers/:serverId/members/:userId/roles/:roleId', memberRole(false), async (req, reply) => {
    const p = req.params;
    await roles.setMemberRole(ctx, await authenticate(ctx, req, 'any'), p.serverId, p.userId, p.roleId, false);
    return reply.status(204).send();
  });

  app.put(
    '/channels/:channelId/permissions/:targetId',
    {
      schema: {
        ...any,
        summary: "Set a channel's overwrite for a role or member (MANAGE_ROLES; only permissions you hold there)",
        params: OverwriteParams,
        body: OverwriteBody,
        response: { 204: NoContent, ...errors },
      },
    },
    async (req, reply) => {
      await roles.putOverwrite(ctx, await authenticate(ctx, req, 'any'), req.params.channelId, req.params.targetId, req.body);
      return reply.status(204).send();
    },
  );

  app.delete(
    '/channels/:channelId/permissions/:targetId',
    {
      schema: {
        ...any,
        summary: "Remove a channel's overwrite (MANAGE_ROLES)",
        params: OverwriteParams,
        response: { 204: NoContent, ...errors },
      },
    },
    async (req, reply) => {
      await roles.deleteOverwrite(ctx, await authenticate(ctx, req, 'any'), req.params.channelId, req.params.targetId);
      return reply.status(204).send();
    },
  );

  app.put(
    '/servers/:serverId/bans/:userId',
    {
      schema: {
        ...any,
        summary: 'Ban a user: removed, and cannot rejoin (BAN_MEMBERS, below your highest role)',
        params: BanParams,
        body: BanBody,
        response: { 204: NoContent, ...errors },
      },
      preValidation: defaultEmptyBody,
    },
    async (req, reply) => {
      const caller = await authenticate(ctx, req, 'any');
      await enforce(limiter, RULES.manage, caller.id, reply);
      await moderation.ban(ctx, caller, req.params.serverId, req.params.userId, req.body);
      return reply.status(204).send();
    },
  );

  app.get(
    '/servers/:serverId/bans',
    {
      schema: {
        ...any,
        summary: "A server's bans (BAN_MEMBERS)",
        params: ServerParams,
        response: { 200: Type.Array(ref(Ban)), ...errors },
      },
    },
    async (req) => moderation.bans(ctx, await authenticate(ctx, req, 'any'), req.params.serverId),
  );

  app.delete(
    '/servers/:serverId/bans/:userId',
    { schema: { ...any, summary: 'Lift a ban (BAN_MEMBERS)', params: BanParams, response: { 204: NoContent, ...errors } } },
    async (req, reply) => {
      await moderation.unban(ctx, await authenticate(ctx, req, 'any'), req.params.serverId, req.params.userId);
      return reply.status(204).send();
    },
  );

  app.get(
    '/servers/:serverId/audit-log',
    {
      schema: {
        ...any,
        summary: "A server's audit log, newest first (VIEW_AUDIT_LOG)",
        params: ServerParams,
        querystring: AuditLogQuery,
        response: { 200: Type.Array(ref(AuditLogEntry)), ...errors },
      },
    },
    async (req) => {
      const { limit, ...rest } = req.query;
      const query = { ...rest, ...(limit === undefined ? {} : { limit: Number(limit) }) };
      return servers.auditLog(ctx, await authenticate(ctx, req, 'any'), req.params.serverId, query);
    },
  );
}
