import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import { accounts } from '../../domain/accounts.js';
import { authenticate } from '../plugins/auth.js';
import { RULES, accountKey, clientKey, enforce, limitFailures } from '../plugins/rate-limit.js';
import type { RouteDeps } from './deps.js';

const Credentials = Type.Object({
  username: Type.String({ minLength: 1, maxLength: 64 }),
  password: Type.String({ minLength: 1, maxLength: 1024 }),
});
const BotBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 80 }),
  avatar: Type.Optional(Type.Union([Type.String({ maxLength: 2048 }), Type.Null()])),
});
const BotParams = Type.Object({ botId: Type.String() });
const BotPatch = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 80 })),
    avatar: Type.Optional(Type.Union([Type.String({ maxLength: 2048 }), Type.Null()])),
    public: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

/** Accounts, sessions and bots (contract section 2). */
export function accountRoutes(app: FastifyInstance, { ctx, limiter }: RouteDeps): void {
  app.post<{ Body: Static<typeof Credentials> }>('/auth/register', { schema: { body: Credentials } }, async (req, reply) => {
    await enforce(limiter, RULES.auth, clientKey(req), reply);
    return reply.status(201).send(await accounts.register(ctx, req.body.username, req.body.password));
  });

  app.post<{ Body: Static<typeof Credentials> }>('/auth/login', { schema: { body: Credentials } }, async (req, reply) => {
    await enforce(limiter, RULES.auth, clientKey(req), reply);
    // Per account too, so guesses spread over many addresses still run out; a wrong
    // password and an unknown name count alike.
    return limitFailures(limiter, RULES.loginFailures, accountKey(req.body.username), reply, 'unauthorized', () =>
      accounts.login(ctx, req.body.username, req.body.password),
    );
  });

  app.post('/auth/logout', async (req, reply) => {
    await accounts.logout(ctx, await authenticate(ctx, req, 'user'));
    return reply.status(204).send();
  });

  app.get('/users/@me', async (req) => accounts.me(ctx, await authenticate(ctx, req, 'any')));

  app.post<{ Body: Static<typeof BotBody> }>('/bots', { schema: { body: BotBody } }, async (req, reply) => {
    const caller = await authenticate(ctx, req, 'user');
    await enforce(limiter, RULES.manage, caller.id, reply);
    return reply.status(201).send(await accounts.createBot(ctx, caller, req.body.name, req.body.avatar));
  });

  app.get('/bots', async (req) => accounts.listBots(ctx, await authenticate(ctx, req, 'user')));

  app.patch<{ Params: Static<typeof BotParams>; Body: Static<typeof BotPatch> }>(
    '/bots/:botId',
    { schema: { params: BotParams, body: BotPatch } },
    async (req, reply) => {
      const caller = await authenticate(ctx, req, 'user');
      await enforce(limiter, RULES.manage, caller.id, reply);
      return accounts.updateBot(ctx, caller, req.params.botId, req.body);
    },
  );

  app.delete<{ Params: Static<typeof BotParams> }>('/bots/:botId', { schema: { params: BotParams } }, async (req, reply) => {
    await accounts.deleteBot(ctx, await authenticate(ctx, req, 'user'), req.params.botId);
    return reply.status(204).send();
  });
}
