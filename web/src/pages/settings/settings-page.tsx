/** The server settings shell: section navigation, the close link and the owner check. */
import { useEffect } from 'react';
import { CloseIcon } from '../../components/icons';
import { ErrorBoundary } from '../../components/error-boundary';
import { ServerRail } from '../../components/server-rail';
import { loadChannels } from '../../state/actions';
import { useStore } from '../../state/store';
import { toastError } from '../../state/toasts';
import { Link, navigate, paths } from '../../router';
import { BotsSection } from './bots-section';
import { ChannelsSection } from './channels-section';
import { InvitesSection } from './invites-section';
import { WebhooksSection } from './webhooks-section';
import styles from './settings.module.css';

const TABS = [
  { id: 'webhooks', label: 'Webhooks' },
  { id: 'bots', label: 'Bots' },
  { id: 'channels', label: 'Channels' },
  { id: 'invites', label: 'Invites' },
] as const;

type TabId = (typeof TABS)[number]['id'];

/** Server settings: only the owner ever reaches the content. */
export function SettingsPage({ serverId, tab }: { serverId: string; tab: string | undefined }) {
  const server = useStore((s) => s.servers[serverId]);
  const meId = useStore((s) => s.me?.id);
  const channels = useStore((s) => s.channels[serverId]);
  const active: TabId = (TABS.find((t) => t.id === tab)?.id ?? 'webhooks') as TabId;

  useEffect(() => {
    if (server && !channels) loadChannels(serverId).catch(toastError);
  }, [server, channels, serverId]);

  useEffect(() => {
    if (server) document.title = `Settings · ${server.name} · Parley`;
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
            <p>{meId ? 'This server was not found.' : 'Loading…'}</p>
          </div>
        </main>
      </div>
    );
  }

  if (server.ownerId !== meId) {
    return (
      <div className="app-frame">
        <ServerRail activeServerId={serverId} />
        <main className="center-page">
          <div className="card">
            <h1>Not available</h1>
            <p>Only the owner of {server.name} can change its settings.</p>
            <Link to={back} className="button primary">
              Back to {server.name}
            </Link>
          </div>
        </main>
      </div>
    );
  }

  return (
    <div className={`app-frame ${styles.settingsFrame}`}>
      <ServerRail activeServerId={serverId} />
      <nav className={styles.settingsNav} aria-label="Settings sections">
        <h1 className={styles.settingsServer} title={server.name}>
          {server.name}
        </h1>
        <p className={styles.settingsCaption}>Server settings</p>
        <ul>
          {TABS.map((t) => (
            <li key={t.id}>
              <Link
                to={paths.settings(serverId, t.id)}
                className={t.id === active ? `${styles.settingsTab} ${styles.active}` : styles.settingsTab}
                aria-current={t.id === active ? 'page' : undefined}
              >
                {t.label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <main className={styles.settingsContent}>
        <div className={styles.settingsTop}>
          <Link to={back} className="button secondary small close-settings" aria-label="Close settings and return to chat">
            <CloseIcon /> Close <kbd>Esc</kbd>
          </Link>
        </div>
        <ErrorBoundary resetKey={active}>
          {active === 'webhooks' && <WebhooksSection server={server} channels={channels ?? []} />}
          {active === 'bots' && <BotsSection server={server} />}
          {active === 'channels' && <ChannelsSection server={server} channels={channels ?? []} />}
          {active === 'invites' && <InvitesSection server={server} />}
        </ErrorBoundary>
      </main>
    </div>
  );
}
