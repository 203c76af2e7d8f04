/**
 * Account settings, "Notifications": desktop notifications in this browser (the
 * permission, asked for only on a click), and who may open a DM with the person.
 */
import { useEffect, useId } from 'react';
import {
  type PermissionState,
  requestNotificationPermission,
  showNotification,
  useNotificationPermission,
} from '../lib/desktop-notifications';
import { loadSettings, updateSettings } from '../state/conversations';
import { useStore } from '../state/store';
import { toastError } from '../state/toasts';
import { paths } from '../router';
import styles from './settings/settings.module.css';
import own from './account-page.module.css';
import { Trans } from 'react-i18next';
import { t } from '../i18n';
import '../i18n/account';
import { useAction } from '../lib/use-action';

const stateText = (state: PermissionState): string => t(`account.notifications.state.${state}`);

export function NotificationsSection() {
  const permission = useNotificationPermission();
  const settings = useStore((s) => s.settings);
  const asking = useAction({ onError: toastError });
  const saving = useAction({ onError: toastError });
  const id = useId();

  useEffect(() => {
    if (!settings) loadSettings().catch(toastError);
  }, [settings]);

  const enable = async () => {
    await asking.run(async () => {
      await requestNotificationPermission();
    });
  };

  const test = () =>
    showNotification({
      title: t('titles.app'),
      body: t('account.notifications.testBody'),
      tag: 'parley-test',
      icon: '/favicon.svg',
      path: paths.account(),
    });

  return (
    <section className={styles.settingsSection} id="notifications" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{t('account.notifications.notifications')}</h2>
      <p className={styles.sectionIntro}>{t('account.notifications.parleyNotifiesYouOf')}</p>
      <div className={`stack ${styles.cardForm} ${own.narrow}`}>
        <p className={own.permission} data-permission={permission} role="status">
          <span className={own.permissionDot} aria-hidden="true" />
          <span>
            <strong>{t('account.notifications.desktopNotifications')}</strong>
            <br />
            <span>{stateText(permission)}</span>
          </span>
        </p>
        {permission === 'denied' && (
          <p className={`hint ${own.note}`}>
            <Trans i18nKey="account.notifications.blockedHelp" components={{ b: <strong /> }} />
          </p>
        )}
        {permission === 'default' && (
          <div className="row">
            <button type="button" className="button primary" onClick={() => void enable()} disabled={asking.busy}>
              {asking.busy ? t('account.notifications.waitingForYourBrowser') : t('account.notifications.enableDesktopNotifications')}
            </button>
          </div>
        )}
        {permission === 'granted' && (
          <div className="row">
            <button type="button" className="button secondary" onClick={test}>
              {t('account.notifications.sendATestNotification')}
            </button>
          </div>
        )}
      </div>
      <div className={`stack ${styles.cardForm} ${own.narrow} ${own.spaced}`}>
        <label className="check">
          <input
            type="checkbox"
            checked={settings?.allowDmsFromServerMembers ?? true}
            disabled={!settings || saving.busy}
            onChange={async (e) => {
              const allow = e.currentTarget.checked;
              await saving.run(async () => {
                await updateSettings({ allowDmsFromServerMembers: allow });
              });
            }}
          />
          {t('account.notifications.allowDirectMessagesFrom')}
        </label>
        <p className={`hint ${own.note}`}>{t('account.notifications.turnedOffPeopleCan')}</p>
      </div>
    </section>
  );
}
