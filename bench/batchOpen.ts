/**
 * The photo on screen first: in the studio, the time from opening photos (the file input's change)
 * to the first mask drawn on the photo shown, for one photo alone and for a batch of 20 opened at
 * once, taking turns. The user clicks as soon as the photo shows, so the time includes its analysis
 * (the encoder run) and however long it waited behind the rest of the batch. Each run is a fresh
 * browser context (nothing stored from an earlier run), timed from a studio whose model is ready.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { MASK_ON_SCREEN_MARK } from '../src/app/components/maskOnScreenMark';

export interface BatchOpenTimes {
  /** Open one photo → first mask on it (ms). */
  single: number[];
  /** Open `batchSize` photos at once → first mask on the photo shown (ms). */
  batch: number[];
  batchSize: number;
  /** The photo shown after the batch opened, each run: the batch's first file when the studio shows it first. */
  shown: string[];
}

/** The first `count` photos of a folder, by name (COCO file names share their start, as real batches do). */
export function batchPhotos(folder: string, count: number): string[] {
  const names = readdirSync(folder).filter((n) => /\.(jpe?g|png)$/i.test(n)).sort();
  if (names.length < count) throw new Error(`${folder} has ${names.length} photos; the batch needs ${count}`);
  return names.slice(0, count).map((n) => join(folder, n));
}

/** Opens `files` in a fresh studio with its model ready, clicks the middle of the photo shown as soon as it shows; ms to the mask. */
async function openAndClick(browser: Browser, base: string, files: readonly string[]): Promise<{ ms: number; shown: string }> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  try {
    const page = await context.newPage();
    await page.goto(`${base}/`);
    await page.getByTestId('engine-phase').filter({ hasText: 'Model ready' }).waitFor({ timeout: 300_000 });
    await page.evaluate(() => {
      const w = window as unknown as { benchOpened?: number; benchPointerDown?: number };
      addEventListener('change', (e) => (w.benchOpened = e.timeStamp), { capture: true, once: true });
      addEventListener('pointerdown', (e) => (w.benchPointerDown = e.timeStamp), { capture: true, once: true });
    });
    await page.getByLabel('Open image').setInputFiles([...files]);
    const shown = page.locator('.thumb[aria-current="true"] .thumb-name');
    await shown.waitFor();
    await page.waitForFunction(() => /\d/.test(document.querySelector('[data-testid="canvas"]')?.getAttribute('data-camera') ?? ''));
    const at = await middleOfPhoto(page);
    await page.mouse.click(at.x, at.y);
    const ms = (await page.evaluate(`new Promise((resolve, reject) => {
      const deadline = performance.now() + 240000;
      const look = () => {
        const drawn = performance.getEntriesByName(${JSON.stringify(MASK_ON_SCREEN_MARK)}).find((e) => e.startTime >= window.benchPointerDown);
        if (drawn) resolve(drawn.startTime - window.benchOpened);
        else if (performance.now() > deadline) reject(new Error('no mask on screen within 240 s of the click'));
        else setTimeout(look, 5);
      };
      look();
    })`)) as number;
    return { ms, shown: (await shown.textContent()) ?? '' };
  } finally {
    await context.close();
  }
}

async function middleOfPhoto(page: Page): Promise<{ x: number; y: number }> {
  const host = page.getByTestId('canvas');
  const box = await host.boundingBox();
  const [scale, x, y] = (await host.getAttribute('data-camera'))!.split(',').map(Number);
  const size = await page.evaluate(() => {
    const image = document.querySelector('.thumb[aria-current="true"]')?.getAttribute('title') ?? '';
    const match = /(\d+)×(\d+)$/.exec(image);
    return match ? { width: Number(match[1]), height: Number(match[2]) } : null;
  });
  if (!box || !size) throw new Error('the studio shows no photo');
  return { x: box.x + (size.width / 2) * scale + x, y: box.y + (size.height / 2) * scale + y };
}

/** `runs` rounds, single and batch taking turns (the order alternating), after one unmeasured single run. */
export async function firstMaskWhileBatchOpens(browser: Browser, base: string, photos: readonly string[], runs: number, log: (line: string) => void): Promise<BatchOpenTimes> {
  const times: BatchOpenTimes = { single: [], batch: [], batchSize: photos.length, shown: [] };
  const single = async () => times.single.push((await openAndClick(browser, base, photos.slice(0, 1))).ms);
  const batch = async () => {
    const { ms, shown } = await openAndClick(browser, base, photos);
    times.batch.push(ms);
    times.shown.push(shown);
  };
  await openAndClick(browser, base, photos.slice(0, 1));
  for (let round = 0; round < runs; round++) {
    for (const step of round % 2 === 0 ? [single, batch] : [batch, single]) await step();
    log(`batch open, round ${round}: one photo ${times.single.at(-1)!.toFixed(0)} ms, ${photos.length} photos ${times.batch.at(-1)!.toFixed(0)} ms (shown: ${times.shown.at(-1)})`);
  }
  return times;
}
