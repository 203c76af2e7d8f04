import { useCallback, useEffect, useId, useState, type FormEvent } from 'react';
import { api, describeError, seg } from '../api/client';
import type { Bot, CreateBotBody, UpdateBotBody } from '../api/types';
import { Avatar, BotBadge } from '../components/avatar';
import { UserPanel } from '../components/channel-sidebar';
import { CopyField } from '../components/copy-field';
import { confirm } from '../components/dialog';
import { ServerRail } from '../components/server-rail';
import { toast, toastError } from '../state/toasts';
import { formatDate, formatFull } from '../lib/format';
import { copyText } from '../lib/clipboard';
import styles from './settings/settings.module.css';
import { setPageTitle } from '../lib/title';
import { BotInviteDialog } from './bot-invite-dialog';
import { Trans } from 'react-i18next';
import { t } from '../i18n';
import '../i18n/my-bots';
import { useAction } from '../lib/use-action';

/** Create, list and delete the bots you own. */
export function MyBotsPage({ onLogout }: { onLogout: () => void }) {
  const [bots, setBots] = useState<Bot[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [created, setCreated] = useState<Bot | null>(null);
  const [name, setName] = useState('');
  const { busy, error, setError, run } = useAction();
  /** Bots whose public flag is being saved; their checkbox waits for the answer. */
  const [saving, setSaving] = useState<ReadonlySet<string>>(new Set());
  /** The bot whose invite link is being made. */
  const [inviting, setInviting] = useState<Bot | null>(null);
  const id = useId();

  const load = useCallback(() => {
    setLoadError(null);
    api
      .get<Bot[]>('/bots')
      .then(setBots)
      .catch((err) => setLoadError(describeError(err)));
  }, []);

  useEffect(() => {
    setPageTitle(t('myBots.pageTitle'));
    load();
  }, [load]);

  const create = async (e: FormEvent) => {
    e.preventDefault();
    if (!name.trim()) return setError(t('myBots.errors.name'));
    await run(async () => {
      const bot = await api.post<Bot>('/bots', { name: name.trim() } satisfies CreateBotBody);
      setCreated(bot);
      setBots((list) => [...(list ?? []), { ...bot, token: undefined }]);
      setName('');
    });
  };

  const setPublic = async (bot: Bot, isPublic: boolean) => {
    setSaving((s) => new Set(s).add(bot.id));
    try {
      const updated = await api.patch<Bot>(`/bots/${seg(bot.id)}`, { public: isPublic } satisfies UpdateBotBody);
      setBots((list) => (list ?? []).map((b) => (b.id === bot.id ? { ...b, public: updated.public } : b)));
      toast(updated.public ? t('myBots.anyoneCanNowAdd', { bot: bot.name }) : t('myBots.onlyYouCanAdd', { bot: bot.name }));
    } catch (err) {
      toastError(err);
    } finally {
      setSaving((s) => {
        const next = new Set(s);
        next.delete(bot.id);
        return next;
      });
    }
  };

  const remove = async (bot: Bot) => {
    const ok = await confirm({
      title: t('myBots.deleteBot'),
      body: (
        <>
          <p>
            <Trans i18nKey="myBots.deleteConfirm" values={{ bot: bot.name }} components={{ b: <strong /> }} />
          </p>
          <p className="warning">{t('myBots.itsTokenStopsWorking')}</p>
        </>
      ),
      confirmLabel: t('myBots.deleteBot'),
      danger: true,
    });
    if (!ok) return;
    try {
      await api.delete(`/bots/${seg(bot.id)}`);
      setBots((list) => (list ?? []).filter((b) => b.id !== bot.id));
      if (created?.id === bot.id) setCreated(null);
      toast(t('myBots.botDeleted', { bot: bot.name }));
    } catch (err) {
      toastError(err);
    }
  };

  return (
    <div className={`app-frame ${styles.settingsFrame}`}>
      <ServerRail activeServerId={null} />
      <nav className={styles.settingsNav} aria-label={t('myBots.account')}>
        <h1 className={styles.settingsServer}>{t('myBots.myBots')}</h1>
        <p className={styles.settingsCaption}>{t('myBots.botsYouOwn')}</p>
        <div className="grow" />
        <UserPanel onLogout={onLogout} className={styles.navUserPanel} />
      </nav>
      <main className={styles.settingsContent}>
        <section className={styles.settingsSection} aria-labelledby="mybots-title">
          <h2 id="mybots-title">{t('myBots.myBots')}</h2>
          <p className={styles.sectionIntro}>
            <Trans i18nKey="myBots.intro" values={{ header: 'Authorization: Bot <token>' }} components={{ code: <code /> }} />
          </p>

          {created?.token && (
            <section className={styles.secretPanel} aria-label={t('myBots.newBotToken')}>
              <h3>{t('myBots.botCreatedCreated', { created: created.name })}</h3>
              <CopyField label={t('myBots.botToken')} value={created.token} secret />
              <CopyField label={t('myBots.botId')} value={created.id} />
              <p className="warning">
                <Trans i18nKey="myBots.tokenWarning" components={{ b: <strong /> }} />
              </p>
              <button type="button" className="button secondary" onClick={() => setCreated(null)}>
                {t('myBots.iHaveCopiedIt')}
              </button>
            </section>
          )}

          <form className={styles.inlineForm} onSubmit={create} aria-label={t('myBots.createABot')}>
            <div className="field">
              <label htmlFor={`${id}-name`} className="field-label">
                {t('myBots.botName')}
              </label>
              <input
                id={`${id}-name`}
                className="input"
                value={name}
                maxLength={80}
                placeholder={t('myBots.helper')}
                onChange={(e) => setName(e.target.value)}
              />
            </div>
            <button type="submit" className="button primary" disabled={busy}>
              {busy ? t('myBots.creating') : t('myBots.createBot')}
            </button>
            {error && (
              <p className={`field-error ${styles.full}`} role="alert">
                {error}
              </p>
            )}
          </form>

          <h3 className={styles.subheading}>{t('myBots.yourBots')}</h3>
          {loadError && (
            <p className="field-error" role="alert">
              {t('myBots.couldNotLoad', { error: loadError })}{' '}
              <button type="button" className="link-button" onClick={load}>
                {t('myBots.tryAgain')}
              </button>
            </p>
          )}
          {!bots && !loadError && <p className="empty-note">{t('myBots.loading')}</p>}
          {bots && bots.length === 0 && <p className="empty-note">{t('myBots.youHaveNoBots')}</p>}
          {bots && bots.length > 0 && (
            <div className={styles.tableWrap}>
              <table className={styles.table}>
                <caption className="visually-hidden">{t('myBots.yourBots')}</caption>
                <thead>
                  <tr>
                    <th scope="col">{t('myBots.name')}</th>
                    <th scope="col">{t('myBots.id')}</th>
                    <th scope="col">{t('myBots.created')}</th>
                    <th scope="col">{t('myBots.public')}</th>
                    <th scope="col">
                      <span className="visually-hidden">{t('myBots.actions')}</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {bots.map((b) => (
                    <tr key={b.id} data-bot-id={b.id}>
                      <td data-label="Name">
                        <span className={styles.hookName}>
                          <Avatar id={b.id} name={b.name} size={24} />
                          <span>{b.name}</span>
                          <BotBadge />
                        </span>
                      </td>
                      <td data-label="Id">
                        <span className="mono small-text">{b.id}</span>{' '}
                        <button
                          type="button"
                          className="link-button"
                          aria-label={t('myBots.copyTheIdOf', { b: b.name })}
                          onClick={() =>
                            copyText(b.id)
                              .then(() => toast(t('myBots.botIdCopied')))
                              .catch(toastError)
                          }
                        >
                          {t('myBots.copy')}
                        </button>
                      </td>
                      <td data-label="Created">
                        <time dateTime={b.createdAt} title={formatFull(b.createdAt)}>
                          {formatDate(b.createdAt)}
                        </time>
                      </td>
                      <td data-label="Public">
                        <label className="check" htmlFor={`${id}-public-${b.id}`}>
                          <input
                            id={`${id}-public-${b.id}`}
                            type="checkbox"
                            checked={b.public}
                            disabled={saving.has(b.id)}
                            aria-label={t('myBots.publicAnyoneCanAdd', { b: b.name })}
                            onChange={(e) => void setPublic(b, e.target.checked)}
                          />
                          {b.public ? t('myBots.public') : t('myBots.private')}
                        </label>
                      </td>
                      <td className={styles.actionsCell}>
                        <button
                          type="button"
                          className="button secondary small"
                          onClick={() => setInviting(b)}
                          aria-label={t('authorize.inviteLinkFor', { bot: b.name })}
                        >
                          {t('authorize.inviteLink')}
                        </button>{' '}
                        <button
                          type="button"
                          className="button danger small"
                          onClick={() => void remove(b)}
                          aria-label={t('myBots.deleteB', { b: b.name })}
                        >
                          {t('myBots.delete')}
                        </button>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          {bots && bots.length > 0 && <p className="small-text">{t('myBots.publicHelp')}</p>}
          {inviting && <BotInviteDialog bot={inviting} onClose={() => setInviting(null)} />}
        </section>
      </main>
    </div>
  );
}
