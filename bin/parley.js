#!/usr/bin/env node
// The `parley` command (package.json "bin"): runs the compiled CLI in dist/. `npm install`
// builds it (the "prepare" script); a checkout installed without scripts is built here,
// once, with the TypeScript compiler of its dev dependencies.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const root = path.resolve(import.meta.dirname, '..');
const entry = path.join(root, 'dist', 'src', 'cli', 'parley.js');
if (!fs.existsSync(entry)) {
  process.stderr.write('parley: building the server first (npm run build:server)...\n');
  const built = spawnSync('npm', ['run', '--silent', 'build:server'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  if (built.status !== 0 || !fs.existsSync(entry)) {
    process.stderr.write('parley: the build failed; run "npm install" (or "npm run build") in the checkout first\n');
    process.exit(1);
  }
}
await import(pathToFileURL(entry).href);
