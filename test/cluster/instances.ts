import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, freshPostgresSchema } from '../harness.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** True when PostgreSQL and Redis are configured; under CI their absence is an error. */
export function clusterServicesAvailable(): boolean {
  const ok = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL);
  if (!ok && process.env.PARLEY_REQUIRE_SERVICES === '1') {
    throw new Error('PARLEY_REQUIRE_SERVICES=1 but DATABASE_URL or REDIS_URL is not set: the cluster suite cannot be skipped');
  }
  return ok;
}

export interface Instance {
  url: string;
  gatewayUrl: string;
  proc: ChildProcess;
  exited: Promise<number | null>;
  output: () => string;
}

export interface Cluster {
  /** What a load balancer would be: the PUBLIC_URL every instance writes into links. */
  publicUrl: string;
  instances: Instance[];
  start(): Promise<Instance>;
  close(): Promise<void>;
}

/** Real Parley processes sharing one PostgreSQL schema, one Redis namespace and one uploads directory. */
export async function startCluster(count: number, env: Record<string, string> = {}): Promise<Cluster> {
  const schema = await freshPostgresSchema();
  const prefix = `parley-test-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}:`;
  const shared = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-cluster-'));
  const firstPort = await freePort();
  const publicUrl = `http://127.0.0.1:${firstPort}`;
  const instances: Instance[] = [];

  async function start(port?: number): Promise<Instance> {
    const p = port ?? (await freePort());
    const dataDir = fs.mkdtempSync(path.join(shared, 'node-'));
    let out = '';
    const proc = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        PORT: String(p),
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        UPLOADS_DIR: path.join(shared, 'uploads'),
        PUBLIC_URL: publicUrl,
        DATABASE_URL: schema.url,
        REDIS_URL: process.env.REDIS_URL!,
        REDIS_PREFIX: prefix,
        LOG_LEVEL: 'warn',
        GATEWAY_HEARTBEAT_MS: '500',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    proc.stdout!.on('data', (d) => (out += d));
    proc.stderr!.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
    const url = `http://127.0.0.1:${p}`;
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (proc.exitCode !== null) throw new Error(`instance exited during start:\n${out}`);
      try {
        if ((await fetch(`${url}/healthz`)).ok) break;
      } catch {
        /* not listening yet */
      }
      if (Date.now() > deadline) throw new Error(`instance did not start:\n${out}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const inst = { url, gatewayUrl: `ws://127.0.0.1:${p}/gateway`, proc, exited, output: () => out };
    instances.push(inst);
    return inst;
  }

  await start(firstPort);
  for (let i = 1; i < count; i++) await start();
  return {
    publicUrl,
    instances,
    start: () => start(),
    async close() {
      for (const i of instances) if (i.proc.exitCode === null) i.proc.kill('SIGKILL');
      await Promise.all(instances.map((i) => i.exited));
      await schema.drop();
      fs.rmSync(shared, { recursive: true, force: true });
    },
  };
}
