/**
 * One channel's permissions (docs/permissions.md): the "private channel" switch with who may see it
 * (`channel-privacy.tsx`), and the overwrites for `@everyone`, roles and members, each channel
 * permission as Allow / Inherit / Deny (`channel-overwrites.tsx`). Reads the channel from the
 * store (`use-channel-permissions.ts`), so another session's change (CHANNEL_UPDATE) shows here at once.
 */
import { Trans } from 'react-i18next';
import type { Channel, Server } from '../../api/types';
import { t } from '../../i18n';
import { isSynced } from '../../lib/channel-order';
import { useAction } from '../../lib/use-action';
import { updateChannel } from '../../state/moderation';
import { useStore } from '../../state/store';
import { toast, toastError } from '../../state/toasts';
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
      {channel.parentId && <SyncLine channel={channel} serverId={server.id} />}
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

/**
 * Whether the channel's overwrites are its category's ("Synced with Info"), and when not a
 * "Sync now" that copies them (docs/api.md#categories).
 */
function SyncLine({ channel, serverId }: { channel: Channel; serverId: string }) {
  const category = useStore((s) => s.categories[serverId]?.find((c) => c.id === channel.parentId));
  const { busy, run } = useAction({ onError: toastError });
  if (!category) return null;
  const synced = isSynced(channel, category);
  const sync = () =>
    run(async () => {
      await updateChannel(channel.id, { syncPermissions: true });
      toast(t('settings.channelPermissions.syncedToast', { category: category.name }));
    });
  return (
    <p className={styles.sync} data-synced={synced ? '' : undefined}>
      <span>
        {synced
          ? t('settings.channelPermissions.syncedWith', { category: category.name })
          : t('settings.channelPermissions.notSyncedWith', { category: category.name })}
      </span>
      {!synced && (
        <button type="button" className="button secondary small" onClick={() => void sync()} disabled={busy}>
          {t('settings.channelPermissions.syncNow')}
        </button>
      )}
    </p>
  );
}

function BackButton({ onBack }: { onBack: () => void }) {
  return (
    <button type="button" className={`button secondary small ${styles.back}`} onClick={onBack}>
      <span aria-hidden="true">←</span> {t('settings.channelPermissions.allChannels')}
    </button>
  );
}
