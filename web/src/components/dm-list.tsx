/**
 * The person's direct messages and groups, newest activity first, with their unread counts:
 * the sidebar of the home view.
 */
import type { DmChannel } from '../api/types';
import { displayName } from '../api/types';
import { dmOthers, dmTitle, isUnread, mentionsIn, sortedDms } from '../state/conversations';
import { useStore } from '../state/store';
import { Link, paths } from '../router';
import { Avatar } from './avatar';
import { UserPanel } from './channel-sidebar';
import { PlusIcon } from './icons';
import { MentionBadge } from './mention-badge';
import { NewMessageHost, openNewMessage } from './new-message';
import sidebarStyles from './channel-sidebar.module.css';
import styles from './dm-list.module.css';
import { Trans } from 'react-i18next';
import { t } from '../i18n';

/** A DM's picture: the other person's avatar, or a group's initials. */
export function DmAvatar({ dm, meId, size = 32 }: { dm: DmChannel; meId: string | undefined; size?: number }) {
  const others = dmOthers(dm, meId);
  const other = others[0];
  if (dm.type === 'group_dm' || !other) return <Avatar id={dm.id} name={dmTitle(dm, meId)} size={size} />;
  return <Avatar id={other.id} name={displayName(other)} src={other.avatar} size={size} />;
}

export function DmSidebar({ activeId, onLogout }: { activeId: string | null; onLogout: () => void }) {
  const dms = useStore((s) => s.dms);
  const loaded = useStore((s) => s.dmsLoaded);
  const readStates = useStore((s) => s.readStates);
  const meId = useStore((s) => s.me?.id);
  // A DM nobody wrote in yet stays out of the list (as on Discord), unless it is open or a group.
  const list = sortedDms(dms).filter((dm) => dm.lastMessageId || dm.type === 'group_dm' || dm.id === activeId);

  return (
    <aside className={`channel-sidebar ${sidebarStyles.channelSidebar}`} aria-label={t('dmList.directMessages')}>
      <header className={sidebarStyles.sidebarHeader}>
        <h1 className={sidebarStyles.serverName}>{t('dmList.directMessages')}</h1>
        <button
          type="button"
          className="icon-button"
          aria-label={t('dmList.newMessage')}
          title={t('dmList.newMessage')}
          aria-haspopup="dialog"
          onClick={openNewMessage}
        >
          <PlusIcon size={18} />
        </button>
      </header>
      <NewMessageHost />
      <div className={sidebarStyles.sidebarSection}>
        <ul className={styles.dmList} aria-label={t('dmList.conversations')}>
          {list.map((dm) => {
            const unread = isUnread({ readStates }, dm.id, dm.lastMessageId);
            const count = unread ? mentionsIn({ readStates }, dm.id) : 0;
            const group = dm.type === 'group_dm';
            const title = dmTitle(dm, meId);
            return (
              <li key={dm.id}>
                <Link
                  to={paths.dm(dm.id)}
                  className={`${styles.dmLink}${dm.id === activeId ? ` ${styles.active}` : ''}${unread ? ` ${styles.unread}` : ''}`}
                  aria-current={dm.id === activeId ? 'page' : undefined}
                  data-dm-id={dm.id}
                  data-unread={unread ? '' : undefined}
                >
                  <DmAvatar dm={dm} meId={meId} />
                  <span className={styles.dmText}>
                    <span className={styles.dmName}>{title}</span>
                    {group && <span className={styles.dmSub}>{t('dmList.lengthMembers', { length: dm.recipients.length })}</span>}
                  </span>
                  {unread && !count && <span className="visually-hidden"> {t('dmList.unread')}</span>}
                  <MentionBadge count={count} label={t('dmList.unreadMessages', { count })} />
                </Link>
              </li>
            );
          })}
        </ul>
        {loaded && list.length === 0 && (
          <p className={`empty-note ${styles.empty}`}>
            <Trans i18nKey="dmList.empty" components={{ b: <strong /> }} />
          </p>
        )}
        {!loaded && <p className="empty-note">{t('dmList.loading')}</p>}
      </div>
      <UserPanel onLogout={onLogout} />
    </aside>
  );
}
