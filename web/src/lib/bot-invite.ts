/**
 * Discord's bot invite link, `/oauth2/authorize?client_id=…&permissions=…&scope=bot`, as
 * Parley reads and writes it (docs/api.md, "Adding a bot"). A bot's client id is its id.
 */
import { ALL_PERMISSION_BITS, BOT_DEFAULT_PERMISSIONS, parsePermissions } from '@parley/protocol/permissions';
import { paths } from '../router';

export interface AuthorizeRequest {
  /** The bot's id, or null when the link has none. */
  clientId: string | null;
  /** The Parley permissions the link asks for (Discord's bits Parley has). */
  asked: bigint;
  /** How many of the asked bits Parley has no permission for (Discord's voice, threads, ...). */
  unknownBits: number;
  /** Whether the link asks to add a bot: its scope names `bot` or `applications.commands`. */
  addsBot: boolean;
  /** The server to preselect (`guild_id`), and whether the person may pick another (`disable_guild_select`). */
  guildId: string | null;
  lockGuild: boolean;
}

function countBits(bits: bigint): number {
  let n = 0;
  for (let b = bits; b > 0n; b >>= 1n) if (b & 1n) n++;
  return n;
}

/** Reads a link's query string as Discord does: `scope` is space-separated, `permissions` a decimal bitfield. */
export function parseAuthorize(search: string): AuthorizeRequest {
  const q = new URLSearchParams(search);
  const bits = parsePermissions(q.get('permissions') ?? '0') ?? 0n;
  const scopes = (q.get('scope') ?? 'bot').split(/[\s+]+/).filter(Boolean);
  const guildId = q.get('guild_id');
  return {
    clientId: q.get('client_id') || null,
    asked: bits & ALL_PERMISSION_BITS,
    unknownBits: countBits(bits & ~ALL_PERMISSION_BITS),
    addsBot: scopes.includes('bot') || scopes.includes('applications.commands'),
    guildId: guildId || null,
    lockGuild: !!guildId && q.get('disable_guild_select') === 'true',
  };
}

/**
 * What the page offers to grant: what the link asks for, and the default set a bot holds
 * when added without permissions, which stands in for what a Discord bot takes from
 * `@everyone` (docs/permissions.md, "Bots").
 */
export const offeredBits = (asked: bigint): bigint => asked | BOT_DEFAULT_PERMISSIONS;

/** The invite link of a bot on this Parley, asking for `bits`. */
export function inviteUrl(origin: string, botId: string, bits: bigint): string {
  const q = new URLSearchParams({ client_id: botId, permissions: bits.toString(), scope: 'bot applications.commands' });
  return `${origin}${paths.authorize()}?${q.toString().replace(/\+/g, '%20')}`;
}
