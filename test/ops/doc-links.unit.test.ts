/**
 * Links into the documentation lead somewhere: every relative link of docs/ and the README,
 * and every `docs/<file>.md#anchor` a comment cites, names a file and a heading that exist
 * (scripts/check-doc-links.ts). Comments point at docs/, never at documents outside the
 * repository, so a renamed heading must take its citations with it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { anchorsOf, checkDocLinks, slugify } from '../../scripts/check-doc-links.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

describe('documentation links', () => {
  it('every link in docs/ and the README, and every docs/ citation in the code, resolves', () => {
    expect(checkDocLinks(ROOT)).toEqual([]);
  });

  it('makes anchors as GitHub does', () => {
    expect(slugify('Webhooks (management: server owner only)')).toBe('webhooks-management-server-owner-only');
    expect(slugify('A URL is a capability: `/uploads/<id>/<secret>/<name>`')).toBe('a-url-is-a-capability-uploadsidsecretname');
    expect(slugify('1. The seed format')).toBe('1-the-seed-format');
    expect(slugify('[Links](x.md) and **bold** `snake_case`')).toBe('links-and-bold-snake_case');
    expect([...anchorsOf('# Title\n## Part\n```sh\n# a shell comment\n```\n## Part\n')]).toEqual(['title', 'part', 'part-1']);
  });

  describe('finds what is broken', () => {
    // Paths built from parts, so this file cites nothing itself.
    const d = (rest: string) => ['docs', rest].join('/');
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-doc-links-'));
    afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
    fs.mkdirSync(path.join(root, 'docs'));
    fs.mkdirSync(path.join(root, 'src'));
    fs.writeFileSync(path.join(root, 'docs', 'api.md'), '# API\n\n## Messages\n\nSee [gateway](gateway.md) and [here](#messages).\n');
    fs.writeFileSync(path.join(root, 'README.md'), `[ok](${d('api.md#messages')}) [gone](${d('api.md#nothing')}) \`[code](x.md)\`\n`);
    fs.writeFileSync(path.join(root, 'src', 'a.ts'), `// ${d('api.md#messages')}\n// ${d('api.md#typing')}\n// ${d('missing.md')}\n`);

    it('names each broken link with its place', () => {
      expect(checkDocLinks(root)).toEqual([
        `README.md:1: ${d('api.md#nothing')}: no heading #nothing in ${d('api.md')}`,
        `${d('api.md')}:5: gateway.md: no file ${d('gateway.md')}`,
        `src/a.ts:2: ${d('api.md#typing')}: no heading #typing in ${d('api.md')}`,
        `src/a.ts:3: ${d('missing.md')}: no file ${d('missing.md')}`,
      ]);
    });
  });
});
