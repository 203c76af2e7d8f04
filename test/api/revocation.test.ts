import { afterAll, beforeAll, describe } from 'vitest';
import { type TestServer, startServer } from '../harness.js';
import { revocationCases } from './revocation.js';

describe('revocation with identity and channel access cached (one instance)', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startServer({ env: { RATE_LIMITS: 'off' } });
  });
  afterAll(() => srv?.close());
  revocationCases(() => ({ a: srv.url, b: srv.url }));
});
