/**
 * Client state: one immutable snapshot changed only by `dispatch(action)`, read with
 * `useStore(selector)`. Gateway events and API responses both become actions, so a
 * message that arrives twice (POST response and MESSAGE_CREATE) is stored once.
 */
import { compareIds } from '@parley/protocol/ids';
import { sidebarOrder, sortCategories } from '../lib/channel-order';
import { useSyncExternalStore } from 'react';
import { reduceConversations } from './conversations-reducer';
import type { GatewayStatus } from '@parley/sdk';
import type { ChosenStatus, PresenceStatus, PublicUser } from '@parley/protocol';
import type {
  Ban,
  Channel,
  DmChannel,
  Member,
  Message,
  Reaction,
  ReadState,
  Role,
  Server,
  Thread,
  ThreadMember,
  User,
  UserSettings,
} from '../api/types';

export interface ChannelMessages {
  /** Oldest first. */
  items: Message[];
  hasMore: boolean;
  loading: boolean;
  loaded: boolean;
  /** Set after a gateway session was lost: refetch when next shown. */
  stale: boolean;
  error: string | null;
  /**
   * Set while the items are a window of older history (loaded around a message someone
   * jumped to) that does not reach the newest message: newer pages load as the list is
   * scrolled down, and messages arriving meanwhile are left for those pages. Absent or
   * false: the items reach the present.
   */
  hasNewer?: boolean;
}

export interface Typist {
  name: string;
  bot: boolean;
  until: number;
}

export interface State {
  me: User | null;
  servers: Record<string, Server>;
  /** Server ids in the order the user joined them. */
  serverOrder: string[];
  /**
   * Each server's text channels in the order the sidebar lists them (`sidebarOrder`):
   * uncategorised ones first, then each category's. Categories are in `categories`.
   */
  channels: Record<string, Channel[]>;
  /** Each server's categories (channels of type `category`, docs/api.md#categories), by position. */
  categories: Record<string, Channel[]>;
  members: Record<string, Member[]>;
  /** Each server's roles, highest first (`@everyone`, position 0, last). */
  roles: Record<string, Role[]>;
  /** The user's own role ids in each server (`@everyone` not included). */
  myRoles: Record<string, string[]>;
  /** Bans, for servers whose bans list has been loaded (settings, with BAN_MEMBERS). */
  bans: Record<string, Ban[]>;
  messages: Record<string, ChannelMessages>;
  typing: Record<string, Record<string, Typist>>;
  status: GatewayStatus;
  /** The server list has been fetched at least once. */
  serversLoaded: boolean;
  /** What others see of people (docs/gateway.md#presence): from member lists and PRESENCE_UPDATE. */
  presence: Record<string, PresenceStatus>;
  /** The status this person chose (`state/presence.ts`). */
  myStatus: ChosenStatus;
  /**
   * How far the person has read each channel and DM, by channel id (`ready`, acks,
   * `READ_STATE_UPDATE`). A channel without an entry was never read: lastReadId '0'.
   */
  readStates: Record<string, ReadState>;
  /** The person's direct messages and groups, by id. */
  dms: Record<string, DmChannel>;
  /** `ready` (or `GET /users/@me/channels`) has listed the DMs. */
  dmsLoaded: boolean;
  /** Notification settings (`GET /users/@me/settings`); null until loaded. */
  settings: UserSettings | null;
  /** The people this person blocked (`GET /users/@me/blocks`, `state/blocks.ts`), by id; null until loaded. */
  blocked: Record<string, PublicUser> | null;
  /** Servers this person lost while the client was open (removed from, or deleted), by id: what their page says instead of "not found". */
  lostServers: Record<string, { name: string; reason: 'removed' | 'deleted' }>;
  /**
   * Threads and forum posts the client knows of, by id (docs/threads.md): the active ones
   * from `ready` and the THREAD_* events, and those opened or listed since (archived too).
   */
  threads: Record<string, Thread>;
}

export type Action =
  | { type: 'reset' }
  | { type: 'me'; user: User }
  | { type: 'status'; status: GatewayStatus }
  | { type: 'servers/set'; servers: Server[] }
  | { type: 'server/upsert'; server: Server }
  | { type: 'server/remove'; serverId: string; reason?: 'removed' | 'deleted' }
  | { type: 'channels/set'; serverId: string; channels: Channel[] }
  | { type: 'channel/upsert'; channel: Channel }
  | { type: 'channel/remove'; channelId: string; serverId: string }
  | { type: 'members/set'; serverId: string; members: Member[] }
  | { type: 'presence/set'; userId: string; status: PresenceStatus }
  | { type: 'presence/mine'; status: ChosenStatus }
  | { type: 'member/upsert'; serverId: string; member: Member }
  | { type: 'member/remove'; serverId: string; userId: string }
  /** A member's roles changed (`MEMBER_UPDATE`, or our own PUT/DELETE answered). */
  | { type: 'member/roles'; serverId: string; userId: string; roles: string[] }
  /** A member's nickname in one server changed (`MEMBER_UPDATE` with `nick`). */
  | { type: 'member/nick'; serverId: string; userId: string; nick: string | null }
  | { type: 'roles/set'; serverId: string; roles: Role[] }
  | { type: 'role/upsert'; role: Role }
  | { type: 'role/remove'; serverId: string; roleId: string }
  | { type: 'bans/set'; serverId: string; bans: Ban[] }
  | { type: 'ban/add'; serverId: string; ban: Ban }
  | { type: 'ban/remove'; serverId: string; userId: string }
  /** A person or bot changed their name or avatar: their entry in every member list (and `me`) follows. */
  | { type: 'user/update'; user: User }
  | { type: 'messages/loading'; channelId: string }
  | { type: 'messages/error'; channelId: string; error: string }
  | { type: 'messages/loaded'; channelId: string; newestFirst: Message[]; limit: number; mode: 'latest' | 'older' }
  | { type: 'messages/stale' }
  /** History around one message: `before` (ending with it) and `after` it, each newest first, as the API pages them. */
  | { type: 'messages/around'; channelId: string; before: Message[]; after: Message[]; limit: number }
  /** The page after the newest message held, while `hasNewer`. */
  | { type: 'messages/newer'; channelId: string; newestFirst: Message[]; limit: number }
  | { type: 'message/upsert'; message: Message }
  | { type: 'message/remove'; channelId: string; messageId: string }
  | { type: 'reaction/set'; channelId: string; messageId: string; emoji: string; count: number; me?: boolean }
  | { type: 'typing/start'; channelId: string; userId: string; typist: Typist }
  | { type: 'typing/stop'; channelId: string; userId: string }
  /** `ready`: every read state at once (channels absent were never read). */
  | { type: 'read/set'; states: ReadState[] }
  /** One channel's read state: `READ_STATE_UPDATE`, or our own ack. */
  | { type: 'read/update'; state: ReadState }
  /**
   * A new message: the channel's `lastMessageId` moves on; the person's own message counts
   * as read; one that pings them adds a mention unless they are reading the channel.
   */
  | { type: 'read/message'; message: Message; mine: boolean; pings: boolean; reading: boolean }
  | { type: 'dms/set'; dms: DmChannel[] }
  | { type: 'dm/upsert'; dm: DmChannel }
  | { type: 'dm/remove'; dmId: string }
  | { type: 'settings/set'; settings: UserSettings }
  | { type: 'blocks/set'; users: PublicUser[] }
  | { type: 'block/add'; user: PublicUser }
  | { type: 'block/remove'; userId: string }
  /** Threads learnt of (a list, `ready`, THREAD_CREATE/UPDATE, an answer): merged by id. */
  | { type: 'threads/upsert'; threads: Thread[] }
  /**
   * A server's active threads, all of them (`ready`, THREAD_LIST_SYNC): active threads of
   * those parents (all the server's without `parentIds`) not listed are gone or archived.
   */
  | { type: 'threads/sync'; serverId: string; parentIds?: string[]; threads: Thread[] }
  | { type: 'thread/remove'; threadId: string }
  /** The person's own membership of a thread (null: they left it). */
  | { type: 'thread/member'; threadId: string; member: ThreadMember | null }
  | { type: 'thread/count'; threadId: string; memberCount: number };

export const initialState: State = {
  me: null,
  servers: {},
  serverOrder: [],
  channels: {},
  categories: {},
  members: {},
  roles: {},
  myRoles: {},
  bans: {},
  messages: {},
  typing: {},
  status: 'connecting',
  serversLoaded: false,
  presence: {},
  myStatus: 'online',
  readStates: {},
  dms: {},
  dmsLoaded: false,
  settings: null,
  blocked: null,
  lostServers: {},
  threads: {},
};

const emptyChannel: ChannelMessages = {
  items: [],
  hasMore: true,
  loading: false,
  loaded: false,
  stale: false,
  error: null,
};

/** Ids are snowflakes: numbers as strings, so they compare as numbers. */
const byId = (a: { id: string }, b: { id: string }) => compareIds(a.id, b.id);
/** Highest first, as Discord lists them; ties (none expected) by id. */
const byPosition = (a: Role, b: Role) => b.position - a.position || byId(a, b);

/** Splits a server's channels into its text channels in sidebar order and its categories. */
function placed(list: readonly Channel[]): { channels: Channel[]; categories: Channel[] } {
  const categories = sortCategories(list.filter((c) => c.type === 'category'));
  return {
    channels: sidebarOrder(
      list.filter((c) => c.type !== 'category'),
      categories,
    ),
    categories,
  };
}

/** The state with one server's channels and categories replaced by `list` (split and ordered). */
function withChannels(state: State, serverId: string, list: readonly Channel[]): Pick<State, 'channels' | 'categories'> {
  const { channels, categories } = placed(list);
  return { channels: { ...state.channels, [serverId]: channels }, categories: { ...state.categories, [serverId]: categories } };
}

/** Insert or replace by id, keeping id order (ids sort by creation time). */
function upsertSorted(items: Message[], message: Message): Message[] {
  const idx = items.findIndex((m) => m.id === message.id);
  if (idx >= 0) {
    const next = items.slice();
    next[idx] = { ...items[idx], ...message };
    return next;
  }
  const last = items[items.length - 1];
  if (!last || compareIds(last.id, message.id) < 0) return [...items, message];
  const next = [...items, message];
  next.sort(byId);
  return next;
}

function mergeMessages(existing: Message[], incoming: Message[]): Message[] {
  const map = new Map(existing.map((m) => [m.id, m]));
  for (const m of incoming) map.set(m.id, m);
  return [...map.values()].sort(byId);
}

/**
 * The channel's history after loading the pages around a message. Joined with what is
 * held when the two overlap, or when both reach the present; otherwise the window
 * replaces it (the held messages are not contiguous with it), marked `hasNewer`.
 */
function aroundWindow(held: ChannelMessages | undefined, action: { before: Message[]; after: Message[]; limit: number }): ChannelMessages {
  const window = mergeMessages([...action.before].reverse(), [...action.after].reverse());
  const reachesPresent = action.after.length < action.limit;
  const olderFull = action.before.length >= action.limit;
  const base = { loading: false, loaded: true, stale: false, error: null };
  const first = window[0];
  const last = window[window.length - 1];
  const heldFirst = held?.items[0];
  const heldLast = held?.items[held.items.length - 1];
  const usable = held?.loaded && !held.stale && heldFirst && heldLast && first && last;
  const overlaps = usable && compareIds(first.id, heldLast.id) <= 0 && compareIds(heldFirst.id, last.id) <= 0;
  const bothPresent = usable && reachesPresent && !held.hasNewer;
  if (held && (overlaps || bothPresent)) {
    const items = mergeMessages(held.items, window);
    const hasMore = heldFirst && first && compareIds(heldFirst.id, first.id) < 0 ? held.hasMore : olderFull;
    return { ...base, items, hasMore, hasNewer: !!held.hasNewer && !reachesPresent };
  }
  return { ...base, items: window, hasMore: olderFull, hasNewer: !reachesPresent };
}

function withoutKey<T>(record: Record<string, T>, key: string): Record<string, T> {
  if (!(key in record)) return record;
  const next = { ...record };
  delete next[key];
  return next;
}

function withoutThreads(threads: Record<string, Thread>, gone: (th: Thread) => boolean): Record<string, Thread> {
  if (!Object.values(threads).some(gone)) return threads;
  return Object.fromEntries(Object.entries(threads).filter(([, th]) => !gone(th)));
}

function updateMessage(state: State, channelId: string, messageId: string, fn: (m: Message) => Message): State {
  const ch = state.messages[channelId];
  if (!ch) return state;
  const idx = ch.items.findIndex((m) => m.id === messageId);
  const current = ch.items[idx];
  if (!current) return state;
  const items = ch.items.slice();
  items[idx] = fn(current);
  return { ...state, messages: { ...state.messages, [channelId]: { ...ch, items } } };
}

function setReaction(reactions: Reaction[] | undefined, emoji: string, count: number, me?: boolean): Reaction[] {
  const list = reactions ?? [];
  const idx = list.findIndex((r) => r.emoji === emoji);
  const current = list[idx];
  if (count <= 0) return current ? list.filter((_, i) => i !== idx) : list;
  if (!current) return [...list, { emoji, count, me: me ?? false }];
  const next = list.slice();
  next[idx] = { emoji, count, me: me ?? current.me ?? false };
  return next;
}

/** The threads that messages arriving with an action started (a message's `thread`, docs/threads.md#the-starter-message). */
function threadsCarried(action: Action): Thread[] {
  let list: Message[];
  if (action.type === 'messages/loaded' || action.type === 'messages/newer') list = action.newestFirst;
  else if (action.type === 'messages/around') list = [...action.before, ...action.after];
  else if (action.type === 'message/upsert') list = [action.message];
  else return [];
  const out: Thread[] = [];
  for (const m of list) if (m.thread) out.push(m.thread);
  return out;
}

export function reduce(state: State, action: Action): State {
  const next = reduceState(state, action);
  const carried = threadsCarried(action);
  return carried.length > 0 ? reduceConversations(next, { type: 'threads/upsert', threads: carried }) : next;
}

function reduceState(state: State, action: Action): State {
  switch (action.type) {
    case 'reset':
      return { ...initialState, myStatus: state.myStatus };
    case 'me':
      return { ...state, me: { ...state.me, ...action.user } };
    case 'status':
      return state.status === action.status ? state : { ...state, status: action.status };
    case 'servers/set': {
      const servers: Record<string, Server> = {};
      const channels = { ...state.channels };
      const categories = { ...state.categories };
      const roles = { ...state.roles };
      const myRoles = { ...state.myRoles };
      for (const s of action.servers) {
        const { channels: ch, roles: r, memberRoles, permissions: _bits, ...rest } = s;
        servers[s.id] = { ...state.servers[s.id], ...rest };
        if (ch) ({ channels: channels[s.id], categories: categories[s.id] } = placed(ch));
        if (r) roles[s.id] = [...r].sort(byPosition);
        if (memberRoles) myRoles[s.id] = memberRoles;
      }
      return {
        ...state,
        servers,
        serverOrder: action.servers.map((s) => s.id),
        channels,
        categories,
        roles,
        myRoles,
        serversLoaded: true,
      };
    }
    case 'server/upsert': {
      const { channels: ch, roles: r, memberRoles, permissions: _bits, ...rest } = action.server;
      const known = action.server.id in state.servers;
      return {
        ...state,
        servers: { ...state.servers, [rest.id]: { ...state.servers[rest.id], ...rest } },
        serverOrder: known ? state.serverOrder : [...state.serverOrder, rest.id],
        ...(ch ? withChannels(state, rest.id, ch) : {}),
        roles: r ? { ...state.roles, [rest.id]: [...r].sort(byPosition) } : state.roles,
        myRoles: memberRoles ? { ...state.myRoles, [rest.id]: memberRoles } : state.myRoles,
      };
    }
    case 'server/remove': {
      const lost = action.reason && state.servers[action.serverId];
      return {
        ...state,
        lostServers: lost
          ? { ...state.lostServers, [action.serverId]: { name: lost.name, reason: action.reason ?? 'removed' } }
          : state.lostServers,
        servers: withoutKey(state.servers, action.serverId),
        serverOrder: state.serverOrder.filter((id) => id !== action.serverId),
        channels: withoutKey(state.channels, action.serverId),
        categories: withoutKey(state.categories, action.serverId),
        members: withoutKey(state.members, action.serverId),
        roles: withoutKey(state.roles, action.serverId),
        myRoles: withoutKey(state.myRoles, action.serverId),
        bans: withoutKey(state.bans, action.serverId),
        threads: withoutThreads(state.threads, (th) => th.serverId === action.serverId),
      };
    }
    case 'channels/set':
      return { ...state, ...withChannels(state, action.serverId, action.channels) };
    case 'channel/upsert': {
      const serverId = action.channel.serverId;
      const list = [...(state.channels[serverId] ?? []), ...(state.categories[serverId] ?? [])];
      const idx = list.findIndex((c) => c.id === action.channel.id);
      const next = idx >= 0 ? list.map((c, i) => (i === idx ? { ...c, ...action.channel } : c)) : [...list, action.channel];
      return { ...state, ...withChannels(state, serverId, next) };
    }
    case 'channel/remove': {
      const list = state.channels[action.serverId];
      const cats = state.categories[action.serverId];
      return {
        ...state,
        channels: list ? { ...state.channels, [action.serverId]: list.filter((c) => c.id !== action.channelId) } : state.channels,
        categories: cats ? { ...state.categories, [action.serverId]: cats.filter((c) => c.id !== action.channelId) } : state.categories,
        messages: withoutKey(state.messages, action.channelId),
        readStates: withoutKey(state.readStates, action.channelId),
        // A channel's threads go with it (docs/threads.md, "Goes with its parent"); a thread's own delete too.
        threads: withoutThreads(withoutKey(state.threads, action.channelId), (th) => th.parentId === action.channelId),
      };
    }
    case 'members/set': {
      // A member list carries everyone's presence as the service sees it now.
      const presence = { ...state.presence };
      for (const m of action.members) if (m.presence) presence[m.id] = m.presence;
      return { ...state, members: { ...state.members, [action.serverId]: action.members }, presence };
    }
    case 'presence/set':
      return state.presence[action.userId] === action.status
        ? state
        : { ...state, presence: { ...state.presence, [action.userId]: action.status } };
    case 'presence/mine':
      return state.myStatus === action.status ? state : { ...state, myStatus: action.status };
    case 'member/upsert': {
      const list = state.members[action.serverId];
      if (!list) return state;
      const idx = list.findIndex((m) => m.id === action.member.id);
      const next = idx >= 0 ? list.map((m, i) => (i === idx ? { ...m, ...action.member } : m)) : [...list, action.member];
      return { ...state, members: { ...state.members, [action.serverId]: next } };
    }
    case 'member/remove': {
      const list = state.members[action.serverId];
      if (!list) return state;
      return { ...state, members: { ...state.members, [action.serverId]: list.filter((m) => m.id !== action.userId) } };
    }
    case 'member/roles': {
      const list = state.members[action.serverId];
      const members = list?.some((m) => m.id === action.userId)
        ? { ...state.members, [action.serverId]: list.map((m) => (m.id === action.userId ? { ...m, roles: action.roles } : m)) }
        : state.members;
      const myRoles = state.me?.id === action.userId ? { ...state.myRoles, [action.serverId]: action.roles } : state.myRoles;
      return members === state.members && myRoles === state.myRoles ? state : { ...state, members, myRoles };
    }
    case 'member/nick': {
      const list = state.members[action.serverId];
      if (!list?.some((m) => m.id === action.userId)) return state;
      const next = list.map((m) => (m.id === action.userId ? { ...m, nick: action.nick } : m));
      return { ...state, members: { ...state.members, [action.serverId]: next } };
    }
    case 'roles/set':
      return { ...state, roles: { ...state.roles, [action.serverId]: [...action.roles].sort(byPosition) } };
    case 'role/upsert': {
      const { role } = action;
      const list = state.roles[role.serverId];
      if (!list) return state;
      const next = list.some((r) => r.id === role.id) ? list.map((r) => (r.id === role.id ? role : r)) : [...list, role];
      return { ...state, roles: { ...state.roles, [role.serverId]: next.sort(byPosition) } };
    }
    case 'role/remove': {
      const list = state.roles[action.serverId];
      const strip = (ids: string[]) => (ids.includes(action.roleId) ? ids.filter((id) => id !== action.roleId) : ids);
      const members = state.members[action.serverId];
      const mine = state.myRoles[action.serverId];
      return {
        ...state,
        roles: list ? { ...state.roles, [action.serverId]: list.filter((r) => r.id !== action.roleId) } : state.roles,
        members: members
          ? {
              ...state.members,
              [action.serverId]: members.map((m) => (m.roles?.includes(action.roleId) ? { ...m, roles: strip(m.roles) } : m)),
            }
          : state.members,
        myRoles: mine ? { ...state.myRoles, [action.serverId]: strip(mine) } : state.myRoles,
      };
    }
    case 'bans/set':
      return { ...state, bans: { ...state.bans, [action.serverId]: action.bans } };
    case 'ban/add': {
      const list = state.bans[action.serverId];
      if (!list || list.some((b) => b.user.id === action.ban.user.id)) return state;
      return { ...state, bans: { ...state.bans, [action.serverId]: [action.ban, ...list] } };
    }
    case 'ban/remove': {
      const list = state.bans[action.serverId];
      if (!list) return state;
      return { ...state, bans: { ...state.bans, [action.serverId]: list.filter((b) => b.user.id !== action.userId) } };
    }
    case 'user/update': {
      const { user } = action;
      let members = state.members;
      for (const [serverId, list] of Object.entries(state.members)) {
        if (!list.some((m) => m.id === user.id)) continue;
        members = { ...members, [serverId]: list.map((m) => (m.id === user.id ? { ...m, name: user.name, avatar: user.avatar } : m)) };
      }
      const me = state.me?.id === user.id ? { ...state.me, ...user } : state.me;
      return members === state.members && me === state.me ? state : { ...state, members, me };
    }
    case 'messages/loading': {
      const ch = state.messages[action.channelId] ?? emptyChannel;
      return { ...state, messages: { ...state.messages, [action.channelId]: { ...ch, loading: true, error: null } } };
    }
    case 'messages/error': {
      const ch = state.messages[action.channelId] ?? emptyChannel;
      return {
        ...state,
        messages: { ...state.messages, [action.channelId]: { ...ch, loading: false, error: action.error } },
      };
    }
    case 'messages/loaded': {
      const ch = state.messages[action.channelId] ?? emptyChannel;
      const incoming = [...action.newestFirst].reverse();
      const full = action.newestFirst.length >= action.limit;
      const oldestNew = incoming[0]?.id;
      const newestNew = incoming[incoming.length - 1]?.id;
      let items: Message[];
      let hasMore: boolean;
      if (action.mode === 'older') {
        items = mergeMessages(ch.items, incoming);
        hasMore = full;
      } else if (ch.loaded && !ch.stale && oldestNew && ch.items.some((m) => m.id === oldestNew)) {
        // The new page overlaps what we hold: keep the older history too.
        items = mergeMessages(ch.items, incoming);
        hasMore = ch.hasMore;
      } else {
        // Replace: anything older than this page may be out of date. Keep messages that
        // arrived over the gateway while the page was loading.
        items = mergeMessages(
          incoming,
          ch.items.filter((m) => newestNew !== undefined && compareIds(m.id, newestNew) > 0),
        );
        hasMore = full;
      }
      return {
        ...state,
        messages: {
          ...state.messages,
          [action.channelId]: {
            items,
            hasMore,
            loading: false,
            loaded: true,
            stale: false,
            error: null,
            // An older page leaves a window of old history as it was; the newest page reaches the present.
            hasNewer: action.mode === 'older' ? ch.hasNewer : undefined,
          },
        },
      };
    }
    case 'messages/around':
      return { ...state, messages: { ...state.messages, [action.channelId]: aroundWindow(state.messages[action.channelId], action) } };
    case 'messages/newer': {
      const ch = state.messages[action.channelId];
      if (!ch) return state;
      const items = mergeMessages(ch.items, [...action.newestFirst].reverse());
      const hasNewer = action.newestFirst.length >= action.limit;
      return { ...state, messages: { ...state.messages, [action.channelId]: { ...ch, items, hasNewer, loading: false, error: null } } };
    }
    case 'messages/stale': {
      const messages: Record<string, ChannelMessages> = {};
      for (const [id, ch] of Object.entries(state.messages)) messages[id] = { ...ch, stale: true };
      return { ...state, messages };
    }
    case 'message/upsert': {
      const m = action.message;
      const ch = state.messages[m.channelId];
      let typing = state.typing;
      const t = typing[m.channelId];
      if (t && m.author && t[m.author.id]) typing = { ...typing, [m.channelId]: withoutKey(t, m.author.id) };
      if (!ch) return typing === state.typing ? state : { ...state, typing };
      // Looking at older history: a new message waits for the page that reaches it.
      const last = ch.items[ch.items.length - 1];
      if (ch.hasNewer && last && compareIds(m.id, last.id) > 0) return typing === state.typing ? state : { ...state, typing };
      return {
        ...state,
        typing,
        messages: { ...state.messages, [m.channelId]: { ...ch, items: upsertSorted(ch.items, m) } },
      };
    }
    case 'message/remove': {
      const ch = state.messages[action.channelId];
      if (!ch?.items.some((m) => m.id === action.messageId)) return state;
      return {
        ...state,
        messages: {
          ...state.messages,
          [action.channelId]: { ...ch, items: ch.items.filter((m) => m.id !== action.messageId) },
        },
      };
    }
    case 'reaction/set':
      return updateMessage(state, action.channelId, action.messageId, (m) => ({
        ...m,
        reactions: setReaction(m.reactions, action.emoji, action.count, action.me),
      }));
    case 'typing/start': {
      const t = state.typing[action.channelId] ?? {};
      return { ...state, typing: { ...state.typing, [action.channelId]: { ...t, [action.userId]: action.typist } } };
    }
    case 'typing/stop': {
      const t = state.typing[action.channelId];
      if (!t?.[action.userId]) return state;
      return { ...state, typing: { ...state.typing, [action.channelId]: withoutKey(t, action.userId) } };
    }
    default:
      return reduceConversations(state, action);
  }
}

type Listener = () => void;

/** A tiny external store; components subscribe to slices with `useStore`. */
export class Store {
  private state: State = initialState;
  private listeners = new Set<Listener>();

  getState = (): State => this.state;

  subscribe = (listener: Listener): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  dispatch = (action: Action): void => {
    const next = reduce(this.state, action);
    if (next === this.state) return;
    this.state = next;
    for (const l of this.listeners) l();
  };
}

export const store = new Store();

/** Read a slice of state; re-renders when that slice changes identity. */
export function useStore<T>(selector: (s: State) => T): T {
  return useSyncExternalStore(store.subscribe, () => selector(store.getState()));
}
