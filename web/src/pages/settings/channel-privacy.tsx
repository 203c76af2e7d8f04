/**
 * A channel's "private channel" switch (docs/permissions.md): who may see it, and the dialog
 * that makes it private (the allows first, `@everyone`'s deny last, so that nobody is locked
 * out mid-way).
 */
import { useId, useMemo, useState } from 'react';
import { Trans } from 'react-i18next';
import type { Channel, Overwrite, Server } from '../../api/types';
import { confirm, Dialog } from '../../components/dialog';
import dialogStyles from '../../components/dialog.module.css';
import { LockIcon } from '../../components/lock-icon';
import { bitsOf, isPrivate, overwriteFor, withOverwrite, type Bits } from '../../lib/overwrites';
import { useAction } from '../../lib/use-action';
import { toast } from '../../state/toasts';
import { t } from '../../i18n';
import '../../i18n/settings';
import styles from './channel-permissions.module.css';
import { TargetBadge, TargetName, TargetSelect } from './channel-permission-targets';
import { saveBits, unknownTarget, VIEW, type Target } from './use-channel-permissions';

export interface PrivacyProps {
  channel: Channel;
  server: Server;
  targets: Map<string, Target>;
  meId: string;
  keepsAccess: (next: Channel) => boolean;
}

export function ChannelPrivacy({ channel, server, targets, meId, keepsAccess }: PrivacyProps) {
  const priv = isPrivate(channel);
  const [choosing, setChoosing] = useState(false);
  const { busy, error, run } = useAction();
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
    await run(async () => {
      const bits = bitsOf(overwriteFor(channel, server.id));
      await saveBits(channel, { id: server.id, type: 'role' }, { allow: bits.allow, deny: bits.deny & ~VIEW });
      toast(t('settings.channelPermissions.channelIsNowVisible', { channel: channel.name }));
    });
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
    await run(async () => {
      await saveBits(channel, target, next);
      toast(
        on
          ? t('settings.channelPermissions.targetCanNowSee', { target: target.name, channel: channel.name })
          : t('settings.channelPermissions.targetCanNoLonger', { target: target.name, channel: channel.name }),
      );
      setAdding('');
    });
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

function MakePrivateDialog({ channel, server, targets, meId, keepsAccess, onClose }: PrivacyProps & { onClose: () => void }) {
  const [chosen, setChosen] = useState<Set<string>>(
    () => new Set((channel.permissionOverwrites ?? []).filter((o) => o.id !== server.id && bitsOf(o).allow & VIEW).map((o) => o.id)),
  );
  const [filter, setFilter] = useState('');
  const { busy, error, run } = useAction();
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
    let current = channel;
    await run(async () => {
      for (const step of plan.steps) current = await saveBits(current, step.target, step.bits);
      toast(t('settings.channelPermissions.channelIsNowPrivate', { channel: channel.name }));
      onClose();
    });
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
