/** The Channels section of server settings: create, rename and delete channels. */
import { useEffect, useId, useState, type FormEvent } from 'react';
import { describeError } from '../../api/client';
import type { Channel, Server } from '../../api/types';
import { confirm } from '../../components/dialog';
import { normaliseChannelName } from '../../components/forms';
import { createChannel, deleteChannel, renameChannel } from '../../state/actions';
import { toast, toastError } from '../../state/toasts';
import styles from './settings.module.css';
import sidebarStyles from '../../components/channel-sidebar.module.css';

export function ChannelsSection({ server, channels }: { server: Server; channels: Channel[] }) {
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
    <section className={styles.settingsSection} aria-labelledby="channels-title">
      <h2 id="channels-title">Channels</h2>
      <form className={styles.inlineForm} onSubmit={create} aria-label="Create a channel">
        <div className="field">
          <label htmlFor={`${id}-new`} className="field-label">
            New channel name
          </label>
          <input
            id={`${id}-new`}
            className="input"
            value={name}
            maxLength={100}
            placeholder="announcements"
            onChange={(e) => setName(e.target.value)}
          />
        </div>
        <button type="submit" className="button primary" disabled={busy}>
          Create channel
        </button>
        {error && (
          <p className={`field-error ${styles.full}`} role="alert">
            {error}
          </p>
        )}
      </form>
      <ul className={styles.channelRows}>
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
    <li className={styles.channelRow}>
      <form className="row" onSubmit={save}>
        <label htmlFor={`${id}-name`} className="visually-hidden">
          Name of #{channel.name}
        </label>
        <span className={sidebarStyles.channelHash} aria-hidden="true">
          #
        </span>
        <input id={`${id}-name`} className="input small" value={name} maxLength={100} onChange={(e) => setName(e.target.value)} />
        <button
          type="submit"
          className="button secondary small"
          disabled={busy || normaliseChannelName(name) === channel.name || !name.trim()}
        >
          Rename
        </button>
        <button type="button" className="button danger small" onClick={() => void remove()} aria-label={`Delete #${channel.name}`}>
          Delete
        </button>
      </form>
    </li>
  );
}
