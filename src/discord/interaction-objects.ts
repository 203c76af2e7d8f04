/**
 * Commands and interactions in Discord's shape, both ways: Parley's `Command` and
 * `Interaction` (docs/commands.md) as Discord's application commands and `INTERACTION_CREATE`,
 * and Discord's command bodies and callback types as Parley's. Pure functions; the routes
 * (`rest/commands-and-callbacks.ts`, `rest/interaction-webhooks.ts`) and the gateway use them.
 */
import {
  type Command,
  CommandBody as CommandBodySchema,
  type CommandBody,
  type CommandOption,
  type CommandOptionType,
  type Interaction,
  type Message,
  type Modal,
  Modal as ModalSchema,
  PatchCommandBody,
  WIRE_SCHEMAS,
} from '@parley/protocol';
import type { TSchema } from 'typebox';
import { Compile, type Validator } from 'typebox/compile';
import { AppError } from '../errors.js';
import {
  type DiscordView,
  INTERACTION_TYPE,
  discordAttachment,
  discordChannelType,
  discordMessage,
  discordRole,
  discordUser,
} from './objects.js';

/** Discord's option types for Parley's. */
export const OPTION_TYPE: Record<CommandOptionType, number> = {
  subcommand: 1,
  subcommandGroup: 2,
  string: 3,
  integer: 4,
  boolean: 5,
  user: 6,
  channel: 7,
  role: 8,
  number: 10,
  attachment: 11,
};
const OPTION_TYPE_NAME = new Map(Object.entries(OPTION_TYPE).map(([k, v]) => [v, k as CommandOptionType]));

/** Discord's application command types: 1 chat input, 2 user, 3 message. */
export const COMMAND_TYPE = { chat: 1, user: 2, message: 3 } as const;
const COMMAND_TYPE_NAME = new Map(Object.entries(COMMAND_TYPE).map(([k, v]) => [v as number, k as keyof typeof COMMAND_TYPE]));

/** Discord's callback types → Parley's. */
export const CALLBACK_TYPE: Record<number, string> = {
  4: 'message',
  5: 'deferred',
  6: 'deferredUpdate',
  7: 'update',
  8: 'autocomplete',
  9: 'modal',
};

/** A command as Discord's application command (type 1, chat input). */
export function discordCommand(c: Command) {
  return {
    id: c.id,
    application_id: c.botId,
    ...(c.serverId ? { guild_id: c.serverId } : {}),
    type: COMMAND_TYPE[c.type],
    name: c.name,
    name_localizations: c.nameLocalizations ?? null,
    description: c.description,
    description_localizations: c.descriptionLocalizations ?? null,
    options: c.options.map(discordOption),
    default_member_permissions: c.defaultMemberPermissions,
    dm_permission: c.serverId === null,
    nsfw: false,
    // Kept as registered (docs/discord.md, "Commands"); where a command is offered is its scope's.
    integration_types: c.integrationTypes ?? [0],
    contexts: c.contexts ?? null,
    version: c.id,
  };
}

function discordOption(o: CommandOption): Record<string, unknown> {
  return {
    type: OPTION_TYPE[o.type],
    name: o.name,
    description: o.description,
    ...(o.required !== undefined ? { required: o.required } : {}),
    ...(o.choices ? { choices: o.choices } : {}),
    ...(o.autocomplete !== undefined ? { autocomplete: o.autocomplete } : {}),
    ...(o.minValue !== undefined ? { min_value: o.minValue } : {}),
    ...(o.maxValue !== undefined ? { max_value: o.maxValue } : {}),
    ...(o.minLength !== undefined ? { min_length: o.minLength } : {}),
    ...(o.maxLength !== undefined ? { max_length: o.maxLength } : {}),
    ...(o.options !== undefined ? { options: o.options.map(discordOption) } : {}),
  };
}

/** Discord's "Invalid Form Body" for a field. */
function invalid(message: string): AppError {
  return new AppError('invalid_body', message);
}

const str = (v: unknown, field: string): string => {
  if (typeof v !== 'string') throw invalid(`${field}: expected a string`);
  return v;
};

const validators = new Map<TSchema, Validator>();
/**
 * Checks a converted body against the native route's own schema (`@parley/protocol`), so
 * the Discord path and the native one refuse the same commands: 400 naming the field.
 */
function asNative<T>(schema: TSchema, value: T): T {
  let v = validators.get(schema);
  if (!v) {
    const context = Object.fromEntries(WIRE_SCHEMAS.map((w) => [`${(w as { $id: string }).$id}#`, w]));
    v = Compile(context, schema) as Validator;
    validators.set(schema, v);
  }
  if (v.Check(value)) return value;
  const first = v.Errors(value)[0];
  const where = (first?.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.');
  throw invalid(`${where || 'body'} ${first?.message ?? 'is invalid'}`);
}

/** The body of a command create or bulk overwrite, as Parley's command body (the native schema checks it; the domain its rules). */
export function commandFromDiscord(body: unknown): CommandBody {
  const p = commandPatchFromDiscord(body);
  const type = p.type ?? 'chat';
  return asNative(CommandBodySchema, {
    ...(type !== 'chat' ? { type } : {}),
    name: str(p.name, 'name'),
    // A user or message command's description is Discord's empty string: none.
    ...(type === 'chat' ? { description: p.description ?? '' } : p.description ? { description: p.description } : {}),
    options: p.options ?? [],
    defaultMemberPermissions: p.defaultMemberPermissions ?? null,
    ...(p.nameLocalizations !== undefined ? { nameLocalizations: p.nameLocalizations } : {}),
    ...(p.descriptionLocalizations !== undefined ? { descriptionLocalizations: p.descriptionLocalizations } : {}),
    ...(p.contexts !== undefined ? { contexts: p.contexts } : {}),
    ...(p.integrationTypes !== undefined ? { integrationTypes: p.integrationTypes } : {}),
  });
}

/** The body of a command edit: only the fields it gives (the domain keeps the rest). */
export function commandPatchFromDiscord(body: unknown): Partial<CommandBody> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalid('expected an application command object');
  const b = body as Record<string, unknown>;
  const type = b.type === undefined ? undefined : COMMAND_TYPE_NAME.get(b.type as number);
  if (b.type !== undefined && !type) throw invalid('type: only chat input (1), user (2) and message (3) commands are supported');
  if (b.options !== undefined && b.options !== null && !Array.isArray(b.options)) throw invalid('options: expected an array');
  const perms = b.default_member_permissions;
  const contextMenu = type === 'user' || type === 'message';
  return asNative(PatchCommandBody, {
    ...(type ? { type } : {}),
    ...(b.name !== undefined ? { name: str(b.name, 'name') } : {}),
    ...(b.description !== undefined && !(contextMenu && b.description === '') ? { description: str(b.description, 'description') } : {}),
    ...(b.options !== undefined && !(contextMenu && (b.options === null || (b.options as unknown[]).length === 0))
      ? { options: ((b.options as unknown[] | null) ?? []).map((o, i) => optionFromDiscord(o, i)) }
      : {}),
    ...(perms !== undefined ? { defaultMemberPermissions: perms === null ? null : String(perms) } : {}),
    // Kept and returned as given (the native schema checks their shape).
    ...(b.name_localizations !== undefined ? { nameLocalizations: b.name_localizations } : {}),
    ...(b.description_localizations !== undefined ? { descriptionLocalizations: b.description_localizations } : {}),
    ...(b.contexts !== undefined ? { contexts: b.contexts } : {}),
    ...(b.integration_types !== undefined ? { integrationTypes: b.integration_types } : {}),
  }) as Partial<CommandBody>;
}

/** One option, and a subcommand's or group's own (nested as Discord nests them; the domain checks how). */
function optionFromDiscord(v: unknown, i: number, at = 'options'): CommandOption {
  const where = `${at}.${i}`;
  if (typeof v !== 'object' || v === null) throw invalid(`${where}: expected an object`);
  const o = v as Record<string, unknown>;
  const type = OPTION_TYPE_NAME.get(o.type as number);
  if (!type) throw invalid(`${where}.type: option type ${String(o.type)} is not supported`);
  if (o.options !== undefined && o.options !== null && !Array.isArray(o.options)) throw invalid(`${where}.options: expected an array`);
  const inner = Array.isArray(o.options) ? o.options : undefined;
  return {
    type,
    name: str(o.name, `${where}.name`),
    description: str(o.description, `${where}.description`),
    ...(typeof o.required === 'boolean' ? { required: o.required } : {}),
    ...(Array.isArray(o.choices)
      ? { choices: o.choices.map((c: { name: string; value: string | number }) => ({ name: c.name, value: c.value })) }
      : {}),
    ...(typeof o.autocomplete === 'boolean' ? { autocomplete: o.autocomplete } : {}),
    ...(typeof o.min_value === 'number' ? { minValue: o.min_value } : {}),
    ...(typeof o.max_value === 'number' ? { maxValue: o.max_value } : {}),
    ...(typeof o.min_length === 'number' ? { minLength: o.min_length } : {}),
    ...(typeof o.max_length === 'number' ? { maxLength: o.max_length } : {}),
    // Discord lists `options: []` on a subcommand without options; a value option's empty list is dropped.
    ...(inner && (inner.length > 0 || type === 'subcommand' || type === 'subcommandGroup')
      ? { options: inner.map((x, j) => optionFromDiscord(x, j, `${where}.options`)) }
      : {}),
  };
}

/**
 * A modal callback's `data` (Discord's `{custom_id, title, components: [action rows of text
 * inputs]}`) as Parley's modal; the native schema checks its limits (50035 naming the field).
 * Discord's newer label component (type 18, holding one text input) is read as a row.
 */
export function modalFromDiscord(data: unknown): Modal {
  if (typeof data !== 'object' || data === null) throw invalid('data: expected a modal');
  const d = data as Record<string, unknown>;
  if (!Array.isArray(d.components)) throw invalid('data.components: expected an array of action rows');
  const components = d.components.map((row: unknown, i: number) => {
    const where = `data.components.${i}`;
    const r = (typeof row === 'object' && row !== null ? row : {}) as Record<string, unknown>;
    let input: Record<string, unknown>;
    let label = r.label;
    if (r.type === 18) {
      input = (typeof r.component === 'object' && r.component !== null ? r.component : {}) as Record<string, unknown>;
    } else {
      if (r.type !== 1) throw invalid(`${where}.type: expected an action row (1)`);
      if (!Array.isArray(r.components) || r.components.length !== 1)
        throw invalid(`${where}.components: an action row of a modal holds one text input`);
      input = (r.components[0] ?? {}) as Record<string, unknown>;
      label = input.label;
    }
    if (input.type !== 4) throw invalid(`${where}.components.0.type: only text inputs (4) go in a modal`);
    const style = input.style === 1 ? 'short' : input.style === 2 ? 'paragraph' : undefined;
    if (!style) throw invalid(`${where}.components.0.style: 1 (short) or 2 (paragraph)`);
    return {
      type: 'row' as const,
      components: [
        {
          type: 'textInput' as const,
          customId: str(input.custom_id, `${where}.components.0.custom_id`),
          style,
          label: str(label, `${where}.components.0.label`),
          ...(input.min_length !== undefined && input.min_length !== null ? { minLength: input.min_length as number } : {}),
          ...(input.max_length !== undefined && input.max_length !== null ? { maxLength: input.max_length as number } : {}),
          ...(typeof input.required === 'boolean' ? { required: input.required } : {}),
          ...(input.value !== undefined && input.value !== null ? { value: input.value as string } : {}),
          ...(input.placeholder !== undefined && input.placeholder !== null ? { placeholder: input.placeholder as string } : {}),
        },
      ],
    };
  });
  return asNative(ModalSchema, { customId: str(d.custom_id, 'data.custom_id'), title: str(d.title, 'data.title'), components } as Modal);
}

/** An option's Discord type: the declared one the interaction carries (a value's own kind only if it has none). */
function optionType(i: Interaction, name: string, v: string | number | boolean): number {
  const declared = i.optionTypes?.[name];
  if (declared) return OPTION_TYPE[declared];
  if (typeof v === 'boolean') return OPTION_TYPE.boolean;
  if (typeof v === 'number') return Number.isInteger(v) ? OPTION_TYPE.integer : OPTION_TYPE.number;
  return OPTION_TYPE.string;
}

/** An option's value on Discord's wire: an attachment is named by its id (the upload's), the rest as given. */
function optionValue(i: Interaction, name: string, v: string | number | boolean, view: DiscordView): string | number | boolean {
  if (i.optionTypes?.[name] !== 'attachment' || typeof v !== 'string') return v;
  const a = i.resolved?.attachments?.[v];
  return a ? discordAttachment(a, view).id : v;
}

/** Discord's `data.resolved` from the interaction's: users, members (without `user`), channels, roles, attachments by id. */
function discordResolved(i: Interaction, view: DiscordView) {
  const r = i.resolved;
  if (!r) return undefined;
  const map = <T, U>(rec: Record<string, T> | undefined, f: (v: T, k: string) => U) =>
    rec ? Object.fromEntries(Object.entries(rec).map(([k, v]) => [k, f(v, k)])) : undefined;
  const out = {
    users: map(r.users, (u) => discordUser(u)),
    members: map(r.members, (m) => ({
      roles: m.roles,
      joined_at: m.joinedAt,
      permissions: m.permissions ?? '0',
      nick: null,
      avatar: null,
      premium_since: null,
      pending: false,
      flags: 0,
      communication_disabled_until: null,
    })),
    channels: map(r.channels, (c) => ({
      id: c.id,
      name: c.name,
      type: discordChannelType(c.type),
      ...(c.serverId ? { guild_id: c.serverId } : {}),
      permissions: c.permissions,
      parent_id: c.parentId ?? null,
      flags: 0,
    })),
    roles: map(r.roles, (role) => discordRole(role)),
    messages: map(r.messages, (m) => discordMessage(m as Message, view)),
    attachments: r.attachments
      ? Object.fromEntries(
          Object.values(r.attachments).map((a) => {
            const d = discordAttachment(a, view);
            return [d.id, d];
          }),
        )
      : undefined,
  };
  return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== undefined));
}

/**
 * The values inside their subcommand, and that inside its group, as Discord nests them:
 * `[{type: 1, name, options}]` or `[{type: 2, name, options: [{type: 1, name, options}]}]`.
 */
function nestOptions(i: Interaction, values: Record<string, unknown>[]): Record<string, unknown>[] {
  if (i.subcommand === undefined) return values;
  const sub = [{ type: OPTION_TYPE.subcommand, name: i.subcommand, options: values }];
  return i.subcommandGroup === undefined ? sub : [{ type: OPTION_TYPE.subcommandGroup, name: i.subcommandGroup, options: sub }];
}

export interface InteractionContext extends DiscordView {
  /** The bot's permissions in the channel (`app_permissions`), from the one permission function. */
  appPermissions: string;
}

/** An interaction as Discord's `INTERACTION_CREATE` payload (and an HTTP endpoint's body). */
export function discordInteraction(i: Interaction, view: InteractionContext) {
  const type = INTERACTION_TYPE[i.type];
  let data: Record<string, unknown>;
  if (i.type === 'component') {
    data = { custom_id: i.customId, component_type: i.values ? 3 : 2, ...(i.values ? { values: i.values } : {}) };
  } else if (i.type === 'modalSubmit') {
    data = {
      custom_id: i.customId,
      components: (i.fields ?? []).map((f) => ({ type: 1, components: [{ type: 4, custom_id: f.customId, value: f.value }] })),
    };
  } else if (i.commandType === 'user' || i.commandType === 'message') {
    data = {
      id: i.commandId,
      name: i.name,
      type: COMMAND_TYPE[i.commandType],
      ...(i.serverId ? { guild_id: i.serverId } : {}),
      target_id: i.targetId,
    };
    const resolved = discordResolved(i, view);
    if (resolved) data.resolved = resolved;
  } else {
    data = {
      id: i.commandId,
      name: i.name,
      type: 1,
      ...(i.serverId ? { guild_id: i.serverId } : {}),
      options: nestOptions(
        i,
        Object.entries(i.options ?? {}).map(([name, value]) => ({
          name,
          type: optionType(i, name, value),
          value: optionValue(i, name, value, view),
          ...(i.focused === name ? { focused: true } : {}),
        })),
      ),
    };
    const resolved = discordResolved(i, view);
    if (resolved) data.resolved = resolved;
  }
  const user = discordUser(i.user);
  return {
    id: i.id,
    application_id: i.botId,
    type,
    data,
    ...(i.serverId
      ? {
          guild_id: i.serverId,
          guild: { id: i.serverId, locale: 'en-US', features: [] },
          guild_locale: 'en-US',
          member: {
            user,
            roles: i.member?.roles ?? [],
            permissions: i.member?.permissions ?? '0',
            joined_at: i.member?.joinedAt ?? i.createdAt,
            deaf: false,
            mute: false,
            flags: 0,
            nick: null,
            avatar: null,
          },
        }
      : { user }),
    channel_id: i.channelId,
    // In a thread, the thread (Discord's type 11 or 12, with its parent).
    channel: i.thread
      ? { id: i.channelId, type: i.thread.type === 'private_thread' ? 12 : 11, guild_id: i.serverId, parent_id: i.thread.parentId }
      : { id: i.channelId, type: i.serverId ? 0 : 1, ...(i.serverId ? { guild_id: i.serverId } : {}) },
    ...(i.message ? { message: discordMessage(i.message as Message, view) } : {}),
    token: i.token,
    version: 1,
    app_permissions: view.appPermissions,
    locale: 'en-US',
    entitlements: [],
    authorizing_integration_owners: { 0: i.serverId ?? '0' },
    context: i.serverId ? 0 : 1,
    attachment_size_limit: 25 * 1024 * 1024,
  };
}
