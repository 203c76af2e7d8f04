/**
 * Unread state, direct messages and notification settings (docs/api.md#messages, docs/api.md#direct-messages): what
 * `ready` and the gateway tell, the acks that mark channels read, and the selectors the
 * sidebar, the rail and the title read.
 */
import { compareIds } from '@parley/protocol/ids';
import { ApiError, api, seg } from '../api/client';
import type { DmChannel, Message, OpenDmBody, ReadState, UpdateSettingsBody, User, UserSettings } from '../api/types';
import { displayName } from '../api/types';
import { showNotification } from '../lib/desktop-notifications';
import { welcomeLineKey } from '../lib/welcome';
import { broadcast, isNotifier, onBroadcast, someoneLooking, startTabs } from '../lib/tabs';
import { setTitleCount } from '../lib/title';
import { safeImageSrc } from '../markdown/parse';
import { paths } from '../router';
import { NEVER_READ } from './conversations-reducer';
import { type State, store, useStore } from './store';
import { t } from '../i18n';

const { dispatch, getState } = store;

// ---------------------------------------------------------------- selectors

/** Whether a channel (or DM) holds messages after the person's read state. */
export function isUnread(state: Pick<State, 'readStates'>, channelId: string, lastMessageId: string | null | undefined): boolean {
  if (!lastMessageId) return false;
  const read = state.readStates[channelId]?.lastReadId ?? NEVER_READ;
  return compareIds(lastMessageId, read) > 0;
}

/** Mentions of the person in a channel since they last read it. */
export function mentionsIn(state: Pick<State, 'readStates'>, channelId: string): number {
  return state.readStates[channelId]?.mentionCount ?? 0;
}

export type NotifyLevel = 'all' | 'mentions' | 'none';

export interface NotifyRule {
  level: NotifyLevel;
  muted: boolean;
}

/** The notification rule of a server's channel: the channel's own setting over the server's (default: mentions). */
export function notifyRule(settings: UserSettings | null, serverId: string, channelId?: string): NotifyRule {
  const server = settings?.servers?.[serverId];
  const channel = channelId ? server?.channels?.[channelId] : undefined;
  return {
    level: channel?.level ?? server?.level ?? 'mentions',
    muted: !!server?.muted || !!channel?.muted,
  };
}

/** A followed thread is muted by its own level `none`, or by its parent's or server's mute. */
export function threadMuted(
  state: Pick<State, 'settings'>,
  th: Pick<State['threads'][string], 'id' | 'serverId' | 'parentId' | 'member'>,
): boolean {
  return threadLevel(state, th) === 'none' || notifyRule(state.settings, th.serverId, th.parentId).muted;
}

/**
 * What a thread notifies of (docs/threads.md#in-the-web-client): its own setting (kept as a
 * channel's, by the thread's id), else what the membership says, else everything for a
 * followed thread (as Discord does) and the parent's rule for one not followed.
 */
export function threadLevel(
  state: Pick<State, 'settings'>,
  th: Pick<State['threads'][string], 'id' | 'serverId' | 'parentId' | 'member'>,
): NotifyLevel {
  const own = state.settings?.servers?.[th.serverId]?.channels?.[th.id];
  if (own?.muted) return 'none';
  return own?.level ?? th.member?.notify ?? (th.member ? 'all' : notifyRule(state.settings, th.serverId, th.parentId).level);
}

/** What the unread summaries read from the state. */
export type UnreadSlices = Pick<State, 'readStates' | 'channels' | 'settings' | 'dms'> & Partial<Pick<State, 'threads'>>;

/** A server's unread channels (muted ones aside) and the mentions waiting there. */
export function serverSummary(state: UnreadSlices, serverId: string): { unread: boolean; mentions: number } {
  let unread = false;
  let mentions = 0;
  const muted = !!state.settings?.servers?.[serverId]?.muted;
  for (const c of state.channels[serverId] ?? []) {
    if (!isUnread(state, c.id, c.lastMessageId)) continue;
    mentions += mentionsIn(state, c.id);
    if (!muted && !notifyRule(state.settings, serverId, c.id).muted) unread = true;
  }
  // The threads the person follows count as their parent does (docs/threads.md#thread-members).
  for (const th of Object.values(state.threads ?? {})) {
    if (th.serverId !== serverId || !th.member || !isUnread(state, th.id, th.lastMessageId)) continue;
    mentions += mentionsIn(state, th.id);
    if (!muted && !threadMuted(state, th)) unread = true;
  }
  return { unread, mentions };
}

/** Unread messages in DMs: a DM counts every message of the others. */
export function dmMentions(state: UnreadSlices): number {
  let n = 0;
  for (const dm of Object.values(state.dms)) if (isUnread(state, dm.id, dm.lastMessageId)) n += mentionsIn(state, dm.id);
  return n;
}

/** Everything waiting for the person: the tab title's count. */
export function totalMentions(state: UnreadSlices & Pick<State, 'serverOrder'>): number {
  let n = dmMentions(state);
  for (const serverId of state.serverOrder) n += serverSummary(state, serverId).mentions;
  return n;
}

/** The slices unread summaries read, for components that select them (`useStore` re-renders on their change only). */
export function useUnreadSlices(): UnreadSlices {
  const readStates = useStore((s) => s.readStates);
  const channels = useStore((s) => s.channels);
  const settings = useStore((s) => s.settings);
  const dms = useStore((s) => s.dms);
  const threads = useStore((s) => s.threads);
  return { readStates, channels, settings, dms, threads };
}

/** Whether a message pings the signed-in person (by name, role, `@everyone`/`@here`; in a DM, any message of the others). */
export function pingsMe(state: State, m: Message): boolean {
  const me = state.me;
  if (!me || m.author?.id === me.id) return false;
  if (!m.serverId) return true;
  if (m.mentions?.some((u) => u.id === me.id)) return true;
  if (m.mentionEveryone) return true;
  const mine = state.myRoles[m.serverId] ?? [];
  return (m.mentionRoles ?? []).some((r) => mine.includes(r));
}

/** Whether a message answers one of the person's own. */
export function repliesToMe(state: State, m: Message): boolean {
  const me = state.me?.id;
  return !!me && m.author?.id !== me && m.referencedMessage?.author?.id === me;
}

// ---------------------------------------------------------------- looking and reading

/**
 * The conversations on screen (a channel, and a thread open beside it), each with whether
 * its list is scrolled to the newest message (set by the message lists).
 */
export const reading = new Map<string, boolean>();

/** The page is visible and has the keyboard focus: the person is looking at it. */
export function isLooking(): boolean {
  return document.visibilityState === 'visible' && document.hasFocus();
}

/** The person sees the newest messages of this channel right now. */
export function isReading(channelId: string): boolean {
  return reading.get(channelId) === true && isLooking();
}

// ---------------------------------------------------------------- acks

/** Acks at most once a second per channel (the route allows 30 in 5 s), the newest one last. */
const ACK_EVERY_MS = 1000;
const pendingAcks = new Map<string, { messageId: string; timer: ReturnType<typeof setTimeout> | null; sentAt: number }>();
/**
 * How far the server knows the person has read each channel: from `ready`, from
 * `READ_STATE_UPDATE`, and from this tab's acks. The store's read state may be ahead (a
 * message of the person's own counts as read at once); this says whether an ack is due.
 */
const serverRead = new Map<string, string>();

function noteServerRead(channelId: string, messageId: string): void {
  serverRead.set(channelId, messageId);
}

function sendAck(channelId: string): void {
  const entry = pendingAcks.get(channelId);
  if (!entry) return;
  entry.timer = null;
  entry.sentAt = Date.now();
  const messageId = entry.messageId;
  noteServerRead(channelId, messageId);
  api.post(`/channels/${seg(channelId)}/messages/${seg(messageId)}/ack`, undefined).catch(() => {
    /* the next read acks again; a lost ack only leaves the channel unread on other devices */
    if (serverRead.get(channelId) === messageId) serverRead.delete(channelId);
  });
}

/**
 * Marks a channel read up to `messageId`: at once in this tab, and on the server (which
 * tells the person's other tabs and devices) within a second.
 */
export function ack(channelId: string, messageId: string): void {
  const state = getState();
  const current = state.readStates[channelId];
  if (!current || compareIds(current.lastReadId, messageId) < 0 || current.mentionCount !== 0) {
    // Never back: this tab may already count a later message (its own) as read.
    const upTo = current && compareIds(current.lastReadId, messageId) > 0 ? current.lastReadId : messageId;
    const after = (state.messages[channelId]?.items ?? []).filter((m) => compareIds(m.id, upTo) > 0 && pingsMe(state, m)).length;
    dispatch({ type: 'read/update', state: { channelId, lastReadId: upTo, mentionCount: after } });
  }
  const known = serverRead.get(channelId);
  if (known && compareIds(known, messageId) >= 0) return;
  const entry = pendingAcks.get(channelId);
  if (entry) {
    entry.messageId = messageId;
    if (entry.timer) return;
    const wait = Math.max(0, entry.sentAt + ACK_EVERY_MS - Date.now());
    entry.timer = setTimeout(() => sendAck(channelId), wait);
    return;
  }
  pendingAcks.set(channelId, { messageId, timer: null, sentAt: 0 });
  sendAck(channelId);
}

/** The newest message this tab holds for a channel, or what the channel says it is. */
function newestId(state: State, channelId: string): string | null {
  const items = state.messages[channelId]?.items;
  const held = items?.[items.length - 1]?.id ?? null;
  const known = lastMessageOf(state, channelId);
  if (held && known) return compareIds(held, known) >= 0 ? held : known;
  return held ?? known;
}

export function lastMessageOf(state: State, channelId: string): string | null {
  const dm = state.dms[channelId];
  if (dm) return dm.lastMessageId;
  const thread = state.threads[channelId];
  if (thread) return thread.lastMessageId;
  for (const list of Object.values(state.channels)) {
    const c = list.find((x) => x.id === channelId);
    if (c) return c.lastMessageId ?? null;
  }
  return null;
}

/**
 * Channels marked unread by hand: reading them does not ack until the person leaves them
 * (or marks them read), as on Discord, or the mark would undo itself at once.
 */
const heldUnread = new Set<string>();

/** The person left the channel: reading it acks again. */
export function releaseUnread(channelId: string): void {
  heldUnread.delete(channelId);
}

/**
 * "Mark unread" on a message: the read state goes back to the message before it (the API's
 * ack may move back: docs/api.md#messages), here at once and on the server. The channel's
 * first message has none before it: false, nothing changes.
 */
export async function markUnread(channelId: string, messageId: string): Promise<boolean> {
  const items = getState().messages[channelId]?.items ?? [];
  const i = items.findIndex((m) => m.id === messageId);
  let previous = i > 0 ? (items[i - 1]?.id ?? null) : null;
  if (!previous) {
    const page = await api.get<Message[]>(`/channels/${seg(channelId)}/messages?limit=1&before=${encodeURIComponent(messageId)}`);
    previous = page[0]?.id ?? null;
  }
  if (!previous) return false;
  heldUnread.add(channelId);
  const entry = pendingAcks.get(channelId);
  if (entry?.timer) clearTimeout(entry.timer);
  pendingAcks.delete(channelId);
  const state = getState();
  const after = (state.messages[channelId]?.items ?? []).filter((m) => compareIds(m.id, previous) > 0 && pingsMe(state, m)).length;
  dispatch({ type: 'read/update', state: { channelId, lastReadId: previous, mentionCount: after } });
  noteServerRead(channelId, previous);
  await api.post(`/channels/${seg(channelId)}/messages/${seg(previous)}/ack`, undefined);
  return true;
}

/** "Mark as read": everything in the channel, up to its newest message. */
export function markRead(channelId: string): void {
  heldUnread.delete(channelId);
  const id = newestId(getState(), channelId);
  if (id) ack(channelId, id);
}

/** Acks the newest message when the person is reading the channel (visible, focused, at the bottom). */
export function ackIfReading(channelId: string): void {
  if (!isReading(channelId) || heldUnread.has(channelId)) return;
  const state = getState();
  const data = state.messages[channelId];
  if (!data?.loaded || data.stale) return;
  const last = data.items[data.items.length - 1];
  if (!last) return;
  const known = serverRead.get(channelId) ?? NEVER_READ;
  if (compareIds(last.id, known) <= 0 && mentionsIn(state, channelId) === 0) return;
  ack(channelId, last.id);
}

// ---------------------------------------------------------------- gateway

interface ReadyConversations {
  readStates?: ReadState[];
  privateChannels?: DmChannel[];
}

/** `ready`: the read states and DMs, replacing what a lost session left. */
export function applyReady(ready: ReadyConversations): void {
  if (Array.isArray(ready.readStates)) {
    serverRead.clear();
    for (const r of ready.readStates) noteServerRead(r.channelId, r.lastReadId);
    dispatch({ type: 'read/set', states: ready.readStates });
  }
  if (Array.isArray(ready.privateChannels)) dispatch({ type: 'dms/set', dms: ready.privateChannels });
  else loadDms().catch(() => undefined);
  void countNeverReadDms();
  if (!getState().settings) loadSettingsOnce().catch(() => undefined);
}

/** A DM's first page, enough to count what waits in it (as a badge shows: up to 99+). */
const COUNT_PAGE = 100;

/**
 * `ready` counts a DM's unread messages only once the person has read it at least once.
 * A DM never opened gets its count here, from its newest page (kept for when it opens).
 */
async function countNeverReadDms(): Promise<void> {
  const state = getState();
  const meId = state.me?.id;
  const waiting = Object.values(state.dms).filter((dm) => dm.lastMessageId && !state.readStates[dm.id]);
  for (const dm of waiting) {
    try {
      const page = await api.get<Message[]>(`/channels/${seg(dm.id)}/messages?limit=${COUNT_PAGE}`);
      dispatch({ type: 'messages/loaded', channelId: dm.id, newestFirst: page, limit: COUNT_PAGE, mode: 'latest' });
      if (getState().readStates[dm.id]) continue; // read meanwhile
      // Newest first: what the others wrote after the person's own last message is unread.
      const own = page.findIndex((m) => m.author?.id === meId);
      const unread = own < 0 ? page : page.slice(0, own);
      const lastReadId = own < 0 ? NEVER_READ : (page[own]?.id ?? NEVER_READ);
      dispatch({ type: 'read/update', state: { channelId: dm.id, lastReadId, mentionCount: unread.length } });
    } catch {
      /* the DM stays marked unread, without a count */
    }
  }
}

/** `MESSAGE_CREATE`: the unread bookkeeping, and a desktop notification when one is due. */
export function onMessageCreate(message: Message): void {
  const state = getState();
  const mine = message.author?.id === state.me?.id;
  if (!message.serverId && !state.dms[message.channelId]) loadDms().catch(() => undefined);
  dispatch({ type: 'read/message', message, mine, pings: pingsMe(state, message), reading: isReading(message.channelId) });
  if (!mine) maybeNotify(getState(), message);
}

// ---------------------------------------------------------------- desktop notifications

/**
 * Whether a message deserves a notification by the person's settings: every DM; in a
 * server, by the channel's or server's level (`mentions` by default: pings and replies to
 * them), never when muted. Never their own or a blocked person's, and none while the person
 * is on do not disturb.
 */
export function shouldNotify(state: State, m: Message): boolean {
  if (!state.me || m.author?.id === state.me.id) return false;
  // Someone blocked never notifies (the client's choice: docs/api.md, "What a block does").
  if (m.author && !m.webhookId && state.blocked?.[m.author.id]) return false;
  // Do not disturb means no desktop notifications at all (the status menu says so).
  if (state.myStatus === 'dnd') return false;
  if (!m.serverId) return true;
  const thread = state.threads[m.channelId];
  if (thread) {
    if (threadMuted(state, thread)) return false;
    const level = threadLevel(state, thread);
    return level === 'all' || pingsMe(state, m) || repliesToMe(state, m);
  }
  const rule = notifyRule(state.settings, m.serverId, m.channelId);
  if (rule.muted || rule.level === 'none') return false;
  return rule.level === 'all' || pingsMe(state, m) || repliesToMe(state, m);
}

function maybeNotify(state: State, m: Message): void {
  if (!isNotifier()) return;
  // Settings not loaded yet (the first moments of a session): decide once they are.
  if (!state.settings) {
    loadSettingsOnce()
      .then(() => maybeNotify(getState(), m))
      .catch(() => undefined);
    return;
  }
  if (!shouldNotify(state, m) || someoneLooking(m.channelId)) return;
  const author = m.author?.name || t('notifications.someone');
  let title = author;
  let path: string;
  if (m.serverId) {
    const thread = state.threads[m.channelId];
    const channel = state.channels[m.serverId]?.find((c) => c.id === (thread?.parentId ?? m.channelId));
    const server = state.servers[m.serverId];
    const hash = `#${channel?.name ?? t('notifications.channel')}`;
    const where = thread ? `${thread.name}, ${hash}` : hash;
    title = server
      ? t('notifications.titleInServer', { author, where, server: server.name })
      : t('notifications.titleIn', { author, where });
    path = thread ? paths.thread(m.serverId, thread.parentId, thread.id) : paths.channel(m.serverId, m.channelId);
  } else {
    const dm = state.dms[m.channelId];
    if (dm?.type === 'group_dm') title = `${author} (${dmTitle(dm, state.me?.id)})`;
    path = paths.dm(m.channelId);
  }
  showNotification({
    title,
    body: plainText(state, m),
    tag: m.id,
    icon: safeImageSrc(m.author?.avatar) ?? '/favicon.svg',
    path,
    messageId: m.id,
  });
}

/** A message as a line of text: mentions by name, files and embeds said in words. */
function plainText(state: State, m: Message): string {
  // A welcome line: its sentence, without the markup that makes the name bold.
  if (m.type === 'join')
    return t(`message.welcome.${welcomeLineKey(m.id)}`, { name: m.author?.name ?? t('notifications.someone') }).replace(/<\/?b>/g, '');
  const users = new Map((m.mentions ?? []).map((u) => [u.id, u.name]));
  const roles = new Map((m.serverId ? (state.roles[m.serverId] ?? []) : []).map((r) => [r.id, r.name]));
  const channels = new Map((m.serverId ? (state.channels[m.serverId] ?? []) : []).map((c) => [c.id, c.name]));
  let text = (m.content ?? '')
    .replace(/<@!?(\d+)>/g, (_, id: string) => `@${users.get(id) ?? 'someone'}`)
    .replace(/<@&(\d+)>/g, (_, id: string) => `@${roles.get(id) ?? 'role'}`)
    .replace(/<#(\d+)>/g, (_, id: string) => `#${channels.get(id) ?? 'channel'}`)
    .replace(/\s+/g, ' ')
    .trim();
  if (!text) {
    const files = m.attachments?.length ?? 0;
    text = files ? t('notifications.sentFiles', { count: files }) : m.embeds?.length ? t('notifications.sentEmbed') : '';
  }
  return text.length > 180 ? `${text.slice(0, 179)}…` : text;
}

export function onReadState(state: ReadState): void {
  noteServerRead(state.channelId, state.lastReadId);
  dispatch({ type: 'read/update', state });
}

export function onDm(t: 'DM_CREATE' | 'DM_UPDATE' | 'DM_DELETE', dm: DmChannel): void {
  if (t === 'DM_DELETE') dispatch({ type: 'dm/remove', dmId: dm.id });
  else dispatch({ type: 'dm/upsert', dm });
}

// ---------------------------------------------------------------- direct messages

export async function loadDms(): Promise<DmChannel[]> {
  const dms = await api.get<DmChannel[]>('/users/@me/channels');
  dispatch({ type: 'dms/set', dms });
  return dms;
}

/** Opens (or finds) the DM with one person; resolves to it. 403 `cannot_dm` becomes a readable error. */
export async function openDm(user: Pick<User, 'id' | 'name'>): Promise<DmChannel> {
  try {
    const dm = await api.post<DmChannel>('/users/@me/channels', { recipientIds: [user.id] } satisfies OpenDmBody);
    dispatch({ type: 'dm/upsert', dm });
    return dm;
  } catch (err) {
    if (err instanceof ApiError && err.code === 'cannot_dm') {
      // The service gives one answer for every refusal; a block of one's own is no secret to oneself.
      const name = displayName(user);
      const message = getState().blocked?.[user.id] ? t('errors.cannotDmBlocked', { name }) : t('errors.cannotDm', { name });
      throw new ApiError(err.status, message, err.request, err.body);
    }
    throw err;
  }
}

/** Leaves a group DM (a DM between two cannot be left). */
export async function leaveGroup(dmId: string): Promise<void> {
  await api.delete(`/channels/${seg(dmId)}`);
  dispatch({ type: 'dm/remove', dmId });
}

/** The other people in a DM (everyone, for a DM with oneself). */
export function dmOthers(dm: DmChannel, meId: string | undefined): DmChannel['recipients'] {
  const others = dm.recipients.filter((u) => u.id !== meId);
  return others.length ? others : dm.recipients;
}

/** A DM's name: the other person, or a group's name or its members. */
export function dmTitle(dm: DmChannel, meId: string | undefined): string {
  if (dm.type === 'group_dm' && dm.name) return dm.name;
  const names = dmOthers(dm, meId).map((u) => displayName(u));
  return names.join(', ') || t('dm.directMessage');
}

/** DMs by newest activity first. */
export function sortedDms(dms: Record<string, DmChannel>): DmChannel[] {
  const key = (dm: DmChannel) => dm.lastMessageId ?? dm.id;
  return Object.values(dms).sort((a, b) => compareIds(key(b), key(a)));
}

// ---------------------------------------------------------------- settings

let settingsRequest: Promise<UserSettings> | null = null;

/** Loads the settings, sharing a request already on its way. */
function loadSettingsOnce(): Promise<UserSettings> {
  settingsRequest ??= loadSettings().finally(() => {
    settingsRequest = null;
  });
  return settingsRequest;
}

export async function loadSettings(): Promise<UserSettings> {
  const settings = await api.get<UserSettings>('/users/@me/settings');
  dispatch({ type: 'settings/set', settings });
  return settings;
}

/** What `PATCH /users/@me/settings` will make of the settings: merged field by field, null removes. */
export function mergeSettings(current: UserSettings, body: UpdateSettingsBody): UserSettings {
  const servers = { ...current.servers };
  for (const [serverId, change] of Object.entries(body.servers ?? {})) {
    if (change === null) {
      delete servers[serverId];
      continue;
    }
    const held = servers[serverId] ?? {};
    const merged = { ...held };
    if (change.level !== undefined) merged.level = change.level;
    if (change.muted !== undefined) merged.muted = change.muted;
    if (change.channels) {
      const channels = { ...held.channels };
      for (const [channelId, c] of Object.entries(change.channels)) {
        if (c === null) delete channels[channelId];
        else channels[channelId] = { ...channels[channelId], ...c };
      }
      merged.channels = channels;
    }
    servers[serverId] = merged;
  }
  return { allowDmsFromServerMembers: body.allowDmsFromServerMembers ?? current.allowDmsFromServerMembers, servers };
}

/** Saves a change; the page shows it at once, and the server's answer (or, on failure, its copy) after. */
export async function updateSettings(body: UpdateSettingsBody): Promise<UserSettings> {
  const held = getState().settings;
  if (held) dispatch({ type: 'settings/set', settings: mergeSettings(held, body) });
  let settings: UserSettings;
  try {
    settings = await api.patch<UserSettings>('/users/@me/settings', body);
  } catch (err) {
    loadSettings().catch(() => undefined);
    throw err;
  }
  dispatch({ type: 'settings/set', settings });
  broadcast('settings', settings);
  return settings;
}

// ---------------------------------------------------------------- the session

/**
 * For the signed-in session: tab coordination, settings changed in other tabs, and the
 * mention count in the tab title. Returns the cleanup.
 */
/** The gateway has no event for settings: a window coming back into focus reloads them, at most this often. */
const SETTINGS_REFRESH_MS = 60_000;

export function startConversations(): () => void {
  startTabs();
  loadSettingsOnce().catch(() => undefined);
  const offSettings = onBroadcast('settings', (data) => {
    if (data && typeof data === 'object') dispatch({ type: 'settings/set', settings: data as UserSettings });
  });
  let shown = -1;
  const update = () => {
    const n = totalMentions(getState());
    if (n !== shown) setTitleCount((shown = n));
  };
  update();
  const offStore = store.subscribe(update);
  // Settings changed on another device reach this one when the person comes back to it.
  let fetchedAt = Date.now();
  const refresh = () => {
    if (Date.now() - fetchedAt < SETTINGS_REFRESH_MS) return;
    fetchedAt = Date.now();
    loadSettingsOnce().catch(() => undefined);
  };
  window.addEventListener('focus', refresh);
  return () => {
    offSettings();
    offStore();
    window.removeEventListener('focus', refresh);
    setTitleCount(0);
  };
}
