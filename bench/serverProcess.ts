/**
 * The API server as its own process for a benchmark (so the client's work does not share its
 * thread): a free loopback port, a temporary SQLite directory, the rate limit lifted so the limiter
 * does not answer instead of the path under test (its own cost is still paid), no Stripe.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

async function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const probe = createServer();
    probe.on('error', fail);
    probe.listen(0, '127.0.0.1', () => {
      const port = (probe.address() as { port: number }).port;
      probe.close(() => ok(port));
    });
  });
}

/** The process that serves: a server started without the malloc setting starts itself again as a child (src/server/mallocSetting.ts). */
function servingPid(pid: number): number {
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  return children[0] ?? pid;
}

export async function startServerProcess(tag: string, env: Record<string, string> = {}): Promise<{ url: string; pid: number; stop: () => Promise<void> }> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), `mw-bench-${tag}-`));
  const child = spawn(process.execPath, ['--import', 'tsx', join(repoRoot, 'src/server/main.ts')], {
    cwd: repoRoot,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, DATABASE_URL: '', RATE_LIMIT_PER_SECOND: '1000000', LOG_LEVEL: 'warn', STRIPE_SECRET_KEY: '', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 600; i++) {
    const health = await fetch(`${url}/api/v1/health`)
      .then(async (r) => ({ status: r.status, text: await r.text() }))
      .catch(() => undefined);
    if (health && health.status === 200 && !health.text.includes('starting')) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    pid: servingPid(child.pid!),
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
