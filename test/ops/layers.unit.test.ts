/**
 * The layering rule of docs/ARCHITECTURE.md, read from the source: the store owns SQL, so
 * no file of the domain builds a query (Kysely's builders, a `sql` template, a Kysely
 * import) and neither does any other layer outside `src/store` (routes, the gateway, the
 * Discord layer); and repositories never import the domain.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const LAYERS_WITHOUT_SQL = ['src/domain', 'src/gateway', 'src/http', 'src/discord', 'src/events', 'src/outgoing', 'src/presence'];

/** A query built in place: a Kysely builder call, a `sql` template or `sql.raw`, or Kysely itself imported. */
const QUERY = /\.(selectFrom|updateTable|insertInto|deleteFrom|replaceInto|mergeInto)\(|\bsql(\.raw\(|<[^>]*>`|`)|from 'kysely'/;

function sources(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => path.join(dir, f));
}

/** `file:line: text` of every line of `files` that `pattern` finds. */
function findings(files: string[], pattern: RegExp): string[] {
  return files.flatMap((file) =>
    fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .flatMap((line, i) => (pattern.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
  );
}

describe('the layers', () => {
  it('the pattern finds the ways a query is built', () => {
    for (const line of [
      "await tx.selectFrom('channels').selectAll()",
      "db.updateTable('members').set({})",
      'await sql`select 1`.execute(db)',
      'sql<number>`position + 1`',
      'sql.raw(text)',
      "import { sql } from 'kysely';",
    ])
      expect(QUERY.test(line), line).toBe(true);
    expect(QUERY.test('await ctx.store.channels.ofServer(ctx.store.db, serverId)')).toBe(false);
  });

  it.each(LAYERS_WITHOUT_SQL)('%s builds no query: repositories in src/store/repos do', (dir) => {
    expect(findings(sources(dir), QUERY)).toEqual([]);
  });

  it('the store never imports the domain', () => {
    expect(findings(sources('src/store'), /from '(\.\.\/)+domain\//)).toEqual([]);
  });
});
