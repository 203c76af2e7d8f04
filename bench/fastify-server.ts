/**
 * A second yardstick for bench/messages.ts (--with-fastify): Fastify configured as Parley
 * configures it (logger at "warn" with the same redaction, body limit, AJV options) with
 * the message route's params and body schemas, answering a fixed-shape 201 message. The
 * gap between this and the bare node:http server is the framework's share; the gap
 * between this and Parley is authentication, permissions, storage and the event.
 *
 * Run as a child process: `node --import tsx bench/fastify-server.ts [port]` (default 0:
 * any free one); prints "listening <port>" with the bound port on stdout when ready.
 */
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { type Static, Type } from 'typebox';

const ChannelParams = Type.Object({ channelId: Type.String() });
const SendBody = Type.Object({
  content: Type.Optional(Type.String({ maxLength: 4000 })),
  attachments: Type.Optional(
    Type.Array(
      Type.Object({ url: Type.String({ minLength: 1, maxLength: 2048 }), filename: Type.String({ minLength: 1, maxLength: 255 }) }),
      { maxItems: 10 },
    ),
  ),
});

const app = Fastify({
  logger: { level: 'warn', redact: ['req.headers.authorization', 'req.headers.cookie'] },
  bodyLimit: 1024 * 1024,
  return503OnClosing: true,
  forceCloseConnections: 'idle',
  ajv: { customOptions: { coerceTypes: false, removeAdditional: false, allErrors: false } },
});

let n = 0;
app.post<{ Params: Static<typeof ChannelParams>; Body: Static<typeof SendBody> }>(
  '/channels/:channelId/messages',
  { schema: { params: ChannelParams, body: SendBody } },
  async (req, reply) => {
    n++;
    return reply.status(201).send({
      id: `01JDQ4ZJ6Q3V8E1K9M2N${String(n % 1e6).padStart(6, '0')}`,
      channelId: req.params.channelId,
      serverId: '01JDQ4Z8V0W1X2Y3Z4A5B6C7D8',
      author: { id: '01JDQ4ZA0B1C2D3E4F5G6H7J8K', name: 'bench-bot-17', bot: true, avatar: null },
      content: req.body.content ?? '',
      attachments: [],
      embeds: [],
      reactions: [],
      createdAt: new Date().toISOString(),
      editedAt: null,
    });
  },
);

// Port 0 (the default) lets the system pick; what is printed is the port bound.
await app.listen({ port: Number(process.argv[2] ?? 0), host: '127.0.0.1' });
console.log(`listening ${(app.server.address() as AddressInfo).port}`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
