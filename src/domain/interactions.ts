import {
  ALL_PERMISSION_BITS,
  ATTACHMENTS_MAX,
  type ActionRow,
  COMMAND_LIMITS,
  COMMAND_NAME_PATTERN,
  CONTEXT_MENU_NAME_PATTERN,
  type Command,
  type CommandBody,
  type CommandChoice,
  type CommandOption,
  type CommandOptionValues,
  type CommandValueType,
  type CreateInteractionBody,
  MODAL_LIMITS,
  type Modal,
  type ModalField,
  type ModalSubmitInteractionBody,
  type Attachment,
  type Interaction,
  type InteractionAccepted,
  type InteractionMember,
  type InteractionResolved,
  type InteractionCallbackBody,
  type InteractionMessageBody,
  type Message,
  P,
  parsePermissions,
} from '@parley/protocol';
import { hashToken, newSecret, splitToken, tokenMatches } from '../crypto.js';
import { AppError, badRequest, conflict, forbidden, notFound } from '../errors.js';
import { isId } from '../ids.js';
import { GLOBAL_SCOPE } from '../store/repos/interactions.js';
import type { CommandTable, InteractionTable, MessageTable, RoleTable, UserTable } from '../store/schema.js';
import { validateEmbeds } from '../webhooks/types.js';
import { type ChannelGrant, readsChannel, requireChannelPermission } from './access.js';
import { publicUser } from './accounts.js';
import { checkComponents, findComponent } from './components.js';
import { DM_SERVER_ID, type DomainContext, notify, nowIso } from './context.js';
import { NONE, mayMention } from './mentions.js';
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
} from './messages.js';
import { NEEDS, has } from './permissions.js';
import { roleView } from './roles.js';
import type { Caller, PublicUser } from './types.js';
import { type StoredUpload, attachmentOf, releaseUploads, uploadIdOf, uploadRefOf } from './uploads.js';

/**
 * Commands and interactions (docs/commands.md): registering a bot's commands, a person
 * invoking one (or clicking a component, or typing in an autocomplete option), the bot's
 * one callback within the window, and follow-ups and edits with the token for 15 minutes.
 * Delivery is an adapter: the gateway (a `user` entry for the bot's own sessions), or a
 * signed HTTP POST (`interaction-delivery.ts`) whose answer is the callback.
 */

const NAME = new RegExp(COMMAND_NAME_PATTERN, 'u');
const CONTEXT_MENU_NAME = new RegExp(CONTEXT_MENU_NAME_PATTERN, 'u');
const STRINGY = new Set(['string', 'integer', 'number']);
const NUMERIC = new Set(['integer', 'number']);

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

/** Interactions are handed to their bot by this (set by the delivery adapter; the gateway by default). */
export type Deliver = (ctx: DomainContext, bot: UserTable, interaction: Interaction) => Promise<void>;

// ---------------------------------------------------------------- commands

/** The bot, when the caller is that bot or its owner (404 for no such bot, 403 for anyone else). */
async function commandsOwner(ctx: DomainContext, caller: Caller, botId: string): Promise<UserTable> {
  const bot = isId(botId) ? await ctx.store.users.byId(ctx.store.db, botId) : undefined;
  if (bot?.bot !== 1) throw notFound('bot');
  if (caller.id !== bot.id && bot.ownerId !== caller.id)
    throw forbidden('bot_owner_only', 'only the bot or its owner manages its commands');
  return bot;
}

/** The scope of `?serverId=`: the global one, or a server the bot is a member of. */
async function commandScope(ctx: DomainContext, botId: string, serverId: string | undefined): Promise<string> {
  if (serverId === undefined) return GLOBAL_SCOPE;
  const server = isId(serverId) ? await ctx.store.servers.byId(ctx.store.db, serverId) : undefined;
  if (!server) throw notFound('server');
  if (!(await ctx.store.members.get(ctx.store.db, serverId, botId)))
    throw forbidden('not_a_member', 'the bot is not a member of this server');
  return serverId;
}

function commandView(row: CommandTable, bot?: PublicUser): Command {
  return {
    id: row.id,
    botId: row.botId,
    serverId: row.serverId === GLOBAL_SCOPE ? null : row.serverId,
    type: row.type ?? 'chat',
    name: row.name,
    description: row.description,
    options: JSON.parse(row.options) as CommandOption[],
    defaultMemberPermissions: row.defaultMemberPermissions,
    ...(row.nameLocalizations ? { nameLocalizations: JSON.parse(row.nameLocalizations) as Record<string, string> } : {}),
    ...(row.descriptionLocalizations
      ? { descriptionLocalizations: JSON.parse(row.descriptionLocalizations) as Record<string, string> }
      : {}),
    ...(row.contexts ? { contexts: JSON.parse(row.contexts) as number[] } : {}),
    ...(row.integrationTypes ? { integrationTypes: JSON.parse(row.integrationTypes) as number[] } : {}),
    ...(bot ? { bot } : {}),
    createdAt: row.createdAt,
  };
}

/** Discord's fields a command keeps and returns as given (docs/commands.md): JSON columns, null when not given. */
type CommandExtras = Pick<CommandTable, 'nameLocalizations' | 'descriptionLocalizations' | 'contexts' | 'integrationTypes'>;

/** The stored form of a command body's localizations, contexts and integration types; `current` for what a patch leaves out. */
function commandExtras(body: Partial<CommandBody>, where: string, current?: CommandExtras): CommandExtras {
  const json = (v: unknown, kept: string | null | undefined) => (v === undefined ? (kept ?? null) : v === null ? null : JSON.stringify(v));
  for (const [locale, name] of Object.entries(body.nameLocalizations ?? {}))
    if (!NAME.test(name)) throw invalidCommand(`${where}.nameLocalizations.${locale}`, 'lower case, 1 to 32 letters, digits, - or _');
  for (const [locale, text] of Object.entries(body.descriptionLocalizations ?? {}))
    if (text.trim() === '') throw invalidCommand(`${where}.descriptionLocalizations.${locale}`, 'must not be blank');
  const unique = (list: number[] | null | undefined) => (list ? [...new Set(list)].sort((a, b) => a - b) : list);
  return {
    nameLocalizations: json(body.nameLocalizations, current?.nameLocalizations),
    descriptionLocalizations: json(body.descriptionLocalizations, current?.descriptionLocalizations),
    contexts: json(unique(body.contexts), current?.contexts),
    integrationTypes: json(unique(body.integrationTypes), current?.integrationTypes),
  };
}

const invalidCommand = (where: string, why: string) => badRequest(`${where}: ${why}`, 'invalid_commands');

const SUBCOMMANDISH = new Set<string>(['subcommand', 'subcommandGroup']);

/**
 * Checks one level of options against Discord's rules (docs/commands.md#subcommands):
 * a command's options are all subcommands and groups or none of them; a group holds
 * subcommands only (at least one); a subcommand holds value options only. At most 25 per
 * level, names unique per level, required value options first. Returns them as stored.
 */
function checkOptionList(options: readonly CommandOption[], where: string, level: 'command' | 'group' | 'subcommand'): CommandOption[] {
  if (options.length > COMMAND_LIMITS.options) throw invalidCommand(`${where}.options`, `at most ${COMMAND_LIMITS.options}`);
  if (level === 'group' && options.length === 0)
    throw invalidCommand(`${where}.options`, 'a subcommand group holds at least one subcommand');
  const nested = options.filter((o) => SUBCOMMANDISH.has(o.type)).length;
  if (level === 'command' && nested > 0 && nested < options.length)
    throw invalidCommand(`${where}.options`, 'a command has either only subcommands and subcommand groups, or none of them');
  const names = new Set<string>();
  let optionalSeen = false;
  return options.map((o, i): CommandOption => {
    const at = `${where}.options[${i}]`;
    if (level === 'group' && o.type !== 'subcommand') throw invalidCommand(`${at}.type`, 'a subcommand group holds subcommands only');
    if (level === 'subcommand' && SUBCOMMANDISH.has(o.type))
      throw invalidCommand(`${at}.type`, 'a subcommand holds no subcommands or groups (at most: command, group, subcommand)');
    if (!NAME.test(o.name)) throw invalidCommand(`${at}.name`, 'lower case, 1 to 32 letters, digits, - or _');
    if (names.has(o.name)) throw invalidCommand(`${at}.name`, `"${o.name}" is used twice`);
    names.add(o.name);
    if (o.description.trim() === '') throw invalidCommand(`${at}.description`, 'must not be blank');
    const sub = o.options;
    if (SUBCOMMANDISH.has(o.type)) {
      if (o.required) throw invalidCommand(`${at}.required`, 'a subcommand or group is never required');
      if (
        o.choices !== undefined ||
        o.autocomplete !== undefined ||
        o.minValue !== undefined ||
        o.maxValue !== undefined ||
        o.minLength !== undefined ||
        o.maxLength !== undefined
      )
        throw invalidCommand(at, 'a subcommand or group has no choices, autocomplete, values or lengths');
      const inner = checkOptionList(sub ?? [], at, o.type === 'subcommandGroup' ? 'group' : 'subcommand');
      return { type: o.type, name: o.name, description: o.description, options: inner };
    }
    if (sub !== undefined) throw invalidCommand(`${at}.options`, 'only subcommands and groups have options');
    if (o.required && optionalSeen) throw invalidCommand(at, 'required options come before optional ones');
    if (!o.required) optionalSeen = true;
    if (o.choices !== undefined) {
      if (!STRINGY.has(o.type)) throw invalidCommand(`${at}.choices`, 'only string, integer and number options have choices');
      if (o.choices.length > COMMAND_LIMITS.choices) throw invalidCommand(`${at}.choices`, `at most ${COMMAND_LIMITS.choices}`);
      for (const c of o.choices) {
        const fits =
          o.type === 'string'
            ? typeof c.value === 'string'
            : o.type === 'integer'
              ? Number.isInteger(c.value)
              : typeof c.value === 'number';
        if (!fits) throw invalidCommand(`${at}.choices`, `"${c.name}" has a value that is not a ${o.type}`);
      }
    }
    if (o.autocomplete && (!STRINGY.has(o.type) || o.choices?.length))
      throw invalidCommand(`${at}.autocomplete`, 'only string, integer and number options without choices autocomplete');
    if ((o.minValue !== undefined || o.maxValue !== undefined) && !NUMERIC.has(o.type))
      throw invalidCommand(at, 'only integer and number options have minValue and maxValue');
    if (o.minValue !== undefined && o.maxValue !== undefined && o.minValue > o.maxValue)
      throw invalidCommand(at, 'minValue must not be more than maxValue');
    if ((o.minLength !== undefined || o.maxLength !== undefined) && o.type !== 'string')
      throw invalidCommand(at, 'only string options have minLength and maxLength');
    if (o.minLength !== undefined && o.maxLength !== undefined && o.minLength > o.maxLength)
      throw invalidCommand(at, 'minLength must not be more than maxLength');
    // Only the fields that apply, in a fixed order.
    return {
      type: o.type,
      name: o.name,
      description: o.description,
      ...(o.required ? { required: true } : {}),
      ...(o.choices?.length ? { choices: o.choices.map((c) => ({ name: c.name, value: c.value })) } : {}),
      ...(o.autocomplete ? { autocomplete: true } : {}),
      ...(o.minValue !== undefined ? { minValue: o.minValue } : {}),
      ...(o.maxValue !== undefined ? { maxValue: o.maxValue } : {}),
      ...(o.minLength !== undefined ? { minLength: o.minLength } : {}),
      ...(o.maxLength !== undefined ? { maxLength: o.maxLength } : {}),
    };
  });
}

/** Checks one command to register against Discord's rules; returns it as stored (options normalised). */
function checkCommand(
  body: CommandBody,
  where: string,
): { type: CommandType; description: string; options: CommandOption[]; defaultMemberPermissions: string | null } {
  const type = body.type ?? 'chat';
  let out: CommandOption[] = [];
  if (type === 'chat') {
    if (!NAME.test(body.name)) throw invalidCommand(`${where}.name`, 'lower case, 1 to 32 letters, digits, - or _');
    if (body.description === undefined) throw invalidCommand(`${where}.description`, 'a chat command needs a description');
    if (body.description.trim() === '') throw invalidCommand(`${where}.description`, 'must not be blank');
    out = checkOptionList(body.options ?? [], where, 'command');
  } else {
    // Discord's user and message commands: a name as people read it, nothing else to fill in.
    if (!CONTEXT_MENU_NAME.test(body.name))
      throw invalidCommand(`${where}.name`, '1 to 32 letters, digits, spaces, - or _, not starting or ending with a space');
    if (body.description !== undefined && body.description !== '')
      throw invalidCommand(`${where}.description`, `a ${type} command has no description`);
    if (body.options?.length) throw invalidCommand(`${where}.options`, `a ${type} command has no options`);
  }
  let defaultMemberPermissions: string | null = null;
  if (body.defaultMemberPermissions !== undefined && body.defaultMemberPermissions !== null) {
    const bits = parsePermissions(body.defaultMemberPermissions);
    if (bits === null || (bits & ~ALL_PERMISSION_BITS) !== 0n)
      throw invalidCommand(`${where}.defaultMemberPermissions`, 'must be a permission bitfield of known bits');
    defaultMemberPermissions = bits.toString();
  }
  return { type, description: type === 'chat' ? (body.description ?? '') : '', options: out, defaultMemberPermissions };
}

type CommandType = CommandTable['type'];

/** How many commands of a type one scope may hold: 100 chat commands, 5 user and 5 message commands. */
const limitOf = (type: CommandType) => (type === 'chat' ? COMMAND_LIMITS.commandsPerScope : COMMAND_LIMITS.contextMenusPerType);

/** Clients showing a command list refetch it: the server's members, or every server of the bot's. */
async function commandsChanged(ctx: DomainContext, botId: string, scope: string): Promise<void> {
  const servers = scope === GLOBAL_SCOPE ? await ctx.store.members.serverIdsOf(ctx.store.db, botId) : [scope];
  for (const id of servers)
    await notify(ctx, {
      kind: 'event',
      serverId: id,
      event: { t: 'COMMANDS_UPDATE', d: { botId, serverId: scope === GLOBAL_SCOPE ? null : scope } },
    });
}

export const commands = {
  /** `PUT /bots/{botId}/commands`: the scope's whole list; names that stay keep their ids. */
  async overwrite(
    ctx: DomainContext,
    caller: Caller,
    botId: string,
    serverId: string | undefined,
    body: CommandBody[],
  ): Promise<Command[]> {
    const bot = await commandsOwner(ctx, caller, botId);
    const scope = await commandScope(ctx, bot.id, serverId);
    const seen = new Set<string>();
    const counts = new Map<CommandType, number>();
    // Names are unique per type: a chat command and a user command may share one (as on Discord).
    const checked = body.map((c, i) => {
      const type = c.type ?? 'chat';
      if (seen.has(`${type}/${c.name}`)) throw invalidCommand(`[${i}].name`, `"${c.name}" is used twice`);
      seen.add(`${type}/${c.name}`);
      counts.set(type, (counts.get(type) ?? 0) + 1);
      if (counts.get(type)! > limitOf(type)) throw invalidCommand('commands', `at most ${limitOf(type)} ${type} commands`);
      return { body: c, ...checkCommand(c, `[${i}]`), extras: commandExtras(c, `[${i}]`) };
    });
    const rows = await ctx.store.write(async (tx) => {
      const before = new Map((await ctx.store.commands.ofScope(tx, bot.id, scope)).map((r) => [`${r.type}/${r.name}`, r]));
      const rows: CommandTable[] = checked.map(({ body: c, type, description, options, defaultMemberPermissions, extras }) => ({
        id: before.get(`${type}/${c.name}`)?.id ?? ctx.store.ids.next(),
        botId: bot.id,
        serverId: scope,
        type,
        name: c.name,
        description,
        options: JSON.stringify(options),
        defaultMemberPermissions,
        ...extras,
        createdAt: before.get(`${type}/${c.name}`)?.createdAt ?? nowIso(ctx),
      }));
      await ctx.store.commands.replaceScope(tx, bot.id, scope, rows);
      return rows;
    });
    await commandsChanged(ctx, bot.id, scope);
    return rows.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.type < b.type ? -1 : 1)).map((r) => commandView(r));
  },

  /**
   * `POST /bots/{botId}/commands`: adds one command to the scope, or replaces the one of
   * the same name (its id kept): `created` says which. One transaction reads and writes
   * that one row, so concurrent creates and edits of other commands never undo each other.
   */
  async create(
    ctx: DomainContext,
    caller: Caller,
    botId: string,
    serverId: string | undefined,
    body: CommandBody,
  ): Promise<{ command: Command; created: boolean }> {
    const bot = await commandsOwner(ctx, caller, botId);
    const scope = await commandScope(ctx, bot.id, serverId);
    const checked = checkCommand(body, 'command');
    const extras = commandExtras(body, 'command');
    const write = () =>
      ctx.store.write(async (tx) => {
        const existing = await ctx.store.commands.byName(tx, bot.id, scope, checked.type, body.name);
        if (!existing && (await ctx.store.commands.countScope(tx, bot.id, scope, checked.type)) >= limitOf(checked.type))
          throw invalidCommand('commands', `at most ${limitOf(checked.type)} ${checked.type} commands`);
        const row: CommandTable = {
          id: existing?.id ?? ctx.store.ids.next(),
          botId: bot.id,
          serverId: scope,
          type: checked.type,
          name: body.name,
          description: checked.description,
          options: JSON.stringify(checked.options),
          defaultMemberPermissions: checked.defaultMemberPermissions,
          ...extras,
          createdAt: existing?.createdAt ?? nowIso(ctx),
        };
        if (existing) await ctx.store.commands.update(tx, row);
        else await ctx.store.commands.insert(tx, row);
        return { row, created: !existing };
      });
    // Two creates of one new name at once (databases without a single writer): the loser
    // meets the unique index, and its second try finds the winner's row and replaces it.
    const { row, created } = await write().catch((err) => {
      if ((err as AppError).code === 'already_exists') return write();
      throw err;
    });
    await commandsChanged(ctx, bot.id, scope);
    return { command: commandView(row), created };
  },

  /**
   * `PATCH /bots/{botId}/commands/{commandId}`: changes one command; what the body leaves
   * out stays. The result is checked as a whole, and its name must stay unique in the scope.
   */
  async edit(
    ctx: DomainContext,
    caller: Caller,
    botId: string,
    serverId: string | undefined,
    commandId: string,
    patch: Partial<CommandBody>,
  ): Promise<Command> {
    const bot = await commandsOwner(ctx, caller, botId);
    const scope = await commandScope(ctx, bot.id, serverId);
    const row = await ctx.store.write(async (tx) => {
      const current = isId(commandId) ? await ctx.store.commands.byId(tx, bot.id, scope, commandId) : undefined;
      if (!current) throw notFound('command');
      if (patch.type !== undefined && patch.type !== current.type)
        throw invalidCommand('command.type', "a command's type cannot change: delete it and create another");
      const body: CommandBody = {
        type: current.type,
        name: patch.name ?? current.name,
        description: patch.description ?? (current.type === 'chat' ? current.description : undefined),
        options: patch.options ?? (JSON.parse(current.options) as CommandOption[]),
        defaultMemberPermissions:
          patch.defaultMemberPermissions !== undefined ? patch.defaultMemberPermissions : current.defaultMemberPermissions,
      };
      const checked = checkCommand(body, 'command');
      if (body.name !== current.name && (await ctx.store.commands.byName(tx, bot.id, scope, current.type, body.name)))
        throw invalidCommand('command.name', `"${body.name}" is used by another command`);
      const next: CommandTable = {
        ...current,
        name: body.name,
        description: checked.description,
        options: JSON.stringify(checked.options),
        defaultMemberPermissions: checked.defaultMemberPermissions,
        ...commandExtras(patch, 'command', current),
      };
      await ctx.store.commands.update(tx, next);
      return next;
    });
    await commandsChanged(ctx, bot.id, scope);
    return commandView(row);
  },

  /** `DELETE /bots/{botId}/commands/{commandId}`: removes one command of the scope. */
  async remove(ctx: DomainContext, caller: Caller, botId: string, serverId: string | undefined, commandId: string): Promise<void> {
    const bot = await commandsOwner(ctx, caller, botId);
    const scope = await commandScope(ctx, bot.id, serverId);
    const deleted = isId(commandId) ? await ctx.store.write((tx) => ctx.store.commands.delete(tx, bot.id, scope, commandId)) : false;
    if (!deleted) throw notFound('command');
    await commandsChanged(ctx, bot.id, scope);
  },

  /** One command of the scope (404 for another scope's, or none). */
  async get(ctx: DomainContext, caller: Caller, botId: string, serverId: string | undefined, commandId: string): Promise<Command> {
    const bot = await commandsOwner(ctx, caller, botId);
    const scope = await commandScope(ctx, bot.id, serverId);
    const row = isId(commandId) ? await ctx.store.commands.byId(ctx.store.db, bot.id, scope, commandId) : undefined;
    if (!row) throw notFound('command');
    return commandView(row);
  },

  /** `GET /bots/{botId}/commands`: the scope's commands, for the bot or its owner. */
  async list(ctx: DomainContext, caller: Caller, botId: string, serverId: string | undefined): Promise<Command[]> {
    const bot = await commandsOwner(ctx, caller, botId);
    const scope = await commandScope(ctx, bot.id, serverId);
    return (await ctx.store.commands.ofScope(ctx.store.db, bot.id, scope)).map((r) => commandView(r));
  },

  /**
   * Whether the caller may manage the scope's commands (the bot or its owner; a server the
   * bot is in), as every action above decides it: a route checks it before reading a body.
   */
  async requireManager(ctx: DomainContext, caller: Caller, botId: string, serverId: string | undefined): Promise<void> {
    const bot = await commandsOwner(ctx, caller, botId);
    await commandScope(ctx, bot.id, serverId);
  },

  /**
   * `GET /channels/{channelId}/commands`: what the caller may run there. In a server's
   * channel, the commands of its bots (the server's own, then global ones a server command
   * of the same name does not hide), if the caller holds USE_APPLICATION_COMMANDS there and
   * each command's `defaultMemberPermissions`. In a DM with a bot, that bot's global ones.
   */
  async ofChannel(ctx: DomainContext, caller: Caller, channelId: string): Promise<Command[]> {
    const grant = await requireChannelPermission(ctx, caller, channelId, NEEDS.view);
    if (!has(grant.permissions, P.USE_APPLICATION_COMMANDS)) return [];
    if (grant.serverId === null) {
      const bot = await dmBot(ctx, grant, caller);
      if (!bot) return [];
      return (await ctx.store.commands.globalOf(ctx.store.db, bot.id)).map((r) => commandView(r, botFace(r)));
    }
    const rows = await ctx.store.commands.ofServerBots(ctx.store.db, grant.serverId);
    const own = new Set(rows.filter((r) => r.serverId !== GLOBAL_SCOPE).map((r) => `${r.botId}/${r.type}/${r.name}`));
    return rows
      .filter((r) => r.serverId !== GLOBAL_SCOPE || !own.has(`${r.botId}/${r.type}/${r.name}`))
      .filter((r) => mayUse(grant, r))
      .map((r) => commandView(r, botFace(r)));
  },
};

const botFace = (r: { botId: string; botName: string; botAvatar: string | null }): PublicUser => ({
  id: r.botId,
  name: r.botName,
  bot: true,
  avatar: r.botAvatar,
});

/** Whether the grant holds a command's `defaultMemberPermissions` (always, in a DM). */
function mayUse(grant: ChannelGrant, command: Pick<CommandTable, 'defaultMemberPermissions'>): boolean {
  if (grant.serverId === null || command.defaultMemberPermissions === null) return true;
  return has(grant.permissions, BigInt(command.defaultMemberPermissions));
}

/** The bot a one-to-one DM is with, if the other recipient is one. */
async function dmBot(ctx: DomainContext, grant: ChannelGrant, caller: Caller): Promise<UserTable | undefined> {
  const others = (grant.recipients ?? []).filter((id) => id !== caller.id);
  if (others.length !== 1) return undefined;
  const other = await ctx.store.users.byId(ctx.store.db, others[0]!);
  return other?.bot === 1 ? other : undefined;
}

// ---------------------------------------------------------------- invoking

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
  channels: Map<string, { id: string; serverId: string | null; name: string }>;
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
        channel && channel.serverId !== null && !has(grant.model.permissions(caller.id, caller.bot, grant.roles, value), P.VIEW_CHANNEL);
      if (!channel || channel.serverId !== grant.serverId || hidden) throw bad('names no channel of this server');
      found.channels.set(value, { id: value, serverId: channel.serverId, name: channel.name });
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
): Promise<Pick<Interaction, 'member' | 'resolved'>> {
  const serverId = grant.serverId;
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
  if (!found) return member ? { member } : {};
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
            permissions: grant.model.permissions(id, u.user.bot === 1, u.member.roles, grant.id).toString(),
          };
    }
  }
  for (const [id, c] of found.channels) {
    const botSees =
      serverId === null || (botMember !== undefined && has(grant.model.permissions(bot.id, true, botMember.roles, id), P.VIEW_CHANNEL));
    if (!botSees) continue;
    const permissions = serverId === null ? grant.permissions : grant.model.permissions(caller.id, caller.bot, grant.roles, id);
    resolved.channels ??= {};
    resolved.channels[id] = { id, serverId: c.serverId, name: c.name, permissions: permissions.toString() };
  }
  if (found.roles.size > 0) resolved.roles = Object.fromEntries([...found.roles].map(([id, r]) => [id, roleView(r)]));
  if (found.attachments.size > 0) resolved.attachments = Object.fromEntries(found.attachments);
  if (found.messages?.size) resolved.messages = Object.fromEntries(found.messages);
  return { ...(member ? { member } : {}), ...(Object.keys(resolved).length > 0 ? { resolved } : {}) };
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
): Promise<Pick<Interaction, 'member' | 'resolved'>> {
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

/** Checks a modal a bot answers with beyond its schema (Discord's rules); returns it as kept, `required` said. */
function checkModal(modal: Modal): Modal {
  const bad = (where: string, why: string) => badRequest(`data.modal.${where}: ${why}`, 'invalid_modal');
  if (modal.title.trim() === '') throw bad('title', 'must not be blank');
  const ids = new Set<string>();
  return {
    customId: modal.customId,
    title: modal.title,
    components: modal.components.map((row, i) => {
      const input = row.components[0]!;
      const at = `components[${i}]`;
      if (ids.has(input.customId)) throw bad(`${at}.customId`, `"${input.customId}" is used twice`);
      ids.add(input.customId);
      if (input.label.trim() === '') throw bad(`${at}.label`, 'must not be blank');
      const max = input.maxLength ?? MODAL_LIMITS.value;
      if (input.minLength !== undefined && input.minLength > max) throw bad(at, 'minLength must not be more than maxLength');
      if (input.value !== undefined && [...input.value].length > max) throw bad(`${at}.value`, `must be at most ${max} characters`);
      return {
        type: 'row' as const,
        components: [
          {
            type: 'textInput' as const,
            customId: input.customId,
            style: input.style,
            label: input.label,
            ...(input.minLength !== undefined ? { minLength: input.minLength } : {}),
            ...(input.maxLength !== undefined ? { maxLength: input.maxLength } : {}),
            required: input.required ?? true,
            ...(input.value !== undefined ? { value: input.value } : {}),
            ...(input.placeholder !== undefined ? { placeholder: input.placeholder } : {}),
          },
        ],
      };
    }),
  };
}

/**
 * The submitted values against the modal's text inputs: every field one of its inputs (once),
 * a required input not empty, a value within its lengths (in characters). Returns every
 * input's value in the modal's order, an empty string for one left empty.
 */
function checkFields(modal: Modal, fields: readonly ModalField[]): ModalField[] {
  const inputs = modal.components.map((r) => r.components[0]!);
  const known = new Set(inputs.map((i) => i.customId));
  const given = new Map<string, string>();
  for (const f of fields) {
    if (!known.has(f.customId)) throw badRequest(`the modal has no text input "${f.customId}"`, 'invalid_fields');
    if (given.has(f.customId)) throw badRequest(`"${f.customId}" is submitted twice`, 'invalid_fields');
    given.set(f.customId, f.value);
  }
  return inputs.map((input) => {
    const value = given.get(input.customId) ?? '';
    const length = [...value].length;
    const bad = (why: string) => badRequest(`"${input.label}" (${input.customId}) ${why}`, 'invalid_fields');
    if (value === '') {
      if (input.required !== false) throw bad('is required');
    } else {
      if (input.minLength !== undefined && length < input.minLength) throw bad(`must be at least ${input.minLength} characters`);
      const max = input.maxLength ?? MODAL_LIMITS.value;
      if (length > max) throw bad(`must be at most ${max} characters`);
      if (value.includes('\u0000')) throw bad('must not contain NUL');
    }
    return { customId: input.customId, value };
  });
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
  if (ctx.clock() - Date.parse(shown.createdAt) > ctx.interactions.tokenTtlMs)
    throw badRequest("the interaction's 15 minutes have passed", 'interaction_expired');
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
  const { member } = await resolvedOf(ctx, grant, caller, bot, undefined);
  await dispatch(ctx, bot, row, deliver, {
    ...payloadOf(row, token, invoker),
    ...(member ? { member } : {}),
    customId: modal.customId,
    fields,
    ...(clicked ? { messageId: clicked.message.id, message: clicked.message } : {}),
  });
  return { id: row.id };
}

export const interactions = {
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
      const { member } = await resolvedOf(ctx, grant, caller, bot, undefined);
      await dispatch(ctx, bot, row, deliver, {
        ...payloadOf(row, token, invoker),
        ...(member ? { member } : {}),
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
    const answer = waitForChoices(ctx, row.id);
    await deliver(ctx, bot, payload).catch((err) => ctx.report(err, 'interaction delivery failed'));
    return { id: row.id, choices: await answer };
  },

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
    if (target === 'original') return interactions.getOriginal(ctx, token);
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
    if (target === 'original') return interactions.deleteOriginal(ctx, token);
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
  ctx.background.after('interaction timeout failed', ctx.interactions.callbackMs + 50, () => fail(ctx, row, 'timeout'));
  await deliver(ctx, bot, payload).catch((err) => ctx.report(err, 'interaction delivery failed'));
}

async function fail(ctx: DomainContext, row: InteractionTable, reason: 'timeout' | 'unreachable'): Promise<void> {
  if (row.type === 'autocomplete') {
    ctx.interactions.waiters.get(row.id)?.([]);
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

/** Resolves with the bot's autocomplete choices, or none once the window ends. */
function waitForChoices(ctx: DomainContext, id: string): Promise<CommandChoice[]> {
  return new Promise((resolve) => {
    let poll: NodeJS.Timeout | undefined;
    const finish = (choices: CommandChoice[]) => {
      clearTimeout(deadline);
      if (poll) clearInterval(poll);
      ctx.interactions.waiters.delete(id);
      resolve(choices);
    };
    const deadline = setTimeout(() => finish([]), ctx.interactions.callbackMs);
    ctx.interactions.waiters.set(id, finish);
    // With several instances the callback may land on another one: it stores the choices.
    if (ctx.interactions.shared)
      poll = setInterval(() => {
        ctx.store.interactions.byId(ctx.store.db, id).then(
          (r) => {
            if (r?.choices) finish(JSON.parse(r.choices) as CommandChoice[]);
          },
          // A failed read is one missed poll; the window's end answers at the latest.
          (err: unknown) => ctx.report(err, 'autocomplete poll failed'),
        );
      }, 200);
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
  if (ctx.clock() - Date.parse(row.createdAt) > ctx.interactions.tokenTtlMs)
    throw badRequest("the interaction's token has expired", 'interaction_expired');
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
  if (row.state === 'failed' || ctx.clock() - Date.parse(row.createdAt) > ctx.interactions.callbackMs)
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
    ctx.interactions.waiters.get(row.id)?.(choices);
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
