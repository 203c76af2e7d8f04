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
        <h2 id="webhooks-title">Webhooks</h2>
        <p className={styles.sectionIntro}>
          Only the server’s owner can create, change or delete webhooks: no role grants it, not even Administrator. Ask the owner of{' '}
          {server.name} for a webhook URL.
        </p>
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
    if (!members) loadMembers(server.id).catch(() => undefined);
  }, [load]);

  const update = (hook: Webhook) =>
    setHooks((list) => (list ?? []).map((h) => (h.id === hook.id ? { ...h, ...hook, token: undefined, url: undefined } : h)));
  const remove = (id: string) => setHooks((list) => (list ?? []).filter((h) => h.id !== id));

  return (
    <section className={styles.settingsSection} aria-labelledby="webhooks-title">
      <h2 id="webhooks-title">Webhooks</h2>
      <p className={styles.sectionIntro}>
        A webhook lets another service post into a channel with a simple HTTP request, such as{' '}
        <code>{'POST <url> {"content": "Build passed"}'}</code>. Its messages show the webhook’s name with a BOT badge. Anyone who has the
        URL can post, so keep it secret.
      </p>
      <p className={styles.sectionIntro}>
        Only the server’s owner can create, change or delete webhooks: no role grants it, not even Administrator.
      </p>

      {created && (
        <div className={styles.secretPanel} role="region" aria-label="New webhook URL">
          <h3>Webhook “{created.name}” created</h3>
          {webhookUrl(created) ? (
            <>
              <CopyField label="Webhook URL" value={webhookUrl(created)!} secret />
              <CopyField label="Discord-style URL" value={discordWebhookUrl(webhookUrl(created)!)} secret />
              <p className={styles.hint}>
                Paste the Discord-style URL into tools that expect a Discord webhook (Grafana, Uptime Kuma, discord.js, GitHub Actions for
                Discord). Slack tools take the first URL with <code>/slack</code> added; GitHub takes it with <code>/github</code>.
              </p>
            </>
          ) : (
            <p>The server did not return a URL.</p>
          )}
          <p className="warning">
            <strong>Copy the URL now, in the form your tool needs. You will not see it again.</strong> Parley keeps only a fingerprint of
            its secret token. If you lose it, delete this webhook and create a new one.
          </p>
          <button type="button" className="button secondary" onClick={() => setCreated(null)}>
            I have copied it
          </button>
        </div>
      )}

      <CreateWebhookForm
        server={server}
        channels={channels}
        onCreated={(hook) => {
          setCreated(hook);
          setHooks((list) => [...(list ?? []), { ...hook, token: undefined, url: undefined }]);
        }}
      />

      <h3 className={styles.subheading}>Existing webhooks</h3>
      {loadError && (
        <p className="field-error" role="alert">
          Could not load webhooks: {loadError}{' '}
          <button type="button" className="link-button" onClick={() => void load()}>
            Try again
          </button>
        </p>
      )}
      {!hooks && !loadError && <p className="empty-note">Loading…</p>}
      {hooks && hooks.length === 0 && <p className="empty-note">No webhooks yet.</p>}
      {hooks && hooks.length > 0 && (
        <div className={styles.tableWrap}>
          <table className={`${styles.table} webhooks-table`}>
            <caption className="visually-hidden">Webhooks of {server.name}</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Channel</th>
                <th scope="col">Created by</th>
                <th scope="col">Created</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
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
