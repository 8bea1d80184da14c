/**
 * Backend choice when WebGPU is there but must not be used: Chromium with SwiftShader exposes a
 * software adapter. Its own file because the browser needs other launch flags.
 */
import { expect, test } from '@playwright/test';
import { chromiumLaunch } from '../playwright.config';

test.use({
  launchOptions: {
    ...chromiumLaunch,
    args: [...chromiumLaunch.args.filter((a) => a !== '--disable-gpu'), '--enable-unsafe-webgpu', '--use-webgpu-adapter=swiftshader'],
  },
});

async function openBenchPage(page: import('@playwright/test').Page): Promise<void> {
  await page.goto('/bench/browser/');
  await expect(page.locator('body')).toHaveAttribute('data-ready', 'true');
}

test('the software adapter is refused and threaded WASM runs, saying why', async ({ page }) => {
  await openBenchPage(page);
  const started = await page.evaluate(() => window.maskwrightBench.startEngine());
  expect(started.backend.name).toBe('wasm-multithreaded');
  expect(started.backend.detail).toMatch(/software fallback/);
});

test('when WebGPU hangs in its first inference, the engine restarts on WASM within the time limit', async ({ page }) => {
  await openBenchPage(page);
  // Allowed on purpose: ORT's WebGPU sessions on SwiftShader are created, then their first run hangs.
  const started = await page.evaluate(() =>
    window.maskwrightBench.startEngine({ allowFallbackAdapter: true, webGpuStartupTimeoutMs: 8_000 }),
  );
  expect(started.backend.name).toBe('wasm-multithreaded');
  expect(started.backend.detail).toMatch(/WebGPU start-up failed: .*within 8000 ms/);
});
