import { safeImageSrc } from '../markdown/parse';
import { hueFor, initials } from '../lib/format';

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
    return <img className="avatar" src={url} alt="" width={size} height={size} style={style} loading="lazy" referrerPolicy="no-referrer" />;
  }
  return (
    <span className="avatar avatar-initials" aria-hidden="true" style={{ ...style, ['--hue' as string]: String(hueFor(id || name)) }}>
      {initials(name)}
    </span>
  );
}

/** The badge that marks bots and webhooks. */
export function BotBadge() {
  return (
    <span className="bot-badge" title="Posted by a bot or webhook">
      BOT
    </span>
  );
}
