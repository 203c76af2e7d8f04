/**
 * The state behind one channel's permission editor (docs/permissions.md): the channel from
 * the store, every role and member an overwrite can name (with whether this person may
 * change theirs), and the writes that save an overwrite and apply it locally at once.
 */
import { useCallback, useEffect, useMemo } from 'react';
import { displayName, type Channel, type Member, type Overwrite, type Role, type Server } from '../../api/types';
import { overwriteFor, withOverwrite, type Bits } from '../../lib/overwrites';
import { loadMembers } from '../../state/actions';
import { deleteOverwrite, putOverwrite } from '../../state/moderation';
import { can, findChannel, P, permissionsOf, topPosition, usePermissions } from '../../state/permissions';
import { store, useStore } from '../../state/store';
import { toastError } from '../../state/toasts';
import { t } from '../../i18n';
import '../../i18n/settings';

export const VIEW = P.VIEW_CHANNEL;

/** Someone or something an overwrite can name. */
export interface Target {
  id: string;
  type: Overwrite['type'];
  name: string;
  role?: Role;
  member?: Member;
  /** The person using the editor. */
  self?: boolean;
  /** Why this person may not change it, when they may not. */
  locked?: string;
}

export interface ChannelPermissionsState {
  /** The channel, or undefined once it is deleted. */
  channel: Channel | undefined;
  meId: string;
  /** Whether this person is the owner or an administrator (they always see every channel). */
  admin: boolean;
  /** This person's permissions in the channel (what they may allow or deny to others). */
  channelBits: bigint;
  targets: Map<string, Target>;
  membersLoaded: boolean;
  /** Whether this person could still see the channel with `next` in place (the owner and administrators always can). */
  keepsAccess: (next: Channel) => boolean;
}

export function useChannelPermissions(server: Server, channelId: string): ChannelPermissionsState {
  const channel = useStore((s) => findChannel(s, server.id, channelId));
  const roles = useStore((s) => s.roles[server.id]);
  const members = useStore((s) => s.members[server.id]);
  const meId = useStore((s) => s.me?.id) ?? '';
  const myRoles = useStore((s) => s.myRoles[server.id]);
  const serverBits = usePermissions(server.id);
  const channelBits = usePermissions(server.id, channelId);

  useEffect(() => {
    if (!members) loadMembers(server.id).catch(toastError);
  }, [members, server.id]);

  const me = useMemo(() => ({ id: meId, roles: myRoles ?? [] }), [meId, myRoles]);
  const owner = server.ownerId === meId;
  const admin = owner || can(serverBits, P.ADMINISTRATOR);
  const myTop = topPosition(server, roles, me);

  /** Every role and member, with whether this person may set an overwrite for them (the service's hierarchy rule). */
  const targets = useMemo(() => {
    const map = new Map<string, Target>();
    for (const r of roles ?? []) {
      const everyone = r.id === server.id;
      map.set(r.id, {
        id: r.id,
        type: 'role',
        name: everyone ? '@everyone' : r.name,
        role: r,
        locked: everyone || owner || r.position < myTop ? undefined : t('settings.channelPermissions.lockedRole'),
      });
    }
    for (const m of members ?? []) {
      if (m.id === server.ownerId) continue; // the owner can do everything anyway
      const below = m.id === meId || owner || topPosition(server, roles, { id: m.id, roles: m.roles ?? [] }) < myTop;
      map.set(m.id, {
        id: m.id,
        type: 'member',
        name: displayName(m),
        member: m,
        self: m.id === meId,
        locked: below ? undefined : t('settings.channelPermissions.lockedMember'),
      });
    }
    return map;
  }, [roles, members, server, meId, owner, myTop]);

  const keepsAccess = useCallback(
    (next: Channel) => admin || can(permissionsOf(server, roles, me, next), VIEW),
    [admin, server, roles, me],
  );

  return { channel, meId, admin, channelBits, targets, membersLoaded: !!members, keepsAccess };
}

/** Apply a change to the store at once (the CHANNEL_UPDATE event brings the same soon after). */
export function applyLocally(channel: Channel, targetId: string, type: Overwrite['type'], bits: Bits | null): Channel {
  const next = withOverwrite(channel, targetId, type, bits);
  store.dispatch({ type: 'channel/upsert', channel: next });
  return next;
}

/** PUT the overwrite, or DELETE it when nothing is left in it. */
export async function saveBits(channel: Channel, target: { id: string; type: Overwrite['type'] }, bits: Bits): Promise<Channel> {
  const empty = bits.allow === 0n && bits.deny === 0n;
  if (empty) {
    if (overwriteFor(channel, target.id)) await deleteOverwrite(channel.id, target.id);
  } else {
    await putOverwrite(channel.id, target.id, { type: target.type, allow: bits.allow.toString(), deny: bits.deny.toString() });
  }
  return applyLocally(channel, target.id, target.type, empty ? null : bits);
}

/** An overwrite naming a role or member not (or no longer) in the store. */
export function unknownTarget(o: Overwrite): Target {
  return {
    id: o.id,
    type: o.type,
    name: o.type === 'role' ? t('settings.channelPermissions.deletedRole') : t('settings.channelPermissions.formerMember'),
  };
}
