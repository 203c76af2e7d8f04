import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PARLEY_LISTENING, announced, freshPostgresSchema } from '../harness.js';

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
  /** What a load balancer would be: the PUBLIC_URL every instance writes into links (nothing listens there). */
  publicUrl: string;
  /** The REDIS_PREFIX the instances share (a test can read their checkpoints through it). */
  redisPrefix: string;
  instances: Instance[];
  start(): Promise<Instance>;
  close(): Promise<void>;
}

/** Real Parley processes sharing one PostgreSQL schema, one Redis namespace and one uploads directory. */
export async function startCluster(count: number, env: Record<string, string> = {}): Promise<Cluster> {
  const schema = await freshPostgresSchema();
  const prefix = `parley-test-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}:`;
  const shared = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-cluster-'));
  // No instance's own address: links must work whichever instance wrote them, so they name
  // the load balancer (none listens there; tests use the paths against an instance).
  const publicUrl = 'http://parley-lb.test';
  const instances: Instance[] = [];

  async function start(): Promise<Instance> {
    const dataDir = fs.mkdtempSync(path.join(shared, 'node-'));
    let out = '';
    const proc = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        // The system assigns the port as the instance binds; it prints where it listens.
        PORT: '0',
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        UPLOADS_DIR: path.join(shared, 'uploads'),
        PUBLIC_URL: publicUrl,
        DATABASE_URL: schema.url,
        REDIS_URL: process.env.REDIS_URL!,
        REDIS_PREFIX: prefix,
        LOG_LEVEL: 'warn',
        GATEWAY_HEARTBEAT_MS: '500',
        PRESENCE_FANOUT_MAX: '0',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    proc.stdout!.on('data', (d) => (out += d));
    proc.stderr!.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
    const url = await announced(proc, PARLEY_LISTENING).then(
      (m) => m[1]!,
      (err: Error) => {
        proc.kill('SIGKILL');
        throw new Error(`instance did not start: ${err.message}`);
      },
    );
    // The line comes after listen() resolved: the instance answers from here on.
    const health = await fetch(`${url}/healthz`);
    if (!health.ok) throw new Error(`instance at ${url} is not healthy (${health.status}):\n${out}`);
    const gatewayUrl = `${url.replace(/^http:/, 'ws:')}/gateway`;
    const inst = { url, gatewayUrl, proc, exited, output: () => out };
    instances.push(inst);
    return inst;
  }

  for (let i = 0; i < count; i++) await start();
  return {
    publicUrl,
    redisPrefix: prefix,
    instances,
    start,
    async close() {
      for (const i of instances) if (i.proc.exitCode === null) i.proc.kill('SIGKILL');
      await Promise.all(instances.map((i) => i.exited));
      await schema.drop();
      fs.rmSync(shared, { recursive: true, force: true });
    },
  };
}
