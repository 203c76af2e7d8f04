import { PERMISSION_NAMES, type PermissionName } from '@parley/protocol';

/**
 * Objects as the API returns them: the types of the wire schemas in @parley/protocol, so
 * what the domain returns is what the response schemas serialize.
 */
export type { Attachment, Channel, Embed, Message, PublicUser, Server, Webhook } from '@parley/protocol';

/** Who is calling: a person (with their session) or a bot. Webhooks are not callers of these routes. */
export interface Caller {
  id: string;
  name: string;
  bot: boolean;
  avatar: string | null;
  /** A person's login name (null for a bot): the key of their failed-password limit. */
  username?: string | null;
  sessionId?: string;
  /** This request's `X-Audit-Log-Reason`, for the audit-log entries it writes. */
  reason?: string;
  /**
   * The access epoch read when this request was authenticated (`AccessCache`): set only on
   * callers that live for one HTTP request, never on a gateway session's, whose epoch
   * would go stale while it lives.
   */
  accessEpoch?: number;
}

/** The bit of each permission the wire names; the bits never leave the service. */
export const PERMISSIONS = {
  READ_MESSAGES: 1,
  SEND_MESSAGES: 2,
  ADD_REACTIONS: 4,
  ATTACH_FILES: 8,
} as const satisfies Record<PermissionName, number>;
export { PERMISSION_NAMES, type PermissionName };
export const ALL_PERMISSIONS = 15;

export function permissionBits(names: PermissionName[]): number {
  return names.reduce((bits, n) => bits | PERMISSIONS[n], 0);
}

export function permissionNames(bits: number): PermissionName[] {
  return PERMISSION_NAMES.filter((n) => (bits & PERMISSIONS[n]) !== 0);
}
