/**
 * Discord's guild routes: the guild, its channels, members, roles and bans, over the
 * domain actions of the native `/servers/...` routes (src/http/routes/servers.ts,
 * moderation.ts).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Member } from '@parley/protocol';
import type { Static } from 'typebox';
import { requireMember } from '../../domain/access.js';
import { members as serverMembers } from '../../domain/members.js';
import { type RoleBody, roles } from '../../domain/roles.js';
import { servers } from '../../domain/servers.js';
import { channels } from '../../domain/channels.js';
import { moderation } from '../../domain/moderation.js';
import { badRequest } from '../../errors.js';
import { authenticate } from '../../http/plugins/auth.js';
import { RULES, enforce } from '../../http/plugins/rate-limit.js';
import type { RouteDeps } from '../../http/routes/deps.js';
import { forumFromDiscord, overwritesFromDiscord } from '../bodies.js';
import {
  DiscordBanBody,
  DiscordChannelPositionsBody,
  DiscordCreateChannelBody,
  DiscordMeBody,
  DiscordMemberBody,
  DiscordMemberSearchQuery,
  DiscordMembersQuery,
  DiscordRoleBody,
  DiscordUpdateGuildBody,
  withBody,
  withQuery,
} from '../schemas.js';
import { discordChannel, discordGuild, discordMember, discordRole, discordUser } from '../objects.js';
import { checkQuery, hidden, pathUserId, snowflakeQuery } from './common.js';

type GuildReq = FastifyRequest<{ Params: { guildId: string } }>;
type MemberReq = FastifyRequest<{ Params: { guildId: string; userId: string } }>;
type RoleReq = FastifyRequest<{ Params: { guildId: string; roleId: string } }>;
type MemberRoleReq = FastifyRequest<{ Params: { guildId: string; userId: string; roleId: string } }>;

const memberOf = (m: Pick<Member, 'user' | 'roles' | 'joinedAt' | 'nick'>) => discordMember(m);

/**
 * Discord's role body (schema-checked: `DiscordRoleBody`) as the domain takes it; `position`
 * is not moved here. The colour comes as `color` or as `colors.primary_color` (which wins
 * when both are given, as the newer form); Parley roles have one colour, so a gradient
 * (`secondary_color` or `tertiary_color` set) is refused, as Discord refuses it in a guild
 * without the ENHANCED_ROLE_COLORS feature (docs/discord.md).
 */
function roleBody(body: Static<typeof DiscordRoleBody> | undefined): RoleBody {
  if (!body) return {};
  const colors = body.colors;
  if (colors && (colors.secondary_color != null || colors.tertiary_color != null))
    throw badRequest(
      'colors: Parley roles have one colour (primary_color); secondary_color and tertiary_color must be null (no ENHANCED_ROLE_COLORS)',
    );
  const color = colors?.primary_color ?? body.color;
  return {
    ...(body.name != null ? { name: body.name } : {}),
    ...(body.permissions != null ? { permissions: String(body.permissions) } : {}),
    ...(color != null ? { color } : {}),
    ...(body.hoist != null ? { hoist: body.hoist } : {}),
    ...(body.mentionable != null ? { mentionable: body.mentionable } : {}),
  };
}

export function discordGuildRoutes(api: FastifyInstance, { ctx, limiter }: RouteDeps): void {
  const who = (req: FastifyRequest) => authenticate(ctx, req, 'any');

  api.get('/guilds/:guildId', hidden, async (req: GuildReq) => {
    const caller = await who(req);
    const [server, list] = await Promise.all([servers.get(ctx, caller, req.params.guildId), roles.list(ctx, caller, req.params.guildId)]);
    return discordGuild(server, list);
  });

  api.patch('/guilds/:guildId', withBody(DiscordUpdateGuildBody), async (req: GuildReq, reply) => {
    const caller = await who(req);
    await enforce(limiter, RULES.manage, caller.id, reply);
    const body = req.body as Static<typeof DiscordUpdateGuildBody>;
    const patch: { name?: string; description?: string | null; systemChannelId?: string | null; welcomeMessages?: boolean } = {};
    if (typeof body.name === 'string') patch.name = body.name;
    if (body.description === null || typeof body.description === 'string') patch.description = body.description;
    if (body.system_channel_id !== undefined) patch.systemChannelId = body.system_channel_id;
    // Bit 0 (SUPPRESS_JOIN_NOTIFICATIONS) is the one Parley has: the welcome lines.
    if (typeof body.system_channel_flags === 'number') patch.welcomeMessages = (body.system_channel_flags & 1) === 0;
    const server = await servers.update(ctx, caller, req.params.guildId, patch);
    return discordGuild(server, await roles.list(ctx, caller, req.params.guildId));
  });

  api.get('/guilds/:guildId/channels', hidden, async (req: GuildReq) => {
    const caller = await who(req);
    return (await channels.list(ctx, caller, req.params.guildId)).map(discordChannel);
  });

  api.post('/guilds/:guildId/channels', withBody(DiscordCreateChannelBody), async (req: GuildReq, reply) => {
    const caller = await who(req);
    await enforce(limiter, RULES.manage, caller.id, reply);
    const body = req.body as Static<typeof DiscordCreateChannelBody>;
    const topic = body.topic;
    const position = body.position ?? undefined;
    // Applied by the overwrite route's rules, or the request is refused: never dropped.
    const overwrites = overwritesFromDiscord(body.permission_overwrites);
    const channel = await channels.createChannel(ctx, caller, req.params.guildId, {
      name: body.name,
      ...(body.type === 4 ? { type: 'category' as const } : body.type === 15 ? { type: 'forum' as const } : {}),
      ...forumFromDiscord(body),
      ...(body.parent_id != null ? { parentId: body.parent_id } : {}),
      ...(topic !== undefined ? { topic } : {}),
      ...(position !== undefined ? { position } : {}),
      ...(overwrites ? { overwrites } : {}),
    });
    return reply.status(201).send(discordChannel(channel));
  });

  // Discord answers 204; the moved channels' CHANNEL_UPDATEs follow on the gateway.
  api.patch('/guilds/:guildId/channels', withBody(DiscordChannelPositionsBody), async (req: GuildReq, reply) => {
    const caller = await who(req);
    await enforce(limiter, RULES.manage, caller.id, reply);
    const body = req.body as Static<typeof DiscordChannelPositionsBody>;
    await channels.reorder(
      ctx,
      caller,
      req.params.guildId,
      body.map((c) => ({
        id: c.id,
        ...(c.position != null ? { position: c.position } : {}),
        ...(c.parent_id !== undefined ? { parentId: c.parent_id } : {}),
        ...(c.lock_permissions ? { syncPermissions: true } : {}),
      })),
    );
    return reply.status(204).send();
  });

  // ---------------------------------------------------------------- members

  /** Discord's list: by user id, `after` a user id, `limit` 1 to 1000 (default 1); the page is the store's keyset read. */
  api.get('/guilds/:guildId/members', withQuery(DiscordMembersQuery), async (req: GuildReq) => {
    const caller = await who(req);
    const q = req.query as Static<typeof DiscordMembersQuery>;
    const after = q.after === undefined ? undefined : snowflakeQuery(q.after, 'after');
    const page = await serverMembers.page(ctx, caller, req.params.guildId, { limit: Number(q.limit ?? 1), ...(after ? { after } : {}) });
    return page.map(memberOf);
  });

  /**
   * Discord's member search: members whose name (or nickname) starts with `query`, ignoring
   * case; `limit` 1 to 1000 (default 1). Registered before `members/:userId`, which would
   * otherwise read `search` as a user id. The query is checked (`DiscordMemberSearchQuery`)
   * after membership: a caller outside the server learns nothing, not even what its query lacks.
   */
  api.get('/guilds/:guildId/members/search', hidden, async (req: GuildReq) => {
    const caller = await who(req);
    await requireMember(ctx, caller, req.params.guildId);
    const q = checkQuery(DiscordMemberSearchQuery, req.query);
    const found = await servers.findMembers(ctx, caller, req.params.guildId, { query: q.query, limit: Number(q.limit ?? 1) });
    return found.members.map(memberOf);
  });

  /** `userId` may be `@me`. */
  api.get('/guilds/:guildId/members/:userId', hidden, async (req: MemberReq) => {
    const caller = await who(req);
    const userId = pathUserId(req.params.userId, caller.id);
    return memberOf(await servers.member(ctx, caller, req.params.guildId, userId));
  });

  /**
   * Discord's member edit: `nick` and `roles` (the whole set) in one transaction; Parley has
   * no voice nor timeouts yet, so `channel_id`, `mute`, `deaf` and
   * `communication_disabled_until` are accepted only as null (docs/discord.md, "Members").
   */
  api.patch('/guilds/:guildId/members/:userId', withBody(DiscordMemberBody), async (req: MemberReq, reply) => {
    const caller = await who(req);
    await enforce(limiter, RULES.manage, caller.id, reply);
    const body = (req.body as Static<typeof DiscordMemberBody> | undefined) ?? {};
    if (body.channel_id != null) throw badRequest('channel_id must be null: voice channels are not supported');
    if (body.mute != null) throw badRequest('mute must be null: voice channels are not supported');
    if (body.deaf != null) throw badRequest('deaf must be null: voice channels are not supported');
    if (body.communication_disabled_until != null)
      throw badRequest('communication_disabled_until must be null: timeouts are not supported yet');
    const member = await serverMembers.edit(ctx, caller, req.params.guildId, req.params.userId, {
      ...(body.nick !== undefined ? { nick: body.nick } : {}),
      ...(body.roles != null ? { roles: body.roles } : {}),
    });
    return memberOf(member);
  });

  /** Discord's own-nickname edit (CHANGE_NICKNAME); other fields are ignored, as Discord does. */
  api.patch('/guilds/:guildId/members/@me', withBody(DiscordMeBody), async (req: GuildReq, reply) => {
    const caller = await who(req);
    await enforce(limiter, RULES.manage, caller.id, reply);
    const body = (req.body as Static<typeof DiscordMeBody> | undefined) ?? {};
    const member = await serverMembers.edit(ctx, caller, req.params.guildId, '@me', body.nick !== undefined ? { nick: body.nick } : {});
    return memberOf(member);
  });

  // A kick; Discord's `DELETE /users/@me/guilds/{id}` is leaving (users.ts).
  api.delete('/guilds/:guildId/members/:userId', hidden, async (req: MemberReq, reply) => {
    const caller = await who(req);
    await enforce(limiter, RULES.manage, caller.id, reply);
    await moderation.removeMember(ctx, caller, req.params.guildId, pathUserId(req.params.userId));
    return reply.status(204).send();
  });

  for (const [method, add] of [
    ['PUT', true],
    ['DELETE', false],
  ] as const) {
    api.route({
      method,
      url: '/guilds/:guildId/members/:userId/roles/:roleId',
      ...hidden,
      handler: async (req: MemberRoleReq, reply) => {
        const caller = await who(req);
        await enforce(limiter, RULES.manage, caller.id, reply);
        await roles.setMemberRole(ctx, caller, req.params.guildId, pathUserId(req.params.userId), req.params.roleId, add);
        return reply.status(204).send();
      },
    });
  }

  // ---------------------------------------------------------------- roles

  api.get('/guilds/:guildId/roles', hidden, async (req: GuildReq) => {
    const caller = await who(req);
    return (await roles.list(ctx, caller, req.params.guildId)).map((r) => discordRole(r));
  });

  api.get('/guilds/:guildId/roles/:roleId', hidden, async (req: RoleReq) => {
    const caller = await who(req);
    return discordRole(await roles.get(ctx, caller, req.params.guildId, req.params.roleId));
  });

  api.post('/guilds/:guildId/roles', withBody(DiscordRoleBody), async (req: GuildReq, reply) => {
    const caller = await who(req);
    await enforce(limiter, RULES.manage, caller.id, reply);
    const body = roleBody(req.body as Static<typeof DiscordRoleBody>);
    return discordRole(await roles.create(ctx, caller, req.params.guildId, { name: 'new role', ...body }));
  });

  api.patch('/guilds/:guildId/roles/:roleId', withBody(DiscordRoleBody), async (req: RoleReq, reply) => {
    const caller = await who(req);
    await enforce(limiter, RULES.manage, caller.id, reply);
    const body = roleBody(req.body as Static<typeof DiscordRoleBody>);
    return discordRole(await roles.update(ctx, caller, req.params.guildId, req.params.roleId, body));
  });

  api.delete('/guilds/:guildId/roles/:roleId', hidden, async (req: RoleReq, reply) => {
    const caller = await who(req);
    await enforce(limiter, RULES.manage, caller.id, reply);
    await roles.delete(ctx, caller, req.params.guildId, req.params.roleId);
    return reply.status(204).send();
  });

  // ---------------------------------------------------------------- bans

  api.get('/guilds/:guildId/bans', hidden, async (req: GuildReq) => {
    const caller = await who(req);
    return (await moderation.bans(ctx, caller, req.params.guildId)).map((b) => ({ user: discordUser(b.user), reason: b.reason }));
  });

  api.get('/guilds/:guildId/bans/:userId', hidden, async (req: MemberReq) => {
    const caller = await who(req);
    const ban = await moderation.banOf(ctx, caller, req.params.guildId, req.params.userId);
    return { user: discordUser(ban.user), reason: ban.reason };
  });

  /** Discord's `delete_message_seconds` (or the older `delete_message_days`); the reason comes in `X-Audit-Log-Reason`. */
  api.put('/guilds/:guildId/bans/:userId', withBody(DiscordBanBody), async (req: MemberReq, reply) => {
    const caller = await who(req);
    await enforce(limiter, RULES.manage, caller.id, reply);
    const body = (req.body as Static<typeof DiscordBanBody> | undefined) ?? {};
    const seconds =
      typeof body.delete_message_seconds === 'number'
        ? body.delete_message_seconds
        : typeof body.delete_message_days === 'number'
          ? body.delete_message_days * 86_400
          : undefined;
    await moderation.ban(ctx, caller, req.params.guildId, req.params.userId, {
      ...(caller.reason !== undefined ? { reason: caller.reason } : {}),
      ...(seconds !== undefined ? { deleteMessageSeconds: seconds } : {}),
    });
    return reply.status(204).send();
  });

  api.delete('/guilds/:guildId/bans/:userId', hidden, async (req: MemberReq, reply) => {
    const caller = await who(req);
    await enforce(limiter, RULES.manage, caller.id, reply);
    await moderation.unban(ctx, caller, req.params.guildId, req.params.userId);
    return reply.status(204).send();
  });
}
