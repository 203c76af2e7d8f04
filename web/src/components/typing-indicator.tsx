import { useEffect, useState } from 'react';
import { t } from '../i18n';
import { useStore } from '../state/store';
import styles from './typing-indicator.module.css';

/** "Ada is typing…" for the channel; entries expire after about 8 seconds. */
export function TypingIndicator({ channelId }: { channelId: string }) {
  const typing = useStore((s) => s.typing[channelId]);
  const [now, setNow] = useState(() => Date.now());
  const active = Object.values(typing ?? {}).filter((t) => t.until > now);

  // biome-ignore lint/correctness/useExhaustiveDependencies(now): each tick schedules the next expiry
  useEffect(() => {
    const entries = Object.values(typing ?? {});
    if (!entries.length) return;
    const soonest = Math.min(...entries.map((t) => t.until));
    const timer = setTimeout(() => setNow(Date.now()), Math.max(50, soonest - Date.now() + 20));
    return () => clearTimeout(timer);
  }, [typing, now]);

  // biome-ignore lint/correctness/useExhaustiveDependencies(typing): a new typing entry restarts the clock
  useEffect(() => setNow(Date.now()), [typing]);

  let text = '';
  const names = active.map((entry) => entry.name || t('typing.someone'));
  if (names.length === 1) text = t('typing.one', { a: names[0]! });
  else if (names.length === 2) text = t('typing.two', { a: names[0]!, b: names[1]! });
  else if (names.length === 3) text = t('typing.three', { a: names[0]!, b: names[1]!, c: names[2]! });
  else if (names.length > 3) text = t('typing.several');

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
