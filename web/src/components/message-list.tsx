import { Fragment, type ReactNode, useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { compareIds } from '@parley/protocol/ids';
import type { Channel, Message } from '../api/types';
import { loadLatest, loadOlder } from '../state/actions';
import { jumpDone, loadNewer, useConversation } from '../state/conversation';
import { useStore } from '../state/store';
import { formatDay, isSameDay, minutesBetween } from '../lib/format';
import { useInteractions } from '../state/interactions';
import { MessageItem } from './message-item';
import { PendingCommands } from './message-interactions';
import { firstUnreadId, UnreadBar, UnreadDivider, useReadTracking, useUnreadMarker } from './unread-marker';
import styles from './message-list.module.css';

interface Props {
  channel: Channel;
  /** MANAGE_MESSAGES here: may delete anyone's message. */
  canModerate: boolean;
  editingId: string | null;
  onEdit: (id: string | null) => void;
  /** How the list names its conversation (default `#name`; a DM's is `@name` or the group's). */
  label?: string;
  /** The start of the conversation, instead of "Welcome to #name". */
  intro?: ReactNode;
}

const GROUP_MINUTES = 7;
/** Where the "new messages" divider lands when a channel opens: below the bar, with the message before it in view. */
const UNREAD_OFFSET = 130;

function groupedWith(prev: Message | undefined, m: Message): boolean {
  if (!prev) return false;
  if (m.messageReference) return false; // a reply shows its quote line, under a header
  if (m.interaction?.type === 'command') return false; // so does an answer to a command
  if (!!prev.ephemeral !== !!m.ephemeral) return false;
  if (prev.author?.id !== m.author?.id) return false;
  if ((prev.webhookId ?? null) !== (m.webhookId ?? null)) return false;
  if (prev.author?.name !== m.author?.name) return false; // webhook per-message names
  return minutesBetween(prev.createdAt, m.createdAt) < GROUP_MINUTES;
}

/** The channel's messages, newest at the bottom; scrolling up loads older pages. */
export function MessageList({ channel, canModerate, editingId, onEdit, label, intro }: Props) {
  const data = useStore((s) => s.messages[channel.id]);
  const meId = useStore((s) => s.me?.id);
  const scroller = useRef<HTMLDivElement>(null);
  const content = useRef<HTMLOListElement>(null);
  const stick = useRef(true);
  const lastHeight = useRef(0);
  const firstId = useRef<string | null>(null);
  const lastId = useRef<string | null>(null);
  const [away, setAway] = useState(false);
  const jump = useConversation((s) => (s.jump?.channelId === channel.id ? s.jump : null));
  const hasNewer = !!data?.hasNewer;
  const hasNewerRef = useRef(hasNewer);
  hasNewerRef.current = hasNewer;
  /** The first page has been placed (at the first unread message, or at the bottom). */
  const placed = useRef(false);

  const history = data?.items ?? [];
  // This session's ephemeral messages are shown among the history (they are never in it).
  const ephemeral = useInteractions((s) => s.ephemeral[channel.id]);
  const items = useMemo(() => {
    if (!ephemeral?.length) return history;
    const newest = history[history.length - 1];
    // While a window of older history is shown, newer ones wait for the present, as new messages do.
    const shown = ephemeral.filter((m) => !data?.hasNewer || !newest || compareIds(m.id, newest.id) <= 0);
    return [...history, ...shown].sort((a, b) => compareIds(a.id, b.id));
  }, [history, ephemeral, data?.hasNewer]);
  const marker = useUnreadMarker(channel.id, channel.lastMessageId);
  const dividerId = firstUnreadId(history, marker, data?.hasMore ?? true);
  useReadTracking(channel.id, scroller, data?.loaded ? history[history.length - 1]?.id : undefined);

  // A jump (a reply's quote line, a pin) stops following the bottom at once, so the
  // history loaded around the target is not scrolled away from.
  useLayoutEffect(() => {
    if (jump) stick.current = false;
  }, [jump]);

  // Once the target is drawn: bring it to the middle and flash it.
  useEffect(() => {
    if (!jump) return;
    const target = content.current?.querySelector<HTMLElement>(`[data-message-id="${CSS.escape(jump.messageId)}"]`);
    if (!target) return;
    stick.current = false;
    target.scrollIntoView({ block: 'center' });
    target.removeAttribute('data-flash');
    void target.offsetWidth; // restart the animation when flashing the same message again
    target.setAttribute('data-flash', '');
    // The flash outlives this effect (the jump ends now); the element may be gone by then.
    window.setTimeout(() => target.removeAttribute('data-flash'), 2200);
    jumpDone(jump.seq);
  }, [jump, items]);

  useEffect(() => {
    if (!data || !data.loaded || data.stale) void loadLatest(channel.id);
  }, [channel.id, data?.loaded, data?.stale]);

  // Keep the view anchored: at the bottom when following, on the same message when
  // older history is prepended above.
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const first = items[0]?.id ?? null;
    const last = items[items.length - 1];
    // Sending a message brings you back to the present.
    if (last && lastId.current && last.id !== lastId.current && last.author?.id === meId) stick.current = true;
    lastId.current = last?.id ?? null;
    // Opening a channel with unread messages shows them from the first one, under the divider.
    if (!placed.current && data?.loaded) {
      placed.current = true;
      const divider = el.querySelector<HTMLElement>('[data-unread-divider]');
      if (divider && divider.offsetTop - UNREAD_OFFSET < el.scrollHeight - el.clientHeight) {
        el.scrollTop = Math.max(0, divider.offsetTop - UNREAD_OFFSET);
        stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < 48;
      }
    }
    if (stick.current) {
      el.scrollTop = el.scrollHeight;
    } else if (firstId.current && first !== firstId.current && lastHeight.current) {
      el.scrollTop += el.scrollHeight - lastHeight.current;
    }
    firstId.current = first;
    lastHeight.current = el.scrollHeight;
  }, [items, meId, data?.loaded]);

  // Images and embeds change height after load; stay at the bottom if we were there.
  useEffect(() => {
    const el = scroller.current;
    const inner = content.current;
    if (!el || !inner || typeof ResizeObserver === 'undefined') return;
    const ro = new ResizeObserver(() => {
      if (stick.current) el.scrollTop = el.scrollHeight;
      lastHeight.current = el.scrollHeight;
    });
    ro.observe(inner);
    return () => ro.disconnect();
  }, []);

  // If the first page does not fill the view, fetch more so scrolling can work.
  useEffect(() => {
    const el = scroller.current;
    if (!el || !data?.loaded || data.loading || !data.hasMore || data.error) return;
    if (el.scrollHeight <= el.clientHeight + 40) void loadOlder(channel.id);
  }, [channel.id, data?.loaded, data?.loading, data?.hasMore, data?.error, items.length]);

  const onScroll = useCallback(() => {
    const el = scroller.current;
    if (!el) return;
    const fromBottom = el.scrollHeight - el.scrollTop - el.clientHeight;
    // In a window of older history the bottom is not the present: nothing to follow there.
    stick.current = fromBottom < 48 && !hasNewerRef.current;
    lastHeight.current = el.scrollHeight;
    setAway(fromBottom > 600);
    if (el.scrollTop < 400) void loadOlder(channel.id);
    if (hasNewerRef.current && fromBottom < 400) void loadNewer(channel.id);
  }, [channel.id]);

  const jumpToPresent = () => {
    const el = scroller.current;
    if (!el) return;
    stick.current = true;
    el.scrollTop = el.scrollHeight;
    setAway(false);
    // From older history: the newest page replaces the window, and the list follows it down.
    if (hasNewerRef.current) void loadLatest(channel.id);
  };

  const showStart = data?.loaded && !data.hasMore;
  const name = label ?? `#${channel.name}`;

  const jumpToUnread = () => {
    const el = scroller.current;
    const divider = el?.querySelector<HTMLElement>('[data-unread-divider]');
    if (el && divider) {
      stick.current = false;
      el.scrollTop = Math.max(0, divider.offsetTop - UNREAD_OFFSET);
    } else if (el) {
      el.scrollTop = 0;
    }
  };

  return (
    <div className={styles.messageScroller} ref={scroller} onScroll={onScroll} role="log" aria-label={`Messages in ${name}`} tabIndex={0}>
      <UnreadBar channelId={channel.id} items={history} hasMore={data?.hasMore ?? false} onJump={jumpToUnread} />
      <div className={styles.messageListTop}>
        {showStart && intro}
        {showStart && !intro && (
          <div className={styles.channelStart}>
            <div className={styles.channelStartIcon} aria-hidden="true">
              #
            </div>
            <h2>Welcome to #{channel.name}</h2>
            <p>This is the start of the #{channel.name} channel.</p>
          </div>
        )}
        {data?.loading && <div className={styles.loadingRow}>Loading messages…</div>}
        {data?.error && (
          <div className={styles.loadError} role="alert">
            Could not load messages: {data.error}{' '}
            <button
              type="button"
              className="link-button"
              onClick={() => void (items.length ? loadOlder(channel.id) : loadLatest(channel.id))}
            >
              Try again
            </button>
          </div>
        )}
      </div>
      <ol className={styles.messageList} ref={content}>
        {items.map((m, i) => {
          const prev = items[i - 1];
          const newDay = !prev || !isSameDay(prev.createdAt, m.createdAt);
          return (
            <Fragment key={m.id}>
              {newDay && (
                <li className={styles.dayDivider} role="separator" aria-label={formatDay(m.createdAt)}>
                  <span>{formatDay(m.createdAt)}</span>
                </li>
              )}
              {m.id === dividerId && <UnreadDivider />}
              <MessageItem
                message={m}
                grouped={!newDay && m.id !== dividerId && groupedWith(prev, m)}
                mine={!!meId && m.author?.id === meId}
                canDelete={(!!meId && m.author?.id === meId && !m.webhookId) || canModerate}
                editing={editingId === m.id}
                onEdit={onEdit}
              />
            </Fragment>
          );
        })}
        <PendingCommands channelId={channel.id} />
      </ol>
      {(away || hasNewer) && (
        <button type="button" className={styles.jumpPresent} onClick={jumpToPresent}>
          Jump to present ↓
        </button>
      )}
    </div>
  );
}
