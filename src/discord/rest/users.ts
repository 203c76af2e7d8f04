/**
 * Discord's user routes: the caller, other users, the caller's guilds and DMs, and
 * `/applications/@me` (a bot's application id is its user id). Over the native domain
 * actions of `/users/@me`, `/servers` and `/users/@me/channels`.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import { requireMember } from '../../domain/access.js';
import { accounts } from '../../domain/accounts.js';
import { directMessages } from '../../domain/direct-messages.js';
import { servers } from '../../domain/servers.js';
import { moderation } from '../../domain/moderation.js';
import { badRequest } from '../../errors.js';
import { compareIds, isId } from '../../ids.js';
import { authenticate } from '../../http/plugins/auth.js';
import { RULES, enforce } from '../../http/plugins/rate-limit.js';
import type { RouteDeps } from '../../http/routes/deps.js';
import type { Caller } from '../../domain/types.js';
import { DiscordOpenDmBody, withBody } from '../schemas.js';
import { discordApplication, discordDmChannel, discordPartialGuild, discordUser } from '../objects.js';
import { hidden, queryInt, queryString } from './common.js';

export function discordUserRoutes(api: FastifyInstance, { ctx, limiter }: RouteDeps): void {
  const who = (req: FastifyRequest) => authenticate(ctx, req, 'any');

  const currentUser = async (caller: Caller) => {
    const me = await accounts.me(ctx, caller);
    return {
      ...discordUser({ ...me, username: 'username' in me ? me.username : null }),
      verified: true,
      mfa_enabled: false,
      locale: 'en-US',
    };
  };

  api.get('/users/@me', hidden, async (req) => currentUser(await who(req)));

  // `@me` percent-encoded (`%40me`, as @discordjs/rest sends it) reaches this route, decoded.
  api.get('/users/:userId', hidden, async (req: FastifyRequest<{ Params: { userId: string } }>) => {
    const caller = await who(req);
    if (req.params.userId === '@me') return currentUser(caller);
    return discordUser(await accounts.user(ctx, caller, req.params.userId));
  });

  /** The caller's guilds, by id, with their permissions in each; `before`/`after`/`limit` as Discord pages them. */
  api.get('/users/@me/guilds', hidden, async (req) => {
    const caller = await who(req);
    const q = req.query as Record<string, unknown>;
    const limit = queryInt(queryString(q.limit), 'limit') ?? 200;
    if (limit < 1 || limit > 200) throw badRequest('limit must be from 1 to 200', 'invalid_query');
    const [after, before] = [queryString(q.after), queryString(q.before)];
    for (const bound of [after, before])
      if (bound !== undefined && !isId(bound)) throw badRequest('before and after must be ids', 'invalid_query');
    const list = (await servers.list(ctx, caller))
      .filter((s) => (after === undefined || compareIds(s.id, after) > 0) && (before === undefined || compareIds(s.id, before) < 0))
      .sort((a, b) => compareIds(a.id, b.id))
      .slice(0, limit);
    return Promise.all(list.map(async (s) => discordPartialGuild(s, caller.id, (await requireMember(ctx, caller, s.id)).bits)));
  });

  /** Leaving a guild. */
  api.delete('/users/@me/guilds/:guildId', hidden, async (req: FastifyRequest<{ Params: { guildId: string } }>, reply) => {
    const caller = await who(req);
    await enforce(limiter, RULES.manage, caller.id, reply);
    await moderation.removeMember(ctx, caller, req.params.guildId, caller.id);
    return reply.status(204).send();
  });

  api.get('/users/@me/channels', hidden, async (req) => {
    const caller = await who(req);
    return (await directMessages.list(ctx, caller.id)).map((d) => discordDmChannel(d, caller.id));
  });

  /** Discord's `{recipient_id}` (a DM) or `{recipients: [...]}` (a group, people only). */
  api.post('/users/@me/channels', withBody(DiscordOpenDmBody), async (req, reply) => {
    const caller = await who(req);
    await enforce(limiter, RULES.manage, caller.id, reply);
    const body = req.body as Static<typeof DiscordOpenDmBody>;
    const ids = body.recipient_id !== undefined ? [body.recipient_id] : body.recipients;
    if (!ids) throw badRequest('recipient_id is required');
    const { channel } = await directMessages.open(ctx, caller, { recipientIds: ids });
    return discordDmChannel(channel, caller.id);
  });

  // discord.py's login reads the application at the OAuth2 path (`application_info()`); the same object.
  for (const path of ['/applications/@me', '/oauth2/applications/@me']) {
    api.get(path, hidden, async (req) => {
      const caller = await who(req);
      return discordApplication(await accounts.application(ctx, caller));
    });
  }
}
