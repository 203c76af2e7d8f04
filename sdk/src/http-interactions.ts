import { createPublicKey, type KeyObject, verify } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { InteractionContext, type InteractionRouter } from './interaction-router.js';
import type { RestClient } from './rest.js';
import type { Interaction, InteractionCallbackBody } from './types.js';

/**
 * Interactions over HTTP (`@parley/sdk/http`, Node only), for bots with no gateway connection (serverless): a
 * `node:http` request listener for the bot's `interactionsUrl`. It checks each request's
 * Ed25519 signature (`X-Signature-Ed25519` over `X-Signature-Timestamp` + body, with the
 * `publicKey` the bot shows), answers the ping with a pong, and runs the router's handler,
 * whose first callback (`reply`, `defer`, `update`, ...) becomes the HTTP response.
 */

export interface InteractionsHandlerOptions {
  /** The bot's public key, hex, as `GET /bots` shows it. */
  publicKey: string;
  /** Commands and component handlers. */
  router: InteractionRouter;
  /** For follow-ups and edits after the answer (no bot token is needed for those, but the client wants one). */
  rest: RestClient;
  /** Requests whose timestamp is further than this from now are refused (replays); default 300 s. */
  maxSkewSeconds?: number;
  /** Called when a handler throws or answers nothing. */
  onError?: (error: unknown) => void;
}

/** The largest request body read, in bytes. */
const MAX_BODY = 1024 * 1024;

/** Whether `signature` (hex) is `key`'s Ed25519 signature of `timestamp + body`. */
export function verifyInteractionSignature(key: KeyObject | string, signature: string, timestamp: string, body: string): boolean {
  if (!/^[0-9a-f]{128}$/i.test(signature)) return false;
  const publicKey = typeof key === 'string' ? ed25519PublicKey(key) : key;
  try {
    return verify(null, Buffer.from(timestamp + body), publicKey, Buffer.from(signature, 'hex'));
  } catch {
    return false;
  }
}

/** A raw 32-byte Ed25519 public key (hex) as a KeyObject. */
function ed25519PublicKey(hex: string): KeyObject {
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(hex, 'hex').toString('base64url') }, format: 'jwk' });
}

/** The request listener: `http.createServer(createInteractionsHandler({...})).listen(port)`. */
export function createInteractionsHandler(options: InteractionsHandlerOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const key = ed25519PublicKey(options.publicKey);
  const skew = options.maxSkewSeconds ?? 300;
  const report = options.onError ?? ((error: unknown) => console.error('[parley interactions]', error));
  const answer = (res: ServerResponse, status: number, body?: unknown) => {
    if (res.headersSent) return;
    res.writeHead(status, body === undefined ? {} : { 'content-type': 'application/json' });
    res.end(body === undefined ? undefined : JSON.stringify(body));
  };
  return (req, res) => {
    if (req.method !== 'POST') return answer(res, 405, { error: 'POST only' });
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) {
        answer(res, 413, { error: 'too large' });
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on('end', () => {
      if (res.headersSent) return;
      const body = Buffer.concat(chunks).toString('utf8');
      const signature = String(req.headers['x-signature-ed25519'] ?? '');
      const timestamp = String(req.headers['x-signature-timestamp'] ?? '');
      const fresh = /^\d{1,12}$/.test(timestamp) && Math.abs(Date.now() / 1000 - Number(timestamp)) <= skew;
      if (!fresh || !verifyInteractionSignature(key, signature, timestamp, body)) return answer(res, 401, { error: 'invalid signature' });
      let payload: { type?: string };
      try {
        payload = JSON.parse(body) as { type?: string };
      } catch {
        return answer(res, 400, { error: 'invalid JSON' });
      }
      if (payload.type === 'ping') return answer(res, 200, { type: 'pong' });
      void handle(payload as Interaction, res);
    });
  };

  async function handle(raw: Interaction, res: ServerResponse): Promise<void> {
    // The first callback is the response body; the service handles it once the response arrives.
    let respond!: (body: InteractionCallbackBody) => void;
    const responded = new Promise<InteractionCallbackBody>((resolve) => {
      respond = resolve;
    });
    const context = new InteractionContext(raw, options.rest, async (body) => {
      respond(body);
      await new Promise<void>((resolve) => (res.writableFinished ? resolve() : res.once('finish', () => resolve())));
    });
    const done = options.router.dispatch(context).then(
      (handled) => (handled ? undefined : new Error(`no handler for ${raw.type} ${raw.name ?? raw.customId ?? ''}`)),
      (error: unknown) => error,
    );
    const first = await Promise.race([responded, done.then((error) => ({ error }))]);
    if ('type' in first) {
      answer(res, 200, first);
      const error = await done;
      if (error) report(error);
      return;
    }
    report(first.error ?? new Error('the handler answered nothing'));
    answer(res, 500, { error: 'no answer' });
  }
}
