/**
 * Browser-test helpers: build the web client when it is missing or stale, launch
 * Debian's Chromium through playwright-core, and open pages logged in as a user.
 * A browser suite starts with `browserSuite()`, which does all of that around one server.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { type StartOptions, startServer, type TestServer } from '../harness.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const WEB = path.join(ROOT, 'web');
const DIST_INDEX = path.join(WEB, 'dist', 'index.html');
export const SHOTS = path.join(ROOT, 'test-results', 'web');

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export function newestMtime(p: string): number {
  if (!fs.existsSync(p)) return 0;
  const st = fs.statSync(p);
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const entry of fs.readdirSync(p)) {
    if (entry === 'dist' || entry === 'node_modules') continue;
    newest = Math.max(newest, newestMtime(path.join(p, entry)));
  }
  return newest;
}

/** Runs `vite build` for web/ unless web/dist is newer than every source file (the SDK's included: the client bundles it). */
export function ensureWebBuilt(): void {
  const built = fs.existsSync(DIST_INDEX) ? fs.statSync(DIST_INDEX).mtimeMs : 0;
  const sources = Math.max(
    newestMtime(path.join(WEB, 'src')),
    newestMtime(path.join(ROOT, 'sdk', 'src')),
    newestMtime(path.join(WEB, 'public')),
    newestMtime(path.join(WEB, 'index.html')),
    newestMtime(path.join(WEB, 'vite.config.ts')),
    newestMtime(path.join(WEB, 'build')),
  );
  if (built > sources) return;
  const vite = path.join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js');
  execFileSync(process.execPath, [vite, 'build', '--config', 'web/vite.config.ts', '--logLevel', 'warn'], {
    cwd: ROOT,
    // vitest sets NODE_ENV=test, which would make Vite emit React's development build.
    env: { ...process.env, NODE_ENV: 'production' },
    stdio: 'pipe',
    timeout: 180_000,
  });
}

export async function launchBrowser(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(`Chromium not found at ${CHROMIUM}: install it with "apt-get install -y chromium" or set CHROMIUM_PATH`);
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-quic',
      '--no-first-run',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export interface OpenPage {
  context: BrowserContext;
  page: Page;
  /** Uncaught exceptions in the page; tests assert there are none. */
  errors: string[];
}

export interface OpenPageOptions {
  token?: string;
  path?: string;
  colorScheme?: 'light' | 'dark';
  width?: number;
  height?: number;
  /** Runs before the first navigation (routes to install, such as a gateway proxy). */
  prepare?: (page: Page) => Promise<void>;
  /**
   * The client's service worker (the PWA's offline shell) is blocked unless a test asks
   * for it (test/web/pwa.test.ts): elsewhere every request should reach the server.
   */
  serviceWorkers?: 'allow' | 'block';
}

/** A fresh context (own storage) with clipboard access, optionally logged in. */
export async function openPage(browser: Browser, base: string, opts: OpenPageOptions = {}): Promise<OpenPage> {
  const context = await browser.newContext({
    viewport: { width: opts.width ?? 1280, height: opts.height ?? 800 },
    colorScheme: opts.colorScheme ?? 'light',
    deviceScaleFactor: 1,
    serviceWorkers: opts.serviceWorkers ?? 'block',
  });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(String(err)));
  // WEB_TEST_CONSOLE=1 prints the page's console warnings and errors (useful with a dev build).
  if (process.env.WEB_TEST_CONSOLE) {
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') console.log(`[page ${m.type()}] ${m.text().slice(0, 800)}`);
    });
  }
  await opts.prepare?.(page);
  if (opts.token) {
    await page.goto(`${base}/login`);
    await page.evaluate((t) => (globalThis as any).localStorage.setItem('parley.token', t), opts.token);
  }
  await page.goto(base + (opts.path ?? '/'));
  return { context, page, errors };
}

export interface BrowserSuite {
  /** The suite's server (started in `beforeAll`). */
  readonly srv: TestServer;
  /** Its base URL, e.g. http://127.0.0.1:40123. */
  readonly url: string;
  readonly browser: Browser;
  /** `openPage` on the suite's server (or on `opts.base`); the page's context closes with the suite. */
  open(opts?: OpenPageOptions & { base?: string }): Promise<OpenPage>;
  /** Closes `context` with the suite, for contexts a test makes itself (`browser.newContext`). */
  track<T extends BrowserContext>(context: T): T;
}

/**
 * The set-up every browser suite shares, registered as the file's `beforeAll`/`afterAll`:
 * builds the web client if stale, starts a Parley (rate limits off unless `env` says
 * otherwise), launches Chromium; afterwards closes every page opened through it, the
 * browser and the server, in that order (a live page would keep reconnecting).
 */
export function browserSuite(opts: Omit<StartOptions, 'env'> & { env?: Record<string, string> } = {}): BrowserSuite {
  let srv: TestServer | undefined;
  let browser: Browser | undefined;
  const contexts: BrowserContext[] = [];
  const started = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`browserSuite: ${what} is used before beforeAll started it`);
    return value;
  };

  beforeAll(async () => {
    ensureWebBuilt();
    srv = await startServer({ ...opts, env: { RATE_LIMITS: 'off', ...opts.env } });
    browser = await launchBrowser();
  }, 240_000);

  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close();
    await srv?.close();
  });

  const suite: BrowserSuite = {
    get srv() {
      return started(srv, 'the server');
    },
    get url() {
      return started(srv, 'the server').url;
    },
    get browser() {
      return started(browser, 'the browser');
    },
    async open({ base, ...pageOpts } = {}) {
      const o = await openPage(suite.browser, base ?? suite.url, pageOpts);
      contexts.push(o.context);
      return o;
    },
    track(context) {
      contexts.push(context);
      return context;
    },
  };
  return suite;
}

export async function screenshot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(SHOTS, { recursive: true });
  const file = path.join(SHOTS, `${name}.png`);
  await page.screenshot({ path: file });
  return file;
}

function crc32(buf: Buffer): number {
  let c = ~0;
  for (const byte of buf) {
    c ^= byte;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
  }
  return ~c >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/** A small gradient PNG for attachment tests. */
export function makePng(width = 160, height = 90): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // colour type: RGB
  const raw = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++) {
    const row = y * (width * 3 + 1);
    for (let x = 0; x < width; x++) {
      const o = row + 1 + x * 3;
      raw[o] = Math.round((x / width) * 255);
      raw[o + 1] = Math.round((y / height) * 200);
      raw[o + 2] = 220;
    }
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', zlib.deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
