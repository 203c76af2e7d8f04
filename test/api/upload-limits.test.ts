/**
 * A file over MAX_UPLOAD_BYTES is refused before its bytes are read, with the limit as
 * people read it (docs/api.md#uploads): from `Content-Length` on every route that takes
 * files, and once the limit is crossed for a body without a length (chunked).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createWebhook, upload, world } from '../factories.js';
import { type TestServer, startServer } from '../harness.js';
import { countRows } from './assert.js';
import { connect, readResponse } from './raw-http.js';

const MAX = 1024 * 1024;
const MESSAGE = 'Files may be at most 1.0 MB';
let srv: TestServer;
let w: Awaited<ReturnType<typeof world>>;
let hook: Awaited<ReturnType<typeof createWebhook>>;

beforeAll(async () => {
  srv = await startServer({ env: { MAX_UPLOAD_BYTES: String(MAX), RATE_LIMITS: 'off' } });
  w = await world(srv.url, ['READ_MESSAGES', 'SEND_MESSAGES', 'ATTACH_FILES']);
  hook = await createWebhook(srv.url, w.owner, w.server.id, w.channel.id);
});
afterAll(() => srv?.close());

const BOUNDARY = 'parleyboundary';

/** The head of a multipart request whose body would be `length` bytes; none of the body is written. */
function head(path: string, length: number, auth?: string, extra = ''): string {
  return [
    `POST ${path} HTTP/1.1`,
    `Host: ${new URL(srv.url).host}`,
    `Content-Type: multipart/form-data; boundary=${BOUNDARY}`,
    `Content-Length: ${length}`,
    ...(auth ? [`Authorization: ${auth}`] : []),
    ...(extra ? [extra] : []),
    '',
    '',
  ].join('\r\n');
}

/** Sends only the head and waits for the answer, which must come though no body byte was sent. */
async function answerToHead(path: string, length: number, auth?: string) {
  const socket = await connect(srv.url);
  try {
    socket.write(head(path, length, auth));
    const r = await readResponse(socket);
    return { ...r, json: JSON.parse(r.body) as Record<string, unknown> };
  } finally {
    socket.destroy();
  }
}

const THIRTY_MB = 30 * 1000 * 1000;

describe('a body over the limit is refused from its Content-Length, before it is sent', () => {
  it('POST /upload: 413 payload_too_large with the limit in MB; nothing is stored', async () => {
    const before = await countRows(srv, 'uploads');
    // A file just over the limit, and the 30 MB file.
    for (const length of [MAX + 65 * 1024 + 1, THIRTY_MB]) {
      const r = await answerToHead('/upload', length, w.bot.auth);
      expect(r.status).toBe(413);
      expect(r.json).toEqual({ code: 'payload_too_large', error: MESSAGE });
    }
    expect(await countRows(srv, 'uploads')).toBe(before);
  });

  it('with Expect: 100-continue the answer is the 413, and no 100 Continue invites the body', async () => {
    const socket = await connect(srv.url);
    try {
      socket.write(head('/upload', THIRTY_MB, w.bot.auth, 'Expect: 100-continue'));
      const r = await readResponse(socket);
      expect(r.status).toBe(413);
      expect(JSON.parse(r.body)).toEqual({ code: 'payload_too_large', error: MESSAGE });
    } finally {
      socket.destroy();
    }
  });

  it('a webhook execution with files: 413 payload_too_large (native and /api)', async () => {
    const huge = 12 * (MAX + 64 * 1024) + 21 * 1024 * 1024;
    const native = await answerToHead(`/webhooks/${hook.id}/${hook.token}`, huge);
    expect(native.status).toBe(413);
    expect(native.json).toEqual({ code: 'payload_too_large', error: MESSAGE });
    const discord = await answerToHead(`/api/v10/webhooks/${hook.id}/${hook.token}`, huge);
    expect(discord.status).toBe(413);
    expect(discord.json).toEqual({ code: 40005, message: MESSAGE });
  });

  it("/api channel messages: 413 in Discord's shape (40005)", async () => {
    const huge = 12 * (MAX + 64 * 1024) + 21 * 1024 * 1024;
    const r = await answerToHead(`/api/v10/channels/${w.channel.id}/messages`, huge, w.bot.auth);
    expect(r.status).toBe(413);
    expect(r.json).toEqual({ code: 40005, message: MESSAGE });
  });

  it('a body within what the route may need is read as before', async () => {
    const ok = await upload(srv.url, w.bot.auth, Buffer.alloc(MAX, 1), 'max.bin');
    expect(ok.status, ok.text).toBe(200);
    // Over the limit by a byte: refused by the parser, with the same words.
    const over = await upload(srv.url, w.bot.auth, Buffer.alloc(MAX + 1, 1), 'over.bin');
    expect(over.status).toBe(413);
    expect(over.body).toEqual({ code: 'payload_too_large', error: MESSAGE });
  });
});

describe('a chunked body (no Content-Length) is refused once a file crosses the limit', () => {
  it('POST /upload: the 413 arrives though the body never ends', async () => {
    const before = await countRows(srv, 'uploads');
    const socket = await connect(srv.url);
    try {
      socket.write(
        [
          'POST /upload HTTP/1.1',
          `Host: ${new URL(srv.url).host}`,
          `Content-Type: multipart/form-data; boundary=${BOUNDARY}`,
          'Transfer-Encoding: chunked',
          `Authorization: ${w.bot.auth}`,
          '',
          '',
        ].join('\r\n'),
      );
      const chunk = (data: Buffer | string) => {
        const b = Buffer.from(data);
        socket.write(`${b.length.toString(16)}\r\n`);
        socket.write(b);
        socket.write('\r\n');
      };
      chunk(
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
      );
      const response = readResponse(socket, 15_000);
      // Twice the limit, and then nothing: the body never ends (no last chunk), so only a
      // refusal at the limit can answer.
      const piece = Buffer.alloc(64 * 1024, 7);
      for (let sent = 0; sent < 2 * MAX; sent += piece.length) {
        chunk(piece);
        if (socket.writableNeedDrain) await new Promise((resolve) => socket.once('drain', resolve));
      }
      const r = await response;
      expect(r.status).toBe(413);
      expect(JSON.parse(r.body)).toEqual({ code: 'payload_too_large', error: MESSAGE });
    } finally {
      socket.destroy();
    }
    expect(await countRows(srv, 'uploads')).toBe(before);
  });
});

describe('GET /instance tells clients the limit', () => {
  it('maxUploadBytes is MAX_UPLOAD_BYTES', async () => {
    const r = await call(srv.url, 'GET', '/instance');
    expect(r.body.maxUploadBytes).toBe(MAX);
  });
});
