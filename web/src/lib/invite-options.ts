/** The choices offered when creating an invite, and how an invite's limits read. */

export const EXPIRY_OPTIONS: { seconds: number; label: string }[] = [
  { seconds: 30 * 60, label: '30 minutes' },
  { seconds: 60 * 60, label: '1 hour' },
  { seconds: 6 * 60 * 60, label: '6 hours' },
  { seconds: 12 * 60 * 60, label: '12 hours' },
  { seconds: 24 * 60 * 60, label: '1 day' },
  { seconds: 7 * 24 * 60 * 60, label: '7 days' },
  { seconds: 0, label: 'Never' },
];

/** The service's default, as Discord's. */
export const DEFAULT_EXPIRY = 7 * 24 * 60 * 60;

export const USES_OPTIONS: { uses: number; label: string }[] = [
  { uses: 0, label: 'No limit' },
  { uses: 1, label: '1 use' },
  { uses: 5, label: '5 uses' },
  { uses: 10, label: '10 uses' },
  { uses: 25, label: '25 uses' },
  { uses: 50, label: '50 uses' },
  { uses: 100, label: '100 uses' },
];

const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });

/** "in 6 days", "in 45 minutes", "never"; "expired" once past. */
export function describeExpiry(expiresAt: string | null | undefined, now = Date.now()): string {
  if (!expiresAt) return 'never';
  const ms = new Date(expiresAt).getTime() - now;
  if (Number.isNaN(ms)) return 'never';
  if (ms <= 0) return 'expired';
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
  const expiry = invite.expiresAt ? `Expires ${describeExpiry(invite.expiresAt)}` : 'Never expires';
  const uses = invite.maxUses ? `${invite.maxUses} ${invite.maxUses === 1 ? 'use' : 'uses'}` : 'no limit on uses';
  return `${expiry} · ${uses}`;
}
