/** The form that creates a webhook; the parent shows the returned URL once. */
import { useId, useState, type FormEvent } from 'react';
import { api, seg } from '../../api/client';
import type { Channel, CreateWebhookBody, Server, Webhook } from '../../api/types';
import styles from './settings.module.css';
import { t } from '../../i18n';
import '../../i18n/settings';
import { useAction } from '../../lib/use-action';

export function CreateWebhookForm({
  server,
  channels,
  onCreated,
}: {
  server: Server;
  channels: Channel[];
  onCreated: (h: Webhook) => void;
}) {
  const [name, setName] = useState('');
  const [avatar, setAvatar] = useState('');
  const [channelId, setChannelId] = useState('');
  const { busy, error, setError, run } = useAction();
  const id = useId();
  const target = channels.some((c) => c.id === channelId) ? channelId : (channels[0]?.id ?? '');

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!name.trim()) return setError(t('settings.webhooks.errors.name'));
    if (!target) return setError(t('settings.webhooks.errors.noChannel'));
    await run(async () => {
      const body: CreateWebhookBody = { name: name.trim(), channelId: target };
      if (avatar.trim()) body.avatar = avatar.trim();
      const hook = await api.post<Webhook>(`/servers/${seg(server.id)}/webhooks`, body);
      onCreated(hook);
      setName('');
      setAvatar('');
    });
  };

  return (
    <form className={styles.inlineForm} onSubmit={submit} aria-label={t('settings.webhooks.createAWebhook')}>
      <div className="field">
        <label htmlFor={`${id}-name`} className="field-label">
          {t('settings.webhooks.webhookName')}
        </label>
        <input
          id={`${id}-name`}
          className="input"
          value={name}
          maxLength={80}
          placeholder={t('settings.webhooks.deployBot')}
          onChange={(e) => setName(e.target.value)}
        />
      </div>
      <div className="field">
        <label htmlFor={`${id}-channel`} className="field-label">
          {t('settings.webhooks.channel')}
        </label>
        <select id={`${id}-channel`} className="input" value={target} onChange={(e) => setChannelId(e.target.value)}>
          {channels.map((c) => (
            <option key={c.id} value={c.id}>
              #{c.name}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor={`${id}-avatar`} className="field-label">
          {t('settings.webhooks.avatarUrlOptional')}
        </label>
        <input
          id={`${id}-avatar`}
          className="input"
          type="url"
          value={avatar}
          maxLength={2048}
          placeholder={t('settings.webhooks.httpsLogoPng')}
          onChange={(e) => setAvatar(e.target.value)}
        />
      </div>
      <button type="submit" className="button primary" disabled={busy}>
        {busy ? t('settings.webhooks.creating') : t('settings.webhooks.createWebhook')}
      </button>
      {error && (
        <p className={`field-error ${styles.full}`} role="alert">
          {error}
        </p>
      )}
    </form>
  );
}
