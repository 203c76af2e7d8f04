import { useEffect } from 'react';
import type { Server } from '../api/types';
import { displayName } from '../api/types';
import { loadMembers } from '../state/actions';
import { useStore } from '../state/store';
import { toastError } from '../state/toasts';
import { Avatar, BotBadge } from './avatar';
import styles from './member-list.module.css';
import sidebarStyles from './channel-sidebar.module.css';

/** People and bots in the server. */
export function MemberList({ server }: { server: Server }) {
  const members = useStore((s) => s.members[server.id]);
  useEffect(() => {
    loadMembers(server.id).catch(toastError);
  }, [server.id]);
  const people = (members ?? []).filter((m) => !m.bot);
  const bots = (members ?? []).filter((m) => m.bot);
  const section = (title: string, list: typeof people) =>
    list.length > 0 && (
      <section className={styles.memberSection} aria-label={title}>
        <h3 className={sidebarStyles.sidebarSectionTitle}>
          {title} — {list.length}
        </h3>
        <ul>
          {list.map((m) => (
            <li key={m.id} className={styles.member}>
              <Avatar id={m.id} name={displayName(m)} src={m.avatar} size={28} />
              <span className={styles.memberName}>{displayName(m)}</span>
              {m.bot && <BotBadge />}
              {m.id === server.ownerId && (
                <span className={styles.ownerCrown} title="Server owner" aria-label="owner">
                  ★
                </span>
              )}
            </li>
          ))}
        </ul>
      </section>
    );
  return (
    <aside className={`member-list ${styles.memberList}`} aria-label="Members">
      {!members && <p className="empty-note">Loading members…</p>}
      {section('Members', people)}
      {section('Bots', bots)}
    </aside>
  );
}
