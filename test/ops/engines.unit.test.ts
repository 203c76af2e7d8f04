/**
 * The README promises Node 20.19 through 24: every package the lock file installs must say
 * it runs there, so `npm install` prints no EBADENGINE warning on either end of the range.
 * A dependency that moves to Node 22 fails here first (package.json's `overrides` pins the
 * transitive ones that did; see docs/deploy.md#starting-and-logs).
 */
import fs from 'node:fs';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const pkg = JSON.parse(fs.readFileSync('package.json', 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(fs.readFileSync('package-lock.json', 'utf8')) as {
  packages: Record<string, { version?: string; engines?: { node?: string } | string[] }>;
};

describe('Node versions', () => {
  it('package.json promises 20.19 through 24', () => {
    for (const v of ['20.19.0', '22.0.0', '24.0.0']) expect(semver.satisfies(v, pkg.engines.node), v).toBe(true);
    expect(semver.satisfies('20.18.0', pkg.engines.node)).toBe(false);
  });

  it('every installed package supports the oldest and newest promised Node', () => {
    const refused: string[] = [];
    for (const [where, p] of Object.entries(lock.packages)) {
      const range = p.engines && !Array.isArray(p.engines) ? p.engines.node : undefined;
      if (!where || !range) continue;
      for (const v of ['20.19.0', '24.0.0'])
        if (!semver.satisfies(v, range)) refused.push(`${where}@${p.version} wants node ${range} (not ${v})`);
    }
    expect(refused).toEqual([]);
  });
});
