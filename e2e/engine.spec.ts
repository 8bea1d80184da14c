/**
 * The browser engine alone, in the production build: the engine worker (onnxruntime-web) loads the
 * real models, embeds a real photo and turns a click into polygons. Driven through the bench page
 * (bench/browser/), which exposes the worker client as `window.maskwrightBench`.
 */
import { expect, test, type Page } from '@playwright/test';
import type { PolygonWithHoles, Ring } from '../src/engine/types';

async function openBenchPage(page: Page): Promise<void> {
  await page.goto('/bench/browser/');
  await expect(page.locator('body')).toHaveAttribute('data-ready', 'true');
}

function ringArea(ring: Ring): number {
  let twice = 0;
  for (let i = 0; i < ring.length; i++) {
    const [x0, y0] = ring[i];
    const [x1, y1] = ring[(i + 1) % ring.length];
    twice += x0 * y1 - x1 * y0;
  }
  return Math.abs(twice) / 2;
}

function ringContains(ring: Ring, x: number, y: number): boolean {
  let inside = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [xi, yi] = ring[i];
    const [xj, yj] = ring[j];
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

function polygonArea(p: PolygonWithHoles): number {
  return ringArea(p.outer) - p.holes.reduce((sum, h) => sum + ringArea(h), 0);
}

test('a click on the coffee in coffee.png gives a polygon around it, on multithreaded WASM in an isolated page', async ({ page }) => {
  await openBenchPage(page);
  const click = { x: 290, y: 140 };
  const result = await page.evaluate((c) => window.maskwrightBench.segmentOnce('/samples/coffee.png', c), click);

  expect(result.crossOriginIsolated).toBe(true);
  // Headless Chromium here has no WebGPU adapter, so the fallback must be threaded WASM, and say why.
  expect(result.backend.name).toBe('wasm-multithreaded');
  expect(result.backend.threads).toBeGreaterThanOrEqual(2);
  expect(result.backend.detail).toMatch(/WebGPU/);

  // Streamed download progress for both models, ending at their full size.
  for (const model of ['encoder', 'decoder'] as const) {
    const last = result.progress.filter((p) => p.model === model).at(-1);
    expect(last, `progress for the ${model}`).toBeDefined();
    expect(last!.totalBytes).toBeGreaterThan(1_000_000);
    expect(last!.loadedBytes).toBe(last!.totalBytes);
  }

  expect(result.polygons.length).toBeGreaterThanOrEqual(1);
  const largest = [...result.polygons].sort((a, b) => polygonArea(b) - polygonArea(a))[0];
  expect(ringContains(largest.outer, click.x, click.y)).toBe(true);
  const imageArea = result.imageWidth * result.imageHeight;
  // The coffee (or the cup around it), not a speck and not the whole table.
  expect(polygonArea(largest) / imageArea).toBeGreaterThan(0.02);
  expect(polygonArea(largest) / imageArea).toBeLessThan(0.6);
  expect(largest.outer.length).toBeGreaterThanOrEqual(8);
  for (const [x, y] of largest.outer) {
    expect(x).toBeGreaterThanOrEqual(0);
    expect(x).toBeLessThanOrEqual(result.imageWidth);
    expect(y).toBeGreaterThanOrEqual(0);
    expect(y).toBeLessThanOrEqual(result.imageHeight);
  }
  // The polygons describe the mask they came from.
  expect(Math.abs(result.polygons.reduce((s, p) => s + polygonArea(p), 0) - result.area) / result.area).toBeLessThan(0.05);
  expect(result.score).toBeGreaterThan(0.5);
});

test('after the first visit the models come from the Cache API, so the engine starts offline', async ({ page }) => {
  await openBenchPage(page);
  const first = await page.evaluate(() => window.maskwrightBench.startEngine());
  expect(first.modelSource).toBe('network');

  let modelRequests = 0;
  await page.route('**/models/*.onnx', (route) => {
    modelRequests++;
    return route.abort('internetdisconnected');
  });
  const second = await page.evaluate(() => window.maskwrightBench.startEngine());
  expect(second.modelSource).toBe('cache');
  expect(second.backend.name).toBe(first.backend.name);
  expect(modelRequests).toBe(0);
  const lastEncoder = second.progress.filter((p) => p.model === 'encoder').at(-1);
  expect(lastEncoder?.loadedBytes).toBe(lastEncoder?.totalBytes);
});

test('single-threaded WASM can be forced and is reported as such', async ({ page }) => {
  await openBenchPage(page);
  const started = await page.evaluate(() => window.maskwrightBench.startEngine({ backend: 'wasm-single-threaded' }));
  expect(started.backend).toMatchObject({ name: 'wasm-single-threaded', threads: 1 });
});
