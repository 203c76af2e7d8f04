/**
 * Discord's channel routes: the channel, its messages (list, get, create with JSON or
 * multipart files, edit, delete, bulk delete), reactions, typing, pins and permission
 * overwrites. Each calls the domain action its native twin calls (src/http/routes/
 * messages.ts, servers.ts, moderation.ts), under the same rate limits.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import { conversations } from '../../domain/conversations.js';
import { messages } from '../../domain/messages.js';
import { roles } from '../../domain/roles.js';
import { channels } from '../../domain/channels.js';
import { threads } from '../../domain/threads.js';
import { badRequest } from '../../errors.js';
import { authenticate } from '../../http/plugins/auth.js';
import { RULES, enforce } from '../../http/plugins/rate-limit.js';
import type { RouteDeps } from '../../http/routes/deps.js';
import { editFromDiscord, forumFromDiscord, overwriteFromDiscord, overwritesFromDiscord } from '../bodies.js';
import { DiscordBulkDeleteBody, DiscordOverwriteBody, DiscordUpdateChannelBody, withBody } from '../schemas.js';
import { discordAnyChannel, discordMessage, discordThread, discordUser } from '../objects.js';
import { hidden, queryInt, queryString, readMessageBody } from './common.js';

type ChannelReq = FastifyRequest<{ Params: { channelId: string } }>;
type MessageReq = FastifyRequest<{ Params: { channelId: string; messageId: string } }>;
type ReactionReq = FastifyRequest<{ Params: { channelId: string; messageId: string; emoji: string } }>;

/**
 * `PATCH /channels/{id}` (schema-checked: `DiscordUpdateChannelBody`): Discord's `name`,
 * `topic`, `position`, `parent_id` (what Parley's channels have) and `permission_overwrites` (the whole
 * list, replacing the channel's; or, with `lock_permissions` alone, the category's).
 */
function channelPatch(body: Static<typeof DiscordUpdateChannelBody>) {
  const overwrites = overwritesFromDiscord(body.permission_overwrites);
  return {
    ...(body.name !== undefined ? { name: body.name } : {}),
    ...(body.topic !== undefined ? { topic: body.topic } : {}),
    ...(body.position != null ? { position: body.position } : {}),
    ...(body.parent_id !== undefined ? { parentId: body.parent_id } : {}),
    ...(overwrites ? { overwrites } : body.lock_permissions ? { syncPermissions: true } : {}),
    ...forumFromDiscord(body),
  };
}

/** `PATCH /channels/{thread}`: a thread's name and `thread_metadata` fields (docs/threads.md). */
function threadPatch(body: Static<typeof DiscordUpdateChannelBody>) {
  return {
    ...(body.name !== undefined ? { name: body.name } : {}),
    ...(body.archived != null ? { archived: body.archived } : {}),
    ...(body.locked != null ? { locked: body.locked } : {}),
    ...(body.auto_archive_duration != null ? { autoArchiveDuration: body.auto_archive_duration } : {}),
    ...(body.invitable != null ? { invitable: body.invitable } : {}),
    ...(body.applied_tags != null ? { appliedTags: body.applied_tags } : {}),
  };
}

export function discordChannelRoutes(api: FastifyInstance, deps: RouteDeps): void {
  const { ctx, limiter } = deps;
  const view = () => ({ publicUrl: ctx.publicUrl });
  const who = (req: FastifyRequest) => authenticate(ctx, req, 'any');

  api.get('/channels/:channelId', hidden, async (req: ChannelReq) => {
    const caller = await who(req);
    if (await threads.isThread(ctx, req.params.channelId)) return discordThread(await threads.get(ctx, caller, req.params.channelId));
    return discordAnyChannel(await channels.get(ctx, caller, req.params.channelId), caller.id);
  });

  api.patch('/channels/:channelId', withBody(DiscordUpdateChannelBody), async (req: ChannelReq, reply) => {
    const caller = await who(req);
    await enforce(limiter, RULES.manage, caller.id, reply);
    if (await threads.isThread(ctx, req.params.channelId))
      return discordThread(
        await threads.update(ctx, caller, req.params.channelId, threadPatch(req.body as Static<typeof DiscordUpdateChannelBody>)),
      );
    const patch = channelPatch(req.body as Static<typeof DiscordUpdateChannelBody>);
    return discordAnyChannel(await channels.updateChannel(ctx, caller, req.params.channelId, patch), caller.id);
  });

  // Discord answers the deleted channel (a DM: the one left).
  api.delete('/channels/:channelId', hidden, async (req: ChannelReq, reply) => {
    const caller = await who(req);
    await enforce(limiter, RULES.manage, caller.id, reply);
    if (await threads.isThread(ctx, req.params.channelId)) return discordThread(await threads.remove(ctx, caller, req.params.channelId));
    const channel = await channels.get(ctx, caller, req.params.channelId);
    await channels.deleteChannel(ctx, caller, req.params.channelId);
    return discordAnyChannel(channel, caller.id);
  });

  // ---------------------------------------------------------------- messages

  api.get('/channels/:channelId/messages', hidden, async (req: ChannelReq) => {
    const caller = await who(req);
    const q = req.query as Record<string, unknown>;
    const page = {
      limit: queryInt(queryString(q.limit), 'limit'),
      before: queryString(q.before),
      after: queryString(q.after),
      around: queryString(q.around),
    };
    const list = await messages.list(ctx, caller, req.params.channelId, page);
    return list.map((m) => discordMessage(m, view()));
  });

  api.get('/channels/:channelId/messages/:messageId', hidden, async (req: MessageReq) => {
    const caller = await who(req);
    return discordMessage(await messages.get(ctx, caller, req.params.channelId, req.params.messageId), view());
  });

  api.post('/channels/:channelId/messages', hidden, async (req: ChannelReq, reply) => {
    const caller = await who(req);
    // Authorised before a byte of the body is read: a made-up or forbidden channel stores
    // nothing, and the limits below key on a channel that exists (docs/security.md#files-are-for-those-who-may-see-them).
    const gate = await messages.admitSend(ctx, caller, req.params.channelId);
    await enforce(limiter, RULES.messages, `${caller.id}:${req.params.channelId}`, reply);
    const read = await readMessageBody(ctx, deps, req, caller.id, async () => {
      gate.mayAttach();
      await enforce(limiter, RULES.uploads, caller.id, reply);
    });
    try {
      const { input } = read;
      const { message } = await messages.send(ctx, caller, req.params.channelId, {
        content: input.content,
        embeds: input.embeds,
        ...(read.attachments.length > 0 ? { attachments: read.attachments } : {}),
        ...(input.allowedMentions ? { allowedMentions: input.allowedMentions } : {}),
        ...(input.messageReference ? { messageReference: input.messageReference } : {}),
        ...(input.components ? { components: input.components } : {}),
      });
      return discordMessage(message, view(), input.nonce !== undefined ? { nonce: input.nonce } : {});
    } catch (err) {
      await read.discard();
      throw err;
    }
  });

  api.patch('/channels/:channelId/messages/:messageId', hidden, async (req: MessageReq, reply) => {
    const caller = await who(req);
    await enforce(limiter, RULES.messages, `${caller.id}:${req.params.channelId}`, reply);
    if (req.isMultipart()) throw badRequest('editing with files is not supported: send JSON');
    const edit = editFromDiscord(req.body);
    const { attachments: _kept, ...change } = edit;
    return discordMessage(await messages.edit(ctx, caller, req.params.channelId, req.params.messageId, change), view());
  });

  api.delete('/channels/:channelId/messages/:messageId', hidden, async (req: MessageReq, reply) => {
    const caller = await who(req);
    await messages.delete(ctx, caller, req.params.channelId, req.params.messageId, caller.reason);
    return reply.status(204).send();
  });

  api.post('/channels/:channelId/messages/bulk-delete', withBody(DiscordBulkDeleteBody), async (req: ChannelReq, reply) => {
    const caller = await who(req);
    await enforce(limiter, RULES.manage, caller.id, reply);
    const ids = (req.body as Static<typeof DiscordBulkDeleteBody>).messages;
    await conversations.bulkDelete(ctx, caller, req.params.channelId, ids, caller.reason);
    return reply.status(204).send();
  });

  // ---------------------------------------------------------------- reactions (Discord's: PUT adds, DELETE removes)

  api.put('/channels/:channelId/messages/:messageId/reactions/:emoji/@me', hidden, async (req: ReactionReq, reply) => {
    const caller = await who(req);
    await enforce(limiter, RULES.reactions, `${caller.id}:${req.params.channelId}`, reply);
    await messages.setReaction(ctx, caller, req.params.channelId, req.params.messageId, req.params.emoji, true);
    return reply.status(204).send();
  });

  api.delete('/channels/:channelId/messages/:messageId/reactions/:emoji/@me', hidden, async (req: ReactionReq, reply) => {
    const caller = await who(req);
    await enforce(limiter, RULES.reactions, `${caller.id}:${req.params.channelId}`, reply);
    await messages.setReaction(ctx, caller, req.params.channelId, req.params.messageId, req.params.emoji, false);
    return reply.status(204).send();
  });

  api.get('/channels/:channelId/messages/:messageId/reactions/:emoji', hidden, async (req: ReactionReq) => {
    const caller = await who(req);
    const q = req.query as Record<string, unknown>;
    const users = await messages.reactors(ctx, caller, req.params.channelId, req.params.messageId, req.params.emoji, {
      limit: queryInt(queryString(q.limit), 'limit'),
      after: queryString(q.after),
    });
    return users.map(discordUser);
  });

  // ---------------------------------------------------------------- typing and pins

  api.post('/channels/:channelId/typing', hidden, async (req: ChannelReq, reply) => {
    const caller = await who(req);
    await enforce(limiter, RULES.typing, `${caller.id}:${req.params.channelId}`, reply);
    await messages.typing(ctx, caller, req.params.channelId);
    return reply.status(204).send();
  });

  // The pinned messages: the older `GET /channels/{id}/pins` (a list of messages) and the
  // newer `GET /channels/{id}/messages/pins` (`{items: [{pinned_at, message}], has_more}`).
  api.get('/channels/:channelId/pins', hidden, async (req: ChannelReq) => {
    const caller = await who(req);
    return (await conversations.pins(ctx, caller, req.params.channelId)).map((m) => discordMessage(m, view()));
  });
  api.get('/channels/:channelId/messages/pins', hidden, async (req: ChannelReq) => {
    const caller = await who(req);
    const pinned = await conversations.pins(ctx, caller, req.params.channelId);
    // Parley keeps when a message was pinned but shows it only as the order; its edit time stands in.
    return { items: pinned.map((m) => ({ pinned_at: m.editedAt ?? m.createdAt, message: discordMessage(m, view()) })), has_more: false };
  });
  for (const url of ['/channels/:channelId/pins/:messageId', '/channels/:channelId/messages/pins/:messageId']) {
    for (const [method, pinned] of [
      ['PUT', true],
      ['DELETE', false],
    ] as const) {
      api.route({
        method,
        url,
        ...hidden,
        handler: async (req: MessageReq, reply) => {
          const caller = await who(req);
          await enforce(limiter, RULES.manage, caller.id, reply);
          await conversations.setPinned(ctx, caller, req.params.channelId, req.params.messageId, pinned);
          return reply.status(204).send();
        },
      });
    }
  }

  // ---------------------------------------------------------------- permission overwrites

  type OverwriteReq = FastifyRequest<{ Params: { channelId: string; overwriteId: string } }>;
  api.put('/channels/:channelId/permissions/:overwriteId', withBody(DiscordOverwriteBody), async (req: OverwriteReq, reply) => {
    const caller = await who(req);
    await enforce(limiter, RULES.manage, caller.id, reply);
    const body = overwriteFromDiscord(req.body as Static<typeof DiscordOverwriteBody>);
    await roles.putOverwrite(ctx, caller, req.params.channelId, req.params.overwriteId, body);
    return reply.status(204).send();
  });
  api.delete('/channels/:channelId/permissions/:overwriteId', hidden, async (req: OverwriteReq, reply) => {
    const caller = await who(req);
    await enforce(limiter, RULES.manage, caller.id, reply);
    await roles.deleteOverwrite(ctx, caller, req.params.channelId, req.params.overwriteId);
    return reply.status(204).send();
  });
}
