/**
 * glibc's malloc reads `MALLOC_MMAP_THRESHOLD_` once, when the process starts; by default it raises
 * its mmap threshold each time a large block is freed, and the export threads' multi-megabyte
 * buffers then come from heaps it never gives back (src/server/README.md, Deployment). The npm
 * scripts set it, but a server started with plain `node` or `tsx`, or by a process manager, would
 * not. So the entry points start themselves again with it when it is missing: the first process
 * only passes signals on and exits as the server does.
 */
import { spawn } from 'node:child_process';

/** The fixed threshold the server runs with: blocks from 128 KiB up are mapped, and unmapped when freed. */
export const MMAP_THRESHOLD_BYTES = '131072';

/**
 * What a process that starts a server or worker itself (a test, a benchmark) adds to its environment,
 * as the npm scripts do: the server then runs in the process started, so its pid is the server's own
 * (what a SIGKILL must reach, whose /proc a benchmark reads), not a relaunching parent's.
 */
export const MALLOC_SETTING_ENV = { MALLOC_MMAP_THRESHOLD_: MMAP_THRESHOLD_BYTES } as const;

/** Names the relaunching process in the child's environment, so the child can end with it. */
const PARENT_ENV = 'MASKWRIGHT_RELAUNCHED_BY';

/** Set to `glibc-default` to run with glibc's own malloc behaviour (the benchmarks' control). */
export const KEEP_DEFAULT_ENV = 'MASKWRIGHT_MALLOC';

/**
 * The environment to start again with, or undefined when this process should serve as it is: not
 * glibc, the threshold already chosen (by the npm scripts or the operator), or the default asked for.
 */
export function mallocRelaunchEnv(env: NodeJS.ProcessEnv, glibc: boolean): NodeJS.ProcessEnv | undefined {
  if (!glibc || env.MALLOC_MMAP_THRESHOLD_ !== undefined || env[KEEP_DEFAULT_ENV] === 'glibc-default') return undefined;
  return { ...env, MALLOC_MMAP_THRESHOLD_: MMAP_THRESHOLD_BYTES, [PARENT_ENV]: String(process.pid) };
}

/**
 * In a relaunched server: if the first process is killed outright (SIGKILL passes nothing on), this
 * one goes too, as the one process it stands for would have, instead of serving on without a parent.
 */
function endWithRelaunchingParent(): void {
  const parent = Number(process.env[PARENT_ENV]);
  if (!parent) return;
  setInterval(() => {
    if (process.ppid !== parent) process.kill(process.pid, 'SIGKILL');
  }, 250).unref();
}

function runsOnGlibc(): boolean {
  if (process.platform !== 'linux') return false;
  const header = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header;
  return typeof header?.glibcVersionRuntime === 'string';
}

/**
 * Starts this entry point again, with the same Node options and arguments, under the malloc
 * setting, when `mallocRelaunchEnv` says so; answers whether it did (the caller then serves nothing
 * itself). The child gets SIGINT, SIGTERM and SIGHUP as this process does, and its exit is this one's.
 */
export function relaunchedUnderMallocSetting(): boolean {
  const env = mallocRelaunchEnv(process.env, runsOnGlibc());
  if (!env) {
    endWithRelaunchingParent();
    return false;
  }
  // A process group of its own: a terminal's Ctrl+C reaches it once, passed on from here, not twice
  // (a second SIGINT would stop it without draining).
  const child = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], { env, stdio: 'inherit', detached: true });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => {
    if (signal) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    } else process.exit(code ?? 1);
  });
  return true;
}
