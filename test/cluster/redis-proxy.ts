import net from 'node:net';

/**
 * A TCP proxy in front of Redis that the test can cut and restore, to simulate an outage.
 * It keeps its port (bound once, to port 0) through the outage and refuses connections
 * by closing them, rather than stopping and listening on the same number again, which
 * another process could have taken meanwhile.
 */
export async function redisProxy(target: URL) {
  const sockets = new Set<net.Socket>();
  let down = false;
  const server = net.createServer((client) => {
    if (down) {
      client.destroy();
      return;
    }
    const upstream = net.connect(Number(target.port || 6379), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => {});
      s.on('close', () => sockets.delete(s));
    }
    client.pipe(upstream).pipe(client);
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port));
  });
  const dropAll = () => {
    for (const s of sockets) s.destroy();
  };
  return {
    url: `redis://127.0.0.1:${port}`,
    /** From now on every connection through the proxy is closed, open ones at once. */
    cut: async () => {
      down = true;
      dropAll();
    },
    restore: async () => {
      down = false;
    },
    close: () => {
      dropAll();
      server.close();
    },
  };
}
