import type { ChosenStatus, PresenceStatus } from '@parley/protocol';
import { safeImageSrc } from '../markdown/parse';
import { hueFor, initials } from '../lib/format';
import styles from './avatar.module.css';
import { t } from '../i18n';

interface AvatarProps {
  id: string;
  name: string;
  src?: string | null;
  size?: number;
  /** Draws the presence dot (docs/gateway.md#presence); `invisible` (one's own choice) looks offline. */
  status?: PresenceStatus | ChosenStatus;
}

const statusText = (status: PresenceStatus | ChosenStatus): string => t(`presence.status.${status}`);

/** A picture or initials, with a presence dot at the bottom right when `status` is given. */
export function Avatar({ status, ...props }: AvatarProps) {
  if (!status) return <AvatarImage {...props} />;
  const size = props.size ?? 40;
  const dot = Math.min(24, Math.max(12, Math.round(size * 0.42)));
  return (
    <span className={styles.withStatus} style={{ width: size, height: size }}>
      <AvatarImage {...props} />
      <span
        className={`${styles.statusDot} ${styles[status === 'invisible' ? 'offline' : status]}`}
        style={{ width: dot, height: dot, borderWidth: dot >= 18 ? 4 : 2.5 }}
        role="img"
        aria-label={statusText(status)}
        title={statusText(status)}
        data-status={status}
      />
    </span>
  );
}

/** A picture when the avatar is an http(s) URL, coloured initials otherwise. */
function AvatarImage({ id, name, src, size = 40 }: Omit<AvatarProps, 'status'>) {
  const url = safeImageSrc(src);
  const style = { width: size, height: size, fontSize: Math.round(size * 0.4) };
  if (url) {
    return (
      <img
        className={styles.avatar}
        src={url}
        alt=""
        width={size}
        height={size}
        style={style}
        loading="lazy"
        referrerPolicy="no-referrer"
      />
    );
  }
  return (
    <span
      className={`${styles.avatar} ${styles.avatarInitials}`}
      aria-hidden="true"
      // Drawn by CSS: initials are decoration, and as text they would sit inside the accessible
      // name of every button holding an avatar ("AX" beside "Set status").
      data-initials={initials(name)}
      style={{ ...style, ['--hue' as string]: String(hueFor(id || name)) }}
    />
  );
}

/** The badge that marks bots and webhooks; `className` lets a layout place it (module classes stay local). */
export function BotBadge({ className }: { className?: string } = {}) {
  return (
    <span className={className ? `${styles.botBadge} ${className}` : styles.botBadge} title={t('avatar.postedByABot')}>
      {t('avatar.bot')}
    </span>
  );
}
