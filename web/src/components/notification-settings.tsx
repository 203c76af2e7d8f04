/**
 * A server's notification settings (`PATCH /users/@me/settings`): the level (all messages,
 * mentions only, nothing), muting, and each channel's own setting over the server's.
 * Each change is saved at once, as it is made.
 */
import { useEffect, useId } from 'react';
import type { Server, UpdateSettingsBody } from '../api/types';
import { isPrivate } from '../lib/overwrites';
import { type NotifyLevel, loadSettings, notifyRule, updateSettings } from '../state/conversations';
import { useStore } from '../state/store';
import { toastError } from '../state/toasts';
import { Dialog } from './dialog';
import { LockIcon } from './lock-icon';
import dialogStyles from './dialog.module.css';
import styles from './notification-settings.module.css';
import { t } from '../i18n';
import { useAction } from '../lib/use-action';

const LEVELS: { value: NotifyLevel; readonly label: string; readonly hint: string }[] = (['all', 'mentions', 'none'] as const).map(
  (value) => ({
    value,
    get label() {
      return t(`notificationSettings.level.${value}.label`);
    },
    get hint() {
      return t(`notificationSettings.level.${value}.hint`);
    },
  }),
);

const levelName = (l: NotifyLevel) => LEVELS.find((x) => x.value === l)?.label ?? l;

interface Props {
  server: Server;
  /** Opened from a channel's menu: that channel's row is brought into view. */
  focusChannelId?: string | null;
  onClose: () => void;
}

export function NotificationSettingsDialog({ server, focusChannelId, onClose }: Props) {
  const settings = useStore((s) => s.settings);
  const channels = useStore((s) => s.channels[server.id]) ?? [];
  const { busy, run } = useAction({ onError: toastError });
  const id = useId();
  const own = settings?.servers?.[server.id];
  const level: NotifyLevel = own?.level ?? 'mentions';
  const muted = !!own?.muted;

  useEffect(() => {
    if (!settings) loadSettings().catch(toastError);
  }, [settings]);

  useEffect(() => {
    if (!focusChannelId) return;
    const row = document.querySelector<HTMLElement>(`[data-notify-channel="${CSS.escape(focusChannelId)}"]`);
    row?.scrollIntoView({ block: 'center' });
    row?.querySelector<HTMLElement>('select')?.focus();
  }, [focusChannelId]);

  const save = async (...bodies: UpdateSettingsBody[]) => {
    await run(async () => {
      for (const body of bodies) await updateSettings(body);
    });
  };

  const setChannel = (channelId: string, change: { level?: NotifyLevel | 'inherit'; muted?: boolean }) => {
    const current = own?.channels?.[channelId] ?? {};
    const nextLevel = change.level === undefined ? current.level : change.level === 'inherit' ? undefined : change.level;
    const nextMuted = change.muted === undefined ? !!current.muted : change.muted;
    const entry = { ...(nextLevel ? { level: nextLevel } : {}), ...(nextMuted ? { muted: true } : {}) };
    const clear: UpdateSettingsBody = { servers: { [server.id]: { channels: { [channelId]: null } } } };
    // A field cannot be removed alone: the channel's entry is cleared, then written again.
    if (!Object.keys(entry).length) return save(clear);
    if (change.level === 'inherit' || (change.muted === false && current.muted)) {
      return save(clear, { servers: { [server.id]: { channels: { [channelId]: entry } } } });
    }
    return save({ servers: { [server.id]: { channels: { [channelId]: entry } } } });
  };

  return (
    <Dialog title={t('notificationSettings.notificationsForServer', { server: server.name })} onClose={onClose} className={styles.dialog}>
      <div className={`${dialogStyles.dialogBody} ${styles.body}`} aria-busy={busy || !settings}>
        <label className={`check ${styles.mute}`}>
          <input
            type="checkbox"
            checked={muted}
            disabled={busy || !settings}
            onChange={(e) => void save({ servers: { [server.id]: { muted: e.currentTarget.checked } } })}
          />
          <span>
            <strong>{t('notificationSettings.muteServer', { server: server.name })}</strong>
            <span className={styles.hint}>{t('notificationSettings.noNotificationsAndNo')}</span>
          </span>
        </label>

        <fieldset className={styles.levels} disabled={busy || !settings || muted}>
          <legend className="field-label">{t('notificationSettings.notifyMeAbout')}</legend>
          {LEVELS.map((l) => (
            <label key={l.value} className={`check ${styles.level}`}>
              <input
                type="radio"
                name={`${id}-level`}
                value={l.value}
                checked={level === l.value}
                onChange={() => void save({ servers: { [server.id]: { level: l.value } } })}
              />
              <span>
                {l.label}
                <span className={styles.hint}>{l.hint}</span>
              </span>
            </label>
          ))}
        </fieldset>

        {channels.length > 0 && (
          <section aria-labelledby={`${id}-channels`}>
            <h3 id={`${id}-channels`} className="field-label">
              {t('notificationSettings.channelOverrides')}
            </h3>
            <ul className={styles.channels}>
              {channels.map((c) => {
                const mine = own?.channels?.[c.id];
                const effective = notifyRule(settings, server.id, c.id);
                return (
                  <li
                    key={c.id}
                    className={focusChannelId === c.id ? `${styles.channel} ${styles.focused}` : styles.channel}
                    data-notify-channel={c.id}
                  >
                    <span className={styles.channelName}>
                      <span className={styles.channelHash} aria-hidden="true">
                        {isPrivate(c) ? <LockIcon size={13} /> : '#'}
                      </span>
                      {c.name}
                    </span>
                    <select
                      className="input small"
                      aria-label={t('notificationSettings.notificationsForC', { c: c.name })}
                      value={mine?.level ?? 'inherit'}
                      disabled={busy || !settings}
                      onChange={(e) => setChannel(c.id, { level: e.currentTarget.value as NotifyLevel | 'inherit' })}
                    >
                      <option value="inherit">{t('notificationSettings.serverDefaultLevelname', { levelName: levelName(level) })}</option>
                      {LEVELS.map((l) => (
                        <option key={l.value} value={l.value}>
                          {l.label}
                        </option>
                      ))}
                    </select>
                    <label
                      className="check"
                      title={effective.muted && !mine?.muted ? t('notificationSettings.theWholeServerIs') : undefined}
                    >
                      <input
                        type="checkbox"
                        checked={!!mine?.muted}
                        disabled={busy || !settings}
                        onChange={(e) => setChannel(c.id, { muted: e.currentTarget.checked })}
                      />
                      {t('notificationSettings.mute')}
                      <span className="visually-hidden"> #{c.name}</span>
                    </label>
                  </li>
                );
              })}
            </ul>
          </section>
        )}
        <footer className={dialogStyles.dialogActions}>
          <button type="button" className="button primary" onClick={onClose}>
            {t('notificationSettings.done')}
          </button>
        </footer>
      </div>
    </Dialog>
  );
}
