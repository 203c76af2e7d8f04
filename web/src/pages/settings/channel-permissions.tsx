/**
 * One channel's permissions (docs/permissions.md): the "private channel" switch with who may see it,
 * and the overwrites for `@everyone`, roles and members, each channel permission as Allow /
 * Inherit / Deny. Reads the channel from the store, so another session's change
 * (CHANNEL_UPDATE) shows here at once.
 */
import { useEffect, useId, useMemo, useState, type ReactNode } from 'react';
import { describeError } from '../../api/client';
import { displayName, type Channel, type Member, type Overwrite, type Role, type Server } from '../../api/types';
import { Avatar } from '../../components/avatar';
import { confirm, Dialog } from '../../components/dialog';
import { LockIcon } from '../../components/lock-icon';
import dialogStyles from '../../components/dialog.module.css';
import { PERMISSION_GROUPS, roleColor } from '../../lib/permission-labels';
import { nameColor, nameColorStyle } from '../../lib/name-color';
import roleNameCss from '../../components/role-name.module.css';
import { bitsOf, isPrivate, overwriteFor, setState, stateOf, withOverwrite, type Bits, type TriState } from '../../lib/overwrites';
import { loadMembers } from '../../state/actions';
import { deleteOverwrite, putOverwrite } from '../../state/moderation';
import { can, P, permissionsOf, topPosition, usePermissions } from '../../state/permissions';
import { store, useStore } from '../../state/store';
import { toast, toastError } from '../../state/toasts';
import styles from './channel-permissions.module.css';
import { Trans } from 'react-i18next';
import { t } from '../../i18n';
import '../../i18n/settings';

const VIEW = P.VIEW_CHANNEL;

/** Someone or something an overwrite can name. */
interface Target {
  id: string;
  type: Overwrite['type'];
  name: string;
  role?: Role;
  member?: Member;
  /** The person using the editor. */
  self?: boolean;
  /** Why this person may not change it, when they may not. */
  locked?: string;
}

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

export function ChannelPermissions({ server, channelId, onBack }: { server: Server; channelId: string; onBack: () => void }) {
  const channel = useStore((s) => s.channels[server.id]?.find((c) => c.id === channelId));
  const roles = useStore((s) => s.roles[server.id]);
  const members = useStore((s) => s.members[server.id]);
  const meId = useStore((s) => s.me?.id) ?? '';
  const myRoles = useStore((s) => s.myRoles[server.id]);
  const serverBits = usePermissions(server.id);
  const channelBits = usePermissions(server.id, channelId);

  useEffect(() => {
    if (!members) loadMembers(server.id).catch(toastError);
  }, [members, server.id]);

  const me = useMemo(() => ({ id: meId, roles: myRoles ?? [] }), [meId, myRoles]);
  const owner = server.ownerId === meId;
  const admin = owner || can(serverBits, P.ADMINISTRATOR);
  const myTop = topPosition(server, roles, me);

  /** Every role and member, with whether this person may set an overwrite for them (the service's hierarchy rule). */
  const targets = useMemo(() => {
    const map = new Map<string, Target>();
    for (const r of roles ?? []) {
      const everyone = r.id === server.id;
      map.set(r.id, {
        id: r.id,
        type: 'role',
        name: everyone ? '@everyone' : r.name,
        role: r,
        locked: everyone || owner || r.position < myTop ? undefined : t('settings.channelPermissions.lockedRole'),
      });
    }
    for (const m of members ?? []) {
      if (m.id === server.ownerId) continue; // the owner can do everything anyway
      const below = m.id === meId || owner || topPosition(server, roles, { id: m.id, roles: m.roles ?? [] }) < myTop;
      map.set(m.id, {
        id: m.id,
        type: 'member',
        name: displayName(m),
        member: m,
        self: m.id === meId,
        locked: below ? undefined : t('settings.channelPermissions.lockedMember'),
      });
    }
    return map;
  }, [roles, members, server, meId, owner, myTop]);

  if (!channel) {
    return (
      <section className={styles.editor} aria-labelledby="perm-title">
        <BackButton onBack={onBack} />
        <h2 id="perm-title">{t('settings.channelPermissions.channelPermissions')}</h2>
        <p className="empty-note">{t('settings.channelPermissions.thisChannelWasDeleted')}</p>
      </section>
    );
  }

  /** Whether this person could still see the channel with `next` in place (the owner and administrators always can). */
  const keepsAccess = (next: Channel) => admin || can(permissionsOf(server, roles, me, next), VIEW);

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
      <Privacy channel={channel} server={server} targets={targets} meId={meId} keepsAccess={keepsAccess} />
      <Overwrites
        channel={channel}
        server={server}
        targets={targets}
        channelBits={channelBits}
        admin={admin}
        keepsAccess={keepsAccess}
        membersLoaded={!!members}
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

/** Apply a change to the store at once (the CHANNEL_UPDATE event brings the same soon after). */
function applyLocally(channel: Channel, targetId: string, type: Overwrite['type'], bits: Bits | null): Channel {
  const next = withOverwrite(channel, targetId, type, bits);
  store.dispatch({ type: 'channel/upsert', channel: next });
  return next;
}

/** PUT the overwrite, or DELETE it when nothing is left in it. */
async function saveBits(channel: Channel, target: { id: string; type: Overwrite['type'] }, bits: Bits): Promise<Channel> {
  const empty = bits.allow === 0n && bits.deny === 0n;
  if (empty) {
    if (overwriteFor(channel, target.id)) await deleteOverwrite(channel.id, target.id);
  } else {
    await putOverwrite(channel.id, target.id, { type: target.type, allow: bits.allow.toString(), deny: bits.deny.toString() });
  }
  return applyLocally(channel, target.id, target.type, empty ? null : bits);
}

/** An overwrite naming a role or member not (or no longer) in the store. */
function unknownTarget(o: Overwrite): Target {
  return {
    id: o.id,
    type: o.type,
    name: o.type === 'role' ? t('settings.channelPermissions.deletedRole') : t('settings.channelPermissions.formerMember'),
  };
}

function TargetBadge({ target, size = 22 }: { target: Target; size?: number }) {
  if (target.member) return <Avatar id={target.member.id} name={target.name} src={target.member.avatar} size={size} />;
  const color = target.role ? roleColor(target.role.color) : undefined;
  return <span className={styles.roleDot} style={color ? { background: color } : undefined} aria-hidden="true" />;
}

function TargetName({ target }: { target: Target }) {
  const color = target.role ? nameColor(target.role.color) : undefined;
  return (
    <span className={color ? `${styles.targetName} ${roleNameCss.colored}` : styles.targetName} style={nameColorStyle(color)}>
      {target.name}
      {target.self && <span className={styles.you}> {t('settings.channelPermissions.you')}</span>}
    </span>
  );
}

// ---------------------------------------------------------------- private channel

interface PrivacyProps {
  channel: Channel;
  server: Server;
  targets: Map<string, Target>;
  meId: string;
  keepsAccess: (next: Channel) => boolean;
}

function Privacy({ channel, server, targets, meId, keepsAccess }: PrivacyProps) {
  const priv = isPrivate(channel);
  const [choosing, setChoosing] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [adding, setAdding] = useState('');
  const id = useId();

  /** Roles and members whose own overwrite lets them see the channel. */
  const allowed = (channel.permissionOverwrites ?? [])
    .filter((o) => o.id !== server.id && (bitsOf(o).allow & VIEW) !== 0n)
    .map((o): Target => targets.get(o.id) ?? unknownTarget(o));
  const addable = [...targets.values()].filter((target) => target.id !== server.id && !allowed.some((a) => a.id === target.id));

  const makePublic = async () => {
    const ok = await confirm({
      title: t('settings.channelPermissions.makeChannelPublic'),
      body: (
        <p>
          <Trans
            i18nKey="settings.channelPermissions.makePublicConfirm"
            values={{ server: server.name, channel: channel.name }}
            components={{ b: <strong /> }}
          />
        </p>
      ),
      confirmLabel: t('settings.channelPermissions.makePublic'),
    });
    if (!ok) return;
    setBusy(true);
    setError(null);
    try {
      const bits = bitsOf(overwriteFor(channel, server.id));
      await saveBits(channel, { id: server.id, type: 'role' }, { allow: bits.allow, deny: bits.deny & ~VIEW });
      toast(t('settings.channelPermissions.channelIsNowVisible', { channel: channel.name }));
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };

  const setAccess = async (target: Target, on: boolean) => {
    const bits = bitsOf(overwriteFor(channel, target.id));
    const next = on ? { allow: bits.allow | VIEW, deny: bits.deny & ~VIEW } : { allow: bits.allow & ~VIEW, deny: bits.deny };
    if (!on && !keepsAccess(withOverwrite(channel, target.id, target.type, next))) {
      const ok = await confirm({
        title: t('settings.channelPermissions.removeYourOwnAccess'),
        body: (
          <p>
            <Trans
              i18nKey="settings.channelPermissions.removeOwnAccessConfirm"
              values={{ target: target.name, channel: channel.name }}
              components={{ b: <strong /> }}
            />
          </p>
        ),
        confirmLabel: t('settings.channelPermissions.removeAccess'),
        danger: true,
      });
      if (!ok) return;
    }
    setBusy(true);
    setError(null);
    try {
      await saveBits(channel, target, next);
      toast(
        on
          ? t('settings.channelPermissions.targetCanNowSee', { target: target.name, channel: channel.name })
          : t('settings.channelPermissions.targetCanNoLonger', { target: target.name, channel: channel.name }),
      );
      setAdding('');
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className={styles.privacy}>
      <div className={styles.privacyHead}>
        <span className={styles.privacyIcon} aria-hidden="true">
          <LockIcon size={20} />
        </span>
        <div className={styles.privacyText}>
          <h3 id={`${id}-label`}>{t('settings.channelPermissions.privateChannel')}</h3>
          <p id={`${id}-help`} className="hint">
            {priv
              ? t('settings.channelPermissions.onlyTheRolesAnd', { channel: channel.name })
              : t('settings.channelPermissions.everyoneInServerCan', { server: server.name, channel: channel.name })}
          </p>
        </div>
        <button
          type="button"
          role="switch"
          aria-checked={priv}
          aria-labelledby={`${id}-label`}
          aria-describedby={`${id}-help`}
          className={styles.switch}
          disabled={busy}
          onClick={() => (priv ? void makePublic() : setChoosing(true))}
        >
          <span className={styles.switchKnob} />
        </button>
      </div>
      {priv && (
        <div className={styles.whoCanSee}>
          <h4 className={styles.miniHeading}>{t('settings.channelPermissions.whoCanSeeIt')}</h4>
          {allowed.length === 0 ? (
            <p className="empty-note">{t('settings.channelPermissions.onlyTheOwnerAnd')}</p>
          ) : (
            <ul className={styles.chips} aria-label={t('settings.channelPermissions.whoCanSeeChannel', { channel: channel.name })}>
              {allowed.map((target) => (
                <li key={target.id} className={styles.chip}>
                  <TargetBadge target={target} size={18} />
                  <TargetName target={target} />
                  <button
                    type="button"
                    className={`icon-button small ${styles.chipRemove}`}
                    aria-label={t('settings.channelPermissions.stopSeeing', { target: target.name, channel: channel.name })}
                    title={target.locked ?? t('settings.channelPermissions.removeTarget', { target: target.name })}
                    disabled={busy || !!target.locked}
                    onClick={() => void setAccess(target, false)}
                  >
                    ×
                  </button>
                </li>
              ))}
            </ul>
          )}
          <form
            className={styles.addRow}
            onSubmit={(e) => {
              e.preventDefault();
              const found = targets.get(adding);
              if (found) void setAccess(found, true);
            }}
          >
            <label htmlFor={`${id}-add`} className="visually-hidden">
              {t('settings.channelPermissions.giveARoleOr')}
            </label>
            <TargetSelect
              id={`${id}-add`}
              options={addable}
              value={adding}
              onChange={setAdding}
              placeholder={t('settings.channelPermissions.giveAccessEllipsis')}
            />
            <button type="submit" className="button secondary small" disabled={busy || !adding}>
              {t('settings.channelPermissions.giveAccess')}
            </button>
          </form>
        </div>
      )}
      {error && (
        <p className="field-error" role="alert">
          {error}
        </p>
      )}
      {choosing && (
        <MakePrivateDialog
          channel={channel}
          server={server}
          targets={targets}
          meId={meId}
          keepsAccess={keepsAccess}
          onClose={() => setChoosing(false)}
        />
      )}
    </div>
  );
}

/** A native select of roles and members (grouped), the ones this person may not change disabled. */
function TargetSelect({
  id,
  options,
  value,
  onChange,
  placeholder,
}: {
  id: string;
  options: Target[];
  value: string;
  onChange: (id: string) => void;
  placeholder: string;
}) {
  const roles = options.filter((target) => target.type === 'role');
  const people = options.filter((target) => target.type === 'member');
  return (
    <select id={id} className={`input small ${styles.select}`} value={value} onChange={(e) => onChange(e.target.value)}>
      <option value="">{placeholder}</option>
      {roles.length > 0 && (
        <optgroup label={t('settings.channelPermissions.roles')}>
          {roles.map((target) => (
            <option key={target.id} value={target.id} disabled={!!target.locked}>
              {target.name}
              {target.locked ? t('settings.channelPermissions.aboveYourRoleSuffix') : ''}
            </option>
          ))}
        </optgroup>
      )}
      {people.length > 0 && (
        <optgroup label={t('settings.channelPermissions.members')}>
          {people.map((target) => (
            <option key={target.id} value={target.id} disabled={!!target.locked}>
              {target.name}
              {target.locked ? t('settings.channelPermissions.aboveYourRoleSuffix') : ''}
            </option>
          ))}
        </optgroup>
      )}
    </select>
  );
}

function MakePrivateDialog({ channel, server, targets, meId, keepsAccess, onClose }: PrivacyProps & { onClose: () => void }) {
  const [chosen, setChosen] = useState<Set<string>>(
    () => new Set((channel.permissionOverwrites ?? []).filter((o) => o.id !== server.id && bitsOf(o).allow & VIEW).map((o) => o.id)),
  );
  const [filter, setFilter] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const id = useId();

  const all = [...targets.values()].filter((target) => target.id !== server.id);
  const f = filter.trim().toLowerCase();
  const shown = f ? all.filter((target) => target.name.toLowerCase().includes(f)) : all;
  const roleOptions = shown.filter((target) => target.type === 'role');
  const memberOptions = shown.filter((target) => target.type === 'member');

  /** The overwrites making it private with the current choice; and whether the person must be added to keep seeing it. */
  const plan = useMemo(() => {
    let next = channel;
    const steps: { target: { id: string; type: Overwrite['type'] }; bits: Bits }[] = [];
    for (const tid of chosen) {
      const t = targets.get(tid);
      if (!t) continue;
      const b = bitsOf(overwriteFor(channel, tid));
      const bits = { allow: b.allow | VIEW, deny: b.deny & ~VIEW };
      steps.push({ target: t, bits });
      next = withOverwrite(next, tid, t.type, bits);
    }
    const e = bitsOf(overwriteFor(channel, server.id));
    const everyone = { allow: e.allow & ~VIEW, deny: e.deny | VIEW };
    next = withOverwrite(next, server.id, 'role', everyone);
    let addSelf = false;
    if (!keepsAccess(next)) {
      addSelf = true;
      const b = bitsOf(overwriteFor(channel, meId));
      const bits = { allow: b.allow | VIEW, deny: b.deny & ~VIEW };
      steps.push({ target: { id: meId, type: 'member' }, bits });
    }
    // @everyone last: until the allows are in, denying it could lock this person out mid-way.
    steps.push({ target: { id: server.id, type: 'role' }, bits: everyone });
    return { steps, addSelf };
  }, [chosen, channel, server.id, targets, meId, keepsAccess]);

  const toggle = (tid: string, on: boolean) =>
    setChosen((s) => {
      const n = new Set(s);
      if (on) n.add(tid);
      else n.delete(tid);
      return n;
    });

  const submit = async () => {
    setBusy(true);
    setError(null);
    let current = channel;
    try {
      for (const step of plan.steps) current = await saveBits(current, step.target, step.bits);
      toast(t('settings.channelPermissions.channelIsNowPrivate', { channel: channel.name }));
      onClose();
    } catch (err) {
      setError(describeError(err));
      setBusy(false);
    }
  };

  const option = (target: Target) => (
    <li key={target.id}>
      <label className={`check ${styles.pickOption}`} title={target.locked}>
        <input
          type="checkbox"
          checked={chosen.has(target.id)}
          disabled={!!target.locked}
          onChange={(e) => toggle(target.id, e.target.checked)}
        />
        <TargetBadge target={target} size={20} />
        <TargetName target={target} />
        {target.locked && <span className="small-text">{t('settings.channelPermissions.aboveYourRole')}</span>}
      </label>
    </li>
  );

  return (
    <Dialog title={t('settings.channelPermissions.makeChannelPrivate', { channel: channel.name })} onClose={onClose}>
      <div className={`${dialogStyles.dialogBody} stack`}>
        <p>
          <Trans i18nKey="settings.channelPermissions.privateIntro" values={{ channel: channel.name }} components={{ b: <strong /> }} />
        </p>
        <label htmlFor={`${id}-filter`} className="field-label">
          {t('settings.channelPermissions.findARoleOr')}
        </label>
        <input id={`${id}-filter`} className="input" value={filter} onChange={(e) => setFilter(e.target.value)} />
        <fieldset className={styles.pickList}>
          <legend className="visually-hidden">{t('settings.channelPermissions.whoCanSeeChannel', { channel: channel.name })}</legend>
          {roleOptions.length > 0 && <p className={styles.miniHeading}>{t('settings.channelPermissions.roles')}</p>}
          <ul>{roleOptions.map(option)}</ul>
          {memberOptions.length > 0 && <p className={styles.miniHeading}>{t('settings.channelPermissions.members')}</p>}
          <ul>{memberOptions.map(option)}</ul>
          {shown.length === 0 && <p className="empty-note">{t('settings.channelPermissions.noRoleOrMember')}</p>}
        </fieldset>
        {plan.addSelf && (
          <p className={styles.selfNote} role="note">
            {t('settings.channelPermissions.noneOfYourRoles')}
          </p>
        )}
        {error && (
          <p className="field-error" role="alert">
            {error}
          </p>
        )}
        <footer className={dialogStyles.dialogActions}>
          <button type="button" className="button secondary" onClick={onClose}>
            {t('settings.channelPermissions.cancel')}
          </button>
          <button type="button" className="button primary" onClick={() => void submit()} disabled={busy} data-autofocus>
            {busy ? t('settings.channelPermissions.makingPrivate') : t('settings.channelPermissions.makePrivate')}
          </button>
        </footer>
      </div>
    </Dialog>
  );
}

// ---------------------------------------------------------------- overwrites

interface OverwritesProps {
  channel: Channel;
  server: Server;
  targets: Map<string, Target>;
  channelBits: bigint;
  admin: boolean;
  keepsAccess: (next: Channel) => boolean;
  membersLoaded: boolean;
}

function Overwrites({ channel, server, targets, channelBits, admin, keepsAccess, membersLoaded }: OverwritesProps) {
  const [selectedId, setSelectedId] = useState(server.id);
  /** Roles and members picked with "Add" that have no overwrite yet. */
  const [pending, setPending] = useState<string[]>([]);
  const [draft, setDraft] = useState<Bits | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
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
    setBusy(true);
    setError(null);
    try {
      await saveBits(channel, selected, draft);
      setDraft(null);
      toast(t('settings.channelPermissions.savedSelectedSPermissions', { selected: selected.name, channel: channel.name }));
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
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
    setBusy(true);
    setError(null);
    try {
      await deleteOverwrite(channel.id, selected.id);
      applyLocally(channel, selected.id, selected.type, null);
      setPending((p) => p.filter((x) => x !== selected.id));
      setDraft(null);
      toast(t('settings.channelPermissions.removedSelectedSSettings', { selected: selected.name, channel: channel.name }));
      setSelectedId(server.id);
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
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
