/**
 * Request logs (docs/deploy.md#starting-and-logs): one line per request at `info`, with method, URL,
 * status and time; the arrival line only at `debug`; none at `warn`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type App, buildApp } from '../../src/app.js';
import { type Config, loadConfig } from '../../src/config.js';

let running: { app: App; dataDir: string } | undefined;
afterEach(async () => {
  await running?.app.close();
  if (running) fs.rmSync(running.dataDir, { recursive: true, force: true });
  running = undefined;
});

/** A server at `level` whose log lines are captured; makes the given requests and returns the lines they wrote. */
async function linesFor(level: Config['logLevel'], paths: string[]): Promise<Array<Record<string, unknown>>> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-reqlog-'));
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, PUBLIC_URL: 'http://127.0.0.1:0', LOG_LEVEL: level });
  const lines: string[] = [];
  const app = await buildApp(config, { logDestination: { write: (line: string) => lines.push(line) } });
  running = { app, dataDir };
  await app.app.listen({ port: 0, host: '127.0.0.1' });
  const start = lines.length;
  for (const p of paths) await (await fetch(`${app.ctx.publicUrl}${p}`)).arrayBuffer();
  // A request's line is written as its answer finishes; one more request through the
  // same queue of hooks makes sure the lines of those above are in (no fixed wait).
  await app.app.inject({ method: 'GET', url: '/healthz' });
  return lines
    .slice(start)
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => String(l.url ?? (l.req as { url?: string } | undefined)?.url).startsWith('/nowhere'));
}

describe('request logs', () => {
  it('info: exactly one line per request, with method, URL, status and time', async () => {
    const lines = await linesFor('info', ['/nowhere-1', '/nowhere-2']);
    expect(lines.map((l) => [l.msg, l.method, l.url, l.status])).toEqual([
      ['request', 'GET', '/nowhere-1', 404],
      ['request', 'GET', '/nowhere-2', 404],
    ]);
    for (const l of lines) expect(typeof l.ms).toBe('number');
  });

  it('info: a request refused before routing (a malformed URL) has its one line too', async () => {
    const lines = await linesFor('info', ['/nowhere/%E0%A4%A']);
    expect(lines.map((l) => [l.msg, l.url, l.status])).toEqual([['request', '/nowhere/%E0%A4%A', 400]]);
  });

  it('debug: the arrival is logged too, with the client address', async () => {
    const lines = await linesFor('debug', ['/nowhere-3']);
    expect(lines.map((l) => l.msg)).toEqual(['incoming request', 'request']);
    expect(lines[0]!.req).toMatchObject({ method: 'GET', url: '/nowhere-3', remoteAddress: '127.0.0.1' });
  });

  it('warn: no line for a request', async () => {
    expect(await linesFor('warn', ['/nowhere-4'])).toEqual([]);
  });
});
