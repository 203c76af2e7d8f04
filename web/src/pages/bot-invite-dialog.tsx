/**
 * My bots → Invite link: the bot's `/oauth2/authorize` link (as on Discord's developer
 * portal), asking for the permissions ticked here. Whoever opens it picks the server and
 * may untick any of them.
 */
import { useId, useState } from 'react';
import { BOT_DEFAULT_PERMISSIONS, P } from '@parley/protocol/permissions';
import type { Bot } from '../api/types';
import { CopyField } from '../components/copy-field';
import { Dialog } from '../components/dialog';
import dialogStyles from '../components/dialog.module.css';
import { inviteUrl } from '../lib/bot-invite';
import { PERMISSION_GROUPS } from '../lib/permission-labels';
import { t } from '../i18n';
import '../i18n/authorize';
import '../i18n/settings';
import styles from './authorize-page.module.css';

export function BotInviteDialog({ bot, onClose }: { bot: Bot; onClose: () => void }) {
  const [bits, setBits] = useState<bigint>(BOT_DEFAULT_PERMISSIONS);
  const id = useId();
  const url = inviteUrl(location.origin, bot.id, bits);
  return (
    <Dialog title={t('authorize.inviteLinkFor', { bot: bot.name })} onClose={onClose}>
      <div className={dialogStyles.dialogBody}>
        <p className="small-text">{t('authorize.inviteLinkHelp', { bot: bot.name })}</p>
        <CopyField label={t('authorize.inviteLink')} value={url} />
        {PERMISSION_GROUPS.map((g) => (
          <fieldset key={g.title} className={styles.block}>
            <legend className={styles.legend}>{g.title}</legend>
            {g.items.map((i) => (
              <label key={i.id} htmlFor={`${id}-${i.id}`} className={`check ${styles.pickerItem}`} title={i.help}>
                <input
                  id={`${id}-${i.id}`}
                  type="checkbox"
                  checked={(bits & P[i.id]) !== 0n}
                  onChange={(e) => setBits((b) => (e.target.checked ? b | P[i.id] : b & ~P[i.id]))}
                />
                {i.label}
              </label>
            ))}
          </fieldset>
        ))}
        {(bits & P.ADMINISTRATOR) !== 0n && <p className="warning">{t('authorize.adminWarning')}</p>}
        <div className={dialogStyles.dialogActions}>
          <button type="button" className="button secondary" onClick={onClose}>
            {t('authorize.close')}
          </button>
        </div>
      </div>
    </Dialog>
  );
}
