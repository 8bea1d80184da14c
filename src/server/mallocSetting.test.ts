import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KEEP_DEFAULT_ENV, MMAP_THRESHOLD_BYTES, mallocRelaunchEnv } from './mallocSetting';

describe('mallocRelaunchEnv', () => {
  it('starts again with the threshold on glibc when nothing chose one, and not otherwise', () => {
    expect(mallocRelaunchEnv({ PORT: '1' }, true)).toMatchObject({ PORT: '1', MALLOC_MMAP_THRESHOLD_: MMAP_THRESHOLD_BYTES });
    expect(mallocRelaunchEnv({}, false)).toBeUndefined();
    expect(mallocRelaunchEnv({ MALLOC_MMAP_THRESHOLD_: '65536' }, true)).toBeUndefined();
    expect(mallocRelaunchEnv({ [KEEP_DEFAULT_ENV]: 'glibc-default' }, true)).toBeUndefined();
  });
});

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

const environOf = (pid: number) => readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
const childrenOf = (pid: number) => readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
/** Running: its /proc entry is there and it is not a zombie waiting to be reaped. */
const alive = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
  } catch {
    return false;
  }
};

describe.runIf(process.platform === 'linux' && process.report?.getReport && 'glibcVersionRuntime' in ((process.report.getReport() as { header: object }).header))(
  'the server started with plain node',
  () => {
    it('serves from a process with the malloc setting, which ends when the first one is killed outright', async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'mw-malloc-'));
      const port = await freePort();
      const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, DATABASE_URL: '', STRIPE_SECRET_KEY: '', LOG_LEVEL: 'warn', INFERENCE_WORKERS: '1' };
      delete env.MALLOC_MMAP_THRESHOLD_;
      delete env[KEEP_DEFAULT_ENV];
      const first = spawn(process.execPath, ['--import', 'tsx', 'src/server/main.ts'], { env, stdio: 'ignore' });
      try {
        let healthy = false;
        for (let i = 0; i < 300 && !healthy; i++) {
          healthy = await fetch(`http://127.0.0.1:${port}/api/v1/health`).then((r) => r.ok, () => false);
          if (!healthy) await new Promise((r) => setTimeout(r, 200));
        }
        expect(healthy).toBe(true);
        const [serving] = childrenOf(first.pid!);
        expect(serving).toBeGreaterThan(0);
        expect(environOf(serving)).toContain(`MALLOC_MMAP_THRESHOLD_=${MMAP_THRESHOLD_BYTES}`);
        first.kill('SIGKILL');
        let gone = false;
        for (let i = 0; i < 50 && !gone; i++) {
          await new Promise((r) => setTimeout(r, 100));
          gone = !alive(serving);
        }
        expect(gone).toBe(true);
      } finally {
        first.kill('SIGKILL');
        rmSync(dataDir, { recursive: true, force: true });
      }
    }, 90_000);
  },
);
