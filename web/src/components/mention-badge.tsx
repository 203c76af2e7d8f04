import { t } from '../i18n';
import styles from './mention-badge.module.css';

/** A red count of mentions (or of unread DM messages); nothing when zero. */
export function MentionBadge({ count, className, label }: { count: number; className?: string; label?: string }) {
  if (count <= 0) return null;
  const text = count > 99 ? '99+' : String(count);
  return (
    <span className={className ? `${styles.badge} ${className}` : styles.badge} data-mention-badge={count}>
      <span aria-hidden="true">{text}</span>
      <span className="visually-hidden">{label ?? t('mentionBadge.mentions', { count })}</span>
    </span>
  );
}
