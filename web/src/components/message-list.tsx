import {
  type ComponentProps,
  type FocusEvent,
  forwardRef,
  type KeyboardEvent,
  type ReactNode,
  useCallback,
  useEffect,
  useMemo,
  useRef,
  useState,
} from 'react';
import { type ItemProps, type ListProps, Virtuoso, type VirtuosoHandle } from 'react-virtuoso';
import { compareIds } from '@parley/protocol/ids';
import type { Channel, Message } from '../api/types';
import { loadLatest, loadOlder } from '../state/actions';
import { jumpDone, loadNewer, useConversation } from '../state/conversation';
import { type ChannelMessages, useStore } from '../state/store';
import { formatDay, isSameDay, minutesBetween } from '../lib/format';
import { useInteractions } from '../state/interaction-store';
import { BlockedFold, type Fold, foldBlocked } from './blocked-fold';
import { JoinLine, MessageItem } from './message-item';
import { PendingCommands } from './message-interactions';
import { firstUnreadId, UnreadBar, UnreadDivider, useReadTracking, useUnreadMarker } from './unread-marker';
import { t } from '../i18n';
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
/**
 * Virtuoso's index of the first row held. Older pages lower it by the number of rows they
 * add, which is how the list keeps the rows on screen where they were.
 */
const BASE_INDEX = 10_000_000;
/** How long the view must hold still after opening before the list counts as settled (Virtuoso retries within 150 ms). */
const SETTLE_MS = 250;
/** How near the bottom (px) the view must rest for rows growing there to keep it at the bottom. */
const PIN_SLACK = 4;
/** Rows moved by PageUp and PageDown. */
const PAGE_ROWS = 8;
/** What may take focus inside a message (its own tab stops, taken out while it is not the current one). */
const FOCUSABLE = 'a[href], button, input, select, textarea, summary, audio[controls], video[controls], [tabindex]';

function groupedWith(prev: Message | undefined, m: Message): boolean {
  if (!prev) return false;
  if (prev.type === 'join' || m.type === 'join') return false; // a welcome line stands alone
  if (m.messageReference) return false; // a reply shows its quote line, under a header
  if (m.interaction?.type === 'command') return false; // so does an answer to a command
  if (!!prev.ephemeral !== !!m.ephemeral) return false;
  if (prev.author?.id !== m.author?.id) return false;
  if ((prev.webhookId ?? null) !== (m.webhookId ?? null)) return false;
  if (prev.author?.name !== m.author?.name) return false; // webhook per-message names
  return minutesBetween(prev.createdAt, m.createdAt) < GROUP_MINUTES;
}

/** One row of the list: a message, with the day separator and "new" divider that come before it. */
interface Row {
  message: Message;
  newDay: boolean;
  unread: boolean;
  grouped: boolean;
  /** The first message of a run by blocked people: folded into one line, or shown under one. */
  fold?: Fold;
}

/** What the list's rows and its header and footer read (Virtuoso's `context`). */
interface ListContext {
  channel: Channel;
  data: ChannelMessages | undefined;
  intro?: ReactNode;
  meId: string | undefined;
  canModerate: boolean;
  editingId: string | null;
  onEdit: (id: string | null) => void;
  /** The message holding the list's one tab stop. */
  currentId: string | null;
  retry: () => void;
  /** Shows or hides a run of blocked people's messages. */
  toggleFold: (fold: Fold, show: boolean) => void;
}

/**
 * The channel's messages, newest at the bottom, virtualised: only the rows near the view
 * are in the DOM. Scrolling up loads older pages (kept in place by Virtuoso's
 * `firstItemIndex`); new messages are followed while the view is at the bottom. The list
 * is one tab stop: arrow keys move between messages, Tab enters the current one.
 */
export function MessageList({ channel, canModerate, editingId, onEdit, label, intro }: Props) {
  const data = useStore((s) => s.messages[channel.id]);
  const meId = useStore((s) => s.me?.id);
  const virtuoso = useRef<VirtuosoHandle>(null);
  const [scroller, setScroller] = useState<HTMLElement | null>(null);
  const scrollerRef = useMemo(() => ({ current: scroller }), [scroller]);
  /** Virtuoso's word: the newest row is in view (false until the list has settled). */
  const [atBottom, setAtBottom] = useState(false);
  /** Messages that arrived while the view was away from the bottom. */
  const [unseen, setUnseen] = useState(0);
  const [activeId, setActiveId] = useState<string | null>(null);
  /** The rendered rows, as Virtuoso's absolute indexes. */
  const [range, setRange] = useState<{ startIndex: number; endIndex: number } | null>(null);
  const jump = useConversation((s) => (s.jump?.channelId === channel.id ? s.jump : null));
  const hasNewer = !!data?.hasNewer;

  const history = data?.items ?? [];
  // This session's ephemeral messages are shown among the history (they are never in it).
  const ephemeral = useInteractions((s) => s.ephemeral[channel.id]);
  const held = useMemo(() => {
    if (!ephemeral?.length) return history;
    const newest = history[history.length - 1];
    // While a window of older history is shown, newer ones wait for the present, as new messages do.
    const shown = ephemeral.filter((m) => !data?.hasNewer || !newest || compareIds(m.id, newest.id) <= 0);
    return [...history, ...shown].sort((a, b) => compareIds(a.id, b.id));
  }, [history, ephemeral, data?.hasNewer]);
  // While older history remains, the oldest message held is not drawn: it is the context the
  // first drawn row is grouped and dated against. So that row looks the same before and after
  // the older page arrives (no header or day separator that vanishes), and the rows on screen
  // do not move when it does.
  const hasMore = data?.hasMore ?? true;
  const before = hasMore && held.length > 1 ? held[0] : undefined;
  const unfolded = useMemo(() => (before ? held.slice(1) : held), [held, before]);
  // Blocked people's messages fold into one line a run (blocked-fold.tsx); a jump's target shows.
  const blocked = useStore((s) => s.blocked);
  const [revealed, setRevealed] = useState<ReadonlySet<string>>(() => new Set());
  const jumpedTo = jump?.messageId;
  const { items, folds } = useMemo(() => {
    const reveal = jumpedTo ? new Set([...revealed, jumpedTo]) : revealed;
    return foldBlocked(unfolded, blocked, reveal);
  }, [unfolded, blocked, revealed, jumpedTo]);
  // A jump to a folded message shows its run, and it stays shown after the jump.
  useEffect(() => {
    if (jumpedTo) setRevealed((prev) => (prev.has(jumpedTo) ? prev : new Set(prev).add(jumpedTo)));
  }, [jumpedTo]);
  const toggleFold = useCallback((fold: Fold, show: boolean) => {
    // Focus goes where the run is: its first message when shown, the fold line when hidden.
    const first = fold.ids[0];
    if (first)
      requestAnimationFrame(() =>
        document.querySelector<HTMLElement>(`[data-message-id="${CSS.escape(first)}"]`)?.focus({ preventScroll: true }),
      );
    setRevealed((prev) => {
      const next = new Set(prev);
      for (const id of fold.ids) {
        if (show) next.add(id);
        else next.delete(id);
      }
      return next;
    });
  }, []);
  const marker = useUnreadMarker(channel.id, channel.lastMessageId);
  const dividerId = firstUnreadId(history, marker, data?.hasMore ?? true);
  // In a window of older history the bottom is not the present: nothing to read there.
  useReadTracking(channel.id, scrollerRef, data?.loaded ? history[history.length - 1]?.id : undefined, atBottom && !data?.hasNewer);

  const rows = useMemo<Row[]>(
    () =>
      items.map((m, i) => {
        const prev = i === 0 ? before : items[i - 1];
        const newDay = !prev || !isSameDay(prev.createdAt, m.createdAt);
        const fold = folds.get(m.id);
        // The divider falls on a folded message: it goes above the fold.
        const unread = m.id === dividerId || (!!fold && !fold.shown && !!dividerId && fold.ids.includes(dividerId));
        return { message: m, newDay, unread, grouped: !fold && !newDay && !unread && groupedWith(prev, m), fold };
      }),
    [items, before, dividerId, folds],
  );

  // Virtuoso's first index follows what was added or dropped above the rows it holds; a
  // list that is not contiguous with the last one (another window of history) starts over.
  const track = useRef({ items: [] as Message[], first: BASE_INDEX, epoch: 0 });
  const anchor = useRef<{ id: string; top: number } | null>(null);
  if (track.current.items !== items) {
    const t = track.current;
    const oldFirst = t.items[0];
    const newFirst = items[0];
    if (oldFirst && newFirst) {
      const added = items.findIndex((m) => m.id === oldFirst.id);
      const dropped = added < 0 ? t.items.findIndex((m) => m.id === newFirst.id) : -1;
      if (added >= 0) {
        t.first -= added;
        // Older rows above: note where the first message in view is, to hold it there.
        if (added > 0 && scroller) anchor.current = firstInView(scroller);
      } else if (dropped >= 0) t.first += dropped;
      else {
        t.first = BASE_INDEX;
        t.epoch += 1;
      }
    } else if (newFirst) {
      t.first = BASE_INDEX;
      t.epoch += 1;
    }
    t.items = items;
  }
  const firstItemIndex = track.current.first;
  const epoch = track.current.epoch;

  // Virtuoso brings the list to where it opens (the newest message, a jump's target) over a
  // few frames as rows are measured, and puts it back there if rows change within 150 ms of
  // each try. Until the view has held still for a moment the list is busy (aria-busy): the
  // tests wait for that instead of guessing, and assistive technology waits for the rows.
  const [settled, setSettled] = useState(false);
  useEffect(() => {
    if (!scroller) return;
    setSettled(false);
    const start = performance.now();
    let since = start;
    let last = '';
    let raf = 0;
    const tick = () => {
      const now = performance.now();
      const key = `${Math.round(scroller.scrollTop)}:${scroller.scrollHeight}`;
      if (key !== last) {
        last = key;
        since = now;
      }
      if (now - since >= SETTLE_MS || now - start > 3000) setSettled(true);
      else raf = requestAnimationFrame(tick);
    };
    raf = requestAnimationFrame(tick);
    return () => cancelAnimationFrame(raf);
  }, [scroller]);

  // Virtuoso keeps the rows in place when a page is prepended, from its own sums of row
  // heights; those are a few pixels out after some pages (rows of fractional height, rows it
  // has only estimated). So after a prepend the first message in view is held where it was:
  // checked whenever the list resizes (a ResizeObserver runs after Virtuoso's own, before the
  // frame is painted) and each frame, for a second or until the person scrolls.
  // biome-ignore lint/correctness/useExhaustiveDependencies(items): a page prepended is what moves the anchor
  useEffect(() => {
    const el = scroller;
    if (!el || !anchor.current) return;
    const until = performance.now() + 1000;
    let raf = 0;
    const hold = () => {
      const a = anchor.current;
      if (!a) return;
      const target = el.querySelector<HTMLElement>(`[data-message-id="${CSS.escape(a.id)}"]`);
      if (!target) return;
      const moved = target.getBoundingClientRect().top - a.top;
      if (Math.abs(moved) >= 0.5) el.scrollTop += moved;
    };
    const stop = () => {
      anchor.current = null;
      cancelAnimationFrame(raf);
      ro.disconnect();
    };
    const frame = () => {
      hold();
      if (performance.now() < until) raf = requestAnimationFrame(frame);
      else stop();
    };
    const ro = new ResizeObserver(hold);
    for (const child of el.querySelectorAll('ol')) ro.observe(child);
    if (el.firstElementChild) ro.observe(el.firstElementChild);
    raf = requestAnimationFrame(frame);
    const opts = { passive: true, once: true };
    el.addEventListener('wheel', stop, opts);
    el.addEventListener('touchstart', stop, opts);
    el.addEventListener('pointerdown', stop, opts);
    el.addEventListener('keydown', stop, opts);
    return () => {
      cancelAnimationFrame(raf);
      ro.disconnect();
      el.removeEventListener('wheel', stop);
      el.removeEventListener('touchstart', stop);
      el.removeEventListener('pointerdown', stop);
      el.removeEventListener('keydown', stop);
    };
  }, [items, scroller]);

  const itemsRef = useRef(items);
  itemsRef.current = items;
  const hasNewerRef = useRef(hasNewer);
  hasNewerRef.current = hasNewer;
  const opensAtBottom = useRef(true);

  // Virtuoso follows rows that are added at the bottom, not rows that grow there: a reaction
  // on the newest message, an image or preview that loads late. Whether the view rests at
  // the bottom is noted at each scroll; when the content grows while it does, it is put back
  // there (a ResizeObserver runs before the frame is painted, so the row is never seen cut off).
  useEffect(() => {
    const el = scroller;
    if (!el) return;
    const atEnd = () => el.scrollHeight - el.scrollTop - el.clientHeight <= PIN_SLACK;
    // Until the first scroll: whether the list opens at the bottom (not at a jump's target or the unread divider).
    let pinned = opensAtBottom.current;
    const onScroll = () => {
      pinned = atEnd();
    };
    const pin = () => {
      if (pinned && !hasNewerRef.current && !anchor.current && !atEnd()) el.scrollTop = el.scrollHeight;
    };
    const ro = new ResizeObserver(pin);
    const observe = () => {
      const viewport = el.firstElementChild;
      if (!viewport) return;
      // The viewport holds the header, the rows' list and the footer; it is the scroller's height itself.
      for (const child of viewport.children) ro.observe(child);
    };
    observe();
    // Virtuoso draws its header, list and footer after the scroller is handed over.
    const mo = new MutationObserver(observe);
    if (el.firstElementChild) mo.observe(el.firstElementChild, { childList: true });
    el.addEventListener('scroll', onScroll, { passive: true });
    return () => {
      ro.disconnect();
      mo.disconnect();
      el.removeEventListener('scroll', onScroll);
    };
  }, [scroller]);

  // Things to do to a message once Virtuoso draws it: focus it (keyboard), flash it (a jump).
  const pending = useRef<{ focus: string | null; flash: string | null }>({ focus: null, flash: null });

  const flash = useCallback((el: HTMLElement) => {
    el.removeAttribute('data-flash');
    void el.offsetWidth; // restart the animation when flashing the same message again
    el.setAttribute('data-flash', '');
    // The flash outlives the jump; the element may be gone by then.
    window.setTimeout(() => el.removeAttribute('data-flash'), 2200);
  }, []);

  /**
   * The message that last had focus. Virtuoso may take it out of the DOM for a frame while
   * a page is prepended (its range is worked out before the view is corrected); focus then
   * falls to the page, and is given back once the message is drawn again.
   */
  const lastFocused = useRef<{ el: HTMLElement; id: string } | null>(null);

  /** Applies the pending focus and flash, and keeps only the current message's controls in the tab order. */
  const sync = useCallback(() => {
    const root = scroller;
    if (!root) return;
    const lost = lastFocused.current;
    if (lost && !lost.el.isConnected) {
      lastFocused.current = null;
      const now = document.activeElement;
      // Unless focus is on its way elsewhere (a key moved it: the old message scrolled out).
      if ((!now || now === document.body) && !pending.current.focus) pending.current.focus = lost.id;
    }
    for (const article of root.querySelectorAll<HTMLElement>('[data-message-id]')) {
      const current = article.tabIndex === 0;
      for (const el of article.querySelectorAll<HTMLElement>(FOCUSABLE)) {
        const saved = el.getAttribute('data-roving');
        if (current && saved !== null) {
          if (saved === '') el.removeAttribute('tabindex');
          else el.setAttribute('tabindex', saved);
          el.removeAttribute('data-roving');
        } else if (!current && saved === null && el.getAttribute('tabindex') !== '-1') {
          el.setAttribute('data-roving', el.getAttribute('tabindex') ?? '');
          el.setAttribute('tabindex', '-1');
        }
      }
    }
    const p = pending.current;
    if (p.focus) {
      const el = root.querySelector<HTMLElement>(`[data-message-id="${CSS.escape(p.focus)}"]`);
      if (el) {
        p.focus = null;
        el.focus({ preventScroll: true });
        el.scrollIntoView({ block: 'nearest' });
      }
    }
    if (p.flash) {
      const el = root.querySelector<HTMLElement>(`[data-message-id="${CSS.escape(p.flash)}"]`);
      if (el) {
        p.flash = null;
        flash(el);
      }
    }
  }, [scroller, flash]);

  // Rows come and go as the list scrolls, without this component rendering: watch the DOM.
  useEffect(() => {
    if (!scroller) return;
    sync();
    const mo = new MutationObserver(sync);
    mo.observe(scroller, { childList: true, subtree: true, attributes: true, attributeFilter: ['tabindex'] });
    return () => mo.disconnect();
  }, [scroller, sync]);

  // A jump (a reply's quote line, a pin, a search result): once the target is held, bring
  // it to the middle and flash it. Not held yet: the pages around it are on their way.
  // biome-ignore lint/correctness/useExhaustiveDependencies(items): read through itemsRef; a page arriving may bring the target
  useEffect(() => {
    if (!jump) return;
    const index = itemsRef.current.findIndex((m) => m.id === jump.messageId);
    if (index < 0) return;
    pending.current.flash = jump.messageId;
    setActiveId(jump.messageId);
    virtuoso.current?.scrollToIndex({ index, align: 'center' });
    sync();
    jumpDone(jump.seq);
  }, [jump, items, sync]);

  const loaded = data?.loaded;
  const stale = data?.stale;
  useEffect(() => {
    if (!loaded || stale) void loadLatest(channel.id);
  }, [channel.id, loaded, stale]);

  // Counting what arrives below while the view is elsewhere (for the jump button).
  const lastId = items[items.length - 1]?.id;
  const seenLast = useRef(lastId);
  useEffect(() => {
    if (lastId && seenLast.current && lastId !== seenLast.current && !atBottom) setUnseen((n) => n + 1);
    seenLast.current = lastId;
  }, [lastId, atBottom]);
  useEffect(() => {
    if (atBottom) setUnseen(0);
  }, [atBottom]);

  // Virtuoso asks when the rows grow: at the bottom, follow; a message of one's own (just
  // sent) brings the view back to the present. Older pages growing the list above are not new.
  const followedLast = useRef<string | undefined>(undefined);
  if (followedLast.current === undefined) followedLast.current = lastId;
  const followOutput = useCallback(
    (bottom: boolean) => {
      // In a window of older history the bottom is not the present: nothing to follow there.
      if (hasNewerRef.current) return false;
      const last = itemsRef.current[itemsRef.current.length - 1];
      const isNew = !!last && last.id !== followedLast.current;
      followedLast.current = last?.id;
      if (isNew && last && meId && last.author?.id === meId && !last.ephemeral) return 'auto' as const;
      // Virtuoso's `bottom` is its state before this change. After a jump to the top (Home)
      // an older page can arrive before that state catches up: with no new message at the
      // end, follow only if the view really is at the bottom now.
      if (!isNew && scrollerRef.current) {
        const el = scrollerRef.current;
        if (el.scrollHeight - el.scrollTop - el.clientHeight > 48) return false;
      }
      return bottom ? ('auto' as const) : false;
    },
    [meId, scrollerRef],
  );

  const startReached = useCallback(() => void loadOlder(channel.id), [channel.id]);
  const endReached = useCallback(() => {
    if (hasNewerRef.current) void loadNewer(channel.id);
  }, [channel.id]);

  const jumpToPresent = () => {
    setUnseen(0);
    // From older history: the newest page replaces the window, and the list starts at its bottom.
    if (hasNewerRef.current) void loadLatest(channel.id);
    else virtuoso.current?.scrollToIndex({ index: 'LAST', align: 'end' });
  };

  const jumpToUnread = () => {
    const index = rows.findIndex((r) => r.unread);
    virtuoso.current?.scrollToIndex(index >= 0 ? { index, align: 'start', offset: -UNREAD_OFFSET } : { index: 0, align: 'start' });
  };

  // Where the list opens: at a jump's target, at the first unread message, or at the bottom.
  const initialTopMostItemIndex = (() => {
    const target = jump ? items.findIndex((m) => m.id === jump.messageId) : -1;
    if (target >= 0) return { index: target, align: 'center' as const };
    const unread = rows.findIndex((r) => r.unread);
    if (unread >= 0) return { index: unread, align: 'start' as const, offset: -UNREAD_OFFSET };
    return { index: Math.max(0, items.length - 1), align: 'end' as const };
  })();

  opensAtBottom.current = initialTopMostItemIndex.align === 'end';

  // The one tab stop: the current message when it is drawn, else the scroller itself.
  const currentId = activeId && items.some((m) => m.id === activeId) ? activeId : (lastId ?? null);
  const currentIndex = currentId ? items.findIndex((m) => m.id === currentId) + firstItemIndex : -1;
  const currentDrawn = !!range && currentIndex >= range.startIndex && currentIndex <= range.endIndex;

  /** Moves focus to the message at `index` in `items`, scrolling it into the list when it is not drawn. */
  const focusAt = (index: number, align: 'start' | 'end' | 'center') => {
    const list = itemsRef.current;
    const clamped = Math.max(0, Math.min(list.length - 1, index));
    const m = list[clamped];
    if (!m) return;
    setActiveId(m.id);
    lastFocused.current = null;
    pending.current.focus = m.id;
    const el = scroller?.querySelector<HTMLElement>(`[data-message-id="${CSS.escape(m.id)}"]`);
    if (!el) virtuoso.current?.scrollToIndex({ index: clamped, align });
    // Focus waits for the next render, which makes the message the tab stop first.
    requestAnimationFrame(sync);
    // Rows drawn above it are measured after it is scrolled to, which can push it a few
    // pixels out of view: for a moment, while it keeps focus, it is kept wholly in view.
    const until = performance.now() + 600;
    const keep = () => {
      const root = scroller;
      const el = root?.querySelector<HTMLElement>(`[data-message-id="${CSS.escape(m.id)}"]`);
      if (root && el && document.activeElement === el) {
        const box = root.getBoundingClientRect();
        const r = el.getBoundingClientRect();
        if (r.top < box.top - 0.5 || (r.bottom > box.bottom + 0.5 && r.height <= box.height)) el.scrollIntoView({ block: 'nearest' });
      }
      if (performance.now() < until && (!el || document.activeElement === el || pending.current.focus === m.id))
        requestAnimationFrame(keep);
    };
    requestAnimationFrame(keep);
    if (index < 0) void loadOlder(channel.id);
  };

  /** The messages fully in view, top to bottom. */
  const visibleIds = (): string[] => {
    if (!scroller) return [];
    const box = scroller.getBoundingClientRect();
    return [...scroller.querySelectorAll<HTMLElement>('[data-message-id]')]
      .filter((el) => {
        const r = el.getBoundingClientRect();
        return r.bottom > box.top && r.top < box.bottom;
      })
      .map((el) => el.dataset.messageId ?? '');
  };

  const onKeyDown = (e: KeyboardEvent<HTMLElement>) => {
    if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey || e.nativeEvent.isComposing) return;
    const target = e.target as HTMLElement;
    const article = target.closest<HTMLElement>('[data-message-id]');
    // Escape from a control inside a message returns to the message.
    if (e.key === 'Escape' && article && article !== target) {
      article.focus();
      return;
    }
    if (article && article !== target) return;
    const list = itemsRef.current;
    let index: number;
    if (article) index = list.findIndex((m) => m.id === article.dataset.messageId);
    else {
      // On the scroller itself: start from the newest message in view.
      const shown = visibleIds();
      const id = shown[shown.length - 1];
      index = id ? list.findIndex((m) => m.id === id) : list.length - 1;
      if (['ArrowUp', 'ArrowDown'].includes(e.key)) {
        e.preventDefault();
        focusAt(index, 'end');
        return;
      }
    }
    switch (e.key) {
      case 'ArrowUp':
        focusAt(index - 1, 'start');
        break;
      case 'ArrowDown':
        focusAt(index + 1, 'end');
        break;
      case 'PageUp':
        focusAt(index - PAGE_ROWS, 'start');
        break;
      case 'PageDown':
        focusAt(index + PAGE_ROWS, 'end');
        break;
      case 'Home':
        // The oldest message held, as in Discord and Slack: it does not fetch the whole
        // history. Being at the top, the list asks for the page before (as scrolling up
        // does); Home again, once it has come, goes on to its first message.
        focusAt(0, 'start');
        break;
      case 'End':
        focusAt(list.length - 1, 'end');
        break;
      default:
        return;
    }
    e.preventDefault();
  };

  // Clicking or tabbing into a message makes it the current one. Tabbing onto the scroller
  // (the current message scrolled out of the DOM) lands on the newest message in view.
  const pointer = useRef(false);
  const onFocus = (e: FocusEvent<HTMLElement>) => {
    const target = e.target as HTMLElement;
    const article = target.closest<HTMLElement>('[data-message-id]');
    if (article?.dataset.messageId) {
      lastFocused.current = { el: article, id: article.dataset.messageId };
      setActiveId(article.dataset.messageId);
      return;
    }
    if (target === scroller && !pointer.current) {
      const shown = visibleIds();
      const id = shown[shown.length - 1];
      if (id)
        focusAt(
          itemsRef.current.findIndex((m) => m.id === id),
          'end',
        );
    }
  };

  const name = label ?? `#${channel.name}`;
  const retry = useCallback(() => void (itemsRef.current.length ? loadOlder(channel.id) : loadLatest(channel.id)), [channel.id]);
  const context = useMemo<ListContext>(
    () => ({ channel, data, intro, meId, canModerate, editingId, onEdit, currentId, retry, toggleFold }),
    [channel, data, intro, meId, canModerate, editingId, onEdit, currentId, retry, toggleFold],
  );

  const logProps = {
    role: 'log',
    'aria-label': `Messages in ${name}`,
    onKeyDown,
    onFocus,
    onPointerDown: () => {
      pointer.current = true;
    },
    onPointerUp: () => {
      pointer.current = false;
    },
  };

  return (
    <div className={styles.messagePane}>
      <UnreadBar channelId={channel.id} items={history} hasMore={data?.hasMore ?? false} onJump={jumpToUnread} />
      {items.length === 0 ? (
        // Nothing to virtualise yet: the start of the channel, or the first page loading.
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take the focus, for the keys to scroll it
        <div className={styles.messageScroller} {...logProps} tabIndex={0}>
          <ListHeader context={context} />
          <ol className={styles.messageList}>
            <PendingCommands channelId={channel.id} />
          </ol>
        </div>
      ) : (
        <Virtuoso<Row, ListContext>
          key={`${channel.id}:${epoch}`}
          ref={virtuoso}
          scrollerRef={(el) => setScroller(el instanceof HTMLElement ? el : null)}
          className={styles.messageScroller}
          {...logProps}
          tabIndex={currentDrawn ? -1 : 0}
          aria-busy={!settled || !!data?.loading}
          data={rows}
          context={context}
          firstItemIndex={firstItemIndex}
          initialTopMostItemIndex={initialTopMostItemIndex}
          computeItemKey={(_, row) => row.message.id}
          itemContent={renderRow}
          components={components}
          followOutput={followOutput}
          atBottomThreshold={48}
          atBottomStateChange={setAtBottom}
          startReached={startReached}
          endReached={endReached}
          rangeChanged={setRange}
          increaseViewportBy={{ top: 600, bottom: 400 }}
          defaultItemHeight={56}
          // Rows are a fraction of a pixel tall (line heights of 1.45em): measured as whole
          // pixels (offsetHeight, Virtuoso's default), fifty prepended rows put the view 4 px off.
          itemSize={measureRow}
          // Rows are measured in the frame they are drawn, so a prepended page is put in place before it is painted.
          skipAnimationFrameInResizeObserver
        />
      )}
      {/* Over the list, so that its rows do not move when a page starts or stops loading. */}
      {data?.loading && items.length > 0 && (
        <div className={styles.loadingOverlay} role="status">
          {t('messageList.loading')}
        </div>
      )}
      {(!atBottom || hasNewer) && items.length > 0 && (
        <button type="button" className={styles.jumpPresent} onClick={jumpToPresent}>
          {unseen > 0 ? t('messageList.newMessages', { count: unseen }) : ''}
          {t('messageList.jumpToPresent')}
        </button>
      )}
    </div>
  );
}

/** The first message wholly in the scroller's view, and its top on screen. */
function firstInView(scroller: HTMLElement): { id: string; top: number } | null {
  const box = scroller.getBoundingClientRect();
  for (const el of scroller.querySelectorAll<HTMLElement>('[data-message-id]')) {
    const r = el.getBoundingClientRect();
    if (r.top >= box.top && r.bottom <= box.bottom && el.dataset.messageId) return { id: el.dataset.messageId, top: r.top };
  }
  return null;
}

/** A row's exact height (Virtuoso's `itemSize`). */
function measureRow(el: HTMLElement): number {
  return el.getBoundingClientRect().height;
}

function renderRow(_index: number, row: Row, ctx: ListContext) {
  const m = row.message;
  const mine = !!ctx.meId && m.author?.id === ctx.meId;
  return (
    <>
      {row.newDay && (
        // biome-ignore lint/a11y/useSemanticElements: an <hr> cannot hold the day's label
        <div className={styles.dayDivider} role="separator" aria-label={formatDay(m.createdAt)}>
          <span aria-hidden="true">{formatDay(m.createdAt)}</span>
        </div>
      )}
      {row.unread && <UnreadDivider />}
      {row.fold && <BlockedFold message={m} fold={row.fold} current={ctx.currentId === m.id} onToggle={ctx.toggleFold} />}
      {row.fold?.shown === false ? null : m.type === 'join' ? (
        <JoinLine message={m} canDelete={mine || ctx.canModerate} current={ctx.currentId === m.id} />
      ) : (
        <MessageItem
          message={m}
          grouped={row.grouped}
          mine={mine}
          canDelete={(mine && !m.webhookId) || ctx.canModerate}
          editing={ctx.editingId === m.id}
          onEdit={ctx.onEdit}
          current={ctx.currentId === m.id}
        />
      )}
    </>
  );
}

/** The start of the channel, and the loading and error rows, above the oldest message. */
function ListHeader({ context: { channel, data, intro, retry } }: { context: ListContext }) {
  const showStart = data?.loaded && !data.hasMore;
  return (
    <div className={styles.messageListTop}>
      {showStart && intro}
      {showStart && !intro && (
        <div className={styles.channelStart}>
          <div className={styles.channelStartIcon} aria-hidden="true">
            #
          </div>
          <h2>{t('messageList.welcome', { channel: channel.name })}</h2>
          <p>{t('messageList.channelStart', { channel: channel.name })}</p>
        </div>
      )}
      {data?.loading && !data.items.length && <div className={styles.loadingRow}>{t('messageList.loading')}</div>}
      {data?.error && (
        <div className={styles.loadError} role="alert">
          {t('messageList.couldNotLoad', { error: data.error })}{' '}
          <button type="button" className="link-button" onClick={retry}>
            {t('messageList.tryAgain')}
          </button>
        </div>
      )}
    </div>
  );
}

/** Slash commands waiting for their bot, below the newest message. */
function ListFooter({ context }: { context: ListContext }) {
  return (
    <ol className={styles.messageList} aria-label={t('messageList.pendingCommands')}>
      <PendingCommands channelId={context.channel.id} />
    </ol>
  );
}

const List = forwardRef<HTMLOListElement, ListProps & { context?: ListContext }>(function List({ context: _c, ...props }, ref) {
  return <ol {...(props as ComponentProps<'ol'>)} ref={ref} className={styles.messageList} />;
});

function Item({ item: _row, context: _c, ...props }: ItemProps<Row> & { context?: ListContext }) {
  return <li {...props} className={styles.row} />;
}

const components = { Header: ListHeader, Footer: ListFooter, List, Item };
