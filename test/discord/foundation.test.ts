/** The Discord layer's frame: versions, the gateway URL, Discord-shaped errors and unknown paths. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, registerUser } from '../factories.js';
import { type TestServer, startServer } from '../harness.js';

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer({ env: { RATE_LIMITS: 'off' } });
});
afterAll(() => srv?.close());

describe('Discord layer frame', () => {
  it('GET /api/gateway and /api/v10/gateway/bot name the Discord gateway socket', async () => {
    const open = await call<{ url: string }>(srv.url, 'GET', '/api/gateway');
    expect(open.status).toBe(200);
    expect(open.body.url).toBe(`${srv.url.replace(/^http/, 'ws')}/api/gateway/ws`);
    const user = await registerUser(srv.url);
    for (const v of ['', '/v6', '/v9', '/v10']) {
      const r = await call<{ url: string; shards: number; session_start_limit: { max_concurrency: number } }>(
        srv.url,
        'GET',
        `/api${v}/gateway/bot`,
        { auth: user.auth },
      );
      expect(r.status, r.text).toBe(200);
      expect(r.body).toMatchObject({ url: open.body.url, shards: 1, session_start_limit: { max_concurrency: 1 } });
    }
  });

  it('answers errors as Discord does: {message, code}', async () => {
    const r = await call<{ message: string; code: number }>(srv.url, 'GET', '/api/v10/gateway/bot');
    expect(r.status).toBe(401);
    expect(r.body.code).toBe(40001);
    expect(typeof r.body.message).toBe('string');
    const nf = await call<{ message: string; code: number }>(srv.url, 'GET', '/api/v10/nothing/here');
    expect(nf.status).toBe(404);
    expect(nf.body).toEqual({ message: '404: Not Found', code: 0 });
    const v5 = await call(srv.url, 'GET', '/api/v5/gateway');
    expect(v5.status).toBe(404);
  });
});
