/** The Webhooks section of server settings: the one-time URL panel, the create form and the list. */
import { useCallback, useEffect, useState } from 'react';
import { api, describeError, seg } from '../../api/client';
import type { Channel, Server, Webhook } from '../../api/types';
import { CopyField } from '../../components/copy-field';
import { loadMembers } from '../../state/actions';
import { useStore } from '../../state/store';
import { CreateWebhookForm } from './create-webhook-form';
import { WebhookRow } from './webhook-row';
import styles from './settings.module.css';
import { Trans } from 'react-i18next';
import { t } from '../../i18n';
import '../../i18n/settings';

function webhookUrl(hook: Webhook): string | null {
  if (hook.url) return hook.url;
  if (hook.token) return `${location.origin}/webhooks/${encodeURIComponent(hook.id)}/${encodeURIComponent(hook.token)}`;
  return null;
}

/**
 * The same webhook under Parley's Discord layer (`PUBLIC_URL/api/webhooks/{id}/{token}`),
 * for tools that only accept a Discord webhook URL: it answers as Discord does (204).
 */
export function discordWebhookUrl(url: string): string {
  const at = url.lastIndexOf('/webhooks/');
  return at < 0 ? url : `${url.slice(0, at)}/api${url.slice(at)}`;
}

export function WebhooksSection({ server, channels, owner }: { server: Server; channels: Channel[]; owner: boolean }) {
  if (!owner) {
    return (
      <section className={styles.settingsSection} aria-labelledby="webhooks-title">
        <h2 id="webhooks-title">{t('settings.webhooks.webhooks')}</h2>
        <p className={styles.sectionIntro}>{t('settings.webhooks.ownerOnly', { server: server.name })}</p>
      </section>
    );
  }
  return <OwnerWebhooks server={server} channels={channels} />;
}

function OwnerWebhooks({ server, channels }: { server: Server; channels: Channel[] }) {
  const members = useStore((s) => s.members[server.id]);
  const [hooks, setHooks] = useState<Webhook[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [created, setCreated] = useState<Webhook | null>(null);

  const load = useCallback(async () => {
    setLoadError(null);
    try {
      setHooks(await api.get<Webhook[]>(`/servers/${seg(server.id)}/webhooks`));
    } catch (err) {
      setLoadError(describeError(err));
    }
  }, [server.id]);

  useEffect(() => {
    void load();
  }, [load]);
  useEffect(() => {
    if (!members) loadMembers(server.id).catch(() => undefined);
  }, [members, server.id]);

  const update = (hook: Webhook) =>
    setHooks((list) => (list ?? []).map((h) => (h.id === hook.id ? { ...h, ...hook, token: undefined, url: undefined } : h)));
  const remove = (id: string) => setHooks((list) => (list ?? []).filter((h) => h.id !== id));

  return (
    <section className={styles.settingsSection} aria-labelledby="webhooks-title">
      <h2 id="webhooks-title">{t('settings.webhooks.webhooks')}</h2>
      <p className={styles.sectionIntro}>
        <Trans
          i18nKey="settings.webhooks.intro"
          values={{ example: 'POST <url> {"content": "Build passed"}' }}
          components={{ code: <code /> }}
        />
      </p>
      <p className={styles.sectionIntro}>{t('settings.webhooks.onlyTheServerS')}</p>

      {created && (
        <section className={styles.secretPanel} aria-label={t('settings.webhooks.newWebhookUrl')}>
          <h3>{t('settings.webhooks.webhookCreatedCreated', { created: created.name })}</h3>
          {webhookUrl(created) ? (
            <>
              <CopyField label={t('settings.webhooks.webhookUrl')} value={webhookUrl(created)!} secret />
              <CopyField label={t('settings.webhooks.discordStyleUrl')} value={discordWebhookUrl(webhookUrl(created)!)} secret />
              <p className={styles.hint}>
                <Trans
                  i18nKey="settings.webhooks.discordHint"
                  values={{ slack: '/slack', github: '/github' }}
                  components={{ code: <code /> }}
                />
              </p>
            </>
          ) : (
            <p>{t('settings.webhooks.theServerDidNot')}</p>
          )}
          <p className="warning">
            <Trans i18nKey="settings.webhooks.urlWarning" components={{ b: <strong /> }} />
          </p>
          <button type="button" className="button secondary" onClick={() => setCreated(null)}>
            {t('settings.webhooks.iHaveCopiedIt')}
          </button>
        </section>
      )}

      <CreateWebhookForm
        server={server}
        channels={channels}
        onCreated={(hook) => {
          setCreated(hook);
          setHooks((list) => [...(list ?? []), { ...hook, token: undefined, url: undefined }]);
        }}
      />

      <h3 className={styles.subheading}>{t('settings.webhooks.existingWebhooks')}</h3>
      {loadError && (
        <p className="field-error" role="alert">
          {t('settings.webhooks.couldNotLoad', { error: loadError })}{' '}
          <button type="button" className="link-button" onClick={() => void load()}>
            {t('settings.webhooks.tryAgain')}
          </button>
        </p>
      )}
      {!hooks && !loadError && <p className="empty-note">{t('settings.webhooks.loading')}</p>}
      {hooks && hooks.length === 0 && <p className="empty-note">{t('settings.webhooks.noWebhooksYet')}</p>}
      {hooks && hooks.length > 0 && (
        <div className={styles.tableWrap}>
          <table className={`${styles.table} webhooks-table`}>
            <caption className="visually-hidden">{t('settings.webhooks.webhooksOfServer', { server: server.name })}</caption>
            <thead>
              <tr>
                <th scope="col">{t('settings.webhooks.name')}</th>
                <th scope="col">{t('settings.webhooks.channel')}</th>
                <th scope="col">{t('settings.webhooks.createdBy')}</th>
                <th scope="col">{t('settings.webhooks.created')}</th>
                <th scope="col">
                  <span className="visually-hidden">{t('settings.webhooks.actions')}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {hooks.map((h) => (
                <WebhookRow key={h.id} hook={h} channels={channels} members={members ?? []} onUpdated={update} onDeleted={remove} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
