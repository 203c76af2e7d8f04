// Fails (exit 1) unless every test file of the tree belongs to exactly one vitest project
// (vitest.config.ts). A file no project includes would never run; one that two include
// would run twice. `npm test` runs this before vitest; `--list` prints the files per project.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createVitest } from 'vitest/node';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SKIP = new Set(['node_modules', 'dist', '.git', 'test-results', 'coverage']);

/** Every `*.test.ts(x)` / `*.spec.ts(x)` in the repository, relative to its root. */
function testFiles(dir = ROOT, out = []) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name)) continue;
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) testFiles(p, out);
    else if (/\.(test|spec)\.[cm]?[jt]sx?$/.test(entry.name)) out.push(path.relative(ROOT, p));
  }
  return out;
}

const vitest = await createVitest('test', { watch: false, run: true, root: ROOT, reporters: [] });
const owners = new Map(); // file -> project names
try {
  for (const spec of await vitest.globTestSpecifications()) {
    const file = path.relative(ROOT, spec.moduleId);
    owners.set(file, [...(owners.get(file) ?? []), spec.project.name]);
  }
} finally {
  await vitest.close();
}

const problems = [];
for (const file of testFiles()) {
  const names = owners.get(file) ?? [];
  if (names.length === 0) problems.push(`${file}: in no project`);
  else if (names.length > 1) problems.push(`${file}: in ${names.length} projects (${names.join(', ')})`);
}

if (process.argv.includes('--list')) {
  const byProject = new Map();
  for (const [file, names] of owners) for (const n of names) byProject.set(n, [...(byProject.get(n) ?? []), file]);
  for (const [name, files] of [...byProject].sort()) {
    console.log(`${name} (${files.length})`);
    for (const f of files.sort()) console.log(`  ${f}`);
  }
}

if (problems.length > 0) {
  console.error('Every test file must belong to exactly one vitest project (vitest.config.ts):');
  for (const p of problems) console.error(`  ${p}`);
  process.exit(1);
}
console.log(`test projects: ${owners.size} files, each in one project`);
