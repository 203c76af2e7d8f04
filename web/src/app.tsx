import { GatewayClient, GatewayCloseCodes } from '@parley/sdk';
import { attachStatus } from './state/presence';
import { lazy, Suspense, useCallback, useEffect, useRef, useState, type MouseEvent } from 'react';
import { ApiError, api, describeError, getToken, onUnauthorized, setToken } from './api/client';
import type { GatewayEvent, Instance } from './api/types';
import { AppsMenuHost } from './components/apps-menu';
import { ConfirmHost } from './components/dialog';
import { ModalHost } from './components/modal-form';
import { ErrorBoundary } from './components/error-boundary';
import { LightboxHost } from './components/lightbox';
import { QuickSwitcherHost } from './components/quick-switcher';
import { ToastRegion } from './components/toasts';
import { AuthPage, type RegistrationMode } from './pages/auth-page';
import { ChatPage } from './pages/chat-page';
import { DmPage } from './pages/dm-page';
import { HomePage } from './pages/home-page';
import { acceptInviteOnArrival, InvitePage, useInvitePreview } from './pages/invite-page';
import { applyEvent, loadMe, loadMembers, loadServers } from './state/actions';
import { startBlocks } from './state/blocks';
import { applyReady, startConversations } from './state/conversations';
import { applyReadyThreads } from './state/threads';
import { jumpToMessage } from './state/conversation';
import { resetInteractions } from './state/interaction-store';
import { forgetDrafts } from './lib/drafts';
import { store, useStore } from './state/store';
import { toast } from './state/toasts';
import { Link, match, navigate, paths, usePath } from './router';
import composerStyles from './components/composer.module.css';
import { setPageTitle } from './lib/title';
import { Trans } from 'react-i18next';
import { t } from './i18n';

// Pages most visits never open load on demand, each as its own chunk (issue 13): server
// settings, the account page and "My bots" stay out of the first load.
const SettingsPage = lazy(() => import('./pages/settings/settings-page').then((m) => ({ default: m.SettingsPage })));
const AccountPage = lazy(() => import('./pages/account-page').then((m) => ({ default: m.AccountPage })));
const MyBotsPage = lazy(() => import('./pages/my-bots-page').then((m) => ({ default: m.MyBotsPage })));
const AuthorizePage = lazy(() => import('./pages/authorize-page').then((m) => ({ default: m.AuthorizePage })));

/**
 * A link to one message (`paths.message`): the history around it is fetched (as a search
 * result's jump does), then its channel opens on it and flashes it. A message the person
 * may not read ends in its channel (or its "not found") with the jump's own toast.
 */
function MessageLink({ serverId, channelId, messageId }: { serverId: string | null; channelId: string; messageId: string }) {
  useEffect(() => {
    let live = true;
    void jumpToMessage(channelId, messageId).finally(() => {
      if (live) navigate(serverId === null ? paths.dm(channelId) : paths.channel(serverId, channelId), { replace: true });
    });
    return () => {
      live = false;
    };
  }, [serverId, channelId, messageId]);
  return <PageLoading />;
}

/** What shows while a page's chunk loads (usually a few milliseconds). */
function PageLoading() {
  return (
    <div className="splash" role="status">
      {t('app.loading')}
    </div>
  );
}

export function App() {
  const [token, setTokenState] = useState<string | null>(getToken);

  const login = useCallback((t: string) => {
    setToken(t);
    setTokenState(t);
    if (location.pathname === '/login' || location.pathname === '/register') navigate(paths.home(), { replace: true });
  }, []);

  const logout = useCallback((reason?: string) => {
    setToken(null);
    store.dispatch({ type: 'reset' });
    resetInteractions();
    // Logging out forgets the drafts; a session that ended by itself keeps them for the same person.
    if (!reason) forgetDrafts();
    setTokenState(null);
    if (!location.pathname.startsWith('/invite/')) navigate(paths.login());
    if (reason) toast(reason, 'error');
  }, []);

  const plainLogout = useCallback(() => logout(), [logout]);
  const expiredLogout = useCallback(() => logout(t('app.sessionEnded')), [logout]);

  useEffect(() => {
    onUnauthorized(expiredLogout);
    return () => onUnauthorized(null);
  }, [expiredLogout]);

  // Another tab logged in or out.
  useEffect(() => {
    const onStorage = (e: StorageEvent) => {
      if (e.key === 'parley.token') setTokenState(getToken());
    };
    window.addEventListener('storage', onStorage);
    return () => window.removeEventListener('storage', onStorage);
  }, []);

  return (
    <ErrorBoundary>
      {/* biome-ignore lint/a11y: a real link to #main; the click also moves the focus there */}
      <a href="#main" className="skip-link" onClick={skipToMain}>
        {t('app.skipToContent')}
      </a>
      {token ? (
        <Session key={token} token={token} onLogout={plainLogout} onAuthFailed={expiredLogout} />
      ) : (
        <LoggedOut onAuthenticated={login} />
      )}
      <ToastRegion />
      <ConfirmHost />
      <ModalHost />
      <AppsMenuHost />
      <LightboxHost />
      {token && <QuickSwitcherHost />}
    </ErrorBoundary>
  );
}

function skipToMain(e: MouseEvent) {
  e.preventDefault();
  const target = document.querySelector<HTMLElement>(`.${composerStyles.composerInput}`) ?? document.querySelector<HTMLElement>('main');
  if (!target) return;
  if (target.tabIndex < 0 && target.tagName === 'MAIN') target.tabIndex = -1;
  target.focus();
}

/** Remembers that someone logged in from this browser, so the login page welcomes them back. */
const RETURNING_KEY = 'parley.returning';

function markReturning(): void {
  try {
    localStorage.setItem(RETURNING_KEY, '1');
  } catch {
    /* storage may be disabled */
  }
}

function isReturning(): boolean {
  try {
    return localStorage.getItem(RETURNING_KEY) === '1';
  } catch {
    return false;
  }
}

function LoggedOut({ onAuthenticated }: { onAuthenticated: (token: string) => void }) {
  const path = usePath();
  const [inviteMode, setInviteMode] = useState<'login' | 'register'>('register');
  const [registration, setRegistration] = useState<RegistrationMode>(null);
  useEffect(() => {
    let cancelled = false;
    api
      .get<Instance>('/instance')
      .then((i) => !cancelled && setRegistration(i.registration))
      // Unknown: offer the form, and let the server's answer explain.
      .catch(() => !cancelled && setRegistration('open'));
    return () => {
      cancelled = true;
    };
  }, []);
  useEffect(() => {
    const onMode = (e: Event) => setInviteMode((e as CustomEvent<'login' | 'register'>).detail);
    window.addEventListener('parley:auth-mode', onMode);
    return () => window.removeEventListener('parley:auth-mode', onMode);
  }, []);
  useEffect(() => {
    setPageTitle(t('titles.app'));
  }, []);
  const invite = match('/invite/:code', path);
  if (invite?.code) {
    return <InviteAuth code={invite.code} mode={inviteMode} registration={registration} onAuthenticated={onAuthenticated} />;
  }
  return (
    <AuthPage
      mode={path === '/register' ? 'register' : 'login'}
      // A bot's invite link: logging in here keeps its address, so the page follows.
      notice={path === paths.authorize() ? t('app.logInToAddBot') : undefined}
      registration={registration}
      returning={isReturning()}
      onAuthenticated={onAuthenticated}
    />
  );
}

/** Logging in or registering from an invite link: names the server, and joins it once in. */
function InviteAuth({
  code,
  mode,
  registration,
  onAuthenticated,
}: {
  code: string;
  mode: 'login' | 'register';
  registration: RegistrationMode;
  onAuthenticated: (token: string) => void;
}) {
  const load = useInvitePreview(code);
  const notice =
    load.state === 'ready' ? (
      <Trans i18nKey="app.invitedToJoin" values={{ server: load.preview.server.name }} components={{ b: <strong /> }} />
    ) : load.state === 'gone' ? (
      t('app.inviteGone')
    ) : (
      t('app.invitedToServer')
    );
  return (
    <AuthPage
      mode={mode}
      notice={notice}
      registration={registration}
      inviteCode={code}
      returning={isReturning()}
      onAuthenticated={(token) => {
        // They said yes on this page: the invite page joins without asking again.
        if (load.state !== 'gone') acceptInviteOnArrival(code);
        onAuthenticated(token);
      }}
    />
  );
}

interface SessionProps {
  token: string;
  onLogout: () => void;
  onAuthFailed: () => void;
}

/** Everything that needs a logged-in user: boot data, the gateway and the routes. */
function Session({ token, onLogout, onAuthFailed }: SessionProps) {
  const me = useStore((s) => s.me);
  const [bootError, setBootError] = useState<string | null>(null);
  const [attempt, setAttempt] = useState(0);
  const path = usePath();
  const gatewayRef = useRef<GatewayClient | null>(null);
  // The channel on screen: the server sends typing in a server's channel only where we look.
  const onScreen = match('/s/:serverId/c/:channelId', path)?.channelId ?? match('/dms/:channelId', path)?.channelId;
  const focused = onScreen && /^[0-9]{1,19}$/.test(onScreen) ? onScreen : null;
  const focusedRef = useRef(focused);
  focusedRef.current = focused;
  useEffect(() => {
    gatewayRef.current?.focus(focused);
  }, [focused]);

  // Someone uses Parley in this browser: after a logout, the login page welcomes them back.
  useEffect(markReturning, []);
  // Unread counts in the title, notifications from one tab, settings shared between tabs.
  useEffect(startConversations, []);
  // The block list: the message list folds blocked people's messages (state/blocks.ts).
  useEffect(startBlocks, []);

  // biome-ignore lint/correctness/useExhaustiveDependencies(token): a new session token loads the boot data again
  // biome-ignore lint/correctness/useExhaustiveDependencies(attempt): so does "Try again"
  useEffect(() => {
    let cancelled = false;
    setBootError(null);
    Promise.all([loadMe(), loadServers()]).catch((err) => {
      if (cancelled || (err instanceof ApiError && err.status === 401)) return;
      setBootError(describeError(err));
    });
    return () => {
      cancelled = true;
    };
  }, [token, attempt]);

  useEffect(() => {
    // The SDK's gateway client, on the browser's WebSocket: heartbeats, resume after a
    // drop, identify again when the session cannot be resumed, reconnect with backoff
    // (also when the first connection fails: the page comes up whenever the server does).
    const gateway = new GatewayClient({
      url: gatewayUrl(),
      token: `Bearer ${token}`,
      reconnect: { initialDelayMs: 500, maxDelayMs: 15_000, retryFirstConnection: true },
    });
    gatewayRef.current = gateway;
    gateway.focus(focusedRef.current);
    let hadSession = false;
    // The chosen status goes with the identify (set before connecting) and follows the menu.
    const detachStatus = attachStatus(gateway);
    const unsubscribe = [
      gateway.on('status', (status) => store.dispatch({ type: 'status', status })),
      gateway.on('ready', (ready) => {
        if (ready.user) store.dispatch({ type: 'me', user: ready.user });
        if (Array.isArray(ready.servers)) {
          store.dispatch({ type: 'servers/set', servers: ready.servers });
          if (ready.servers.some((s) => !s.ownerId)) loadServers().catch(() => undefined);
        }
        applyReady(ready);
        applyReadyThreads(ready.servers);
        if (hadSession) {
          // A fresh session after a lost one: events may have been missed, refetch what is on screen.
          store.dispatch({ type: 'messages/stale' });
          for (const serverId of Object.keys(store.getState().members)) loadMembers(serverId).catch(() => undefined);
        }
        hadSession = true;
      }),
      gateway.on('dispatch', (event) => applyEvent(event as GatewayEvent)),
      gateway.on('close', ({ code }) => {
        if (code === GatewayCloseCodes.AuthenticationFailed) onAuthFailed();
      }),
    ];
    // Back online: retry now instead of waiting out the backoff delay.
    const online = () => {
      if (!gateway.socket) gateway.reconnect();
    };
    window.addEventListener('online', online);
    // Connect on the next tick: a mount immediately undone (React's StrictMode double
    // effects, fast navigation) then never opens a socket at all.
    const start = setTimeout(() => {
      gateway.connect().catch(() => undefined); // failures arrive as close events
    }, 0);
    return () => {
      clearTimeout(start);
      window.removeEventListener('online', online);
      for (const off of unsubscribe) off();
      detachStatus();
      gatewayRef.current = null;
      void gateway.close(1000, 'bye');
    };
  }, [token, onAuthFailed]);

  if (!me) {
    if (bootError) {
      return (
        <main className="center-page">
          <div className="card" role="alert">
            <h1>{t('app.cannotLoadParley')}</h1>
            <p>{bootError}</p>
            <div className="row">
              <button type="button" className="button primary" onClick={() => setAttempt((a) => a + 1)}>
                {t('app.tryAgain')}
              </button>
              <button type="button" className="button secondary" onClick={onLogout}>
                {t('app.logOut')}
              </button>
            </div>
          </div>
        </main>
      );
    }
    return (
      <div className="splash" role="status">
        {t('app.loadingParley')}
      </div>
    );
  }

  let m: Record<string, string> | null;
  if ((m = match('/invite/:code', path)) && m.code) return <InvitePage code={m.code} />;
  if ((m = match('/s/:serverId/settings/:tab?', path)) && m.serverId) {
    return (
      <Suspense fallback={<PageLoading />}>
        <SettingsPage serverId={m.serverId} tab={m.tab} />
      </Suspense>
    );
  }
  if ((m = match('/s/:serverId/c/:channelId/m/:messageId', path)) && m.serverId && m.channelId && m.messageId) {
    return <MessageLink serverId={m.serverId} channelId={m.channelId} messageId={m.messageId} />;
  }
  if ((m = match('/dms/:channelId/m/:messageId', path)) && m.channelId && m.messageId) {
    return <MessageLink serverId={null} channelId={m.channelId} messageId={m.messageId} />;
  }
  if ((m = match('/s/:serverId/c/:channelId/t/:threadId', path)) && m.serverId && m.channelId && m.threadId) {
    return <ChatPage serverId={m.serverId} channelId={m.channelId} threadId={m.threadId} onLogout={onLogout} />;
  }
  if ((m = match('/s/:serverId/c/:channelId', path)) && m.serverId && m.channelId) {
    return <ChatPage serverId={m.serverId} channelId={m.channelId} onLogout={onLogout} />;
  }
  if ((m = match('/s/:serverId', path)) && m.serverId) return <ChatPage serverId={m.serverId} channelId={null} onLogout={onLogout} />;
  if ((m = match('/dms/:channelId?', path))) return <DmPage channelId={m.channelId ?? null} onLogout={onLogout} />;
  if (path === paths.authorize()) {
    return (
      <Suspense fallback={<PageLoading />}>
        <AuthorizePage />
      </Suspense>
    );
  }
  if (path === paths.myBots()) {
    return (
      <Suspense fallback={<PageLoading />}>
        <MyBotsPage onLogout={onLogout} />
      </Suspense>
    );
  }
  if (path === paths.account()) {
    return (
      <Suspense fallback={<PageLoading />}>
        <AccountPage onLogout={onLogout} />
      </Suspense>
    );
  }
  if (path === '/' || path === '/login' || path === '/register') return <HomePage onLogout={onLogout} />;
  return (
    <main className="center-page">
      <div className="card">
        <h1>{t('app.pageNotFound')}</h1>
        <p>{t('app.thereIsNothingAt')}</p>
        <Link to={paths.home()} className="button primary">
          {t('app.goToParley')}
        </Link>
      </div>
    </main>
  );
}

/** The gateway of the service that served this page: same host, `wss:` under `https:`. */
function gatewayUrl(): string {
  const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${proto}//${location.host}/gateway`;
}
