import type { Server, Socket } from 'node:net';

/**
 * The client a connection counts against. IPv4 addresses (also IPv4-mapped IPv6) count
 * alone; an IPv6 address counts with its /64, since one host is usually given a whole
 * /64 and could otherwise open the cap's worth of connections from each of its addresses.
 */
export function clientKey(remoteAddress: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(remoteAddress);
  if (mapped) return mapped[1]!;
  if (!remoteAddress.includes(':')) return remoteAddress;
  const addr = remoteAddress.split('%')[0]!.toLowerCase();
  // An embedded IPv4 tail (64:ff9b::1.2.3.4) stands for two groups.
  const groups = (part: string) => (part === '' ? [] : part.split(':').flatMap((g) => (g.includes('.') ? ['0', '0'] : [g])));
  const gap = addr.indexOf('::');
  const head = groups(gap === -1 ? addr : addr.slice(0, gap));
  const tail = gap === -1 ? [] : groups(addr.slice(gap + 2));
  const zeros = gap === -1 ? [] : Array<string>(Math.max(0, 8 - head.length - tail.length)).fill('0');
  const full = [...head, ...zeros, ...tail];
  return `${full
    .slice(0, 4)
    .map((g) => Number.parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}

/**
 * Caps the open TCP connections of one client: the connection over the cap is destroyed
 * as soon as it is accepted, before it is read. Counting on the server's 'connection'
 * event covers HTTP, keep-alive and WebSocket upgrades alike, since an upgraded socket
 * stays the same connection until it closes. `max` 0 means no cap.
 */
export function limitConnectionsPerClient(server: Server, max: number, onRefused: (client: string) => void): void {
  if (max <= 0) return;
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress;
    // No address: the peer is already gone.
    if (address === undefined) {
      socket.destroy();
      return;
    }
    const key = clientKey(address);
    const count = (open.get(key) ?? 0) + 1;
    if (count > max) {
      socket.destroy();
      onRefused(key);
      return;
    }
    open.set(key, count);
    socket.once('close', () => {
      const left = (open.get(key) ?? 1) - 1;
      if (left > 0) open.set(key, left);
      else open.delete(key);
    });
  });
}
