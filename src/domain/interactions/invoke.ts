import {
  type ActionRow,
  COMMAND_LIMITS,
  type CommandChoice,
  type CommandOption,
  type CommandOptionValues,
  type CommandValueType,
  type CreateInteractionBody,
  type Modal,
  type ModalSubmitInteractionBody,
  type Attachment,
  type Interaction,
  type InteractionAccepted,
  type InteractionMember,
  type InteractionResolved,
  type Message,
  P,
} from '@parley/protocol';
import { hashToken, newSecret } from '../../crypto.js';
import { type AppError, badRequest, forbidden, notFound } from '../../errors.js';
import { isId } from '../../ids.js';
import { GLOBAL_SCOPE } from '../../store/repos/interaction-rows.js';
import type { CommandTable, InteractionTable, RoleTable, UserTable } from '../../store/schema.js';
import { type ChannelGrant, readsChannel, requireChannelPermission } from '../access.js';
import { publicUser } from '../accounts.js';
import { findComponent } from '../components.js';
import { DM_SERVER_ID, type DomainContext } from '../context.js';
import { messageView, resolveAttachments } from '../messages.js';
import { NEEDS, has } from '../permissions.js';
import { roleView } from '../roles.js';
import type { Caller, PublicUser } from '../types.js';
import { attachmentOf } from '../uploads.js';
import { answers } from './answers.js';
import { type CommandType, SUBCOMMANDISH, dmBot, mayUse } from './commands.js';
import { checkFields } from './modals.js';

/**
 * A person invoking an interaction (docs/commands.md): running a command (chat, user or
 * message), clicking a component, typing in an autocomplete option, or submitting a modal.
 * Everything is checked before anything is delivered; delivery is an adapter (`Deliver`:
 * the gateway, or a signed HTTP POST, `src/outgoing/interaction-delivery.ts`). The window
 * for the bot's callback is armed on `ctx.interactions` (the `InteractionBroker`).
 */

/** Interactions are handed to their bot by this (set by the delivery adapter; the gateway by default). */
export type Deliver = (ctx: DomainContext, bot: UserTable, interaction: Interaction) => Promise<void>;

/** Checks option values against the command's options; `partial` (autocomplete) skips required options and the focused one's rules. */
async function checkOptions(
  ctx: DomainContext,
  grant: ChannelGrant,
  caller: Caller,
  options: readonly CommandOption[],
  given: CommandOptionValues,
  found: Found,
  focused?: string,
): Promise<CommandOptionValues> {
  const byName = new Map(options.map((o) => [o.name, o]));
  for (const name of Object.keys(given)) if (!byName.has(name)) throw badRequest(`the command has no option "${name}"`, 'unknown_option');
  const out: CommandOptionValues = {};
  for (const o of options) {
    const value = given[o.name];
    if (value === undefined) {
      if (o.required && focused === undefined) throw badRequest(`option "${o.name}" is required`, 'missing_option');
      continue;
    }
    const bad = (why: string) => badRequest(`option "${o.name}" ${why}`, 'invalid_option');
    if (o.name === focused) {
      // What the person has typed so far: a partial value, checked only for its kind.
      if (typeof value !== 'string' && typeof value !== 'number') throw bad('must be a string or a number while typed');
      out[o.name] = value;
      continue;
    }
    out[o.name] = await checkValue(ctx, grant, caller, o, value, bad, found);
  }
  return out;
}

/** What checking the options read of the objects they name, for the interaction's `resolved`. */
interface Found {
  users: Map<string, { user: UserTable; member?: { roles: string[]; joinedAt: string } }>;
  channels: Map<string, { id: string; serverId: string | null; name: string; type: string; parentId: string | null }>;
  roles: Map<string, RoleTable>;
  attachments: Map<string, Attachment>;
  /** A message command's target. */
  messages?: Map<string, Message>;
}

async function checkValue(
  ctx: DomainContext,
  grant: ChannelGrant,
  caller: Caller,
  o: CommandOption,
  value: string | number | boolean,
  bad: (why: string) => AppError,
  found: Found,
): Promise<string | number | boolean> {
  switch (o.type) {
    case 'string': {
      if (typeof value !== 'string') throw bad('must be a string');
      const length = [...value].length;
      if (length > (o.maxLength ?? COMMAND_LIMITS.stringValue))
        throw bad(`must be at most ${o.maxLength ?? COMMAND_LIMITS.stringValue} characters`);
      if (o.minLength !== undefined && length < o.minLength) throw bad(`must be at least ${o.minLength} characters`);
      if (value.includes('\u0000')) throw bad('must not contain NUL');
      break;
    }
    case 'integer':
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value) || (o.type === 'integer' && !Number.isSafeInteger(value)))
        throw bad(`must be a${o.type === 'integer' ? 'n integer' : ' number'}`);
      if (o.minValue !== undefined && value < o.minValue) throw bad(`must be at least ${o.minValue}`);
      if (o.maxValue !== undefined && value > o.maxValue) throw bad(`must be at most ${o.maxValue}`);
      break;
    case 'boolean':
      if (typeof value !== 'boolean') throw bad('must be true or false');
      break;
    case 'user': {
      if (typeof value !== 'string' || !isId(value)) throw bad('must be a user id');
      const user = await ctx.store.users.byId(ctx.store.db, value);
      const member = grant.serverId === null ? undefined : await ctx.store.members.get(ctx.store.db, grant.serverId, value);
      const known = user && !user.deletedAt && (grant.serverId === null ? grant.recipients?.includes(value) : member);
      if (!known) throw bad("names no member of this channel's server");
      found.users.set(value, { user, ...(member ? { member: { roles: member.roles, joinedAt: member.joinedAt } } : {}) });
      break;
    }
    case 'channel': {
      if (typeof value !== 'string' || !isId(value)) throw bad('must be a channel id');
      const channel =
        grant.serverId === null ? (value === grant.id ? grant : undefined) : await ctx.store.channels.byId(ctx.store.db, value);
      // A channel the invoker cannot see is one they cannot name: the same answer as none.
      const hidden =
        channel &&
        channel.serverId !== null &&
        !has(await permissionsIn(ctx, grant, { id: caller.id, bot: caller.bot, roles: grant.roles }, value), P.VIEW_CHANNEL);
      if (!channel || channel.serverId !== grant.serverId || hidden) throw bad('names no channel of this server');
      found.channels.set(value, {
        id: value,
        serverId: channel.serverId,
        name: channel.name,
        type: channel.type ?? 'text',
        parentId: ('parentId' in channel ? channel.parentId : null) ?? null,
      });
      break;
    }
    case 'role': {
      if (typeof value !== 'string' || !isId(value) || grant.serverId === null) throw bad('must be a role id of this server');
      const role = await ctx.store.roles.byId(ctx.store.db, grant.serverId, value);
      if (!role) throw bad('names no role of this server');
      found.roles.set(value, role);
      break;
    }
    case 'attachment': {
      if (typeof value !== 'string') throw bad('must be the URL of an upload');
      let upload: Awaited<ReturnType<typeof resolveAttachments>>[number];
      try {
        [upload] = (await resolveAttachments(ctx, [{ url: value, filename: 'x' }], {
          uploaderIds: [caller.id],
          channel: { id: grant.id, permissions: grant.permissions },
        })) as [typeof upload];
      } catch {
        throw bad('must be a URL POST /upload returned');
      }
      found.attachments.set(value, attachmentOf(ctx.publicUrl, upload));
      break;
    }
  }
  if (o.choices?.length && !o.choices.some((c) => c.value === value)) throw bad('must be one of its choices');
  return value;
}

/**
 * A member's permissions in a channel of the grant's server, by the one permission function:
 * a thread's (`threadPermissions`: its parent's, as its kind, lock and their membership leave
 * them, docs/threads.md#permissions), any other channel's by its overwrites.
 */
async function permissionsIn(
  ctx: DomainContext,
  grant: ChannelGrant,
  who: { id: string; bot: boolean; roles: readonly string[] },
  channelId: string,
): Promise<bigint> {
  if (!(await ctx.threadFacts.of(ctx.store, channelId))) return grant.model.permissions(who.id, who.bot, who.roles, channelId);
  const [row, joined] = await Promise.all([
    ctx.store.threads.byId(ctx.store.db, channelId),
    ctx.store.threadMembers.get(ctx.store.db, channelId, who.id),
  ]);
  if (!row) return 0n;
  return grant.model.threadPermissions(who.id, who.bot, who.roles, row.parentId, {
    private: row.type === 'private_thread',
    locked: row.locked === 1,
    member: joined !== undefined,
  });
}

/**
 * The invoking member (roles, joinedAt, permissions in the channel) and the objects the
 * options name, as the interaction shows them to its bot. Permissions come from the one
 * permission function (the grant's model); a channel is shown only when the bot may see
 * it too (the invoker's visibility was checked with the option), with the invoker's
 * permissions there, as Discord's `resolved` has them.
 */
async function resolvedOf(
  ctx: DomainContext,
  grant: ChannelGrant,
  caller: Caller,
  bot: UserTable,
  found: Found | undefined,
): Promise<Pick<Interaction, 'member' | 'resolved' | 'thread'>> {
  const serverId = grant.serverId;
  // In a thread, the bot learns what its permissions there follow from (the Discord wire's `app_permissions`).
  const thread = grant.thread
    ? {
        thread: {
          parentId: grant.thread.parentId,
          type: grant.thread.private ? ('private_thread' as const) : ('public_thread' as const),
          locked: grant.thread.locked,
          joined: (await ctx.store.threadMembers.get(ctx.store.db, grant.id, bot.id)) !== undefined,
        },
      }
    : {};
  const [self, botMember] =
    serverId === null
      ? [undefined, undefined]
      : await Promise.all([
          ctx.store.members.get(ctx.store.db, serverId, caller.id),
          found?.channels.size ? ctx.store.members.get(ctx.store.db, serverId, bot.id) : undefined,
        ]);
  const member: InteractionMember | undefined = self
    ? { roles: self.roles, joinedAt: self.joinedAt, permissions: grant.permissions.toString() }
    : undefined;
  if (!found) return { ...(member ? { member } : {}), ...thread };
  const resolved: InteractionResolved = {};
  if (found.users.size > 0) {
    resolved.users = {};
    for (const [id, u] of found.users) resolved.users[id] = publicUser(u.user);
    if (serverId !== null) {
      resolved.members = {};
      for (const [id, u] of found.users)
        if (u.member)
          resolved.members[id] = {
            roles: u.member.roles,
            joinedAt: u.member.joinedAt,
            permissions: (await permissionsIn(ctx, grant, { id, bot: u.user.bot === 1, roles: u.member.roles }, grant.id)).toString(),
          };
    }
  }
  for (const [id, c] of found.channels) {
    const botSees =
      serverId === null ||
      (botMember !== undefined &&
        has(await permissionsIn(ctx, grant, { id: bot.id, bot: true, roles: botMember.roles }, id), P.VIEW_CHANNEL));
    if (!botSees) continue;
    const permissions =
      serverId === null ? grant.permissions : await permissionsIn(ctx, grant, { id: caller.id, bot: caller.bot, roles: grant.roles }, id);
    resolved.channels ??= {};
    resolved.channels[id] = {
      id,
      serverId: c.serverId,
      name: c.name,
      type: c.type,
      parentId: c.parentId,
      permissions: permissions.toString(),
    };
  }
  if (found.roles.size > 0) resolved.roles = Object.fromEntries([...found.roles].map(([id, r]) => [id, roleView(r)]));
  if (found.attachments.size > 0) resolved.attachments = Object.fromEntries(found.attachments);
  if (found.messages?.size) resolved.messages = Object.fromEntries(found.messages);
  return { ...(member ? { member } : {}), ...(Object.keys(resolved).length > 0 ? { resolved } : {}), ...thread };
}

/** A new interaction's row and token. */
function newInteraction(
  ctx: DomainContext,
  fields: Pick<InteractionTable, 'botId' | 'channelId' | 'userId' | 'type' | 'name' | 'sourceMessageId'> & {
    serverId: string | null;
    commandType?: 'user' | 'message' | null;
  },
): { row: InteractionTable; token: string } {
  const id = ctx.store.ids.next();
  const secret = newSecret();
  return {
    token: `${id}.${secret}`,
    row: {
      id,
      tokenHash: hashToken(secret),
      ...fields,
      commandType: fields.commandType ?? null,
      serverId: fields.serverId ?? DM_SERVER_ID,
      state: 'pending',
      callbackType: null,
      createdAt: new Date(ctx.clock()).toISOString(),
      originalMessageId: null,
      ephemeralMessage: null,
      choices: null,
    },
  };
}

/**
 * The options a run fills in: the command's own, or, for a command with subcommands, those
 * of the subcommand named (inside its group, when it is in one). 400 `missing_option` when
 * a needed subcommand or group is not named, `unknown_option` when one named is not there.
 */
function subcommandPath(
  options: CommandOption[],
  group: string | undefined,
  subcommand: string | undefined,
): { options: CommandOption[]; group?: string; subcommand?: string } {
  const hasSubs = options.some((o) => SUBCOMMANDISH.has(o.type));
  if (!hasSubs) {
    if (group !== undefined || subcommand !== undefined) throw badRequest('the command has no subcommands', 'unknown_option');
    return { options };
  }
  let level = options;
  if (group !== undefined) {
    const g = options.find((o) => o.type === 'subcommandGroup' && o.name === group);
    if (!g) throw badRequest(`the command has no subcommand group "${group}"`, 'unknown_option');
    level = g.options ?? [];
  }
  if (subcommand === undefined) throw badRequest('name a subcommand (and its group, if it is in one)', 'missing_option');
  const s = level.find((o) => o.name === subcommand);
  if (!s) throw badRequest(`no subcommand "${subcommand}"${group ? ` in group "${group}"` : ''}`, 'unknown_option');
  if (s.type === 'subcommandGroup') throw badRequest(`"${subcommand}" is a subcommand group: name a subcommand in it`, 'missing_option');
  if (s.type !== 'subcommand') throw badRequest(`"${subcommand}" is not a subcommand`, 'unknown_option');
  return { options: s.options ?? [], ...(group !== undefined ? { group } : {}), subcommand };
}

/** The command `name` of `botId` the caller may run in the channel; 404 when there is none for them. */
async function findCommand(ctx: DomainContext, caller: Caller, grant: ChannelGrant, botId: string, type: CommandType, name: string) {
  const bot = isId(botId) ? await ctx.store.users.byId(ctx.store.db, botId) : undefined;
  const none = () => notFound('command', `the bot has no command "${name}" here`);
  if (bot?.bot !== 1) throw none();
  let row: CommandTable | undefined;
  if (grant.serverId === null) {
    if ((await dmBot(ctx, grant, caller))?.id !== bot.id) throw none();
    row = await ctx.store.commands.find(ctx.store.db, bot.id, GLOBAL_SCOPE, type, name);
    if (row?.serverId !== GLOBAL_SCOPE) row = undefined;
  } else {
    if (!(await ctx.store.members.get(ctx.store.db, grant.serverId, bot.id))) throw none();
    row = await ctx.store.commands.find(ctx.store.db, bot.id, grant.serverId, type, name);
  }
  if (!row) throw none();
  if (!mayUse(grant, row)) throw forbidden('missing_permission', `missing the permissions the command "${name}" needs`);
  return { bot, command: row };
}

/** The message a click names, with its components and the bot that answers them (a stored message, or the clicker's own ephemeral one). */
async function clickedMessage(ctx: DomainContext, caller: Caller, channelId: string, messageId: string) {
  if (!isId(messageId)) throw notFound('message');
  const row = await ctx.store.messages.byId(ctx.store.db, channelId, messageId);
  if (row) {
    const rows = row.components ? (JSON.parse(row.components) as ActionRow[]) : [];
    const botId = row.authorBot === 1 && !row.webhookId ? row.authorId : null;
    // The message goes to the bot: the message it replies to only if the bot may read the channel.
    const reads = botId !== null && (await readsChannel(ctx, { id: botId, bot: true }, channelId));
    return { rows, botId, message: await messageView(ctx, row, { id: caller.id, reads }) };
  }
  const holder = await ctx.store.interactions.byEphemeralMessage(ctx.store.db, messageId);
  if (!holder || holder.userId !== caller.id || holder.channelId !== channelId || !holder.ephemeralMessage) throw notFound('message');
  const message = JSON.parse(holder.ephemeralMessage) as Message;
  return { rows: message.components ?? [], botId: holder.botId, message };
}

/** Checks a click: the component exists on the message, is enabled, and a select's values fit it. */
function checkClick(rows: readonly ActionRow[], customId: string, values: string[] | undefined): string[] | undefined {
  const component = findComponent(rows, customId);
  if (!component) throw notFound('component', `the message has no component "${customId}"`);
  if (component.disabled) throw badRequest(`the component "${customId}" is disabled`, 'invalid_values');
  if (component.type === 'button') {
    if (values !== undefined) throw badRequest('a button takes no values', 'invalid_values');
    return undefined;
  }
  const chosen = values ?? [];
  const allowed = new Set(component.options.map((o) => o.value));
  if (new Set(chosen).size !== chosen.length) throw badRequest('a value is chosen twice', 'invalid_values');
  const unknown = chosen.find((v) => !allowed.has(v));
  if (unknown !== undefined) throw badRequest(`"${unknown}" is not an option of the select`, 'invalid_values');
  const min = component.minValues ?? 1;
  const max = component.maxValues ?? 1;
  if (chosen.length < min || chosen.length > max)
    throw badRequest(`choose ${min === max ? min : `${min} to ${max}`} values`, 'invalid_values');
  return chosen;
}

// ---------------------------------------------------------------- user and message commands, modals

/**
 * The target of a user or message command, checked as an option naming it would be, into
 * `found` (the interaction's `resolved`): a user command's member of the channel's server
 * (or recipient of the DM); a message command's message of this channel, which the invoker
 * must be able to read (VIEW_CHANNEL and READ_MESSAGE_HISTORY, by the one permission function).
 */
async function targetOf(
  ctx: DomainContext,
  grant: ChannelGrant,
  caller: Caller,
  bot: UserTable,
  type: 'user' | 'message',
  targetId: string | undefined,
  body: { options?: unknown; subcommand?: string; subcommandGroup?: string },
  found: Found,
): Promise<Pick<Interaction, 'member' | 'resolved' | 'thread'>> {
  if ((body.options !== undefined && Object.keys(body.options as object).length > 0) || body.subcommand || body.subcommandGroup)
    throw badRequest(`a ${type} command has no options`, 'unknown_option');
  if (targetId === undefined) throw badRequest(`a ${type} command needs targetId`, 'missing_option');
  const bad = (why: string) => badRequest(`targetId ${why}`, 'invalid_option');
  if (type === 'user') {
    await checkValue(ctx, grant, caller, { type: 'user', name: 'targetId', description: '' }, targetId, bad, found);
    return resolvedOf(ctx, grant, caller, bot, found);
  }
  if (!has(grant.permissions, NEEDS.read))
    throw forbidden('missing_permission', 'a message command needs READ_MESSAGE_HISTORY: the invoker must be able to see the message');
  const row = isId(targetId) ? await ctx.store.messages.byId(ctx.store.db, grant.id, targetId) : undefined;
  if (!row) throw notFound('message', 'no message of this channel has this id');
  // The message goes to the bot: the message it replies to only if the bot may read the channel.
  const reads = await readsChannel(ctx, { id: bot.id, bot: true }, grant.id);
  found.messages = new Map([[row.id, await messageView(ctx, row, { id: caller.id, reads })]]);
  return resolvedOf(ctx, grant, caller, bot, found);
}

/**
 * `POST /channels/{channelId}/interactions` `{type: "modalSubmit"}`: the person who made
 * interaction `interactionId` submits the modal its bot answered with, once, within the
 * interaction's token life (15 minutes). The values are checked against the text inputs;
 * the bot then gets a `modalSubmit` interaction (with the clicked message when the modal
 * answered a click) and answers it like any other.
 */
async function submitModal(
  ctx: DomainContext,
  caller: Caller,
  invoker: PublicUser,
  channelId: string,
  body: ModalSubmitInteractionBody,
  deliver: Deliver,
): Promise<InteractionAccepted> {
  const grant = await requireChannelPermission(ctx, caller, channelId, NEEDS.view);
  const shown = isId(body.interactionId) ? await ctx.store.interactions.byId(ctx.store.db, body.interactionId) : undefined;
  const none = () => notFound('interaction', 'no modal is open for this interaction');
  if (!shown || shown.channelId !== grant.id || shown.callbackType !== 'modal') throw none();
  if (shown.userId !== caller.id) throw forbidden('not_interaction_user', 'only the person who made the interaction may submit its modal');
  if (ctx.interactions.tokenExpired(shown.createdAt)) throw badRequest("the interaction's 15 minutes have passed", 'interaction_expired');
  if (!shown.modal) throw none();
  const modal = JSON.parse(shown.modal) as Modal;
  if (modal.customId !== body.customId) throw badRequest(`the open modal is "${modal.customId}"`, 'invalid_fields');
  const fields = checkFields(modal, body.fields);
  const bot = await ctx.store.users.byId(ctx.store.db, shown.botId);
  if (bot?.bot !== 1) throw none();
  if (grant.serverId !== null && !(await ctx.store.members.get(ctx.store.db, grant.serverId, bot.id)))
    throw notFound('bot', 'the bot left this server');
  const clicked = shown.sourceMessageId
    ? await clickedMessage(ctx, caller, grant.id, shown.sourceMessageId).catch(() => undefined)
    : undefined;
  const { row, token } = newInteraction(ctx, {
    botId: bot.id,
    channelId: grant.id,
    serverId: grant.serverId,
    userId: caller.id,
    type: 'modalSubmit',
    // An answer shows what was used: the command (or the clicked component) the modal came from.
    name: shown.name,
    commandType: shown.commandType ?? null,
    sourceMessageId: clicked ? clicked.message.id : null,
  });
  // One submit: the modal is taken in the new interaction's transaction.
  await ctx.store.write(async (tx) => {
    if ((await ctx.store.interactions.takeModal(tx, shown.id)) === undefined) throw none();
    await ctx.store.interactions.insert(tx, row);
  });
  await dispatch(ctx, bot, row, deliver, {
    ...payloadOf(row, token, invoker),
    ...(await resolvedOf(ctx, grant, caller, bot, undefined)),
    customId: modal.customId,
    fields,
    ...(clicked ? { messageId: clicked.message.id, message: clicked.message } : {}),
  });
  return { id: row.id };
}

export const invoke = {
  /**
   * `POST /channels/{channelId}/interactions` by a person. A command needs
   * USE_APPLICATION_COMMANDS (and the command's own permissions); a click needs to see the
   * message (VIEW_CHANNEL and READ_MESSAGE_HISTORY). Nothing is delivered unless every
   * check passed. An autocomplete waits for the bot's choices, up to the window.
   */
  async create(
    ctx: DomainContext,
    caller: Caller,
    channelId: string,
    body: CreateInteractionBody,
    deliver: Deliver,
  ): Promise<InteractionAccepted> {
    if (caller.bot) throw forbidden('users_only', 'bots do not invoke interactions');
    const invoker: PublicUser = { id: caller.id, name: caller.name, bot: false, avatar: caller.avatar };
    if (body.type === 'modalSubmit') return submitModal(ctx, caller, invoker, channelId, body, deliver);
    if (body.type === 'component') {
      const grant = await requireChannelPermission(ctx, caller, channelId, NEEDS.read);
      const { rows, botId, message } = await clickedMessage(ctx, caller, channelId, body.messageId);
      const values = checkClick(rows, body.customId, body.values);
      // A component only a bot's message carries; a webhook's has link buttons alone.
      const bot = botId ? await ctx.store.users.byId(ctx.store.db, botId) : undefined;
      if (bot?.bot !== 1) throw notFound('component', `the message has no component "${body.customId}"`);
      if (grant.serverId !== null && !(await ctx.store.members.get(ctx.store.db, grant.serverId, bot.id)))
        throw notFound('bot', 'the bot left this server');
      const { row, token } = newInteraction(ctx, {
        botId: bot.id,
        channelId: grant.id,
        serverId: grant.serverId,
        userId: caller.id,
        type: 'component',
        name: body.customId,
        sourceMessageId: message.id,
      });
      await ctx.store.write((tx) => ctx.store.interactions.insert(tx, row));
      await dispatch(ctx, bot, row, deliver, {
        ...payloadOf(row, token, invoker),
        ...(await resolvedOf(ctx, grant, caller, bot, undefined)),
        messageId: message.id,
        customId: body.customId,
        ...(values ? { values } : {}),
        message,
      });
      return { id: row.id };
    }
    const grant = await requireChannelPermission(ctx, caller, channelId, NEEDS.view | P.USE_APPLICATION_COMMANDS);
    const commandType = (body.type === 'command' ? body.commandType : undefined) ?? 'chat';
    const targetId = body.type === 'command' ? body.targetId : undefined;
    const { bot, command } = await findCommand(ctx, caller, grant, body.botId, commandType, body.name);
    const found: Found = { users: new Map(), channels: new Map(), roles: new Map(), attachments: new Map() };
    if (commandType !== 'chat') {
      const seen = await targetOf(ctx, grant, caller, bot, commandType, targetId, body, found);
      const { row, token } = newInteraction(ctx, {
        botId: bot.id,
        channelId: grant.id,
        serverId: grant.serverId,
        userId: caller.id,
        type: 'command',
        name: command.name,
        commandType,
        sourceMessageId: null,
      });
      await ctx.store.write((tx) => ctx.store.interactions.insert(tx, row));
      await dispatch(ctx, bot, row, deliver, {
        ...payloadOf(row, token, invoker),
        name: command.name,
        commandId: command.id,
        commandType,
        targetId: targetId!,
        ...seen,
      });
      return { id: row.id };
    }
    if (targetId !== undefined) throw badRequest('only user and message commands have a targetId', 'unknown_option');
    const path = subcommandPath(JSON.parse(command.options) as CommandOption[], body.subcommandGroup, body.subcommand);
    const options = path.options;
    let focused: string | undefined;
    if (body.type === 'autocomplete') {
      const option = options.find((o) => o.name === body.focused);
      if (!option) throw badRequest(`the command has no option "${body.focused}"`, 'unknown_option');
      if (!option.autocomplete) throw badRequest(`option "${body.focused}" does not autocomplete`, 'invalid_option');
      focused = body.focused;
    }
    const values = await checkOptions(ctx, grant, caller, options, body.options ?? {}, found, focused);
    const declared = new Map(options.map((o) => [o.name, o.type as CommandValueType]));
    const optionTypes = Object.fromEntries(Object.keys(values).map((name) => [name, declared.get(name)!]));
    const seen = await resolvedOf(ctx, grant, caller, bot, found);
    const { row, token } = newInteraction(ctx, {
      botId: bot.id,
      channelId: grant.id,
      serverId: grant.serverId,
      userId: caller.id,
      type: body.type,
      name: command.name,
      sourceMessageId: null,
    });
    await ctx.store.write((tx) => ctx.store.interactions.insert(tx, row));
    const payload: Interaction = {
      ...payloadOf(row, token, invoker),
      name: command.name,
      commandId: command.id,
      ...(path.group ? { subcommandGroup: path.group } : {}),
      ...(path.subcommand ? { subcommand: path.subcommand } : {}),
      options: values,
      optionTypes,
      ...seen,
      ...(focused ? { focused } : {}),
    };
    if (body.type === 'command') {
      await dispatch(ctx, bot, row, deliver, payload);
      return { id: row.id };
    }
    // With several instances the callback may land on another one: it stores the choices.
    const answer = ctx.interactions.waitForChoices(row.id, async () => {
      const stored = await ctx.store.interactions.byId(ctx.store.db, row.id);
      return stored?.choices ? (JSON.parse(stored.choices) as CommandChoice[]) : undefined;
    });
    await deliver(ctx, bot, payload).catch((err) => ctx.report(err, 'interaction delivery failed'));
    return { id: row.id, choices: await answer };
  },
};

/** The fields every delivered interaction has. */
function payloadOf(row: InteractionTable, token: string, user: PublicUser): Interaction {
  return {
    id: row.id,
    token,
    type: row.type,
    botId: row.botId,
    channelId: row.channelId,
    serverId: row.serverId === DM_SERVER_ID ? null : row.serverId,
    user,
    createdAt: row.createdAt,
  };
}

/** Delivers a command or click, and arms the window: no callback by its end and the invoker hears it failed. */
async function dispatch(ctx: DomainContext, bot: UserTable, row: InteractionTable, deliver: Deliver, payload: Interaction): Promise<void> {
  ctx.interactions.armWindow('interaction timeout failed', () => answers.fail(ctx, row, 'timeout'));
  await deliver(ctx, bot, payload).catch((err) => ctx.report(err, 'interaction delivery failed'));
}
