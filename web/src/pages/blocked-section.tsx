/**
 * Account settings, "Blocked people": who the person blocked, each with Unblock
 * (docs/api.md#direct-messages, "What a block does").
 */
import { useEffect, useId } from 'react';
import { displayName } from '../api/types';
import { Avatar } from '../components/avatar';
import { loadBlocks, unblockUser } from '../state/blocks';
import { useStore } from '../state/store';
import { toast, toastError } from '../state/toasts';
import { compareIds } from '@parley/protocol/ids';
import styles from './settings/settings.module.css';
import own from './account-page.module.css';
import { t } from '../i18n';
import '../i18n/account';

export function BlockedSection() {
  const blocked = useStore((s) => s.blocked);
  const id = useId();
  useEffect(() => {
    loadBlocks().catch(toastError);
  }, []);
  const people = Object.values(blocked ?? {}).sort((a, b) => compareIds(a.id, b.id));

  const unblock = async (userId: string, name: string) => {
    try {
      await unblockUser(userId);
      toast(t('members.unblockedName', { name }));
    } catch (err) {
      toastError(err);
    }
  };

  return (
    <section className={styles.settingsSection} id="blocked" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{t('account.blocked.title')}</h2>
      <p className={styles.sectionIntro}>{t('account.blocked.intro')}</p>
      {!blocked && <p className="empty-note">{t('account.loading')}</p>}
      {blocked && people.length === 0 && <p className="empty-note">{t('account.blocked.none')}</p>}
      {people.length > 0 && (
        <ul className={own.blockedList} aria-label={t('account.blocked.list')}>
          {people.map((u) => {
            const name = displayName(u);
            return (
              <li key={u.id} className={own.blockedRow} data-blocked-id={u.id}>
                <Avatar id={u.id} name={name} src={u.avatar} size={32} />
                <span className={own.blockedName}>{name}</span>
                <button
                  type="button"
                  className="button secondary small"
                  aria-label={t('account.blocked.unblockName', { name })}
                  onClick={() => void unblock(u.id, name)}
                >
                  {t('account.blocked.unblock')}
                </button>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
