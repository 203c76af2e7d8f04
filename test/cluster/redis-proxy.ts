/** A TCP proxy in front of Redis that the test can cut and restore, to simulate an outage. */
export async function redisProxy(target: URL) {
  const net = await import('node:net');
  const sockets = new Set<import('node:net').Socket>();
  let server: import('node:net').Server;
  const listen = (port: number) =>
    new Promise<number>((resolve) => {
      server = net.createServer((client) => {
        const upstream = net.connect(Number(target.port || 6379), target.hostname);
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on('error', () => {});
          s.on('close', () => sockets.delete(s));
        }
        client.pipe(upstream).pipe(client);
      });
      server.listen(port, '127.0.0.1', () => resolve((server.address() as import('node:net').AddressInfo).port));
    });
  const port = await listen(0);
  return {
    url: `redis://127.0.0.1:${port}`,
    cut: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
    restore: () => listen(port).then(() => undefined),
    close: () => {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}
