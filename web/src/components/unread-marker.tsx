/**
 * Where the person left off in a channel: the "new messages" divider in the list, and the
 * bar above it that counts what is unread and marks it read (a click, or Escape).
 */
import { compareIds } from '@parley/protocol/ids';
import { type RefObject, useEffect, useRef, useState } from 'react';
import type { Message } from '../api/types';
import { formatClock, formatMessageTime, isSameDay } from '../lib/format';
import { NEVER_READ } from '../state/conversations-reducer';
import { ackIfReading, isUnread, markRead, reading, releaseUnread } from '../state/conversations';
import { setOnScreen } from '../lib/tabs';
import { useStore } from '../state/store';
import { t } from '../i18n';
import styles from './unread-marker.module.css';

/**
 * The read position to mark in the list: the one the channel had when it was opened, if it
 * was unread then, or the one it had when new messages arrived unseen. It stays for the
 * visit, so reading to the end does not take the divider away.
 */
export function useUnreadMarker(channelId: string, lastMessageId: string | null | undefined): string | null {
  const lastRead = useStore((s) => s.readStates[channelId]?.lastReadId ?? NEVER_READ);
  const unread = useStore((s) => isUnread(s, channelId, lastMessageId));
  const [marker, setMarker] = useState<string | null>(() => (unread ? lastRead : null));
  useEffect(() => {
    if (unread && marker === null) setMarker(lastRead);
  }, [unread, marker, lastRead]);
  return marker;
}

/** The first message after the marker, when the list holds the one before it. */
export function firstUnreadId(items: Message[], marker: string | null, hasMore: boolean): string | null {
  if (marker === null) return null;
  const idx = items.findIndex((m) => compareIds(m.id, marker) > 0);
  // Above the channel's very first message, a channel never read before: nothing to mark.
  if (idx < 0 || (idx === 0 && (hasMore || marker === NEVER_READ))) return null;
  return items[idx]?.id ?? null;
}

export function UnreadDivider() {
  return (
    // biome-ignore lint/a11y/useSemanticElements: an <hr> cannot hold the label
    <div className={styles.divider} role="separator" aria-label={t('messageList.newMessagesDivider')} data-unread-divider="">
      <span className={styles.dividerLabel} aria-hidden="true">
        {t('messageList.newLabel')}
      </span>
    </div>
  );
}

/**
 * Keeps the read state following the person: this list is the channel on screen, and when
 * it is scrolled to the newest message in a visible, focused window the newest message is
 * acknowledged (on scrolling, focusing, or a message arriving).
 */
export function useReadTracking(
  channelId: string,
  scroller: RefObject<HTMLElement | null>,
  newestId: string | undefined,
  /**
   * Whether the list shows its newest message, when the list knows better than the
   * scroller's geometry (a virtualised list, whose height is an estimate while it settles).
   */
  atBottom?: boolean,
): void {
  const bottomRef = useRef(atBottom);
  bottomRef.current = atBottom;
  useEffect(() => {
    const el = scroller.current;
    reading.set(channelId, false);
    setOnScreen(channelId);
    const check = () => {
      if (bottomRef.current !== undefined) reading.set(channelId, bottomRef.current);
      else if (el) reading.set(channelId, el.scrollHeight - el.scrollTop - el.clientHeight < 48);
      ackIfReading(channelId);
    };
    check();
    el?.addEventListener('scroll', check, { passive: true });
    window.addEventListener('focus', check);
    document.addEventListener('visibilitychange', check);
    return () => {
      el?.removeEventListener('scroll', check);
      window.removeEventListener('focus', check);
      document.removeEventListener('visibilitychange', check);
      reading.delete(channelId);
      // A thread panel closing leaves its channel on screen.
      setOnScreen([...reading.keys()].pop() ?? null);
      releaseUnread(channelId);
    };
  }, [channelId, scroller]);

  // A new message, or the first page: acknowledge it if the person sees it.
  useEffect(() => {
    const el = scroller.current;
    if (reading.has(channelId)) {
      if (atBottom !== undefined) reading.set(channelId, atBottom);
      else if (el) reading.set(channelId, el.scrollHeight - el.scrollTop - el.clientHeight < 48);
    }
    if (newestId) ackIfReading(channelId);
  }, [channelId, scroller, newestId, atBottom]);
}

interface BarProps {
  channelId: string;
  items: Message[];
  hasMore: boolean;
  /** Scrolls the first unread message into view. */
  onJump: () => void;
}

/** "5 new messages since 14:02 — Mark as read", while unread messages remain. */
export function UnreadBar({ channelId, items, hasMore, onJump }: BarProps) {
  const lastRead = useStore((s) => s.readStates[channelId]?.lastReadId ?? NEVER_READ);
  const meId = useStore((s) => s.me?.id);
  const unread = items.filter((m) => compareIds(m.id, lastRead) > 0 && m.author?.id !== meId);
  const count = unread.length;

  useEffect(() => {
    if (!count) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape' || e.defaultPrevented || e.isComposing) return;
      // Escape belongs to an open dialog or menu first.
      if (document.querySelector('dialog[open], [role="menu"], [role="listbox"]')) return;
      markRead(channelId);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [channelId, count]);

  const first = unread[0];
  if (!count || !first) return null;
  const more = hasMore && items[0] !== undefined && compareIds(items[0].id, lastRead) > 0;
  const since = isSameDay(first.createdAt, new Date().toISOString()) ? formatClock(first.createdAt) : formatMessageTime(first.createdAt);
  const text = more ? t('messageList.unreadSinceMore', { count, since }) : t('messageList.unreadSince', { count, since });
  return (
    <div className={styles.bar} role="status" data-testid="unread-bar">
      <button type="button" className={styles.barJump} onClick={onJump} title={t('messageList.jumpToFirstUnread')}>
        {text}
      </button>
      <button type="button" className={styles.barMark} onClick={() => markRead(channelId)} aria-keyshortcuts="Escape">
        {t('messageList.markAsRead')}
      </button>
    </div>
  );
}
