/** The Invites section of server settings: each new link stays on screen to be copied. */
import { useState } from 'react';
import type { Server } from '../../api/types';
import { CopyField } from '../../components/copy-field';
import { createInvite } from '../../state/actions';
import { toastError } from '../../state/toasts';
import styles from './settings.module.css';

export function InvitesSection({ server }: { server: Server }) {
  const [links, setLinks] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const make = async () => {
    setBusy(true);
    try {
      const link = await createInvite(server.id);
      setLinks((l) => [link, ...l]);
    } catch (err) {
      toastError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className={styles.settingsSection} aria-labelledby="invites-title">
      <h2 id="invites-title">Invites</h2>
      <p className={styles.sectionIntro}>Anyone with an invite link can join {server.name} once they log in or create an account.</p>
      <button type="button" className="button primary" onClick={() => void make()} disabled={busy}>
        Create invite link
      </button>
      <div className={`stack ${styles.inviteLinks}`}>
        {links.map((l, i) => (
          <CopyField key={l} label={i === 0 ? 'New invite link' : 'Invite link'} value={l} />
        ))}
      </div>
    </section>
  );
}
