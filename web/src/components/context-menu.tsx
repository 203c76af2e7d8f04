/**
 * A context menu (a right-click's, a long press's, the context-menu key's): a menu in the
 * ARIA sense, drawn over the page at a point or below an element. The first item takes
 * focus; arrows, Home and End move; Enter or a click runs an item and closes; Escape
 * closes and gives focus back to where it was; a press elsewhere, Tab, scrolling or
 * resizing close it. Items that may not be used are left out by the caller, `disabled`
 * ones are shown but skipped.
 */
import { type KeyboardEvent, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { createPortal } from 'react-dom';
import styles from './context-menu.module.css';

export interface ContextMenuItem {
  label: string;
  onSelect: () => void;
  danger?: boolean;
  disabled?: boolean;
}

interface Props {
  items: readonly ContextMenuItem[];
  /** A point (a right-click's) or an element (the menu opens below it). */
  anchor: { x: number; y: number } | HTMLElement;
  onClose: () => void;
  /** The menu's accessible name. */
  label?: string;
}

function point(anchor: Props['anchor']): { x: number; y: number } {
  if (!(anchor instanceof HTMLElement)) return anchor;
  const r = anchor.getBoundingClientRect();
  return { x: r.left + Math.min(16, r.width / 2), y: r.top + Math.min(r.height, 32) };
}

export function ContextMenu({ items, anchor, onClose, label }: Props) {
  const ref = useRef<HTMLDivElement>(null);
  const start = point(anchor);
  const [pos, setPos] = useState({ left: start.x, top: start.y });
  // Where focus goes back: what had it when the menu opened, else the anchor element.
  const returnTo = useRef<HTMLElement | null>(null);
  const closeRef = useRef(onClose);
  closeRef.current = onClose;
  if (returnTo.current === null) {
    const active = document.activeElement;
    returnTo.current = active instanceof HTMLElement && active !== document.body ? active : anchor instanceof HTMLElement ? anchor : null;
  }

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
      if (!ref.current?.contains(e.target as Node)) closeRef.current();
    };
    const gone = () => closeRef.current();
    document.addEventListener('pointerdown', away, true);
    document.addEventListener('scroll', away, true);
    window.addEventListener('resize', gone);
    window.addEventListener('blur', gone);
    return () => {
      document.removeEventListener('pointerdown', away, true);
      document.removeEventListener('scroll', away, true);
      window.removeEventListener('resize', gone);
      window.removeEventListener('blur', gone);
    };
  }, []);

  const enabled = () => [...(ref.current?.querySelectorAll<HTMLElement>('[role=menuitem]:not([aria-disabled=true])') ?? [])];
  const move = (by: number | 'first' | 'last') => {
    const list = enabled();
    if (!list.length) return;
    const at = list.indexOf(document.activeElement as HTMLElement);
    const n = by === 'first' ? 0 : by === 'last' ? list.length - 1 : (at + by + list.length) % list.length;
    list[n]?.focus();
  };
  const close = (refocus: boolean) => {
    onClose();
    if (refocus) returnTo.current?.focus({ preventScroll: true });
  };
  const onKeyDown = (e: KeyboardEvent) => {
    // The menu is drawn in a portal; its keys are not the list's or the message's.
    e.stopPropagation();
    if (e.key === 'ArrowDown') move(1);
    else if (e.key === 'ArrowUp') move(-1);
    else if (e.key === 'Home') move('first');
    else if (e.key === 'End') move('last');
    else if (e.key === 'Escape') close(true);
    else if (e.key === 'Tab') close(false);
    else return;
    if (e.key !== 'Tab') e.preventDefault();
  };

  return createPortal(
    <div
      ref={ref}
      className={styles.menu}
      role="menu"
      aria-label={label}
      style={{ left: pos.left, top: pos.top }}
      onKeyDown={onKeyDown}
      onClick={(e) => e.stopPropagation()}
      onContextMenu={(e) => {
        e.preventDefault();
        e.stopPropagation();
      }}
      data-testid="context-menu"
    >
      {items.map((item) => (
        <button
          key={item.label}
          type="button"
          role="menuitem"
          tabIndex={-1}
          className={`${styles.item}${item.danger ? ` ${styles.danger}` : ''}`}
          aria-disabled={item.disabled || undefined}
          onMouseMove={(e) => !item.disabled && e.currentTarget.focus({ preventScroll: true })}
          onClick={() => {
            if (item.disabled) return;
            close(true);
            item.onSelect();
          }}
        >
          {item.label}
        </button>
      ))}
    </div>,
    document.body,
  );
}
