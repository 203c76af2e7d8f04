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
import { Trans } from 'react-i18next';
import { t } from '../../i18n';
import '../../i18n/settings';
import { useAction } from '../../lib/use-action';

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
    return m ? displayName(m) : t('settings.invites.someoneWhoLeft');
  };

  const revoke = async (invite: Invite) => {
    const ok = await confirm({
      title: t('settings.invites.revokeInvite'),
      body: (
        <p>
          <Trans i18nKey="settings.invites.revokeConfirm" values={{ code: invite.code }} components={{ code: <code /> }} />
        </p>
      ),
      confirmLabel: t('settings.invites.revokeInvite'),
      danger: true,
    });
    if (!ok) return;
    try {
      await revokeInvite(invite.code);
      toast(t('settings.invites.inviteRevoked'));
      setMade((l) => l.filter((i) => i.code !== invite.code));
      setAll((l) => l?.filter((i) => i.code !== invite.code) ?? l);
    } catch (err) {
      toastError(err);
    }
  };

  const newest = made[0];

  return (
    <section className={styles.settingsSection} aria-labelledby="invites-title">
      <h2 id="invites-title">{t('settings.invites.invites')}</h2>
      <p className={styles.sectionIntro}>{t('settings.invites.anyoneWithAnInvite', { server: server.name })}</p>
      <CreateInviteForm
        serverId={server.id}
        onCreated={(invite) => {
          setMade((l) => [invite, ...l]);
          void refresh();
        }}
      />
      {newest && (
        <div className={own.newLink}>
          <CopyField label={t('settings.invites.newInviteLink')} value={inviteLink(newest.code)} />
          <p className="hint">{describeLimits(newest)}</p>
        </div>
      )}
      <h3 className={styles.subheading}>{t('settings.invites.allInvites')}</h3>
      {listError && (
        <p className="field-error" role="alert">
          {listError}
        </p>
      )}
      {all === null && !listError && <p className="empty-note">{t('settings.invites.loadingInvites')}</p>}
      {all && all.length === 0 && <p className="empty-note">{t('settings.invites.noInvitesYet')}</p>}
      {all && all.length > 0 && <InviteTable invites={all} inviterName={inviterName} onRevoke={revoke} />}
    </section>
  );
}

function CreateInviteForm({ serverId, onCreated }: { serverId: string; onCreated: (invite: Invite) => void }) {
  const [maxAge, setMaxAge] = useState(DEFAULT_EXPIRY);
  const [maxUses, setMaxUses] = useState(0);
  const { busy, error, run } = useAction();
  const id = useId();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    await run(async () => {
      onCreated(await createInviteWith(serverId, { maxAge, maxUses }));
    });
  };
  return (
    <form className={styles.inlineForm} onSubmit={submit} aria-label={t('settings.invites.createAnInvite')}>
      <InviteLimits id={id} maxAge={maxAge} maxUses={maxUses} onMaxAge={setMaxAge} onMaxUses={setMaxUses} />
      <button type="submit" className="button primary" disabled={busy}>
        {t('settings.invites.createInviteLink')}
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
      toast(t('settings.invites.inviteLinkCopied'));
    } catch (err) {
      toastError(err);
    }
  };
  return (
    <div className={styles.tableWrap}>
      <table className={`${styles.table} ${own.table}`}>
        <thead>
          <tr>
            <th scope="col">{t('settings.invites.invite')}</th>
            <th scope="col">{t('settings.invites.madeBy')}</th>
            <th scope="col">{t('settings.invites.uses')}</th>
            <th scope="col">{t('settings.invites.expires')}</th>
            <th scope="col">
              <span className="visually-hidden">{t('settings.invites.actions')}</span>
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
                {i.maxUses > 0 && i.uses >= i.maxUses && <span className={own.spent}>{t('settings.invites.usedUp')}</span>}
              </td>
              <td data-label="Expires" title={i.expiresAt ? new Date(i.expiresAt).toLocaleString() : undefined}>
                {describeExpiry(i.expiresAt) === 'expired' ? (
                  <span className={own.spent}>{t('settings.invites.expired')}</span>
                ) : (
                  describeExpiry(i.expiresAt)
                )}
              </td>
              <td className={styles.actionsCell}>
                <button
                  type="button"
                  className="button secondary small"
                  onClick={() => void copy(i.code)}
                  aria-label={t('settings.invites.copyLinkOfInvite', { code: i.code })}
                >
                  {t('settings.invites.copyLink')}
                </button>
                <button
                  type="button"
                  className="button danger small"
                  onClick={() => onRevoke(i)}
                  aria-label={t('settings.invites.revokeInviteCode', { code: i.code })}
                >
                  {t('settings.invites.revoke')}
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
