/**
 * The Bots section of server settings (owner): add one of your own bots, or someone
 * else's public bot by its id, with chosen permissions; edit or remove the bots present.
 */
import { useEffect, useId, useState, type FormEvent } from 'react';
import { ALL_LEGACY_BITS, P, bitsOfNames } from '@parley/protocol/permissions';
import { ApiError, api, describeError, seg } from '../../api/client';
import {
  ALL_PERMISSIONS,
  displayName,
  type AddBotBody,
  type Bot,
  type Member,
  type Permission,
  type Server,
  type SetBotPermissionsBody,
} from '../../api/types';
import { Avatar, BotBadge } from '../../components/avatar';
import { confirm, Dialog } from '../../components/dialog';
import dialogStyles from '../../components/dialog.module.css';
import { Link, paths } from '../../router';
import { loadMembers } from '../../state/actions';
import { useStore } from '../../state/store';
import { toast, toastError } from '../../state/toasts';
import { PermissionBoxes } from './permission-boxes';
import styles from './settings.module.css';
import own from './admin.module.css';
import { Trans } from 'react-i18next';
import { t } from '../../i18n';
import '../../i18n/settings';
import { useAction } from '../../lib/use-action';

/**
 * The four legacy names (docs/permissions.md#bots) as boxes, as bits. "Send messages" includes embeds (EMBED_LINKS): a bot's
 * replies are often embeds, and a bot added without permissions holds it too
 * (docs/permissions.md, "Bots").
 */
function boxBits(perms: Permission[]): bigint {
  const bits = bitsOfNames(perms);
  return (bits & P.SEND_MESSAGES) !== 0n ? bits | P.EMBED_LINKS : bits;
}

/** The bits the boxes decide; a bot's other bits (from its invite link, or Roles) are kept when they are saved. */
const BOX_BITS = ALL_LEGACY_BITS | P.EMBED_LINKS;

/** Adds a bot and refreshes the member list (the bot's permissions come with it). */
async function addBot(server: Server, botId: string, permissions: Permission[]): Promise<void> {
  await api.post(`/servers/${seg(server.id)}/bots`, { botId, permissions: boxBits(permissions).toString() } satisfies AddBotBody);
  await loadMembers(server.id);
}

/** The server's refusal, with what to do about it. */
function addError(err: unknown): string {
  const message = describeError(err);
  if (err instanceof ApiError && err.status === 403) return t('settings.bots.notPublic', { message });
  if (err instanceof ApiError && err.status === 404) return 'No bot has that id. Check it with the bot’s owner.';
  return message;
}

export function BotsSection({ server }: { server: Server }) {
  const members = useStore((s) => s.members[server.id]);
  const [myBots, setMyBots] = useState<Bot[] | null>(null);
  const [myBotsError, setMyBotsError] = useState<string | null>(null);
  const [adding, setAdding] = useState<Bot | null>(null);

  useEffect(() => {
    loadMembers(server.id).catch(toastError);
    api
      .get<Bot[]>('/bots')
      .then(setMyBots)
      .catch((err) => setMyBotsError(describeError(err)));
  }, [server.id]);

  const bots = (members ?? []).filter((m) => m.bot);
  const present = new Set(bots.map((b) => b.id));

  return (
    <section className={styles.settingsSection} aria-labelledby="bots-title">
      <h2 id="bots-title">{t('settings.bots.bots')}</h2>
      <p className={styles.sectionIntro}>{t('settings.bots.botsReadAndPost', { server: server.name })}</p>

      <h3 className={styles.subheading} id="your-bots-title">
        {t('settings.bots.yourBots')}
      </h3>
      {myBotsError && (
        <p className="field-error" role="alert">
          {t('settings.bots.couldNotLoadYour', { myBotsError })}
        </p>
      )}
      {!myBots && !myBotsError && <p className="empty-note">{t('settings.bots.loading')}</p>}
      {myBots && myBots.length === 0 && (
        <div className={own.emptyState}>
          <strong>{t('settings.bots.youHaveNoBots')}</strong>
          <p>
            <Trans i18nKey="settings.bots.createOnMyBots" components={{ page: <Link to={paths.myBots()} /> }} />
          </p>
        </div>
      )}
      {myBots && myBots.length > 0 && (
        <ul className={own.botCards} aria-labelledby="your-bots-title">
          {myBots.map((b) => (
            <li key={b.id} className={own.botCard} data-my-bot-id={b.id}>
              <div className={own.botCardHead}>
                <Avatar id={b.id} name={b.name} src={b.avatar} size={40} />
                <div style={{ minWidth: 0 }}>
                  <div className={own.botCardName} title={b.name} id={`bot-card-${b.id}`}>
                    {b.name}
                  </div>
                  <div className="small-text">{b.public ? t('settings.bots.public') : t('settings.bots.private')}</div>
                </div>
              </div>
              {present.has(b.id) ? (
                <span className={own.present}>{t('settings.bots.alreadyInThisServer')}</span>
              ) : (
                <button type="button" className="button primary small" onClick={() => setAdding(b)} aria-describedby={`bot-card-${b.id}`}>
                  {t('settings.bots.addToServer')}
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {myBots && myBots.length > 0 && (
        <p className="small-text">
          <Trans i18nKey="settings.bots.manageOnMyBots" components={{ page: <Link to={paths.myBots()} /> }} />
        </p>
      )}

      <AddById server={server} />

      <h3 className={styles.subheading}>{t('settings.bots.botsInThisServer')}</h3>
      {!members && <p className="empty-note">{t('settings.bots.loading')}</p>}
      {members && bots.length === 0 && <p className="empty-note">{t('settings.bots.noBotsYet')}</p>}
      <ul className={styles.botRows}>
        {bots.map((b) => (
          <BotRow key={b.id} server={server} bot={b} />
        ))}
      </ul>
      {adding && <AddBotDialog server={server} bot={adding} onClose={() => setAdding(null)} />}
    </section>
  );
}

/** Choose the permissions of one of your bots, then add it. */
function AddBotDialog({ server, bot, onClose }: { server: Server; bot: Bot; onClose: () => void }) {
  const [perms, setPerms] = useState<Permission[]>([...ALL_PERMISSIONS]);
  const { busy, error, run } = useAction();

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    await run(
      async () => {
        await addBot(server, bot.id, perms);
        toast(t('settings.bots.botAddedToServer', { bot: bot.name, server: server.name }));
        onClose();
      },
      { describe: addError, stayBusy: true },
    );
  };

  return (
    <Dialog title={t('settings.bots.addBot', { bot: bot.name })} onClose={onClose}>
      <form onSubmit={submit} className={dialogStyles.dialogBody}>
        <p className={own.dialogIntro}>{t('settings.bots.chooseWhatBotMay', { bot: bot.name, server: server.name })}</p>
        <PermissionBoxes
          value={perms}
          onChange={setPerms}
          label={t('settings.bots.permissionsForBot', { bot: bot.name })}
          disabled={busy}
        />
        {error && (
          <p className="field-error" role="alert">
            {error}
          </p>
        )}
        <footer className={dialogStyles.dialogActions}>
          <button type="button" className="button secondary" onClick={onClose}>
            {t('settings.bots.cancel')}
          </button>
          <button type="submit" className="button primary" disabled={busy} data-autofocus>
            {busy ? t('settings.bots.adding') : t('settings.bots.addBotButton')}
          </button>
        </footer>
      </form>
    </Dialog>
  );
}

/** Someone else's bot, by the id its owner gave you: it must be public. */
function AddById({ server }: { server: Server }) {
  const [botId, setBotId] = useState('');
  const [perms, setPerms] = useState<Permission[]>([...ALL_PERMISSIONS]);
  const { busy, error, setError, run } = useAction();
  const id = useId();

  const add = async (e: FormEvent) => {
    e.preventDefault();
    const target = botId.trim();
    if (!target) return setError(t('settings.bots.errors.noId'));
    await run(
      async () => {
        await addBot(server, target, perms);
        setBotId('');
        toast(t('settings.bots.botAddedToThe'));
      },
      { describe: addError },
    );
  };

  return (
    <>
      <h3 className={styles.subheading}>{t('settings.bots.addAPublicBot')}</h3>
      <form className={`stack ${styles.cardForm}`} onSubmit={add} aria-label={t('settings.bots.addAPublicBot')}>
        <div className="field">
          <label htmlFor={`${id}-bot`} className="field-label">
            {t('settings.bots.botId')}
          </label>
          <input
            id={`${id}-bot`}
            className="input mono"
            value={botId}
            placeholder={t('settings.bots.pasteABotId')}
            spellCheck={false}
            autoComplete="off"
            aria-invalid={!!error}
            aria-describedby={error ? `${id}-error` : `${id}-hint`}
            onChange={(e) => setBotId(e.target.value)}
          />
          {error ? (
            <p id={`${id}-error`} className="field-error" role="alert">
              {error}
            </p>
          ) : (
            <p id={`${id}-hint`} className="hint">
              {t('settings.bots.someoneElseSBot')}
            </p>
          )}
        </div>
        <div className="field">
          <span className="field-label">{t('settings.bots.permissions')}</span>
          <PermissionBoxes value={perms} onChange={setPerms} label={t('settings.bots.permissionsForTheBot')} />
        </div>
        <div>
          <button type="submit" className="button secondary" disabled={busy}>
            {busy ? t('settings.bots.adding') : t('settings.bots.addBotById')}
          </button>
        </div>
      </form>
    </>
  );
}

function BotRow({ server, bot }: { server: Server; bot: Member }) {
  const managed = useStore((s) => s.roles[server.id]?.find((r) => r.managed && bot.roles.includes(r.id)));
  const initial = bot.permissions ?? [...ALL_PERMISSIONS];
  const [perms, setPerms] = useState<Permission[]>(initial);
  const { busy, run } = useAction({ onError: toastError });
  const dirty = [...perms].sort().join() !== [...initial].sort().join();
  const name = displayName(bot);

  useEffect(() => setPerms(bot.permissions ?? [...ALL_PERMISSIONS]), [bot.permissions]);

  const save = async () => {
    await run(async () => {
      const kept = managed ? BigInt(managed.permissions) & ~BOX_BITS : 0n;
      const permissions = (kept | boxBits(perms)).toString();
      await api.patch(`/servers/${seg(server.id)}/bots/${seg(bot.id)}`, { permissions } satisfies SetBotPermissionsBody);
      await loadMembers(server.id);
      toast(t('settings.bots.permissionsOfNameSaved', { name }));
    });
  };

  const remove = async () => {
    const ok = await confirm({
      title: t('settings.bots.removeBot'),
      body: <p>{t('settings.bots.removeNameFromServer', { name, server: server.name })}</p>,
      confirmLabel: t('settings.bots.removeBot'),
      danger: true,
    });
    if (!ok) return;
    try {
      await api.delete(`/servers/${seg(server.id)}/bots/${seg(bot.id)}`);
      await loadMembers(server.id);
      toast(t('settings.bots.nameRemoved', { name }));
    } catch (err) {
      toastError(err);
    }
  };

  return (
    <li className={styles.botRow} data-bot-id={bot.id}>
      <div className={styles.botRowHead}>
        <Avatar id={bot.id} name={name} src={bot.avatar} size={32} />
        <div>
          <div className={styles.botName}>
            {name} <BotBadge />
          </div>
          <div className="mono small-text">{bot.id}</div>
        </div>
      </div>
      <PermissionBoxes value={perms} onChange={setPerms} label={t('settings.bots.permissionsOfName', { name })} disabled={busy} />
      <div className="row">
        <button type="button" className="button primary small" disabled={!dirty || busy} onClick={() => void save()}>
          {t('settings.bots.savePermissions')}
        </button>
        <button
          type="button"
          className="button danger small"
          onClick={() => void remove()}
          aria-label={t('settings.bots.removeNameFromThe', { name })}
        >
          {t('settings.bots.remove')}
        </button>
      </div>
    </li>
  );
}
