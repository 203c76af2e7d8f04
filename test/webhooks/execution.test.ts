/**
 * The webhook-execution use case without HTTP: the domain action reads a stream of parts
 * it is handed, so its safety rules (replays store nothing, failures leave no files, the
 * reader's own failures are explained by the reader) hold for any edge that feeds it.
 */
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BodyPart, type PartStream, type RetryIdentity, executeWebhook } from '../../src/domain/webhook-execution.js';
import { webhooks } from '../../src/domain/webhooks.js';
import { AppError, badRequest } from '../../src/errors.js';
import type { WebhookTable } from '../../src/store/schema.js';
import { createWebhook, world } from '../factories.js';
import { type TestServer, startServer } from '../harness.js';

let srv: TestServer;
let hook: WebhookTable;

beforeAll(async () => {
  srv = await startServer({ env: { RATE_LIMITS: 'off' } });
  const w = await world(srv.url);
  const created = await createWebhook(srv.url, w.owner, w.server.id, w.channel.id);
  hook = await webhooks.authenticate(srv.app.ctx, created.id, created.token);
});
afterAll(() => srv?.close());

const file = (filename: string, text: string): BodyPart => ({
  type: 'file',
  filename,
  contentType: 'text/plain',
  open: () => Readable.from([Buffer.from(text)]),
  truncated: () => false,
});

/** Parts the way a parser hands them over, failing with `fail` after the last one when given. */
function stream(parts: BodyPart[], fail?: Error): PartStream {
  async function* read() {
    yield* parts;
    if (fail) throw fail;
  }
  return { parts: read(), maxFileBytes: 1024 * 1024, explain: () => badRequest('explained by the reader') };
}

const retry = (key?: string): RetryIdentity => ({ key: () => key, fingerprint: (body) => JSON.stringify(body) });

async function uploadsOfHook(): Promise<string[]> {
  const rows = await srv.app.ctx.store.db.selectFrom('uploads').select('id').where('uploaderId', '=', hook.id).execute();
  return rows.map((r) => r.id).sort();
}

describe('executeWebhook with multipart parts', () => {
  it('posts the fields and files it is handed', async () => {
    const parts = [{ type: 'field', name: 'content', value: 'from parts' } as const, file('a.txt', 'aaa')];
    const result = await executeWebhook(
      srv.app.ctx,
      hook,
      { dialect: 'discord', body: { kind: 'multipart', stream: stream(parts) } },
      retry(),
    );
    expect(result.replayed).toBe(false);
    expect(result.message.content).toBe('from parts');
    expect(result.message.attachments.map((a) => a.filename)).toEqual(['a.txt']);
  });

  it("answers the reader's own failure with its explanation and removes the files stored before it", async () => {
    const before = await uploadsOfHook();
    const parts = [{ type: 'field', name: 'content', value: 'cut short' } as const, file('b.txt', 'bbb')];
    const run = executeWebhook(
      srv.app.ctx,
      hook,
      { dialect: 'discord', body: { kind: 'multipart', stream: stream(parts, new Error('socket reset')) } },
      retry(),
    );
    const err = await run.then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).message).toBe('explained by the reader');
    expect(await uploadsOfHook()).toEqual(before);
  });

  it('a replay with the same key reads the files without storing them and answers the first message', async () => {
    const parts = () => [{ type: 'field', name: 'content', value: 'once' } as const, file('c.txt', 'ccc')];
    const body = () => ({ kind: 'multipart' as const, stream: stream(parts()) });
    const first = await executeWebhook(srv.app.ctx, hook, { dialect: 'discord', body: body() }, retry('exec-key-1'));
    const stored = await uploadsOfHook();
    const again = await executeWebhook(srv.app.ctx, hook, { dialect: 'discord', body: body() }, retry('exec-key-1'));
    expect(again.replayed).toBe(true);
    expect(again.message.id).toBe(first.message.id);
    expect(await uploadsOfHook()).toEqual(stored);
  });

  it('a GitHub event Parley does not render posts nothing and never reads the key', async () => {
    const key = () => {
      throw new Error('the key was read');
    };
    const result = await executeWebhook(
      srv.app.ctx,
      hook,
      { dialect: 'github', event: 'not_an_event_parley_renders', body: { kind: 'json', value: {} } },
      { key, fingerprint: () => '' },
    );
    expect(result).toBeNull();
  });
});
