import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { accounts } from '../../domain/accounts.js';
import { authenticate } from '../plugins/auth.js';
import { RULES, accountKey, clientKey, enforce, limitFailures } from '../plugins/rate-limit.js';
import { SECURITY } from '../openapi.js';
import {
  Bot,
  BotParams,
  BotSelf,
  CreateBotBody,
  CreatedBot,
  CredentialsBody,
  SelfUser,
  Session,
  UpdateBotBody,
  ref,
} from '@parley/protocol';
import { NoContent, errors } from '../schemas/wire.js';
import type { RouteDeps } from './deps.js';

/** Accounts, sessions and bots (contract section 2). */
export function accountRoutes(fastify: FastifyInstance, { ctx, limiter }: RouteDeps): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const account = { tags: ['accounts'] };
  const bots = { tags: ['bots'], security: SECURITY.user };

  const register = {
    ...account,
    summary: 'Create an account and a session',
    security: SECURITY.none,
    body: CredentialsBody,
    response: { 201: ref(Session), ...errors },
  };
  app.post('/auth/register', { schema: register }, async (req, reply) => {
    await enforce(limiter, RULES.auth, clientKey(req), reply);
    return reply.status(201).send(await accounts.register(ctx, req.body.username, req.body.password));
  });

  const login = { ...account, summary: 'Open a session', security: SECURITY.none, body: CredentialsBody };
  app.post('/auth/login', { schema: { ...login, response: { 200: ref(Session), ...errors } } }, async (req, reply) => {
    await enforce(limiter, RULES.auth, clientKey(req), reply);
    // Per account too, so guesses spread over many addresses still run out; a wrong
    // password and an unknown name count alike.
    return limitFailures(limiter, RULES.loginFailures, accountKey(req.body.username), reply, 'invalid_credentials', () =>
      accounts.login(ctx, req.body.username, req.body.password),
    );
  });

  const logout = { ...account, summary: 'End the calling session', security: SECURITY.user };
  app.post('/auth/logout', { schema: { ...logout, response: { 204: NoContent, ...errors } } }, async (req, reply) => {
    await accounts.logout(ctx, await authenticate(ctx, req, 'user'));
    return reply.status(204).send();
  });

  const me = {
    ...account,
    summary: 'The caller: a person or a bot',
    security: SECURITY.any,
    response: { 200: Type.Union([ref(SelfUser), ref(BotSelf)]), ...errors },
  };
  app.get('/users/@me', { schema: me }, async (req) => accounts.me(ctx, await authenticate(ctx, req, 'any')));

  const createBot = {
    ...bots,
    summary: 'Create a bot (its token is shown only here)',
    body: CreateBotBody,
    response: { 201: ref(CreatedBot), ...errors },
  };
  app.post('/bots', { schema: createBot }, async (req, reply) => {
    const caller = await authenticate(ctx, req, 'user');
    await enforce(limiter, RULES.manage, caller.id, reply);
    return reply.status(201).send(await accounts.createBot(ctx, caller, req.body.name, req.body.avatar));
  });

  const listBots = {
    ...bots,
    summary: "The caller's bots",
    response: { 200: Type.Array(ref(Bot), { description: 'the bots, without tokens' }), ...errors },
  };
  app.get('/bots', { schema: listBots }, async (req) => accounts.listBots(ctx, await authenticate(ctx, req, 'user')));

  app.patch(
    '/bots/:botId',
    {
      schema: {
        ...bots,
        summary: "Change a bot's name, avatar or visibility",
        params: BotParams,
        body: UpdateBotBody,
        response: { 200: ref(Bot), ...errors },
      },
    },
    async (req, reply) => {
      const caller = await authenticate(ctx, req, 'user');
      await enforce(limiter, RULES.manage, caller.id, reply);
      return accounts.updateBot(ctx, caller, req.params.botId, req.body);
    },
  );

  const deleteBot = { ...bots, summary: 'Delete a bot', params: BotParams, response: { 204: NoContent, ...errors } };
  app.delete('/bots/:botId', { schema: deleteBot }, async (req, reply) => {
    await accounts.deleteBot(ctx, await authenticate(ctx, req, 'user'), req.params.botId);
    return reply.status(204).send();
  });
}
