/**
 * The channel's threads, opened from the "Threads" button of the channel header: the active
 * ones (`GET /channels/{id}/threads`, then kept current by the THREAD_* events) and the
 * archived ones, a page at a time (`GET /channels/{id}/threads/archived`), each openable,
 * and "New thread". Escape or a press outside closes it (docs/threads.md).
 */
import { useEffect, useId, useRef, useState } from 'react';
import type { Channel, Thread } from '../api/types';
import { t } from '../i18n';
import { formatAgo } from '../lib/format';
import { snowflakeTime } from '@parley/protocol/ids';
import { Link, paths } from '../router';
import { isUnread, mentionsIn } from '../state/conversations';
import { useStore } from '../state/store';
import { lastActivity, loadActiveThreads, loadArchivedThreads, threadsOf } from '../state/threads';
import { describeError } from '../api/client';
import { CloseIcon, ThreadIcon } from './icons';
import { LockIcon } from './lock-icon';
import { MentionBadge } from './mention-badge';
import styles from './threads-list.module.css';

interface Props {
  channel: Channel;
  /** May start a thread here. */
  canCreate: boolean;
  onNew: () => void;
  onClose: (refocus: boolean) => void;
  /** The header button that opened it: a press on it toggles. */
  toggle: HTMLElement | null;
}

type Tab = 'active' | 'archived';
const TABS: readonly Tab[] = ['active', 'archived'];

export function ThreadsList({ channel, canCreate, onNew, onClose, toggle }: Props) {
  const ref = useRef<HTMLDivElement>(null);
  const titleId = useId();
  const closeRef = useRef(onClose);
  closeRef.current = onClose;
  const [tab, setTab] = useState<Tab>('active');
  const [activeError, setActiveError] = useState<string | null>(null);
  const [activeLoaded, setActiveLoaded] = useState(false);
  const [archived, setArchived] = useState<{ ids: string[]; hasMore: boolean; loading: boolean; error: string | null } | null>(null);
  const threads = useStore((s) => s.threads);
  const active = threadsOf({ threads }, channel.id, { archived: false });

  useEffect(() => {
    loadActiveThreads(channel.id)
      .then(() => setActiveLoaded(true))
      .catch((err: unknown) => setActiveError(describeError(err)));
  }, [channel.id]);

  const loadMore = () => {
    const ids = archived?.ids ?? [];
    const last = ids.length ? threads[ids[ids.length - 1] ?? ''] : undefined;
    setArchived({ ids, hasMore: archived?.hasMore ?? true, loading: true, error: null });
    loadArchivedThreads(channel.id, { before: last?.metadata.archiveTimestamp })
      .then((page) =>
        setArchived({ ids: [...ids, ...page.threads.map((th) => th.id)], hasMore: page.hasMore, loading: false, error: null }),
      )
      .catch((err: unknown) => setArchived({ ids, hasMore: true, loading: false, error: describeError(err) }));
  };

  // biome-ignore lint/correctness/useExhaustiveDependencies(loadMore): the first page, once, when the tab opens
  useEffect(() => {
    if (tab === 'archived' && !archived) loadMore();
  }, [tab, archived]);

  useEffect(() => {
    ref.current?.focus();
    const onDown = (e: MouseEvent) => {
      const target = e.target as Node;
      if (ref.current?.contains(target) || toggle?.contains(target)) return;
      closeRef.current(false);
    };
    document.addEventListener('mousedown', onDown);
    return () => document.removeEventListener('mousedown', onDown);
  }, [toggle]);

  const archivedList = (archived?.ids ?? []).map((id) => threads[id]).filter((th): th is Thread => !!th && th.metadata.archived);
  const list = tab === 'active' ? active : archivedList;
  const tabId = (which: Tab) => `${titleId}-${which}`;

  return (
    // biome-ignore lint/a11y: Escape anywhere in the panel closes it; its controls take the other keys
    <div
      ref={ref}
      className={styles.panel}
      role="dialog"
      aria-labelledby={titleId}
      tabIndex={-1}
      data-testid="threads-list"
      onKeyDown={(e) => {
        if (e.key === 'Escape') {
          e.stopPropagation();
          e.preventDefault();
          closeRef.current(true);
        }
      }}
    >
      <header className={styles.header}>
        <ThreadIcon size={16} />
        <h3 id={titleId}>{t('threads.title')}</h3>
        {canCreate && (
          <button
            type="button"
            className="button primary small"
            onClick={() => {
              closeRef.current(false);
              onNew();
            }}
          >
            {t('threads.newThread')}
          </button>
        )}
        <button type="button" className="icon-button" aria-label={t('threads.closeList')} onClick={() => closeRef.current(true)}>
          <CloseIcon />
        </button>
      </header>
      <div className={styles.tabs} role="tablist" aria-label={t('threads.title')}>
        {TABS.map((which) => (
          <button
            key={which}
            type="button"
            role="tab"
            id={tabId(which)}
            aria-selected={tab === which}
            aria-controls={`${tabId(which)}-panel`}
            className={`${styles.tab}${tab === which ? ` ${styles.tabActive}` : ''}`}
            onClick={() => setTab(which)}
            onKeyDown={(e) => {
              if (e.key === 'ArrowRight' || e.key === 'ArrowLeft') {
                e.preventDefault();
                const next = which === 'active' ? 'archived' : 'active';
                setTab(next);
                document.getElementById(tabId(next))?.focus();
              }
            }}
            tabIndex={tab === which ? 0 : -1}
          >
            {which === 'active' ? t('threads.active') : t('threads.archivedTab')}
          </button>
        ))}
      </div>
      <div className={styles.body} role="tabpanel" id={`${tabId(tab)}-panel`} aria-labelledby={tabId(tab)}>
        {tab === 'active' && activeError && (
          <p className={styles.error} role="alert">
            {t('threads.couldNotLoad', { error: activeError })}
          </p>
        )}
        {tab === 'archived' && archived?.error && (
          <p className={styles.error} role="alert">
            {t('threads.couldNotLoad', { error: archived.error })}
          </p>
        )}
        {list.length === 0 && (tab === 'active' ? activeLoaded : archived && !archived.loading) && (
          <div className={styles.empty}>
            <div className={styles.emptyIcon} aria-hidden="true">
              <ThreadIcon size={28} />
            </div>
            <p className={styles.emptyTitle}>{tab === 'active' ? t('threads.noActive') : t('threads.noArchived')}</p>
            <p className={styles.note}>{tab === 'active' ? t('threads.noActiveHint') : t('threads.noArchivedHint')}</p>
          </div>
        )}
        {list.length > 0 && (
          <ul className={styles.list} aria-label={tab === 'active' ? t('threads.active') : t('threads.archivedTab')}>
            {list.map((th) => (
              <ThreadRow key={th.id} thread={th} channel={channel} onOpen={() => closeRef.current(false)} />
            ))}
          </ul>
        )}
        {tab === 'archived' && archived?.hasMore && archived.ids.length > 0 && (
          <button type="button" className={`button secondary small ${styles.more}`} disabled={archived.loading} onClick={loadMore}>
            {t('threads.loadMore')}
          </button>
        )}
        {((tab === 'active' && !activeLoaded && !activeError) || (tab === 'archived' && archived?.loading)) && (
          <p className={styles.note} role="status">
            {t('threads.loading')}
          </p>
        )}
      </div>
    </div>
  );
}

function ThreadRow({ thread, channel, onOpen }: { thread: Thread; channel: Channel; onOpen: () => void }) {
  const unread = useStore((s) => !!thread.member && isUnread(s, thread.id, thread.lastMessageId));
  const mentions = useStore((s) => (unread ? mentionsIn(s, thread.id) : 0));
  const owner = useStore((s) => s.members[thread.serverId]?.find((m) => m.id === thread.ownerId));
  const replies = Math.max(0, thread.messageCount);
  return (
    <li>
      <Link
        to={paths.thread(thread.serverId, channel.id, thread.id)}
        className={`${styles.row}${unread ? ` ${styles.unread}` : ''}`}
        data-thread-row={thread.id}
        onClick={onOpen}
      >
        <span className={styles.rowIcon} aria-hidden="true">
          {thread.type === 'private_thread' ? <LockIcon size={14} /> : <ThreadIcon size={16} />}
        </span>
        <span className={styles.rowMain}>
          <span className={styles.rowName}>{thread.name}</span>
          <span className={styles.rowMeta}>
            {owner && <span>{owner.nick ?? owner.name}</span>}
            <span>{t('threads.messages', { count: replies })}</span>
            <span>{formatAgo(snowflakeTime(lastActivity(thread)))}</span>
            {thread.member && <span className={styles.joined}>{t('threads.followingShort')}</span>}
          </span>
        </span>
        {unread && <span className="visually-hidden"> {t('sidebar.unread')}</span>}
        <MentionBadge count={mentions} />
      </Link>
    </li>
  );
}
