import { useCallback, useEffect, useRef, useState } from 'react';
import { displayName } from '../api/types';
import { PromptDialog } from '../components/forms';
import { ServerRail } from '../components/server-rail';
import { DmSidebar } from '../components/dm-list';
import { createServer, joinInvite } from '../state/actions';
import { useStore } from '../state/store';
import { navigate, paths } from '../router';
import { lastChannel } from './chat-page';
import { setPageTitle } from '../lib/title';
import { SIDEBAR_DRAWER_MEDIA, useDrawerEscape } from '../lib/drawer';
import { MenuIcon } from '../components/icons';
import chatStyles from './chat-page.module.css';
import { t } from '../i18n';

/** "/": open the last server, or welcome a person who has none yet. */
export function HomePage({ onLogout }: { onLogout: () => void }) {
  const me = useStore((s) => s.me);
  const order = useStore((s) => s.serverOrder);
  const loaded = useStore((s) => s.serversLoaded);
  const [dialog, setDialog] = useState<'create' | 'join' | null>(null);
  // On a phone the rail and the sidebar (DMs, account settings, log out) are a drawer.
  const [showSidebar, setShowSidebar] = useState(false);
  const menuButton = useRef<HTMLButtonElement>(null);
  const closeSidebar = useCallback(() => setShowSidebar(false), []);
  useDrawerEscape(showSidebar, closeSidebar, menuButton, SIDEBAR_DRAWER_MEDIA);

  useEffect(() => {
    if (!loaded || !order.length) return;
    const last = lastChannel()._last;
    if (last === '@dms') return navigate(paths.dms(), { replace: true });
    const target = last && order.includes(last) ? last : order[0];
    if (target) navigate(paths.server(target), { replace: true });
  }, [loaded, order]);

  useEffect(() => {
    setPageTitle(t('titles.app'));
  }, []);

  if (!loaded || order.length) {
    return <div className="splash">{t('home.loading')}</div>;
  }

  return (
    <div className={`app-frame${showSidebar ? ' sidebar-open' : ''}`}>
      <ServerRail activeServerId={null} />
      <DmSidebar activeId={null} onLogout={onLogout} />
      <main className={`center-page ${chatStyles.withPhoneBar}`}>
        <header className={`${chatStyles.chatHeader} ${chatStyles.phoneBar}`}>
          <button
            ref={menuButton}
            type="button"
            className="icon-button"
            aria-label={t('home.showMenu')}
            aria-expanded={showSidebar}
            onClick={() => setShowSidebar((v) => !v)}
          >
            <MenuIcon />
          </button>
          <span className={chatStyles.chatTitle}>{t('home.parley')}</span>
        </header>
        <div className="card welcome">
          <h1>{t('home.welcomeToParleyDisplayname', { displayName: displayName(me) })}</h1>
          <p>{t('home.serversAreWhereConversations')}</p>
          <div className="row">
            <button type="button" className="button primary" onClick={() => setDialog('create')}>
              {t('home.createAServer')}
            </button>
            <button type="button" className="button secondary" onClick={() => setDialog('join')}>
              {t('home.joinWithAnInvite')}
            </button>
          </div>
        </div>
      </main>
      {showSidebar && <div className="scrim" onClick={closeSidebar} aria-hidden="true" />}
      {dialog === 'create' && (
        <PromptDialog
          title={t('home.createAServer')}
          label={t('home.serverName')}
          submitLabel="Create"
          placeholder={t('home.myCommunity')}
          onClose={() => setDialog(null)}
          onSubmit={async (name) => {
            const s = await createServer(name);
            navigate(paths.server(s.id));
          }}
        />
      )}
      {dialog === 'join' && (
        <PromptDialog
          title={t('home.joinAServer')}
          label={t('home.inviteLinkOrCode')}
          submitLabel="Join"
          maxLength={500}
          onClose={() => setDialog(null)}
          onSubmit={async (link) => {
            const s = await joinInvite(link);
            navigate(paths.server(s.id));
          }}
        />
      )}
    </div>
  );
}
