/** The two choices for a new invite (expiry and uses): the settings' Invites section and the sidebar's invite dialog. */
import { EXPIRY_OPTIONS, USES_OPTIONS } from '../lib/invite-options';
import { t } from '../i18n';

export function InviteLimits({
  id,
  maxAge,
  maxUses,
  onMaxAge,
  onMaxUses,
}: {
  id: string;
  maxAge: number;
  maxUses: number;
  onMaxAge: (s: number) => void;
  onMaxUses: (n: number) => void;
}) {
  return (
    <>
      <div className="field">
        <label htmlFor={`${id}-age`} className="field-label">
          {t('inviteLimits.expireAfter')}
        </label>
        <select id={`${id}-age`} className="input" value={maxAge} onChange={(e) => onMaxAge(Number(e.target.value))}>
          {EXPIRY_OPTIONS.map((o) => (
            <option key={o.seconds} value={o.seconds}>
              {o.label}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor={`${id}-uses`} className="field-label">
          {t('inviteLimits.maxUses')}
        </label>
        <select id={`${id}-uses`} className="input" value={maxUses} onChange={(e) => onMaxUses(Number(e.target.value))}>
          {USES_OPTIONS.map((o) => (
            <option key={o.uses} value={o.uses}>
              {o.label}
            </option>
          ))}
        </select>
      </div>
    </>
  );
}
