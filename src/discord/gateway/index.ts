import type { IncomingMessage } from 'node:http';
import type { WebSocket } from 'ws';
import type { DomainContext } from '../../domain/context.js';
import type { Wire } from '../../gateway/wire-interface.js';
import { DISCORD_GATEWAY_PATH, discordGatewayUrl } from '../plugin.js';
import { DiscordWire, discordWireOptions } from './discord-wire.js';

/** The native gateway's extra protocols: Discord's gateway v10 on its path (`GatewayOptions.wires`). */
export function discordWires(ctx: DomainContext): Record<string, (ws: WebSocket, req: IncomingMessage) => Wire> {
  return {
    // READY's resume_gateway_url is the same socket: sessions live in the shared gateway, on any instance.
    [DISCORD_GATEWAY_PATH]: (ws, req) =>
      new DiscordWire(ws, discordWireOptions(req.url ?? '', ctx.publicUrl, discordGatewayUrl(ctx.publicUrl))),
  };
}
