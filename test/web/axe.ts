/**
 * axe-core in a page under test: injected through the debugging protocol (the app's
 * Content-Security-Policy forbids inline scripts), run, and its serious and critical
 * violations returned one readable line each.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const require = createRequire(import.meta.url);
const AXE_SOURCE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

interface AxeNode {
  target: string[];
  failureSummary?: string;
  html: string;
}
interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: AxeNode[];
}

/**
 * Runs axe on the page (optionally leaving selectors out, or only within `include`) and
 * returns serious and critical violations, readable.
 */
export async function axeScan(page: Page, exclude: string[] = [], include: string[] = []): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.evaluate(AXE_SOURCE);
  const violations = (await page.evaluate(
    async ([exclude, include]) => {
      const axe = (globalThis as any).axe;
      const context =
        exclude.length || include.length
          ? { ...(include.length ? { include: include.map((s) => [s]) } : {}), exclude: exclude.map((s) => [s]) }
          : (globalThis as any).document;
      const r = await axe.run(context, { resultTypes: ['violations'] });
      return r.violations;
    },
    [exclude, include] as const,
  )) as AxeViolation[];
  const lines: string[] = [];
  for (const v of violations) {
    if (v.impact !== 'serious' && v.impact !== 'critical') continue;
    for (const n of v.nodes) {
      const summary = (n.failureSummary ?? '').replace(/\s+/g, ' ').slice(0, 240);
      lines.push(`${v.id} (${v.impact}) at ${n.target.join(' ')}: ${summary} | ${n.html.slice(0, 160)}`);
    }
  }
  return lines;
}

/** Waits for two frames and for every running animation or transition to end (colours following the scheme, panels sliding). */
export async function settle(page: Page): Promise<void> {
  await page.evaluate(async () => {
    const g = globalThis as any;
    await new Promise((r) => g.requestAnimationFrame(() => g.requestAnimationFrame(r)));
    // Endless ones (spinners) never finish: left out.
    const finite = g.document.getAnimations().filter((a: any) => a.effect?.getComputedTiming().endTime !== Infinity);
    await Promise.all(finite.map((a: any) => a.finished.catch(() => undefined)));
  });
}
