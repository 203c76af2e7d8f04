/**
 * Code blocks in messages: a fence that names a language is highlighted once the
 * highlighter's chunk loads (it is not part of the first load), one in an unknown language
 * or with none stays plain, and markup inside code stays text. Real Chromium, real Parley.
 */
import { describe, expect, it } from 'vitest';
import { createServer, postMessage, registerUser } from '../factories.js';
import { browserSuite, screenshot } from './browser.js';

const web = browserSuite();

describe('code blocks', () => {
  it('highlights a known language on demand, leaves others plain, and keeps markup in code as text', async () => {
    const owner = await registerUser(web.url);
    const { server, general } = await createServer(web.url, owner, 'Workshop');
    await postMessage(web.url, owner.auth, general.id, '```ts\n// add two\nconst sum = (a: number, b: number) => a + b;\n```');
    await postMessage(web.url, owner.auth, general.id, '```html\n<img src=x onerror="window.__pwned=1">\n```');
    await postMessage(web.url, owner.auth, general.id, '```nosuchlang\nplain words\n```');
    await postMessage(web.url, owner.auth, general.id, '```\nno language\n```');

    const o = await web.open({ token: owner.token, path: `/s/${server.id}/c/${general.id}`, height: 860 });
    const { page, errors } = o;

    const ts = page.locator('pre.md-pre[data-lang="ts"]');
    await ts.locator('.hljs-keyword', { hasText: 'const' }).waitFor();
    await ts.locator('.hljs-comment', { hasText: '// add two' }).waitFor();
    // The same text as written, whatever the spans.
    expect(await ts.textContent()).toBe('// add two\nconst sum = (a: number, b: number) => a + b;');
    // The highlighter came as a chunk of its own, after the page had loaded.
    const loaded = await page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name));
    expect(loaded.some((u) => /\/assets\/highlight-[\w-]+\.js$/.test(u))).toBe(true);
    const first = await page.locator('script[src]').evaluateAll((els) => els.map((e) => e.getAttribute('src') ?? ''));
    expect(first.some((u) => u.includes('/assets/highlight-'))).toBe(false);

    const html = page.locator('pre.md-pre[data-lang="html"]');
    await html.locator('[class^="hljs-"]').first().waitFor();
    expect(await html.textContent()).toBe('<img src=x onerror="window.__pwned=1">');
    expect(await html.locator('img').count()).toBe(0);
    expect(await page.evaluate('window.__pwned')).toBeUndefined();

    for (const plain of [page.locator('pre.md-pre[data-lang="nosuchlang"]'), page.locator('pre.md-pre:not([data-lang])')]) {
      await plain.waitFor();
      expect(await plain.locator('span').count()).toBe(0);
    }
    expect(await page.locator('pre.md-pre[data-lang="nosuchlang"]').getAttribute('data-highlighted')).toBeNull();

    await screenshot(page, 'code-highlight');
    expect(errors).toEqual([]);
  });
});
