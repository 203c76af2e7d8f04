import { dismissToast, useToasts } from '../state/toasts';
import { CloseIcon } from './icons';
import styles from './toasts.module.css';

/** Errors and notices, announced to screen readers. */
export function ToastRegion() {
  const toasts = useToasts();
  return (
    <div className={styles.toasts} role="region" aria-label="Notifications">
      <div aria-live="polite" aria-atomic="false">
        {toasts.map((t) => (
          <div
            key={t.id}
            className={t.kind === 'error' ? `${styles.toast} ${styles.toastError}` : styles.toast}
            role={t.kind === 'error' ? 'alert' : 'status'}
          >
            <span>{t.text}</span>
            <button type="button" className="icon-button" aria-label="Dismiss" onClick={() => dismissToast(t.id)}>
              <CloseIcon />
            </button>
          </div>
        ))}
      </div>
    </div>
  );
}
