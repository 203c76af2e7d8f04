/**
 * /oauth2/authorize?client_id=…&permissions=…&scope=bot: a bot's invite link, as on
 * Discord. Names the bot, lists what it asks for in plain language (each can be unticked),
 * lets the person pick one of the servers they own (on Parley only the owner adds bots) and
 * adds it through `POST /servers/{id}/bots` with the chosen bitfield. Signed out, the app
 * shows the login form at this same address, so the person comes back here.
 */
import { useEffect, useId, useMemo, useState, type FormEvent } from 'react';
import { P, permissionNamesOf } from '@parley/protocol/permissions';
import { ApiError, api, describeError, seg } from '../api/client';
import type { AddBotBody, BotProfile } from '../api/types';
import { Avatar, BotBadge } from '../components/avatar';
import { parseAuthorize, offeredBits } from '../lib/bot-invite';
import { PERMISSION_GROUPS } from '../lib/permission-labels';
import { setPageTitle } from '../lib/title';
import { Link, paths } from '../router';
import { useStore } from '../state/store';
import { t } from '../i18n';
import '../i18n/authorize';
import '../i18n/settings';
import styles from './authorize-page.module.css';
import { useAction } from '../lib/use-action';

type Load = { state: 'loading' } | { state: 'ready'; bot: BotProfile } | { state: 'missing'; message: string };

function Problem({ title, children }: { title: string; children: string }) {
  return (
    <main className="center-page">
      <div className={`card ${styles.card}`}>
        <h1>{title}</h1>
        <p role="alert">{children}</p>
        <Link to={paths.home()} className="button primary">
          {t('authorize.goToParley')}
        </Link>
      </div>
    </main>
  );
}

export function AuthorizePage() {
  const request = useMemo(() => parseAuthorize(location.search), []);
  const me = useStore((s) => s.me);
  const servers = useStore((s) => s.servers);
  const serversLoaded = useStore((s) => s.serversLoaded);
  const [load, setLoad] = useState<Load>({ state: 'loading' });
  const offered = offeredBits(request.asked);
  const [chosen, setChosen] = useState<bigint>(offered);
  const [serverId, setServerId] = useState('');
  const { busy, error, setError, run } = useAction();
  const [added, setAdded] = useState<string | null>(null);
  const id = useId();

  useEffect(() => {
    const clientId = request.clientId;
    if (!clientId) return;
    let cancelled = false;
    api
      .get<BotProfile>(`/bots/${seg(clientId)}/profile`)
      .then((bot) => !cancelled && setLoad({ state: 'ready', bot }))
      .catch((err) => {
        if (cancelled) return;
        const message = err instanceof ApiError && err.status === 404 ? t('authorize.noBot', { id: clientId }) : describeError(err);
        setLoad({ state: 'missing', message });
      });
    return () => {
      cancelled = true;
    };
  }, [request.clientId]);

  const bot = load.state === 'ready' ? load.bot : null;
  useEffect(() => {
    setPageTitle(bot ? t('titles.addBot', { bot: bot.name }) : t('titles.page', { page: t('authorize.pageTitle') }));
  }, [bot]);

  const owned = useMemo(
    () =>
      Object.values(servers)
        .filter((s) => s.ownerId === me?.id)
        .sort((a, b) => a.name.localeCompare(b.name)),
    [servers, me?.id],
  );
  // The link's guild_id, when it is one of theirs; else the only server they own.
  useEffect(() => {
    if (serverId || owned.length === 0) return;
    const named = owned.find((s) => s.id === request.guildId);
    if (named) setServerId(named.id);
    else if (owned.length === 1) setServerId(owned[0]!.id);
  }, [owned, serverId, request.guildId]);

  if (!request.clientId) return <Problem title={t('authorize.noBotTitle')}>{t('authorize.noClientId')}</Problem>;
  if (!request.addsBot) return <Problem title={t('authorize.noBotTitle')}>{t('authorize.noBotScope')}</Problem>;
  if (load.state === 'missing') return <Problem title={t('authorize.noBotTitle')}>{load.message}</Problem>;
  if (!bot || !serversLoaded) {
    return (
      <main className="center-page">
        <div className={`card ${styles.card}`} role="status">
          <p className="hint">{t('authorize.lookingUp')}</p>
        </div>
      </main>
    );
  }
  if (owned.length === 0) return <Problem title={t('authorize.noServersTitle')}>{t('authorize.noServers')}</Problem>;

  const server = servers[serverId];
  if (added && servers[added]) {
    const target = servers[added];
    return (
      <main className="center-page">
        <section className={`card ${styles.card}`} aria-labelledby={`${id}-done`}>
          <Header bot={bot} />
          <h1 id={`${id}-done`} className={styles.title} role="status">
            {t('authorize.added', { bot: bot.name, server: target.name })}
          </h1>
          <p className="hint">{t('authorize.addedHelp')}</p>
          <Link to={paths.server(target.id)} className="button primary">
            {t('authorize.openServer', { server: target.name })}
          </Link>
        </section>
      </main>
    );
  }

  const lockedTo = request.lockGuild ? owned.find((s) => s.id === request.guildId) : undefined;
  const items = PERMISSION_GROUPS.flatMap((g) => g.items).filter((i) => (offered & P[i.id]) !== 0n);
  const basics = items.some((i) => (request.asked & P[i.id]) === 0n);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!server) return setError(t('authorize.chooseServer'));
    await run(
      async () => {
        await api.post(`/servers/${seg(server.id)}/bots`, { botId: bot.id, permissions: chosen.toString() } satisfies AddBotBody);
        setAdded(server.id);
      },
      {
        describe: (err) =>
          err instanceof ApiError && err.status === 409
            ? t('authorize.alreadyIn', { bot: bot.name, server: server.name })
            : describeError(err),
      },
    );
  };

  return (
    <main className="center-page">
      <form className={`card ${styles.card}`} aria-labelledby={`${id}-title`} onSubmit={submit}>
        <p className={styles.kicker}>{t('authorize.kicker')}</p>
        <Header bot={bot} titleId={`${id}-title`} />

        <div className={`field ${styles.block}`}>
          <label htmlFor={`${id}-server`} className="field-label">
            {t('authorize.server')}
          </label>
          <select
            id={`${id}-server`}
            className="input"
            value={serverId}
            disabled={!!lockedTo || busy}
            onChange={(e) => {
              setServerId(e.target.value);
              setError(null);
            }}
          >
            {!serverId && <option value="">{t('authorize.chooseServer')}</option>}
            {owned.map((s) => (
              <option key={s.id} value={s.id}>
                {s.name}
              </option>
            ))}
          </select>
          <span className="small-text">{lockedTo ? t('authorize.lockedServer') : t('authorize.ownersOnly')}</span>
        </div>

        <fieldset className={styles.block} disabled={busy}>
          <legend className={styles.legend}>{t('authorize.willBeAbleTo', { bot: bot.name })}</legend>
          <p className="small-text">{t('authorize.untickHelp')}</p>
          <ul className={styles.perms}>
            {items.map((i) => {
              const on = (chosen & P[i.id]) !== 0n;
              const fromLink = (request.asked & P[i.id]) !== 0n;
              const admin = i.id === 'ADMINISTRATOR';
              return (
                <li key={i.id} className={admin ? styles.danger : undefined} data-permission={i.id}>
                  <label className={styles.perm} htmlFor={`${id}-${i.id}`}>
                    <input
                      id={`${id}-${i.id}`}
                      type="checkbox"
                      checked={on}
                      onChange={(e) => setChosen((c) => (e.target.checked ? c | P[i.id] : c & ~P[i.id]))}
                      aria-describedby={`${id}-${i.id}-help`}
                    />
                    <span>
                      <span className={styles.permTitle}>
                        <span className={styles.permLabel}>{i.label}</span>
                        {!fromLink && <span className={styles.tag}>{t('authorize.basic')}</span>}
                      </span>
                      <span id={`${id}-${i.id}-help`} className={styles.permHelp}>
                        {admin ? t('authorize.adminWarning') : i.help}
                      </span>
                    </span>
                  </label>
                </li>
              );
            })}
          </ul>
          {basics && <p className="small-text">{t('authorize.basicHelp')}</p>}
          {request.unknownBits > 0 && <p className="small-text">{t('authorize.unknownBits', { count: request.unknownBits })}</p>}
          {permissionNamesOf(chosen).length === 0 && <p className="warning">{t('authorize.nothingTicked')}</p>}
        </fieldset>

        {error && (
          <p className="field-error" role="alert">
            {error}
          </p>
        )}
        <div className={styles.actions}>
          <Link to={paths.home()} className="button secondary">
            {t('authorize.cancel')}
          </Link>
          <button type="submit" className="button primary" disabled={busy || !server}>
            {busy ? t('authorize.adding') : t('authorize.add')}
          </button>
        </div>
      </form>
    </main>
  );
}

/** The bot: picture, name, badge, who made it. */
function Header({ bot, titleId }: { bot: BotProfile; titleId?: string }) {
  return (
    <div className={styles.header}>
      <Avatar id={bot.id} name={bot.name} src={bot.avatar} size={64} />
      <div className={styles.headerText}>
        <h1 id={titleId} className={styles.botName}>
          <span className="visually-hidden">{t('authorize.addBotTo', { bot: bot.name })} </span>
          <span aria-hidden="true">{bot.name}</span> <BotBadge />
        </h1>
        {bot.owner && <p className="small-text">{t('authorize.madeBy', { owner: bot.owner.name })}</p>}
        {!bot.public && <p className="small-text">{t('authorize.privateBot')}</p>}
      </div>
    </div>
  );
}
