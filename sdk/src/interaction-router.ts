import { ParleyApiError } from './errors.js';
import type { RestClient } from './rest.js';
import type {
  ActionRow,
  Button,
  CommandBody,
  CommandChoice,
  CommandOptionBody,
  Interaction,
  InteractionCallbackBody,
  InteractionMember,
  InteractionMessageBody,
  Message,
  MessageAuthor,
  Modal,
  Select,
  SelectOption,
  TextInput,
} from './types.js';

/**
 * Commands, components and their interactions (docs/commands.md).
 * An `InteractionRouter` holds command definitions and handlers; `ParleyBot` uses one for
 * interactions from the gateway, `createInteractionsHandler` (node only) for those POSTed
 * to an HTTP endpoint. Handlers receive an `InteractionContext` whose `reply`, `defer`,
 * `update` and `autocomplete` are the one callback, and `followUp` / `editOriginal` what
 * comes after it.
 */

/** What a message answering an interaction may carry; a string is its content. */
export type ReplyInput = string | InteractionMessageBody;

const asBody = (input: ReplyInput): InteractionMessageBody => (typeof input === 'string' ? { content: input } : input);

/** How a context sends its one callback: REST (gateway bots) or the HTTP response (HTTP bots). */
export type CallbackSender = (body: InteractionCallbackBody) => Promise<void>;

/** One interaction, with what answers it. */
export class InteractionContext {
  /** Whether the one callback was sent (a second one is refused by the service). */
  acknowledged = false;

  constructor(
    readonly raw: Interaction,
    readonly rest: RestClient,
    private readonly send: CallbackSender,
  ) {}

  get id(): string {
    return this.raw.id;
  }
  get type(): Interaction['type'] {
    return this.raw.type;
  }
  /** The person who ran the command or clicked. */
  get user(): MessageAuthor {
    return this.raw.user;
  }
  get channelId(): string {
    return this.raw.channelId;
  }
  get serverId(): string | null {
    return this.raw.serverId;
  }
  /** The command's name (commands and autocomplete). */
  get commandName(): string | undefined {
    return this.raw.name;
  }
  /** The command's type: `chat` (from the message box), `user` or `message` (from the "Apps" menu). */
  get commandType(): 'chat' | 'user' | 'message' | undefined {
    if (this.raw.type !== 'command') return undefined;
    return this.raw.commandType ?? 'chat';
  }
  /** A user or message command's target: the member's or the message's id. */
  get targetId(): string | undefined {
    return this.raw.targetId;
  }
  /** A user command's target user. */
  get targetUser(): MessageAuthor | undefined {
    return this.raw.commandType === 'user' && this.raw.targetId ? this.raw.resolved?.users?.[this.raw.targetId] : undefined;
  }
  /** A user command's target as a member of the server (roles, joinedAt, permissions in the channel). */
  get targetMember(): InteractionMember | undefined {
    return this.raw.commandType === 'user' && this.raw.targetId ? this.raw.resolved?.members?.[this.raw.targetId] : undefined;
  }
  /** A message command's target message. */
  get targetMessage(): Message | undefined {
    return this.raw.commandType === 'message' && this.raw.targetId ? this.raw.resolved?.messages?.[this.raw.targetId] : undefined;
  }
  /** The clicked component's customId (components), or the submitted modal's (modal submits). */
  get customId(): string | undefined {
    return this.raw.customId;
  }
  /** A modal submit's values by text input customId (an input left empty: `''`). */
  get fields(): Record<string, string> {
    return Object.fromEntries((this.raw.fields ?? []).map((f) => [f.customId, f.value]));
  }
  /** One text input's submitted value (modal submits). */
  field(customId: string): string | undefined {
    return this.raw.fields?.find((f) => f.customId === customId)?.value;
  }
  /** The message clicked: components, and modals shown for a click. */
  get message(): Message | undefined {
    return this.raw.message;
  }
  /** A select's chosen values (components). */
  get values(): string[] {
    return this.raw.values ?? [];
  }
  /** The option being typed (autocomplete). */
  get focused(): string | undefined {
    return this.raw.focused;
  }

  /** The subcommand run, for a command that has them (commands and autocomplete). */
  get subcommand(): string | undefined {
    return this.raw.subcommand;
  }
  /** The group of the subcommand run, when it is in one. */
  get subcommandGroup(): string | undefined {
    return this.raw.subcommandGroup;
  }
  /** The path run: the group (if any) and the subcommand (if any), e.g. `['role', 'add']`; `[]` for a command without subcommands. */
  get subcommandPath(): string[] {
    return [this.raw.subcommandGroup, this.raw.subcommand].filter((x): x is string => x !== undefined);
  }

  /** An option's value, by name (ids for users, channels and roles); inside a subcommand, that subcommand's options. */
  option<T extends string | number | boolean = string | number | boolean>(name: string): T | undefined {
    return this.raw.options?.[name] as T | undefined;
  }

  async #callback(body: InteractionCallbackBody): Promise<void> {
    if (this.acknowledged) throw new Error('this interaction was already answered: use followUp or editOriginal');
    this.acknowledged = true;
    await this.send(body);
  }

  /** Answers with a message (`ephemeral: true`: only the invoker sees it). */
  reply(message: ReplyInput): Promise<void> {
    return this.#callback({ type: 'message', data: asBody(message) });
  }

  /** Answers "thinking…" now; `editOriginal` replaces it within 15 minutes. */
  defer(options: { ephemeral?: boolean } = {}): Promise<void> {
    return this.#callback({ type: 'deferred', ...(options.ephemeral ? { data: { ephemeral: true } } : {}) });
  }

  /** Components: edits the message the component is on. */
  update(message: ReplyInput): Promise<void> {
    return this.#callback({ type: 'update', data: asBody(message) });
  }

  /** Components: acknowledges now, edits later with `editOriginal` (or not at all). */
  deferUpdate(): Promise<void> {
    return this.#callback({ type: 'deferredUpdate' });
  }

  /**
   * Commands and clicks: shows `modal` to the person (the one callback); their submit comes
   * back as a `modalSubmit` interaction, handled by `modal(customId, ...)` handlers.
   */
  showModal(modal: Modal): Promise<void> {
    return this.#callback({ type: 'modal', data: { modal } });
  }

  /** Autocomplete: the suggestions (at most 25). */
  autocomplete(choices: CommandChoice[]): Promise<void> {
    return this.#callback({ type: 'autocomplete', data: { choices: choices.slice(0, 25) } });
  }

  /** Another message, after the callback. */
  followUp(message: ReplyInput): Promise<Message> {
    return afterCallback(() => this.rest.followUp(this.raw.token, asBody(message)));
  }

  /** Edits the original answer (a deferred one's placeholder becomes the message). */
  editOriginal(message: ReplyInput): Promise<Message> {
    return afterCallback(() => this.rest.editOriginal(this.raw.token, asBody(message)));
  }

  deleteOriginal(): Promise<void> {
    return afterCallback(() => this.rest.deleteOriginal(this.raw.token));
  }
}

/**
 * Runs a call that needs the callback to have landed. Over HTTP the callback is the
 * response body, which the service handles just after the bot sent it: a follow-up made
 * at once may arrive first, so `interaction_not_acknowledged` is retried briefly.
 */
async function afterCallback<T>(call: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await call();
    } catch (err) {
      const early = err instanceof ParleyApiError && (err.code === 'interaction_not_acknowledged' || err.code === 'unknown_message');
      if (!early || attempt >= 10) throw err;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** A user or message command's definition: no description or options. */
export interface ContextMenuDefinition {
  /** Members need all of these permissions (a bitfield, decimal) to see and use it. */
  defaultMemberPermissions?: string | null;
}

/** A command's definition: its description and options, as registered. */
export interface CommandDefinition {
  description: string;
  options?: CommandOptionBody[];
  /** Members need all of these permissions (a bitfield, decimal) to see and use it. */
  defaultMemberPermissions?: string | null;
  /** Suggests values for options with `autocomplete: true`. */
  autocomplete?: (interaction: InteractionContext) => CommandChoice[] | Promise<CommandChoice[]>;
}

export type InteractionHandler = (interaction: InteractionContext) => unknown;

/** Which customIds a component handler takes: one, those starting with a prefix (`'vote:'` ending in ':'), or a pattern. */
export type CustomIdMatcher = string | RegExp;

const matches = (match: CustomIdMatcher, id: string) =>
  typeof match === 'string' ? (match.endsWith(':') ? id.startsWith(match) : id === match) : match.test(id);

type CommandKind = 'chat' | 'user' | 'message';

/** Command definitions and the handlers of commands, components and modals, in one place. */
export class InteractionRouter {
  /** By `type/name`: a chat command and a user command may share a name (as on Discord). */
  readonly #commands = new Map<
    string,
    { type: CommandKind; name: string; definition: CommandDefinition | ContextMenuDefinition; handler: InteractionHandler }
  >();
  readonly #components: Array<{ match: CustomIdMatcher; handler: InteractionHandler }> = [];
  readonly #modals: Array<{ match: CustomIdMatcher; handler: InteractionHandler }> = [];

  /** Defines a command and what answers it. */
  command(name: string, definition: CommandDefinition, handler: InteractionHandler): this {
    this.#commands.set(`chat/${name}`, { type: 'chat', name, definition, handler });
    return this;
  }

  /** Defines a user command (a member's "Apps" menu; `targetUser`, `targetMember`) and what answers it. */
  userCommand(name: string, handler: InteractionHandler, definition: ContextMenuDefinition = {}): this {
    this.#commands.set(`user/${name}`, { type: 'user', name, definition, handler });
    return this;
  }

  /** Defines a message command (a message's "Apps" menu; `targetMessage`) and what answers it. */
  messageCommand(name: string, handler: InteractionHandler, definition: ContextMenuDefinition = {}): this {
    this.#commands.set(`message/${name}`, { type: 'message', name, definition, handler });
    return this;
  }

  /** Handles clicks on components whose customId matches (a string ending in ':' is a prefix). */
  component(match: CustomIdMatcher, handler: InteractionHandler): this {
    this.#components.push({ match, handler });
    return this;
  }

  /** Handles submits of modals whose customId matches (`fields`, `field(id)`; a string ending in ':' is a prefix). */
  modal(match: CustomIdMatcher, handler: InteractionHandler): this {
    this.#modals.push({ match, handler });
    return this;
  }

  /** How many commands are defined. */
  get size(): number {
    return this.#commands.size;
  }

  /** The definitions as `PUT /bots/{botId}/commands` takes them (every type in one list). */
  definitions(): CommandBody[] {
    return [...this.#commands.values()].map(({ type, name, definition }) => ({
      ...(type !== 'chat' ? { type } : {}),
      name,
      ...('description' in definition ? { description: definition.description } : {}),
      ...('options' in definition && definition.options ? { options: definition.options } : {}),
      ...(definition.defaultMemberPermissions !== undefined ? { defaultMemberPermissions: definition.defaultMemberPermissions } : {}),
    }));
  }

  /** Registers the definitions (a bulk overwrite): globally, or for one server. */
  register(rest: RestClient, botId: string, serverId?: string) {
    return rest.putCommands(botId, this.definitions(), serverId);
  }

  /** Runs the handler for `interaction`; false when none takes it (the interaction then fails for the person). */
  async dispatch(interaction: InteractionContext): Promise<boolean> {
    const raw = interaction.raw;
    if (raw.type === 'component' || raw.type === 'modalSubmit') {
      const id = raw.customId ?? '';
      const entry = (raw.type === 'component' ? this.#components : this.#modals).find(({ match }) => matches(match, id));
      if (!entry) return false;
      await entry.handler(interaction);
      return true;
    }
    const command = this.#commands.get(`${raw.type === 'command' ? (raw.commandType ?? 'chat') : 'chat'}/${raw.name ?? ''}`);
    if (!command) return false;
    if (raw.type === 'autocomplete') {
      const complete = 'autocomplete' in command.definition ? command.definition.autocomplete : undefined;
      if (!complete) return false;
      await interaction.autocomplete(await complete(interaction));
      return true;
    }
    await command.handler(interaction);
    return true;
  }
}

// ---------------------------------------------------------------- component helpers

/** A button that makes a component interaction (`style` defaults to `primary`). */
export function button(options: {
  customId: string;
  label: string;
  style?: Exclude<Button['style'], 'link'>;
  emoji?: string;
  disabled?: boolean;
}): Button {
  return {
    type: 'button',
    style: options.style ?? 'primary',
    label: options.label,
    customId: options.customId,
    ...(options.emoji ? { emoji: options.emoji } : {}),
    ...(options.disabled ? { disabled: true } : {}),
  };
}

/** A button that opens an http(s) URL (no interaction). */
export function linkButton(options: { url: string; label: string; emoji?: string; disabled?: boolean }): Button {
  return {
    type: 'button',
    style: 'link',
    label: options.label,
    url: options.url,
    ...(options.emoji ? { emoji: options.emoji } : {}),
    ...(options.disabled ? { disabled: true } : {}),
  };
}

/** A select menu (`minValues` and `maxValues` default to 1). */
export function select(options: {
  customId: string;
  options: SelectOption[];
  placeholder?: string;
  minValues?: number;
  maxValues?: number;
  disabled?: boolean;
}): Select {
  return {
    type: 'select',
    customId: options.customId,
    options: options.options,
    ...(options.placeholder !== undefined ? { placeholder: options.placeholder } : {}),
    ...(options.minValues !== undefined ? { minValues: options.minValues } : {}),
    ...(options.maxValues !== undefined ? { maxValues: options.maxValues } : {}),
    ...(options.disabled ? { disabled: true } : {}),
  };
}

/** A row of up to 5 buttons, or one select. */
export function row(...components: Array<Button | Select>): ActionRow {
  return { type: 'row', components };
}

// ---------------------------------------------------------------- modal helpers

/** A text input of a modal (`style` defaults to `short`; `required` to true, as on Discord). */
export function textInput(options: Omit<TextInput, 'type' | 'style'> & { style?: TextInput['style'] }): TextInput {
  return { type: 'textInput', ...options, style: options.style ?? 'short' };
}

/** A modal of up to 5 text inputs, one per row, e.g. `modal({customId: 'report', title: 'Report', inputs: [textInput(...)]})`. */
export function modal(options: { customId: string; title: string; inputs: TextInput[] }): Modal {
  return {
    customId: options.customId,
    title: options.title,
    components: options.inputs.map((input) => ({ type: 'row' as const, components: [input] })),
  };
}
