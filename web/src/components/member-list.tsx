import { useEffect } from 'react';
import type { Member, Role, Server } from '../api/types';
import { memberName } from '../api/types';
import { store, useStore } from '../state/store';
import { toastError } from '../state/toasts';
import { nameColor, nameColorStyle, topColoredRole } from '../lib/name-color';
import { Avatar, BotBadge } from './avatar';
import { useAppsTrigger } from './apps-menu';
import { MessageIcon } from './icons';
import { messageUser, openMemberCard, refreshMembers } from './member-card';
import styles from './member-list.module.css';
import roleName from './role-name.module.css';
import sidebarStyles from './channel-sidebar.module.css';
import { t } from '../i18n';

export interface MemberGroup {
  /** A hoisted role's id, or `members` / `bots`. */
  key: string;
  title: string;
  role?: Role;
  members: Member[];
}

const byName = (a: Member, b: Member) =>
  memberName(a).localeCompare(memberName(b), undefined, { sensitivity: 'base' }) || a.id.localeCompare(b.id);

/**
 * The member list's groups, as Discord draws them: one per hoisted role, in role order
 * (highest first), each member under their highest hoisted role; then everyone else under
 * "Members". Bots without a hoisted role stay together under "Bots"; a bot that has been
 * given a hoisted role is listed with that role, like anyone else holding it, since
 * hoisting a role is the server's way of saying "show these together". Empty groups are
 * left out; each group is sorted by name.
 */
export function groupMembers(server: Server, roles: Role[] | undefined, members: Member[]): MemberGroup[] {
  const hoisted = (roles ?? []).filter((r) => r.hoist && r.id !== server.id);
  const byRole = new Map<string, Member[]>(hoisted.map((r) => [r.id, []]));
  const people: Member[] = [];
  const bots: Member[] = [];
  for (const m of members) {
    const top = hoisted.find((r) => m.roles?.includes(r.id));
    if (top) byRole.get(top.id)?.push(m);
    else (m.bot ? bots : people).push(m);
  }
  const groups: MemberGroup[] = hoisted.map((r) => ({ key: r.id, title: r.name, role: r, members: byRole.get(r.id) ?? [] }));
  groups.push({ key: 'members', title: t('members.members'), members: people }, { key: 'bots', title: t('members.bots'), members: bots });
  return groups.filter((g) => g.members.length > 0).map((g) => ({ ...g, members: [...g.members].sort(byName) }));
}

/** Members above which a server may get no presence events (the service's PRESENCE_FANOUT_MAX default). */
const LARGE_SERVER = 1000;

/** People and bots in the server, grouped by hoisted role; each opens their profile card. */
export function MemberList({ server, channelId = null }: { server: Server; channelId?: string | null }) {
  const members = useStore((s) => s.members[server.id]);
  const roles = useStore((s) => s.roles[server.id]);
  useEffect(() => {
    refreshMembers(server.id).catch(toastError);
    // Large servers get no PRESENCE_UPDATE (PRESENCE_FANOUT_MAX): their list refreshes while on screen.
    const timer = window.setInterval(() => {
      if ((store.getState().members[server.id]?.length ?? 0) > LARGE_SERVER) refreshMembers(server.id).catch(() => undefined);
    }, 60_000);
    return () => window.clearInterval(timer);
  }, [server.id]);
  const groups = members ? groupMembers(server, roles, members) : [];
  return (
    <aside className={`member-list ${styles.memberList}`} aria-label={t('members.members')}>
      {!members && <p className="empty-note">{t('members.loadingMembers')}</p>}
      {groups.map((g) => (
        <section key={g.key} className={styles.memberSection} aria-label={`${g.title}, ${g.members.length}`} data-group={g.key}>
          <h3 className={`${sidebarStyles.sidebarSectionTitle} ${styles.groupTitle}`}>
            <span className={styles.groupName}>{g.title}</span> <span className={styles.groupCount}>— {g.members.length}</span>
          </h3>
          <ul>
            {g.members.map((m) => (
              <MemberRow key={m.id} server={server} roles={roles} member={m} channelId={channelId} />
            ))}
          </ul>
        </section>
      ))}
    </aside>
  );
}

function MemberRow({
  server,
  roles,
  member,
  channelId,
}: {
  server: Server;
  roles: Role[] | undefined;
  member: Member;
  channelId: string | null;
}) {
  // The "Apps" menu: the channel's user commands on this member.
  const apps = useAppsTrigger('user', channelId, member.id);
  // One's own row shows one's choice: the service does not echo one's own status back.
  const presence = useStore((s) => (member.id === s.me?.id ? s.myStatus : (s.presence[member.id] ?? 'offline')));
  const name = memberName(member);
  const color = nameColor(topColoredRole(roles, member.roles)?.color);
  const owner = member.id === server.ownerId;
  const self = useStore((s) => s.me?.id === member.id);
  return (
    <li className={presence === 'offline' ? `${styles.member} ${styles.offline}` : styles.member} data-member-id={member.id}>
      <button
        type="button"
        className={styles.memberButton}
        aria-haspopup="dialog"
        title={t('members.viewNameSProfile', { name })}
        onClick={() => openMemberCard(server.id, member.id)}
        {...apps}
      >
        <Avatar id={member.id} name={name} src={member.avatar} size={32} status={presence} />
        <span className={color ? `${styles.memberName} ${roleName.colored}` : styles.memberName} style={nameColorStyle(color)}>
          {name}
        </span>
        {member.bot && <BotBadge />}
        {owner && (
          <span className={styles.ownerCrown} title={t('members.serverOwner')} role="img" aria-label={t('members.owner')}>
            ★
          </span>
        )}
      </button>
      {!self && (
        <button
          type="button"
          className={`icon-button small ${styles.messageMember}`}
          aria-label={t('members.messageName', { name })}
          title={t('members.messageName', { name })}
          onClick={() => void messageUser(member)}
        >
          <MessageIcon size={16} />
        </button>
      )}
    </li>
  );
}
