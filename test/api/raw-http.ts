/**
 * HTTP over a bare TCP socket, for what fetch cannot send: stalled bodies, broken
 * request lines, oversized headers, connections that say nothing.
 */
import net from 'node:net';

export interface RawResult {
  /** Everything the server sent. */
  text: string;
  /** The server closed the connection (false: `waitMs` passed first). */
  closed: boolean;
  /** Milliseconds from the first write (or connect) until close or give-up. */
  elapsedMs: number;
}

/** Opens a connection to `url`'s host and port; resolves once connected. */
export function connect(url: string): Promise<net.Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    socket.once('connect', () => resolve(socket));
    socket.once('error', reject);
  });
}

/**
 * Writes `data` (nothing if empty) and collects the answer until the server closes the
 * connection or `waitMs` passes; the socket is destroyed either way.
 */
export async function exchange(url: string, data: string | Buffer, waitMs: number): Promise<RawResult> {
  const socket = await connect(url);
  return collect(socket, data, waitMs);
}

/** Like `exchange`, on a socket already open. */
export function collect(socket: net.Socket, data: string | Buffer, waitMs: number): Promise<RawResult> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const start = Date.now();
    const done = (closed: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ text: Buffer.concat(chunks).toString('utf8'), closed, elapsedMs: Date.now() - start });
    };
    const timer = setTimeout(() => done(false), waitMs);
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.once('close', () => done(true));
    socket.on('error', () => {});
    if (data.length > 0) socket.write(data);
  });
}

/** Reads one complete response (Content-Length framed) from a keep-alive socket. */
export function readResponse(socket: net.Socket, waitMs = 5000): Promise<ParsedResponse> {
  return new Promise((resolve, reject) => {
    let buf = Buffer.alloc(0);
    const onData = (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      const head = buf.indexOf('\r\n\r\n');
      if (head === -1) return;
      const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(buf.subarray(0, head).toString())?.[1] ?? 0);
      if (buf.length < head + 4 + length) return;
      cleanup();
      resolve(parseResponse(buf.subarray(0, head + 4 + length).toString('utf8')));
    };
    const onClose = () => {
      cleanup();
      reject(new Error(`connection closed before a whole response; got ${JSON.stringify(buf.toString())}`));
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`no whole response within ${waitMs} ms`));
    }, waitMs);
    const cleanup = () => {
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('close', onClose);
    };
    socket.on('data', onData);
    socket.once('close', onClose);
  });
}

export interface ParsedResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Splits a raw HTTP/1.1 response into status, headers (lower-cased names) and body. */
export function parseResponse(text: string): ParsedResponse {
  const head = text.indexOf('\r\n\r\n');
  if (head === -1) throw new Error(`not an HTTP response: ${JSON.stringify(text.slice(0, 200))}`);
  const [statusLine = '', ...lines] = text.slice(0, head).split('\r\n');
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine)?.[1]);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const i = line.indexOf(':');
    headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  return { status, headers, body: text.slice(head + 4) };
}
