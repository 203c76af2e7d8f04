import {
  ALL_PERMISSION_BITS,
  COMMAND_LIMITS,
  COMMAND_NAME_PATTERN,
  CONTEXT_MENU_NAME_PATTERN,
  type Command,
  type CommandBody,
  type CommandOption,
  P,
  parsePermissions,
} from '@parley/protocol';
import { type AppError, badRequest, forbidden, notFound } from '../../errors.js';
import { isId } from '../../ids.js';
import { GLOBAL_SCOPE } from '../../store/repos/interaction-rows.js';
import type { CommandTable, UserTable } from '../../store/schema.js';
import { type ChannelGrant, requireChannelPermission } from '../access.js';
import { type DomainContext, notify, nowIso } from '../context.js';
import { NEEDS, has } from '../permissions.js';
import type { Caller, PublicUser } from '../types.js';

/**
 * A bot's application commands (docs/commands.md): registering them per scope (global, or
 * one server), checking them against Discord's rules, and listing what a person may run in
 * a channel. Invoking one is `invoke.ts`; the bot's answers are `answers.ts`.
 */

const NAME = new RegExp(COMMAND_NAME_PATTERN, 'u');
const CONTEXT_MENU_NAME = new RegExp(CONTEXT_MENU_NAME_PATTERN, 'u');
const STRINGY = new Set(['string', 'integer', 'number']);
const NUMERIC = new Set(['integer', 'number']);

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

export const SUBCOMMANDISH = new Set<string>(['subcommand', 'subcommandGroup']);

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

export type CommandType = CommandTable['type'];

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
export function mayUse(grant: ChannelGrant, command: Pick<CommandTable, 'defaultMemberPermissions'>): boolean {
  if (grant.serverId === null || command.defaultMemberPermissions === null) return true;
  return has(grant.permissions, BigInt(command.defaultMemberPermissions));
}

/** The bot a one-to-one DM is with, if the other recipient is one. */
export async function dmBot(ctx: DomainContext, grant: ChannelGrant, caller: Caller): Promise<UserTable | undefined> {
  const others = (grant.recipients ?? []).filter((id) => id !== caller.id);
  if (others.length !== 1) return undefined;
  const other = await ctx.store.users.byId(ctx.store.db, others[0]!);
  return other?.bot === 1 ? other : undefined;
}
