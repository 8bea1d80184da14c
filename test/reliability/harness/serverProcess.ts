/**
 * Runs the API server as a real OS process (`node --import tsx src/server/main.ts`), the way it is deployed.
 *
 * `node --import tsx` rather than the `tsx` CLI: the CLI forks a second node process, so SIGKILL on
 * its pid would leave the actual server running. Here the pid we hold IS the server.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { MALLOC_SETTING_ENV } from '../../../src/server/mallocSetting';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const SERVER_ENTRY = path.join(REPO_ROOT, 'src/server/main.ts');

export interface ServerOptions {
  /** Label used in logs and error messages. */
  readonly name: string;
  /** Extra environment (DATABASE_URL, DATA_DIR, FAULT_INJECTION, …). PORT is chosen here. */
  readonly env?: Record<string, string | undefined>;
  /** Reuse a port (restart after a crash on the same address). */
  readonly port?: number;
  readonly readyTimeoutMs?: number;
}

export interface ServerProcess {
  readonly name: string;
  readonly port: number;
  readonly baseUrl: string;
  readonly pid: number;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  isRunning(): boolean;
  kill(signal: NodeJS.Signals): void;
  /** SIGTERM, then SIGKILL if it has not exited after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.unref();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      if (typeof address !== 'object' || !address) return reject(new Error('no address'));
      probe.close(() => resolve(address.port));
    });
  });
}

export async function startServer(options: ServerOptions): Promise<ServerProcess> {
  const port = options.port ?? (await freePort());
  const child = spawn(process.execPath, ['--import', 'tsx', SERVER_ENTRY], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      NODE_ENV: 'test',
      HOST: '127.0.0.1',
      ...MALLOC_SETTING_ENV,
      ...options.env,
      PORT: String(port),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  let alive = true;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      alive = false;
      running.delete(child);
      resolve({ code, signal });
    });
  });

  const baseUrl = `http://127.0.0.1:${port}`;
  const server: ServerProcess = {
    name: options.name,
    port,
    baseUrl,
    pid: child.pid!,
    output: () => output,
    exited,
    isRunning: () => alive,
    kill: (signal) => {
      if (alive) child.kill(signal);
    },
    async stop(graceMs = 10_000) {
      if (!alive) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };

  await waitUntilListening(server, options.readyTimeoutMs ?? 90_000);
  return server;
}

/** Ready = the process answers HTTP at all (any status). Migrations run before listen. */
async function waitUntilListening(server: ServerProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!server.isRunning()) {
      const { code, signal } = await server.exited;
      throw new Error(`server ${server.name} exited before listening (code ${code}, signal ${signal}):\n${server.output()}`);
    }
    try {
      await fetch(`${server.baseUrl}/api/v1/health`, { signal: AbortSignal.timeout(2_000) });
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
  }
  server.kill('SIGKILL');
  throw new Error(`server ${server.name} did not listen within ${timeoutMs} ms:\n${server.output()}`);
}
