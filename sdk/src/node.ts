/**
 * The SDK's entry on Node (the `node` condition of package.json's `exports`): all of
 * `index.ts`, with the `ws` package as the gateway's default WebSocket, so bots need no
 * option. Browsers and bundlers get `index.ts` alone, which uses the platform's
 * `WebSocket`; this is the only module that imports `ws`.
 */
import WebSocket from 'ws';
import { setPlatformWebSocket } from './gateway.js';

setPlatformWebSocket((url, { handshakeTimeoutMs }) => new WebSocket(url, { handshakeTimeout: handshakeTimeoutMs }));

export * from './index.js';
