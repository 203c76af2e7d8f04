/**
 * The Bans section of server settings (BAN_MEMBERS): who is banned, why and since when,
 * with a search by name and unban. Live through BAN_ADD / BAN_REMOVE.
 */
import { useEffect, useId, useState } from 'react';
import { describeError } from '../../api/client';
import { displayName, type Ban, type Server } from '../../api/types';
import { Avatar, BotBadge } from '../../components/avatar';
import { confirm } from '../../components/dialog';
import { formatDate, formatFull } from '../../lib/format';
import { loadBans, unban } from '../../state/moderation';
import { useStore } from '../../state/store';
import { toast, toastError } from '../../state/toasts';
import styles from './settings.module.css';
import own from './admin.module.css';
import { Trans } from 'react-i18next';
import { t } from '../../i18n';
import '../../i18n/settings';
import { useAction } from '../../lib/use-action';

export function BansSection({ server }: { server: Server }) {
  const bans = useStore((s) => s.bans[server.id]);
  const [query, setQuery] = useState('');
  const [loadError, setLoadError] = useState<string | null>(null);
  /** The users the last load returned: a ban the gateway announces is reloaded for its reason. */
  const [loaded, setLoaded] = useState<ReadonlySet<string> | null>(null);
  const id = useId();

  const load = () => {
    setLoadError(null);
    loadBans(server.id)
      .then((list) => {
        setLoaded(new Set(list.map((b) => b.user.id)));
      })
      .catch((err) => setLoadError(describeError(err)));
  };

  useEffect(load, [server.id]);

  // BAN_ADD carries no reason: fetch the list again to show it.
  const fresh = !!loaded && (bans ?? []).some((b) => !loaded.has(b.user.id));
  // biome-ignore lint/correctness/useExhaustiveDependencies: only when a new ban appears
  useEffect(() => {
    if (!fresh) return;
    const t = setTimeout(load, 150);
    return () => clearTimeout(t);
  }, [fresh]);

  const q = query.trim().toLowerCase();
  const shown = (bans ?? []).filter((b) => !q || displayName(b.user).toLowerCase().includes(q) || b.user.id === q);

  return (
    <section className={styles.settingsSection} aria-labelledby="bans-title">
      <h2 id="bans-title">{t('settings.bans.bans')}</h2>
      <p className={styles.sectionIntro}>{t('settings.bans.bannedPeopleAreRemoved', { server: server.name })}</p>
      {loadError && (
        <p className="field-error" role="alert">
          {t('settings.bans.couldNotLoad', { error: loadError })}{' '}
          <button type="button" className="link-button" onClick={load}>
            {t('settings.bans.tryAgain')}
          </button>
        </p>
      )}
      {!bans && !loadError && <p className="empty-note">{t('settings.bans.loading')}</p>}
      {bans && bans.length === 0 && (
        <div className={own.emptyState}>
          <strong>{t('settings.bans.noOneIsBanned')}</strong>
          <p>{t('settings.bans.whenSomeoneIsBanned', { server: server.name })}</p>
        </div>
      )}
      {bans && bans.length > 0 && (
        <>
          <div className={own.toolbar}>
            <div className="field">
              <label htmlFor={`${id}-search`} className="field-label">
                {t('settings.bans.searchBans')}
              </label>
              <input
                id={`${id}-search`}
                type="search"
                className="input"
                value={query}
                placeholder={t('settings.bans.name')}
                onChange={(e) => setQuery(e.target.value)}
              />
            </div>
            <p className="small-text" aria-live="polite">
              {q
                ? t('settings.bans.lengthOfLength2Shown', { length: shown.length, length2: bans.length })
                : t('settings.bans.lengthBanned', { length: bans.length })}
            </p>
          </div>
          {shown.length === 0 ? (
            <p className="empty-note">{t('settings.bans.noBannedUserMatches', { trim: query.trim() })}</p>
          ) : (
            <ul className={own.list} aria-label={t('settings.bans.bannedUsers')}>
              {shown.map((b) => (
                <BanRow key={b.user.id} server={server} ban={b} />
              ))}
            </ul>
          )}
        </>
      )}
    </section>
  );
}

function BanRow({ server, ban }: { server: Server; ban: Ban }) {
  const { busy, run } = useAction({ onError: toastError });
  const name = displayName(ban.user);

  const lift = async () => {
    const ok = await confirm({
      title: t('settings.bans.unban'),
      body: (
        <p>
          <Trans i18nKey="settings.bans.unbanConfirm" values={{ name, server: server.name }} components={{ b: <strong /> }} />
        </p>
      ),
      confirmLabel: t('settings.bans.unban'),
    });
    if (!ok) return;
    await run(
      async () => {
        await unban(server.id, ban.user.id);
        toast(t('settings.bans.nameIsNoLonger', { name }));
      },
      { stayBusy: true },
    );
  };

  return (
    <li className={own.banRow} data-user-id={ban.user.id}>
      <Avatar id={ban.user.id} name={name} src={ban.user.avatar} size={36} />
      <div className={own.banText}>
        <div className={own.banName}>
          {name} {ban.user.bot && <BotBadge />}
        </div>
        <p className={`${own.reason} small-text`}>
          {ban.reason ? (
            t('settings.bans.reasonReason', { reason: ban.reason })
          ) : (
            <span className={own.noReason}>{t('settings.bans.noReasonGiven')}</span>
          )}
          <span className={own.meta}>
            {' · '}
            <Trans
              i18nKey="settings.bans.bannedOn"
              components={{
                date: (
                  <time dateTime={ban.createdAt} title={formatFull(ban.createdAt)}>
                    {formatDate(ban.createdAt)}
                  </time>
                ),
              }}
            />
          </span>
        </p>
      </div>
      <button
        type="button"
        className="button secondary small"
        disabled={busy}
        onClick={() => void lift()}
        aria-label={t('settings.bans.unbanName', { name })}
      >
        {t('settings.bans.unban')}
      </button>
    </li>
  );
}
