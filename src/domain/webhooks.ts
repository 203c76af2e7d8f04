import { checkComponents } from './components.js';
import { hashToken, newSecret, tokenMatches } from '../crypto.js';
import { badRequest, notFound } from '../errors.js';
import { isId } from '../ids.js';
import type { WebhookTable } from '../store/schema.js';
import { requireOwner } from './access.js';
import { auditIn, diff } from './audit.js';
import { type DomainContext, nowIso } from './context.js';
import { resolveAttachmentRefs } from '../webhooks/discord.js';
import {
  type CreateResult,
  type IdempotencyRequest,
  type MessageChange,
  type NewMessage,
  applyEdit,
  createMessage,
  prepareMessage,
  loadWebhookMessage,
  messageView,
  removeMessage,
} from './messages.js';
import { cleanAvatar, cleanName, rejectNul, stripUnsafeCharacters } from './names.js';
import type { Attachment, Caller, Message, Webhook } from './types.js';

/** A webhook reads no channel (and posts no replies): no message it is shown quotes another. */
const WEBHOOK_VIEWER = (hookId: string) => ({ id: hookId, reads: false });

export const webhookView = (w: WebhookTable): Webhook => ({
  id: w.id,
  serverId: w.serverId,
  channelId: w.channelId,
  name: w.name,
  avatar: w.avatar,
  createdBy: w.createdBy,
  createdAt: w.createdAt,
});

async function channelOfServer(ctx: DomainContext, serverId: string, channelId: string) {
  const channel = isId(channelId) ? await ctx.store.channels.byId(ctx.store.db, channelId) : undefined;
  // A channel of another server is refused the same way as a missing one: the owner
  // of this server learns nothing about other servers.
  if (!channel || channel.serverId !== serverId) throw badRequest('channelId must be a channel of this server');
  // A webhook posts messages, which a category does not hold (docs/api.md#categories).
  if (channel.type === 'category') throw badRequest('a category holds no messages: choose one of its channels', 'channel_is_category');
  // Nor a forum, whose messages are its posts' (docs/threads.md#forum-channels): a webhook starting posts is not built yet.
  if (channel.type === 'forum') throw badRequest('a forum holds no messages of its own: choose a text channel', 'channel_is_forum');
  return channel;
}

async function ownedWebhook(ctx: DomainContext, caller: Caller, webhookId: string) {
  const hook = isId(webhookId) ? await ctx.store.webhooks.byId(ctx.store.db, webhookId) : undefined;
  if (!hook) throw notFound('webhook');
  await requireOwner(ctx, caller, hook.serverId);
  return hook;
}

/** The one answer for an unknown, deleted or wrongly-tokened webhook. */
const unknownWebhook = () => notFound('webhook');

/** Discord's limit on a per-message username, in code points. */
const MAX_USERNAME = 80;

/**
 * The author name of one execution: the per-message override with disguising characters
 * removed (a name like `invoice\u202Efdp.exe` must not pass for another), trimmed and cut
 * to Discord's 80; the webhook's own name when no override is given or nothing is left.
 */
function authorName(hook: WebhookTable, override: string | undefined): string {
  if (override === undefined) return hook.name;
  const cleaned = [...stripUnsafeCharacters(override).trim()].slice(0, MAX_USERNAME).join('').trim();
  return cleaned === '' ? hook.name : cleaned;
}

export const webhooks = {
  async create(ctx: DomainContext, caller: Caller, serverId: string, input: { name: string; channelId: string; avatar?: string | null }) {
    await requireOwner(ctx, caller, serverId);
    const name = cleanName(input.name, 'name', 80);
    await channelOfServer(ctx, serverId, input.channelId);
    const secret = newSecret();
    const row: WebhookTable = {
      id: ctx.store.ids.next(),
      serverId,
      channelId: input.channelId,
      name,
      avatar: cleanAvatar(input.avatar),
      tokenHash: hashToken(secret),
      createdBy: caller.id,
      createdAt: nowIso(ctx),
    };
    await ctx.store.write(async (tx) => {
      await ctx.store.webhooks.insert(tx, row);
      await auditIn(ctx, tx, serverId, caller, 'webhook_create', row.id, { name: row.name, channelId: row.channelId });
    });
    return { ...webhookView(row), token: secret, url: `${ctx.publicUrl}/webhooks/${row.id}/${secret}` };
  },

  /** One webhook, for its server's owner (without its token). */
  async get(ctx: DomainContext, caller: Caller, webhookId: string) {
    return webhookView(await ownedWebhook(ctx, caller, webhookId));
  },

  async list(ctx: DomainContext, caller: Caller, serverId: string) {
    await requireOwner(ctx, caller, serverId);
    return (await ctx.store.webhooks.ofServer(ctx.store.db, serverId)).map(webhookView);
  },

  async update(
    ctx: DomainContext,
    caller: Caller,
    webhookId: string,
    patch: { name?: string; channelId?: string; avatar?: string | null },
  ) {
    const hook = await ownedWebhook(ctx, caller, webhookId);
    const changes: Partial<Pick<WebhookTable, 'name' | 'channelId' | 'avatar'>> = {};
    if (patch.name !== undefined) changes.name = cleanName(patch.name, 'name', 80);
    if (patch.channelId !== undefined) changes.channelId = (await channelOfServer(ctx, hook.serverId, patch.channelId)).id;
    if (patch.avatar !== undefined) changes.avatar = cleanAvatar(patch.avatar);
    if (Object.keys(changes).length > 0) {
      const r = await ctx.store.write(async (tx) => {
        const r = await ctx.store.webhooks.update(tx, webhookId, changes);
        if (Number(r.numUpdatedRows) > 0) await auditIn(ctx, tx, hook.serverId, caller, 'webhook_update', webhookId, diff(hook, changes));
        return r;
      });
      if (Number(r.numUpdatedRows) === 0) throw notFound('webhook');
    }
    return webhookView({ ...hook, ...changes });
  },

  async delete(ctx: DomainContext, caller: Caller, webhookId: string) {
    const hook = await ownedWebhook(ctx, caller, webhookId);
    await ctx.store.write(async (tx) => {
      await ctx.store.webhooks.delete(tx, webhookId);
      await auditIn(ctx, tx, hook.serverId, caller, 'webhook_delete', webhookId, { name: hook.name });
    });
  },

  /**
   * Whether `id` names a webhook at all (its token unchecked): Discord's webhook paths are
   * shared with interaction follow-ups (`/webhooks/{applicationId}/{token}`), and this
   * tells which one a path is for.
   */
  async exists(ctx: DomainContext, id: string): Promise<boolean> {
    return isId(id) && (await ctx.store.webhooks.byId(ctx.store.db, id)) !== undefined;
  },

  /** The webhook behind a URL's id and token, or 404 (the same for every failure). */
  async authenticate(ctx: DomainContext, webhookId: string, token: string) {
    const hook = isId(webhookId) ? await ctx.store.webhooks.byId(ctx.store.db, webhookId) : undefined;
    if (!hook || !tokenMatches(token, hook.tokenHash)) throw unknownWebhook();
    return hook;
  },

  /** Posts into the webhook's current channel under its name (or the per-message override). */
  async execute(
    ctx: DomainContext,
    hook: WebhookTable,
    input: NewMessage & { username?: string; avatarUrl?: string },
    idem?: IdempotencyRequest,
  ): Promise<CreateResult> {
    rejectNul(input.content, 'content');
    if (input.username !== undefined) rejectNul(input.username, 'username');
    if (input.avatarUrl !== undefined) rejectNul(input.avatarUrl, 'avatar_url');
    const author = {
      id: hook.id,
      name: authorName(hook, input.username),
      bot: true,
      avatar: input.avatarUrl ?? hook.avatar,
    };
    const channel = { id: hook.channelId, serverId: hook.serverId };
    // A webhook may ping @everyone, as on Discord (its owner set it up); `allowedMentions`
    // narrows that, and the Slack and GitHub dialects ping no one.
    const prepared = await prepareMessage(ctx, channel, hook.id, true, {
      content: input.content,
      uploads: input.uploads,
      embeds: input.embeds,
      allowedMentions: input.allowedMentions,
    });
    // No bot answers a webhook's clicks: link buttons only (docs/commands.md#components).
    const components = input.components?.length ? checkComponents(input.components, false) : undefined;
    return createMessage(ctx, channel, author, hook.id, components ? { ...prepared, components } : prepared, idem);
  },

  /** A message the webhook posted, as GET /channels/{id}/messages/{id} shows it; 404 for any other. */
  async getMessage(ctx: DomainContext, hook: WebhookTable, messageId: string): Promise<Message> {
    return messageView(ctx, await loadWebhookMessage(ctx, hook.id, messageId), WEBHOOK_VIEWER(hook.id));
  },

  /**
   * Edits a message the webhook posted, under the rules of every edit (`applyEdit`). Embed
   * images may name the message's own files with attachment://<filename>, as on Discord;
   * a name it has no file for is dropped, as when executing.
   */
  async editMessage(ctx: DomainContext, hook: WebhookTable, messageId: string, change: MessageChange): Promise<Message> {
    if (change.content !== undefined) rejectNul(change.content, 'content');
    const row = await loadWebhookMessage(ctx, hook.id, messageId);
    let embeds = change.embeds;
    if (embeds !== undefined) {
      const files = JSON.parse(row.attachments) as Attachment[];
      embeds = resolveAttachmentRefs(embeds, new Map(files.map((a) => [a.filename, a.url])));
    }
    return applyEdit(ctx, row, { content: change.content, embeds }, WEBHOOK_VIEWER(hook.id));
  },

  /** Deletes a message the webhook posted, with its files (`removeMessage`); 404 for any other. */
  async deleteMessage(ctx: DomainContext, hook: WebhookTable, messageId: string): Promise<void> {
    await removeMessage(ctx, await loadWebhookMessage(ctx, hook.id, messageId));
  },
};
