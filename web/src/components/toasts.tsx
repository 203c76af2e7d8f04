import { dismissToast, useToasts } from '../state/toasts';
import { CloseIcon } from './icons';
import styles from './toasts.module.css';
import { t } from '../i18n';

/** Errors and notices, announced to screen readers. */
export function ToastRegion() {
  const toasts = useToasts();
  return (
    // biome-ignore lint/a11y/useSemanticElements: the notifications region is found by its role attribute (test/web/details.test.ts)
    <div className={styles.toasts} role="region" aria-label={t('toasts.notifications')}>
      <div aria-live="polite" aria-atomic="false">
        {toasts.map((item) => (
          <div
            key={item.id}
            className={item.kind === 'error' ? `${styles.toast} ${styles.toastError}` : styles.toast}
            role={item.kind === 'error' ? 'alert' : 'status'}
          >
            <span>{item.text}</span>
            <button type="button" className="icon-button" aria-label={t('toasts.dismiss')} onClick={() => dismissToast(item.id)}>
              <CloseIcon />
            </button>
          </div>
        ))}
      </div>
    </div>
  );
}
