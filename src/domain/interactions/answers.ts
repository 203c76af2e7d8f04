import {
  ATTACHMENTS_MAX,
  type CommandChoice,
  type Modal,
  type Attachment,
  type InteractionCallbackBody,
  type InteractionMessageBody,
  type Message,
} from '@parley/protocol';
import { splitToken, tokenMatches } from '../../crypto.js';
import { AppError, badRequest, conflict, notFound } from '../../errors.js';
import { isId } from '../../ids.js';
import type { InteractionTable, MessageTable } from '../../store/schema.js';
import { validateEmbeds } from '../../webhooks/types.js';
import { readsChannel, requireChannelPermission } from '../access.js';
import { publicUser } from '../accounts.js';
import { checkComponents } from '../components.js';
import { DM_SERVER_ID, type DomainContext, notify, nowIso } from '../context.js';
import { NONE, mayMention } from '../mentions.js';
import {
  type FileGiver,
  type StoredInteraction,
  applyEdit,
  checkContent,
  createMessage,
  messageView,
  prepareMessage,
  fileGiver,
  removeMessage,
  resolveAttachments,
  serverOf,
  type Viewer,
} from '../messages.js';
import { NEEDS } from '../permissions.js';
import type { Caller } from '../types.js';
import { type StoredUpload, attachmentOf, releaseUploads, uploadIdOf, uploadRefOf } from '../uploads.js';
import { checkModal } from './modals.js';

/**
 * A bot's answers to an interaction (docs/commands.md): its one callback within the
 * window (a message, a deferral, an update of the clicked message, a modal, autocomplete
 * choices), then follow-ups and edits with the token for its life; and an interaction
 * that got no answer failing. The windows and the waiting autocompletes are the
 * `InteractionBroker`'s (`ctx.interactions`).
 */

/**
 * An edit's files named as Discord's `attachments` names them (only the Discord layer
 * builds it; the native body's `attachments`, upload URLs, is the same list by URL): each
 * item keeps one of the message's files (`keep`: its upload id, Discord's attachment id)
 * or adds an upload (by URL), and the items are the whole new list. `keepAll` puts every
 * current file first (Discord's edit that sends files and no list).
 */
export interface FilesEdit {
  keepAll: boolean;
  items: Array<{ keep: string } | { url: string; filename: string }>;
}

/** A message body of an answer or edit, with `files` from the Discord layer (an edit's alone). */
export type AnswerBody = InteractionMessageBody & { files?: FilesEdit };

/** A callback, whose `data` may carry the Discord layer's `files` (an update's). */
export type CallbackBody = InteractionCallbackBody & { data?: { files?: FilesEdit } };

/** An attachment of a message as the upload it is. */
function uploadOfAttachment(ctx: DomainContext, a: Attachment): StoredUpload | null {
  const ref = uploadRefOf(ctx.publicUrl, a.url);
  return ref
    ? { ...ref, filename: a.filename, size: a.size, contentType: a.contentType, width: a.width ?? null, height: a.height ?? null }
    : null;
}

/** Who gives the files of a bot's answer: the bot (its own uploads), in the interaction's channel. */
async function botGiver(ctx: DomainContext, row: InteractionTable): Promise<FileGiver> {
  const bot = await ctx.store.users.byId(ctx.store.db, row.botId);
  return fileGiver(ctx, { id: row.botId, name: bot?.name ?? '', bot: true, avatar: null }, row.channelId);
}

/**
 * The files an edit leaves on a message whose files are `current`: undefined when the
 * edit does not touch them, else the whole new list (`attachments` by URL, or `files`).
 */
async function filesAfterEdit(
  ctx: DomainContext,
  row: InteractionTable,
  current: Attachment[],
  data: AnswerBody,
): Promise<StoredUpload[] | undefined> {
  if (data.files === undefined)
    return data.attachments === undefined ? undefined : resolveAttachments(ctx, data.attachments, await botGiver(ctx, row));
  const own = new Map<string, StoredUpload>();
  for (const a of current) {
    const u = uploadOfAttachment(ctx, a);
    if (u) own.set(u.id, u);
  }
  const refs = data.files.items.filter((i): i is { url: string; filename: string } => 'url' in i);
  const added = refs.length > 0 ? await resolveAttachments(ctx, refs, await botGiver(ctx, row)) : [];
  const out: StoredUpload[] = data.files.keepAll ? [...own.values()] : [];
  let next = 0;
  data.files.items.forEach((item, i) => {
    if ('url' in item) out.push(added[next++]!);
    else {
      const kept = own.get(item.keep);
      if (!kept) throw badRequest(`attachments[${i}].id: the message has no attachment ${item.keep} and no files[${item.keep}] was sent`);
      out.push(kept);
    }
  });
  // Kept and added together (an ephemeral answer's edit does not pass through applyEdit's check).
  if (out.length > ATTACHMENTS_MAX) throw badRequest(`at most ${ATTACHMENTS_MAX} attachments`);
  return out;
}

export const answers = {
  /**
   * `POST /interactions/{interactionId}/{token}/callback`: the bot's one answer, within
   * the window. For HTTP delivery, the endpoint's answer comes here too.
   */
  async callback(ctx: DomainContext, interactionId: string, token: string, body: CallbackBody): Promise<InteractionTable['type']> {
    const row = await byToken(ctx, token);
    if (row.id !== interactionId) throw notFound('interaction', 'no interaction has this id and token');
    await acknowledge(ctx, row, body);
    return row.type;
  },

  /**
   * The bot a token answers for, once the token is checked (the same 404 as any wrong
   * token; with `interactionId`, the callback's path id must match): a Discord answer
   * stores its files as the bot's uploads before the answer itself is checked.
   */
  async botOf(ctx: DomainContext, token: string, interactionId?: string): Promise<string> {
    const row = await byToken(ctx, token);
    if (interactionId !== undefined && row.id !== interactionId) throw notFound('interaction', 'no interaction has this id and token');
    // No file is stored for a bot that could not post it.
    await requireBotStillThere(ctx, row, NEEDS.send);
    return row.botId;
  },

  /** `POST /interactions/{token}/followups`: another message, within the token's life. */
  async followUp(ctx: DomainContext, token: string, data: InteractionMessageBody): Promise<Message> {
    const row = await answered(ctx, token, NEEDS.send);
    const content = checkAnswer(data);
    return postAnswer(ctx, row, data, content, false);
  },

  /** `GET /interactions/{token}/messages/original`. */
  async getOriginal(ctx: DomainContext, token: string): Promise<Message> {
    const row = await answered(ctx, token, NEEDS.view);
    const original = await loadOriginal(ctx, row);
    return 'ephemeral' in original ? original.ephemeral : messageView(ctx, original.row, await botViewer(ctx, row));
  },

  /** `PATCH /interactions/{token}/messages/original`: edits the answer (a deferred one's placeholder becomes it). */
  async editOriginal(ctx: DomainContext, token: string, data: AnswerBody): Promise<Message> {
    return editOriginalRow(ctx, await answered(ctx, token, NEEDS.send), data);
  },

  /** `DELETE /interactions/{token}/messages/original`. */
  async deleteOriginal(ctx: DomainContext, token: string): Promise<void> {
    const row = await answered(ctx, token, NEEDS.view);
    const original = await loadOriginal(ctx, row);
    if ('ephemeral' in original) {
      // Every interaction holding it (the command's, and clicks that updated it) lets it go.
      await ctx.store.write((tx) => ctx.store.interactions.setEphemeral(tx, original.ephemeral.id, null));
      const m = original.ephemeral;
      // Its files are attached to no message: they go with it (unless a stored message holds them).
      const ids = m.attachments.map((f) => uploadIdOf(ctx.publicUrl, f.url));
      await releaseUploads(
        ctx,
        ids.filter((id): id is string => id !== null),
      );
      await notify(ctx, {
        kind: 'user',
        userId: row.userId,
        serverIds: [],
        event: { t: 'MESSAGE_DELETE', d: { id: m.id, channelId: m.channelId, serverId: m.serverId } },
      });
      return;
    }
    await removeMessage(ctx, original.row);
  },

  /**
   * `GET /interactions/{token}/messages/{messageId}`: one of the interaction's messages,
   * the original or a follow-up (Discord's `/webhooks/{appId}/{token}/messages/{id}` too).
   * Another interaction's message, or any other, is 404 `unknown_message`.
   */
  async getMessage(ctx: DomainContext, token: string, messageId: string): Promise<Message> {
    const row = await answered(ctx, token, NEEDS.view);
    const target = await messageOf(ctx, row, messageId);
    if (target === 'original') return answers.getOriginal(ctx, token);
    return messageView(ctx, target, await botViewer(ctx, row));
  },

  /** `PATCH /interactions/{token}/messages/{messageId}`: edits the original or a follow-up. */
  async editMessage(ctx: DomainContext, token: string, messageId: string, data: AnswerBody): Promise<Message> {
    const row = await answered(ctx, token, NEEDS.send);
    const target = await messageOf(ctx, row, messageId);
    if (target === 'original') return editOriginalRow(ctx, row, data);
    const components = data.components === undefined ? undefined : checkComponents(data.components, true);
    const embeds = data.embeds === undefined ? undefined : validateEmbeds(data.embeds);
    const files = await filesAfterEdit(ctx, row, JSON.parse(target.attachments) as Attachment[], data);
    return applyEdit(
      ctx,
      target,
      {
        ...(data.content !== undefined ? { content: data.content } : {}),
        ...(embeds !== undefined ? { embeds } : {}),
        ...(components !== undefined ? { components } : {}),
        ...(files !== undefined ? { attachments: files } : {}),
      },
      await botViewer(ctx, row),
    );
  },

  /** `DELETE /interactions/{token}/messages/{messageId}`: deletes the original or a follow-up. */
  async deleteMessage(ctx: DomainContext, token: string, messageId: string): Promise<void> {
    const row = await answered(ctx, token, NEEDS.view);
    const target = await messageOf(ctx, row, messageId);
    if (target === 'original') return answers.deleteOriginal(ctx, token);
    await removeMessage(ctx, target);
  },

  /** Hands an HTTP endpoint's answer (already parsed and shape-checked) to the one callback path. */
  acknowledge: (ctx: DomainContext, row: InteractionTable, body: InteractionCallbackBody) => acknowledge(ctx, row, body),

  /** Marks a pending interaction failed (its bot could not be reached) and tells the invoker. */
  fail: (ctx: DomainContext, row: InteractionTable, reason: 'timeout' | 'unreachable') => fail(ctx, row, reason),

  /** Drops interactions past their token's life; run periodically. */
  async sweep(ctx: DomainContext): Promise<void> {
    const cutoff = new Date(ctx.clock() - ctx.interactions.tokenTtlMs - 60_000).toISOString();
    await ctx.store.write((tx) => ctx.store.interactions.deleteOlderThan(tx, cutoff));
  },
};

async function fail(ctx: DomainContext, row: InteractionTable, reason: 'timeout' | 'unreachable'): Promise<void> {
  if (row.type === 'autocomplete') {
    ctx.interactions.answer(row.id, []);
    return;
  }
  const failed = await ctx.store.write((tx) => ctx.store.interactions.settle(tx, row.id, 'failed'));
  if (!failed) return;
  await notify(ctx, {
    kind: 'user',
    userId: row.userId,
    serverIds: [],
    event: { t: 'INTERACTION_FAILED', d: { id: row.id, channelId: row.channelId, serverId: serverOf(row), reason } },
  });
}

/** The interaction a token names (404 for an unknown or wrong token, the same answer for each). */
async function byToken(ctx: DomainContext, token: string): Promise<InteractionTable> {
  const parts = splitToken(token);
  const row = parts && isId(parts.id) ? await ctx.store.interactions.byId(ctx.store.db, parts.id) : undefined;
  if (!row || !parts || !tokenMatches(parts.secret, row.tokenHash)) throw notFound('interaction', 'no interaction has this token');
  return row;
}

/**
 * The interaction, when its token still serves follow-ups and edits, its callback came,
 * and its bot still holds `needed` in the channel (`requireBotStillThere`).
 */
async function answered(ctx: DomainContext, token: string, needed: bigint): Promise<InteractionTable> {
  const row = await byToken(ctx, token);
  if (ctx.interactions.tokenExpired(row.createdAt)) throw badRequest("the interaction's token has expired", 'interaction_expired');
  if (row.type === 'autocomplete') throw badRequest('an autocomplete has no messages', 'invalid_callback');
  if (row.state !== 'acknowledged') throw badRequest('the interaction has no callback yet', 'interaction_not_acknowledged');
  await requireBotStillThere(ctx, row, needed);
  return row;
}

/**
 * A token speaks for its bot only while the bot could speak itself: at every use (callback,
 * follow-up, edit, read, delete) the bot must still be a member of the channel's server, or
 * a recipient of the DM, holding `needed` there, by the one permission function. A bot
 * removed from the server or deleted gets the same 404 as an unknown token (Discord's
 * Unknown Interaction / Unknown Webhook); one that lost the permission gets 403
 * missing_permission (docs/security.md, "Interaction tokens").
 */
async function requireBotStillThere(ctx: DomainContext, row: InteractionTable, needed: bigint): Promise<void> {
  const bot = await ctx.store.users.byId(ctx.store.db, row.botId);
  if (bot?.bot !== 1) throw notFound('interaction', 'no interaction has this token');
  const caller: Caller = { id: bot.id, name: bot.name, bot: true, avatar: bot.avatar };
  try {
    await requireChannelPermission(ctx, caller, row.channelId, needed);
  } catch (err) {
    if (err instanceof AppError && (err.code === 'not_a_member' || err.code === 'unknown_channel'))
      throw notFound('interaction', 'no interaction has this token');
    throw err;
  }
}

async function loadOriginal(ctx: DomainContext, row: InteractionTable): Promise<{ row: MessageTable } | { ephemeral: Message }> {
  // Reread: the callback that set it may have run on another request since `row` was read.
  const fresh = (await ctx.store.interactions.byId(ctx.store.db, row.id)) ?? row;
  if (fresh.originalMessageId === null) throw notFound('message', 'the interaction has no original message');
  if (fresh.ephemeralMessage) return { ephemeral: JSON.parse(fresh.ephemeralMessage) as Message };
  const message = await ctx.store.messages.byId(ctx.store.db, fresh.channelId, fresh.originalMessageId);
  if (!message) throw notFound('message');
  return { row: message };
}

/**
 * A message of the interaction by id: its original (`'original'`, also by the original's
 * own id), or a follow-up, which is a message the bot posted in the interaction's channel
 * answering this interaction (its stored `interaction.id`). Ephemeral follow-ups are in no
 * store, so only an ephemeral original can be named. Anything else is 404.
 */
async function messageOf(ctx: DomainContext, row: InteractionTable, messageId: string): Promise<'original' | MessageTable> {
  if (messageId === 'original' || messageId === '@original') return 'original';
  if (!isId(messageId)) throw notFound('message');
  const fresh = (await ctx.store.interactions.byId(ctx.store.db, row.id)) ?? row;
  if (fresh.originalMessageId === messageId) return 'original';
  const m = await ctx.store.messages.byId(ctx.store.db, row.channelId, messageId);
  const by = m?.interaction ? (JSON.parse(m.interaction) as StoredInteraction).id : undefined;
  if (!m || by !== row.id || m.authorId !== row.botId) throw notFound('message');
  return m;
}

/** Checks a message an answer makes; returns its content. */
function checkAnswer(data: InteractionMessageBody): string {
  const content = data.content ?? '';
  checkContent(content, (data.attachments?.length ?? 0) + (data.embeds?.length ?? 0) + (data.components?.length ?? 0) > 0);
  return content;
}

const CALLBACKS_OF = {
  command: ['message', 'deferred', 'modal'],
  component: ['message', 'deferred', 'update', 'deferredUpdate', 'modal'],
  autocomplete: ['autocomplete'],
  // A modal is never the answer to a modal; `update` needs the click the modal came from.
  modalSubmit: ['message', 'deferred', 'update', 'deferredUpdate'],
} as const;

/** The one callback of an interaction: checked, then settled once (a race has one winner), then carried out. */
async function acknowledge(ctx: DomainContext, row: InteractionTable, body: CallbackBody): Promise<void> {
  const data: AnswerBody & { choices?: CommandChoice[]; modal?: Modal } = body.data ?? {};
  // The callback route and an HTTP endpoint's answer alike: the bot must still be there.
  await requireBotStillThere(ctx, row, row.type === 'autocomplete' ? NEEDS.view : NEEDS.send);
  if (!(CALLBACKS_OF[row.type] as readonly string[]).includes(body.type))
    throw badRequest(`a ${row.type} interaction cannot be answered with ${body.type}`, 'invalid_callback');
  if (row.state === 'acknowledged') throw conflict('interaction_already_acknowledged', 'the interaction already has its callback');
  if (row.state === 'failed' || ctx.interactions.callbackExpired(row.createdAt))
    throw badRequest("the interaction's window for a callback has passed", 'interaction_expired');
  // Everything that can refuse the answer is checked before it is settled.
  let choices: CommandChoice[] | undefined;
  if (body.type === 'autocomplete') {
    if (!data.choices) throw badRequest('an autocomplete answer needs data.choices', 'invalid_callback');
    choices = data.choices.map((c) => ({ name: c.name, value: c.value }));
  } else if (data.choices !== undefined) throw badRequest('only autocomplete answers carry choices', 'invalid_callback');
  let modal: Modal | undefined;
  if (body.type === 'modal') {
    if (!data.modal) throw badRequest('a modal answer needs data.modal', 'invalid_callback');
    modal = checkModal(data.modal);
  } else if (data.modal !== undefined) throw badRequest('only modal answers carry a modal', 'invalid_callback');
  if (body.type === 'message' || body.type === 'update') {
    if (body.type === 'message') checkAnswer(data);
    if (data.components) checkComponents(data.components, true);
    if (data.embeds) validateEmbeds(data.embeds);
  }
  let source: Awaited<ReturnType<typeof sourceOf>> | undefined;
  if (body.type === 'update' || body.type === 'deferredUpdate') source = await sourceOf(ctx, row);
  const uploads =
    body.type === 'message' && data.attachments?.length ? await resolveAttachments(ctx, data.attachments, await botGiver(ctx, row)) : [];
  // An update's files replace the clicked message's, as an edit's do; resolved before it settles.
  let updateFiles: StoredUpload[] | undefined;
  if (source && body.type === 'update' && (data.attachments !== undefined || data.files !== undefined)) {
    const stored = source.ephemeral ? undefined : await ctx.store.messages.byId(ctx.store.db, row.channelId, source.id);
    const current = source.ephemeral ? source.ephemeral.attachments : stored ? (JSON.parse(stored.attachments) as Attachment[]) : [];
    updateFiles = await filesAfterEdit(ctx, row, current, data);
  }
  const settled = await ctx.store.write((tx) =>
    ctx.store.interactions.settle(tx, row.id, 'acknowledged', {
      callbackType: body.type,
      ...(choices ? { choices: JSON.stringify(choices) } : {}),
      ...(modal ? { modal: JSON.stringify(modal) } : {}),
      ...(source ? { originalMessageId: source.id, ephemeralMessage: source.ephemeral ? JSON.stringify(source.ephemeral) : null } : {}),
    }),
  );
  if (!settled) {
    const now = await ctx.store.interactions.byId(ctx.store.db, row.id);
    if (now?.state === 'acknowledged') throw conflict('interaction_already_acknowledged', 'the interaction already has its callback');
    throw badRequest("the interaction's window for a callback has passed", 'interaction_expired');
  }
  if (choices) {
    ctx.interactions.answer(row.id, choices);
    return;
  }
  if (modal)
    await notify(ctx, {
      kind: 'user',
      userId: row.userId,
      serverIds: [],
      event: { t: 'INTERACTION_MODAL', d: { id: row.id, channelId: row.channelId, serverId: serverOf(row), modal } },
    });
  else if (body.type === 'message') await postAnswer(ctx, row, data, data.content ?? '', true, uploads);
  else if (body.type === 'deferred') await postAnswer(ctx, row, { ephemeral: data.ephemeral }, '', true, [], true);
  else if (body.type === 'update' && source) {
    const acked = {
      ...row,
      state: 'acknowledged' as const,
      originalMessageId: source.id,
      ephemeralMessage: source.ephemeral ? JSON.stringify(source.ephemeral) : null,
    };
    // The token's edit path does the update: one set of rules for both.
    await editOriginalRow(ctx, acked, data, updateFiles);
  }
  await notify(ctx, {
    kind: 'user',
    userId: row.userId,
    serverIds: [],
    event: { t: 'INTERACTION_SUCCESS', d: { id: row.id, channelId: row.channelId, serverId: serverOf(row) } },
  });
}

/**
 * Edits the original of an acknowledged interaction: the token's PATCH, and an `update`
 * callback. `attachments` (or `files`), when given, is the whole new list of files (the
 * kept ones by their URL, new uploads by theirs); `resolved` is that list already
 * resolved (an update callback resolves it before it settles).
 */
async function editOriginalRow(ctx: DomainContext, row: InteractionTable, data: AnswerBody, resolved?: StoredUpload[]): Promise<Message> {
  const original = await loadOriginal(ctx, row);
  const components = data.components === undefined ? undefined : checkComponents(data.components, true);
  const embeds = data.embeds === undefined ? undefined : validateEmbeds(data.embeds);
  const current = 'ephemeral' in original ? original.ephemeral.attachments : (JSON.parse(original.row.attachments) as Attachment[]);
  const files = resolved ?? (await filesAfterEdit(ctx, row, current, data));
  if ('ephemeral' in original) {
    const before = original.ephemeral;
    const next: Message = {
      ...before,
      ...(data.content !== undefined ? { content: data.content } : {}),
      ...(embeds !== undefined ? { embeds } : {}),
      ...(files !== undefined ? { attachments: files.map((u) => attachmentOf(ctx.publicUrl, u)) } : {}),
      editedAt: nowIso(ctx),
    };
    if (components !== undefined) {
      if (components.length > 0) next.components = components;
      else delete next.components;
    }
    delete next.loading;
    checkContent(next.content, next.attachments.length + next.embeds.length > 0 || (next.components?.length ?? 0) > 0);
    // Every interaction holding it sees the edit (a click's `update` and the command's token alike).
    await ctx.store.write((tx) => ctx.store.interactions.setEphemeral(tx, next.id, JSON.stringify(next)));
    // An ephemeral message's files are attached to no message: the ones it dropped go now
    // (unless a stored message holds them), the rest with the unattached-upload sweep.
    if (files !== undefined) {
      const kept = new Set(next.attachments.map((a) => a.url));
      const dropped = before.attachments.filter((a) => !kept.has(a.url)).map((a) => uploadIdOf(ctx.publicUrl, a.url));
      await releaseUploads(
        ctx,
        dropped.filter((id): id is string => id !== null),
      );
    }
    await notify(ctx, { kind: 'user', userId: row.userId, serverIds: [], event: { t: 'MESSAGE_UPDATE', d: next } });
    return next;
  }
  const stored = original.row.interaction ? (JSON.parse(original.row.interaction) as StoredInteraction) : undefined;
  let interaction: StoredInteraction | undefined;
  if (stored?.loading) {
    const { loading: _, ...rest } = stored;
    interaction = rest;
  }
  return applyEdit(
    ctx,
    original.row,
    {
      ...(data.content !== undefined ? { content: data.content } : {}),
      ...(embeds !== undefined ? { embeds } : {}),
      ...(components !== undefined ? { components } : {}),
      ...(files !== undefined ? { attachments: files } : {}),
      ...(interaction ? { interaction } : {}),
    },
    await botViewer(ctx, row),
  );
}

/** The interaction's bot as the viewer of a message its token reads or edits: the message it replies to only if the bot may read the channel now. */
async function botViewer(ctx: DomainContext, row: InteractionTable): Promise<Viewer> {
  return { id: row.botId, reads: await readsChannel(ctx, { id: row.botId, bot: true }, row.channelId) };
}

/** The clicked message, for `update` and `deferredUpdate`: the bot's own (or the invoker's ephemeral one). */
async function sourceOf(ctx: DomainContext, row: InteractionTable): Promise<{ id: string; ephemeral?: Message }> {
  if (row.type === 'command' || row.type === 'autocomplete' || row.sourceMessageId === null)
    throw badRequest('only a click (or a modal shown for one) can update its message', 'invalid_callback');
  const stored = await ctx.store.messages.byId(ctx.store.db, row.channelId, row.sourceMessageId);
  if (stored) return { id: stored.id };
  const holder = await ctx.store.interactions.byEphemeralMessage(ctx.store.db, row.sourceMessageId);
  if (!holder?.ephemeralMessage) throw notFound('message');
  return { id: row.sourceMessageId, ephemeral: JSON.parse(holder.ephemeralMessage) as Message };
}

/** Posts a message an interaction answers with: in the channel, or (ephemeral) to the invoker's sessions alone. */
async function postAnswer(
  ctx: DomainContext,
  row: InteractionTable,
  data: InteractionMessageBody,
  content: string,
  original: boolean,
  resolved?: Awaited<ReturnType<typeof resolveAttachments>>,
  loading = false,
): Promise<Message> {
  const [botRow, userRow] = await Promise.all([
    ctx.store.users.byId(ctx.store.db, row.botId),
    ctx.store.users.byId(ctx.store.db, row.userId),
  ]);
  if (!botRow || !userRow) throw notFound('bot');
  const bot = publicUser(botRow);
  const interaction: StoredInteraction = {
    id: row.id,
    type: row.type,
    name: row.name,
    ...(row.commandType ? { commandType: row.commandType } : {}),
    user: publicUser(userRow),
    ...(loading ? { loading: true } : {}),
  };
  const components = data.components ? checkComponents(data.components, true) : undefined;
  const embeds = data.embeds ? validateEmbeds(data.embeds) : [];
  const uploads = resolved ?? (data.attachments?.length ? await resolveAttachments(ctx, data.attachments, await botGiver(ctx, row)) : []);
  const serverId = row.serverId === DM_SERVER_ID ? null : row.serverId;
  if (data.ephemeral) {
    const { loading: _, ...meta } = interaction;
    const message: Message = {
      id: ctx.store.ids.next(),
      channelId: row.channelId,
      serverId,
      author: bot,
      content,
      attachments: uploads.map((u) => attachmentOf(ctx.publicUrl, u)),
      embeds,
      reactions: [],
      createdAt: nowIso(ctx),
      editedAt: null,
      mentions: [],
      mentionRoles: [],
      mentionEveryone: false,
      pinned: false,
      ...(components?.length ? { components } : {}),
      interaction: meta,
      ...(loading ? { loading: true as const } : {}),
      ephemeral: true,
    };
    // Only the original is kept (to be edited, deleted or clicked); it is in no history.
    if (original)
      await ctx.store.write((tx) =>
        ctx.store.interactions.update(tx, row.id, { originalMessageId: message.id, ephemeralMessage: JSON.stringify(message) }),
      );
    await notify(ctx, { kind: 'user', userId: row.userId, serverIds: [], event: { t: 'MESSAGE_CREATE', d: message } });
    return message;
  }
  const channel = { id: row.channelId, serverId };
  const prepared = mayMention(content)
    ? await prepareMessage(ctx, channel, bot.id, false, { content, uploads, embeds, allowedMentions: data.allowedMentions })
    : { content, uploads, embeds, mentions: NONE, referenced: null };
  // The original is recorded in the message's own transaction: its event never precedes it.
  const { message } = await createMessage(
    ctx,
    channel,
    bot,
    null,
    { ...prepared, ...(components?.length ? { components } : {}), interaction },
    undefined,
    original ? (tx, messageId) => ctx.store.interactions.update(tx, row.id, { originalMessageId: messageId }) : undefined,
  );
  return message;
}
