import { AppError, badRequest, forbidden, notFound } from '../errors.js';
import { isId, newId } from '../ids.js';
import type { Tx } from '../store/index.js';
import type { MessageTable } from '../store/schema.js';
import type { ReactionSummary } from '../store/repos/messages.js';
import { requireChannelPermission, requireIdShape } from './access.js';
import { type DomainContext, notify, nowIso } from './context.js';
import { rejectNul } from './names.js';
import { type Attachment, type Caller, type Embed, type Message, PERMISSIONS, type PublicUser } from './types.js';

export const MAX_CONTENT = 4000;
export const MAX_ATTACHMENTS = 10;
const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** A message about to be created, its attachments already resolved to our uploads. */
export interface NewMessage {
  content: string;
  attachments: Attachment[];
  embeds: Embed[];
}

/** An `Idempotency-Key` scoped to its caller, with a fingerprint of the request it was first used for. */
export interface IdempotencyRequest {
  caller: string;
  key: string;
  fingerprint: string;
}

export interface CreateResult {
  message: Message;
  /** True when this is the stored first response of an earlier request with the same key. */
  replayed: boolean;
}

/** Length in Unicode code points, as the contract counts. */
export const codePoints = (s: string) => [...s].length;

/** Checks content against the contract: ≤ 4000 code points; not blank unless something else carries the message. */
export function checkContent(content: string, hasOtherParts: boolean): void {
  if (codePoints(content) > MAX_CONTENT) throw badRequest(`content must be at most ${MAX_CONTENT} characters`);
  if (content.trim().length === 0 && !hasOtherParts) throw badRequest('content must not be empty');
  rejectNul(content, 'content');
}

function toMessage(row: MessageTable, reactions: ReactionSummary[] = []): Message {
  const author: PublicUser = { id: row.authorId, name: row.authorName, bot: row.authorBot === 1, avatar: row.authorAvatar };
  return {
    id: row.id,
    channelId: row.channelId,
    serverId: row.serverId,
    author,
    content: row.content,
    attachments: JSON.parse(row.attachments) as Attachment[],
    embeds: JSON.parse(row.embeds) as Embed[],
    reactions: reactions.filter((r) => r.messageId === row.id).map((r) => ({ emoji: r.emoji, count: r.count, me: r.me === 1 })),
    ...(row.webhookId ? { webhookId: row.webhookId } : {}),
    createdAt: row.createdAt,
    editedAt: row.editedAt,
  };
}

/** Upload URLs this service handed out look like `<publicUrl>/uploads/<id>/<name>`. */
export async function resolveAttachments(
  ctx: DomainContext,
  items: Array<{ url: string; filename: string }>,
): Promise<Attachment[]> {
  if (items.length > MAX_ATTACHMENTS) throw badRequest(`at most ${MAX_ATTACHMENTS} attachments`);
  const prefix = `${ctx.publicUrl}/uploads/`;
  const ids = items.map((a, i) => {
    const rest = a.url.startsWith(prefix) ? a.url.slice(prefix.length) : '';
    const id = rest.split('/')[0] ?? '';
    if (!isId(id)) throw badRequest(`attachments[${i}].url must be a URL returned by POST /upload`);
    return id;
  });
  const rows = new Map((await ctx.store.uploads.byIds(ctx.store.db, ids)).map((r) => [r.id, r]));
  return items.map((a, i) => {
    const row = rows.get(ids[i]!);
    if (!row) throw badRequest(`attachments[${i}].url must be a URL returned by POST /upload`);
    return { url: a.url, filename: a.filename, size: Number(row.size), contentType: row.contentType };
  });
}

/**
 * Creates a message in one transaction with its idempotency record, so a retry either
 * finds the first response or creates the one message; concurrent duplicates are
 * settled by the record's primary key and the loser returns the winner's response.
 */
export async function createMessage(
  ctx: DomainContext,
  channel: { id: string; serverId: string },
  author: PublicUser,
  webhookId: string | null,
  input: NewMessage,
  idem?: IdempotencyRequest,
): Promise<CreateResult> {
  if (idem) {
    const earlier = await findIdempotent(ctx, idem);
    if (earlier) return earlier;
  }
  const row: MessageTable = {
    id: newId(),
    channelId: channel.id,
    serverId: channel.serverId,
    authorId: author.id,
    authorName: author.name,
    authorAvatar: author.avatar,
    authorBot: author.bot ? 1 : 0,
    webhookId,
    content: input.content,
    attachments: JSON.stringify(input.attachments),
    embeds: JSON.stringify(input.embeds),
    createdAt: nowIso(),
    editedAt: null,
  };
  const message = toMessage(row);
  try {
    await ctx.store.write(async (tx: Tx) => {
      await ctx.store.messages.insert(tx, row);
      if (idem) {
        await ctx.store.idempotency.insert(tx, {
          caller: idem.caller,
          key: idem.key,
          fingerprint: idem.fingerprint,
          status: 201,
          body: JSON.stringify(message),
          createdAt: row.createdAt,
        });
      }
    });
  } catch (err) {
    if (idem && err instanceof AppError && err.code === 'conflict') {
      const earlier = await findIdempotent(ctx, idem);
      if (earlier) return earlier;
    }
    throw err;
  }
  await notify(ctx, { kind: 'event', serverId: channel.serverId, event: { t: 'MESSAGE_CREATE', d: message } });
  return { message, replayed: false };
}

async function findIdempotent(ctx: DomainContext, idem: IdempotencyRequest): Promise<CreateResult | null> {
  const rec = await ctx.store.idempotency.get(ctx.store.db, idem.caller, idem.key);
  if (!rec || Date.parse(rec.createdAt) < Date.now() - IDEMPOTENCY_TTL_MS) return null;
  if (rec.fingerprint !== idem.fingerprint) {
    throw new AppError('conflict', 'Idempotency-Key was already used for a different request');
  }
  return { message: JSON.parse(rec.body) as Message, replayed: true };
}

/** Drops idempotency records past their 24 h; run periodically. */
export async function expireIdempotencyKeys(ctx: DomainContext): Promise<void> {
  const cutoff = new Date(Date.now() - IDEMPOTENCY_TTL_MS).toISOString();
  await ctx.store.write((tx) => ctx.store.idempotency.deleteOlderThan(tx, cutoff));
}

async function loadMessage(ctx: DomainContext, channelId: string, messageId: string) {
  requireIdShape(messageId, 'message');
  const row = await ctx.store.messages.byId(ctx.store.db, channelId, messageId);
  if (!row) throw notFound('message');
  return row;
}

/**
 * One emoji: a single RGI emoji sequence (flags, skin tones and ZWJ sequences included),
 * or one pictograph without its variation selector (❤ as well as ❤️). Built at runtime:
 * TypeScript's ES2022 target does not know the v flag, which Node 20 has.
 */
const EMOJI = new RegExp('^(?:\\p{RGI_Emoji}|\\p{Extended_Pictographic}\\uFE0F?)$', 'v');

export const messages = {
  async send(
    ctx: DomainContext,
    caller: Caller,
    channelId: string,
    body: { content?: string; attachments?: Array<{ url: string; filename: string }> },
    idem?: IdempotencyRequest,
  ): Promise<CreateResult> {
    const channel = await requireChannelPermission(ctx, caller, channelId, 'SEND_MESSAGES');
    const wanted = body.attachments ?? [];
    if (wanted.length > 0 && (channel.permissions & PERMISSIONS.ATTACH_FILES) === 0) throw forbidden('missing permission ATTACH_FILES');
    const content = body.content ?? '';
    checkContent(content, wanted.length > 0);
    const attachments = await resolveAttachments(ctx, wanted);
    const author: PublicUser = { id: caller.id, name: caller.name, bot: caller.bot, avatar: caller.avatar };
    return createMessage(ctx, channel, author, null, { content, attachments, embeds: [] }, idem);
  },

  async list(ctx: DomainContext, caller: Caller, channelId: string, opts: { limit: number; before?: string; after?: string }) {
    await requireChannelPermission(ctx, caller, channelId, 'READ_MESSAGES');
    const rows = await ctx.store.messages.page(ctx.store.db, channelId, opts);
    const reactions = await ctx.store.reactions.summaries(ctx.store.db, rows.map((r) => r.id), caller.id);
    return rows.map((r) => toMessage(r, reactions));
  },

  async get(ctx: DomainContext, caller: Caller, channelId: string, messageId: string) {
    await requireChannelPermission(ctx, caller, channelId, 'READ_MESSAGES');
    const row = await loadMessage(ctx, channelId, messageId);
    return toMessage(row, await ctx.store.reactions.summaries(ctx.store.db, [row.id], caller.id));
  },

  async edit(ctx: DomainContext, caller: Caller, channelId: string, messageId: string, content: string) {
    const channel = await requireChannelPermission(ctx, caller, channelId, 'READ_MESSAGES');
    const row = await loadMessage(ctx, channelId, messageId);
    if (row.authorId !== caller.id || row.webhookId) throw forbidden('you can only edit your own messages');
    const attachments = JSON.parse(row.attachments) as unknown[];
    const embeds = JSON.parse(row.embeds) as unknown[];
    checkContent(content, attachments.length + embeds.length > 0);
    const editedAt = nowIso();
    await ctx.store.write((tx) => ctx.store.messages.edit(tx, messageId, content, editedAt));
    const message = toMessage(
      { ...row, content, editedAt },
      await ctx.store.reactions.summaries(ctx.store.db, [row.id], caller.id),
    );
    await notify(ctx, { kind: 'event', serverId: channel.serverId, event: { t: 'MESSAGE_UPDATE', d: message } });
    return message;
  },

  async delete(ctx: DomainContext, caller: Caller, channelId: string, messageId: string) {
    const channel = await requireChannelPermission(ctx, caller, channelId, 'READ_MESSAGES');
    const row = await loadMessage(ctx, channelId, messageId);
    if (row.authorId !== caller.id) {
      const server = await ctx.store.servers.byId(ctx.store.db, channel.serverId);
      if (server?.ownerId !== caller.id) throw forbidden('you can only delete your own messages');
    }
    await ctx.store.write((tx) => ctx.store.messages.delete(tx, messageId));
    await notify(ctx, {
      kind: 'event',
      serverId: channel.serverId,
      event: { t: 'MESSAGE_DELETE', d: { id: messageId, channelId, serverId: channel.serverId } },
    });
  },

  /** Adds the caller's reaction if absent, removes it if present; returns the state after. */
  async toggleReaction(ctx: DomainContext, caller: Caller, channelId: string, messageId: string, emoji: string) {
    if (!EMOJI.test(emoji)) throw badRequest('emoji must be a single Unicode emoji');
    const channel = await requireChannelPermission(ctx, caller, channelId, 'ADD_REACTIONS');
    await loadMessage(ctx, channelId, messageId);
    const { added, count } = await ctx.store.write(async (tx) => {
      const added = await ctx.store.reactions.add(tx, messageId, emoji, caller.id, nowIso());
      if (!added) await ctx.store.reactions.remove(tx, messageId, emoji, caller.id);
      return { added, count: await ctx.store.reactions.count(tx, messageId, emoji) };
    });
    await notify(ctx, {
      kind: 'event',
      serverId: channel.serverId,
      event: {
        t: added ? 'REACTION_ADD' : 'REACTION_REMOVE',
        d: { channelId, serverId: channel.serverId, messageId, emoji, userId: caller.id, count },
      },
    });
    return { emoji, count, me: added };
  },

  async typing(ctx: DomainContext, caller: Caller, channelId: string) {
    const channel = await requireChannelPermission(ctx, caller, channelId, 'SEND_MESSAGES');
    await notify(ctx, {
      kind: 'event',
      serverId: channel.serverId,
      event: { t: 'TYPING_START', d: { channelId, serverId: channel.serverId, userId: caller.id, name: caller.name, bot: caller.bot } },
    });
  },
};
