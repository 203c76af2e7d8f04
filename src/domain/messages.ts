import { ATTACHMENTS_MAX, CONTENT_MAX, OBJECT_LIMITS } from '@parley/protocol';
import { AppError, badRequest, conflict, forbidden, notFound } from '../errors.js';
import { isId, isLegacyId, legacyIdTime, snowflakeAt } from '../ids.js';
import type { Tx } from '../store/index.js';
import type { MessageTable } from '../store/schema.js';
import type { AuthorMember } from '../events/types.js';
import type { ReactionSummary } from '../store/repos/messages.js';
import { type ChannelGrant, requireChannelPermission, requireIdShape } from './access.js';
import { type ChannelAudience, DM_SERVER_ID, type DomainContext, notifyChannel, nowIso, signalTyping } from './context.js';
import { isSingleEmoji, rejectNul } from './names.js';
import { checkComponents } from './components.js';
import type { Attachment, Caller, Embed, Message, PublicUser } from './types.js';
import { NEEDS, has, hasPermission, mayReadHistory } from './permissions.js';
import { audit } from './audit.js';
import { type StoredUpload, attachmentOf, namesUpload, releaseUploads, uploadIdOf } from './uploads.js';
import { publicUser } from './accounts.js';
import { NONE, type ResolvedMentions, mayMention, mentionRules, resolveMentions } from './mentions.js';
import { announceThreadPost, recordThreadPost, startedThreads } from './threads.js';
import type { ActionRow, AllowedMentions, MessageInteraction, MessageReferenceBody } from '@parley/protocol';

/** The wire's limits (the request schemas in @parley/protocol carry them too). */
export const MAX_CONTENT = CONTENT_MAX;
export const MAX_ATTACHMENTS = ATTACHMENTS_MAX;
/** A page of history: `limit` defaults to 50 and may be 1 to 100. */
export const PAGE_DEFAULT = 50;
export const PAGE_MAX = 100;
const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * A message about to be created. Attachments are upload records, not URLs: the message's
 * attachment objects (and their canonical URLs) are built from them here, so no caller
 * can store a URL of its own choosing.
 */
export interface NewMessage {
  content: string;
  uploads: StoredUpload[];
  embeds: Embed[];
  /** Which mentions in the content ping; absent: all of them (Discord's default). */
  allowedMentions?: AllowedMentions;
  /** Rows of buttons and selects, already validated (`components.ts`). */
  components?: ActionRow[];
  /** The interaction the message answers (`loading`: a deferred answer's placeholder). */
  interaction?: StoredInteraction;
  /** The author's membership when the author's own grant holds it (`authorMember`); read once otherwise. */
  authorMembership?: Membership;
  /** A system message's type (`MESSAGE_TYPE`); absent: an ordinary message. */
  type?: number;
  /** The message's id when it is settled already: a forum post's first message takes the post's (docs/threads.md#forum-posts). */
  id?: string;
}

/** Message types stored (Discord's numbers): an ordinary message, and a welcome line (USER_JOIN). */
export const MESSAGE_TYPE = { default: 0, join: 7 } as const;

/** What a message stores about the interaction it answers. */
export interface StoredInteraction extends MessageInteraction {
  loading?: true;
}

/** A member's roles (ids, ascending) and join date, as a channel grant holds them. */
export interface Membership {
  roles: readonly string[];
  joinedAt: string | null;
  nick?: string | null;
}

/**
 * The author of a server's message as a member, for Discord's `member` on MESSAGE_CREATE
 * and MESSAGE_UPDATE (the bus entry's `author`): from `known` when the author's own grant
 * holds it, else read once for the event, never once per recipient. None for a webhook's
 * message, in a DM, or for an author who is no longer a member.
 */
export async function authorMember(
  ctx: DomainContext,
  message: { serverId: string | null; authorId: string; webhookId: string | null },
  known?: Membership,
): Promise<AuthorMember | undefined> {
  const serverId = message.serverId;
  if (message.webhookId || serverId === null || serverId === DM_SERVER_ID) return undefined;
  let m: Membership | undefined = known?.joinedAt ? known : undefined;
  if (!m) {
    const row = await ctx.store.members.get(ctx.store.db, serverId, message.authorId);
    if (!row) return undefined;
    m = row;
  }
  return { roles: [...m.roles], joinedAt: m.joinedAt!, nick: m.nick ?? null };
}

/** A message about to be created, with what it pings and what it replies to settled. */
export interface PreparedMessage extends NewMessage {
  mentions: ResolvedMentions;
  /** The message replied to (same channel), loaded. */
  referenced: MessageTable | null;
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

/** The first response stored under an `Idempotency-Key`, with the fingerprint of its request. */
export interface EarlierResponse {
  fingerprint: string;
  message: Message;
}

/** Length in Unicode code points, as the contract counts. */
export const codePoints = (s: string) => {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    // A high surrogate followed by a low one is one code point.
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
};

/** Checks content against the contract: ≤ 4000 code points; not blank unless something else carries the message. */
export function checkContent(content: string, hasOtherParts: boolean): void {
  // A string no longer than the limit in UTF-16 units has no more code points than that.
  if (content.length > MAX_CONTENT && codePoints(content) > MAX_CONTENT)
    throw badRequest(`content must be at most ${MAX_CONTENT} characters`);
  if (content.trim().length === 0 && !hasOtherParts) throw badRequest('content must not be empty');
  rejectNul(content, 'content');
}

/** A message to send must say something: content, attachments or embeds (`messages.send`, for every route that sends). */
function requireSendable(body: { content?: string; attachments?: unknown[]; embeds?: unknown[] }): void {
  if (body.content === undefined && !body.attachments?.length && !body.embeds?.length)
    throw badRequest('content is required unless attachments are given');
}

/**
 * What a view shows of the messages its rows reply to: the ones loaded (one missing was
 * deleted: `referencedMessage` null), or `withheld` for a viewer who may not read them
 * (`Viewer.reads`): then `referencedMessage` is absent, and only `messageReference` (ids)
 * says what the message replies to.
 */
type References = ReadonlyMap<string, MessageTable> | 'withheld';

/**
 * Who a stored message is shown to: `id` for the reactions' `me`, and `reads`, whether
 * they may read the message's channel now, from the one permission function
 * (`mayReadHistory` of their grant, or `readsChannel`). A reply quotes a message of its own
 * channel only, so `reads` decides whether the quoted message is shown (docs/security.md,
 * "Replies and embedded messages").
 */
export interface Viewer {
  id: string;
  reads: boolean;
}

/**
 * Whom a channel's events reach: sessions that may read the channel (`visibilityOf` gives
 * MESSAGE_* events `NEEDS.read`), so an event's message quotes the message it replies to.
 */
const EVENT_READERS = (viewerId: string): Viewer => ({ id: viewerId, reads: true });

function toMessage(row: MessageTable, reactions: ReactionSummary[], references: References): Message {
  const message = baseMessage(row, reactions);
  if (row.referenceId === null || row.referenceId === undefined || references === 'withheld') return message;
  const ref = references.get(String(row.referenceId));
  return { ...message, referencedMessage: ref ? baseMessage(ref, []) : null };
}

/** `message` without the message it quotes: what a viewer who may not read it gets. */
function withoutQuote(message: Message): Message {
  const { referencedMessage: _withheld, ...rest } = message;
  return rest;
}

/** A message without the message it replies to (what `referencedMessage` holds). */
/** A message row's server on the wire: null in a DM. */
export const serverOf = (row: Pick<MessageTable, 'serverId'>): string | null => (row.serverId === DM_SERVER_ID ? null : row.serverId);

function baseMessage(row: MessageTable, reactions: ReactionSummary[]): Message {
  const author: PublicUser = { id: row.authorId, name: row.authorName, bot: row.authorBot === 1, avatar: row.authorAvatar };
  return {
    id: row.id,
    channelId: row.channelId,
    serverId: serverOf(row),
    author,
    content: row.content,
    // Most messages have no files, embeds or reactions: those skip the parse and the scan.
    attachments: row.attachments === '[]' ? [] : (JSON.parse(row.attachments) as Attachment[]),
    embeds: row.embeds === '[]' ? [] : (JSON.parse(row.embeds) as Embed[]),
    reactions:
      reactions.length === 0
        ? []
        : reactions.filter((r) => r.messageId === row.id).map((r) => ({ emoji: r.emoji, count: r.count, me: r.me === 1 })),
    ...(row.webhookId ? { webhookId: row.webhookId } : {}),
    ...(row.type === MESSAGE_TYPE.join ? { type: 'join' as const } : {}),
    createdAt: row.createdAt,
    editedAt: row.editedAt,
    mentions: row.mentions === '[]' ? [] : (JSON.parse(row.mentions) as PublicUser[]),
    mentionRoles: row.mentionRoles === '' ? [] : row.mentionRoles.split(','),
    mentionEveryone: row.mentionEveryone > 0,
    pinned: row.pinnedAt !== null && row.pinnedAt !== undefined,
    ...(row.referenceId !== null && row.referenceId !== undefined
      ? { messageReference: { messageId: String(row.referenceId), channelId: row.channelId, serverId: serverOf(row) } }
      : {}),
    ...(row.components ? { components: JSON.parse(row.components) as ActionRow[] } : {}),
    ...(row.interaction ? interactionFields(row.interaction) : {}),
  };
}

/** A message's `interaction` (and `loading`, while a deferred answer is a placeholder) from its stored JSON. */
function interactionFields(json: string): Pick<Message, 'interaction' | 'loading'> {
  const { loading, ...interaction } = JSON.parse(json) as StoredInteraction;
  return loading ? { interaction, loading } : { interaction };
}

/** The messages `rows` reply to, loaded in one query (none when no row is a reply), or none at all for a viewer who may not read them. */
async function referencesOf(ctx: DomainContext, rows: MessageTable[], viewer: Viewer): Promise<References> {
  if (!viewer.reads) return 'withheld';
  const ids = [...new Set(rows.flatMap((r) => (r.referenceId === null || r.referenceId === undefined ? [] : [String(r.referenceId)])))];
  if (ids.length === 0) return new Map();
  return new Map((await ctx.store.messages.byIds(ctx.store.db, ids)).map((r) => [r.id, r]));
}

const notGivable = (i: number) =>
  badRequest(
    `attachments[${i}].url must be a URL POST /upload returned to you, or of a file already in this channel`,
    'invalid_attachment',
  );

/**
 * Who gives files to a message, and where: the uploaders whose uploads are the author's
 * to give (the author themselves; a bot, its own), and the author's grant in the channel
 * (whether they read it decides whether files already there may be posted again).
 */
export interface FileGiver {
  uploaderIds: readonly string[];
  channel: { id: string; permissions: bigint };
}

/** The giver of an author's files in a channel (see `FileGiver`); no grant there means only their own uploads. */
export async function fileGiver(ctx: DomainContext, author: Caller, channelId: string): Promise<FileGiver> {
  const permissions = await requireChannelPermission(ctx, author, channelId, 0n).then(
    (g) => g.permissions,
    () => 0n,
  );
  return { uploaderIds: [author.id], channel: { id: channelId, permissions } };
}

/**
 * Resolves attachment URLs to our uploads. A URL must be exactly an upload URL this
 * service hands out (our PUBLIC_URL, `/uploads/<id>/<secret>/<stored name>`, nothing
 * more): extra segments, dot segments, a query or a fragment would make a link that leads
 * elsewhere. And the upload must be the giver's to give (docs/security.md#files-are-for-those-who-may-see-them): one they
 * uploaded, or one a message of this channel already carries, when they may read it
 * (`NEEDS.read`, from the one permission function). Anything else is 400
 * `invalid_attachment`, before anything is written. The message stores the canonical URL
 * and the stored name, whatever the request said.
 */
export async function resolveAttachments(
  ctx: DomainContext,
  items: Array<{ url: string; filename: string }>,
  giver: FileGiver,
): Promise<StoredUpload[]> {
  if (items.length > MAX_ATTACHMENTS) throw badRequest(`at most ${MAX_ATTACHMENTS} attachments`);
  const ids = items.map((a, i) => {
    const id = uploadIdOf(ctx.publicUrl, a.url);
    if (!id) throw notGivable(i);
    return id;
  });
  const rows = new Map((await ctx.store.uploads.byIds(ctx.store.db, ids)).map((r) => [String(r.id), r]));
  const own = new Set(giver.uploaderIds);
  const others = [...rows.values()].filter((r) => !own.has(String(r.uploaderId))).map((r) => String(r.id));
  const inChannel =
    others.length > 0 && has(giver.channel.permissions, NEEDS.read)
      ? new Set(await ctx.store.uploads.ofChannel(ctx.store.db, giver.channel.id, others))
      : new Set<string>();
  return items.map((a, i) => {
    const row = rows.get(ids[i]!);
    if (!row?.secret || !namesUpload(ctx.publicUrl, a.url, row)) throw notGivable(i);
    if (!own.has(String(row.uploaderId)) && !inChannel.has(String(row.id))) throw notGivable(i);
    return {
      id: String(row.id),
      secret: row.secret,
      filename: row.filename,
      size: Number(row.size),
      contentType: row.contentType,
      width: row.width ?? null,
      height: row.height ?? null,
    };
  });
}

/** Records older than this are expired: they neither replay nor block their key. */
const idempotencyCutoff = (ctx: DomainContext) => new Date(ctx.clock() - IDEMPOTENCY_TTL_MS).toISOString();

/**
 * Creates a message in one transaction with its idempotency record, so a retry either
 * finds the first response or creates the one message; concurrent duplicates are
 * settled by the record's primary key and the loser returns the winner's response.
 */
export async function createMessage(
  ctx: DomainContext,
  channel: ChannelAudience,
  author: PublicUser,
  webhookId: string | null,
  input: PreparedMessage,
  idem?: IdempotencyRequest,
  /** More writes for the same transaction (an interaction recording its answer), so the event never precedes them. */
  alongside?: (tx: Tx, messageId: string) => Promise<unknown>,
  /** Writes the message needs before it, in its transaction (a forum post's thread, which is its channel). */
  before?: (tx: Tx) => Promise<unknown>,
  /** Once committed, before the message's event: what must be announced first (a forum post's THREAD_CREATE). */
  committed?: () => Promise<void>,
): Promise<CreateResult> {
  // Only a request with an Idempotency-Key needs the cutoff (a date formatted per message otherwise).
  const cutoff = idem ? idempotencyCutoff(ctx) : '';
  if (idem) {
    const earlier = await findIdempotent(ctx, idem, cutoff);
    if (earlier) return earlier;
  }
  const attachments = input.uploads.map((u) => attachmentOf(ctx.publicUrl, u));
  const row: MessageTable = {
    id: input.id ?? ctx.store.ids.next(),
    channelId: channel.id,
    serverId: channel.serverId ?? DM_SERVER_ID,
    authorId: author.id,
    authorName: author.name,
    authorAvatar: author.avatar,
    authorBot: author.bot ? 1 : 0,
    webhookId,
    content: input.content,
    attachments: JSON.stringify(attachments),
    embeds: JSON.stringify(input.embeds),
    createdAt: nowIso(ctx),
    editedAt: null,
    mentions: input.mentions.users.length === 0 ? '[]' : JSON.stringify(input.mentions.users),
    mentionRoles: input.mentions.roles.join(','),
    mentionEveryone: input.mentions.everyone,
    referenceId: input.referenced?.id ?? null,
    pinnedAt: null,
    components: input.components && input.components.length > 0 ? JSON.stringify(input.components) : null,
    interaction: input.interaction ? JSON.stringify(input.interaction) : null,
    type: input.type ?? MESSAGE_TYPE.default,
  };
  // `messages.send` resolves a reference only for an author who may read the channel.
  const referenced = input.referenced ? new Map([[input.referenced.id, input.referenced]]) : new Map<string, MessageTable>();
  const message = toMessage(row, [], referenced);
  const named = input.mentions.users.map((u) => u.id);
  // Issued above, registered in the same synchronous step: no page can pass it meanwhile.
  ctx.store.messageHorizon.begin(row.id);
  try {
    // The message's own row goes to the store (which may insert it with others); the rest
    // of its rows, only when it has any, run after it in the same transaction.
    const rest = alongside || named.length > 0 || input.uploads.length > 0 || idem;
    await ctx.store.writeMessage(
      row,
      rest
        ? async (tx: Tx) => {
            if (alongside) await alongside(tx, row.id);
            // Only users named one by one get a row (bounded by the content): never one per member.
            if (named.length > 0) await ctx.store.messages.insertMentions(tx, row.channelId, row.id, named);
            // Only messages with files pay for the link rows; its foreign key fails if the
            // upload was swept or released since it was resolved.
            if (input.uploads.length > 0)
              await ctx.store.uploads.attach(
                tx,
                row.id,
                input.uploads.map((u) => u.id),
              );
            if (idem) {
              const record = {
                caller: idem.caller,
                key: idem.key,
                fingerprint: idem.fingerprint,
                status: 201,
                body: JSON.stringify(message),
                createdAt: row.createdAt,
              };
              // An expired record not yet swept is replaced; a live one means a concurrent twin won.
              if (!(await ctx.store.idempotency.claim(tx, record, cutoff)))
                throw conflict('idempotency_key_in_use', 'Idempotency-Key is in use');
            }
          }
        : undefined,
      before,
    );
  } catch (err) {
    if (idem && err instanceof AppError && (err.code === 'idempotency_key_in_use' || err.code === 'already_exists')) {
      const earlier = await findIdempotent(ctx, idem, cutoff);
      if (earlier) return earlier;
    }
    if (input.uploads.length > 0 && err instanceof AppError && err.code === 'unknown_reference') await requireUploads(ctx, input.uploads);
    throw err;
  } finally {
    ctx.store.messageHorizon.end(row.id);
  }
  await committed?.();
  const member = await authorMember(ctx, { serverId: channel.serverId, authorId: author.id, webhookId }, input.authorMembership);
  await notifyChannel(ctx, channel, { t: 'MESSAGE_CREATE', d: message }, member);
  return { message, replayed: false };
}

/**
 * A welcome line (Discord's USER_JOIN, type 7): a system message by the person who joined,
 * with no content, in the server's system channel; delivered as any message, to those who
 * may see the channel. Posted whatever the joiner may send there.
 */
export async function postWelcomeLine(ctx: DomainContext, serverId: string, channelId: string, joiner: PublicUser): Promise<void> {
  await createMessage(ctx, { id: channelId, serverId }, joiner, null, {
    content: '',
    uploads: [],
    embeds: [],
    mentions: NONE,
    referenced: null,
    type: MESSAGE_TYPE.join,
  });
}

/** A foreign-key failure of a message with files: 400 if one of its uploads is gone meanwhile. */
async function requireUploads(ctx: DomainContext, wanted: StoredUpload[]): Promise<void> {
  const found = new Set(
    (
      await ctx.store.uploads.byIds(
        ctx.store.db,
        wanted.map((u) => u.id),
      )
    ).map((r) => r.id),
  );
  const missing = wanted.findIndex((u) => !found.has(u.id));
  if (missing >= 0) throw badRequest(`attachments[${missing}] no longer exists; upload the file again`);
}

async function findIdempotent(ctx: DomainContext, idem: IdempotencyRequest, cutoff: string): Promise<CreateResult | null> {
  const earlier = await lookupEarlier(ctx, idem.caller, idem.key, cutoff);
  return earlier && replayEarlier(earlier, idem.fingerprint);
}

async function lookupEarlier(ctx: DomainContext, caller: string, key: string, cutoff: string): Promise<EarlierResponse | null> {
  const rec = await ctx.store.idempotency.get(ctx.store.db, caller, key);
  if (!rec || rec.createdAt < cutoff) return null;
  return { fingerprint: rec.fingerprint, message: JSON.parse(rec.body) as Message };
}

/**
 * The live first response stored under `key` for `caller`, or null. Lets a request look
 * before it does anything costly (storing files): a replay must store nothing.
 */
export function earlierResponse(ctx: DomainContext, caller: string, key: string): Promise<EarlierResponse | null> {
  return lookupEarlier(ctx, caller, key, idempotencyCutoff(ctx));
}

/** Replays `earlier` for a request with `fingerprint`; 409 if the key was used for a different request. */
export function replayEarlier(earlier: EarlierResponse, fingerprint: string): CreateResult {
  if (earlier.fingerprint !== fingerprint) {
    throw conflict('idempotency_key_reused', 'Idempotency-Key was already used for a different request');
  }
  return { message: earlier.message, replayed: true };
}

/** Drops idempotency records past their 24 h; run periodically. */
export async function expireIdempotencyKeys(ctx: DomainContext): Promise<void> {
  const cutoff = idempotencyCutoff(ctx);
  await ctx.store.write((tx) => ctx.store.idempotency.deleteOlderThan(tx, cutoff));
}

async function loadMessage(ctx: DomainContext, channelId: string, messageId: string) {
  requireIdShape(messageId, 'message');
  const row = await ctx.store.messages.byId(ctx.store.db, channelId, messageId);
  if (!row) throw notFound('message');
  return row;
}

/**
 * A message `webhookId` posted, in whichever channel it is now (the webhook may have been
 * re-pointed since); 404 for any other message, as if it did not exist.
 */
export async function loadWebhookMessage(ctx: DomainContext, webhookId: string, messageId: string): Promise<MessageTable> {
  requireIdShape(messageId, 'message');
  const row = await ctx.store.messages.byWebhook(ctx.store.db, webhookId, messageId);
  if (!row) throw notFound('message');
  return row;
}

/** A stored message as `viewer` sees it: with its reactions, `me` meaning the viewer's, and the message it replies to if they may read it. */
export async function messageView(ctx: DomainContext, row: MessageTable, viewer: Viewer): Promise<Message> {
  return (await messageViews(ctx, [row], viewer))[0]!;
}

/** Of `rows`, those a thread may have started from: a server channel's that is not itself a thread. */
async function mayStartThreads(ctx: DomainContext, rows: MessageTable[]): Promise<MessageTable[]> {
  const server = rows.filter((r) => r.serverId !== DM_SERVER_ID);
  if (server.length === 0) return server;
  const threads = new Set<string>();
  for (const id of new Set(server.map((r) => r.channelId))) if (await ctx.threadFacts.of(ctx.store, id)) threads.add(id);
  return threads.size === 0 ? server : server.filter((r) => !threads.has(r.channelId));
}

/** Stored messages as `viewer` sees them, in their order: reactions, replied-to messages and started threads in one query each. */
export async function messageViews(ctx: DomainContext, rows: MessageTable[], viewer: Viewer): Promise<Message[]> {
  // The threads started from these messages, in one read for the page: a DM's messages start
  // none, nor does a thread's (threads do not nest; which channels are threads is kept per instance).
  const server = await mayStartThreads(ctx, rows);
  const [reactions, referenced, started] = await Promise.all([
    ctx.store.reactions.summaries(
      ctx.store.db,
      rows.map((r) => r.id),
      viewer.id,
    ),
    referencesOf(ctx, rows, viewer),
    server.length === 0 ? undefined : startedThreads(ctx, server),
  ]);
  return rows.map((r) => {
    const m = toMessage(r, reactions, referenced);
    const thread = started?.get(r.id);
    return thread ? { ...m, thread } : m;
  });
}

/**
 * Settles what a new message pings and what it replies to. A reply must name a message
 * of the same channel (400 otherwise, unless `failIfNotExists` is false: then it is sent
 * as a plain message, as on Discord).
 */
export async function prepareMessage(
  ctx: DomainContext,
  channel: ChannelAudience,
  authorId: string,
  mayMentionEveryone: boolean,
  input: NewMessage,
  reference?: MessageReferenceBody,
): Promise<PreparedMessage> {
  let referenced: MessageTable | null = null;
  if (reference) {
    if (reference.channelId !== undefined && reference.channelId !== channel.id) {
      throw badRequest('messageReference must name a message of the same channel');
    }
    const row = isId(reference.messageId) ? await ctx.store.messages.byId(ctx.store.db, channel.id, reference.messageId) : undefined;
    if (!row && reference.failIfNotExists !== false)
      throw badRequest('messageReference names no message of this channel', 'unknown_message_reference');
    referenced = row ?? null;
  }
  const mentions = await resolveMentions(ctx, {
    serverId: channel.serverId === DM_SERVER_ID ? null : channel.serverId,
    channelId: channel.id,
    authorId,
    content: input.content,
    mentionEveryone: mayMentionEveryone,
    allowed: input.allowedMentions,
    // A webhook's message has no member to ping.
    repliedAuthor: referenced && !referenced.webhookId ? referenced.authorId : null,
  });
  return { ...input, mentions, referenced };
}

/** What an edit replaces; an absent part stays as it is. */
export interface MessageChange {
  content?: string;
  embeds?: Embed[];
  /** Validated rows; `[]` removes them. */
  components?: ActionRow[];
  /** Replaces what the message stores of its interaction (an edit of a deferred answer ends `loading`). */
  interaction?: StoredInteraction;
  /**
   * The whole new list of files (resolved uploads: the ones kept and new ones); `[]`
   * removes them all. Files dropped are released once the edit is committed.
   */
  attachments?: StoredUpload[];
}

/**
 * Edits a loaded message and announces it: the rules every edit follows, whoever the
 * editor (a user or bot on its own message, a webhook on one it posted). The edited
 * message must still say something: ≤ 4000 code points of content, and not empty unless
 * attachments or embeds remain.
 */
export async function applyEdit(
  ctx: DomainContext,
  row: MessageTable,
  change: MessageChange,
  viewer: Viewer,
  /** The author's membership, when the editor is the author and their grant holds it. */
  authorMembership?: Membership,
): Promise<Message> {
  const content = change.content ?? row.content;
  const embeds = change.embeds === undefined ? row.embeds : JSON.stringify(change.embeds);
  if (change.attachments && change.attachments.length > MAX_ATTACHMENTS) throw badRequest(`at most ${MAX_ATTACHMENTS} attachments`);
  const attachments =
    change.attachments === undefined ? row.attachments : JSON.stringify(change.attachments.map((u) => attachmentOf(ctx.publicUrl, u)));
  const components =
    change.components === undefined ? row.components : change.components.length > 0 ? JSON.stringify(change.components) : null;
  checkContent(
    content,
    (JSON.parse(attachments) as unknown[]).length + (JSON.parse(embeds) as unknown[]).length > 0 || components !== null,
  );
  const editedAt = nowIso(ctx);
  // Only the parts this edit changes are written, so two edits of different parts do not
  // undo each other.
  const interaction = change.interaction === undefined ? row.interaction : JSON.stringify(change.interaction);
  const set = {
    editedAt,
    ...(change.content === undefined ? {} : { content }),
    ...(change.embeds === undefined ? {} : { embeds }),
    ...(change.components === undefined ? {} : { components }),
    ...(change.interaction === undefined ? {} : { interaction }),
    ...(change.attachments === undefined ? {} : { attachments }),
  };
  let dropped: string[] = [];
  try {
    const updated = await ctx.store.write(async (tx) => {
      if (!(await ctx.store.messages.edit(tx, row.id, set))) return false;
      if (change.attachments !== undefined) {
        // The link rows follow the list: new files attached (the foreign key fails if one
        // was swept meanwhile), dropped ones detached.
        const before = new Set(row.attachments === '[]' ? [] : await ctx.store.uploads.ofMessage(tx, row.id));
        const after = new Set(change.attachments.map((u) => u.id));
        dropped = [...before].filter((id) => !after.has(id));
        await ctx.store.uploads.detach(tx, row.id, dropped);
        const added = [...after].filter((id) => !before.has(id));
        if (added.length > 0) await ctx.store.uploads.attach(tx, row.id, added);
      }
      return true;
    });
    // Deleted since it was loaded: no event may announce a message that no longer exists.
    if (!updated) throw notFound('message');
  } catch (err) {
    if (change.attachments?.length && err instanceof AppError && err.code === 'unknown_reference')
      await requireUploads(ctx, change.attachments);
    throw err;
  }
  // Files only this message held go with the edit that dropped them.
  if (dropped.length > 0) await releaseUploads(ctx, dropped);
  const message = await messageView(
    ctx,
    { ...row, content, embeds, components, interaction, attachments, editedAt },
    EVENT_READERS(viewer.id),
  );
  const member = await authorMember(ctx, row, authorMembership);
  await notifyChannel(ctx, { id: row.channelId, serverId: row.serverId }, { t: 'MESSAGE_UPDATE', d: message }, member);
  // The editor may no longer read the channel (their own message stays theirs to edit).
  return viewer.reads ? message : withoutQuote(message);
}

/**
 * Deletes a loaded message with the files only it referenced, and announces it. The
 * caller has already decided that the deletion is allowed.
 */
export async function removeMessage(ctx: DomainContext, row: MessageTable): Promise<void> {
  const thread = await ctx.threadFacts.of(ctx.store, row.channelId);
  const { deleted, uploadIds } = await ctx.store.write(async (tx) => {
    // Messages without files skip the lookup (and older ones never had link rows).
    const uploadIds = row.attachments === '[]' ? [] : await ctx.store.uploads.ofMessage(tx, row.id);
    const deleted = await ctx.store.messages.delete(tx, row.id);
    // A thread counts its messages (docs/threads.md#activity): one fewer.
    if (deleted && thread) await ctx.store.threads.uncountMessages(tx, row.channelId, 1);
    return { deleted, uploadIds };
  });
  // A concurrent delete won: it announces the deletion, once.
  if (!deleted) throw notFound('message');
  // Its files go with it, unless another message references the same upload.
  await releaseUploads(ctx, uploadIds);
  await notifyChannel(
    ctx,
    { id: row.channelId, serverId: row.serverId },
    { t: 'MESSAGE_DELETE', d: { id: row.id, channelId: row.channelId, serverId: serverOf(row) } },
  );
}

/**
 * Deletes several loaded messages of one channel in one transaction, with the files only
 * they referenced. Resolves to the ids it deleted (a concurrent delete may have taken
 * some); the caller announces them.
 */
export async function removeMessages(ctx: DomainContext, rows: MessageTable[]): Promise<string[]> {
  const ids = rows.map((r) => r.id);
  const channelId = rows[0]?.channelId;
  const thread = channelId === undefined ? null : await ctx.threadFacts.of(ctx.store, channelId);
  const { uploadIds, deleted } = await ctx.store.write(async (tx) => {
    const withFiles = rows.filter((r) => r.attachments !== '[]');
    const uploadIds = (await Promise.all(withFiles.map((r) => ctx.store.uploads.ofMessage(tx, r.id)))).flat();
    const present = new Set((await ctx.store.messages.byIds(tx, ids)).map((r) => r.id));
    await ctx.store.messages.deleteMany(tx, ids);
    // A thread counts its messages (docs/threads.md#activity): as many fewer as were deleted.
    if (thread && channelId !== undefined && present.size > 0) await ctx.store.threads.uncountMessages(tx, channelId, present.size);
    return { uploadIds, deleted: ids.filter((id) => present.has(id)) };
  });
  await releaseUploads(ctx, uploadIds);
  return deleted;
}

/**
 * A category holds no messages (docs/api.md#categories): 400 `channel_is_category`; nor does
 * a forum, whose messages are its posts' (docs/threads.md#forum-channels): 400
 * `channel_is_forum`. Both are Discord's 50008.
 */
export function holdsMessages<T extends { type: string }>(channel: T): T {
  if (channel.type === 'category')
    throw badRequest('a category holds no messages: send them in one of its channels', 'channel_is_category');
  if (channel.type === 'forum')
    throw badRequest('a forum holds no messages of its own: start a post (POST /channels/{id}/threads with a message)', 'channel_is_forum');
  return channel;
}

/** A new message's body as the routes take it (the Discord layer's embeds checked already, `validateEmbeds`). */
export interface NewMessageBody {
  content?: string;
  attachments?: Array<{ url: string; filename: string }>;
  allowedMentions?: AllowedMentions;
  components?: ActionRow[];
  embeds?: Embed[];
}

/**
 * What a new message by `caller` in `channel` (their grant there, which the caller checked
 * for sending) takes, checked as every message is: components (bots), replies (reading the
 * history), files (ATTACH_FILES), embeds (EMBED_LINKS), content, the files' uploads, and
 * what it pings. One path for channel messages and forum posts' first messages.
 */
export async function prepareSend(
  ctx: DomainContext,
  caller: Caller,
  channel: ChannelGrant,
  body: NewMessageBody & { messageReference?: MessageReferenceBody },
): Promise<PreparedMessage> {
  requireSendable(body);
  // Off the hot path unless present: a plain message pays nothing for components.
  let components: ActionRow[] | undefined;
  if (body.components !== undefined) {
    if (!caller.bot) throw badRequest('only bots send components', 'invalid_components');
    components = checkComponents(body.components, true);
  }
  // As on Discord: a reply shows the message it replies to, so replying needs to read the
  // channel; refused before the reference is looked up, so it tells nothing of it either.
  if (body.messageReference && !mayReadHistory(channel.permissions))
    throw forbidden('cannot_reply_without_history', 'replying needs READ_MESSAGE_HISTORY: a reply shows the message it replies to');
  const wanted = body.attachments ?? [];
  if (wanted.length > 0 && !hasPermission(channel.permissions, 'ATTACH_FILES'))
    throw forbidden('missing_permission', 'missing permission ATTACH_FILES');
  const embeds = body.embeds ?? [];
  if (embeds.length > 0 && !hasPermission(channel.permissions, 'EMBED_LINKS'))
    throw forbidden('missing_permission', 'missing permission EMBED_LINKS');
  const content = body.content ?? '';
  checkContent(content, wanted.length > 0 || embeds.length > 0 || (components?.length ?? 0) > 0);
  const uploads =
    wanted.length > 0
      ? await resolveAttachments(ctx, wanted, { uploaderIds: [caller.id], channel: { id: channel.id, permissions: channel.permissions } })
      : [];
  const prepared =
    body.messageReference || mayMention(content)
      ? await prepareMessage(
          ctx,
          channel,
          caller.id,
          hasPermission(channel.permissions, 'MENTION_EVERYONE'),
          { content, uploads, embeds, allowedMentions: body.allowedMentions },
          body.messageReference,
        )
      : { content, uploads, embeds, mentions: NONE, referenced: null };
  if (body.allowedMentions) mentionRules(body.allowedMentions);
  const authorMembership = { roles: channel.roles, joinedAt: channel.joinedAt, nick: channel.nick };
  return { ...prepared, ...(components ? { components } : {}), authorMembership };
}

export const messages = {
  /**
   * Before a message body with files is read (docs/security.md#files-are-for-those-who-may-see-them): the channel exists and
   * `caller` may post in it (404 / 403 otherwise, nothing read); `mayAttach` refuses the
   * first file if they may not attach files there.
   */
  async admitSend(ctx: DomainContext, caller: Caller, channelId: string): Promise<{ mayAttach(): void }> {
    const channel = holdsMessages(await requireChannelPermission(ctx, caller, channelId, NEEDS.send));
    return {
      mayAttach() {
        if (!hasPermission(channel.permissions, 'ATTACH_FILES')) throw forbidden('missing_permission', 'missing permission ATTACH_FILES');
      },
    };
  },

  async send(
    ctx: DomainContext,
    caller: Caller,
    channelId: string,
    body: NewMessageBody & { messageReference?: MessageReferenceBody },
    idem?: IdempotencyRequest,
  ): Promise<CreateResult> {
    requireSendable(body);
    // Components are checked before the channel, as they always were (prepareSend checks them again, cheaply).
    if (body.components !== undefined) {
      if (!caller.bot) throw badRequest('only bots send components', 'invalid_components');
      checkComponents(body.components, true);
    }
    const channel = holdsMessages(await requireChannelPermission(ctx, caller, channelId, NEEDS.send));
    const prepared = await prepareSend(ctx, caller, channel, body);
    let activity: Awaited<ReturnType<typeof recordThreadPost>> | undefined;
    const created = await createMessage(
      ctx,
      channel,
      { id: caller.id, name: caller.name, bot: caller.bot, avatar: caller.avatar },
      null,
      prepared,
      idem,
      // A thread counts the post, unarchives, and takes the poster in (docs/threads.md#activity).
      channel.thread
        ? async (tx) => {
            activity = await recordThreadPost(ctx, tx, channel, caller);
          }
        : undefined,
    );
    // What the post did to its thread, announced after its commit (docs/threads.md#events).
    if (activity) await announceThreadPost(ctx, channel.id, caller, activity);
    return created;
  },

  /**
   * A page of messages, newest first; `limit` outside 1..100 is refused before anything is
   * read. `around` (Discord's): the message with that id if it exists, and the ones nearest
   * it on either side, `limit` in all (the older half first to fill).
   */
  async list(
    ctx: DomainContext,
    caller: Caller,
    channelId: string,
    page: { limit?: number; before?: string; after?: string; around?: string },
  ) {
    const limit = page.limit ?? PAGE_DEFAULT;
    if (!Number.isInteger(limit) || limit < 1 || limit > PAGE_MAX) throw badRequest(`limit must be from 1 to ${PAGE_MAX}`, 'invalid_query');
    const around = await pageBound(ctx, 'around', page.around);
    const opts = { limit, before: await pageBound(ctx, 'before', page.before), after: await pageBound(ctx, 'after', page.after) };
    const grant = await requireChannelPermission(ctx, caller, channelId, NEEDS.read);
    const viewer = { id: caller.id, reads: mayReadHistory(grant.permissions) };
    // Never past a message still being written, so a later `after=` page cannot skip it.
    const below = ctx.store.messageHorizon.oldest();
    if (around !== undefined) {
      // The older half includes `around` itself (before its successor), the newer half follows it.
      const older = await ctx.store.messages.page(ctx.store.db, channelId, {
        limit: Math.ceil(limit / 2),
        before: (BigInt(around) + 1n).toString(),
        below,
      });
      const newer = await ctx.store.messages.page(ctx.store.db, channelId, { limit: limit - older.length, after: around, below });
      return messageViews(ctx, [...newer, ...older], viewer);
    }
    const rows = await ctx.store.messages.page(ctx.store.db, channelId, { ...opts, below });
    return messageViews(ctx, rows, viewer);
  },

  async get(ctx: DomainContext, caller: Caller, channelId: string, messageId: string) {
    const grant = await requireChannelPermission(ctx, caller, channelId, NEEDS.read);
    return messageView(ctx, await loadMessage(ctx, channelId, messageId), { id: caller.id, reads: mayReadHistory(grant.permissions) });
  },

  /**
   * Edits the caller's own message: its content (the native route sends only that), its
   * embeds and (bots) components; an absent part stays as it is.
   */
  async edit(
    ctx: DomainContext,
    caller: Caller,
    channelId: string,
    messageId: string,
    parts: { content?: string; embeds?: Embed[]; components?: ActionRow[] },
  ) {
    if (parts.components !== undefined && parts.components.length > 0 && !caller.bot)
      throw badRequest('only bots send components', 'invalid_components');
    const channel = await requireChannelPermission(ctx, caller, channelId, NEEDS.view);
    const row = await loadMessage(ctx, channelId, messageId);
    if (row.authorId !== caller.id || row.webhookId) throw forbidden('not_message_author', 'you can only edit your own messages');
    if (row.type !== MESSAGE_TYPE.default) throw badRequest('a system message cannot be edited', 'system_message');
    if (parts.embeds !== undefined && parts.embeds.length > 0 && !hasPermission(channel.permissions, 'EMBED_LINKS'))
      throw forbidden('missing_permission', 'missing permission EMBED_LINKS');
    const components =
      parts.components === undefined || parts.components.length === 0 ? parts.components : checkComponents(parts.components, true);
    return applyEdit(
      ctx,
      row,
      {
        ...(parts.content !== undefined ? { content: parts.content } : {}),
        ...(parts.embeds !== undefined ? { embeds: parts.embeds } : {}),
        ...(components !== undefined ? { components } : {}),
      },
      { id: caller.id, reads: mayReadHistory(channel.permissions) },
      { roles: channel.roles, joinedAt: channel.joinedAt, nick: channel.nick },
    );
  },

  async delete(ctx: DomainContext, caller: Caller, channelId: string, messageId: string, reason?: string) {
    const channel = await requireChannelPermission(ctx, caller, channelId, NEEDS.view);
    const row = await loadMessage(ctx, channelId, messageId);
    const moderated = row.authorId !== caller.id;
    if (moderated && !hasPermission(channel.permissions, 'MANAGE_MESSAGES'))
      throw forbidden('not_message_author', 'you can only delete your own messages (MANAGE_MESSAGES deletes others)');
    await removeMessage(ctx, row);
    if (moderated && channel.serverId !== null)
      await audit(ctx, channel.serverId, caller, 'message_delete', row.id, { channelId, authorId: row.authorId }, reason);
  },

  /** Adds the caller's reaction if absent, removes it if present (docs/api.md#messages); returns the state after. */
  async toggleReaction(ctx: DomainContext, caller: Caller, channelId: string, messageId: string, emoji: string) {
    return react(ctx, caller, channelId, messageId, emoji, 'toggle');
  },

  /**
   * Discord's semantics: `present` adds the caller's reaction (nothing changes if it is
   * there already), otherwise removes it (nothing changes if it is absent). Only a change
   * is announced. Removing needs only to see the channel, as on Discord.
   */
  async setReaction(ctx: DomainContext, caller: Caller, channelId: string, messageId: string, emoji: string, present: boolean) {
    return react(ctx, caller, channelId, messageId, emoji, present ? 'add' : 'remove');
  },

  /** Who reacted with `emoji`, oldest reaction first: up to `limit` (1 to 100) users with an id after `after`. */
  async reactors(
    ctx: DomainContext,
    caller: Caller,
    channelId: string,
    messageId: string,
    emoji: string,
    page: { limit?: number; after?: string } = {},
  ): Promise<PublicUser[]> {
    if (!isSingleEmoji(emoji)) throw badRequest('emoji must be a single Unicode emoji');
    const limit = page.limit ?? 25;
    if (!Number.isInteger(limit) || limit < 1 || limit > PAGE_MAX) throw badRequest(`limit must be from 1 to ${PAGE_MAX}`, 'invalid_query');
    const after = await pageBound(ctx, 'after', page.after);
    await requireChannelPermission(ctx, caller, channelId, NEEDS.read);
    await loadMessage(ctx, channelId, messageId);
    const rows = await ctx.store.reactions.users(ctx.store.db, messageId, emoji, { limit, after });
    return rows.map(publicUser);
  },

  async typing(ctx: DomainContext, caller: Caller, channelId: string) {
    const channel = holdsMessages(await requireChannelPermission(ctx, caller, channelId, NEEDS.send));
    await signalTyping(ctx, channel, {
      t: 'TYPING_START',
      d: { channelId, serverId: channel.serverId, userId: caller.id, name: caller.name, bot: caller.bot },
    });
  },
};

/** The one path of every reaction change: toggle (the native PUT, docs/api.md#messages), add or remove (Discord's). */
async function react(
  ctx: DomainContext,
  caller: Caller,
  channelId: string,
  messageId: string,
  emoji: string,
  how: 'toggle' | 'add' | 'remove',
): Promise<{ emoji: string; count: number; me: boolean }> {
  if (!isSingleEmoji(emoji)) throw badRequest('emoji must be a single Unicode emoji');
  const channel = await requireChannelPermission(ctx, caller, channelId, how === 'remove' ? NEEDS.view : NEEDS.react);
  // An archived thread takes no reactions, as on Discord (50083): unarchive it first (docs/threads.md).
  if (channel.thread?.archived) throw badRequest('the thread is archived', 'thread_archived');
  await loadMessage(ctx, channelId, messageId);
  const { changed, me, count } = await ctx.store
    .write(async (tx) => {
      let changed: boolean;
      let me: boolean;
      if (how === 'remove') {
        changed = Number((await ctx.store.reactions.remove(tx, messageId, emoji, caller.id)).numDeletedRows) > 0;
        me = false;
      } else {
        // At most 20 distinct emoji per message; an emoji already there can always be added to.
        const { distinct, present } = await ctx.store.reactions.emojiOf(tx, messageId, emoji);
        if (!present && distinct >= OBJECT_LIMITS.reactionsPerMessage)
          throw badRequest(`a message holds at most ${OBJECT_LIMITS.reactionsPerMessage} distinct reactions`, 'max_reactions');
        const added = await ctx.store.reactions.add(tx, messageId, emoji, caller.id, nowIso(ctx));
        if (!added && how === 'toggle') await ctx.store.reactions.remove(tx, messageId, emoji, caller.id);
        changed = added || how === 'toggle';
        me = added || how === 'add';
      }
      return { changed, me, count: await ctx.store.reactions.count(tx, messageId, emoji) };
    })
    .catch((err: unknown) => {
      // The reaction's foreign key: the message was deleted since it was loaded.
      throw err instanceof AppError && err.code === 'unknown_reference' ? notFound('message') : err;
    });
  if (changed)
    await notifyChannel(ctx, channel, {
      t: me ? 'REACTION_ADD' : 'REACTION_REMOVE',
      d: { channelId, serverId: channel.serverId, messageId, emoji, userId: caller.id, count },
    });
  return { emoji, count, me };
}

/**
 * A `before`/`after` bound as the store compares it: a snowflake (any, not only a
 * message's, as Discord allows), or a ULID from before snowflakes, which stands for the
 * snowflake it became or, if it named nothing, its millisecond. Anything else is refused:
 * the database compares numbers.
 */
async function pageBound(ctx: DomainContext, name: string, value: string | undefined): Promise<string | undefined> {
  if (value === undefined || value === '') return undefined;
  if (isId(value)) return value;
  if (isLegacyId(value)) return (await ctx.store.currentId(value)) ?? snowflakeAt(legacyIdTime(value));
  throw badRequest(`${name} must be a message id (a snowflake)`, 'invalid_query');
}
