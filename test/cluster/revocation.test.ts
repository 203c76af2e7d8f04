import { afterAll, beforeAll, describe } from 'vitest';
import { revocationCases } from '../api/revocation.js';
import { type Cluster, clusterServicesAvailable, startCluster } from './instances.js';

const run = clusterServicesAvailable();

/** Each instance caches identity and channel access; a revocation through A holds on B for the next request. */
describe.runIf(run)('revocation across two instances, with access cached on each', () => {
  let cluster: Cluster;
  beforeAll(async () => {
    cluster = await startCluster(2, { RATE_LIMITS: 'off' });
  }, 90_000);
  afterAll(() => cluster?.close());
  revocationCases(() => ({ a: cluster.instances[0]!.url, b: cluster.instances[1]!.url }));
});
