import { lazy, Suspense, useCallback, useEffect, useRef, useState } from 'react';
import { ChannelSidebar } from '../components/channel-sidebar';
import { Composer, type ComposerHandle } from '../components/composer';
import { ErrorBoundary } from '../components/error-boundary';
import { MemberCardHost } from '../components/member-card';
import { MemberList } from '../components/member-list';
import { MessageList } from '../components/message-list';
import { ServerRail } from '../components/server-rail';
import { TypingIndicator } from '../components/typing-indicator';
import { loadChannels, viewing } from '../state/actions';
import { isUnread, notifyRule } from '../state/conversations';
import { can, P, usePermissions } from '../state/permissions';
import { store, useStore } from '../state/store';
import { toastError } from '../state/toasts';
import { setPageTitle } from '../lib/title';
import { MEMBER_DRAWER_MEDIA, SIDEBAR_DRAWER_MEDIA, useDrawerEscape } from '../lib/drawer';
import { Link, navigate, paths } from '../router';
import { MenuIcon, PinIcon, ThreadIcon, UsersIcon } from '../components/icons';
import { PinsPanel } from '../components/pins-panel';
import { ThreadPanel } from '../components/thread-panel';
import { ThreadsList } from '../components/threads-list';
import { fetchThread, isForum, startThreadDraft, useThreadDraft } from '../state/threads';
import { ForumIcon } from '../components/icons';
import { SearchBox } from '../components/search';
import styles from './chat-page.module.css';
import sidebarStyles from '../components/channel-sidebar.module.css';
import { t } from '../i18n';

const LAST_CHANNEL_KEY = 'parley.lastChannel';

export function rememberChannel(serverId: string, channelId: string): void {
  try {
    const all = JSON.parse(localStorage.getItem(LAST_CHANNEL_KEY) ?? '{}') as Record<string, string>;
    all[serverId] = channelId;
    all._last = serverId;
    localStorage.setItem(LAST_CHANNEL_KEY, JSON.stringify(all));
  } catch {
    /* storage unavailable */
  }
}

export function lastChannel(): Record<string, string> {
  try {
    return JSON.parse(localStorage.getItem(LAST_CHANNEL_KEY) ?? '{}') as Record<string, string>;
  } catch {
    return {};
  }
}

/** A forum's list of posts comes with its own chunk (only forums draw it). */
const ForumView = lazy(() => import('../components/forum-view'));

interface Props {
  serverId: string;
  channelId: string | null;
  /** A thread or forum post open beside the channel (`paths.thread`). */
  threadId?: string | null;
  onLogout: () => void;
}

/** The main screen: servers, channels, messages, composer and members. */
export function ChatPage({ serverId, channelId, threadId = null, onLogout }: Props) {
  const server = useStore((s) => s.servers[serverId]);
  const serversLoaded = useStore((s) => s.serversLoaded);
  const lost = useStore((s) => s.lostServers[serverId]);
  const channels = useStore((s) => s.channels[serverId]);
  const meId = useStore((s) => s.me?.id);
  const [showMembers, setShowMembers] = useState(() => window.innerWidth > 1100);
  const [showSidebar, setShowSidebar] = useState(false);
  const [editingId, setEditingId] = useState<string | null>(null);
  const composer = useRef<ComposerHandle>(null);
  const [dragging, setDragging] = useState(false);
  const [showPins, setShowPins] = useState(false);
  const pinsButton = useRef<HTMLButtonElement>(null);
  const [showThreads, setShowThreads] = useState(false);
  const threadsButton = useRef<HTMLButtonElement>(null);
  const draft = useThreadDraft();
  const knownThread = useStore((s) => (channelId ? s.threads[channelId] : undefined));
  const openThread = useStore((s) => (threadId ? s.threads[threadId] : undefined));
  const sidebarButton = useRef<HTMLButtonElement>(null);
  const membersButton = useRef<HTMLButtonElement>(null);
  const closeSidebar = useCallback(() => setShowSidebar(false), []);
  const closeMembers = useCallback(() => setShowMembers(false), []);
  useDrawerEscape(showSidebar, closeSidebar, sidebarButton, SIDEBAR_DRAWER_MEDIA);
  useDrawerEscape(showMembers && !showSidebar, closeMembers, membersButton, MEMBER_DRAWER_MEDIA);

  const channel = channels?.find((c) => c.id === channelId) ?? null;
  const bits = usePermissions(serverId);
  const channelBits = usePermissions(serverId, channel?.id ?? null);

  useEffect(() => {
    if (server && !channels) loadChannels(serverId).catch(toastError);
  }, [server, channels, serverId]);

  // A thread's id where a channel's goes (a notification, a link): the thread, beside its channel.
  // The id at the address, once known to be no thread either (then the remembered channel opens).
  const [notThread, setNotThread] = useState<string | null>(null);
  useEffect(() => {
    if (knownThread) {
      navigate(paths.thread(serverId, knownThread.parentId, knownThread.id), { replace: true });
      return;
    }
    if (!channels || channel || !channelId) return;
    fetchThread(channelId).catch(() => setNotThread(channelId));
  }, [knownThread, channels, channel, channelId, serverId]);
  // A thread under another channel than the address says: the right one.
  useEffect(() => {
    if (openThread && channelId && openThread.parentId !== channelId) {
      navigate(paths.thread(serverId, openThread.parentId, openThread.id), { replace: true });
    }
  }, [openThread, channelId, serverId]);

  // /s/:id without a channel (or a deleted one): go to the remembered or first channel.
  useEffect(() => {
    if (!channels || channel) return;
    if (channelId && (notThread !== channelId || knownThread)) return;
    if (channelId && channels.length === 0) return;
    const remembered = lastChannel()[serverId];
    const target = channels.find((c) => c.id === remembered) ?? channels[0];
    if (target) navigate(paths.channel(serverId, target.id), { replace: true });
  }, [channels, channel, channelId, serverId, notThread, knownThread]);

  const openId = channel?.id;
  useEffect(() => {
    viewing.channelId = openId ?? null;
    if (openId) rememberChannel(serverId, openId);
    setEditingId(null);
    setShowSidebar(false);
    setShowPins(false);
    setShowThreads(false);
    startThreadDraft(null);
    return () => {
      viewing.channelId = null;
    };
  }, [openId, serverId]);

  const channelName = channel?.name;
  const serverName = server?.name ?? t('titles.app');
  useEffect(() => {
    setPageTitle(
      channelName !== undefined
        ? t('titles.channel', { channel: channelName, server: serverName })
        : t('titles.page', { page: serverName }),
    );
  }, [channelName, serverName]);

  // Alt+Up/Down: the previous or next channel; with Shift, the previous or next unread one
  // (as Discord has them). Round the list's ends; muted channels are not unread.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!e.altKey || e.ctrlKey || e.metaKey || (e.key !== 'ArrowUp' && e.key !== 'ArrowDown') || e.defaultPrevented) return;
      const state = store.getState();
      const list = state.channels[serverId] ?? [];
      const n = list.length;
      const from = list.findIndex((c) => c.id === channelId);
      const step = e.key === 'ArrowDown' ? 1 : -1;
      for (let k = 1; k < n; k++) {
        const c = list[(from + step * k + n * k) % n];
        if (!c) break;
        if (e.shiftKey && (notifyRule(state.settings, serverId, c.id).muted || !isUnread(state, c.id, c.lastMessageId))) continue;
        e.preventDefault();
        navigate(paths.channel(serverId, c.id));
        return;
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [serverId, channelId]);

  const editLast = useCallback(() => {
    if (!channel || !meId) return;
    const items = store.getState().messages[channel.id]?.items ?? [];
    const last = items.findLast((m) => m.author?.id === meId && !m.webhookId);
    if (last) setEditingId(last.id);
  }, [channel, meId]);

  const onEdit = useCallback((id: string | null) => {
    setEditingId(id);
    if (id === null) composer.current?.focus();
  }, []);

  if (!server) {
    return (
      <div className="app-frame">
        <ServerRail activeServerId={null} />
        <main className="center-page">
          <div className="card">
            {lost ? (
              <>
                <h1>
                  {lost.reason === 'deleted'
                    ? t('chat.serverDeleted', { server: lost.name })
                    : t('chat.removedFrom', { server: lost.name })}
                </h1>
                <p>{lost.reason === 'deleted' ? t('chat.serverDeletedHint') : t('chat.removedHint')}</p>
                <Link to={paths.home()} className="button primary">
                  {t('chat.backToParley')}
                </Link>
              </>
            ) : serversLoaded ? (
              <>
                <h1>{t('chat.serverNotFound')}</h1>
                <p>{t('chat.youAreNotA')}</p>
                <Link to={paths.home()} className="button primary">
                  {t('chat.backToParley')}
                </Link>
              </>
            ) : (
              <p>{t('chat.loading')}</p>
            )}
          </div>
        </main>
      </div>
    );
  }

  const forum = isForum(channel ?? undefined);
  const threadDraft = channel && draft?.parentId === channel.id ? draft : null;
  const panelOpen = !!channel && (!!threadId || !!threadDraft);
  // The new-thread form goes back to the thread open before it, if any; a thread to its channel.
  const closePanel = () => {
    if (threadDraft) startThreadDraft(null);
    else if (channel) navigate(paths.channel(serverId, channel.id));
  };
  const canStartThread = can(channelBits, P.CREATE_PUBLIC_THREADS) || can(channelBits, P.CREATE_PRIVATE_THREADS);
  // The member list gives its place to an open thread, as on Discord.
  const membersShown = showMembers && !panelOpen;

  return (
    <div
      className={`app-frame${membersShown ? ' with-members' : ''}${panelOpen ? ' with-thread' : ''}${showSidebar ? ' sidebar-open' : ''}`}
    >
      <ServerRail activeServerId={serverId} />
      <ChannelSidebar server={server} activeChannelId={channel?.id ?? null} bits={bits} onLogout={onLogout} />
      {/* biome-ignore lint/a11y: dropping files is a mouse gesture; the composer's attach button is the keyboard's way */}
      <main
        className={styles.chat}
        aria-label={channel ? `#${channel.name}` : server.name}
        onDragOver={(e) => {
          if (channel && e.dataTransfer.types.includes('Files')) {
            e.preventDefault();
            setDragging(true);
          }
        }}
        onDragLeave={(e) => {
          if (e.currentTarget === e.target) setDragging(false);
        }}
        onDrop={(e) => {
          setDragging(false);
          if (channel && e.dataTransfer.files.length) {
            e.preventDefault();
            composer.current?.addFiles(e.dataTransfer.files);
          }
        }}
      >
        <header className={styles.chatHeader}>
          <button
            ref={sidebarButton}
            type="button"
            className={`icon-button ${styles.sidebarToggle}`}
            aria-label={t('chat.showChannels')}
            onClick={() => setShowSidebar((v) => !v)}
            aria-expanded={showSidebar}
          >
            <MenuIcon />
          </button>
          <h2 className={styles.chatTitle}>
            {channel ? (
              <>
                <span className={forum ? styles.titleIcon : sidebarStyles.channelHash} aria-hidden="true">
                  {forum ? <ForumIcon size={18} /> : '#'}
                </span>
                {channel.name}
              </>
            ) : (
              server.name
            )}
          </h2>
          <ConnectionState />
          <SearchBox server={server} />
          {channel && !forum && (
            <button
              ref={threadsButton}
              type="button"
              className={`icon-button${showThreads ? ' active' : ''}`}
              aria-label={t('threads.title')}
              aria-expanded={showThreads}
              aria-haspopup="dialog"
              title={t('threads.title')}
              data-testid="threads-button"
              onClick={() => setShowThreads((v) => !v)}
            >
              <ThreadIcon />
            </button>
          )}
          {channel && !forum && (
            <button
              ref={pinsButton}
              type="button"
              className={`icon-button${showPins ? ' active' : ''}`}
              aria-label={t('chat.pinnedMessages')}
              aria-expanded={showPins}
              aria-haspopup="dialog"
              title={t('chat.pinnedMessages')}
              onClick={() => setShowPins((v) => !v)}
            >
              <PinIcon />
            </button>
          )}
          <button
            ref={membersButton}
            type="button"
            className={`icon-button${membersShown ? ' active' : ''}`}
            aria-label={membersShown ? t('chat.hideMemberList') : t('chat.showMemberList')}
            aria-pressed={membersShown}
            title={t('chat.members')}
            onClick={() => {
              // An open thread holds the member list's place: the list takes it back.
              if (panelOpen) {
                closePanel();
                setShowMembers(true);
              } else setShowMembers((v) => !v);
            }}
          >
            <UsersIcon />
          </button>
        </header>
        <ErrorBoundary resetKey={channel?.id}>
          {channel && forum ? (
            <Suspense fallback={<div className="center-page">{t('forum.loading')}</div>}>
              <ForumView server={server} channel={channel} activeThreadId={threadId} />
            </Suspense>
          ) : channel ? (
            <>
              <MessageList
                key={`messages-${channel.id}`}
                channel={channel}
                canModerate={can(channelBits, P.MANAGE_MESSAGES)}
                editingId={editingId}
                onEdit={onEdit}
              />
              <TypingIndicator channelId={channel.id} />
              <Composer key={`composer-${channel.id}`} ref={composer} channel={channel} onEditLast={editLast} />
            </>
          ) : (
            <div className="center-page">
              <div className="card">
                {channels && channels.length === 0 ? (
                  <>
                    <h2>{t('chat.noChannelsYet')}</h2>
                    <p>{can(bits, P.MANAGE_CHANNELS) ? t('chat.createTheFirstChannel') : t('chat.nobodyHasCreatedA')}</p>
                  </>
                ) : channelId && channels ? (
                  <p>{t('chat.thatChannelNoLonger')}</p>
                ) : (
                  <p>{t('chat.loading')}</p>
                )}
              </div>
            </div>
          )}
        </ErrorBoundary>
        {channel && showPins && (
          <PinsPanel
            key={channel.id}
            channel={channel}
            canManage={can(channelBits, P.MANAGE_MESSAGES)}
            toggle={pinsButton.current}
            onClose={(refocus) => {
              setShowPins(false);
              if (refocus) pinsButton.current?.focus();
            }}
          />
        )}
        {channel && showThreads && (
          <ThreadsList
            key={channel.id}
            channel={channel}
            canCreate={canStartThread}
            toggle={threadsButton.current}
            onNew={() => startThreadDraft({ parentId: channel.id, serverId })}
            onClose={(refocus) => {
              setShowThreads(false);
              if (refocus) threadsButton.current?.focus();
            }}
          />
        )}
        {dragging && <div className={styles.dropOverlay}>{t('chat.dropFilesToAttach')}</div>}
      </main>
      {channel && panelOpen && (
        <ThreadPanel
          key={`${channel.id}:${threadDraft ? 'new' : threadId}`}
          server={server}
          parent={channel}
          threadId={threadId}
          draft={threadDraft}
          onClose={closePanel}
        />
      )}
      {membersShown && <MemberList server={server} channelId={channel?.id ?? null} />}
      <MemberCardHost server={server} />
      {/* Backdrops of the drawers (shown by styles.css only where they are drawers): a tap closes them. */}
      {showSidebar && <div className="scrim" onClick={closeSidebar} aria-hidden="true" />}
      {membersShown && !showSidebar && <div className="scrim members-scrim" onClick={closeMembers} aria-hidden="true" />}
    </div>
  );
}

function ConnectionState() {
  const status = useStore((s) => s.status);
  if (status === 'ready') return null;
  const text =
    status === 'closed' ? t('presence.status.offline') : status === 'reconnecting' ? t('chat.reconnecting') : t('chat.connecting');
  return (
    <span className={styles.connectionState} role="status">
      {text}
    </span>
  );
}
