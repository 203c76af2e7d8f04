import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/**
 * `Expect: 100-continue`, answered when the body is wanted. Node sends `100 Continue` as
 * soon as the headers arrive, inviting the body before any route has looked at them; here
 * it is sent when something first reads the body, so a request refused from its headers
 * alone (a `Content-Length` over the upload limit, a missing token) is answered with no
 * invitation, and the client never sends the body (docs/api.md#uploads). A connection
 * whose request is answered without the body it announced is closed after the answer, so
 * what the client sends next is never taken for that body.
 */
export function continueWhenRead(server: Server): void {
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    const keepAlive = res.shouldKeepAlive;
    res.shouldKeepAlive = false;
    const read = req._read;
    req._read = function (this: IncomingMessage, size: number) {
      req._read = read;
      if (!res.headersSent) {
        res.shouldKeepAlive = keepAlive;
        res.writeContinue();
      }
      return read.call(this, size);
    };
    server.emit('request', req, res);
  });
}
