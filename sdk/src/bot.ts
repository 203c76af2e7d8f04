import { TypedEmitter } from './emitter.js';
import { GatewayClient, type GatewayCloseInfo, type ReconnectOptions, type WebSocketConstructor } from './gateway.js';
import { RestClient, type RestClientOptions } from './rest.js';
import {
  type CommandDefinition,
  type ContextMenuDefinition,
  type CustomIdMatcher,
  type InteractionHandler,
  InteractionContext,
  InteractionRouter,
} from './interaction-router.js';
import type {
  BanEvent,
  RoleDeleteEvent,
  RoleEvent,
  Channel,
  ChannelDeleteEvent,
  DispatchEvent,
  GatewayEventPayloads,
  GatewayEventType,
  MemberEvent,
  MemberUpdateEvent,
  Message,
  MessageDeleteEvent,
  MessageDeleteBulkEvent,
  ChannelPinsEvent,
  ReadState,
  ReactionEvent,
  ReadyData,
  ReadyServer,
  Server,
  TypingStartEvent,
  Thread,
  ThreadDeleteEvent,
  ThreadMemberUpdateEvent,
  ThreadMembersUpdateEvent,
  ThreadListSyncEvent,
  User,
  UserUpdateEvent,
  DmChannel,
  PresenceEvent,
  Interaction,
  InteractionStateEvent,
  InteractionModalEvent,
  CommandsUpdateEvent,
} from './types.js';

/** Events of a `ParleyBot`, with the arguments their handlers receive. */
export interface ParleyBotEvents {
  /** A new gateway session; `bot.user` is set. */
  ready: [ReadyData];
  /** The session was resumed after a dropped connection; missed events came before this. */
  resumed: [];
  messageCreate: [Message];
  messageUpdate: [Message];
  messageDelete: [MessageDeleteEvent];
  /** Several messages of one channel were deleted at once. */
  messageDeleteBulk: [MessageDeleteBulkEvent];
  /** A message was pinned or unpinned. */
  channelPinsUpdate: [ChannelPinsEvent];
  /** The identity's read state of a channel changed (an ack from another of its sessions). */
  readStateUpdate: [ReadState];
  reactionAdd: [ReactionEvent];
  reactionRemove: [ReactionEvent];
  typingStart: [TypingStartEvent];
  channelCreate: [Channel];
  channelUpdate: [Channel];
  channelDelete: [ChannelDeleteEvent];
  /** A thread the bot may see was started, changed (archived, locked, renamed) or deleted (docs/threads.md#events). */
  threadCreate: [Thread];
  threadUpdate: [Thread];
  threadDelete: [ThreadDeleteEvent];
  /** The bot's own membership of a thread changed. */
  threadMemberUpdate: [ThreadMemberUpdateEvent];
  /** People joined or left a thread the bot may see. */
  threadMembersUpdate: [ThreadMembersUpdateEvent];
  /** The bot gained access to channels: their active threads. */
  threadListSync: [ThreadListSyncEvent];
  memberAdd: [MemberEvent];
  memberUpdate: [MemberUpdateEvent];
  memberRemove: [MemberEvent];
  serverUpdate: [Server];
  /** The server was deleted. */
  serverDelete: [{ id: string }];
  roleCreate: [RoleEvent];
  roleUpdate: [RoleEvent];
  roleDelete: [RoleDeleteEvent];
  /** Sent to members who may ban. */
  banAdd: [BanEvent];
  banRemove: [BanEvent];
  /** A person or bot of the bot's servers (or the bot itself) changed their name or avatar. */
  userUpdate: [UserUpdateEvent];
  /** A DM or group with the bot was opened, changed (someone left) or left by the bot. */
  dmCreate: [DmChannel];
  dmUpdate: [DmChannel];
  dmDelete: [DmChannel];
  /** Someone of the bot's servers (not the largest ones) came online, went idle, and so on. */
  presenceUpdate: [PresenceEvent];
  /** A command, click or autocomplete for this bot, as the gateway delivers it (raw; `bot.command` handlers get a wrapped one). */
  interactionCreate: [Interaction];
  /** Only people receive these (about interactions they made); listed for completeness. */
  interactionSuccess: [InteractionStateEvent];
  interactionFailed: [InteractionStateEvent];
  /** Some bot's commands changed in a server of this bot. */
  commandsUpdate: [CommandsUpdateEvent];
  /** Only people receive it (a bot answered their interaction with a modal); listed for completeness. */
  interactionModal: [InteractionModalEvent];
  /** Every gateway event (including types this SDK does not know yet), before its own handler. */
  dispatch: [DispatchEvent];
  /** A fatal gateway close (4001 bad token), a protocol problem, or a handler that threw. */
  error: [Error];
  /** A gateway socket closed; `reconnecting` says whether the bot comes back on its own. */
  close: [GatewayCloseInfo];
  /** A trace of the connection's life, for troubleshooting. */
  debug: [string];
}

/** The handler name of each gateway event type. */
export const EVENT_HANDLER_NAMES = {
  MESSAGE_CREATE: 'messageCreate',
  MESSAGE_UPDATE: 'messageUpdate',
  MESSAGE_DELETE: 'messageDelete',
  MESSAGE_DELETE_BULK: 'messageDeleteBulk',
  CHANNEL_PINS_UPDATE: 'channelPinsUpdate',
  READ_STATE_UPDATE: 'readStateUpdate',
  REACTION_ADD: 'reactionAdd',
  REACTION_REMOVE: 'reactionRemove',
  TYPING_START: 'typingStart',
  CHANNEL_CREATE: 'channelCreate',
  CHANNEL_UPDATE: 'channelUpdate',
  CHANNEL_DELETE: 'channelDelete',
  THREAD_CREATE: 'threadCreate',
  THREAD_UPDATE: 'threadUpdate',
  THREAD_DELETE: 'threadDelete',
  THREAD_MEMBER_UPDATE: 'threadMemberUpdate',
  THREAD_MEMBERS_UPDATE: 'threadMembersUpdate',
  THREAD_LIST_SYNC: 'threadListSync',
  MEMBER_ADD: 'memberAdd',
  MEMBER_UPDATE: 'memberUpdate',
  MEMBER_REMOVE: 'memberRemove',
  SERVER_UPDATE: 'serverUpdate',
  SERVER_DELETE: 'serverDelete',
  ROLE_CREATE: 'roleCreate',
  ROLE_UPDATE: 'roleUpdate',
  ROLE_DELETE: 'roleDelete',
  BAN_ADD: 'banAdd',
  BAN_REMOVE: 'banRemove',
  USER_UPDATE: 'userUpdate',
  DM_CREATE: 'dmCreate',
  DM_UPDATE: 'dmUpdate',
  DM_DELETE: 'dmDelete',
  PRESENCE_UPDATE: 'presenceUpdate',
  INTERACTION_CREATE: 'interactionCreate',
  INTERACTION_SUCCESS: 'interactionSuccess',
  INTERACTION_FAILED: 'interactionFailed',
  COMMANDS_UPDATE: 'commandsUpdate',
  INTERACTION_MODAL: 'interactionModal',
} as const satisfies { [K in GatewayEventType]: keyof ParleyBotEvents };

// Compile-time check: each handler receives exactly its event type's payload.
type HandlerPayloadsMatch = {
  [K in GatewayEventType]: ParleyBotEvents[(typeof EVENT_HANDLER_NAMES)[K]] extends [GatewayEventPayloads[K]] ? true : never;
};
const _handlerPayloadsMatch: HandlerPayloadsMatch = {
  MESSAGE_CREATE: true,
  MESSAGE_UPDATE: true,
  MESSAGE_DELETE: true,
  MESSAGE_DELETE_BULK: true,
  CHANNEL_PINS_UPDATE: true,
  READ_STATE_UPDATE: true,
  REACTION_ADD: true,
  REACTION_REMOVE: true,
  TYPING_START: true,
  CHANNEL_CREATE: true,
  CHANNEL_UPDATE: true,
  CHANNEL_DELETE: true,
  THREAD_CREATE: true,
  THREAD_UPDATE: true,
  THREAD_DELETE: true,
  THREAD_MEMBER_UPDATE: true,
  THREAD_MEMBERS_UPDATE: true,
  THREAD_LIST_SYNC: true,
  MEMBER_ADD: true,
  MEMBER_UPDATE: true,
  MEMBER_REMOVE: true,
  SERVER_UPDATE: true,
  SERVER_DELETE: true,
  ROLE_CREATE: true,
  ROLE_UPDATE: true,
  ROLE_DELETE: true,
  BAN_ADD: true,
  BAN_REMOVE: true,
  USER_UPDATE: true,
  DM_CREATE: true,
  DM_UPDATE: true,
  DM_DELETE: true,
  PRESENCE_UPDATE: true,
  INTERACTION_CREATE: true,
  INTERACTION_SUCCESS: true,
  INTERACTION_FAILED: true,
  COMMANDS_UPDATE: true,
  INTERACTION_MODAL: true,
};
void _handlerPayloadsMatch;

/** Options of `new ParleyBot(...)`. */
export interface ParleyBotOptions {
  /** The service's base URL, e.g. `http://localhost:8080`. */
  baseUrl: string;
  /** The bot's token (shown once when the bot was created). */
  token: string;
  /** Gateway URL; defaults to the base URL with `ws(s)://` and `/gateway`. */
  gatewayUrl?: string;
  /** Gateway reconnect policy, or `false` to stay down after a drop. */
  reconnect?: ReconnectOptions | false;
  /** The gateway's WebSocket class (default: `ws` on Node, else `globalThis.WebSocket`). */
  WebSocket?: WebSocketConstructor;
  /** Extra REST options (retries, timeouts, rate-limit hook). */
  rest?: Omit<RestClientOptions, 'baseUrl' | 'token'>;
}

/**
 * A Parley bot: the REST client (`bot.rest`) plus a gateway connection whose events
 * arrive as typed handlers, e.g. `bot.on('messageCreate', (message) => ...)`.
 */
export class ParleyBot extends TypedEmitter<ParleyBotEvents> {
  readonly rest: RestClient;
  readonly gateway: GatewayClient;
  /** The bot's own account, known once `ready` arrived. */
  user: User | undefined;
  /** The servers (with channels) listed in the last `ready`. */
  servers: ReadyServer[] = [];
  /** Commands and component handlers (`command()`, `component()`). */
  readonly interactions = new InteractionRouter();

  constructor(options: ParleyBotOptions) {
    super();
    this.rest = new RestClient({
      ...options.rest,
      baseUrl: options.baseUrl,
      token: options.token,
      tokenType: options.rest?.tokenType ?? 'Bot',
    });
    this.gateway = new GatewayClient({
      url: options.gatewayUrl ?? gatewayUrlFor(options.baseUrl),
      token: this.rest.authorization,
      ...(options.reconnect === undefined ? {} : { reconnect: options.reconnect }),
      ...(options.WebSocket === undefined ? {} : { WebSocket: options.WebSocket }),
    });
    this.gateway.on('ready', (ready) => {
      this.user = ready.user;
      this.servers = ready.servers ?? [];
      this.emit('ready', ready);
    });
    this.gateway.on('resumed', () => this.emit('resumed'));
    this.gateway.on('dispatch', (event) => this.#dispatch(event));
    this.gateway.on('error', (error) => this.#reportError(error));
    this.gateway.on('close', (info) => this.emit('close', info));
    this.gateway.on('debug', (message) => this.emit('debug', message));
  }

  protected override onListenerError(error: unknown, event: keyof ParleyBotEvents): void {
    if (event === 'error') super.onListenerError(error, event);
    else this.#reportError(error);
  }

  /**
   * Defines a slash command and what answers it, in one place. The definitions are
   * registered (one bulk overwrite of the bot's global commands) when `connect` is called,
   * e.g. `bot.command('roll', { description: 'Roll a die', options: [...] }, (i) => i.reply('4'))`.
   */
  command(name: string, definition: CommandDefinition, handler: InteractionHandler): this {
    this.interactions.command(name, definition, handler);
    return this;
  }

  /** Defines a user command (a member's "Apps" menu) and what answers it; registered with the others on `connect`. */
  userCommand(name: string, handler: InteractionHandler, definition?: ContextMenuDefinition): this {
    this.interactions.userCommand(name, handler, definition);
    return this;
  }

  /** Defines a message command (a message's "Apps" menu) and what answers it; registered with the others on `connect`. */
  messageCommand(name: string, handler: InteractionHandler, definition?: ContextMenuDefinition): this {
    this.interactions.messageCommand(name, handler, definition);
    return this;
  }

  /** Handles submits of the modals this bot showed (`interaction.showModal`) whose customId matches. */
  modal(match: CustomIdMatcher, handler: InteractionHandler): this {
    this.interactions.modal(match, handler);
    return this;
  }

  /** Handles clicks on this bot's buttons and selects whose customId matches (`'vote:'`: a prefix). */
  component(match: CustomIdMatcher, handler: InteractionHandler): this {
    this.interactions.component(match, handler);
    return this;
  }

  /**
   * Connects to the gateway; resolves on `ready`, after registering the commands defined
   * with `command()` (if any: a bot that defines none leaves its registered ones alone).
   */
  async connect(): Promise<ReadyData> {
    const ready = await this.gateway.connect();
    if (this.interactions.size > 0) await this.interactions.register(this.rest, ready.user.id);
    return ready;
  }

  /** Closes the gateway connection for good. */
  close(): Promise<void> {
    return this.gateway.close();
  }

  /** Sets the bot's status (`online`, `idle`, `dnd`, or `invisible`: shown offline). */
  setStatus(status: 'online' | 'idle' | 'dnd' | 'invisible'): void {
    this.gateway.setStatus(status);
  }

  #dispatch(event: DispatchEvent): void {
    this.emit('dispatch', event);
    const name = (EVENT_HANDLER_NAMES as Record<string, keyof ParleyBotEvents | undefined>)[event.t];
    if (!name) return;
    // The payload's shape is the server's contract; the map above ties names to types.
    (this.emit as (name: keyof ParleyBotEvents, payload: unknown) => boolean)(name, event.d);
    if (event.t === 'INTERACTION_CREATE') void this.#interact(event.d as Interaction);
  }

  /** Runs the router's handler for an interaction from the gateway; its callback goes over REST. */
  async #interact(raw: Interaction): Promise<void> {
    const context = new InteractionContext(raw, this.rest, (body) => this.rest.interactionCallback(raw.id, raw.token, body));
    try {
      await this.interactions.dispatch(context);
    } catch (error) {
      this.#reportError(error);
    }
  }

  #reportError(error: unknown): void {
    const err = error instanceof Error ? error : new Error(String(error));
    if (this.listenerCount('error') > 0) this.emit('error', err);
    else console.error('[parley bot]', err);
  }
}

/** `http://host:port/base` → `ws://host:port/base/gateway` (https → wss). */
export function gatewayUrlFor(baseUrl: string): string {
  const url = new URL(baseUrl);
  if (url.protocol === 'http:') url.protocol = 'ws:';
  else if (url.protocol === 'https:') url.protocol = 'wss:';
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/gateway`;
  url.search = '';
  url.hash = '';
  return url.toString();
}
