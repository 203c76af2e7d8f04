/** Runs the real `parley` command (src/cli/parley.ts through tsx, what bin/parley.js runs once built) as a child process. */
import { spawn } from 'node:child_process';
import path from 'node:path';

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

const ROOT = path.resolve(import.meta.dirname, '..', '..');

/**
 * `parley <args>` with `env` over a clean environment (no DATABASE_URL or REDIS_URL unless
 * given); `input` is written to its standard input. Resolves when it exits.
 */
export function parley(args: string[], env: Record<string, string>, input = ''): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/parley.ts', ...args], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: '', REDIS_URL: '', UPLOADS_DIR: '', TEST_DATABASE: '', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}
