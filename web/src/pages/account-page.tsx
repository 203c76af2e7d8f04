/** Account settings: profile (display name, picture), password, login sessions, deleting the account. */
import { useCallback, useEffect, useId, useState, type FormEvent } from 'react';
import { ApiError, api, describeError, seg } from '../api/client';
import { displayName, type AuthSession, type ChangePasswordBody, type DeleteAccountBody, type Instance, type User } from '../api/types';
import { Avatar } from '../components/avatar';
import { UserPanel } from '../components/channel-sidebar';
import { Dialog, confirm } from '../components/dialog';
import { CloseIcon } from '../components/icons';
import { ServerRail } from '../components/server-rail';
import { formatFull, formatMessageTime } from '../lib/format';
import { updateProfile, uploadFile } from '../state/actions';
import { useStore } from '../state/store';
import { toast, toastError } from '../state/toasts';
import { Link, paths } from '../router';
import { passwordRules } from './auth-page';
import { BlockedSection } from './blocked-section';
import { NotificationsSection } from './notifications-section';
import styles from './settings/settings.module.css';
import own from './account-page.module.css';
import dialogStyles from '../components/dialog.module.css';
import { setPageTitle } from '../lib/title';
import { setTheme, THEMES, useTheme } from '../lib/theme';
import { Trans } from 'react-i18next';
import { t } from '../i18n';
import '../i18n/account';
import { useAction } from '../lib/use-action';
import { Field } from '../components/field';

const SECTIONS = ['profile', 'appearance', 'notifications', 'blocked', 'password', 'sessions', 'about', 'delete'] as const;

/** The images the service shows as avatars. */
const AVATAR_TYPES = 'image/png,image/jpeg,image/gif,image/webp,image/avif';

export function AccountPage({ onLogout }: { onLogout: () => void }) {
  const me = useStore((s) => s.me);
  /** Bumped when sessions change elsewhere on the page (a password change ends the others). */
  const [sessionsVersion, setSessionsVersion] = useState(0);
  const sessionsChanged = useCallback(() => setSessionsVersion((v) => v + 1), []);

  useEffect(() => {
    setPageTitle(t('account.pageTitle'));
  }, []);

  return (
    <div className={`app-frame ${styles.settingsFrame}`}>
      <ServerRail activeServerId={null} />
      <nav className={styles.settingsNav} aria-label={t('account.accountSettingsSections')}>
        <h1 className={styles.settingsServer}>{t('account.accountSettings')}</h1>
        <p className={styles.settingsCaption}>{me ? displayName(me) : ''}</p>
        <ul>
          {SECTIONS.map((s) => (
            <li key={s}>
              <a href={`#${s}`} className={styles.settingsTab}>
                {t(`account.sections.${s}`)}
              </a>
            </li>
          ))}
        </ul>
        <div className="grow" />
        <UserPanel onLogout={onLogout} className={styles.navUserPanel} />
      </nav>
      <main className={styles.settingsContent}>
        <div className={styles.settingsTop}>
          <Link to={paths.home()} className="button secondary small" aria-label={t('account.closeAccountSettingsAnd')}>
            <CloseIcon /> {t('account.close')}
          </Link>
        </div>
        {me && !me.bot && (
          <div className={own.sections}>
            <ProfileSection me={me} />
            <AppearanceSection />
            <NotificationsSection />
            <BlockedSection />
            <PasswordSection onChanged={sessionsChanged} />
            <SessionsSection version={sessionsVersion} onLogout={onLogout} />
            <AboutSection />
            <DeleteSection me={me} onDeleted={onLogout} />
          </div>
        )}
      </main>
    </div>
  );
}

function ProfileSection({ me }: { me: User }) {
  const [name, setName] = useState(me.displayName ?? '');
  // The name and the picture show one error: whichever was tried last.
  const profile = useAction();
  const picture = useAction();
  const saving = profile.busy;
  const uploading = picture.busy;
  const error = profile.error ?? picture.error;
  const id = useId();
  const saved = me.displayName ?? '';

  useEffect(() => setName(me.displayName ?? ''), [me.displayName]);

  const save = async (e: FormEvent) => {
    e.preventDefault();
    picture.setError(null);
    await profile.run(async () => {
      const updated = await updateProfile({ displayName: name.trim() || null });
      toast(updated.displayName ? t('account.youNowAppearAs', { displayName: updated.displayName }) : t('account.youNowAppearBy'));
    });
  };

  const pick = async (file: File | undefined) => {
    if (!file) return;
    profile.setError(null);
    await picture.run(async () => {
      const up = await uploadFile(file);
      await updateProfile({ avatar: up.url });
      toast(t('account.profilePictureUpdated'));
    });
  };

  const removePicture = async () => {
    await picture.run(
      async () => {
        await updateProfile({ avatar: null });
        toast(t('account.profilePictureRemoved'));
      },
      { onError: toastError },
    );
  };

  return (
    <section className={styles.settingsSection} id="profile" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{t('account.profile')}</h2>
      <p className={styles.sectionIntro}>{t('account.howOthersSeeYou')}</p>
      <div className={own.profile}>
        <div className={own.picture}>
          <Avatar id={me.id} name={displayName(me)} src={me.avatar} size={88} />
          <div className={own.pictureActions}>
            <label className={`button secondary small ${uploading ? own.busy : ''}`} htmlFor={`${id}-file`}>
              {uploading ? t('account.uploading') : me.avatar ? t('account.changePicture') : t('account.uploadPicture')}
            </label>
            <input
              id={`${id}-file`}
              type="file"
              accept={AVATAR_TYPES}
              className="visually-hidden"
              disabled={uploading}
              aria-describedby={`${id}-file-hint`}
              onChange={(e) => {
                void pick(e.target.files?.[0]);
                e.target.value = '';
              }}
            />
            {me.avatar && (
              <button type="button" className="button secondary small" onClick={() => void removePicture()} disabled={uploading}>
                {t('account.remove')}
              </button>
            )}
          </div>
          <p id={`${id}-file-hint`} className="small-text">
            {t('account.pngJpegGifWebp')}
          </p>
        </div>
        <form className={`stack ${own.nameForm}`} onSubmit={save}>
          <div className="field">
            <span className="field-label">{t('account.username')}</span>
            <span className={own.username}>@{me.username}</span>
          </div>
          <div className="field">
            <label htmlFor={`${id}-name`} className="field-label">
              {t('account.displayName')}
            </label>
            <input
              id={`${id}-name`}
              className="input"
              value={name}
              maxLength={64}
              placeholder={me.username ?? ''}
              aria-describedby={`${id}-name-hint`}
              aria-invalid={!!error}
              onChange={(e) => setName(e.target.value)}
            />
            <p id={`${id}-name-hint`} className="hint">
              {t('account.upTo32Characters', { username: me.username ?? '' })}
            </p>
          </div>
          {error && (
            <p className="field-error" role="alert">
              {error}
            </p>
          )}
          <div>
            <button type="submit" className="button primary" disabled={saving || name.trim() === saved}>
              {saving ? t('account.saving') : t('account.saveDisplayName')}
            </button>
          </div>
        </form>
      </div>
    </section>
  );
}

function PasswordSection({ onChanged }: { onChanged: () => void }) {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [again, setAgain] = useState('');
  const { busy, error, setError, run } = useAction();
  const id = useId();

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!current) return setError(t('account.errors.currentPassword'));
    if ([...next].length < 8) return setError(t('account.errors.tooShort'));
    if (next !== again) return setError(t('account.errors.differ'));
    await run(async () => {
      await api.post('/auth/password', { currentPassword: current, newPassword: next } satisfies ChangePasswordBody);
      setCurrent('');
      setNext('');
      setAgain('');
      toast(t('account.passwordChangedYouWere'));
      onChanged();
    });
  };

  return (
    <section className={styles.settingsSection} id="password" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{t('account.password')}</h2>
      <p className={styles.sectionIntro}>{t('account.changingYourPasswordLogs')}</p>
      <form className={`stack ${styles.cardForm} ${own.narrow}`} onSubmit={submit} aria-label={t('account.changePassword')} noValidate>
        <p id={`${id}-rules`} className={own.rules}>
          <strong>{t('account.passwordRules')}</strong> {t('account.passwordRulesText', { rules: passwordRules() })}
        </p>
        <div className="field">
          <label htmlFor={`${id}-current`} className="field-label">
            {t('account.currentPassword')}
          </label>
          <input
            id={`${id}-current`}
            type="password"
            className="input"
            autoComplete="current-password"
            value={current}
            onChange={(e) => setCurrent(e.target.value)}
          />
        </div>
        <div className="field">
          <label htmlFor={`${id}-new`} className="field-label">
            {t('account.newPassword')}
          </label>
          <input
            id={`${id}-new`}
            type="password"
            className="input"
            autoComplete="new-password"
            value={next}
            aria-describedby={`${id}-rules`}
            onChange={(e) => setNext(e.target.value)}
          />
        </div>
        <div className="field">
          <label htmlFor={`${id}-again`} className="field-label">
            {t('account.newPasswordAgain')}
          </label>
          <input
            id={`${id}-again`}
            type="password"
            className="input"
            autoComplete="new-password"
            value={again}
            onChange={(e) => setAgain(e.target.value)}
          />
        </div>
        {error && (
          <p className="field-error" role="alert">
            {error}
          </p>
        )}
        <div>
          <button type="submit" className="button primary" disabled={busy}>
            {busy ? t('account.changing') : t('account.changePassword')}
          </button>
        </div>
      </form>
    </section>
  );
}

/** "Firefox on Linux" from a User-Agent, or the User-Agent itself when it is nothing familiar. */
export function describeDevice(userAgent: string | null): string {
  if (!userAgent) return t('account.unknownDevice');
  const browser = [
    [/Edg\//, 'Edge'],
    [/OPR\//, 'Opera'],
    [/Firefox\//, 'Firefox'],
    [/Chrom(e|ium)\//, 'Chrome'],
    [/Safari\//, 'Safari'],
    [/^curl\//, 'curl'],
  ] as const;
  const system = [
    [/Android/, 'Android'],
    [/iPhone|iPad/, 'iOS'],
    [/Windows/, 'Windows'],
    [/Mac OS X|Macintosh/, 'macOS'],
    [/CrOS/, 'ChromeOS'],
    [/Linux/, 'Linux'],
  ] as const;
  const b = browser.find(([re]) => re.test(userAgent))?.[1];
  const os = system.find(([re]) => re.test(userAgent))?.[1];
  if (b && os) return t('account.deviceOn', { browser: b, os });
  if (b || os) return (b ?? os) as string;
  return userAgent.length > 40 ? `${userAgent.slice(0, 40)}…` : userAgent;
}

function SessionsSection({ version, onLogout }: { version: number; onLogout: () => void }) {
  const [sessions, setSessions] = useState<AuthSession[] | null>(null);
  const [ttlDays, setTtlDays] = useState<number | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const { busy, run } = useAction({ onError: toastError });
  const id = useId();

  const load = useCallback(() => {
    setLoadError(null);
    api
      .get<AuthSession[]>('/auth/sessions')
      // This browser first, then the others as the service lists them (newest first).
      .then((list) => setSessions([...list].sort((a, b) => Number(b.current) - Number(a.current))))
      .catch((err) => setLoadError(describeError(err)));
  }, []);

  useEffect(() => {
    void version;
    load();
  }, [load, version]);

  useEffect(() => {
    api
      .get<Instance>('/instance')
      .then((i) => setTtlDays(i.sessionTtlDays))
      .catch(() => undefined);
  }, []);

  const others = (sessions ?? []).filter((s) => !s.current);

  const endOne = async (s: AuthSession) => {
    if (s.current) {
      const ok = await confirm({
        title: t('account.logOutHere'),
        body: <p>{t('account.thisIsTheSession')}</p>,
        confirmLabel: t('account.logOut'),
      });
      if (ok) onLogout();
      return;
    }
    try {
      await api.delete(`/auth/sessions/${seg(s.id)}`);
      setSessions((list) => (list ?? []).filter((x) => x.id !== s.id));
      toast(t('account.loggedOutDescribedevice', { describeDevice: describeDevice(s.userAgent) }));
    } catch (err) {
      toastError(err);
      load();
    }
  };

  const endOthers = async () => {
    const ok = await confirm({
      title: t('account.logOutEverywhereElse'),
      body: <p>{t('account.logOutOthersConfirm', { count: others.length })}</p>,
      confirmLabel: t('account.logOutEverywhereElse'),
      danger: true,
    });
    if (!ok) return;
    await run(async () => {
      await api.delete('/auth/sessions');
      setSessions((list) => (list ?? []).filter((x) => x.current));
      toast(t('account.loggedOutEverywhereElse'));
    });
  };

  return (
    <section className={styles.settingsSection} id="sessions" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{t('account.sessions')}</h2>
      <p className={styles.sectionIntro}>
        {ttlDays !== null ? t('account.sessionsIntroTtl', { count: ttlDays }) : t('account.sessionsIntro')}
      </p>
      {loadError && (
        <p className="field-error" role="alert">
          {t('account.couldNotLoadSessions', { error: loadError })}{' '}
          <button type="button" className="link-button" onClick={load}>
            {t('account.tryAgain')}
          </button>
        </p>
      )}
      {!sessions && !loadError && <p className="empty-note">{t('account.loading')}</p>}
      {sessions && (
        <div className={styles.tableWrap}>
          <table className={styles.table}>
            <caption className="visually-hidden">{t('account.yourLoginSessions')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('account.device')}</th>
                <th scope="col">{t('account.loggedIn')}</th>
                <th scope="col">{t('account.lastActive')}</th>
                <th scope="col">
                  <span className="visually-hidden">{t('account.actions')}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {sessions.map((s) => {
                const device = describeDevice(s.userAgent);
                return (
                  <tr key={s.id} data-session-id={s.id}>
                    <td>
                      <span className={own.device} title={s.userAgent ?? undefined}>
                        {device}
                      </span>
                      {s.current && <span className={own.badge}>{t('account.thisBrowser')}</span>}
                    </td>
                    <td>
                      <time dateTime={s.createdAt} title={formatFull(s.createdAt)}>
                        {formatMessageTime(s.createdAt)}
                      </time>
                    </td>
                    <td>
                      {s.current ? (
                        t('account.now')
                      ) : (
                        <time dateTime={s.lastUsedAt} title={formatFull(s.lastUsedAt)}>
                          {formatMessageTime(s.lastUsedAt)}
                        </time>
                      )}
                    </td>
                    <td className={styles.actionsCell}>
                      <button
                        type="button"
                        className="button secondary small"
                        onClick={() => void endOne(s)}
                        aria-label={s.current ? t('account.logOutOfThis') : t('account.logOutTheSession', { device })}
                      >
                        {t('account.logOut')}
                      </button>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      <div className={own.after}>
        <button type="button" className="button danger" onClick={() => void endOthers()} disabled={busy || others.length === 0}>
          {t('account.logOutEverywhereElse')}
        </button>
        {sessions && others.length === 0 && <span className="small-text">{t('account.thisBrowserIsYour')}</span>}
      </div>
    </section>
  );
}

function DeleteSection({ me, onDeleted }: { me: User; onDeleted: () => void }) {
  const servers = useStore((s) => s.servers);
  const owned = Object.values(servers).filter((s) => s.ownerId === me.id);
  const [open, setOpen] = useState(false);
  const id = useId();

  return (
    <section className={`${styles.settingsSection} ${own.danger}`} id="delete" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{t('account.deleteAccount')}</h2>
      <p className={styles.sectionIntro}>{t('account.deletingYourAccountLogs')}</p>
      {owned.length > 0 && (
        <p className="warning" role="note">
          {t('account.ownsServers', { count: owned.length, servers: owned.map((s) => s.name).join(', ') })}
        </p>
      )}
      <button type="button" className="button danger" onClick={() => setOpen(true)}>
        {t('account.deleteAccountEllipsis')}
      </button>
      {open && <DeleteDialog onClose={() => setOpen(false)} onDeleted={onDeleted} />}
    </section>
  );
}

function DeleteDialog({ onClose, onDeleted }: { onClose: () => void; onDeleted: () => void }) {
  const [password, setPassword] = useState('');
  const { busy, error, setError, run } = useAction();

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!password) return setError(t('account.errors.passwordToConfirm'));
    await run(
      async () => {
        await api.delete('/users/@me', { password } satisfies DeleteAccountBody);
        toast(t('account.yourAccountWasDeleted'));
        onDeleted();
      },
      {
        // 409: they own servers. Parley cannot hand a server over or delete it yet, so say so plainly.
        describe: (err) =>
          err instanceof ApiError && err.status === 409
            ? t('account.deleteOwnsServers', { error: describeError(err) })
            : describeError(err),
        stayBusy: true,
      },
    );
  };

  return (
    <Dialog title={t('account.deleteYourAccount')} onClose={onClose}>
      <form onSubmit={submit} className={`${dialogStyles.dialogBody} stack`} noValidate>
        <p className="warning">{t('account.yourNamePicturePassword')}</p>
        <Field label={t('account.yourPassword')} error={error}>
          {(control) => (
            <input
              {...control}
              type="password"
              className="input"
              autoComplete="current-password"
              value={password}
              onChange={(e) => setPassword(e.target.value)}
            />
          )}
        </Field>
        <footer className={dialogStyles.dialogActions}>
          <button type="button" className="button secondary" onClick={onClose}>
            {t('account.cancel')}
          </button>
          <button type="submit" className="button danger" disabled={busy}>
            {busy ? t('account.deleting') : t('account.deleteMyAccount')}
          </button>
        </footer>
      </form>
    </Dialog>
  );
}

/** The theme: the system's, light or dark (kept in this browser). */
function AppearanceSection() {
  const id = useId();
  const theme = useTheme();
  return (
    <section className={styles.settingsSection} id="appearance" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{t('account.sections.appearance')}</h2>
      <p className={styles.sectionIntro}>{t('account.appearance.intro')}</p>
      <fieldset className={own.themes}>
        <legend className="visually-hidden">{t('account.appearance.theme')}</legend>
        {THEMES.map((choice) => (
          <label key={choice} className={own.theme} data-theme-choice={choice}>
            <input type="radio" name={`${id}-theme`} value={choice} checked={theme === choice} onChange={() => setTheme(choice)} />
            <span className={own.themeSwatch} aria-hidden="true" />
            <span>{t(`account.appearance.${choice}`)}</span>
          </label>
        ))}
      </fieldset>
    </section>
  );
}

/** Where the client's borrowed parts come from, with the notices their licences ask for. */
function AboutSection() {
  const id = useId();
  return (
    <section className={styles.settingsSection} id="about" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{t('account.sections.about')}</h2>
      <p>
        <Trans
          i18nKey="account.aboutCredits"
          components={{
            // biome-ignore lint/a11y: Trans puts the link's text in
            twemoji: <a href="https://github.com/jdecked/twemoji" target="_blank" rel="noopener noreferrer" />,
            // biome-ignore lint/a11y: Trans puts the link's text in
            licence: <a href="https://creativecommons.org/licenses/by/4.0/" target="_blank" rel="noopener noreferrer" />,
          }}
        />
      </p>
    </section>
  );
}
