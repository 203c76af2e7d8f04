/**
 * The home view: the person's direct messages beside the server rail, and one
 * conversation (the channel's message list and composer, as in a server).
 */
import { type ReactNode, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { type Contact, OBJECT_LIMITS, type PresenceStatus } from '@parley/protocol';
import { api } from '../api/client';
import type { Channel, DmChannel } from '../api/types';
import { Avatar } from '../components/avatar';
import { displayName } from '../api/types';
import { Composer, type ComposerHandle } from '../components/composer';
import { confirm } from '../components/dialog';
import { DmAvatar, DmSidebar } from '../components/dm-list';
import { ErrorBoundary } from '../components/error-boundary';
import { MenuIcon, PlusIcon } from '../components/icons';
import { openNewMessage } from '../components/new-message';
import { MessageList } from '../components/message-list';
import { ServerRail } from '../components/server-rail';
import { TypingIndicator } from '../components/typing-indicator';
import { setPageTitle } from '../lib/title';
import { SIDEBAR_DRAWER_MEDIA, useDrawerEscape } from '../lib/drawer';
import { viewing } from '../state/actions';
import { dmOthers, dmTitle, leaveGroup, loadDms } from '../state/conversations';
import { store, useStore } from '../state/store';
import { toast, toastError } from '../state/toasts';
import { useBlocked, unblockUser } from '../state/blocks';
import { statusLabel } from '../state/presence';
import { Link, navigate, paths } from '../router';
import { lastChannel } from './chat-page';
import chatStyles from './chat-page.module.css';
import styles from './dm-page.module.css';
import { t } from '../i18n';

const LAST_CHANNEL_KEY = 'parley.lastChannel';

/** "/" opens the DMs next time when they were the last place visited. */
function rememberDms(): void {
  try {
    localStorage.setItem(LAST_CHANNEL_KEY, JSON.stringify({ ...lastChannel(), _last: '@dms' }));
  } catch {
    /* storage unavailable */
  }
}

/** A DM as the message list and composer take a channel: no server. */
function asChannel(dm: DmChannel, title: string): Channel {
  return { id: dm.id, serverId: '', name: title, createdAt: dm.createdAt, lastMessageId: dm.lastMessageId };
}

export function DmPage({ channelId, onLogout }: { channelId: string | null; onLogout: () => void }) {
  const dm = useStore((s) => (channelId ? s.dms[channelId] : undefined));
  const loaded = useStore((s) => s.dmsLoaded);
  const meId = useStore((s) => s.me?.id);
  const [showSidebar, setShowSidebar] = useState(false);
  const sidebarButton = useRef<HTMLButtonElement>(null);
  const closeSidebar = useCallback(() => setShowSidebar(false), []);
  useDrawerEscape(showSidebar, closeSidebar, sidebarButton, SIDEBAR_DRAWER_MEDIA);

  useEffect(rememberDms, []);
  useEffect(() => {
    if (!loaded) loadDms().catch(toastError);
  }, [loaded]);
  // biome-ignore lint/correctness/useExhaustiveDependencies(channelId): opening another conversation closes the drawer
  useEffect(() => {
    setShowSidebar(false);
  }, [channelId]);

  const title = dm ? dmTitle(dm, meId) : null;
  useEffect(() => {
    setPageTitle(title ? t('titles.page', { page: dm?.type === 'group_dm' ? title : `@${title}` }) : t('titles.directMessages'));
  }, [title, dm?.type]);

  const toggle = (
    <button
      ref={sidebarButton}
      type="button"
      className={`icon-button ${chatStyles.sidebarToggle}`}
      aria-label={t('dm.showConversations')}
      onClick={() => setShowSidebar((v) => !v)}
      aria-expanded={showSidebar}
    >
      <MenuIcon />
    </button>
  );

  return (
    // Without a conversation open, a phone shows the rail and the list as the page.
    <div className={`app-frame${showSidebar ? ' sidebar-open' : ''}${channelId ? '' : ` ${styles.home}`}`}>
      <ServerRail activeServerId={null} />
      <DmSidebar activeId={channelId} onLogout={onLogout} />
      {dm && title ? (
        <Conversation key={dm.id} dm={dm} title={title} toggle={toggle} />
      ) : (
        <main className={chatStyles.chat} aria-label={t('dm.directMessages')}>
          <header className={chatStyles.chatHeader}>
            {toggle}
            <h2 className={chatStyles.chatTitle}>{t('dm.directMessages')}</h2>
          </header>
          <div className="center-page">
            <div className="card">
              {channelId && loaded ? (
                <>
                  <h2>{t('dm.conversationNotFound')}</h2>
                  <p>{t('dm.youAreNotIn')}</p>
                  <Link to={paths.dms()} className="button primary">
                    {t('dm.backToDirectMessages')}
                  </Link>
                </>
              ) : channelId ? (
                <p>{t('dm.loading')}</p>
              ) : (
                <>
                  <h2>{t('dm.yourDirectMessages')}</h2>
                  <p>{t('dm.pickAConversationFrom')}</p>
                  <button type="button" className="button primary" onClick={openNewMessage}>
                    <PlusIcon size={16} /> {t('dmList.newMessage')}
                  </button>
                </>
              )}
            </div>
          </div>
        </main>
      )}
      {showSidebar && <div className="scrim" onClick={closeSidebar} aria-hidden="true" />}
    </div>
  );
}

function Conversation({ dm, title, toggle }: { dm: DmChannel; title: string; toggle: ReactNode }) {
  const meId = useStore((s) => s.me?.id);
  const [editingId, setEditingId] = useState<string | null>(null);
  const composer = useRef<ComposerHandle>(null);
  const group = dm.type === 'group_dm';
  const label = group ? title : `@${title}`;
  const channel = useMemo(() => asChannel(dm, title), [dm, title]);
  const others = dmOthers(dm, meId);
  const statuses = usePresenceOf(others);
  const blockedOther = useBlocked(group ? undefined : others[0]?.id);

  useEffect(() => {
    viewing.channelId = dm.id;
    return () => {
      if (viewing.channelId === dm.id) viewing.channelId = null;
    };
  }, [dm.id]);

  const editLast = useCallback(() => {
    if (!meId) return;
    const items = store.getState().messages[dm.id]?.items ?? [];
    const last = items.findLast((m) => m.author?.id === meId && !m.webhookId);
    if (last) setEditingId(last.id);
  }, [dm.id, meId]);

  const onEdit = useCallback((id: string | null) => {
    setEditingId(id);
    if (id === null) composer.current?.focus();
  }, []);

  const leave = async () => {
    const ok = await confirm({
      title: t('dm.leaveTitle', { title }),
      body: <p>{t('dm.youWillNoLonger')}</p>,
      confirmLabel: t('dm.leaveGroup'),
      danger: true,
    });
    if (!ok) return;
    try {
      await leaveGroup(dm.id);
      navigate(paths.dms());
    } catch (err) {
      toastError(err);
    }
  };

  const intro = (
    <div className={styles.intro}>
      <DmAvatar dm={dm} meId={meId} size={72} />
      <h2>{title}</h2>
      <p>
        {group
          ? dm.name
            ? t('dm.thisIsTheStart', { title, join: others.map((u) => displayName(u)).join(', ') })
            : t('dm.thisIsTheStartUnnamed', { join: others.map((u) => displayName(u)).join(', ') })
          : t('dm.thisIsTheBeginning', { title })}
      </p>
    </div>
  );

  return (
    <main className={chatStyles.chat} aria-label={label}>
      <header className={chatStyles.chatHeader}>
        {toggle}
        <span className={styles.headerAvatar}>
          {!group && others[0] ? (
            <Avatar id={others[0].id} name={title} src={others[0].avatar} size={28} status={statuses[0] ?? 'offline'} />
          ) : (
            <DmAvatar dm={dm} meId={meId} size={28} />
          )}
        </span>
        <div className={styles.heading}>
          <h2 className={`${chatStyles.chatTitle} ${styles.title}`}>
            <span className={styles.titleText}>{title}</span>
          </h2>
          <HeaderPresence dm={dm} others={others} statuses={statuses} title={title} />
        </div>
        {group && (
          <button type="button" className="button secondary small" onClick={() => void leave()}>
            {t('dm.leaveGroup')}
          </button>
        )}
      </header>
      <ErrorBoundary resetKey={dm.id}>
        <MessageList channel={channel} canModerate={false} editingId={editingId} onEdit={onEdit} label={label} intro={intro} />
        <TypingIndicator channelId={dm.id} />
        {blockedOther && others[0] ? (
          <BlockedNotice userId={others[0].id} name={title} />
        ) : (
          <Composer ref={composer} channel={channel} onEditLast={editLast} label={label} />
        )}
      </ErrorBoundary>
    </main>
  );
}

/**
 * The others' presence, from the store (member lists and PRESENCE_UPDATE). What the store
 * does not know yet comes from `GET /users/@me/contacts?ids=` once: someone who shares no
 * server any more is not listed there, and shows offline.
 */
function usePresenceOf(others: DmChannel['recipients']): PresenceStatus[] {
  const ids = others.map((u) => u.id).join(',');
  // One string, so the store's snapshot compares equal while nothing changed.
  const joined = useStore((s) => others.map((u) => s.presence[u.id] ?? '').join(','));
  useEffect(() => {
    const presence = store.getState().presence;
    if (!ids || ids.split(',').every((id) => presence[id])) return;
    api
      .get<Contact[]>(`/users/@me/contacts?ids=${ids}&limit=${OBJECT_LIMITS.groupDmMembers}`)
      .then((found) => {
        for (const c of found) store.dispatch({ type: 'presence/set', userId: c.user.id, status: c.presence });
      })
      .catch(() => undefined);
  }, [ids]);
  return joined.split(',').map((s) => (s || 'offline') as PresenceStatus);
}

/** A DM's presence (a dot and its word), or a group's size and who of it is online. */
function HeaderPresence({
  dm,
  others,
  statuses,
  title,
}: {
  dm: DmChannel;
  others: DmChannel['recipients'];
  statuses: PresenceStatus[];
  title: string;
}) {
  if (dm.type === 'dm') {
    const status = statuses[0] ?? 'offline';
    return (
      <span className={styles.presence} data-dm-presence={status}>
        <span className={`${styles.dot} ${styles[status]}`} aria-hidden="true" />
        <span className="visually-hidden">{t('dm.presence', { name: title })} </span>
        {statusLabel(status)}
      </span>
    );
  }
  const online = others.filter((_, i) => statuses[i] !== 'offline').map((u) => displayName(u));
  return (
    <span className={styles.members} data-dm-online={online.length}>
      {t('dm.groupMembers', { count: dm.recipients.length })} ·{' '}
      {online.length ? t('dm.onlineNames', { names: online.join(', ') }) : t('dm.nobodyOnline')}
    </span>
  );
}

/** In place of the composer in a DM with someone the person blocked: sending there is refused. */
function BlockedNotice({ userId, name }: { userId: string; name: string }) {
  const [busy, setBusy] = useState(false);
  return (
    <div className={styles.blockedNotice} role="note">
      <span>{t('dm.blockedNotice', { name })}</span>
      <button
        type="button"
        className="button secondary small"
        disabled={busy}
        onClick={async () => {
          setBusy(true);
          try {
            await unblockUser(userId);
            toast(t('members.unblockedName', { name }));
          } catch (err) {
            toastError(err);
            setBusy(false);
          }
        }}
      >
        {t('dm.unblock')}
      </button>
    </div>
  );
}
