/** The Bots section of server settings: add a bot by id and edit or remove the ones present. */
import { useEffect, useId, useState, type FormEvent } from 'react';
import { api, describeError, seg } from '../../api/client';
import {
  ALL_PERMISSIONS,
  displayName,
  type AddBotBody,
  type Bot,
  type Member,
  type Permission,
  type Server,
  type SetBotPermissionsBody,
} from '../../api/types';
import { Avatar, BotBadge } from '../../components/avatar';
import { confirm } from '../../components/dialog';
import { loadMembers } from '../../state/actions';
import { useStore } from '../../state/store';
import { toast, toastError } from '../../state/toasts';
import { PermissionBoxes } from './permission-boxes';
import styles from './settings.module.css';

export function BotsSection({ server }: { server: Server }) {
  const members = useStore((s) => s.members[server.id]);
  const [myBots, setMyBots] = useState<Bot[]>([]);
  const [botId, setBotId] = useState('');
  const [perms, setPerms] = useState<Permission[]>([...ALL_PERMISSIONS]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const id = useId();

  useEffect(() => {
    loadMembers(server.id).catch(toastError);
    api
      .get<Bot[]>('/bots')
      .then(setMyBots)
      .catch(() => undefined);
  }, [server.id]);

  const bots = (members ?? []).filter((m) => m.bot);

  const add = async (e: FormEvent) => {
    e.preventDefault();
    const target = botId.trim();
    if (!target) return setError('Enter the id of the bot to add. Bot owners find it on their “My bots” page.');
    setBusy(true);
    setError(null);
    try {
      await api.post(`/servers/${seg(server.id)}/bots`, { botId: target, permissions: perms } satisfies AddBotBody);
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
    <section className={styles.settingsSection} aria-labelledby="bots-title">
      <h2 id="bots-title">Bots</h2>
      <p className={styles.sectionIntro}>
        Bots read and post messages through the API with their own token. Add one by its id and choose what it may do here.
      </p>
      <form className={`stack ${styles.cardForm}`} onSubmit={add} aria-label="Add a bot">
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

      <h3 className={styles.subheading}>Bots in this server</h3>
      {!members && <p className="empty-note">Loading…</p>}
      {members && bots.length === 0 && <p className="empty-note">No bots yet.</p>}
      <ul className={styles.botRows}>
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
      await api.patch(`/servers/${seg(server.id)}/bots/${seg(bot.id)}`, { permissions: perms } satisfies SetBotPermissionsBody);
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
      body: (
        <p>
          Remove {name} from {server.name}? It will no longer read or post here. You can add it again later.
        </p>
      ),
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
    <li className={styles.botRow} data-bot-id={bot.id}>
      <div className={styles.botRowHead}>
        <Avatar id={bot.id} name={name} src={bot.avatar} size={32} />
        <div>
          <div className={styles.botName}>
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
