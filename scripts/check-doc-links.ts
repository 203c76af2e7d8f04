// Every link into the documentation must lead somewhere: each relative link of docs/**/*.md
// and README.md to a file that exists (and, with `#anchor`, to a heading of it), and each
// `docs/<file>.md#anchor` a source file cites to an existing file and heading. Anchors are
// GitHub's: the heading's text, lower-cased, without punctuation, spaces as hyphens, a
// repeated heading numbered `-1`, `-2`. `npx tsx scripts/check-doc-links.ts` prints what
// is broken and exits 1; test/ops/doc-links.unit.test.ts runs it with the unit tests.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const SKIP = new Set(['node_modules', 'dist', '.git', 'test-results', 'coverage']);
/** Where source files may cite docs/ (comments, mostly). */
const SOURCE_DIRS = ['src', 'protocol/src', 'sdk/src', 'web/src', 'test', 'bench', 'scripts', 'examples'];
const SOURCE_FILE = /\.(?:[cm]?[jt]sx?|css)$/;
const CITED = /\bdocs\/[A-Za-z0-9_./-]+\.md(?:#[A-Za-z0-9_-]+)?/g;

/** GitHub's anchor for a heading's Markdown text. */
export function slugify(heading: string): string {
  // Code spans keep their text as written; elsewhere a link counts by its text, inline HTML
  // not at all, and emphasis marks go (underscores stay: GitHub keeps them).
  const text = heading
    .split(/(`+[^`]*?`+)/)
    .map((part, i) =>
      i % 2 === 1
        ? part.replace(/`/g, '')
        : part
            .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
            .replace(/<[^>]+>/g, '')
            .replace(/[*~]/g, ''),
    )
    .join('');
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The lines of a Markdown document outside fenced code blocks. */
function proseLines(markdown: string): string[] {
  const out: string[] = [];
  let fence: string | null = null;
  for (const line of markdown.split('\n')) {
    const m = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (m?.[1]) {
      if (fence === null) fence = m[1];
      else if (m[1].startsWith(fence)) fence = null;
      continue;
    }
    if (fence === null) out.push(line);
  }
  return out;
}

/** Every anchor a Markdown document offers: its headings' and explicit `id`/`name` ones. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of proseLines(markdown)) {
    const h = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (h?.[1] !== undefined) {
      const base = slugify(h[1]);
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      anchors.add(n === 0 ? base : `${base}-${n}`);
    }
    for (const a of line.matchAll(/<a\s[^>]*(?:id|name)="([^"]+)"/g)) if (a[1]) anchors.add(a[1]);
  }
  return anchors;
}

/** The targets of a Markdown document's inline links, code spans and fenced blocks left out. */
export function linksOf(markdown: string): string[] {
  const out: string[] = [];
  for (const line of proseLines(markdown)) {
    const prose = line.replace(/(`+)[^`]*?\1/g, '');
    for (const m of prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) if (m[1]) out.push(m[1]);
  }
  return out;
}

function walk(dir: string, keep: (name: string) => boolean, out: string[] = []): string[] {
  if (!fs.existsSync(dir)) return out;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name)) continue;
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(p, keep, out);
    else if (keep(entry.name)) out.push(p);
  }
  return out;
}

/** Every broken link under `root`, as `file:line: what`. Empty when all lead somewhere. */
export function checkDocLinks(root: string): string[] {
  const problems: string[] = [];
  const anchorCache = new Map<string, Set<string>>();
  const anchors = (file: string) => {
    let a = anchorCache.get(file);
    if (!a) anchorCache.set(file, (a = anchorsOf(fs.readFileSync(file, 'utf8'))));
    return a;
  };
  const rel = (p: string) => path.relative(root, p);
  /** Whether `target` (a path and an optional anchor) exists; why not, otherwise. */
  const reach = (file: string, anchor: string | undefined): string | null => {
    if (!fs.existsSync(file)) return `no file ${rel(file)}`;
    if (anchor === undefined || anchor === '') return null;
    if (fs.statSync(file).isDirectory() || !file.endsWith('.md')) return `#${anchor} on a file that is not Markdown`;
    return anchors(file).has(decodeURIComponent(anchor).toLowerCase()) ? null : `no heading #${anchor} in ${rel(file)}`;
  };

  const markdown = [path.join(root, 'README.md'), ...walk(path.join(root, 'docs'), (n) => n.endsWith('.md'))];
  for (const file of markdown) {
    if (!fs.existsSync(file)) continue;
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    lines.forEach((line, i) => {
      for (const target of linksOf(line)) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto: ...
        const [p = '', anchor] = target.split('#', 2) as [string, string?];
        const dest = p === '' ? file : path.resolve(path.dirname(file), decodeURIComponent(p.split('?')[0] ?? ''));
        const why = reach(dest, anchor);
        if (why) problems.push(`${rel(file)}:${i + 1}: ${target}: ${why}`);
      }
    });
  }

  for (const dir of SOURCE_DIRS) {
    for (const file of walk(path.join(root, dir), (n) => SOURCE_FILE.test(n))) {
      const lines = fs.readFileSync(file, 'utf8').split('\n');
      lines.forEach((line, i) => {
        for (const [cited] of line.matchAll(CITED)) {
          const [p = '', anchor] = cited.split('#', 2) as [string, string?];
          const why = reach(path.join(root, p), anchor);
          if (why) problems.push(`${rel(file)}:${i + 1}: ${cited}: ${why}`);
        }
      });
    }
  }
  return problems;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const problems = checkDocLinks(root);
  for (const p of problems) console.error(p);
  process.exitCode = problems.length === 0 ? 0 : 1;
}
