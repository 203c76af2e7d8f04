import { useId, useState } from 'react';
import type { Invite, Server } from '../api/types';
import { displayName } from '../api/types';
import { DEFAULT_EXPIRY, describeLimits } from '../lib/invite-options';
import { createChannel } from '../state/actions';
import { createInviteWith, inviteLink, revokeInvite } from '../state/moderation';
import { InviteLimits } from './invite-limits';
import { canOpenSettings } from '../pages/settings/tabs';
import { can, P } from '../state/permissions';
import { useStore } from '../state/store';
import { toast, toastError } from '../state/toasts';
import { Link, navigate, paths } from '../router';
import { StatusMenu } from './status-menu';
import { statusLabel } from '../state/presence';
import { ChannelList } from './channel-list';
import { CopyField } from './copy-field';
import { Dialog } from './dialog';
import { PromptDialog, normaliseChannelName } from './forms';
import { BellIcon, BellOffIcon, BotIcon, GearIcon, InviteIcon, LogoutIcon, PlusIcon, UserIcon } from './icons';
import { NotificationSettingsDialog } from './notification-settings';
import styles from './channel-sidebar.module.css';
import { COMPOSER_INPUT_ID } from './composer';
import dialogStyles from './dialog.module.css';
import { t } from '../i18n';
import { useAction } from '../lib/use-action';

interface Props {
  server: Server;
  activeChannelId: string | null;
  /** The user's server-wide permissions (docs/permissions.md). */
  bits: bigint;
  onLogout: () => void;
}

/** The server's channels, owner shortcuts and the user panel. */
export function ChannelSidebar({ server, activeChannelId, bits, onLogout }: Props) {
  const meId = useStore((s) => s.me?.id);
  const showSettings = canOpenSettings(bits, server.ownerId === meId);
  const settings = useStore((s) => s.settings);
  const [dialog, setDialog] = useState<'channel' | 'invite' | null>(null);
  /** The notification settings dialog: open (with a channel to show, from its context menu) or not. */
  const [notify, setNotify] = useState<{ channelId: string | null } | null>(null);
  const serverMuted = !!settings?.servers?.[server.id]?.muted;

  return (
    <aside className={`channel-sidebar ${styles.channelSidebar}`} aria-label={t('sidebar.serverChannels', { server: server.name })}>
      <header className={styles.sidebarHeader}>
        <h1 className={styles.serverName} title={server.name}>
          {server.name}
        </h1>
        <button
          type="button"
          className={`icon-button${serverMuted ? ` ${styles.mutedBell}` : ''}`}
          aria-label={serverMuted ? t('sidebar.notificationSettingsMuted') : t('sidebar.notificationSettings')}
          title={t('sidebar.notificationSettings')}
          onClick={() => setNotify({ channelId: null })}
        >
          {serverMuted ? <BellOffIcon /> : <BellIcon />}
        </button>
        {showSettings && (
          <Link
            to={paths.settings(server.id)}
            className="icon-button"
            aria-label={t('sidebar.serverSettings')}
            title={t('sidebar.serverSettings')}
          >
            <GearIcon />
          </Link>
        )}
      </header>
      {can(bits, P.CREATE_INVITE) && (
        <div className={styles.sidebarOwnerActions}>
          <button type="button" className="button secondary small" onClick={() => setDialog('invite')}>
            <InviteIcon /> {t('sidebar.invitePeople')}
          </button>
        </div>
      )}
      <div className={styles.sidebarSection}>
        <div className={styles.sidebarSectionTitle}>
          <span id={`channels-${server.id}`}>{t('sidebar.channels')}</span>
          {can(bits, P.MANAGE_CHANNELS) && (
            <button
              type="button"
              className="icon-button small"
              aria-label={t('sidebar.createAChannel')}
              title={t('sidebar.createAChannel')}
              onClick={() => setDialog('channel')}
            >
              <PlusIcon size={16} />
            </button>
          )}
        </div>
        <ChannelList
          server={server}
          activeChannelId={activeChannelId}
          bits={bits}
          labelledBy={`channels-${server.id}`}
          onNotify={(channelId) => setNotify({ channelId })}
        />
        {/* The next stop after the channels, seen only when focused: past the header and the list, to the composer. */}
        <a
          href={`#${COMPOSER_INPUT_ID}`}
          className={styles.skipToComposer}
          data-skip="composer"
          onClick={(e) => {
            const input = document.getElementById(COMPOSER_INPUT_ID);
            if (!input) return;
            e.preventDefault();
            input.focus();
          }}
        >
          {t('sidebar.skipToComposer')}
        </a>
      </div>
      <UserPanel onLogout={onLogout} />
      {dialog === 'channel' && (
        <PromptDialog
          title={t('sidebar.createAChannel')}
          label={t('sidebar.channelName')}
          submitLabel="Create channel"
          placeholder={t('sidebar.newChannel')}
          onClose={() => setDialog(null)}
          onSubmit={async (name) => {
            const channel = await createChannel(server.id, normaliseChannelName(name));
            navigate(paths.channel(server.id, channel.id));
          }}
        />
      )}
      {dialog === 'invite' && <InviteDialog serverId={server.id} serverName={server.name} onClose={() => setDialog(null)} />}
      {notify && <NotificationSettingsDialog server={server} focusChannelId={notify.channelId} onClose={() => setNotify(null)} />}
    </aside>
  );
}

export function InviteDialog({ serverId, serverName, onClose }: { serverId: string; serverName: string; onClose: () => void }) {
  const [invite, setInvite] = useState<Invite | null>(null);
  const [maxAge, setMaxAge] = useState(DEFAULT_EXPIRY);
  const [maxUses, setMaxUses] = useState(0);
  const { busy, run } = useAction({ onError: toastError });
  const id = useId();
  const make = async () => {
    await run(async () => {
      setInvite(await createInviteWith(serverId, { maxAge, maxUses }));
    });
  };
  const revoke = async (target: Invite) => {
    await run(async () => {
      await revokeInvite(target.code);
      setInvite(null);
      toast(t('sidebar.inviteRevokedTheLink'));
    });
  };
  return (
    <Dialog title={t('sidebar.invitePeopleToServername', { serverName })} onClose={onClose}>
      <div className={`${dialogStyles.dialogBody} stack`}>
        {invite ? (
          <>
            <CopyField label={t('sidebar.inviteLink')} value={inviteLink(invite.code)} />
            <p className="hint">{t('sidebar.describelimitsAnyoneWithThis', { describeLimits: describeLimits(invite), serverName })}</p>
            {/* Whoever made a link may take it back (docs/permissions.md), managers of the server or not. */}
            <button type="button" className="button secondary small" onClick={() => void revoke(invite)} disabled={busy}>
              {t('sidebar.revokeThisLink')}
            </button>
          </>
        ) : (
          <p>{t('sidebar.createALinkThat', { serverName })}</p>
        )}
        <div className={styles.inviteLimits}>
          <InviteLimits id={id} maxAge={maxAge} maxUses={maxUses} onMaxAge={setMaxAge} onMaxUses={setMaxUses} />
        </div>
        <footer className={dialogStyles.dialogActions}>
          <button type="button" className="button secondary" onClick={onClose}>
            {t('sidebar.done')}
          </button>
          <button type="button" className="button primary" onClick={make} disabled={busy} data-autofocus>
            {invite ? t('sidebar.createAnotherLink') : t('sidebar.createInviteLink')}
          </button>
        </footer>
      </div>
    </Dialog>
  );
}

/** `className` lets a page adjust the panel's placement, since its own classes are module-local. */
export function UserPanel({ onLogout, className }: { onLogout: () => void; className?: string }) {
  const me = useStore((s) => s.me);
  const status = useStore((s) => s.status);
  const myStatus = useStore((s) => s.myStatus);
  if (!me) return null;
  const name = displayName(me);
  const shown = status === 'ready' ? statusLabel(myStatus) : status === 'closed' ? t('presence.status.offline') : t('chat.connecting');
  return (
    <div className={className ? `${styles.userPanel} ${className}` : styles.userPanel}>
      {/* The picture sets the status; the name opens account settings, as in most chat apps. */}
      <StatusMenu me={me} />
      <Link to={paths.account()} className={styles.userPanelMe} title={t('sidebar.accountSettings')}>
        <span className={styles.userPanelInfo}>
          <span className={styles.userPanelName}>{name}</span>
          <span
            className={
              status === 'ready' && myStatus === 'online' ? `${styles.userPanelStatus} ${styles.statusConnected}` : styles.userPanelStatus
            }
          >
            {shown}
          </span>
        </span>
        <span className="visually-hidden">{t('sidebar.accountSettingsSuffix')}</span>
        <span className={styles.userPanelGear} aria-hidden="true">
          <UserIcon />
        </span>
      </Link>
      <Link to={paths.myBots()} className="icon-button" aria-label={t('sidebar.myBots')} title={t('sidebar.myBots')}>
        <BotIcon />
      </Link>
      <button type="button" className="icon-button" aria-label={t('sidebar.logOut')} title={t('sidebar.logOut')} onClick={onLogout}>
        <LogoutIcon />
      </button>
    </div>
  );
}
