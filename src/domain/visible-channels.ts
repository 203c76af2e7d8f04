import { type Channel, P } from '@parley/protocol';
import type { ChannelInfo, ServerModel } from './permissions.js';
import type { Caller } from './types.js';

/**
 * The channels of a server `caller` may see (VIEW_CHANNEL, the one permission function)
 * with `roles`, in the order clients list them: by position, then by id. One filter for
 * the ready snapshot (`ready.ts`), the gateway's views (`gateway/view.ts`) and Discord's
 * GUILD_CREATE (docs/gateway.md#connecting-hello-identify-ready).
 */
export function visibleChannels(model: ServerModel, caller: Pick<Caller, 'id' | 'bot'>, roles: readonly string[]): ChannelInfo[] {
  return [...model.channels.values()]
    .filter((c) => (model.permissions(caller.id, caller.bot, roles, c.id) & P.VIEW_CHANNEL) !== 0n)
    .sort((a, b) => a.position - b.position || a.id.length - b.id.length || (a.id < b.id ? -1 : 1));
}

/** A channel of the model as events show it, with its overwrites; undefined when the model has no such channel. */
export function channelOf(model: ServerModel, id: string): (ChannelInfo & Required<Pick<Channel, 'permissionOverwrites'>>) | undefined {
  const c = model.channels.get(id);
  if (!c) return undefined;
  return {
    ...c,
    permissionOverwrites: (model.overwrites.get(id) ?? []).map((o) => ({
      id: o.id,
      type: o.type,
      allow: o.allow.toString(),
      deny: o.deny.toString(),
    })),
  };
}
