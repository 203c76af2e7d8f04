/**
 * A channel's permission overwrites as the web client edits them: bits as bigints, the
 * `@everyone` overwrite (the server's id), and what makes a channel private (docs/permissions.md: its
 * `@everyone` overwrite denies VIEW_CHANNEL).
 */
import { P, parsePermissions } from '@parley/protocol/permissions';
import type { Channel, Overwrite } from '../api/types';

export interface Bits {
  allow: bigint;
  deny: bigint;
}

export const NO_BITS: Bits = { allow: 0n, deny: 0n };

/** One overwrite's bits (unknown or malformed strings count as none). */
export function bitsOf(o: Pick<Overwrite, 'allow' | 'deny'> | undefined): Bits {
  if (!o) return NO_BITS;
  return { allow: parsePermissions(o.allow) ?? 0n, deny: parsePermissions(o.deny) ?? 0n };
}

export function overwriteFor(channel: Channel, targetId: string): Overwrite | undefined {
  return channel.permissionOverwrites?.find((o) => o.id === targetId);
}

/** Private: `@everyone` (the server's id) is denied seeing the channel. */
export function isPrivate(channel: Channel): boolean {
  return (bitsOf(overwriteFor(channel, channel.serverId)).deny & P.VIEW_CHANNEL) !== 0n;
}

/** The channel with one overwrite replaced, added, or (bits all clear, or null) removed. */
export function withOverwrite(channel: Channel, targetId: string, type: Overwrite['type'], bits: Bits | null): Channel {
  const rest = (channel.permissionOverwrites ?? []).filter((o) => o.id !== targetId);
  const keep = bits && (bits.allow !== 0n || bits.deny !== 0n);
  return {
    ...channel,
    permissionOverwrites: keep ? [...rest, { id: targetId, type, allow: bits.allow.toString(), deny: bits.deny.toString() }] : rest,
  };
}

export type TriState = 'allow' | 'inherit' | 'deny';

export function stateOf(bits: Bits, flag: bigint): TriState {
  if (bits.allow & flag) return 'allow';
  if (bits.deny & flag) return 'deny';
  return 'inherit';
}

export function setState(bits: Bits, flag: bigint, state: TriState): Bits {
  const allow = bits.allow & ~flag;
  const deny = bits.deny & ~flag;
  if (state === 'allow') return { allow: allow | flag, deny };
  if (state === 'deny') return { allow, deny: deny | flag };
  return { allow, deny };
}
