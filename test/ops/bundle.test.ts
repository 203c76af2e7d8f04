/**
 * `npm start` runs the bundled server (dist/server/main.js, made by scripts/bundle-server.mjs),
 * not the modules the other suites load through tsx. This suite starts that file as a
 * child process and drives what depends on the bundle being whole: start-up and
 * migrations, registration (the common-password list stays outside the bundle and is
 * imported on first use), a message, a multipart upload, the gateway, the OpenAPI
 * document and the /docs page (its static files come from a package outside the bundle).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { PARLEY_LISTENING, announced } from '../harness.js';
import { call, createServer, postMessage, registerUser, upload } from '../factories.js';
import { newestMtime } from '../web/browser.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const BUNDLE = path.join(ROOT, 'dist', 'server', 'main.js');

/** Builds the bundle when it is missing or older than the sources it is made from. */
function ensureBundled(): void {
  const built = fs.existsSync(BUNDLE) ? fs.statSync(BUNDLE).mtimeMs : 0;
  const sources = Math.max(
    newestMtime(path.join(ROOT, 'src')),
    newestMtime(path.join(ROOT, 'protocol', 'src')),
    fs.statSync(path.join(ROOT, 'scripts', 'bundle-server.mjs')).mtimeMs,
  );
  if (built > sources) return;
  execFileSync('npm', ['run', '--silent', 'build:protocol'], { cwd: ROOT, stdio: 'ignore' });
  execFileSync('npm', ['run', '--silent', 'build:server'], { cwd: ROOT, stdio: 'inherit' });
}

describe('the bundled server that npm start runs', () => {
  let child: ChildProcess;
  let base: string;
  let dataDir: string;

  beforeAll(async () => {
    ensureBundled();
    const start = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts.start as string;
    expect(start).toBe('node dist/server/main.js');
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-bundle-'));
    child = spawn(process.execPath, [BUNDLE], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, PORT: '0', HOST: '127.0.0.1', PUBLIC_URL: 'http://127.0.0.1:0', DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    [, base] = (await announced(child, PARLEY_LISTENING)) as unknown as [string, string];
  });

  afterAll(async () => {
    if (child && child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('registers, refuses a common password, posts, uploads and serves its documents', async () => {
    const common = await call(base, 'POST', '/auth/register', { body: { username: 'weakling', password: 'password123' } });
    expect(common.status).toBe(400);
    expect(common.body.code).toBeTypeOf('string');

    const owner = await registerUser(base);
    const { general } = await createServer(base, owner);
    const message = await postMessage(base, owner.auth, general.id, 'hello from the bundle');
    const history = await call(base, 'GET', `/channels/${general.id}/messages`, { auth: owner.auth });
    expect(history.body.map((m: { id: string }) => m.id)).toContain(message.id);

    const file = await upload(base, owner.auth, 'plain text', 'note.txt', 'text/plain');
    expect(file.status).toBe(200);
    expect((await fetch(file.body.url.startsWith('http') ? file.body.url : base + file.body.url)).status).toBe(200);

    const openapi = await call(base, 'GET', '/openapi.json');
    expect(openapi.status).toBe(200);
    expect(openapi.body.paths[`/channels/{channelId}/messages`]).toBeDefined();
    const docs = await fetch(`${base}/docs/`);
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain('swagger');

    const missing = await call(base, 'GET', '/no-such-route');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ code: expect.any(String), error: expect.any(String) });
  });

  it('greets a gateway client and answers identify with ready', async () => {
    const user = await registerUser(base);
    const ws = new WebSocket(`${base.replace('http', 'ws')}/gateway`);
    const frames: Array<{ op: string; d: unknown }> = [];
    const ready = new Promise<void>((resolve, reject) => {
      ws.on('message', (data) => {
        const frame = JSON.parse(String(data));
        frames.push(frame);
        if (frame.op === 'hello') ws.send(JSON.stringify({ op: 'identify', d: { token: user.auth } }));
        if (frame.op === 'ready') resolve();
      });
      ws.on('error', reject);
    });
    await ready;
    ws.close();
    expect(frames[0]?.op).toBe('hello');
  });
});
