/**
 * The engine bench page (bench/browser/) served and opened in headless Chromium: built with
 * bench/vite.config.ts, served by `vite preview` on its own port, each page waiting for
 * `window.maskwrightBench`. Shared by `npm run bench` (bench/run.ts) and `bench/textBench.ts --browser`.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import type { BrowserContext, Page } from 'playwright-core';

export async function waitForServer(url: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`vite preview exited with code ${child.exitCode}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`vite preview did not answer at ${url} within ${timeoutMs} ms`);
}

export function buildBenchPage(repoRoot: string): void {
  const build = spawnSync('npx', ['vite', 'build', '--config', 'bench/vite.config.ts', '--logLevel', 'error'], {
    cwd: repoRoot,
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, VITE_CONFIG_NATIVE_IGNORE_WARNING: 'true' },
  });
  if (build.status !== 0) throw new Error('vite build of the bench page failed');
}

/** `vite preview` of the built page on 127.0.0.1:`port`; `stop` ends its whole process group. */
export async function serveBenchPage(repoRoot: string, port: number): Promise<{ base: string; stop: () => Promise<void> }> {
  const preview = spawn(
    'npx',
    ['vite', 'preview', '--config', 'bench/vite.config.ts', '--port', String(port), '--strictPort', '--host', '127.0.0.1'],
    { cwd: repoRoot, stdio: ['ignore', 'ignore', 'inherit'], detached: true, env: { ...process.env, VITE_CONFIG_NATIVE_IGNORE_WARNING: 'true' } },
  );
  const stop = async (): Promise<void> => void (preview.pid && process.kill(-preview.pid, 'SIGTERM'));
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitForServer(`${base}/bench/browser/`, preview, 60_000);
  } catch (error) {
    await stop();
    throw error;
  }
  return { base, stop };
}

export async function openBenchPage(
  browser: BrowserContext,
  base: string,
  routes: Record<string, { path?: string; body?: Buffer; contentType: string }>,
  log: (line: string) => void,
): Promise<Page> {
  const page = await browser.newPage();
  page.on('pageerror', (e) => log(`page error: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && !m.text().includes('404')) log(`page console: ${m.text()}`);
  });
  for (const [path, content] of Object.entries(routes)) {
    await page.route(`**${path}`, (route) => route.fulfill({ ...content, headers: { 'Cross-Origin-Resource-Policy': 'same-origin' } }));
  }
  await page.goto(`${base}/bench/browser/`);
  await page.waitForFunction(() => document.body.dataset.ready === 'true');
  return page;
}
