/** The choices offered when creating an invite, and how an invite's limits read. */
import { t } from '../i18n';

/** An option whose label is read from the catalog when shown. */
function option<K extends string>(key: K, value: number, label: () => string): { readonly label: string } & Record<K, number> {
  return {
    [key]: value,
    get label() {
      return label();
    },
  } as { readonly label: string } & Record<K, number>;
}

const expiry = (seconds: number) => {
  if (!seconds) return option('seconds', 0, () => t('inviteOptions.never'));
  if (seconds < 3600) return option('seconds', seconds, () => t('inviteOptions.minutes', { count: seconds / 60 }));
  if (seconds < 86_400) return option('seconds', seconds, () => t('inviteOptions.hours', { count: seconds / 3600 }));
  return option('seconds', seconds, () => t('inviteOptions.days', { count: seconds / 86_400 }));
};

export const EXPIRY_OPTIONS: { seconds: number; readonly label: string }[] = [
  30 * 60,
  60 * 60,
  6 * 3600,
  12 * 3600,
  86_400,
  7 * 86_400,
  0,
].map(expiry);

/** The service's default, as Discord's. */
export const DEFAULT_EXPIRY = 7 * 24 * 60 * 60;

export const USES_OPTIONS: { uses: number; readonly label: string }[] = [0, 1, 5, 10, 25, 50, 100].map((uses) =>
  option('uses', uses, () => (uses ? t('inviteOptions.uses', { count: uses }) : t('inviteOptions.noLimit'))),
);

const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });

/** "in 6 days", "in 45 minutes", "never"; "expired" once past. */
export function describeExpiry(expiresAt: string | null | undefined, now = Date.now()): string {
  if (!expiresAt) return t('inviteOptions.neverLower');
  const ms = new Date(expiresAt).getTime() - now;
  if (Number.isNaN(ms)) return t('inviteOptions.neverLower');
  if (ms <= 0) return t('inviteOptions.expired');
  const minutes = Math.round(ms / 60_000);
  if (minutes < 60) return relative.format(Math.max(1, minutes), 'minute');
  const hours = Math.round(ms / 3_600_000);
  if (hours < 24) return relative.format(hours, 'hour');
  return relative.format(Math.round(ms / 86_400_000), 'day');
}

/** "3 / 10", or "3" when there is no limit. */
export function describeUses(uses: number, maxUses: number): string {
  return maxUses ? `${uses} / ${maxUses}` : String(uses);
}

/** A one-line summary for a new link: "Expires in 7 days · 1 use". */
export function describeLimits(invite: { expiresAt: string | null; maxUses: number }): string {
  const expires = invite.expiresAt
    ? t('inviteOptions.expires', { when: describeExpiry(invite.expiresAt) })
    : t('inviteOptions.neverExpires');
  const uses = invite.maxUses ? t('inviteOptions.uses', { count: invite.maxUses }) : t('inviteOptions.noLimitOnUses');
  return t('inviteOptions.summary', { expires, uses });
}
