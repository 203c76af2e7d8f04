// Bundles the compiled server (dist/src/main.js, from `tsc`) into dist/server/: one
// minified ES module plus a chunk per dynamic import, which is what `npm start` runs.
//
// Why: a server made of ~400 separate modules keeps each module's full source text and
// its module records on the V8 heap for its whole life; one minified file keeps about a
// third of that. Idle RSS is the figure this serves (issue 16, bench/README.md "Idle
// memory"). The unbundled dist/src stays: the `parley` CLI and the tests use it.
//
// Left outside the bundle, loaded from node_modules at run time:
// - better-sqlite3: a native addon;
// - @fastify/swagger-ui: serves its own static files from its package folder;
// - @zxcvbn-ts/language-common and @zxcvbn-ts/core: several MB of word lists and the
//   scorer, imported when a password is first set (and the core package's CommonJS
//   build, once bundled, lost its named export under the dynamic import);
// - pg, ioredis, prom-client: imported only when DATABASE_URL, REDIS_URL or
//   METRICS_TOKEN is set.
import { build } from 'esbuild';

await build({
  entryPoints: { main: 'dist/src/main.js' },
  outdir: 'dist/server',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  minify: true,
  // Source maps stay out: Node would keep them in memory, which is the point of bundling.
  legalComments: 'linked',
  external: [
    'better-sqlite3',
    '@fastify/swagger-ui',
    '@zxcvbn-ts/language-common',
    '@zxcvbn-ts/core',
    'pg',
    'pg-native',
    'ioredis',
    'prom-client',
  ],
  // Some bundled CommonJS dependencies call require() for Node's built-in modules.
  banner: { js: "import { createRequire as __parleyRequire } from 'node:module'; const require = __parleyRequire(import.meta.url);" },
  logLevel: 'warning',
});
