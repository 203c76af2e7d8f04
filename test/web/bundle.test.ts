/**
 * The web client's bundle: it carries the SDK's gateway client on the browser's own
 * WebSocket, and nothing of the `ws` package the SDK uses on Node.
 */
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureWebBuilt, ROOT } from './browser.js';

const ASSETS = path.join(ROOT, 'web', 'dist', 'assets');

beforeAll(() => {
  ensureWebBuilt();
}, 240_000);

describe('web bundle', () => {
  it('does not include the ws package', () => {
    const scripts = fs.readdirSync(ASSETS).filter((file) => file.endsWith('.js'));
    expect(scripts.length).toBeGreaterThan(0);
    for (const file of scripts) {
      const code = fs.readFileSync(path.join(ASSETS, file), 'utf8');
      // ws's handshake GUID (lib/constants.js), its browser stub's message, a Node import of it.
      expect(code, file).not.toContain('258EAFA5-E914-47DA-95CA-C5AB0DC85B11');
      expect(code, file).not.toContain('ws does not work in the browser');
      expect(code, file).not.toMatch(/(?:require\(|import\(?)\s*["'](?:ws|node:[a-z_]+)["']/);
    }
  });

  it('keeps settings, the account page and My bots out of the first load, each in a chunk of its own', () => {
    const html = fs.readFileSync(path.join(ROOT, 'web', 'dist', 'index.html'), 'utf8');
    const first = [...html.matchAll(/(?:src|href)="\/assets\/([^"]+\.js)"/g)].map((m) => m[1]!);
    expect(first.length).toBeGreaterThan(0);
    // Strings only each page draws: the audit log's, the account page's, My bots'.
    const markers = ['No longer a member of this server', 'Log out everywhere else', 'Create a bot'];
    for (const file of first) {
      const code = fs.readFileSync(path.join(ASSETS, file), 'utf8');
      for (const marker of markers) expect(code, `${file} holds "${marker}"`).not.toContain(marker);
    }
    const scripts = fs.readdirSync(ASSETS).filter((file) => file.endsWith('.js'));
    for (const marker of markers) {
      const holders = scripts.filter((file) => fs.readFileSync(path.join(ASSETS, file), 'utf8').includes(marker));
      expect(holders, marker).toHaveLength(1);
    }
  });

  it('keeps the emoji data and the image lightbox out of the first load, and the emoji SVGs out of the precache', () => {
    const html = fs.readFileSync(path.join(ROOT, 'web', 'dist', 'index.html'), 'utf8');
    const first = [...html.matchAll(/(?:src|href)="\/assets\/([^"]+\.(?:js|css))"/g)].map((m) => m[1]!);
    expect(first.length).toBeGreaterThan(0);
    // The picker's data (a name only it has) and the lightbox's code and styles (its class prefix).
    const markers = ['face with tears of joy', 'yarl__'];
    for (const file of first) {
      const code = fs.readFileSync(path.join(ASSETS, file), 'utf8');
      for (const marker of markers) expect(code, `${file} holds "${marker}"`).not.toContain(marker);
    }
    const scripts = fs.readdirSync(ASSETS).filter((file) => file.endsWith('.js'));
    const holders = (marker: string) => scripts.filter((file) => fs.readFileSync(path.join(ASSETS, file), 'utf8').includes(marker));
    expect(holders('face with tears of joy')).toHaveLength(1);
    expect(holders('yarl__').length).toBeGreaterThan(0);
    // The set itself: served from the build, one file per emoji, and not precached by the service worker.
    const emoji = fs.readdirSync(path.join(ASSETS, 'emoji'));
    expect(emoji).toHaveLength(1);
    const svgs = fs.readdirSync(path.join(ASSETS, 'emoji', emoji[0]!)).filter((f) => f.endsWith('.svg'));
    expect(svgs.length).toBeGreaterThan(3600);
    const sw = fs.readFileSync(path.join(ROOT, 'web', 'dist', 'sw.js'), 'utf8');
    expect(sw).not.toMatch(/assets\/emoji\/[^"']+\.svg/);
    expect(sw).toContain('parley-emoji');
  });
});
