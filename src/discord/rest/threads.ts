/**
 * Discord's thread routes (docs/threads.md, docs/discord.md#routes): starting a thread from a
 * message or on its own, its members, and the lists of active and archived threads. A thread's
 * own `GET`, `PATCH` and `DELETE /channels/{id}` are the channel routes' (channels.ts), which
 * hand a thread to the same domain actions. Rate limits as the channel routes'.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import { threads, type ThreadView } from '../../domain/threads.js';
import { authenticate } from '../../http/plugins/auth.js';
import { RULES, enforce } from '../../http/plugins/rate-limit.js';
import type { RouteDeps } from '../../http/routes/deps.js';
import { discordMessage, discordThread, discordThreadMember } from '../objects.js';
import { DiscordStartThreadFromMessageBody, withBody } from '../schemas.js';
import { threadStartFromDiscord } from '../bodies.js';
import { badRequest } from '../../errors.js';
import { resolveAttachmentRefs } from '../../webhooks/discord.js';
import { hidden, newMessageFiles, queryInt, queryString, readDiscordForm } from './common.js';

type ChannelReq = FastifyRequest<{ Params: { channelId: string } }>;
type MessageReq = FastifyRequest<{ Params: { channelId: string; messageId: string } }>;
type MemberReq = FastifyRequest<{ Params: { channelId: string; userId: string } }>;
type GuildReq = FastifyRequest<{ Params: { guildId: string } }>;

/** Discord's answer of a thread list: the threads, and the caller's memberships among them. */
const listing = (list: ThreadView[], hasMore?: boolean) => ({
  threads: list.map(discordThread),
  members: list.flatMap((t) => (t.member ? [discordThreadMember(t.member)] : [])),
  ...(hasMore === undefined ? {} : { has_more: hasMore }),
});

export function discordThreadRoutes(api: FastifyInstance, deps: RouteDeps): void {
  const { ctx, limiter } = deps;
  const who = (req: FastifyRequest) => authenticate(ctx, req, 'any');

  api.post(
    '/channels/:channelId/messages/:messageId/threads',
    withBody(DiscordStartThreadFromMessageBody),
    async (req: MessageReq, reply) => {
      const caller = await who(req);
      await enforce(limiter, RULES.manage, caller.id, reply);
      const body = req.body as Static<typeof DiscordStartThreadFromMessageBody>;
      const thread = await threads.create(ctx, caller, req.params.channelId, {
        name: body.name,
        messageId: req.params.messageId,
        ...(body.auto_archive_duration != null ? { autoArchiveDuration: body.auto_archive_duration } : {}),
      });
      return reply.code(201).send(discordThread(thread));
    },
  );

  // JSON, or (a forum post with files) multipart: `payload_json` and `files[n]`, as a message's.
  api.post('/channels/:channelId/threads', hidden, async (req: ChannelReq, reply) => {
    const caller = await who(req);
    await enforce(limiter, RULES.manage, caller.id, reply);
    const form = await readDiscordForm(
      ctx,
      deps,
      req,
      caller.id,
      async () => {
        // Before a byte of a file is stored: the caller may attach files to a post there.
        await threads.admitPostFiles(ctx, caller, req.params.channelId);
        await enforce(limiter, RULES.uploads, caller.id, reply);
      },
      threadStartFromDiscord,
    );
    try {
      const { body, message } = form.json;
      const files = message ? await newMessageFiles(ctx, form, message.attachments) : undefined;
      if (!message && form.stored.length > 0) throw badRequest('files belong to a forum post’s message');
      const thread = await threads.create(ctx, caller, req.params.channelId, {
        name: body.name,
        ...(body.type != null ? { type: body.type === 11 ? 'public_thread' : body.type === 12 ? 'private_thread' : 'other' } : {}),
        ...(body.auto_archive_duration != null ? { autoArchiveDuration: body.auto_archive_duration } : {}),
        ...(body.invitable != null ? { invitable: body.invitable } : {}),
        ...(body.applied_tags != null ? { appliedTags: body.applied_tags } : {}),
        ...(message && files
          ? {
              message: {
                content: message.content,
                embeds: resolveAttachmentRefs(message.embeds, files.urls),
                ...(files.attachments.length > 0 ? { attachments: files.attachments } : {}),
                ...(message.allowedMentions ? { allowedMentions: message.allowedMentions } : {}),
                ...(message.components ? { components: message.components } : {}),
              },
            }
          : {}),
      });
      const { message: first, ...view } = thread;
      // Discord answers a forum post with its first message beside the channel.
      return reply
        .code(201)
        .send({ ...discordThread(view), ...(first ? { message: discordMessage(first, { publicUrl: ctx.publicUrl }) } : {}) });
    } catch (err) {
      await form.discard();
      throw err;
    }
  });

  api.put('/channels/:channelId/thread-members/:userId', hidden, async (req: MemberReq, reply) => {
    const caller = await who(req);
    await enforce(limiter, RULES.manage, caller.id, reply);
    await threads.addMember(ctx, caller, req.params.channelId, req.params.userId);
    return reply.code(204).send();
  });

  api.delete('/channels/:channelId/thread-members/:userId', hidden, async (req: MemberReq, reply) => {
    const caller = await who(req);
    await enforce(limiter, RULES.manage, caller.id, reply);
    await threads.removeMember(ctx, caller, req.params.channelId, req.params.userId);
    return reply.code(204).send();
  });

  api.get('/channels/:channelId/thread-members/:userId', hidden, async (req: MemberReq) => {
    const caller = await who(req);
    return discordThreadMember(await threads.member(ctx, caller, req.params.channelId, req.params.userId));
  });

  api.get('/channels/:channelId/thread-members', hidden, async (req: ChannelReq) => {
    const caller = await who(req);
    const q = req.query as Record<string, unknown>;
    const after = queryString(q.after);
    const limit = queryInt(queryString(q.limit), 'limit');
    const list = await threads.members(ctx, caller, req.params.channelId, {
      ...(after !== undefined ? { after } : {}),
      ...(limit !== undefined ? { limit } : {}),
    });
    return list.map(discordThreadMember);
  });

  api.get('/guilds/:guildId/threads/active', hidden, async (req: GuildReq) => {
    const caller = await who(req);
    return listing(await threads.active(ctx, caller, req.params.guildId));
  });

  const archived = (kind: 'public_thread' | 'private_thread', joinedOnly: boolean) => async (req: ChannelReq) => {
    const caller = await who(req);
    const q = req.query as Record<string, unknown>;
    const before = queryString(q.before);
    const limit = queryInt(queryString(q.limit), 'limit');
    const page = await threads.archived(ctx, caller, req.params.channelId, {
      type: kind,
      joinedOnly,
      ...(before !== undefined ? { before } : {}),
      ...(limit !== undefined ? { limit } : {}),
    });
    return listing(page.threads, page.hasMore);
  };
  api.get('/channels/:channelId/threads/archived/public', hidden, archived('public_thread', false));
  api.get('/channels/:channelId/threads/archived/private', hidden, archived('private_thread', false));
  api.get('/channels/:channelId/users/@me/threads/archived/private', hidden, archived('private_thread', true));
}
