/**
 * One channel's permissions (docs/permissions.md): the "private channel" switch with who may see it
 * (`channel-privacy.tsx`), and the overwrites for `@everyone`, roles and members, each channel
 * permission as Allow / Inherit / Deny (`channel-overwrites.tsx`). Reads the channel from the
 * store (`use-channel-permissions.ts`), so another session's change (CHANNEL_UPDATE) shows here at once.
 */
import { Trans } from 'react-i18next';
import type { Server } from '../../api/types';
import { t } from '../../i18n';
import '../../i18n/settings';
import styles from './channel-permissions.module.css';
import { ChannelOverwrites } from './channel-overwrites';
import { ChannelPrivacy } from './channel-privacy';
import { useChannelPermissions } from './use-channel-permissions';

export function ChannelPermissions({ server, channelId, onBack }: { server: Server; channelId: string; onBack: () => void }) {
  const { channel, meId, admin, channelBits, targets, membersLoaded, keepsAccess } = useChannelPermissions(server, channelId);

  if (!channel) {
    return (
      <section className={styles.editor} aria-labelledby="perm-title">
        <BackButton onBack={onBack} />
        <h2 id="perm-title">{t('settings.channelPermissions.channelPermissions')}</h2>
        <p className="empty-note">{t('settings.channelPermissions.thisChannelWasDeleted')}</p>
      </section>
    );
  }

  return (
    <section className={styles.editor} aria-labelledby="perm-title">
      <BackButton onBack={onBack} />
      <h2 id="perm-title" className={styles.title}>
        <Trans
          i18nKey="settings.channelPermissions.title"
          values={{ channel: channel.name }}
          components={{ name: <span className={styles.channelName} /> }}
        />
      </h2>
      <p className={styles.intro}>
        <Trans i18nKey="settings.channelPermissions.intro" values={{ channel: channel.name }} components={{ em: <em /> }} />
      </p>
      <ChannelPrivacy channel={channel} server={server} targets={targets} meId={meId} keepsAccess={keepsAccess} />
      <ChannelOverwrites
        channel={channel}
        server={server}
        targets={targets}
        channelBits={channelBits}
        admin={admin}
        keepsAccess={keepsAccess}
        membersLoaded={membersLoaded}
      />
    </section>
  );
}

function BackButton({ onBack }: { onBack: () => void }) {
  return (
    <button type="button" className={`button secondary small ${styles.back}`} onClick={onBack}>
      <span aria-hidden="true">←</span> {t('settings.channelPermissions.allChannels')}
    </button>
  );
}
