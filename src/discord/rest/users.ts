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
import { members as serverMembers } from '../../domain/members.js';
import { moderation } from '../../domain/moderation.js';
import { badRequest } from '../../errors.js';
import { authenticate } from '../../http/plugins/auth.js';
import { RULES, enforce } from '../../http/plugins/rate-limit.js';
import type { RouteDeps } from '../../http/routes/deps.js';
import type { Caller } from '../../domain/types.js';
import { DiscordMyGuildsQuery, DiscordOpenDmBody, withBody, withQuery } from '../schemas.js';
import { discordApplication, discordDmChannel, discordPartialGuild, discordUser } from '../objects.js';
import { hidden, snowflakeQuery } from './common.js';

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

  /** The caller's guilds, by id, with their permissions in each; `before`/`after`/`limit` as Discord pages them (a keyset read). */
  api.get('/users/@me/guilds', withQuery(DiscordMyGuildsQuery), async (req) => {
    const caller = await who(req);
    const q = req.query as Static<typeof DiscordMyGuildsQuery>;
    const list = await serverMembers.serversPage(ctx, caller, {
      limit: Number(q.limit ?? 200),
      ...(q.after !== undefined ? { after: snowflakeQuery(q.after, 'after') } : {}),
      ...(q.before !== undefined ? { before: snowflakeQuery(q.before, 'before') } : {}),
    });
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
