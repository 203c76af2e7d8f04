import { useCallback, useEffect, useId, useState, type FormEvent } from 'react';
import { api, describeError, seg } from '../api/client';
import { ALL_PERMISSIONS, displayName, type Bot, type Channel, type Member, type Permission, type Server, type Webhook } from '../api/types';
import { Avatar, BotBadge } from '../components/avatar';
import { CopyField } from '../components/copy-field';
import { confirm } from '../components/dialog';
import { ErrorBoundary } from '../components/error-boundary';
import { CloseIcon } from '../components/icons';
import { normaliseChannelName } from '../components/forms';
import { ServerRail } from '../components/server-rail';
import { createChannel, createInvite, deleteChannel, loadChannels, loadMembers, renameChannel } from '../state/actions';
import { useStore } from '../state/store';
import { toast, toastError } from '../state/toasts';
import { formatDate, formatFull } from '../lib/format';
import { Link, navigate, paths } from '../router';

const TABS = [
  { id: 'webhooks', label: 'Webhooks' },
  { id: 'bots', label: 'Bots' },
  { id: 'channels', label: 'Channels' },
  { id: 'invites', label: 'Invites' },
] as const;

type TabId = (typeof TABS)[number]['id'];

const PERMISSION_LABELS: Record<Permission, string> = {
  READ_MESSAGES: 'Read messages',
  SEND_MESSAGES: 'Send messages',
  ADD_REACTIONS: 'Add reactions',
  ATTACH_FILES: 'Attach files',
};

/** Server settings: only the owner ever reaches the content. */
export function SettingsPage({ serverId, tab }: { serverId: string; tab: string | undefined }) {
  const server = useStore((s) => s.servers[serverId]);
  const meId = useStore((s) => s.me?.id);
  const channels = useStore((s) => s.channels[serverId]);
  const active: TabId = (TABS.find((t) => t.id === tab)?.id ?? 'webhooks') as TabId;

  useEffect(() => {
    if (server && !channels) loadChannels(serverId).catch(toastError);
  }, [server, channels, serverId]);

  useEffect(() => {
    if (server) document.title = `Settings · ${server.name} · Parley`;
  }, [server]);

  const back = server ? paths.server(serverId) : paths.home();

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const t = e.target;
      const inField = t instanceof HTMLInputElement || t instanceof HTMLSelectElement || t instanceof HTMLTextAreaElement;
      if (e.key === 'Escape' && !e.defaultPrevented && !inField && !document.querySelector('dialog[open]')) navigate(back);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [back]);

  if (!server || !meId) {
    return (
      <div className="app-frame">
        <ServerRail activeServerId={null} />
        <main className="center-page">
          <div className="card">
            <p>{meId ? 'This server was not found.' : 'Loading…'}</p>
          </div>
        </main>
      </div>
    );
  }

  if (server.ownerId !== meId) {
    return (
      <div className="app-frame">
        <ServerRail activeServerId={serverId} />
        <main className="center-page">
          <div className="card">
            <h1>Not available</h1>
            <p>Only the owner of {server.name} can change its settings.</p>
            <Link to={back} className="button primary">
              Back to {server.name}
            </Link>
          </div>
        </main>
      </div>
    );
  }

  return (
    <div className="app-frame settings-frame">
      <ServerRail activeServerId={serverId} />
      <nav className="settings-nav" aria-label="Settings sections">
        <h1 className="settings-server" title={server.name}>
          {server.name}
        </h1>
        <p className="settings-caption">Server settings</p>
        <ul>
          {TABS.map((t) => (
            <li key={t.id}>
              <Link to={paths.settings(serverId, t.id)} className={`settings-tab${t.id === active ? ' active' : ''}`} aria-current={t.id === active ? 'page' : undefined}>
                {t.label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <main className="settings-content">
        <div className="settings-top">
          <Link to={back} className="button secondary small close-settings" aria-label="Close settings and return to chat">
            <CloseIcon /> Close <kbd>Esc</kbd>
          </Link>
        </div>
        <ErrorBoundary resetKey={active}>
          {active === 'webhooks' && <WebhooksTab server={server} channels={channels ?? []} />}
          {active === 'bots' && <BotsTab server={server} />}
          {active === 'channels' && <ChannelsTab server={server} channels={channels ?? []} />}
          {active === 'invites' && <InvitesTab server={server} />}
        </ErrorBoundary>
      </main>
    </div>
  );
}

// ---------------------------------------------------------------------------
// Webhooks

function webhookUrl(hook: Webhook): string | null {
  if (hook.url) return hook.url;
  if (hook.token) return `${location.origin}/webhooks/${encodeURIComponent(hook.id)}/${encodeURIComponent(hook.token)}`;
  return null;
}

function WebhooksTab({ server, channels }: { server: Server; channels: Channel[] }) {
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

  const update = (hook: Webhook) => setHooks((list) => (list ?? []).map((h) => (h.id === hook.id ? { ...h, ...hook, token: undefined, url: undefined } : h)));
  const remove = (id: string) => setHooks((list) => (list ?? []).filter((h) => h.id !== id));

  return (
    <section className="settings-section" aria-labelledby="webhooks-title">
      <h2 id="webhooks-title">Webhooks</h2>
      <p className="section-intro">
        A webhook lets another service post into a channel with a simple HTTP request, such as <code>{'POST <url> {"content": "Build passed"}'}</code>.
        Its messages show the webhook’s name with a BOT badge. Anyone who has the URL can post, so keep it secret.
      </p>

      {created && (
        <div className="secret-panel" role="region" aria-label="New webhook URL">
          <h3>Webhook “{created.name}” created</h3>
          {webhookUrl(created) ? <CopyField label="Webhook URL" value={webhookUrl(created)!} secret /> : <p>The server did not return a URL.</p>}
          <p className="warning">
            <strong>Copy this URL now. You will not see it again.</strong> Parley keeps only a fingerprint of its secret token. If you lose it,
            delete this webhook and create a new one.
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

      <h3 className="subheading">Existing webhooks</h3>
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
        <div className="table-wrap">
          <table className="table webhooks-table">
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

function CreateWebhookForm({ server, channels, onCreated }: { server: Server; channels: Channel[]; onCreated: (h: Webhook) => void }) {
  const [name, setName] = useState('');
  const [avatar, setAvatar] = useState('');
  const [channelId, setChannelId] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const id = useId();
  const target = channels.some((c) => c.id === channelId) ? channelId : (channels[0]?.id ?? '');

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!name.trim()) return setError('Give the webhook a name: it is shown as the author of its messages.');
    if (!target) return setError('Create a channel first: a webhook posts into one channel.');
    setBusy(true);
    setError(null);
    try {
      const body: { name: string; channelId: string; avatar?: string } = { name: name.trim(), channelId: target };
      if (avatar.trim()) body.avatar = avatar.trim();
      const hook = await api.post<Webhook>(`/servers/${seg(server.id)}/webhooks`, body);
      onCreated(hook);
      setName('');
      setAvatar('');
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="inline-form" onSubmit={submit} aria-label="Create a webhook">
      <div className="field">
        <label htmlFor={`${id}-name`} className="field-label">
          Webhook name
        </label>
        <input id={`${id}-name`} className="input" value={name} maxLength={80} placeholder="Deploy bot" onChange={(e) => setName(e.target.value)} />
      </div>
      <div className="field">
        <label htmlFor={`${id}-channel`} className="field-label">
          Channel
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
          Avatar URL (optional)
        </label>
        <input
          id={`${id}-avatar`}
          className="input"
          type="url"
          value={avatar}
          maxLength={2048}
          placeholder="https://…/logo.png"
          onChange={(e) => setAvatar(e.target.value)}
        />
      </div>
      <button type="submit" className="button primary" disabled={busy}>
        {busy ? 'Creating…' : 'Create webhook'}
      </button>
      {error && (
        <p className="field-error full" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}

interface WebhookRowProps {
  hook: Webhook;
  channels: Channel[];
  members: Member[];
  onUpdated: (h: Webhook) => void;
  onDeleted: (id: string) => void;
}

function WebhookRow({ hook, channels, members, onUpdated, onDeleted }: WebhookRowProps) {
  const [renaming, setRenaming] = useState(false);
  const [name, setName] = useState(hook.name);
  const [busy, setBusy] = useState(false);
  const id = useId();
  const creator = members.find((m) => m.id === hook.createdBy);
  const channelKnown = channels.some((c) => c.id === hook.channelId);

  const patch = async (body: { name?: string; channelId?: string }, done: string) => {
    setBusy(true);
    try {
      const updated = await api.patch<Webhook>(`/webhooks/${seg(hook.id)}`, body);
      onUpdated({ ...hook, ...body, ...(updated ?? {}) });
      toast(done);
      return true;
    } catch (err) {
      toastError(err);
      return false;
    } finally {
      setBusy(false);
    }
  };

  const saveName = async (e: FormEvent) => {
    e.preventDefault();
    const next = name.trim();
    if (!next) return toastError(new Error('A webhook needs a name.'));
    if (next === hook.name) return setRenaming(false);
    if (await patch({ name: next }, `Webhook renamed to “${next}”.`)) setRenaming(false);
  };

  const remove = async () => {
    const ok = await confirm({
      title: 'Delete webhook',
      body: (
        <>
          <p>
            Delete the webhook <strong>{hook.name}</strong>?
          </p>
          <p className="warning">
            Its URL stops working at once, and a deleted webhook cannot be restored. Anything still posting to it will get errors until you give it
            a new webhook’s URL.
          </p>
        </>
      ),
      confirmLabel: 'Delete webhook',
      danger: true,
    });
    if (!ok) return;
    try {
      await api.delete(`/webhooks/${seg(hook.id)}`);
      onDeleted(hook.id);
      toast(`Webhook “${hook.name}” deleted. Its URL no longer works.`);
    } catch (err) {
      toastError(err);
    }
  };

  return (
    <tr data-webhook-id={hook.id}>
      <td>
        {renaming ? (
          <form className="row tight" onSubmit={saveName}>
            <label htmlFor={`${id}-rename`} className="visually-hidden">
              New name for {hook.name}
            </label>
            <input
              id={`${id}-rename`}
              className="input small"
              value={name}
              maxLength={80}
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
              Save
            </button>
            <button
              type="button"
              className="button secondary small"
              onClick={() => {
                setName(hook.name);
                setRenaming(false);
              }}
            >
              Cancel
            </button>
          </form>
        ) : (
          <span className="hook-name">
            <Avatar id={hook.id} name={hook.name} src={hook.avatar} size={24} />
            <span className="webhook-name">{hook.name}</span>
            <BotBadge />
          </span>
        )}
      </td>
      <td>
        <label htmlFor={`${id}-channel`} className="visually-hidden">
          Channel for {hook.name}
        </label>
        <select
          id={`${id}-channel`}
          className="input small"
          value={hook.channelId}
          disabled={busy}
          onChange={(e) => {
            const target = channels.find((c) => c.id === e.target.value);
            void patch({ channelId: e.target.value }, `“${hook.name}” now posts to #${target?.name ?? 'channel'}.`);
          }}
        >
          {!channelKnown && <option value={hook.channelId}>(deleted channel)</option>}
          {channels.map((c) => (
            <option key={c.id} value={c.id}>
              #{c.name}
            </option>
          ))}
        </select>
      </td>
      <td>{creator ? displayName(creator) : <span className="mono small-text">{hook.createdBy}</span>}</td>
      <td>
        <time dateTime={hook.createdAt} title={formatFull(hook.createdAt)}>
          {formatDate(hook.createdAt)}
        </time>
      </td>
      <td className="actions-cell">
        {!renaming && (
          <button type="button" className="button secondary small" onClick={() => setRenaming(true)} aria-label={`Rename ${hook.name}`}>
            Rename
          </button>
        )}
        <button type="button" className="button danger small" onClick={() => void remove()} aria-label={`Delete ${hook.name}`}>
          Delete
        </button>
      </td>
    </tr>
  );
}

// ---------------------------------------------------------------------------
// Bots

function PermissionBoxes({ value, onChange, label, disabled }: { value: Permission[]; onChange: (p: Permission[]) => void; label: string; disabled?: boolean }) {
  const id = useId();
  return (
    <fieldset className="permissions" disabled={disabled}>
      <legend className="visually-hidden">{label}</legend>
      {ALL_PERMISSIONS.map((p) => (
        <label key={p} htmlFor={`${id}-${p}`} className="check">
          <input
            id={`${id}-${p}`}
            type="checkbox"
            checked={value.includes(p)}
            onChange={(e) => onChange(e.target.checked ? ALL_PERMISSIONS.filter((x) => x === p || value.includes(x)) : value.filter((x) => x !== p))}
          />
          {PERMISSION_LABELS[p]}
        </label>
      ))}
    </fieldset>
  );
}

function BotsTab({ server }: { server: Server }) {
  const members = useStore((s) => s.members[server.id]);
  const [myBots, setMyBots] = useState<Bot[]>([]);
  const [botId, setBotId] = useState('');
  const [perms, setPerms] = useState<Permission[]>([...ALL_PERMISSIONS]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const id = useId();

  useEffect(() => {
    loadMembers(server.id).catch(toastError);
    api.get<Bot[]>('/bots').then(setMyBots).catch(() => undefined);
  }, [server.id]);

  const bots = (members ?? []).filter((m) => m.bot);

  const add = async (e: FormEvent) => {
    e.preventDefault();
    const target = botId.trim();
    if (!target) return setError('Enter the id of the bot to add. Bot owners find it on their “My bots” page.');
    setBusy(true);
    setError(null);
    try {
      await api.post(`/servers/${seg(server.id)}/bots`, { botId: target, permissions: perms });
      await loadMembers(server.id);
      setBotId('');
      toast('Bot added to the server.');
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="settings-section" aria-labelledby="bots-title">
      <h2 id="bots-title">Bots</h2>
      <p className="section-intro">
        Bots read and post messages through the API with their own token. Add one by its id and choose what it may do here.
      </p>
      <form className="stack card-form" onSubmit={add} aria-label="Add a bot">
        <div className="field">
          <label htmlFor={`${id}-bot`} className="field-label">
            Bot id
          </label>
          <input
            id={`${id}-bot`}
            className="input mono"
            value={botId}
            list={`${id}-mine`}
            placeholder="Paste a bot id"
            spellCheck={false}
            onChange={(e) => setBotId(e.target.value)}
          />
          <datalist id={`${id}-mine`}>
            {myBots.map((b) => (
              <option key={b.id} value={b.id}>
                {b.name}
              </option>
            ))}
          </datalist>
        </div>
        <div className="field">
          <span className="field-label" id={`${id}-perms`}>
            Permissions
          </span>
          <PermissionBoxes value={perms} onChange={setPerms} label="Permissions for the new bot" />
        </div>
        {error && (
          <p className="field-error" role="alert">
            {error}
          </p>
        )}
        <div>
          <button type="submit" className="button primary" disabled={busy}>
            {busy ? 'Adding…' : 'Add bot'}
          </button>
        </div>
      </form>

      <h3 className="subheading">Bots in this server</h3>
      {!members && <p className="empty-note">Loading…</p>}
      {members && bots.length === 0 && <p className="empty-note">No bots yet.</p>}
      <ul className="bot-rows">
        {bots.map((b) => (
          <BotRow key={b.id} server={server} bot={b} />
        ))}
      </ul>
    </section>
  );
}

function BotRow({ server, bot }: { server: Server; bot: Member }) {
  const initial = bot.permissions ?? [...ALL_PERMISSIONS];
  const [perms, setPerms] = useState<Permission[]>(initial);
  const [busy, setBusy] = useState(false);
  const dirty = [...perms].sort().join() !== [...initial].sort().join();
  const name = displayName(bot);

  useEffect(() => setPerms(bot.permissions ?? [...ALL_PERMISSIONS]), [bot.permissions]);

  const save = async () => {
    setBusy(true);
    try {
      await api.patch(`/servers/${seg(server.id)}/bots/${seg(bot.id)}`, { permissions: perms });
      await loadMembers(server.id);
      toast(`Permissions of ${name} saved.`);
    } catch (err) {
      toastError(err);
    } finally {
      setBusy(false);
    }
  };

  const remove = async () => {
    const ok = await confirm({
      title: 'Remove bot',
      body: <p>Remove {name} from {server.name}? It will no longer read or post here. You can add it again later.</p>,
      confirmLabel: 'Remove bot',
      danger: true,
    });
    if (!ok) return;
    try {
      await api.delete(`/servers/${seg(server.id)}/bots/${seg(bot.id)}`);
      await loadMembers(server.id);
      toast(`${name} removed.`);
    } catch (err) {
      toastError(err);
    }
  };

  return (
    <li className="bot-row" data-bot-id={bot.id}>
      <div className="bot-row-head">
        <Avatar id={bot.id} name={name} src={bot.avatar} size={32} />
        <div>
          <div className="bot-name">
            {name} <BotBadge />
          </div>
          <div className="mono small-text">{bot.id}</div>
        </div>
      </div>
      <PermissionBoxes value={perms} onChange={setPerms} label={`Permissions of ${name}`} disabled={busy} />
      <div className="row">
        <button type="button" className="button primary small" disabled={!dirty || busy} onClick={() => void save()}>
          Save permissions
        </button>
        <button type="button" className="button danger small" onClick={() => void remove()} aria-label={`Remove ${name} from the server`}>
          Remove
        </button>
      </div>
    </li>
  );
}

// ---------------------------------------------------------------------------
// Channels

function ChannelsTab({ server, channels }: { server: Server; channels: Channel[] }) {
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const id = useId();

  const create = async (e: FormEvent) => {
    e.preventDefault();
    const n = normaliseChannelName(name);
    if (!n) return setError('Enter a channel name.');
    setBusy(true);
    setError(null);
    try {
      await createChannel(server.id, n);
      setName('');
      toast(`#${n} created.`);
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="settings-section" aria-labelledby="channels-title">
      <h2 id="channels-title">Channels</h2>
      <form className="inline-form" onSubmit={create} aria-label="Create a channel">
        <div className="field">
          <label htmlFor={`${id}-new`} className="field-label">
            New channel name
          </label>
          <input id={`${id}-new`} className="input" value={name} maxLength={100} placeholder="announcements" onChange={(e) => setName(e.target.value)} />
        </div>
        <button type="submit" className="button primary" disabled={busy}>
          Create channel
        </button>
        {error && (
          <p className="field-error full" role="alert">
            {error}
          </p>
        )}
      </form>
      <ul className="channel-rows">
        {channels.map((c) => (
          <ChannelRow key={c.id} channel={c} />
        ))}
      </ul>
    </section>
  );
}

function ChannelRow({ channel }: { channel: Channel }) {
  const [name, setName] = useState(channel.name);
  const [busy, setBusy] = useState(false);
  const id = useId();
  useEffect(() => setName(channel.name), [channel.name]);

  const save = async (e: FormEvent) => {
    e.preventDefault();
    const n = normaliseChannelName(name);
    if (!n || n === channel.name) return;
    setBusy(true);
    try {
      await renameChannel(channel, n);
      toast(`Channel renamed to #${n}.`);
    } catch (err) {
      toastError(err);
    } finally {
      setBusy(false);
    }
  };

  const remove = async () => {
    const ok = await confirm({
      title: 'Delete channel',
      body: (
        <p>
          Delete <strong>#{channel.name}</strong> and all of its messages? Webhooks that post to it stop working. This cannot be undone.
        </p>
      ),
      confirmLabel: 'Delete channel',
      danger: true,
    });
    if (!ok) return;
    try {
      await deleteChannel(channel);
      toast(`#${channel.name} deleted.`);
    } catch (err) {
      toastError(err);
    }
  };

  return (
    <li className="channel-row">
      <form className="row" onSubmit={save}>
        <label htmlFor={`${id}-name`} className="visually-hidden">
          Name of #{channel.name}
        </label>
        <span className="channel-hash" aria-hidden="true">
          #
        </span>
        <input id={`${id}-name`} className="input small" value={name} maxLength={100} onChange={(e) => setName(e.target.value)} />
        <button type="submit" className="button secondary small" disabled={busy || normaliseChannelName(name) === channel.name || !name.trim()}>
          Rename
        </button>
        <button type="button" className="button danger small" onClick={() => void remove()} aria-label={`Delete #${channel.name}`}>
          Delete
        </button>
      </form>
    </li>
  );
}

// ---------------------------------------------------------------------------
// Invites

function InvitesTab({ server }: { server: Server }) {
  const [links, setLinks] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const make = async () => {
    setBusy(true);
    try {
      const link = await createInvite(server.id);
      setLinks((l) => [link, ...l]);
    } catch (err) {
      toastError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="settings-section" aria-labelledby="invites-title">
      <h2 id="invites-title">Invites</h2>
      <p className="section-intro">Anyone with an invite link can join {server.name} once they log in or create an account.</p>
      <button type="button" className="button primary" onClick={() => void make()} disabled={busy}>
        Create invite link
      </button>
      <div className="stack invite-links">
        {links.map((l, i) => (
          <CopyField key={l} label={i === 0 ? 'New invite link' : 'Invite link'} value={l} />
        ))}
      </div>
    </section>
  );
}
