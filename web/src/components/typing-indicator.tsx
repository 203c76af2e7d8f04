import { useEffect, useState } from 'react';
import { useStore } from '../state/store';
import styles from './typing-indicator.module.css';

/** "Ada is typing…" for the channel; entries expire after about 8 seconds. */
export function TypingIndicator({ channelId }: { channelId: string }) {
  const typing = useStore((s) => s.typing[channelId]);
  const [now, setNow] = useState(() => Date.now());
  const active = Object.values(typing ?? {}).filter((t) => t.until > now);

  useEffect(() => {
    const entries = Object.values(typing ?? {});
    if (!entries.length) return;
    const soonest = Math.min(...entries.map((t) => t.until));
    const t = setTimeout(() => setNow(Date.now()), Math.max(50, soonest - Date.now() + 20));
    return () => clearTimeout(t);
  }, [typing, now]);

  useEffect(() => setNow(Date.now()), [typing]);

  let text = '';
  const names = active.map((t) => t.name || 'Someone');
  if (names.length === 1) text = `${names[0]} is typing…`;
  else if (names.length === 2) text = `${names[0]} and ${names[1]} are typing…`;
  else if (names.length === 3) text = `${names[0]}, ${names[1]} and ${names[2]} are typing…`;
  else if (names.length > 3) text = 'Several people are typing…';

  return (
    <div className={styles.typing} aria-live="polite">
      {text && (
        <>
          <span className={styles.typingDots} aria-hidden="true">
            <span />
            <span />
            <span />
          </span>
          <span className={styles.typingText}>{text}</span>
        </>
      )}
    </div>
  );
}
