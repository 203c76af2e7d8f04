/**
 * The yardstick for bench/messages.ts: a bare node:http server that reads the request
 * body and answers every request with a fixed 201 JSON body shaped and sized like a
 * Parley message. No routing, no validation, no storage: the most a Node process on this
 * machine can answer over the same connections, with the same load generator.
 *
 * Run as a child process: `node --import tsx bench/bare-server.ts <port>`; prints
 * "listening <port>" on stdout when ready.
 */
import http from 'node:http';

/** A message as Parley returns it from POST /channels/:id/messages (same keys, similar size). */
const FIXED_BODY = JSON.stringify({
  id: '1574749034000699392',
  channelId: '1574749033862287360',
  serverId: '1574749022172762112',
  author: { id: '1574749022302785536', name: 'bench-bot-17', bot: true, avatar: null },
  content: 'load test message 123456 from bench-bot-17: the quick brown fox jumps over the lazy dog',
  attachments: [],
  embeds: [],
  reactions: [],
  createdAt: '2026-11-21T12:00:00.000Z',
  editedAt: null,
});

const port = Number(process.argv[2] ?? 0);
const server = http.createServer((req, res) => {
  // Consume the body as a real endpoint must before it can answer.
  req.on('data', () => {});
  req.on('end', () => {
    res.writeHead(201, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(FIXED_BODY) });
    res.end(FIXED_BODY);
  });
});
// Same keep-alive window as Fastify's default, so no side reconnects more than the other.
server.keepAliveTimeout = 72_000;
server.listen(port, '127.0.0.1', () => {
  const address = server.address();
  console.log(`listening ${typeof address === 'object' && address ? address.port : port}`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
