import { hashToken, newSecret, tokenMatches } from '../crypto.js';
import { badRequest, notFound } from '../errors.js';
import { isId, newId } from '../ids.js';
import type { WebhookTable } from '../store/schema.js';
import { requireOwner } from './access.js';
import { type DomainContext, nowIso } from './context.js';
import { type CreateResult, type IdempotencyRequest, type NewMessage, createMessage } from './messages.js';
import { cleanAvatar, cleanName, rejectNul } from './names.js';
import type { Caller, Webhook } from './types.js';

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

export const webhooks = {
  async create(ctx: DomainContext, caller: Caller, serverId: string, input: { name: string; channelId: string; avatar?: string | null }) {
    await requireOwner(ctx, caller, serverId);
    const name = cleanName(input.name, 'name', 80);
    await channelOfServer(ctx, serverId, input.channelId);
    const secret = newSecret();
    const row: WebhookTable = {
      id: newId(),
      serverId,
      channelId: input.channelId,
      name,
      avatar: cleanAvatar(input.avatar),
      tokenHash: hashToken(secret),
      createdBy: caller.id,
      createdAt: nowIso(),
    };
    await ctx.store.write((tx) => ctx.store.webhooks.insert(tx, row));
    return { ...webhookView(row), token: secret, url: `${ctx.publicUrl}/webhooks/${row.id}/${secret}` };
  },

  async list(ctx: DomainContext, caller: Caller, serverId: string) {
    await requireOwner(ctx, caller, serverId);
    return (await ctx.store.webhooks.ofServer(ctx.store.db, serverId)).map(webhookView);
  },

  async update(ctx: DomainContext, caller: Caller, webhookId: string, patch: { name?: string; channelId?: string; avatar?: string | null }) {
    const hook = await ownedWebhook(ctx, caller, webhookId);
    const changes: Partial<Pick<WebhookTable, 'name' | 'channelId' | 'avatar'>> = {};
    if (patch.name !== undefined) changes.name = cleanName(patch.name, 'name', 80);
    if (patch.channelId !== undefined) changes.channelId = (await channelOfServer(ctx, hook.serverId, patch.channelId)).id;
    if (patch.avatar !== undefined) changes.avatar = cleanAvatar(patch.avatar);
    if (Object.keys(changes).length > 0) {
      const r = await ctx.store.write((tx) => ctx.store.webhooks.update(tx, webhookId, changes));
      if (Number(r.numUpdatedRows) === 0) throw notFound('webhook');
    }
    return webhookView({ ...hook, ...changes });
  },

  async delete(ctx: DomainContext, caller: Caller, webhookId: string) {
    await ownedWebhook(ctx, caller, webhookId);
    await ctx.store.write((tx) => ctx.store.webhooks.delete(tx, webhookId));
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
      name: input.username ?? hook.name,
      bot: true,
      avatar: input.avatarUrl ?? hook.avatar,
    };
    return createMessage(
      ctx,
      { id: hook.channelId, serverId: hook.serverId },
      author,
      hook.id,
      { content: input.content, attachments: input.attachments, embeds: input.embeds },
      idem,
    );
  },
};
