/**
 * A TLS terminator in front of a test Parley, for Eris, whose REST client speaks only
 * HTTPS. A self-signed certificate for `localhost` and 127.0.0.1 is made with the system's
 * `openssl` (one EC key, valid one day) into a temporary directory; each TLS connection is
 * piped to Parley's plain port, so requests and WebSocket upgrades both pass through.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { promisify } from 'node:util';
import type { TestServer } from '../harness.js';

export interface TlsFront {
  /** https://localhost:<port> */
  base: string;
  /** The certificate (PEM), which a client trusts as its CA. */
  ca: string;
  close(): Promise<void>;
}

export async function tlsFront(srv: TestServer): Promise<TlsFront> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-tls-'));
  const [key, cert] = [path.join(dir, 'key.pem'), path.join(dir, 'cert.pem')];
  try {
    await promisify(execFile)('openssl', [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
    ]);
  } catch (err) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw new Error(`the Eris suite makes its test certificate with openssl, which failed: ${(err as Error).message}`);
  }
  const ca = fs.readFileSync(cert, 'utf8');
  const target = Number(new URL(srv.url).port);
  const sockets = new Set<net.Socket>();
  const server = tls.createServer({ key: fs.readFileSync(key), cert: ca }, (client) => {
    const upstream = net.connect(target, '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  fs.rmSync(dir, { recursive: true, force: true });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    base: `https://localhost:${port}`,
    ca,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
