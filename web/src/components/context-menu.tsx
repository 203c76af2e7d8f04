/**
 * A small context menu (a menu in the ARIA sense), shared by the channel and message menus
 * (README.md, "Web client"): opened at a point (a right-click's) or below an element (the
 * keyboard's context-menu key, Shift+F10, a button), it takes focus on its first enabled
 * item; ↑/↓, Home and End move, Enter or Space runs an item, Escape closes and gives focus
 * back to where it came from, Tab and a click outside close it.
 *
 *   <ContextMenu items={[{ label, onSelect, danger?, disabled? }]} anchor={{ x, y } | element} onClose />
 *
 * `useContextMenuTrigger` gives an element the usual ways of opening one: right-click, the
 * context-menu key or Shift+F10, and a long press on touch screens.
 */
import {
  type KeyboardEvent,
  type MouseEvent,
  type PointerEvent,
  type ReactNode,
  useCallback,
  useEffect,
  useLayoutEffect,
  useRef,
  useState,
} from 'react';
import { createPortal } from 'react-dom';
import styles from './context-menu.module.css';

export interface ContextMenuItem {
  label: string;
  onSelect: () => void;
  /** Drawn in red (delete, leave, kick…). */
  danger?: boolean;
  disabled?: boolean;
  /** An optional icon before the label. */
  icon?: ReactNode;
  /** Shown on the right, muted (a shortcut, a current value). */
  hint?: string;
  /** A stable name for tests and for keys (defaults to the label). */
  id?: string;
}

export type ContextMenuAnchor = { x: number; y: number } | HTMLElement;

export interface ContextMenuProps {
  items: ContextMenuItem[];
  anchor: ContextMenuAnchor;
  onClose: () => void;
  /** The menu's accessible name ("Channel options"). */
  label?: string;
  /** Where focus goes back on Escape or after an item ran (defaults to the anchor element, or the element focused when it opened). */
  returnFocus?: HTMLElement | null;
  testId?: string;
}

function pointOf(anchor: ContextMenuAnchor): { x: number; y: number } {
  if (anchor instanceof HTMLElement) {
    const r = anchor.getBoundingClientRect();
    return { x: r.left + Math.min(16, r.width / 2), y: r.bottom };
  }
  return anchor;
}

export function ContextMenu({ items, anchor, onClose, label, returnFocus, testId = 'context-menu' }: ContextMenuProps) {
  const ref = useRef<HTMLDivElement>(null);
  const opener = useRef<HTMLElement | null>(
    returnFocus ?? (anchor instanceof HTMLElement ? anchor : (document.activeElement as HTMLElement | null)),
  );
  const start = pointOf(anchor);
  const [pos, setPos] = useState({ left: start.x, top: start.y });
  const enabled = items.map((it, i) => (it.disabled ? -1 : i)).filter((i) => i >= 0);
  const [active, setActive] = useState(enabled[0] ?? -1);
  const closeRef = useRef(onClose);
  closeRef.current = onClose;

  const close = useCallback((refocus: boolean) => {
    closeRef.current();
    if (refocus) opener.current?.focus?.();
  }, []);

  // Kept on screen: moved left or up when it would overflow.
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const r = el.getBoundingClientRect();
    setPos({
      left: Math.max(8, Math.min(start.x, window.innerWidth - r.width - 8)),
      top: Math.max(8, Math.min(start.y, window.innerHeight - r.height - 8)),
    });
  }, [start.x, start.y]);

  useEffect(() => {
    ref.current?.querySelector<HTMLElement>('[role=menuitem]:not([aria-disabled=true])')?.focus();
    const away = (e: Event) => {
      if (!ref.current?.contains(e.target as Node)) close(false);
    };
    const onResize = () => close(false);
    document.addEventListener('pointerdown', away, true);
    window.addEventListener('resize', onResize);
    window.addEventListener('blur', onResize);
    return () => {
      document.removeEventListener('pointerdown', away, true);
      window.removeEventListener('resize', onResize);
      window.removeEventListener('blur', onResize);
    };
  }, [close]);

  const focusAt = (index: number) => {
    if (!enabled.length) return;
    setActive(index);
    ref.current?.querySelector<HTMLElement>(`[data-index="${index}"]`)?.focus();
  };
  const step = (delta: number) => {
    const at = enabled.indexOf(active);
    const next = enabled[(at + delta + enabled.length) % enabled.length];
    if (next !== undefined) focusAt(next);
  };
  const run = (item: ContextMenuItem) => {
    if (item.disabled) return;
    close(true);
    item.onSelect();
  };
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'ArrowDown') step(1);
    else if (e.key === 'ArrowUp') step(-1);
    else if (e.key === 'Home') focusAt(enabled[0] ?? -1);
    else if (e.key === 'End') focusAt(enabled[enabled.length - 1] ?? -1);
    else if (e.key === 'Escape') close(true);
    else if (e.key === 'Tab') close(false);
    else return;
    if (e.key !== 'Tab') e.preventDefault();
    e.stopPropagation();
  };

  return createPortal(
    <div
      ref={ref}
      className={styles.menu}
      role="menu"
      aria-label={label}
      style={{ left: pos.left, top: pos.top }}
      onKeyDown={onKeyDown}
      onContextMenu={(e) => e.preventDefault()}
      data-testid={testId}
    >
      {items.map((item, i) => (
        <button
          key={item.id ?? item.label}
          type="button"
          role="menuitem"
          data-index={i}
          data-item={item.id ?? item.label}
          tabIndex={i === active ? 0 : -1}
          aria-disabled={item.disabled || undefined}
          className={styles.item}
          data-danger={item.danger || undefined}
          data-active={i === active || undefined}
          onClick={() => run(item)}
          onMouseMove={() => !item.disabled && i !== active && setActive(i)}
          onFocus={() => i !== active && setActive(i)}
        >
          {item.icon && (
            <span className={styles.icon} aria-hidden="true">
              {item.icon}
            </span>
          )}
          <span className={styles.label}>{item.label}</span>
          {item.hint && <span className={styles.hint}>{item.hint}</span>}
        </button>
      ))}
    </div>,
    document.body,
  );
}

const LONG_PRESS_MS = 500;

/** What `useContextMenuTrigger` puts on an element (nothing when disabled). */
export interface ContextMenuTriggerProps {
  onContextMenu?: (e: MouseEvent<HTMLElement>) => void;
  onKeyDown?: (e: KeyboardEvent<HTMLElement>) => void;
  onPointerDown?: (e: PointerEvent<HTMLElement>) => void;
  onPointerMove?: (e: PointerEvent<HTMLElement>) => void;
  onPointerUp?: () => void;
  onPointerCancel?: () => void;
}

/**
 * Right-click, the context-menu key (or Shift+F10) and a long press on touch screens call
 * `open` with where the menu should appear (the pointer, or the element for the keyboard).
 * Spread the result on the element: `<a {...useContextMenuTrigger(open)}>`.
 */
export function useContextMenuTrigger(open: (anchor: ContextMenuAnchor, el: HTMLElement) => void, enabled = true): ContextMenuTriggerProps {
  const press = useRef<{ timer: ReturnType<typeof setTimeout>; x: number; y: number } | null>(null);
  const longPressed = useRef(false);
  useEffect(() => () => clearTimeout(press.current?.timer), []);
  if (!enabled) return {};
  const cancel = () => {
    if (press.current) clearTimeout(press.current.timer);
    press.current = null;
  };
  return {
    onContextMenu: (e: MouseEvent<HTMLElement>) => {
      e.preventDefault();
      e.stopPropagation();
      // A long press already opened it (touch browsers fire contextmenu after it too).
      if (longPressed.current) {
        longPressed.current = false;
        return;
      }
      // The keyboard's menu key gives no position: open below the element.
      const keyboard = e.clientX === 0 && e.clientY === 0;
      open(keyboard ? e.currentTarget : { x: e.clientX, y: e.clientY }, e.currentTarget);
    },
    onKeyDown: (e: KeyboardEvent<HTMLElement>) => {
      // Shift+F10 does not fire contextmenu everywhere (it does in Chromium on some systems only).
      if ((e.key === 'F10' && e.shiftKey) || e.key === 'ContextMenu') {
        e.preventDefault();
        open(e.currentTarget, e.currentTarget);
      }
    },
    onPointerDown: (e: PointerEvent<HTMLElement>) => {
      if (e.pointerType !== 'touch') return;
      const el = e.currentTarget;
      const { clientX: x, clientY: y } = e;
      cancel();
      press.current = {
        x,
        y,
        timer: setTimeout(() => {
          press.current = null;
          longPressed.current = true;
          open({ x, y }, el);
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
