import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { accounts } from '../../domain/accounts.js';
import { settings } from '../../domain/conversations.js';
import type { Caller } from '../../domain/types.js';
import { authenticate } from '../plugins/auth.js';
import { RULES, accountKey, clientKey, enforce, limitFailures } from '../plugins/rate-limit.js';
import { SECURITY } from '../openapi.js';
import {
  AuthSession,
  Bot,
  BotParams,
  BotProfile,
  BotSelf,
  ChangePasswordBody,
  CreateBotBody,
  CreatedBot,
  CredentialsBody,
  DeleteAccountBody,
  Instance,
  RegisterBody,
  SelfUser,
  Session,
  SessionParams,
  UpdateBotBody,
  UpdateMeBody,
  UpdateSettingsBody,
  UserSettings,
  ref,
} from '@parley/protocol';
import { NoContent, errors } from '../schemas/wire.js';
import type { RouteDeps } from './deps.js';
import { verifyInteractionsUrl } from '../../outgoing/interaction-delivery.js';

/** The User-Agent a new session is labelled with (the domain shortens and cleans it). */
const userAgentOf = (req: FastifyRequest) => req.headers['user-agent'];

/** Accounts, sessions and bots (docs/api.md#accounts-and-bots and docs/api.md#accounts-and-the-instance). */
export function accountRoutes(fastify: FastifyInstance, { ctx, limiter, config }: RouteDeps): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const account = { tags: ['accounts'] };
  const bots = { tags: ['bots'], security: SECURITY.user };

  /**
   * Runs a change that a person confirms with their password under the failed-login limit
   * of their account: a wrong password here counts as a failed login, so a stolen session
   * gets no more guesses at the password than a stranger does.
   */
  const confirmed = <T>(caller: Caller, reply: Parameters<typeof limitFailures>[3], change: () => Promise<T>) =>
    limitFailures(limiter, RULES.loginFailures, accountKey(caller.username ?? caller.id), reply, 'wrong_password', change);

  const instance = {
    tags: ['instance'],
    summary: 'Who may register here (open, by invite, or closed)',
    security: SECURITY.none,
    response: { 200: ref(Instance), ...errors },
  };
  app.get('/instance', { schema: instance }, async () => accounts.instance(ctx, config.maxUploadBytes));

  const register = {
    ...account,
    summary: 'Create an account and a session',
    security: SECURITY.none,
    body: RegisterBody,
    response: { 201: ref(Session), ...errors },
  };
  app.post('/auth/register', { schema: register }, async (req, reply) => {
    await enforce(limiter, RULES.auth, clientKey(req), reply);
    return reply.status(201).send(await accounts.register(ctx, req.body, userAgentOf(req)));
  });

  const login = { ...account, summary: 'Open a session', security: SECURITY.none, body: CredentialsBody };
  app.post('/auth/login', { schema: { ...login, response: { 200: ref(Session), ...errors } } }, async (req, reply) => {
    await enforce(limiter, RULES.auth, clientKey(req), reply);
    // Per account too, so guesses spread over many addresses still run out; a wrong
    // password and an unknown name count alike.
    return limitFailures(limiter, RULES.loginFailures, accountKey(req.body.username), reply, 'invalid_credentials', () =>
      accounts.login(ctx, req.body.username, req.body.password, userAgentOf(req)),
    );
  });

  const logout = { ...account, summary: 'End the calling session', security: SECURITY.user };
  app.post('/auth/logout', { schema: { ...logout, response: { 204: NoContent, ...errors } } }, async (req, reply) => {
    await accounts.logout(ctx, await authenticate(ctx, req, 'user'));
    return reply.status(204).send();
  });

  const password = {
    ...account,
    summary: "Change the caller's password; every other session of theirs ends",
    security: SECURITY.user,
    body: ChangePasswordBody,
    response: { 204: NoContent, ...errors },
  };
  app.post('/auth/password', { schema: password }, async (req, reply) => {
    const caller = await authenticate(ctx, req, 'user');
    await confirmed(caller, reply, () => accounts.changePassword(ctx, caller, req.body.currentPassword, req.body.newPassword));
    return reply.status(204).send();
  });

  const listSessions = {
    ...account,
    summary: "The caller's login sessions",
    security: SECURITY.user,
    response: { 200: Type.Array(ref(AuthSession)), ...errors },
  };
  app.get('/auth/sessions', { schema: listSessions }, async (req) => accounts.listSessions(ctx, await authenticate(ctx, req, 'user')));

  const endOthers = {
    ...account,
    summary: 'End every session of the caller but this one',
    security: SECURITY.user,
    response: { 204: NoContent, ...errors },
  };
  app.delete('/auth/sessions', { schema: endOthers }, async (req, reply) => {
    await accounts.endOtherSessions(ctx, await authenticate(ctx, req, 'user'));
    return reply.status(204).send();
  });

  const endOne = {
    ...account,
    summary: 'End one of the caller’s sessions',
    security: SECURITY.user,
    params: SessionParams,
    response: { 204: NoContent, ...errors },
  };
  app.delete('/auth/sessions/:sessionId', { schema: endOne }, async (req, reply) => {
    await accounts.endSession(ctx, await authenticate(ctx, req, 'user'), req.params.sessionId);
    return reply.status(204).send();
  });

  const self = Type.Union([ref(SelfUser), ref(BotSelf)]);
  const me = { ...account, summary: 'The caller: a person or a bot', security: SECURITY.any, response: { 200: self, ...errors } };
  app.get('/users/@me', { schema: me }, async (req) => accounts.me(ctx, await authenticate(ctx, req, 'any')));

  const updateMe = {
    ...account,
    summary: 'Change the caller’s display name or avatar',
    security: SECURITY.any,
    body: UpdateMeBody,
    response: { 200: self, ...errors },
  };
  app.patch('/users/@me', { schema: updateMe }, async (req, reply) => {
    const caller = await authenticate(ctx, req, 'any');
    await enforce(limiter, RULES.manage, caller.id, reply);
    return accounts.updateMe(ctx, caller, req.body);
  });

  const getSettings = {
    ...account,
    summary: 'The caller’s notification and privacy settings',
    security: SECURITY.user,
    response: { 200: ref(UserSettings), ...errors },
  };
  app.get('/users/@me/settings', { schema: getSettings }, async (req) => settings.get(ctx, await authenticate(ctx, req, 'user')));

  const updateSettings = {
    ...account,
    summary: 'Change notification settings (per server and channel) and who may open a DM',
    security: SECURITY.user,
    body: UpdateSettingsBody,
    response: { 200: ref(UserSettings), ...errors },
  };
  app.patch('/users/@me/settings', { schema: updateSettings }, async (req, reply) => {
    const caller = await authenticate(ctx, req, 'user');
    await enforce(limiter, RULES.manage, caller.id, reply);
    return settings.update(ctx, caller, req.body);
  });

  const deleteMe = {
    ...account,
    summary: 'Delete the caller’s account (their messages stay, by “Deleted user”)',
    security: SECURITY.user,
    body: DeleteAccountBody,
    response: { 204: NoContent, ...errors },
  };
  app.delete('/users/@me', { schema: deleteMe }, async (req, reply) => {
    const caller = await authenticate(ctx, req, 'user');
    await confirmed(caller, reply, () => accounts.deleteAccount(ctx, caller, req.body.password));
    return reply.status(204).send();
  });

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

  const botProfile = {
    ...bots,
    summary: "A bot's public face, for its invite page: a public bot's to anyone signed in, a private one's to its owner (else 404)",
    params: BotParams,
    response: { 200: ref(BotProfile), ...errors },
  };
  app.get('/bots/:botId/profile', { schema: botProfile }, async (req, reply) => {
    const caller = await authenticate(ctx, req, 'user');
    await enforce(limiter, RULES.botProfiles, caller.id, reply);
    return accounts.botProfile(ctx, caller, req.params.botId);
  });

  const updateBot = {
    ...bots,
    summary: "Change a bot's name, avatar, visibility or interactions URL",
    params: BotParams,
    body: UpdateBotBody,
    response: { 200: ref(Bot), ...errors },
  };
  app.patch('/bots/:botId', { schema: updateBot }, async (req, reply) => {
    const caller = await authenticate(ctx, req, 'user');
    await enforce(limiter, RULES.manage, caller.id, reply);
    return accounts.updateBot(ctx, caller, req.params.botId, req.body, (botId, url) => verifyInteractionsUrl(ctx, botId, url));
  });

  const deleteBot = { ...bots, summary: 'Delete a bot', params: BotParams, response: { 204: NoContent, ...errors } };
  app.delete('/bots/:botId', { schema: deleteBot }, async (req, reply) => {
    await accounts.deleteBot(ctx, await authenticate(ctx, req, 'user'), req.params.botId);
    return reply.status(204).send();
  });
}
