/**
 * The Invites section of server settings: create links with an expiry and a use limit;
 * with MANAGE_SERVER, every invite of the server (who made it, uses, expiry) with Revoke;
 * otherwise the links made in this visit, which their inviter may revoke.
 */
import { useCallback, useEffect, useId, useState, type FormEvent } from 'react';
import { describeError } from '../../api/client';
import { displayName, type Invite, type Server } from '../../api/types';
import { CopyField } from '../../components/copy-field';
import { InviteLimits } from '../../components/invite-limits';
import { confirm } from '../../components/dialog';
import { copyText } from '../../lib/clipboard';
import { DEFAULT_EXPIRY, describeExpiry, describeLimits, describeUses } from '../../lib/invite-options';
import { loadMembers } from '../../state/actions';
import { createInviteWith, inviteLink, listInvites, revokeInvite } from '../../state/moderation';
import { useStore } from '../../state/store';
import { toast, toastError } from '../../state/toasts';
import styles from './settings.module.css';
import own from './invites-section.module.css';

/** Every invite of the server, for those with MANAGE_SERVER (the only ones who reach it). */
export function InvitesSection({ server }: { server: Server }) {
  /** Made in this visit, newest first. */
  const [made, setMade] = useState<Invite[]>([]);
  const [all, setAll] = useState<Invite[] | null>(null);
  const [listError, setListError] = useState<string | null>(null);
  const members = useStore((s) => s.members[server.id]);

  const refresh = useCallback(async () => {
    try {
      setAll(await listInvites(server.id));
      setListError(null);
    } catch (err) {
      setListError(describeError(err));
    }
  }, [server.id]);

  useEffect(() => {
    void refresh();
  }, [refresh]);

  useEffect(() => {
    if (!members) loadMembers(server.id).catch(() => undefined);
  }, [members, server.id]);

  const inviterName = (id: string) => {
    const m = members?.find((x) => x.id === id);
    return m ? displayName(m) : 'Someone who left';
  };

  const revoke = async (invite: Invite) => {
    const ok = await confirm({
      title: 'Revoke invite',
      body: (
        <p>
          Revoke the invite <code>{invite.code}</code>? Its link stops working at once; people who already joined stay.
        </p>
      ),
      confirmLabel: 'Revoke invite',
      danger: true,
    });
    if (!ok) return;
    try {
      await revokeInvite(invite.code);
      toast('Invite revoked.');
      setMade((l) => l.filter((i) => i.code !== invite.code));
      setAll((l) => l?.filter((i) => i.code !== invite.code) ?? l);
    } catch (err) {
      toastError(err);
    }
  };

  const newest = made[0];

  return (
    <section className={styles.settingsSection} aria-labelledby="invites-title">
      <h2 id="invites-title">Invites</h2>
      <p className={styles.sectionIntro}>
        Anyone with an invite link can join {server.name} once they log in or create an account. Choose how long a link works and how many
        people can use it.
      </p>
      <CreateInviteForm
        serverId={server.id}
        onCreated={(invite) => {
          setMade((l) => [invite, ...l]);
          void refresh();
        }}
      />
      {newest && (
        <div className={own.newLink}>
          <CopyField label="New invite link" value={inviteLink(newest.code)} />
          <p className="hint">{describeLimits(newest)}</p>
        </div>
      )}
      <h3 className={styles.subheading}>All invites</h3>
      {listError && (
        <p className="field-error" role="alert">
          {listError}
        </p>
      )}
      {all === null && !listError && <p className="empty-note">Loading invites…</p>}
      {all && all.length === 0 && <p className="empty-note">No invites yet.</p>}
      {all && all.length > 0 && <InviteTable invites={all} inviterName={inviterName} onRevoke={revoke} />}
    </section>
  );
}

function CreateInviteForm({ serverId, onCreated }: { serverId: string; onCreated: (invite: Invite) => void }) {
  const [maxAge, setMaxAge] = useState(DEFAULT_EXPIRY);
  const [maxUses, setMaxUses] = useState(0);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const id = useId();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      onCreated(await createInviteWith(serverId, { maxAge, maxUses }));
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className={styles.inlineForm} onSubmit={submit} aria-label="Create an invite">
      <InviteLimits id={id} maxAge={maxAge} maxUses={maxUses} onMaxAge={setMaxAge} onMaxUses={setMaxUses} />
      <button type="submit" className="button primary" disabled={busy}>
        Create invite link
      </button>
      {error && (
        <p className={`field-error ${styles.full}`} role="alert">
          {error}
        </p>
      )}
    </form>
  );
}

function InviteTable({
  invites,
  inviterName,
  onRevoke,
}: {
  invites: Invite[];
  inviterName: (id: string) => string;
  onRevoke: (invite: Invite) => void;
}) {
  const copy = async (code: string) => {
    try {
      await copyText(inviteLink(code));
      toast('Invite link copied.');
    } catch (err) {
      toastError(err);
    }
  };
  return (
    <div className={styles.tableWrap}>
      <table className={`${styles.table} ${own.table}`}>
        <thead>
          <tr>
            <th scope="col">Invite</th>
            <th scope="col">Made by</th>
            <th scope="col">Uses</th>
            <th scope="col">Expires</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {invites.map((i) => (
            <tr key={i.code} data-invite={i.code}>
              <td data-label="Invite">
                <code className={own.code}>{i.code}</code>
              </td>
              <td data-label="Made by">{inviterName(i.inviterId)}</td>
              <td data-label="Uses">
                {describeUses(i.uses, i.maxUses)}
                {i.maxUses > 0 && i.uses >= i.maxUses && <span className={own.spent}>used up</span>}
              </td>
              <td data-label="Expires" title={i.expiresAt ? new Date(i.expiresAt).toLocaleString() : undefined}>
                {describeExpiry(i.expiresAt) === 'expired' ? <span className={own.spent}>expired</span> : describeExpiry(i.expiresAt)}
              </td>
              <td className={styles.actionsCell}>
                <button
                  type="button"
                  className="button secondary small"
                  onClick={() => void copy(i.code)}
                  aria-label={`Copy link of invite ${i.code}`}
                >
                  Copy link
                </button>
                <button type="button" className="button danger small" onClick={() => onRevoke(i)} aria-label={`Revoke invite ${i.code}`}>
                  Revoke
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
