/**
 * The settings sections and who sees each. Apart from the page so that the sidebar can ask
 * `canOpenSettings` without pulling the settings page into the first load.
 */
import { canAny, P } from '../../state/permissions';

/** Who sees each section (their names are the catalog's `settings.tabs`): `owner`, `any` (whoever sees another section), or any of these permissions server-wide. */
export const TABS = [
  { id: 'overview', needs: P.MANAGE_SERVER },
  { id: 'roles', needs: P.MANAGE_ROLES },
  { id: 'channels', needs: P.MANAGE_CHANNELS | P.MANAGE_ROLES },
  // Listing and revoking every invite is MANAGE_SERVER's; CREATE_INVITE alone is the
  // sidebar's "Invite people", which does not open settings.
  { id: 'invites', needs: P.MANAGE_SERVER },
  { id: 'bans', needs: P.BAN_MEMBERS },
  { id: 'audit-log', needs: P.VIEW_AUDIT_LOG },
  // Shown to everyone who reaches settings: an administrator looks for webhooks here, and
  // the section says that only the owner manages them (docs/api.md#webhooks-management-server-owner-only).
  { id: 'webhooks', needs: 'any' },
  { id: 'bots', needs: 'owner' },
] as const;

export type TabId = (typeof TABS)[number]['id'];

/** Whether someone with `bits` (and owning the server or not) may open any settings section. */
export function canOpenSettings(bits: bigint, owner: boolean): boolean {
  return owner || TABS.some((t) => typeof t.needs === 'bigint' && canAny(bits, t.needs));
}
