/**
 * Under a message that started a thread: the thread's name, how many messages it holds and
 * when it last moved, as a link that opens it beside the channel (docs/threads.md).
 */
import { snowflakeTime } from '@parley/protocol/ids';
import type { Thread } from '../api/types';
import { t } from '../i18n';
import { formatAgo } from '../lib/format';
import { Link, paths } from '../router';
import { isUnread } from '../state/conversations';
import { useStore } from '../state/store';
import { lastActivity } from '../state/threads';
import { ThreadIcon } from './icons';
import styles from './thread-summary.module.css';

export function ThreadSummary({ thread }: { thread: Thread }) {
  const unread = useStore((s) => !!thread.member && isUnread(s, thread.id, thread.lastMessageId));
  const count = thread.messageCount;
  return (
    <Link
      to={paths.thread(thread.serverId, thread.parentId, thread.id)}
      className={`${styles.summary}${unread ? ` ${styles.unread}` : ''}`}
      data-thread-summary={thread.id}
    >
      <span className={styles.icon} aria-hidden="true">
        <ThreadIcon size={16} />
      </span>
      <span className={styles.name}>{thread.name}</span>
      <span className={styles.count}>{t('threads.messages', { count })}</span>
      {count > 0 && <span className={styles.when}>{formatAgo(snowflakeTime(lastActivity(thread)))}</span>}
      {unread && <span className="visually-hidden"> {t('sidebar.unread')}</span>}
      <span className={styles.chevron} aria-hidden="true">
        ›
      </span>
    </Link>
  );
}
