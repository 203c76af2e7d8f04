import { safeImageSrc } from '../markdown/parse';
import { hueFor, initials } from '../lib/format';
import styles from './avatar.module.css';

interface AvatarProps {
  id: string;
  name: string;
  src?: string | null;
  size?: number;
}

/** A picture when the avatar is an http(s) URL, coloured initials otherwise. */
export function Avatar({ id, name, src, size = 40 }: AvatarProps) {
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
      style={{ ...style, ['--hue' as string]: String(hueFor(id || name)) }}
    >
      {initials(name)}
    </span>
  );
}

/** The badge that marks bots and webhooks; `className` lets a layout place it (module classes stay local). */
export function BotBadge({ className }: { className?: string } = {}) {
  return (
    <span className={className ? `${styles.botBadge} ${className}` : styles.botBadge} title="Posted by a bot or webhook">
      BOT
    </span>
  );
}
