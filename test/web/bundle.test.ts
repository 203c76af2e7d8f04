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
});
