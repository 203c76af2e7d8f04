import { type Static, type TSchema, Type } from 'typebox';
import {
  Channel,
  DmChannel,
  Id,
  Interaction,
  Message,
  Modal,
  PermissionName,
  PresenceStatus,
  PublicUser,
  Role,
  Server,
  ServerRef,
  Thread,
  ThreadMember,
  UpdatedUser,
} from './wire.js';

/**
 * The gateway protocol (docs/gateway.md): the events sessions receive and every frame on
 * the socket, as schemas, with their types derived from them. The server sends and
 * parses these; the SDK and the web client read them.
 */

// The close codes (CLOSE_CODES) are in limits.ts, with the other constants a bundle can
// import without the schemas.

// ---------------------------------------------------------------- event payloads

export const MessageDeleteEvent = Type.Object({ id: Id, channelId: Id, serverId: ServerRef });
/** `MESSAGE_DELETE_BULK`: several messages of one channel deleted at once. */
export const MessageDeleteBulkEvent = Type.Object({ ids: Type.Array(Id), channelId: Id, serverId: ServerRef });

/** How far a person has read a channel, and how often they were mentioned after that. */
export const ReadState = Type.Object({
  channelId: Id,
  lastReadId: Id,
  mentionCount: Type.Integer({ minimum: 0 }),
});

/** `CHANNEL_PINS_UPDATE`: a message was pinned or unpinned. */
export const ChannelPinsEvent = Type.Object({
  channelId: Id,
  serverId: ServerRef,
  lastPinTimestamp: Type.Union([Type.String(), Type.Null()], { description: 'when the newest pin still there was pinned' }),
});

/** `REACTION_ADD` / `REACTION_REMOVE`. */
export const ReactionEvent = Type.Object({
  channelId: Id,
  serverId: ServerRef,
  messageId: Id,
  emoji: Type.String(),
  userId: Id,
  count: Type.Integer({ minimum: 0, description: "the emoji's count on the message after the change" }),
});

export const TypingStartEvent = Type.Object({
  channelId: Id,
  serverId: ServerRef,
  userId: Id,
  name: Type.String(),
  bot: Type.Boolean(),
});

/** `THREAD_DELETE`: a thread went (deleted, or with its parent). */
export const ThreadDeleteEvent = Type.Object({
  id: Id,
  serverId: Id,
  parentId: Id,
  type: Type.Union([Type.Literal('public_thread'), Type.Literal('private_thread')]),
});

/** `THREAD_MEMBER_UPDATE`: the session's own membership of a thread changed (joined, or its notification level). */
export const ThreadMemberUpdateEvent = Type.Object({ ...ThreadMember.properties, serverId: Id });

/** `THREAD_MEMBERS_UPDATE`: people joined or left a thread the session may see. */
export const ThreadMembersUpdateEvent = Type.Object({
  id: Id,
  serverId: Id,
  memberCount: Type.Integer({ minimum: 0 }),
  addedMembers: Type.Optional(Type.Array(ThreadMember)),
  removedMemberIds: Type.Optional(Type.Array(Id)),
});

/**
 * `THREAD_LIST_SYNC`: the session gained access to channels (a role, an overwrite): their
 * active threads it may see, and its memberships of them. (Someone added to a private thread
 * gets THREAD_CREATE with their `member` instead, as on Discord.)
 */
export const ThreadListSyncEvent = Type.Object({
  serverId: Id,
  channelIds: Type.Optional(Type.Array(Id, { description: 'the parents synced; absent: the whole server' })),
  threads: Type.Array(Thread),
  members: Type.Array(ThreadMember),
});

/** `MEMBER_ADD` / `MEMBER_REMOVE`. */
export const MemberEvent = Type.Object({ serverId: Id, user: PublicUser });

/**
 * `MEMBER_UPDATE`: a member's roles changed (`roles`), their nickname (`nick`, null for
 * none; present only when the change could have touched it), or a bot's permissions were
 * set through `PATCH /servers/{id}/bots/{botId}` (`permissions`, the four legacy names of
 * docs/permissions.md#bots).
 */
export const MemberUpdateEvent = Type.Object({
  ...MemberEvent.properties,
  roles: Type.Optional(Type.Array(Id)),
  nick: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  permissions: Type.Optional(Type.Array(PermissionName)),
});

/** `ROLE_CREATE` / `ROLE_UPDATE`. */
export const RoleEvent = Type.Object({ serverId: Id, role: Role });
export const RoleDeleteEvent = Type.Object({ serverId: Id, roleId: Id });
/** `BAN_ADD` / `BAN_REMOVE`: sent to members who may ban. */
export const BanEvent = Type.Object({ serverId: Id, user: PublicUser });

/** `USER_UPDATE`: a person or bot changed their display name, name or avatar. */
export const UserUpdateEvent = Type.Object({ user: UpdatedUser });

/** `PRESENCE_UPDATE`: someone's status changed (to members of the servers they share, and their own sessions). */
export const PresenceEvent = Type.Object({ userId: Id, status: PresenceStatus });

/**
 * `INTERACTION_SUCCESS` / `INTERACTION_FAILED`: to the invoker's own sessions, what became
 * of an interaction they made: its bot answered (any callback type), or it did not answer
 * within the window, or could not be reached (`reason`). A client shows "the bot did not
 * respond" on failure. Not sent for autocomplete (its POST answers with the choices).
 */
export const InteractionStateEvent = Type.Object({
  id: Id,
  channelId: Id,
  serverId: ServerRef,
  reason: Type.Optional(
    Type.Union([Type.Literal('timeout'), Type.Literal('unreachable')], {
      description: 'INTERACTION_FAILED only: no callback within 3 s, or the HTTP endpoint failed',
    }),
  ),
});

/**
 * `INTERACTION_MODAL`: to the invoker's own sessions, the modal a bot answered their
 * interaction `id` with. The client shows it; submitting it is `POST
 * /channels/{channelId}/interactions` `{type: "modalSubmit", interactionId: id, ...}`
 * within the interaction's 15 minutes. `INTERACTION_SUCCESS` follows, as for any callback.
 */
export const InteractionModalEvent = Type.Object({ id: Id, channelId: Id, serverId: ServerRef, modal: Modal });

/**
 * `COMMANDS_UPDATE`: a bot's commands changed (a bulk overwrite). To the members of the
 * server (`serverId`), or of every server the bot is in and its DMs (`serverId` null: the
 * global ones); clients refetch `GET /channels/{channelId}/commands`.
 */
export const CommandsUpdateEvent = Type.Object({ botId: Id, serverId: ServerRef });

/** What a session says of itself: `invisible` is connected but shown `offline`. */
export const ChosenStatus = Type.Union([Type.Literal('online'), Type.Literal('idle'), Type.Literal('dnd'), Type.Literal('invisible')]);

/** One event type (or several sharing a payload) and its payload `d`. */
const event = <T extends TSchema, D extends TSchema>(t: T, d: D) => Type.Object({ t, d });
const L = Type.Literal;

/** The gateway's events: `t` is the type, `d` what clients receive. */
export const GatewayEvent = Type.Union([
  event(L('MESSAGE_CREATE'), Message),
  event(L('MESSAGE_UPDATE'), Message),
  event(L('MESSAGE_DELETE'), MessageDeleteEvent),
  event(L('MESSAGE_DELETE_BULK'), MessageDeleteBulkEvent),
  event(L('CHANNEL_PINS_UPDATE'), ChannelPinsEvent),
  event(L('READ_STATE_UPDATE'), ReadState),
  event(Type.Union([L('REACTION_ADD'), L('REACTION_REMOVE')]), ReactionEvent),
  event(L('TYPING_START'), TypingStartEvent),
  event(Type.Union([L('CHANNEL_CREATE'), L('CHANNEL_UPDATE'), L('CHANNEL_DELETE')]), Channel),
  // Threads (docs/threads.md#events): to those who may see the thread; a private thread's to its members.
  event(Type.Union([L('THREAD_CREATE'), L('THREAD_UPDATE')]), Thread),
  event(L('THREAD_DELETE'), ThreadDeleteEvent),
  event(L('THREAD_MEMBER_UPDATE'), ThreadMemberUpdateEvent),
  event(L('THREAD_MEMBERS_UPDATE'), ThreadMembersUpdateEvent),
  event(L('THREAD_LIST_SYNC'), ThreadListSyncEvent),
  event(L('MEMBER_ADD'), MemberEvent),
  event(L('MEMBER_REMOVE'), MemberEvent),
  event(L('MEMBER_UPDATE'), MemberUpdateEvent),
  event(L('SERVER_UPDATE'), Server),
  event(L('SERVER_DELETE'), Type.Object({ id: Id })),
  event(Type.Union([L('ROLE_CREATE'), L('ROLE_UPDATE')]), RoleEvent),
  event(L('ROLE_DELETE'), RoleDeleteEvent),
  event(Type.Union([L('BAN_ADD'), L('BAN_REMOVE')]), BanEvent),
  event(L('USER_UPDATE'), UserUpdateEvent),
  event(Type.Union([L('DM_CREATE'), L('DM_UPDATE'), L('DM_DELETE')]), DmChannel),
  event(L('PRESENCE_UPDATE'), PresenceEvent),
  // Commands and interactions (docs/commands.md). MESSAGE_CREATE/UPDATE/DELETE also carry ephemeral messages (`ephemeral:
  // true`), to the invoker's own sessions only.
  event(L('INTERACTION_CREATE'), Interaction),
  event(Type.Union([L('INTERACTION_SUCCESS'), L('INTERACTION_FAILED')]), InteractionStateEvent),
  event(L('COMMANDS_UPDATE'), CommandsUpdateEvent),
  event(L('INTERACTION_MODAL'), InteractionModalEvent),
]);

// ---------------------------------------------------------------- frames

/** A server as `ready` lists it, with its channels. */
export const ReadyServer = Type.Object({
  ...Server.properties,
  channels: Type.Array(Channel, { description: 'the channels the identity may see' }),
  threads: Type.Optional(Type.Array(Thread, { description: 'the active threads the identity may see, with its own memberships' })),
  roles: Type.Optional(Type.Array(Role)),
  /** The identity's own roles there. */
  memberRoles: Type.Optional(Type.Array(Id)),
  /** The identity's server-wide permissions there (bitfield). */
  permissions: Type.Optional(Type.String()),
});

export const HelloFrame = Type.Object({
  op: Type.Literal('hello'),
  d: Type.Object({ heartbeatInterval: Type.Integer({ description: 'milliseconds between heartbeats' }) }),
});
export const ReadyFrame = Type.Object({
  op: Type.Literal('ready'),
  d: Type.Object({
    sessionId: Id,
    user: PublicUser,
    servers: Type.Array(ReadyServer),
    readStates: Type.Optional(Type.Array(ReadState, { description: 'one per visible channel the identity has read (acknowledged)' })),
    privateChannels: Type.Optional(Type.Array(DmChannel, { description: "the identity's direct messages and groups" })),
  }),
});
export const ResumedFrame = Type.Object({
  op: Type.Literal('resumed'),
  d: Type.Object({ sessionId: Id, s: Type.Integer({ description: 'the last sequence number replayed' }) }),
});
export const InvalidSessionFrame = Type.Object({ op: Type.Literal('invalid_session'), d: Type.Object({ resumable: Type.Literal(false) }) });
export const HeartbeatAckFrame = Type.Object({ op: Type.Literal('heartbeat_ack') });
/** An event: the event's `t` and `d`, and `s`, the session's sequence number (from 1). */
export const EventFrame = Type.Intersect([
  GatewayEvent,
  Type.Object({
    op: Type.Literal('event'),
    s: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], {
      description: 'the sequence number; null for a live-only event (TYPING_START), which takes no number and is not replayed',
    }),
  }),
]);

export const IdentifyFrame = Type.Object({
  op: Type.Literal('identify'),
  d: Type.Object({ token: Type.String(), status: Type.Optional(ChosenStatus) }),
});
/** Sets the session's status (`online` when it identified without one). */
export const PresenceUpdateFrame = Type.Object({ op: Type.Literal('presence_update'), d: Type.Object({ status: ChosenStatus }) });

/**
 * Says which channel the connection is looking at (null: none). A person's connection hears
 * typing in a server's channel only while it looks at that channel; bots hear all they may see.
 */
export const FocusFrame = Type.Object({ op: Type.Literal('focus'), d: Type.Object({ channelId: Type.Union([Id, Type.Null()]) }) });

export const ResumeFrame = Type.Object({
  op: Type.Literal('resume'),
  d: Type.Object({ token: Type.String(), sessionId: Id, s: Type.Integer({ minimum: 0 }) }),
});
export const HeartbeatFrame = Type.Object({
  op: Type.Literal('heartbeat'),
  d: Type.Optional(Type.Union([Type.Object({ s: Type.Optional(Type.Union([Type.Integer(), Type.Null()])) }), Type.Null()])),
});

/** What the server sends. */
export const ServerFrame = Type.Union([HelloFrame, ReadyFrame, ResumedFrame, InvalidSessionFrame, HeartbeatAckFrame, EventFrame]);
/** What a client sends. */
export const ClientFrame = Type.Union([IdentifyFrame, ResumeFrame, HeartbeatFrame, PresenceUpdateFrame, FocusFrame]);

// The gateway types: each is its schema's static type.
export type MessageDeleteEvent = Static<typeof MessageDeleteEvent>;
export type MessageDeleteBulkEvent = Static<typeof MessageDeleteBulkEvent>;
export type ReadState = Static<typeof ReadState>;
export type ChannelPinsEvent = Static<typeof ChannelPinsEvent>;
export type ReactionEvent = Static<typeof ReactionEvent>;
export type TypingStartEvent = Static<typeof TypingStartEvent>;
export type ThreadDeleteEvent = Static<typeof ThreadDeleteEvent>;
export type ThreadMemberUpdateEvent = Static<typeof ThreadMemberUpdateEvent>;
export type ThreadMembersUpdateEvent = Static<typeof ThreadMembersUpdateEvent>;
export type ThreadListSyncEvent = Static<typeof ThreadListSyncEvent>;
export type MemberEvent = Static<typeof MemberEvent>;
export type MemberUpdateEvent = Static<typeof MemberUpdateEvent>;
export type RoleEvent = Static<typeof RoleEvent>;
export type RoleDeleteEvent = Static<typeof RoleDeleteEvent>;
export type BanEvent = Static<typeof BanEvent>;
export type UserUpdateEvent = Static<typeof UserUpdateEvent>;
export type PresenceEvent = Static<typeof PresenceEvent>;
export type ChosenStatus = Static<typeof ChosenStatus>;
export type InteractionStateEvent = Static<typeof InteractionStateEvent>;
export type InteractionModalEvent = Static<typeof InteractionModalEvent>;
export type CommandsUpdateEvent = Static<typeof CommandsUpdateEvent>;
export type PresenceUpdateFrame = Static<typeof PresenceUpdateFrame>;
export type GatewayEvent = Static<typeof GatewayEvent>;
export type ReadyServer = Static<typeof ReadyServer>;
export type HelloFrame = Static<typeof HelloFrame>;
export type ReadyFrame = Static<typeof ReadyFrame>;
export type ResumedFrame = Static<typeof ResumedFrame>;
export type InvalidSessionFrame = Static<typeof InvalidSessionFrame>;
export type HeartbeatAckFrame = Static<typeof HeartbeatAckFrame>;
export type EventFrame = Static<typeof EventFrame>;
export type IdentifyFrame = Static<typeof IdentifyFrame>;
export type ResumeFrame = Static<typeof ResumeFrame>;
export type HeartbeatFrame = Static<typeof HeartbeatFrame>;
export type FocusFrame = Static<typeof FocusFrame>;
export type ServerFrame = Static<typeof ServerFrame>;
export type ClientFrame = Static<typeof ClientFrame>;

/** An event's type. */
export type GatewayEventType = GatewayEvent['t'];
/** Event type (`t`) → its payload (`d`). */
export type GatewayEventPayloads = { [E in GatewayEvent as E['t']]: E['d'] };
/** Every frame's `op`. */
export type GatewayOp = ServerFrame['op'] | ClientFrame['op'];
