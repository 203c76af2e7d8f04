// The SDK's gateway client beyond what bots use by default (mock-gateway.ts as the
// server): a WebSocket class given as an option, with only the standard (browser) surface;
// `status` events; retrying a failed first connection; reconnect() cutting a backoff short.
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { GatewayClient, GatewayError, gatewayUrlFor, type GatewayCloseInfo, type GatewayStatus, type WebSocketLike } from '@parley/sdk';
import { MockGateway, until } from './mock-gateway.js';

const fast = { initialDelayMs: 20, maxDelayMs: 100 };

/**
 * A WebSocket as browsers have it, made of a `ws` one: the standard surface only, so no
 * `terminate()`, no `on()`, no send callback, no options.
 */
class StandardWebSocket implements WebSocketLike {
  static readonly made: StandardWebSocket[] = [];
  readonly #ws: WebSocket;

  constructor(url: string) {
    this.#ws = new WebSocket(url);
    StandardWebSocket.made.push(this);
  }

  get readyState(): number {
    return this.#ws.readyState;
  }

  get binaryType(): string {
    return this.#ws.binaryType;
  }

  set binaryType(type: string) {
    this.#ws.binaryType = type as WebSocket['binaryType'];
  }

  send(data: string): void {
    this.#ws.send(data);
  }

  close(code?: number, reason?: string): void {
    this.#ws.close(code, reason);
  }

  addEventListener(type: 'message' | 'close' | 'error', listener: (event: never) => void): void {
    this.#ws.addEventListener(type, listener as () => void);
  }
}

let gateway: MockGateway | undefined;
const clients: GatewayClient[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await gateway?.close();
  gateway = undefined;
  StandardWebSocket.made.length = 0;
});

function newClient(url: string, options: Omit<ConstructorParameters<typeof GatewayClient>[0], 'url' | 'token'> = {}): GatewayClient {
  const client = new GatewayClient({ url, token: 'Bot good', reconnect: fast, ...options });
  clients.push(client);
  return client;
}

async function startMock(options: ConstructorParameters<typeof MockGateway>[0] = {}, port = 0): Promise<string> {
  gateway = new MockGateway(options);
  return gatewayUrlFor(await gateway.listen(port));
}

/** A port nothing listens on (until a test starts something there). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('gateway client options', () => {
  it('connects with the WebSocket class it is given; a standard-only socket gets events, drops a zombie and resumes', async () => {
    const url = await startMock({ heartbeatInterval: 40 });
    const client = newClient(url, { WebSocket: StandardWebSocket });
    const seen: number[] = [];
    client.on('dispatch', (event) => {
      seen.push(event.s);
    });
    await client.connect();
    expect(StandardWebSocket.made).toHaveLength(1);
    expect(client.socket).toBe(StandardWebSocket.made[0]);
    gateway!.publish('MESSAGE_CREATE', { id: 'm1' });
    await until(() => seen.length === 1, 2000, 'first event');

    // No acks: without terminate() the client closes the socket and reports the close
    // at once (1006), without waiting for a closing handshake a dead link never finishes.
    gateway!.options.ackHeartbeats = false;
    const [info] = await client.waitFor('close', { timeoutMs: 2000 });
    expect(info).toEqual({ code: 1006, reason: '', reconnecting: true });
    expect(StandardWebSocket.made[0]!.readyState).toBeGreaterThanOrEqual(2); // closing or closed
    gateway!.options.ackHeartbeats = true;
    gateway!.publish('MESSAGE_CREATE', { id: 'm2' }); // missed: comes by replay
    await client.waitFor('resumed', { timeoutMs: 2000 });
    await until(() => seen.length === 2, 2000, 'replayed event');

    expect(seen).toEqual([1, 2]);
    expect(StandardWebSocket.made).toHaveLength(2);
    expect(client.socket).toBe(StandardWebSocket.made[1]);
    expect(gateway!.framesOf('identify')).toHaveLength(1);
    expect(gateway!.framesOf('resume')[0]?.d).toEqual({ token: 'Bot good', sessionId: 'session-1', s: 1 });
  });

  it('uses the ws package on Node when given no WebSocket class', async () => {
    const client = newClient(await startMock());
    await client.connect();
    expect(client.socket).toBeInstanceOf(WebSocket);
  });

  it('reports every status change as a status event', async () => {
    const client = newClient(await startMock());
    const statuses: GatewayStatus[] = [];
    client.on('status', (status) => {
      statuses.push(status);
    });
    await client.connect();
    const resumed = client.waitFor('resumed', { timeoutMs: 2000 });
    gateway!.dropAll();
    await resumed;
    await client.close();
    expect(statuses).toEqual(['connecting', 'ready', 'reconnecting', 'ready', 'closed']);
    expect(client.status).toBe('closed');
  });

  it('with retryFirstConnection, keeps trying until the server comes up, then resolves connect()', async () => {
    const port = await freePort();
    const client = newClient(`ws://127.0.0.1:${port}/gateway`, { reconnect: { ...fast, retryFirstConnection: true } });
    const statuses: GatewayStatus[] = [];
    client.on('status', (status) => {
      statuses.push(status);
    });
    const connected = client.connect();
    const [refused] = await client.waitFor('close', { timeoutMs: 2000 });
    expect(refused.reconnecting).toBe(true);

    await startMock({}, port);
    const ready = await connected;
    expect(ready.sessionId).toBe('session-1');
    expect(client.status).toBe('ready');
    expect(statuses.slice(0, 2)).toEqual(['connecting', 'reconnecting']);
    expect(statuses.at(-1)).toBe('ready');
  });

  it('with retryFirstConnection, gives up after maxAttempts and rejects connect()', async () => {
    const port = await freePort();
    const client = newClient(`ws://127.0.0.1:${port}/gateway`, { reconnect: { ...fast, retryFirstConnection: true, maxAttempts: 2 } });
    const closes: GatewayCloseInfo[] = [];
    client.on('close', (info) => {
      closes.push(info);
    });
    const error = await client.connect().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayError);
    expect(closes.map((c) => c.reconnecting)).toEqual([true, true, false]);
    expect(client.status).toBe('closed');
  });

  it('reconnect() while waiting out a backoff delay reconnects at once', async () => {
    const client = newClient(await startMock(), { reconnect: { initialDelayMs: 60_000, maxDelayMs: 60_000 } });
    await client.connect();
    const closed = client.waitFor('close', { timeoutMs: 2000 });
    gateway!.dropAll();
    expect((await closed)[0].reconnecting).toBe(true);
    expect(client.socket).toBeUndefined(); // waiting 30-60 s
    const resumed = client.waitFor('resumed', { timeoutMs: 2000 });
    client.reconnect();
    await resumed;
    expect(gateway!.connections).toBe(2);
  });

  it('reconnect() does nothing before connect() or after close()', async () => {
    const client = newClient(await startMock());
    client.reconnect();
    expect(client.status).toBe('idle');
    await client.connect();
    await client.close();
    client.reconnect();
    expect(client.status).toBe('closed');
    expect(gateway!.connections).toBe(1);
  });
});
