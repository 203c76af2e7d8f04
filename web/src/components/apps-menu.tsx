/**
 * The "Apps" menu (docs/commands.md#user-and-message-commands): the user
 * commands of a member, or the message commands of a message, that the person may run in
 * the channel. It opens on a right-click (or the keyboard's context-menu key, Shift+F10) and
 * on a long press of a member's name or avatar, and from a message's menu (message-menu.tsx)
 * and actions toolbar. A menu in the ARIA sense: the first item takes focus, arrows move, Enter
 * runs, Escape closes and gives focus back. Running one waits for its bot as a slash
 * command does (the answer, a modal, or "The bot did not respond").
 */
import {
  type KeyboardEvent,
  type MouseEvent,
  type PointerEvent,
  useEffect,
  useLayoutEffect,
  useRef,
  useState,
  useSyncExternalStore,
} from 'react';
import type { Command } from '../api/types';
import { t } from '../i18n';
import { contextCommandsOf, loadCommands, runContextCommand, useInteractions } from '../state/interaction-store';
import { toastError } from '../state/toasts';
import { Avatar } from './avatar';
import styles from './apps-menu.module.css';

export type AppsTarget = 'user' | 'message';

interface MenuRequest {
  type: AppsTarget;
  channelId: string;
  targetId: string;
  x: number;
  y: number;
  /** Where focus goes back when the menu closes. */
  returnTo: HTMLElement | null;
}

let current: MenuRequest | null = null;
const listeners = new Set<() => void>();
const emit = () => {
  for (const l of listeners) l();
};

/** Opens the menu at a point (a right-click's, or below the element it was opened from). */
export function openAppsMenu(request: MenuRequest): void {
  current = request;
  emit();
}

function closeAppsMenu(refocus: boolean): void {
  const was = current;
  current = null;
  emit();
  if (refocus) was?.returnTo?.focus?.();
}

/** The commands of a type the channel offers (re-renders when the list changes). */
export function useContextCommands(channelId: string | null | undefined, type: AppsTarget): Command[] {
  const items = useInteractions((s) => (channelId ? s.commands[channelId]?.items : undefined));
  // Loaded once per channel (the composer loads them too; a read-only channel has none).
  useEffect(() => {
    if (channelId) void loadCommands(channelId);
  }, [channelId]);
  return (items ?? []).filter((c) => c.type === type);
}

const LONG_PRESS_MS = 500;

/**
 * What makes an element open the Apps menu: right-click or the context-menu key, and a
 * long press on touch screens. Nothing (the browser's own menu) when the channel offers no
 * command of that type.
 */
export function useAppsTrigger(type: AppsTarget, channelId: string | null | undefined, targetId: string) {
  const available = useContextCommands(channelId, type).length > 0;
  const press = useRef<{ timer: ReturnType<typeof setTimeout>; x: number; y: number } | null>(null);
  const longPressed = useRef(false);
  useEffect(() => () => clearTimeout(press.current?.timer), []);
  if (!available || !channelId) return {};
  const open = (el: HTMLElement, x?: number, y?: number) => {
    const r = el.getBoundingClientRect();
    openAppsMenu({ type, channelId, targetId, x: x ?? r.left + 16, y: y ?? r.top + Math.min(r.height, 32), returnTo: el });
  };
  const cancel = () => {
    if (press.current) clearTimeout(press.current.timer);
    press.current = null;
  };
  return {
    onContextMenu: (e: MouseEvent<HTMLElement>) => {
      // A long press already opened it (touch browsers fire contextmenu after it too).
      if (longPressed.current) {
        longPressed.current = false;
        e.preventDefault();
        return;
      }
      // Inside a link or a text selection the browser's menu is the useful one.
      if ((e.target as HTMLElement).closest('a') || window.getSelection()?.toString()) return;
      e.preventDefault();
      e.stopPropagation();
      // The keyboard's menu key gives no position: open below the element.
      const keyboard = e.clientX === 0 && e.clientY === 0;
      open(e.currentTarget, keyboard ? undefined : e.clientX, keyboard ? undefined : e.clientY);
    },
    onPointerDown: (e: PointerEvent<HTMLElement>) => {
      if (e.pointerType !== 'touch') return;
      // The innermost target wins (a member's avatar inside a message).
      e.stopPropagation();
      const el = e.currentTarget;
      const { clientX: x, clientY: y } = e;
      cancel();
      press.current = {
        x,
        y,
        timer: setTimeout(() => {
          press.current = null;
          longPressed.current = true;
          open(el, x, y);
        }, LONG_PRESS_MS),
      };
    },
    onPointerMove: (e: PointerEvent<HTMLElement>) => {
      if (press.current && Math.hypot(e.clientX - press.current.x, e.clientY - press.current.y) > 10) cancel();
    },
    onPointerUp: cancel,
    onPointerCancel: cancel,
  };
}

/** The menu itself (rendered once, at the app's root). */
export function AppsMenuHost() {
  const request = useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => current,
  );
  return request ? <AppsMenu key={`${request.type}:${request.targetId}:${request.x}:${request.y}`} request={request} /> : null;
}

function AppsMenu({ request }: { request: MenuRequest }) {
  const commands = contextCommandsOf(request.channelId, request.type);
  const ref = useRef<HTMLDivElement>(null);
  const [active, setActive] = useState(0);
  const [pos, setPos] = useState({ left: request.x, top: request.y });
  // Kept on screen: moved left or up when it would overflow.
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const r = el.getBoundingClientRect();
    setPos({
      left: Math.max(8, Math.min(request.x, window.innerWidth - r.width - 8)),
      top: Math.max(8, Math.min(request.y, window.innerHeight - r.height - 8)),
    });
  }, [request.x, request.y]);
  useEffect(() => {
    ref.current?.querySelector<HTMLElement>('[role=menuitem]')?.focus();
    const away = (e: Event) => {
      if (!ref.current?.contains(e.target as Node)) closeAppsMenu(false);
    };
    document.addEventListener('pointerdown', away, true);
    window.addEventListener('resize', away);
    return () => {
      document.removeEventListener('pointerdown', away, true);
      window.removeEventListener('resize', away);
    };
  }, []);
  const items = () => [...(ref.current?.querySelectorAll<HTMLElement>('[role=menuitem]') ?? [])];
  const focusItem = (i: number) => {
    const list = items();
    if (!list.length) return;
    const n = (i + list.length) % list.length;
    setActive(n);
    list[n]?.focus();
  };
  const run = (c: Command) => {
    closeAppsMenu(true);
    runContextCommand(request.channelId, c, request.targetId).catch(toastError);
  };
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'ArrowDown') focusItem(active + 1);
    else if (e.key === 'ArrowUp') focusItem(active - 1);
    else if (e.key === 'Home') focusItem(0);
    else if (e.key === 'End') focusItem(items().length - 1);
    else if (e.key === 'Escape') closeAppsMenu(true);
    else if (e.key === 'Tab') closeAppsMenu(false);
    else return;
    if (e.key !== 'Tab') e.preventDefault();
  };
  const label = request.type === 'message' ? t('appsMenu.messageApps') : t('appsMenu.userApps');
  return (
    <div
      ref={ref}
      className={styles.menu}
      role="menu"
      aria-label={label}
      style={{ left: pos.left, top: pos.top }}
      onKeyDown={onKeyDown}
      data-testid="apps-menu"
      data-target={request.type}
    >
      <div className={styles.heading} aria-hidden="true">
        {t('appsMenu.apps')}
      </div>
      {commands.length === 0 && <div className={styles.empty}>{t('appsMenu.none')}</div>}
      {commands.map((c, i) => (
        <button
          key={c.id}
          type="button"
          role="menuitem"
          tabIndex={i === active ? 0 : -1}
          className={styles.item}
          data-active={i === active || undefined}
          onClick={() => run(c)}
          onMouseMove={() => i !== active && setActive(i)}
          onFocus={() => i !== active && setActive(i)}
          data-command={c.name}
        >
          <Avatar id={c.botId} name={c.bot?.name ?? ''} src={c.bot?.avatar} size={20} />
          <span className={styles.name}>{c.name}</span>
          <span className={styles.bot}>{c.bot?.name}</span>
        </button>
      ))}
    </div>
  );
}
