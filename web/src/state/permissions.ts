/**
 * What the user may do, computed in the browser by the same function the service uses
 * (`computePermissions` from @parley/protocol/permissions), from the roles and overwrites
 * the gateway keeps current. The UI only hides or disables what the service would refuse;
 * the service still decides.
 */
import {
  ALL_PERMISSION_BITS,
  computePermissions,
  highestPosition,
  P,
  parsePermissions,
  type RoleBits,
  threadPermissions,
} from '@parley/protocol/permissions';
import { useMemo } from 'react';
import type { Channel, Role, Server, Thread } from '../api/types';
import { type State, useStore } from './store';

export { P };

const roleMaps = new WeakMap<Role[], ReadonlyMap<string, RoleBits>>();

/** A server's roles as `computePermissions` takes them (memoized per roles array). */
export function roleMap(roles: Role[] | undefined): ReadonlyMap<string, RoleBits> {
  if (!roles) return new Map();
  let map = roleMaps.get(roles);
  if (!map) {
    map = new Map(roles.map((r) => [r.id, { id: r.id, position: r.position, permissions: parsePermissions(r.permissions) ?? 0n }]));
    roleMaps.set(roles, map);
  }
  return map;
}

function overwritesOf(channel: Channel | undefined) {
  return (channel?.permissionOverwrites ?? []).map((o) => ({
    id: o.id,
    type: o.type,
    allow: parsePermissions(o.allow) ?? 0n,
    deny: parsePermissions(o.deny) ?? 0n,
  }));
}

export interface Subject {
  id: string;
  bot?: boolean;
  /** Role ids, `@everyone` not included. */
  roles: readonly string[];
}

/** Someone's permissions in a server, or in one of its channels. */
export function permissionsOf(server: Server, roles: Role[] | undefined, subject: Subject, channel?: Channel): bigint {
  if (subject.id === server.ownerId) return ALL_PERMISSION_BITS;
  return computePermissions({
    serverId: server.id,
    ownerId: server.ownerId,
    userId: subject.id,
    bot: !!subject.bot,
    roles: roleMap(roles),
    memberRoles: subject.roles,
    overwrites: channel ? overwritesOf(channel) : undefined,
  });
}

/** The position of someone's highest role; the owner is above every role. */
export function topPosition(server: Server, roles: Role[] | undefined, subject: Subject): number {
  return highestPosition({ userId: subject.id, ownerId: server.ownerId, roles: roleMap(roles), memberRoles: subject.roles });
}

/** A server's channel or category (docs/api.md#categories) by id. */
export function findChannel(state: State, serverId: string, channelId: string): Channel | undefined {
  return state.channels[serverId]?.find((c) => c.id === channelId) ?? state.categories[serverId]?.find((c) => c.id === channelId);
}

/**
 * A member's permissions in a thread from theirs in its parent, by the service's rules
 * (`threadPermissions`, docs/threads.md#permissions).
 */
export function inThread(parentBits: bigint, thread: Thread): bigint {
  return threadPermissions(parentBits, {
    private: thread.type === 'private_thread',
    locked: thread.metadata.locked,
    member: !!thread.member,
  });
}

/** The signed-in user's permissions in a server (and channel, or thread), from state. */
export function myPermissions(state: State, serverId: string, channelId?: string | null): bigint {
  const server = state.servers[serverId];
  const me = state.me;
  if (!server || !me) return 0n;
  const thread = channelId ? state.threads[channelId] : undefined;
  if (thread) return thread.serverId === serverId ? inThread(myPermissions(state, serverId, thread.parentId), thread) : 0n;
  const channel = channelId ? findChannel(state, serverId, channelId) : undefined;
  if (channelId && !channel) return 0n;
  return permissionsOf(server, state.roles[serverId], { id: me.id, roles: state.myRoles[serverId] ?? [] }, channel);
}

/**
 * The signed-in user's permissions, kept current as roles, overwrites and their own roles
 * change. Without a channel: server-wide.
 */
export function usePermissions(serverId: string, channelId?: string | null): bigint {
  const server = useStore((s) => s.servers[serverId]);
  const meId = useStore((s) => s.me?.id);
  const roles = useStore((s) => s.roles[serverId]);
  const mine = useStore((s) => s.myRoles[serverId]);
  const thread = useStore((s) => (channelId ? s.threads[channelId] : undefined));
  // In a thread, its parent's overwrites, then the thread's rules.
  const channel = useStore((s) => (channelId ? findChannel(s, serverId, thread?.parentId ?? channelId) : undefined));
  return useMemo(() => {
    if (!server || !meId) return 0n;
    if (channelId && !channel) return 0n;
    const bits = permissionsOf(server, roles, { id: meId, roles: mine ?? [] }, channel);
    return thread ? inThread(bits, thread) : bits;
  }, [server, meId, roles, mine, channel, channelId, thread]);
}

/** Whether `bits` include every permission in `needed`. */
export function can(bits: bigint, needed: bigint): boolean {
  return (bits & needed) === needed;
}

/** Whether `bits` include any of `options`. */
export function canAny(bits: bigint, options: bigint): boolean {
  return (bits & options) !== 0n;
}
