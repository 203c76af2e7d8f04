import { useId, useState, type FormEvent, type ReactNode } from 'react';
import { api } from '../api/client';
import type { AuthResult, CredentialsBody, Instance, RegisterBody } from '../api/types';
import { parseInvite } from '../state/actions';
import { Link, paths } from '../router';
import styles from './auth-page.module.css';
import { Trans } from 'react-i18next';
import { t } from '../i18n';
import { useAction } from '../lib/use-action';

/** Who may register here (`GET /instance`); null while it is being asked. */
export type RegistrationMode = Instance['registration'] | null;

interface Props {
  mode: 'login' | 'register';
  /** Shown above the form, e.g. when arriving from an invite link. */
  notice?: ReactNode;
  /** The instance's REGISTRATION setting, as `GET /instance` tells it. */
  registration: RegistrationMode;
  /** An invite code to register with (the invite link the person arrived by). */
  inviteCode?: string;
  /** Whether someone has logged in from this browser before: only they are welcomed back. */
  returning: boolean;
  onAuthenticated: (token: string) => void;
}

/** The password rules of the service, shown before anyone has to guess them. */
export const passwordRules = (): string => t('auth.passwordRules');

/** Log in or create an account, as the instance's registration mode allows. */
export function AuthPage({ mode, notice, registration, inviteCode, returning, onAuthenticated }: Props) {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [invite, setInvite] = useState(inviteCode ?? '');
  const { busy, error, setError, run } = useAction();
  const uid = useId();
  const register = mode === 'register';
  const closed = register && registration === 'closed';
  const needsInvite = register && registration === 'invite';

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!username.trim() || !password) {
      setError(t('auth.errors.credentials'));
      return;
    }
    const code = needsInvite ? parseInvite(invite) : null;
    if (needsInvite && !code) {
      setError(t('auth.errors.inviteCode'));
      return;
    }
    await run(
      async () => {
        const credentials: CredentialsBody = { username: username.trim(), password };
        const body: RegisterBody | CredentialsBody = register && code ? { ...credentials, invite: code } : credentials;
        const res = await api.post<AuthResult>(register ? '/auth/register' : '/auth/login', body);
        onAuthenticated(res.token);
      },
      { stayBusy: true },
    );
  };

  // Keep the current path (an invite link) when switching between the two forms.
  const here = location.pathname.startsWith('/invite/') ? location.pathname : null;
  const title = register ? t('auth.title.register') : returning ? t('auth.title.welcomeBack') : t('auth.title.login');
  const subtitle = register ? t('auth.lead.register') : returning ? t('auth.lead.welcomeBack') : t('auth.lead.login');

  const switcher = (
    <p className={styles.authSwitch}>
      {register ? t('auth.alreadyHaveAnAccount') : t('auth.newHere')}
      {here ? (
        <a
          href={here}
          onClick={(e) => {
            e.preventDefault();
            window.dispatchEvent(new CustomEvent('parley:auth-mode', { detail: register ? 'login' : 'register' }));
          }}
        >
          {register ? t('auth.logIn') : t('auth.createAnAccount')}
        </a>
      ) : (
        <Link to={register ? paths.login() : paths.register()}>{register ? t('auth.logIn') : t('auth.createAnAccount')}</Link>
      )}
    </p>
  );

  const logo = (
    <div className={styles.authLogo} aria-hidden="true">
      <svg viewBox="0 0 64 64" width="44" height="44" aria-hidden="true">
        <rect width="64" height="64" rx="16" fill="var(--accent)" />
        <path d="M18 20h28a4 4 0 0 1 4 4v14a4 4 0 0 1-4 4H30l-9 7v-7h-3a4 4 0 0 1-4-4V24a4 4 0 0 1 4-4z" fill="#fff" />
      </svg>
    </div>
  );

  if (closed) {
    return (
      <main className={styles.authPage}>
        <section className={styles.authCard} aria-labelledby={`${uid}-title`}>
          {logo}
          <h1 id={`${uid}-title`}>{t('auth.registrationIsClosed')}</h1>
          <p className={styles.authNotice} role="status">
            {t('auth.thisParleyDoesNot')}
          </p>
          <p className={styles.authSwitch}>
            <Trans i18nKey="auth.alreadyHaveAccount" components={{ login: <Link to={paths.login()} /> }} />
          </p>
        </section>
      </main>
    );
  }

  return (
    <main className={styles.authPage}>
      <form className={styles.authCard} onSubmit={submit} aria-labelledby={`${uid}-title`} noValidate>
        {logo}
        <h1 id={`${uid}-title`}>{title}</h1>
        <p className={styles.authSub}>{subtitle}</p>
        {notice && (
          <p className={styles.authNotice} role="status">
            {notice}
          </p>
        )}
        {needsInvite && !inviteCode && <p className={styles.authNotice}>{t('auth.thisParleyTakesNew')}</p>}
        <label htmlFor={`${uid}-user`} className="field-label">
          {t('auth.username')}
        </label>
        <input
          id={`${uid}-user`}
          name="username"
          className="input"
          autoComplete="username"
          // biome-ignore lint/a11y/noAutofocus: the login page is for this one field
          autoFocus
          value={username}
          onChange={(e) => setUsername(e.target.value)}
          maxLength={64}
          aria-describedby={register ? `${uid}-user-hint` : undefined}
        />
        {register && (
          <p id={`${uid}-user-hint`} className="hint">
            {t('auth.n2To32Letters')}
          </p>
        )}
        <label htmlFor={`${uid}-pass`} className="field-label">
          {t('auth.password')}
        </label>
        <input
          id={`${uid}-pass`}
          name="password"
          type="password"
          className="input"
          autoComplete={register ? 'new-password' : 'current-password'}
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          aria-describedby={register ? `${uid}-pass-hint` : undefined}
        />
        {register && (
          <p id={`${uid}-pass-hint`} className="hint">
            {passwordRules()}
          </p>
        )}
        {needsInvite && (
          <>
            <label htmlFor={`${uid}-invite`} className="field-label">
              {t('auth.inviteCodeOrLink')}
            </label>
            <input
              id={`${uid}-invite`}
              name="invite"
              className="input mono"
              value={invite}
              spellCheck={false}
              autoComplete="off"
              onChange={(e) => setInvite(e.target.value)}
              maxLength={500}
            />
          </>
        )}
        {error && (
          <p className="field-error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" className="button primary wide" disabled={busy || (register && registration === null)}>
          {busy ? t('auth.pleaseWait') : register ? t('auth.createAccount') : t('auth.logIn')}
        </button>
        {switcher}
      </form>
    </main>
  );
}
