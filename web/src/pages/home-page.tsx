import { useEffect, useState } from 'react';
import { displayName } from '../api/types';
import { PromptDialog } from '../components/forms';
import { ServerRail } from '../components/server-rail';
import { DmSidebar } from '../components/dm-list';
import { createServer, joinInvite } from '../state/actions';
import { useStore } from '../state/store';
import { navigate, paths } from '../router';
import { lastChannel } from './chat-page';
import { setPageTitle } from '../lib/title';

/** "/": open the last server, or welcome a person who has none yet. */
export function HomePage({ onLogout }: { onLogout: () => void }) {
  const me = useStore((s) => s.me);
  const order = useStore((s) => s.serverOrder);
  const loaded = useStore((s) => s.serversLoaded);
  const [dialog, setDialog] = useState<'create' | 'join' | null>(null);

  useEffect(() => {
    if (!loaded || !order.length) return;
    const last = lastChannel()._last;
    if (last === '@dms') return navigate(paths.dms(), { replace: true });
    const target = last && order.includes(last) ? last : order[0];
    if (target) navigate(paths.server(target), { replace: true });
  }, [loaded, order]);

  useEffect(() => {
    setPageTitle('Parley');
  }, []);

  if (!loaded || order.length) {
    return <div className="splash">Loading…</div>;
  }

  return (
    <div className="app-frame">
      <ServerRail activeServerId={null} />
      <DmSidebar activeId={null} onLogout={onLogout} />
      <main className="center-page">
        <div className="card welcome">
          <h1>Welcome to Parley, {displayName(me)}!</h1>
          <p>Servers are where conversations happen. Start your own, or join one with an invite link someone sent you.</p>
          <div className="row">
            <button type="button" className="button primary" onClick={() => setDialog('create')}>
              Create a server
            </button>
            <button type="button" className="button secondary" onClick={() => setDialog('join')}>
              Join with an invite
            </button>
          </div>
        </div>
      </main>
      {dialog === 'create' && (
        <PromptDialog
          title="Create a server"
          label="Server name"
          submitLabel="Create"
          placeholder="My community"
          onClose={() => setDialog(null)}
          onSubmit={async (name) => {
            const s = await createServer(name);
            navigate(paths.server(s.id));
          }}
        />
      )}
      {dialog === 'join' && (
        <PromptDialog
          title="Join a server"
          label="Invite link or code"
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
