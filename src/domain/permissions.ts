import type { GatewayEvent } from '../events/types.js';
import { PERMISSIONS, type PermissionName } from './types.js';

/**
 * Who may see or do what, in one place. Routes (through `access.ts`), the gateway's event
 * filter and anything that later lists or searches content ask these functions; nothing
 * else compares permission bits.
 */

/** True when a member holding `bits` in a server has `permission` there. */
export function hasPermission(bits: number, permission: PermissionName): boolean {
  return (bits & PERMISSIONS[permission]) !== 0;
}

/**
 * The permission a member needs, beyond membership, to receive `event`: content and
 * activity in channels (messages, reactions, typing) need READ_MESSAGES, exactly as
 * reading history does; the server's shape (channels, members, its name) needs only
 * membership, as `GET /servers/{id}/channels` and `/members` do.
 */
export function permissionToSee(event: GatewayEvent): PermissionName | null {
  switch (event.t) {
    case 'MESSAGE_CREATE':
    case 'MESSAGE_UPDATE':
    case 'MESSAGE_DELETE':
    case 'REACTION_ADD':
    case 'REACTION_REMOVE':
    case 'TYPING_START':
      return 'READ_MESSAGES';
    case 'CHANNEL_CREATE':
    case 'CHANNEL_UPDATE':
    case 'CHANNEL_DELETE':
    case 'MEMBER_ADD':
    case 'MEMBER_UPDATE':
    case 'MEMBER_REMOVE':
    case 'SERVER_UPDATE':
    // A member's name and avatar, as the member list shows them.
    case 'USER_UPDATE':
      return null;
  }
}

/** True when a member holding `bits` may receive `event` of their server. */
export function maySee(bits: number, event: GatewayEvent): boolean {
  const needed = permissionToSee(event);
  return needed === null || hasPermission(bits, needed);
}
