/**
 * A channel's overwrites (docs/permissions.md) for `@everyone`, roles and members, each
 * channel permission as Allow / Inherit / Deny.
 */
import { useId, useState, type ReactNode } from 'react';
import { Trans } from 'react-i18next';
import type { Channel, Overwrite, Server } from '../../api/types';
import { confirm } from '../../components/dialog';
import { PERMISSION_GROUPS } from '../../lib/permission-labels';
import { bitsOf, isPrivate, overwriteFor, setState, stateOf, withOverwrite, type Bits, type TriState } from '../../lib/overwrites';
import { useAction } from '../../lib/use-action';
import { deleteOverwrite } from '../../state/moderation';
import { can, P } from '../../state/permissions';
import { toast } from '../../state/toasts';
import { t } from '../../i18n';
import '../../i18n/settings';
import styles from './channel-permissions.module.css';
import { TargetBadge, TargetName, TargetSelect } from './channel-permission-targets';
import { applyLocally, saveBits, unknownTarget, type Target } from './use-channel-permissions';

const CHANNEL_GROUPS = PERMISSION_GROUPS.map((g) => ({ ...g, items: g.items.filter((i) => i.channel) })).filter((g) => g.items.length);

const STATES: { state: TriState; readonly label: string; icon: string; readonly title: string }[] = (
  [
    ['allow', '✓'],
    ['inherit', '/'],
    ['deny', '✕'],
  ] as const
).map(([state, icon]) => ({
  state,
  icon,
  get label() {
    return t(`settings.channelPermissions.states.${state}.label`);
  },
  get title() {
    return t(`settings.channelPermissions.states.${state}.title`);
  },
}));

export interface OverwritesProps {
  channel: Channel;
  server: Server;
  targets: Map<string, Target>;
  channelBits: bigint;
  admin: boolean;
  keepsAccess: (next: Channel) => boolean;
  membersLoaded: boolean;
}

export function ChannelOverwrites({ channel, server, targets, channelBits, admin, keepsAccess, membersLoaded }: OverwritesProps) {
  const [selectedId, setSelectedId] = useState(server.id);
  /** Roles and members picked with "Add" that have no overwrite yet. */
  const [pending, setPending] = useState<string[]>([]);
  const [draft, setDraft] = useState<Bits | null>(null);
  const { busy, error, setError, run } = useAction();
  const [picking, setPicking] = useState('');
  const id = useId();

  const overwrites = channel.permissionOverwrites ?? [];
  const known = (o: Overwrite): Target => targets.get(o.id) ?? unknownTarget(o);
  const everyone = targets.get(server.id) ?? { id: server.id, type: 'role' as const, name: '@everyone' };
  const roleRows = overwrites
    .filter((o) => o.type === 'role' && o.id !== server.id)
    .map(known)
    .sort((a, b) => (b.role?.position ?? 0) - (a.role?.position ?? 0));
  const memberRows = overwrites
    .filter((o) => o.type === 'member')
    .map(known)
    .sort((a, b) => a.name.localeCompare(b.name));
  const pendingRows = pending.filter((p) => !overwrites.some((o) => o.id === p)).flatMap((p) => targets.get(p) ?? []);
  const rows: Target[] = [everyone, ...roleRows, ...memberRows, ...pendingRows];
  const selected = rows.find((r) => r.id === selectedId) ?? everyone;
  const saved = bitsOf(overwriteFor(channel, selected.id));
  const bits = draft ?? saved;
  const dirty = !!draft && (draft.allow !== saved.allow || draft.deny !== saved.deny);
  const addable = [...targets.values()].filter((t) => !rows.some((r) => r.id === t.id));
  const existing = !!overwriteFor(channel, selected.id);

  const select = async (tid: string) => {
    if (tid === selected.id) return;
    if (dirty) {
      const ok = await confirm({
        title: t('settings.channelPermissions.discardChanges'),
        body: <p>{t('settings.channelPermissions.yourChangesToSelected', { selected: selected.name, channel: channel.name })}</p>,
        confirmLabel: t('settings.channelPermissions.discardChangesButton'),
        danger: true,
      });
      if (!ok) return;
    }
    setDraft(null);
    setError(null);
    setSelectedId(tid);
  };

  const add = (tid: string) => {
    setPicking('');
    if (!tid) return;
    setPending((p) => (p.includes(tid) ? p : [...p, tid]));
    void select(tid);
  };

  const save = async () => {
    if (!draft) return;
    if (!keepsAccess(withOverwrite(channel, selected.id, selected.type, draft))) {
      const ok = await confirm({
        title: t('settings.channelPermissions.lockYourselfOut'),
        body: (
          <p>
            <Trans i18nKey="settings.channelPermissions.lockOutConfirm" values={{ channel: channel.name }} components={{ b: <strong /> }} />
          </p>
        ),
        confirmLabel: t('settings.channelPermissions.saveAnyway'),
        danger: true,
      });
      if (!ok) return;
    }
    await run(async () => {
      await saveBits(channel, selected, draft);
      setDraft(null);
      toast(t('settings.channelPermissions.savedSelectedSPermissions', { selected: selected.name, channel: channel.name }));
    });
  };

  const remove = async () => {
    if (!existing) {
      setPending((p) => p.filter((x) => x !== selected.id));
      setDraft(null);
      setSelectedId(server.id);
      return;
    }
    const next = withOverwrite(channel, selected.id, selected.type, null);
    const publicNow = isPrivate(channel) && !isPrivate(next);
    const ok = await confirm({
      title: t('settings.channelPermissions.removeChannelSettings'),
      body: (
        <>
          <p>
            <Trans
              i18nKey="settings.channelPermissions.removeSettingsConfirm"
              values={{ target: selected.name, channel: channel.name }}
              components={{ b: <strong /> }}
            />
          </p>
          {publicNow && <p>{t('settings.channelPermissions.channelWillNoLonger', { channel: channel.name })}</p>}
          {!keepsAccess(next) && <p>{t('settings.channelPermissions.youWillNoLonger', { channel: channel.name })}</p>}
        </>
      ),
      confirmLabel: t('settings.channelPermissions.remove'),
      danger: true,
    });
    if (!ok) return;
    await run(async () => {
      await deleteOverwrite(channel.id, selected.id);
      applyLocally(channel, selected.id, selected.type, null);
      setPending((p) => p.filter((x) => x !== selected.id));
      setDraft(null);
      toast(t('settings.channelPermissions.removedSelectedSSettings', { selected: selected.name, channel: channel.name }));
      setSelectedId(server.id);
    });
  };

  const rowButton = (t: Target, note?: ReactNode) => (
    <li key={t.id}>
      <button
        type="button"
        className={`${styles.targetButton}${t.id === selected.id ? ` ${styles.current}` : ''}`}
        aria-current={t.id === selected.id ? 'true' : undefined}
        onClick={() => void select(t.id)}
      >
        <TargetBadge target={t} />
        <TargetName target={t} />
        {note}
      </button>
    </li>
  );

  return (
    <div className={styles.overwrites}>
      <h3 className={styles.sectionHeading}>{t('settings.channelPermissions.advancedPermissions')}</h3>
      <div className={styles.layout}>
        <nav className={styles.targets} aria-label={t('settings.channelPermissions.rolesAndMembersWith')}>
          <ul>
            {rowButton(everyone)}
            {roleRows.length > 0 && <li className={styles.listHeading}>{t('settings.channelPermissions.roles')}</li>}
            {roleRows.map((t) => rowButton(t))}
            {memberRows.length > 0 && <li className={styles.listHeading}>{t('settings.channelPermissions.members')}</li>}
            {memberRows.map((t) => rowButton(t))}
            {pendingRows.length > 0 && <li className={styles.listHeading}>{t('settings.channelPermissions.notSavedYet')}</li>}
            {pendingRows.map((t) => rowButton(t))}
          </ul>
          <label htmlFor={`${id}-pick`} className="field-label">
            {t('settings.channelPermissions.addARoleOr')}
          </label>
          <TargetSelect
            id={`${id}-pick`}
            options={addable}
            value={picking}
            onChange={add}
            placeholder={membersLoaded ? t('settings.channelPermissions.choose') : t('settings.channelPermissions.loadingMembers')}
          />
        </nav>
        <div className={styles.detail}>
          <div className={styles.detailHead}>
            <TargetBadge target={selected} size={28} />
            <h4 id={`${id}-target`} className={styles.detailTitle}>
              <TargetName target={selected} />
              <span className="visually-hidden"> {t('settings.channelPermissions.inChannel', { channel: channel.name })}</span>
            </h4>
            {selected.id !== server.id || existing ? (
              <button
                type="button"
                className="button secondary small"
                onClick={() => void remove()}
                disabled={busy || !!selected.locked}
                aria-label={t('settings.channelPermissions.removeTheSettingsFor', { selected: selected.name })}
              >
                {existing ? t('settings.channelPermissions.remove') : t('settings.channelPermissions.cancel')}
              </button>
            ) : null}
          </div>
          {selected.locked && <p className="warning">{selected.locked}</p>}
          {!existing && !selected.locked && (
            <p className="hint">
              {selected.id === server.id
                ? t('settings.channelPermissions.nothingIsChangedFor')
                : t('settings.channelPermissions.nothingIsSetFor', { selected: selected.name })}
            </p>
          )}
          {CHANNEL_GROUPS.map((g) => (
            <fieldset key={g.title} className={styles.group} disabled={busy || !!selected.locked}>
              <legend className={styles.groupTitle}>{g.title}</legend>
              {g.items.map((p) => {
                const flag = P[p.id];
                const mine = admin || can(channelBits, flag);
                return (
                  <TriStateRow
                    key={p.id}
                    name={`${id}-${selected.id}-${p.id}`}
                    label={p.label}
                    help={mine ? p.help : t('settings.channelPermissions.helpNotYours', { help: p.help })}
                    value={stateOf(bits, flag)}
                    disabled={!mine}
                    onChange={(s) => setDraft(setState(bits, flag, s))}
                  />
                );
              })}
            </fieldset>
          ))}
          {error && (
            <p className="field-error" role="alert">
              {error}
            </p>
          )}
          {dirty && (
            <section className={styles.saveBar} aria-label={t('settings.channelPermissions.unsavedChanges')}>
              <span>{t('settings.channelPermissions.youHaveUnsavedChanges', { selected: selected.name })}</span>
              <div className="row">
                <button type="button" className="button secondary small" onClick={() => setDraft(null)} disabled={busy}>
                  {t('settings.channelPermissions.reset')}
                </button>
                <button type="button" className="button primary small" onClick={() => void save()} disabled={busy}>
                  {busy ? t('settings.channelPermissions.saving') : t('settings.channelPermissions.saveChanges')}
                </button>
              </div>
            </section>
          )}
        </div>
      </div>
    </div>
  );
}

/** One permission: a radio group of three, drawn as a small segmented control (✓ / ✕). */
function TriStateRow({
  name,
  label,
  help,
  value,
  disabled,
  onChange,
}: {
  name: string;
  label: string;
  help: string;
  value: TriState;
  disabled: boolean;
  onChange: (s: TriState) => void;
}) {
  const id = useId();
  return (
    <div className={styles.permRow}>
      <div className={styles.permText}>
        <span id={`${id}-label`} className={styles.permLabel}>
          {label}
        </span>
        <span id={`${id}-help`} className={styles.permHelp}>
          {help}
        </span>
      </div>
      <div role="radiogroup" aria-labelledby={`${id}-label`} aria-describedby={`${id}-help`} className={styles.tri}>
        {STATES.map((s) => (
          <label key={s.state} className={`${styles.triOption} ${styles[s.state]}`} title={s.title}>
            <input
              type="radio"
              name={name}
              value={s.state}
              checked={value === s.state}
              disabled={disabled}
              onChange={() => onChange(s.state)}
            />
            <span aria-hidden="true">{s.icon}</span>
            <span className="visually-hidden">{s.label}</span>
          </label>
        ))}
      </div>
    </div>
  );
}
