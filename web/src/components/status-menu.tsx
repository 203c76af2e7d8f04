import type { ChosenStatus } from '@parley/protocol';
import { useEffect, useId, useRef, useState } from 'react';
import type { User } from '../api/types';
import { displayName } from '../api/types';
import { STATUS_CHOICES, chooseStatus } from '../state/presence';
import { useStore } from '../state/store';
import { Avatar } from './avatar';
import styles from './status-menu.module.css';
import { t } from '../i18n';

/**
 * One's own avatar with its presence dot, as a button opening the status menu (online,
 * idle, do not disturb, invisible). A menu of radio items: arrows move, Enter or Space
 * picks, Escape closes and gives focus back.
 */
export function StatusMenu({ me }: { me: User }) {
  const status = useStore((s) => s.myStatus);
  const connected = useStore((s) => s.status === 'ready');
  const [open, setOpen] = useState(false);
  const menuId = useId();
  const button = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLDivElement>(null);
  const label = STATUS_CHOICES.find((c) => c.status === status)!.label;

  useEffect(() => {
    if (!open) return;
    const items = () => [...(menu.current?.querySelectorAll<HTMLElement>('[role="menuitemradio"]') ?? [])];
    (items().find((i) => i.getAttribute('aria-checked') === 'true') ?? items()[0])?.focus();
    const outside = (e: PointerEvent) => {
      if (!menu.current?.contains(e.target as Node) && !button.current?.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener('pointerdown', outside);
    return () => document.removeEventListener('pointerdown', outside);
  }, [open]);

  const pick = (s: ChosenStatus) => {
    chooseStatus(s);
    setOpen(false);
    button.current?.focus();
  };

  const onKeyDown = (e: React.KeyboardEvent) => {
    const items = [...(menu.current?.querySelectorAll<HTMLElement>('[role="menuitemradio"]') ?? [])];
    const at = items.indexOf(document.activeElement as HTMLElement);
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      const next = (at + (e.key === 'ArrowDown' ? 1 : -1) + items.length) % items.length;
      items[next]?.focus();
    } else if (e.key === 'Home' || e.key === 'End') {
      e.preventDefault();
      items[e.key === 'Home' ? 0 : items.length - 1]?.focus();
    } else if (e.key === 'Escape') {
      e.preventDefault();
      setOpen(false);
      button.current?.focus();
    } else if (e.key === 'Tab') {
      setOpen(false);
    }
  };

  return (
    <div className={styles.statusMenu}>
      <button
        ref={button}
        type="button"
        className={styles.statusButton}
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? menuId : undefined}
        aria-label={t('statusMenu.setStatusNow', { status: connected ? label : t('statusMenu.offlineNotConnected') })}
        title={t('statusMenu.setStatus')}
        onClick={() => setOpen((o) => !o)}
      >
        <Avatar id={me.id} name={displayName(me)} src={me.avatar} size={32} status={connected ? status : 'offline'} />
      </button>
      {open && (
        <div ref={menu} id={menuId} role="menu" aria-label={t('statusMenu.status')} className={styles.menu} onKeyDown={onKeyDown}>
          {STATUS_CHOICES.map((c) => (
            <button
              key={c.status}
              type="button"
              role="menuitemradio"
              aria-checked={c.status === status}
              tabIndex={-1}
              className={styles.item}
              onClick={() => pick(c.status)}
            >
              <span className={`${styles.dot} ${styles[c.status]}`} aria-hidden="true" />
              <span className={styles.itemText}>
                <span className={styles.itemLabel}>{c.label}</span>
                {c.hint && <span className={styles.itemHint}>{c.hint}</span>}
              </span>
              {c.status === status && (
                <span className={styles.check} aria-hidden="true">
                  ✓
                </span>
              )}
            </button>
          ))}
        </div>
      )}
    </div>
  );
}
