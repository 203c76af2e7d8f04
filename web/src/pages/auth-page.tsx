import { useId, useState, type FormEvent } from 'react';
import { api, describeError } from '../api/client';
import type { AuthResult, CredentialsBody } from '../api/types';
import { Link, paths } from '../router';
import styles from './auth-page.module.css';

interface Props {
  mode: 'login' | 'register';
  /** Shown above the form, e.g. when arriving from an invite link. */
  notice?: string;
  onAuthenticated: (token: string) => void;
}

/** Log in or create an account. */
export function AuthPage({ mode, notice, onAuthenticated }: Props) {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const uid = useId();
  const register = mode === 'register';

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!username.trim() || !password) {
      setError('Enter a username and a password.');
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const credentials: CredentialsBody = { username: username.trim(), password };
      const res = await api.post<AuthResult>(register ? '/auth/register' : '/auth/login', credentials);
      onAuthenticated(res.token);
    } catch (err) {
      setError(describeError(err));
      setBusy(false);
    }
  };

  // Keep the current path (an invite link) when switching between the two forms.
  const here = location.pathname.startsWith('/invite/') ? location.pathname : null;

  return (
    <main className={styles.authPage}>
      <form className={styles.authCard} onSubmit={submit} aria-labelledby={`${uid}-title`} noValidate>
        <div className={styles.authLogo} aria-hidden="true">
          <svg viewBox="0 0 64 64" width="44" height="44">
            <rect width="64" height="64" rx="16" fill="var(--accent)" />
            <path d="M18 20h28a4 4 0 0 1 4 4v14a4 4 0 0 1-4 4H30l-9 7v-7h-3a4 4 0 0 1-4-4V24a4 4 0 0 1 4-4z" fill="#fff" />
          </svg>
        </div>
        <h1 id={`${uid}-title`}>{register ? 'Create your account' : 'Welcome back'}</h1>
        <p className={styles.authSub}>{register ? 'Join the conversation on Parley.' : 'Log in to Parley.'}</p>
        {notice && <p className={styles.authNotice}>{notice}</p>}
        <label htmlFor={`${uid}-user`} className="field-label">
          Username
        </label>
        <input
          id={`${uid}-user`}
          name="username"
          className="input"
          autoComplete="username"
          autoFocus
          value={username}
          onChange={(e) => setUsername(e.target.value)}
          maxLength={64}
        />
        <label htmlFor={`${uid}-pass`} className="field-label">
          Password
        </label>
        <input
          id={`${uid}-pass`}
          name="password"
          type="password"
          className="input"
          autoComplete={register ? 'new-password' : 'current-password'}
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
        {error && (
          <p className="field-error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" className="button primary wide" disabled={busy}>
          {busy ? 'Please wait…' : register ? 'Create account' : 'Log in'}
        </button>
        <p className={styles.authSwitch}>
          {register ? 'Already have an account? ' : 'New here? '}
          {here ? (
            <a
              href={here}
              onClick={(e) => {
                e.preventDefault();
                window.dispatchEvent(new CustomEvent('parley:auth-mode', { detail: register ? 'login' : 'register' }));
              }}
            >
              {register ? 'Log in' : 'Create an account'}
            </a>
          ) : (
            <Link to={register ? paths.login() : paths.register()}>{register ? 'Log in' : 'Create an account'}</Link>
          )}
        </p>
      </form>
    </main>
  );
}
