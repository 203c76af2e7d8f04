/** Modal dialogs on the native <dialog> element (focus trap and Escape for free). */
import { useEffect, useId, useRef, useState, useSyncExternalStore, type ReactNode } from 'react';
import { CloseIcon } from './icons';
import styles from './dialog.module.css';
import { t } from '../i18n';

interface DialogProps {
  title: string;
  onClose: () => void;
  children: ReactNode;
  className?: string;
}

export function Dialog({ title, onClose, children, className }: DialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const id = useId();
  const closeRef = useRef(onClose);
  closeRef.current = onClose;
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    const previous = document.activeElement as HTMLElement | null;
    if (!d.open) d.showModal();
    // showModal() focuses the first focusable element (the close button); a field or an
    // explicitly marked button is the better starting point.
    const first = d.querySelector<HTMLElement>('[data-autofocus], input:not([type=hidden]):not([readonly]), textarea, select');
    first?.focus();
    return () => {
      if (d.open) d.close();
      previous?.focus?.();
    };
  }, []);
  return (
    <dialog
      ref={ref}
      className={`${styles.dialog} ${className ?? ''}`}
      aria-labelledby={id}
      onCancel={(e) => {
        e.preventDefault();
        closeRef.current();
      }}
      onMouseDown={(e) => {
        // A press on the backdrop (outside the panel) closes.
        if (e.target === ref.current) closeRef.current();
      }}
    >
      <div className={styles.dialogPanel}>
        <header className={styles.dialogHeader}>
          <h2 id={id}>{title}</h2>
          <button type="button" className="icon-button" aria-label={t('dialog.close')} onClick={() => closeRef.current()}>
            <CloseIcon />
          </button>
        </header>
        {children}
      </div>
    </dialog>
  );
}

// --- confirm(): a promise-returning confirmation dialog usable from anywhere ---

interface ConfirmRequest {
  title: string;
  body: ReactNode;
  confirmLabel: string;
  danger?: boolean;
  resolve: (ok: boolean) => void;
}

let pending: ConfirmRequest | null = null;
const listeners = new Set<() => void>();
const emit = () => listeners.forEach((l) => l());

/** Ask the person to confirm; resolves true only on an explicit confirm. */
export function confirm(options: Omit<ConfirmRequest, 'resolve'>): Promise<boolean> {
  pending?.resolve(false);
  return new Promise((resolve) => {
    pending = { ...options, resolve };
    emit();
  });
}

export function ConfirmHost() {
  const req = useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => pending,
  );
  const [busy, setBusy] = useState(false);
  if (!req) return null;
  const finish = (ok: boolean) => {
    if (pending === req) pending = null;
    setBusy(false);
    req.resolve(ok);
    emit();
  };
  return (
    <Dialog title={req.title} onClose={() => finish(false)} className="confirm-dialog">
      <div className={styles.dialogBody}>{req.body}</div>
      <footer className={styles.dialogActions}>
        <button type="button" className="button secondary" onClick={() => finish(false)} data-autofocus>
          {t('dialog.cancel')}
        </button>
        <button
          type="button"
          className={`button ${req.danger ? 'danger' : 'primary'}`}
          disabled={busy}
          onClick={() => {
            setBusy(true);
            finish(true);
          }}
        >
          {req.confirmLabel}
        </button>
      </footer>
    </Dialog>
  );
}
