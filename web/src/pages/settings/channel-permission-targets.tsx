/** How the channel permission editor draws a role or member: a badge, a name, a grouped select. */
import { Avatar } from '../../components/avatar';
import roleNameCss from '../../components/role-name.module.css';
import { nameColor, nameColorStyle } from '../../lib/name-color';
import { roleColor } from '../../lib/permission-labels';
import { t } from '../../i18n';
import styles from './channel-permissions.module.css';
import type { Target } from './use-channel-permissions';

export function TargetBadge({ target, size = 22 }: { target: Target; size?: number }) {
  if (target.member) return <Avatar id={target.member.id} name={target.name} src={target.member.avatar} size={size} />;
  const color = target.role ? roleColor(target.role.color) : undefined;
  return <span className={styles.roleDot} style={color ? { background: color } : undefined} aria-hidden="true" />;
}

export function TargetName({ target }: { target: Target }) {
  const color = target.role ? nameColor(target.role.color) : undefined;
  return (
    <span className={color ? `${styles.targetName} ${roleNameCss.colored}` : styles.targetName} style={nameColorStyle(color)}>
      {target.name}
      {target.self && <span className={styles.you}> {t('settings.channelPermissions.you')}</span>}
    </span>
  );
}

/** A native select of roles and members (grouped), the ones this person may not change disabled. */
export function TargetSelect({
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
