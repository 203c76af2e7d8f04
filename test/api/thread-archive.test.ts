// Issue 39, step 6 (docs/threads.md#auto-archive): a thread archives itself after its
// duration without messages, on the service's clock; a message starts the time again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { archiveDueThreads } from '../../src/domain/threads.js';
import { TestClock } from '../clock.js';
import { call, createServer, registerUser, type TestUser } from '../factories.js';
import { startServer, type TestServer } from '../harness.js';

let srv: TestServer;
const clock = new TestClock();
let owner: TestUser;
let general: string;

beforeAll(async () => {
  srv = await startServer({ env: { RATE_LIMITS: 'off' }, clock: clock.now });
  owner = await registerUser(srv.url);
  general = (await createServer(srv.url, owner)).general.id;
});
afterAll(() => srv?.close());

const MINUTE = 60_000;
const start = async (name: string, duration: number) =>
  (
    await call(srv.url, 'POST', `/api/v10/channels/${general}/threads`, {
      auth: owner.auth,
      body: { name, type: 11, auto_archive_duration: duration },
    })
  ).body as { id: string };
const archived = async (id: string) =>
  (await call(srv.url, 'GET', `/api/v10/channels/${id}`, { auth: owner.auth })).body.thread_metadata.archived as boolean;

describe('auto-archive', () => {
  it('archives a thread after its duration without messages; a message starts the time again', async () => {
    const quiet = await start('quiet', 60);
    const busy = await start('busy', 60);
    const long = await start('long', 1440);
    clock.advance(30 * MINUTE);
    expect(
      (await call(srv.url, 'POST', `/channels/${busy.id}/messages`, { auth: owner.auth, body: { content: 'still talking' } })).status,
    ).toBe(201);
    clock.advance(31 * MINUTE);
    expect(await archiveDueThreads(srv.app.ctx)).toBe(1);
    expect(await archived(quiet.id)).toBe(true);
    expect(await archived(busy.id)).toBe(false);
    expect(await archived(long.id)).toBe(false);
    // An hour after its last message, the busy one goes too; the day-long one waits its day.
    clock.advance(30 * MINUTE);
    expect(await archiveDueThreads(srv.app.ctx)).toBe(1);
    expect(await archived(busy.id)).toBe(true);
    expect(await archived(long.id)).toBe(false);
    clock.advance(1440 * MINUTE);
    expect(await archiveDueThreads(srv.app.ctx)).toBe(1);
    expect(await archived(long.id)).toBe(true);
    // The archive timestamp is the job's time, on the service's clock.
    const t = (await call(srv.url, 'GET', `/api/v10/channels/${long.id}`, { auth: owner.auth })).body;
    expect(Date.parse(t.thread_metadata.archive_timestamp)).toBeGreaterThan(Date.now() + 1400 * MINUTE);
    expect(await archiveDueThreads(srv.app.ctx)).toBe(0);
  });

  it('an unarchived thread starts its time again', async () => {
    const t = await start('back', 60);
    clock.advance(61 * MINUTE);
    await archiveDueThreads(srv.app.ctx);
    expect(await archived(t.id)).toBe(true);
    expect((await call(srv.url, 'PATCH', `/api/v10/channels/${t.id}`, { auth: owner.auth, body: { archived: false } })).status).toBe(200);
    expect(await archiveDueThreads(srv.app.ctx)).toBe(0);
    expect(await archived(t.id)).toBe(false);
    clock.advance(61 * MINUTE);
    expect(await archiveDueThreads(srv.app.ctx)).toBe(1);
  });
});
