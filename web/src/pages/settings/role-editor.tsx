/**
 * One role's editor in the Roles section: name, colour, how it shows, and its permissions.
 * Edits are kept apart from the role, so a change someone else makes to a field not being
 * edited shows at once; "Save changes" sends only what differs.
 */
import { parsePermissions } from '@parley/protocol/permissions';
import { useEffect, useId, useState, type ReactNode, type Ref } from 'react';
import { describeError } from '../../api/client';
import type { Role, Server, UpdateRoleBody } from '../../api/types';
import { confirm } from '../../components/dialog';
import { PERMISSION_GROUPS, roleColor } from '../../lib/permission-labels';
import { nameColor, nameColorStyle } from '../../lib/name-color';
import roleNameCss from '../../components/role-name.module.css';
import { deleteRole, updateRole } from '../../state/moderation';
import { can, P } from '../../state/permissions';
import { toast } from '../../state/toasts';
import css from './roles-section.module.css';
import { t } from '../../i18n';
import '../../i18n/settings';
import { useAction } from '../../lib/use-action';

/** Swatches offered for a role's colour (any other comes from the custom picker). */
export const PALETTE: { name: string; color: number }[] = [
  { name: 'Teal', color: 0x1abc9c },
  { name: 'Green', color: 0x2ecc71 },
  { name: 'Blue', color: 0x3498db },
  { name: 'Purple', color: 0x9b59b6 },
  { name: 'Pink', color: 0xe91e63 },
  { name: 'Yellow', color: 0xf1c40f },
  { name: 'Orange', color: 0xe67e22 },
  { name: 'Red', color: 0xe74c3c },
  { name: 'Grey', color: 0x95a5a6 },
  { name: 'Slate', color: 0x607d8b },
];

interface Edits {
  name?: string;
  color?: number;
  hoist?: boolean;
  mentionable?: boolean;
  permissions?: bigint;
}

export interface RoleEditorProps {
  server: Server;
  role: Role;
  memberCount: number | undefined;
  /** Why this person cannot change the role (the hierarchy), or null when they can. */
  locked: string | null;
  /** The editor's own permissions: nobody grants or takes away what they do not hold. */
  held: bigint;
  headingRef: Ref<HTMLHeadingElement>;
  onDirtyChange: (dirty: boolean) => void;
  onDeleted: () => void;
}

const members = (count: number) => t('settings.roles.memberCount', { count });

export function RoleEditor({ server, role, memberCount, locked, held, headingRef, onDirtyChange, onDeleted }: RoleEditorProps) {
  const id = useId();
  const everyone = role.id === server.id;
  const [edits, setEdits] = useState<Edits>({});
  const { busy: saving, error: saveError, setError: setSaveError, run } = useAction();
  const [deleteError, setDeleteError] = useState<string | null>(null);

  const rolePerms = parsePermissions(role.permissions) ?? 0n;
  const name = edits.name ?? role.name;
  const color = edits.color ?? role.color;
  const hoist = edits.hoist ?? role.hoist;
  const mentionable = edits.mentionable ?? role.mentionable;
  const perms = edits.permissions ?? rolePerms;

  const body: UpdateRoleBody = {};
  if (name !== role.name) body.name = name.trim();
  if (color !== role.color) body.color = color;
  if (hoist !== role.hoist) body.hoist = hoist;
  if (mentionable !== role.mentionable) body.mentionable = mentionable;
  if (perms !== rolePerms) body.permissions = perms.toString();
  const dirty = Object.keys(body).length > 0;

  useEffect(() => onDirtyChange(dirty), [dirty, onDirtyChange]);
  useEffect(() => () => onDirtyChange(false), [onDirtyChange]);

  const edit = (patch: Edits) => {
    setSaveError(null);
    setEdits((e) => ({ ...e, ...patch }));
  };

  const save = async () => {
    if (!name.trim()) return setSaveError('A role needs a name.');
    await run(async () => {
      await updateRole(role, body);
      setEdits({});
      // i18n-ignore: the role's own name
      toast(t('settings.roles.saved', { role: everyone ? '@everyone' : name.trim() }));
    });
  };

  const remove = async () => {
    setDeleteError(null);
    const who =
      memberCount === undefined
        ? t('settings.roles.deleteWhoUnknown')
        : memberCount === 0
          ? t('settings.roles.deleteWhoNobody')
          : t('settings.roles.deleteWho', { count: memberCount });
    const ok = await confirm({
      title: t('settings.roles.deleteTheRoleRole', { role: role.name }),
      body: <p>{t('settings.roles.whoAnyChannelPermissions', { who })}</p>,
      confirmLabel: t('settings.roles.deleteRole'),
      danger: true,
    });
    if (!ok) return;
    try {
      await deleteRole(role);
      toast(t('settings.roles.deletedTheRoleRole', { role: role.name }));
      onDeleted();
    } catch (err) {
      setDeleteError(describeError(err));
    }
  };

  const disabled = locked !== null || saving;
  const shownColor = roleColor(color);
  const title = everyone ? '@everyone' : name.trim() || role.name;

  return (
    <div className={css.editor}>
      <header className={css.editorHead}>
        <h3 ref={headingRef} tabIndex={-1} className={css.editorTitle} aria-label={t('settings.roles.titleRoleSettings', { title })}>
          <span className={css.dot} style={{ background: shownColor }} data-none={!shownColor || undefined} aria-hidden="true" />
          <span
            className={shownColor ? `${css.editorName} ${roleNameCss.colored}` : css.editorName}
            style={nameColorStyle(nameColor(color))}
          >
            {title}
          </span>
        </h3>
        <p className={css.editorMeta}>
          {everyone
            ? memberCount !== undefined
              ? t('settings.roles.everyoneInCount', { server: server.name, members: members(memberCount) })
              : t('settings.roles.everyoneIn', { server: server.name })
            : memberCount !== undefined
              ? members(memberCount)
              : t('settings.roles.loadingMembers')}
          {role.managed && t('settings.roles.managedByABotMeta')}
        </p>
      </header>

      {locked && (
        <p className={css.notice} role="note">
          <LockIcon /> {locked}
        </p>
      )}
      {everyone && <p className={css.explain}>{t('settings.roles.everyoneInTheServer')}</p>}
      {role.managed && <p className={css.explain}>{t('settings.roles.thisRoleBelongsTo', { role: role.name })}</p>}

      <fieldset className={css.plain} disabled={disabled}>
        <legend className="visually-hidden">{t('settings.roles.roleSettings')}</legend>
        {!everyone && (
          <>
            <div className="field">
              <label htmlFor={`${id}-name`} className="field-label">
                {t('settings.roles.roleName')}
              </label>
              <input
                id={`${id}-name`}
                className="input"
                value={name}
                maxLength={100}
                onChange={(e) => edit({ name: e.target.value })}
                aria-invalid={!name.trim() || undefined}
              />
            </div>

            <ColorPicker id={id} value={color} onChange={(c) => edit({ color: c })} />

            <div className={css.toggles}>
              <Toggle
                id={`${id}-hoist`}
                label={t('settings.roles.showMembersSeparatelyIn')}
                help="People with this role are listed under its name, above the rest."
                checked={hoist}
                onChange={(v) => edit({ hoist: v })}
              />
              <Toggle
                id={`${id}-mention`}
                label={t('settings.roles.allowAnyoneToMention')}
                help="Anyone can notify everyone with this role at once. Without it, only people who may notify everyone can."
                checked={mentionable}
                onChange={(v) => edit({ mentionable: v })}
              />
            </div>
          </>
        )}

        <h4 className={css.permsTitle}>{t('settings.roles.permissions')}</h4>
        {!locked && PERMISSION_GROUPS.some((g) => g.items.some((i) => !can(held, P[i.id]))) && (
          <p className="hint">{t('settings.roles.switchesYouCannotChange')}</p>
        )}
        {PERMISSION_GROUPS.map((group) => (
          <fieldset key={group.title} className={css.permGroup}>
            <legend className={css.groupTitle}>{group.title}</legend>
            {group.items.map((item) => {
              const bit = P[item.id];
              const mayChange = can(held, bit);
              return (
                <Toggle
                  key={item.id}
                  id={`${id}-${item.id}`}
                  label={item.label}
                  help={mayChange ? item.help : t('settings.roles.helpNotYours', { help: item.help })}
                  checked={(perms & bit) !== 0n}
                  disabled={!mayChange}
                  onChange={(v) => edit({ permissions: v ? perms | bit : perms & ~bit })}
                >
                  {item.id === 'ADMINISTRATOR' && (perms & bit) !== 0n && (
                    <span className={css.warnText}>{t('settings.roles.everyPermissionEverywhereThe')}</span>
                  )}
                </Toggle>
              );
            })}
          </fieldset>
        ))}
      </fieldset>

      {!everyone && (
        <div className={css.dangerZone}>
          <div>
            <h4>{t('settings.roles.deleteThisRole')}</h4>
            <p className="hint">
              {role.managed
                ? t('settings.roles.aBotSOwn')
                : locked
                  ? t('settings.roles.youCanOnlyDelete')
                  : t('settings.roles.peopleWhoHaveIt')}
            </p>
            {deleteError && (
              <p className="field-error" role="alert">
                {deleteError}
              </p>
            )}
          </div>
          <button type="button" className="button danger" disabled={role.managed || locked !== null} onClick={remove}>
            {t('settings.roles.deleteRole')}
          </button>
        </div>
      )}

      {(dirty || saveError) && (
        <section className={css.saveBar} aria-label={t('settings.roles.unsavedChanges')}>
          <p className={css.saveText}>
            {saveError ? (
              <span role="alert" className={css.saveError}>
                {t('settings.roles.notSavedSaveerror', { saveError })}
              </span>
            ) : locked ? (
              t('settings.roles.thisRoleCanNo')
            ) : (
              t('settings.roles.carefulYouHaveUnsaved')
            )}
          </p>
          <div className="row tight">
            <button
              type="button"
              className="button secondary small"
              disabled={saving}
              onClick={() => {
                setEdits({});
                setSaveError(null);
              }}
            >
              {t('settings.roles.discardChanges')}
            </button>
            <button type="button" className="button primary small" disabled={saving || !dirty || locked !== null} onClick={save}>
              {saving ? t('settings.roles.saving') : t('settings.roles.saveChanges')}
            </button>
          </div>
        </section>
      )}
    </div>
  );
}

function Toggle({
  id,
  label,
  help,
  checked,
  disabled,
  onChange,
  children,
}: {
  id: string;
  label: string;
  help: string;
  checked: boolean;
  disabled?: boolean;
  onChange: (v: boolean) => void;
  children?: ReactNode;
}) {
  return (
    <div className={css.toggle} data-disabled={disabled || undefined}>
      <div className={css.toggleText}>
        <label htmlFor={id} className={css.toggleLabel}>
          {label}
        </label>
        <p id={`${id}-help`} className={css.toggleHelp}>
          {help}
        </p>
        {children}
      </div>
      <input
        id={id}
        type="checkbox"
        role="switch"
        className={css.switch}
        checked={checked}
        aria-checked={checked}
        disabled={disabled}
        aria-describedby={`${id}-help`}
        onChange={(e) => onChange(e.target.checked)}
      />
    </div>
  );
}

const hex = (c: number) => `#${c.toString(16).padStart(6, '0')}`;

function ColorPicker({ id, value, onChange }: { id: string; value: number; onChange: (c: number) => void }) {
  const custom = value !== 0 && !PALETTE.some((p) => p.color === value);
  return (
    <fieldset className={css.colors}>
      <legend className="field-label">{t('settings.roles.colour')}</legend>
      <p className="hint" id={`${id}-color-help`}>
        {t('settings.roles.namesOfPeopleWith')}
      </p>
      <div className={css.swatches}>
        <label className={css.swatchLabel} title={t('settings.roles.noColour')}>
          <input type="radio" name={`${id}-color`} className={css.swatchInput} checked={value === 0} onChange={() => onChange(0)} />
          <span className={`${css.swatch} ${css.noColor}`} aria-hidden="true" />
          <span className="visually-hidden">{t('settings.roles.noColour')}</span>
        </label>
        {PALETTE.map((p) => (
          <label key={p.color} className={css.swatchLabel} title={p.name}>
            <input
              type="radio"
              name={`${id}-color`}
              className={css.swatchInput}
              checked={value === p.color}
              onChange={() => onChange(p.color)}
            />
            <span className={css.swatch} style={{ background: hex(p.color) }} aria-hidden="true" />
            <span className="visually-hidden">{p.name}</span>
          </label>
        ))}
        <label className={css.customLabel} data-active={custom || undefined}>
          <input
            type="color"
            className={css.customInput}
            value={value ? hex(value) : '#99aab5'}
            // #000000 would read as "no colour": the nearest colour stands in for black.
            onChange={(e) => onChange(Number.parseInt(e.target.value.slice(1), 16) || 1)}
          />
          <span>{t('settings.roles.customColour')}</span>
        </label>
      </div>
    </fieldset>
  );
}

export function LockIcon() {
  return (
    <svg
      width={14}
      height={14}
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth={2.2}
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
      focusable="false"
    >
      <rect x="4" y="11" width="16" height="10" rx="2" />
      <path d="M8 11V7a4 4 0 0 1 8 0v4" />
    </svg>
  );
}
