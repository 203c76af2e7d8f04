/**
 * The sidebar's channels (docs/api.md#categories): the uncategorised ones, then each
 * category under a header that collapses (remembered per server in localStorage; a
 * collapsed category still lists its unread channels and the open one, as Discord does).
 * Each channel and category has a menu (right-click, long press, the menu key or
 * Shift+F10): notifications, mark read, copy link, settings, and for those who manage
 * channels Move up / Move down. Managers also reorder by dragging, and with Ctrl+↑/↓ on a
 * focused channel or category header (README.md, "Web client").
 */
import { type DragEvent, type KeyboardEvent, useCallback, useState, useSyncExternalStore } from 'react';
import type { Channel, Server } from '../api/types';
import { t } from '../i18n';
import { copyText } from '../lib/clipboard';
import { type ChannelMove, channelGroups, moveTo, stepMove } from '../lib/channel-order';
import { isPrivate } from '../lib/overwrites';
import { canOpenSettings } from '../pages/settings/tabs';
import { compareIds, snowflakeTime } from '@parley/protocol/ids';
import { Link, match, navigate, paths, usePath } from '../router';
import { reorderChannels } from '../state/actions';
import { isUnread, markRead, mentionsIn, notifyRule, threadMuted } from '../state/conversations';
import { P, can } from '../state/permissions';
import { useStore } from '../state/store';
import { toast, toastError } from '../state/toasts';
import styles from './channel-sidebar.module.css';
import { ContextMenu, type ContextMenuAnchor, type ContextMenuItem, useContextMenuTrigger } from './context-menu';
import { ChevronIcon, ForumIcon } from './icons';
import { isForum, lastActivity } from '../state/threads';
import type { Thread } from '../api/types';
import { LockIcon } from './lock-icon';
import { MentionBadge } from './mention-badge';

// ---------------------------------------------------------------- collapsed categories

const collapseKey = (serverId: string) => `parley.collapsedCategories.${serverId}`;
const collapseListeners = new Set<() => void>();
const collapseCache = new Map<string, string>();

function readCollapsed(serverId: string): string {
  let raw = collapseCache.get(serverId);
  if (raw === undefined) {
    try {
      raw = localStorage.getItem(collapseKey(serverId)) ?? '[]';
    } catch {
      raw = '[]';
    }
    collapseCache.set(serverId, raw);
  }
  return raw;
}

function setCollapsed(serverId: string, categoryId: string, collapsed: boolean): void {
  const set = new Set<string>(JSON.parse(readCollapsed(serverId)) as string[]);
  if (collapsed) set.add(categoryId);
  else set.delete(categoryId);
  const raw = JSON.stringify([...set]);
  collapseCache.set(serverId, raw);
  try {
    localStorage.setItem(collapseKey(serverId), raw);
  } catch {
    // Private browsing without storage: collapsed for this visit only.
  }
  for (const l of collapseListeners) l();
}

/** The ids of the server's collapsed categories. */
function useCollapsed(serverId: string): ReadonlySet<string> {
  const raw = useSyncExternalStore(
    (l) => {
      collapseListeners.add(l);
      return () => collapseListeners.delete(l);
    },
    () => readCollapsed(serverId),
  );
  return new Set(JSON.parse(raw) as string[]);
}

// ---------------------------------------------------------------- touch

/**
 * The kind of pointer last pressed: on touch screens a long press opens the menu, so it
 * must not start a drag too (Chromium drags draggable elements on a long touch).
 */
let lastPointerType = 'mouse';
if (typeof window !== 'undefined')
  window.addEventListener(
    'pointerdown',
    (e) => {
      lastPointerType = e.pointerType;
    },
    { capture: true, passive: true },
  );

// ---------------------------------------------------------------- the list

interface Props {
  server: Server;
  activeChannelId: string | null;
  /** The user's server-wide permissions. */
  bits: bigint;
  labelledBy: string;
  /** Opens the notification settings, on a channel's row. */
  onNotify: (channelId: string | null) => void;
}

type Menu = { kind: 'channel' | 'category'; channel: Channel; anchor: ContextMenuAnchor; el: HTMLElement };
type Drop = { id: string; where: 'before' | 'after' | 'into' };

export function ChannelList({ server, activeChannelId, bits, labelledBy, onNotify }: Props) {
  const channels = useStore((s) => s.channels[server.id]);
  const categories = useStore((s) => s.categories[server.id]) ?? [];
  const readStates = useStore((s) => s.readStates);
  const settings = useStore((s) => s.settings);
  const meId = useStore((s) => s.me?.id);
  const threads = useStore((s) => s.threads);
  const openThreadId = match('/s/:serverId/c/:channelId/t/:threadId', usePath())?.threadId ?? null;
  const collapsed = useCollapsed(server.id);
  const manage = can(bits, P.MANAGE_CHANNELS);
  const [menu, setMenu] = useState<Menu | null>(null);
  const [dragging, setDragging] = useState<{ id: string; category: boolean } | null>(null);
  const [drop, setDrop] = useState<Drop | null>(null);

  const list = channels ?? [];
  const groups = channelGroups(list, categories);
  const move = useCallback(
    (moves: ChannelMove[]) => {
      reorderChannels(server.id, moves).catch(toastError);
    },
    [server.id],
  );
  const unreadOf = (c: Channel) => !notifyRule(settings, server.id, c.id).muted && isUnread({ readStates }, c.id, c.lastMessageId);

  const channelMenu = (c: Channel): ContextMenuItem[] => [
    {
      id: 'mark-read',
      label: t('sidebar.menu.markRead'),
      disabled: !isUnread({ readStates }, c.id, c.lastMessageId),
      onSelect: () => markRead(c.id),
    },
    { id: 'notifications', label: t('sidebar.menu.notifications'), onSelect: () => onNotify(c.id) },
    {
      id: 'copy-link',
      label: t('sidebar.menu.copyLink'),
      onSelect: () => {
        copyText(`${location.origin}${paths.channel(server.id, c.id)}`)
          .then(() => toast(t('sidebar.menu.linkCopied')))
          .catch(toastError);
      },
    },
    ...(canOpenSettings(bits, server.ownerId === meId) && (manage || can(bits, P.MANAGE_ROLES))
      ? [{ id: 'settings', label: t('sidebar.menu.settings'), onSelect: () => navigate(paths.settings(server.id, 'channels')) }]
      : []),
    ...moveItems(c.id),
  ];
  const categoryMenu = (cat: Channel): ContextMenuItem[] => {
    const inside = list.filter((c) => c.parentId === cat.id);
    return [
      {
        id: 'mark-read',
        label: t('sidebar.menu.markCategoryRead'),
        disabled: !inside.some((c) => isUnread({ readStates }, c.id, c.lastMessageId)),
        onSelect: () => {
          for (const c of inside) markRead(c.id);
        },
      },
      {
        id: 'collapse',
        label: collapsed.has(cat.id) ? t('sidebar.menu.expand') : t('sidebar.menu.collapse'),
        onSelect: () => setCollapsed(server.id, cat.id, !collapsed.has(cat.id)),
      },
      ...moveItems(cat.id),
    ];
  };
  function moveItems(id: string): ContextMenuItem[] {
    if (!manage) return [];
    const up = stepMove(list, categories, id, -1);
    const down = stepMove(list, categories, id, 1);
    return [
      { id: 'move-up', label: t('sidebar.menu.moveUp'), hint: 'Ctrl+↑', disabled: up.length === 0, onSelect: () => move(up) },
      { id: 'move-down', label: t('sidebar.menu.moveDown'), hint: 'Ctrl+↓', disabled: down.length === 0, onSelect: () => move(down) },
    ];
  }

  /** Ctrl+↑/↓ on a focused row moves it (managers), keeping focus on it. */
  const onMoveKey = (e: KeyboardEvent<HTMLElement>, id: string) => {
    if (!manage || !e.ctrlKey || e.altKey || e.shiftKey || e.metaKey) return;
    if (e.key !== 'ArrowUp' && e.key !== 'ArrowDown') return;
    e.preventDefault();
    move(stepMove(list, categories, id, e.key === 'ArrowUp' ? -1 : 1));
  };

  // Dragging (managers): a channel before or after another, or into a category's header; a category among categories.
  const dragProps = (id: string, category: boolean) =>
    manage
      ? {
          draggable: true,
          onDragStart: (e: DragEvent<HTMLElement>) => {
            if (lastPointerType === 'touch') {
              e.preventDefault();
              return;
            }
            e.dataTransfer.effectAllowed = 'move';
            e.dataTransfer.setData('text/plain', id);
            setDragging({ id, category });
          },
          onDragEnd: () => {
            setDragging(null);
            setDrop(null);
          },
        }
      : {};
  const dropProps = (target: Channel, isCategory: boolean) => {
    if (!manage || !dragging || dragging.id === target.id) return {};
    // A category only moves among categories.
    if (dragging.category && !isCategory) return {};
    const whereOf = (e: DragEvent<HTMLElement>): Drop['where'] => {
      if (isCategory && !dragging.category) return 'into';
      const r = e.currentTarget.getBoundingClientRect();
      return e.clientY < r.top + r.height / 2 ? 'before' : 'after';
    };
    return {
      onDragOver: (e: DragEvent<HTMLElement>) => {
        e.preventDefault();
        e.dataTransfer.dropEffect = 'move';
        const where = whereOf(e);
        if (drop?.id !== target.id || drop.where !== where) setDrop({ id: target.id, where });
      },
      onDragLeave: () => setDrop((d) => (d?.id === target.id ? null : d)),
      onDrop: (e: DragEvent<HTMLElement>) => {
        e.preventDefault();
        const where = whereOf(e);
        const id = dragging.id;
        setDragging(null);
        setDrop(null);
        if (where === 'into') return move(moveTo(list, categories, id, target.id, 0));
        if (isCategory) {
          const order = categories
            .slice()
            .sort((a, b) => (a.position ?? 0) - (b.position ?? 0))
            .filter((c) => c.id !== id);
          const at = order.findIndex((c) => c.id === target.id) + (where === 'after' ? 1 : 0);
          return move(moveTo(list, categories, id, null, at));
        }
        const group = groups.find((g) => g.channels.some((c) => c.id === target.id));
        const rest = (group?.channels ?? []).filter((c) => c.id !== id);
        const at = rest.findIndex((c) => c.id === target.id) + (where === 'after' ? 1 : 0);
        move(moveTo(list, categories, id, group?.category?.id ?? null, at));
      },
    };
  };
  const dropMark = (id: string) => (drop?.id === id ? drop.where : undefined);

  /**
   * The threads listed under a channel, as on Discord: the active ones the person follows,
   * the open one, and the few others active in the last hour.
   */
  const threadsUnder = (c: Channel): Thread[] => {
    const recent = Date.now() - RECENT_MS;
    const under = Object.values(threads).filter((th) => th.parentId === c.id);
    // A forum's posts are its own list: only the followed ones and the open one show here.
    const recentCounts = !isForum(c);
    const shown = under.filter(
      (th) =>
        th.id === openThreadId || (!th.metadata.archived && (!!th.member || (recentCounts && snowflakeTime(lastActivity(th)) > recent))),
    );
    return shown.sort((a, b) => compareIds(lastActivity(b), lastActivity(a))).slice(0, MAX_THREADS);
  };
  const threadUnread = (th: Thread) => !!th.member && !threadMuted({ settings }, th) && isUnread({ readStates }, th.id, th.lastMessageId);

  const row = (c: Channel) => (
    <ChannelRow
      threads={threadsUnder(c).map((th) => (
        <ThreadRow
          key={th.id}
          thread={th}
          active={th.id === openThreadId}
          unread={threadUnread(th)}
          mentions={th.member && isUnread({ readStates }, th.id, th.lastMessageId) ? mentionsIn({ readStates }, th.id) : 0}
        />
      ))}
      key={c.id}
      channel={c}
      serverId={server.id}
      active={c.id === activeChannelId}
      unread={unreadOf(c)}
      muted={notifyRule(settings, server.id, c.id).muted}
      mentions={isUnread({ readStates }, c.id, c.lastMessageId) ? mentionsIn({ readStates }, c.id) : 0}
      onMenu={(anchor, el) => setMenu({ kind: 'channel', channel: c, anchor, el })}
      onKeyDown={(e) => onMoveKey(e, c.id)}
      drag={{ ...dragProps(c.id, false), ...dropProps(c, false) }}
      dropMark={dropMark(c.id)}
    />
  );

  return (
    <>
      {groups.map((g) => {
        if (!g.category)
          return (
            <ul key="top" className={styles.channelList} aria-labelledby={labelledBy}>
              {g.channels.map(row)}
              {!channels && <li className="empty-note">{t('sidebar.loading')}</li>}
              {channels && list.length === 0 && categories.length === 0 && <li className="empty-note">{t('sidebar.noChannelsYet')}</li>}
            </ul>
          );
        const cat = g.category;
        const shut = collapsed.has(cat.id);
        // Collapsed: still the unread channels and the open one, as Discord does.
        const shown = shut ? g.channels.filter((c) => c.id === activeChannelId || unreadOf(c)) : g.channels;
        return (
          <div key={cat.id} className={styles.category} data-category={cat.id}>
            <CategoryHeader
              category={cat}
              collapsed={shut}
              onToggle={() => setCollapsed(server.id, cat.id, !shut)}
              onMenu={(anchor, el) => setMenu({ kind: 'category', channel: cat, anchor, el })}
              onKeyDown={(e) => onMoveKey(e, cat.id)}
              drag={{ ...dragProps(cat.id, true), ...dropProps(cat, true) }}
              dropMark={dropMark(cat.id)}
            />
            <ul id={`category-${cat.id}`} className={styles.channelList} aria-label={cat.name}>
              {shown.map(row)}
            </ul>
          </div>
        );
      })}
      {menu && (
        <ContextMenu
          items={menu.kind === 'channel' ? channelMenu(menu.channel) : categoryMenu(menu.channel)}
          anchor={menu.anchor}
          returnFocus={menu.el}
          label={t('sidebar.menu.optionsFor', { name: menu.channel.name })}
          testId={menu.kind === 'channel' ? 'channel-menu' : 'category-menu'}
          onClose={() => setMenu(null)}
        />
      )}
    </>
  );
}

interface RowProps {
  channel: Channel;
  /** The thread rows under it. */
  threads: React.ReactNode[];
  serverId: string;
  active: boolean;
  unread: boolean;
  muted: boolean;
  mentions: number;
  onMenu: (anchor: ContextMenuAnchor, el: HTMLElement) => void;
  onKeyDown: (e: KeyboardEvent<HTMLElement>) => void;
  drag: Record<string, unknown>;
  dropMark: Drop['where'] | undefined;
}

function ChannelRow({ channel: c, threads, serverId, active, unread, muted, mentions, onMenu, onKeyDown, drag, dropMark }: RowProps) {
  const trigger = useContextMenuTrigger(onMenu);
  return (
    <li data-drop={dropMark}>
      <Link
        to={paths.channel(serverId, c.id)}
        className={`${styles.channelLink}${active ? ` ${styles.active}` : ''}${unread ? ` ${styles.unread}` : ''}${muted ? ` ${styles.muted}` : ''}`}
        aria-current={active ? 'page' : undefined}
        data-unread={unread ? '' : undefined}
        data-channel={c.id}
        {...trigger}
        {...drag}
        onKeyDown={(e) => {
          trigger.onKeyDown?.(e);
          onKeyDown(e);
        }}
      >
        <span className={styles.channelHash} aria-hidden="true">
          {isForum(c) ? <ForumIcon size={15} /> : isPrivate(c) ? <LockIcon size={14} className={styles.channelLock} /> : '#'}
        </span>
        <span className={styles.channelName}>{c.name}</span>
        {isPrivate(c) && <span className="visually-hidden"> {t('sidebar.private')}</span>}
        {unread && <span className="visually-hidden"> {t('sidebar.unread')}</span>}
        {muted && <span className="visually-hidden"> {t('sidebar.muted')}</span>}
        <MentionBadge count={mentions} className={styles.channelBadge} />
      </Link>
      {threads.length > 0 && (
        <ul className={styles.threadList} aria-label={t('threads.threadsOf', { channel: c.name })}>
          {threads}
        </ul>
      )}
    </li>
  );
}

/** How recent a thread's last message must be to list it without following it. */
const RECENT_MS = 60 * 60 * 1000;
/** At most this many threads under one channel. */
const MAX_THREADS = 8;

function ThreadRow({ thread: th, active, unread, mentions }: { thread: Thread; active: boolean; unread: boolean; mentions: number }) {
  return (
    <li className={styles.threadItem}>
      <Link
        to={paths.thread(th.serverId, th.parentId, th.id)}
        className={`${styles.channelLink} ${styles.threadLink}${active ? ` ${styles.active}` : ''}${unread ? ` ${styles.unread}` : ''}`}
        aria-current={active ? 'page' : undefined}
        data-unread={unread ? '' : undefined}
        data-thread={th.id}
      >
        <span className={styles.threadSpine} aria-hidden="true" />
        <span className={styles.channelName}>{th.name}</span>
        {th.type === 'private_thread' && <span className="visually-hidden"> {t('sidebar.private')}</span>}
        {unread && <span className="visually-hidden"> {t('sidebar.unread')}</span>}
        <MentionBadge count={mentions} className={styles.channelBadge} />
      </Link>
    </li>
  );
}

interface HeaderProps {
  category: Channel;
  collapsed: boolean;
  onToggle: () => void;
  onMenu: (anchor: ContextMenuAnchor, el: HTMLElement) => void;
  onKeyDown: (e: KeyboardEvent<HTMLElement>) => void;
  drag: Record<string, unknown>;
  dropMark: Drop['where'] | undefined;
}

function CategoryHeader({ category, collapsed, onToggle, onMenu, onKeyDown, drag, dropMark }: HeaderProps) {
  const trigger = useContextMenuTrigger(onMenu);
  return (
    <h2 className={styles.categoryHeading} data-drop={dropMark}>
      <button
        type="button"
        className={styles.categoryToggle}
        aria-expanded={!collapsed}
        aria-controls={`category-${category.id}`}
        data-category-toggle={category.id}
        onClick={onToggle}
        {...trigger}
        {...drag}
        onKeyDown={(e) => {
          trigger.onKeyDown?.(e);
          onKeyDown(e);
        }}
      >
        <span className={styles.categoryChevron} aria-hidden="true">
          <ChevronIcon size={12} />
        </span>
        <span className={styles.categoryName}>{category.name}</span>
      </button>
    </h2>
  );
}
