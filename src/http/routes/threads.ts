import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import {
  ArchivedThreadsQuery,
  ChannelParams,
  CreateThreadBody,
  CreatedThread,
  MessageParams,
  ServerParams,
  StartThreadFromMessageBody,
  Thread,
  ThreadMember,
  ThreadMemberParams,
  ThreadMembersQuery,
  ThreadParams,
  UpdateThreadBody,
  ref,
} from '@parley/protocol';
import { type ThreadLookup, threads } from '../../domain/threads.js';
import { SECURITY } from '../openapi.js';
import { authenticate } from '../plugins/auth.js';
import { RULES, enforce } from '../plugins/rate-limit.js';
import { NoContent, errors } from '../schemas/wire.js';
import type { RouteDeps } from './deps.js';

/** The native routes answer a private thread the caller may not see as none (docs/threads.md#native-routes). */
const NATIVE: ThreadLookup = { hideUnseen: true };

const ThreadList = Type.Object({ threads: Type.Array(ref(Thread)) }, { description: 'the threads, by id' });
const ArchivedThreadList = Type.Object(
  { threads: Type.Array(ref(Thread)), hasMore: Type.Boolean({ description: 'whether an older page follows' }) },
  { description: 'the threads, newest archive first' },
);

const limitOf = (limit: string | undefined) => (limit === undefined ? {} : { limit: Number(limit) });

/**
 * Threads (docs/threads.md, docs/api.md#threads): starting them, their state, their members
 * and the lists, each a call of `threads` in src/domain/threads.ts (Discord's routes under
 * /api call the same). A thread's messages, reactions, pins, typing and read state are the
 * channel routes on the thread's id. Writes share the management limit, as channels'.
 */
export function threadRoutes(fastify: FastifyInstance, { ctx, limiter }: RouteDeps): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const doc = { tags: ['threads'], security: SECURITY.any };

  app.post(
    '/channels/:channelId/threads',
    {
      schema: {
        ...doc,
        summary: 'Start a thread in a text channel (CREATE_PUBLIC_THREADS or CREATE_PRIVATE_THREADS), or a post in a forum (SEND_MESSAGES)',
        description:
          "public unless `type` is `private_thread`; the caller joins it. In a forum (docs/threads.md#forum-posts) a post: `message` is required (its first message, which takes the post's id and is answered as `message`), `appliedTags` names at most 5 of the forum's tags (a moderated one: MANAGE_THREADS)",
        params: ChannelParams,
        body: CreateThreadBody,
        response: { 201: ref(CreatedThread), ...errors },
      },
    },
    async (req, reply) => {
      const caller = await authenticate(ctx, req, 'any');
      await enforce(limiter, RULES.manage, caller.id, reply);
      const { name, type, autoArchiveDuration, invitable, message, appliedTags } = req.body;
      const thread = await threads.create(ctx, caller, req.params.channelId, {
        name,
        type: type ?? 'public_thread',
        ...(autoArchiveDuration !== undefined ? { autoArchiveDuration } : {}),
        ...(invitable !== undefined ? { invitable } : {}),
        ...(message !== undefined ? { message } : {}),
        ...(appliedTags !== undefined ? { appliedTags } : {}),
      });
      return reply.status(201).send(thread);
    },
  );

  app.post(
    '/channels/:channelId/messages/:messageId/threads',
    {
      schema: {
        ...doc,
        summary: 'Start a public thread from a message (CREATE_PUBLIC_THREADS, READ_MESSAGE_HISTORY)',
        description: "the thread takes the message's id; one thread per message (400 `thread_already_created`)",
        params: MessageParams,
        body: StartThreadFromMessageBody,
        response: { 201: ref(Thread), ...errors },
      },
    },
    async (req, reply) => {
      const caller = await authenticate(ctx, req, 'any');
      await enforce(limiter, RULES.manage, caller.id, reply);
      const { name, autoArchiveDuration } = req.body;
      const thread = await threads.create(ctx, caller, req.params.channelId, {
        name,
        messageId: req.params.messageId,
        ...(autoArchiveDuration !== undefined ? { autoArchiveDuration } : {}),
      });
      return reply.status(201).send(thread);
    },
  );

  app.get(
    '/channels/:channelId/threads',
    {
      schema: {
        ...doc,
        summary: "The channel's active threads the caller may see",
        params: ChannelParams,
        response: { 200: ThreadList, ...errors },
      },
    },
    async (req) => ({ threads: await threads.activeIn(ctx, await authenticate(ctx, req, 'any'), req.params.channelId) }),
  );

  app.get(
    '/channels/:channelId/threads/archived',
    {
      schema: {
        ...doc,
        summary: "A page of the channel's archived threads, newest archive first",
        description:
          'public ones need READ_MESSAGE_HISTORY; private ones MANAGE_THREADS too, unless `joined=true` (only those the caller joined)',
        params: ChannelParams,
        querystring: ArchivedThreadsQuery,
        response: { 200: ArchivedThreadList, ...errors },
      },
    },
    async (req) => {
      const caller = await authenticate(ctx, req, 'any');
      const q = req.query;
      return threads.archived(ctx, caller, req.params.channelId, {
        type: q.type ?? 'public_thread',
        joinedOnly: q.joined === 'true',
        ...(q.before !== undefined ? { before: q.before } : {}),
        ...limitOf(q.limit),
      });
    },
  );

  app.get(
    '/servers/:serverId/threads',
    {
      schema: {
        ...doc,
        summary: "The server's active threads the caller may see",
        params: ServerParams,
        response: { 200: ThreadList, ...errors },
      },
    },
    async (req) => ({ threads: await threads.active(ctx, await authenticate(ctx, req, 'any'), req.params.serverId) }),
  );

  app.get(
    '/threads/:threadId',
    { schema: { ...doc, summary: 'A thread the caller may see', params: ThreadParams, response: { 200: ref(Thread), ...errors } } },
    async (req) => threads.get(ctx, await authenticate(ctx, req, 'any'), req.params.threadId, NATIVE),
  );

  app.patch(
    '/threads/:threadId',
    {
      schema: {
        ...doc,
        summary:
          "Rename, archive or unarchive a thread, set its duration or a forum post's tags (its owner or MANAGE_THREADS); lock it (MANAGE_THREADS)",
        description:
          'an archived thread takes nothing but `archived: false` (400 `thread_archived`); a locked one changes only for MANAGE_THREADS',
        params: ThreadParams,
        body: UpdateThreadBody,
        response: { 200: ref(Thread), ...errors },
      },
    },
    async (req, reply) => {
      const caller = await authenticate(ctx, req, 'any');
      await enforce(limiter, RULES.manage, caller.id, reply);
      return threads.update(ctx, caller, req.params.threadId, req.body, NATIVE);
    },
  );

  app.delete(
    '/threads/:threadId',
    {
      schema: {
        ...doc,
        summary: 'Delete a thread with its messages (MANAGE_THREADS)',
        params: ThreadParams,
        response: { 204: NoContent, ...errors },
      },
    },
    async (req, reply) => {
      const caller = await authenticate(ctx, req, 'any');
      await enforce(limiter, RULES.manage, caller.id, reply);
      await threads.remove(ctx, caller, req.params.threadId, NATIVE);
      return reply.status(204).send();
    },
  );

  app.get(
    '/threads/:threadId/members',
    {
      schema: {
        ...doc,
        summary: "A page of the thread's members, by user id",
        params: ThreadParams,
        querystring: ThreadMembersQuery,
        response: { 200: Type.Array(ref(ThreadMember), { description: 'the members, by user id' }), ...errors },
      },
    },
    async (req) => {
      const caller = await authenticate(ctx, req, 'any');
      const { after, limit } = req.query;
      return threads.members(ctx, caller, req.params.threadId, { ...(after !== undefined ? { after } : {}), ...limitOf(limit) }, NATIVE);
    },
  );

  app.get(
    '/threads/:threadId/members/:userId',
    {
      schema: {
        ...doc,
        summary: 'One member of the thread (`@me`: the caller)',
        params: ThreadMemberParams,
        response: { 200: ref(ThreadMember), ...errors },
      },
    },
    async (req) => threads.member(ctx, await authenticate(ctx, req, 'any'), req.params.threadId, req.params.userId, NATIVE),
  );

  app.put(
    '/threads/:threadId/members/:userId',
    {
      schema: {
        ...doc,
        summary: 'Join a thread (`@me`), or add a member of the server who sees its channel',
        description:
          'adding someone else needs to post in the thread, and for a private thread that is not `invitable`, MANAGE_THREADS; not in an archived thread (400 `thread_archived`)',
        params: ThreadMemberParams,
        response: { 204: NoContent, ...errors },
      },
    },
    async (req, reply) => {
      const caller = await authenticate(ctx, req, 'any');
      await enforce(limiter, RULES.manage, caller.id, reply);
      await threads.addMember(ctx, caller, req.params.threadId, req.params.userId, NATIVE);
      return reply.status(204).send();
    },
  );

  app.delete(
    '/threads/:threadId/members/:userId',
    {
      schema: {
        ...doc,
        summary: 'Leave a thread (`@me`), or remove a member (MANAGE_THREADS, or the owner of a private thread)',
        params: ThreadMemberParams,
        response: { 204: NoContent, ...errors },
      },
    },
    async (req, reply) => {
      const caller = await authenticate(ctx, req, 'any');
      await enforce(limiter, RULES.manage, caller.id, reply);
      await threads.removeMember(ctx, caller, req.params.threadId, req.params.userId, NATIVE);
      return reply.status(204).send();
    },
  );
}
