/** One webhook in the settings table: rename, move to another channel, delete. */
import { useId, useState, type FormEvent } from 'react';
import { api, seg } from '../../api/client';
import { displayName, type Channel, type Member, type UpdateWebhookBody, type Webhook } from '../../api/types';
import { Avatar, BotBadge } from '../../components/avatar';
import { confirm } from '../../components/dialog';
import { toast, toastError } from '../../state/toasts';
import { formatDate, formatFull } from '../../lib/format';
import styles from './settings.module.css';
import { Trans } from 'react-i18next';
import { t } from '../../i18n';
import '../../i18n/settings';
import { useAction } from '../../lib/use-action';

interface WebhookRowProps {
  hook: Webhook;
  channels: Channel[];
  members: Member[];
  onUpdated: (h: Webhook) => void;
  onDeleted: (id: string) => void;
}

export function WebhookRow({ hook, channels, members, onUpdated, onDeleted }: WebhookRowProps) {
  const [renaming, setRenaming] = useState(false);
  const [name, setName] = useState(hook.name);
  const { busy, run } = useAction({ onError: toastError });
  // Re-pointing sends everything the webhook posts elsewhere: picked in the select, then
  // confirmed (a select changes on a single arrow key, which must not move the webhook).
  const [target, setTarget] = useState<string | null>(null);
  const id = useId();
  const creator = members.find((m) => m.id === hook.createdBy);
  const channelKnown = channels.some((c) => c.id === hook.channelId);

  const patch = async (body: UpdateWebhookBody, done: string) => {
    return run(async () => {
      const updated = await api.patch<Webhook>(`/webhooks/${seg(hook.id)}`, body);
      onUpdated({ ...hook, ...body, ...(updated ?? {}) });
      toast(done);
    });
  };

  const saveName = async (e: FormEvent) => {
    e.preventDefault();
    const next = name.trim();
    if (!next) return toastError(new Error('A webhook needs a name.'));
    if (next === hook.name) return setRenaming(false);
    if (await patch({ name: next }, `Webhook renamed to “${next}”.`)) setRenaming(false);
  };

  const move = async () => {
    const to = channels.find((c) => c.id === target);
    if (!to) return setTarget(null);
    const from = channels.find((c) => c.id === hook.channelId);
    const ok = await confirm({
      title: t('settings.webhooks.moveWebhook'),
      body: (
        <p>
          <Trans
            i18nKey={from ? 'settings.webhooks.moveConfirmFrom' : 'settings.webhooks.moveConfirm'}
            values={{ hook: hook.name, to: to.name, from: from?.name ?? '' }}
            components={{ b: <strong /> }}
          />
        </p>
      ),
      confirmLabel: t('settings.webhooks.moveToTo', { to: to.name }),
    });
    if (!ok) return;
    if (await patch({ channelId: to.id }, t('settings.webhooks.nowPostsTo', { hook: hook.name, channel: to.name }))) setTarget(null);
  };

  const remove = async () => {
    const ok = await confirm({
      title: t('settings.webhooks.deleteWebhook'),
      body: (
        <>
          <p>
            <Trans i18nKey="settings.webhooks.deleteConfirm" values={{ hook: hook.name }} components={{ b: <strong /> }} />
          </p>
          <p className="warning">{t('settings.webhooks.itsUrlStopsWorking')}</p>
        </>
      ),
      confirmLabel: t('settings.webhooks.deleteWebhook'),
      danger: true,
    });
    if (!ok) return;
    try {
      await api.delete(`/webhooks/${seg(hook.id)}`);
      onDeleted(hook.id);
      toast(t('settings.webhooks.webhookHookDeletedIts', { hook: hook.name }));
    } catch (err) {
      toastError(err);
    }
  };

  return (
    <tr data-webhook-id={hook.id}>
      <td data-label="Name">
        {renaming ? (
          <form className="row tight" onSubmit={saveName}>
            <label htmlFor={`${id}-rename`} className="visually-hidden">
              {t('settings.webhooks.newNameForHook', { hook: hook.name })}
            </label>
            <input
              id={`${id}-rename`}
              className="input small"
              value={name}
              maxLength={80}
              // biome-ignore lint/a11y/noAutofocus: opened by "Rename", which moves the focus into the field it shows
              autoFocus
              onChange={(e) => setName(e.target.value)}
              onKeyDown={(e) => {
                if (e.key === 'Escape') {
                  e.stopPropagation();
                  setName(hook.name);
                  setRenaming(false);
                }
              }}
            />
            <button type="submit" className="button primary small" disabled={busy}>
              {t('settings.webhooks.save')}
            </button>
            <button
              type="button"
              className="button secondary small"
              onClick={() => {
                setName(hook.name);
                setRenaming(false);
              }}
            >
              {t('settings.webhooks.cancel')}
            </button>
          </form>
        ) : (
          <span className={styles.hookName}>
            <Avatar id={hook.id} name={hook.name} src={hook.avatar} size={24} />
            <span className="webhook-name">{hook.name}</span>
            <BotBadge />
          </span>
        )}
      </td>
      <td data-label="Channel">
        <label htmlFor={`${id}-channel`} className="visually-hidden">
          {t('settings.webhooks.channelForHook', { hook: hook.name })}
        </label>
        <select
          id={`${id}-channel`}
          className="input small"
          value={target ?? hook.channelId}
          disabled={busy}
          onChange={(e) => setTarget(e.target.value === hook.channelId ? null : e.target.value)}
        >
          {!channelKnown && <option value={hook.channelId}>{t('settings.webhooks.deletedChannel')}</option>}
          {channels.map((c) => (
            <option key={c.id} value={c.id}>
              #{c.name}
            </option>
          ))}
        </select>
        {target && (
          <span className={`row tight ${styles.moveRow}`}>
            <button type="button" className="button primary small" disabled={busy} onClick={() => void move()}>
              {t('settings.webhooks.move')}
            </button>
            <button type="button" className="button secondary small" onClick={() => setTarget(null)}>
              {t('settings.webhooks.cancel')}
            </button>
          </span>
        )}
      </td>
      <td data-label="Created by">{creator ? displayName(creator) : <span className="mono small-text">{hook.createdBy}</span>}</td>
      <td data-label="Created">
        <time dateTime={hook.createdAt} title={formatFull(hook.createdAt)}>
          {formatDate(hook.createdAt)}
        </time>
      </td>
      <td className={styles.actionsCell}>
        {!renaming && (
          <button
            type="button"
            className="button secondary small"
            onClick={() => setRenaming(true)}
            aria-label={t('settings.webhooks.renameHook', { hook: hook.name })}
          >
            {t('settings.webhooks.rename')}
          </button>
        )}
        <button
          type="button"
          className="button danger small"
          onClick={() => void remove()}
          aria-label={t('settings.webhooks.deleteHook', { hook: hook.name })}
        >
          {t('settings.webhooks.delete')}
        </button>
      </td>
    </tr>
  );
}
