import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';

/**
 * The suites by area, so one can run alone: `npm run test:<area>` is
 * `vitest run --project <area>`; `npm test` runs them all. Every test file belongs to exactly
 * one project: `scripts/check-test-projects.mjs` (part of `npm test`) fails otherwise.
 *
 * - unit: `*.unit.test.ts` anywhere under test/: no Parley server, no database file
 *   (pure functions, in-process classes, the SDK against a mock).
 * - store, api, gateway, discord, web, cluster, ops: the rest of their directories;
 *   api also holds the webhook, SDK and fuzz suites (clients of the HTTP API).
 */
const UNIT = 'test/**/*.unit.test.ts';

function area(name: string, dirs: string[]): TestProjectInlineConfiguration {
  return {
    extends: true,
    test: {
      name,
      include: dirs.map((d) => `test/${d}/**/*.test.ts`),
      exclude: [...configDefaults.exclude, UNIT],
    },
  };
}

export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Two test files at a time even on two cores (Vitest's default would be one): the suites
    // mostly wait on servers, sockets and browsers, so the gateway suite took 64 s with two
    // against 203 s with one on this project's 2-core machine, for the same CPU time
    // (three were no faster: 109 s).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // A polled expectation gets five seconds, not one: with two files running, a busy
    // machine can take longer than a second to show what a test waits for.
    expect: { poll: { timeout: 5_000 } },
    projects: [
      { extends: true, test: { name: 'unit', include: [UNIT] } },
      area('store', ['store']),
      area('api', ['api', 'webhooks', 'sdk', 'fuzz']),
      area('gateway', ['gateway']),
      area('discord', ['discord']),
      // Real Chromium against a real server (test/web/browser.ts), plus the client's build checks.
      area('web', ['web']),
      area('cluster', ['cluster']),
      area('ops', ['ops']),
    ],
  },
});
