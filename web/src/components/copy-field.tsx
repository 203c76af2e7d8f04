import { useId, useState } from 'react';
import { copyText } from '../lib/clipboard';
import { toastError } from '../state/toasts';
import styles from './copy-field.module.css';
import { t } from '../i18n';

/** A read-only value with a Copy button (for webhook URLs, tokens and invite links). */
export function CopyField({ label, value, secret = false }: { label: string; value: string; secret?: boolean }) {
  const id = useId();
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await copyText(value);
      setCopied(true);
      setTimeout(() => setCopied(false), 2000);
    } catch (err) {
      toastError(err);
    }
  };
  return (
    <div className={styles.copyField}>
      <label htmlFor={id}>{label}</label>
      <div className={styles.copyRow}>
        <input
          id={id}
          className={`input mono${secret ? ' secret' : ''}`}
          readOnly
          value={value}
          onFocus={(e) => e.currentTarget.select()}
          spellCheck={false}
        />
        <button type="button" className="button primary" onClick={copy} aria-label={t('copyField.copyLabel', { label })}>
          {copied ? t('copyField.copied') : t('copyField.copy')}
        </button>
      </div>
      <span className="visually-hidden" role="status">
        {copied ? t('copyField.labelCopiedToThe', { label }) : ''}
      </span>
    </div>
  );
}
