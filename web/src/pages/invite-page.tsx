import { useEffect, useRef, useState } from 'react';
import { ApiError, describeError } from '../api/client';
import type { InvitePreview } from '../api/types';
import { hueFor, initials } from '../lib/format';
import { safeImageSrc } from '../markdown/parse';
import { joinInvite } from '../state/actions';
import { previewInvite } from '../state/moderation';
import { useStore } from '../state/store';
import { Link, navigate, paths } from '../router';
import styles from './invite-page.module.css';
import { setPageTitle } from '../lib/title';
import { Trans } from 'react-i18next';
import { t } from '../i18n';

/**
 * The code someone just logged in or registered for from this invite's page: they said
 * yes there ("Log in or create an account to join …"), so it is not asked twice.
 */
let acceptedOnArrival: string | null = null;

export function acceptInviteOnArrival(code: string): void {
  acceptedOnArrival = code;
}

type Load = { state: 'loading' } | { state: 'ready'; preview: InvitePreview } | { state: 'gone'; message: string };

/** Fetches where an invite leads (`GET /invites/{code}`, open to anyone); shared with the logged-out notice. */
export function useInvitePreview(code: string): Load {
  const [load, setLoad] = useState<Load>({ state: 'loading' });
  useEffect(() => {
    let cancelled = false;
    setLoad({ state: 'loading' });
    previewInvite(code)
      .then((preview) => !cancelled && setLoad({ state: 'ready', preview }))
      .catch((err) => {
        if (cancelled) return;
        const message = err instanceof ApiError && err.status === 404 ? t('invite.gone') : describeError(err);
        setLoad({ state: 'gone', message });
      });
    return () => {
      cancelled = true;
    };
  }, [code]);
  return load;
}

/** A server's picture, or its initials on its colour. */
export function ServerBadge({ id, name, icon, size = 72 }: { id: string; name: string; icon: string | null; size?: number }) {
  const src = safeImageSrc(icon);
  const style = { width: size, height: size, fontSize: Math.round(size * 0.36), ['--hue' as string]: String(hueFor(id)) };
  if (src) return <img className={styles.badge} src={src} alt="" width={size} height={size} style={style} referrerPolicy="no-referrer" />;
  return (
    <span className={`${styles.badge} ${styles.initials}`} style={style} aria-hidden="true">
      {initials(name)}
    </span>
  );
}

/** /invite/<code>: shows where the invite leads and joins only when the person says so. */
export function InvitePage({ code }: { code: string }) {
  const load = useInvitePreview(code);
  const preview = load.state === 'ready' ? load.preview : null;
  const member = useStore((s) => (preview ? !!s.servers[preview.server.id] : false));
  const serversLoaded = useStore((s) => s.serversLoaded);
  const [joining, setJoining] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const auto = useRef(acceptedOnArrival === code);

  const join = async () => {
    setJoining(true);
    setError(null);
    try {
      const server = await joinInvite(code);
      navigate(paths.server(server.id), { replace: true });
    } catch (err) {
      setError(describeError(err));
      setJoining(false);
    }
  };

  useEffect(() => {
    setPageTitle(preview ? t('titles.join', { server: preview.server.name }) : t('titles.invite'));
  }, [preview]);

  // Arrived here by logging in to accept this invite: join straight away (once).
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs once, when the preview and the server list are in
  useEffect(() => {
    if (!auto.current || !preview || !serversLoaded) return;
    auto.current = false;
    acceptedOnArrival = null;
    if (member) navigate(paths.server(preview.server.id), { replace: true });
    else if (!preview.banned) void join();
  }, [preview, serversLoaded]);

  if (load.state === 'loading' || (load.state === 'ready' && !serversLoaded)) {
    return (
      <main className="center-page">
        <div className={`card ${styles.card}`} role="status">
          <p className={styles.muted}>{t('invite.lookingUpYourInvite')}</p>
        </div>
      </main>
    );
  }

  if (load.state === 'gone') {
    return (
      <main className="center-page">
        <div className={`card ${styles.card}`}>
          <h1>{t('invite.thisInviteNoLonger')}</h1>
          <p role="alert">{load.message}</p>
          <p className="hint">{t('invite.askThePersonWho')}</p>
          <Link to={paths.home()} className="button primary">
            {t('invite.goToParley')}
          </Link>
        </div>
      </main>
    );
  }

  const { server } = load.preview;
  const members = t('invite.members', { count: server.memberCount });
  return (
    <main className="center-page">
      <section className={`card ${styles.card}`} aria-labelledby="invite-title">
        <ServerBadge id={server.id} name={server.name} icon={server.icon} />
        {member ? (
          <>
            <h1 id="invite-title" className={styles.title}>
              <Trans i18nKey="invite.alreadyIn" values={{ server: server.name }} components={{ b: <strong /> }} />
            </h1>
            <p className={styles.muted}>{members}</p>
            <div className={styles.actions}>
              <Link to={paths.server(server.id)} className="button primary">
                {t('invite.openServer', { server: server.name })}
              </Link>
            </div>
          </>
        ) : load.preview.banned ? (
          <>
            <h1 id="invite-title" className={styles.title}>
              <Trans i18nKey="invite.banned" values={{ server: server.name }} components={{ b: <strong /> }} />
            </h1>
            <p className={styles.muted}>{t('invite.bannedHint')}</p>
            <div className={styles.actions}>
              <Link to={paths.home()} className="button primary">
                {t('invite.goToParley')}
              </Link>
            </div>
          </>
        ) : (
          <>
            <p className={styles.kicker} aria-hidden="true">
              {t('invite.youVeBeenInvited')}
            </p>
            <h1 id="invite-title" className={styles.title}>
              <span className="visually-hidden">{t('invite.youVeBeenInvited')} </span>
              <strong>{server.name}</strong>
            </h1>
            <p className={styles.muted}>
              <span className={styles.dot} aria-hidden="true" />
              {members}
            </p>
            {error && (
              <p className="field-error" role="alert">
                {error}
              </p>
            )}
            <div className={styles.actions}>
              <button type="button" className="button primary" onClick={() => void join()} disabled={joining}>
                {joining ? t('invite.joining') : t('invite.joinServer', { server: server.name })}
              </button>
              <Link to={paths.home()} className="button secondary">
                {t('invite.noThanks')}
              </Link>
            </div>
          </>
        )}
      </section>
    </main>
  );
}
