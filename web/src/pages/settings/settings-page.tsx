/**
 * The server settings shell: section navigation and the close link. Each section shows to
 * whoever holds its permission (docs/permissions.md); webhooks and bots stay the owner's
 * (docs/api.md#webhooks-management-server-owner-only).
 */
import { useEffect } from 'react';
import { CloseIcon } from '../../components/icons';
import { ErrorBoundary } from '../../components/error-boundary';
import { ServerRail } from '../../components/server-rail';
import { loadChannels, loadRoles } from '../../state/actions';
import { canAny, usePermissions } from '../../state/permissions';
import { useStore } from '../../state/store';
import { toastError } from '../../state/toasts';
import { Link, navigate, paths } from '../../router';
import { AuditLogSection } from './audit-log-section';
import { BansSection } from './bans-section';
import { BotsSection } from './bots-section';
import { ChannelsSection } from './channels-section';
import { InvitesSection } from './invites-section';
import { OverviewSection } from './overview-section';
import { RolesSection } from './roles-section';
import { WebhooksSection } from './webhooks-section';
import styles from './settings.module.css';
import { setPageTitle } from '../../lib/title';
import { canOpenSettings, TABS, type TabId } from './tabs';
import { Trans } from 'react-i18next';
import { t } from '../../i18n';
import '../../i18n/settings';

/** Server settings: each section for whoever may use it. */
export function SettingsPage({ serverId, tab }: { serverId: string; tab: string | undefined }) {
  const server = useStore((s) => s.servers[serverId]);
  const meId = useStore((s) => s.me?.id);
  const channels = useStore((s) => s.channels[serverId]);
  const roles = useStore((s) => s.roles[serverId]);
  const bits = usePermissions(serverId);
  const owner = !!server && server.ownerId === meId;
  const opens = canOpenSettings(bits, owner);
  const tabs = TABS.filter((t) => (t.needs === 'owner' ? owner : t.needs === 'any' ? opens : canAny(bits, t.needs)));
  const active: TabId | undefined = (tabs.find((t) => t.id === tab) ?? tabs[0])?.id;

  useEffect(() => {
    if (server && !channels) loadChannels(serverId).catch(toastError);
  }, [server, channels, serverId]);

  useEffect(() => {
    if (server && !roles) loadRoles(serverId).catch(toastError);
  }, [server, roles, serverId]);

  useEffect(() => {
    if (server) setPageTitle(t('settings.page.title', { server: server.name }));
  }, [server]);

  const back = server ? paths.server(serverId) : paths.home();

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const t = e.target;
      const inField = t instanceof HTMLInputElement || t instanceof HTMLSelectElement || t instanceof HTMLTextAreaElement;
      if (e.key === 'Escape' && !e.defaultPrevented && !inField && !document.querySelector('dialog[open]')) navigate(back);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [back]);

  if (!server || !meId) {
    return (
      <div className="app-frame">
        <ServerRail activeServerId={null} />
        <main className="center-page">
          <div className="card">
            <p>{meId ? t('settings.page.thisServerWasNot') : t('settings.page.loading')}</p>
          </div>
        </main>
      </div>
    );
  }

  if (!active) {
    return (
      <div className="app-frame">
        <ServerRail activeServerId={serverId} />
        <main className="center-page">
          <div className="card">
            <h1>{t('settings.page.notAvailable')}</h1>
            <p>{t('settings.page.yourRolesInServer', { server: server.name })}</p>
            <Link to={back} className="button primary">
              {t('settings.page.backToServer', { server: server.name })}
            </Link>
          </div>
        </main>
      </div>
    );
  }

  return (
    <div className={`app-frame ${styles.settingsFrame}`}>
      <ServerRail activeServerId={serverId} />
      <nav className={styles.settingsNav} aria-label={t('settings.page.settingsSections')}>
        <h1 className={styles.settingsServer} title={server.name}>
          {server.name}
        </h1>
        <p className={styles.settingsCaption}>{t('settings.page.serverSettings')}</p>
        <ul>
          {tabs.map((tab) => (
            <li key={tab.id}>
              <Link
                to={paths.settings(serverId, tab.id)}
                className={tab.id === active ? `${styles.settingsTab} ${styles.active}` : styles.settingsTab}
                aria-current={tab.id === active ? 'page' : undefined}
              >
                {t(`settings.tabs.${tab.id}`)}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <main className={styles.settingsContent}>
        <div className={styles.settingsTop}>
          {/* The name starts with the visible words, so speech input ("click Close") finds it. */}
          <Link to={back} className="button secondary small close-settings" aria-keyshortcuts="Escape">
            <CloseIcon /> <Trans i18nKey="settings.page.close" components={{ hidden: <span className="visually-hidden" /> }} />{' '}
            <span aria-hidden="true">
              <kbd>{t('settings.page.esc')}</kbd>
            </span>
          </Link>
        </div>
        <ErrorBoundary resetKey={active}>
          {active === 'overview' && <OverviewSection server={server} />}
          {active === 'roles' && <RolesSection server={server} />}
          {active === 'channels' && <ChannelsSection server={server} channels={channels ?? []} />}
          {active === 'invites' && <InvitesSection server={server} />}
          {active === 'bans' && <BansSection server={server} />}
          {active === 'audit-log' && <AuditLogSection server={server} />}
          {active === 'webhooks' && <WebhooksSection server={server} channels={channels ?? []} owner={owner} />}
          {active === 'bots' && <BotsSection server={server} />}
        </ErrorBoundary>
      </main>
    </div>
  );
}
