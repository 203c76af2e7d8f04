/**
 * The Overview section of server settings: name, icon and description (MANAGE_SERVER);
 * for the owner, transferring the server and deleting it.
 */
import { useEffect, useId, useState, type FormEvent } from 'react';
import { displayName, type Server } from '../../api/types';
import { confirm } from '../../components/dialog';
import { hueFor, initials } from '../../lib/format';
import { safeImageSrc } from '../../markdown/parse';
import { navigate, paths } from '../../router';
import { loadMembers, uploadFile } from '../../state/actions';
import { deleteServer, updateServer } from '../../state/moderation';
import { useStore } from '../../state/store';
import { toast, toastError } from '../../state/toasts';
import styles from './settings.module.css';
import own from './admin.module.css';
import { Trans } from 'react-i18next';
import { t } from '../../i18n';
import '../../i18n/settings';
import { useAction } from '../../lib/use-action';

/** The images the service shows as icons. */
const ICON_TYPES = 'image/png,image/jpeg,image/gif,image/webp,image/avif';
const DESCRIPTION_MAX = 4000;

/** The server's icon, or its initials on its colour. */
export function ServerIcon({ server, size }: { server: Pick<Server, 'id' | 'name' | 'icon'>; size?: number }) {
  const src = safeImageSrc(server.icon);
  const style = { ['--hue' as string]: String(hueFor(server.id)), ...(size ? { width: size, height: size } : {}) };
  return (
    <span className={own.serverIcon} style={style} aria-hidden="true">
      {src ? <img src={src} alt="" referrerPolicy="no-referrer" /> : initials(server.name)}
    </span>
  );
}

export function OverviewSection({ server }: { server: Server }) {
  const meId = useStore((s) => s.me?.id);
  const owner = server.ownerId === meId;
  return (
    <section className={styles.settingsSection} aria-labelledby="overview-title">
      <h2 id="overview-title">{t('settings.overview.overview')}</h2>
      <p className={styles.sectionIntro}>{t('settings.overview.howServerAppearsTo', { server: server.name })}</p>
      <ServerProfile server={server} />
      <WelcomeLines server={server} />
      {owner && <TransferOwnership server={server} />}
      {owner && <DeleteServer server={server} />}
    </section>
  );
}

function ServerProfile({ server }: { server: Server }) {
  const [name, setName] = useState(server.name);
  const [description, setDescription] = useState(server.description ?? '');
  const { busy: saving, error, setError, run } = useAction();
  const icon = useAction();
  const uploading = icon.busy;
  const iconError = icon.error;
  const id = useId();

  // Another session's change arrives as SERVER_UPDATE: fields not being edited follow it.
  useEffect(() => setName(server.name), [server.name]);
  useEffect(() => setDescription(server.description ?? ''), [server.description]);

  const dirty = name.trim() !== server.name || description.trim() !== (server.description ?? '');

  const save = async (e?: FormEvent) => {
    e?.preventDefault();
    if (!name.trim()) return setError(t('settings.overview.needsName'));
    await run(async () => {
      await updateServer(server.id, { name: name.trim(), description: description.trim() || null });
      toast(t('settings.overview.serverSettingsSaved'));
    });
  };

  const reset = () => {
    setName(server.name);
    setDescription(server.description ?? '');
    setError(null);
  };

  const pick = async (file: File | undefined) => {
    if (!file) return;
    await icon.run(async () => {
      const up = await uploadFile(file);
      await updateServer(server.id, { icon: up.url });
      toast(t('settings.overview.serverIconUpdated'));
    });
  };

  const removeIcon = async () => {
    await icon.run(async () => {
      await updateServer(server.id, { icon: null });
      toast(t('settings.overview.serverIconRemoved'));
    });
  };

  return (
    <>
      <div className={own.overview}>
        <div className={own.iconColumn}>
          <ServerIcon server={server} />
          <div className={own.iconActions}>
            <label className={`button secondary small ${uploading ? own.busy : ''}`} htmlFor={`${id}-icon`}>
              {uploading
                ? t('settings.overview.uploading')
                : server.icon
                  ? t('settings.overview.changeIcon')
                  : t('settings.overview.uploadIcon')}
            </label>
            <input
              id={`${id}-icon`}
              type="file"
              accept={ICON_TYPES}
              className="visually-hidden"
              disabled={uploading}
              aria-describedby={`${id}-icon-hint`}
              onChange={(e) => {
                void pick(e.target.files?.[0]);
                e.target.value = '';
              }}
            />
            {server.icon && (
              <button type="button" className="button secondary small" onClick={() => void removeIcon()} disabled={uploading}>
                {t('settings.overview.removeIcon')}
              </button>
            )}
          </div>
          <p id={`${id}-icon-hint`} className="small-text">
            {t('settings.overview.aSquarePngJpeg')}
          </p>
          {iconError && (
            <p className="field-error" role="alert">
              {iconError}
            </p>
          )}
        </div>
        <form id={`${id}-form`} className={`stack ${own.overviewFields}`} onSubmit={save} aria-label={t('settings.overview.serverProfile')}>
          <div className="field">
            <label htmlFor={`${id}-name`} className="field-label">
              {t('settings.overview.serverName')}
            </label>
            <input
              id={`${id}-name`}
              className="input"
              value={name}
              maxLength={100}
              aria-invalid={!!error}
              onChange={(e) => setName(e.target.value)}
            />
          </div>
          <div className="field">
            <label htmlFor={`${id}-description`} className="field-label">
              {t('settings.overview.description')}
            </label>
            <textarea
              id={`${id}-description`}
              className={`input ${own.textarea}`}
              value={description}
              maxLength={DESCRIPTION_MAX}
              placeholder={t('settings.overview.whatIsThisServer')}
              aria-describedby={`${id}-description-count`}
              onChange={(e) => setDescription(e.target.value)}
            />
            <p id={`${id}-description-count`} className={`small-text ${own.counter}`}>
              {description.length} / {DESCRIPTION_MAX}
            </p>
          </div>
          {error && (
            <p className="field-error" role="alert">
              {error}
            </p>
          )}
        </form>
      </div>
      {dirty && (
        <section className={own.saveBar} aria-label={t('settings.overview.unsavedChanges')}>
          <p>{t('settings.overview.youHaveUnsavedChanges')}</p>
          <button type="button" className="button secondary small" onClick={reset} disabled={saving}>
            {t('settings.overview.reset')}
          </button>
          <button type="submit" form={`${id}-form`} className="button primary small" disabled={saving}>
            {saving ? t('settings.overview.saving') : t('settings.overview.saveChanges')}
          </button>
        </section>
      )}
    </>
  );
}

/**
 * Welcome lines (docs/api.md, "Servers"): the channel where "X joined" lines go (none by
 * default) and whether they are posted. Each change is saved at once.
 */
function WelcomeLines({ server }: { server: Server }) {
  const channels = useStore((s) => s.channels[server.id]);
  const { busy, error, run } = useAction();
  const id = useId();
  // Text channels only: a category is not a place to post.
  const text = (channels ?? []).filter((c) => c.type !== 'category');
  const channelId = server.systemChannelId ?? '';
  // The box follows the click at once; the server's answer (or a failure) settles it.
  const [asked, setAsked] = useState<boolean | null>(null);
  const on = asked ?? server.welcomeMessages !== false;
  const save = (body: { systemChannelId?: string | null; welcomeMessages?: boolean }) =>
    run(async () => {
      try {
        await updateServer(server.id, body);
        toast(t('settings.overview.serverSettingsSaved'));
      } finally {
        setAsked(null);
      }
    });
  return (
    <section className={own.panel} aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>{t('settings.overview.welcomeLines')}</h3>
      <p>{t('settings.overview.welcomeLinesHelp')}</p>
      <div className={own.inline}>
        <div className="field">
          <label htmlFor={`${id}-channel`} className="field-label">
            {t('settings.overview.systemChannel')}
          </label>
          <select
            id={`${id}-channel`}
            className="input"
            value={channelId}
            disabled={busy}
            onChange={(e) => void save({ systemChannelId: e.target.value || null })}
          >
            <option value="">{t('settings.overview.noSystemChannel')}</option>
            {text.map((c) => (
              <option key={c.id} value={c.id}>
                #{c.name}
              </option>
            ))}
          </select>
        </div>
        <label className={own.check}>
          <input
            type="checkbox"
            checked={on}
            disabled={busy || !channelId}
            onChange={(e) => {
              setAsked(e.target.checked);
              void save({ welcomeMessages: e.target.checked });
            }}
          />
          {t('settings.overview.sendWelcomeLines')}
        </label>
      </div>
      {error && (
        <p className="field-error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}

function TransferOwnership({ server }: { server: Server }) {
  const members = useStore((s) => s.members[server.id]);
  const meId = useStore((s) => s.me?.id);
  const [to, setTo] = useState('');
  const { busy, error, setError, run } = useAction();
  const id = useId();

  useEffect(() => {
    if (!members) loadMembers(server.id).catch(toastError);
  }, [members, server.id]);

  // People only: a bot cannot own a server.
  const people = (members ?? []).filter((m) => !m.bot && m.id !== meId).sort((a, b) => displayName(a).localeCompare(displayName(b)));

  const transfer = async (e: FormEvent) => {
    e.preventDefault();
    const next = people.find((m) => m.id === to);
    if (!next) return setError(t('settings.overview.chooseOwner'));
    setError(null);
    const name = displayName(next);
    const ok = await confirm({
      title: t('settings.overview.transferOwnership'),
      body: (
        <>
          <p>
            <Trans i18nKey="settings.overview.transferConfirm" values={{ name, server: server.name }} components={{ b: <strong /> }} />
          </p>
          <p>{t('settings.overview.youWillLoseYour', { name })}</p>
        </>
      ),
      confirmLabel: t('settings.overview.makeNameTheOwner', { name }),
      danger: true,
    });
    if (!ok) return;
    await run(async () => {
      await updateServer(server.id, { ownerId: next.id });
      toast(t('settings.overview.nameNowOwnsServer', { name, server: server.name }));
    });
  };

  return (
    <section className={own.panel} aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>{t('settings.overview.transferOwnership')}</h3>
      <p>{t('settings.overview.handTheServerTo')}</p>
      {members && people.length === 0 ? (
        <p className="empty-note">{t('settings.overview.thereIsNoOne')}</p>
      ) : (
        <form className={own.inline} onSubmit={transfer}>
          <div className="field">
            <label htmlFor={`${id}-to`} className="field-label">
              {t('settings.overview.newOwner')}
            </label>
            <select id={`${id}-to`} className="input" value={to} onChange={(e) => setTo(e.target.value)} aria-invalid={!!error}>
              <option value="">{t('settings.overview.chooseAMember')}</option>
              {people.map((m) => (
                <option key={m.id} value={m.id}>
                  {displayName(m)}
                </option>
              ))}
            </select>
          </div>
          <button type="submit" className="button secondary" disabled={busy || !to}>
            {t('settings.overview.transferOwnership')}
          </button>
        </form>
      )}
      {error && (
        <p className="field-error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}

function DeleteServer({ server }: { server: Server }) {
  const [typed, setTyped] = useState('');
  const { busy, error, setError, run } = useAction();
  const id = useId();
  const matches = typed.trim() === server.name.trim();

  const remove = async (e: FormEvent) => {
    e.preventDefault();
    if (!matches) return setError(t('settings.overview.typeNameToConfirm', { server: server.name }));
    await run(
      async () => {
        await deleteServer(server.id);
        toast(t('settings.overview.serverWasDeleted', { server: server.name }));
        navigate(paths.home());
      },
      { stayBusy: true },
    );
  };

  return (
    <section className={`${own.panel} ${own.danger}`} aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>{t('settings.overview.deleteServer')}</h3>
      <p>{t('settings.overview.deletingServerRemovesEvery', { server: server.name })}</p>
      <form className={own.inline} onSubmit={remove}>
        <div className="field">
          <label htmlFor={`${id}-confirm`} className="field-label">
            {t('settings.overview.typeTheServerS')}
          </label>
          <input
            id={`${id}-confirm`}
            className="input"
            value={typed}
            placeholder={server.name}
            autoComplete="off"
            spellCheck={false}
            aria-invalid={!!error}
            onChange={(e) => setTyped(e.target.value)}
          />
        </div>
        <button type="submit" className="button danger" disabled={busy || !matches}>
          {busy ? t('settings.overview.deleting') : t('settings.overview.deleteServer')}
        </button>
      </form>
      {error && (
        <p className="field-error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}
