import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PARLEY_LISTENING, announced } from '../harness.js';

/**
 * `src/main.ts` itself (a child process): a promise that fails with nobody awaiting it is
 * reported and the service keeps serving (docs/security.md, "Failures: the database going
 * away"); before, Node's default ended the process.
 */

const ROOT = path.resolve(import.meta.dirname, '..', '..');
let child: ChildProcess | undefined;
let dataDir: string | undefined;
afterEach(() => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  child = undefined;
  dataDir = undefined;
});

describe('the process', () => {
  it('reports an unhandled rejection and keeps serving; SIGTERM still ends it cleanly', async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-proc-'));
    const proc = spawn(process.execPath, ['--import', 'tsx', '--import', './test/fixtures/reject-on-signal.mjs', 'src/main.ts'], {
      cwd: ROOT,
      env: { ...process.env, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', DATABASE_URL: '', REDIS_URL: '', LOG_LEVEL: 'error' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = proc;
    const [, base] = (await announced(proc, PARLEY_LISTENING)) as unknown as [string, string];
    const reported = announced(proc, /unhandled promise rejection/);
    proc.kill('SIGUSR2');
    const line = (await reported).input;
    expect(line).toContain('an unawaited failure');
    const health = await fetch(`${base}/healthz`);
    expect(health.status).toBe(200);
    expect(proc.exitCode).toBeNull();
    const exited = new Promise<number | null>((r) => proc.once('exit', r));
    proc.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 60_000);
});
