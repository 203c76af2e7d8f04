/** Operations the UI performs: an API call, then the store update that follows. */
import { api, type RequestOptions, seg } from '../api/client';
import type {
  AttachmentRef,
  Channel,
  CreateChannelBody,
  EditMessageBody,
  GatewayEvent,
  Instance,
  Me,
  Member,
  Message,
  NameBody,
  Reaction,
  ReorderChannelsBody,
  Role,
  SendMessageBody,
  Server,
  UpdateMeBody,
  UploadResult,
  User,
} from '../api/types';
import { applyConversationEvent } from './conversation';
import { onDm, onMessageCreate, onReadState } from './conversations';
import { applyInteractionEvent } from './interaction-store';
import { applyThreadEvent } from './threads';
import { store } from './store';
import { t } from '../i18n';

const PAGE = 50;
const TYPING_MS = 8000;

const { dispatch, getState } = store;

export async function loadMe(): Promise<User> {
  const user = await api.get<User>('/users/@me');
  dispatch({ type: 'me', user });
  return user;
}

/** Changes the display name or avatar; the store's `me` follows the answer. */
export async function updateProfile(body: UpdateMeBody): Promise<Me> {
  const me = await api.patch<Me>('/users/@me', body);
  dispatch({ type: 'me', user: me });
  return me;
}

export async function loadServers(): Promise<Server[]> {
  const servers = await api.get<Server[]>('/servers');
  dispatch({ type: 'servers/set', servers });
  return servers;
}

export async function loadChannels(serverId: string): Promise<Channel[]> {
  const channels = await api.get<Channel[]>(`/servers/${seg(serverId)}/channels`);
  dispatch({ type: 'channels/set', serverId, channels });
  return channels;
}

export async function loadMembers(serverId: string): Promise<Member[]> {
  const members = await api.get<Member[]>(`/servers/${seg(serverId)}/members`);
  dispatch({ type: 'members/set', serverId, members });
  return members;
}

export async function loadRoles(serverId: string): Promise<Role[]> {
  const roles = await api.get<Role[]>(`/servers/${seg(serverId)}/roles`);
  dispatch({ type: 'roles/set', serverId, roles });
  return roles;
}

const inflight = new Map<string, Promise<void>>();

function once(key: string, fn: () => Promise<void>): Promise<void> {
  const existing = inflight.get(key);
  if (existing) return existing;
  const p = fn().finally(() => inflight.delete(key));
  inflight.set(key, p);
  return p;
}

/** Load the newest page of a channel (first view, or after the gateway lost events). */
export function loadLatest(channelId: string): Promise<void> {
  return once(`latest:${channelId}`, async () => {
    dispatch({ type: 'messages/loading', channelId });
    try {
      const page = await api.get<Message[]>(`/channels/${seg(channelId)}/messages?limit=${PAGE}`);
      dispatch({ type: 'messages/loaded', channelId, newestFirst: page, limit: PAGE, mode: 'latest' });
    } catch (err) {
      dispatch({ type: 'messages/error', channelId, error: err instanceof Error ? err.message : String(err) });
    }
  });
}

/** Load the page before the oldest message held. */
export function loadOlder(channelId: string): Promise<void> {
  const ch = getState().messages[channelId];
  const before = ch?.items[0]?.id;
  if (!ch?.hasMore || ch.loading || !before) return Promise.resolve();
  return once(`older:${channelId}`, async () => {
    dispatch({ type: 'messages/loading', channelId });
    try {
      const page = await api.get<Message[]>(`/channels/${seg(channelId)}/messages?limit=${PAGE}&before=${encodeURIComponent(before)}`);
      dispatch({ type: 'messages/loaded', channelId, newestFirst: page, limit: PAGE, mode: 'older' });
    } catch (err) {
      dispatch({ type: 'messages/error', channelId, error: err instanceof Error ? err.message : String(err) });
    }
  });
}

export async function sendMessage(
  channelId: string,
  content: string,
  attachments: AttachmentRef[],
  /** A reply's target, and what may ping (see docs/api.md "Mentions"). */
  extra: Pick<SendMessageBody, 'messageReference' | 'allowedMentions'> = {},
  /** Retry and progress hooks (the composer's outbox: state/outbox.ts). */
  options: RequestOptions = {},
): Promise<Message> {
  const body: SendMessageBody = { content, ...extra };
  if (attachments.length) body.attachments = attachments;
  const message = await api.post<Message>(`/channels/${seg(channelId)}/messages`, body, options);
  dispatch({ type: 'message/upsert', message });
  return message;
}

export async function editMessage(message: Message, content: string): Promise<void> {
  const body: EditMessageBody = { content };
  const updated = await api.patch<Message>(`/channels/${seg(message.channelId)}/messages/${seg(message.id)}`, body);
  dispatch({ type: 'message/upsert', message: updated ?? { ...message, content } });
}

export async function deleteMessage(message: Message): Promise<void> {
  await api.delete(`/channels/${seg(message.channelId)}/messages/${seg(message.id)}`);
  dispatch({ type: 'message/remove', channelId: message.channelId, messageId: message.id });
}

export async function toggleReaction(message: Message, emoji: string): Promise<void> {
  const r = await api.put<Reaction>(
    `/channels/${seg(message.channelId)}/messages/${seg(message.id)}/reactions/${encodeURIComponent(emoji)}`,
  );
  if (r && typeof r.count === 'number') {
    dispatch({ type: 'reaction/set', channelId: message.channelId, messageId: message.id, emoji, count: r.count, me: r.me });
  }
}

let instanceAnswer: Promise<Instance | undefined> | undefined;

/** `GET /instance`, asked once (again after a failure); undefined if it could not be asked. */
function instance(): Promise<Instance | undefined> {
  instanceAnswer ??= api.get<Instance>('/instance').catch(() => {
    instanceAnswer = undefined;
    return undefined;
  });
  return instanceAnswer;
}

/**
 * The largest file the service takes (`GET /instance`'s `maxUploadBytes`); undefined if
 * it could not be asked, and then the service's own 413 explains.
 */
export async function uploadLimit(): Promise<number | undefined> {
  const i = await instance();
  return typeof i?.maxUploadBytes === 'number' ? i.maxUploadBytes : undefined;
}

/** Whether the service draws PDFs' first pages (`GET /instance`'s `pdfPreviews`). */
export async function drawsPdfPages(): Promise<boolean> {
  return (await instance())?.pdfPreviews === true;
}

export async function uploadFile(file: File): Promise<UploadResult> {
  const form = new FormData();
  form.append('file', file, file.name);
  return api.post<UploadResult>('/upload', form);
}

export function sendTyping(channelId: string): void {
  api.post(`/channels/${seg(channelId)}/typing`, undefined, { noRetry: true }).catch(() => {
    /* a lost typing indicator is not worth a message */
  });
}

export async function createServer(name: string): Promise<Server> {
  const server = await api.post<Server>('/servers', { name } satisfies NameBody);
  dispatch({ type: 'server/upsert', server });
  await loadChannels(server.id).catch(() => undefined);
  return server;
}

/** A text channel (in a category with `parentId`), or with `type: 'category'` a category (docs/api.md#categories). */
export async function createChannel(
  serverId: string,
  name: string,
  more: Pick<CreateChannelBody, 'type' | 'parentId'> = {},
): Promise<Channel> {
  const channel = await api.post<Channel>(`/servers/${seg(serverId)}/channels`, { name, ...more } satisfies CreateChannelBody);
  dispatch({ type: 'channel/upsert', channel });
  return channel;
}

/** Moves channels and categories at once (`PATCH /servers/{id}/channels`); the answer is applied before the events arrive. */
export async function reorderChannels(serverId: string, moves: ReorderChannelsBody): Promise<void> {
  if (moves.length === 0) return;
  const changed = await api.patch<Channel[]>(`/servers/${seg(serverId)}/channels`, moves);
  for (const channel of changed ?? []) dispatch({ type: 'channel/upsert', channel });
}

export async function renameChannel(channel: Channel, name: string): Promise<Channel> {
  const updated = await api.patch<Channel>(`/channels/${seg(channel.id)}`, { name } satisfies NameBody);
  dispatch({ type: 'channel/upsert', channel: updated ?? { ...channel, name } });
  return updated;
}

export async function deleteChannel(channel: Channel): Promise<void> {
  await api.delete(`/channels/${seg(channel.id)}`);
  dispatch({ type: 'channel/remove', channelId: channel.id, serverId: channel.serverId });
}

/** Accept an invite code or a pasted invite link; resolves to the joined server. */
export async function joinInvite(codeOrLink: string): Promise<Server> {
  const code = parseInvite(codeOrLink);
  if (!code) throw new Error(t('errors.notAnInvite'));
  const server = await api.post<Server>(`/invites/${seg(code)}`);
  dispatch({ type: 'server/upsert', server });
  await loadChannels(server.id).catch(() => undefined);
  return server;
}

export function parseInvite(input: string): string | null {
  const text = input.trim();
  if (!text) return null;
  const m = /\/invites?\/([^/?#\s]+)/.exec(text);
  if (m?.[1]) {
    try {
      return decodeURIComponent(m[1]);
    } catch {
      return null;
    }
  }
  return /^[\w-]+$/.test(text) ? text : null;
}

/** The channel on screen (set by the chat page); its new messages are not unread. */
export const viewing: { channelId: string | null } = { channelId: null };

/** Apply one gateway event to the store. */
export function applyEvent(event: GatewayEvent): void {
  // Ephemeral messages stay out of history, unread counts and notifications.
  if (applyInteractionEvent(event)) return;
  applyConversationEvent(event);
  applyThreadEvent(event);
  const me = getState().me;
  switch (event.t) {
    case 'MESSAGE_CREATE': {
      dispatch({ type: 'message/upsert', message: event.d });
      onMessageCreate(event.d);
      break;
    }
    case 'READ_STATE_UPDATE':
      onReadState(event.d);
      break;
    case 'DM_CREATE':
    case 'DM_UPDATE':
    case 'DM_DELETE':
      onDm(event.t, event.d);
      break;
    case 'MESSAGE_UPDATE': {
      const held = getState().messages[event.d.channelId]?.items.some((m) => m.id === event.d.id);
      // An edit carries the whole message: what it no longer has (its components, the
      // "thinking" of a deferred answer) goes, rather than surviving the merge.
      if (held) dispatch({ type: 'message/upsert', message: { components: undefined, loading: undefined, ...event.d } });
      break;
    }
    case 'MESSAGE_DELETE':
      dispatch({ type: 'message/remove', channelId: event.d.channelId, messageId: event.d.id });
      break;
    case 'MESSAGE_DELETE_BULK':
      for (const id of event.d.ids) dispatch({ type: 'message/remove', channelId: event.d.channelId, messageId: id });
      break;
    case 'REACTION_ADD':
    case 'REACTION_REMOVE': {
      const d = event.d;
      const meChanged = d.userId === me?.id ? event.t === 'REACTION_ADD' : undefined;
      dispatch({ type: 'reaction/set', channelId: d.channelId, messageId: d.messageId, emoji: d.emoji, count: d.count, me: meChanged });
      break;
    }
    case 'TYPING_START': {
      const d = event.d;
      if (d.userId === me?.id) break;
      const until = Date.now() + TYPING_MS;
      dispatch({ type: 'typing/start', channelId: d.channelId, userId: d.userId, typist: { name: d.name, bot: !!d.bot, until } });
      setTimeout(() => {
        const t = getState().typing[d.channelId]?.[d.userId];
        if (t && t.until <= Date.now()) dispatch({ type: 'typing/stop', channelId: d.channelId, userId: d.userId });
      }, TYPING_MS + 50);
      break;
    }
    case 'CHANNEL_CREATE':
    case 'CHANNEL_UPDATE':
      dispatch({ type: 'channel/upsert', channel: event.d });
      break;
    case 'CHANNEL_DELETE':
      dispatch({ type: 'channel/remove', channelId: event.d.id, serverId: event.d.serverId });
      break;
    case 'PRESENCE_UPDATE':
      dispatch({ type: 'presence/set', userId: event.d.userId, status: event.d.status });
      break;
    case 'MEMBER_ADD':
      if (event.d.user)
        dispatch({ type: 'member/upsert', serverId: event.d.serverId, member: { ...event.d.user, user: event.d.user, roles: [] } });
      if (event.d.user?.id === me?.id && !getState().servers[event.d.serverId]) void loadServers().catch(() => undefined);
      break;
    case 'MEMBER_REMOVE':
      if (event.d.user?.id === me?.id) {
        // Kicked or banned (leaving from this tab removes the server before this arrives).
        dispatch({ type: 'server/remove', serverId: event.d.serverId, reason: 'removed' });
      } else if (event.d.user) {
        dispatch({ type: 'member/remove', serverId: event.d.serverId, userId: event.d.user.id });
      }
      break;
    case 'MEMBER_UPDATE':
      if (event.d.roles && event.d.user) {
        dispatch({ type: 'member/roles', serverId: event.d.serverId, userId: event.d.user.id, roles: event.d.roles });
      }
      if (event.d.nick !== undefined && event.d.user) {
        dispatch({ type: 'member/nick', serverId: event.d.serverId, userId: event.d.user.id, nick: event.d.nick });
      }
      break;
    case 'ROLE_CREATE':
    case 'ROLE_UPDATE':
      dispatch({ type: 'role/upsert', role: event.d.role });
      break;
    case 'ROLE_DELETE':
      dispatch({ type: 'role/remove', serverId: event.d.serverId, roleId: event.d.roleId });
      break;
    case 'BAN_ADD':
      // The member's MEMBER_REMOVE comes too. The event carries no reason: a bans list on
      // screen shows the entry at once, and the reason when it is next loaded.
      dispatch({
        type: 'ban/add',
        serverId: event.d.serverId,
        ban: { user: event.d.user, reason: null, createdAt: new Date().toISOString() },
      });
      break;
    case 'BAN_REMOVE':
      dispatch({ type: 'ban/remove', serverId: event.d.serverId, userId: event.d.user.id });
      break;
    case 'SERVER_UPDATE':
      dispatch({ type: 'server/upsert', server: event.d });
      break;
    case 'SERVER_DELETE':
      dispatch({ type: 'server/remove', serverId: event.d.id, reason: 'deleted' });
      break;
    case 'USER_UPDATE':
      // Member lists and our own user follow; messages keep the name they were sent with.
      dispatch({ type: 'user/update', user: event.d.user });
      break;
    default:
      break;
  }
}
