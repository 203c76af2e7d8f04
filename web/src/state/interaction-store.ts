/**
 * Commands and interactions (docs/commands.md) as the web client holds them, apart from the
 * shared store: each channel's commands (`GET /channels/{id}/commands`, refetched on
 * `COMMANDS_UPDATE`), the interactions this person made that wait for their bot, and the
 * ephemeral messages they were answered with (never in history: they live here for the
 * session, until dismissed). A small external store, read with `useInteractions`.
 *
 * An interaction waits until its bot answers: `INTERACTION_SUCCESS`, a message made by it
 * (`message.interaction.id`), or, for a click, an update of the clicked message. It fails
 * on `INTERACTION_FAILED`, or when nothing came within the window (3 s, and a little for
 * the network): the UI then says "The bot did not respond".
 *
 * A bot may answer with a modal (`INTERACTION_MODAL`): the tab that made the interaction
 * shows it (`modal`), and submitting it is another interaction, waited for the same way.
 * User and message commands run from the "Apps" menu of a member or a message.
 */
import { useSyncExternalStore } from 'react';
import { t } from '../i18n';
import { api, describeError, seg } from '../api/client';
import type {
  Channel,
  Command,
  CommandChoice,
  CommandOptionValues,
  CreateInteractionBody,
  InteractionAccepted,
  InteractionModalEvent,
  InteractionStateEvent,
  Message,
  ModalField,
} from '../api/types';

/** The bot's window is 3 s; the client gives the server's own verdict a moment more to arrive. */
export const RESPONSE_WINDOW_MS = 3_000;
const GRACE_MS = 400;

export interface ChannelCommands {
  /** Grouped by bot, then by name; null until loaded. */
  items: Command[] | null;
  loading: boolean;
  error: string | null;
}

export interface PendingInteraction {
  /** A local key (the interaction's id is known only once the POST answers). */
  key: number;
  id: string | null;
  kind: 'command' | 'component';
  channelId: string;
  /** Components: the message and the clicked button or select. */
  messageId?: string;
  customId?: string;
  /** Commands: what was run, and whose bot it is. */
  command?: { name: string; botId: string; botName: string; botAvatar?: string | null; contextMenu?: boolean };
  status: 'pending' | 'failed';
  /** Why it failed, when the service refused it (otherwise: the bot did not respond). */
  error?: string;
}

/** A modal a bot answered one of this tab's interactions with, open until submitted or closed. */
export interface OpenModal extends InteractionModalEvent {
  /** What the submit waits as: the command, or the click, the modal answered. */
  origin: Omit<PendingInteraction, 'key' | 'id' | 'status' | 'error'>;
}

interface InteractionsState {
  commands: Record<string, ChannelCommands>;
  pending: PendingInteraction[];
  /** Ephemeral messages by channel, oldest first. */
  ephemeral: Record<string, Message[]>;
  /** The modal shown, if any (one at a time, as on Discord). */
  modal: OpenModal | null;
}

let state: InteractionsState = { commands: {}, pending: [], ephemeral: {}, modal: null };
const listeners = new Set<() => void>();

function set(next: Partial<InteractionsState>): void {
  state = { ...state, ...next };
  for (const l of listeners) l();
}

function subscribe(l: () => void): () => void {
  listeners.add(l);
  return () => listeners.delete(l);
}

export function getInteractions(): InteractionsState {
  return state;
}

/** Read a slice; re-renders when that slice changes identity. */
export function useInteractions<T>(selector: (s: InteractionsState) => T): T {
  return useSyncExternalStore(subscribe, () => selector(state));
}

/** Forget everything (logout). */
export function resetInteractions(): void {
  for (const t of timers.values()) clearTimeout(t);
  timers.clear();
  settledEarly.clear();
  earlyModals.clear();
  state = { commands: {}, pending: [], ephemeral: {}, modal: null };
  for (const l of listeners) l();
}

// ---------------------------------------------------------------------------
// Commands

const byBotThenName = (a: Command, b: Command) =>
  (a.bot?.name ?? a.botId).localeCompare(b.bot?.name ?? b.botId, undefined, { sensitivity: 'base' }) ||
  a.botId.localeCompare(b.botId) ||
  a.name.localeCompare(b.name);

const loadingCommands = new Map<string, Promise<void>>();

/** Load (once, or again with `force`) the commands the person may use in the channel. */
export function loadCommands(channelId: string, force = false): Promise<void> {
  const held = state.commands[channelId];
  if (!force && held && (held.items || held.loading)) return loadingCommands.get(channelId) ?? Promise.resolve();
  const p = (async () => {
    set({ commands: { ...state.commands, [channelId]: { items: held?.items ?? null, loading: true, error: null } } });
    try {
      const items = await api.get<Command[]>(`/channels/${seg(channelId)}/commands`);
      set({ commands: { ...state.commands, [channelId]: { items: [...items].sort(byBotThenName), loading: false, error: null } } });
    } catch (err) {
      set({ commands: { ...state.commands, [channelId]: { items: held?.items ?? null, loading: false, error: describeError(err) } } });
    } finally {
      loadingCommands.delete(channelId);
    }
  })();
  loadingCommands.set(channelId, p);
  return p;
}

/** `COMMANDS_UPDATE`: some bot's commands changed; the lists held are fetched again. */
function commandsChanged(): void {
  const held = Object.keys(state.commands);
  set({ commands: {} });
  for (const channelId of held) void loadCommands(channelId);
}

/** The bot's suggestions for the option being typed (an empty list when it gave none in time). */
/**
 * A command as the palette offers it and the form fills it in: a command without
 * subcommands, or one subcommand of it (inside its group, when in one), whose options are
 * that subcommand's (docs/commands.md#subcommands).
 */
export interface RunnableCommand extends Command {
  subcommandGroup?: string;
  subcommand?: string;
}

/** What is typed after `/` to run it: `config`, `config show`, `config role add`. */
export function runnableName(c: RunnableCommand): string {
  return [c.name, c.subcommandGroup, c.subcommand].filter((x) => x !== undefined).join(' ');
}

/** A command, or each of its subcommands, as the palette lists them (user and message commands are in the "Apps" menu instead). */
export function expandCommand(c: Command): RunnableCommand[] {
  if ((c.type ?? 'chat') !== 'chat') return [];
  if (!c.options.some((o) => o.type === 'subcommand' || o.type === 'subcommandGroup')) return [c];
  const out: RunnableCommand[] = [];
  for (const o of c.options) {
    if (o.type === 'subcommand') out.push({ ...c, description: o.description, options: o.options ?? [], subcommand: o.name });
    else if (o.type === 'subcommandGroup')
      for (const sub of o.options ?? [])
        out.push({ ...c, description: sub.description, options: sub.options ?? [], subcommandGroup: o.name, subcommand: sub.name });
  }
  return out;
}

/** The path fields of an interaction body. */
function pathOf(c: RunnableCommand): { subcommandGroup?: string; subcommand?: string } {
  return {
    ...(c.subcommandGroup !== undefined ? { subcommandGroup: c.subcommandGroup } : {}),
    ...(c.subcommand !== undefined ? { subcommand: c.subcommand } : {}),
  };
}

export async function autocomplete(
  channelId: string,
  command: RunnableCommand,
  options: CommandOptionValues,
  focused: string,
  signal?: AbortSignal,
): Promise<CommandChoice[]> {
  const body: CreateInteractionBody = {
    type: 'autocomplete',
    botId: command.botId,
    name: command.name,
    ...pathOf(command),
    options,
    focused,
  };
  const answer = await api.post<InteractionAccepted>(`/channels/${seg(channelId)}/interactions`, body, { signal, noRetry: true });
  return answer?.choices ?? [];
}

// ---------------------------------------------------------------------------
// Waiting for the bot

let nextKey = 1;
const timers = new Map<number, ReturnType<typeof setTimeout>>();
/** What became of interactions whose news arrived before their POST answered with the id. */
const settledEarly = new Map<string, 'success' | 'failed'>();
/** Modals that arrived before their POST answered with the id (another tab's are never claimed). */
const earlyModals = new Map<string, InteractionModalEvent>();

function update(key: number, fn: (p: PendingInteraction) => PendingInteraction | null): void {
  const idx = state.pending.findIndex((p) => p.key === key);
  const current = state.pending[idx];
  if (!current) return;
  const next = fn(current);
  if (next === current) return;
  if (next?.status !== 'pending') {
    clearTimeout(timers.get(key));
    timers.delete(key);
  }
  set({ pending: next ? state.pending.map((p, i) => (i === idx ? next : p)) : state.pending.filter((_, i) => i !== idx) });
}

const answered = (key: number) => update(key, () => null);
const failed = (key: number, error?: string) =>
  update(key, (p) => (p.status === 'failed' && !error ? p : { ...p, status: 'failed', error }));

/** Posts the interaction and waits for its bot; the returned key names it in `pending`. */
async function invoke(entry: Omit<PendingInteraction, 'key' | 'id' | 'status'>, body: CreateInteractionBody): Promise<number> {
  const key = nextKey++;
  // A newer click on the same component replaces an older failure.
  const stale = state.pending.filter(
    (p) => p.kind === 'component' && p.status === 'failed' && p.messageId === entry.messageId && p.customId === entry.customId,
  );
  set({ pending: [...state.pending.filter((p) => !stale.includes(p)), { ...entry, key, id: null, status: 'pending' }] });
  timers.set(
    key,
    setTimeout(() => failed(key), RESPONSE_WINDOW_MS + GRACE_MS),
  );
  let accepted: InteractionAccepted;
  try {
    accepted = await api.post<InteractionAccepted>(`/channels/${seg(entry.channelId)}/interactions`, body);
  } catch (err) {
    answered(key);
    throw err;
  }
  const early = settledEarly.get(accepted.id);
  settledEarly.delete(accepted.id);
  const modal = earlyModals.get(accepted.id);
  earlyModals.delete(accepted.id);
  if (modal) openModal(modal, entry);
  if (early === 'success' || modal) answered(key);
  else if (early === 'failed') failed(key);
  else update(key, (p) => ({ ...p, id: accepted.id }));
  return key;
}

/** Runs a command: the composer's form calls it; refusals (a bad option) are thrown for the form to show. */
export async function runCommand(channel: Channel, command: RunnableCommand, options: CommandOptionValues): Promise<void> {
  const body: CreateInteractionBody = { type: 'command', botId: command.botId, name: command.name, ...pathOf(command) };
  if (Object.keys(options).length) body.options = options;
  await invoke(
    {
      kind: 'command',
      channelId: channel.id,
      command: {
        name: command.name,
        botId: command.botId,
        botName: command.bot?.name ?? t('commands.theBot'),
        botAvatar: command.bot?.avatar,
      },
    },
    body,
  );
}

/**
 * Runs a user or message command (the "Apps" menu) on its target: a member's id, or a
 * message of the channel. The answer shows as a slash command's does; a refusal is thrown.
 */
export async function runContextCommand(channelId: string, command: Command, targetId: string): Promise<void> {
  const commandType = command.type === 'message' ? 'message' : 'user';
  await invoke(
    {
      kind: 'command',
      channelId,
      command: {
        name: command.name,
        botId: command.botId,
        botName: command.bot?.name ?? t('commands.theBot'),
        botAvatar: command.bot?.avatar,
        contextMenu: true,
      },
    },
    { type: 'command', botId: command.botId, name: command.name, commandType, targetId },
  );
}

/** The user or message commands the person may run in the channel (loaded with the slash commands). */
export function contextCommandsOf(channelId: string, type: 'user' | 'message'): Command[] {
  return (state.commands[channelId]?.items ?? []).filter((c) => c.type === type);
}

function openModal(event: InteractionModalEvent, origin: OpenModal['origin']): void {
  set({ modal: { ...event, origin } });
}

/** Closes the modal without submitting it (Escape, Cancel): the bot hears nothing, as on Discord. */
export function closeModal(): void {
  if (state.modal) set({ modal: null });
}

/**
 * Submits the open modal: a `modalSubmit` interaction, waited for like the command or click
 * it answered. A refusal (a value the service finds wrong) is thrown for the form to show,
 * and the modal stays open.
 */
export async function submitModal(fields: ModalField[]): Promise<void> {
  const open = state.modal;
  if (!open) return;
  await invoke(open.origin, { type: 'modalSubmit', interactionId: open.id, customId: open.modal.customId, fields });
  if (state.modal === open) set({ modal: null });
}

/** A click on a button, or a choice in a select: a refusal shows where the component is. */
export async function pressComponent(message: Message, customId: string, values?: string[]): Promise<void> {
  const body: CreateInteractionBody = { type: 'component', messageId: message.id, customId };
  if (values) body.values = values;
  const entry = { kind: 'component' as const, channelId: message.channelId, messageId: message.id, customId };
  try {
    await invoke(entry, body);
  } catch (err) {
    const key = nextKey++;
    set({ pending: [...state.pending, { ...entry, key, id: null, status: 'failed', error: describeError(err) }] });
  }
}

/** Hides a failure ("The bot did not respond") once read. */
export function dismissPending(key: number): void {
  answered(key);
}

function settle(id: string, outcome: 'success' | 'failed'): void {
  const p = state.pending.find((x) => x.id === id);
  if (!p) {
    // The POST has not answered yet (or this is another tab's interaction: forgotten soon).
    settledEarly.set(id, outcome);
    if (settledEarly.size > 100) settledEarly.delete(settledEarly.keys().next().value as string);
    return;
  }
  if (outcome === 'success') answered(p.key);
  else failed(p.key);
}

/** A message arrived or changed: it may be the answer an interaction waits for. */
function messageArrived(message: Message, updated: boolean): void {
  if (message.interaction) settle(message.interaction.id, 'success');
  if (!updated) return;
  for (const p of state.pending) {
    if (p.kind === 'component' && p.status === 'pending' && p.messageId === message.id) answered(p.key);
  }
}

// ---------------------------------------------------------------------------
// Ephemeral messages

function upsertEphemeral(message: Message): void {
  const list = state.ephemeral[message.channelId] ?? [];
  const idx = list.findIndex((m) => m.id === message.id);
  // An edit carries the whole message (see applyEvent's MESSAGE_UPDATE).
  const next =
    idx >= 0 ? list.map((m, i) => (i === idx ? { ...m, components: undefined, loading: undefined, ...message } : m)) : [...list, message];
  set({ ephemeral: { ...state.ephemeral, [message.channelId]: next } });
}

/** Removes an ephemeral message: dismissed by the person, or deleted by its bot. */
export function dismissEphemeral(channelId: string, messageId: string): void {
  const list = state.ephemeral[channelId];
  if (!list?.some((m) => m.id === messageId)) return;
  set({ ephemeral: { ...state.ephemeral, [channelId]: list.filter((m) => m.id !== messageId) } });
}

/** Whether a message is one of this session's ephemeral ones. */
export function isEphemeral(channelId: string, messageId: string): boolean {
  return !!state.ephemeral[channelId]?.some((m) => m.id === messageId);
}

// ---------------------------------------------------------------------------
// Gateway events

/**
 * Applies the events of this area. Returns true when the event was an ephemeral message's,
 * which the shared store (history, unread counts, notifications) must not see.
 */
export function applyInteractionEvent(event: { t: string; d: unknown }): boolean {
  switch (event.t) {
    case 'INTERACTION_SUCCESS':
      settle((event.d as InteractionStateEvent).id, 'success');
      return false;
    case 'INTERACTION_FAILED':
      settle((event.d as InteractionStateEvent).id, 'failed');
      return false;
    case 'COMMANDS_UPDATE':
      commandsChanged();
      return false;
    case 'INTERACTION_MODAL': {
      const d = event.d as InteractionModalEvent;
      const p = state.pending.find((x) => x.id === d.id);
      if (p) {
        openModal(d, { kind: p.kind, channelId: p.channelId, messageId: p.messageId, customId: p.customId, command: p.command });
        answered(p.key);
      } else {
        // The POST has not answered yet, or another tab of this person made it (never claimed there).
        earlyModals.set(d.id, d);
        if (earlyModals.size > 20) earlyModals.delete(earlyModals.keys().next().value as string);
      }
      return false;
    }
    case 'MESSAGE_CREATE':
    case 'MESSAGE_UPDATE': {
      const message = event.d as Message;
      messageArrived(message, event.t === 'MESSAGE_UPDATE');
      if (message.ephemeral || isEphemeral(message.channelId, message.id)) {
        upsertEphemeral(message);
        return true;
      }
      return false;
    }
    case 'MESSAGE_DELETE': {
      const d = event.d as { id: string; channelId: string };
      if (!isEphemeral(d.channelId, d.id)) return false;
      dismissEphemeral(d.channelId, d.id);
      return true;
    }
    default:
      return false;
  }
}
