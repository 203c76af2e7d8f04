// `npm start` (prestart) and `npm install` (prepare): builds the protocol package, the
// server and the web client only when their sources changed since the last build, so a
// start with nothing to rebuild takes a second or two instead of the build's minute.
//
// What counts as a source: everything under the INPUTS below, hashed by path and content
// (not by modification time, which a checkout or a copy rewrites). The hash of the last
// successful build is kept in dist/.build-inputs; a missing output also forces a build.
// `npm run build` always builds (and also builds the SDK); `node scripts/build-if-changed.mjs
// --force` rebuilds and records the hash.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const INPUTS = [
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'scripts/build-if-changed.mjs',
  'scripts/bundle-server.mjs',
  'src',
  'protocol/src',
  'protocol/package.json',
  'protocol/tsconfig.json',
  'web',
];
const SKIP = new Set(['node_modules', 'dist', '.vite']);
const OUTPUTS = ['protocol/dist/index.js', 'dist/server/main.js', 'dist/src/main.js', 'web/dist/index.html'];
const STAMP = 'dist/.build-inputs';

function* files(p) {
  const st = fs.statSync(p, { throwIfNoEntry: false });
  if (!st) return;
  if (st.isFile()) yield p;
  else if (st.isDirectory()) for (const name of fs.readdirSync(p).sort()) if (!SKIP.has(name)) yield* files(path.join(p, name));
}

function inputsHash() {
  const h = createHash('sha256');
  for (const input of INPUTS)
    for (const f of files(input)) {
      h.update(f);
      h.update('\0');
      h.update(fs.readFileSync(f));
      h.update('\0');
    }
  return h.digest('hex');
}

const hash = inputsHash();
const force = process.argv.includes('--force');
const built = OUTPUTS.every((o) => fs.existsSync(o));
const recorded = fs.existsSync(STAMP) ? fs.readFileSync(STAMP, 'utf8').trim() : '';
if (!force && built && recorded === hash) process.exit(0);

console.log(built ? 'parley: sources changed since the last build; building' : 'parley: building the server and the web client');
for (const script of ['build:protocol', 'build:server', 'build:web']) {
  const r = spawnSync('npm', ['run', '--silent', script], { stdio: 'inherit', shell: process.platform === 'win32' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
fs.mkdirSync(path.dirname(STAMP), { recursive: true });
fs.writeFileSync(STAMP, `${hash}\n`);
