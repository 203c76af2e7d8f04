/** Permission checkboxes, shared by the add-bot form and each bot row. */
import { useId } from 'react';
import { ALL_PERMISSIONS, type Permission } from '../../api/types';
import { t } from '../../i18n';
import '../../i18n/settings';
import styles from './settings.module.css';

const permissionLabel = (p: Permission): string => t(`settings.bots.permissionNames.${p}`);

export function PermissionBoxes({
  value,
  onChange,
  label,
  disabled,
}: {
  value: Permission[];
  onChange: (p: Permission[]) => void;
  label: string;
  disabled?: boolean;
}) {
  const id = useId();
  return (
    <fieldset className={styles.permissions} disabled={disabled}>
      <legend className="visually-hidden">{label}</legend>
      {ALL_PERMISSIONS.map((p) => (
        <label key={p} htmlFor={`${id}-${p}`} className="check">
          <input
            id={`${id}-${p}`}
            type="checkbox"
            checked={value.includes(p)}
            onChange={(e) =>
              onChange(e.target.checked ? ALL_PERMISSIONS.filter((x) => x === p || value.includes(x)) : value.filter((x) => x !== p))
            }
          />
          {permissionLabel(p)}
        </label>
      ))}
    </fieldset>
  );
}
