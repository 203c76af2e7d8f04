import { useState } from 'react';
import { createServer, joinInvite } from '../state/actions';
import { dmMentions, serverSummary, useUnreadSlices } from '../state/conversations';
import { useStore } from '../state/store';
import { Link, navigate, paths, usePath } from '../router';
import { initials, hueFor } from '../lib/format';
import { safeImageSrc } from '../markdown/parse';
import { PromptDialog } from './forms';
import { JoinIcon, PlusIcon, SearchIcon } from './icons';
import { isMacKeyboard, openQuickSwitcher, switcherShortcut } from './quick-switcher';
import { MentionBadge } from './mention-badge';
import styles from './server-rail.module.css';
import { t } from '../i18n';

/** The column of servers at the far left, with create and join. */
export function ServerRail({ activeServerId }: { activeServerId: string | null }) {
  const servers = useStore((s) => s.servers);
  const order = useStore((s) => s.serverOrder);
  const state = useUnreadSlices();
  const dms = dmMentions(state);
  const path = usePath();
  // The home view: the DMs, or the welcome page of someone in no server yet.
  const home = path === paths.home() || path === paths.dms() || path.startsWith(`${paths.dms()}/`);
  const [dialog, setDialog] = useState<'create' | 'join' | null>(null);

  return (
    <nav className={`server-rail ${styles.serverRail}`} aria-label={t('rail.servers')}>
      <Link
        to={paths.dms()}
        className={`${styles.railHome}${home ? ` ${styles.active}` : ''}`}
        aria-label={dms ? t('rail.directMessagesUnread', { count: dms }) : t('rail.directMessages')}
        aria-current={home ? 'page' : undefined}
        title={t('rail.directMessages')}
      >
        <svg viewBox="0 0 64 64" width="28" height="28" aria-hidden="true">
          <path d="M18 20h28a4 4 0 0 1 4 4v14a4 4 0 0 1-4 4H30l-9 7v-7h-3a4 4 0 0 1-4-4V24a4 4 0 0 1 4-4z" fill="currentColor" />
        </svg>
        <MentionBadge count={dms} className={styles.railBadge} label="" />
      </Link>
      <div className={styles.railSeparator} role="presentation" />
      <ul className={styles.railList}>
        {order.map((id) => {
          const s = servers[id];
          if (!s) return null;
          const { unread: hasUnread, mentions } = serverSummary(state, id);
          const icon = safeImageSrc(s.icon);
          const muted = !!state.settings?.servers?.[id]?.muted;
          return (
            <li key={id}>
              <Link
                to={paths.server(id)}
                className={`${styles.railServer}${id === activeServerId ? ` ${styles.active}` : ''}${hasUnread ? ` ${styles.unread}` : ''}${muted ? ` ${styles.muted}` : ''}`}
                aria-label={t('rail.serverLabel', {
                  name: s.name,
                  unread: hasUnread ? t('rail.unreadSuffix') : '',
                  mentions: mentions ? t('rail.mentionsSuffix', { count: mentions }) : '',
                  muted: muted ? t('rail.mutedSuffix') : '',
                })}
                data-unread={hasUnread ? '' : undefined}
                aria-current={id === activeServerId ? 'page' : undefined}
                title={s.name}
                style={{ ['--hue' as string]: String(hueFor(id)) }}
              >
                {icon ? (
                  <img className={styles.railIcon} src={icon} alt="" referrerPolicy="no-referrer" />
                ) : (
                  // Initials drawn by CSS: the link's name is the server's full name.
                  <span className={styles.railInitials} data-initials={initials(s.name)} aria-hidden="true" />
                )}
                <MentionBadge count={mentions} className={styles.railBadge} label="" />
              </Link>
            </li>
          );
        })}
      </ul>
      <button
        type="button"
        className={styles.railAction}
        aria-label={t('rail.createAServer')}
        title={t('rail.createAServer')}
        onClick={() => setDialog('create')}
      >
        <PlusIcon size={22} />
      </button>
      <button
        type="button"
        className={styles.railAction}
        aria-label={t('rail.joinAServerWith')}
        title={t('rail.joinWithAnInvite')}
        onClick={() => setDialog('join')}
      >
        <JoinIcon />
      </button>
      <button
        type="button"
        className={styles.railAction}
        aria-label={t('rail.quickSwitcher')}
        aria-keyshortcuts={isMacKeyboard() ? 'Meta+K' : 'Control+K'}
        title={t('rail.quickSwitcherShortcut', { keys: switcherShortcut() })}
        onClick={openQuickSwitcher}
      >
        <SearchIcon size={20} />
      </button>
      {dialog === 'create' && (
        <PromptDialog
          title={t('rail.createAServer')}
          label={t('rail.serverName')}
          submitLabel="Create"
          placeholder={t('rail.myCommunity')}
          help="You will be its owner: you manage its channels, invites, bots and webhooks."
          onClose={() => setDialog(null)}
          onSubmit={async (name) => {
            const server = await createServer(name);
            navigate(paths.server(server.id));
          }}
        />
      )}
      {dialog === 'join' && (
        <PromptDialog
          title={t('rail.joinAServer')}
          label={t('rail.inviteLinkOrCode')}
          submitLabel="Join"
          placeholder={t('rail.originInviteAbc123', { origin: location.origin })}
          maxLength={500}
          onClose={() => setDialog(null)}
          onSubmit={async (link) => {
            const server = await joinInvite(link);
            navigate(paths.server(server.id));
          }}
        />
      )}
    </nav>
  );
}
