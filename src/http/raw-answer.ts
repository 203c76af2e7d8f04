import http from 'node:http';
import { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { type ErrorCode, errorBody, errorStatus } from '../errors.js';

/**
 * Answers on a raw socket, for the requests Node hands over without a response object
 * (a refused upgrade, CONNECT, a parse error): a JSON `{error, code}` with the code's
 * status like every other answer, then the connection is closed. The socket is destroyed
 * once the answer is flushed, so a client still sending an unread body cannot keep it open.
 * A `Retry-After` header is repeated as the body's `retryAfter`, as on every other 429.
 */
export function answerRaw(socket: Duplex, code: ErrorCode, error: string, headers: Record<string, string> = {}): void {
  if (socket.destroyed) return;
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const status = errorStatus(code);
  const retryAfter = headers['Retry-After'];
  const body = JSON.stringify(errorBody(code, error, retryAfter === undefined ? undefined : { retryAfter: Number(retryAfter) }));
  const extra = Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  socket.once('finish', () => socket.destroy());
  socket.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? 'Error'}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n${extra}Connection: close\r\n\r\n${body}`,
  );
  // A peer that never reads would keep 'finish' from coming.
  setTimeout(() => socket.destroy(), 5000).unref();
}

/**
 * Answers a request that asked for a protocol upgrade we do not offer on its path (such
 * as `Upgrade: h2c`, which `curl --http2` sends) as the plain HTTP request it also is:
 * RFC 9110 lets a server ignore Upgrade. Node hands such requests over as raw sockets
 * once anything listens for upgrades, so this gives them a response object and passes
 * them to the ordinary request handler. Their body cannot be read any more at that point,
 * so one with a body is refused with a JSON 400.
 */
export function answerIgnoringUpgrade(server: http.Server, req: http.IncomingMessage, socket: Duplex): void {
  const hasBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
  if (hasBody || !(socket instanceof Socket)) {
    answerRaw(socket, 'unsupported_protocol', 'Upgrade is only supported on /gateway');
    return;
  }
  const res = new http.ServerResponse(req);
  res.shouldKeepAlive = false;
  res.assignSocket(socket);
  res.once('finish', () => {
    res.detachSocket(socket);
    socket.destroySoon();
  });
  server.emit('request', req, res);
}

/**
 * Requests Node answers on its own, without a body, unless someone listens: an `Expect`
 * other than `100-continue` (417) and `CONNECT` (Node would just drop the connection).
 * Both get a JSON `{error, code}` like everything else.
 */
export function answerWhatNodeWouldAnswerBare(server: http.Server): void {
  server.on('checkExpectation', (_req: http.IncomingMessage, res: http.ServerResponse) => {
    const body = JSON.stringify(errorBody('expectation_failed', 'the only Expect this server supports is 100-continue'));
    res.writeHead(errorStatus('expectation_failed'), {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': Buffer.byteLength(body),
      Connection: 'close',
    });
    res.end(body);
  });
  server.on('connect', (_req: http.IncomingMessage, socket: Duplex) =>
    answerRaw(socket, 'unsupported_protocol', 'CONNECT is not supported: this server is not a proxy'),
  );
}
